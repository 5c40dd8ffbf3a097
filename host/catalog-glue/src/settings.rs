//! What a `glue` catalog block resolves to: the region, the endpoint, the credentials.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use crate::error::{Error, Result};

/// How long one HTTP request (connect, send, read the answer) may take by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How to reach one Glue Data Catalog. `Debug` prints `***` for the secret access key and the
/// session token.
#[derive(Clone)]
pub struct GlueSettings {
    /// The AWS region, e.g. `us-east-1` (the signature's scope, and the default endpoint's).
    pub region: String,
    /// Another endpoint than `https://glue.<region>.amazonaws.com` (moto, a VPC endpoint, a
    /// Glue-compatible metastore), e.g. `http://127.0.0.1:5000`.
    pub endpoint: Option<String>,
    /// The access key id.
    pub access_key_id: String,
    /// The secret access key (never printed).
    pub secret_access_key: String,
    /// The session token of temporary credentials (never printed).
    pub session_token: Option<String>,
    /// The Glue catalog id (the AWS account id) to send as `CatalogId`; `None`: the caller's
    /// account (pyiceberg's `glue.id`).
    pub catalog_id: Option<String>,
    /// The catalog's name in ldp (messages use it).
    pub name: String,
    /// Whether Glue should not archive the previous table version on each commit
    /// (`SkipArchive`; pyiceberg's `glue.skip-archive`, default `true`: Glue keeps a bounded
    /// number of versions, and a busy table would reach it).
    pub skip_archive: bool,
    /// How long one HTTP request may take ([`DEFAULT_TIMEOUT`] by default).
    pub timeout: Duration,
}

