//! Erlang C (M/M/c): the probability an arrival waits and the mean wait, for checking the replay
//! against queueing theory. Computed through the Erlang B recursion, stable for large c.

/// Erlang B blocking probability for `c` servers and offered load `a` (erlangs):
/// B(0) = 1, B(k) = a·B(k−1) / (k + a·B(k−1)). Every step stays in [0, 1], no factorials.
fn erlang_b(c: u32, a: f64) -> f64 {
    (1..=c).fold(1.0, |b, k| a * b / (f64::from(k) + a * b))
}

/// Probability that an arrival waits in M/M/c with `c` servers and offered load `a = λ/μ`
/// erlangs: C = c·B / (c − a·(1 − B)). 1 when `a >= c` (the queue grows without bound);
/// None for `c == 0` or a load that is negative or not finite.
pub fn erlang_c_wait_probability(c: u32, a: f64) -> Option<f64> {
    if c == 0 || !a.is_finite() || a < 0.0 {
        return None;
    }
    let servers = f64::from(c);
    if a >= servers {
        return Some(1.0);
    }
    let b = erlang_b(c, a);
    Some(servers * b / (servers - a * (1.0 - b)))
}

/// Mean wait in queue W_q = C / (c·μ − λ), in the time unit of `1/lambda` and `1/mu`. None when
/// the inputs are invalid (c = 0, rates not finite or not positive) or the queue is unstable
/// (λ >= c·μ: no finite mean).
pub fn erlang_c_mean_wait(c: u32, lambda: f64, mu: f64) -> Option<f64> {
    if !(lambda.is_finite() && mu.is_finite() && lambda > 0.0 && mu > 0.0) {
        return None;
    }
    let capacity = f64::from(c) * mu;
    if lambda >= capacity {
        return None;
    }
    let wait_probability = erlang_c_wait_probability(c, lambda / mu)?;
    Some(wait_probability / (capacity - lambda))
}
