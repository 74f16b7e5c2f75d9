//! Index.db entries (`RowIndexEntry` with its promoted `IndexInfo` blocks) and Summary.db
//! (`IndexSummaryBuilder` at full sampling).
//!
//! | output | layout | Src |
//! |---|---|---|
//! | Index.db entry | short-length key, vint position, vint promoted size (0 = none), then for 2+ blocks: vint header length, `DeletionTime`, vint block count, IndexInfo × n, i32 offset × n | `io/sstable/format/big/RowIndexEntry.java`, `BigTableWriter.java` (`IndexWriter.append`) |
//! | IndexInfo | first and last clustering prefix (kind 4 + values, or a bound), vint offset, signed vint width − 65536, bool end-open marker, (`DeletionTime` when set) | `io/sstable/IndexInfo.java` |
//! | Summary.db | i32 min interval, i32 n, i64 4n + entry bytes, i32 sampling level (128), i32 size at full sampling, n × i32 LE offsets, entries (key + i64 LE Index.db position), int-length first and last key | `io/sstable/indexsummary/IndexSummary.java`, `IndexSummaryBuilder.java`, `format/big/IndexSummaryComponent.java` |
//!
//! A partition gets a promoted index only with two or more blocks. A block is closed after the
//! unfiltered that brings it to `column_index_size` bytes (`BigFormatPartitionWriter`); the last
//! block is closed after the end-of-partition byte, so its width includes it.
//!
//! The summary samples key 0, 128, 256, … (`min_index_interval`; sampling level 128 has no
//! downsampling rounds): one key per interval is kept in memory, as in Cassandra.

use super::bytes::{unsigned_vint_size, Out};
use crate::error::{Error, Result};

/// `IndexInfo.Serializer.WIDTH_BASE`.
pub const WIDTH_BASE: i64 = 64 * 1024;

/// `Downsampling.BASE_SAMPLING_LEVEL`.
pub const BASE_SAMPLING_LEVEL: i32 = 128;

/// The IndexInfo blocks of the partition being written.
#[derive(Debug, Default)]
pub struct PromotedIndex {
    /// Serialized IndexInfo objects.
    pub blocks: Vec<u8>,
    /// Offset of each IndexInfo relative to the first.
    pub offsets: Vec<u32>,
}

impl PromotedIndex {
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.offsets.clear();
    }

    pub fn block_count(&self) -> usize {
        self.offsets.len()
    }

    /// Appends one IndexInfo: `first` and `last` are already-serialized prefixes.
    pub fn add_block(
        &mut self,
        first: &[u8],
        last: &[u8],
        offset: u64,
        width: u64,
        end_open_marker: Option<&[u8]>,
    ) -> Result<()> {
        let at = u32::try_from(self.blocks.len())
            .map_err(|_| Error::invalid("promoted index larger than 4 GiB", 0))?;
        self.offsets.push(at);
        self.blocks.extend_from_slice(first);
        self.blocks.extend_from_slice(last);
        self.blocks.unsigned_vint(offset);
        self.blocks
            .signed_vint((width as i64).wrapping_sub(WIDTH_BASE));
        match end_open_marker {
            Some(dt) => {
                self.blocks.u8(1);
                self.blocks.extend_from_slice(dt);
            }
            None => self.blocks.u8(0),
        }
        Ok(())
    }

    pub fn buffered_bytes(&self) -> usize {
        self.blocks
            .capacity()
            .saturating_add(self.offsets.capacity().saturating_mul(4))
    }
}

