//! Readings folded into the utilization frame as they are read: per GPU, the best measure it
//! records, its samples summed into one row a minute. A week of one-second samples from 64 GPUs
//! (39 million lines) becomes 645,120 rows, never a row per sample. Each row keeps the span its
//! samples covered (`cover_from_ms`, `cover_to_ms`), so a window or an hour that cuts a minute
//! weighs the row by the part of that span inside it, not as a whole minute.
//!
//! The best measure is chosen per GPU in the DCGM reader's order (GR_ENGINE_ACTIVE, SM_ACTIVE,
//! GPU_UTIL, PIPE_TENSOR_ACTIVE), among the measures that gave the GPU at least one value: a
//! GPM column that only ever reads `-` (a GPU without GPM) does not hide the `sm` beside it.
//! Once a better measure has a value, worse ones can never be chosen, so their rows are dropped
//! there and then: memory holds one measure's minutes per GPU.

use std::collections::HashMap;

use polars::prelude::*;

use super::{LineReading, Measure, Readings};
use crate::data::canonical::SOURCE_LINE;
use crate::data::error::DataError;
use crate::data::readers::dcgm::{
    COVER_FROM_MS, COVER_TO_MS, GPU, HOST, METRIC, SAMPLES, TIME, UTC_OFFSET_MIN, UTIL_FRAC, UtilMetric,
};
use crate::data::readers::reject::{Quarantine, RejectReason, RejectedRow};

/// The span of one folded row. A minute keeps the audit's hours exact to the minute whatever
/// the window's alignment (the window starts at the first job, not on the hour), and a clock's
/// offset from UTC, always a whole number of minutes, moves whole rows.
pub const FOLD_MS: i64 = 60_000;

/// The most GPUs one recording may hold: a node has a few, a fleet's recordings gathered into
/// one file (with a host column) some thousands; beyond this the file is refused rather than
/// held.
pub const MAX_SERIES: usize = 100_000;

/// One minute of one measure of one GPU.
#[derive(Debug, Clone, Copy)]
struct Minute {
    start_ms: i64,
    sum_pct: f64,
    samples: u32,
    /// The instants of the minute's first and last samples.
    first_sample_ms: i64,
    last_sample_ms: i64,
    first_line: u64,
    /// The recording stated its offset from UTC (`start_ms` is UTC).
    utc: bool,
}

#[derive(Debug)]
struct MeasureFold {
    measure: Measure,
    rank: UtilMetric,
    minutes: Vec<Minute>,
    open: Option<Minute>,
    samples: u64,
    quarantine: Quarantine,
}

impl MeasureFold {
    fn add(&mut self, time_ms: i64, utc: bool, value_pct: f64, line: u64) {
        self.samples += 1;
        let start_ms = time_ms.div_euclid(FOLD_MS) * FOLD_MS;
        match &mut self.open {
            Some(open) if open.start_ms == start_ms && open.utc == utc && open.samples < u32::MAX => {
                open.sum_pct += value_pct;
                open.samples += 1;
                open.first_sample_ms = open.first_sample_ms.min(time_ms);
                open.last_sample_ms = open.last_sample_ms.max(time_ms);
            }
            open => {
                if let Some(done) = open.take() {
                    self.minutes.push(done);
                }
                *open = Some(Minute {
                    start_ms,
                    sum_pct: value_pct,
                    samples: 1,
                    first_sample_ms: time_ms,
                    last_sample_ms: time_ms,
                    first_line: line,
                    utc,
                });
            }
        }
    }
}

