//! Every metadata component of one SSTable decoded together ([`SSTableMetadata`]): TOC,
//! Statistics.db, CompressionInfo.db, Filter.db, Summary.db, Digest, CRC.db and Scylla.db; the
//! readers of Data.db and the indexes are built from it.
//!
//! Sans-I/O: the caller passes every file's size and, for the small components that
//! [`reads_whole`] names, its bytes. Each component is decoded on its own; an error in one is
//! recorded (component, offset, message) and the others still decode. Cross-checks between
//! components (the bloom filter against the keys Summary.db and Statistics.db name) become
//! findings.
//!
//! Src: `io/sstable/format/SSTableReader.java` (the components opened with a reader),
//! `io/sstable/Component.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use crate::component::compression_info::{self, CompressionInfo};
use crate::component::crc::{self, CrcFile};
use crate::component::digest::{self, Digest};
use crate::component::filter::{self, BloomFilter};
use crate::component::scylla::{self, ScyllaMetadata};
use crate::component::statistics::{self, Statistics};
use crate::component::summary::{self, IndexSummary};
use crate::component::ComponentType;
use crate::descriptor::Descriptor;
use crate::error::Error;
use crate::span::Node;
use crate::toc::{ComponentCheck, Toc};
use crate::token::Partitioner;
use crate::types::value::parse_partition_key;
use crate::types::{parse_type, AbstractType};

/// One file of an SSTable as the caller supplies it.
#[derive(Debug, Clone, Copy)]
pub struct ComponentInput<'a> {
    pub component: &'a ComponentType,
    pub size_bytes: u64,
    /// The whole file, for components [`reads_whole`] names; `None` for the others.
    pub bytes: Option<&'a [u8]>,
}

/// Whether `info` needs the whole file: the small metadata components. Data.db and the indexes
/// are only measured here; other modules read them by byte range.
pub fn reads_whole(component: &ComponentType) -> bool {
    matches!(
        component,
        ComponentType::Statistics
            | ComponentType::CompressionInfo
            | ComponentType::Filter
            | ComponentType::Summary
            | ComponentType::Digest(_)
            | ComponentType::Crc
            | ComponentType::Toc
            | ComponentType::Scylla
    )
}

/// Every metadata component of one SSTable, decoded.
#[derive(Debug, Clone)]
pub struct SSTableMetadata {
    pub descriptor: Descriptor,
    pub sizes_bytes: Vec<(ComponentType, u64)>,
    pub toc: Option<Toc>,
    pub components: ComponentCheck,
    pub statistics: Option<Statistics>,
    pub compression: Option<CompressionInfo>,
    pub filter: Option<BloomFilter>,
    pub summary: Option<IndexSummary>,
    pub digest: Option<Digest>,
    pub crc: Option<CrcFile>,
    pub scylla: Option<ScyllaMetadata>,
    /// BTI: Partitions.db's footer (partition count, first and last key), when the loader read
    /// the end of the file ([`crate::load::MetadataLoader`]; `decode_metadata` alone leaves it).
    pub partition_index_footer: Option<crate::component::bti::PartitionIndexFooter>,
    /// BTI: field trees of Partitions.db and Rows.db where the loader decoded them (files up to
    /// [`crate::load::WHOLE_TRIE_BYTES`]; a larger Partitions.db: its footer only).
    pub trie_nodes: Vec<(ComponentType, Node)>,
    /// Decoding errors, each with its component and offset.
    pub errors: Vec<Error>,
    /// Suspicious but decodable things, in words.
    pub findings: Vec<Finding>,
}

/// A finding: not an error, but something an engineer should see.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub component: ComponentType,
    pub message: String,
}

fn record<T>(
    errors: &mut Vec<Error>,
    component: &ComponentType,
    result: crate::Result<T>,
) -> Option<T> {
    match result {
        Ok(v) => Some(v),
        Err(e) => {
            errors.push(e.in_component(component.clone()));
            None
        }
    }
}

