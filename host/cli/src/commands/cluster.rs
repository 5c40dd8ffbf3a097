//! `ldp cluster scheduler|executor|status`: a Ballista cluster for `ldp query --cluster`.

use std::io::Write;

use ldp_cluster::{ClusterUrl, ExecutorSettings, SchedulerSettings};
use serde_json::json;

use crate::output::table;

/// Runs the scheduler until Ctrl-C or SIGTERM; exit 0 after a clean stop.
pub fn scheduler(settings: &SchedulerSettings) -> anyhow::Result<u8> {
    ldp_cluster::run_scheduler(settings, |url| {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "ldp cluster scheduler: listening on {url}");
        let _ = stdout.flush();
    })?;
    Ok(0)
}

/// Runs the executor until Ctrl-C or SIGTERM; exit 0 after a clean stop.
pub fn executor(settings: &ExecutorSettings) -> anyhow::Result<u8> {
    ldp_cluster::run_executor(settings, |work_dir| {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(
            stdout,
            "ldp cluster executor: Flight on {}, gRPC on port {}, registering with {} (work folder {})",
            settings.bind,
            settings.grpc_port,
            settings.scheduler,
            work_dir.display()
        );
        let _ = stdout.flush();
    })?;
    Ok(0)
}

/// Prints the executors the scheduler knows, and its jobs.
pub fn status(scheduler: &ClusterUrl, json: bool) -> anyhow::Result<u8> {
    let executors = ldp_cluster::executors(scheduler)?;
    let jobs = ldp_cluster::jobs(scheduler)?;
    let mut stdout = std::io::stdout().lock();
    if json {
        let list: Vec<_> = executors
            .iter()
            .map(
                |e| json!({"id": e.id, "host": e.host, "port": e.port, "task_slots": e.task_slots}),
            )
            .collect();
        let job_list: Vec<_> = jobs
            .iter()
            .map(|j| {
                json!({"id": j.id, "name": j.name, "status": j.status,
                       "start_ms": j.start_ms, "end_ms": j.end_ms})
            })
            .collect();
        let doc = json!({"scheduler": scheduler.to_string(), "executors": list, "jobs": job_list});
        writeln!(stdout, "{}", super::json_text(&doc)?)?;
        return Ok(0);
    }
    let running = jobs.iter().filter(|j| j.end_ms == 0).count();
    writeln!(
        stdout,
        "scheduler {scheduler}: {} executor{}, {running} job{} running, {} known",
        executors.len(),
        if executors.len() == 1 { "" } else { "s" },
        if running == 1 { "" } else { "s" },
        jobs.len()
    )?;
    if !executors.is_empty() {
        let rows: Vec<Vec<String>> = executors
            .iter()
            .map(|e| {
                vec![
                    e.id.clone(),
                    format!("{}:{}", e.host, e.port),
                    e.task_slots.to_string(),
                ]
            })
            .collect();
        for line in table::lines(
            &["id", "flight", "task_slots"],
            &rows,
            &[false, false, true],
        ) {
            writeln!(stdout, "{line}")?;
        }
    }
    Ok(0)
}
