//! [`Rechunker`]: record batches of any sizes, handed over in order, cut again into batches of
//! exactly `batch_rows` rows (the last one may have fewer) — the batches a single
//! [`RowBatcher`](crate::RowBatcher) over the same rows would have cut. The CLI's `export
//! --jobs` scans partition-aligned ranges on threads, each with its own batcher, and joins the
//! ranges' batches here, so the file written is the sequential run's.
//!
//! A batch of exactly `batch_rows` rows that starts a cut is passed on as it is; any other cut is
//! the rows' slices joined by `arrow_select::concat::concat_batches` into new arrays (fresh
//! buffers, offsets from 0, as a builder's `finish` gives them).
//!
//! Memory: less than one batch of rows waits between cuts.

use std::collections::VecDeque;

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, SchemaRef};

/// Cuts batches handed over in order into batches of `batch_rows` rows.
pub struct Rechunker {
    schema: SchemaRef,
    batch_rows: usize,
    /// Rows waiting for the next cut, in order (slices of the batches handed over).
    waiting: VecDeque<RecordBatch>,
    waiting_rows: usize,
}

impl Rechunker {
    /// `batch_rows`: at least 1 (as [`RowOptions::batch_rows`](crate::RowOptions)).
    pub fn new(schema: SchemaRef, batch_rows: usize) -> Rechunker {
        Rechunker {
            schema,
            batch_rows: batch_rows.max(1),
            waiting: VecDeque::new(),
            waiting_rows: 0,
        }
    }

    /// Takes `batch`'s rows; `emit` receives every batch of `batch_rows` rows now complete.
    pub fn push(
        &mut self,
        batch: RecordBatch,
        mut emit: impl FnMut(RecordBatch) -> Result<(), ArrowError>,
    ) -> Result<(), ArrowError> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.waiting_rows = self.waiting_rows.saturating_add(batch.num_rows());
        self.waiting.push_back(batch);
        while self.waiting_rows >= self.batch_rows {
            let cut = self.cut(self.batch_rows)?;
            emit(cut)?;
        }
        Ok(())
    }

    /// The rows still waiting, as a last batch (none when no row waits).
    pub fn finish(
        &mut self,
        mut emit: impl FnMut(RecordBatch) -> Result<(), ArrowError>,
    ) -> Result<(), ArrowError> {
        if self.waiting_rows > 0 {
            let cut = self.cut(self.waiting_rows)?;
            emit(cut)?;
        }
        Ok(())
    }

    /// The first `rows` waiting rows (`rows` ≤ `waiting_rows`) as one batch.
    fn cut(&mut self, rows: usize) -> Result<RecordBatch, ArrowError> {
        if self.waiting.front().is_some_and(|b| b.num_rows() == rows) {
            if let Some(whole) = self.waiting.pop_front() {
                self.waiting_rows = self.waiting_rows.saturating_sub(rows);
                return Ok(whole);
            }
        }
        let mut parts = Vec::new();
        let mut left = rows;
        while left > 0 {
            let Some(front) = self.waiting.pop_front() else {
                break;
            };
            let n = front.num_rows();
            if n <= left {
                left = left.saturating_sub(n);
                parts.push(front);
            } else {
                parts.push(front.slice(0, left));
                self.waiting
                    .push_front(front.slice(left, n.saturating_sub(left)));
                left = 0;
            }
        }
        self.waiting_rows = self.waiting_rows.saturating_sub(rows.saturating_sub(left));
        arrow_select::concat::concat_batches(&self.schema, &parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, Int64Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;

    fn batch(schema: &SchemaRef, from: i64, n: i64) -> RecordBatch {
        let ints = Int64Array::from_iter((from..from + n).map(|v| (v % 3 != 0).then_some(v)));
        let texts = StringArray::from_iter_values((from..from + n).map(|v| format!("r{v}")));
        RecordBatch::try_new(Arc::clone(schema), vec![Arc::new(ints), Arc::new(texts)]).unwrap()
    }

    #[test]
    fn batches_of_any_sizes_are_cut_at_every_batch_rows_rows() {
        let schema: SchemaRef = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, true),
            Field::new("s", DataType::Utf8, false),
        ]));
        let mut r = Rechunker::new(Arc::clone(&schema), 4);
        let mut out = Vec::new();
        let mut from = 0;
        // 3 + 4 + 0 + 9 + 1 + 2 = 19 rows: cuts 4, 4, 4, 4, 3.
        for n in [3, 4, 0, 9, 1, 2] {
            r.push(batch(&schema, from, n), |b| {
                out.push(b);
                Ok(())
            })
            .unwrap();
            from += n;
        }
        r.finish(|b| {
            out.push(b);
            Ok(())
        })
        .unwrap();
        let sizes: Vec<usize> = out.iter().map(RecordBatch::num_rows).collect();
        assert_eq!(sizes, [4, 4, 4, 4, 3]);
        for (i, b) in out.iter().enumerate() {
            let want = batch(&schema, i as i64 * 4, b.num_rows() as i64);
            assert_eq!(b, &want);
            assert_eq!(b.column(0).offset(), 0);
        }
    }
}