/// Decodes every metadata component of one SSTable.
pub fn decode_metadata(descriptor: &Descriptor, inputs: &[ComponentInput<'_>]) -> SSTableMetadata {
    let version = &descriptor.version;
    let mut errors = Vec::new();
    let mut findings = Vec::new();
    let mut m = SSTableMetadata {
        descriptor: descriptor.clone(),
        sizes_bytes: inputs
            .iter()
            .map(|i| (i.component.clone(), i.size_bytes))
            .collect(),
        toc: None,
        components: ComponentCheck::default(),
        statistics: None,
        compression: None,
        filter: None,
        summary: None,
        digest: None,
        crc: None,
        scylla: None,
        partition_index_footer: None,
        trie_nodes: Vec::new(),
        errors: Vec::new(),
        findings: Vec::new(),
    };
    for input in inputs {
        let Some(bytes) = input.bytes else { continue };
        let c = input.component;
        match c {
            ComponentType::Toc => m.toc = Some(Toc::parse(bytes)),
            ComponentType::Statistics => {
                m.statistics = record(&mut errors, c, statistics::decode(bytes, version));
            }
            ComponentType::CompressionInfo => {
                m.compression = record(&mut errors, c, compression_info::decode(bytes, version));
            }
            ComponentType::Filter => {
                m.filter = record(&mut errors, c, filter::decode(bytes, version))
            }
            ComponentType::Summary => {
                m.summary = record(&mut errors, c, summary::decode(bytes, version))
            }
            ComponentType::Digest(algorithm) => {
                m.digest = record(&mut errors, c, digest::decode(bytes, *algorithm, version));
            }
            ComponentType::Crc => m.crc = record(&mut errors, c, crc::decode(bytes, version)),
            ComponentType::Scylla => m.scylla = record(&mut errors, c, scylla::decode(bytes)),
            _ => {}
        }
    }
    let present: Vec<ComponentType> = inputs.iter().map(|i| i.component.clone()).collect();
    m.components = ComponentCheck::new(&present, m.toc.as_ref());
    if m.toc.as_ref().is_some_and(|t| t.entries.is_empty()) {
        // Cassandra's `SSTable.readTOC` reads the component list from it: an empty one lists
        // none of the files given.
        findings.push(Finding {
            component: ComponentType::Toc,
            message:
                "TOC.txt lists no component (it is empty): none of this SSTable's files is listed"
                    .to_owned(),
        });
    }

    if let Some(s) = &m.statistics {
        errors.extend(
            s.errors
                .iter()
                .cloned()
                .map(|e| e.in_component(ComponentType::Statistics)),
        );
        for c in s.checksums.iter().filter(|c| !c.ok) {
            findings.push(Finding {
                component: ComponentType::Statistics,
                message: format!(
                    "metadata checksum of the {} fails: stored {:#010x} at offset {}, computed {:#010x}",
                    c.part, c.stored.value, c.stored.span.start, c.computed
                ),
            });
        }
        if let Some(h) = &s.header {
            let types = std::iter::once(&h.key_type)
                .chain(&h.clustering_types)
                .chain(h.static_columns.columns.iter().map(|c| &c.type_name))
                .chain(h.regular_columns.columns.iter().map(|c| &c.type_name));
            for t in types {
                if let Err(e) = parse_type(&t.value) {
                    // The string's bytes start after its vint length prefix.
                    let string_start = t.span.end.saturating_sub(t.value.len() as u64);
                    errors.push(
                        e.to_engine_error(string_start)
                            .in_component(ComponentType::Statistics),
                    );
                }
            }
        }
    }
    let mut push_warnings = |component: ComponentType, warnings: &[String]| {
        for w in warnings {
            findings.push(Finding {
                component: component.clone(),
                message: w.clone(),
            });
        }
    };
    if let Some(c) = &m.compression {
        push_warnings(ComponentType::CompressionInfo, &c.warnings);
        // What Cassandra refuses on open makes the file unusable: an error, not a finding.
        let data_file_len = m
            .sizes_bytes
            .iter()
            .find(|(t, _)| *t == ComponentType::Data)
            .map(|(_, len)| *len);
        errors.extend(c.refusals(data_file_len).iter().map(|r| r.to_error()));
    }
    if let Some(s) = &m.summary {
        push_warnings(ComponentType::Summary, &s.warnings);
    }
    if let Some(d) = &m.digest {
        push_warnings(d_component(d), &d.warnings);
    }
    if let Some(c) = &m.crc {
        push_warnings(ComponentType::Crc, &c.warnings);
    }
    for (component, list) in [
        (
            ComponentType::Filter,
            m.filter.as_ref().map(|f| &f.findings),
        ),
        (
            ComponentType::Scylla,
            m.scylla.as_ref().map(|s| &s.findings),
        ),
    ] {
        for f in list.into_iter().flatten() {
            findings.push(Finding {
                component: component.clone(),
                message: format!("{} (at offset {})", f.value, f.span.start),
            });
        }
    }
    check_filter_against_known_keys(&mut m, &mut findings);
    m.errors = errors;
    m.findings = findings;
    m
}

fn d_component(d: &Digest) -> ComponentType {
    ComponentType::Digest(d.file_algorithm)
}

/// Partition keys the SSTable itself says it holds: Summary.db samples and Statistics.db's key range.
fn known_keys(m: &SSTableMetadata) -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = Vec::new();
    if let Some(s) = &m.summary {
        keys.extend(s.entries.iter().map(|e| e.key.value.clone()));
        keys.push(s.first_key.value.clone());
        keys.push(s.last_key.value.clone());
    }
    if let Some(stats) = m.statistics.as_ref().and_then(|s| s.stats.as_ref()) {
        keys.extend(stats.first_key.iter().map(|k| k.bytes.clone()));
        keys.extend(stats.last_key.iter().map(|k| k.bytes.clone()));
    }
    crate::sort::sort(&mut keys);
    keys.dedup();
    keys
}

