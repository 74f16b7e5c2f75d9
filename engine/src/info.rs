//! The `sstable-inspect info` report ([`InfoReport`]): what the CLI prints and the page's
//! overview shows of one SSTable's decoded metadata ([`SSTableMetadata`], decoded in
//! [`crate::metadata`] and re-exported here), and the JSON both share.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use crate::component::digest::DigestValue;
use crate::component::statistics;
use crate::component::ComponentType;
use crate::types::parse_type;

pub use crate::metadata::{
    decode_metadata, reads_whole, BloomCheck, ComponentInput, Finding, SSTableMetadata,
};

impl SSTableMetadata {
    /// The partitions this SSTable holds as a replica's Merkle tree is sized from them
    /// (`ValidationManager`): the COMPACTION metadata's cardinality estimate, else STATS'
    /// estimated partition count; 0 without STATS.
    pub fn estimated_partitions(&self) -> u64 {
        let Some(statistics) = self.statistics.as_ref() else {
            return 0;
        };
        let Some(stats) = statistics.stats.as_ref() else {
            return 0;
        };
        statistics
            .compaction
            .as_ref()
            .and_then(|c| c.estimated_cardinality())
            .unwrap_or(u64::try_from(stats.estimated_partition_count).unwrap_or(0))
    }

    /// The stable JSON report of `sstable-inspect info` (and the page's export).
    pub fn report(&self, sstable: &str) -> InfoReport {
        let stats = self.statistics.as_ref().and_then(|s| s.stats.as_ref());
        let data_size = self.size_of(&ComponentType::Data);
        InfoReport {
            sstable: sstable.to_owned(),
            version: self.descriptor.version.to_string(),
            format: self.descriptor.format.to_string(),
            generation: self.descriptor.id.to_string(),
            components: ComponentsReport {
                present: names(&self.components.present),
                missing: names(&self.components.missing),
                unlisted: names(&self.components.unlisted),
                unknown: names(&self.components.unknown),
                sizes_bytes: crate::sort::btree_map(
                    self.sizes_bytes
                        .iter()
                        .map(|(c, s)| (c.file_suffix().to_owned(), *s)),
                ),
            },
            errors: self
                .errors
                .iter()
                .map(|e| ErrorReport {
                    component: e.component().map(|c| c.file_suffix().to_owned()),
                    offset: e.offset(),
                    message: e.message(),
                })
                .collect(),
            findings: self.findings.clone(),
            validation: self
                .statistics
                .as_ref()
                .and_then(|s| s.validation.as_ref())
                .map(|v| ValidationReport {
                    partitioner: v.partitioner.value.clone(),
                    bloom_filter_fp_chance: v.bloom_filter_fp_chance.value,
                }),
            stats: stats.map(|st| {
                let ldt = |l: &crate::span::Spanned<statistics::LocalDeletionTime>| l.value.secs;
                StatsReport {
                    min_timestamp: st.min_timestamp_micros.value,
                    max_timestamp: st.max_timestamp_micros.value,
                    min_local_deletion_time: st.min_local_deletion_time.as_ref().map(ldt),
                    max_local_deletion_time: ldt(&st.max_local_deletion_time),
                    min_ttl: st.min_ttl_secs.as_ref().map(|t| t.value),
                    max_ttl: st.max_ttl_secs.as_ref().map(|t| t.value),
                    compression_ratio: st.compression_ratio.value,
                    sstable_level: st.sstable_level.value,
                    repaired_at: st.repaired_at_millis.value,
                    total_rows: st.total_rows.as_ref().map(|t| t.value),
                    total_columns_set: st.total_columns_set.as_ref().map(|t| t.value),
                    estimated_partition_count: st.estimated_partition_count,
                    estimated_cardinality: self
                        .statistics
                        .as_ref()
                        .and_then(|s| s.compaction.as_ref())
                        .and_then(|c| c.estimated_cardinality()),
                    metadata_checksums_ok: self
                        .statistics
                        .as_ref()
                        .map(|s| s.checksums_ok())
                        .unwrap_or(true),
                }
            }),
            header: self
                .statistics
                .as_ref()
                .and_then(|s| s.header.as_ref())
                .map(|h| HeaderReport {
                    key_type: h.key_type.value.clone(),
                    key_cql_type: cql_of(&h.key_type.value),
                    clustering_types: h
                        .clustering_types
                        .iter()
                        .map(|t| TypeReport {
                            r#type: t.value.clone(),
                            cql_type: cql_of(&t.value),
                        })
                        .collect(),
                    static_columns: columns(&h.static_columns),
                    regular_columns: columns(&h.regular_columns),
                }),
            compression: self.compression.as_ref().map(|c| CompressionReport {
                compressor: c.compressor.clone(),
                options: crate::sort::btree_map(
                    c.options
                        .iter()
                        .map(|o| (o.key.value.clone(), o.value.value.clone())),
                ),
                chunk_length: c.chunk_length_bytes.value,
                max_compressed_length: c.max_compressed_length_bytes.as_ref().map(|m| m.value),
                data_length: c.data_length_bytes.value,
                chunk_count: c.chunk_offsets.len(),
                ratio: data_size.and_then(|d| c.compression_ratio(d)),
            }),
            filter: self.filter.as_ref().map(|f| {
                let estimated_keys = stats
                    .map(|s| s.estimated_partition_count)
                    .and_then(|n| u64::try_from(n).ok());
                FilterReport {
                    format: if f.format().old_byte_order {
                        "old"
                    } else {
                        "new"
                    },
                    hash_order: if f.format().old_hash_order {
                        "old"
                    } else {
                        "new"
                    },
                    hash_count: f.hash_count(),
                    bitset_bits: f.bitset_size_bits(),
                    bits_set: f.bits_set,
                    fill_ratio: f.fill_ratio,
                    expected_fp_rate: estimated_keys.map(|n| f.expected_fp_rate(n)),
                    configured_fp_chance: self
                        .statistics
                        .as_ref()
                        .and_then(|s| s.validation.as_ref())
                        .map(|v| v.bloom_filter_fp_chance.value),
                }
            }),
            digest: self.digest.as_ref().map(|d| DigestReport {
                algorithm: d.algorithm,
                file: d.file_algorithm,
                value: match &d.value {
                    DigestValue::Checksum(v) => v.value.to_string(),
                    DigestValue::Sha1 { hex, .. } => hex.value.clone(),
                },
            }),
        }
    }
}

