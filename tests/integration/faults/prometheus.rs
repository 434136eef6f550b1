//! Faults: a Prometheus that misbehaves quietly. The fault is the server, so the server is
//! written here, on 127.0.0.1: one that drips its answer a byte a second, one that answers for
//! some clusters and warns of a partial response, one whose count lacks points its sum has.
//! The real binary audits a job log against each (docs/utilization.md, "Pulling from Prometheus").

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;

/// 2024-03-01T00:00:00Z, the window's start; the audit covers that day.
const WINDOW: [&str; 4] = ["--since", "2024-03-01", "--until", "2024-03-02"];
const CLUSTERS: [&str; 4] = ["ap-south", "eu-west", "us-east", "us-west"];
const GPUS_PER_CLUSTER: f64 = 8.0;
/// What the job log reports for every job.
const LOG_UTIL_PCT: f64 = 40.0;

/// One job of 8 GPUs through the day on each cluster, 40 % busy by the log.
fn job_log(dir: &Path) -> String {
    let mut text = "job_id,cluster,name,user,queue,state,start,end,gpus,gpu_util_pct\n".to_string();
    for (i, cluster) in CLUSTERS.iter().enumerate() {
        text.push_str(&format!(
            "{},{cluster},pretrain-{i},ml,train,COMPLETED,2024-03-01T00:00:00Z,2024-03-02T00:00:00Z,{GPUS_PER_CLUSTER},{LOG_UTIL_PCT}\n",
            i + 1
        ));
    }
    let path = dir.join("jobs.csv");
    std::fs::write(&path, text).expect("job log");
    path.to_str().expect("utf-8 path").to_string()
}

/// A request as the fake server read it: its path and its form.
struct Request {
    path: String,
    form: BTreeMap<String, String>,
}

/// `a+b%2Cc` → `a b,c`.
fn form_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut first = String::new();
    reader.read_line(&mut first).ok()?;
    let path = first.split_whitespace().nth(1)?.to_string();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let form = String::from_utf8_lossy(&body)
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (form_decoded(k), form_decoded(v)))
        .collect();
    Some(Request { path, form })
}

/// What the fake server does with one request on its connection.
type Answer = dyn Fn(&Request, &mut TcpStream, &AtomicBool) + Send + Sync;

