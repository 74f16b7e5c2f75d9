//! The index view's payload: one page of the listing the worker's
//! `worker::index_listing` decodes, and the rows it holds.

use serde::{Deserialize, Serialize};

/// Partitions listed per page.
pub const PAGE_ROWS: usize = 500;
/// One listed partition (the page's export shape, a subset of `sstable-inspect index --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexRow {
    pub key: String,
    pub key_hex: String,
    pub token: String,
    /// Data.db position (big), or the trie payload's target (bti).
    pub position: String,
    pub blocks: Option<u32>,
    /// Where the entry starts in Index.db (big format): its blocks are read from there.
    pub entry_offset: Option<u64>,
}

/// One `IndexInfo` block of a partition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockRow {
    pub first: String,
    pub last: String,
    pub offset: u64,
    pub width: u64,
    pub end_open_marker: bool,
}

/// One page of the listing.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct IndexPage {
    /// The page's number (0: the first) and its first partition's number.
    pub page: usize,
    pub first: usize,
    pub rows: Vec<IndexRow>,
    /// Another page follows.
    pub more: bool,
    /// Partitions in the index, once the walk has reached its end.
    pub total: Option<usize>,
    pub bytes_read: u64,
    pub millis: f64,
    /// Why the listing stopped early.
    pub error: Option<String>,
    /// Asked with `export`: every partition as pretty JSON, in place of `rows`.
    pub export_json: Option<String>,
}
