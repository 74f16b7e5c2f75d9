//! Scylla.db: ScyllaDB's own per-sstable metadata (`scylla_metadata`).
//!
//! Src (scylladb repo): `docs/dev/sstable-scylla-format.md` (the grammar), `sstables/types.hh`
//! (`scylla_metadata`, `scylla_metadata_type`, `sharding_metadata`, `disk_token_bound`,
//! `sstable_feature`, `large_data_type`, `large_data_stats_entry`, `ext_timestamp_stats_type`,
//! `sstable_schema_type`), `sstables/sstables.cc` (the `parse` overloads), `dht/token.hh`
//! (`token::data()`), `sstables/component_type.hh`.
//!
//! **Byte order: every integer is big-endian.** `sstables.cc` parses each integral and enum
//! field with `net::ntoh(read_unaligned<T>(…))`, UUIDs as msb then lsb (8 + 8 bytes, big-endian),
//! and a Murmur3 token's bytes are `token::data()` = `net::hton` of its i64. (The little-endian
//! parts of ScyllaDB's files are elsewhere: Summary.db positions, LZ4 chunk lengths.)
//!
//! # Layout
//!
//! | field | type |
//! |---|---|
//! | subcomponent count | u32 |
//! | count × (tag, size, body) | u32 tag, u32 body size in bytes, body |
//! | digest (only when tag 12 is present) | u32 CRC32 of everything before it |
//!
//! Unknown tags are skipped by size; a tag that appears twice keeps its first body (the reader
//! `emplace`s into a map).
//!
//! | tag | name | body |
//! |---|---|---|
//! | 1 | sharding metadata | u32 n, n × (left bound, right bound); bound = u8 exclusive (0/1), u16 length + token bytes (Murmur3: 8-byte i64) |
//! | 2 | features | u64 bit set (bit 0 NonCompoundPIEntries … bit 6 CorrectLastPiBlockWidth) |
//! | 3 | extension attributes | u32 n, n × (u32-length key, u32-length value) |
//! | 4 | run identifier | UUID |
//! | 5 | large-data stats | u32 n, n × (u32 type, u64 max value, u64 threshold, u32 count above threshold); types 1 partition_size, 2 row_size, 3 cell_size, 4 rows_in_partition, 5 elements_in_collection |
//! | 6 | sstable origin | u32-length string (`memtable`, `compaction`, …) |
//! | 7 | scylla build id | u32-length string |
//! | 8 | scylla version | u32-length string |
//! | 9 | ext timestamp stats | u32 n, n × (u32 type, i64); types 1 min_live_timestamp, 2 min_live_row_marker_timestamp |
//! | 10 | sstable identifier | UUID |
//! | 11 | schema | table id UUID, schema version UUID, u32-length keyspace, u32-length table, u32 n × (u8 kind 1 pk/2 ck/3 static/4 regular, u32-length name, u32-length type) |
//! | 12 | components digests | u32 n, n × (u32 component type, u32 CRC32); component types in `component_type.hh` order (0 Index, 1 CompressionInfo, 2 Data, 3 TOC, 4 Summary, 5 Digest, 6 CRC, 7 Filter, 8 Statistics, 9 TemporaryTOC, 10 TemporaryStatistics, 11 Scylla, 12 Rows, 13 Partitions, 14 TemporaryHashes) |
//!
//! A body that does not decode becomes [`ScyllaValue::Invalid`] and the next entry is still read
//! (its size says where it starts); a body with bytes left over is a finding.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use std::collections::BTreeSet;

use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::reader::Reader;
use crate::span::{Span, Spanned};

mod node;
mod value;

pub use value::{
    ComponentDigest, ExtTimestampStat, ExtensionAttribute, Features, LargeDataStat, SchemaColumn,
    ScyllaDigest, ScyllaEntry, ScyllaMetadata, ScyllaValue, SstableSchema, TokenBound, TokenRange,
    Uuid,
};

