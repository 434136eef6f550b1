//! Every decision threshold of docs/economics.md, resolved: the catalog's values with a plan's
//! overrides applied.

use serde::{Deserialize, Serialize};

/// Declares the threshold set once: the resolved struct, the plan's all-optional overrides,
/// and the list of (key, value) pairs reports iterate.
macro_rules! thresholds {
    ($( $(#[doc = $doc:literal])* $key:ident ),+ $(,)?) => {
        #[derive(Debug, Clone, Copy, PartialEq, Serialize)]
        pub struct Thresholds { $( $(#[doc = $doc])* pub $key: f64, )+ }

        /// A plan's `[thresholds]` table: any subset of the keys.
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct ThresholdOverrides {
            $( #[serde(default, skip_serializing_if = "Option::is_none")] pub $key: Option<f64>, )+
        }

        impl Thresholds {
            pub const KEYS: &'static [&'static str] = &[$( stringify!($key) ),+];

            /// Every threshold unknown (NaN): the starting point a catalog fills in.
            pub fn unset() -> Thresholds {
                Thresholds { $( $key: f64::NAN, )+ }
            }

            /// Keys still without a value.
            pub fn missing_keys(&self) -> Vec<&'static str> {
                self.entries().into_iter().filter(|(_, v)| v.is_nan()).map(|(k, _)| k).collect()
            }

            pub fn with_overrides(mut self, overrides: &ThresholdOverrides) -> Thresholds {
                $( if let Some(value) = overrides.$key { self.$key = value; } )+
                self
            }

            /// Sets a threshold by its key; false when no threshold has that key.
            pub fn set(&mut self, key: &str, value: f64) -> bool {
                match key {
                    $( stringify!($key) => { self.$key = value; true } )+
                    _ => false,
                }
            }

            pub fn entries(&self) -> Vec<(&'static str, f64)> {
                vec![$( (stringify!($key), self.$key) ),+]
            }
        }
    };
}

thresholds! {
    /// Any distributed training job below this MFU is flagged (seed 002, checklist 10).
    mfu_floor_frac,
    /// Trainium2 MFU below this abandons the migration (seed 002, 4A).
    trainium2_abandon_mfu_frac,
    /// No 1- or 3-year custom-silicon reservation without a bake-off MFU above this.
    custom_silicon_reservation_min_mfu_frac,
    /// Any reservation above this many dollars needs a 5 %-scale bake-off on each candidate.
    bakeoff_required_above_usd,
    /// Network wait above this share of compute time halts the run (Infiniband tax).
    network_wait_max_frac,
    /// Checkpoint time as a share of MTBI above which 100 %-spot training is refused.
    checkpoint_max_share_of_mtbi,
    /// Clusters averaging below this utilization are candidates for shorter terms.
    permanent_allocation_min_utilization_frac,
    /// Sustained utilization above this makes bare metal win on TCO.
    bare_metal_min_sustained_utilization_frac,
    /// One-way network transit to users above this calls for geographic distribution.
    inference_max_transit_ms,
    /// Cost per billion tokens above this (70B class) means an unoptimized serving stack.
    cpbt_max_usd_per_billion_tokens,
    /// Training jobs above this many GPU-hours belong on bare metal.
    bare_metal_min_training_gpu_hours,
    /// Inference above this request rate belongs on bare metal.
    bare_metal_min_inference_requests_per_s,
}
