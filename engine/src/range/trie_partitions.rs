//! Which partitions a set of uncompressed Data.db ranges overlap, for a BTI SSTable: the
//! Partitions.db trie walked in key order, page by page.
//!
//! | stage | reads | what it gives |
//! |---|---|---|
//! | footer | the last 24 bytes of Partitions.db | the root, where the trie ends |
//! | trie | 4096-byte pages of Partitions.db (up to 16 for a node crossing pages), the last few kept ([`TriePages`]) | each partition's payload P, in key order ([`PartitionWalk`]) |
//! | row index entries | Rows.db from P (64 KiB, doubled while one entry does not fit), only for P ≥ 0 | the key and Data.db position of a partition with a row index (`TrieIndexEntry`) |
//! | keys | the Data.db chunk(s) holding a partition's header, only for partitions without a row index that overlap a wanted range | the whole key (the trie holds only a prefix of it) |
//!
//! Partitions are in Data.db in key order, so partition `i` is `[position_i, position_{i+1})` and
//! the last one ends at the data length, as with Index.db ([`super::PartitionFinder`]); the walk
//! stops at the first partition starting past the last wanted range. A key read from Data.db
//! is checked against the trie (its byte-comparable form starts with the trie's prefix, its
//! Murmur3 hash byte is the stored one): a key in a damaged chunk that fails the check is
//! reported as unreadable, never as another key.
//!
//! Src: `io/sstable/format/bti/PartitionIterator.java` (P ≥ 0: key and `TrieIndexEntry` in
//! Rows.db; P < 0: the key at Data.db `~P`), `PartitionIndex.java`, `TrieIndexEntry.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::clock::Clock;
use crate::component::bti::bytecomparable::partition_key;
use crate::component::bti::partitions::{hash_byte, PartitionTarget};
use crate::component::bti::rows::decode_entry;
use crate::component::data::{DataFileReader, DataItem, DecodeStep};
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::range::partitions::{overlapping, render_key, MAX_PARTITIONS_PER_RANGE};
use crate::range::trie_pages::{TriePages, TrieStep};
use crate::range::{ByteRange, PartitionRange, RangeReader, RowsWindow};
use crate::reader::Reader;
use crate::token::Partitioner;
use crate::types::AbstractType;
use crate::version::Version;

/// Bytes of the Partitions.db footer: first-key position, partition count, root position.
const FOOTER_BYTES: u64 = 24;
/// Bytes of Rows.db asked for at a time.
pub const ROWS_WINDOW_BYTES: u64 = 64 * 1024;
/// A Rows.db entry longer than this is an error.
const MAX_ROWS_WINDOW_BYTES: u64 = 1 << 20;

/// Where a kept partition's key is.
#[derive(Debug, Clone, PartialEq)]
enum KeyAt {
    /// Read already (from Rows.db), rendered.
    Known(String),
    /// In `data_keys` (read from Data.db at the end).
    Data(usize),
}

/// The key of the partition being walked, before it is known whether a range keeps it.
#[derive(Debug, Clone, PartialEq)]
enum PendingKey {
    /// From Rows.db.
    Raw(Vec<u8>),
    /// From Rows.db, but not the key the trie indexes there: what to show instead.
    Mismatch(String),
    /// To read from Data.db.
    Data(DataKey),
}

/// A key to read from Data.db, and what the trie says of it.
#[derive(Debug, Clone, PartialEq)]
struct DataKey {
    position: u64,
    key_prefix: Vec<u8>,
    hash_byte: Option<u8>,
    key: Option<String>,
}

#[derive(Debug, Clone)]
enum Stage {
    Footer,
    Trie,
    /// A partition with a row index whose entry is not in the Rows.db window yet.
    RowsEntry {
        rows_position: u64,
    },
    /// Reading the key of `data_keys[index]`.
    DataKeys {
        index: usize,
    },
    Done,
}

