//! Verifying every checksum of an SSTable in one pass over Data.db, sans I/O.
//!
//! | what | where the expected value is | algorithm | covers |
//! |---|---|---|---|
//! | compressed chunk | 4 bytes BE after each chunk in Data.db | Adler32 for `jb`–`la`, CRC32 from `ma` and `da` (before `jb`: CRC32 of the *uncompressed* chunk) | the stored (compressed or raw) chunk bytes |
//! | CRC.db | one u32 BE per `chunk size` slice of an uncompressed Data.db | Adler32 for `ka`/`la`, CRC32 otherwise (`jb` included) | each slice; the last may be shorter |
//! | digest | `Digest.crc32` / `.adler32` / `.sha1` (decimal, or SHA-1 hex for ≤ 2.0) | CRC32 `ma`+, Adler32 `ka`/`la` (even in `Digest.sha1`), SHA-1 ≤ `jb` | every byte of Data.db as stored, chunk checksums included |
//! | metadata | Statistics.db (na+, da) | CRC32 | component count, table of contents, each component — computed by the Statistics decoder |
//! | decompression (optional) | CompressionInfo chunk length / data length | the codec | each chunk decompresses to exactly its uncompressed length |
//!
//! Src: `src/java/org/apache/cassandra/io/compress/CompressionMetadata.java`,
//! `CompressedSequentialWriter.java` (chunk + checksum, digest over both),
//! `io/util/CompressedChunkReader.java` (chunk checks on read), `io/util/ChecksumWriter.java` and
//! `io/util/DataIntegrityMetadata.java` (CRC.db, `writeFullChecksum`), `utils/ChecksumType.java`,
//! `io/sstable/metadata/MetadataSerializer.java` (metadata CRCs).
//!
//! ## Driving it
//!
//! The [`Verifier`] never reads a file: it speaks the engine's byte-range protocol
//! ([`crate::range::RangeReader`]). `next_read` names the Data.db range it needs next (whole
//! chunks up to [`VerifyOptions::read_size_bytes`], or fixed slices of an uncompressed Data.db);
//! the caller's driver reads it and hands it over with `supply`; [`Verifier::progress`] tells how
//! far it is, and the caller may stop between supplies. [`Verifier::finish`] gives the
//! [`VerifyReport`].
//!
//! [`VerifyRun`] is what front ends drive: the [`Verifier`] over Data.db, then — only when a
//! chunk failed — a windowed walk of Index.db ([`crate::range::PartitionFinder`]) or, for BTI,
//! of the Partitions.db trie ([`crate::range::TriePartitionFinder`]) that names the partitions
//! each failing chunk overlaps, and the verdict ([`Verdict`]) with the reasons a check
//! could not run ([`unverifiable_reasons`]).
//!
//! ```no_run
//! # use sstable_engine::verify::*;
//! # use sstable_engine::range::{SyncDriver, ByteRange, FnSource};
//! # fn run(m: &sstable_engine::info::SSTableMetadata) -> VerifyReport {
//! let mut run = VerifyRun::new(m, VerifyOptions::default());
//! let mut driver = SyncDriver::new(FnSource(|r: &ByteRange| -> sstable_engine::Result<Vec<u8>> {
//!     Ok(Vec::new()) // pread of r.component at r.offset, r.len bytes
//! }));
//! let outcome = driver.run(&mut run, &sstable_engine::clock::NoClock);
//! run.finish("ks/tbl/nb-1-big", outcome.err())
//! # }
//! ```
//!
//! ## One pass
//!
//! Each byte is read once. The digest is not a second hash over Data.db when its algorithm is the
//! chunk (or CRC.db) algorithm: each chunk's checksum is *appended* to the running digest
//! (`crc32fast::Hasher::combine`, or the Adler32 combination in `running.rs`), and only the 4
//! checksum bytes and any bytes outside chunks are hashed again. SHA-1 digests stream every byte.
//!
//! ## Memory
//!
//! A supplied range is processed and dropped. The verifier keeps the chunk offsets and CRC.db
//! values it was given, one decompression buffer (at most one chunk), and — only when a chunk
//! that must be decompressed arrives split over two supplies — a copy of that one chunk, refused
//! (as a `decompress` failure) when it is longer than any codec writes for the chunk length.
//! [`Verifier::buffered_bytes`] and [`Verifier::max_buffered_bytes`] report it.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

mod report;
mod run;
mod running;
mod split;

