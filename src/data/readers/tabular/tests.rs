use polars::prelude::*;

use super::delimited::{RecordChunks, last_record_end, parse_chunk};
use super::*;

/// Found by `cargo fuzz run logs`: a header naming `__row` made two columns of that name
/// and Polars panicked building the schema.
#[test]
fn a_column_named_like_the_row_number_is_refused_not_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("log.csv");
    std::fs::write(&path, "job_id,__row,gpus\n1,2,8\n").expect("write");
    let Err(refused) = crate::data::readers::load::load_logs(&[path], None, None, Detail::Full) else {
        panic!("a column named __row must be refused");
    };
    let why = refused.error.to_string();
    assert!(why.contains("\"__row\"") && why.contains("rename"), "{why}");
}

#[test]
fn records_end_at_newlines_outside_quotes() {
    assert_eq!(last_record_end(b"a,b\nc,d\ne"), Some(7));
    assert_eq!(last_record_end(b"a,\"x\ny\"\nb,\"open\n"), Some(7));
    assert_eq!(last_record_end(b"no newline"), None);
}

fn pieces(text: &str, chunk_bytes: usize) -> Vec<String> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("log.csv");
    std::fs::write(&path, text).expect("write");
    let mut chunks = RecordChunks::open(&path, chunk_bytes).expect("open");
    let mut out = Vec::new();
    while let Some(piece) = chunks.next_chunk().expect("read") {
        out.push(String::from_utf8(piece).expect("utf-8"));
    }
    out
}

#[test]
fn pieces_hold_whole_records_and_add_up_to_the_file() {
    let text = "id,name\n1,\"two\nlines\"\n2,plain\n3,\"a much longer name than one piece\"\n4,last";
    for chunk_bytes in [4, 7, 16, 1 << 20] {
        let got = pieces(text, chunk_bytes);
        assert_eq!(got.concat(), text, "piece size {chunk_bytes}");
        for piece in &got[..got.len() - 1] {
            assert!(piece.ends_with('\n'), "{piece:?} at piece size {chunk_bytes}");
            assert_eq!(piece.matches('"').count() % 2, 0, "{piece:?} cuts a quoted field");
        }
    }
}

#[test]
fn a_file_read_in_small_pieces_parses_like_one_piece() {
    let mut text = String::from("job_id,name\n");
    for i in 0..50 {
        text.push_str(&format!("j{i},\"name, with comma\n and newline {i}\"\n"));
    }
    let names = vec!["job_id".to_string(), "name".to_string()];
    let mapping = Mapping::default();
    let parse = |chunk_bytes: usize| {
        let body = text
            .split_once('\n')
            .map(|(_, rest)| rest.to_string())
            .unwrap_or_default();
        let mut rows: IdxSize = 0;
        let mut frames = Vec::new();
        for piece in pieces(&body, chunk_bytes) {
            let frame = parse_chunk(piece.into_bytes(), &names, None, b',', &mapping, rows).expect("parse");
            rows += frame.height() as IdxSize;
            frames.push(frame);
        }
        let mut all = frames.remove(0);
        for frame in frames {
            all.vstack_mut_owned(frame).expect("stack");
        }
        all
    };
    let whole = parse(1 << 20);
    let small = parse(40);
    assert_eq!(whole.height(), 50);
    assert!(whole.equals_missing(&small));
}

#[test]
fn an_audit_read_in_many_pieces_reads_like_one_piece() {
    // Bad rows spread over the pieces, a column the audit never reads, a quoted newline.
    let mut text = String::from("job_id,cluster,name,user,queue,start,end,gpus,gpu_util_pct\n");
    for i in 0..120 {
        let (start, end) = (
            format!("2026-03-01T{:02}:00:00Z", i % 24),
            format!("2026-03-02T{:02}:30:00Z", i % 24),
        );
        let gpus = if i % 17 == 0 {
            "-4".to_string()
        } else {
            (1 + i % 8).to_string()
        };
        let end = if i % 23 == 0 { "soon".to_string() } else { end };
        let name = if i % 11 == 0 {
            "\"sweep\nlr\"".to_string()
        } else {
            format!("train-{i}")
        };
        text.push_str(&format!(
            "{i},c{},{name},u{i},q,{start},{end},{gpus},{}\n",
            i % 3,
            i % 100
        ));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("log.csv");
    std::fs::write(&path, &text).expect("write");
    let rules = crate::config::catalog::builtin()
        .catalog
        .classification
        .expect("built-in rules");
    let read = |chunk_bytes: usize| {
        let mapping = Mapping::default();
        read_tabular_in_pieces(
            &path,
            LogFormat::Csv { delimiter: b',' },
            &mapping,
            Detail::Audit(&rules),
            chunk_bytes,
        )
        .expect("read")
    };
    let whole = read(1 << 20);
    let pieces = read(300);
    assert_eq!(whole.jobs.height(), 120 - whole.quarantine.total() as usize);
    assert!(whole.quarantine.total() > 0);
    assert!(whole.jobs.equals_missing(&pieces.jobs));
    assert_eq!(whole.quarantine.counts, pieces.quarantine.counts);
    assert_eq!(whole.quarantine.samples, pieces.quarantine.samples);
}