fn names(list: &[ComponentType]) -> Vec<String> {
    list.iter().map(|c| c.file_suffix().to_owned()).collect()
}

fn cql_of(type_string: &str) -> Option<String> {
    parse_type(type_string).ok().map(|t| t.cql())
}

fn columns(list: &statistics::ColumnList) -> Vec<ColumnReport> {
    list.columns
        .iter()
        .map(|c| ColumnReport {
            name: c.name.value.clone(),
            r#type: c.type_name.value.clone(),
            cql_type: cql_of(&c.type_name.value),
        })
        .collect()
}

/// `sstable-inspect info --json`, one per SSTable. These keys are a stable contract: add, never rename.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InfoReport {
    pub sstable: String,
    pub version: String,
    pub format: String,
    pub generation: String,
    pub components: ComponentsReport,
    pub errors: Vec<ErrorReport>,
    pub findings: Vec<Finding>,
    pub validation: Option<ValidationReport>,
    pub stats: Option<StatsReport>,
    pub header: Option<HeaderReport>,
    pub compression: Option<CompressionReport>,
    pub filter: Option<FilterReport>,
    pub digest: Option<DigestReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentsReport {
    pub present: Vec<String>,
    pub missing: Vec<String>,
    pub unlisted: Vec<String>,
    pub unknown: Vec<String>,
    pub sizes_bytes: std::collections::BTreeMap<String, u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorReport {
    pub component: Option<String>,
    pub offset: u64,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValidationReport {
    pub partitioner: String,
    pub bloom_filter_fp_chance: f64,
}

/// Timestamps in microseconds, deletion times in seconds (as stored: signed before oa), TTLs in
/// seconds, repaired_at in milliseconds — Cassandra's units, as sstablemetadata prints them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatsReport {
    pub min_timestamp: i64,
    pub max_timestamp: i64,
    pub min_local_deletion_time: Option<i64>,
    pub max_local_deletion_time: i64,
    pub min_ttl: Option<i32>,
    pub max_ttl: Option<i32>,
    pub compression_ratio: f64,
    pub sstable_level: i32,
    pub repaired_at: i64,
    pub total_rows: Option<i64>,
    pub total_columns_set: Option<i64>,
    pub estimated_partition_count: i64,
    pub estimated_cardinality: Option<u64>,
    pub metadata_checksums_ok: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeReport {
    pub r#type: String,
    pub cql_type: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnReport {
    pub name: String,
    pub r#type: String,
    pub cql_type: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeaderReport {
    pub key_type: String,
    pub key_cql_type: Option<String>,
    pub clustering_types: Vec<TypeReport>,
    pub static_columns: Vec<ColumnReport>,
    pub regular_columns: Vec<ColumnReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompressionReport {
    pub compressor: String,
    pub options: std::collections::BTreeMap<String, String>,
    pub chunk_length: u32,
    pub max_compressed_length: Option<u32>,
    pub data_length: u64,
    pub chunk_count: usize,
    /// On-disk Data.db bytes over uncompressed bytes (Cassandra's definition).
    pub ratio: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilterReport {
    /// Byte format: "old" (before na) or "new".
    pub format: &'static str,
    /// Hash order: "old" (ka/la) or "new".
    pub hash_order: &'static str,
    pub hash_count: u32,
    pub bitset_bits: u64,
    pub bits_set: u64,
    pub fill_ratio: f64,
    /// (1 − e^(−kn/m))^k for the estimated partition count.
    pub expected_fp_rate: Option<f64>,
    pub configured_fp_chance: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DigestReport {
    /// What the file really holds (adler32 for a 2.1 `Digest.sha1`).
    pub algorithm: crate::component::DigestAlgorithm,
    /// What its name says.
    pub file: crate::component::DigestAlgorithm,
    pub value: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descriptor::parse_file_name;

    #[test]
    fn a_data_file_named_statistics_is_an_error_and_the_rest_decodes() {
        let (d, _) = parse_file_name("nb-1-big-Data.db").unwrap();
        let garbage = [
            0x00u8, 0x01, 0x30, 0x7f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1,
        ];
        let toc = b"Statistics.db\nTOC.txt\n";
        let stats = ComponentType::Statistics;
        let toc_c = ComponentType::Toc;
        let m = decode_metadata(
            &d,
            &[
                ComponentInput {
                    component: &stats,
                    size_bytes: 16,
                    bytes: Some(&garbage),
                },
                ComponentInput {
                    component: &toc_c,
                    size_bytes: toc.len() as u64,
                    bytes: Some(toc),
                },
            ],
        );
        assert!(m.toc.is_some());
        assert!(!m.errors.is_empty());
        assert_eq!(m.errors[0].component(), Some(&ComponentType::Statistics));
        let r = m.report("x");
        assert_eq!(r.errors[0].component.as_deref(), Some("Statistics.db"));
        assert!(m.components.missing.is_empty());
    }

    #[test]
    fn an_empty_toc_is_a_finding() {
        let (d, _) = parse_file_name("nb-1-big-Data.db").unwrap();
        let toc_c = ComponentType::Toc;
        let input = |bytes: &'static [u8]| ComponentInput {
            component: &toc_c,
            size_bytes: bytes.len() as u64,
            bytes: Some(bytes),
        };
        let m = decode_metadata(&d, &[input(b"")]);
        assert_eq!(m.findings.len(), 1);
        assert_eq!(m.findings[0].component, ComponentType::Toc);
        assert!(m.findings[0].message.contains("TOC.txt lists no component"));
        // Blank lines only: as empty.
        assert_eq!(decode_metadata(&d, &[input(b"\n \n")]).findings.len(), 1);
        assert!(decode_metadata(&d, &[input(b"Data.db\n")])
            .findings
            .is_empty());
    }
}