pub use report::{
    Check, CheckKind, Failure, FindingKind, Phase, PhaseTiming, Verdict, VerifyReport,
    MAX_LISTED_FAILURES,
};
pub use run::{unverifiable_reasons, VerifyRun};
pub use split::{DataSplit, RangeChecksum, SplitOutcome};

use serde::Serialize;

use crate::clock::Clock;
use crate::component::compression_info::CompressionInfo;
use crate::component::crc::{ChecksumType, CrcFile};
use crate::component::digest::{Digest, DigestValue};
use crate::component::statistics::Statistics;
use crate::component::ComponentType;
use crate::compress::{decompress_chunk, Compressor};
use crate::error::{Error, ErrorKind};
use crate::info::{ErrorReport, SSTableMetadata};
use crate::range::{ByteRange, RangeReader};
use crate::version::{Format, Version};
use running::Running;
use sha1::{Digest as _, Sha1};

pub use crate::range::PartitionRange;

/// Default size of one read: 1 MiB.
pub const DEFAULT_READ_BYTES: u64 = 1 << 20;
/// Bytes of the checksum after each compressed chunk.
const CHUNK_CHECKSUM_BYTES: u64 = 4;
/// The largest chunk decompressed or held in memory (Cassandra's chunks are 4 KiB–1 MiB; a
/// CompressionInfo chunk length above this is not trusted with an allocation).
pub const MAX_CHUNK_BYTES: u64 = 64 << 20;
/// At most this many partition keys are listed per failure.
const MAX_LISTED_PARTITIONS: usize = 100;

/// How to verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Also decompress every chunk (`--decompress`): failures and wrong lengths become
    /// `decompress` findings and verification goes on with the next chunk.
    pub decompress: bool,
    /// The target size of one read (at least one chunk is always asked for at once when it fits
    /// in memory; 0 counts as 1).
    pub read_size_bytes: u64,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            decompress: false,
            read_size_bytes: DEFAULT_READ_BYTES,
        }
    }
}

/// What the verifier needs besides Data.db itself: the decoded metadata components.
#[derive(Debug, Clone, Copy)]
pub struct VerifyInput<'a> {
    pub version: Version,
    /// Size of Data.db as stored.
    pub data_file_len_bytes: u64,
    /// Present for a compressed Data.db.
    pub compression: Option<&'a CompressionInfo>,
    pub crc: Option<&'a CrcFile>,
    pub digest: Option<&'a Digest>,
    /// For the na+ metadata CRCs.
    pub statistics: Option<&'a Statistics>,
}

impl<'a> VerifyInput<'a> {
    /// The input for a decoded SSTable; `None` when it has no Data.db.
    pub fn from_metadata(m: &'a SSTableMetadata) -> Option<VerifyInput<'a>> {
        Some(VerifyInput {
            version: m.descriptor.version,
            data_file_len_bytes: m.size_of(&ComponentType::Data)?,
            compression: m.compression.as_ref(),
            crc: m.crc.as_ref(),
            digest: m.digest.as_ref(),
            statistics: m.statistics.as_ref(),
        })
    }
}

/// The errors of a decoded SSTable that stop a check from being made: a CompressionInfo, CRC.db or
/// digest that did not decode, or a Statistics.db that did not decode at all.
pub fn blocking_errors(m: &SSTableMetadata) -> Vec<ErrorReport> {
    m.errors
        .iter()
        .filter(|e| match e.component() {
            Some(
                ComponentType::CompressionInfo | ComponentType::Crc | ComponentType::Digest(_),
            ) => true,
            Some(ComponentType::Statistics) => m.statistics.is_none(),
            _ => false,
        })
        .map(|e| ErrorReport {
            component: e.component().map(|c| c.file_suffix().to_owned()),
            offset: e.offset(),
            message: e.message(),
        })
        .collect()
}

/// How far the verification is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Progress {
    pub done_bytes: u64,
    pub total_bytes: u64,
}

struct CompressedPlan {
    compressor: Compressor,
    chunk_len: u64,
    data_len: u64,
    max_compressed: Option<u64>,
    offsets: Vec<u64>,
    algorithm: ChecksumType,
    /// Before `jb`, the chunk CRC32 covers the uncompressed bytes.
    over_uncompressed: bool,
    /// The longest stored chunk kept in memory for decompression.
    stored_limit_bytes: u64,
}

impl CompressedPlan {
    /// Uncompressed bytes `[start, end)` of chunk `i`.
    fn uncompressed_range(&self, i: usize) -> (u64, u64) {
        let start = (i as u64).saturating_mul(self.chunk_len);
        let len = self.data_len.saturating_sub(start).min(self.chunk_len);
        (start, start.saturating_add(len))
    }

