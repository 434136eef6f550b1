//! The forecast's and the policies' choices stand when the fits get faster (issue 68): on the
//! shipped sample and the slices of openb, DLRM 2025 and Philly, each class's chosen forecast
//! method and commitment policy, its cross-validated error and the board's headline are what
//! the build before the fit memo and the shorter ETS search gave (recorded 2026-11-29 with every
//! ETS fit run to 2,000 Nelder-Mead steps and nothing kept); and a second report, its fits
//! served from the read cache's kept forecasts, is byte for byte the first.

use std::path::Path;

use serde_json::Value;

use crate::common::gpuplan_in;

struct Expected {
    log: &'static str,
    saving_usd_per_year: f64,
    /// (class, forecast method, cross-validated MAE in GPUs) in the report's order.
    methods: &'static [(&'static str, &'static str, Option<f64>)],
    /// (class, chosen policy).
    policies: &'static [(&'static str, &'static str)],
}

const EXPECTED: [Expected; 4] = [
    Expected {
        log: "sample-data/jobs-90d.csv",
        saving_usd_per_year: 24_840_565.480_303_49,
        methods: &[
            ("training", "combination", Some(53.692_493_869_981_71)),
            ("inference", "seasonal-naive-week", Some(2.807_170_138_888_721)),
            ("burst", "combination", Some(34.836_776_851_019_24)),
        ],
        policies: &[("training", "flat"), ("inference", "flat"), ("burst", "naive_layers")],
    },
    Expected {
        log: "tests/fixtures/openb/openb_pod_list_default.csv",
        saving_usd_per_year: 1_070_723.629_285_832_2,
        methods: &[
            ("training", "no-demand", None),
            ("inference", "combination", Some(0.378_099_851_061_275_75)),
            ("burst", "level", Some(0.083_165_989_751_558_63)),
        ],
        policies: &[("inference", "naive_layers"), ("burst", "on_demand")],
    },
    Expected {
        log: "tests/fixtures/dlrm-2025/disaggregated_DLRM_trace.csv",
        saving_usd_per_year: 6_244_829.534_236_442,
        methods: &[
            ("training", "no-demand", None),
            ("inference", "level", Some(0.945_940_580_669_752_1)),
            ("burst", "no-demand", None),
        ],
        policies: &[("inference", "naive_layers")],
    },
    Expected {
        log: "sample-data/philly-excerpt.json",
        saving_usd_per_year: 45_023_904.521_150_16,
        methods: &[
            ("training", "combination", Some(51.948_777_356_902_54)),
            ("inference", "no-demand", None),
            ("burst", "combination", Some(0.226_579_335_016_934_95)),
        ],
        policies: &[("training", "flat"), ("burst", "on_demand")],
    },
];

fn report(home: &Path, log: &str) -> (String, Value) {
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join(log);
    let run = gpuplan_in(home, &["report", "--logs", &log.to_string_lossy(), "--format", "json"]);
    assert_eq!(run.code, 0, "{}: {}", log.display(), run.stderr);
    let json = serde_json::from_str(&run.stdout).expect("JSON");
    (run.stdout, json)
}

#[test]
fn chosen_methods_and_policies_stand_and_kept_fits_change_nothing() {
    for expected in &EXPECTED {
        let home = tempfile::tempdir().unwrap();
        let (first_text, first) = report(home.path(), expected.log);
        let saving = first["waterfall"]["saving_usd_per_year"].as_f64().unwrap();
        assert!(
            (saving - expected.saving_usd_per_year).abs() < 0.01,
            "{}: headline ${saving:.2}, was ${:.2}",
            expected.log,
            expected.saving_usd_per_year
        );
        let classes = first["forecast"]["classes"].as_array().unwrap();
        assert_eq!(classes.len(), expected.methods.len(), "{}", expected.log);
        for (class, (name, method, mae)) in classes.iter().zip(expected.methods) {
            assert_eq!(class["class"], *name, "{}", expected.log);
            assert_eq!(class["method"], *method, "{} {name}", expected.log);
            let got = class["cross_validation"]["mae_gpus"].as_f64();
            match (got, mae) {
                (Some(got), Some(was)) => assert!(
                    got <= was * (1.0 + 1e-9),
                    "{} {name}: MAE {got} GPUs, was {was}",
                    expected.log
                ),
                (got, was) => assert_eq!(got, *was, "{} {name}", expected.log),
            }
        }
        let policies: Vec<(String, String)> = first["commitments"]["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["class"].as_str().unwrap().to_string(),
                    c["chosen_by"]["policy"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let want: Vec<(String, String)> = expected
            .policies
            .iter()
            .map(|(c, p)| (c.to_string(), p.to_string()))
            .collect();
        assert_eq!(policies, want, "{}", expected.log);
        let fits = home.path().join("cache").join("fits");
        let kept = std::fs::read_dir(&fits).map(|d| d.count()).unwrap_or(0);
        assert_eq!(kept, 1, "{}: one file of kept forecasts beside the read", expected.log);
        let (second_text, _) = report(home.path(), expected.log);
        assert_eq!(
            first_text, second_text,
            "{}: the kept fits changed the report",
            expected.log
        );
    }
}
