//! The JavaScript engine (Boa): one context per stream, its limits, `console`, the script's
//! functions, and the mapping of JavaScript errors to plugin errors.

use crate::config::Config;
use boa_engine::error::{EngineError, RuntimeLimitError};
use boa_engine::module::IdleModuleLoader;
use boa_engine::object::ObjectInitializer;
use boa_engine::property::Attribute;
use boa_engine::{
    Context, JsError, JsObject, JsResult, JsString, JsValue, NativeFunction, Script, Source,
};
use ldp_plugin_sdk::PluginError;
use ldp_plugin_sdk::log::{Level, log};
use std::path::Path;
use std::rc::Rc;

/// Iterations of loops (`for`, `while`, `do`, `for...of`) allowed in one call of one function,
/// all its loops counted together. Native loops (`rows.map`, `Array.from`, ...) do not count.
pub const LOOP_ITERATION_LIMIT: u64 = 100_000_000;
/// Nested function calls allowed.
pub const RECURSION_LIMIT: usize = 1_000;
/// Values allowed on the engine's stack (arguments, locals, `f(...array)` spreads).
pub const STACK_SIZE_LIMIT: usize = 1 << 22;

/// The engine's runtime limits. Reaching one ends the call with an error of kind `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// See [`LOOP_ITERATION_LIMIT`].
    pub loop_iterations: u64,
    /// See [`RECURSION_LIMIT`].
    pub recursion: usize,
    /// See [`STACK_SIZE_LIMIT`].
    pub stack_size: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            loop_iterations: LOOP_ITERATION_LIMIT,
            recursion: RECURSION_LIMIT,
            stack_size: STACK_SIZE_LIMIT,
        }
    }
}

/// The longest line `console.log` writes; longer ones are cut.
const MAX_LOG_CHARS: usize = 8_192;
/// The longest error text of a script kept in a message (`throw new Error(JSON.stringify(rows))`).
const MAX_ERROR_CHARS: usize = 4_096;

/// Where the script was running when it failed, for messages.
#[derive(Debug, Clone, Copy)]
pub enum Stage {
    /// The script's top-level code, at open.
    Load,
    /// `schema(fields)`, at open.
    Schema,
    /// `transform(rows)` on the given batch (1-based).
    Transform(u64),
    /// `flush()`, at the end of the stream.
    Flush,
}

impl Stage {
    fn describe(self) -> String {
        match self {
            Stage::Load => "the script's top-level code".to_owned(),
            Stage::Schema => "schema(fields)".to_owned(),
            Stage::Transform(batch) => format!("transform(rows) on batch {batch}"),
            Stage::Flush => "flush()".to_owned(),
        }
    }
}

/// A loaded script: its context and the functions it defines.
pub struct Engine {
    /// The engine's context (the script's globals live here between calls).
    pub ctx: Context,
    transform: JsObject,
    schema: Option<JsObject>,
    flush: Option<JsObject>,
    /// `js transform 'name'`, the prefix of messages.
    pub label: String,
    limits: Limits,
}

