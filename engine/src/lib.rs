//! Sans-I/O decoder for Apache Cassandra and ScyllaDB SSTable files.
//!
//! The engine never touches a file system, a clock or a thread: callers hand it bytes (whole small
//! components, or the byte ranges it asks for in large ones) and a [`clock::Clock`]. It builds for
//! `wasm32-unknown-unknown` (the web app) and natively (the `sstable-inspect` CLI).
//!
//! Module map: primitives ([`reader`], [`error`], [`span`], [`version`], [`clock`]) and one module
//! per concept ([`descriptor`] for file names, [`component`], [`toc`], [`sstable_set`] for grouping).
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::unreachable
    )
)]

#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod analytics;
pub mod byte_range;
pub mod checked_data;
#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod checksum;
#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod clock;
pub mod component;
pub mod compress;
#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod cql_schema;
pub mod crosscheck;
#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod datetime;
pub mod descriptor;
#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod dump;
#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod error;
pub mod hash;
pub mod index_listing;
pub mod info;
#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod load;
pub mod lookup;
#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod merge;
pub mod metadata;
#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod range;
pub mod reader;
pub mod repair;
#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod scrub;
pub mod snapshot;
pub mod sort;
pub mod span;
#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod sstable_set;
pub mod toc;
pub mod token;
pub mod types;
pub mod verify;
#[cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
pub mod version;
pub mod write;

pub use component::ComponentType;
pub use error::{Error, ErrorKind, Result};
pub use span::{Node, Span, Spanned};
pub use version::{Format, Version};
