//! The benchmarks every forecaster is held against (Hyndman and Athanasopoulos, FPP3 5.2): the
//! history's mean, the value one season earlier, and the line from the first point to the last.

/// The history's mean at every point: right for a series that wanders around a level.
pub fn level(history: &[f64], horizon: usize) -> Vec<f64> {
    let mean = history.iter().sum::<f64>() / history.len().max(1) as f64;
    vec![mean; horizon]
}

/// The history's last season repeated (`period` points; the last point when the history is
/// shorter): what a spreadsheet does with last week.
pub fn seasonal_naive(history: &[f64], period: usize, horizon: usize) -> Vec<f64> {
    let period = period.clamp(1, history.len().max(1));
    let Some(last_season) = history.len().checked_sub(period).map(|from| &history[from..]) else {
        return vec![0.0; horizon];
    };
    (0..horizon).map(|h| last_season[h % period]).collect()
}

/// The last point, moving on by the history's average step (a random walk with drift).
pub fn drift(history: &[f64], horizon: usize) -> Vec<f64> {
    let (Some(&first), Some(&last)) = (history.first(), history.last()) else {
        return vec![0.0; horizon];
    };
    let step = if history.len() > 1 {
        (last - first) / (history.len() - 1) as f64
    } else {
        0.0
    };
    (1..=horizon).map(|h| last + step * h as f64).collect()
}
