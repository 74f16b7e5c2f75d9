//! One verification as front ends drive it: Data.db through the [`Verifier`], then the
//! partitions a failing chunk overlaps, then the verdict.
//!
//! | stage | reads | when |
//! |---|---|---|
//! | data | all of Data.db, in order, once | always (unless there is no Data.db) |
//! | partitions | big: Index.db in 64 KiB windows, up to the first partition past the last failing chunk ([`PartitionFinder`]); bti: Partitions.db page by page in key order, Rows.db entries, the Data.db headers of the partitions named ([`TriePartitionFinder`]) | only when a chunk or CRC.db slice failed |
//!
//! Src: `db/compaction/Verifier.java` (what Cassandra's `nodetool verify` checks and refuses),
//! `io/compress/CompressionMetadata.java` (what makes a chunk table unusable on open).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::clock::Clock;
use crate::component::data::{DataFileReader, DecodeOptions};
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::info::{ErrorReport, SSTableMetadata};
use crate::range::{ByteRange, PartitionFinder, PartitionRange, RangeReader, TriePartitionFinder};
use crate::token::Partitioner;
use crate::version::Format;

use super::preconditions::unverifiable_reasons;
use super::{DataSplit, Progress, SplitOutcome, Verifier, VerifyOptions, VerifyReport};

/// What identifies a failure in a report: its kind, chunk and offset.
type FailureId = (super::FindingKind, Option<u64>, u64);

/// What names the partitions of failing chunks: Index.db (big) or the Partitions.db trie (bti).
#[derive(Debug, Clone)]
enum Namer {
    Index(Box<PartitionFinder>),
    Trie(Box<TriePartitionFinder>),
}

impl Namer {
    fn partitions(&self, start: u64, end: u64) -> Vec<PartitionRange> {
        match self {
            Namer::Index(f) => f.partitions(start, end).to_vec(),
            Namer::Trie(f) => f.partitions(start, end),
        }
    }

    fn reader(&self) -> &dyn RangeReader {
        match self {
            Namer::Index(f) => f.as_ref(),
            Namer::Trie(f) => f.as_ref(),
        }
    }

    fn reader_mut(&mut self) -> &mut dyn RangeReader {
        match self {
            Namer::Index(f) => f.as_mut(),
            Namer::Trie(f) => f.as_mut(),
        }
    }

    /// The component whose damage leaves partitions unnamed.
    fn component(&self) -> ComponentType {
        match self {
            Namer::Index(_) => ComponentType::PrimaryIndex,
            Namer::Trie(_) => ComponentType::Partitions,
        }
    }
}

/// What a BTI SSTable's partitions are named from.
#[derive(Debug)]
struct BtiInputs {
    partitions_len: Option<u64>,
    rows_len: Option<u64>,
    partitioner: Partitioner,
    data: Result<DataFileReader>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Data,
    Partitions,
    Done,
}

/// Verifies one SSTable through the byte-range protocol (see the module docs).
#[derive(Debug)]
pub struct VerifyRun {
    verifier: Option<Verifier>,
    metadata_reasons: Vec<String>,
    format: Format,
    index_len: Option<u64>,
    version: crate::version::Version,
    key_type: Option<crate::types::AbstractType>,
    bti: Option<BtiInputs>,
    finder: Option<Namer>,
    /// Why partitions could not be named, when they could not.
    partition_note: Option<String>,
    /// A read failed while naming partitions (the driver's error then only leaves them unnamed).
    partition_read_failed: bool,
    stage: Stage,
}

impl VerifyRun {
    pub fn new(m: &SSTableMetadata, options: VerifyOptions) -> VerifyRun {
        let verifier = Verifier::for_sstable(m, options);
        let stage = if verifier.is_some() {
            Stage::Data
        } else {
            Stage::Done
        };
        let bti = (m.descriptor.format == Format::Bti && verifier.is_some()).then(|| BtiInputs {
            partitions_len: m.size_of(&ComponentType::Partitions),
            rows_len: m.size_of(&ComponentType::Rows),
            partitioner: m.partitioner(),
            data: DataFileReader::for_sstable(m, DecodeOptions::default()),
        });
        VerifyRun {
            metadata_reasons: if verifier.is_none() {
                unverifiable_reasons(m)
            } else {
                Vec::new()
            },
            verifier,
            format: m.descriptor.format,
            index_len: m.size_of(&ComponentType::PrimaryIndex),
            version: m.descriptor.version,
            key_type: m.key_type(),
            bti,
            finder: None,
            partition_note: None,
            partition_read_failed: false,
            stage,
        }
    }