/// Subcomponent tags (`scylla_metadata_type`).
pub mod tag {
    pub const SHARDING: u32 = 1;
    pub const FEATURES: u32 = 2;
    pub const EXTENSION_ATTRIBUTES: u32 = 3;
    pub const RUN_IDENTIFIER: u32 = 4;
    pub const LARGE_DATA_STATS: u32 = 5;
    pub const SSTABLE_ORIGIN: u32 = 6;
    pub const SCYLLA_BUILD_ID: u32 = 7;
    pub const SCYLLA_VERSION: u32 = 8;
    pub const EXT_TIMESTAMP_STATS: u32 = 9;
    pub const SSTABLE_IDENTIFIER: u32 = 10;
    pub const SCHEMA: u32 = 11;
    pub const COMPONENTS_DIGESTS: u32 = 12;
}

/// The name ScyllaDB gives a tag (`scylla sstable dump-scylla-metadata` spelling).
pub fn tag_name(tag: u32) -> &'static str {
    match tag {
        tag::SHARDING => "sharding",
        tag::FEATURES => "features",
        tag::EXTENSION_ATTRIBUTES => "extension_attributes",
        tag::RUN_IDENTIFIER => "run_identifier",
        tag::LARGE_DATA_STATS => "large_data_stats",
        tag::SSTABLE_ORIGIN => "sstable_origin",
        tag::SCYLLA_BUILD_ID => "scylla_build_id",
        tag::SCYLLA_VERSION => "scylla_version",
        tag::EXT_TIMESTAMP_STATS => "ext_timestamp_stats",
        tag::SSTABLE_IDENTIFIER => "sstable_identifier",
        tag::SCHEMA => "schema",
        tag::COMPONENTS_DIGESTS => "components_digests",
        _ => "unknown",
    }
}

/// `sstable_feature` bits of tag 2, by bit number.
pub const FEATURE_NAMES: [&str; 7] = [
    "NonCompoundPIEntries",
    "NonCompoundRangeTombstones",
    "ShadowableTombstones",
    "CorrectStaticCompact",
    "CorrectEmptyCounters",
    "CorrectUDTsInCollections",
    "CorrectLastPiBlockWidth",
];

/// `large_data_type` names (tag 5).
pub fn large_data_type_name(kind: u32) -> &'static str {
    match kind {
        1 => "partition_size",
        2 => "row_size",
        3 => "cell_size",
        4 => "rows_in_partition",
        5 => "elements_in_collection",
        _ => "unknown",
    }
}

/// `ext_timestamp_stats_type` names (tag 9).
pub fn ext_timestamp_stats_type_name(kind: u32) -> &'static str {
    match kind {
        1 => "min_live_timestamp",
        2 => "min_live_row_marker_timestamp",
        _ => "unknown",
    }
}

/// `sstable_column_kind` names (tag 11).
pub fn column_kind_name(kind: u8) -> &'static str {
    match kind {
        1 => "partition_key",
        2 => "clustering_key",
        3 => "static_column",
        4 => "regular_column",
        _ => "unknown",
    }
}

/// ScyllaDB's `component_type` names (tag 12 keys).
pub fn scylla_component_name(kind: u32) -> &'static str {
    match kind {
        0 => "Index",
        1 => "CompressionInfo",
        2 => "Data",
        3 => "TOC",
        4 => "Summary",
        5 => "Digest",
        6 => "CRC",
        7 => "Filter",
        8 => "Statistics",
        9 => "TemporaryTOC",
        10 => "TemporaryStatistics",
        11 => "Scylla",
        12 => "Rows",
        13 => "Partitions",
        14 => "TemporaryHashes",
        _ => "unknown",
    }
}

/// Smallest possible entry: tag and size.
const ENTRY_HEADER_BYTES: u64 = 8;

