//! The source's columns as the audit's canonical fields, in the engine's SQL: the column
//! mapping (`--mapping`, completed from the source's column names as for a file) applied to
//! what the engine says each column holds. Times become UTC milliseconds, GPU counts and
//! utilization doubles in their units; a field the mapping does not name is NULL.

use crate::data::canonical as c;
use crate::data::readers::mapping::{EmptyEnd, EmptyGpus, EmptyStart, Mapping, TimeFormat, UtilUnit};
use crate::data::warehouse::dialect::{Dialect, StoredAs};
use crate::data::warehouse::error::WarehouseError;

/// One column of the source, as the engine described it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceColumn {
    pub name: String,
    pub stored: StoredAs,
}

/// What a probe of the whole source told: the largest utilization value and, per time field
/// written as plain numbers, the largest magnitude (to tell seconds from milliseconds).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Probe {
    pub max_util: Option<f64>,
    pub max_epoch: Vec<(String, f64)>,
}

/// The canonical fields of one source as SQL expressions over its columns.
#[derive(Debug, Clone)]
pub struct SourceFields {
    pub job_id: String,
    pub cluster: String,
    pub name: String,
    pub user: String,
    pub queue: String,
    pub state: String,
    pub qos: String,
    pub owner_kind: String,
    pub label: String,
    pub gpu_type: String,
    pub start_ms: String,
    pub end_ms: String,
    /// Only for sources with a submit time or a wait.
    pub submit_ms: Option<String>,
    pub gpus: String,
    pub util: String,
    pub time_limit_hours: String,
    pub start_present: String,
    pub end_present: String,
    pub util_present: String,
    pub empty_end: EmptyEnd,
    /// The start, end, GPU and utilization values as stored (any type; read as text only for
    /// a row set aside, shown beside its reason).
    pub raw_values: [String; 4],
    /// The raw start and end columns, for a filter the engine can prune partitions with.
    pub start_raw: Option<RawTime>,
    pub end_raw: Option<RawTime>,
    /// The job id column as stored, quoted, when it holds numbers: passes then read ranges of
    /// it, which an engine prunes with the source's statistics (`Pass`).
    pub job_number: Option<String>,
    /// Whether a column gives the job id; without one every row is its own job, numbered in
    /// each statement afresh, so the audit is not split unasked.
    pub job_id_mapped: bool,
    /// Whether `job_id` is the column's whole number as stored (not text): the statements
    /// write it as text where it is shown, ranked or hashed (`AuditSql::job_text`), as a file
    /// reads it.
    pub job_id_whole: bool,
    /// The latest time a start or end may hold (`canonical::latest_time_ms`, a day past the
    /// run's clock), as a file's reader bounds it: later rows are set aside.
    pub latest_ms: i64,
}

/// A time column as stored, to compare with an instant without converting each row.
#[derive(Debug, Clone, PartialEq)]
pub enum RawTime {
    Timestamp {
        quoted: String,
        zoned: bool,
    },
    /// Numbers: milliseconds = value × `millis_per_unit` + `origin_ms`.
    Epoch {
        quoted: String,
        millis_per_unit: f64,
        origin_ms: i64,
    },
}

impl RawTime {
    /// The column's name, quoted.
    pub fn quoted(&self) -> &str {
        match self {
            RawTime::Timestamp { quoted, .. } | RawTime::Epoch { quoted, .. } => quoted,
        }
    }

    /// `column <op> instant` in the column's own terms (`op` is `<=` or `>=`).
    pub fn compare(&self, dialect: &dyn Dialect, op: &str, ms: i64) -> String {
        match self {
            RawTime::Timestamp { quoted, zoned } => format!("{quoted} {op} {}", dialect.timestamp_literal(ms, *zoned)),
            RawTime::Epoch {
                quoted,
                millis_per_unit,
                origin_ms,
            } => {
                // Widened by a unit, so no run a rounding would move across the bound is lost.
                let value = (ms - origin_ms) as f64 / millis_per_unit;
                let bound = if op == "<=" {
                    value.ceil() + 1.0
                } else {
                    value.floor() - 1.0
                };
                format!("{quoted} {op} {bound}")
            }
        }
    }
}

/// Epoch numbers above this are milliseconds (year 5138 in seconds), as for files.
const EPOCH_MS_ABOVE: f64 = 1e11;

/// Milliseconds per unit of epoch numbers whose unit is left to their size: milliseconds when
/// the probe saw one past `EPOCH_MS_ABOVE`, else seconds.
fn auto_millis_per_unit(column: &SourceColumn, probe: &Probe) -> f64 {
    let largest = probe
        .max_epoch
        .iter()
        .find(|(name, _)| name == &column.name)
        .map_or(0.0, |(_, v)| *v);
    if largest > EPOCH_MS_ABOVE { 1.0 } else { 1e3 }
}

