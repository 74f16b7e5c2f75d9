//! The schema Data.db rows are decoded with, resolved once per SSTable from the
//! SerializationHeader (Statistics.db HEADER).
//!
//! | what | from | used for |
//! |---|---|---|
//! | partition key type | HEADER key type (`CompositeType(...)` for multi-column keys) | splitting key components (format doc §11) |
//! | clustering types + their fixed value lengths | HEADER clustering types | row clusterings and marker bounds (§4.3) |
//! | static / regular columns, sorted | HEADER column lists | column subsets and cells (§4.4, §4.5) |
//! | delta bases | HEADER EncodingStats | every timestamp / TTL / local deletion time (§4.6) |
//!
//! Column order is Cassandra's `ColumnMetadata.compareTo`: simple columns before complex ones,
//! then by the first 6 name bytes with the first byte's top bit flipped (the
//! `ColumnIdentifier.prefixComparison >>> 16` packed into `comparisonOrder`), then by all name
//! bytes, unsigned (`ColumnIdentifier.compareTo`). For ASCII names this is plain byte order;
//! names whose first byte is ≥ 0x80 sort before the others. Cassandra writes the header sorted,
//! Scylla in plain name order: rows and subset bitmaps always use the sorted order.
//!
//! Every type string is parsed once here ([`parse_type`]); cells are then decoded by column
//! index, never by looking a type up per cell.
//!
//! Src: `src/java/org/apache/cassandra/db/SerializationHeader.java` (`Component.toHeader`),
//! `db/RegularAndStaticColumns.java`, `db/Columns.java`, `schema/ColumnMetadata.java`
//! (`comparisonOrder`, `compareTo`, `isComplex`), `cql3/ColumnIdentifier.java`
//! (`prefixComparison`, `compareTo`), `db/rows/EncodingStats.java`.

use core::cmp::Ordering;

use serde::Serialize;

use crate::component::statistics::{ColumnSpec, SerializationHeader};
use crate::component::ComponentType;
use crate::error::Result;
use crate::span::Span;
use crate::types::{parse_type, AbstractType};
use crate::version::Version;

/// Whether a column holds one cell (simple) or one cell per element/field (complex: a
/// non-frozen collection or UDT).
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    Simple,
    Complex,
}

/// One static or regular column, with everything cell decoding needs precomputed.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ColumnSchema {
    /// The column name (UTF-8 from the header).
    pub name: String,
    /// The type string as the header stores it.
    pub type_string: String,
    /// The parsed column type: what values are rendered with.
    pub column_type: AbstractType,
    pub kind: ColumnKind,
    pub is_static: bool,
    /// Simple columns of a fixed-length type: the value length, no length prefix. `None` for
    /// variable-length types and for complex columns (their cells always carry a length).
    pub fixed_value_length_bytes: Option<u32>,
    /// `CounterColumnType`: live cell values are CounterContexts.
    pub is_counter: bool,
    /// Complex columns: the type of a cell path (list: `TimeUUIDType`; set: the element; map:
    /// the key; non-frozen UDT: the field index as a 2-byte `ShortType`).
    pub cell_path_type: Option<AbstractType>,
    /// Position of the column in the header's own list (before sorting).
    pub header_index: usize,
    /// Where the header stores the column (name and type string); empty for
    /// [`DataSchema::from_parts`].
    pub header_span: Span,
}

impl ColumnSchema {
    fn new(spec: &ColumnSpec, is_static: bool, header_index: usize) -> Result<ColumnSchema> {
        let type_string = spec.type_name.value.clone();
        let column_type = parse_type(&type_string).map_err(|e| {
            let string_start = spec
                .type_name
                .span
                .end
                .saturating_sub(type_string.len() as u64);
            e.to_engine_error(string_start)
                .context("HEADER: column type")
                .in_component(ComponentType::Statistics)
        })?;
        Ok(Self::with_type(
            spec.name.value.clone(),
            type_string,
            column_type,
            is_static,
            header_index,
            spec.span,
        ))
    }

    fn with_type(
        name: String,
        type_string: String,
        column_type: AbstractType,
        is_static: bool,
        header_index: usize,
        header_span: Span,
    ) -> ColumnSchema {
        let kind = if column_type.is_multi_cell() {
            ColumnKind::Complex
        } else {
            ColumnKind::Simple
        };
        let fixed_value_length_bytes = match kind {
            ColumnKind::Simple => column_type.value_length_if_fixed(),
            ColumnKind::Complex => None,
        };
        let cell_path_type = match kind {
            ColumnKind::Simple => None,
            ColumnKind::Complex => path_type(&column_type),
        };
        ColumnSchema {
            name,
            type_string,
            is_counter: column_type.is_counter(),
            column_type,
            kind,
            is_static,
            fixed_value_length_bytes,
            cell_path_type,
            header_index,
            header_span,
        }
    }

