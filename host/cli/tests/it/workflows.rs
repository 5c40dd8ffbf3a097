//! `ldp workflow plan`: the Python tool's sample workflow planned as the Python tool plans it
//! (`host/config/tests/data/workflow/workflow_plan.expected.json`, field by field in
//! `host/config`'s tests; here through the binary), and an invalid workflow refused with its
//! problems and exit 1.

use std::path::Path;

use super::{ldp, stderr, stdout};

fn example() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workflows/nightly.json")
}

#[test]
fn the_sample_workflow_plans_as_the_reference_plans_it() {
    let file = example();
    let out = ldp(&[
        "workflow",
        "plan",
        file.to_str().unwrap(),
        "--window",
        "2026-07-31T22:00:00Z/2026-08-01T22:00:00Z",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let want: serde_json::Value = serde_json::from_str(include_str!(
        "../../../config/tests/data/workflow/workflow_plan.expected.json"
    ))
    .unwrap();
    for key in [
        "workflow", "kind", "valid", "errors", "warnings", "schedule", "timezone", "window",
    ] {
        assert_eq!(plan[key], want[key], "{key}");
    }
    assert_eq!(plan["tasks"], want["tasks"]);

    let text = ldp(&["workflow", "plan", file.to_str().unwrap()]);
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    assert!(stdout(&text).contains("orders"), "{}", stdout(&text));
}

#[test]
fn a_cycle_is_named_and_nothing_is_planned() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("loop.json");
    std::fs::write(
        &file,
        r#"{"apiVersion": "ldp/v1", "kind": "Workflow", "identifier": "loop",
            "tasks": [{"id": "a", "maintain": {"config": "x.json"}, "depends_on": ["b"]},
                      {"id": "b", "maintain": {"config": "x.json"}, "depends_on": ["a"]}]}"#,
    )
    .unwrap();
    let out = ldp(&["workflow", "plan", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("depend on each other in a cycle: a -> b -> a"),
        "{}",
        stderr(&out)
    );
}