impl Engine {
    /// Creates a context, runs the script's top-level code and finds its functions.
    pub fn load(config: &Config, limits: Limits) -> Result<Self, PluginError> {
        let label = config.label();
        let mut ctx = Context::builder()
            // No modules: `import()` fails instead of reading files.
            .module_loader(Rc::new(IdleModuleLoader))
            .build()
            .map_err(|e| PluginError::internal(format!("{label}: cannot start Boa: {e}")))?;
        let runtime = ctx.runtime_limits_mut();
        runtime.set_loop_iteration_limit(limits.loop_iterations);
        runtime.set_recursion_limit(limits.recursion);
        runtime.set_stack_size_limit(limits.stack_size);
        register_console(&mut ctx)
            .map_err(|e| PluginError::internal(format!("{label}: cannot set up console: {e}")))?;

        let path = config.script_path();
        let source = Source::from_bytes(config.code.as_bytes()).with_path(Path::new(&path));
        let script = Script::parse(source, None, &mut ctx).map_err(|e| {
            let text = one_line(&e.to_string());
            let text = text.strip_suffix(" (native)").unwrap_or(&text);
            let module = if text.contains("import") || text.contains("export") {
                " (the code is a script: import and export are not available)"
            } else {
                ""
            };
            PluginError::config(format!(
                "{label}: config.code does not parse: {text}{module}; fix the JavaScript"
            ))
        })?;
        script
            .evaluate(&mut ctx)
            .map_err(|e| error(&label, &limits, e, Stage::Load, &mut ctx))?;

        // Top-level `function f` and `const f = ...` both are visible to a second script.
        let lookup = "[typeof transform === 'undefined' ? undefined : transform, \
                      typeof schema === 'undefined' ? undefined : schema, \
                      typeof flush === 'undefined' ? undefined : flush]";
        let found = ctx
            .eval(Source::from_bytes(lookup))
            .map_err(|e| error(&label, &limits, e, Stage::Load, &mut ctx))?;
        let found = found
            .as_object()
            .ok_or_else(|| PluginError::internal(format!("{label}: function lookup failed")))?;
        let mut get = |index: u32| -> Result<JsValue, PluginError> {
            found
                .get(index, &mut ctx)
                .map_err(|e| PluginError::internal(format!("{label}: function lookup: {e}")))
        };
        let (transform, schema, flush) = (get(0)?, get(1)?, get(2)?);
        let transform = match transform.as_callable() {
            Some(f) => f,
            None if transform.is_undefined() => {
                return Err(PluginError::config(format!(
                    "{label}: config.code does not define transform(rows); add \
                     function transform(rows) {{ return rows.map(row => ({{ ...row }})); }}"
                )));
            }
            None => {
                return Err(PluginError::config(format!(
                    "{label}: config.code defines transform as {}, not a function; define \
                     function transform(rows) {{ ... return rows; }}",
                    transform.type_of()
                )));
            }
        };
        let optional = |value: JsValue, what: &str| match value.as_callable() {
            Some(f) => Ok(Some(f)),
            None if value.is_undefined() => Ok(None),
            None => Err(PluginError::config(format!(
                "{label}: config.code defines {what} as {}, not a function; define function \
                 {what} {{ ... }} or rename the variable",
                value.type_of()
            ))),
        };
        let schema = optional(schema, "schema(fields)")?;
        let flush = optional(flush, "flush()")?;
        Ok(Self {
            ctx,
            transform,
            schema,
            flush,
            label,
            limits,
        })
    }

    /// Calls `schema(fields)`, or gives `None` when the script does not define it.
    pub fn call_schema(&mut self, fields: JsValue) -> Result<Option<JsValue>, PluginError> {
        let Some(f) = self.schema.clone() else {
            return Ok(None);
        };
        self.call(&f, &[fields], Stage::Schema).map(Some)
    }

    /// Calls `transform(rows)` on batch `batch` (1-based).
    pub fn call_transform(&mut self, rows: JsValue, batch: u64) -> Result<JsValue, PluginError> {
        let f = self.transform.clone();
        self.call(&f, &[rows], Stage::Transform(batch))
    }

    /// Calls `flush()`, or gives `None` when the script does not define it.
    pub fn call_flush(&mut self) -> Result<Option<JsValue>, PluginError> {
        let Some(f) = self.flush.clone() else {
            return Ok(None);
        };
        self.call(&f, &[], Stage::Flush).map(Some)
    }

    fn call(
        &mut self,
        f: &JsObject,
        args: &[JsValue],
        stage: Stage,
    ) -> Result<JsValue, PluginError> {
        let result = f
            .call(&JsValue::undefined(), args, &mut self.ctx)
            .map_err(|e| error(&self.label, &self.limits, e, stage, &mut self.ctx))?;
        if result.is_promise() {
            return Err(PluginError::config(format!(
                "{}: {} returned a Promise; async functions are not supported here, make it \
                 a plain function that returns its result",
                self.label,
                stage.describe()
            )));
        }
        Ok(result)
    }
}

