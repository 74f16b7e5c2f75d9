//! The bti path: the Partitions.db footer, the trie descent with the key's byte-comparable
//! form (`PartitionIndex.Reader.exactCandidate`), and the Rows.db entry it points at.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::{
    IndexHit, Lookup, Processed, Stage, StopReason, TrieDescent, FOOTER_BYTES,
    MAX_TRIE_WINDOW_PAGES, TRIE_ENTRY_TAIL_BYTES,
};
use crate::component::bti::bytecomparable::partition_key;
use crate::component::bti::partitions::{decode_payload, hash_byte, NotFound, PartitionTarget};
use crate::component::bti::rows::decode_entry;
use crate::component::bti::trie::{TrieBytes, PAGE_SIZE};
use crate::component::summary::display_key;
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::info::SSTableMetadata;
use crate::range::{ByteRange, RowsWindow};
use crate::reader::Reader;

impl Lookup {
    pub(super) fn start_bti(&mut self, metadata: &SSTableMetadata) {
        let Some(file_len) = metadata.size_of(&ComponentType::Partitions) else {
            self.stop(StopReason::Error {
                component: Some(ComponentType::Partitions),
                offset: 0,
                message: "the SSTable has no Partitions.db: the read path is broken".to_owned(),
            });
            return;
        };
        if file_len < FOOTER_BYTES {
            self.stop(StopReason::Error {
                component: Some(ComponentType::Partitions),
                offset: 0,
                message: format!("Partitions.db has {file_len} bytes, less than its footer"),
            });
            return;
        }
        self.stage = Stage::PartitionsFooter { file_len };
    }

    pub(super) fn read_footer(
        &mut self,
        file_len: u64,
        offset: u64,
        bytes: &[u8],
    ) -> Result<Processed> {
        let mut r = Reader::new(bytes, offset).for_component(ComponentType::Partitions);
        let first_key_position = r.i64("footer: first key position")?;
        let count = r.i64("footer: partition count")?;
        let root_start = r.offset();
        let root = r.i64("footer: root position")?;
        let root = u64::try_from(root)
            .ok()
            .filter(|&p| p < file_len)
            .ok_or_else(|| {
                r.invalid_at(
                    format!("root position {root} is outside the {file_len}-byte file"),
                    root_start,
                    "footer: root position",
                )
            })?;
        let Some(comparable) = partition_key(&self.partitioner, &self.key) else {
            self.stop(StopReason::Unsupported {
                reason: format!(
                    "the byte-comparable key form of {} is not supported",
                    self.partitioner
                ),
            });
            return Ok(Processed {
                touched_bytes: FOOTER_BYTES,
                note: format!("footer: {count} partitions, root at {root}"),
            });
        };
        let end = u64::try_from(first_key_position)
            .ok()
            .filter(|&p| p <= file_len)
            .unwrap_or(file_len);
        self.stage = Stage::PartitionsNode(TrieDescent {
            comparable,
            matched: 0,
            node: root,
            file_len: end,
            pages: 1,
            nodes_visited: 0,
        });
        Ok(Processed {
            touched_bytes: FOOTER_BYTES,
            note: format!("footer: {count} partitions, root at {root}"),
        })
    }