    /// Where chunk `i` ends: the next chunk's offset, or the end of the file for the last.
    fn chunk_end(&self, i: usize, file_len: u64) -> u64 {
        i.checked_add(1)
            .and_then(|n| self.offsets.get(n).copied())
            .unwrap_or(file_len)
    }
}

struct CrcPlan {
    chunk_size: u64,
    checksums: Vec<u32>,
    algorithm: ChecksumType,
}

enum Layout {
    Compressed(CompressedPlan),
    Crc(CrcPlan),
    /// Uncompressed without (a usable) CRC.db: only the digest reads the bytes.
    Plain,
}

enum DigestState {
    Sum(Running),
    Sha1(Sha1),
}

enum DigestExpected {
    Sum(u32),
    Sha1(String),
}

struct DigestPlan {
    state: DigestState,
    expected: DigestExpected,
    /// Chunk checksums are appended instead of hashing the bytes a second time.
    combine: bool,
    check: Check,
}

impl DigestPlan {
    fn update(&mut self, bytes: &[u8]) {
        match &mut self.state {
            DigestState::Sum(s) => s.update(bytes),
            DigestState::Sha1(h) => h.update(bytes),
        }
    }
}

/// A compressed chunk that arrives over more than one supply.
struct PartialChunk {
    index: usize,
    start: u64,
    stored_end: u64,
    end: u64,
    sum: Running,
    /// Whether the stored bytes are copied into `Verifier::carry` (needed for decompression and
    /// no longer than the stored-chunk limit).
    keep: bool,
    trailer: [u8; 4],
    trailer_len: usize,
}

/// A CRC.db slice in progress.
struct CrcSlice {
    index: usize,
    start: u64,
    end: u64,
    sum: Running,
}

#[derive(Default, Clone, Copy)]
struct Timer {
    nanos: u64,
    bytes: u64,
}

impl Timer {
    fn add(&mut self, start_nanos: u64, clock: &dyn Clock, bytes: u64) {
        self.nanos = self
            .nanos
            .saturating_add(clock.now_nanos().saturating_sub(start_nanos));
        self.bytes = self.bytes.saturating_add(bytes);
    }
}

/// Verifies one SSTable; see the [module docs](self).
pub struct Verifier {
    file_len: u64,
    pos: u64,
    /// Where the bytes this verifier reads end: the file's end, or its [`DataSplit`]'s.
    range_end: u64,
    /// The part of Data.db this verifier reads, when it reads one part ([`Verifier::for_split`]).
    split: Option<DataSplit>,
    layout: Layout,
    /// Next compressed chunk to start, or next CRC.db slice.
    next_chunk: usize,
    partial: Option<PartialChunk>,
    crc_slice: Option<CrcSlice>,
    /// The first chunk of Data.db that has no CRC.db entry.
    first_unlisted_chunk: Option<(usize, u64)>,
    digest: Option<DigestPlan>,
    options: VerifyOptions,
    partitions: Vec<PartitionRange>,
    chunk_check: Option<Check>,
    crc_check: Option<Check>,
    decompress_check: Option<Check>,
    metadata_check: Option<Check>,
    checksum_time: Timer,
    decompress_time: Timer,
    digest_time: Timer,
    carry: Vec<u8>,
    out: Vec<u8>,
    max_buffered: usize,
    finalized: bool,
    /// Errors to carry into the report (components that did not decode).
    errors: Vec<ErrorReport>,
    /// Why a check cannot run (carried into the report).
    unverified: Vec<String>,
    /// Suspicious but valid things.
    findings: Vec<ErrorReport>,
}

impl core::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Verifier")
            .field("file_len", &self.file_len)
            .field("pos", &self.pos)
            .field("next_chunk", &self.next_chunk)
            .finish_non_exhaustive()
    }
}

fn algorithm_name(t: ChecksumType) -> &'static str {
    match t {
        ChecksumType::Crc32 => "crc32",
        ChecksumType::Adler32 => "adler32",
    }
}

