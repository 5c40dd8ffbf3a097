//! `ldp schedule list DIR [--now TIME] [--max-windows N] [--json]`: every scheduled
//! workflow and dataset config under a folder, as the Python tool prints it (the listing itself
//! is `ldp_orchestrate::schedule_list`); `ldp schedule tick DIR` runs what is due
//! (`ldp_orchestrate::tick`), `ldp schedule run DIR` ticks on time in the foreground, and
//! `ldp schedule install --print cron|launchd|systemd DIR` prints the recipe that ticks.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ldp_orchestrate::tick::{LOCK_PATH, TickResult, tick as run_tick};
use ldp_plugin_runtime::Runtime;

use jiff::Timestamp;
use jiff::tz::TimeZone;
use ldp_config::format_instant;
use ldp_orchestrate::schedule_list::{Listing, ScheduleEntry, list_scheduled, local_iso};
use ldp_orchestrate::scheduling::parse_now;

use crate::args::{ScheduleInstallArgs, ScheduleListArgs, ScheduleRunArgs, ScheduleTickArgs};

/// Prints the listing; exit 1 when a scheduled file cannot be used, else 0.
pub fn list(args: &ScheduleListArgs) -> anyhow::Result<u8> {
    let now = match &args.now {
        Some(text) => parse_now(text)?,
        None => Timestamp::now(),
    };
    let listing = list_scheduled(&args.directory, now, args.max_windows)?;
    let local = TimeZone::system();
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(stdout, "{}", super::json_text(&listing.to_json(&local))?)?;
    } else {
        for line in listing_lines(&listing, &local) {
            writeln!(stdout, "{line}")?;
        }
    }
    Ok(u8::from(!listing.problems.is_empty()))
}

fn plural(count: usize, word: &str) -> String {
    format!("{count} {word}{}", if count == 1 { "" } else { "s" })
}

fn size_text(size: &str) -> &str {
    match size {
        "day" => "one day",
        "hour" => "one hour",
        "15m" => "15 minutes",
        other => other,
    }
}

/// The text of the listing, line by line (the Python tool's `_print_listing`).
pub fn listing_lines(listing: &Listing, local: &TimeZone) -> Vec<String> {
    let found = plural(listing.items.len(), "workflow or config")
        .replace("workflow or configs", "workflows or configs");
    let mut out = vec![format!(
        "{found} with a schedule under {} at {}",
        listing.directory.display(),
        format_instant(listing.now)
    )];
    for item in &listing.items {
        out.push(String::new());
        entry_lines(item, local, &mut out);
    }
    for (path, lines) in &listing.problems {
        out.push(String::new());
        out.push(format!(
            "{}  has a schedule and cannot be used",
            path.display()
        ));
        out.extend(lines.iter().map(|line| format!("  {line}")));
    }
    out
}

fn entry_lines(item: &ScheduleEntry, local: &TimeZone, out: &mut Vec<String>) {
    out.push(format!(
        "{}  {}  {}",
        item.workflow,
        item.kind,
        item.path.display()
    ));
    if let Some(error) = &item.error {
        out.push(format!("  error        {error}"));
        return;
    }
    let size = item.window_size.map_or_else(
        || "a window is the time between two fires".to_owned(),
        |size| format!("windows of {}", size_text(size)),
    );
    out.push(format!(
        "  schedule     {}, in {}, {size}",
        item.cron, item.timezone
    ));
    if item.catchup {
        let since = item.start.map_or_else(|| "None".to_owned(), format_instant);
        out.push(format!("  catch-up     on, since {since}"));
    }
    match item.next_fire {
        None => out.push("  next fire    none".to_owned()),
        Some(fire) => out.push(format!(
            "  next fire    {}, {} local",
            format_instant(fire),
            local_iso(fire, local)
        )),
    }
    match (&item.last_window, item.last_status) {
        (Some(window), Some(status)) => out.push(format!("  last window  {window} {status}")),
        _ => out.push("  last window  none yet".to_owned()),
    }
    match item.due.as_slice() {
        [] => out.push("  due          nothing".to_owned()),
        [only] => out.push(format!("  due          1 window, {}", only.label())),
        [first, .., last] => out.push(format!(
            "  due          {} windows, {}/{}",
            item.due.len(),
            format_instant(first.start),
            format_instant(last.end)
        )),
    }
    if item.missed.is_empty() {
        out.push("  missed       none".to_owned());
        return;
    }
    let more = if item.more_missed {
        ", and more after them"
    } else {
        ""
    };
    let fill = if item.missed.len() == 1 { "it" } else { "them" };
    out.push(format!(
        "  missed       {}{more}. Fill {fill} with",
        plural(item.missed.len(), "window")
    ));
    out.extend(item.commands.iter().map(|command| format!("    {command}")));
}

/// Ticks the folder once; exit 1 when a window failed or a file cannot be used, 3 when a data
/// gate held a window back, else 0 (also when another tick held the lock).
pub fn tick(
    runtime: Runtime,
    args: &ScheduleTickArgs,
    cancel: &'static AtomicBool,
) -> anyhow::Result<u8> {
    let now = match &args.now {
        Some(text) => parse_now(text)?,
        None => Timestamp::now(),
    };
    let settings = super::workflow::run_settings(runtime, args.jobs, false, cancel)?;
    let result = tick_once(&args.directory, now, args.max_windows, &settings, args.json)?;
    if args.json {
        writeln!(
            std::io::stdout().lock(),
            "{}",
            super::json_text(&result.to_json())?
        )?;
    }
    if cancel.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(ldp_pipeline::Error::Interrupted.into());
    }
    Ok(u8::try_from(result.exit_code()).unwrap_or(1))
}