/// Turns an error of the script into a plugin error: a runtime limit is `limit`, an error at
/// open (top-level code, `schema`) is `config`, an error on a batch is `data`.
fn error(
    label: &str,
    limits: &Limits,
    err: JsError,
    stage: Stage,
    ctx: &mut Context,
) -> PluginError {
    let at = stage.describe();
    if let Some(engine) = err.as_engine() {
        return match engine {
            EngineError::RuntimeLimit(limit) => {
                let what = match limit {
                    RuntimeLimitError::LoopIteration => format!(
                        "the loop iteration limit: more than {} loop iterations in one \
                         function call (an endless loop?)",
                        limits.loop_iterations
                    ),
                    RuntimeLimitError::Recursion => format!(
                        "the recursion limit: more than {} nested function calls (an endless \
                         recursion?)",
                        limits.recursion
                    ),
                    RuntimeLimitError::StackSize => format!(
                        "the stack size limit: more than {} values on the JavaScript stack \
                         (spreading a huge array into a call, f(...rows)?)",
                        limits.stack_size
                    ),
                };
                PluginError::limit(format!("{label}: {at} stopped at {what}"))
            }
            other => PluginError::internal(format!("{label}: {at}: the engine failed: {other}")),
        };
    }
    let text = describe_error(err, ctx);
    let message = format!("{label}: {at} threw {text}");
    match stage {
        Stage::Load | Stage::Schema => PluginError::config(format!("{message}; fix config.code")),
        Stage::Transform(_) | Stage::Flush => PluginError::data(message),
    }
}

/// `TypeError: x is undefined (transform.js:3:12)` plus the stack, on one line.
fn describe_error(err: JsError, ctx: &mut Context) -> String {
    let full = err.to_string();
    // The first line is the error itself; the next ones are `    at f (file:line:col)`.
    let trace: Vec<&str> = full
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| l.starts_with("at "))
        .collect();
    let head = if err.as_opaque().is_some() {
        match err.try_native(ctx) {
            // `throw new Error("...")`: kind, message and position.
            Ok(native) => native.to_string(),
            // `throw "text"` or another value.
            Err(_) => full.lines().next().unwrap_or_default().to_owned(),
        }
    } else {
        full.lines().next().unwrap_or_default().to_owned()
    };
    let mut text = one_line(&head);
    if !trace.is_empty() {
        text.push_str(" [");
        text.push_str(&trace.join(", "));
        text.push(']');
    }
    cut(&mut text, MAX_ERROR_CHARS);
    text
}

/// Cuts `text` to at most `max` bytes (on a character boundary), marking the cut.
fn cut(text: &mut String, max: usize) {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str(" [...]");
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn register_console(ctx: &mut Context) -> JsResult<()> {
    let console = ObjectInitializer::new(ctx)
        .function(
            NativeFunction::from_fn_ptr(console_log),
            JsString::from("log"),
            0,
        )
        .function(
            NativeFunction::from_fn_ptr(console_info),
            JsString::from("info"),
            0,
        )
        .function(
            NativeFunction::from_fn_ptr(console_debug),
            JsString::from("debug"),
            0,
        )
        .function(
            NativeFunction::from_fn_ptr(console_warn),
            JsString::from("warn"),
            0,
        )
        .function(
            NativeFunction::from_fn_ptr(console_error),
            JsString::from("error"),
            0,
        )
        .build();
    ctx.register_global_property(
        JsString::from("console"),
        console,
        Attribute::WRITABLE | Attribute::CONFIGURABLE,
    )
}

/// A value in a log line: strings as they are, objects and arrays as JSON (one line), the rest
/// as JavaScript shows them.
fn show(value: &JsValue, ctx: &mut Context) -> String {
    if let Some(s) = value.as_string() {
        return s.to_std_string_lossy();
    }
    if value.is_object() && !value.is_callable() {
        let json = ctx.intrinsics().objects().json();
        let text = json
            .get(JsString::from("stringify"), ctx)
            .ok()
            .and_then(|f| f.as_callable())
            .and_then(|f| f.call(&json.into(), std::slice::from_ref(value), ctx).ok())
            .and_then(|t| t.as_string());
        if let Some(text) = text {
            return text.to_std_string_lossy();
        }
    }
    one_line(&value.display().to_string())
}

fn console_line(args: &[JsValue], ctx: &mut Context) -> String {
    let mut line = String::new();
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        line.push_str(&show(arg, ctx));
        if line.len() > MAX_LOG_CHARS {
            break;
        }
    }
    cut(&mut line, MAX_LOG_CHARS);
    line
}

fn console_at(level: Level, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    log(level, &console_line(args, ctx));
    Ok(JsValue::undefined())
}

fn console_log(_: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    console_at(Level::Info, args, ctx)
}
fn console_info(_: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    console_at(Level::Info, args, ctx)
}
fn console_debug(_: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    console_at(Level::Debug, args, ctx)
}
fn console_warn(_: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    console_at(Level::Warn, args, ctx)
}
fn console_error(_: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    console_at(Level::Error, args, ctx)
}
