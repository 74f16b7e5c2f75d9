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

use core::fmt;
use std::collections::BTreeSet;

use serde::{Serialize, Serializer};

use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};

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

/// A 16-byte UUID (most significant half first), shown in the canonical 8-4-4-4-12 form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Uuid {
    pub msb: u64,
    pub lsb: u64,
}

impl Uuid {
    /// The UUID version nibble (1 = time-based).
    pub fn version(&self) -> u8 {
        ((self.msb >> 12) & 0xf) as u8
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            self.msb >> 32,
            (self.msb >> 16) & 0xffff,
            self.msb & 0xffff,
            self.lsb >> 48,
            self.lsb & 0xffff_ffff_ffff
        )
    }
}

impl Serialize for Uuid {
    fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One end of a sharding token range.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TokenBound {
    /// 0 = inclusive, 1 = exclusive (any non-zero byte is taken as exclusive).
    pub exclusive: Spanned<bool>,
    /// The token bytes (span includes the u16 length).
    pub token: Spanned<Vec<u8>>,
}

impl TokenBound {
    /// The token as a Murmur3 long token, when it is 8 bytes (big-endian i64).
    pub fn long_token(&self) -> Option<i64> {
        let bytes: [u8; 8] = self.token.value.as_slice().try_into().ok()?;
        Some(i64::from_be_bytes(bytes))
    }

    fn describe(&self) -> String {
        match self.long_token() {
            Some(t) => t.to_string(),
            None => hex(&self.token.value),
        }
    }
}

/// A token range of tag 1.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TokenRange {
    pub left: TokenBound,
    pub right: TokenBound,
    pub span: Span,
}

impl TokenRange {
    /// `[a, b]`, `(a, b]`, … in interval notation.
    pub fn describe(&self) -> String {
        format!(
            "{}{}, {}{}",
            if self.left.exclusive.value { '(' } else { '[' },
            self.left.describe(),
            self.right.describe(),
            if self.right.exclusive.value { ')' } else { ']' }
        )
    }
}

/// Tag 2: the feature bit set and the names of its bits.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Features {
    pub mask: Spanned<u64>,
    /// Names of the set bits; bits ScyllaDB does not define show as `bit N`.
    pub names: Vec<String>,
}

impl Features {
    /// Whether bit `bit` is set.
    pub fn has(&self, bit: u32) -> bool {
        bit < 64 && (self.mask.value >> bit) & 1 == 1
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExtensionAttribute {
    pub key: Spanned<String>,
    pub value: Spanned<String>,
}

/// One `large_data_stats_entry` of tag 5.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LargeDataStat {
    pub kind: Spanned<u32>,
    pub kind_name: &'static str,
    pub max_value: Spanned<u64>,
    pub threshold: Spanned<u64>,
    pub above_threshold: Spanned<u32>,
    pub span: Span,
}

/// One entry of tag 9.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExtTimestampStat {
    pub kind: Spanned<u32>,
    pub kind_name: &'static str,
    /// Microseconds since the epoch.
    pub value: Spanned<i64>,
}

/// One column of tag 11.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemaColumn {
    pub kind: Spanned<u8>,
    pub kind_name: &'static str,
    pub name: Spanned<String>,
    pub type_name: Spanned<String>,
    pub span: Span,
}

/// Tag 11: the table's schema as the sstable's writer knew it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SstableSchema {
    pub table_id: Spanned<Uuid>,
    pub schema_version: Spanned<Uuid>,
    pub keyspace: Spanned<String>,
    pub table: Spanned<String>,
    pub columns: Vec<SchemaColumn>,
}

/// One entry of tag 12.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentDigest {
    pub component: Spanned<u32>,
    pub component_name: &'static str,
    pub crc32: Spanned<u32>,
}

/// A decoded subcomponent body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum ScyllaValue {
    Sharding(Vec<TokenRange>),
    Features(Features),
    ExtensionAttributes(Vec<ExtensionAttribute>),
    RunIdentifier(Spanned<Uuid>),
    LargeDataStats(Vec<LargeDataStat>),
    SstableOrigin(Spanned<String>),
    ScyllaBuildId(Spanned<String>),
    ScyllaVersion(Spanned<String>),
    ExtTimestampStats(Vec<ExtTimestampStat>),
    SstableIdentifier(Spanned<Uuid>),
    Schema(SstableSchema),
    ComponentsDigests(Vec<ComponentDigest>),
    /// A tag this decoder does not know; the bytes are the entry's `body_span`.
    Unknown,
    /// A known tag whose body did not decode.
    Invalid {
        message: String,
        offset: u64,
    },
}

