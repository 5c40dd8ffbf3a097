//! The lexical read-only SQL guard (host/sql-guard) on any text.

#![no_main]

use ldp_sql_guard::{MAX_SQL_CHARS, check_text, first_keyword};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let sql = String::from_utf8_lossy(data);
    let keyword = first_keyword(&sql);
    // What the guard lets through starts with SELECT or WITH and is within the limit.
    if check_text(&sql).is_ok() {
        assert!(keyword == "select" || keyword == "with", "{keyword:?}");
        assert!(sql.chars().count() <= MAX_SQL_CHARS);
    }
});
