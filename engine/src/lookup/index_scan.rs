//! Scanning the sampled Index.db range entry by entry for the key (big format).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use core::cmp::Ordering;

use super::{
    ConfirmMiss, IndexHit, IndexScan, Lookup, Processed, Stage, StopReason, MAX_INDEX_WINDOW_BYTES,
};
use crate::component::index::{IndexFile, IndexStep};
use crate::component::summary::display_key;
use crate::component::ComponentType;
use crate::error::{Error, Result};

/// A Summary.db sample whose Index.db entry holds another key: one of the two is corrupt.
fn sample_key_mismatch(
    sampled_key: &[u8],
    summary_offset: u64,
    index_key: &[u8],
    index_offset: u64,
) -> Error {
    Error::invalid(
        format!(
            "the Summary.db sample at {summary_offset} holds {} for Index.db {index_offset}, \
             but the Index.db entry there holds {}: Summary.db or Index.db is corrupt",
            display_key(sampled_key),
            display_key(index_key)
        ),
        summary_offset,
    )
    .context("summary sample")
    .in_component(ComponentType::Summary)
}

impl Lookup {
    pub(super) fn scan_index(
        &mut self,
        mut scan: IndexScan,
        offset: u64,
        bytes: &[u8],
    ) -> Result<Processed> {
        let window_end = offset.saturating_add(bytes.len() as u64);
        let eof = window_end >= scan.file_len;
        let file = IndexFile::new(bytes, offset, self.version);
        let mut cursor = file.cursor_at(scan.next_offset, eof);
        let first_scanned = scan.scanned;
        let mut touched_end = offset;
        loop {
            match cursor.next_step()? {
                IndexStep::Entry(e) => {
                    if scan.scanned == 0 {
                        if let Some((sampled_key, summary_offset)) = &scan.sample {
                            if *sampled_key != e.key.value {
                                return Err(sample_key_mismatch(
                                    sampled_key,
                                    *summary_offset,
                                    &e.key.value,
                                    e.span.start,
                                ));
                            }
                        }
                    }
                    scan.scanned = scan.scanned.saturating_add(1);
                    touched_end = touched_end.max(e.span.end.min(window_end));
                    let compared = self.partitioner.compare_keys(&e.key.value, &self.key);
                    if e.key.value == self.key {
                        let n = scan.scanned.saturating_sub(1);
                        let position = e.position.value;
                        let blocks = e.block_count.unwrap_or(0);
                        self.index_hit = Some(IndexHit {
                            component: ComponentType::PrimaryIndex,
                            offset: e.span.start,
                            scanned_entries: Some(n),
                            block_count: blocks,
                        });
                        self.start_data(position);
                        return Ok(Processed {
                            touched_bytes: touched_end.saturating_sub(offset),
                            note: format!(
                                "entry {n} of the range (Index.db {}) holds the key → Data.db {position}{}",
                                e.span.start,
                                if blocks > 0 {
                                    format!(", promoted index of {blocks} blocks")
                                } else {
                                    String::new()
                                }
                            )});
                    }
                    if compared == Ordering::Greater {
                        // Absent once the partition this entry points to holds its key.
                        self.confirming = Some(ConfirmMiss {
                            index_key: e.key.value.clone(),
                            index_offset: e.span.start,
                            miss: StopReason::IndexMiss {
                                scanned_entries: scan.scanned,
                                range_start: scan.range_start,
                                range_end: scan.range_end,
                                passed_key: true,
                            },
                        });
                        let position = e.position.value;
                        self.start_data(position);
                        return Ok(Processed {
                            touched_bytes: touched_end.saturating_sub(offset),
                            note: format!(
                                "{} entries compared; {} at Index.db {} sorts after the key; its partition at Data.db {position} to confirm",
                                scan.scanned.saturating_sub(first_scanned),
                                display_key(&e.key.value),
                                e.span.start
                            )});
                    }
                }
                IndexStep::NeedMoreBytes { offset: at } => {
                    let compared = scan.scanned.saturating_sub(first_scanned);
                    if at < scan.next_offset {
                        return Err(Error::invalid(
                            format!("the index scan went back from {} to {at}", scan.next_offset),
                            at,
                        )
                        .context("index entry"));
                    }
                    if at >= scan.range_end {
                        return self.index_range_exhausted(scan, offset, touched_end, compared);
                    }
                    if at == offset {
                        // Not even one entry header fits: a larger window.
                        if window_end >= scan.range_end
                            || scan.window_bytes >= MAX_INDEX_WINDOW_BYTES
                        {
                            return Err(Error::invalid(
                                format!(
                                    "the Index.db entry at {at} does not fit in [{at}, {window_end})"
                                ),
                                at,
                            )
                            .context("index entry"));
                        }
                        scan.window_bytes = scan.window_bytes.saturating_mul(2);
                    }
                    scan.next_offset = at;
                    self.stage = Stage::IndexScan(scan);
                    return Ok(Processed {
                        touched_bytes: touched_end.saturating_sub(offset),
                        note: format!("{compared} entries compared; continuing at Index.db {at}"),
                    });
                }
                IndexStep::End => {
                    let compared = scan.scanned.saturating_sub(first_scanned);
                    return self.index_range_exhausted(scan, offset, touched_end, compared);
                }
            }
        }
    }

    pub(super) fn index_range_exhausted(
        &mut self,
        scan: IndexScan,
        offset: u64,
        touched_end: u64,
        compared: usize,
    ) -> Result<Processed> {
        if self.before_last_key && scan.range_end >= self.index_len {
            // Summary.db's last key sorts at or after the key, so the last range must hold a
            // key greater than it: Index.db ends too early.
            return Err(Error::invalid(
                format!(
                    "Index.db ends at {} before any key at or after the sought one, though \
                     Summary.db's last key sorts after it: Index.db is truncated",
                    scan.range_end
                ),
                scan.range_end,
            )
            .context("index scan")
            .in_component(ComponentType::PrimaryIndex));
        }
        let note = format!(
            "{compared} entries compared; the range [{}, {}) ends without the key: absent",
            scan.range_start, scan.range_end
        );
        self.stop(StopReason::IndexMiss {
            scanned_entries: scan.scanned,
            range_start: scan.range_start,
            range_end: scan.range_end,
            passed_key: false,
        });
        Ok(Processed {
            touched_bytes: touched_end.saturating_sub(offset),
            note,
        })
    }
}
