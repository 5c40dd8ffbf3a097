//! The tables a server serves: every Iceberg table the configs name that exists, and every
//! table of the catalogs that spec files describe ([`ldp_pipeline::lake`]), narrowed by the
//! allowlist. A table is named `namespace.table`, and
//! by its bare name when that is unique. `_ldp` system tables are hidden unless a pattern
//! starts with `_ldp`. An unknown table and a table not allowed give the same error, so an
//! agent cannot probe for what exists.

use std::path::PathBuf;

use ldp_pipeline::TargetTable;
use ldp_sql::{Engine, EngineFactory, Session, SessionOptions, TableName};

use crate::error::{ToolError, ToolErrorKind};

/// One served table.
#[derive(Debug, Clone)]
pub struct Served {
    /// Where it is.
    pub target: TargetTable,
    /// `namespace.table`.
    pub identifier: String,
    /// The bare name, when no other served table has it.
    pub bare: Option<String>,
}

/// The served tables.
#[derive(Debug, Clone)]
pub struct Lake {
    /// In the order found.
    pub tables: Vec<Served>,
    /// Tables the configs name that could not be opened (`ns.t: why`).
    pub unavailable: Vec<String>,
}

impl Lake {
    /// Finds the tables of `configs` (files, or folders of configs) that exist, and the tables
    /// of the catalogs `catalogs` (spec files) describe, that `allow` (comma-separated glob
    /// patterns on `ns.table`, or on the bare name for a pattern without a dot; empty: every
    /// table) lets through. A table both name is served once.
    ///
    /// # Errors
    ///
    /// A config named directly cannot be read; a catalog cannot be opened or listed.
    pub fn discover(
        configs: &[PathBuf],
        catalogs: &[PathBuf],
        allow: &[String],
    ) -> Result<Lake, ldp_pipeline::Error> {
        let show_system = allow.iter().any(|p| p.starts_with("_ldp"));
        let mut found: Vec<TargetTable> = Vec::new();
        let mut unavailable = Vec::new();
        let mut candidates = if configs.is_empty() {
            Vec::new()
        } else {
            ldp_pipeline::lake::lake_tables(configs)?
        };
        for spec in catalogs {
            for table in ldp_pipeline::lake::catalog_tables(spec)? {
                let known = candidates
                    .iter()
                    .any(|o| o.catalog == table.catalog && o.identifier() == table.identifier());
                if !known {
                    candidates.push(table);
                }
            }
        }
        for target in candidates {
            let identifier = target.identifier();
            if target.namespace.starts_with("_ldp") && !show_system {
                continue;
            }
            if !allowed(allow, &target.namespace, &target.name) {
                continue;
            }
            match target.load() {
                Ok(_) => found.push(target),
                Err(e) if e.kind() == ldp_pipeline::ErrorKind::NotFound => {}
                Err(e) => unavailable.push(format!("{identifier}: {e}")),
            }
        }
        let tables = found
            .iter()
            .map(|t| {
                let unique = found.iter().filter(|o| o.name == t.name).count() == 1;
                Served {
                    target: t.clone(),
                    identifier: t.identifier(),
                    bare: unique.then(|| t.name.clone()),
                }
            })
            .collect();
        Ok(Lake {
            tables,
            unavailable,
        })
    }

    /// The served table `name` (`ns.table`, or a unique bare name).
    ///
    /// # Errors
    ///
    /// [`ToolErrorKind::TableNotAllowed`], with the same message whether it exists or not.
    pub fn resolve(&self, name: &str) -> Result<&Served, ToolError> {
        let name = name.trim();
        self.tables
            .iter()
            .find(|t| t.identifier == name || t.bare.as_deref() == Some(name))
            .ok_or_else(|| {
                ToolError::new(
                    ToolErrorKind::TableNotAllowed,
                    format!(
                        "table '{name}' is not served by this server; list_tables lists the tables it serves"
                    ),
                )
            })
    }

    /// A session with every served table registered at its current snapshot (and nothing
    /// else: no files, no URLs): in this process, limited to `memory_limit` bytes, or on the
    /// engine `engine` makes (a cluster).
    ///
    /// # Errors
    ///
    /// The session cannot start, or a table's metadata cannot be read.
    pub fn session(
        &self,
        memory_limit: Option<usize>,
        engine: Option<&EngineFactory>,
    ) -> Result<Box<dyn Engine>, ToolError> {
        let session: Box<dyn Engine> = match engine {
            Some(make) => make.open().map_err(ToolError::of_sql)?,
            None => Box::new(
                Session::with_options(SessionOptions {
                    partitions: None,
                    memory_limit,
                })
                .map_err(ToolError::of_sql)?,
            ),
        };
        for served in &self.tables {
            let table = served
                .target
                .load()
                .map_err(|e| ToolError::new(ToolErrorKind::QueryFailed, e.to_string()))?;
            let mut names = vec![TableName::qualified(
                &served.target.namespace,
                &served.target.name,
            )];
            if let Some(bare) = &served.bare {
                names.push(TableName::bare(bare));
            }
            session
                .register(&table, None, &names)
                .map_err(ToolError::of_sql)?;
        }
        Ok(session)
    }
}

/// Whether the allowlist lets `namespace.name` through.
fn allowed(patterns: &[String], namespace: &str, name: &str) -> bool {
    if patterns.is_empty() {
        return true;
    }
    let full = format!("{namespace}.{name}");
    patterns.iter().any(|pattern| {
        if pattern.contains('.') {
            glob(pattern, &full)
        } else {
            glob(pattern, name)
        }
    })
}

/// fnmatch-style matching: `*` any run, `?` one character, everything else itself.
fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0usize, 0usize);
    let (mut star, mut mark) = (None, 0usize);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_full_or_bare_names() {
        let allow = |p: &[&str], ns: &str, n: &str| {
            allowed(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>(), ns, n)
        };
        assert!(allow(&[], "shop", "orders"));
        assert!(allow(&["shop.*"], "shop", "orders"));
        assert!(!allow(&["shop.*"], "crm", "orders"));
        assert!(allow(&["ord*"], "crm", "orders"));
        assert!(allow(&["*.orders", "x"], "crm", "orders"));
        assert!(!allow(&["order?"], "crm", "orders_2"));
    }
}
