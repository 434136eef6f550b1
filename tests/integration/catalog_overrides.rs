//! Catalog overrides from the user's config folder: merged over the built-ins, and a bad
//! entry reported with file, line and key while the built-in stands.

use gpuplan::config::catalog::{builtin, load};

#[test]
fn the_built_in_catalogs_load_without_a_warning() {
    let loaded = builtin();
    assert!(loaded.warnings.is_empty(), "{:#?}", loaded.warnings);
    let catalog = loaded.catalog;
    for id in ["h100-sxm", "h200-sxm", "b200", "tpu-v5e", "trainium2"] {
        let accelerator = catalog.accelerator(id).unwrap_or_else(|| panic!("{id} in the catalog"));
        assert!(!accelerator.source.is_empty() && !accelerator.as_of.is_empty());
    }
    assert!(catalog.thresholds.missing_keys().is_empty());
    assert_eq!(catalog.thresholds.mfu_floor_frac, 0.25);
    assert_eq!(catalog.thresholds.cpbt_max_usd_per_billion_tokens, 1500.0);
    // The seed's hyperscaler H100 rate and the sensitivity table's price set.
    assert!(
        catalog
            .prices
            .iter()
            .any(|p| p.price_set == "seed-001" && p.usd_per_chip_hour() == 12.29)
    );
    for id in ["h100-sxm", "tpu-v5e", "trainium2"] {
        assert!(
            !catalog
                .prices_for(id, "seed-002", gpuplan::model::catalog::Term::OnDemand)
                .is_empty(),
            "{id}"
        );
    }
    for price in &catalog.prices {
        assert!(!price.source.is_empty() && price.as_of.len() == 10, "{price:?}");
    }
}

#[test]
fn aliases_from_job_logs_find_their_accelerator() {
    let catalog = builtin().catalog;
    let h100 = catalog.accelerator("NVIDIA H100 80GB HBM3").expect("nvidia-smi name");
    assert_eq!(h100.id, "h100-sxm");
    assert_eq!(catalog.accelerator("h100").map(|a| a.id.as_str()), Some("h100-sxm"));
}

#[test]
fn a_bad_override_entry_is_reported_and_the_rest_merges() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("accelerators.toml"),
        r#"schema_version = 1

[[price]]
accelerator = "h100-sxm"
price_set = "negotiated"
provider = "Our reseller"
term = "1-year"
deployment = "bare-metal"
usd_per_hour = 16.0
chips = 8
source = "contract 2026-114"
as_of = "2026-10-01"

[[price]]
accelerator = "h100-sxm"
price_set = "negotiated"
provider = "Typo"
term = "2-year"
deployment = "vm"
usd_per_hour = 1.0
chips = 1
source = "x"
as_of = "2026-10-01"
"#,
    )
    .expect("write override");
    std::fs::write(
        dir.path().join("thresholds.toml"),
        "schema_version = 1\n[mfu_floor_frac]\nvalue = 0.35\nsource = \"our policy\"\nmeaning = \"stricter floor\"\n\n[mfu_flor]\nvalue = 0.1\n",
    )
    .expect("write thresholds");
    let loaded = load(Some(dir.path()));
    let negotiated = loaded
        .catalog
        .prices_for("h100-sxm", "negotiated", gpuplan::model::catalog::Term::OneYear);
    assert_eq!(negotiated.len(), 1);
    assert_eq!(negotiated[0].usd_per_chip_hour(), 2.0);
    assert_eq!(loaded.catalog.thresholds.mfu_floor_frac, 0.35);
    // The built-ins stand.
    assert!(loaded.catalog.accelerator("b200").is_some());
    assert_eq!(loaded.warnings.len(), 2, "{:#?}", loaded.warnings);
    let term = loaded.warnings[0].to_string();
    assert!(
        term.contains("accelerators.toml:18:8: price[1]: unknown variant `2-year`"),
        "{term}"
    );
    let threshold = loaded.warnings[1].to_string();
    assert!(
        threshold.contains("thresholds.toml:7:1: mfu_flor: unknown threshold"),
        "{threshold}"
    );
}