/// The partitions overlapping some uncompressed Data.db ranges, from Partitions.db, Rows.db and
/// Data.db (see the module docs).
#[derive(Debug, Clone)]
pub struct TriePartitionFinder {
    version: Version,
    partitioner: Partitioner,
    key_type: Option<AbstractType>,
    partitions_len: u64,
    rows_len: Option<u64>,
    data_len: u64,
    data: Result<DataFileReader>,
    wanted: Vec<(u64, u64)>,
    found: Vec<Vec<(KeyAt, u64, u64)>>,
    data_keys: Vec<DataKey>,
    previous: Option<(PendingKey, u64)>,
    /// The trie walk and its pages (from the footer on).
    trie: Option<TriePages>,
    /// The trie's prefix and hash byte of the partition whose Rows.db entry is read next.
    rows_trie_key: (Vec<u8>, Option<u8>),
    rows_window: RowsWindow,
    stage: Stage,
    /// A read failed before every partition was found.
    names_lost: bool,
}

impl TriePartitionFinder {
    /// `ranges`: uncompressed `[start, end)` ranges; `data_len`: the uncompressed data length;
    /// `data`: the SSTable's Data.db reader (for the keys of partitions without a row index).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        version: Version,
        partitioner: Partitioner,
        key_type: Option<AbstractType>,
        partitions_len: u64,
        rows_len: Option<u64>,
        data_len: u64,
        data: Result<DataFileReader>,
        ranges: &[(u64, u64)],
    ) -> TriePartitionFinder {
        let mut wanted: Vec<(u64, u64)> = ranges.iter().copied().filter(|(s, e)| s < e).collect();
        crate::sort::sort(&mut wanted);
        wanted.dedup();
        let stage = if wanted.is_empty() {
            Stage::Done
        } else {
            Stage::Footer
        };
        TriePartitionFinder {
            version,
            partitioner,
            key_type,
            partitions_len,
            rows_len,
            data_len,
            data,
            found: vec![Vec::new(); wanted.len()],
            wanted,
            data_keys: Vec::new(),
            previous: None,
            trie: None,
            rows_trie_key: (Vec::new(), None),
            rows_window: RowsWindow::new(
                rows_len.unwrap_or(0),
                ROWS_WINDOW_BYTES,
                MAX_ROWS_WINDOW_BYTES,
            ),
            stage,
            names_lost: false,
        }
    }

    pub fn is_done(&self) -> bool {
        matches!(self.stage, Stage::Done)
    }

    /// Whether a failed read stopped the walk before every overlapping partition was found
    /// (a key that could not be read is still named, by its position).
    pub fn names_lost(&self) -> bool {
        self.names_lost
    }

    /// The partitions overlapping `[start, end)`, one of the ranges given to
    /// [`TriePartitionFinder::new`]. A key not read is shown as `?` with its Data.db position.
    pub fn partitions(&self, start: u64, end: u64) -> Vec<PartitionRange> {
        let Some(list) = self
            .wanted
            .iter()
            .position(|&w| w == (start, end))
            .and_then(|i| self.found.get(i))
        else {
            return Vec::new();
        };
        list.iter()
            .map(|(key, start, end)| PartitionRange {
                key: match key {
                    KeyAt::Known(k) => k.clone(),
                    KeyAt::Data(i) => self.data_keys.get(*i).map_or_else(String::new, |d| {
                        d.key
                            .clone()
                            .unwrap_or_else(|| format!("? (Data.db {}: key not read)", d.position))
                    }),
                },
                start: *start,
                end: *end,
            })
            .collect()
    }

    fn last_end(&self) -> u64 {
        self.wanted.iter().map(|w| w.1).max().unwrap_or(0)
    }

    /// A partition starts at `position`: the previous one ends there. Data.db starts with the
    /// first partition and holds them in key order, so positions start at 0 and grow.
    fn partition_at(
        &mut self,
        key: PendingKey,
        position: u64,
        component: ComponentType,
    ) -> Result<()> {
        let previous = self.previous.as_ref().map(|p| p.1);
        let out_of_order = match previous {
            None => position != 0,
            Some(p) => position <= p,
        };
        if out_of_order {
            return Err(Error::invalid(
                match previous {
                    None => format!("the first partition starts at Data.db {position}, not 0"),
                    Some(p) => format!(
                        "a partition starts at Data.db {position}, not after the previous one at {p}"
                    ),
                },
                0,
            )
            .context("partition position")
            .in_component(component));
        }
        self.close_previous(position);
        if position >= self.last_end() {
            self.start_data_keys();
        } else {
            self.previous = Some((key, position));
        }
        Ok(())
    }

    fn close_previous(&mut self, end: u64) {
        let Some((pending, start)) = self.previous.take() else {
            return;
        };
        let end = end.max(start);
        let mut kept: Option<KeyAt> = None;
        for i in overlapping(&self.wanted, start, end) {
            let Some(list) = self.found.get_mut(i) else {
                continue;
            };
            if list.len() >= MAX_PARTITIONS_PER_RANGE {
                continue;
            }
            let key = kept.get_or_insert_with(|| match &pending {
                PendingKey::Raw(raw) => KeyAt::Known(render_key(self.key_type.as_ref(), raw)),
                PendingKey::Mismatch(text) => KeyAt::Known(text.clone()),
                PendingKey::Data(d) => {
                    self.data_keys.push(d.clone());
                    KeyAt::Data(self.data_keys.len().saturating_sub(1))
                }
            });
            list.push((key.clone(), start, end));
        }
    }

    /// After the walk: the keys still to read from Data.db, those of the partitions kept.
    fn start_data_keys(&mut self) {
        self.previous = None;
        self.stage = Stage::DataKeys { index: 0 };
        self.next_data_key(0);
    }

    /// Moves to the first key from `index` on not read yet, seeking the Data.db reader there.
    fn next_data_key(&mut self, mut index: usize) {
        loop {
            let Some(d) = self.data_keys.get(index) else {
                self.stage = Stage::Done;
                return;
            };
            if d.key.is_some() {
                index = index.saturating_add(1);
                continue;
            }
            let position = d.position;
            let seek = match self.data.as_mut() {
                Ok(r) => r.seek_to_partition(position),
                Err(e) => Err(e.clone()),
            };
            match seek {
                Ok(()) => {
                    self.stage = Stage::DataKeys { index };
                    if self.poll_data_key(index).is_some() {
                        index = index.saturating_add(1);
                        continue;
                    }
                    return;
                }
                Err(e) => {
                    self.set_unreadable(index, &e.message());
                    index = index.saturating_add(1);
                }
            }
        }
    }

    fn set_unreadable(&mut self, index: usize, why: &str) {
        if let Some(d) = self.data_keys.get_mut(index) {
            d.key = Some(format!("? (Data.db {}: {why})", d.position));
        }
    }

    /// Decodes what the Data.db reader holds: `Some(())` once the key at `index` is settled.
    fn poll_data_key(&mut self, index: usize) -> Option<()> {
        let step = match self.data.as_mut() {
            Ok(r) => r.next_item(),
            Err(e) => Err(e.clone()),
        };
        let key = match step {
            Ok(DecodeStep::NeedMoreData) => return None,
            Ok(DecodeStep::Item(DataItem::PartitionStart(start))) => start.key.bytes.bytes,
            Ok(_) => {
                self.set_unreadable(index, "no partition header there");
                return Some(());
            }
            Err(e) => {
                self.set_unreadable(index, &e.message());
                return Some(());
            }
        };
        let rendered = render_key(self.key_type.as_ref(), &key);
        let indexed = self
            .data_keys
            .get(index)
            .is_some_and(|d| self.is_indexed(&key, &d.key_prefix, d.hash_byte));
        let d = self.data_keys.get_mut(index)?;
        d.key = Some(if indexed {
            rendered
        } else {
            format!(
                "? (Data.db {}: the key there, {rendered}, is not the one Partitions.db indexes)",
                d.position
            )
        });
        Some(())
    }

    /// Whether `key` is the one the trie indexes with `key_prefix` and `stored_hash`: its
    /// byte-comparable form starts with the prefix and its hash byte is the stored one.
    fn is_indexed(&self, key: &[u8], key_prefix: &[u8], stored_hash: Option<u8>) -> bool {
        let prefix_ok =
            partition_key(&self.partitioner, key).is_none_or(|c| c.starts_with(key_prefix));
        prefix_ok && stored_hash.is_none_or(|h| h == hash_byte(key))
    }

    fn read_footer(&mut self, offset: u64, bytes: &[u8]) -> Result<()> {
        let mut r = Reader::new(bytes, offset).for_component(ComponentType::Partitions);
        let first_key_start = r.offset();
        let first_key = r.i64("footer: first key position")?;
        let _count = r.i64("footer: partition count")?;
        let root_start = r.offset();
        let root = r.i64("footer: root position")?;
        let trie_end = u64::try_from(first_key)
            .ok()
            .filter(|&p| p <= offset)
            .ok_or_else(|| {
                r.invalid_at(
                    format!("first key position {first_key} is not before the footer at {offset}"),
                    first_key_start,
                    "footer: first key position",
                )
            })?;
        let root = u64::try_from(root)
            .ok()
            .filter(|&p| p < trie_end)
            .ok_or_else(|| {
                r.invalid_at(
                    format!("root position {root} is not inside the trie [0, {trie_end})"),
                    root_start,
                    "footer: root position",
                )
            })?;
        self.trie = Some(TriePages::new(root, trie_end));
        self.stage = Stage::Trie;
        Ok(())
    }

    /// Runs the walk over the pages held until it needs another read.
    fn advance_walk(&mut self) -> Result<()> {
        loop {
            let Some(trie) = self.trie.as_mut() else {
                self.stage = Stage::Done;
                return Ok(());
            };
            match trie.next_step()? {
                TrieStep::End => {
                    if self.previous.is_none() {
                        return Err(Error::invalid("the trie lists no partition", 0)
                            .context("partition index trie walk")
                            .in_component(ComponentType::Partitions));
                    }
                    self.close_previous(self.data_len);
                    self.start_data_keys();
                    return Ok(());
                }
                TrieStep::NeedMoreData => return Ok(()),
                TrieStep::Entry(entry) => match entry.payload.target {
                    PartitionTarget::Data { data_position } => {
                        let key = DataKey {
                            position: data_position,
                            key_prefix: entry.key_prefix,
                            hash_byte: entry.payload.hash_byte,
                            key: None,
                        };
                        self.partition_at(
                            PendingKey::Data(key),
                            data_position,
                            ComponentType::Partitions,
                        )?;
                        if !matches!(self.stage, Stage::Trie) {
                            return Ok(());
                        }
                    }
                    PartitionTarget::RowIndex { rows_position } => {
                        self.rows_trie_key = (entry.key_prefix, entry.payload.hash_byte);
                        if !self.rows_entry(rows_position)? {
                            self.stage = Stage::RowsEntry { rows_position };
                            return Ok(());
                        }
                        if !matches!(self.stage, Stage::Trie) {
                            return Ok(());
                        }
                    }
                },
            }
        }
    }

    /// Decodes the Rows.db entry at `rows_position` from the window held; `false` when the
    /// window does not hold it (the next read is then set).
    fn rows_entry(&mut self, rows_position: u64) -> Result<bool> {
        let Some(rows_len) = self.rows_len else {
            return Err(Error::invalid(
                format!(
                    "the trie points at Rows.db {rows_position}, but the SSTable has no Rows.db"
                ),
                0,
            )
            .context("partition index payload")
            .in_component(ComponentType::Partitions));
        };
        if rows_position >= rows_len {
            return Err(Error::invalid(
                format!(
                    "the trie points at Rows.db {rows_position}, past its end ({rows_len} bytes)"
                ),
                0,
            )
            .context("partition index payload")
            .in_component(ComponentType::Partitions));
        }
        let version = self.version;
        let decoded = self
            .rows_window
            .decode(rows_position, rows_position, |rows| {
                decode_entry(rows, rows_position, &version)
            })?;
        let Some(entry) = decoded else {
            return Ok(false);
        };
        let (prefix, hash) = &self.rows_trie_key;
        let key = if self.is_indexed(&entry.key.value, prefix, *hash) {
            PendingKey::Raw(entry.key.value)
        } else {
            PendingKey::Mismatch(format!(
                "? (Rows.db {rows_position}: the key there, {}, is not the one Partitions.db indexes)",
                render_key(self.key_type.as_ref(), &entry.key.value)
            ))
        };
        self.partition_at(key, entry.data_position.value, ComponentType::Rows)?;
        Ok(true)
    }

    fn supply_inner(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        if range.component != ComponentType::Data && (bytes.len() as u64) < range.len {
            return Err(range.short_read(bytes.len() as u64));
        }
        let take = usize::try_from(range.len).unwrap_or(usize::MAX);
        let bytes = bytes.get(..take).unwrap_or(bytes);
        match self.stage.clone() {
            Stage::Footer => self.read_footer(range.offset, bytes)?,
            Stage::Trie => {
                if let Some(trie) = self.trie.as_mut() {
                    trie.supply(range, bytes);
                }
                self.advance_walk()?;
            }
            Stage::RowsEntry { rows_position } => {
                self.rows_window.supply(range, bytes);
                if self.rows_entry(rows_position)? {
                    if matches!(self.stage, Stage::RowsEntry { .. }) {
                        self.stage = Stage::Trie;
                    }
                    if matches!(self.stage, Stage::Trie) {
                        self.advance_walk()?;
                    }
                }
            }
            Stage::DataKeys { index } => {
                let supplied = match self.data.as_mut() {
                    Ok(r) => RangeReader::supply(r, range, bytes, clock),
                    Err(e) => Err(e.clone()),
                };
                match supplied {
                    Ok(()) => {
                        if self.poll_data_key(index).is_some() {
                            self.next_data_key(index.saturating_add(1));
                        }
                    }
                    Err(e) => {
                        self.set_unreadable(index, &e.message());
                        self.next_data_key(index.saturating_add(1));
                    }
                }
            }
            Stage::Done => {
                return Err(Error::invalid(
                    "bytes supplied but nothing was asked for",
                    range.offset,
                )
                .in_component(range.component.clone()))
            }
        }
        Ok(())
    }
}

