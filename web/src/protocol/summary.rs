//! What the UI shows of one SSTable's metadata, decoded in a worker (`Request::Load`): the
//! engine's `MetadataLoader`, `InfoReport` and field trees run there, and only this — facts
//! already in words, the field trees, the numbers the views draw — crosses to the UI thread, so
//! the UI's WebAssembly links no decoder (issue #12).

use serde::{Deserialize, Serialize};
use sstable_engine::component::{ComponentType, DigestAlgorithm};
use sstable_engine::datetime::{human_seconds, iso8601_micros};
use sstable_engine::info::{InfoReport, SSTableMetadata};
use sstable_engine::span::Node;
use sstable_engine::verify::{DataSplit, Verifier, VerifyOptions};

/// One labelled fact of the SSTable card (`label`, the `data-testid`, the value in words).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fact {
    pub label: String,
    pub id: String,
    pub value: String,
}

/// How the files given compare with TOC.txt (`toc::ComponentCheck`), as file suffixes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CheckSummary {
    pub missing: Vec<String>,
    pub unlisted: Vec<String>,
    pub unknown: Vec<String>,
}

/// The bloom filter's shape (`info::FilterReport`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilterSummary {
    pub hash_count: u32,
    pub bitset_bits: u64,
    pub bits_set: u64,
    pub fill_ratio: f64,
    pub expected_fp_rate: Option<f64>,
    pub configured_fp_chance: Option<f64>,
    pub format: String,
    pub hash_order: String,
}

/// Statistics.db's histograms as the Analytics tab draws them: (bucket upper bound, count).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Histograms {
    pub partition_size: Vec<(i64, i64)>,
    pub cells_per_partition: Vec<(i64, i64)>,
    /// (local deletion or expiry time in seconds, count).
    pub tombstone_drop: Vec<(i64, i64)>,
}

/// The columns of the serialization header (3.0+), for the data browser.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HeaderSummary {
    pub clustering_count: usize,
    /// Static, then regular columns.
    pub columns: Vec<String>,
}

/// Everything the UI keeps of one SSTable's metadata.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SSTableSummary {
    /// Each file's size in bytes, by file suffix (`File.size` is a disk access each: the UI
    /// thread does not ask it of hundreds of files).
    pub sizes_bytes: Vec<(String, u64)>,
    pub check: CheckSummary,
    /// The card's facts (partitioner, compression, statistics, schema, digest), in words.
    pub facts: Vec<Fact>,
    pub findings: Vec<String>,
    /// Decode errors, with their component and offset.
    pub errors: Vec<String>,
    /// The partitioner's short class name.
    pub partitioner: Option<String>,
    /// The compressor's class name (`None`: uncompressed).
    pub compressor: Option<String>,
    pub estimated_partitions: Option<i64>,
    pub max_timestamp_micros: Option<i64>,
    pub header: Option<HeaderSummary>,
    /// The partition key's CQL type (3.0+).
    pub key_type_cql: Option<String>,
    pub filter: Option<FilterSummary>,
    pub histograms: Option<Histograms>,
    /// Data.db's chunks (compressed chunks, or CRC.db's checksums).
    pub chunk_count: Option<u64>,
    /// `Verifier::splits` for a pool of `n` workers at index `n - 1` (1..=`protocol::MAX_WORKERS`).
    pub splits: Vec<Vec<DataSplit>>,
    /// The decoded field trees, one per component (by file suffix).
    pub nodes: Vec<(String, Node)>,
    /// `sstable-inspect info --json` of this SSTable (the card's export), pretty.
    pub info_json: String,
}