impl Minute {
    /// The span the minute's samples cover, from and to, in milliseconds from `start_ms`: each
    /// sample stands for the spacing between the minute's samples, centred on its instant, so
    /// `n` samples cover `n` spacings; one sample covers its instant alone.
    fn cover_ms(&self) -> (i32, i32) {
        let from = self.first_sample_ms - self.start_ms;
        let to = self.last_sample_ms - self.start_ms;
        let half_spacing = match self.samples {
            0 | 1 => 0,
            n => (to - from) / (2 * i64::from(n - 1)),
        };
        let clamp = |ms: i64| ms.clamp(-FOLD_MS, 2 * FOLD_MS) as i32;
        (clamp(from - half_spacing), clamp(to + half_spacing))
    }
}

#[derive(Debug)]
struct Series {
    host: String,
    gpu: String,
    /// The best measure that has given a value so far.
    best: Option<UtilMetric>,
    folds: Vec<MeasureFold>,
    superseded: u64,
}

/// What a recording's GPUs gave, once folded.
#[derive(Debug, Clone, Default)]
pub struct Folded {
    pub frame: DataFrame,
    /// Values beyond their measure's range (of the measure each GPU kept).
    pub quarantine: Quarantine,
    /// Each GPU (host, gpu) and the measure it was read by; `None` when it recorded no value.
    pub series: Vec<(String, String, Option<Measure>)>,
    /// Samples kept in the frame.
    pub samples: u64,
    /// Samples of a measure passed over for a better one of the same GPU.
    pub superseded_samples: u64,
}

/// Folds a recording's readings; `finish` gives the frame.
#[derive(Debug)]
pub struct Fold {
    file: String,
    series: Vec<Series>,
    /// Host → GPU → its place in `series`.
    index: HashMap<String, HashMap<String, usize>>,
    last: Option<usize>,
    too_many: bool,
}

impl Fold {
    pub fn new(file: &str) -> Fold {
        Fold {
            file: file.to_string(),
            series: Vec::new(),
            index: HashMap::new(),
            last: None,
            too_many: false,
        }
    }

    /// The series of `host`'s `gpu`; `None` past `MAX_SERIES`.
    fn series_of(&mut self, host: &str, gpu: &str) -> Option<usize> {
        // Lines of one GPU often follow each other; a recording of several alternates among few.
        if let Some(i) = self.last
            && let Some(s) = self.series.get(i)
            && s.gpu == gpu
            && s.host == host
        {
            return Some(i);
        }
        let i = match self.index.get(host).and_then(|gpus| gpus.get(gpu)) {
            Some(&i) => i,
            None if self.series.len() >= MAX_SERIES => {
                self.too_many = true;
                return None;
            }
            None => {
                self.series.push(Series {
                    host: host.to_string(),
                    gpu: gpu.to_string(),
                    best: None,
                    folds: Vec::new(),
                    superseded: 0,
                });
                let i = self.series.len() - 1;
                self.index
                    .entry(host.to_string())
                    .or_default()
                    .insert(gpu.to_string(), i);
                i
            }
        };
        self.last = Some(i);
        Some(i)
    }

