//! Partition boundaries: the partition header (key, partition deletion) and the end byte.
//!
//! | part | encoding |
//! |---|---|
//! | key | u16 length + key bytes (`ByteBufferUtil.writeWithShortLength`) |
//! | partition deletion | [`DeletionTime`]: 12 bytes before oa; `0x80` or 12 bytes in oa/da |
//! | static row | present iff the header has static columns |
//! | unfiltereds | rows and range tombstone markers |
//! | end of partition | the byte `0x01` |
//!
//! A multi-column key is `CompositeType`-encoded: per component a u16 length, the bytes and an
//! end-of-component byte (`0x00`).
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/format/SortedTablePartitionWriter.java`
//! (`writePartitionHeader`, `endPartition`), `db/DeletionTime.java`,
//! `db/marshal/CompositeType.java` (`split`), `db/rows/UnfilteredSerializer.java`
//! (`writeEndOfPartition`).

use serde::Serialize;

use super::deletion::{check_deletion, DeletionTime};
use super::schema::DataSchema;
use super::{Finding, FindingKind, SpannedBytes};
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Span, Spanned};

/// One component of a partition key; render it with `DataSchema::key_component_types[index]`.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct KeyComponent {
    pub index: usize,
    /// The component's bytes (without length and end-of-component byte).
    pub value: SpannedBytes,
    /// CompositeType keys: the end-of-component byte.
    pub end_of_component: Option<Spanned<u8>>,
}

/// A partition key: raw bytes and typed components.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PartitionKey {
    pub span: Span,
    pub length: Spanned<u16>,
    /// The raw key (what the partitioner hashes).
    pub bytes: SpannedBytes,
    /// One component for single-column keys; the CompositeType parts otherwise (empty when
    /// they do not split cleanly, with a finding).
    pub components: Vec<KeyComponent>,
}

/// The start of a partition: its position, key and partition-level deletion.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PartitionStart {
    /// Absolute uncompressed Data.db offset of the key (what Index.db / Partitions.db store).
    pub position: u64,
    /// Key and deletion.
    pub span: Span,
    pub key: PartitionKey,
    pub deletion: DeletionTime,
    pub findings: Vec<Finding>,
}

/// The end-of-partition byte, with totals for the partition.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PartitionEnd {
    /// Absolute offset of the end-of-partition byte.
    pub position: u64,
    pub flags: Spanned<u8>,
    /// Where the partition started.
    pub partition_position: u64,
    /// The whole partition, end byte included.
    pub partition_span: Span,
    /// Regular rows (the static row not included).
    pub row_count: u64,
    pub range_tombstone_marker_count: u64,
    pub has_static_row: bool,
    pub findings: Vec<Finding>,
}

/// Reads the partition header (key and deletion).
pub(crate) fn read_partition_start(
    r: &mut Reader<'_>,
    schema: &DataSchema,
) -> Result<PartitionStart> {
    let position = r.offset();
    let length = r.spanned(|r| r.u16("partition key length"))?;
    let key_start = r.offset();
    let key = r.bytes(usize::from(length.value), "partition key")?;
    let bytes = SpannedBytes {
        bytes: key.to_vec(),
        span: r.span_from(key_start),
    };
    let mut findings = Vec::new();
    let components = split_key(&bytes, schema, &mut findings);
    let key = PartitionKey {
        span: r.span_from(position),
        length,
        bytes,
        components,
    };
    let deletion = DeletionTime::decode(r, &schema.version, "partition deletion")?;
    check_deletion(&deletion, "partition deletion", &mut findings);
    if !deletion.is_live() && deletion.local_deletion_time.is_none() {
        findings.push(Finding::new(
            FindingKind::InvalidLocalDeletionTime,
            deletion.span,
            "partition deletion with a markedForDeleteAt but no local deletion time".to_owned(),
        ));
    }
    Ok(PartitionStart {
        position,
        span: r.span_from(position),
        key,
        deletion,
        findings,
    })
}

/// Splits a key into its components (CompositeType: `u16 length, bytes, eoc` each).
fn split_key(
    key: &SpannedBytes,
    schema: &DataSchema,
    findings: &mut Vec<Finding>,
) -> Vec<KeyComponent> {
    if !schema.composite_key {
        return vec![KeyComponent {
            index: 0,
            value: key.clone(),
            end_of_component: None,
        }];
    }
    let mut r = Reader::new(&key.bytes, key.span.start);
    let mut out = Vec::new();
    let mut problem = None;
    while !r.is_empty() {
        let start = r.offset();
        let part = (|| {
            let value = r.short_length_bytes("partition key component")?;
            let value_start = r.offset().saturating_sub(value.len() as u64);
            let value = SpannedBytes {
                bytes: value.to_vec(),
                span: Span::new(value_start, r.offset()),
            };
            let eoc = r.spanned(|r| r.u8("end-of-component byte"))?;
            Ok::<_, crate::error::Error>((value, eoc))
        })();
        match part {
            Ok((value, eoc)) => {
                if eoc.value != 0 && problem.is_none() {
                    problem = Some((
                        eoc.span,
                        format!(
                            "key component {} ends with {:#04x}, not 0x00",
                            out.len(),
                            eoc.value
                        ),
                    ));
                }
                out.push(KeyComponent {
                    index: out.len(),
                    value,
                    end_of_component: Some(eoc),
                });
            }
            Err(e) => {
                problem = Some((
                    Span::new(start, key.span.end),
                    format!(
                        "the key does not split into CompositeType components: {}",
                        e.message()
                    ),
                ));
                out.clear();
                break;
            }
        }
    }
    if problem.is_none() && !out.is_empty() && out.len() != schema.key_component_types.len() {
        problem = Some((
            key.span,
            format!(
                "the key has {} components, its type {}",
                out.len(),
                schema.key_component_types.len()
            ),
        ));
    }
    if let Some((span, message)) = problem {
        findings.push(Finding::new(FindingKind::BadPartitionKey, span, message));
    }
    out
}