impl SSTableSummary {
    /// Built in the worker from the decoded metadata; `min_split_bytes` as verification splits.
    pub fn new(prefix: &str, m: &SSTableMetadata, min_split_bytes: u64) -> SSTableSummary {
        let info = m.report(prefix);
        // A CompressionInfo.db that is there but does not decode: the compression is unknown,
        // never "none".
        let compression_undecoded = (info.compression.is_none()
            && m.sizes_bytes
                .iter()
                .any(|(c, _)| *c == ComponentType::CompressionInfo))
        .then(|| {
            info.errors
                .iter()
                .find(|e| e.component.as_deref() == Some("CompressionInfo.db"))
                .map(|e| format!("at offset {}: {}", e.offset, e.message))
                .unwrap_or_else(|| "no decode error was reported".to_owned())
        });
        let suffixes = |list: &[ComponentType]| {
            list.iter()
                .map(|c| c.file_suffix().to_owned())
                .collect::<Vec<_>>()
        };
        let stats = m.statistics.as_ref().and_then(|s| s.stats.as_ref());
        let histograms = stats.map(|s| Histograms {
            partition_size: pairs(
                &s.estimated_partition_size.bucket_offsets(),
                &s.estimated_partition_size.counts(),
            ),
            cells_per_partition: pairs(
                &s.estimated_cell_per_partition_count.bucket_offsets(),
                &s.estimated_cell_per_partition_count.counts(),
            ),
            tombstone_drop: s
                .estimated_tombstone_drop_time
                .bins
                .iter()
                .map(|b| (b.point_secs, b.count))
                .collect(),
        });
        let verifier = Verifier::for_sstable(m, VerifyOptions::default());
        let splits = (1..=super::MAX_WORKERS)
            .map(|n| {
                verifier
                    .as_ref()
                    .map(|v| v.splits(n, min_split_bytes))
                    .unwrap_or_default()
            })
            .collect();
        SSTableSummary {
            sizes_bytes: m
                .sizes_bytes
                .iter()
                .map(|(c, size)| (c.file_suffix().to_owned(), *size))
                .collect(),
            check: CheckSummary {
                missing: suffixes(&m.components.missing),
                unlisted: suffixes(&m.components.unlisted),
                unknown: suffixes(&m.components.unknown),
            },
            facts: facts(&info, compression_undecoded.as_deref()),
            findings: info
                .findings
                .iter()
                .map(|f| format!("{}: {}", f.component, f.message))
                .collect(),
            errors: info
                .errors
                .iter()
                .map(|e| {
                    format!(
                        "{} at offset {}: {}",
                        e.component.as_deref().unwrap_or("?"),
                        e.offset,
                        e.message
                    )
                })
                .collect(),
            partitioner: info
                .validation
                .as_ref()
                .map(|v| v.partitioner.rsplit('.').next().unwrap_or("").to_owned()),
            compressor: match &compression_undecoded {
                Some(_) => Some("unknown: CompressionInfo.db does not decode".to_owned()),
                None => info.compression.as_ref().map(|c| c.compressor.clone()),
            },
            estimated_partitions: info.stats.as_ref().map(|s| s.estimated_partition_count),
            max_timestamp_micros: info.stats.as_ref().map(|s| s.max_timestamp),
            header: info.header.as_ref().map(|h| HeaderSummary {
                clustering_count: h.clustering_types.len(),
                columns: h
                    .static_columns
                    .iter()
                    .chain(&h.regular_columns)
                    .map(|c| c.name.clone())
                    .collect(),
            }),
            key_type_cql: m.key_type().map(|t| t.cql()),
            filter: info.filter.as_ref().map(|f| FilterSummary {
                hash_count: f.hash_count,
                bitset_bits: f.bitset_bits,
                bits_set: f.bits_set,
                fill_ratio: f.fill_ratio,
                expected_fp_rate: f.expected_fp_rate,
                configured_fp_chance: f.configured_fp_chance,
                format: f.format.to_owned(),
                hash_order: f.hash_order.to_owned(),
            }),
            histograms,
            chunk_count: m
                .compression
                .as_ref()
                .map(|c| c.chunk_offsets.len() as u64)
                .or_else(|| m.crc.as_ref().map(|c| c.checksums.len() as u64)),
            splits,
            nodes: m
                .component_nodes()
                .into_iter()
                .map(|(c, n)| (c.file_suffix().to_owned(), n))
                .collect(),
            info_json: serde_json::to_string_pretty(&[&info]).unwrap_or_default(),
        }
    }

