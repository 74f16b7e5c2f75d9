//! The verification report: one [`VerifyReport`] per SSTable, serialized as the stable JSON of
//! `sstable-inspect verify --json`.
//!
//! ```json
//! {"sstable": "…/nb-1-big", "valid": false, "complete": true,
//!  "checks": [{"component": "Data.db", "kind": "chunk", "algorithm": "crc32", "checked": 21,
//!              "ok": false, "failed": 1,
//!              "failures": [{"kind": "chunk", "chunk": 1, "offset": 424, "length": 408,
//!                            "expected": "…", "actual": "…", "partitions": ["0"], "message": "…"}]}],
//!  "timings": [{"phase": "checksum", "nanos": 0, "bytes": 0, "mb_per_s": null}],
//!  "errors": []}
//! ```
//!
//! | check `kind` | component | `algorithm` | one unit of `checked` |
//! |---|---|---|---|
//! | `chunk` | Data.db | `crc32` / `adler32` | a compressed chunk's trailing checksum |
//! | `crc_db` | CRC.db | `crc32` / `adler32` | one CRC.db entry against its slice of an uncompressed Data.db |
//! | `digest` | Digest.crc32 / .adler32 / .sha1 | `crc32` / `adler32` / `sha1` | the whole Data.db |
//! | `metadata` | Statistics.db | `crc32` | one na+ metadata CRC (count, table of contents, each component) |
//! | `decompress` | Data.db | the codec (`lz4`, `snappy`, `deflate`, `zstd`, `noop`) | one chunk decompressed (`--decompress`) |
//!
//! A failure's `kind` is its check's kind, or `truncated` (a chunk the file is too short for) or
//! `decompress`. Checksums are printed as unsigned decimal (as digest files store them), SHA-1 as
//! hex. `chunk` is null for failures that are not about one chunk.

use serde::Serialize;

use crate::info::ErrorReport;

/// At most this many failures are listed per check; `failed` counts them all.
pub const MAX_LISTED_FAILURES: usize = 1000;

/// What a check compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    Chunk,
    CrcDb,
    Digest,
    Metadata,
    Decompress,
}

/// What a single failure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    Chunk,
    CrcDb,
    Digest,
    Metadata,
    Truncated,
    Decompress,
}

/// One failed comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub kind: FindingKind,
    /// The chunk index (compressed chunk or CRC.db entry); `None` for digest and metadata failures.
    pub chunk: Option<u64>,
    /// Absolute offset of the bytes concerned (in Data.db, or in Statistics.db for `metadata`).
    pub offset: u64,
    /// Their length: for a compressed chunk, the stored bytes without the 4-byte checksum.
    pub length: u64,
    pub expected: String,
    pub actual: String,
    /// Keys of the partitions whose uncompressed bytes overlap the chunk (when the caller gave
    /// partition ranges).
    pub partitions: Vec<String>,
    /// The failure in words.
    pub message: String,
}

/// One kind of check over one component.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// The file that stores the expected values.
    pub component: String,
    pub kind: CheckKind,
    pub algorithm: String,
    /// How many values were compared (chunks, CRC.db entries, 1 digest, metadata CRCs).
    pub checked: u64,
    pub ok: bool,
    /// Every failure, including those past the listed [`MAX_LISTED_FAILURES`].
    pub failed: u64,
    pub failures: Vec<Failure>,
    /// Why a check could not be made in full, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Check {
    pub(crate) fn new(component: &str, kind: CheckKind, algorithm: &str) -> Check {
        Check {
            component: component.to_owned(),
            kind,
            algorithm: algorithm.to_owned(),
            checked: 0,
            ok: true,
            failed: 0,
            failures: Vec::new(),
            note: None,
        }
    }

    pub(crate) fn fail(&mut self, failure: Failure) {
        self.ok = false;
        self.failed += 1;
        if self.failures.len() < MAX_LISTED_FAILURES {
            self.failures.push(failure);
        }
    }
}

/// A phase of the verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Fetching Data.db bytes: measured by the caller, not by the engine.
    Read,
    /// Chunk and CRC.db checksums.
    Checksum,
    Decompress,
    /// The whole-file digest. `bytes` is all of Data.db; when the digest is built from the chunk
    /// checksums only the 4-byte trailers and bytes outside chunks are hashed, so its rate is high.
    Digest,
}

/// Time spent in one phase, through the caller's clock.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseTiming {
    pub phase: Phase,
    pub nanos: u64,
    pub bytes: u64,
    /// Decimal megabytes (10^6 bytes) per second; `None` when no time was measured. The
    /// `decompress` phase counts uncompressed bytes, the others stored bytes.
    pub mb_per_s: Option<f64>,
}

impl PhaseTiming {
    pub fn new(phase: Phase, nanos: u64, bytes: u64) -> PhaseTiming {
        let mb_per_s = (nanos > 0).then(|| bytes as f64 * 1000.0 / nanos as f64);
        PhaseTiming {
            phase,
            nanos,
            bytes,
            mb_per_s,
        }
    }
}

/// The verification of one SSTable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyReport {
    pub sstable: String,
    /// Every byte was verified, every check passed and nothing failed to load.
    pub valid: bool,
    /// Whether the whole Data.db was supplied (false when the caller stopped early).
    pub complete: bool,
    /// Data.db size, and how much of it was verified.
    pub data_bytes: u64,
    pub verified_bytes: u64,
    pub checks: Vec<Check>,
    pub timings: Vec<PhaseTiming>,
    /// Components that could not be read or decoded, and I/O errors the caller adds.
    pub errors: Vec<ErrorReport>,
}

impl VerifyReport {
    /// Adds an error (an unreadable file, say) and marks the SSTable invalid.
    pub fn push_error(&mut self, component: Option<&str>, offset: u64, message: impl Into<String>) {
        self.errors.push(ErrorReport {
            component: component.map(str::to_owned),
            offset,
            message: message.into(),
        });
        self.valid = false;
    }

    /// The failed checks.
    pub fn failed_checks(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.ok)
    }

    /// The (first) check of `kind`, if it was made.
    pub fn check(&self, kind: CheckKind) -> Option<&Check> {
        self.checks.iter().find(|c| c.kind == kind)
    }

    pub(crate) fn recompute_valid(&mut self) {
        self.valid = self.complete && self.errors.is_empty() && self.checks.iter().all(|c| c.ok);
    }
}