/// One `(tag, size, body)` entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScyllaEntry {
    pub tag: Spanned<u32>,
    pub size: Spanned<u32>,
    pub body_span: Span,
    pub value: ScyllaValue,
}

impl ScyllaEntry {
    pub fn name(&self) -> &'static str {
        tag_name(self.tag.value)
    }

    /// From the tag to the end of the body.
    pub fn span(&self) -> Span {
        Span::new(self.tag.span.start, self.body_span.end)
    }
}

/// The trailing CRC32 written after the entries when tag 12 is present.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScyllaDigest {
    pub stored_crc32: Spanned<u32>,
    /// CRC32 of every byte before the digest (what the Scylla docs say it covers).
    pub computed_crc32: u32,
    pub matches: bool,
}

/// A decoded Scylla.db.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScyllaMetadata {
    pub count: Spanned<u32>,
    pub entries: Vec<ScyllaEntry>,
    pub digest: Option<ScyllaDigest>,
    /// Leftover body bytes, repeated tags, undecodable bodies, trailing bytes.
    pub findings: Vec<Spanned<String>>,
    pub file_size_bytes: u64,
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

use crate::span::hex;

fn leaf<T: fmt::Display>(label: &str, v: &Spanned<T>) -> Node {
    Node::new(label, v.value.to_string(), Some(v.span))
}

fn string_leaf(label: &str, v: &Spanned<String>) -> Node {
    Node::new(label, format!("{:?}", v.value), Some(v.span))
}

impl ScyllaValue {
    /// One-line summary for the entry's node.
    fn summary(&self) -> String {
        match self {
            ScyllaValue::Sharding(ranges) => match ranges.as_slice() {
                [one] => one.describe(),
                many => format!("{} token ranges", many.len()),
            },
            ScyllaValue::Features(f) => {
                format!("0x{:x}: {}", f.mask.value, f.names.join(", "))
            }
            ScyllaValue::ExtensionAttributes(a) => format!("{} attributes", a.len()),
            ScyllaValue::RunIdentifier(u) | ScyllaValue::SstableIdentifier(u) => {
                u.value.to_string()
            }
            ScyllaValue::LargeDataStats(s) => format!("{} entries", s.len()),
            ScyllaValue::SstableOrigin(s)
            | ScyllaValue::ScyllaBuildId(s)
            | ScyllaValue::ScyllaVersion(s) => format!("{:?}", s.value),
            ScyllaValue::ExtTimestampStats(s) => format!("{} entries", s.len()),
            ScyllaValue::Schema(s) => format!(
                "{}.{} ({} columns)",
                s.keyspace.value,
                s.table.value,
                s.columns.len()
            ),
            ScyllaValue::ComponentsDigests(d) => format!("{} components", d.len()),
            ScyllaValue::Unknown => "unknown tag (body skipped by size)".to_owned(),
            ScyllaValue::Invalid { message, offset } => {
                format!("does not decode: {message} at 0x{offset:x}")
            }
        }
    }