    /// Follows the key's byte-comparable bytes through the nodes of one page
    /// (`PartitionIndex.Reader.exactCandidate`, `Walker.follow`).
    pub(super) fn descend(
        &mut self,
        mut d: TrieDescent,
        offset: u64,
        bytes: &[u8],
    ) -> Result<Processed> {
        let window_end = offset.saturating_add(bytes.len() as u64);
        let trie = TrieBytes::partitions(bytes, offset);
        let visited_before = d.nodes_visited;
        let mut touched = 0u64;
        let grow = |d: &mut TrieDescent, e: Error| -> Result<()> {
            if is_short(&e) && window_end < d.file_len && d.pages < MAX_TRIE_WINDOW_PAGES {
                d.pages = d.pages.saturating_add(1);
                Ok(())
            } else {
                Err(e)
            }
        };
        loop {
            if d.node >= d.file_len {
                // A window can never hold this node: the walk would ask for it forever.
                return Err(Error::invalid(
                    format!(
                        "trie node position {} is outside the trie, which ends at {}",
                        d.node, d.file_len
                    ),
                    d.node,
                )
                .in_component(ComponentType::Partitions)
                .context("partition index trie node"));
            }
            if d.node < offset || d.node >= window_end {
                if d.nodes_visited == visited_before {
                    // The page read for this node does not hold it: no progress is possible.
                    return Err(Error::invalid(
                        format!(
                            "trie node at {} is not inside the page read for it [{offset}, {window_end})",
                            d.node
                        ),
                        d.node,
                    )
                    .context("partition index trie"));
                }
                let page = d.node.saturating_sub(d.node % PAGE_SIZE);
                let note = format!(
                    "{} nodes, {} of {} key bytes matched; next node at {} (page {})",
                    d.nodes_visited.saturating_sub(visited_before),
                    d.matched,
                    d.comparable.len(),
                    d.node,
                    page / PAGE_SIZE
                );
                d.pages = 1;
                self.stage = Stage::PartitionsNode(d);
                return Ok(Processed {
                    touched_bytes: touched,
                    note,
                });
            }
            let node = match trie.node(d.node) {
                Ok(n) => n,
                Err(e) => {
                    grow(&mut d, e)?;
                    self.stage = Stage::PartitionsNode(d);
                    return Ok(Processed {
                        touched_bytes: touched,
                        note: "a node crosses the page end: reading one more page".to_owned(),
                    });
                }
            };
            d.nodes_visited = d.nodes_visited.saturating_add(1);
            touched = touched.saturating_add(node.span().len_bytes());
            if let Some(&b) = d.comparable.get(d.matched) {
                if let Some(child) = node.child(b) {
                    d.matched = d.matched.saturating_add(1);
                    d.node = child;
                    continue;
                }
                if node.has_children() {
                    let note = format!(
                        "{} nodes; no transition for byte 0x{b:02x} after {} of {} key bytes: absent",
                        d.nodes_visited.saturating_sub(visited_before),
                        d.matched,
                        d.comparable.len()
                    );
                    self.stop(StopReason::PartitionIndexMiss {
                        reason: NotFound::NoTransition,
                        matched_bytes: d.matched,
                    });
                    return Ok(Processed {
                        touched_bytes: touched,
                        note,
                    });
                }
            }
            let payload = match decode_payload(&trie, node.payload_position, node.payload_flags) {
                Ok(p) => p,
                Err(e) => {
                    grow(&mut d, e)?;
                    self.stage = Stage::PartitionsNode(d);
                    return Ok(Processed {
                        touched_bytes: touched,
                        note: "a payload crosses the page end: reading one more page".to_owned(),
                    });
                }
            };
            let nodes = d.nodes_visited.saturating_sub(visited_before);
            let Some(payload) = payload else {
                self.stop(StopReason::PartitionIndexMiss {
                    reason: NotFound::NoPayload,
                    matched_bytes: d.matched,
                });
                return Ok(Processed {
                    touched_bytes: touched,
                    note: format!(
                        "{nodes} nodes; the node at {} has no payload: absent",
                        node.position
                    ),
                });
            };
            touched = touched.saturating_add(payload.span.len_bytes());
            if let Some(stored) = payload.hash_byte {
                let expected = hash_byte(&self.key);
                if stored != expected {
                    self.stop(StopReason::PartitionIndexMiss {
                        reason: NotFound::HashMismatch { stored, expected },
                        matched_bytes: d.matched,
                    });
                    return Ok(Processed {
                        touched_bytes: touched,
                        note: format!(
                            "{nodes} nodes; candidate at {} has hash byte 0x{stored:02x}, the key's \
                             is 0x{expected:02x}: absent",
                            node.position
                        )});
                }
            }
            let note = format!(
                "{nodes} nodes, {} of {} key bytes matched; payload at {} → {}",
                d.matched,
                d.comparable.len(),
                node.position,
                payload.target.display()
            );
            match payload.target {
                PartitionTarget::RowIndex { rows_position } => {
                    let Some(file_len) = self.rows_len else {
                        return Err(Error::invalid(
                            "the trie points into Rows.db, but the SSTable has no Rows.db",
                            node.position,
                        )
                        .context("partition index payload"));
                    };
                    if rows_position >= file_len {
                        return Err(Error::invalid(
                            format!(
                                "the trie payload points at Rows.db {rows_position}, past its end ({file_len} bytes)"
                            ),
                            node.position,
                        )
                        .context("partition index payload"));
                    }
                    self.stage = Stage::RowsEntry {
                        position: rows_position,
                        window: RowsWindow::new(
                            file_len,
                            (self.key.len() as u64).saturating_add(2 + TRIE_ENTRY_TAIL_BYTES),
                            u64::MAX,
                        ),
                    };
                }
                PartitionTarget::Data { data_position } => {
                    self.index_hit = Some(IndexHit {
                        component: ComponentType::Partitions,
                        offset: node.position,
                        scanned_entries: None,
                        block_count: 0,
                    });
                    self.start_data(data_position);
                }
            }
            return Ok(Processed {
                touched_bytes: touched,
                note,
            });
        }
    }
}

pub(super) fn is_short(e: &Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::UnexpectedEof { .. } | ErrorKind::LengthTooLarge { .. }
    )
}

impl Lookup {
    pub(super) fn read_rows_entry(
        &mut self,
        position: u64,
        mut window: RowsWindow,
        range: &ByteRange,
        bytes: &[u8],
    ) -> Result<Processed> {
        let mut r = Reader::new(bytes, position).for_component(ComponentType::Rows);
        let stored = r.short_length_bytes("row index entry: key")?;
        if stored != self.key.as_slice() {
            let note = format!(
                "row index entry for {}, not the key: absent",
                display_key(stored)
            );
            let touched = (stored.len() as u64).saturating_add(2);
            self.stop(StopReason::RowIndexKeyMismatch {
                rows_position: position,
                stored_key: stored.to_vec(),
            });
            return Ok(Processed {
                touched_bytes: touched,
                note,
            });
        }
        window.supply(range, bytes);
        let version = self.version;
        let Some(entry) = window.decode(position, position, |rows| {
            decode_entry(rows, position, &version)
        })?
        else {
            self.stage = Stage::RowsEntry { position, window };
            return Ok(Processed {
                touched_bytes: bytes.len() as u64,
                note: "the entry is longer than the window: reading more".to_owned(),
            });
        };
        let data_position = entry.data_position.value;
        let blocks = entry.block_count.value;
        self.index_hit = Some(IndexHit {
            component: ComponentType::Rows,
            offset: position,
            scanned_entries: None,
            block_count: blocks,
        });
        self.start_data(data_position);
        Ok(Processed {
            touched_bytes: entry.span.len_bytes(),
            note: format!(
                "row index entry: the key, {blocks} blocks, {} → Data.db {data_position}",
                entry.deletion.display()
            ),
        })
    }
}
