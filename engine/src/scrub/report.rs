//! What a scrub reports: partitions kept, dropped or segregated (key, token, reason, byte
//! range), rows kept from partitions cut short, and each output SSTable's summary.

use serde::Serialize;

use super::ScrubMode;
use crate::write::WriteSummary;

/// Why a partition is named in the report.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// It lies (at least partly) in a chunk whose checksum fails.
    ChunkChecksum,
    /// Its bytes do not decode.
    Undecodable,
    /// Its token is below the previous partition's.
    OutOfOrder,
    /// Its key equals the previous partition's.
    DuplicateKey,
    /// It decodes, but the writer cannot write it.
    NotWritable,
}

impl ProblemKind {
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::ChunkChecksum => "chunk checksum",
            ProblemKind::Undecodable => "undecodable",
            ProblemKind::OutOfOrder => "out of order",
            ProblemKind::DuplicateKey => "duplicate key",
            ProblemKind::NotWritable => "not writable",
        }
    }
}

/// A partition the scrub did not keep as it was.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct DroppedPartition {
    /// The key as cqlsh prints it, when known (from Data.db or the index).
    pub key: Option<String>,
    /// The raw key in hex, when known.
    pub key_hex: Option<String>,
    pub token: Option<String>,
    pub kind: ProblemKind,
    /// The error, in words.
    pub reason: String,
    /// Uncompressed Data.db range: from the partition's start to the next partition's start
    /// (or the data's end); `end` is `None` when no later partition could be located.
    pub start: u64,
    pub end: Option<u64>,
    /// Rows and markers decoded before the error and written ("cut short"); 0 when the whole
    /// partition was dropped.
    pub rows_kept: u64,
    /// Segregate: the output SSTable it was written to (1, 2, …).
    pub segregated_to: Option<usize>,
    /// Partitions the index lists inside this range whose keys could not be read (this one
    /// included when its key is unknown): BTI partitions without a row index keep their key
    /// only in their Data.db header.
    pub unnamed_partitions: u64,
}

impl DroppedPartition {
    /// Whether part of the partition was kept.
    pub fn is_cut_short(&self) -> bool {
        self.rows_kept > 0
    }

    /// What became of it, in words (`writes`: the scrub wrote SSTables).
    pub fn outcome(&self, writes: bool) -> String {
        if let Some(o) = self.segregated_to {
            format!("segregated to output {o}")
        } else if self.is_cut_short() {
            format!("cut short ({} rows kept)", self.rows_kept)
        } else if writes {
            "dropped".to_owned()
        } else {
            "found".to_owned()
        }
    }
}

/// One SSTable written.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct OutputReport {
    /// 0: the scrubbed SSTable; 1…: segregated ones.
    pub output: usize,
    pub partitions: u64,
    pub rows: u64,
    pub data_length: u64,
    pub components: Vec<String>,
}

impl OutputReport {
    pub fn new(output: usize, summary: &WriteSummary) -> OutputReport {
        OutputReport {
            output,
            partitions: summary.partitions,
            rows: summary.rows,
            data_length: summary.data_length,
            components: summary
                .components
                .iter()
                .map(|c| c.file_suffix().to_string())
                .collect(),
        }
    }
}

/// The outcome of a scrub.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ScrubReport {
    pub mode: ScrubMode,
    /// The version written.
    pub version: String,
    /// Partitions whose header was read (kept, dropped, segregated or cut short).
    pub partitions_read: u64,
    /// Partitions written whole to output 0.
    pub partitions_kept: u64,
    /// Rows and markers written (every output).
    pub rows_kept: u64,
    /// Problem partitions in Data.db order.
    pub problems: Vec<DroppedPartition>,
    /// Data.db bytes not read at all (no index to resynchronise from): `(start, end)`.
    pub unread: Option<(u64, u64)>,
    /// Whether the index was used to resynchronise.
    pub used_index: bool,
    /// Whether every Data.db byte read was checked against a checksum first (compressed chunks,
    /// or an uncompressed file's CRC.db). When not, a corrupt byte that still decodes is kept:
    /// the scrub says so and is never clean.
    pub data_checksums_checked: bool,
    /// `abort`: the problem that stopped the scrub.
    pub aborted: Option<String>,
    /// A problem the scrub could not get past (the index unreadable, an output not written).
    pub error: Option<String>,
    pub outputs: Vec<OutputReport>,
}

impl ScrubReport {
    /// A report with nothing found yet.
    pub fn new(mode: ScrubMode, version: &str) -> ScrubReport {
        ScrubReport {
            mode,
            version: version.to_string(),
            partitions_read: 0,
            partitions_kept: 0,
            rows_kept: 0,
            problems: Vec::new(),
            unread: None,
            used_index: false,
            data_checksums_checked: false,
            aborted: None,
            error: None,
            outputs: Vec::new(),
        }
    }

    /// No problem found, nothing left unread, and every byte read checked.
    pub fn is_clean(&self) -> bool {
        self.data_checksums_checked
            && self.problems.is_empty()
            && self.unread.is_none()
            && self.aborted.is_none()
            && self.error.is_none()
    }

    /// What the report says besides its partitions, one sentence each: Data.db bytes not
    /// checked, bytes not read, the abort, the error.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.data_checksums_checked {
            notes.push(
                "Data.db not checked: it has no chunk checksums (uncompressed without CRC.db), \
                 so a corrupt byte that still decodes was kept"
                    .to_owned(),
            );
        }
        if let Some((start, end)) = self.unread {
            notes.push(format!("not read: Data.db {start}..{end}"));
        }
        if let Some(a) = &self.aborted {
            notes.push(format!("aborted: {a} (nothing kept)"));
        }
        if let Some(e) = &self.error {
            notes.push(format!("error: {e}"));
        }
        notes
    }

    /// Problems of `kind`.
    pub fn problems_of(&self, kind: ProblemKind) -> impl Iterator<Item = &DroppedPartition> {
        self.problems.iter().filter(move |p| p.kind == kind)
    }
}