/// A bloom filter must never answer "absent" for a key the SSTable holds. When the version's format
/// does, but another format finds every key (some of Cassandra's own test files), the filter is
/// re-read in that format and the finding says so.
fn check_filter_against_known_keys(m: &mut SSTableMetadata, findings: &mut Vec<Finding>) {
    let keys = known_keys(m);
    let Some(f) = &m.filter else { return };
    if keys.is_empty() {
        return;
    }
    let key_refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let present = f.count_present(key_refs.iter().copied());
    if present == keys.len() {
        return;
    }
    let survey = f.format_survey(&key_refs);
    let best = survey
        .iter()
        .find(|s| s.keys_present == keys.len() && s.format != f.format());
    match best {
        Some(found) => {
            findings.push(Finding {
                component: ComponentType::Filter,
                message: format!(
                    "the filter answers \"absent\" for {} of {} keys this SSTable holds when read as version {} implies ({}); \
                     read as {} it finds all of them, so it is shown in that format",
                    keys.len().saturating_sub(present),
                    keys.len(),
                    m.descriptor.version,
                    f.format().describe(),
                    found.format.describe()
                ),
            });
            let refit = f.with_format(found.format);
            m.filter = Some(refit);
        }
        None => findings.push(Finding {
            component: ComponentType::Filter,
            message: format!(
                "bloom filter false negative: {} of {} keys this SSTable holds (from Summary.db / Statistics.db) test absent in every format",
                keys.len().saturating_sub(present),
                keys.len()
            ),
        }),
    }
}

/// What the bloom filter says of one key, with the key's token.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BloomCheck {
    pub token: String,
    pub probe: filter::BloomProbe,
}

impl SSTableMetadata {
    /// The SerializationHeader's clustering column types, parsed one way for every front end:
    /// a type string that does not parse stays in its position as `BytesType`.
    pub fn clustering_types(&self) -> Vec<AbstractType> {
        self.statistics
            .as_ref()
            .and_then(|s| s.header.as_ref())
            .map(|h| {
                h.clustering_types
                    .iter()
                    .map(|t| parse_type(&t.value).unwrap_or(AbstractType::Bytes))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The partitioner named in Statistics.db (`Unknown("")` when there is none).
    pub fn partitioner(&self) -> Partitioner {
        Partitioner::from_class_name(
            self.statistics
                .as_ref()
                .and_then(|s| s.partitioner())
                .unwrap_or(""),
        )
    }

    /// The partition key type from the serialization header (3.0+).
    pub fn key_type(&self) -> Option<AbstractType> {
        let h = self.statistics.as_ref()?.header.as_ref()?;
        parse_type(&h.key_type.value).ok()
    }

    /// A key typed as cqlsh prints it (parsed per the header's key type; UTF-8 text before 3.0,
    /// which records no key type), or `0x…` hex for any type.
    pub fn parse_key(&self, text: &str) -> Result<Vec<u8>, String> {
        let key_type = self.key_type().unwrap_or(AbstractType::Utf8);
        parse_partition_key(&key_type, text).map_err(|e| e.to_string())
    }

    /// The key's token and the bloom filter's answer, with every probed bit.
    pub fn bloom_check(&self, key: &[u8]) -> Option<BloomCheck> {
        let filter = self.filter.as_ref()?;
        Some(BloomCheck {
            token: self.partitioner().token(key).to_string(),
            probe: filter.might_contain(key),
        })
    }

    /// The decoded fields of every component, one tree per component, for the UI and annotated dumps.
    pub fn component_nodes(&self) -> Vec<(ComponentType, Node)> {
        let mut out = Vec::new();
        if let Some(t) = &self.toc {
            let children = t
                .entries
                .iter()
                .map(|e| Node::new("component", e.value.file_suffix(), Some(e.span)))
                .collect();
            out.push((
                ComponentType::Toc,
                Node::new("TOC.txt", format!("{} components", t.entries.len()), None)
                    .with_children(children),
            ));
        }
        if let Some(s) = &self.statistics {
            out.push((ComponentType::Statistics, s.to_node()));
        }
        if let Some(c) = &self.compression {
            out.push((ComponentType::CompressionInfo, c.to_node()));
        }
        if let Some(f) = &self.filter {
            out.push((ComponentType::Filter, f.to_node()));
        }
        if let Some(s) = &self.summary {
            out.push((ComponentType::Summary, s.to_node()));
        }
        if let Some(d) = &self.digest {
            out.push((d_component(d), d.to_node()));
        }
        if let Some(c) = &self.crc {
            out.push((ComponentType::Crc, c.to_node()));
        }
        if let Some(s) = &self.scylla {
            out.push((ComponentType::Scylla, s.to_node()));
        }
        out.extend(self.trie_nodes.iter().cloned());
        out
    }

    pub fn size_of(&self, component: &ComponentType) -> Option<u64> {
        self.sizes_bytes
            .iter()
            .find(|(c, _)| c == component)
            .map(|&(_, s)| s)
    }
}
