//! Statistics.db: the sstable's metadata container (`MetadataSerializer`) and its components
//! VALIDATION, COMPACTION, STATS and HEADER.
//!
//! Container layout (all big-endian):
//!
//! | field | type | since |
//! |---|---|---|
//! | component count | i32 | ka |
//! | CRC32 of the 4 count bytes | u32 | na, da (`hasMetadataChecksum`) |
//! | table of contents | count × (i32 type ordinal, i32 absolute offset) | ka |
//! | CRC32 over count + all TOC entries (one running CRC) | u32 | na, da |
//! | components, each from its offset to the next higher offset (the last: EOF) | | ka |
//! | CRC32 of each component's bytes, as its last 4 bytes | u32 | na, da |
//!
//! Type ordinals: 0 VALIDATION ([`ValidationMetadata`]), 1 COMPACTION ([`CompactionMetadata`]),
//! 2 STATS ([`StatsMetadata`]), 3 HEADER ([`SerializationHeader`], ma+). Cassandra writes the TOC
//! sorted by type, Scylla was seen writing 3,2,0,1: components are sliced by *sorted offsets* and
//! looked up by type. A component is parsed inside its slice; bytes left over (the zero padding of
//! oa/da STATS) are reported in [`TocEntry::unread`], not as errors.
//!
//! Checksum mismatches are findings ([`ChecksumCheck`]), not errors. A component that fails to
//! decode is reported in [`Statistics::errors`] and the others are still decoded; [`decode`]
//! fails only when the count or the table of contents cannot be read.
//!
//! Versions before `ka` (1.2 `ic`, 2.0 `ja`/`jb`) have no container: Statistics.db is one flat
//! `SSTableMetadata` record, decoded by `legacy.rs` into the same structures ([`StatisticsLayout`]
//! says which layout a file has).
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/metadata/MetadataSerializer.java`,
//! `MetadataType.java`, `ValidationMetadata.java`, `CompactionMetadata.java`,
//! `StatsMetadata.java`; `src/java/org/apache/cassandra/db/SerializationHeader.java`,
//! `db/rows/EncodingStats.java`; `utils/EstimatedHistogram.java`,
//! `utils/streamhist/TombstoneHistogram.java` (trunk, cassandra-3.0, cassandra-2.2).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

mod compaction;
mod dse;
mod header;
mod histogram;
mod hll;
mod legacy;
mod stats;
mod validation;

use core::fmt::Display;

use serde::{Serialize, Serializer};

pub use crate::component::common::LocalDeletionTime;
pub use compaction::{Ancestors, CompactionLayout, CompactionMetadata};
pub use dse::{DseStatsFields, MaxColumnValueLength};
pub use header::{
    ColumnList, ColumnSpec, EncodingStats, SerializationHeader, DELETION_TIME_EPOCH_SECS,
    TIMESTAMP_EPOCH_MICROS, TTL_EPOCH_SECS,
};
pub use histogram::{
    EstimatedHistogram, HistogramBucket, TombstoneBin, TombstoneHistogram, TombstoneHistogramLayout,
};
pub use hll::{HllFormat, HyperLogLogPlus, RegisterSet, SparseSet};
pub use legacy::{LegacyRecord, NotStoredField, NO_BLOOM_FILTER_FP_CHANCE};
pub use stats::{
    ClusteringValues, CommitLogInterval, CommitLogIntervals, CommitLogPosition, CoveredClustering,
    OptionalUuid, StatsMetadata,
};
pub use validation::ValidationMetadata;

use crate::component::common::count::read_int_count;
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::version::Version;

/// `MetadataType`: which component a TOC entry points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum MetadataType {
    Validation,
    Compaction,
    Stats,
    Header,
    /// An ordinal Cassandra does not define.
    Unknown(i32),
}

impl MetadataType {
    pub fn from_ordinal(ordinal: i32) -> MetadataType {
        match ordinal {
            0 => MetadataType::Validation,
            1 => MetadataType::Compaction,
            2 => MetadataType::Stats,
            3 => MetadataType::Header,
            other => MetadataType::Unknown(other),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            MetadataType::Validation => "VALIDATION",
            MetadataType::Compaction => "COMPACTION",
            MetadataType::Stats => "STATS",
            MetadataType::Header => "HEADER",
            MetadataType::Unknown(_) => "unknown",
        }
    }
}

impl core::fmt::Display for MetadataType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            MetadataType::Unknown(o) => write!(f, "unknown type {o}"),
            other => f.write_str(other.name()),
        }
    }
}

/// One entry of the table of contents, with where its component lies in the file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TocEntry {
    /// The 8 bytes of the entry.
    pub span: Span,
    pub metadata_type: Spanned<MetadataType>,
    /// Absolute offset of the component.
    pub offset: Spanned<i32>,
    /// The component's bytes without its checksum; `None` when the offset is unusable.
    pub body: Option<Span>,
    /// The component's trailing CRC32 (na+).
    pub checksum: Option<Span>,
    /// Body bytes the decoder did not consume (oa/da STATS padding, unknown components).
    pub unread: Option<Span>,
    /// Whether all of `unread` is zero bytes.
    pub unread_is_zero: bool,
}

/// Which part of the file a metadata CRC32 covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ChecksumPart {
    /// The 4 bytes of the component count.
    ComponentCount,
    /// The count and the table of contents (one running CRC).
    TableOfContents,
    /// One component's bytes.
    Component(MetadataType),
}

impl core::fmt::Display for ChecksumPart {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ChecksumPart::ComponentCount => f.write_str("component count"),
            ChecksumPart::TableOfContents => f.write_str("table of contents"),
            ChecksumPart::Component(t) => write!(f, "{t} component"),
        }
    }
}

/// A stored metadata CRC32 compared with the one computed over the bytes it covers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChecksumCheck {
    pub part: ChecksumPart,
    pub stored: Spanned<u32>,
    pub computed: u32,
    /// The byte ranges the CRC runs over, in order.
    pub covered: Vec<Span>,
    pub ok: bool,
}

/// Raw bytes from the file with their span (serialized as hex).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RawBytes {
    #[serde(serialize_with = "serialize_hex")]
    pub bytes: Vec<u8>,
    pub span: Span,
}

/// How a Statistics.db is laid out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum StatisticsLayout {
    /// `ka` and later: component count, table of contents and components (`MetadataSerializer`).
    MetadataContainer,
    /// `ic`, `ja`, `jb`: one flat `SSTableMetadata` record, with no table of contents and no
    /// checksums. Its fields fill [`Statistics::validation`], [`Statistics::stats`] and
    /// [`Statistics::compaction`]; the fields it does not store are listed here.
    LegacyRecord(LegacyRecord),
}

/// A decoded Statistics.db.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Statistics {
    pub version: Version,
    /// The whole file.
    pub span: Span,
    /// The container's component count; 0 with an empty span for the legacy record, which has
    /// none (see [`Statistics::layout`]).
    pub component_count: Spanned<u32>,
    /// Empty for the legacy record.
    pub toc: Vec<TocEntry>,
    /// The metadata CRC32s (na+, da), in file order.
    pub checksums: Vec<ChecksumCheck>,
    pub validation: Option<ValidationMetadata>,
    pub compaction: Option<CompactionMetadata>,
    pub stats: Option<StatsMetadata>,
    pub header: Option<SerializationHeader>,
    /// DSE 6.8 (`ba`, `bb`): STATS fields Cassandra does not have.
    pub dse_stats: Option<DseStatsFields>,
    /// Components (or parts of them) that could not be decoded.
    #[serde(serialize_with = "serialize_errors")]
    pub errors: Vec<Error>,
    /// The metadata container (`ka`+) or the flat legacy record (`ic`–`jb`).
    pub layout: StatisticsLayout,
}

impl Statistics {
    /// Sum of the partition-size histogram counts (as `sstablemetadata` prints).
    pub fn estimated_partition_count(&self) -> Option<i64> {
        self.stats.as_ref().map(|s| s.estimated_partition_count)
    }

    /// The partitioner class name from VALIDATION.
    pub fn partitioner(&self) -> Option<&str> {
        self.validation
            .as_ref()
            .map(|v| v.partitioner.value.as_str())
    }

    /// The flat pre-`ka` record's own facts (what it does not store, unread bytes); `None` for
    /// the metadata container.
    pub fn legacy_record(&self) -> Option<&LegacyRecord> {
        match &self.layout {
            StatisticsLayout::LegacyRecord(r) => Some(r),
            StatisticsLayout::MetadataContainer => None,
        }
    }

    /// Whether every metadata checksum matched (trivially true before na).
    pub fn checksums_ok(&self) -> bool {
        self.checksums.iter().all(|c| c.ok)
    }

    /// The checksums that did not match.
    pub fn failed_checksums(&self) -> impl Iterator<Item = &ChecksumCheck> {
        self.checksums.iter().filter(|c| !c.ok)
    }

    pub fn to_node(&self) -> Node {
        if let StatisticsLayout::LegacyRecord(record) = &self.layout {
            return legacy::to_node(self, record);
        }
        let checksum_of = |part: ChecksumPart| self.checksums.iter().find(|c| c.part == part);
        let mut children = vec![spanned_leaf("component count", &self.component_count)];
        children.extend(checksum_of(ChecksumPart::ComponentCount).map(checksum_node));
        let mut toc_children = Vec::new();
        for e in &self.toc {
            toc_children.push(
                Node::new(
                    e.metadata_type.value.to_string(),
                    format!("at offset {}", e.offset.value),
                    Some(e.span),
                )
                .with_children(vec![
                    leaf(
                        "type",
                        format!(
                            "{} ({})",
                            ordinal_of(e.metadata_type.value),
                            e.metadata_type.value
                        ),
                        e.metadata_type.span,
                    ),
                    spanned_leaf("offset", &e.offset),
                ]),
            );
        }
        if let (Some(first), Some(last)) = (self.toc.first(), self.toc.last()) {
            children.push(
                Node::new(
                    "table of contents",
                    format!("{} entries", self.toc.len()),
                    Some(Span::new(first.span.start, last.span.end)),
                )
                .with_children(toc_children),
            );
        }
        children.extend(checksum_of(ChecksumPart::TableOfContents).map(checksum_node));

        let mut entries: Vec<&TocEntry> = self.toc.iter().filter(|e| e.body.is_some()).collect();
        crate::sort::sort_by_key(&mut entries, |e| e.offset.value);
        let mut seen = Vec::new();
        for e in entries {
            let kind = e.metadata_type.value;
            if seen.contains(&kind) {
                continue;
            }
            seen.push(kind);
            let decoded = match kind {
                MetadataType::Validation => self.validation.as_ref().map(|v| v.to_node()),
                MetadataType::Compaction => self.compaction.as_ref().map(|v| v.to_node()),
                MetadataType::Stats => self.stats.as_ref().map(|v| {
                    let mut node = v.to_node();
                    node.children
                        .extend(self.dse_stats.as_ref().map(DseStatsFields::to_node));
                    node
                }),
                MetadataType::Header => self.header.as_ref().map(|v| v.to_node()),
                MetadataType::Unknown(_) => None,
            };
            let body = e.body.unwrap_or(Span::new(0, 0));
            let whole = Span::new(body.start, e.checksum.map_or(body.end, |c| c.end));
            let mut node =
                decoded.unwrap_or_else(|| Node::new(kind.to_string(), "(not decoded)", Some(body)));
            let summary = node.value.clone();
            node.span = Some(whole);
            if let Some(unread) = e.unread {
                node.children.push(leaf(
                    "unread bytes",
                    if e.unread_is_zero {
                        format!("{} zero bytes (padding)", unread.len_bytes())
                    } else {
                        format!("{} bytes not consumed by the decoder", unread.len_bytes())
                    },
                    unread,
                ));
            }
            node.children
                .extend(checksum_of(ChecksumPart::Component(kind)).map(checksum_node));
            node.value = summary;
            children.push(node);
        }
        for e in &self.errors {
            children.push(Node::new("error", e.to_string(), None));
        }
        let bad = self.failed_checksums().count();
        let value = format!(
            "version {}, {} components{}{}",
            self.version,
            self.toc.len(),
            if self.checksums.is_empty() {
                String::new()
            } else if bad == 0 {
                ", checksums ok".to_owned()
            } else {
                format!(", {bad} checksum mismatches")
            },
            if self.errors.is_empty() {
                String::new()
            } else {
                format!(", {} errors", self.errors.len())
            }
        );
        Node::new("Statistics.db", value, Some(self.span)).with_children(children)
    }
}

fn ordinal_of(t: MetadataType) -> i32 {
    match t {
        MetadataType::Validation => 0,
        MetadataType::Compaction => 1,
        MetadataType::Stats => 2,
        MetadataType::Header => 3,
        MetadataType::Unknown(o) => o,
    }
}

fn checksum_node(c: &ChecksumCheck) -> Node {
    leaf(
        &format!("CRC32 of {}", c.part),
        if c.ok {
            format!("0x{:08x} (ok)", c.stored.value)
        } else {
            format!(
                "0x{:08x} MISMATCH (computed 0x{:08x})",
                c.stored.value, c.computed
            )
        },
        c.stored.span,
    )
}

/// Decodes a whole Statistics.db of `version`.
///
/// `ka` and later: fails only when the count / table of contents cannot be read; everything else
/// (bad components, checksum mismatches) is reported inside the result. `ic`–`jb` (the flat
/// legacy record): fails when any field cannot be read. Versions before `ic` are errors.
pub fn decode(bytes: &[u8], version: &Version) -> Result<Statistics> {
    if !legacy::has_new_stats_file(version) {
        return legacy::decode(bytes, version);
    }
    let mut r = Reader::new(bytes, 0).for_component(ComponentType::Statistics);
    let checksummed = version.has_metadata_checksum();
    let mut checksums = Vec::new();
    let mut running = crc32fast::Hasher::new();

    let component_count = read_int_count(&mut r, "metadata component count", "component count")?;
    running.update(&component_count.value.to_be_bytes());
    if checksummed {
        let stored = r.spanned(|r| r.u32("CRC32 of the component count"))?;
        let computed = running.clone().finalize();
        checksums.push(ChecksumCheck {
            part: ChecksumPart::ComponentCount,
            ok: stored.value == computed,
            stored,
            computed,
            covered: vec![component_count.span],
        });
    }
    let n = r.check_count(
        u64::from(component_count.value),
        8,
        "metadata table of contents",
    )?;
    let toc_start = r.offset();
    let mut raw_toc = Vec::with_capacity(n);
    for _ in 0..n {
        let entry_start = r.offset();
        let metadata_type = r.spanned(|r| {
            r.i32("metadata table of contents: type")
                .map(MetadataType::from_ordinal)
        })?;
        let offset = r.spanned(|r| r.i32("metadata table of contents: offset"))?;
        running.update(&ordinal_of(metadata_type.value).to_be_bytes());
        running.update(&offset.value.to_be_bytes());
        raw_toc.push((r.span_from(entry_start), metadata_type, offset));
    }
    let toc_end = r.offset();
    if checksummed {
        let stored = r.spanned(|r| r.u32("CRC32 of the table of contents"))?;
        let computed = running.finalize();
        checksums.push(ChecksumCheck {
            part: ChecksumPart::TableOfContents,
            ok: stored.value == computed,
            stored,
            computed,
            covered: vec![component_count.span, Span::new(toc_start, toc_end)],
        });
    }
    let header_end = r.offset();
    let file_len = bytes.len() as u64;

    // Usable offsets, for slicing by sorted offset.
    let usable = |o: i32| -> Option<u64> {
        let o = u64::try_from(o).ok()?;
        (header_end..=file_len).contains(&o).then_some(o)
    };
    let mut sorted: Vec<u64> = raw_toc
        .iter()
        .filter_map(|(_, _, o)| usable(o.value))
        .collect();
    crate::sort::sort(&mut sorted);
    sorted.dedup();

    let mut stats = Statistics {
        version: *version,
        span: Span::new(0, file_len),
        component_count,
        toc: Vec::with_capacity(n),
        checksums,
        validation: None,
        compaction: None,
        stats: None,
        header: None,
        dse_stats: None,
        errors: Vec::new(),
        layout: StatisticsLayout::MetadataContainer,
    };
    let mut decoded_types: Vec<MetadataType> = Vec::new();
    for (span, metadata_type, offset) in raw_toc {
        let mut entry = TocEntry {
            span,
            metadata_type,
            offset,
            body: None,
            checksum: None,
            unread: None,
            unread_is_zero: false,
        };
        let kind = entry.metadata_type.value;
        let Some(start) = usable(entry.offset.value) else {
            stats.errors.push(r.invalid_at(
                format!(
                    "{kind} offset {} is outside the components area {header_end}..{file_len}",
                    entry.offset.value
                ),
                entry.offset.span.start,
                "metadata table of contents: offset",
            ));
            stats.toc.push(entry);
            continue;
        };
        let end = sorted
            .iter()
            .copied()
            .find(|&o| o > start)
            .unwrap_or(file_len);
        let body_end = if checksummed {
            match end.checked_sub(4).filter(|&b| b >= start) {
                Some(b) => b,
                None => {
                    stats.errors.push(r.invalid_at(
                        format!(
                            "{kind} component is {} bytes, too short for its CRC32",
                            end.saturating_sub(start)
                        ),
                        start,
                        "metadata component checksum",
                    ));
                    stats.toc.push(entry);
                    continue;
                }
            }
        } else {
            end
        };
        let body_bytes = slice(bytes, start, body_end);
        entry.body = Some(Span::new(start, body_end));
        if checksummed {
            let stored_bytes = slice(bytes, body_end, end);
            let mut stored_reader = Reader::new(stored_bytes, body_end);
            if let Ok(stored) = stored_reader.spanned(|r| r.u32("component CRC32")) {
                let computed = crc32fast::hash(body_bytes);
                stats.checksums.push(ChecksumCheck {
                    part: ChecksumPart::Component(kind),
                    ok: stored.value == computed,
                    stored,
                    computed,
                    covered: vec![Span::new(start, body_end)],
                });
            }
            entry.checksum = Some(Span::new(body_end, end));
        }

        let mut cr = Reader::new(body_bytes, start).for_component(ComponentType::Statistics);
        if decoded_types.contains(&kind) {
            stats.errors.push(r.invalid_at(
                format!("second {kind} entry in the table of contents ignored"),
                entry.span.start,
                "metadata table of contents",
            ));
            stats.toc.push(entry);
            continue;
        }
        decoded_types.push(kind);
        let result = match kind {
            MetadataType::Validation => {
                ValidationMetadata::decode(&mut cr).map(|v| stats.validation = Some(v))
            }
            MetadataType::Compaction => {
                CompactionMetadata::decode(&mut cr, version, &mut stats.errors)
                    .map(|v| stats.compaction = Some(v))
            }
            MetadataType::Stats => StatsMetadata::decode(&mut cr, version)
                .and_then(|v| {
                    stats.stats = Some(v);
                    if version.has_dse_stats_fields() {
                        stats.dse_stats = Some(DseStatsFields::decode(&mut cr, version)?);
                    }
                    Ok(())
                })
                .map_err(|e| dse::explain(e, version)),
            MetadataType::Header => {
                SerializationHeader::decode(&mut cr, version).map(|v| stats.header = Some(v))
            }
            MetadataType::Unknown(o) => Err(r.invalid_at(
                format!("unknown metadata type ordinal {o}"),
                entry.metadata_type.span.start,
                "metadata table of contents: type",
            )),
        };
        match result {
            Ok(()) => {
                if !cr.is_empty() {
                    entry.unread = Some(Span::new(cr.offset(), body_end));
                    entry.unread_is_zero = cr.rest().iter().all(|&b| b == 0);
                }
            }
            Err(e) => stats.errors.push(e),
        }
        stats.toc.push(entry);
    }
    Ok(stats)
}

/// `bytes[start..end]` for offsets already checked to lie within the file (empty otherwise).
fn slice(bytes: &[u8], start: u64, end: u64) -> &[u8] {
    match (usize::try_from(start), usize::try_from(end)) {
        (Ok(s), Ok(e)) => bytes.get(s..e).unwrap_or(&[]),
        _ => &[],
    }
}

pub(crate) fn leaf(label: &str, value: impl Into<String>, span: Span) -> Node {
    Node::new(label, value, Some(span))
}

pub(crate) fn spanned_leaf<T: Display>(label: &str, s: &Spanned<T>) -> Node {
    Node::new(label, s.value.to_string(), Some(s.span))
}

/// Bytes as a quoted string when they are printable UTF-8, else as hex; long values shortened.
pub(crate) fn bytes_display(bytes: &[u8]) -> String {
    const MAX_SHOWN: usize = 64;
    let shown = bytes.get(..MAX_SHOWN).unwrap_or(bytes);
    let more = if bytes.len() > MAX_SHOWN {
        format!("… ({} bytes)", bytes.len())
    } else {
        String::new()
    };
    match core::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(char::is_control) => {
            let text: String = s.chars().take(MAX_SHOWN).collect();
            let cut = if s.chars().count() > MAX_SHOWN {
                format!("… ({} bytes)", bytes.len())
            } else {
                String::new()
            };
            format!("\"{text}\"{cut}")
        }
        _ if bytes.is_empty() => "(empty)".to_owned(),
        _ => format!("0x{}{more}", hex(shown)),
    }
}

pub(crate) use crate::span::hex;

pub(crate) fn serialize_hex<S: Serializer>(
    bytes: &[u8],
    s: S,
) -> core::result::Result<S::Ok, S::Error> {
    s.serialize_str(&hex(bytes))
}

fn serialize_errors<S: Serializer>(
    errors: &[Error],
    s: S,
) -> core::result::Result<S::Ok, S::Error> {
    s.collect_seq(errors.iter().map(|e| e.to_string()))
}

/// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` from the two halves.
pub(crate) fn uuid_string(msb: u64, lsb: u64) -> String {
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        msb >> 32,
        (msb >> 16) & 0xffff,
        msb & 0xffff,
        lsb >> 48,
        lsb & 0xffff_ffff_ffff
    )
}

