//! A guard before JSON reaches a parser that recurses: job logs are flat objects (Philly's
//! attempts are three levels deep), so a file nested deeper than any log is refused with where,
//! instead of overflowing the stack (a JSON array of 200,000 `[` aborted the process).

use std::io::Read;
use std::path::Path;

use crate::data::error::DataError;

/// Deeper than any job log layout gpuplan reads, far below what overflows a recursive parser.
pub const MAX_JSON_DEPTH: usize = 64;

/// Scans the file once (strings and escapes respected); the first place nested deeper than
/// `max_depth` is an error naming its line and column.
pub fn check_json_depth(path: &Path, max_depth: usize) -> Result<(), DataError> {
    let file = std::fs::File::open(path).map_err(|e| DataError::cannot_read(path, e))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut buffer = vec![0u8; 1 << 20];
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let (mut line, mut column) = (1u64, 0u64);
    loop {
        let read = reader.read(&mut buffer).map_err(|e| DataError::cannot_read(path, e))?;
        if read == 0 {
            return Ok(());
        }
        for &byte in &buffer[..read] {
            column += 1;
            if byte == b'\n' {
                line += 1;
                column = 0;
            }
            if in_string {
                match (escaped, byte) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match byte {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > max_depth {
                        return Err(DataError::TooDeep {
                            line,
                            column,
                            max_depth,
                        });
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, max: usize) -> Result<(), String> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.json");
        std::fs::write(&path, text).expect("write");
        check_json_depth(&path, max).map_err(|e| e.to_string())
    }

    #[test]
    fn depth_counts_outside_strings_only() {
        assert_eq!(check(r#"[{"a": [1, {"b": "[[[[[[["}]}]"#, 4), Ok(()));
        assert_eq!(check(r#"{"x": "\"[[[["}"#, 1), Ok(()));
        let err = check("[\n  [[[1]]]]", 3).expect_err("too deep");
        assert_eq!(
            err,
            "line 2, column 5: JSON nested deeper than 3 levels; a job log's rows are flat objects"
        );
        let deep = "[".repeat(200_000) + &"]".repeat(200_000);
        assert!(check(&deep, MAX_JSON_DEPTH).is_err());
    }
}