impl Verifier {
    pub fn new(input: VerifyInput<'_>, options: VerifyOptions) -> Verifier {
        let version = input.version;
        let file_len = input.data_file_len_bytes;
        let mut crc_check = None;
        let layout = if let Some(ci) = input.compression {
            Layout::Compressed(compressed_plan(ci, &version))
        } else if let Some(crc) = input.crc {
            let mut check = Check::new(
                ComponentType::Crc.file_suffix(),
                CheckKind::CrcDb,
                algorithm_name(crc.algorithm),
            );
            let chunk_size = u64::from(crc.chunk_size_bytes.value);
            let layout = if chunk_size == 0 {
                check.fail(Failure {
                    kind: FindingKind::CrcDb,
                    chunk: None,
                    offset: 0,
                    length: file_len,
                    expected: "a chunk size > 0".to_owned(),
                    actual: "0".to_owned(),
                    partitions: Vec::new(),
                    message: "CRC.db gives a chunk size of 0: its checksums cannot be placed"
                        .to_owned(),
                });
                Layout::Plain
            } else {
                Layout::Crc(CrcPlan {
                    chunk_size,
                    checksums: crc.checksums.clone(),
                    algorithm: crc.algorithm,
                })
            };
            crc_check = Some(check);
            layout
        } else {
            Layout::Plain
        };
        let chunk_check = match &layout {
            Layout::Compressed(p) => Some(Check::new(
                ComponentType::Data.file_suffix(),
                CheckKind::Chunk,
                algorithm_name(p.algorithm),
            )),
            _ => None,
        };
        let decompress_check = match &layout {
            Layout::Compressed(p) if options.decompress => Some(Check::new(
                ComponentType::Data.file_suffix(),
                CheckKind::Decompress,
                p.compressor.codec_name(),
            )),
            _ => None,
        };
        let digest = input.digest.map(|d| digest_plan(d, &layout));
        let metadata_check = input
            .statistics
            .filter(|_| version.has_metadata_checksum())
            .map(metadata_check);
        Verifier {
            file_len,
            pos: 0,
            range_end: file_len,
            split: None,
            layout,
            next_chunk: 0,
            partial: None,
            crc_slice: None,
            first_unlisted_chunk: None,
            digest,
            options,
            partitions: Vec::new(),
            chunk_check,
            crc_check,
            decompress_check,
            metadata_check,
            checksum_time: Timer::default(),
            decompress_time: Timer::default(),
            digest_time: Timer::default(),
            carry: Vec::new(),
            out: Vec::new(),
            max_buffered: 0,
            finalized: false,
            errors: Vec::new(),
            unverified: Vec::new(),
            findings: Vec::new(),
        }
    }

    /// A verifier for a decoded SSTable, carrying its [`blocking_errors`] and
    /// [`unverifiable_reasons`] into the report; `None` when the SSTable has no Data.db.
    pub fn for_sstable(m: &SSTableMetadata, options: VerifyOptions) -> Option<Verifier> {
        let mut v = Verifier::new(VerifyInput::from_metadata(m)?, options);
        v.errors = blocking_errors(m);
        v.unverified = unverifiable_reasons(m);
        v.findings.extend(run::extra_chunk_finding(m));
        Some(v)
    }

    /// Partition ranges in the uncompressed stream, so failures can name the partitions whose
    /// bytes they touch.
    pub fn with_partitions(mut self, mut partitions: Vec<PartitionRange>) -> Verifier {
        partitions.sort_by_key(|p| (p.start, p.end));
        self.partitions = partitions;
        self
    }

    /// The next Data.db byte range to supply, as `(offset, length)`; `None` when all of Data.db
    /// has been supplied.
    fn next_data_read(&self) -> Option<(u64, u64)> {
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
        Some((self.pos, end.saturating_sub(self.pos)))
    }

