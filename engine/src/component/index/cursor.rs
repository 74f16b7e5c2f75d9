//! A window of Index.db ([`IndexFile`]) and the cursor that steps it entry by entry
//! ([`IndexCursor`]), answering [`IndexStep::NeedMoreBytes`] at a window's end; the promoted
//! index header and one `IndexInfo` block read on demand.
//!
//! Src: `.../io/sstable/format/big/RowIndexEntry.java` (`Serializer`, `ShallowIndexedEntry`),
//! `.../io/sstable/IndexInfo.java`.

use crate::component::common::count::{read_int_count, read_non_negative_long};
use crate::component::common::DeletionTime;
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;
use crate::span::{Span, Spanned};
use crate::version::Version;

use super::promoted::{IndexInfo, PromotedIndex};
use super::{IndexEntry, IndexLayout, IndexStep, MAX_LISTED_FINDINGS};

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
        let block_count = match layout {
            IndexLayout::Current => {
                r.spanned(|r| r.unsigned_vint32("promoted index: block count"))?
            }
            IndexLayout::Legacy => {
                read_int_count(&mut r, "promoted index: block count", "block count")?
            }
        };
        let (count, count_start) = (block_count.value, block_count.span.start);
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
    /// columns' value lengths (`ma`+; see
    /// [`clustering_value_lengths`](super::clustering_value_lengths)); ignored before `ma`.
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
        let position = match layout {
            IndexLayout::Current => r.spanned(|r| r.unsigned_vint("Data.db position"))?,
            IndexLayout::Legacy => {
                read_non_negative_long(&mut r, "Data.db position", "Data.db position")?
            }
        };
        let size = match layout {
            IndexLayout::Current => r.spanned(|r| r.unsigned_vint32("promoted index size"))?,
            IndexLayout::Legacy => {
                read_int_count(&mut r, "promoted index size", "promoted index size")?
            }
        };
        let promoted_size = Spanned {
            value: u64::from(size.value),
            span: size.span,
        };
        let (size, size_start) = (promoted_size.value, promoted_size.span.start);
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
            Ok(read_int_count(r, "promoted index: block count", "block count")?.value)
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
