//! Wire structures that several components share, each decoded in exactly one place (as
//! wasmparser has one reader per wire type). Components call these; none keeps a copy.
//!
//! | structure | module | used by |
//! |---|---|---|
//! | clustering prefix (`ClusteringPrefix`, `Clustering`, `ClusteringBound[OrBoundary]`) | [`clustering`] | Data.db rows and markers, Index.db `IndexInfo`, STATS' covered slice |
//! | a non-negative Java `int` count (`read_int_count`) | [`count`] | Summary.db entry count, CompressionInfo.db option and chunk counts, Filter.db word count |
//! | table of 4-byte offsets (entry spans, the rendered node; each component decodes its own encoding) | [`offset_table`] | Summary.db entry offsets, Index.db promoted-index `IndexInfo` offsets |
//! | `DeletionTime` (12-byte pre-`oa` form, `oa` form with the `0x80` LIVE byte), `LocalDeletionTime` | [`deletion`] | Data.db partition header (delta-encoded: rows, cells, markers), legacy Data.db range tombstones, Index.db entries and `IndexInfo`, STATS |
//!
//! Shared helpers elsewhere: spans through [`Reader::spanned`](crate::reader::Reader::spanned),
//! hex in JSON through [`span::serialize_hex`](crate::span::serialize_hex), calendar dates through
//! [`datetime::civil_from_days`](crate::datetime::civil_from_days).
//!
//! # API
//!
//! **Clustering prefixes.** Resolve the per-SSTable type facts once:
//! `let fixed = fixed_value_lengths(&clustering_types);` (a `Vec<Option<u32>>`) and
//! `let layout = ClusteringLayout::new(&fixed)` (optionally `.with_max_value_bytes(n)`; default
//! 256 MiB like Cassandra's `max_value_size`). Then, on a [`Reader`](crate::reader::Reader) over
//! the input:
//!
//! - [`ClusteringPrefix::read_clustering`]: a row's clustering (no kind, no size);
//! - [`ClusteringPrefix::read_bound_or_boundary`]: a range tombstone marker's bound (kinds
//!   0, 1, 2, 5, 6, 7);
//! - [`ClusteringPrefix::read_bound`]: a `Slice` bound (kinds 0, 1, 6, 7);
//! - [`ClusteringPrefix::read_prefix`]: `IndexInfo`'s names (kind 4 = values without size; any
//!   other kind Cassandra writes = size + values).
//!
//! [`read_value`] is `AbstractType.readValue` (fixed length, or a capped vint length, then the
//! bytes, borrowed): clustering values and Data.db cell values both go through it.
//!
//! Each checks kind, size (≤ clustering columns), headers, lengths and the value cap once,
//! allocates nothing, and returns a [`ClusteringPrefix<'a>`] that borrows the input (and
//! the layout). [`ClusteringPrefix::values`] yields [`ClusteringValue<'a>`]: `index`, `state`
//! (present / empty / null), `bytes: &'a [u8]` (without length prefix) and the absolute `span`
//! (length prefix + bytes); [`ClusteringPrefix::headers`] yields the empty/null header vints with
//! spans. [`ClusteringPrefix::to_owned`] gives the serde-serialisable [`ClusteringPrefixBuf`]
//! (values as [`ClusteringValueBuf`], bytes as hex in JSON) for callers that keep it.
//! [`ClusteringPrefixKind`] is the one kind enum (ordinals, Cassandra names, `is_bound`,
//! `is_boundary`, `is_start`, `is_marker_kind`, `is_serializable`).
//!
//! **Deletion times.** [`DeletionTime::read`] reads the version's fixed form
//! (`decode_legacy` / `decode_uint` directly); [`DeletionTime::is_live`] is Cassandra's
//! `isLive()` (markedForDeleteAt `i64::MIN` and no local deletion time);
//! [`DeletionTime::deletes_nothing`] (markedForDeleteAt `i64::MIN` only) is what Data.db's
//! delta-encoded times are judged by, because a complex deletion that deletes nothing may carry
//! a garbage local deletion time (CASSANDRA-21333). Delta-encoded deletion
//! times (rows, cells, markers) are read by `component::data` against its EncodingStats and built
//! as a [`DeletionTime`] with [`DeletionTimeEncoding::Delta`]. [`LocalDeletionTime`] keeps the 32
//! stored bits with their signed (before `oa`) or unsigned reading: `is_none`, `is_invalid`,
//! `expiry_secs`, `display`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

pub mod clustering;
pub mod count;
pub mod deletion;
pub mod offset_table;

pub use clustering::{
    fixed_value_lengths, read_value, ClusteringHeaders, ClusteringLayout, ClusteringPrefix,
    ClusteringPrefixBuf, ClusteringPrefixKind, ClusteringValue, ClusteringValueBuf,
    ClusteringValueState, ClusteringValues, DEFAULT_MAX_VALUE_BYTES,
};
pub use deletion::{DeletionTime, DeletionTimeEncoding, LocalDeletionTime, IS_LIVE_DELETION};
