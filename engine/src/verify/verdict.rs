//! The end of the pass: the partitions a failure overlaps, the end-of-file checks, the report.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::component::ComponentType;
use crate::info::ErrorReport;
use sha1::Digest as _;

use super::running_checksum::Running;
use super::{
    algorithm_name, Check, Coverage, DigestExpected, DigestState, Failure, FindingKind, Layout,
    Phase, PhaseTiming, Verdict, Verifier, VerifyReport, MAX_LISTED_PARTITIONS,
};

impl Verifier {
    /// Keys of the partitions overlapping uncompressed bytes `[start, end)`.
    pub(super) fn overlapping(&self, (start, end): (u64, u64)) -> Vec<String> {
        if self.partitions.is_empty() || start >= end {
            return Vec::new();
        }
        // Partitions do not overlap one another, so at most one that starts before `start`
        // reaches into the range.
        let first = self
            .partitions
            .partition_point(|p| p.start < start)
            .saturating_sub(1);
        self.partitions
            .iter()
            .skip(first)
            .take_while(|p| p.start < end)
            .filter(|p| p.end > start)
            .take(MAX_LISTED_PARTITIONS)
            .map(|p| p.key.clone())
            .collect()
    }

    /// End-of-file checks: chunks the file is too short for, CRC.db entries past the end.
    pub(super) fn finalize(&mut self) {
        // A split's end-of-file checks are made where the splits are combined.
        if self.finalized || !self.is_done() || self.split.is_some() {
            return;
        }
        self.finalized = true;
        let file_len = self.file_len;
        match &self.layout {
            Layout::Compressed(p) => {
                let remaining: Vec<(usize, u64, u64, (u64, u64))> = (self.next_chunk
                    ..p.offsets.len())
                    .map(|i| {
                        let start = p.offsets.get(i).copied().unwrap_or(file_len);
                        (i, start, p.chunk_end(i, file_len), p.uncompressed_range(i))
                    })
                    .collect();
                for (i, start, end, urange) in remaining {
                    let partitions = self.overlapping(urange);
                    if let Some(c) = self.chunk_check.as_mut() {
                        c.checked = c.checked.saturating_add(1);
                        c.fail(Failure {
                            kind: FindingKind::Truncated,
                            chunk: Some(i as u64),
                            offset: start,
                            length: end.saturating_sub(start),
                            expected: format!("chunk at {start}"),
                            actual: format!("Data.db ends at {file_len}"),
                            partitions,
                            message: format!(
                                "chunk {i} starts at {start}, at or past the end of the {file_len}-byte Data.db"
                            ),
                        });
                    }
                }
            }
            Layout::Crc(p) => {
                let listed = p.checksums.len();
                let size = p.chunk_size;
                if let Some((first, offset)) = self.first_unlisted_chunk {
                    let missing = self.next_chunk.saturating_sub(first);
                    if let Some(c) = self.crc_check.as_mut() {
                        c.checked = c.checked.saturating_add(missing as u64);
                        c.fail(Failure {
                            kind: FindingKind::CrcDb,
                            chunk: Some(first as u64),
                            offset,
                            length: file_len.saturating_sub(offset),
                            expected: format!("{} checksums", self.next_chunk),
                            actual: format!("{listed} checksums"),
                            partitions: Vec::new(),
                            message: format!(
                                "Data.db has {} chunks of {size} bytes, CRC.db lists only {listed}: bytes {offset}..{file_len} are unchecked",
                                self.next_chunk
                            ),
                        });
                    }
                }
                // Cassandra 3.x's writer flushes an empty buffer at close and appends the
                // checksum of zero bytes for it (`ChecksumWriter.appendDirect` on an empty
                // buffer); its validator never reads that entry. One such entry is valid.
                let empty_sum = Running::new(p.algorithm).value();
                let extra_empty = listed == self.next_chunk.saturating_add(1)
                    && p.checksums.get(self.next_chunk) == Some(&empty_sum);
                let first_extra = if extra_empty {
                    let i = self.next_chunk;
                    self.findings.push(ErrorReport {
                        component: Some(ComponentType::Crc.file_suffix().to_owned()),
                        offset: 4u64.saturating_add((i as u64).saturating_mul(4)),
                        message: format!(
                            "CRC.db entry {i} ({empty_sum:#010x}, the {} of zero bytes) follows the last of Data.db's {i} chunks: \
                             the empty buffer Cassandra's writer flushes at close; nothing reads it",
                            algorithm_name(p.algorithm)
                        ),
                    });
                    listed
                } else {
                    self.next_chunk
                };
                for i in first_extra..listed {
                    let start = (i as u64).saturating_mul(size);
                    if let Some(c) = self.crc_check.as_mut() {
                        c.checked = c.checked.saturating_add(1);
                        c.fail(Failure {
                            kind: FindingKind::Truncated,
                            chunk: Some(i as u64),
                            offset: start,
                            length: size,
                            expected: format!("Data.db bytes {start}..{}", start.saturating_add(size)),
                            actual: format!("Data.db ends at {file_len}"),
                            partitions: Vec::new(),
                            message: format!(
                                "CRC.db lists chunk {i} ({start}..{}), but the {file_len}-byte Data.db holds only {} chunks",
                                start.saturating_add(size),
                                self.next_chunk
                            ),
                        });
                    }
                }
            }
            Layout::Plain => {}
        }
        if let Some(d) = self.digest.as_mut() {
            d.check.checked = d.check.checked.saturating_add(1);
            let (expected, actual) = match (&d.expected, &d.state) {
                (DigestExpected::Sum(e), DigestState::Sum(s)) => {
                    (e.to_string(), s.value().to_string())
                }
                (DigestExpected::Sha1(e), DigestState::Sha1(h)) => {
                    (e.clone(), crate::span::hex(&h.clone().finalize()))
                }
                _ => (String::new(), String::new()),
            };
            if expected != actual {
                let algorithm = d.check.algorithm.clone();
                d.check.fail(Failure {
                    kind: FindingKind::Digest,
                    chunk: None,
                    offset: 0,
                    length: file_len,
                    expected: expected.clone(),
                    actual: actual.clone(),
                    partitions: Vec::new(),
                    message: format!(
                        "{algorithm} of the whole Data.db: {} stores {expected}, computed {actual}",
                        d.check.component
                    ),
                });
            }
        }
    }

