//! Small answers a worker computes from decoded metadata for the views: the bloom lab's probe,
//! a `CREATE TABLE` checked against the serialization header, the Analytics tab's table view.

use serde::{Deserialize, Serialize};
use sstable_engine::token::Token;

/// What the bloom filter says of a typed key (`info::BloomCheck`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BloomAnswer {
    pub key_hex: String,
    pub token: String,
    /// All probed bits are set.
    pub maybe_present: bool,
    /// (bit index, set, byte offset in Filter.db) of each probe, in probe order.
    pub probes: Vec<(u64, bool, u64)>,
}

/// A `CREATE TABLE` as the data browser uses it: its key and clustering column names, and how it
/// differs from the serialization header.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SchemaAnswer {
    pub partition_key: Vec<String>,
    pub clustering: Vec<String>,
    pub mismatches: Vec<String>,
}

/// A token as the table view draws it: its text, and a position on a number line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenView {
    pub text: String,
    pub at: Option<f64>,
}

impl TokenView {
    pub fn new(t: &Token) -> TokenView {
        let at = match t {
            Token::Murmur3(v) => Some(*v as f64),
            Token::Random(Some(v)) => Some(*v as f64),
            Token::Bytes(b) | Token::Key(b) => Some(
                b.iter()
                    .take(8)
                    .chain(std::iter::repeat(&0))
                    .take(8)
                    .fold(0.0, |a, x| a * 256.0 + f64::from(*x)),
            ),
            _ => None,
        };
        TokenView {
            text: t.to_string(),
            at,
        }
    }
}

/// One SSTable of the table view (`analytics::TableSSTable`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    pub sstable: String,
    pub fully_expired: bool,
    pub blocked_by: Vec<String>,
    pub min_timestamp_micros: Option<i64>,
    pub max_timestamp_micros: Option<i64>,
    pub max_local_deletion_time_secs: Option<i64>,
    pub first_token: Option<TokenView>,
    pub last_token: Option<TokenView>,
    pub level: Option<i32>,
    pub repaired_at_millis: Option<i64>,
    pub pending_repair: Option<String>,
    pub originating_host_id: Option<String>,
}

/// The table view (`analytics::TableReport`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TableView {
    pub now_secs: i64,
    /// Where "now" came from, as `{:?}` prints it.
    pub now_source: String,
    pub gc_before_secs: i64,
    pub sstables: Vec<TableRow>,
    pub overlaps: usize,
    pub fully_expired: Vec<String>,
    pub blocked: Vec<String>,
}