    fn children(&self) -> Vec<Node> {
        match self {
            ScyllaValue::Sharding(ranges) => ranges
                .iter()
                .enumerate()
                .map(|(i, range)| {
                    let bound = |label: &str, b: &TokenBound| {
                        Node::new(
                            label,
                            b.describe(),
                            Some(Span::new(b.exclusive.span.start, b.token.span.end)),
                        )
                        .with_children(vec![
                            leaf("exclusive", &b.exclusive),
                            Node::new("token", b.describe(), Some(b.token.span)),
                        ])
                    };
                    Node::new(format!("range {i}"), range.describe(), Some(range.span))
                        .with_children(vec![
                            bound("left", &range.left),
                            bound("right", &range.right),
                        ])
                })
                .collect(),
            ScyllaValue::Features(f) => vec![Node::new(
                "bit set",
                format!("0x{:016x}: {}", f.mask.value, f.names.join(", ")),
                Some(f.mask.span),
            )],
            ScyllaValue::ExtensionAttributes(attrs) => attrs
                .iter()
                .map(|a| {
                    Node::new(
                        a.key.value.clone(),
                        a.value.value.clone(),
                        Some(Span::new(a.key.span.start, a.value.span.end)),
                    )
                    .with_children(vec![
                        string_leaf("key", &a.key),
                        string_leaf("value", &a.value),
                    ])
                })
                .collect(),
            ScyllaValue::RunIdentifier(u) | ScyllaValue::SstableIdentifier(u) => {
                vec![leaf("uuid", u)]
            }
            ScyllaValue::LargeDataStats(stats) => stats
                .iter()
                .map(|s| {
                    Node::new(
                        s.kind_name,
                        format!(
                            "max {}, threshold {}, {} above",
                            s.max_value.value, s.threshold.value, s.above_threshold.value
                        ),
                        Some(s.span),
                    )
                    .with_children(vec![
                        leaf("type", &s.kind),
                        leaf("max value", &s.max_value),
                        leaf("threshold", &s.threshold),
                        leaf("above threshold", &s.above_threshold),
                    ])
                })
                .collect(),
            ScyllaValue::SstableOrigin(s)
            | ScyllaValue::ScyllaBuildId(s)
            | ScyllaValue::ScyllaVersion(s) => vec![string_leaf("string", s)],
            ScyllaValue::ExtTimestampStats(stats) => stats
                .iter()
                .map(|s| {
                    Node::new(
                        s.kind_name,
                        s.value.value.to_string(),
                        Some(Span::new(s.kind.span.start, s.value.span.end)),
                    )
                    .with_children(vec![leaf("type", &s.kind), leaf("value", &s.value)])
                })
                .collect(),
            ScyllaValue::Schema(s) => {
                let mut nodes = vec![
                    leaf("table id", &s.table_id),
                    leaf("schema version", &s.schema_version),
                    string_leaf("keyspace", &s.keyspace),
                    string_leaf("table", &s.table),
                ];
                nodes.extend(s.columns.iter().map(|c| {
                    Node::new(
                        c.name.value.clone(),
                        format!("{} {}", c.kind_name, c.type_name.value),
                        Some(c.span),
                    )
                    .with_children(vec![
                        leaf("kind", &c.kind),
                        string_leaf("name", &c.name),
                        string_leaf("type", &c.type_name),
                    ])
                }));
                nodes
            }
            ScyllaValue::ComponentsDigests(digests) => digests
                .iter()
                .map(|d| {
                    Node::new(
                        d.component_name,
                        format!("CRC32 {}", d.crc32.value),
                        Some(Span::new(d.component.span.start, d.crc32.span.end)),
                    )
                    .with_children(vec![
                        leaf("component type", &d.component),
                        leaf("CRC32", &d.crc32),
                    ])
                })
                .collect(),
            ScyllaValue::Unknown | ScyllaValue::Invalid { .. } => Vec::new(),
        }
    }
}

impl ScyllaMetadata {
    /// The first entry with `tag` (the one ScyllaDB keeps).
    pub fn get(&self, tag: u32) -> Option<&ScyllaValue> {
        self.entries
            .iter()
            .find(|e| e.tag.value == tag)
            .map(|e| &e.value)
    }

