//! The bti path: the Partitions.db footer, the trie descent with the key's byte-comparable
//! form (`PartitionIndex.Reader.exactCandidate`), and the Rows.db entry it points at.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::{
    IndexHit, Lookup, Processed, Stage, StopReason, TrieDescent, FOOTER_BYTES,
    MAX_TRIE_WINDOW_PAGES, TRIE_ENTRY_TAIL_BYTES,
};
use crate::component::bti::bytecomparable::{partition_key, sstable_partition_key};
use crate::component::bti::partitions::{decode_payload, hash_byte, NotFound, PartitionTarget};
use crate::component::bti::rows::decode_entry;
use crate::component::bti::trie::{TrieBytes, PAGE_SIZE};
use crate::component::summary::display_key;
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::info::SSTableMetadata;
use crate::range::{ByteRange, RowsWindow};
use crate::reader::Reader;

/// The longest byte-comparable partition key: a 65,535-byte key with its escapes, the token
/// and the separators, generously.
const MAX_KEY_COMPARABLE_BYTES: usize = 2 * 65_536 + 64;

impl Lookup {
    /// The key's byte-comparable form as the SSTable's writer built it: ScyllaDB's typed
    /// per-column form for `ms`/`mt` ([`scylla_partition_key`]; Cassandra's where it cannot be
    /// built — the two differ only below a shared token), Cassandra's otherwise.
    fn comparable_key(&self) -> Option<Vec<u8>> {
        sstable_partition_key(
            &self.version,
            &self.partitioner,
            &self.key,
            self.key_type.as_ref(),
        )
    }

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
        let Some(comparable) = self.comparable_key() else {
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
            neighbour: false,
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
            if d.neighbour {
                // Down the neighbouring transition to its first payload (a node's own payload
                // sorts before its children's), one node per key byte at most.
                if !node.has_payload() {
                    if let Some(t) = node.transitions.first() {
                        d.matched = d.matched.saturating_add(1);
                        if d.matched > MAX_KEY_COMPARABLE_BYTES {
                            return Err(Error::invalid(
                                format!(
                                    "the trie below {} is deeper than any key's byte-comparable form ({MAX_KEY_COMPARABLE_BYTES} bytes)",
                                    node.position
                                ),
                                node.position,
                            )
                            .in_component(ComponentType::Partitions)
                            .context("partition index trie"));
                        }
                        d.node = t.child;
                        continue;
                    }
                }
            } else if let Some(&b) = d.comparable.get(d.matched) {
                if let Some(child) = node.child(b) {
                    d.matched = d.matched.saturating_add(1);
                    d.node = child;
                    continue;
                }
                // Absent, once the first partition under the nearest transition holds a key
                // with the prefix the trie gives it (a corrupt transition byte would not).
                let nearest = node
                    .transitions
                    .iter()
                    .rev()
                    .find(|t| t.byte < b)
                    .or_else(|| node.transitions.iter().find(|t| t.byte > b));
                if let Some(t) = nearest {
                    let mut prefix = d.comparable.get(..d.matched).unwrap_or(&[]).to_vec();
                    prefix.push(t.byte);
                    let note = format!(
                        "{} nodes; no transition for byte 0x{b:02x} after {} of {} key bytes; the first partition under 0x{:02x}, to confirm",
                        d.nodes_visited.saturating_sub(visited_before),
                        d.matched,
                        d.comparable.len(),
                        t.byte
                    );
                    self.no_transition_after = Some(d.matched);
                    d.comparable = prefix;
                    d.matched = d.comparable.len();
                    d.neighbour = true;
                    d.node = t.child;
                    self.stage = Stage::PartitionsNode(d);
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
                // Byte-comparable partition keys are prefix-free and the writer gives every
                // leaf a payload: a descent that ends on a node without one is a corrupt trie.
                return Err(Error::invalid(
                    format!(
                        "the descent ends at the trie node at {} after {} of {} key bytes, but it has no payload (every leaf of a sound Partitions.db has one)",
                        node.position,
                        d.matched,
                        d.comparable.len()
                    ),
                    node.position,
                )
                .in_component(ComponentType::Partitions)
                .context("partition index trie node"));
            };
            touched = touched.saturating_add(payload.span.len_bytes());
            self.trie_prefix = d
                .comparable
                .get(..d.matched.min(d.comparable.len()))
                .map(<[u8]>::to_vec);
            let mut hash_note = String::new();
            if let Some(stored) = payload.hash_byte.filter(|_| !d.neighbour) {
                let expected = hash_byte(&self.key);
                if stored != expected {
                    // Absent, once the partition it leads to holds another key that shares the
                    // trie's prefix; the key itself there means the hash byte is corrupt.
                    self.hash_mismatch = Some((stored, expected));
                    hash_note = format!(
                        "; hash byte 0x{stored:02x}, the key's is 0x{expected:02x}: the partition it leads to, to confirm"
                    );
                }
            }
            let note = format!(
                "{nodes} nodes, {} of {} key bytes matched; payload at {} → {}{hash_note}",
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
            self.check_trie_prefix(stored, "the Rows.db entry at", position)?;
            let note = format!(
                "row index entry for {}, not the key (it shares the trie's prefix): absent",
                display_key(stored)
            );
            let touched = (stored.len() as u64).saturating_add(2);
            let reason = self
                .trie_miss()
                .unwrap_or_else(|| StopReason::RowIndexKeyMismatch {
                    rows_position: position,
                    stored_key: stored.to_vec(),
                });
            self.stop(reason);
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

impl Lookup {
    /// A key the trie led to (in Rows.db or Data.db, at `what` `position`) that is not the
    /// sought one must still share the byte-comparable prefix the trie matched: else the
    /// trie's transitions are corrupt, and "absent" cannot be said.
    pub(super) fn check_trie_prefix(&self, stored: &[u8], what: &str, position: u64) -> Result<()> {
        let Some(prefix) = &self.trie_prefix else {
            return Ok(());
        };
        let shares =
            partition_key(&self.partitioner, stored).is_some_and(|c| c.starts_with(prefix));
        if shares {
            return Ok(());
        }
        Err(Error::invalid(
            format!(
                "the Partitions.db trie leads to {what} {position} by the key's first {} byte-comparable bytes, but the key there, {}, does not start with them: Partitions.db is corrupt",
                prefix.len(),
                display_key(stored)
            ),
            position,
        )
        .in_component(ComponentType::Partitions)
        .context("partition index trie"))
    }

    /// The miss the trie itself gave (a hash byte, no transition), now confirmed by the
    /// partition it led to; `None` when the trie led to a payload for the key.
    pub(super) fn trie_miss(&self) -> Option<StopReason> {
        if let Some(matched_bytes) = self.no_transition_after {
            return Some(StopReason::PartitionIndexMiss {
                reason: NotFound::NoTransition,
                matched_bytes,
            });
        }
        self.hash_mismatch
            .map(|(stored, expected)| StopReason::PartitionIndexMiss {
                reason: NotFound::HashMismatch { stored, expected },
                matched_bytes: self.trie_prefix.as_ref().map_or(0, Vec::len),
            })
    }
}
