//! A plan's `[hosts]`: which cluster each GPU host belongs to, and the clock a cluster's
//! nvidia-smi recordings were written on (they write local time without an offset).
//!
//! ```toml
//! [hosts]
//! east = ["gpu[001-064]", "dgx-east-*"]                          # patterns only
//! lab = { patterns = ["h200-[a-d]"], utc_offset = "+01:00" }     # and the clock's offset
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One cluster's entry: its host patterns (Slurm host lists or globs) and, when its nodes'
/// recordings are in local time, that clock's offset from UTC (`+01:00`, `-05:30`, `UTC`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostEntry {
    pub patterns: Vec<String>,
    pub utc_offset: Option<String>,
}

impl From<Vec<String>> for HostEntry {
    fn from(patterns: Vec<String>) -> HostEntry {
        HostEntry {
            patterns,
            utc_offset: None,
        }
    }
}

impl Serialize for HostEntry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.utc_offset {
            None => self.patterns.serialize(serializer),
            Some(offset) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("patterns", &self.patterns)?;
                map.serialize_entry("utc_offset", offset)?;
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for HostEntry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<HostEntry, D::Error> {
        struct EntryVisitor;
        impl<'de> Visitor<'de> for EntryVisitor {
            type Value = HostEntry;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of host patterns, or a table { patterns = [...], utc_offset = \"+01:00\" }")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HostEntry, A::Error> {
                let mut patterns = Vec::new();
                while let Some(pattern) = seq.next_element::<String>()? {
                    patterns.push(pattern);
                }
                Ok(patterns.into())
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HostEntry, A::Error> {
                let mut patterns = None;
                let mut utc_offset = None;
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "patterns" => patterns = Some(map.next_value::<Vec<String>>()?),
                        "utc_offset" => utc_offset = Some(map.next_value::<String>()?),
                        other => return Err(de::Error::unknown_field(other, &["patterns", "utc_offset"])),
                    }
                }
                Ok(HostEntry {
                    patterns: patterns.ok_or_else(|| de::Error::missing_field("patterns"))?,
                    utc_offset,
                })
            }
        }
        deserializer.deserialize_any(EntryVisitor)
    }
}

/// The largest offset of any time zone in use (Kiribati, UTC+14:00), in minutes.
const MAX_OFFSET_MIN: i32 = 14 * 60;

/// A clock offset that is not one, with its text (its first 40 characters).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UtcOffsetError {
    #[error("'{text}' is not an offset from UTC: expected +HH:MM or -HH:MM (+01:00, -05:30), or UTC")]
    NotAnOffset { text: String },
    #[error(
        "'{text}' is not an offset from UTC: expected +HH:MM or -HH:MM (+01:00, -05:30), or UTC; \
         no clock is more than 14 hours from UTC"
    )]
    PastFourteenHours { text: String },
}

/// A clock's offset from UTC in minutes: `+01:00`, `-0530`, `+2`, `UTC`, `Z`, `UTC+01:00`.
pub fn parse_utc_offset_min(text: &str) -> Result<i32, UtcOffsetError> {
    let shown = || text.chars().take(40).collect::<String>();
    let bad = || UtcOffsetError::NotAnOffset { text: shown() };
    let trimmed = text.trim();
    let rest = trimmed
        .strip_prefix("UTC")
        .or_else(|| trimmed.strip_prefix("utc"))
        .or_else(|| trimmed.strip_prefix("GMT"))
        .unwrap_or(trimmed);
    if rest.is_empty() || rest == "Z" || rest == "z" {
        return Ok(0);
    }
    let (sign, digits) = match rest.as_bytes().first() {
        Some(b'+') => (1, &rest[1..]),
        Some(b'-') => (-1, &rest[1..]),
        _ => return Err(bad()),
    };
    let (hours, minutes) = match digits.split_once(':') {
        Some((h, m)) => (h, m),
        None if digits.len() == 4 => digits.split_at(2),
        None => (digits, "0"),
    };
    let number = |s: &str| {
        (!s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<i32>().ok())
            .flatten()
    };
    let (Some(hours), Some(minutes)) = (number(hours), number(minutes)) else {
        return Err(bad());
    };
    let total = hours * 60 + minutes;
    if minutes > 59 || total > MAX_OFFSET_MIN {
        return Err(UtcOffsetError::PastFourteenHours { text: shown() });
    }
    Ok(sign * total)
}

