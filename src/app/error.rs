//! The app layer's one error: what the user typed that cannot be used (a key in a key map, a
//! value in an edit box, a plan name). Each variant's text is the message shown beside it.

use thiserror::Error;

use super::field::Field;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InputError {
    #[error("an empty key")]
    EmptyKey,
    #[error(
        "'{text}' is not a key: expected a character, or enter, esc, tab, backtab, backspace, delete, up, down, \
         left, right, home, end, pageup, pagedown, space, f1-f12, with optional ctrl-, alt-, shift- prefixes"
    )]
    NotAKey { text: String },
    #[error("'{text}' is not a number")]
    NotANumber { text: String },
    #[error("'{text}' is not a date: expected YYYY-MM-DD")]
    NotADate { text: String },
    #[error("'{text}': expected yes or no")]
    NotYesOrNo { text: String },
    #[error("'{text}' is not one of: {choices}")]
    NotAChoice { text: String, choices: String },
    #[error("'{text}' is not a finite number")]
    NotFinite { text: String },
    /// A value outside the field's limits.
    #[error("{} must be between {} and {}", .field.key_path(), .field.show(.field.bounds().0), .field.show(.field.bounds().1))]
    OutOfRange { field: Field },
}
