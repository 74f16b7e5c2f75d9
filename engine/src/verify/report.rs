//! The verification report: one [`VerifyReport`] per SSTable, serialized as the stable JSON of
//! `sstable-inspect verify --json`.
//!
//! ```json
//! {"sstable": "…/nb-1-big", "verdict": "invalid", "valid": false, "complete": true,
//!  "checks": [{"component": "Data.db", "kind": "chunk", "algorithm": "crc32", "checked": 21,
//!              "ok": false, "failed": 1,
//!              "failures": [{"kind": "chunk", "chunk": 1, "offset": 424, "length": 408,
//!                            "expected": "…", "actual": "…", "partitions": ["0"], "message": "…"}]}],
//!  "timings": [{"phase": "checksum", "nanos": 0, "bytes": 0, "mb_per_s": null}],
//!  "unverified": [], "findings": [], "errors": []}
//! ```
//!
//! | `verdict` | when | CLI exit |
//! |---|---|---|
//! | `valid` | every check the SSTable calls for ran over all its bytes and passed | 0 |
//! | `invalid` | a check failed | 1 |
//! | `not_verifiable` | a check could not run (`unverified` says why: a component listed in TOC.txt or required by the version missing or undecodable, a chunk table inconsistent with the data length, Statistics.db metadata CRCs unchecked, verification stopped early, a read error) | 1 |
//!
//! `valid` is `verdict == "valid"`; `complete` is true when every check ran to its end (nothing in
//! `unverified`, no error). `findings` are suspicious-but-valid things (e.g. a CRC.db entry for an
//! empty final chunk).
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
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::{Deserialize, Serialize};

use crate::info::ErrorReport;

/// At most this many failures are listed per check; `failed` counts them all.
pub const MAX_LISTED_FAILURES: usize = 1000;

/// What a check compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    Chunk,
    CrcDb,
    Digest,
    Metadata,
    Decompress,
}

impl CheckKind {
    /// In words, as the coverage list names a check.
    pub fn describe(self) -> &'static str {
        match self {
            CheckKind::Chunk => "chunk checksums",
            CheckKind::CrcDb => "CRC.db checksums",
            CheckKind::Digest => "digest",
            CheckKind::Metadata => "metadata checksums",
            CheckKind::Decompress => "decompression",
        }
    }
}

/// What a single failure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
        self.failed = self.failed.saturating_add(1);
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

/// The three outcomes of a verification (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every check ran and passed.
    Valid,
    /// A check failed.
    Invalid,
    /// A check could not run.
    NotVerifiable,
}

impl Verdict {
    /// `"valid"`, `"invalid"`, `"not verifiable"`.
    pub fn describe(self) -> &'static str {
        match self {
            Verdict::Valid => "valid",
            Verdict::Invalid => "invalid",
            Verdict::NotVerifiable => "not verifiable",
        }
    }
}

/// The verification of one SSTable.
/// Bytes of one component that one check compared (`passed`: the comparison held for all of
/// them). The verdict by coverage: `valid` needs every byte of Data.db (and of Statistics.db's
/// checksummed metadata, where the version has it) in a range whose check passed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// The check, as `checks` names it: its component and kind (`"Digest.crc32 digest"`).
    pub check: String,
    /// The file whose bytes were compared (`"Data.db"`, or `"Data.db (uncompressed)"` for the
    /// decompression check).
    pub component: String,
    pub start: u64,
    pub end: u64,
    pub passed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyReport {
    pub sstable: String,
    pub verdict: Verdict,
    /// `verdict` is [`Verdict::Valid`].
    pub valid: bool,
    /// Every check ran to its end: all of Data.db was supplied, nothing is in `unverified` and
    /// nothing failed to load.
    pub complete: bool,
    /// Data.db size, and how much of it was verified.
    pub data_bytes: u64,
    pub verified_bytes: u64,
    pub checks: Vec<Check>,
    /// Which checks covered which byte ranges.
    pub coverage: Vec<Coverage>,
    pub timings: Vec<PhaseTiming>,
    /// Why a check could not run, in words (empty when every check ran).
    pub unverified: Vec<String>,
    /// Suspicious but valid things (an extra CRC.db entry for an empty final chunk).
    pub findings: Vec<ErrorReport>,
    /// Components that could not be read or decoded, and I/O errors the caller adds.
    pub errors: Vec<ErrorReport>,
}

impl VerifyReport {
    /// A report for an SSTable that could not be verified at all.
    pub fn not_verifiable(sstable: &str, reason: impl Into<String>) -> VerifyReport {
        let mut r = VerifyReport {
            sstable: sstable.to_owned(),
            verdict: Verdict::NotVerifiable,
            valid: false,
            complete: false,
            data_bytes: 0,
            verified_bytes: 0,
            checks: Vec::new(),
            coverage: Vec::new(),
            timings: Vec::new(),
            unverified: vec![reason.into()],
            findings: Vec::new(),
            errors: Vec::new(),
        };
        r.recompute_valid();
        r
    }

    /// Adds an error (an unreadable file, say): a check could not run, so the SSTable is not
    /// verifiable unless a check failed.
    pub fn push_error(&mut self, component: Option<&str>, offset: u64, message: impl Into<String>) {
        self.errors.push(ErrorReport {
            component: component.map(str::to_owned),
            offset,
            message: message.into(),
        });
        self.recompute_valid();
    }

    /// Adds a reason a check could not run.
    pub fn push_unverified(&mut self, reason: impl Into<String>) {
        self.unverified.push(reason.into());
        self.recompute_valid();
    }

    /// The failed checks.
    pub fn failed_checks(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.ok)
    }

    /// The (first) check of `kind`, if it was made.
    pub fn check(&self, kind: CheckKind) -> Option<&Check> {
        self.checks.iter().find(|c| c.kind == kind)
    }

    /// Recomputes `verdict`, `valid` and `complete` from the checks, `unverified` and `errors`.
    pub(crate) fn recompute_valid(&mut self) {
        let all_read = self.verified_bytes >= self.data_bytes;
        self.complete = all_read && self.unverified.is_empty() && self.errors.is_empty();
        self.verdict = if self.checks.iter().any(|c| !c.ok) {
            Verdict::Invalid
        } else if self.complete {
            Verdict::Valid
        } else {
            Verdict::NotVerifiable
        };
        self.valid = self.verdict == Verdict::Valid;
    }
}