impl RangeReader for TriePartitionFinder {
    fn next_read(&self) -> Option<ByteRange> {
        match &self.stage {
            Stage::Footer => Some(ByteRange::new(
                ComponentType::Partitions,
                self.partitions_len.saturating_sub(FOOTER_BYTES),
                FOOTER_BYTES.min(self.partitions_len),
            )),
            Stage::Trie => self.trie.as_ref().and_then(TriePages::next_read),
            Stage::RowsEntry { rows_position } => {
                Some(self.rows_window.read_for(*rows_position, *rows_position))
            }
            Stage::DataKeys { .. } => self.data.as_ref().ok().and_then(RangeReader::next_read),
            Stage::Done => None,
        }
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        let result = self.supply_inner(range, bytes, clock);
        if result.is_err() {
            self.stage = Stage::Done;
        }
        result
    }

    /// A failed read of Data.db leaves that key unread and goes on; any other stops the finder.
    /// (Every other key that needs the very range that failed is left unread with it.)
    fn abort(&mut self, range: &ByteRange, error: &Error, _clock: &dyn Clock) {
        while let Stage::DataKeys { index } = self.stage {
            self.set_unreadable(index, &error.message());
            self.next_data_key(index.saturating_add(1));
            if self.next_read().as_ref() != Some(range) {
                return;
            }
        }
        if !matches!(self.stage, Stage::Done) {
            self.names_lost = true;
        }
        self.stage = Stage::Done;
    }
}
