//! A finished verification as a worker answers it ([`crate::protocol::Reply::Verified`]): the
//! engine's checks and verdict, with what the worker measured.

use serde::{Deserialize, Serialize};
use sstable_engine::verify::Check;

/// The verdict of one verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// Every check ran and passed.
    Valid,
    /// A check failed.
    Invalid,
    /// A check could not run; why.
    NotVerifiable(String),
    /// Stopped before the end.
    Cancelled,
}

impl Verdict {
    /// `valid`, `invalid`, `not-verifiable` or `cancelled` (CSS class and test attribute).
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Valid => "valid",
            Verdict::Invalid => "invalid",
            Verdict::NotVerifiable(_) => "not-verifiable",
            Verdict::Cancelled => "cancelled",
        }
    }
}

/// Time of one phase (from the engine's report, measured in the worker).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseRun {
    pub phase: String,
    pub millis: f64,
    pub bytes: u64,
}

/// What one worker did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerTiming {
    /// Its place in the pool.
    pub worker: usize,
    pub bytes: u64,
    pub millis: f64,
    /// The worker's WebAssembly memory at the end (it only grows: its peak).
    pub wasm_memory_bytes: f64,
    /// The part of Data.db it verified (bytes `start..end`), when Data.db was split.
    pub range: Option<(u64, u64)>,
    /// That part's compressed chunks (or CRC.db slices) `first..end`.
    pub chunks: Option<(u64, u64)>,
}

/// A finished verification of one SSTable, made in a worker, with what it measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyRun {
    pub sstable: String,
    pub verdict: Verdict,
    pub complete: bool,
    pub data_bytes: u64,
    pub verified_bytes: u64,
    /// The engine's checks, as it reported them.
    pub checks: Vec<Check>,
    /// Components that could not be read or decoded, in words with component and offset.
    pub errors: Vec<String>,
    pub timings: Vec<PhaseRun>,
    /// `FileReaderSync` reads of Data.db: time and bytes.
    pub read_millis: f64,
    pub read_bytes: u64,
    /// One raw crc32fast pass over the same bytes, when asked for.
    pub raw_crc32_millis: Option<f64>,
    pub total_millis: f64,
    pub workers: Vec<WorkerTiming>,
    /// The worker that combined the parts (and named failing chunks' partitions), when split.
    pub combine: Option<WorkerTiming>,
    /// Which CRC32 code ran (`sstable_engine::checksum::implementation`).
    pub crc32_implementation: String,
    /// The engine's report as JSON (the `verify --json` shape), for the export.
    pub report_json: String,
}

impl VerifyRun {
    /// From the engine's report.
    pub fn from_report(r: &sstable_engine::verify::VerifyReport, cancelled: bool) -> VerifyRun {
        let errors: Vec<String> = r
            .errors
            .iter()
            .map(|e| {
                format!(
                    "{} at offset {}: {}",
                    e.component.as_deref().unwrap_or("?"),
                    e.offset,
                    e.message
                )
            })
            .collect();
        // The engine's verdict; a run stopped by the user is "cancelled", not "not verifiable".
        let verdict = match r.verdict {
            _ if cancelled => Verdict::Cancelled,
            sstable_engine::verify::Verdict::Valid => Verdict::Valid,
            sstable_engine::verify::Verdict::Invalid => Verdict::Invalid,
            sstable_engine::verify::Verdict::NotVerifiable => {
                let why: Vec<&str> = r
                    .unverified
                    .iter()
                    .chain(&errors)
                    .map(String::as_str)
                    .collect();
                Verdict::NotVerifiable(if why.is_empty() {
                    "Data.db was not read to its end".to_owned()
                } else {
                    why.join("; ")
                })
            }
        };
        VerifyRun {
            sstable: r.sstable.clone(),
            verdict,
            complete: r.complete,
            data_bytes: r.data_bytes,
            verified_bytes: r.verified_bytes,
            checks: r.checks.clone(),
            errors,
            timings: r
                .timings
                .iter()
                .map(|t| PhaseRun {
                    phase: format!("{:?}", t.phase).to_lowercase(),
                    millis: t.nanos as f64 / 1e6,
                    bytes: t.bytes,
                })
                .collect(),
            read_millis: 0.0,
            read_bytes: 0,
            raw_crc32_millis: None,
            total_millis: 0.0,
            workers: Vec::new(),
            combine: None,
            crc32_implementation: sstable_engine::checksum::implementation().to_owned(),
            report_json: serde_json::to_string(r).unwrap_or_default(),
        }
    }

    /// A verification that could not start.
    pub fn not_verifiable(sstable: &str, why: &str) -> VerifyRun {
        // The engine's own not-verifiable report, so the verdict and the export keep its shape.
        let report = sstable_engine::verify::VerifyReport::not_verifiable(sstable, why);
        VerifyRun::from_report(&report, false)
    }

    pub fn valid(&self) -> bool {
        self.verdict == Verdict::Valid
    }
}