    /// Data.db bytes verified and in all.
    pub fn progress(&self) -> Progress {
        self.verifier.as_ref().map_or(
            Progress {
                done_bytes: 0,
                total_bytes: 0,
            },
            Verifier::progress,
        )
    }

    pub fn verifier(&self) -> Option<&Verifier> {
        self.verifier.as_ref()
    }

    /// Up to `parts` parts of Data.db of at least `min_bytes`, for workers to verify
    /// ([`Verifier::splits`]); one part when it cannot or need not be split, none without Data.db.
    pub fn splits(&self, parts: usize, min_bytes: u64) -> Vec<DataSplit> {
        self.verifier
            .as_ref()
            .map_or_else(Vec::new, |v| v.splits(parts, min_bytes))
    }

    /// Takes in the parts' outcomes ([`Verifier::absorb_splits`]) instead of reading Data.db;
    /// driven on, the run then names the partitions of failing chunks (windowed Index.db or
    /// Partitions.db reads), and [`VerifyRun::finish`] gives the whole file's report. A part
    /// that stopped early leaves the run incomplete (nothing more is read).
    pub fn absorb_splits(&mut self, outcomes: &[SplitOutcome]) -> Result<()> {
        let Some(v) = self.verifier.as_mut() else {
            return Ok(());
        };
        if self.stage != Stage::Data {
            return Err(Error::invalid(
                "parts combined into a run past its Data.db stage",
                0,
            ));
        }
        v.absorb_splits(outcomes)?;
        if v.is_done() {
            self.after_data();
        } else {
            self.stage = Stage::Done;
        }
        Ok(())
    }

    /// After Data.db: the failing uncompressed ranges, and a finder for their partitions.
    fn after_data(&mut self) {
        self.stage = Stage::Done;
        let Some(v) = self.verifier.as_mut() else {
            return;
        };
        v.finalize();
        let v = &*v;
        let ranges: Vec<(u64, u64)> = [&v.chunk_check, &v.crc_check, &v.decompress_check]
            .into_iter()
            .flatten()
            .flat_map(|c| c.failures.iter())
            .filter_map(|f| v.failure_data_range(f))
            .collect();
        if ranges.is_empty() {
            return;
        }
        match (self.format, self.index_len) {
            (Format::Big, Some(index_len)) => {
                self.finder = Some(Namer::Index(Box::new(PartitionFinder::new(
                    self.version,
                    index_len,
                    v.data_len_bytes(),
                    self.key_type.clone(),
                    &ranges,
                ))));
                self.stage = Stage::Partitions;
            }
            (Format::Big, None) => {
                self.partition_note = Some("partitions not named: there is no Index.db".to_owned());
            }
            (Format::Bti, _) => {
                let data_len = v.data_len_bytes();
                let Some(bti) = self.bti.take() else {
                    return;
                };
                let Some(partitions_len) = bti.partitions_len else {
                    self.partition_note =
                        Some("partitions not named: there is no Partitions.db".to_owned());
                    return;
                };
                self.finder = Some(Namer::Trie(Box::new(TriePartitionFinder::new(
                    self.version,
                    bti.partitioner,
                    self.key_type.clone(),
                    partitions_len,
                    bti.rows_len,
                    data_len,
                    bti.data,
                    &ranges,
                ))));
                self.stage = Stage::Partitions;
            }
        }
    }

