//! The quality report: the text `ldp run` prints and the JSON `ldp run --json` includes.

use ldp_plugin_runtime::CheckResult;
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// The verdicts of a run's checks, in config order. A report without results has passed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QualityReport {
    /// One verdict per check (a check plugin may give several).
    pub results: Vec<CheckResult>,
}

impl QualityReport {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.results.iter().all(|r| r.passed)
    }

    /// The verdicts of the checks that failed, in order.
    pub fn failures(&self) -> impl Iterator<Item = &CheckResult> {
        self.results.iter().filter(|r| !r.passed)
    }

    /// How many checks failed.
    pub fn failed(&self) -> usize {
        self.failures().count()
    }

    /// `Data quality: K of N checks passed[, F failed]` and one `  [PASS] name: details` line per
    /// check; `Data quality: no checks run` without checks.
    pub fn summary(&self) -> String {
        if self.results.is_empty() {
            return "Data quality: no checks run".into();
        }
        let failed = self.failed();
        let total = self.results.len();
        let mut text = format!("Data quality: {} of {total} checks passed", total - failed);
        if failed > 0 {
            text.push_str(&format!(", {failed} failed"));
        }
        for result in &self.results {
            text.push_str("\n  ");
            text.push_str(&result_line(result));
        }
        text
    }

    /// The error of a blocked run: `F of N data quality checks failed:` and `  - name: details`
    /// per failure.
    pub fn failure_message(&self) -> String {
        let mut text = format!(
            "{} of {} data quality checks failed:",
            self.failed(),
            self.results.len()
        );
        for result in self.failures() {
            text.push_str(&format!("\n  - {}: {}", result.name, result.details));
        }
        text
    }
}

/// `[PASS] name: details` or `[FAIL] name: details [failing rows: N]` (the suffix when N > 0).
pub fn result_line(result: &CheckResult) -> String {
    let status = if result.passed { "PASS" } else { "FAIL" };
    let suffix = if result.failing_rows > 0 {
        format!(" [failing rows: {}]", result.failing_rows)
    } else {
        String::new()
    };
    format!("[{status}] {}: {}{suffix}", result.name, result.details)
}

impl Serialize for QualityReport {
    /// `{passed, checks_run, checks_failed, results: [{name, passed, details, failing_rows,
    /// metrics}]}`, as the Python tool's `QualityReport.to_dict()`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("QualityReport", 4)?;
        s.serialize_field("passed", &self.passed())?;
        s.serialize_field("checks_run", &self.results.len())?;
        s.serialize_field("checks_failed", &self.failed())?;
        s.serialize_field("results", &self.results)?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(name: &str, passed: bool, details: &str, failing_rows: u64) -> CheckResult {
        CheckResult {
            name: name.into(),
            passed,
            details: details.into(),
            failing_rows,
            metrics: json!({}),
        }
    }

    #[test]
    fn text_and_json_as_the_reference() {
        assert_eq!(
            QualityReport::default().summary(),
            "Data quality: no checks run"
        );
        let report = QualityReport {
            results: vec![
                result("row_count", true, "20 rows (expected >= 1)", 0),
                result(
                    "range(fare)",
                    false,
                    "1 of 20 rows violate fare >= 0: 1 below min, 0 above max",
                    1,
                ),
            ],
        };
        assert_eq!(
            report.summary(),
            "Data quality: 1 of 2 checks passed, 1 failed\n  [PASS] row_count: 20 rows (expected >= 1)\n  \
             [FAIL] range(fare): 1 of 20 rows violate fare >= 0: 1 below min, 0 above max [failing rows: 1]"
        );
        assert_eq!(
            report.failure_message(),
            "1 of 2 data quality checks failed:\n  - range(fare): 1 of 20 rows violate fare >= 0: 1 below min, 0 above max"
        );
        let value = serde_json::to_value(&report).unwrap();
        assert_eq!(value["passed"], json!(false));
        assert_eq!(value["checks_run"], json!(2));
        assert_eq!(value["checks_failed"], json!(1));
        assert_eq!(
            value["results"][1]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["name", "passed", "details", "failing_rows", "metrics"]
        );
    }
}
