//! One Data.db verified in parts, one part per worker, and the parts combined without a second
//! pass.
//!
//! | step | where | what |
//! |---|---|---|
//! | [`Verifier::splits`] | coordinator | ranges of whole compressed chunks (CompressionInfo.db offsets), or of whole CRC.db slices |
//! | [`Verifier::for_split`] | each worker | the chunks of one range: their checksums (and decompression), and the range's digest checksum |
//! | [`Verifier::absorb_splits`] | coordinator | failures and counts added up, range checksums appended (`crc32_combine`, Adler32 combination), then the end-of-file checks and the digest comparison of [`Verifier::finish`] |
//!
//! Not split (one part): a SHA-1 digest (a hash that cannot be appended), a chunk table whose
//! offsets do not increase, an uncompressed Data.db without CRC.db, a file shorter than two
//! parts of the minimum size.
//!
//! Src: `io/compress/CompressionMetadata.java` (chunk offsets), `io/util/DataIntegrityMetadata.java`
//! (CRC.db slices); the combination is zlib's `crc32_combine` / `adler32_combine`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::{Deserialize, Serialize};

use super::report::{Check, MAX_LISTED_FAILURES};
use super::running_checksum::Running;
use super::{DigestState, Layout, Timer, Verifier};
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind};

/// One part of Data.db: whole compressed chunks (or CRC.db slices) `first_chunk..end_chunk`,
/// bytes `start..end` (the first part starts at 0, the last ends at the end of the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataSplit {
    /// Its place among the parts, from 0.
    pub index: u64,
    pub start: u64,
    pub end: u64,
    pub first_chunk: u64,
    pub end_chunk: u64,
}

impl DataSplit {
    pub fn len_bytes(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }
}

/// A checksum of a run of bytes that can be appended to another: its value and the bytes it
/// covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeChecksum {
    pub value: u32,
    pub len_bytes: u64,
}

/// What a worker found in one [`DataSplit`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitOutcome {
    pub split: DataSplit,
    /// Bytes of the part verified: all of them unless it stopped early.
    pub verified_bytes: u64,
    pub chunk: Option<Check>,
    pub crc_db: Option<Check>,
    pub decompress: Option<Check>,
    /// The part's bytes under the whole-file digest's algorithm (CRC32 `ma`+, Adler32 `ka`/`la`);
    /// `None` without a Digest component.
    pub digest: Option<RangeChecksum>,
    /// The next compressed chunk or CRC.db slice after the part.
    pub next_chunk: u64,
    /// The first slice past the end of CRC.db, and its offset.
    pub first_unlisted_chunk: Option<(u64, u64)>,
    pub checksum_nanos: u64,
    pub checksum_bytes: u64,
    pub decompress_nanos: u64,
    pub decompress_bytes: u64,
    pub digest_nanos: u64,
    pub digest_bytes: u64,
    pub max_buffered_bytes: u64,
}

fn bad_split(message: String, offset: u64) -> Error {
    Error::invalid(message, offset).in_component(ComponentType::Data)
}

impl Verifier {
    /// Where compressed chunk (or CRC.db slice) `chunk` starts in Data.db.
    fn chunk_offset(&self, chunk: u64) -> Option<u64> {
        match &self.layout {
            Layout::Compressed(p) => usize::try_from(chunk)
                .ok()
                .and_then(|i| p.offsets.get(i).copied()),
            Layout::Crc(p) => Some(chunk.checked_mul(p.chunk_size)?.min(self.file_len)),
            Layout::Plain => None,
        }
    }

    /// Whether Data.db can be verified in parts (see the module docs).
    fn splittable(&self) -> bool {
        if self.split.is_some() || self.pos != 0 {
            return false;
        }
        if self
            .digest
            .as_ref()
            .is_some_and(|d| matches!(d.state, DigestState::Sha1(_)))
        {
            return false;
        }
        match &self.layout {
            Layout::Compressed(p) => {
                p.offsets.windows(2).all(|w| w.first() < w.get(1))
                    && p.offsets.last().is_some_and(|&last| last < self.file_len)
            }
            Layout::Crc(p) => p.chunk_size > 0,
            Layout::Plain => false,
        }
    }

