//! The CLI's integration tests (they run the `sstable-inspect` binary), one module per command,
//! linked into one test binary.

#[path = "../../engine/tests/common/mod.rs"]
mod common;
mod support;

mod analytics;
mod atoms;
mod cli;
mod diff;
mod dump;
mod export;
mod generate;
mod info;
mod jobs;
mod lookup;
mod lookup_table;
mod read;
mod read_legacy;
mod sample;
mod scrub;
mod snapshot;
#[cfg(feature = "sql")]
mod sql;
mod verify;
mod zombies;
