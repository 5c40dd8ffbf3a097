//! The names the staged publish gives to runs, branches and fence tags, as the Python tool
//! writes them, so a warehouse written by both tools reads the same:
//! `ldp_r<32 hex>_a<attempt>_<n>` for a staging branch, `ldp_r<32 hex>_a<attempt>_fenced` for
//! the tag that fences an attempt.

use sha2::{Digest, Sha256};

/// A new run id: a UUIDv7, as its canonical text (`01a23725-6f95-73c9-8cfe-c24a42626895`).
pub fn new_run_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// The 32 hex characters that stand for a run id in ref names: the id itself when it is 32
/// hex characters, the UUID's hex when it is a UUID, else the first 32 hex characters of the
/// sha256 of the id.
pub fn run_hex(run_id: &str) -> String {
    let text = run_id.trim().to_ascii_lowercase();
    if text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return text;
    }
    if let Ok(uuid) = uuid::Uuid::parse_str(&text) {
        return uuid.simple().to_string();
    }
    hex::encode(Sha256::digest(run_id.as_bytes()))[..32].to_string()
}

/// `ldp_r<hex>_a<attempt>`: the prefix of every staging branch of one attempt.
pub fn attempt_prefix(run_id: &str, attempt: u32) -> String {
    format!("ldp_r{}_a{attempt}", run_hex(run_id))
}

/// The staging branch `n` of an attempt.
pub fn branch_name(run_id: &str, attempt: u32, n: u32) -> String {
    format!("{}_{n}", attempt_prefix(run_id, attempt))
}

/// The tag that fences an attempt.
pub fn fence_tag(run_id: &str, attempt: u32) -> String {
    format!("{}_fenced", attempt_prefix(run_id, attempt))
}

/// `(run hex, attempt, n)` of a staging branch name, `None` for any other name.
pub fn parse_branch(name: &str) -> Option<(&str, u32, u32)> {
    let rest = name.strip_prefix("ldp_r")?;
    let (hex, rest) = rest.split_at_checked(32)?;
    if !hex
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    {
        return None;
    }
    let rest = rest.strip_prefix("_a")?;
    let (attempt, n) = rest.split_once('_')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(attempt) || !digits(n) {
        return None;
    }
    Some((hex, attempt.parse().ok()?, n.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_the_reference() {
        // The branch the Python tool published this run id's window from.
        assert_eq!(
            branch_name("01a23725-6f95-73c9-8cfe-c24a42626895", 1, 0),
            "ldp_r01a237256f9573c98cfec24a42626895_a1_0"
        );
        assert_eq!(
            run_hex("01A237256F9573C98CFEC24A42626895"),
            "01a237256f9573c98cfec24a42626895"
        );
        assert_eq!(
            run_hex("nightly-2026-08-01"),
            hex::encode(Sha256::digest(b"nightly-2026-08-01"))[..32]
        );
        assert_eq!(
            fence_tag("01a23725-6f95-73c9-8cfe-c24a42626895", 2),
            "ldp_r01a237256f9573c98cfec24a42626895_a2_fenced"
        );
        assert_eq!(
            parse_branch("ldp_r01a237256f9573c98cfec24a42626895_a12_3"),
            Some(("01a237256f9573c98cfec24a42626895", 12, 3))
        );
        assert_eq!(
            parse_branch("ldp_r01a237256f9573c98cfec24a42626895_a1_fenced"),
            None
        );
        assert_eq!(parse_branch("main"), None);
        assert_eq!(new_run_id().len(), 36);
    }
}
