//! The last step: the partition header at the Data.db position the index gave, and its key.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::{Lookup, LookupResult, Processed, Stage, StopReason};
use crate::clock::Clock;
use crate::component::data::{DataItem, DecodeStep};
use crate::component::summary::display_key;
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::range::{ByteRange, ItemReader, RangeReader};
use crate::version::Format;

impl Lookup {
    pub(super) fn start_data(&mut self, position: u64) {
        let seek = match self.data.as_mut() {
            Ok(reader) => reader.reader_mut().seek_to_partition(position),
            Err(e) => Err(e.clone()),
        };
        if let Err(e) = seek {
            self.stop(StopReason::from_error(&e));
            return;
        }
        self.stage = Stage::DataHeader { position };
        if let Err(e) = self.poll_data(position) {
            let e = e.in_component(ComponentType::Data);
            self.stop(StopReason::from_error(&e));
        }
    }

    /// Decodes what the Data.db reader holds: `None` while the header is incomplete, else the
    /// bytes of the header and a note (the lookup is then finished).
    pub(super) fn poll_data(&mut self, position: u64) -> Result<Option<(u64, String)>> {
        let step = match self.data.as_mut() {
            Ok(reader) => reader.next_item()?,
            Err(e) => return Err(e.clone()),
        };
        match step {
            DecodeStep::NeedMoreData => {
                self.stage = Stage::DataHeader { position };
                Ok(None)
            }
            DecodeStep::Finished => Err(Error::invalid(
                format!("no partition at Data.db {position}: the data ends there"),
                position,
            )
            .context("partition header")
            .in_component(ComponentType::Data)),
            DecodeStep::Item(DataItem::PartitionStart(start)) => {
                let touched = start.span.len_bytes();
                let stored = &start.key.bytes.bytes;
                if let Some(confirm) = self.confirming.take() {
                    if *stored != confirm.index_key {
                        return Err(Error::invalid(
                            format!(
                                "the Index.db entry at {} holds {} and gives Data.db {position}, but the partition there holds {}: Index.db or Data.db is corrupt",
                                confirm.index_offset,
                                display_key(&confirm.index_key),
                                display_key(stored)
                            ),
                            position,
                        )
                        .context("partition header")
                        .in_component(ComponentType::Data));
                    }
                    self.stop(confirm.miss);
                    return Ok(Some((
                        touched,
                        format!(
                            "partition header at {position} holds {}, as its Index.db entry says: absent",
                            display_key(stored)
                        ),
                    )));
                }
                if stored == &self.key {
                    let note = format!(
                        "partition header at {position}: the key, {}",
                        if start.deletion.is_live() {
                            "live"
                        } else {
                            "deleted"
                        }
                    );
                    let note = match self.bloom.as_mut() {
                        Some(bloom) if self.bloom_negative => {
                            bloom.false_negative = true;
                            format!(
                                "{note}; Filter.db is corrupt: its bloom filter said absent, but the index holds the key (a false negative)"
                            )
                        }
                        _ => note,
                    };
                    let note = match (self.no_transition_after, self.hash_mismatch) {
                        (Some(matched), _) => format!(
                            "{note}; Partitions.db is corrupt: the trie has no transition for the key's byte after {matched} bytes, but the key is under another"
                        ),
                        (None, Some((stored, expected))) => format!(
                            "{note}; Partitions.db is corrupt: its hash byte for the key is 0x{stored:02x}, the key's is 0x{expected:02x}"
                        ),
                        (None, None) => note,
                    };
                    let note = match self.outside {
                        Some(side) => format!(
                            "{note}; Summary.db is corrupt: by its key range the key sorts {side}, but Index.db holds it"
                        ),
                        None => note,
                    };
                    self.found = true;
                    self.partition_position = Some(position);
                    self.partition_start = Some(start);
                    self.stopped_at = None;
                    self.stage = Stage::Done;
                    Ok(Some((touched, note)))
                } else if self.version.format() == Format::Big
                    || self
                        .index_hit
                        .as_ref()
                        .is_some_and(|h| h.component == ComponentType::Rows)
                {
                    // The index entry (Index.db, or a Rows.db entry) held this very key: Data.db
                    // does not match its index.
                    let index = match &self.index_hit {
                        Some(hit) => format!("{} entry at {}", hit.component, hit.offset),
                        None => "Index.db entry".to_owned(),
                    };
                    Err(Error::invalid(
                        format!(
                            "the {index} gives Data.db {position} for the key, but the partition there holds {}",
                            display_key(stored)
                        ),
                        position,
                    )
                    .context("partition header")
                    .in_component(ComponentType::Data))
                } else {
                    self.check_trie_prefix(stored, "Data.db", position)?;
                    let note = format!(
                        "partition header at {position} holds {}, not the key (it shares the trie's prefix): absent",
                        display_key(stored)
                    );
                    let reason = self
                        .trie_miss()
                        .unwrap_or_else(|| StopReason::DataKeyMismatch {
                            data_position: position,
                            stored_key: stored.clone(),
                        });
                    self.stop(reason);
                    Ok(Some((touched, note)))
                }
            }
            DecodeStep::Item(other) => Err(super::partition_read::not_a_partition_header(
                position, &other,
            )),
        }
    }

    pub(super) fn read_data_header(
        &mut self,
        position: u64,
        range: &ByteRange,
        bytes: &[u8],
        clock: &dyn Clock,
    ) -> Result<Processed> {
        match self.data.as_mut() {
            Ok(reader) => reader.supply(range, bytes, clock)?,
            Err(e) => return Err(e.clone()),
        }
        let (compressed, checked) = self.data.as_ref().map_or((false, false), |r| {
            (r.reader().is_compressed(), r.checks_every_read())
        });
        let what = match (compressed, checked) {
            (true, true) => "compressed chunk",
            (true, false) => "compressed chunk (not checked: before jb its checksum covers the uncompressed bytes)",
            (false, true) => "bytes (their CRC.db chunks pass)",
            (false, false) => "bytes (not checked: no CRC.db; Digest covers only the whole file)",
        };
        match self.poll_data(position)? {
            None => Ok(Processed {
                touched_bytes: bytes.len() as u64,
                note: format!("{what}: the partition header at {position} continues"),
            }),
            Some((touched, note)) => Ok(Processed {
                touched_bytes: touched,
                note: format!("{what}: {note}"),
            }),
        }
    }

    /// The outcome (a lookup stopped early reports [`StopReason::Unfinished`]).
    pub fn into_result(self) -> LookupResult {
        let stopped_at = match (&self.stage, self.found) {
            (Stage::Done, true) => None,
            (Stage::Done, false) => Some(self.stopped_at.unwrap_or(StopReason::Unfinished)),
            _ => Some(StopReason::Unfinished),
        };
        LookupResult {
            found: stopped_at.is_none(),
            key: self.key,
            token: self.token,
            bloom: self.bloom,
            steps: self.steps,
            partition_position: self.partition_position,
            index_entry: self.index_hit,
            partition_start: self.partition_start,
            stopped_at,
        }
    }
}
