//! What an offer can supply, as its seller states it: the fabric between nodes, how many GPUs
//! one node joins, the most GPUs one customer can get, and how long from signing to usable
//! capacity. A figure the seller does not state is "unknown": the matcher then assumes the
//! offer can supply and says so (docs/board.md, "Offers that can be had").

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// A figure the catalog states, or "unknown".
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Stated {
    Known(f64),
    #[default]
    Unknown,
}

impl Stated {
    pub fn known(self) -> Option<f64> {
        match self {
            Stated::Known(value) => Some(value),
            Stated::Unknown => None,
        }
    }
}

impl Serialize for Stated {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Stated::Known(value) => serializer.serialize_f64(*value),
            Stated::Unknown => serializer.serialize_str("unknown"),
        }
    }
}

impl<'de> Deserialize<'de> for Stated {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Stated, D::Error> {
        struct StatedVisitor;
        impl Visitor<'_> for StatedVisitor {
            type Value = Stated;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number >= 0 or \"unknown\"")
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<Stated, E> {
                if value.is_finite() && value >= 0.0 {
                    Ok(Stated::Known(value))
                } else {
                    Err(E::invalid_value(de::Unexpected::Float(value), &self))
                }
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Stated, E> {
                if value >= 0 {
                    Ok(Stated::Known(value as f64))
                } else {
                    Err(E::invalid_value(de::Unexpected::Signed(value), &self))
                }
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Stated, E> {
                Ok(Stated::Known(value as f64))
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<Stated, E> {
                if value.trim().eq_ignore_ascii_case("unknown") {
                    Ok(Stated::Unknown)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(value), &self))
                }
            }
        }
        deserializer.deserialize_any(StatedVisitor)
    }
}

/// The fabric between nodes, as the seller states it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InterNode {
    Infiniband,
    /// RDMA over Ethernet (RoCE, GPUDirect-RDMA fabrics).
    Roce,
    /// AWS Elastic Fabric Adapter: an RDMA fabric built for the same collectives.
    Efa,
    /// TCP over Ethernet: no RDMA, too slow for a gang's all-reduce.
    Ethernet,
    /// Single nodes that cannot be joined.
    None,
    #[default]
    Unknown,
}

impl InterNode {
    pub fn label(self) -> &'static str {
        match self {
            InterNode::Infiniband => "InfiniBand",
            InterNode::Roce => "RoCE",
            InterNode::Efa => "EFA",
            InterNode::Ethernet => "Ethernet",
            InterNode::None => "none",
            InterNode::Unknown => "unknown",
        }
    }

    /// An RDMA fabric a gang spread over nodes can all-reduce over.
    pub fn carries_gangs(self) -> bool {
        matches!(self, InterNode::Infiniband | InterNode::Roce | InterNode::Efa)
    }
}

/// Why a gang of `gang_gpus` cannot run on an offer joining `scale_up_gpus` in a node over
/// `inter_node`; None when it can (it fits a node, or the fabric carries it).
pub fn gang_misfit(gang_gpus: f64, scale_up_gpus: u32, inter_node: InterNode) -> Option<String> {
    if gang_gpus <= f64::from(scale_up_gpus.max(1)) || inter_node.carries_gangs() {
        return None;
    }
    Some(format!(
        "gangs of {gang_gpus:.0} GPUs span nodes of {scale_up_gpus}, and the offer states {} between nodes",
        match inter_node {
            InterNode::Unknown => "no fabric".to_string(),
            other => other.label().to_string(),
        }
    ))
}

/// GPUs an offer must supply, against the most it states (None: unknown, assumed it can).
pub fn exceeds_max(gpus: f64, max_gpus: Stated) -> bool {
    max_gpus.known().is_some_and(|max| gpus > max + 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Row {
        figure: Stated,
        fabric: InterNode,
    }

    #[test]
    fn figures_are_numbers_or_unknown() {
        let row: Row = toml::from_str("figure = 4\nfabric = \"infiniband\"").expect("reads");
        assert_eq!(row.figure, Stated::Known(4.0));
        assert_eq!(row.fabric, InterNode::Infiniband);
        let row: Row = toml::from_str("figure = 0.5\nfabric = \"unknown\"").expect("reads");
        assert_eq!(row.figure, Stated::Known(0.5));
        let row: Row = toml::from_str("figure = \"unknown\"\nfabric = \"efa\"").expect("reads");
        assert_eq!(row.figure, Stated::Unknown);
        for bad in [
            "figure = -1\nfabric = \"efa\"",
            "figure = \"soon\"\nfabric = \"efa\"",
            "figure = 1\nfabric = \"nvlink\"",
        ] {
            let error = toml::from_str::<Row>(bad).expect_err(bad).to_string();
            assert!(error.contains("unknown") || error.contains("variant"), "{error}");
        }
    }

    #[test]
    fn gangs_that_span_nodes_need_an_rdma_fabric() {
        assert_eq!(gang_misfit(8.0, 8, InterNode::None), None);
        assert_eq!(gang_misfit(1.0, 1, InterNode::Unknown), None);
        assert_eq!(gang_misfit(176.0, 8, InterNode::Infiniband), None);
        assert_eq!(gang_misfit(176.0, 8, InterNode::Efa), None);
        let why = gang_misfit(16.0, 8, InterNode::Ethernet).expect("cannot");
        assert!(why.contains("16 GPUs") && why.contains("Ethernet"), "{why}");
        assert!(
            gang_misfit(2.0, 1, InterNode::Unknown)
                .expect("cannot")
                .contains("no fabric")
        );
    }

    #[test]
    fn an_unknown_maximum_is_assumed_to_suffice() {
        assert!(!exceeds_max(1_000.0, Stated::Unknown));
        assert!(exceeds_max(65.0, Stated::Known(64.0)));
        assert!(!exceeds_max(64.0, Stated::Known(64.0)));
    }
}