    pub fn is_complex(&self) -> bool {
        self.kind == ColumnKind::Complex
    }

    /// The type to render a cell value of this column with. Simple columns: the column type.
    /// Complex columns: the list element, the map value, the UDT field named by `path` (a 2-byte
    /// big-endian field index); `None` for sets (their cell values are empty) and for a path
    /// that names no field.
    pub fn cell_value_type(&self, path: Option<&[u8]>) -> Option<&AbstractType> {
        if self.kind == ColumnKind::Simple {
            return Some(&self.column_type);
        }
        match self.column_type.base() {
            AbstractType::List { element, .. } => Some(element),
            AbstractType::Map { value, .. } => Some(value),
            AbstractType::Set { .. } => None,
            AbstractType::UserType { fields, .. } => {
                let index = match path? {
                    [hi, lo] => usize::from(u16::from_be_bytes([*hi, *lo])),
                    _ => return None,
                };
                fields.get(index).map(|(_, t)| t)
            }
            _ => None,
        }
    }
}

/// The type a complex column's cell paths have (`CollectionType.nameComparator`,
/// `UserType.nameComparator`).
fn path_type(t: &AbstractType) -> Option<AbstractType> {
    match t.base() {
        AbstractType::List { .. } => Some(AbstractType::TimeUuid),
        AbstractType::Set { element, .. } => Some(element.as_ref().clone()),
        AbstractType::Map { key, .. } => Some(key.as_ref().clone()),
        AbstractType::UserType { .. } => Some(AbstractType::Short),
        _ => None,
    }
}

/// The EncodingStats minima every Data.db delta is added to (format doc §4.6).
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeltaBase {
    /// minTimestamp (µs); timestamps are `min + delta` in wrapping 64-bit arithmetic.
    pub min_timestamp_micros: i64,
    /// minLocalDeletionTime's 32-bit pattern; local deletion times are `min + (delta as u32)`,
    /// wrapping at 32 bits.
    pub min_local_deletion_time_raw: u32,
    /// minTTL (s); TTLs are `min + (delta as i32)`, wrapping.
    pub min_ttl_secs: i32,
    /// oa/da: local deletion times are unsigned (u32); before: signed (i32).
    pub unsigned_deletion_time: bool,
}

/// Everything needed to decode the rows of one SSTable's Data.db.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct DataSchema {
    pub version: Version,
    /// The partition key type (`CompositeType(...)` for multi-column keys).
    pub key_type: AbstractType,
    /// The key's component types: the CompositeType's parameters, or just the key type.
    pub key_component_types: Vec<AbstractType>,
    /// Whether keys are CompositeType-encoded (`u16 length, bytes, end-of-component` each).
    pub composite_key: bool,
    pub clustering_types: Vec<AbstractType>,
    /// `value_length_if_fixed` of each clustering type.
    pub clustering_fixed_lengths_bytes: Vec<Option<u32>>,
    /// Static columns in Cassandra's sorted order.
    pub static_columns: Vec<ColumnSchema>,
    /// Regular columns in Cassandra's sorted order.
    pub regular_columns: Vec<ColumnSchema>,
    pub delta_base: DeltaBase,
    /// True when bare `UserType(...)` columns are read as frozen (the 3.0.x meaning,
    /// CASSANDRA-15035) instead of multi-cell.
    pub frozen_bare_udts: bool,
    /// Suspicious things in the header, in words (columns not stored in sorted order, …).
    pub findings: Vec<String>,
}

impl DataSchema {
    /// Resolves the header of an SSTable of `version` (ma and later). A type string that does
    /// not parse is an error in Statistics.db at that string.
    pub fn from_header(header: &SerializationHeader, version: &Version) -> Result<DataSchema> {
        let key_type = parse_header_type(&header.key_type, "HEADER: partition key type")?;
        let mut clustering_types = Vec::with_capacity(header.clustering_types.len());
        for t in &header.clustering_types {
            clustering_types.push(parse_header_type(t, "HEADER: clustering type")?);
        }
        let mut static_columns = Vec::with_capacity(header.static_columns.columns.len());
        for (i, c) in header.static_columns.columns.iter().enumerate() {
            static_columns.push(ColumnSchema::new(c, true, i)?);
        }
        let mut regular_columns = Vec::with_capacity(header.regular_columns.columns.len());
        for (i, c) in header.regular_columns.columns.iter().enumerate() {
            regular_columns.push(ColumnSchema::new(c, false, i)?);
        }
        let stats = &header.encoding_stats;
        let delta_base = DeltaBase {
            min_timestamp_micros: stats.min_timestamp_micros,
            min_local_deletion_time_raw: stats.min_local_deletion_time_raw,
            min_ttl_secs: stats.min_ttl_secs,
            unsigned_deletion_time: version.has_uint_deletion_time(),
        };
        Ok(Self::build(
            *version,
            key_type,
            clustering_types,
            static_columns,
            regular_columns,
            delta_base,
            false,
        ))
    }

