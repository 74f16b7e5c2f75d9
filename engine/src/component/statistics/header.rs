//! HEADER (`SerializationHeader.Component`, ma+): the encoding bases and the schema the rows in
//! Data.db were written with.
//!
//! | field | type | since |
//! |---|---|---|
//! | EncodingStats minTimestamp | unsigned vint delta; value = delta + 1442880000000000 µs (2015-09-22T00:00Z), 64-bit wrapping | ma |
//! | EncodingStats minLocalDeletionTime | unsigned vint delta truncated to 32 bits; value = delta + 1442880000 s, 32-bit wrapping; read as i32 before oa, u32 from oa | ma |
//! | EncodingStats minTTL | unsigned vint delta truncated to 32 bits; value = delta + 0 | ma |
//! | partition key type | vint-length UTF-8 type string (`CompositeType(...)` for multi-column keys) | ma |
//! | clustering types | unsigned vint count + type strings | ma |
//! | static columns | unsigned vint count + count × (vint-length name bytes, type string) | ma |
//! | regular columns | same | ma |
//!
//! Columns are listed as written: Cassandra writes them sorted, Scylla in plain name order.
//! Type strings are kept as strings (the type parser lives elsewhere).
//!
//! Src: `src/java/org/apache/cassandra/db/SerializationHeader.java` (`Component`, `Serializer`),
//! `src/java/org/apache/cassandra/db/rows/EncodingStats.java`.

use serde::Serialize;

use super::stats::short_type;
use super::{format_timestamp_micros, format_unix_secs, leaf, spanned_leaf};
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::version::Version;

/// `EncodingStats.TIMESTAMP_EPOCH`: 2015-09-22T00:00:00Z in microseconds.
pub const TIMESTAMP_EPOCH_MICROS: i64 = 1_442_880_000_000_000;
/// `EncodingStats.DELETION_TIME_EPOCH`: 2015-09-22T00:00:00Z in seconds.
pub const DELETION_TIME_EPOCH_SECS: i32 = 1_442_880_000;
/// `EncodingStats.TTL_EPOCH`.
pub const TTL_EPOCH_SECS: i32 = 0;

/// The minima every Data.db delta is relative to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EncodingStats {
    pub span: Span,
    pub min_timestamp_delta: Spanned<u64>,
    /// `TIMESTAMP_EPOCH + delta`, wrapping.
    pub min_timestamp_micros: i64,
    pub min_local_deletion_time_delta: Spanned<u64>,
    /// `(delta as u32) + DELETION_TIME_EPOCH` in 32-bit wrapping arithmetic: the bit pattern.
    pub min_local_deletion_time_raw: u32,
    /// The same read as i32 before oa (may be negative) and as u32 from oa.
    pub min_local_deletion_time_secs: i64,
    pub min_ttl_delta: Spanned<u64>,
    /// `(delta as i32) + TTL_EPOCH`, wrapping.
    pub min_ttl_secs: i32,
}

impl EncodingStats {
    pub fn decode(r: &mut Reader<'_>, version: &Version) -> Result<EncodingStats> {
        let start = r.offset();
        let min_timestamp_delta = r.spanned(|r| r.unsigned_vint("HEADER: min timestamp delta"))?;
        let min_local_deletion_time_delta =
            r.spanned(|r| r.unsigned_vint("HEADER: min local deletion time delta"))?;
        let min_ttl_delta = r.spanned(|r| r.unsigned_vint("HEADER: min TTL delta"))?;
        let min_local_deletion_time_raw = (min_local_deletion_time_delta.value as u32)
            .wrapping_add(DELETION_TIME_EPOCH_SECS as u32);
        let min_local_deletion_time_secs = if version.has_uint_deletion_time() {
            i64::from(min_local_deletion_time_raw)
        } else {
            i64::from(min_local_deletion_time_raw as i32)
        };
        Ok(EncodingStats {
            span: r.span_from(start),
            min_timestamp_micros: TIMESTAMP_EPOCH_MICROS
                .wrapping_add(min_timestamp_delta.value as i64),
            min_timestamp_delta,
            min_local_deletion_time_raw,
            min_local_deletion_time_secs,
            min_local_deletion_time_delta,
            min_ttl_secs: (min_ttl_delta.value as i32).wrapping_add(TTL_EPOCH_SECS),
            min_ttl_delta,
        })
    }

    pub fn to_node(&self) -> Node {
        Node::new(
            "encoding stats",
            format!(
                "min timestamp {}, min local deletion time {}, min TTL {}",
                self.min_timestamp_micros, self.min_local_deletion_time_secs, self.min_ttl_secs
            ),
            Some(self.span),
        )
        .with_children(vec![
            leaf(
                "min timestamp",
                format!(
                    "delta {} → {} µs ({})",
                    self.min_timestamp_delta.value,
                    self.min_timestamp_micros,
                    format_timestamp_micros(self.min_timestamp_micros)
                ),
                self.min_timestamp_delta.span,
            ),
            leaf(
                "min local deletion time",
                format!(
                    "delta {} → {} s ({})",
                    self.min_local_deletion_time_delta.value,
                    self.min_local_deletion_time_secs,
                    format_unix_secs(self.min_local_deletion_time_secs)
                ),
                self.min_local_deletion_time_delta.span,
            ),
            leaf(
                "min TTL",
                format!(
                    "delta {} → {} s",
                    self.min_ttl_delta.value, self.min_ttl_secs
                ),
                self.min_ttl_delta.span,
            ),
        ])
    }
}

/// One column of the header: name and type string.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnSpec {
    pub span: Span,
    /// The name bytes decoded as UTF-8 (invalid sequences replaced).
    pub name: Spanned<String>,
    pub type_name: Spanned<String>,
}

