//! The CLI's integration tests (they run the `sstable-inspect` binary), one module per command,
//! linked into one test binary.

#[path = "../../engine/tests/common/mod.rs"]
mod common;

mod analytics;
mod atoms;
mod cli;
mod diff;
mod dump;
mod export;
mod generate;
mod info;
mod lookup;
mod read;
mod sample;
mod verify;
