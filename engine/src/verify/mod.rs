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
//! (`crc32fast::Hasher::combine`, or the Adler32 combination in `running_checksum.rs`), and only the 4
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

mod chunks;
mod crc_slices;
mod plan;
mod preconditions;
mod reads;
mod report;
mod running_checksum;
mod split;
mod verdict;
mod verify_run;

pub use preconditions::unverifiable_reasons;
pub use report::{
    Check, CheckKind, Coverage, Failure, FindingKind, Phase, PhaseTiming, Verdict, VerifyReport,
    MAX_LISTED_FAILURES,
};
pub use split::{DataSplit, RangeChecksum, SplitOutcome};
pub use verify_run::VerifyRun;

use serde::Serialize;

use crate::clock::Clock;
use crate::component::compression_info::CompressionInfo;
use crate::component::crc::{ChecksumType, CrcFile};
use crate::component::digest::Digest;
use crate::component::statistics::Statistics;
use crate::component::ComponentType;
use crate::compress::Compressor;
use crate::info::{ErrorReport, SSTableMetadata};
use crate::version::Version;
use running_checksum::Running;
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
    /// The Statistics.db bytes the metadata checksums cover.
    statistics_covered: Vec<crate::span::Span>,
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
