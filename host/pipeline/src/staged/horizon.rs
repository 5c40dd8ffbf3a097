//! A key that is not on `main` is no proof that its window never ran: snapshot expiry may have
//! removed the snapshot that carried it. A run that appends a window older than every window
//! the table still holds a key for warns that its key may have expired (as the Python tool
//! does), and runs.

use jiff::Timestamp;
use ldp_table::Table;

use super::{LOGICAL_WINDOW_PROPERTY, Staging};

/// The earliest start among the `ldp.logical-window`s of `main`'s keyed snapshots.
pub(crate) fn oldest_keyed_window_start(table: &Table) -> Option<Timestamp> {
    ldp_table::refs::keyed_snapshots(table)
        .iter()
        .filter_map(|s| s.summary.get(LOGICAL_WINDOW_PROPERTY))
        .filter_map(|window| window.split('/').next().and_then(parse_instant))
        .min()
}

/// An ISO instant; one without an offset is UTC.
fn parse_instant(text: &str) -> Option<Timestamp> {
    text.parse::<Timestamp>().ok().or_else(|| {
        text.parse::<jiff::civil::DateTime>()
            .ok()
            .and_then(|dt| dt.to_zoned(jiff::tz::TimeZone::UTC).ok())
            .map(|z| z.timestamp())
    })
}

/// Warns when the run's window starts before every window `table` still holds a key for.
pub(crate) fn warn_if_the_key_may_have_expired(table: &Table, staging: &Staging, pipeline: &str) {
    let Some(window) = &staging.window else {
        return;
    };
    let Some(oldest) = oldest_keyed_window_start(table) else {
        return;
    };
    if window.start >= oldest {
        return;
    }
    tracing::warn!(
        "Pipeline {pipeline}: the window {} is older than every window that '{}' still holds a key for, the oldest \
         starting {}, and its key is not there. If this window ran before, its key may have expired and this run \
         loads it again. ldp backfill --replace replaces a window instead of adding to it.",
        window.property(),
        table.identifier(),
        ldp_config::isoformat_utc(oldest)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_with_and_without_an_offset() {
        let utc: Timestamp = "2026-08-01T00:00:00Z".parse().unwrap();
        assert_eq!(parse_instant("2026-08-01T00:00:00+00:00"), Some(utc));
        assert_eq!(parse_instant("2026-08-01T02:00:00+02:00"), Some(utc));
        assert_eq!(parse_instant("2026-08-01T00:00:00"), Some(utc));
        assert_eq!(parse_instant("yesterday"), None);
    }
}
