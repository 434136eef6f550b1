//! Issue 67, finding 10: messages that misled. Each input here once gave a message that did not
//! say what happened; each now names it.

use crate::common::{SAMPLE_LOG, gpuplan_in};

fn stderr_of(args: &[&str]) -> String {
    let home = tempfile::tempdir().expect("home");
    let run = gpuplan_in(home.path(), args);
    assert_ne!(run.code, 0, "{}", run.stdout);
    run.stderr
}

/// Was "error: : no usable rows: nothing to audit" (a blank file name).
#[test]
fn a_node_list_given_alone_says_it_holds_no_jobs() {
    let home = tempfile::tempdir().expect("home");
    let nodes = home.path().join("nodes.csv");
    std::fs::write(
        &nodes,
        "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0001,96000,786432,8,V100M32\nopenb-node-0002,96000,786432,2,T4\n",
    )
    .expect("node list");
    let stderr = stderr_of(&["audit", nodes.to_str().expect("path")]);
    assert!(
        stderr.contains("error: no job log among the inputs: a node list"),
        "{stderr}"
    );
    assert!(!stderr.contains("error: :"), "{stderr}");
}

/// Was "CSV malformed: expected 71 rows, actual 5 rows, in chunk starting at byte offset 0".
#[test]
fn a_plan_given_where_a_log_goes_says_so() {
    let home = tempfile::tempdir().expect("home");
    let plan = home.path().join("scenario.plan");
    let run = gpuplan_in(home.path(), &["plan", "new", "-o", plan.to_str().expect("path")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let stderr = stderr_of(&["audit", plan.to_str().expect("path")]);
    assert!(
        stderr.contains("a gpuplan plan (TOML), not a job log: give it with --plan FILE"),
        "{stderr}"
    );
    assert!(!stderr.contains("CSV malformed"), "{stderr}");
}

/// Was "no usable rows: nothing to audit", with no reason.
#[test]
fn a_time_origin_on_a_log_of_dates_names_the_rows_set_aside_and_why() {
    let stderr = stderr_of(&["audit", SAMPLE_LOG, "--time-origin", "2025-01-01T00:00:00Z"]);
    assert!(stderr.contains("every row was set aside ("), "{stderr}");
    assert!(stderr.contains("unparseable time"), "{stderr}");
    assert!(stderr.contains("--time-origin"), "{stderr}");
}