pub struct FieldBuilder<'a> {
    pub dialect: &'a dyn Dialect,
    pub mapping: &'a Mapping,
    pub columns: &'a [SourceColumn],
}

impl FieldBuilder<'_> {
    fn column(&self, field: &str) -> Option<&SourceColumn> {
        let source = self.mapping.columns.get(field)?;
        self.columns.iter().find(|c| &c.name == source)
    }

    fn quoted(&self, column: &SourceColumn) -> String {
        self.dialect.quote(&column.name)
    }

    /// A field's value as stored: its column, its constant, or NULL.
    fn raw_value(&self, field: &str) -> String {
        if let Some(value) = self.mapping.constants.get(field) {
            return self.dialect.text(value);
        }
        match self.column(field) {
            Some(column) => self.quoted(column),
            None => "NULL".to_string(),
        }
    }

    fn null_text(&self) -> String {
        self.dialect.cast("NULL", self.dialect.text_type())
    }

    fn null_double(&self) -> String {
        self.dialect.cast("NULL", self.dialect.double_type())
    }

    fn null_bigint(&self) -> String {
        self.dialect.cast("NULL", self.dialect.bigint_type())
    }

    fn text(&self, field: &str) -> String {
        if let Some(value) = self.mapping.constants.get(field) {
            return self.dialect.text(value);
        }
        match self.column(field) {
            Some(column) => self.dialect.cast(&self.quoted(column), self.dialect.text_type()),
            None => self.null_text(),
        }
    }

    fn number(&self, field: &str) -> Result<String, WarehouseError> {
        if let Some(value) = self.mapping.constants.get(field) {
            let number: f64 = value.trim().parse().map_err(|_| WarehouseError::Unsupported {
                column: value.clone(),
                field: field.to_string(),
                what: "a constant that is no number".to_string(),
                instead: "give a number in the mapping's [constants]".to_string(),
            })?;
            return Ok(self.dialect.cast(&format!("{number:?}"), self.dialect.double_type()));
        }
        match self.column(field) {
            Some(column) => self.number_of(field, column),
            None => Ok(self.null_double()),
        }
    }

    /// A column as a number: numbers cast, text parsed; a BOOLEAN, a list or struct, a time
    /// cannot carry one (cast, `true` would count as 1 GPU) and is refused, naming its type, as
    /// a file's reader refuses it.
    fn number_of(&self, field: &str, column: &SourceColumn) -> Result<String, WarehouseError> {
        match column.stored {
            StoredAs::Number | StoredAs::Whole | StoredAs::Text | StoredAs::Other => Ok(self.cast_number(column)),
            StoredAs::Boolean | StoredAs::Nested | StoredAs::Timestamp { .. } | StoredAs::Date => {
                Err(WarehouseError::Unsupported {
                    column: column.name.clone(),
                    field: field.to_string(),
                    what: format!(
                        "a column of type {}, which cannot carry a number,",
                        column.stored.label()
                    ),
                    instead: "give the column as numbers".to_string(),
                })
            }
        }
    }

    /// A column cast to a number: numbers as they are, anything else through its text.
    fn cast_number(&self, column: &SourceColumn) -> String {
        match column.stored {
            StoredAs::Number | StoredAs::Whole => self.dialect.cast(&self.quoted(column), self.dialect.double_type()),
            _ => self
                .dialect
                .try_double(&self.dialect.cast(&self.quoted(column), self.dialect.text_type())),
        }
    }

    fn present(&self, field: &str) -> String {
        if self.mapping.constants.contains_key(field) {
            return "TRUE".to_string();
        }
        match self.column(field) {
            Some(column) => format!("({} IS NOT NULL)", self.quoted(column)),
            None => "FALSE".to_string(),
        }
    }

    /// A time field as UTC milliseconds since 1970.
    fn time(&self, field: &str, probe: &Probe) -> Result<String, WarehouseError> {
        if let Some(value) = self.mapping.constants.get(field) {
            return Err(WarehouseError::Unsupported {
                column: value.clone(),
                field: field.to_string(),
                what: "a constant time".to_string(),
                instead: "map a column".to_string(),
            });
        }
        let Some(column) = self.column(field) else {
            return Ok(self.null_bigint());
        };
        let units = &self.mapping.units;
        let quoted = self.quoted(column);
        let d = self.dialect;
        let unsupported = |what: &str, instead: &str| WarehouseError::Unsupported {
            column: column.name.clone(),
            field: field.to_string(),
            what: what.to_string(),
            instead: instead.to_string(),
        };
        let zone = units.time_zone.as_deref().filter(|z| !z.eq_ignore_ascii_case("utc"));
        let epoch = |millis_per_unit: f64, origin_ms: i64| {
            let number = self.cast_number(column);
            d.truncate_to_bigint(&format!(
                "({number} * {} + {})",
                d.cast(&format!("{millis_per_unit:?}"), d.double_type()),
                d.cast(&format!("{:?}", origin_ms as f64), d.double_type())
            ))
        };
        Ok(match (column.stored, &units.time) {
            (StoredAs::Timestamp { zoned }, _) => match (zoned, zone) {
                (false, Some(zone)) => d
                    .epoch_ms_in_zone(&quoted, zone)
                    .ok_or_else(|| unsupported("a time zone", "store the times as UTC"))?,
                _ => d.epoch_ms(&quoted, zoned),
            },
            (StoredAs::Date, _) => d.epoch_ms(&d.cast(&quoted, "TIMESTAMP"), false),
            (_, TimeFormat::EpochS) => epoch(1e3, 0),
            (_, TimeFormat::EpochMs) => epoch(1.0, 0),
            (_, TimeFormat::OffsetS) => {
                let origin = units.time_origin.as_deref().unwrap_or("1970-01-01T00:00:00Z");
                let origin_ms = chrono::DateTime::parse_from_rfc3339(origin)
                    .map(|t| t.timestamp_millis())
                    .map_err(|_| {
                        unsupported("a time_origin that is not RFC 3339", "write it as 2024-01-01T00:00:00Z")
                    })?;
                epoch(1e3, origin_ms)
            }
            (StoredAs::Number | StoredAs::Whole, TimeFormat::Auto) => epoch(auto_millis_per_unit(column, probe), 0),
            (StoredAs::Text, TimeFormat::Auto) => {
                if zone.is_some() {
                    return Err(unsupported(
                        "text times in a time zone",
                        "store them as timestamps, or as text with an offset",
                    ));
                }
                d.try_text_epoch_ms(&quoted)
            }
            (_, TimeFormat::Pattern(pattern)) => {
                return Err(unsupported(
                    &format!("the strftime pattern {pattern:?}"),
                    "store the times as timestamps or ISO 8601 text, or leave `time` as auto",
                ));
            }
            (StoredAs::Other | StoredAs::Boolean | StoredAs::Nested, _) => {
                return Err(unsupported(
                    &format!("a column of type {}", column.stored.label()),
                    "cast it in the `from` expression",
                ));
            }
        })
    }

    /// The column of a time field as stored, when a filter can compare it raw.
    fn raw_time(&self, field: &str, probe: &Probe) -> Option<RawTime> {
        let column = self.column(field)?;
        let quoted = self.quoted(column);
        let units = &self.mapping.units;
        let epoch = |millis_per_unit: f64, origin_ms: i64| RawTime::Epoch {
            quoted: quoted.clone(),
            millis_per_unit,
            origin_ms,
        };
        match (column.stored, &units.time) {
            (StoredAs::Timestamp { zoned }, _)
                if zoned || units.time_zone.as_deref().is_none_or(|z| z.eq_ignore_ascii_case("utc")) =>
            {
                Some(RawTime::Timestamp { quoted, zoned })
            }
            (StoredAs::Number | StoredAs::Whole, TimeFormat::EpochS) => Some(epoch(1e3, 0)),
            (StoredAs::Number | StoredAs::Whole, TimeFormat::EpochMs) => Some(epoch(1.0, 0)),
            (StoredAs::Number | StoredAs::Whole, TimeFormat::Auto) => {
                Some(epoch(auto_millis_per_unit(column, probe), 0))
            }
            _ => None,
        }
    }

    /// Every canonical field; `probe` decides units left to the values.
    pub fn fields(&self, probe: &Probe) -> Result<SourceFields, WarehouseError> {
        let d = self.dialect;
        let units = &self.mapping.units;
        let util_divisor = match units.gpu_util {
            UtilUnit::Percent => 100.0,
            UtilUnit::Ratio => 1.0,
            UtilUnit::Auto if probe.max_util.is_some_and(|m| m > 1.0) => 100.0,
            UtilUnit::Auto => 1.0,
        };
        let multiplier = match &self.mapping.gpu_multiplier {
            Some(source) => match self.columns.iter().find(|c| &c.name == source) {
                Some(column) => self.number_of("gpu_multiplier", column)?,
                None => d.cast("1.0", d.double_type()),
            },
            None => d.cast("1.0", d.double_type()),
        };
        let factor = d.cast(&format!("{:?}", units.gpus.to_gpus_factor()), d.double_type());
        let mut gpus = format!("({} * {factor} * {multiplier})", self.number("gpus")?);
        if units.empty_gpus == EmptyGpus::Zero {
            gpus = format!(
                "CASE WHEN {} THEN {gpus} ELSE {} END",
                self.present("gpus"),
                d.cast("0.0", d.double_type())
            );
        }
        let mut start_ms = self.time("start", probe)?;
        if units.empty_start == EmptyStart::TraceStart {
            // Running before the trace began (left-censored): from the trace's first instant.
            let origin = units.time_origin.as_deref().unwrap_or("1970-01-01T00:00:00Z");
            let origin_ms = chrono::DateTime::parse_from_rfc3339(origin)
                .map(|t| t.timestamp_millis())
                .unwrap_or(0);
            start_ms = format!(
                "CASE WHEN {} THEN {start_ms} ELSE {} END",
                self.present("start"),
                d.cast(&origin_ms.to_string(), "BIGINT")
            );
        }
        let submit_ms = if self.mapping.columns.contains_key("submit") {
            Some(self.time("submit", probe)?)
        } else if self.mapping.columns.contains_key("wait") {
            let wait = self.number("wait")?;
            Some(format!(
                "CASE WHEN {wait} IS NULL OR {wait} < 0 THEN {} ELSE {start_ms} - {} END",
                self.null_bigint(),
                d.truncate_to_bigint(&format!("{wait} * 1000"))
            ))
        } else {
            None
        };
        let time_limit_hours = match self.column("time_limit") {
            Some(column) => format!(
                "({} * {})",
                self.number_of("time_limit", column)?,
                d.cast(&format!("{:?}", units.time_limit.hours_per_unit()), d.double_type())
            ),
            None => self.null_double(),
        };
        // The job id's column as stored, where no constant stands in for it.
        let job_column = (!self.mapping.constants.contains_key("job_id"))
            .then(|| self.column("job_id"))
            .flatten();
        let whole_job_id = job_column.filter(|column| column.stored == StoredAs::Whole);
        let job_id = if let Some(column) = whole_job_id {
            // Kept a number: grouped and joined as one; text only where shown or ranked.
            self.quoted(column)
        } else if self.mapping.columns.contains_key("job_id") {
            self.text("job_id")
        } else {
            // No job id: every row is its own job.
            format!("CONCAT('row-', {})", d.cast("ROW_NUMBER() OVER ()", d.text_type()))
        };
        Ok(SourceFields {
            job_id,
            cluster: self.text("cluster"),
            name: self.text("name"),
            user: self.text("user"),
            queue: self.text("queue"),
            state: self.text("state"),
            qos: self.text("qos"),
            owner_kind: self.text("owner_kind"),
            label: self.text("label"),
            gpu_type: self.text("gpu_type"),
            start_ms,
            end_ms: self.time("end", probe)?,
            submit_ms,
            gpus,
            util: format!(
                "({} / {})",
                self.number("gpu_util")?,
                d.cast(&format!("{util_divisor:?}"), d.double_type())
            ),
            time_limit_hours,
            start_present: self.present("start"),
            end_present: self.present("end"),
            util_present: self.present("gpu_util"),
            empty_end: units.empty_end,
            raw_values: [
                self.raw_value("start"),
                self.raw_value("end"),
                self.raw_value("gpus"),
                self.raw_value("gpu_util"),
            ],
            start_raw: self.raw_time("start", probe),
            end_raw: self.raw_time("end", probe),
            job_number: job_column
                .filter(|column| column.stored.is_number())
                .map(|column| self.quoted(column)),
            job_id_mapped: self.mapping.columns.contains_key("job_id"),
            job_id_whole: whole_job_id.is_some(),
            latest_ms: c::latest_time_ms(),
        })
    }

    /// The probe: the largest utilization, and the largest magnitude of each time field
    /// written as plain numbers with its unit left to the values. None when nothing needs it.
    pub fn probe_query(&self, from: &str) -> Option<String> {
        let d = self.dialect;
        let mut parts = Vec::new();
        if self.mapping.units.gpu_util == UtilUnit::Auto
            && let Some(column) = self.column("gpu_util")
        {
            // As a file's reader settles the unit on the rows it keeps: a value past 105 (out
            // of range as a percentage) is set aside, and does not make ratios percentages.
            let value = self.cast_number(column);
            let most = d.cast(&format!("{:?}", c::JOB_UTIL_MAX_AUTO), d.double_type());
            parts.push(format!(
                "MAX(CASE WHEN {value} >= 0 AND {value} <= {most} THEN {value} END) AS max_util"
            ));
        }
        if self.mapping.units.time == TimeFormat::Auto {
            for field in ["start", "end", "submit"] {
                if let Some(column) = self.column(field).filter(|c| c.stored.is_number()) {
                    parts.push(format!(
                        "MAX(ABS({})) AS {}",
                        self.cast_number(column),
                        d.quote(&format!("epoch_{}", column.name))
                    ));
                }
            }
        }
        (!parts.is_empty()).then(|| format!("SELECT {}\nFROM {from}", parts.join(", ")))
    }
}
