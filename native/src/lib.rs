//! The native side of the engine's sans-I/O boundary, written once for every native front end
//! (the CLI `sstable-inspect` and the Python package `sstable_inspect`).
//!
//! | module | what |
//! |---|---|
//! | [`files`] | SSTable discovery (a component file, a directory, a tree; grouping by descriptor), [`files::ComponentFiles`]: positioned, bounded reads of component files as the engine's `RangeSource`, and [`files::load_metadata`] |
//! | [`jobs`] | [`jobs::scan_split`]: a Data.db scan split into partition-aligned ranges run on threads, handed over in file order with every seam checked (the CLI's `--jobs`, Python's `jobs=`) |
//! | [`repair`] | [`repair::open_replica`]: one replica's SSTables merged for `sstable_engine::repair`'s validation, with its partition estimate |
//! | [`scrub`] | [`scrub::scrub_to_dir`]: the engine's scrub into a directory of new SSTable files |
//! | [`clock`] | [`clock::InstantClock`]: `std::time::Instant` as the engine's injected clock |
//!
//! The engine itself never touches `std::fs` or the system clock (it also runs on wasm32); the
//! browser's counterpart of this crate is the web app's loader.
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::unreachable,
        clippy::arithmetic_side_effects
    )
)]

pub mod clock;
pub mod files;
pub mod jobs;
pub mod repair;
pub mod scrub;
