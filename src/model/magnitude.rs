//! How large and how small a number typed into a plan or a catalog may be. A cost is a product
//! of a few inputs (FLOPs ÷ MFU ÷ TFLOPS × price, count × impact): between these edges a
//! product of seventeen of them stays finite, while beyond them one or two reach `inf` or
//! round to nothing. docs/economics.md, "Input ranges", says the same to users.

/// The largest magnitude an input may have.
pub const LARGEST_INPUT: f64 = 1e18;
/// The smallest magnitude an input other than zero may have.
pub const SMALLEST_INPUT: f64 = 1e-9;

/// What a number outside the edges is told.
pub const OUTSIDE_INPUT_RANGE: &str =
    "expected 0 or a size from 1e-9 to 1e18: beyond them the costs built on it overflow or lose their meaning";

/// Whether `value` is finite and zero or between the edges in size.
pub fn within_input_range(value: f64) -> bool {
    value == 0.0 || (SMALLEST_INPUT..=LARGEST_INPUT).contains(&value.abs())
}

/// Whether `value` is finite, above 0 and within the edges: a rate, a size or a divisor.
pub fn positive_input(value: f64) -> bool {
    value > 0.0 && within_input_range(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edges_are_inclusive_and_zero_is_an_input() {
        for ok in [0.0, -0.0, 1e-9, -1e-9, 1.0, 1e18, -1e18] {
            assert!(within_input_range(ok), "{ok}");
        }
        for outside in [
            9.9e-10,
            1.1e18,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ] {
            assert!(!within_input_range(outside), "{outside}");
        }
        assert!(positive_input(1e-9) && !positive_input(0.0) && !positive_input(-1.0));
        assert!(OUTSIDE_INPUT_RANGE.contains(&format!("{SMALLEST_INPUT:e}")));
        assert!(OUTSIDE_INPUT_RANGE.contains(&format!("{LARGEST_INPUT:e}")));
    }
}
