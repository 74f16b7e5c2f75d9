//! Scrub: an SSTable read partition by partition through the checked Data.db reader and written
//! again as a valid `nb` or `oa` SSTable, keeping what still decodes — Cassandra's
//! `sstablescrub` (`db/compaction/Scrubber.java`) and ScyllaDB's `scylla sstable scrub`
//! (`sstables/` scrub modes), re-implemented over this engine's decoder and writer.
//!
//! | problem | `skip` | `segregate` | `validate` | `abort` |
//! |---|---|---|---|---|
//! | a partition that does not decode, or lies in a chunk whose checksum fails | dropped (rows decoded before the error kept: "cut short") | dropped | reported | stop |
//! | a partition out of token order | dropped | written to a second SSTable, in key order | reported | stop |
//! | a key repeated | dropped | written to another SSTable | reported | stop |
//! | a partition the writer cannot write (null clustering value, shadowable deletion) | dropped | dropped | reported | stop |
//!
//! After an error the scrub resynchronises at the next partition the index lists (Index.db or
//! Partitions.db, read forward once, only after a first error); without a usable index it
//! stops and reports the rest of Data.db as unread. Memory is bounded by one partition (the
//! one being collected) plus the writers' bounded buffers; the input is only read.
//!
//! [`Scrubber`] speaks the byte-range protocol ([`RangeReader`](crate::range::RangeReader)), so
//! the sync driver (CLI, tests) and the async driver (the page) run it; each output SSTable's
//! components go to a [`ComponentSink`](crate::write::ComponentSink) the caller opens per output
//! (output 0 is the scrubbed SSTable, 1… the segregated ones).
//!
//! Pre-3.0 SSTables (`jb`, `ka`, `la`) have no serialization header: [`Scrubber::new`] refuses
//! them; [`LegacyRewriter`] rewrites an intact one with a schema from `CREATE TABLE`
//! ([`schema_from_cql`]), stopping at the first error.

mod legacy;
mod report;
mod run;

pub use legacy::{schema_from_cql, LegacyRewriter};
pub use report::{DroppedPartition, OutputReport, ProblemKind, ScrubReport};
pub use run::{ScrubOptions, Scrubber};

use serde::Serialize;

/// What the scrub does with a problem partition (ScyllaDB's `--scrub-mode`).
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ScrubMode {
    /// Drop problem partitions, write the rest.
    Skip,
    /// Like skip, but out-of-order and repeated partitions go to further SSTables, each in key
    /// order.
    Segregate,
    /// Only report: nothing is written.
    Validate,
    /// Stop at the first problem.
    Abort,
}

impl ScrubMode {
    pub fn parse(s: &str) -> Option<ScrubMode> {
        Some(match s {
            "skip" => ScrubMode::Skip,
            "segregate" => ScrubMode::Segregate,
            "validate" => ScrubMode::Validate,
            "abort" => ScrubMode::Abort,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            ScrubMode::Skip => "skip",
            ScrubMode::Segregate => "segregate",
            ScrubMode::Validate => "validate",
            ScrubMode::Abort => "abort",
        }
    }

    /// Whether SSTables are written.
    pub fn writes(self) -> bool {
        !matches!(self, ScrubMode::Validate)
    }
}
