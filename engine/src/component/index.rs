//! Index.db (big format): one `RowIndexEntry` per partition, in token order, each optionally
//! carrying a *promoted index* (the partition's `IndexInfo` blocks) when the partition spans at
//! least two row-index blocks.
//!
//! | field | `ma` and later | `jb` … `la` (2.0–2.2) |
//! |---|---|---|
//! | key | u16 length + bytes | same |
//! | position (uncompressed Data.db) | unsigned vint | i64 |
//! | promoted-index size (0 = none) | unsigned vint (32-bit) | i32 |
//! | header length (key + deletion + static row in Data.db) | unsigned vint | – |
//! | partition deletion | `DeletionTime` (12 bytes; from `oa` 1 byte when live) | i32 ldt + i64 mfda |
//! | block count n | unsigned vint (32-bit) | i32 |
//! | n × `IndexInfo` | see below | see below |
//! | n × offset | i32: `IndexInfo` j relative to the first one (first = 0) | – |
//!
//! `IndexInfo` (`ma`+): first clustering and last clustering (`ClusteringPrefix`: u8 kind; kind 4
//! `CLUSTERING` = values for every clustering column, other kinds = u16 size + values; values in
//! batches of 32 behind an unsigned-vint header of empty/null bits, each value fixed-length or
//! vint-length), unsigned vint offset of the block from the partition start, **signed** vint
//! `width − 65536` (`IndexInfo.Serializer.WIDTH_BASE`), bool end-open marker, [`DeletionTime`
//! of the range tombstone still open at the block's end].
//!
//! `IndexInfo` (before `ma`): first name and last name (u16 length + cell name bytes; for
//! compound tables a composite: per component u16 length, bytes, end-of-component byte), i64
//! offset, i64 width. No offsets table: block j is found by walking blocks 0…j−1.
//!
//! The promoted size covers everything after its own field. Large partitions are not
//! materialised here (CASSANDRA-11206 / CASSANDRA-12731: IndexInfo blocks are read on demand
//! through the offsets table): listing entries reads only the key, position, size and the
//! promoted header; [`IndexFile::promoted_index`] reads the header and offsets; and
//! [`IndexFile::block`] decodes one `IndexInfo`.
//!
//! Sans-I/O: an [`IndexFile`] is a window of the file (`data` starting at `base_offset`); an
//! [`IndexCursor`] steps entry by entry and answers [`IndexStep::NeedMoreBytes`] at the end of a
//! window that is not the end of the file.
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/format/big/RowIndexEntry.java`,
//! `.../io/sstable/IndexInfo.java`, `.../db/ClusteringPrefix.java` (`Serializer`,
//! `serializeValuesWithoutSize`), `.../db/DeletionTime.java`,
//! `.../format/big/BigFormatPartitionWriter.java`; cassandra-3.0 `db/RowIndexEntry.java`,
//! `io/sstable/IndexInfo.java`; cassandra-2.1/2.2 `db/RowIndexEntry.java`,
//! `io/sstable/IndexHelper.java` (old `IndexInfo`), `db/composites/CompoundSparseCellNameType`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use crate::component::common::offset_table::{offset_entry_span, offsets_node};
pub use crate::component::common::DeletionTime;
use crate::component::common::{
    ClusteringLayout, ClusteringPrefix, ClusteringPrefixBuf, ClusteringPrefixKind,
    ClusteringValueBuf, ClusteringValueState,
};
use crate::component::crc::push_warnings;
use crate::component::summary::display_key;
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;
use crate::span::{serialize_hex, serialize_spanned_hex, Node, Span, Spanned};
use crate::version::Version;

/// `IndexInfo.Serializer.WIDTH_BASE`: widths are stored as `width − 64 KiB` (signed vint).
pub const WIDTH_BASE: i64 = 64 * 1024;
/// At most this many entries / blocks / findings become children in `to_node` trees.
pub const MAX_CHILD_NODES: usize = 100;
/// At most this many order or consistency findings are listed one by one.
const MAX_LISTED_FINDINGS: usize = 32;

/// Which Index.db entry layout a version writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum IndexLayout {
    /// `jb` … `la`: i64 position, i32 promoted size, old `IndexInfo`, no offsets table.
    Legacy,
    /// `ma` and later: vint position and size, header length, offsets table.
    Current,
}

impl IndexLayout {
    pub fn for_version(version: &Version) -> IndexLayout {
        if version.has_row_format() {
            IndexLayout::Current
        } else {
            IndexLayout::Legacy
        }
    }
}

/// One entry of Index.db as listed (the promoted index is not decoded).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexEntry {
    /// The whole entry: key to the end of the promoted index.
    pub span: Span,
    /// Raw partition key bytes; the span includes the u16 length.
    #[serde(serialize_with = "serialize_spanned_hex")]
    pub key: Spanned<Vec<u8>>,
    /// Partition start in the uncompressed Data.db.
    pub position: Spanned<u64>,
    /// Bytes of the promoted index after this field (0 = none).
    pub promoted_size: Spanned<u64>,
    /// The promoted index bytes, when there is one.
    pub promoted_span: Option<Span>,
    /// Number of `IndexInfo` blocks, read from the promoted index header.
    pub block_count: Option<u32>,
}

impl IndexEntry {
    pub fn has_promoted_index(&self) -> bool {
        self.promoted_span.is_some()
    }

    fn to_node(&self, i: usize) -> Node {
        let mut children = vec![
            Node::new("key", display_key(&self.key.value), Some(self.key.span)),
            Node::new(
                "Data.db position",
                self.position.value.to_string(),
                Some(self.position.span),
            ),
            Node::new(
                "promoted index size",
                format!("{} bytes", self.promoted_size.value),
                Some(self.promoted_size.span),
            ),
        ];
        if let Some(p) = self.promoted_span {
            children.push(Node::new(
                "promoted index",
                match self.block_count {
                    Some(n) => format!("{n} IndexInfo blocks (decoded on demand)"),
                    None => "not decoded".to_owned(),
                },
                Some(p),
            ));
        }
        let blocks = match self.block_count {
            Some(n) => format!(", {n} blocks"),
            None => String::new(),
        };
        Node::new(
            format!("partition {i}"),
            format!(
                "{} → Data.db {}{blocks}",
                display_key(&self.key.value),
                self.position.value
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}

/// What one step of an [`IndexCursor`] produced.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexStep {
    Entry(IndexEntry),
    /// The window ends inside the entry (or before the next one) at absolute `offset`: supply a
    /// window starting there (or earlier) and step again.
    NeedMoreBytes {
        offset: u64,
    },
    /// The end of the file.
    End,
}

/// A window of an Index.db file: `data` holds the bytes from absolute `base_offset`.
#[derive(Debug, Clone, Copy)]
pub struct IndexFile<'a> {
    data: &'a [u8],
    base_offset: u64,
    version: Version,
}

impl<'a> IndexFile<'a> {
    /// A window of Index.db starting at absolute offset `base_offset`.
    pub fn new(data: &'a [u8], base_offset: u64, version: Version) -> Self {
        IndexFile {
            data,
            base_offset,
            version,
        }
    }

    /// The whole file.
    pub fn whole(data: &'a [u8], version: Version) -> Self {
        Self::new(data, 0, version)
    }

    pub fn version(&self) -> Version {
        self.version
    }

    pub fn layout(&self) -> IndexLayout {
        IndexLayout::for_version(&self.version)
    }

    /// The absolute range this window covers.
    pub fn window(&self) -> Span {
        Span::new(self.base_offset, self.end_offset())
    }

    fn end_offset(&self) -> u64 {
        self.base_offset.saturating_add(self.data.len() as u64)
    }

    /// A reader over `[start, end)` (absolute), which must lie inside the window.
    fn reader(&self, start: u64, end: u64) -> Result<Reader<'a>> {
        let missing = || {
            Error::new(
                ErrorKind::MissingBytes {
                    wanted_start: start,
                    wanted_end: end,
                },
                start,
            )
            .in_component(ComponentType::PrimaryIndex)
        };
        if start < self.base_offset || end > self.end_offset() || start > end {
            return Err(missing());
        }
        let lo = usize::try_from(start.saturating_sub(self.base_offset)).map_err(|_| missing())?;
        let hi = usize::try_from(end.saturating_sub(self.base_offset)).map_err(|_| missing())?;
        let bytes = self.data.get(lo..hi).ok_or_else(missing)?;
        Ok(Reader::new(bytes, start).for_component(ComponentType::PrimaryIndex))
    }

    /// A reader from absolute `start` to the end of the window.
    fn reader_from(&self, start: u64) -> Result<Reader<'a>> {
        self.reader(start, self.end_offset().max(start))
    }

    /// Steps through the entries from absolute `offset` (usually 0, or an entry start taken from
    /// Summary.db). `eof`: the window ends where the file ends.
    pub fn cursor_at(&self, offset: u64, eof: bool) -> IndexCursor<'a> {
        IndexCursor {
            file: *self,
            next: offset,
            eof,
            done: false,
        }
    }

    /// Steps through the entries from the start of the window.
    pub fn cursor(&self, eof: bool) -> IndexCursor<'a> {
        self.cursor_at(self.base_offset, eof)
    }

    /// The partition key of the entry starting at absolute `offset` (for Summary.db checks).
    pub fn key_at(&self, offset: u64) -> Result<Spanned<Vec<u8>>> {
        let mut r = self.reader_from(offset)?;
        r.spanned(|r| r.short_length_bytes("partition key").map(<[u8]>::to_vec))
    }

    /// Decodes the promoted index header and offsets table of `entry` (the window must cover
    /// the promoted index); `None` when the entry has none.
    pub fn promoted_index(&self, entry: &IndexEntry) -> Result<Option<PromotedIndex>> {
        let Some(span) = entry.promoted_span else {
            return Ok(None);
        };
        let mut r = self.reader(span.start, span.end)?;
        let mut warnings = Vec::new();
        let layout = self.layout();
        let header_length = match layout {
            IndexLayout::Current => {
                Some(r.spanned(|r| r.unsigned_vint("promoted index: header length"))?)
            }
            IndexLayout::Legacy => None,
        };
        let deletion = match layout {
            IndexLayout::Current => {
                DeletionTime::decode(&mut r, &self.version, "promoted index: partition deletion")?
            }
            IndexLayout::Legacy => {
                DeletionTime::decode_legacy(&mut r, "promoted index: partition deletion")?
            }
        };
        let count_start = r.offset();
        let count = match layout {
            IndexLayout::Current => r.unsigned_vint32("promoted index: block count")?,
            IndexLayout::Legacy => {
                let n = r.i32("promoted index: block count")?;
                u32::try_from(n).map_err(|_| {
                    r.invalid_at(
                        format!("negative block count {n}"),
                        count_start,
                        "promoted index: block count",
                    )
                })?
            }
        };
        let block_count = Spanned {
            value: count,
            span: r.span_from(count_start),
        };
        if count < 2 {
            warnings.push(format!(
                "{count} IndexInfo blocks: Cassandra only writes a promoted index for 2 or more"
            ));
        }
        let blocks_start = r.offset();
        let (offsets, offsets_span, blocks_span) = match layout {
            IndexLayout::Current => {
                let table_bytes = u64::from(count).saturating_mul(4);
                let remaining = r.remaining_bytes() as u64;
                if table_bytes > remaining {
                    return Err(r.error(
                        ErrorKind::LengthTooLarge {
                            length: table_bytes,
                            limit: remaining,
                        },
                        "promoted index: offsets table",
                    ));
                }
                let blocks_len = remaining.saturating_sub(table_bytes);
                // Each IndexInfo takes at least 5 bytes (2 kinds, offset, width, flag).
                if u64::from(count).saturating_mul(5) > blocks_len {
                    return Err(r.invalid_at(
                        format!("{count} IndexInfo blocks cannot fit in {blocks_len} bytes"),
                        count_start,
                        "promoted index: block count",
                    ));
                }
                r.skip(
                    usize::try_from(blocks_len).map_err(|_| {
                        r.invalid_at("promoted index too large", blocks_start, "promoted index")
                    })?,
                    "promoted index: IndexInfo blocks",
                )?;
                let blocks_span = r.span_from(blocks_start);
                let table_start = r.offset();
                let n = r.check_count(u64::from(count), 4, "promoted index: offsets table")?;
                let mut offsets = Vec::with_capacity(n);
                for _ in 0..n {
                    offsets.push(r.u32("promoted index: offset")?);
                }
                check_offsets(&offsets, blocks_span.len_bytes(), &mut warnings);
                (offsets, Some(r.span_from(table_start)), blocks_span)
            }
            IndexLayout::Legacy => {
                // Each old IndexInfo takes at least 2 + 2 + 16 bytes.
                let remaining = r.remaining_bytes() as u64;
                if u64::from(count).saturating_mul(20) > remaining {
                    return Err(r.invalid_at(
                        format!("{count} IndexInfo blocks cannot fit in {remaining} bytes"),
                        count_start,
                        "promoted index: block count",
                    ));
                }
                let end = span.end;
                (Vec::new(), None, Span::new(blocks_start, end))
            }
        };
        Ok(Some(PromotedIndex {
            span,
            layout,
            header_length,
            deletion,
            block_count,
            blocks_span,
            offsets,
            offsets_span,
            warnings,
        }))
    }

    /// Decodes `IndexInfo` block `j` of a promoted index. `clustering` gives the clustering
    /// columns' value lengths (`ma`+; see [`clustering_value_lengths`]); ignored before `ma`.
    pub fn block(
        &self,
        promoted: &PromotedIndex,
        j: u32,
        clustering: &[Option<u32>],
    ) -> Result<IndexInfo> {
        if j >= promoted.block_count.value {
            return Err(Error::invalid(
                format!(
                    "block {j} requested but the promoted index has {}",
                    promoted.block_count.value
                ),
                promoted.block_count.span.start,
            )
            .in_component(ComponentType::PrimaryIndex));
        }
        let blocks = promoted.blocks_span;
        match promoted.layout {
            IndexLayout::Current => {
                let idx = usize::try_from(j).unwrap_or(usize::MAX);
                let rel = promoted.offsets.get(idx).copied().ok_or_else(|| {
                    Error::invalid(format!("no offset for block {j}"), blocks.end)
                        .in_component(ComponentType::PrimaryIndex)
                })?;
                let start = blocks.start.saturating_add(u64::from(rel));
                if start >= blocks.end {
                    return Err(Error::invalid(
                        format!(
                            "offset {rel} of block {j} points past the IndexInfo blocks ({} bytes)",
                            blocks.len_bytes()
                        ),
                        promoted.offset_span(idx).map_or(blocks.end, |s| s.start),
                    )
                    .in_component(ComponentType::PrimaryIndex));
                }
                let mut r = self.reader(start, blocks.end)?;
                IndexInfo::decode_current(&mut r, j, clustering, &self.version)
            }
            IndexLayout::Legacy => {
                let mut r = self.reader(blocks.start, blocks.end)?;
                for _ in 0..j {
                    IndexInfo::skip_legacy(&mut r)?;
                }
                IndexInfo::decode_legacy(&mut r, j)
            }
        }
    }
}

/// Entry-by-entry iteration over an [`IndexFile`] window.
#[derive(Debug, Clone)]
pub struct IndexCursor<'a> {
    file: IndexFile<'a>,
    next: u64,
    eof: bool,
    done: bool,
}

impl<'a> IndexCursor<'a> {
    /// Absolute offset of the next entry.
    pub fn offset(&self) -> u64 {
        self.next
    }

    /// Decodes the next entry, or says that more bytes are needed, or that the file ended.
    /// After an error the cursor is finished.
    pub fn next_step(&mut self) -> Result<IndexStep> {
        if self.done {
            return Ok(IndexStep::End);
        }
        let end = self.file.end_offset();
        if self.next >= end {
            if self.eof && self.next == end {
                self.done = true;
                return Ok(IndexStep::End);
            }
            if self.eof {
                self.done = true;
                return Err(Error::new(
                    ErrorKind::UnexpectedEof {
                        needed_bytes: self.next.saturating_sub(end),
                        available_bytes: 0,
                    },
                    end,
                )
                .context("next index entry")
                .in_component(ComponentType::PrimaryIndex));
            }
            return Ok(IndexStep::NeedMoreBytes { offset: self.next });
        }
        let start = self.next;
        match self.read_entry(start) {
            Ok(entry) => {
                self.next = entry.span.end;
                Ok(IndexStep::Entry(entry))
            }
            Err(e) if !self.eof && is_short_read(&e) => {
                Ok(IndexStep::NeedMoreBytes { offset: start })
            }
            Err(e) => {
                self.done = true;
                Err(e)
            }
        }
    }

    fn read_entry(&self, start: u64) -> Result<IndexEntry> {
        let mut r = self.file.reader_from(start)?;
        let key = r.spanned(|r| r.short_length_bytes("partition key").map(<[u8]>::to_vec))?;
        let layout = self.file.layout();
        let pos_start = r.offset();
        let position = match layout {
            IndexLayout::Current => r.unsigned_vint("Data.db position")?,
            IndexLayout::Legacy => {
                let p = r.i64("Data.db position")?;
                u64::try_from(p).map_err(|_| {
                    r.invalid_at(
                        format!("negative Data.db position {p}"),
                        pos_start,
                        "Data.db position",
                    )
                })?
            }
        };
        let position = Spanned {
            value: position,
            span: r.span_from(pos_start),
        };
        let size_start = r.offset();
        let size = match layout {
            IndexLayout::Current => u64::from(r.unsigned_vint32("promoted index size")?),
            IndexLayout::Legacy => {
                let s = r.i32("promoted index size")?;
                u64::try_from(s).map_err(|_| {
                    r.invalid_at(
                        format!("negative promoted index size {s}"),
                        size_start,
                        "promoted index size",
                    )
                })?
            }
        };
        let promoted_size = Spanned {
            value: size,
            span: r.span_from(size_start),
        };
        let promoted_start = r.offset();
        let promoted_end = promoted_start.checked_add(size).ok_or_else(|| {
            r.invalid_at(
                "promoted index size overflows",
                size_start,
                "promoted index size",
            )
        })?;
        let available = r.remaining_bytes() as u64;
        if self.eof && size > available {
            return Err(r.error(
                ErrorKind::LengthTooLarge {
                    length: size,
                    limit: available,
                },
                "promoted index",
            ));
        }
        let (promoted_span, block_count) = if size == 0 {
            (None, None)
        } else {
            // Only the header is read; the blocks may lie beyond the window.
            let header_len = size.min(available);
            let mut h = r.sub_reader(header_len, "promoted index")?;
            let count = match read_block_count(&mut h, layout, &self.file.version) {
                Ok(n) => n,
                Err(e) if is_short_read(&e) && header_len < size => {
                    // The window was cut inside the header: a short read, not corruption.
                    return Err(e);
                }
                Err(e) if is_short_read(&e) => {
                    return Err(Error::invalid(
                        format!("promoted index of {size} bytes is shorter than its header"),
                        promoted_start,
                    )
                    .context("promoted index")
                    .in_component(ComponentType::PrimaryIndex));
                }
                Err(e) => return Err(e),
            };
            (Some(Span::new(promoted_start, promoted_end)), Some(count))
        };
        Ok(IndexEntry {
            span: Span::new(start, promoted_end),
            key,
            position,
            promoted_size,
            promoted_span,
            block_count,
        })
    }
}

impl Iterator for IndexCursor<'_> {
    type Item = Result<IndexEntry>;

    /// Entries until the end of the file; a window that ends early ends the iteration (use
    /// [`IndexCursor::next_step`] to tell that apart).
    fn next(&mut self) -> Option<Self::Item> {
        match self.next_step() {
            Ok(IndexStep::Entry(e)) => Some(Ok(e)),
            Ok(IndexStep::End | IndexStep::NeedMoreBytes { .. }) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

/// Header length (`ma`+), deletion time and block count at the start of a promoted index.
fn read_block_count(r: &mut Reader<'_>, layout: IndexLayout, version: &Version) -> Result<u32> {
    match layout {
        IndexLayout::Current => {
            r.unsigned_vint("promoted index: header length")?;
            DeletionTime::decode(r, version, "promoted index: partition deletion")?;
            r.unsigned_vint32("promoted index: block count")
        }
        IndexLayout::Legacy => {
            DeletionTime::decode_legacy(r, "promoted index: partition deletion")?;
            let start = r.offset();
            let n = r.i32("promoted index: block count")?;
            u32::try_from(n).map_err(|_| {
                r.invalid_at(
                    format!("negative block count {n}"),
                    start,
                    "promoted index: block count",
                )
            })
        }
    }
}

/// Whether an error only says that the bytes ran out.
fn is_short_read(e: &Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::UnexpectedEof { .. } | ErrorKind::LengthTooLarge { .. }
    )
}

/// Offsets must start at 0, grow, and stay inside the blocks.
fn check_offsets(offsets: &[u32], blocks_len: u64, warnings: &mut Vec<String>) {
    if let Some(&first) = offsets.first() {
        if first != 0 {
            warnings.push(format!("the first IndexInfo offset is {first}, not 0"));
        }
    }
    let mut listed = 0usize;
    for (j, pair) in offsets.windows(2).enumerate() {
        if let [a, b] = pair {
            if b <= a && listed < MAX_LISTED_FINDINGS {
                listed = listed.saturating_add(1);
                warnings.push(format!(
                    "IndexInfo offset {} ({b}) is not above offset {j} ({a})",
                    j.saturating_add(1)
                ));
            }
        }
    }
    if let Some(&last) = offsets.last() {
        if u64::from(last) >= blocks_len && blocks_len > 0 {
            warnings.push(format!(
                "the last IndexInfo offset {last} is past the {blocks_len} bytes of blocks"
            ));
        }
    }
}

/// The decoded header and offsets table of one promoted index (`RowIndexEntry.IndexedEntry` /
/// `ShallowIndexedEntry`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromotedIndex {
    /// Everything after the promoted-size field.
    pub span: Span,
    pub layout: IndexLayout,
    /// Bytes of key + deletion + static row at the start of the partition in Data.db (`ma`+).
    pub header_length: Option<Spanned<u64>>,
    pub deletion: DeletionTime,
    pub block_count: Spanned<u32>,
    /// The serialized `IndexInfo` blocks.
    pub blocks_span: Span,
    /// Offset of each block from the first (`ma`+; empty before).
    pub offsets: Vec<u32>,
    pub offsets_span: Option<Span>,
    /// Suspicious values (decoding went on).
    pub warnings: Vec<String>,
}

impl PromotedIndex {
    /// The bytes of offset `i` in the offsets table.
    pub fn offset_span(&self, i: usize) -> Option<Span> {
        offset_entry_span(self.offsets_span?, self.offsets.len(), i)
    }

    pub fn to_node(&self) -> Node {
        let mut children = Vec::new();
        if let Some(h) = &self.header_length {
            children.push(Node::new(
                "header length",
                format!("{} bytes (key, deletion, static row in Data.db)", h.value),
                Some(h.span),
            ));
        }
        children.push(self.deletion.to_node("partition deletion"));
        children.push(Node::new(
            "block count",
            self.block_count.value.to_string(),
            Some(self.block_count.span),
        ));
        children.push(Node::new(
            "IndexInfo blocks",
            format!("{} bytes (decoded on demand)", self.blocks_span.len_bytes()),
            Some(self.blocks_span),
        ));
        if let Some(table) = self.offsets_span {
            children.push(offsets_node(&self.offsets, table, "i32", MAX_CHILD_NODES));
        }
        push_warnings(&mut children, &self.warnings);
        Node::new(
            "promoted index",
            format!(
                "{} blocks, {}",
                self.block_count.value,
                self.deletion.display()
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}

/// A clustering value for display: `empty`, `null`, or the bytes (see [`display_value`]).
fn value_display(v: &ClusteringValueBuf) -> String {
    match v.state {
        ClusteringValueState::Present => display_value(&v.bytes),
        ClusteringValueState::Empty => "empty".to_owned(),
        ClusteringValueState::Null => "null".to_owned(),
    }
}

/// `KIND [v0, v1, …]`.
fn prefix_display(c: &ClusteringPrefixBuf) -> String {
    let values: Vec<String> = c.values.iter().map(value_display).collect();
    format!("{} [{}]", c.kind.name(), values.join(", "))
}

/// A value for display: printable ASCII as quoted text (long values cut, with their length),
/// anything else as hex.
fn display_value(bytes: &[u8]) -> String {
    const MAX_SHOWN_CHARS: usize = 40;
    let printable = !bytes.is_empty() && bytes.iter().all(|b| (0x20..0x7f).contains(b));
    if printable && bytes.len() > MAX_SHOWN_CHARS {
        let head = String::from_utf8_lossy(bytes.get(..MAX_SHOWN_CHARS).unwrap_or(bytes));
        return format!("\"{head}…\" ({} bytes)", bytes.len());
    }
    display_key(bytes)
}

/// One component of a pre-3.0 composite cell name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompositeComponent {
    #[serde(serialize_with = "serialize_hex")]
    pub value: Vec<u8>,
    /// The end-of-component byte (0, or −1/1 in slice bounds).
    pub end_of_component: u8,
    pub span: Span,
}

/// A pre-3.0 cell name in an old `IndexInfo` (`jb` … `la`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegacyCellName {
    /// Length prefix and bytes.
    pub span: Span,
    #[serde(serialize_with = "serialize_hex")]
    pub bytes: Vec<u8>,
    /// The composite components, when the name parses as a composite (compound tables); `None`
    /// for simple (non-compound) names.
    pub components: Option<Vec<CompositeComponent>>,
}

impl LegacyCellName {
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self> {
        let start = r.offset();
        let bytes = r.short_length_bytes(what)?;
        let name_start = start.saturating_add(2);
        let components = parse_composite(bytes, name_start);
        Ok(LegacyCellName {
            span: r.span_from(start),
            bytes: bytes.to_vec(),
            components,
        })
    }

    fn display(&self) -> String {
        match &self.components {
            Some(cs) => {
                let parts: Vec<String> = cs.iter().map(|c| display_value(&c.value)).collect();
                format!("composite [{}]", parts.join(", "))
            }
            None => display_value(&self.bytes),
        }
    }
}

/// Splits a composite (`CompositeType`) name: per component u16 length, bytes, end-of-component
/// byte, consuming all bytes exactly; `None` when the bytes are not shaped like that.
fn parse_composite(bytes: &[u8], base: u64) -> Option<Vec<CompositeComponent>> {
    if bytes.is_empty() {
        return None;
    }
    let mut r = Reader::new(bytes, base);
    let mut out = Vec::new();
    while !r.is_empty() {
        let start = r.offset();
        let value = r.short_length_bytes("composite component").ok()?.to_vec();
        let eoc = r.u8("end of component").ok()?;
        out.push(CompositeComponent {
            value,
            end_of_component: eoc,
            span: r.span_from(start),
        });
    }
    Some(out)
}

/// The first or last name of an `IndexInfo` block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum IndexName {
    /// `ma`+.
    Clustering(ClusteringPrefixBuf),
    /// `jb` … `la`.
    Legacy(LegacyCellName),
}

impl IndexName {
    pub fn span(&self) -> Span {
        match self {
            IndexName::Clustering(c) => c.span,
            IndexName::Legacy(l) => l.span,
        }
    }

    /// The first clustering value (`ma`+), or the first composite component / the whole name.
    pub fn first_value(&self) -> Option<&[u8]> {
        match self {
            IndexName::Clustering(c) => c.first_value(),
            IndexName::Legacy(l) => match &l.components {
                Some(cs) => cs.first().map(|c| c.value.as_slice()),
                None => Some(l.bytes.as_slice()),
            },
        }
    }

    /// The `ClusteringPrefix.Kind` (`ma`+).
    pub fn kind(&self) -> Option<ClusteringPrefixKind> {
        match self {
            IndexName::Clustering(c) => Some(c.kind),
            IndexName::Legacy(_) => None,
        }
    }

    pub fn display(&self) -> String {
        match self {
            IndexName::Clustering(c) => prefix_display(c),
            IndexName::Legacy(l) => l.display(),
        }
    }
}

/// One row-index block of a partition (`IndexInfo`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexInfo {
    pub span: Span,
    /// Block number j within the promoted index.
    pub index: u32,
    pub first_name: IndexName,
    pub last_name: IndexName,
    /// Block start, relative to the partition start in Data.db.
    pub offset: Spanned<u64>,
    /// Block length in Data.db.
    pub width: Spanned<u64>,
    /// The stored signed vint, `width − 65536` (`ma`+).
    pub width_delta: Option<i64>,
    /// Whether a range tombstone is open at the block's end (`ma`+).
    pub has_end_open_marker: Option<Spanned<bool>>,
    pub end_open_marker: Option<DeletionTime>,
}

impl IndexInfo {
    fn decode_current(
        r: &mut Reader<'_>,
        index: u32,
        lengths: &[Option<u32>],
        version: &Version,
    ) -> Result<Self> {
        let start = r.offset();
        let layout = ClusteringLayout::new(lengths);
        let first_name =
            ClusteringPrefix::read_prefix(r, layout, "IndexInfo: first clustering")?.to_owned();
        let last_name =
            ClusteringPrefix::read_prefix(r, layout, "IndexInfo: last clustering")?.to_owned();
        let offset = r.spanned(|r| r.unsigned_vint("IndexInfo: offset"))?;
        let width_start = r.offset();
        let delta = r.signed_vint("IndexInfo: width")?;
        let width = delta.wrapping_add(WIDTH_BASE);
        let width = u64::try_from(width).map_err(|_| {
            r.invalid_at(
                format!("negative block width {width}"),
                width_start,
                "IndexInfo: width",
            )
        })?;
        let width = Spanned {
            value: width,
            span: r.span_from(width_start),
        };
        let has_marker = r.spanned(|r| r.bool("IndexInfo: end open marker flag"))?;
        let end_open_marker = if has_marker.value {
            Some(DeletionTime::decode(
                r,
                version,
                "IndexInfo: end open marker",
            )?)
        } else {
            None
        };
        Ok(IndexInfo {
            span: r.span_from(start),
            index,
            first_name: IndexName::Clustering(first_name),
            last_name: IndexName::Clustering(last_name),
            offset,
            width,
            width_delta: Some(delta),
            has_end_open_marker: Some(has_marker),
            end_open_marker,
        })
    }

    fn decode_legacy(r: &mut Reader<'_>, index: u32) -> Result<Self> {
        let start = r.offset();
        let first_name = LegacyCellName::decode(r, "IndexInfo: first name")?;
        let last_name = LegacyCellName::decode(r, "IndexInfo: last name")?;
        let offset = r.spanned(|r| r.i64("IndexInfo: offset"))?;
        let width = r.spanned(|r| r.i64("IndexInfo: width"))?;
        let offset = Spanned {
            value: u64::try_from(offset.value).map_err(|_| {
                r.invalid_at(
                    format!("negative block offset {}", offset.value),
                    offset.span.start,
                    "IndexInfo: offset",
                )
            })?,
            span: offset.span,
        };
        let width = Spanned {
            value: u64::try_from(width.value).map_err(|_| {
                r.invalid_at(
                    format!("negative block width {}", width.value),
                    width.span.start,
                    "IndexInfo: width",
                )
            })?,
            span: width.span,
        };
        Ok(IndexInfo {
            span: r.span_from(start),
            index,
            first_name: IndexName::Legacy(first_name),
            last_name: IndexName::Legacy(last_name),
            offset,
            width,
            width_delta: None,
            has_end_open_marker: None,
            end_open_marker: None,
        })
    }

    fn skip_legacy(r: &mut Reader<'_>) -> Result<()> {
        r.short_length_bytes("IndexInfo: first name")?;
        r.short_length_bytes("IndexInfo: last name")?;
        r.skip(16, "IndexInfo: offset and width")
    }

    pub fn to_node(&self) -> Node {
        let mut children = vec![
            Node::new(
                "first",
                self.first_name.display(),
                Some(self.first_name.span()),
            ),
            Node::new(
                "last",
                self.last_name.display(),
                Some(self.last_name.span()),
            ),
            Node::new(
                "offset",
                format!("{} (from the partition start)", self.offset.value),
                Some(self.offset.span),
            ),
            Node::new(
                "width",
                match self.width_delta {
                    Some(d) => format!("{} bytes (stored as {d} + 65536)", self.width.value),
                    None => format!("{} bytes", self.width.value),
                },
                Some(self.width.span),
            ),
        ];
        if let Some(flag) = &self.has_end_open_marker {
            children.push(Node::new(
                "end open marker",
                flag.value.to_string(),
                Some(flag.span),
            ));
        }
        if let Some(d) = &self.end_open_marker {
            children.push(d.to_node("open range tombstone"));
        }
        Node::new(
            format!("IndexInfo {}", self.index),
            format!(
                "{} … {}, offset {}, width {}",
                self.first_name.display(),
                self.last_name.display(),
                self.offset.value,
                self.width.value
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}

/// The value lengths of clustering columns for [`IndexFile::block`]: `Some(n)` for fixed-length
/// types, `None` for vint-length ones (`AbstractType.valueLengthIfFixed`).
pub use crate::component::common::fixed_value_lengths as clustering_value_lengths;

/// Why decoding a whole Index.db stopped early.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecodeStop {
    pub offset: u64,
    pub message: String,
}

/// A listed Index.db: every entry (without its `IndexInfo` blocks).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrimaryIndex {
    /// The bytes this listing covers.
    pub span: Span,
    pub version: Version,
    pub layout: IndexLayout,
    pub entries: Vec<IndexEntry>,
    /// Entries with a promoted index.
    pub promoted_count: usize,
    /// Set by [`decode_partial`] when an entry could not be decoded.
    pub stopped: Option<DecodeStop>,
    /// Suspicious values (decoding went on).
    pub warnings: Vec<String>,
}

/// Lists a whole Index.db; fails on the first undecodable entry.
pub fn decode(bytes: &[u8], version: &Version) -> Result<PrimaryIndex> {
    let (index, error) = decode_partial(bytes, version);
    match error {
        Some(e) => Err(e),
        None => Ok(index),
    }
}

/// Lists a whole Index.db, keeping the entries before an undecodable one.
pub fn decode_partial(bytes: &[u8], version: &Version) -> (PrimaryIndex, Option<Error>) {
    let file = IndexFile::whole(bytes, *version);
    let mut cursor = file.cursor(true);
    let mut entries = Vec::new();
    let mut error = None;
    loop {
        match cursor.next_step() {
            Ok(IndexStep::Entry(e)) => entries.push(e),
            Ok(IndexStep::End | IndexStep::NeedMoreBytes { .. }) => break,
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let warnings = position_warnings(&entries);
    let promoted_count = entries.iter().filter(|e| e.has_promoted_index()).count();
    let stopped = error.as_ref().map(|e| DecodeStop {
        offset: e.offset(),
        message: e.message(),
    });
    let end = entries.last().map_or(0, |e| e.span.end);
    (
        PrimaryIndex {
            span: Span::new(
                0,
                if error.is_some() {
                    end
                } else {
                    bytes.len() as u64
                },
            ),
            version: *version,
            layout: IndexLayout::for_version(version),
            entries,
            promoted_count,
            stopped,
            warnings,
        },
        error,
    )
}

/// Data.db positions must grow from entry to entry; the first is normally 0.
fn position_warnings(entries: &[IndexEntry]) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(first) = entries.first() {
        if first.position.value != 0 {
            warnings.push(format!(
                "the first partition starts at Data.db {}, not 0",
                first.position.value
            ));
        }
    }
    let mut bad = 0usize;
    for (i, pair) in entries.windows(2).enumerate() {
        if let [a, b] = pair {
            if b.position.value <= a.position.value {
                bad = bad.saturating_add(1);
                if bad <= MAX_LISTED_FINDINGS {
                    warnings.push(format!(
                        "partition {}: Data.db position {} is not above the previous {}",
                        i.saturating_add(1),
                        b.position.value,
                        a.position.value
                    ));
                }
            }
        }
    }
    if bad > MAX_LISTED_FINDINGS {
        warnings.push(format!(
            "… and {} more positions out of order",
            bad.saturating_sub(MAX_LISTED_FINDINGS)
        ));
    }
    warnings
}

impl PrimaryIndex {
    /// The partition keys, in file order.
    pub fn keys(&self) -> impl Iterator<Item = &[u8]> {
        self.entries.iter().map(|e| e.key.value.as_slice())
    }

    pub fn to_node(&self) -> Node {
        let mut nodes: Vec<Node> = self
            .entries
            .iter()
            .enumerate()
            .take(MAX_CHILD_NODES)
            .map(|(i, e)| e.to_node(i))
            .collect();
        if self.entries.len() > MAX_CHILD_NODES {
            let hidden = self
                .entries
                .get(MAX_CHILD_NODES)
                .zip(self.entries.last())
                .map(|(a, b)| Span::new(a.span.start, b.span.end));
            nodes.push(Node::new(
                "…",
                format!(
                    "{} more partitions",
                    self.entries.len().saturating_sub(MAX_CHILD_NODES)
                ),
                hidden,
            ));
        }
        let mut children = vec![Node::new(
            "partitions",
            format!(
                "{} ({} with a promoted index)",
                self.entries.len(),
                self.promoted_count
            ),
            Some(self.span),
        )
        .with_children(nodes)];
        if let Some(s) = &self.stopped {
            children.push(Node::new(
                "decoding stopped",
                s.message.clone(),
                Some(Span::new(s.offset, s.offset.saturating_add(1))),
            ));
        }
        push_warnings(&mut children, &self.warnings);
        let range = match (self.entries.first(), self.entries.last()) {
            (Some(a), Some(b)) => format!(
                ", keys {} … {}",
                display_key(&a.key.value),
                display_key(&b.key.value)
            ),
            _ => String::new(),
        };
        Node::new(
            "Index.db",
            format!(
                "{} partitions ({} layout){range}",
                self.entries.len(),
                match self.layout {
                    IndexLayout::Legacy => "pre-3.0",
                    IndexLayout::Current => "3.0+",
                }
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::test_support::{big, Out};

    /// A `nb` entry with a two-block promoted index over one int clustering column.
    fn nb_entry(key: &[u8], position: u8) -> Vec<u8> {
        let mut blocks = Vec::new();
        let mut offsets = Vec::new();
        for (first, last, off) in [(1u32, 5u32, 4u8), (6, 9, 40)] {
            offsets.push(blocks.len() as u32);
            blocks.push(ClusteringPrefixKind::Clustering.ordinal());
            blocks.push(0); // header
            blocks.extend_from_slice(&first.to_be_bytes());
            blocks.push(ClusteringPrefixKind::Clustering.ordinal());
            blocks.push(0);
            blocks.extend_from_slice(&last.to_be_bytes());
            blocks.push(off);
            // width 36 → delta 36 − 65536 = −65500 → zigzag 130999 = 0x1ffb7 → `c1 ff b7`.
            blocks.extend_from_slice(&[0xc1, 0xff, 0xb7]);
            blocks.push(0);
        }
        let mut promoted = vec![15]; // header length
        promoted.extend_from_slice(&0x7fff_ffffu32.to_be_bytes());
        promoted.extend_from_slice(&i64::MIN.to_be_bytes());
        promoted.push(2);
        promoted.extend_from_slice(&blocks);
        for o in offsets {
            promoted.extend_from_slice(&o.to_be_bytes());
        }
        let mut out = Vec::new();
        out.short_length_bytes(key, "key").unwrap();
        out.push(position);
        out.push(promoted.len() as u8);
        out.extend_from_slice(&promoted);
        out
    }

    #[test]
    fn current_layout_entries_and_blocks() {
        let mut bytes = nb_entry(b"k1", 0);
        let second = bytes.len() as u64;
        bytes.short_length_bytes(b"k2", "key").unwrap();
        bytes.extend_from_slice(&[77, 0]);
        let idx = decode(&bytes, &big("nb")).unwrap();
        assert_eq!(idx.entries.len(), 2);
        assert!(idx.warnings.is_empty(), "{:?}", idx.warnings);
        let e = &idx.entries[0];
        assert_eq!(e.key.value, b"k1");
        assert_eq!(e.block_count, Some(2));
        assert_eq!(e.span.end, second);
        assert_eq!(idx.entries[1].position.value, 77);
        assert!(!idx.entries[1].has_promoted_index());

        let file = IndexFile::whole(&bytes, big("nb"));
        let p = file.promoted_index(e).unwrap().unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.header_length.as_ref().unwrap().value, 15);
        assert!(p.deletion.is_live());
        assert_eq!(p.offsets, [0, 17]);
        let b1 = file.block(&p, 1, &[Some(4)]).unwrap();
        assert_eq!(b1.first_name.first_value(), Some(&6u32.to_be_bytes()[..]));
        assert_eq!(b1.last_name.kind(), Some(ClusteringPrefixKind::Clustering));
        assert_eq!(b1.first_name.display(), "CLUSTERING [0x00000006]");
        assert_eq!(b1.offset.value, 40);
        assert_eq!(b1.width.value, 36);
        assert_eq!(b1.width_delta, Some(36 - 65536));
        assert!(b1.end_open_marker.is_none());
        assert!(file.block(&p, 2, &[Some(4)]).is_err());
        let _ = idx.to_node();
        let _ = p.to_node();
        let _ = b1.to_node();
    }

    #[test]
    fn cursor_asks_for_more_bytes_at_the_end_of_a_window() {
        let mut bytes = nb_entry(b"k1", 0);
        let second = bytes.len();
        bytes.short_length_bytes(b"k2", "key").unwrap();
        bytes.extend_from_slice(&[77, 0]);
        // A window that stops inside the second entry.
        let window = IndexFile::new(&bytes[..second + 3], 0, big("nb"));
        let mut c = window.cursor(false);
        assert!(matches!(c.next_step().unwrap(), IndexStep::Entry(_)));
        assert_eq!(
            c.next_step().unwrap(),
            IndexStep::NeedMoreBytes {
                offset: second as u64
            }
        );
        // The rest, as a window with its base offset.
        let rest = IndexFile::new(&bytes[second..], second as u64, big("nb"));
        let mut c = rest.cursor(true);
        let IndexStep::Entry(e) = c.next_step().unwrap() else {
            panic!("no entry")
        };
        assert_eq!(e.key.span, Span::new(second as u64, second as u64 + 4));
        assert_eq!(c.next_step().unwrap(), IndexStep::End);
        // The same truncation at the end of the file is an error.
        assert!(decode(&bytes[..second + 3], &big("nb")).is_err());
    }

    #[test]
    fn composite_names() {
        let mut name = Vec::new();
        name.short_length_bytes(b"ab", "key").unwrap();
        name.push(0);
        name.short_length_bytes(b"", "key").unwrap();
        name.push(0);
        let cs = parse_composite(&name, 10).unwrap();
        assert_eq!(cs.len(), 2);
        assert_eq!(cs[0].value, b"ab");
        assert_eq!(cs[0].span, Span::new(10, 15));
        assert!(parse_composite(b"\x00\x05ab", 0).is_none());
        assert_eq!(
            display_value(&[b'a'; 50]),
            format!("\"{}…\" (50 bytes)", "a".repeat(40))
        );
        assert_eq!(display_value(b"ab"), "\"ab\"");
    }
}