/// Decodes a whole Scylla.db.
pub fn decode(bytes: &[u8]) -> Result<ScyllaMetadata> {
    let mut r = Reader::new(bytes, 0).for_component(ComponentType::Scylla);
    let count = r.spanned(|r| r.u32("Scylla.db subcomponent count"))?;
    let n = r.check_count(
        u64::from(count.value),
        ENTRY_HEADER_BYTES,
        "Scylla.db subcomponents",
    )?;
    let mut entries: Vec<ScyllaEntry> = Vec::with_capacity(n);
    let mut findings = Vec::new();
    let mut seen_tags = BTreeSet::new();
    for _ in 0..n {
        let tag = r.spanned(|r| r.u32("Scylla.db subcomponent tag"))?;
        let size = r.spanned(|r| r.u32("Scylla.db subcomponent size"))?;
        let body_start = r.offset();
        let mut body = r.sub_reader(u64::from(size.value), "Scylla.db subcomponent body")?;
        let body_span = Span::new(body_start, r.offset());
        let value = match decode_body(tag.value, &mut body) {
            Ok(value) => {
                if !body.is_empty() && value != ScyllaValue::Unknown {
                    findings.push(Spanned {
                        value: format!(
                            "{} bytes of the {} body left unread",
                            body.remaining_bytes(),
                            tag_name(tag.value)
                        ),
                        span: Span::new(body.offset(), body_span.end),
                    });
                }
                value
            }
            Err(e) => {
                findings.push(Spanned {
                    value: format!("{} body does not decode: {e}", tag_name(tag.value)),
                    span: body_span,
                });
                invalid(&e)
            }
        };
        if !seen_tags.insert(tag.value) {
            findings.push(Spanned {
                value: format!(
                    "tag {} ({}) appears again; ScyllaDB keeps the first",
                    tag.value,
                    tag_name(tag.value)
                ),
                span: tag.span,
            });
        }
        entries.push(ScyllaEntry {
            tag,
            size,
            body_span,
            value,
        });
    }
    let digest = if seen_tags.contains(&tag::COMPONENTS_DIGESTS) {
        let covered = bytes.get(..r.position()).unwrap_or(&[]);
        let computed_crc32 = crc32fast::hash(covered);
        let stored_crc32 = r.spanned(|r| r.u32("Scylla.db digest (CRC32)"))?;
        Some(ScyllaDigest {
            matches: stored_crc32.value == computed_crc32,
            stored_crc32,
            computed_crc32,
        })
    } else {
        None
    };
    if !r.is_empty() {
        let start = r.offset();
        findings.push(Spanned {
            value: format!("{} bytes after the last subcomponent", r.remaining_bytes()),
            span: Span::new(start, start.saturating_add(r.remaining_bytes() as u64)),
        });
    }
    Ok(ScyllaMetadata {
        count,
        entries,
        digest,
        findings,
        file_size_bytes: bytes.len() as u64,
    })
}

fn invalid(e: &Error) -> ScyllaValue {
    ScyllaValue::Invalid {
        message: e.message(),
        offset: e.offset(),
    }
}

/// `disk_string<uint32_t>`: u32 length + bytes, shown as (lossy) UTF-8.
fn string32(r: &mut Reader<'_>, what: &'static str) -> Result<Spanned<String>> {
    r.spanned(|r| {
        let len = r.u32(what)?;
        let bytes = r.bytes_u64(u64::from(len), what)?;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    })
}

fn uuid(r: &mut Reader<'_>, what: &'static str) -> Result<Spanned<Uuid>> {
    r.spanned(|r| {
        Ok(Uuid {
            msb: r.u64(what)?,
            lsb: r.u64(what)?,
        })
    })
}

fn token_bound(r: &mut Reader<'_>) -> Result<TokenBound> {
    let exclusive = r.spanned(|r| r.bool("sharding: token bound exclusive flag"))?;
    let token = r.spanned(|r| Ok(r.short_length_bytes("sharding: token")?.to_vec()))?;
    Ok(TokenBound { exclusive, token })
}