    /// Up to `parts` parts of at least `min_bytes` each, in file order, covering all of Data.db;
    /// one part (all of it) when it cannot or need not be split.
    pub fn splits(&self, parts: usize, min_bytes: u64) -> Vec<DataSplit> {
        let file_len = self.file_len;
        let by_size = usize::try_from(file_len.checked_div(min_bytes.max(1)).unwrap_or(0))
            .unwrap_or(usize::MAX);
        let chunks = match &self.layout {
            Layout::Compressed(p) => p.offsets.len() as u64,
            Layout::Crc(p) => file_len.div_ceil(p.chunk_size.max(1)),
            Layout::Plain => 0,
        };
        let parts = parts
            .min(by_size)
            .min(usize::try_from(chunks).unwrap_or(usize::MAX))
            .max(1);
        let whole = DataSplit {
            index: 0,
            start: 0,
            end: file_len,
            first_chunk: 0,
            end_chunk: chunks,
        };
        if parts < 2 || !self.splittable() {
            return vec![whole];
        }
        // The first chunk of each part after the first: the first chunk starting at or past
        // j/parts of the file.
        let mut firsts: Vec<u64> = Vec::new();
        let one_chunk_a_part = parts as u64 >= chunks;
        if one_chunk_a_part {
            firsts.extend(1..chunks);
        }
        for j in (1..parts).filter(|_| !one_chunk_a_part) {
            let target = u128::from(file_len)
                .saturating_mul(j as u128)
                .checked_div(parts as u128)
                .unwrap_or(0);
            let target = u64::try_from(target).unwrap_or(file_len);
            let first = match &self.layout {
                Layout::Compressed(p) => p.offsets.partition_point(|&o| o < target) as u64,
                Layout::Crc(p) => target.div_ceil(p.chunk_size.max(1)),
                Layout::Plain => 0,
            };
            if first > firsts.last().copied().unwrap_or(0) && first < chunks {
                firsts.push(first);
            }
        }
        let start_of = |chunk: u64| self.chunk_offset(chunk).unwrap_or(file_len);
        let mut out = Vec::with_capacity(firsts.len().saturating_add(1));
        let mut first_chunk = 0;
        let mut start = 0;
        for (index, end_chunk) in firsts
            .into_iter()
            .chain(core::iter::once(chunks))
            .enumerate()
        {
            let end = if end_chunk >= chunks {
                file_len
            } else {
                start_of(end_chunk)
            };
            out.push(DataSplit {
                index: index as u64,
                start,
                end,
                first_chunk,
                end_chunk,
            });
            first_chunk = end_chunk;
            start = end;
        }
        out
    }

    /// This verifier restricted to one part of Data.db (one of [`Verifier::splits`]): it asks
    /// for that part's bytes only, and [`Verifier::split_outcome`] gives what it found.
    pub fn for_split(mut self, split: DataSplit) -> crate::Result<Verifier> {
        let chunk_start = |chunk: u64| self.chunk_offset(chunk);
        let fits = split.start <= split.end
            && split.end <= self.file_len
            && (self.splittable() || split.start == 0 && split.end == self.file_len)
            && (split.first_chunk == 0 && split.start == 0
                || chunk_start(split.first_chunk) == Some(split.start))
            && (split.end == self.file_len || chunk_start(split.end_chunk) == Some(split.end));
        if !fits {
            return Err(bad_split(
                format!(
                    "part {} (bytes {}..{}, chunks {}..{}) does not start and end at chunk boundaries of this Data.db",
                    split.index, split.start, split.end, split.first_chunk, split.end_chunk
                ),
                split.start,
            ));
        }
        self.pos = split.start;
        self.range_end = split.end;
        self.next_chunk = usize::try_from(split.first_chunk).unwrap_or(usize::MAX);
        self.split = Some(split);
        Ok(self)
    }

    /// What this part's verification found (call after supplying its bytes).
    pub fn split_outcome(self) -> SplitOutcome {
        let split = self.split.unwrap_or(DataSplit {
            index: 0,
            start: 0,
            end: self.file_len,
            first_chunk: 0,
            end_chunk: self.next_chunk as u64,
        });
        let digest = self.digest.as_ref().and_then(|d| match &d.state {
            DigestState::Sum(s) => Some(RangeChecksum {
                value: s.value(),
                len_bytes: s.len_bytes(),
            }),
            DigestState::Sha1(_) => None,
        });
        SplitOutcome {
            verified_bytes: self.pos.saturating_sub(split.start),
            split,
            chunk: self.chunk_check,
            crc_db: self.crc_check,
            decompress: self.decompress_check,
            digest,
            next_chunk: self.next_chunk as u64,
            first_unlisted_chunk: self
                .first_unlisted_chunk
                .map(|(i, offset)| (i as u64, offset)),
            checksum_nanos: self.checksum_time.nanos,
            checksum_bytes: self.checksum_time.bytes,
            decompress_nanos: self.decompress_time.nanos,
            decompress_bytes: self.decompress_time.bytes,
            digest_nanos: self.digest_time.nanos,
            digest_bytes: self.digest_time.bytes,
            max_buffered_bytes: self.max_buffered as u64,
        }
    }

