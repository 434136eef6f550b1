//! Network transit from the inference cluster to its users (docs/board.md, "Transit"): the
//! seed asks for latency tests from each serving location to the cities where the top 80 % of
//! users are. The figure is the user-weighted mean one-way latency over those users; above the
//! threshold (80 ms), a faster GPU cannot help and serving should move closer.

use serde::{Deserialize, Serialize};

/// The share of users the figure covers, largest locations first.
pub const TOP_USERS_FRAC: f64 = 0.80;

/// One measurement: where users are, their share, and the latency to them from one serving
/// location.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserLatency {
    /// A city or region of users.
    pub location: String,
    /// Share of all users there, 0-1.
    pub users_frac: f64,
    /// Measured round trip; halved for the one-way figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_trip_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_way_ms: Option<f64>,
    /// The serving location measured from; the plan's inference cluster when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

impl UserLatency {
    pub fn one_way(&self) -> Option<f64> {
        self.one_way_ms.or(self.round_trip_ms.map(|rtt| rtt / 2.0))
    }
}

/// One serving location's figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LocationTransit {
    /// The serving location, or `None` for the plan's inference cluster.
    pub from: Option<String>,
    /// User-weighted one-way latency over the top users.
    pub one_way_ms: f64,
    /// Share of all users the figure covers (0.8, or less when fewer were measured).
    pub users_covered_frac: f64,
    /// The user locations in the figure, largest first.
    pub locations: Vec<String>,
    /// The slowest of them, one way.
    pub worst_location: Option<(String, f64)>,
}

/// Each serving location's user-weighted one-way transit over its top 80 % of users, in the
/// order the locations first appear. Locations are taken largest first; the one that crosses
/// 80 % counts only for the share that reaches it. Rows without a latency are left out.
pub fn transit_by_location(rows: &[UserLatency]) -> Vec<LocationTransit> {
    let mut froms: Vec<Option<String>> = Vec::new();
    for row in rows {
        if !froms.contains(&row.from) {
            froms.push(row.from.clone());
        }
    }
    froms
        .into_iter()
        .filter_map(|from| {
            let mut measured: Vec<(&UserLatency, f64)> = rows
                .iter()
                .filter(|r| r.from == from && r.users_frac > 0.0)
                .filter_map(|r| r.one_way().filter(|ms| ms.is_finite() && *ms >= 0.0).map(|ms| (r, ms)))
                .collect();
            measured.sort_by(|a, b| b.0.users_frac.total_cmp(&a.0.users_frac));
            let mut covered = 0.0;
            let mut weighted_ms = 0.0;
            let mut locations = Vec::new();
            let mut worst: Option<(String, f64)> = None;
            for (row, ms) in measured {
                if covered >= TOP_USERS_FRAC - 1e-12 {
                    break;
                }
                let share = row.users_frac.min(TOP_USERS_FRAC - covered);
                covered += share;
                weighted_ms += share * ms;
                locations.push(row.location.clone());
                if worst.as_ref().is_none_or(|(_, w)| ms > *w) {
                    worst = Some((row.location.clone(), ms));
                }
            }
            (covered > 0.0).then(|| LocationTransit {
                from,
                one_way_ms: weighted_ms / covered,
                users_covered_frac: covered,
                locations,
                worst_location: worst,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(location: &str, users_frac: f64, round_trip_ms: f64, from: Option<&str>) -> UserLatency {
        UserLatency {
            location: location.into(),
            users_frac,
            round_trip_ms: Some(round_trip_ms),
            one_way_ms: None,
            from: from.map(str::to_string),
        }
    }

    #[test]
    fn the_top_eighty_percent_weighs_each_city_by_its_users() {
        // 50 % at 20 ms RTT (10 one way), 25 % at 100 ms (50), then Sydney's 15 % at 400 ms
        // (200) of which only 5 % counts to reach 80 %; Frankfurt's 10 % is left out.
        let rows = [
            row("Frankfurt", 0.10, 300.0, None),
            row("Virginia", 0.50, 20.0, None),
            row("Oregon", 0.25, 100.0, None),
            row("Sydney", 0.15, 400.0, None),
        ];
        let figures = transit_by_location(&rows);
        assert_eq!(figures.len(), 1);
        let f = &figures[0];
        let expected = (0.50 * 10.0 + 0.25 * 50.0 + 0.05 * 200.0) / 0.80;
        assert!((f.one_way_ms - expected).abs() < 1e-9, "{}", f.one_way_ms);
        assert!((f.users_covered_frac - 0.80).abs() < 1e-12);
        assert_eq!(f.locations, ["Virginia", "Oregon", "Sydney"]);
        assert_eq!(f.worst_location, Some(("Sydney".to_string(), 200.0)));
    }

    #[test]
    fn each_serving_location_gets_its_own_figure() {
        let rows = [
            row("Mumbai", 0.6, 10.0, Some("ap-south")),
            row("London", 0.4, 240.0, Some("ap-south")),
            row("Mumbai", 0.6, 240.0, Some("eu-west")),
            row("London", 0.4, 16.0, Some("eu-west")),
        ];
        let figures = transit_by_location(&rows);
        assert_eq!(figures.len(), 2);
        assert_eq!(figures[0].from.as_deref(), Some("ap-south"));
        assert!((figures[0].one_way_ms - (0.6 * 5.0 + 0.2 * 120.0) / 0.8).abs() < 1e-9);
        assert!((figures[1].one_way_ms - (0.6 * 120.0 + 0.2 * 8.0) / 0.8).abs() < 1e-9);
    }

    #[test]
    fn fewer_users_than_eighty_percent_are_covered_as_measured() {
        let rows = [
            UserLatency {
                one_way_ms: Some(30.0),
                round_trip_ms: None,
                ..row("Tokyo", 0.3, 0.0, None)
            },
            row("Nowhere", 0.0, 10.0, None),
        ];
        let f = &transit_by_location(&rows)[0];
        assert!((f.users_covered_frac - 0.3).abs() < 1e-12);
        assert!((f.one_way_ms - 30.0).abs() < 1e-12);
        assert!(transit_by_location(&[]).is_empty());
    }
}
