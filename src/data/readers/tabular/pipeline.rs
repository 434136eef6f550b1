//! Delimited text read on two threads: one reads and parses the next piece while the other maps,
//! validates and (for an audit) classifies the last, so both cores work and only two pieces are
//! held at a time.

use polars::prelude::*;

use super::delimited::{DelimitedFile, parse_chunk};
use super::query::RowQuery;
use super::split::{Split, split_rows};
use super::{DETAIL_ONLY_FIELDS, Detail, Piece, err};
use crate::data::error::DataError;
use crate::data::readers::mapping::Mapping;
use crate::data::readers::progress::READ_PROGRESS;

/// Every piece of an opened delimited file through the query, in order: the rows sorted out,
/// and where each piece began.
pub(super) fn read_pieces(
    file: DelimitedFile,
    delimiter: u8,
    query: &RowQuery,
    mapping: &Mapping,
    detail: Detail<'_>,
) -> Result<(Split, Vec<Piece>), DataError> {
    let DelimitedFile {
        mut chunks,
        names,
        first,
        first_bytes,
        first_offset,
    } = file;
    let mut pieces_read = Vec::new();
    READ_PROGRESS.add(first_bytes, first.height() as u64);
    let first_rows = first.height() as IdxSize;
    pieces_read.push(Piece {
        byte_offset: first_offset,
        first_row: 0,
    });
    let mut split = split_rows(query.apply(first.lazy()).collect().map_err(err)?)?;
    // Two stages at once: one thread reads and parses the next piece while this one
    // maps, validates and (for an audit) classifies the last, so both cores work.
    let (parsed, pieces) = crossbeam_channel::bounded::<Result<(DataFrame, u64, Piece), DataError>>(1);
    let wanted = wanted_columns(&names, mapping, detail);
    let (names, wanted) = (&names, &wanted);
    let mut offset = first_offset + first_bytes;
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut rows = first_rows;
            loop {
                let piece = match chunks.next_chunk() {
                    Ok(None) => break,
                    Ok(Some(bytes)) => {
                        let piece_bytes = bytes.len() as u64;
                        parse_chunk(bytes, names, Some(wanted), delimiter, mapping, rows).map(|piece| {
                            let at = Piece {
                                byte_offset: offset,
                                first_row: u64::from(rows),
                            };
                            rows += piece.height() as IdxSize;
                            offset += piece_bytes;
                            (piece, piece_bytes, at)
                        })
                    }
                    Err(e) => Err(e),
                };
                let failed = piece.is_err();
                // The receiver is gone when the other stage failed: stop reading.
                if parsed.send(piece).is_err() || failed {
                    break;
                }
            }
        });
        for piece in pieces {
            let (piece, piece_bytes, at) = piece?;
            READ_PROGRESS.add(piece_bytes, piece.height() as u64);
            pieces_read.push(at);
            split.append(split_rows(query.apply(piece.lazy()).collect().map_err(err)?)?)?;
        }
        Ok::<_, DataError>(())
    })?;
    Ok((split, pieces_read))
}

/// Later pieces: only the columns the mapping reads for this detail (the first piece chose
/// them); an audit never reads users or states.
fn wanted_columns(names: &[String], mapping: &Mapping, detail: Detail<'_>) -> Arc<[PlSmallStr]> {
    let read_by_detail = |field: &str| matches!(detail, Detail::Full) || !DETAIL_ONLY_FIELDS.contains(&field);
    names
        .iter()
        .filter(|name| {
            let mapped = mapping
                .columns
                .iter()
                .any(|(field, source)| source == *name && read_by_detail(field));
            mapped || mapping.gpu_multiplier.as_ref() == Some(*name)
        })
        .map(|name| PlSmallStr::from(name.as_str()))
        .collect()
}