    /// Takes in the parts' outcomes (any order) as if this verifier had read them itself:
    /// afterwards [`Verifier::finish`] makes the end-of-file checks and compares the digest
    /// combined from the parts' checksums. The parts must cover Data.db from 0 without gaps; a
    /// part that stopped early ends the verification there.
    pub fn absorb_splits(&mut self, outcomes: &[SplitOutcome]) -> crate::Result<()> {
        if self.split.is_some() || self.pos != 0 {
            return Err(bad_split(
                "parts can only be combined by a verifier that has read nothing".to_owned(),
                self.pos,
            ));
        }
        let mut sorted: Vec<&SplitOutcome> = outcomes.iter().collect();
        crate::sort::sort_by_key(&mut sorted, |o| o.split.start);
        for o in sorted {
            let s = o.split;
            if s.start != self.pos || s.end > self.file_len || s.start > s.end {
                return Err(Error::new(
                    ErrorKind::MissingBytes {
                        wanted_start: self.pos,
                        wanted_end: s.start,
                    },
                    s.start,
                )
                .in_component(ComponentType::Data)
                .context("parts combined"));
            }
            if self.next_chunk as u64 != s.first_chunk {
                return Err(bad_split(
                    format!(
                        "part {} starts at chunk {}, the parts before it end at chunk {}",
                        s.index, s.first_chunk, self.next_chunk
                    ),
                    s.start,
                ));
            }
            merge_check(&mut self.chunk_check, o.chunk.as_ref());
            merge_check(&mut self.crc_check, o.crc_db.as_ref());
            merge_check(&mut self.decompress_check, o.decompress.as_ref());
            add(&mut self.checksum_time, o.checksum_nanos, o.checksum_bytes);
            add(
                &mut self.decompress_time,
                o.decompress_nanos,
                o.decompress_bytes,
            );
            add(&mut self.digest_time, o.digest_nanos, o.digest_bytes);
            if let Some(d) = self.digest.as_mut() {
                let DigestState::Sum(sum) = &mut d.state else {
                    return Err(bad_split(
                        "a SHA-1 digest cannot be combined from parts".to_owned(),
                        s.start,
                    ));
                };
                let Some(part) = o.digest else {
                    return Err(bad_split(
                        format!("part {} brings no digest checksum", s.index),
                        s.start,
                    ));
                };
                let t = Running::from_parts(sum.kind(), part.value, part.len_bytes);
                sum.append(&t);
            }
            if self.first_unlisted_chunk.is_none() {
                self.first_unlisted_chunk = o
                    .first_unlisted_chunk
                    .map(|(i, offset)| (usize::try_from(i).unwrap_or(usize::MAX), offset));
            }
            self.next_chunk = usize::try_from(o.next_chunk).unwrap_or(usize::MAX);
            self.max_buffered = self
                .max_buffered
                .max(usize::try_from(o.max_buffered_bytes).unwrap_or(usize::MAX));
            let verified = o.verified_bytes.min(s.len_bytes());
            self.pos = s.start.saturating_add(verified);
            if verified < s.len_bytes() {
                break;
            }
        }
        Ok(())
    }
}

fn add(t: &mut Timer, nanos: u64, bytes: u64) {
    t.nanos = t.nanos.saturating_add(nanos);
    t.bytes = t.bytes.saturating_add(bytes);
}

/// Adds a part's check to the whole file's (same component and kind).
fn merge_check(into: &mut Option<Check>, from: Option<&Check>) {
    let (Some(into), Some(from)) = (into.as_mut(), from) else {
        return;
    };
    into.checked = into.checked.saturating_add(from.checked);
    into.failed = into.failed.saturating_add(from.failed);
    into.ok &= from.ok;
    let room = MAX_LISTED_FAILURES.saturating_sub(into.failures.len());
    into.failures
        .extend(from.failures.iter().take(room).cloned());
    if into.note.is_none() {
        into.note.clone_from(&from.note);
    }
}