    /// A schema from already-parsed parts (tests, synthetic data, other front ends). Columns,
    /// `(name, type)` each, may come in any order; they are sorted as Cassandra sorts them (a
    /// schema finding says when the given order differs).
    pub fn from_parts(
        version: Version,
        key_type: AbstractType,
        clustering_types: Vec<AbstractType>,
        static_columns: Vec<(String, AbstractType)>,
        regular_columns: Vec<(String, AbstractType)>,
        delta_base: DeltaBase,
    ) -> DataSchema {
        let make = |cols: Vec<(String, AbstractType)>, is_static: bool| {
            cols.into_iter()
                .enumerate()
                .map(|(i, (name, t))| {
                    let s = t.to_type_string();
                    ColumnSchema::with_type(name, s, t, is_static, i, Span::new(0, 0))
                })
                .collect::<Vec<_>>()
        };
        let statics = make(static_columns, true);
        let regulars = make(regular_columns, false);
        Self::build(
            version,
            key_type,
            clustering_types,
            statics,
            regulars,
            delta_base,
            false,
        )
    }

    fn build(
        version: Version,
        key_type: AbstractType,
        clustering_types: Vec<AbstractType>,
        mut static_columns: Vec<ColumnSchema>,
        mut regular_columns: Vec<ColumnSchema>,
        delta_base: DeltaBase,
        frozen_bare_udts: bool,
    ) -> DataSchema {
        let mut findings = Vec::new();
        for (label, cols) in [
            ("static", &mut static_columns),
            ("regular", &mut regular_columns),
        ] {
            let before: Vec<usize> = cols.iter().map(|c| c.header_index).collect();
            crate::sort::sort_by(cols, column_order);
            let after: Vec<usize> = cols.iter().map(|c| c.header_index).collect();
            if before != after && !frozen_bare_udts {
                findings.push(format!(
                    "the header lists the {label} columns in another order than Cassandra sorts \
                     them (Scylla writes plain name order); rows use the sorted order"
                ));
            }
        }
        let (key_component_types, composite_key) = match key_type.base() {
            AbstractType::Composite(parts) => (parts.clone(), true),
            other => (vec![other.clone()], false),
        };
        let clustering_fixed_lengths_bytes = clustering_types
            .iter()
            .map(AbstractType::value_length_if_fixed)
            .collect();
        DataSchema {
            version,
            key_type,
            key_component_types,
            composite_key,
            clustering_types,
            clustering_fixed_lengths_bytes,
            static_columns,
            regular_columns,
            delta_base,
            frozen_bare_udts,
            findings,
        }
    }

    /// The sorted static (`true`) or regular (`false`) columns.
    pub fn columns(&self, is_static: bool) -> &[ColumnSchema] {
        if is_static {
            &self.static_columns
        } else {
            &self.regular_columns
        }
    }

    /// A static row is stored in every partition iff the header has static columns.
    pub fn has_static_row(&self) -> bool {
        !self.static_columns.is_empty()
    }

    /// Whether the 3.0.x frozen-UDT ambiguity (CASSANDRA-15035) applies: a `big` version before
    /// `na` with a column whose type is a bare, multi-cell `UserType(...)`.
    pub fn has_ambiguous_udts(&self) -> bool {
        !self.frozen_bare_udts
            && !self.version.has_metadata_checksum()
            && self
                .static_columns
                .iter()
                .chain(&self.regular_columns)
                .any(|c| is_bare_multi_cell_udt(&c.column_type))
    }

    /// The other reading of an ambiguous header: bare `UserType(...)` columns frozen (simple,
    /// sorted with the simple columns). `None` when [`DataSchema::has_ambiguous_udts`] is false.
    pub fn with_frozen_bare_udts(&self) -> Option<DataSchema> {
        if !self.has_ambiguous_udts() {
            return None;
        }
        let refreeze = |cols: &[ColumnSchema]| {
            cols.iter()
                .map(|c| {
                    if is_bare_multi_cell_udt(&c.column_type) {
                        ColumnSchema::with_type(
                            c.name.clone(),
                            c.type_string.clone(),
                            c.column_type.clone().freeze(),
                            c.is_static,
                            c.header_index,
                            c.header_span,
                        )
                    } else {
                        c.clone()
                    }
                })
                .collect::<Vec<_>>()
        };
        let mut schema = Self::build(
            self.version,
            self.key_type.clone(),
            self.clustering_types.clone(),
            refreeze(&self.static_columns),
            refreeze(&self.regular_columns),
            self.delta_base,
            true,
        );
        schema.findings = self.findings.clone();
        Some(schema)
    }
}