    /// The size of `component`'s file.
    pub fn size_of(&self, component: &ComponentType) -> Option<u64> {
        let suffix = component.file_suffix();
        self.sizes_bytes
            .iter()
            .find(|(c, _)| c == suffix)
            .map(|&(_, size)| size)
    }

    /// The field tree of `component`.
    pub fn node(&self, component: &ComponentType) -> Option<&Node> {
        let suffix = component.file_suffix();
        self.nodes.iter().find(|(c, _)| c == suffix).map(|(_, n)| n)
    }
}

fn pairs(offsets: &[i64], counts: &[i64]) -> Vec<(i64, i64)> {
    offsets
        .iter()
        .copied()
        .zip(counts.iter().copied())
        .collect()
}

fn short_class(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

fn digest_name(a: &DigestAlgorithm) -> &'static str {
    match a {
        DigestAlgorithm::Crc32 => "CRC32",
        DigestAlgorithm::Adler32 => "Adler32",
        DigestAlgorithm::Sha1 => "SHA-1",
    }
}

/// What Statistics, CompressionInfo, Filter and Digest say, in words (the card's facts).
/// `compression_undecoded`: why a CompressionInfo.db that is present did not decode.
fn facts(info: &InfoReport, compression_undecoded: Option<&str>) -> Vec<Fact> {
    let mut rows = Vec::new();
    let mut row = |label: &str, id: &str, value: String| {
        rows.push(Fact {
            label: label.to_owned(),
            id: id.to_owned(),
            value,
        })
    };
    if let Some(v) = &info.validation {
        row(
            "Partitioner",
            "partitioner",
            short_class(&v.partitioner).to_owned(),
        );
        row(
            "Bloom FP chance",
            "fp-chance",
            v.bloom_filter_fp_chance.to_string(),
        );
    }
    if let Some(c) = &info.compression {
        let ratio = c
            .ratio
            .map(|r| format!(", ratio {:.1}%", r * 100.0))
            .unwrap_or_default();
        row(
            "Compression",
            "compressor",
            format!(
                "{} {} KiB chunks × {}{ratio}",
                c.compressor,
                c.chunk_length / 1024,
                c.chunk_count
            ),
        );
    } else if let Some(why) = compression_undecoded {
        row(
            "Compression",
            "compressor",
            format!("unknown: CompressionInfo.db is present but does not decode ({why})"),
        );
    } else {
        row("Compression", "compressor", "none".to_owned());
    }
    if let Some(st) = &info.stats {
        row(
            "Estimated partitions",
            "estimated-partitions",
            st.estimated_partition_count.to_string(),
        );
        row(
            "Timestamps",
            "timestamps",
            format!(
                "{} … {}",
                iso8601_micros(st.min_timestamp),
                iso8601_micros(st.max_timestamp)
            ),
        );
        if let (Some(min), Some(max)) = (st.min_ttl, st.max_ttl) {
            row(
                "TTL",
                "ttl",
                format!(
                    "{} … {}",
                    human_seconds(min.into()),
                    human_seconds(max.into())
                ),
            );
        }
        if let Some(rows_total) = st.total_rows {
            row("Rows", "total-rows", rows_total.to_string());
        }
    }
    if let Some(h) = &info.header {
        let cql = |t: &Option<String>, raw: &str| t.clone().unwrap_or_else(|| raw.to_owned());
        let mut schema = vec![format!("key {}", cql(&h.key_cql_type, &h.key_type))];
        schema.extend(
            h.clustering_types
                .iter()
                .map(|c| format!("clustering {}", cql(&c.cql_type, &c.r#type))),
        );
        schema.extend(
            h.static_columns
                .iter()
                .map(|c| format!("{} {} static", c.name, cql(&c.cql_type, &c.r#type))),
        );
        schema.extend(
            h.regular_columns
                .iter()
                .map(|c| format!("{} {}", c.name, cql(&c.cql_type, &c.r#type))),
        );
        row("Schema", "schema", schema.join(", "));
    }
    if let Some(d) = &info.digest {
        row(
            "Digest",
            "digest",
            format!("{} {}", digest_name(&d.algorithm), d.value),
        );
    }
    rows
}
