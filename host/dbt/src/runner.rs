//! Running the user's `dbt` (from `LDP_DBT`, else `dbt` on `PATH`) in the project folder, with
//! the project as its project and profiles folder. ldp does not embed Python: dbt-core and
//! dbt-duckdb are the user's install.

use std::path::PathBuf;
use std::process::Command;

use crate::error::{Error, Result};
use crate::project::Project;

/// The environment variable naming the dbt executable.
pub const DBT_ENV: &str = "LDP_DBT";

/// The dbt executable.
pub fn dbt_program() -> PathBuf {
    std::env::var_os(DBT_ENV)
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("dbt"), PathBuf::from)
}

/// Runs `dbt ARGS --project-dir P --profiles-dir P` in the project folder, its output on ours
/// (its stdout on our stderr when the request says so, so that ours stays JSON); returns dbt's
/// exit code.
///
/// # Errors
///
/// [`Error::DbtMissing`] when dbt does not start.
pub fn run_dbt(project: &Project, args: &[String], request: &crate::DbtRequest) -> Result<i32> {
    let program = request.dbt_program.clone().unwrap_or_else(dbt_program);
    let dir = project.dir.display().to_string();
    tracing::info!("dbt {} (in {dir})", args.join(" "));
    let mut command = Command::new(&program);
    if request.dbt_output_to_stderr {
        command.stdout(std::io::stderr());
    }
    let status = command
        .args(args)
        .args(["--project-dir", &dir, "--profiles-dir", &dir])
        .current_dir(&project.dir)
        .status()
        .map_err(|source| Error::DbtMissing {
            program: program.display().to_string(),
            source,
        })?;
    Ok(status.code().unwrap_or(1))
}