fn is_bare_multi_cell_udt(t: &AbstractType) -> bool {
    matches!(
        t,
        AbstractType::UserType {
            multi_cell: true,
            ..
        }
    )
}

fn parse_header_type(t: &crate::span::Spanned<String>, what: &'static str) -> Result<AbstractType> {
    parse_type(&t.value).map_err(|e| {
        let string_start = t.span.end.saturating_sub(t.value.len() as u64);
        e.to_engine_error(string_start)
            .context(what)
            .in_component(ComponentType::Statistics)
    })
}

/// `ColumnIdentifier.prefixComparison >>> 16`: the first 6 name bytes (zero-padded) with the
/// top bit of the first byte flipped, as `ColumnMetadata.comparisonOrder` packs them.
fn name_prefix(name: &[u8]) -> u64 {
    let mut prefix: u64 = 0;
    for i in 0..8 {
        prefix = (prefix << 8) | u64::from(name.get(i).copied().unwrap_or(0));
    }
    (prefix ^ (1u64 << 63)) >> 16
}

/// `ColumnMetadata.compareTo` for columns of one kind (static or regular).
fn column_order(a: &ColumnSchema, b: &ColumnSchema) -> Ordering {
    let complex = |c: &ColumnSchema| c.kind == ColumnKind::Complex;
    complex(a)
        .cmp(&complex(b))
        .then_with(|| name_prefix(a.name.as_bytes()).cmp(&name_prefix(b.name.as_bytes())))
        .then_with(|| a.name.as_bytes().cmp(b.name.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::Format;

    fn base() -> DeltaBase {
        DeltaBase {
            min_timestamp_micros: 0,
            min_local_deletion_time_raw: 0,
            min_ttl_secs: 0,
            unsigned_deletion_time: false,
        }
    }

    fn t(s: &str) -> AbstractType {
        parse_type(s).unwrap()
    }

    #[test]
    fn columns_sort_simple_first_then_by_name_bytes() {
        let v = Version::parse(Format::Big, "nb").unwrap();
        let schema = DataSchema::from_parts(
            v,
            t("Int32Type"),
            vec![],
            vec![],
            vec![
                ("z".into(), t("Int32Type")),
                ("m".into(), t("SetType(Int32Type)")),
                ("b".into(), t("UTF8Type")),
                ("a".into(), t("ListType(Int32Type)")),
                ("\u{e9}t\u{e9}".into(), t("Int32Type")),
                ("ab".into(), t("Int32Type")),
            ],
            base(),
        );
        let names: Vec<&str> = schema
            .regular_columns
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        // A first byte >= 0x80 sorts first (its top bit is flipped in comparisonOrder).
        assert_eq!(names, ["\u{e9}t\u{e9}", "ab", "b", "z", "a", "m"]);
        assert_eq!(schema.regular_columns[1].fixed_value_length_bytes, Some(4));
        assert_eq!(schema.regular_columns[2].fixed_value_length_bytes, None);
        assert!(schema.regular_columns[4].is_complex());
        assert_eq!(
            schema.regular_columns[4].cell_path_type,
            Some(AbstractType::TimeUuid)
        );
        assert_eq!(
            schema.regular_columns[5].cell_value_type(Some(&[1])),
            None,
            "set values are empty"
        );
        assert_eq!(schema.findings.len(), 1);
    }

    #[test]
    fn name_prefix_orders_like_comparison_order() {
        assert!(name_prefix(b"") < name_prefix(b"a"));
        assert!(name_prefix(b"\xc3\xa9") < name_prefix(b""));
        assert!(name_prefix(b"abcdefg") == name_prefix(b"abcdefh"));
    }

    #[test]
    fn bare_udts_are_ambiguous_before_na() {
        let udt = "UserType(ks,7574,61:Int32Type)";
        for (ver, ambiguous) in [("mc", true), ("me", true), ("na", false), ("oa", false)] {
            let v = Version::parse(Format::Big, ver).unwrap();
            let schema = DataSchema::from_parts(
                v,
                t("Int32Type"),
                vec![],
                vec![],
                vec![("u".into(), t(udt)), ("v".into(), t("Int32Type"))],
                base(),
            );
            assert_eq!(schema.has_ambiguous_udts(), ambiguous, "{ver}");
            if ambiguous {
                assert_eq!(schema.regular_columns[0].name, "v");
                let frozen = schema.with_frozen_bare_udts().unwrap();
                assert_eq!(frozen.regular_columns[0].name, "u");
                assert_eq!(frozen.regular_columns[0].kind, ColumnKind::Simple);
                assert!(!frozen.has_ambiguous_udts());
            }
        }
    }
}
