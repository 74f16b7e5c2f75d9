//! Small answers a worker computes from decoded metadata for the views (so the UI links no
//! decoder, issue #12): the bloom lab's probe of a typed key, a `CREATE TABLE` checked against
//! the serialization header, and the Analytics tab's table view of every SSTable loaded
//! (`analytics::table_report`).

use serde::{Deserialize, Serialize};
use sstable_engine::analytics::table_report;
use sstable_engine::cql_schema::parse_create_table;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::span::hex;
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

/// The bloom lab's answer for `text` (`Ok(None)`: the SSTable has no Filter.db).
pub fn bloom(m: &SSTableMetadata, text: &str) -> Result<Option<BloomAnswer>, String> {
    let key = m.parse_key(text)?;
    Ok(m.bloom_check(&key).map(|c| BloomAnswer {
        key_hex: hex(&key),
        token: c.token,
        maybe_present: c.probe.maybe_present,
        probes: c
            .probe
            .bit_indexes
            .iter()
            .zip(&c.probe.bits)
            .zip(&c.probe.byte_offsets)
            .map(|((bit, set), off)| (*bit, *set, *off))
            .collect(),
    }))
}

/// A `CREATE TABLE` as the data browser uses it: its key and clustering column names, and how it
/// differs from the serialization header.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SchemaAnswer {
    pub partition_key: Vec<String>,
    pub clustering: Vec<String>,
    pub mismatches: Vec<String>,
}

/// `text` parsed (`cql_schema`) and checked against `m`'s header.
pub fn schema(m: &SSTableMetadata, text: &str) -> SchemaAnswer {
    match parse_create_table(text) {
        Err(e) => SchemaAnswer {
            mismatches: vec![format!("CREATE TABLE: {e}")],
            ..SchemaAnswer::default()
        },
        Ok(t) => SchemaAnswer {
            mismatches: m
                .statistics
                .as_ref()
                .and_then(|s| s.header.as_ref())
                .map(|h| t.check(h))
                .unwrap_or_default(),
            partition_key: t.partition_key,
            clustering: t.clustering,
        },
    }
}

/// A token as the table view draws it: its text, and a position on a number line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenView {
    pub text: String,
    pub at: Option<f64>,
}

impl TokenView {
    fn new(t: &Token) -> TokenView {
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

/// `table_report` of `sstables` (name, metadata) at `gc_grace_secs`.
pub fn table(sstables: &[(String, &SSTableMetadata)], gc_grace_secs: i64) -> TableView {
    let t = table_report(sstables, gc_grace_secs, None);
    TableView {
        now_secs: t.now_secs,
        now_source: format!("{:?}", t.now_source),
        gc_before_secs: t.gc_before_secs,
        sstables: t
            .sstables
            .iter()
            .map(|s| TableRow {
                sstable: s.sstable.clone(),
                fully_expired: s.fully_expired,
                blocked_by: s.blocked_by.iter().map(|b| b.sstable.clone()).collect(),
                min_timestamp_micros: s.min_timestamp_micros,
                max_timestamp_micros: s.max_timestamp_micros,
                max_local_deletion_time_secs: s.max_local_deletion_time_secs,
                first_token: s.first_token.as_ref().map(TokenView::new),
                last_token: s.last_token.as_ref().map(TokenView::new),
                level: s.level,
                repaired_at_millis: s.repaired_at_millis,
                pending_repair: s.pending_repair.clone(),
                originating_host_id: s.originating_host_id.clone(),
            })
            .collect(),
        overlaps: t.overlaps.len(),
        fully_expired: t.fully_expired,
        blocked: t.blocked,
    }
}
