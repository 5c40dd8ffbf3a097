//! AWS profiles: the shared `credentials` and `config` files, read as boto3 reads them, turned
//! into the `AWS_*` settings the S3 store takes.
//!
//! * The profile is `AWS_PROFILE`, else `AWS_DEFAULT_PROFILE`, else `default`.
//! * The files are `AWS_SHARED_CREDENTIALS_FILE` (default `~/.aws/credentials`, section
//!   `[NAME]`) and `AWS_CONFIG_FILE` (default `~/.aws/config`, section `[profile NAME]`, or
//!   `[default]`).
//! * Keys: `aws_access_key_id`, `aws_secret_access_key` and `aws_session_token` (the credentials
//!   file first, then the config file), `region`, and `endpoint_url` (the profile's, or that of
//!   its `s3 =` block of nested settings).
//! * The environment wins, as in boto3: the keys of the files are used only when
//!   `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` are not both set, the region when neither
//!   `AWS_REGION` nor `AWS_DEFAULT_REGION` is, the endpoint when no `AWS_ENDPOINT_URL*` is.
//! * A profile named by `AWS_PROFILE` that neither file holds is an error (boto3's
//!   `ProfileNotFound`); a missing `default` is not. Role assumption, SSO and
//!   `credential_process` are not read: such a profile gives no keys, and the store falls back
//!   to the environment's other sources.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The settings a profile gives, as `AWS_*` variables, for those the environment does not set;
/// `Err` names a profile that does not exist.
pub(crate) fn profile_vars(env: &HashMap<String, String>) -> Result<Vec<(String, String)>, String> {
    let set = |key: &str| env.get(key).is_some_and(|v| !v.trim().is_empty());
    let named = ["AWS_PROFILE", "AWS_DEFAULT_PROFILE"]
        .into_iter()
        .find_map(|key| env.get(key).filter(|v| !v.trim().is_empty()).cloned());
    let profile = named.clone().unwrap_or_else(|| "default".to_owned());
    let home = env.get("HOME").map(PathBuf::from);
    let file = |var: &str, default: &str| {
        env.get(var)
            .filter(|v| !v.trim().is_empty())
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws").join(default)))
    };
    let credentials =
        file("AWS_SHARED_CREDENTIALS_FILE", "credentials").and_then(|p| section(&p, &profile));
    let config_section = if profile == "default" {
        "default".to_owned()
    } else {
        format!("profile {profile}")
    };
    let config = file("AWS_CONFIG_FILE", "config").and_then(|p| section(&p, &config_section));
    if credentials.is_none() && config.is_none() {
        return match named {
            Some(name) => Err(format!(
                "the AWS profile {name:?} (AWS_PROFILE) is in neither the shared credentials file nor the config file; add it, or unset AWS_PROFILE"
            )),
            None => Ok(Vec::new()),
        };
    }
    let (credentials, config) = (credentials.unwrap_or_default(), config.unwrap_or_default());
    let lookup = |key: &str| credentials.get(key).or_else(|| config.get(key)).cloned();
    let mut vars = Vec::new();
    if !(set("AWS_ACCESS_KEY_ID") && set("AWS_SECRET_ACCESS_KEY"))
        && let (Some(id), Some(secret)) =
            (lookup("aws_access_key_id"), lookup("aws_secret_access_key"))
    {
        vars.push(("AWS_ACCESS_KEY_ID".to_owned(), id));
        vars.push(("AWS_SECRET_ACCESS_KEY".to_owned(), secret));
        if let Some(token) = lookup("aws_session_token") {
            vars.push(("AWS_SESSION_TOKEN".to_owned(), token));
        }
    }
    if !set("AWS_REGION")
        && !set("AWS_DEFAULT_REGION")
        && let Some(region) = config.get("region")
    {
        vars.push(("AWS_REGION".to_owned(), region.clone()));
    }
    let endpoint_set = ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT"]
        .iter()
        .any(|key| set(key));
    if !endpoint_set
        && let Some(endpoint) = config.get("s3.endpoint_url").or(config.get("endpoint_url"))
    {
        vars.push(("AWS_ENDPOINT_URL".to_owned(), endpoint.clone()));
    }
    Ok(vars)
}

