//! The least-squares line through points, with what a trend's uncertainty needs: the slope's
//! standard error and the scatter about the line. The forecast's interval scale (error by lead)
//! and a price trend (log price by year) both fit one. No I/O.

/// A fitted line `y = intercept + slope · x`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineFit {
    pub intercept: f64,
    pub slope: f64,
    /// Points the line went through (finite ones only).
    pub points: usize,
    /// Σ (x − mean x)²: how spread the x are.
    pub sxx: f64,
    /// Σ residual² / (n − 2); None under three points.
    pub residual_variance: Option<f64>,
}

impl LineFit {
    /// None under two finite points or when every x is the same.
    pub fn of(points: impl IntoIterator<Item = (f64, f64)>) -> Option<LineFit> {
        let points: Vec<(f64, f64)> = points
            .into_iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        let n = points.len() as f64;
        if points.len() < 2 {
            return None;
        }
        let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
        let my = points.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
        if sxx <= 0.0 {
            return None;
        }
        let slope = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / sxx;
        let intercept = my - slope * mx;
        let residual_variance = (points.len() > 2).then(|| {
            points
                .iter()
                .map(|p| (p.1 - intercept - slope * p.0).powi(2))
                .sum::<f64>()
                / (n - 2.0)
        });
        Some(LineFit {
            intercept,
            slope,
            points: points.len(),
            sxx,
            residual_variance,
        })
    }

    /// The slope's standard error; None under three points.
    pub fn slope_standard_error(&self) -> Option<f64> {
        self.residual_variance.map(|v| (v / self.sxx).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_through_points_on_it_has_no_scatter() {
        let fit = LineFit::of([(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]).unwrap();
        assert!((fit.intercept - 1.0).abs() < 1e-12 && (fit.slope - 2.0).abs() < 1e-12);
        assert!(fit.slope_standard_error().unwrap() < 1e-12);
        let scattered = LineFit::of([(0.0, 1.0), (1.0, 4.0), (2.0, 5.0)]).unwrap();
        assert!(scattered.slope_standard_error().unwrap() > 0.1);
        assert!(LineFit::of([(1.0, 1.0), (1.0, 2.0)]).is_none(), "one x: no slope");
        assert!(LineFit::of([(0.0, 1.0), (1.0, f64::NAN)]).is_none(), "one finite point");
        assert_eq!(LineFit::of([(0.0, 1.0), (1.0, 2.0)]).unwrap().residual_variance, None);
    }
}
