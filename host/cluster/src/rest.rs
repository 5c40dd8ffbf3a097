//! The scheduler's REST API (on its gRPC port): the executors it knows (`ldp cluster status`,
//! the check before a query) and the jobs of a query stopped by its time limit, cancelled.

use std::io::{Read, Write};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::url::ClusterUrl;

/// An executor a scheduler knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutorInfo {
    /// Its id.
    pub id: String,
    /// Its host and Flight port.
    pub host: String,
    /// Its Arrow Flight port.
    pub port: u16,
    /// Tasks it runs at once.
    pub task_slots: u64,
}

/// The answer to `METHOD path` from the scheduler at `url`: its status code and JSON body.
fn request(url: &ClusterUrl, method: &str, path: &str) -> Result<(u16, serde_json::Value)> {
    let unreachable = |reason: String| Error::Unreachable {
        url: url.to_string(),
        reason,
    };
    let mut stream = url.connect()?;
    let timeout = Some(Duration::from_secs(10));
    let _ = stream.set_read_timeout(timeout);
    let _ = stream.set_write_timeout(timeout);
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}:{}\r\nAccept: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        url.host(),
        url.port()
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| unreachable(e.to_string()))?;
    let mut answer = Vec::new();
    stream
        .take(16 * 1024 * 1024)
        .read_to_end(&mut answer)
        .map_err(|e| unreachable(e.to_string()))?;
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| unreachable("it did not answer over HTTP".into()))?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or_else(|| unreachable("it did not answer over HTTP".into()))?;
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        unchunk(body)
    } else {
        body.to_string()
    };
    let json = serde_json::from_str(&body).unwrap_or(serde_json::Value::Null);
    Ok((status, json))
}

/// The executors the scheduler at `url` knows (`GET /api/executors`).
///
/// # Errors
///
/// [`Error::Unreachable`] when nothing answers at `url` or the answer is not the scheduler's.
pub fn executors(url: &ClusterUrl) -> Result<Vec<ExecutorInfo>> {
    let (status, list) = request(url, "GET", "/api/executors")?;
    let unreachable = |reason: String| Error::Unreachable {
        url: url.to_string(),
        reason,
    };
    if status != 200 {
        return Err(unreachable(format!(
            "GET /api/executors answered {status}, not a Ballista scheduler's list"
        )));
    }
    let items = list
        .as_array()
        .ok_or_else(|| unreachable("its executor list is not a JSON array".into()))?;
    Ok(items
        .iter()
        .map(|item| ExecutorInfo {
            id: item["id"].as_str().unwrap_or_default().to_string(),
            host: item["host"].as_str().unwrap_or_default().to_string(),
            port: item["port"]
                .as_u64()
                .and_then(|p| u16::try_from(p).ok())
                .unwrap_or_default(),
            task_slots: item["specification"]["task_slots"].as_u64().unwrap_or(0),
        })
        .collect())
}

/// A job the scheduler knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobInfo {
    /// Its id.
    pub id: String,
    /// Its name (`ldp-query-<pid>-<nanos>` for an `ldp` client's session).
    pub name: String,
    /// `Queued`, `Running`, `Completed`, `Failed` (Ballista's words).
    pub status: String,
    /// When it started and ended (ms since the epoch; 0 while it runs).
    pub start_ms: u64,
    /// When it ended (0 while it runs).
    pub end_ms: u64,
}

/// The jobs the scheduler at `url` knows (`GET /api/jobs`): those running and those it has not
/// yet forgotten.
///
/// # Errors
///
/// [`Error::Unreachable`] when the scheduler does not answer.
pub fn jobs(url: &ClusterUrl) -> Result<Vec<JobInfo>> {
    let (_, jobs) = request(url, "GET", "/api/jobs")?;
    Ok(jobs
        .as_array()
        .into_iter()
        .flatten()
        .map(|job| JobInfo {
            id: job["job_id"].as_str().unwrap_or_default().to_string(),
            name: job["job_name"].as_str().unwrap_or_default().to_string(),
            status: job["status"].as_str().unwrap_or_default().to_string(),
            start_ms: job["start_time"].as_u64().unwrap_or(0),
            end_ms: job["end_time"].as_u64().unwrap_or(0),
        })
        .collect())
}

/// Cancels every job named `name` that has not ended (`GET /api/jobs`, then
/// `PATCH /api/job/{id}` for each); returns how many it cancelled.
///
/// # Errors
///
/// [`Error::Unreachable`] when the scheduler does not answer.
pub fn cancel_jobs_named(url: &ClusterUrl, name: &str) -> Result<usize> {
    let mut cancelled = 0;
    for job in jobs(url)? {
        if job.name == name && job.end_ms == 0 {
            let (status, _) = request(url, "PATCH", &format!("/api/job/{}", job.id))?;
            if status == 200 {
                cancelled += 1;
            }
        }
    }
    Ok(cancelled)
}

/// An HTTP/1.1 chunked body, joined.
fn unchunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || after.len() < size {
            break;
        }
        out.push_str(&after[..size]);
        rest = after[size..].strip_prefix("\r\n").unwrap_or(&after[size..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_bodies_are_joined() {
        assert_eq!(unchunk("3\r\n[{}\r\n1\r\n]\r\n0\r\n\r\n"), "[{}]");
    }
}