/// A list of columns (static or regular).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnList {
    pub span: Span,
    pub count: Spanned<u64>,
    pub columns: Vec<ColumnSpec>,
}

impl ColumnList {
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<ColumnList> {
        let start = r.offset();
        let count = r.spanned(|r| r.unsigned_vint(what))?;
        let n = r.check_count(count.value, 2, what)?;
        let mut columns = Vec::with_capacity(n);
        for _ in 0..n {
            let c_start = r.offset();
            let name = r.spanned(|r| {
                r.vint_length_bytes("HEADER: column name")
                    .map(|b| String::from_utf8_lossy(b).into_owned())
            })?;
            let type_name = type_string(r, "HEADER: column type")?;
            columns.push(ColumnSpec {
                span: r.span_from(c_start),
                name,
                type_name,
            });
        }
        Ok(ColumnList {
            span: r.span_from(start),
            count,
            columns,
        })
    }

    fn to_node(&self, label: &str) -> Node {
        let mut children = vec![spanned_leaf("count", &self.count)];
        for c in &self.columns {
            children.push(
                Node::new(
                    c.name.value.clone(),
                    short_type(&c.type_name.value),
                    Some(c.span),
                )
                .with_children(vec![
                    spanned_leaf("name", &c.name),
                    spanned_leaf("type", &c.type_name),
                ]),
            );
        }
        let summary = self
            .columns
            .iter()
            .map(|c| format!("{} {}", c.name.value, short_type(&c.type_name.value)))
            .collect::<Vec<_>>()
            .join(", ");
        Node::new(label, summary, Some(self.span)).with_children(children)
    }
}

fn type_string(r: &mut Reader<'_>, what: &'static str) -> Result<Spanned<String>> {
    r.spanned(|r| {
        r.vint_length_bytes(what)
            .map(|b| String::from_utf8_lossy(b).into_owned())
    })
}

/// Cassandra's `SerializationHeader.Component`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SerializationHeader {
    pub span: Span,
    pub encoding_stats: EncodingStats,
    pub key_type: Spanned<String>,
    pub clustering_type_count: Spanned<u64>,
    pub clustering_types: Vec<Spanned<String>>,
    pub static_columns: ColumnList,
    pub regular_columns: ColumnList,
}

impl SerializationHeader {
    pub fn decode(r: &mut Reader<'_>, version: &Version) -> Result<SerializationHeader> {
        let start = r.offset();
        let encoding_stats = EncodingStats::decode(r, version)?;
        let key_type = type_string(r, "HEADER: partition key type")?;
        let clustering_type_count =
            r.spanned(|r| r.unsigned_vint("HEADER: clustering type count"))?;
        let n = r.check_count(clustering_type_count.value, 1, "HEADER: clustering types")?;
        let mut clustering_types = Vec::with_capacity(n);
        for _ in 0..n {
            clustering_types.push(type_string(r, "HEADER: clustering type")?);
        }
        let static_columns = ColumnList::decode(r, "HEADER: static columns")?;
        let regular_columns = ColumnList::decode(r, "HEADER: regular columns")?;
        Ok(SerializationHeader {
            span: r.span_from(start),
            encoding_stats,
            key_type,
            clustering_type_count,
            clustering_types,
            static_columns,
            regular_columns,
        })
    }

    pub fn to_node(&self) -> Node {
        let mut types = vec![spanned_leaf("count", &self.clustering_type_count)];
        for (i, t) in self.clustering_types.iter().enumerate() {
            types.push(spanned_leaf(&format!("type {i}"), t));
        }
        let types_span = Span::new(
            self.clustering_type_count.span.start,
            self.clustering_types
                .last()
                .map_or(self.clustering_type_count.span.end, |t| t.span.end),
        );
        let clustering = self
            .clustering_types
            .iter()
            .map(|t| short_type(&t.value))
            .collect::<Vec<_>>()
            .join(", ");
        Node::new(
            "HEADER",
            format!(
                "key {}, clustering [{}], {} static, {} regular columns",
                short_type(&self.key_type.value),
                clustering,
                self.static_columns.columns.len(),
                self.regular_columns.columns.len()
            ),
            Some(self.span),
        )
        .with_children(vec![
            self.encoding_stats.to_node(),
            spanned_leaf("partition key type", &self.key_type),
            Node::new("clustering types", clustering, Some(types_span)).with_children(types),
            self.static_columns.to_node("static columns"),
            self.regular_columns.to_node("regular columns"),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::Format;

    #[test]
    fn encoding_stats_wrap_and_truncate() {
        let nb = Version::parse(Format::Big, "nb").unwrap();
        let oa = Version::parse(Format::Big, "oa").unwrap();
        // ts delta 0; ldt delta 0x7fff_ffff (wraps past i32::MAX); ttl delta 9-byte −5.
        let mut bytes = vec![0x00, 0xf0, 0x7f, 0xff, 0xff, 0xff];
        bytes.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfb]);
        let s = EncodingStats::decode(&mut Reader::new(&bytes, 0), &nb).unwrap();
        assert_eq!(s.min_timestamp_micros, TIMESTAMP_EPOCH_MICROS);
        let expected = 0x7fff_ffffu32.wrapping_add(1_442_880_000);
        assert_eq!(s.min_local_deletion_time_raw, expected);
        assert_eq!(s.min_local_deletion_time_secs, i64::from(expected as i32));
        assert!(s.min_local_deletion_time_secs < 0);
        assert_eq!(s.min_ttl_secs, -5);
        let s = EncodingStats::decode(&mut Reader::new(&bytes, 0), &oa).unwrap();
        assert_eq!(s.min_local_deletion_time_secs, i64::from(expected));
        assert_eq!(s.span, Span::new(0, bytes.len() as u64));
    }
}