#[test]
fn an_unreadable_override_keeps_every_default() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("accelerators.toml"), b"\xff\xfe binary").expect("write");
    std::fs::write(
        dir.path().join("references.toml"),
        "schema_version = 1\n[[sensitivity]\n",
    )
    .expect("write");
    let loaded = load(Some(dir.path()));
    assert_eq!(loaded.catalog, builtin().catalog);
    let shown: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    assert!(shown[0].contains("accelerators.toml: not UTF-8 text"), "{shown:?}");
    assert!(shown[1].contains("references.toml:2:"), "{shown:?}");
}

#[test]
fn a_broken_rules_or_offers_file_keeps_the_built_in_list() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("classification.toml"),
        "schema_version = 1\n[[rule]]\nname = \"x\"\nclass = \"gaming\"\n",
    )
    .expect("write rules");
    std::fs::write(dir.path().join("contracts.toml"), "schema_version = 1\n[[offer]\n").expect("write offers");
    let loaded = load(Some(dir.path()));
    let built_in = builtin().catalog;
    assert_eq!(loaded.catalog.classification, built_in.classification);
    assert_eq!(loaded.catalog.contracts, built_in.contracts);
    let shown: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    assert!(
        shown
            .iter()
            .any(|w| w.contains("classification.toml:4:9") && w.contains("built-in rules kept")),
        "{shown:?}"
    );
    assert!(
        shown
            .iter()
            .any(|w| w.contains("contracts.toml:2:") && w.contains("built-in offers kept")),
        "{shown:?}"
    );
}

#[test]
fn override_numbers_no_chip_or_document_has_are_refused_at_their_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let h100 = builtin().catalog.accelerator("h100-sxm").cloned().expect("h100");
    let mut negative_peak = toml::to_string(&h100).expect("h100 as TOML");
    negative_peak = negative_peak.replace("bf16_dense_tflops = 989.0", "bf16_dense_tflops = -989.0");
    assert!(negative_peak.contains("-989.0"), "{negative_peak}");
    std::fs::write(
        dir.path().join("accelerators.toml"),
        format!(
            "schema_version = 1\n\n[[accelerator]]\n{negative_peak}\n[[price]]\naccelerator = \"h100-sxm\"\n\
             price_set = \"huge\"\nprovider = \"x\"\nterm = \"on-demand\"\ndeployment = \"vm\"\n\
             usd_per_hour = 1e300\nchips = 8\nsource = \"x\"\nas_of = \"2026-10-01\"\n"
        ),
    )
    .expect("write accelerators");
    std::fs::write(
        dir.path().join("references.toml"),
        "schema_version = 1\n[[sensitivity]]\naccelerator = \"h100-sxm\"\nprice_set = \"seed-001\"\n\
         model_params = 70e9\nmfu = 0.4\ncost_usd = -5.0\nsource = \"x\"\n",
    )
    .expect("write references");
    std::fs::write(
        dir.path().join("thresholds.toml"),
        "schema_version = 1\n[mfu_floor_frac]\nvalue = 1e300\nsource = \"x\"\nmeaning = \"y\"\n",
    )
    .expect("write thresholds");
    let loaded = load(Some(dir.path()));
    // Every built-in stands: the H100's peak, the prices, the references, the floor.
    assert_eq!(loaded.catalog, builtin().catalog);
    let shown: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(shown.len(), 4, "{shown:#?}");
    let peak_line = 4 + negative_peak
        .lines()
        .position(|l| l.contains("-989.0"))
        .expect("peak line");
    for expected in [
        format!("accelerators.toml:{peak_line}:21: accelerator[0].bf16_dense_tflops: expected a number above 0"),
        "price[0].usd_per_hour: expected a price of 0 or more".to_string(),
        "references.toml:7:12: sensitivity[0].cost_usd: expected a cost of 0 or more".to_string(),
        "thresholds.toml:3:9: mfu_floor_frac.value: expected a finite number: 0 or a size from 1e-9 to 1e18"
            .to_string(),
    ] {
        assert!(shown.iter().any(|w| w.contains(&expected)), "{expected} in {shown:#?}");
    }
}
