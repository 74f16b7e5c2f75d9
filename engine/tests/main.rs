//! The engine's native integration tests, one module per area, linked into one test binary
//! (one link instead of one per file keeps `cargo xtask test` fast). Tests that install their own
//! global allocator (`data_alloc`, `sweep`) and the browser tests (`browser`, wasm32 only) stay
//! separate binaries: see `[[test]]` in Cargo.toml.

mod common;

mod analytics;
mod checksum;
mod data;
mod filter;
mod fuzz_regressions;
mod grouping;
mod index_listing;
mod indexes;
mod info;
mod legacy_data;
mod lookup;
mod merge;
mod merge_legacy;
mod merge_seek;
mod repair;
mod scrub;
mod scylla;
mod scylla_ms;
mod small_components;
mod statistics;
mod types;
mod values;
mod verify;
mod write;
mod zombies;