fn decode_body(tag_value: u32, r: &mut Reader<'_>) -> Result<ScyllaValue> {
    Ok(match tag_value {
        tag::SHARDING => {
            let n = r.u32("sharding: token range count")?;
            // Each range: two bounds of at least 1 + 2 bytes.
            let n = r.check_count(u64::from(n), 6, "sharding: token ranges")?;
            let mut ranges = Vec::with_capacity(n);
            for _ in 0..n {
                let start = r.offset();
                let left = token_bound(r)?;
                let right = token_bound(r)?;
                ranges.push(TokenRange {
                    left,
                    right,
                    span: r.span_from(start),
                });
            }
            ScyllaValue::Sharding(ranges)
        }
        tag::FEATURES => {
            let mask = r.spanned(|r| r.u64("features: bit set"))?;
            let names = (0..64u32)
                .filter(|bit| (mask.value >> bit) & 1 == 1)
                .map(|bit| match FEATURE_NAMES.get(bit as usize) {
                    Some(name) => (*name).to_owned(),
                    None => format!("bit {bit}"),
                })
                .collect();
            ScyllaValue::Features(Features { mask, names })
        }
        tag::EXTENSION_ATTRIBUTES => {
            let n = r.u32("extension attributes: count")?;
            let n = r.check_count(u64::from(n), 8, "extension attributes")?;
            let mut attrs = Vec::with_capacity(n);
            for _ in 0..n {
                let key = string32(r, "extension attribute key")?;
                let value = string32(r, "extension attribute value")?;
                attrs.push(ExtensionAttribute { key, value });
            }
            ScyllaValue::ExtensionAttributes(attrs)
        }
        tag::RUN_IDENTIFIER => ScyllaValue::RunIdentifier(uuid(r, "run identifier")?),
        tag::LARGE_DATA_STATS => {
            let n = r.u32("large data stats: count")?;
            let n = r.check_count(u64::from(n), 24, "large data stats")?;
            let mut stats = Vec::with_capacity(n);
            for _ in 0..n {
                let start = r.offset();
                let kind = r.spanned(|r| r.u32("large data stats: type"))?;
                let max_value = r.spanned(|r| r.u64("large data stats: max value"))?;
                let threshold = r.spanned(|r| r.u64("large data stats: threshold"))?;
                let above_threshold =
                    r.spanned(|r| r.u32("large data stats: count above threshold"))?;
                stats.push(LargeDataStat {
                    kind_name: large_data_type_name(kind.value),
                    kind,
                    max_value,
                    threshold,
                    above_threshold,
                    span: r.span_from(start),
                });
            }
            ScyllaValue::LargeDataStats(stats)
        }
        tag::SSTABLE_ORIGIN => ScyllaValue::SstableOrigin(string32(r, "sstable origin")?),
        tag::SCYLLA_BUILD_ID => ScyllaValue::ScyllaBuildId(string32(r, "scylla build id")?),
        tag::SCYLLA_VERSION => ScyllaValue::ScyllaVersion(string32(r, "scylla version")?),
        tag::EXT_TIMESTAMP_STATS => {
            let n = r.u32("ext timestamp stats: count")?;
            let n = r.check_count(u64::from(n), 12, "ext timestamp stats")?;
            let mut stats = Vec::with_capacity(n);
            for _ in 0..n {
                let kind = r.spanned(|r| r.u32("ext timestamp stats: type"))?;
                let value = r.spanned(|r| r.i64("ext timestamp stats: value"))?;
                stats.push(ExtTimestampStat {
                    kind_name: ext_timestamp_stats_type_name(kind.value),
                    kind,
                    value,
                });
            }
            ScyllaValue::ExtTimestampStats(stats)
        }
        tag::SSTABLE_IDENTIFIER => ScyllaValue::SstableIdentifier(uuid(r, "sstable identifier")?),
        tag::SCHEMA => {
            let table_id = uuid(r, "schema: table id")?;
            let schema_version = uuid(r, "schema: schema version")?;
            let keyspace = string32(r, "schema: keyspace name")?;
            let table = string32(r, "schema: table name")?;
            let n = r.u32("schema: column count")?;
            let n = r.check_count(u64::from(n), 9, "schema: columns")?;
            let mut columns = Vec::with_capacity(n);
            for _ in 0..n {
                let start = r.offset();
                let kind = r.spanned(|r| r.u8("schema: column kind"))?;
                let name = string32(r, "schema: column name")?;
                let type_name = string32(r, "schema: column type")?;
                columns.push(SchemaColumn {
                    kind_name: column_kind_name(kind.value),
                    kind,
                    name,
                    type_name,
                    span: r.span_from(start),
                });
            }
            ScyllaValue::Schema(SstableSchema {
                table_id,
                schema_version,
                keyspace,
                table,
                columns,
            })
        }
        tag::COMPONENTS_DIGESTS => {
            let n = r.u32("components digests: count")?;
            let n = r.check_count(u64::from(n), 8, "components digests")?;
            let mut digests = Vec::with_capacity(n);
            for _ in 0..n {
                let component = r.spanned(|r| r.u32("components digests: component type"))?;
                let crc32 = r.spanned(|r| r.u32("components digests: CRC32"))?;
                digests.push(ComponentDigest {
                    component_name: scylla_component_name(component.value),
                    component,
                    crc32,
                });
            }
            ScyllaValue::ComponentsDigests(digests)
        }
        _ => ScyllaValue::Unknown,
    })
}

#[cfg(test)]
mod tests;