    /// Hands over Data.db bytes `[offset, offset + bytes.len())`. `offset` must be where the
    /// previous supply ended (0 at first); any non-empty length up to the end of the file is
    /// accepted, though `next_read`'s ranges keep chunks whole.
    fn supply_data(&mut self, offset: u64, bytes: &[u8], clock: &dyn Clock) -> crate::Result<()> {
        let len = bytes.len() as u64;
        let fits = offset
            .checked_add(len)
            .is_some_and(|end| end <= self.range_end);
        if offset != self.pos || len == 0 || !fits {
            let (start, want) = self.next_data_read().unwrap_or((self.pos, 0));
            return Err(Error::new(
                ErrorKind::MissingBytes {
                    wanted_start: start,
                    wanted_end: start.saturating_add(want),
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
    fn digest_only(&mut self, bytes: &[u8], clock: &dyn Clock) {
        if let Some(d) = self.digest.as_mut().filter(|d| d.combine) {
            let t = clock.now_nanos();
            d.update(bytes);
            self.digest_time.add(t, clock, bytes.len() as u64);
        }
    }

    fn step_compressed(&mut self, rest: &[u8], clock: &dyn Clock) -> usize {
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
                        ),
                    });
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
                        ),
                    });
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
                        },
                    });
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
    fn continue_chunk(&mut self, rest: &[u8], clock: &dyn Clock) -> usize {
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
    fn finish_chunk(
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
                    ),
                });
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

    fn step_crc(&mut self, rest: &[u8], clock: &dyn Clock) -> usize {
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

    fn finish_crc_slice(&mut self, s: CrcSlice, clock: &dyn Clock) {
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
                            ),
                        });
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

    /// Keys of the partitions overlapping uncompressed bytes `[start, end)`.
    fn overlapping(&self, (start, end): (u64, u64)) -> Vec<String> {
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
    fn finalize(&mut self) {
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

    /// The report, whether or not all of Data.db was supplied (if not, `complete` is false, the
    /// digest is not compared and `valid` is false).
    pub fn finish(mut self, sstable: &str) -> VerifyReport {
        self.finalize();
        let complete = self.is_done();
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
            timings,
            unverified,
            findings: self.findings,
            errors: self.errors,
        };
        report.recompute_valid();
        report
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
            .map(|(offset, len)| ByteRange::new(ComponentType::Data, offset, len))
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

fn compressed_plan(ci: &CompressionInfo, version: &Version) -> CompressedPlan {
    let chunk_len = u64::from(ci.chunk_length_bytes.value);
    CompressedPlan {
        compressor: Compressor::from_class_name(&ci.compressor),
        chunk_len,
        data_len: ci.data_length_bytes.value,
        max_compressed: ci
            .max_compressed_length_bytes
            .as_ref()
            .map(|m| u64::from(m.value)),
        offsets: ci.chunk_offsets.clone(),
        algorithm: ChecksumType::for_compressed_chunks(version),
        over_uncompressed: version.format() == Format::Big
            && !version.is_dse()
            && version.as_str() < "jb",
        // Above every codec's worst case (LZ4 n + n/255 + 16, Snappy 32 + n + n/6, zlib
        // n + n/4096 + … + 13, zstd n + n/256 + …) and a na+ raw chunk padded to the chunk length.
        // At most MAX_CHUNK_BYTES of uncompressed chunk are trusted with memory.
        stored_limit_bytes: {
            let n = chunk_len.min(MAX_CHUNK_BYTES);
            n.saturating_add(n / 4).saturating_add(4096)
        },
    }
}

fn digest_plan(d: &Digest, layout: &Layout) -> DigestPlan {
    let component = ComponentType::Digest(d.file_algorithm);
    let (state, expected, sum_type) = match &d.value {
        DigestValue::Sha1 { hex, .. } => (
            DigestState::Sha1(Sha1::new()),
            DigestExpected::Sha1(hex.value.clone()),
            None,
        ),
        DigestValue::Checksum(v) => {
            // The effective algorithm: Adler32 for a decimal value in a `Digest.sha1`.
            let t = d.checksum_type().unwrap_or(ChecksumType::Adler32);
            (
                DigestState::Sum(Running::new(t)),
                DigestExpected::Sum(v.value),
                Some(t),
            )
        }
    };
    let combine = match (sum_type, layout) {
        (Some(t), Layout::Compressed(p)) => !p.over_uncompressed && p.algorithm == t,
        (Some(t), Layout::Crc(p)) => p.algorithm == t,
        _ => false,
    };
    DigestPlan {
        state,
        expected,
        combine,
        check: Check::new(
            component.file_suffix(),
            CheckKind::Digest,
            sum_type.map_or("sha1", algorithm_name),
        ),
    }
}

/// The na+ metadata CRCs, as the Statistics decoder computed them.
fn metadata_check(s: &Statistics) -> Check {
    let mut check = Check::new(
        ComponentType::Statistics.file_suffix(),
        CheckKind::Metadata,
        algorithm_name(ChecksumType::Crc32),
    );
    for c in &s.checksums {
        check.checked = check.checked.saturating_add(1);
        if c.ok {
            continue;
        }
        let offset = c.covered.first().map_or(c.stored.span.start, |s| s.start);
        let end = c.covered.last().map_or(offset, |s| s.end).max(offset);
        check.fail(Failure {
            kind: FindingKind::Metadata,
            chunk: None,
            offset,
            length: end.saturating_sub(offset),
            expected: c.stored.value.to_string(),
            actual: c.computed.to_string(),
            partitions: Vec::new(),
            message: format!(
                "CRC32 of the {} (Statistics.db {offset}..{end}), stored at {}: stored {:#010x}, computed {:#010x}",
                c.part, c.stored.span.start, c.stored.value, c.computed
            ),
        });
    }
    check
}