impl GlueSettings {
    /// Settings for catalog `name` in `region` with the given static credentials, the default
    /// endpoint, the caller's account, `skip_archive` and [`DEFAULT_TIMEOUT`].
    pub fn new(
        name: impl Into<String>,
        region: impl Into<String>,
        access_key_id: impl Into<String>,
        secret_access_key: impl Into<String>,
    ) -> Self {
        GlueSettings {
            region: region.into(),
            endpoint: None,
            access_key_id: access_key_id.into(),
            secret_access_key: secret_access_key.into(),
            session_token: None,
            catalog_id: None,
            name: name.into(),
            skip_archive: true,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Settings from the catalog's `properties` (pyiceberg's names) and the process
    /// environment (boto3's names); a property wins over a variable:
    ///
    /// | setting | properties, first found | environment |
    /// |---|---|---|
    /// | region | `glue.region`, `client.region` | `AWS_REGION`, `AWS_DEFAULT_REGION` |
    /// | endpoint | `glue.endpoint` | `AWS_ENDPOINT_URL_GLUE`, `AWS_ENDPOINT_URL` |
    /// | access key id | `glue.access-key-id`, `client.access-key-id` | `AWS_ACCESS_KEY_ID` |
    /// | secret access key | `glue.secret-access-key`, `client.secret-access-key` | `AWS_SECRET_ACCESS_KEY` |
    /// | session token | `glue.session-token`, `client.session-token` | `AWS_SESSION_TOKEN` |
    /// | catalog id | `glue.id` | |
    /// | skip archive | `glue.skip-archive` (`true`/`false`) | |
    ///
    /// Profiles (`~/.aws/credentials`, `glue.profile-name`) and instance or container roles
    /// are not read: a missing region or key is an [`Error::InvalidSettings`] that says what
    /// to set.
    pub fn from_env(name: &str, properties: &BTreeMap<String, String>) -> Result<Self> {
        Self::from_lookup(name, properties, |key| std::env::var(key).ok())
    }

    /// [`GlueSettings::from_env`] with `env` in place of the process environment.
    pub fn from_lookup(
        name: &str,
        properties: &BTreeMap<String, String>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self> {
        let pick = |props: &[&str], vars: &[&str]| -> Option<String> {
            props
                .iter()
                .find_map(|key| properties.get(*key).cloned())
                .or_else(|| vars.iter().find_map(|key| env(key)))
                .filter(|value| !value.is_empty())
        };
        let invalid = |region: &str, problem: String| Error::InvalidSettings {
            catalog: describe(name, region, None),
            problem,
        };
        let region = pick(
            &["glue.region", "client.region"],
            &["AWS_REGION", "AWS_DEFAULT_REGION"],
        )
        .ok_or_else(|| {
            invalid(
                "(none)",
                "no region: set the property glue.region or the variable AWS_REGION".into(),
            )
        })?;
        let access_key_id = pick(
            &["glue.access-key-id", "client.access-key-id"],
            &["AWS_ACCESS_KEY_ID"],
        );
        let secret_access_key = pick(
            &["glue.secret-access-key", "client.secret-access-key"],
            &["AWS_SECRET_ACCESS_KEY"],
        );
        let (Some(access_key_id), Some(secret_access_key)) = (access_key_id, secret_access_key)
        else {
            return Err(invalid(
                &region,
                "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and \
                 AWS_SESSION_TOKEN for temporary credentials) in the environment, or name \
                 variables holding them in properties_env (glue.access-key-id, \
                 glue.secret-access-key); profiles and instance roles are not read"
                    .into(),
            ));
        };
        let skip_archive = match properties.get("glue.skip-archive").map(String::as_str) {
            None => true,
            Some(v) if v.eq_ignore_ascii_case("true") => true,
            Some(v) if v.eq_ignore_ascii_case("false") => false,
            Some(other) => {
                return Err(invalid(
                    &region,
                    format!("glue.skip-archive is {other:?}; write true or false"),
                ));
            }
        };
        Ok(GlueSettings {
            endpoint: pick(
                &["glue.endpoint"],
                &["AWS_ENDPOINT_URL_GLUE", "AWS_ENDPOINT_URL"],
            ),
            session_token: pick(
                &["glue.session-token", "client.session-token"],
                &["AWS_SESSION_TOKEN"],
            ),
            catalog_id: pick(&["glue.id"], &[]),
            region,
            access_key_id,
            secret_access_key,
            name: name.to_string(),
            skip_archive,
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// The endpoint requests go to: [`endpoint`](Self::endpoint) without a trailing `/`, or
    /// `https://glue.<region>.amazonaws.com` (`.amazonaws.com.cn` in China regions).
    pub fn endpoint_url(&self) -> String {
        match &self.endpoint {
            Some(endpoint) => endpoint.trim_end_matches('/').to_string(),
            None if self.region.starts_with("cn-") => {
                format!("https://glue.{}.amazonaws.com.cn", self.region)
            }
            None => format!("https://glue.{}.amazonaws.com", self.region),
        }
    }

    /// How messages name this catalog: `Glue catalog 'name' in region R at endpoint E`.
    pub fn describe(&self) -> String {
        describe(&self.name, &self.region, Some(&self.endpoint_url()))
    }
}

fn describe(name: &str, region: &str, endpoint: Option<&str>) -> String {
    match endpoint {
        Some(endpoint) => {
            format!("Glue catalog '{name}' in region {region} at endpoint {endpoint}")
        }
        None => format!("Glue catalog '{name}' in region {region}"),
    }
}

impl fmt::Debug for GlueSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GlueSettings")
            .field("region", &self.region)
            .field("endpoint", &self.endpoint)
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"***")
            .field("session_token", &self.session_token.as_ref().map(|_| "***"))
            .field("catalog_id", &self.catalog_id)
            .field("name", &self.name)
            .field("skip_archive", &self.skip_archive)
            .field("timeout", &self.timeout)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |key| map.get(key).cloned()
    }

    #[test]
    fn properties_win_over_environment() {
        let properties: BTreeMap<String, String> = [
            ("glue.region", "eu-west-1"),
            ("glue.endpoint", "http://localhost:5000/"),
            ("glue.id", "123456789012"),
            ("client.access-key-id", "AKIDPROP"),
            ("glue.skip-archive", "false"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let vars = env(&[
            ("AWS_REGION", "us-east-1"),
            ("AWS_ACCESS_KEY_ID", "AKIDENV"),
            ("AWS_SECRET_ACCESS_KEY", "env-SECRET"),
            ("AWS_SESSION_TOKEN", "tok-SECRET"),
        ]);
        let s = GlueSettings::from_lookup("lake", &properties, vars).unwrap();
        assert_eq!(s.region, "eu-west-1");
        assert_eq!(s.endpoint_url(), "http://localhost:5000");
        assert_eq!(s.catalog_id.as_deref(), Some("123456789012"));
        assert_eq!(s.access_key_id, "AKIDPROP");
        assert_eq!(s.secret_access_key, "env-SECRET");
        assert_eq!(s.session_token.as_deref(), Some("tok-SECRET"));
        assert!(!s.skip_archive);
        let shown = format!("{s:?}");
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(shown.contains("AKIDPROP"), "{shown}");
    }

    #[test]
    fn environment_alone() {
        let vars = env(&[
            ("AWS_DEFAULT_REGION", "cn-north-1"),
            ("AWS_ACCESS_KEY_ID", "AKID"),
            ("AWS_SECRET_ACCESS_KEY", "SECRET"),
        ]);
        let s = GlueSettings::from_lookup("lake", &BTreeMap::new(), vars).unwrap();
        assert_eq!(s.endpoint_url(), "https://glue.cn-north-1.amazonaws.com.cn");
        assert!(s.skip_archive && s.session_token.is_none() && s.catalog_id.is_none());
        assert_eq!(
            s.describe(),
            "Glue catalog 'lake' in region cn-north-1 at endpoint https://glue.cn-north-1.amazonaws.com.cn"
        );
    }

    #[test]
    fn missing_region_or_keys_say_what_to_set() {
        let none = GlueSettings::from_lookup("lake", &BTreeMap::new(), env(&[])).unwrap_err();
        assert!(none.to_string().contains("AWS_REGION"), "{none}");
        let no_keys =
            GlueSettings::from_lookup("lake", &BTreeMap::new(), env(&[("AWS_REGION", "x")]))
                .unwrap_err();
        assert!(
            no_keys.to_string().contains("AWS_SECRET_ACCESS_KEY"),
            "{no_keys}"
        );
    }
}
