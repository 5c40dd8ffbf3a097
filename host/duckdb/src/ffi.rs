//! The part of DuckDB's C API (`duckdb.h`, stable since 1.0; the Arrow calls since 1.4) that
//! ldp calls, as function pointers taken from a `libduckdb` loaded at run time.
//!
//! Every `duckdb_*` handle is a pointer to an opaque struct, so they are all `*mut c_void`
//! here. Only `duckdb_result` is a struct the caller owns.

use std::ffi::{c_char, c_uint, c_void};

use arrow_array::ffi::FFI_ArrowArray;
use arrow_schema::ffi::FFI_ArrowSchema;
use libloading::Library;

use crate::error::{Error, Result};

/// `idx_t`.
pub(crate) type Idx = u64;
/// `duckdb_state`: 0 is success.
pub(crate) type State = c_uint;
/// Any handle (`duckdb_database`, `duckdb_connection`, ...).
pub(crate) type Handle = *mut c_void;

/// `DuckDBSuccess`.
pub(crate) const SUCCESS: State = 0;
/// `DUCKDB_STATEMENT_TYPE_SELECT`.
pub(crate) const STATEMENT_SELECT: c_uint = 1;
/// `DUCKDB_ERROR_CATALOG`.
pub(crate) const ERROR_CATALOG: c_uint = 13;
/// `DUCKDB_ERROR_INTERRUPT`.
pub(crate) const ERROR_INTERRUPT: c_uint = 29;

/// `duckdb_result`: owned by the caller, freed with `duckdb_destroy_result`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct DuckResult {
    deprecated_column_count: Idx,
    deprecated_row_count: Idx,
    deprecated_rows_changed: Idx,
    deprecated_columns: *mut c_void,
    deprecated_error_message: *mut c_char,
    internal_data: *mut c_void,
}

impl DuckResult {
    pub(crate) fn empty() -> DuckResult {
        DuckResult {
            deprecated_column_count: 0,
            deprecated_row_count: 0,
            deprecated_rows_changed: 0,
            deprecated_columns: std::ptr::null_mut(),
            deprecated_error_message: std::ptr::null_mut(),
            internal_data: std::ptr::null_mut(),
        }
    }
}