    /// Which check compared which bytes: the chunk or CRC.db checksums the Data.db bytes
    /// verified so far, the digest all of Data.db (when compared), the metadata checksums the
    /// Statistics.db parts they cover. A check that compared nothing covers nothing.
    fn coverage(&self, complete: bool) -> Vec<Coverage> {
        let data = ComponentType::Data.file_suffix();
        let start = self.split.as_ref().map_or(0, |s| s.start);
        let entry = |c: &Check, component: &str, start: u64, end: u64| Coverage {
            check: format!("{} {}", c.component, c.kind.describe()),
            component: component.to_owned(),
            start,
            end,
            passed: c.ok,
        };
        let mut out = Vec::new();
        for c in [&self.chunk_check, &self.crc_check].into_iter().flatten() {
            if c.checked > 0 && self.pos > start {
                out.push(entry(c, data, start, self.pos));
            }
        }
        if let Some(d) = self
            .digest
            .as_ref()
            .filter(|_| complete && self.split.is_none())
        {
            out.push(entry(&d.check, data, 0, self.file_len));
        }
        if let Some(c) = &self.metadata_check {
            let statistics = ComponentType::Statistics.file_suffix();
            let mut spans: Vec<(u64, u64)> = self
                .statistics_covered
                .iter()
                .map(|s| (s.start, s.end))
                .collect();
            crate::sort::sort(&mut spans);
            // Overlapping parts (the table of contents is under more than one CRC) once.
            let mut merged: Vec<(u64, u64)> = Vec::new();
            for (a, b) in spans {
                match merged.last_mut() {
                    Some(last) if a <= last.1 => last.1 = last.1.max(b),
                    _ => merged.push((a, b)),
                }
            }
            out.extend(merged.into_iter().map(|(a, b)| entry(c, statistics, a, b)));
        }
        out
    }

    /// The report, whether or not all of Data.db was supplied (if not, `complete` is false, the
    /// digest is not compared and `valid` is false).
    pub fn finish(mut self, sstable: &str) -> VerifyReport {
        self.finalize();
        let complete = self.is_done();
        let coverage = self.coverage(complete);
        let mut checks = Vec::new();
        let decompressed = self.decompress_check.is_some();
        checks.extend(self.chunk_check.take());
        checks.extend(self.crc_check.take());
        checks.extend(self.decompress_check.take());
        if let Some(mut d) = self.digest.take() {
            if !complete {
                d.check.note = Some(format!(
                    "not compared: verification stopped after {} of {} bytes",
                    self.pos, self.file_len
                ));
            }
            checks.push(d.check);
        }
        checks.extend(self.metadata_check.take());
        let mut timings = vec![PhaseTiming::new(
            Phase::Checksum,
            self.checksum_time.nanos,
            self.checksum_time.bytes,
        )];
        if decompressed {
            timings.push(PhaseTiming::new(
                Phase::Decompress,
                self.decompress_time.nanos,
                self.decompress_time.bytes,
            ));
        }
        timings.push(PhaseTiming::new(
            Phase::Digest,
            self.digest_time.nanos,
            self.digest_time.bytes,
        ));
        let mut unverified = self.unverified;
        if !complete {
            unverified.push(format!(
                "verification stopped after {} of {} Data.db bytes",
                self.pos, self.file_len
            ));
        }
        let mut report = VerifyReport {
            sstable: sstable.to_owned(),
            verdict: Verdict::NotVerifiable,
            valid: false,
            complete,
            data_bytes: self.file_len,
            verified_bytes: self.pos,
            checks,
            coverage,
            timings,
            unverified,
            findings: self.findings,
            errors: self.errors,
        };
        report.recompute_valid();
        report
    }
}