/// One tick, printed as the Python tool prints it (nothing but the JSON with `json`).
fn tick_once(
    directory: &Path,
    now: Timestamp,
    max_windows: usize,
    settings: &ldp_orchestrate::RunSettings,
    json: bool,
) -> anyhow::Result<TickResult> {
    let result = run_tick(directory, now, max_windows, settings, |item, run, _, _| {
        if json || run.outcome == "skipped" {
            return;
        }
        let carried = match run.attempt {
            Some(n) if n > 1 => format!("  (attempt {n})"),
            _ => String::new(),
        };
        println!(
            "{}  {}  {}{carried}",
            item.workflow.identifier,
            run.state.window.label(),
            run.outcome
        );
        for problem in run.problems() {
            eprintln!("  {problem}");
        }
    })?;
    if json {
        return Ok(result);
    }
    let mut stdout = std::io::stdout().lock();
    if result.overlapped {
        writeln!(
            stdout,
            "another tick holds {}, so this one did nothing",
            directory.join(LOCK_PATH).display()
        )?;
        return Ok(result);
    }
    for item in &result.workflows {
        if let Some(error) = &item.error {
            eprintln!("{}  could not be ticked", item.workflow);
            for line in error.lines().take(8) {
                eprintln!("  {line}");
            }
        }
    }
    for (path, lines) in &result.problems {
        eprintln!("{}  has a schedule and cannot be used", path.display());
        for line in lines {
            eprintln!("  {line}");
        }
    }
    let due: usize = result.workflows.iter().map(|w| w.due).sum();
    writeln!(
        stdout,
        "tick {}: {}, {} due, {} in {:.1}s",
        format_instant(result.now),
        plural(result.workflows.len(), "workflow"),
        plural(due, "window"),
        super::backfill::counted_text(&result.counts()),
        result.duration_s
    )?;
    if result.exit_code() != 0 {
        stdout.flush()?;
        eprintln!("The next tick runs the windows that failed or were blocked again");
    }
    Ok(result)
}

/// Ticks at start and then at the top of every `--every-minutes`, until Ctrl-C or `--ticks`.
pub fn run_loop(
    runtime: Runtime,
    args: &ScheduleRunArgs,
    cancel: &'static AtomicBool,
) -> anyhow::Result<u8> {
    let settings = super::workflow::run_settings(runtime, args.jobs, false, cancel)?;
    let every = args.every_minutes.saturating_mul(60_000);
    let mut ticks = 0u64;
    let mut last;
    eprintln!(
        "ldp schedule run: ticking {} every {} minute{}; Ctrl-C stops",
        args.directory.display(),
        args.every_minutes,
        if args.every_minutes == 1 { "" } else { "s" }
    );
    loop {
        let result = tick_once(
            &args.directory,
            Timestamp::now(),
            args.max_windows,
            &settings,
            false,
        )?;
        last = u8::try_from(result.exit_code()).unwrap_or(1);
        ticks += 1;
        if args.ticks.is_some_and(|n| ticks >= n) || cancel.load(Ordering::Relaxed) {
            break;
        }
        // Sleep to the next multiple of the interval, waking up to notice Ctrl-C.
        let now_ms = u64::try_from(Timestamp::now().as_millisecond()).unwrap_or(0);
        let next = (now_ms / every + 1) * every;
        let mut left = next.saturating_sub(now_ms);
        while left > 0 && !cancel.load(Ordering::Relaxed) {
            let step = left.min(250);
            std::thread::sleep(Duration::from_millis(step));
            left -= step;
        }
        if cancel.load(Ordering::Relaxed) {
            break;
        }
    }
    if cancel.load(Ordering::Relaxed) {
        eprintln!(
            "ldp schedule run: stopped after {ticks} tick{}",
            if ticks == 1 { "" } else { "s" }
        );
        return Ok(130);
    }
    Ok(last)
}

/// Prints the recipe.
pub fn install(args: &ScheduleInstallArgs) -> anyhow::Result<u8> {
    use ldp_orchestrate::scheduling::{RecipeKind, recipe};
    let kind: RecipeKind = args.recipe.parse()?;
    let directory = absolute(&args.directory)?;
    let ldp = match &args.ldp {
        Some(path) => {
            if !path.is_file() {
                anyhow::bail!("--ldp {}: no such file", path.display());
            }
            std::path::absolute(path)?
        }
        None => std::env::current_exe()?,
    };
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from);
    let text = recipe(kind, &directory, &ldp, &home)?;
    writeln!(std::io::stdout().lock(), "{}", text.trim_end_matches('\n'))?;
    Ok(0)
}

/// The folder made absolute, symlinks resolved as far as it exists (as Python's `resolve()`).
fn absolute(directory: &Path) -> anyhow::Result<PathBuf> {
    let absolute = std::path::absolute(directory)?;
    let mut existing = absolute.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return Ok(out);
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return Ok(absolute),
        }
    }
}