/// A misbehaving Prometheus on 127.0.0.1; stopped (its thread joined) when dropped.
struct FakePrometheus {
    url: String,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FakePrometheus {
    fn start(answer: Box<Answer>) -> FakePrometheus {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://127.0.0.1:{}", listener.local_addr().expect("addr").port());
        // Polled, so that the thread sees `stop` between connections.
        listener.set_nonblocking(true).expect("nonblocking");
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            while !stopping.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((mut stream, _)) => {
                        let _ = stream.set_nonblocking(false);
                        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                        if let Some(request) = read_request(&stream) {
                            answer(&request, &mut stream, &stopping);
                        }
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        FakePrometheus {
            url,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for FakePrometheus {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn respond_json(stream: &mut TcpStream, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.flush();
}

/// The evaluation instants (unix seconds) a range query asks for.
fn instants(request: &Request) -> Vec<i64> {
    let seconds = |key: &str| -> f64 { request.form.get(key).and_then(|v| v.parse().ok()).unwrap_or(0.0) };
    let (start, end, step) = (seconds("start"), seconds("end"), seconds("step").max(1.0));
    let mut t = start;
    let mut out = Vec::new();
    while t <= end + 1e-6 {
        out.push(t.round() as i64);
        t += step;
    }
    out
}

/// Which half of a utilization query a request is, and whether it asks for the engine-active
/// ratio (the only metric these servers have).
fn is_sum(request: &Request) -> bool {
    request.form.get("query").is_some_and(|q| q.starts_with("sum"))
}

fn asks_engine_active(request: &Request) -> bool {
    request
        .form
        .get("query")
        .is_some_and(|q| q.contains("DCGM_FI_PROF_GR_ENGINE_ACTIVE"))
}

/// A matrix answer: per cluster, its points as `value(t)` gives them (None: no point).
fn matrix(clusters: &[&str], times: &[i64], value: &dyn Fn(&str, i64) -> Option<f64>, warnings: &[&str]) -> String {
    let series: Vec<Value> = clusters
        .iter()
        .map(|cluster| {
            let values: Vec<Value> = times
                .iter()
                .filter_map(|&t| value(cluster, t).map(|v| serde_json::json!([t, v.to_string()])))
                .collect();
            serde_json::json!({"metric": {"cluster": cluster}, "values": values})
        })
        .collect();
    let mut answer = serde_json::json!({
        "status": "success",
        "data": {"resultType": "matrix", "result": series}
    });
    if !warnings.is_empty() {
        answer["warnings"] = serde_json::json!(warnings);
    }
    answer.to_string()
}

/// Text with every run of whitespace made one space: notes wrap in the text document.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cluster<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["clusters"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("cluster {name} in {report}"))
}

fn notes(report: &Value) -> Vec<String> {
    report["measurement_notes"]
        .as_array()
        .map(|ns| ns.iter().filter_map(|n| n.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

#[test]
fn a_server_that_drips_its_answer_is_given_up_at_the_deadline() {
    let home = tempfile::tempdir().expect("home");
    let log = job_log(home.path());
    // Headers at once, then the body a byte a second: each read is quick, the answer never ends.
    let server = FakePrometheus::start(Box::new(|_, stream, stop| {
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n"
        );
        for _ in 0..600 {
            if stream.write_all(b" ").and_then(|()| stream.flush()).is_err() {
                return;
            }
            for _ in 0..10 {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }));
    let mut args = vec!["audit", &log, "--prometheus", &server.url, "--prometheus-timeout", "5"];
    args.extend(WINDOW);
    let (code, _, stderr, took) = crate::common::gpuplan_within(home.path(), &args, &[], Duration::from_secs(60));
    assert!(code.is_some(), "still running after {took:?}: killed");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("prometheus {}: no answer within 5 s", server.url)),
        "the server and the deadline are named: {stderr}"
    );
    assert!(stderr.contains("the whole body"), "{stderr}");
    // Five seconds of deadline, plus the binary's start and the log's read.
    assert!(took < Duration::from_secs(12), "took {took:?}");
}

#[test]
fn a_partial_response_says_why_each_missing_cluster_falls_back_to_the_log() {
    let home = tempfile::tempdir().expect("home");
    let log = job_log(home.path());
    const WARNING: &str = "partial response: receive series from store 10.0.0.7:10901: rpc error: code = Unavailable";
    // Thanos with two of four clusters' stores down: their series are missing, and it says so.
    let server = FakePrometheus::start(Box::new(|request, stream, _| {
        let body = if request.path == "/api/v1/query_range" && asks_engine_active(request) {
            let sum = is_sum(request);
            let value = move |_: &str, _: i64| Some(if sum { GPUS_PER_CLUSTER * 0.7 } else { GPUS_PER_CLUSTER });
            matrix(&["eu-west", "us-east"], &instants(request), &value, &[WARNING])
        } else {
            matrix(&[], &[], &|_, _| None, &[WARNING])
        };
        respond_json(stream, &body);
    }));
    let mut args = vec!["audit", &log, "--prometheus", &server.url, "--format", "json"];
    args.extend(WINDOW);
    let (code, stdout, stderr, _) = crate::common::gpuplan_within(home.path(), &args, &[], Duration::from_secs(120));
    assert_eq!(code, Some(0), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("JSON");
    for measured in ["eu-west", "us-east"] {
        let c = cluster(&report, measured);
        assert_eq!(c["utilization_source"], "measured", "{c}");
        assert!(c.get("unmeasured").is_none(), "{c}");
    }
    for missing in ["ap-south", "us-west"] {
        let c = cluster(&report, missing);
        assert_eq!(c["utilization_source"], "job_log", "{c}");
        let why = c["unmeasured"].as_str().unwrap_or_else(|| panic!("a reason on {c}"));
        assert!(why.starts_with("Prometheus returned no series for it"), "{why}");
        assert!(why.contains(WARNING), "{why}");
        assert!(
            notes(&report).iter().any(|n| n
                .starts_with(&format!("{missing}: not measured, the job log's utilization stands"))
                && n.contains(WARNING)),
            "{:?}",
            notes(&report)
        );
    }
    assert!(
        notes(&report)
            .iter()
            .any(|n| n.starts_with("the server warned") && n.ends_with(WARNING)),
        "{:?}",
        notes(&report)
    );

    let mut args = vec!["audit", &log, "--prometheus", &server.url];
    args.extend(WINDOW);
    let (code, stdout, stderr, _) = crate::common::gpuplan_within(home.path(), &args, &[], Duration::from_secs(120));
    assert_eq!(code, Some(0), "{stderr}");
    let text = flat(&stdout);
    for missing in ["ap-south", "us-west"] {
        assert!(
            text.contains(&format!(
                "{missing}: not measured, the job log's utilization stands: Prometheus returned no series for it"
            )),
            "{stdout}"
        );
    }
    assert!(text.contains(WARNING), "{stdout}");
}

#[test]
fn a_count_missing_points_its_sum_has_does_not_double_utilization() {
    let home = tempfile::tempdir().expect("home");
    let log = job_log(home.path());
    // Quarter-hour steps, every cluster 40 % busy on 8 GPUs; ap-south's count answers only every
    // other step. Summing four sums over two counts would read 80 %.
    let server = FakePrometheus::start(Box::new(|request, stream, _| {
        let body = if request.path == "/api/v1/query_range" && asks_engine_active(request) {
            let sum = is_sum(request);
            let value = move |cluster: &str, t: i64| {
                if sum {
                    Some(GPUS_PER_CLUSTER * 0.4)
                } else if cluster == "ap-south" && (t / 900) % 2 == 1 {
                    None
                } else {
                    Some(GPUS_PER_CLUSTER)
                }
            };
            matrix(&CLUSTERS, &instants(request), &value, &[])
        } else {
            matrix(&[], &[], &|_, _| None, &[])
        };
        respond_json(stream, &body);
    }));
    let mut args = vec![
        "audit",
        &log,
        "--prometheus",
        &server.url,
        "--prometheus-step",
        "900",
        "--format",
        "json",
    ];
    args.extend(WINDOW);
    let (code, stdout, stderr, _) = crate::common::gpuplan_within(home.path(), &args, &[], Duration::from_secs(120));
    assert_eq!(code, Some(0), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("JSON");
    for name in CLUSTERS {
        let c = cluster(&report, name);
        assert_eq!(c["utilization_source"], "measured", "{c}");
        let mean = c["measured"]["mean_util_frac"].as_f64().expect("a measured mean");
        assert!((mean - 0.4).abs() < 1e-9, "{name}: {mean}, not doubled");
        assert_eq!(c["measured"]["hours_measured"], 24, "{c}");
    }
    // 96 quarter-hours in the day, every other one without its count.
    let gap = "ap-south: 48 steps left out where the server answered the sum and not the count, or the reverse";
    assert!(
        notes(&report).iter().any(|n| n.starts_with(gap)),
        "{:?}",
        notes(&report)
    );
    assert_eq!(
        notes(&report).iter().filter(|n| n.contains("steps left out")).count(),
        1,
        "only ap-south had gaps: {:?}",
        notes(&report)
    );

    let mut args = vec!["audit", &log, "--prometheus", &server.url, "--prometheus-step", "900"];
    args.extend(WINDOW);
    let (code, stdout, stderr, _) = crate::common::gpuplan_within(home.path(), &args, &[], Duration::from_secs(120));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(flat(&stdout).contains(gap), "{stdout}");
}

/// Issue 67, finding 10: ap-south's series answer NaN at every step (was "Prometheus returned no
/// series for it"), and us-west's sums come over a count of 0 (was "no samples", and such a sum
/// added to an hour's other steps would have inflated their mean). Each is said for what it is.
#[test]
fn all_nan_series_and_sums_over_a_count_of_zero_are_said_for_what_they_are() {
    let home = tempfile::tempdir().expect("home");
    let log = job_log(home.path());
    let server = FakePrometheus::start(Box::new(|request, stream, _| {
        let body = if request.path == "/api/v1/query_range" && asks_engine_active(request) {
            let sum = is_sum(request);
            let value = move |cluster: &str, _: i64| match (cluster, sum) {
                ("ap-south", _) => Some(f64::NAN),
                ("us-west", true) => Some(GPUS_PER_CLUSTER * 0.4),
                ("us-west", false) => Some(0.0),
                (_, true) => Some(GPUS_PER_CLUSTER * 0.4),
                (_, false) => Some(GPUS_PER_CLUSTER),
            };
            matrix(&CLUSTERS, &instants(request), &value, &[])
        } else {
            matrix(&[], &[], &|_, _| None, &[])
        };
        respond_json(stream, &body);
    }));
    let mut args = vec!["audit", &log, "--prometheus", &server.url, "--format", "json"];
    args.extend(WINDOW);
    let (code, stdout, stderr, _) = crate::common::gpuplan_within(home.path(), &args, &[], Duration::from_secs(120));
    assert_eq!(code, Some(0), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("JSON");
    for measured in ["eu-west", "us-east"] {
        let c = cluster(&report, measured);
        assert_eq!(c["utilization_source"], "measured", "{c}");
    }
    let nan = cluster(&report, "ap-south");
    assert_eq!(nan["utilization_source"], "job_log", "{nan}");
    let why = nan["unmeasured"].as_str().expect("a reason");
    assert!(
        why.starts_with("Prometheus returned its series, but every value was NaN or infinite"),
        "{why}"
    );
    let empty = cluster(&report, "us-west");
    assert_eq!(empty["utilization_source"], "job_log", "{empty}");
    let why = empty["unmeasured"].as_str().expect("a reason");
    assert!(why.contains("over a count of 0 GPU series"), "{why}");
    assert!(
        notes(&report)
            .iter()
            .any(|n| n.starts_with("us-west: ") && n.contains("the count was 0")),
        "{:?}",
        notes(&report)
    );
}