/// `UTC+01:00`, `UTC−05:30`, `UTC`.
pub fn utc_offset_text(offset_min: i32) -> String {
    if offset_min == 0 {
        return "UTC".to_string();
    }
    let sign = if offset_min < 0 { '-' } else { '+' };
    let total = offset_min.unsigned_abs();
    format!("UTC{sign}{:02}:{:02}", total / 60, total % 60)
}

/// Each cluster's patterns, as the host map reads them.
pub fn host_patterns(hosts: &BTreeMap<String, HostEntry>) -> BTreeMap<String, Vec<String>> {
    hosts
        .iter()
        .map(|(cluster, entry)| (cluster.clone(), entry.patterns.clone()))
        .collect()
}

/// Each cluster's clock offset in minutes, for the entries that give a valid one.
pub fn host_utc_offsets_min(hosts: &BTreeMap<String, HostEntry>) -> BTreeMap<String, i32> {
    hosts
        .iter()
        .filter_map(|(cluster, entry)| {
            let offset = parse_utc_offset_min(entry.utc_offset.as_deref()?).ok()?;
            Some((cluster.clone(), offset))
        })
        .collect()
}

/// Offsets that do not parse, as (key path, message).
pub fn utc_offset_problems(hosts: &BTreeMap<String, HostEntry>) -> Vec<(String, String)> {
    hosts
        .iter()
        .filter_map(|(cluster, entry)| {
            let error = parse_utc_offset_min(entry.utc_offset.as_deref()?).err()?;
            Some((format!("hosts.{cluster}.utc_offset"), error.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_in_the_forms_people_write_them() {
        for (text, minutes) in [
            ("+01:00", 60),
            ("-05:30", -330),
            ("+0545", 345),
            ("+2", 120),
            ("UTC", 0),
            ("Z", 0),
            ("UTC+14:00", 840),
            ("GMT-3", -180),
        ] {
            assert_eq!(parse_utc_offset_min(text), Ok(minutes), "{text}");
        }
        for text in ["CET", "+1:60", "+15:00", "01:00", "+", "+123"] {
            assert!(parse_utc_offset_min(text).is_err(), "{text}");
        }
        assert_eq!(utc_offset_text(-330), "UTC-05:30");
        assert_eq!(utc_offset_text(60), "UTC+01:00");
    }

    #[test]
    fn an_entry_is_a_list_or_a_table_and_round_trips() {
        let text = "east = [\"gpu[001-004]\"]\nlab = { patterns = [\"h200-a\"], utc_offset = \"+01:00\" }\n";
        let hosts: BTreeMap<String, HostEntry> = toml::from_str(text).expect("hosts");
        assert_eq!(hosts["east"], HostEntry::from(vec!["gpu[001-004]".to_string()]));
        assert_eq!(hosts["lab"].utc_offset.as_deref(), Some("+01:00"));
        assert_eq!(host_utc_offsets_min(&hosts), BTreeMap::from([("lab".to_string(), 60)]));
        let again: BTreeMap<String, HostEntry> =
            toml::from_str(&toml::to_string(&hosts).expect("written")).expect("read again");
        assert_eq!(again, hosts);
        let unknown = toml::from_str::<BTreeMap<String, HostEntry>>("lab = { patterns = [], tz = \"x\" }");
        assert!(unknown.is_err_and(|e| e.to_string().contains("utc_offset")));
    }
}