    /// The labelled tree for the tree + hex view.
    pub fn to_node(&self) -> Node {
        let names: Vec<&str> = self.entries.iter().map(ScyllaEntry::name).collect();
        let mut children = vec![leaf("subcomponent count", &self.count)];
        for e in &self.entries {
            let mut kids = vec![
                Node::new(
                    "tag",
                    format!("{} ({})", e.tag.value, e.name()),
                    Some(e.tag.span),
                ),
                Node::new("size", format!("{} bytes", e.size.value), Some(e.size.span)),
            ];
            kids.extend(e.value.children());
            children.push(
                Node::new(
                    format!("tag {}: {}", e.tag.value, e.name()),
                    e.value.summary(),
                    Some(e.span()),
                )
                .with_children(kids),
            );
        }
        if let Some(d) = &self.digest {
            children.push(Node::new(
                "digest (CRC32)",
                format!(
                    "{} ({}; computed {})",
                    d.stored_crc32.value,
                    if d.matches { "matches" } else { "MISMATCH" },
                    d.computed_crc32
                ),
                Some(d.stored_crc32.span),
            ));
        }
        for f in &self.findings {
            children.push(Node::new("finding", f.value.clone(), Some(f.span)));
        }
        Node::new(
            "Scylla.db",
            format!("{} subcomponents: {}", self.entries.len(), names.join(", ")),
            Some(Span::new(0, self.file_size_bytes)),
        )
        .with_children(children)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(tag: u32, body: &[u8]) -> Vec<u8> {
        let mut out = tag.to_be_bytes().to_vec();
        out.extend_from_slice(&(body.len() as u32).to_be_bytes());
        out.extend_from_slice(body);
        out
    }

    fn file(entries: &[Vec<u8>]) -> Vec<u8> {
        let mut out = (entries.len() as u32).to_be_bytes().to_vec();
        for e in entries {
            out.extend_from_slice(e);
        }
        out
    }

    #[test]
    fn features_and_origin() {
        let mut origin = 8u32.to_be_bytes().to_vec();
        origin.extend_from_slice(b"memtable");
        let bytes = file(&[
            entry(tag::FEATURES, &0x7fu64.to_be_bytes()),
            entry(tag::SSTABLE_ORIGIN, &origin),
        ]);
        let m = decode(&bytes).unwrap();
        assert_eq!(m.count.value, 2);
        let Some(ScyllaValue::Features(f)) = m.get(tag::FEATURES) else {
            panic!("{:?}", m.entries)
        };
        assert_eq!(f.names, FEATURE_NAMES);
        assert!(f.has(6) && !f.has(7) && !f.has(99));
        assert_eq!(f.mask.span, Span::new(12, 20));
        let Some(ScyllaValue::SstableOrigin(s)) = m.get(tag::SSTABLE_ORIGIN) else {
            panic!()
        };
        assert_eq!(s.value, "memtable");
        assert_eq!(s.span, Span::new(28, 40));
        assert!(m.findings.is_empty() && m.digest.is_none());
        assert_eq!(m.entries[1].span(), Span::new(20, 40));
    }

    #[test]
    fn uuid_display() {
        let u = Uuid {
            msb: 0x0123_4567_89ab_1def,
            lsb: 0x8877_6655_4433_2211,
        };
        assert_eq!(u.to_string(), "01234567-89ab-1def-8877-665544332211");
        assert_eq!(u.version(), 1);
    }

    #[test]
    fn unknown_tags_are_skipped_and_bad_bodies_do_not_stop_decoding() {
        let bytes = file(&[
            entry(99, &[1, 2, 3]),
            entry(tag::RUN_IDENTIFIER, &[0; 5]),
            entry(tag::FEATURES, &[0, 0, 0, 0, 0, 0, 0, 1, 0xee]),
        ]);
        let m = decode(&bytes).unwrap();
        assert_eq!(m.entries[0].value, ScyllaValue::Unknown);
        assert_eq!(m.entries[0].body_span, Span::new(12, 15));
        assert!(matches!(
            m.entries[1].value,
            ScyllaValue::Invalid { offset: 23, .. }
        ));
        assert!(matches!(m.entries[2].value, ScyllaValue::Features(_)));
        assert_eq!(m.findings.len(), 2);
        assert!(m.findings[1].value.contains("1 bytes"));
    }

    #[test]
    fn many_entries_decode_in_linear_time() {
        let entries: Vec<Vec<u8>> = (0..50_000u32).map(|i| entry(100 + i % 3, &[])).collect();
        let m = decode(&file(&entries)).unwrap();
        assert_eq!(m.entries.len(), 50_000);
        // Three distinct tags: every later repeat is reported.
        assert_eq!(m.findings.len(), 50_000 - 3);
    }

    #[test]
    fn structural_errors() {
        assert_eq!(decode(&[0, 0]).unwrap_err().offset(), 0);
        // A count larger than the file can hold.
        let e = decode(&[0, 0, 0, 9, 0, 0, 0, 1]).unwrap_err();
        assert_eq!(e.component(), Some(&ComponentType::Scylla));
        // A body size past the end.
        let e = decode(&[0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 9, 1]).unwrap_err();
        assert_eq!(e.offset(), 12);
    }
}
