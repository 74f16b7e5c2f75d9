//! Small answers a worker computes from decoded metadata for the views (so the UI links no
//! decoder, issue #12): the bloom lab's probe of a typed key, a `CREATE TABLE` checked against
//! the serialization header, and the Analytics tab's table view of every SSTable loaded
//! (`analytics::table_report`).

use sstable_engine::analytics::table_report;
use sstable_engine::cql_schema::parse_create_table;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::span::hex;

use super::{cached_metadata, load_metadata, Kept};
use crate::protocol::answers::{BloomAnswer, SchemaAnswer, TableRow, TableView, TokenView};
use crate::protocol::{FileRef, Reply};

/// [`crate::protocol::Request::Bloom`]: the filter's answer for the typed `key`.
pub(super) fn bloom(kept: &Kept, job: u64, files: &[FileRef], key: &str) -> Reply {
    match cached_metadata(kept, files) {
        Ok(l) => Reply::Bloom {
            job,
            answer: bloom_answer(&l.metadata, key),
        },
        Err(message) => Reply::Failed { job, message },
    }
}

/// [`crate::protocol::Request::Schema`]: `text` parsed and checked against the header.
pub(super) fn schema(kept: &Kept, job: u64, files: &[FileRef], text: &str) -> Reply {
    match cached_metadata(kept, files) {
        Ok(l) => Reply::Schema {
            job,
            answer: schema_answer(&l.metadata, text),
        },
        Err(message) => Reply::Failed { job, message },
    }
}

/// [`crate::protocol::Request::Table`]: the table view of `sstables` at `gc_grace_secs` (their
/// metadata decoded here, not kept: the view spans every SSTable loaded).
pub(super) fn table(job: u64, sstables: &[(String, Vec<FileRef>)], gc_grace_secs: i64) -> Reply {
    let loaded: Vec<(String, SSTableMetadata)> = sstables
        .iter()
        .filter_map(|(name, files)| load_metadata(files).ok().map(|(m, _)| (name.clone(), m)))
        .collect();
    let list: Vec<(String, &SSTableMetadata)> =
        loaded.iter().map(|(n, m)| (n.clone(), m)).collect();
    Reply::Table {
        job,
        table: Box::new(table_view(&list, gc_grace_secs)),
    }
}

/// The bloom lab's answer for `text` (`Ok(None)`: the SSTable has no Filter.db).
fn bloom_answer(m: &SSTableMetadata, text: &str) -> Result<Option<BloomAnswer>, String> {
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

/// `text` parsed (`cql_schema`) and checked against `m`'s header.
fn schema_answer(m: &SSTableMetadata, text: &str) -> SchemaAnswer {
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

/// `table_report` of `sstables` (name, metadata) at `gc_grace_secs`.
fn table_view(sstables: &[(String, &SSTableMetadata)], gc_grace_secs: i64) -> TableView {
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