macro_rules! api {
    ($( $(#[$doc:meta])* $field:ident = $symbol:literal : fn($($arg:ty),*) $(-> $ret:ty)?; )*) => {
        /// The C functions ldp calls, resolved once.
        #[derive(Debug)]
        pub(crate) struct Api {
            $( $(#[$doc])* pub(crate) $field: unsafe extern "C" fn($($arg),*) $(-> $ret)?, )*
            /// `duckdb_execute_prepared_streaming` (deprecated upstream; a build without it
            /// runs the query materialised).
            pub(crate) execute_prepared_streaming: Option<unsafe extern "C" fn(Handle, *mut DuckResult) -> State>,
            /// `duckdb_arrow_scan` (deprecated upstream, kept by 1.4 and 1.5): a view over an
            /// `ArrowArrayStream`. A build without it runs no query over inputs.
            pub(crate) arrow_scan: Option<unsafe extern "C" fn(Handle, *const c_char, Handle) -> State>,
        }

        impl Api {
            /// Resolves every function in `library`.
            pub(crate) fn resolve(library: &'static Library, file: &str) -> Result<Api> {
                // SAFETY: the symbols are declared with the signatures of duckdb.h; the library
                // stays loaded for the life of the process (it is leaked into a static).
                unsafe {
                    Ok(Api {
                        $( $field: *library
                            .get::<unsafe extern "C" fn($($arg),*) $(-> $ret)?>(concat!($symbol, "\0").as_bytes())
                            .map_err(|e| Error::Library {
                                message: format!("{file} is not a usable libduckdb (1.4 or later): it lacks {}: {e}", $symbol),
                            })?, )*
                        execute_prepared_streaming: library
                            .get::<unsafe extern "C" fn(Handle, *mut DuckResult) -> State>(b"duckdb_execute_prepared_streaming\0")
                            .ok()
                            .map(|symbol| *symbol),
                        arrow_scan: library
                            .get::<unsafe extern "C" fn(Handle, *const c_char, Handle) -> State>(b"duckdb_arrow_scan\0")
                            .ok()
                            .map(|symbol| *symbol),
                    })
                }
            }
        }
    };
}

api! {
    library_version = "duckdb_library_version": fn() -> *const c_char;
    create_config = "duckdb_create_config": fn(*mut Handle) -> State;
    set_config = "duckdb_set_config": fn(Handle, *const c_char, *const c_char) -> State;
    destroy_config = "duckdb_destroy_config": fn(*mut Handle);
    open_ext = "duckdb_open_ext": fn(*const c_char, *mut Handle, Handle, *mut *mut c_char) -> State;
    close = "duckdb_close": fn(*mut Handle);
    free = "duckdb_free": fn(*mut c_void);
    connect = "duckdb_connect": fn(Handle, *mut Handle) -> State;
    query = "duckdb_query": fn(Handle, *const c_char, *mut DuckResult) -> State;
    disconnect = "duckdb_disconnect": fn(*mut Handle);
    interrupt = "duckdb_interrupt": fn(Handle);
    extract_statements = "duckdb_extract_statements": fn(Handle, *const c_char, *mut Handle) -> Idx;
    extract_statements_error = "duckdb_extract_statements_error": fn(Handle) -> *const c_char;
    destroy_extracted = "duckdb_destroy_extracted": fn(*mut Handle);
    prepare_extracted_statement = "duckdb_prepare_extracted_statement": fn(Handle, Handle, Idx, *mut Handle) -> State;
    prepare_error = "duckdb_prepare_error": fn(Handle) -> *const c_char;
    prepared_statement_type = "duckdb_prepared_statement_type": fn(Handle) -> c_uint;
    destroy_prepare = "duckdb_destroy_prepare": fn(*mut Handle);
    execute_prepared = "duckdb_execute_prepared": fn(Handle, *mut DuckResult) -> State;
    result_error = "duckdb_result_error": fn(*mut DuckResult) -> *const c_char;
    result_error_type = "duckdb_result_error_type": fn(*mut DuckResult) -> c_uint;
    destroy_result = "duckdb_destroy_result": fn(*mut DuckResult);
    column_count = "duckdb_column_count": fn(*mut DuckResult) -> Idx;
    column_name = "duckdb_column_name": fn(*mut DuckResult, Idx) -> *const c_char;
    column_logical_type = "duckdb_column_logical_type": fn(*mut DuckResult, Idx) -> Handle;
    destroy_logical_type = "duckdb_destroy_logical_type": fn(*mut Handle);
    result_get_arrow_options = "duckdb_result_get_arrow_options": fn(*mut DuckResult) -> Handle;
    destroy_arrow_options = "duckdb_destroy_arrow_options": fn(*mut Handle);
    to_arrow_schema = "duckdb_to_arrow_schema": fn(Handle, *mut Handle, *mut *const c_char, Idx, *mut FFI_ArrowSchema) -> Handle;
    fetch_chunk = "duckdb_fetch_chunk": fn(DuckResult) -> Handle;
    data_chunk_to_arrow = "duckdb_data_chunk_to_arrow": fn(Handle, Handle, *mut FFI_ArrowArray) -> Handle;
    destroy_data_chunk = "duckdb_destroy_data_chunk": fn(*mut Handle);
    error_data_has_error = "duckdb_error_data_has_error": fn(Handle) -> bool;
    error_data_message = "duckdb_error_data_message": fn(Handle) -> *const c_char;
    destroy_error_data = "duckdb_destroy_error_data": fn(*mut Handle);
}

/// The text of a C string DuckDB owns (lossy), or `""` for a null pointer.
pub(crate) fn text(ptr: *const c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: DuckDB returns NUL-terminated strings that live as long as their owner, which the
    // caller holds across this call.
    unsafe { std::ffi::CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned()
}