    /// The report. `error`: what stopped the driver, if anything (a read error of Data.db makes
    /// the SSTable not verifiable; one of Index.db only leaves partitions unnamed).
    pub fn finish(self, sstable: &str, error: Option<Error>) -> VerifyReport {
        let Some(v) = self.verifier else {
            let mut reasons = self.metadata_reasons.into_iter();
            let mut r = VerifyReport::not_verifiable(
                sstable,
                reasons
                    .next()
                    .unwrap_or_else(|| "there is no Data.db".to_owned()),
            );
            for reason in reasons {
                r.push_unverified(reason);
            }
            return r;
        };
        // Each failure's uncompressed range, keyed by what identifies it in the report.
        let failure_ranges: Vec<(FailureId, (u64, u64))> =
            [&v.chunk_check, &v.crc_check, &v.decompress_check]
                .into_iter()
                .flatten()
                .flat_map(|c| c.failures.iter())
                .filter_map(|f| Some(((f.kind, f.chunk, f.offset), v.failure_data_range(f)?)))
                .collect();
        let mut report = v.finish(sstable);
        let mut partition_note = self.partition_note;
        let names_partitions = |c: Option<&ComponentType>| {
            matches!(
                c,
                Some(ComponentType::PrimaryIndex | ComponentType::Partitions | ComponentType::Rows)
            )
        };
        match error {
            // `abort` already said what a failed read while naming partitions left out.
            Some(_) if self.partition_read_failed => {}
            // A read that failed while partitions were being named (a driver that does not call
            // `abort` stops there, in that stage) only leaves them unnamed.
            Some(e) if self.stage == Stage::Partitions || names_partitions(e.component()) => {
                partition_note.get_or_insert_with(|| format!("partitions not named: {e}"));
            }
            Some(e) => report.push_error(
                Some(e.component().map_or(
                    ComponentType::Data.file_suffix(),
                    ComponentType::file_suffix,
                )),
                e.offset(),
                e.message(),
            ),
            None => {}
        }
        if let Some(finder) = &self.finder {
            for check in &mut report.checks {
                for f in &mut check.failures {
                    if !f.partitions.is_empty() {
                        continue;
                    }
                    let Some(&(_, (start, end))) = failure_ranges
                        .iter()
                        .find(|(id, _)| *id == (f.kind, f.chunk, f.offset))
                    else {
                        continue;
                    };
                    f.partitions = finder
                        .partitions(start, end)
                        .into_iter()
                        .map(|p| p.key)
                        .collect();
                }
            }
        }
        if let Some(note) = partition_note {
            let component = match (&self.finder, self.format) {
                (Some(f), _) => f.component(),
                (None, Format::Bti) => ComponentType::Partitions,
                (None, Format::Big) => ComponentType::PrimaryIndex,
            };
            report.findings.push(ErrorReport {
                component: Some(component.file_suffix().to_owned()),
                offset: 0,
                message: note,
            });
        }
        report
    }
}

impl RangeReader for VerifyRun {
    fn next_read(&self) -> Option<ByteRange> {
        match self.stage {
            Stage::Data => self.verifier.as_ref().and_then(RangeReader::next_read),
            Stage::Partitions => self.finder.as_ref().and_then(|f| f.reader().next_read()),
            Stage::Done => None,
        }
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        match self.stage {
            Stage::Data => {
                let Some(v) = self.verifier.as_mut() else {
                    return Ok(());
                };
                v.supply(range, bytes, clock)?;
                if v.is_done() {
                    self.after_data();
                }
                Ok(())
            }
            Stage::Partitions => {
                let Some(finder) = self.finder.as_mut() else {
                    return Ok(());
                };
                // A damaged index only leaves the partitions unnamed.
                let finder = finder.reader_mut();
                if let Err(e) = finder.supply(range, bytes, clock) {
                    self.partition_note = Some(format!("partitions not named: {e}"));
                    self.stage = Stage::Done;
                } else if finder.next_read().is_none() {
                    self.stage = Stage::Done;
                }
                Ok(())
            }
            Stage::Done => Err(Error::invalid(
                "bytes supplied but nothing was asked for",
                range.offset,
            )
            .in_component(range.component.clone())),
        }
    }

    /// A failed read while naming partitions only leaves them unnamed (the finder may go on:
    /// a Data.db key it could not read is shown as such).
    fn abort(&mut self, range: &ByteRange, error: &Error, clock: &dyn Clock) {
        match self.stage {
            Stage::Data => {
                if let Some(v) = self.verifier.as_mut() {
                    v.abort(range, error, clock);
                }
            }
            Stage::Partitions => {
                self.partition_read_failed = true;
                if let Some(namer) = self.finder.as_mut() {
                    namer.reader_mut().abort(range, error, clock);
                    let lost = match namer {
                        Namer::Index(_) => true,
                        Namer::Trie(f) => f.names_lost(),
                    };
                    if lost {
                        self.partition_note = Some(format!("partitions not named: {error}"));
                    }
                    if namer.reader().next_read().is_none() {
                        self.stage = Stage::Done;
                    }
                }
            }
            Stage::Done => {}
        }
    }
}
