//! What the [`Verifier`] asks for next and where supplied bytes go: the byte-range
//! protocol, progress and buffering.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::{Failure, FindingKind, Layout, Progress, Verifier, CHUNK_CHECKSUM_BYTES};
use crate::clock::Clock;
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind};
use crate::range::{ByteRange, RangeReader};

impl Verifier {
    /// The next Data.db byte range to supply; `None` when all of Data.db has been supplied.
    pub(super) fn next_data_read(&self) -> Option<ByteRange> {
        if self.pos >= self.range_end {
            return None;
        }
        let budget = self.options.read_size_bytes.max(1);
        let limit = self.pos.saturating_add(budget).min(self.range_end);
        let end = match &self.layout {
            Layout::Compressed(p) => {
                // The last chunk boundary in (pos, limit], so that chunks arrive whole; when the
                // next chunk alone is longer than the budget, that chunk if it is of a sane size.
                let first = self
                    .partial
                    .as_ref()
                    .map_or(self.next_chunk, |c| c.index.saturating_add(1));
                let boundaries = p
                    .offsets
                    .iter()
                    .skip(first)
                    .copied()
                    .chain(core::iter::once(self.range_end))
                    .skip_while(|&off| off <= self.pos);
                let mut best = None;
                let mut next_boundary = None;
                for off in boundaries {
                    next_boundary.get_or_insert(off);
                    if off > limit {
                        break;
                    }
                    best = Some(off);
                }
                let whole_chunk = next_boundary.filter(|&b| {
                    b <= self.range_end
                        && b.saturating_sub(self.pos)
                            <= p.stored_limit_bytes.saturating_add(CHUNK_CHECKSUM_BYTES)
                });
                best.or(whole_chunk).unwrap_or(limit)
            }
            Layout::Crc(p) => {
                let aligned = limit
                    .checked_div(p.chunk_size)
                    .map_or(limit, |n| n.saturating_mul(p.chunk_size));
                if limit == self.range_end || aligned <= self.pos {
                    limit
                } else {
                    aligned
                }
            }
            Layout::Plain => limit,
        };
        Some(ByteRange::new(
            ComponentType::Data,
            self.pos,
            end.saturating_sub(self.pos),
        ))
    }

    /// Hands over Data.db bytes `[offset, offset + bytes.len())`. `offset` must be where the
    /// previous supply ended (0 at first); any non-empty length up to the end of the file is
    /// accepted, though `next_read`'s ranges keep chunks whole.
    pub(super) fn supply_data(
        &mut self,
        offset: u64,
        bytes: &[u8],
        clock: &dyn Clock,
    ) -> crate::Result<()> {
        let len = bytes.len() as u64;
        let fits = offset
            .checked_add(len)
            .is_some_and(|end| end <= self.range_end);
        if offset != self.pos || len == 0 || !fits {
            let want =
                self.next_data_read()
                    .unwrap_or(ByteRange::new(ComponentType::Data, self.pos, 0));
            return Err(Error::new(
                ErrorKind::MissingBytes {
                    wanted_start: want.offset,
                    wanted_end: want.end(),
                },
                offset,
            )
            .in_component(ComponentType::Data)
            .context("bytes supplied for verification"));
        }
        if let Some(d) = self.digest.as_mut().filter(|d| !d.combine) {
            let t = clock.now_nanos();
            d.update(bytes);
            self.digest_time.add(t, clock, len);
        }
        let mut rest = bytes;
        while !rest.is_empty() {
            let used = match self.layout {
                Layout::Compressed(_) => self.step_compressed(rest, clock),
                Layout::Crc(_) => self.step_crc(rest, clock),
                Layout::Plain => {
                    self.digest_only(rest, clock);
                    rest.len()
                }
            };
            // Every step consumes at least one byte.
            let used = used.clamp(1, rest.len());
            rest = rest.get(used..).unwrap_or_default();
            self.pos = self.pos.saturating_add(used as u64);
        }
        self.max_buffered = self.max_buffered.max(self.buffered_bytes());
        Ok(())
    }

    /// Bytes done and total.
    pub fn progress(&self) -> Progress {
        let start = self.split.map_or(0, |s| s.start);
        Progress {
            done_bytes: self.pos.saturating_sub(start),
            total_bytes: self.range_end.saturating_sub(start),
        }
    }

    /// Whether all of Data.db (or of its [`DataSplit`]) has been supplied.
    pub fn is_done(&self) -> bool {
        self.pos >= self.range_end
    }

    /// Bytes the verifier holds now: a split chunk kept for decompression and the decompression
    /// buffer (not the chunk offsets or CRC.db values it was given).
    pub fn buffered_bytes(&self) -> usize {
        self.carry.capacity().saturating_add(self.out.capacity())
    }

    /// The most [`Verifier::buffered_bytes`] held after any supply.
    pub fn max_buffered_bytes(&self) -> usize {
        self.max_buffered
    }

    /// Bytes hashed into the whole-file digest only (outside any chunk, chunk checksums).
    pub(super) fn digest_only(&mut self, bytes: &[u8], clock: &dyn Clock) {
        if let Some(d) = self.digest.as_mut().filter(|d| d.combine) {
            let t = clock.now_nanos();
            d.update(bytes);
            self.digest_time.add(t, clock, bytes.len() as u64);
        }
    }
}

impl Verifier {
    /// The uncompressed Data.db bytes a failure concerns, when it is about one chunk or slice.
    pub(crate) fn failure_data_range(&self, f: &Failure) -> Option<(u64, u64)> {
        match (&self.layout, f.kind) {
            (
                Layout::Compressed(p),
                FindingKind::Chunk | FindingKind::Truncated | FindingKind::Decompress,
            ) => {
                let i = usize::try_from(f.chunk?).ok()?;
                let range = p.uncompressed_range(i);
                (range.0 < range.1).then_some(range)
            }
            (Layout::Crc(_), FindingKind::CrcDb | FindingKind::Truncated) => {
                let end = f.offset.saturating_add(f.length).min(self.file_len);
                (f.offset < end).then_some((f.offset, end))
            }
            _ => None,
        }
    }

    /// The uncompressed length of the data (CompressionInfo's, or the file's).
    pub(crate) fn data_len_bytes(&self) -> u64 {
        match &self.layout {
            Layout::Compressed(p) => p.data_len,
            _ => self.file_len,
        }
    }
}

/// Data.db through the byte-range protocol: all of it, once, in order.
impl RangeReader for Verifier {
    fn next_read(&self) -> Option<ByteRange> {
        self.next_data_read()
    }

    /// A short read (Data.db shorter than it was when measured) verifies what came and fails.
    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> crate::Result<()> {
        let want = usize::try_from(range.len).unwrap_or(usize::MAX);
        let part = bytes.get(..want).unwrap_or(bytes);
        self.supply_data(range.offset, part, clock)?;
        if (part.len() as u64) < range.len {
            return Err(range.short_read(part.len() as u64));
        }
        Ok(())
    }
}
