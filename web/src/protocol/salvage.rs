//! What a salvage answers ([`crate::protocol::Reply::Salvaged`]): the engine's scrub report as
//! the page shows it (`sstable_engine::scrub::ScrubReport`, put in words by the worker) and the
//! new SSTables' files, made in the worker (`crate::worker`'s scrub) as `File`s.

use serde::{Deserialize, Serialize};

use super::FileRef;

/// A partition the scrub did not keep as it was (`sstable_engine::scrub::DroppedPartition`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SalvageProblem {
    /// The key as cqlsh prints it, or why it is unknown.
    pub key: String,
    pub token: String,
    /// `chunk checksum`, `undecodable`, `out of order`, `duplicate key`, `not writable`.
    pub kind: String,
    pub reason: String,
    /// Uncompressed Data.db range `[start, end)` (end unknown: `None`).
    pub start: u64,
    pub end: Option<u64>,
    /// Rows and markers decoded before the error and kept ("cut short").
    pub rows_kept: u64,
    /// The segregated output it went to, if any.
    pub segregated_to: Option<u64>,
    /// What became of it: dropped, cut short, segregated, found.
    pub outcome: String,
}

/// One SSTable written: its file-name prefix (`nb-2-big`) and its components' files.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SalvageOutput {
    pub prefix: String,
    pub partitions: u64,
    pub rows: u64,
    pub files: Vec<FileRef>,
}

/// A finished salvage.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Salvage {
    /// The scrub found nothing wrong (every check ran).
    pub clean: bool,
    pub partitions_read: u64,
    pub partitions_kept: u64,
    pub rows_kept: u64,
    pub problems: Vec<SalvageProblem>,
    /// What else the report says (bytes left unread, an abort, an error, unchecked bytes).
    pub notes: Vec<String>,
    pub outputs: Vec<SalvageOutput>,
    /// Every output's files in one uncompressed tar (`<prefix>/<file>`), or `None` when no output
    /// was written.
    pub archive: Option<FileRef>,
    /// The report as `sstable-inspect scrub --json` prints it.
    pub report_json: String,
    /// The worker's WebAssembly memory when the salvage ended: its peak, since that memory only
    /// grows (the outputs' bytes left it in parts, as `File`s).
    pub wasm_memory_bytes: f64,
}
