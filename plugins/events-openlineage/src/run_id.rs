//! OpenLineage run ids: a canonical UUID. An ldp run id that Python's `uuid.UUID` reads (any
//! case, with or without dashes or braces, a `urn:uuid:` prefix) is normalised; anything else
//! becomes `uuid5(NAMESPACE_URL, "ldp-run:<id>")`.

use uuid::Uuid;

/// The OpenLineage `runId` of an ldp run id.
pub fn ol_run_id(run_id: &str) -> String {
    match python_uuid(run_id) {
        Some(uuid) => uuid.hyphenated().to_string(),
        None => Uuid::new_v5(&Uuid::NAMESPACE_URL, format!("ldp-run:{run_id}").as_bytes())
            .hyphenated()
            .to_string(),
    }
}

/// Python's `uuid.UUID(text)`: drops `urn:` and `uuid:`, surrounding braces and every dash,
/// then needs 32 hexadecimal digits (as `int(text, 16)` reads them).
fn python_uuid(text: &str) -> Option<Uuid> {
    let text = text.replace("urn:", "").replace("uuid:", "");
    let text = text.trim_matches(|c| c == '{' || c == '}').replace('-', "");
    if text.chars().count() != 32 {
        return None;
    }
    let body = text.trim();
    let body = body.strip_prefix('+').unwrap_or(body);
    let body = body
        .strip_prefix("0x")
        .or_else(|| body.strip_prefix("0X"))
        .unwrap_or(body);
    if body.is_empty()
        || body.starts_with('_')
        || body.ends_with('_')
        || body.contains("__")
        || !body.chars().all(|c| c.is_ascii_hexdigit() || c == '_')
    {
        return None;
    }
    let digits: String = body.chars().filter(|c| *c != '_').collect();
    u128::from_str_radix(&digits, 16).ok().map(Uuid::from_u128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_normalised() {
        let canonical = "01a23725-6f95-73c9-8cfe-c24a42626895";
        for text in [
            canonical,
            "01a237256f9573c98cfec24a42626895",
            "01A23725-6F95-73C9-8CFE-C24A42626895",
            "{01a23725-6f95-73c9-8cfe-c24a42626895}",
            "urn:uuid:01a23725-6f95-73c9-8cfe-c24a42626895",
        ] {
            assert_eq!(ol_run_id(text), canonical, "{text}");
        }
    }

    #[test]
    fn other_ids_are_hashed() {
        // uuid.uuid5(uuid.NAMESPACE_URL, "ldp-run:nightly-2026-08-01")
        assert_eq!(
            ol_run_id("nightly-2026-08-01"),
            "ee6bb053-c5da-5130-a095-6f60d1d75d60"
        );
    }
}
