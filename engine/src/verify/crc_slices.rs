//! Uncompressed Data.db: each CRC.db slice's checksum.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::clock::Clock;

use super::running_checksum::Running;
use super::{CrcSlice, DigestState, Failure, FindingKind, Layout, Verifier};

impl Verifier {
    pub(super) fn step_crc(&mut self, rest: &[u8], clock: &dyn Clock) -> usize {
        let Layout::Crc(p) = &self.layout else {
            return rest.len();
        };
        let at = self.pos;
        let slice = self.crc_slice.get_or_insert_with(|| CrcSlice {
            index: self.next_chunk,
            start: at,
            end: at.saturating_add(p.chunk_size).min(self.file_len),
            sum: Running::new(p.algorithm),
        });
        let n =
            usize::try_from(slice.end.saturating_sub(at)).map_or(rest.len(), |g| g.min(rest.len()));
        let t = clock.now_nanos();
        slice.sum.update(rest.get(..n).unwrap_or_default());
        self.checksum_time.add(t, clock, n as u64);
        if at.saturating_add(n as u64) == slice.end {
            if let Some(done) = self.crc_slice.take() {
                self.finish_crc_slice(done, clock);
            }
        }
        n
    }

    pub(super) fn finish_crc_slice(&mut self, s: CrcSlice, clock: &dyn Clock) {
        let Layout::Crc(p) = &self.layout else {
            return;
        };
        self.next_chunk = s.index.saturating_add(1);
        let computed = s.sum.value();
        match p.checksums.get(s.index) {
            Some(&stored) => {
                let partitions = if stored != computed {
                    self.overlapping((s.start, s.end))
                } else {
                    Vec::new()
                };
                if let Some(c) = self.crc_check.as_mut() {
                    c.checked = c.checked.saturating_add(1);
                    if stored != computed {
                        c.fail(Failure {
                            kind: FindingKind::CrcDb,
                            chunk: Some(s.index as u64),
                            offset: s.start,
                            length: s.end.saturating_sub(s.start),
                            expected: stored.to_string(),
                            actual: computed.to_string(),
                            partitions,
                            message: format!(
                                "Data.db {}..{} (CRC.db entry {}): stored {} {stored:#010x}, computed {computed:#010x}",
                                s.start, s.end, s.index, c.algorithm
                            )});
                    }
                }
            }
            None => {
                if self.first_unlisted_chunk.is_none() {
                    self.first_unlisted_chunk = Some((s.index, s.start));
                }
            }
        }
        if let Some(d) = self.digest.as_mut().filter(|d| d.combine) {
            let t = clock.now_nanos();
            if let DigestState::Sum(sum) = &mut d.state {
                sum.append(&s.sum);
            }
            self.digest_time
                .add(t, clock, s.end.saturating_sub(s.start));
        }
    }
}