/// Serializes one Index.db entry into `out`. `deletion` is the partition deletion as serialized
/// for the version; `promoted` is used when it has two or more blocks.
pub fn write_index_entry(
    out: &mut Vec<u8>,
    key: &[u8],
    position: u64,
    header_length: u64,
    deletion: &[u8],
    promoted: &PromotedIndex,
) -> Result<()> {
    out.short_length_bytes(key, "partition key")?;
    out.unsigned_vint(position);
    let count = promoted.block_count();
    if count <= 1 {
        out.unsigned_vint(0);
        return Ok(());
    }
    let too_large = || Error::invalid("promoted index larger than 4 GiB", 0);
    let size = unsigned_vint_size(header_length)
        .checked_add(deletion.len())
        .and_then(|s| s.checked_add(unsigned_vint_size(count as u64)))
        .and_then(|s| s.checked_add(promoted.blocks.len()))
        .and_then(|s| s.checked_add(count.checked_mul(4)?))
        .ok_or_else(too_large)?;
    let size = u32::try_from(size).map_err(|_| too_large())?;
    out.unsigned_vint(u64::from(size));
    out.unsigned_vint(header_length);
    out.extend_from_slice(deletion);
    out.unsigned_vint(count as u64);
    out.extend_from_slice(&promoted.blocks);
    for o in &promoted.offsets {
        out.u32(*o);
    }
    Ok(())
}

/// `IndexSummaryBuilder` at full sampling.
#[derive(Debug)]
pub struct SummaryBuilder {
    min_index_interval: u32,
    keys_written: u64,
    offsets: Vec<u32>,
    entries: Vec<u8>,
    first_key: Option<Vec<u8>>,
    last_key: Vec<u8>,
}

impl SummaryBuilder {
    pub fn new(min_index_interval: u32) -> Result<Self> {
        if min_index_interval == 0 || min_index_interval > i32::MAX as u32 {
            return Err(Error::invalid("min index interval must be in 1..2^31", 0));
        }
        Ok(SummaryBuilder {
            min_index_interval,
            keys_written: 0,
            offsets: Vec::new(),
            entries: Vec::new(),
            first_key: None,
            last_key: Vec::new(),
        })
    }

    /// `maybeAddEntry`: samples every `min_index_interval`-th key with its Index.db position.
    pub fn add(&mut self, key: &[u8], index_position: u64) -> Result<()> {
        if self
            .keys_written
            .is_multiple_of(u64::from(self.min_index_interval))
        {
            let at = u32::try_from(self.entries.len())
                .ok()
                .filter(|at| {
                    (*at as usize)
                        .checked_add(key.len())
                        .and_then(|end| end.checked_add(8))
                        .is_some_and(|end| end <= i32::MAX as usize)
                })
                .ok_or_else(|| Error::invalid("index summary larger than 2 GiB", 0))?;
            self.offsets.push(at);
            self.entries.extend_from_slice(key);
            self.entries
                .extend_from_slice(&(index_position as i64).to_le_bytes());
        }
        if self.first_key.is_none() {
            self.first_key = Some(key.to_vec());
        }
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.keys_written = self.keys_written.saturating_add(1);
        Ok(())
    }

    pub fn memory_bytes(&self) -> usize {
        self.entries
            .capacity()
            .saturating_add(self.offsets.capacity().saturating_mul(4))
            .saturating_add(self.last_key.capacity())
    }

    /// Summary.db.
    pub fn finish(&self) -> Result<Vec<u8>> {
        let Some(first) = &self.first_key else {
            return Err(Error::invalid("an index summary needs at least one key", 0));
        };
        let n = self.offsets.len();
        // Every offset and entry was checked to stay below 2 GiB when it was added.
        let too_large = || Error::invalid("index summary larger than 2 GiB", 0);
        let base = n.checked_mul(4).ok_or_else(too_large)?;
        let size = base.checked_add(self.entries.len()).ok_or_else(too_large)?;
        let size_at_full_sampling = self
            .keys_written
            .div_ceil(u64::from(self.min_index_interval));
        let mut out = Vec::with_capacity(size.saturating_add(first.len()).saturating_add(32));
        out.i32(self.min_index_interval as i32);
        out.i32(n as i32);
        out.i64(size as i64);
        out.i32(BASE_SAMPLING_LEVEL);
        out.i32(i32::try_from(size_at_full_sampling).unwrap_or(i32::MAX));
        for o in &self.offsets {
            let at = (*o as usize).checked_add(base).ok_or_else(too_large)?;
            out.extend_from_slice(&(at as u32).to_le_bytes());
        }
        out.extend_from_slice(&self.entries);
        out.int_length_bytes(first, "first key")?;
        out.int_length_bytes(&self.last_key, "last key")?;
        Ok(out)
    }
}