    /// The frame (see `dcgm`'s module notes for its columns), the values set aside and which
    /// measure each GPU was read by.
    pub fn finish(self) -> Result<Folded, DataError> {
        if self.too_many {
            return Err(DataError::TooManyRecordedGpus { max: MAX_SERIES }.in_file(&self.file));
        }
        let rows: usize = self
            .series
            .iter()
            .flat_map(|s| s.folds.iter().filter(|f| Some(f.rank) == s.best))
            .map(|f| f.minutes.len() + usize::from(f.open.is_some()))
            .sum();
        let mut time = Vec::with_capacity(rows);
        let mut host = Vec::with_capacity(rows);
        let mut gpu = Vec::with_capacity(rows);
        let mut util = Vec::with_capacity(rows);
        let mut line = Vec::with_capacity(rows);
        let mut samples = Vec::with_capacity(rows);
        let mut metric = Vec::with_capacity(rows);
        let mut offset = Vec::with_capacity(rows);
        let mut cover_from = Vec::with_capacity(rows);
        let mut cover_to = Vec::with_capacity(rows);
        let mut out = Folded::default();
        for series in self.series {
            out.superseded_samples += series.superseded;
            let chosen = series.folds.into_iter().find(|f| Some(f.rank) == series.best);
            out.series.push((
                series.host.clone(),
                series.gpu.clone(),
                chosen.as_ref().map(|f| f.measure),
            ));
            let Some(fold) = chosen else { continue };
            out.samples += fold.samples;
            out.quarantine.merge(fold.quarantine);
            for minute in fold.minutes.iter().chain(fold.open.iter()) {
                time.push(minute.start_ms);
                host.push(series.host.clone());
                gpu.push(series.gpu.clone());
                util.push(minute.sum_pct / f64::from(minute.samples) / 100.0);
                line.push(minute.first_line);
                samples.push(minute.samples);
                metric.push(fold.measure.label());
                offset.push(minute.utc.then_some(0i32));
                let (from, to) = minute.cover_ms();
                cover_from.push(from);
                cover_to.push(to);
            }
        }
        let built = || -> PolarsResult<DataFrame> {
            let time = Column::new(TIME.into(), time).cast(&DataType::Datetime(TimeUnit::Milliseconds, None))?;
            DataFrame::new(
                rows,
                vec![
                    time,
                    Column::new(HOST.into(), host),
                    Column::new(GPU.into(), gpu),
                    Column::new(UTIL_FRAC.into(), util),
                    Column::new(SOURCE_LINE.into(), line),
                    Column::new(SAMPLES.into(), samples),
                    Column::new(METRIC.into(), metric),
                    Column::new(UTC_OFFSET_MIN.into(), offset),
                    Column::new(COVER_FROM_MS.into(), cover_from),
                    Column::new(COVER_TO_MS.into(), cover_to),
                ],
            )
        };
        out.frame = built().map_err(|e| DataError::FrameNotBuilt(e).in_file(&self.file))?;
        Ok(out)
    }
}

impl Readings for Fold {
    fn line(&mut self, reading: &LineReading<'_>) {
        let Some(i) = self.series_of(reading.host, reading.gpu) else {
            return;
        };
        let file = &self.file;
        let Some(series) = self.series.get_mut(i) else {
            return;
        };
        for (measure, value) in reading.values {
            let Some(rank) = measure.as_dcgm() else { continue };
            if series.best.is_some_and(|best| rank > best) {
                series.superseded += 1;
                continue;
            }
            let value_pct = match value {
                Ok(Some(v)) => *v,
                Ok(None) => continue,
                Err(detail) => {
                    let fold = fold_of(&mut series.folds, *measure, rank);
                    fold.quarantine.add(RejectedRow {
                        file: file.clone(),
                        line: reading.line,
                        reason: RejectReason::UnparseableNumber,
                        detail: format!("column {}: {detail}", measure.column()),
                    });
                    continue;
                }
            };
            if series.best.is_none_or(|best| rank < best) {
                series.best = Some(rank);
                // Worse measures can no longer be chosen: their minutes go now.
                let (kept, dropped): (Vec<MeasureFold>, Vec<MeasureFold>) = std::mem::take(&mut series.folds)
                    .into_iter()
                    .partition(|f| f.rank <= rank);
                series.superseded += dropped.iter().map(|f| f.samples).sum::<u64>();
                series.folds = kept;
            }
            fold_of(&mut series.folds, *measure, rank).add(reading.time_ms, reading.utc, value_pct, reading.line);
        }
    }
}

fn fold_of(folds: &mut Vec<MeasureFold>, measure: Measure, rank: UtilMetric) -> &mut MeasureFold {
    let at = match folds.iter().position(|f| f.rank == rank) {
        Some(at) => at,
        None => {
            folds.push(MeasureFold {
                measure,
                rank,
                minutes: Vec::new(),
                open: None,
                samples: 0,
                quarantine: Quarantine::default(),
            });
            folds.len() - 1
        }
    };
    &mut folds[at]
}
