//! `ldp schedule list DIR [--now TIME] [--max-windows N] [--json]` (§7.5): every scheduled
//! workflow and dataset config under a folder, as the reference prints it. The listing itself
//! is `ldp_pipeline::schedule_list`; this module only prints it.

use std::io::Write;

use jiff::Timestamp;
use jiff::tz::TimeZone;
use ldp_config::format_instant;
use ldp_config::scheduling::parse_now;
use ldp_pipeline::schedule_list::{Listing, ScheduleEntry, list_scheduled, local_iso};

use crate::args::ScheduleListArgs;

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

/// The text of the listing, line by line (the reference's `_print_listing`).
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
