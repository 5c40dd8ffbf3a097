//! Dataset names, `NAME@vN` references and the Iceberg tag names of versions.

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// Prefix of the Iceberg tags [`crate::pin`] creates: `ldp_ds_<name>_v<N>`.
pub const TAG_PREFIX: &str = "ldp_ds_";

/// The longest dataset name.
pub const MAX_NAME_LEN: usize = 128;

/// Checks a dataset name: 1–128 characters among letters, digits, `_`, `-` and `.`, starting
/// with a letter or a digit, without `..` (a name is a folder under the warehouse).
///
/// # Errors
///
/// [`Error::Config`] naming the rule.
pub fn check_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let valid = name.len() <= MAX_NAME_LEN
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        && !name.contains("..");
    if valid {
        Ok(())
    } else {
        Err(Error::config(format!(
            "dataset name must be 1-128 letters, digits, '_', '-' or '.', starting with a letter \
             or digit, got {}",
            ldp_pyrepr::repr_str(name)
        )))
    }
}

/// The Iceberg tag of version `version` of dataset `name`: `ldp_ds_<name>_v<N>`. A name with
/// characters other than letters, digits and `_` has them replaced by `_` and gets `_` and the
/// first 8 hex digits of its sha256 appended, so two names never share a tag
/// (`daily.v2` → `ldp_ds_daily_v2_<hash>_v1`).
pub fn tag_name(name: &str, version: u32) -> String {
    let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let safe = if plain {
        name.to_string()
    } else {
        let replaced: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let digest = hex::encode(Sha256::digest(name.as_bytes()));
        format!("{replaced}_{}", &digest[..8])
    };
    format!("{TAG_PREFIX}{safe}_v{version}")
}

/// Splits `NAME@vN` (or `NAME@N`) into the name and the version; a plain `NAME` has none.
///
/// # Errors
///
/// [`Error::Config`] when the part after `@` is not a version number.
pub fn parse_reference(text: &str) -> Result<(String, Option<u32>)> {
    let Some((name, version)) = text.split_once('@') else {
        return Ok((text.to_string(), None));
    };
    let digits = version.trim_start_matches(['v', 'V']);
    match digits.parse::<u32>() {
        Ok(number) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            Ok((name.to_string(), Some(number)))
        }
        _ => Err(Error::config(format!(
            "expected '<name>@v<N>', got {name}@{version}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_rules() {
        for good in ["orders_train", "a", "A1.b-c_d", "9lives", &"x".repeat(128)] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "_x",
            ".hidden",
            "-x",
            "a..b",
            "a/b",
            "a b",
            "é",
            &"x".repeat(129),
        ] {
            let error = check_name(bad).expect_err(bad);
            assert!(
                error.to_string().starts_with("dataset name must be 1-128"),
                "{error}"
            );
        }
    }

    #[test]
    fn tag_names_are_safe_and_distinct() {
        assert_eq!(tag_name("orders_train", 1), "ldp_ds_orders_train_v1");
        let dotted = tag_name("daily.v2", 3);
        let digest = hex::encode(Sha256::digest(b"daily.v2"));
        assert_eq!(dotted, format!("ldp_ds_daily_v2_{}_v3", &digest[..8]));
        assert_ne!(tag_name("a-b", 1), tag_name("a.b", 1));
        assert!(tag_name("a-b", 1).starts_with("ldp_ds_a_b_"));
    }

    #[test]
    fn references_split_at_the_at_sign() {
        assert_eq!(parse_reference("train").unwrap(), ("train".into(), None));
        assert_eq!(
            parse_reference("train@v12").unwrap(),
            ("train".into(), Some(12))
        );
        assert_eq!(
            parse_reference("train@3").unwrap(),
            ("train".into(), Some(3))
        );
        assert!(parse_reference("train@latest").is_err());
        assert!(parse_reference("train@v").is_err());
        assert!(parse_reference("train@v-1").is_err());
    }
}