pub(crate) use crate::datetime::iso8601_secs as format_unix_secs;

/// Microseconds since the Unix epoch as an ISO-8601 UTC date-time with fraction; the sentinels
/// `i64::MIN`/`i64::MAX` as "unset".
pub(crate) fn format_timestamp_micros(micros: i64) -> String {
    if micros == i64::MIN || micros == i64::MAX {
        return "unset".to_owned();
    }
    crate::datetime::iso8601_micros(micros)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::Format;

    fn nb() -> Version {
        Version::parse(Format::Big, "nb").unwrap()
    }

    #[test]
    fn dates_format_as_utc() {
        assert_eq!(format_unix_secs(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_unix_secs(1_442_880_000), "2015-09-22T00:00:00Z");
        assert_eq!(format_unix_secs(-1), "1969-12-31T23:59:59Z");
        assert_eq!(
            format_timestamp_micros(1_442_880_000_000_001),
            "2015-09-22T00:00:00.000001Z"
        );
        assert!(format_unix_secs(i64::MAX).len() > 10);
        assert!(format_unix_secs(i64::MIN).len() > 10);
    }

    #[test]
    fn uuid_formatting() {
        assert_eq!(
            uuid_string(0x0011_2233_4455_6677, 0x8899_aabb_ccdd_eeff),
            "00112233-4455-6677-8899-aabbccddeeff"
        );
    }

    #[test]
    fn a_negative_component_count_is_an_error_at_offset_0() {
        let mut bytes = (-2i32).to_be_bytes().to_vec();
        bytes.extend_from_slice(&crc32fast::hash(&bytes).to_be_bytes());
        let e = decode(&bytes, &nb()).unwrap_err();
        assert_eq!(e.offset(), 0);
        assert_eq!(
            e.message(),
            "negative component count -2 (reading metadata component count)"
        );
    }

    /// A checksummed container with one VALIDATION component.
    fn tiny_nb() -> Vec<u8> {
        let name = b"p";
        let mut body = (name.len() as u16).to_be_bytes().to_vec();
        body.extend_from_slice(name);
        body.extend_from_slice(&0.5f64.to_be_bytes());
        let mut out = 1i32.to_be_bytes().to_vec();
        out.extend_from_slice(&crc32fast::hash(&out).to_be_bytes());
        let first: i32 = 4 + 4 + 8 + 4; // count, its CRC, one entry, TOC CRC
        let mut toc = 0i32.to_be_bytes().to_vec();
        toc.extend_from_slice(&first.to_be_bytes());
        out.extend_from_slice(&toc);
        let mut h = crc32fast::Hasher::new();
        h.update(&1i32.to_be_bytes());
        h.update(&toc);
        out.extend_from_slice(&h.finalize().to_be_bytes());
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
        out
    }

    #[test]
    fn container_checksums_and_slicing() {
        let bytes = tiny_nb();
        let s = decode(&bytes, &nb()).unwrap();
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.checksums.len(), 3);
        assert!(s.checksums_ok());
        let v = s.validation.as_ref().unwrap();
        assert_eq!(v.partitioner.value, "p");
        assert_eq!(v.bloom_filter_fp_chance.value, 0.5);
        assert_eq!(s.toc.first().and_then(|e| e.body), Some(Span::new(20, 31)));
        // Flip a body byte: only the component CRC fails.
        let mut flipped = bytes.clone();
        flipped[22] ^= 0xff;
        let s = decode(&flipped, &nb()).unwrap();
        let failed: Vec<_> = s.failed_checksums().map(|c| c.part).collect();
        assert_eq!(failed, [ChecksumPart::Component(MetadataType::Validation)]);
        // Flip the stored count CRC: only that check fails.
        let mut flipped = bytes.clone();
        flipped[5] ^= 0xff;
        let s = decode(&flipped, &nb()).unwrap();
        let failed: Vec<_> = s.failed_checksums().map(|c| c.part).collect();
        assert_eq!(failed, [ChecksumPart::ComponentCount]);
        let node = s.to_node();
        assert_eq!(node.label, "Statistics.db");
        assert!(node.find_at(21).is_some());
    }

    #[test]
    fn bad_headers_are_errors_bad_components_are_reported() {
        assert!(decode(&[], &nb()).is_err());
        assert!(decode(&[0x80, 0, 0, 0, 0, 0, 0, 0], &nb()).is_err());
        assert!(decode(&[0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0], &nb()).is_err());
        // Read as jb's flat record, the container's bytes give an absurd histogram size.
        let jb = Version::parse(Format::Big, "jb").unwrap();
        assert!(decode(&tiny_nb(), &jb).is_err());
        let ib = Version::parse(Format::Big, "ib").unwrap();
        assert!(decode(&tiny_nb(), &ib).is_err());
        // Offset pointing past the end: the entry is kept, the error reported.
        let mut bytes = tiny_nb();
        bytes[15] = 0xff;
        let s = decode(&bytes, &nb()).unwrap();
        assert!(s.validation.is_none());
        assert_eq!(s.errors.len(), 1);
        assert!(!s.checksums_ok());
    }
}
