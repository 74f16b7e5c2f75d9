//! Compressed chunks: each chunk's checksum (and, on request, its decompression), over
//! chunks that arrive whole or split over supplies.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::clock::Clock;
use crate::component::crc::ChecksumType;
use crate::compress::decompress_chunk;

use super::running_checksum::Running;
use super::{
    DigestState, Failure, FindingKind, Layout, PartialChunk, Verifier, CHUNK_CHECKSUM_BYTES,
    MAX_CHUNK_BYTES,
};

impl Verifier {
    pub(super) fn step_compressed(&mut self, rest: &[u8], clock: &dyn Clock) -> usize {
        if self.partial.is_some() {
            return self.continue_chunk(rest, clock);
        }
        let Layout::Compressed(p) = &self.layout else {
            return rest.len();
        };
        let at = self.pos;
        let file_len = self.file_len;
        loop {
            let i = self.next_chunk;
            let Some(&start) = p.offsets.get(i) else {
                // After the last chunk (only when offsets run backwards): digest only.
                self.digest_only(rest, clock);
                return rest.len();
            };
            let end = p.chunk_end(i, file_len);
            let urange = p.uncompressed_range(i);
            if start < at {
                let partitions = self.overlapping(urange);
                if let Some(c) = self.chunk_check.as_mut() {
                    c.checked = c.checked.saturating_add(1);
                    c.fail(Failure {
                        kind: FindingKind::Chunk,
                        chunk: Some(i as u64),
                        offset: start,
                        length: end.saturating_sub(start),
                        expected: format!("offset ≥ {at}"),
                        actual: start.to_string(),
                        partitions,
                        message: format!(
                            "chunk {i} starts at {start}, inside the previous chunk (which ends at {at}): CompressionInfo offsets out of order"
                        )});
                }
                self.next_chunk = self.next_chunk.saturating_add(1);
                continue;
            }
            if start > at {
                // Bytes before this chunk (a first offset above 0, or the rest of a chunk
                // judged unusable): digest only.
                let n = usize::try_from(start.saturating_sub(at))
                    .map_or(rest.len(), |g| g.min(rest.len()));
                self.digest_only(rest.get(..n).unwrap_or_default(), clock);
                return n;
            }
            if end > file_len {
                let partitions = self.overlapping(urange);
                if let Some(c) = self.chunk_check.as_mut() {
                    c.checked = c.checked.saturating_add(1);
                    c.fail(Failure {
                        kind: FindingKind::Truncated,
                        chunk: Some(i as u64),
                        offset: start,
                        length: file_len.saturating_sub(start),
                        expected: format!("{} bytes", end.saturating_sub(start)),
                        actual: format!("{} bytes", file_len.saturating_sub(start)),
                        partitions,
                        message: format!(
                            "chunk {i} needs Data.db bytes {start}..{end}, but the file ends at {file_len}"
                        )});
                }
                self.next_chunk = self.next_chunk.saturating_add(1);
                continue;
            }
            if start
                .checked_add(CHUNK_CHECKSUM_BYTES)
                .is_none_or(|least| end < least)
            {
                let last = end == file_len;
                let partitions = self.overlapping(urange);
                if let Some(c) = self.chunk_check.as_mut() {
                    c.checked = c.checked.saturating_add(1);
                    c.fail(Failure {
                        kind: if last {
                            FindingKind::Truncated
                        } else {
                            FindingKind::Chunk
                        },
                        chunk: Some(i as u64),
                        offset: start,
                        length: end.saturating_sub(start),
                        expected: "at least 4 bytes".to_owned(),
                        actual: format!("{} bytes", end.saturating_sub(start)),
                        partitions,
                        message: if last {
                            format!("the last chunk ({i}) has {} bytes, fewer than its 4-byte checksum: Data.db is truncated", end.saturating_sub(start))
                        } else {
                            format!("chunk {i} is {} bytes, shorter than its 4-byte checksum", end.saturating_sub(start))
                        }});
                }
                self.next_chunk = self.next_chunk.saturating_add(1);
                continue;
            }
            self.next_chunk = self.next_chunk.saturating_add(1);
            let whole = usize::try_from(end.saturating_sub(start))
                .ok()
                .and_then(|n| rest.get(..n));
            if let Some(chunk) = whole {
                // The whole chunk is here: no copy.
                let split = chunk.len().saturating_sub(CHUNK_CHECKSUM_BYTES as usize);
                let (stored, trailer) = chunk.split_at_checked(split).unwrap_or((chunk, &[]));
                let mut t4 = [0u8; 4];
                t4.copy_from_slice(trailer.get(..4).unwrap_or(&[0; 4]));
                let mut sum = Running::new(p.algorithm);
                if !p.over_uncompressed {
                    let t = clock.now_nanos();
                    sum.update(stored);
                    self.checksum_time.add(t, clock, stored.len() as u64);
                }
                self.finish_chunk(i, start, Some(stored), &sum, t4, clock);
                return chunk.len();
            }
            let stored_len = end
                .saturating_sub(start)
                .saturating_sub(CHUNK_CHECKSUM_BYTES);
            let keep = (self.options.decompress || p.over_uncompressed)
                && stored_len <= p.stored_limit_bytes;
            self.carry.clear();
            self.partial = Some(PartialChunk {
                index: i,
                start,
                stored_end: end.saturating_sub(CHUNK_CHECKSUM_BYTES),
                end,
                sum: Running::new(p.algorithm),
                keep,
                trailer: [0; 4],
                trailer_len: 0,
            });
            return self.continue_chunk(rest, clock);
        }
    }