/// The keys of section `[name]` of an INI file (keys lower-cased; the indented settings under a
/// key without a value, such as `s3 =`, as `s3.key`); `None` when the file or the section does
/// not exist.
fn section(path: &Path, name: &str) -> Option<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut found = None;
    let mut current: Option<&str> = None;
    let mut parent: Option<String> = None;
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = Some(header.trim());
            parent = None;
            if current == Some(name) {
                found.get_or_insert_with(HashMap::new);
            }
            continue;
        }
        if current != Some(name) {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim().to_owned());
        let map = found.get_or_insert_with(HashMap::new);
        let nested = raw.starts_with([' ', '\t']);
        match (&parent, nested) {
            (Some(p), true) => {
                map.insert(format!("{p}.{key}"), value);
            }
            _ if value.is_empty() => parent = Some(key),
            _ => {
                parent = None;
                map.insert(key, value);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(dir: &Path, pairs: &[(&str, &str)]) -> HashMap<String, String> {
        let mut env: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        env.insert("HOME".into(), dir.display().to_string());
        env
    }

    fn files(dir: &Path) {
        std::fs::create_dir_all(dir.join(".aws")).unwrap();
        std::fs::write(
            dir.join(".aws/credentials"),
            "[default]\naws_access_key_id = DEF\naws_secret_access_key = defsecret\n\n\
             [dev]\naws_access_key_id=DEV\naws_secret_access_key=devsecret\naws_session_token=tok\n",
        )
        .unwrap();
        std::fs::write(
            dir.join(".aws/config"),
            "[default]\nregion = eu-west-1\n\n# a comment\n[profile dev]\nregion = eu-central-1\n\
             s3 =\n  endpoint_url = http://127.0.0.1:5000\n\n[profile cfgonly]\n\
             aws_access_key_id = CFG\naws_secret_access_key = cfgsecret\nendpoint_url = http://e:1\n",
        )
        .unwrap();
    }

    fn get<'a>(vars: &'a [(String, String)], key: &str) -> Option<&'a str> {
        vars.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    #[test]
    fn the_default_profile_gives_keys_and_region() {
        let dir = tempfile::tempdir().unwrap();
        files(dir.path());
        let vars = profile_vars(&env(dir.path(), &[])).unwrap();
        assert_eq!(get(&vars, "AWS_ACCESS_KEY_ID"), Some("DEF"));
        assert_eq!(get(&vars, "AWS_SECRET_ACCESS_KEY"), Some("defsecret"));
        assert_eq!(get(&vars, "AWS_REGION"), Some("eu-west-1"));
        assert_eq!(get(&vars, "AWS_ENDPOINT_URL"), None);
    }

    #[test]
    fn a_named_profile_gives_its_token_region_and_nested_s3_endpoint() {
        let dir = tempfile::tempdir().unwrap();
        files(dir.path());
        let vars = profile_vars(&env(dir.path(), &[("AWS_PROFILE", "dev")])).unwrap();
        assert_eq!(get(&vars, "AWS_ACCESS_KEY_ID"), Some("DEV"));
        assert_eq!(get(&vars, "AWS_SESSION_TOKEN"), Some("tok"));
        assert_eq!(get(&vars, "AWS_REGION"), Some("eu-central-1"));
        assert_eq!(
            get(&vars, "AWS_ENDPOINT_URL"),
            Some("http://127.0.0.1:5000")
        );
        let vars = profile_vars(&env(dir.path(), &[("AWS_PROFILE", "cfgonly")])).unwrap();
        assert_eq!(get(&vars, "AWS_ACCESS_KEY_ID"), Some("CFG"));
        assert_eq!(get(&vars, "AWS_ENDPOINT_URL"), Some("http://e:1"));
    }

    #[test]
    fn the_environment_wins_over_the_files() {
        let dir = tempfile::tempdir().unwrap();
        files(dir.path());
        let pairs = [
            ("AWS_PROFILE", "dev"),
            ("AWS_ACCESS_KEY_ID", "ENV"),
            ("AWS_SECRET_ACCESS_KEY", "envsecret"),
            ("AWS_DEFAULT_REGION", "us-east-2"),
            ("AWS_ENDPOINT_URL_S3", "http://other:9000"),
        ];
        let vars = profile_vars(&env(dir.path(), &pairs)).unwrap();
        assert!(vars.is_empty(), "{vars:?}");
    }

    #[test]
    fn an_unknown_named_profile_is_an_error_and_no_files_are_nothing() {
        let dir = tempfile::tempdir().unwrap();
        files(dir.path());
        let e = profile_vars(&env(dir.path(), &[("AWS_PROFILE", "prod")])).unwrap_err();
        assert!(
            e.contains("\"prod\"") && e.contains("unset AWS_PROFILE"),
            "{e}"
        );
        let empty = tempfile::tempdir().unwrap();
        assert!(profile_vars(&env(empty.path(), &[])).unwrap().is_empty());
    }

    #[test]
    fn the_file_variables_name_other_files() {
        let dir = tempfile::tempdir().unwrap();
        files(dir.path());
        std::fs::rename(
            dir.path().join(".aws/credentials"),
            dir.path().join("creds"),
        )
        .unwrap();
        let creds = dir.path().join("creds").display().to_string();
        let vars = profile_vars(&env(
            dir.path(),
            &[
                ("AWS_SHARED_CREDENTIALS_FILE", &creds),
                ("AWS_PROFILE", "dev"),
            ],
        ))
        .unwrap();
        assert_eq!(get(&vars, "AWS_ACCESS_KEY_ID"), Some("DEV"));
    }
}