    /// Feeds a chunk that arrives split over supplies.
    pub(super) fn continue_chunk(&mut self, rest: &[u8], clock: &dyn Clock) -> usize {
        let at = self.pos;
        let over_uncompressed =
            matches!(&self.layout, Layout::Compressed(p) if p.over_uncompressed);
        let Some(c) = self.partial.as_mut() else {
            return rest.len();
        };
        if at < c.stored_end {
            let n = usize::try_from(c.stored_end.saturating_sub(at))
                .map_or(rest.len(), |g| g.min(rest.len()));
            let piece = rest.get(..n).unwrap_or_default();
            if !over_uncompressed {
                let t = clock.now_nanos();
                c.sum.update(piece);
                self.checksum_time.add(t, clock, n as u64);
            }
            if c.keep {
                self.carry.extend_from_slice(piece);
            }
            return n;
        }
        let n = usize::try_from(c.end.saturating_sub(at)).map_or(rest.len(), |g| g.min(rest.len()));
        for &b in rest.get(..n).unwrap_or_default() {
            if let Some(slot) = c.trailer.get_mut(c.trailer_len) {
                *slot = b;
                c.trailer_len = c.trailer_len.saturating_add(1);
            }
        }
        if at.saturating_add(n as u64) == c.end {
            if let Some(done) = self.partial.take() {
                let carry = core::mem::take(&mut self.carry);
                let stored = done.keep.then_some(carry.as_slice());
                self.finish_chunk(
                    done.index,
                    done.start,
                    stored,
                    &done.sum,
                    done.trailer,
                    clock,
                );
                self.carry = carry;
                self.carry.clear();
            }
        }
        n
    }

    /// Checks one compressed chunk: its checksum, optionally its decompression, and appends it to
    /// the digest. `stored` is `None` when the stored bytes were not kept.
    pub(super) fn finish_chunk(
        &mut self,
        i: usize,
        start: u64,
        stored: Option<&[u8]>,
        sum: &Running,
        trailer: [u8; 4],
        clock: &dyn Clock,
    ) {
        let Layout::Compressed(p) = &self.layout else {
            return;
        };
        let stored_len = {
            let end = p.chunk_end(i, self.file_len);
            end.saturating_sub(start.saturating_add(CHUNK_CHECKSUM_BYTES))
        };
        let urange = p.uncompressed_range(i);
        let expected_len = urange.1.saturating_sub(urange.0);
        // Decompression (always needed before jb, where the checksum covers the uncompressed bytes).
        let mut decompressed_ok = false;
        let mut decompress_failure: Option<(String, String, String)> = None;
        if self.options.decompress || p.over_uncompressed {
            let expected_usize = usize::try_from(expected_len)
                .ok()
                .filter(|_| expected_len <= MAX_CHUNK_BYTES);
            match (stored, expected_usize) {
                (None, _) => {
                    decompress_failure = Some((
                        format!("≤ {} stored bytes", p.stored_limit_bytes),
                        format!("{stored_len} stored bytes"),
                        format!(
                            "chunk {i} stores {stored_len} bytes, more than any codec writes for a {}-byte chunk: not decompressed",
                            p.chunk_len
                        ),
                    ));
                }
                (Some(_), None) => {
                    decompress_failure = Some((
                        format!("≤ {MAX_CHUNK_BYTES} bytes"),
                        format!("{expected_len} bytes"),
                        format!(
                            "chunk {i} would decompress to {expected_len} bytes, more than the {MAX_CHUNK_BYTES} this verifier allocates for a chunk: not decompressed"
                        ),
                    ));
                }
                (Some(bytes), Some(expected)) => {
                    let raw = p.max_compressed.is_some_and(|m| stored_len >= m);
                    let t = clock.now_nanos();
                    let result = if raw {
                        if bytes.len() >= expected {
                            self.out.clear();
                            self.out
                                .extend_from_slice(bytes.get(..expected).unwrap_or_default());
                            Ok(())
                        } else {
                            Err(crate::compress::CodecError::WrongLength {
                                expected_bytes: expected_len,
                                actual_bytes: bytes.len() as u64,
                            })
                        }
                    } else {
                        decompress_chunk(&p.compressor, bytes, expected, &mut self.out)
                    };
                    self.decompress_time.add(t, clock, expected_len);
                    match result {
                        Ok(()) => decompressed_ok = true,
                        Err(e) => {
                            decompress_failure = Some((
                                format!("{expected_len} bytes"),
                                e.to_string(),
                                format!(
                                    "chunk {i} ({}) does not decompress: {e}",
                                    if raw {
                                        "stored raw"
                                    } else {
                                        p.compressor.name()
                                    }
                                ),
                            ));
                        }
                    }
                }
            }
        }
        // The checksum.
        let stored_sum = u32::from_be_bytes(trailer);
        let computed = if p.over_uncompressed {
            decompressed_ok.then(|| {
                let t = clock.now_nanos();
                let v = ChecksumType::Crc32.checksum(&self.out);
                self.checksum_time.add(t, clock, self.out.len() as u64);
                v
            })
        } else {
            Some(sum.value())
        };
        let combine = self.digest.as_ref().is_some_and(|d| d.combine);
        let partitions = if computed != Some(stored_sum) || decompress_failure.is_some() {
            self.overlapping(urange)
        } else {
            Vec::new()
        };
        if let Some(c) = self.chunk_check.as_mut() {
            c.checked = c.checked.saturating_add(1);
            if computed != Some(stored_sum) {
                c.fail(Failure {
                    kind: FindingKind::Chunk,
                    chunk: Some(i as u64),
                    offset: start,
                    length: stored_len,
                    expected: stored_sum.to_string(),
                    actual: computed.map_or_else(
                        || "not computable (the chunk does not decompress)".to_owned(),
                        |v| v.to_string(),
                    ),
                    partitions: partitions.clone(),
                    message: format!(
                        "chunk {i} (Data.db {start}..{}): stored {} {stored_sum:#010x}, computed {}",
                        start.saturating_add(stored_len),
                        c.algorithm,
                        computed.map_or_else(|| "nothing".to_owned(), |v| format!("{v:#010x}"))
                    )});
            }
        }
        if let Some(c) = self.decompress_check.as_mut() {
            c.checked = c.checked.saturating_add(1);
            if let Some((expected, actual, message)) = decompress_failure {
                c.fail(Failure {
                    kind: FindingKind::Decompress,
                    chunk: Some(i as u64),
                    offset: start,
                    length: stored_len,
                    expected,
                    actual,
                    partitions,
                    message,
                });
            }
        }
        if combine {
            if let Some(d) = self.digest.as_mut() {
                let t = clock.now_nanos();
                if let DigestState::Sum(s) = &mut d.state {
                    s.append(sum);
                }
                d.update(&trailer);
                self.digest_time
                    .add(t, clock, stored_len.saturating_add(CHUNK_CHECKSUM_BYTES));
            }
        }
    }
}
