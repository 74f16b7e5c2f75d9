//! The table schema the writer encodes with: key, clustering and column types, and how Cassandra
//! orders and compares them.
//!
//! | concept | rule | Src |
//! |---|---|---|
//! | column order (rows, subset bitmaps, HEADER) | simple columns before complex ones (non-frozen collections), each group by unsigned name bytes | `schema/ColumnMetadata.java` (`compareTo`), `cql3/ColumnIdentifier.java` |
//! | partition key type | the column's type; `CompositeType(T1,…)` for a multi-column key | `schema/TableMetadata.java` (`partitionKeyType`) |
//! | composite key bytes | per component: u16 length, bytes, end-of-component byte `00` | `db/marshal/CompositeType.java` (`build`) |
//! | value encoding | fixed-length types raw, others unsigned-vint length + bytes | `db/marshal/AbstractType.java` (`writeValue`, `valueLengthIfFixed`) |
//! | clustering comparison | per component by type, then by prefix kind | `db/ClusteringComparator.java`, `db/ClusteringPrefix.java` (`Kind`) |
//!
//! Value comparison follows each type's `compareCustom` for `int`, `bigint`, `timestamp`,
//! `boolean`, `double`, `float`, `uuid`, `timeuuid`, `text`/`ascii`/`blob` and `ReversedType`;
//! an empty value sorts first. Other types compare as unsigned bytes (not Cassandra's order for
//! e.g. `varint` or `decimal`: do not use them as clustering columns here).

use core::cmp::Ordering;

use crate::component::legacy_data::LegacyLayout;
use crate::error::{Error, Result};
use crate::types::AbstractType;

/// One regular or static column.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    pub name: String,
    pub column_type: AbstractType,
}

impl ColumnDef {
    pub fn new(name: impl Into<String>, column_type: AbstractType) -> Self {
        ColumnDef {
            name: name.into(),
            column_type,
        }
    }

    /// A non-frozen collection or UDT: one cell per element (`ColumnMetadata.isComplex`).
    pub fn is_complex(&self) -> bool {
        self.column_type.is_multi_cell()
    }
}

/// What the writer needs to know about a table (Cassandra's `TableMetadata` + the
/// `SerializationHeader` columns).
#[derive(Debug, Clone, PartialEq)]
pub struct TableSchema {
    partition_key_types: Vec<AbstractType>,
    clustering_types: Vec<AbstractType>,
    static_columns: Vec<ColumnDef>,
    regular_columns: Vec<ColumnDef>,
    /// How the table's 2.x cell names map to these columns (`write::legacy::schema_from_cql`).
    legacy_layout: Option<Box<LegacyLayout>>,
}

/// Cassandra's column order: simple before complex, then unsigned name bytes.
fn column_order(a: &ColumnDef, b: &ColumnDef) -> Ordering {
    a.is_complex()
        .cmp(&b.is_complex())
        .then_with(|| a.name.as_bytes().cmp(b.name.as_bytes()))
}

impl TableSchema {
    /// A schema; static and regular columns are sorted into Cassandra's order (their indexes in
    /// [`TableSchema::static_columns`] / [`TableSchema::regular_columns`] are what rows refer to).
    pub fn new(
        partition_key_types: Vec<AbstractType>,
        clustering_types: Vec<AbstractType>,
        mut static_columns: Vec<ColumnDef>,
        mut regular_columns: Vec<ColumnDef>,
    ) -> Result<Self> {
        if partition_key_types.is_empty() {
            return Err(Error::invalid("a table needs a partition key column", 0));
        }
        if !static_columns.is_empty() && clustering_types.is_empty() {
            return Err(Error::invalid(
                "static columns need at least one clustering column",
                0,
            ));
        }
        crate::sort::sort_by(&mut static_columns, column_order);
        crate::sort::sort_by(&mut regular_columns, column_order);
        let mut names: Vec<&str> = static_columns
            .iter()
            .chain(&regular_columns)
            .map(|c| c.name.as_str())
            .collect();
        crate::sort::sort(&mut names);
        if names.windows(2).any(|w| w.first() == w.get(1)) {
            return Err(Error::invalid("column names must be unique", 0));
        }
        for t in partition_key_types.iter().chain(&clustering_types) {
            if t.is_multi_cell() {
                return Err(Error::invalid(
                    format!(
                        "primary key column type {} must be frozen",
                        t.to_type_string()
                    ),
                    0,
                ));
            }
        }
        Ok(TableSchema {
            partition_key_types,
            clustering_types,
            static_columns,
            regular_columns,
            legacy_layout: None,
        })
    }

    /// The schema with `layout`, how the table's 2.x (`jb`, `ka`, `la`) cell names map to its
    /// columns (the writer does not use it).
    pub fn with_legacy_layout(mut self, layout: LegacyLayout) -> Self {
        self.legacy_layout = Some(Box::new(layout));
        self
    }

    /// How the table's 2.x cell names map to its columns, when the schema came from a
    /// `CREATE TABLE` for 2.x SSTables.
    pub fn legacy_layout(&self) -> Option<&LegacyLayout> {
        self.legacy_layout.as_deref()
    }

    pub fn partition_key_types(&self) -> &[AbstractType] {
        &self.partition_key_types
    }

    pub fn clustering_types(&self) -> &[AbstractType] {
        &self.clustering_types
    }

    pub fn static_columns(&self) -> &[ColumnDef] {
        &self.static_columns
    }

    pub fn regular_columns(&self) -> &[ColumnDef] {
        &self.regular_columns
    }

    /// The static (`is_static`) or regular columns, sorted.
    pub fn columns(&self, is_static: bool) -> &[ColumnDef] {
        if is_static {
            &self.static_columns
        } else {
            &self.regular_columns
        }
    }

    /// Index of the column named `name` among the static or regular columns.
    pub fn column_index(&self, is_static: bool, name: &str) -> Option<usize> {
        self.columns(is_static).iter().position(|c| c.name == name)
    }

    /// Whether rows carry a static row (the header lists static columns).
    pub fn has_static(&self) -> bool {
        !self.static_columns.is_empty()
    }

    /// The partition key type as the HEADER stores it.
    pub fn key_type(&self) -> AbstractType {
        match self.partition_key_types.as_slice() {
            [single] => single.clone(),
            many => AbstractType::Composite(many.to_vec()),
        }
    }

    /// The raw partition key for the given component values: the value itself for a one-column
    /// key, the `CompositeType` encoding otherwise.
    pub fn compose_key(&self, components: &[&[u8]]) -> Result<Vec<u8>> {
        if components.len() != self.partition_key_types.len() {
            return Err(Error::invalid(
                format!(
                    "{} key components for a {}-column partition key",
                    components.len(),
                    self.partition_key_types.len()
                ),
                0,
            ));
        }
        if let [single] = components {
            return Ok(single.to_vec());
        }
        let mut out = Vec::new();
        for c in components {
            let len = u16::try_from(c.len())
                .map_err(|_| Error::invalid("key component longer than 65535 bytes", 0))?;
            out.extend_from_slice(&len.to_be_bytes());
            out.extend_from_slice(c);
            out.push(0);
        }
        Ok(out)
    }
}

/// `ClusteringPrefix.Kind` as stored (its ordinal) with the two orders the comparator uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrefixKind {
    ExclEndBound,
    InclStartBound,
    ExclEndInclStartBoundary,
    Clustering,
    InclEndExclStartBoundary,
    InclEndBound,
    ExclStartBound,
}

impl PrefixKind {
    /// The ordinal written in bounds and IndexInfo prefixes.
    pub fn ordinal(self) -> u8 {
        match self {
            PrefixKind::ExclEndBound => 0,
            PrefixKind::InclStartBound => 1,
            PrefixKind::ExclEndInclStartBoundary => 2,
            PrefixKind::Clustering => 4,
            PrefixKind::InclEndExclStartBoundary => 5,
            PrefixKind::InclEndBound => 6,
            PrefixKind::ExclStartBound => 7,
        }
    }

    /// `Kind.comparison`: the order of equal-length prefixes.
    fn comparison(self) -> i32 {
        match self {
            PrefixKind::ExclEndBound
            | PrefixKind::InclStartBound
            | PrefixKind::ExclEndInclStartBoundary => 0,
            PrefixKind::Clustering => 2,
            PrefixKind::InclEndExclStartBoundary
            | PrefixKind::InclEndBound
            | PrefixKind::ExclStartBound => 3,
        }
    }

    /// `Kind.comparedToClustering`: a shorter prefix of this kind sorts before (−1) or after (1)
    /// the clusterings it prefixes.
    fn compared_to_clustering(self) -> Ordering {
        match self.comparison() {
            0 => Ordering::Less,
            3 => Ordering::Greater,
            _ => Ordering::Equal,
        }
    }

    pub fn is_start(self) -> bool {
        matches!(
            self,
            PrefixKind::InclStartBound
                | PrefixKind::ExclStartBound
                | PrefixKind::ExclEndInclStartBoundary
                | PrefixKind::InclEndExclStartBoundary
        )
    }

    pub fn is_end(self) -> bool {
        matches!(
            self,
            PrefixKind::InclEndBound
                | PrefixKind::ExclEndBound
                | PrefixKind::ExclEndInclStartBoundary
                | PrefixKind::InclEndExclStartBoundary
        )
    }

    pub fn is_boundary(self) -> bool {
        matches!(
            self,
            PrefixKind::ExclEndInclStartBoundary | PrefixKind::InclEndExclStartBoundary
        )
    }
}

/// `ClusteringComparator.compare` for two prefixes (values, kind).
pub fn compare_prefixes(
    types: &[AbstractType],
    a: (&[Vec<u8>], PrefixKind),
    b: (&[Vec<u8>], PrefixKind),
) -> Ordering {
    let (av, ak) = a;
    let (bv, bk) = b;
    for ((x, y), t) in av.iter().zip(bv).zip(types) {
        let c = compare_values(t, x, y);
        if c != Ordering::Equal {
            return c;
        }
    }
    match av.len().cmp(&bv.len()) {
        Ordering::Equal => ak.comparison().cmp(&bk.comparison()),
        Ordering::Less => ak.compared_to_clustering(),
        Ordering::Greater => bk.compared_to_clustering().reverse(),
    }
}

/// Compares two serialized values of type `t` as Cassandra does (see the module docs).
pub fn compare_values(t: &AbstractType, a: &[u8], b: &[u8]) -> Ordering {
    if let AbstractType::Reversed(inner) = t {
        return compare_values(inner, b, a);
    }
    if a.is_empty() || b.is_empty() {
        return b.is_empty().cmp(&a.is_empty());
    }
    match t {
        AbstractType::Int32
        | AbstractType::Long
        | AbstractType::Timestamp
        | AbstractType::Date
        | AbstractType::Short
        | AbstractType::Byte => signed_be(a, b),
        AbstractType::Double => match (to_array::<8>(a), to_array::<8>(b)) {
            (Some(x), Some(y)) => f64::from_be_bytes(x).total_cmp(&f64::from_be_bytes(y)),
            _ => a.cmp(b),
        },
        AbstractType::Float => match (to_array::<4>(a), to_array::<4>(b)) {
            (Some(x), Some(y)) => f32::from_be_bytes(x).total_cmp(&f32::from_be_bytes(y)),
            _ => a.cmp(b),
        },
        AbstractType::Uuid => compare_uuid(a, b),
        AbstractType::TimeUuid => compare_timeuuid(a, b),
        _ => a.cmp(b),
    }
}

fn to_array<const N: usize>(b: &[u8]) -> Option<[u8; N]> {
    b.try_into().ok()
}

/// Two's-complement big-endian integers of equal length: first byte signed, the rest unsigned.
fn signed_be(a: &[u8], b: &[u8]) -> Ordering {
    match (a.split_first(), b.split_first()) {
        (Some((x, xs)), Some((y, ys))) if a.len() == b.len() => {
            (*x as i8).cmp(&(*y as i8)).then_with(|| xs.cmp(ys))
        }
        _ => a.cmp(b),
    }
}

fn uuid_halves(u: &[u8]) -> Option<(u64, u64)> {
    let arr = to_array::<16>(u)?;
    let (hi, lo) = arr.split_at(8);
    Some((
        u64::from_be_bytes(hi.try_into().ok()?),
        u64::from_be_bytes(lo.try_into().ok()?),
    ))
}

/// `TimeUUIDType.reorderTimestampBytes`: the 60-bit v1 timestamp from the msb.
fn reorder_timestamp(msb: u64) -> u64 {
    (msb << 48) | ((msb << 16) & 0xffff_0000_0000) | (msb >> 32)
}

/// `UUIDType.compareCustom`: version, then (v1) timestamp or unsigned msb, then unsigned lsb.
fn compare_uuid(a: &[u8], b: &[u8]) -> Ordering {
    let (Some((am, al)), Some((bm, bl))) = (uuid_halves(a), uuid_halves(b)) else {
        return a.cmp(b);
    };
    let (av, bv) = ((am >> 12) & 0xf, (bm >> 12) & 0xf);
    if av != bv {
        return av.cmp(&bv);
    }
    let high = if av == 1 {
        reorder_timestamp(am).cmp(&reorder_timestamp(bm))
    } else {
        am.cmp(&bm)
    };
    high.then_with(|| al.cmp(&bl))
}

/// `TimeUUIDType.compareCustom`: timestamp, then the lsb compared byte-wise signed.
fn compare_timeuuid(a: &[u8], b: &[u8]) -> Ordering {
    let (Some((am, al)), Some((bm, bl))) = (uuid_halves(a), uuid_halves(b)) else {
        return a.cmp(b);
    };
    let signed_bytes = |l: u64| (l ^ 0x0080_8080_8080_8080) as i64;
    reorder_timestamp(am)
        .cmp(&reorder_timestamp(bm))
        .then_with(|| signed_bytes(al).cmp(&signed_bytes(bl)))
}

/// The element comparator of a complex column's cell paths (list: TimeUUID, set: element, map:
/// key); `None` for other types.
pub fn cell_path_type(column_type: &AbstractType) -> Option<AbstractType> {
    match column_type.base() {
        AbstractType::List { .. } => Some(AbstractType::TimeUuid),
        AbstractType::Set { element, .. } => Some((**element).clone()),
        AbstractType::Map { key, .. } => Some((**key).clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_sort_simple_first_then_by_name() {
        let list = AbstractType::List {
            element: Box::new(AbstractType::Int32),
            multi_cell: true,
        };
        let s = TableSchema::new(
            vec![AbstractType::Utf8],
            vec![AbstractType::Int32],
            vec![],
            vec![
                ColumnDef::new("b", list.clone()),
                ColumnDef::new("z", AbstractType::Int32),
                ColumnDef::new("a", list),
                ColumnDef::new("c", AbstractType::Utf8),
            ],
        )
        .unwrap();
        let names: Vec<&str> = s
            .regular_columns()
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(names, ["c", "z", "a", "b"]);
        assert_eq!(s.column_index(false, "a"), Some(2));
    }

    #[test]
    fn values_compare_by_type() {
        let i = |v: i32| v.to_be_bytes().to_vec();
        assert_eq!(
            compare_values(&AbstractType::Int32, &i(-1), &i(1)),
            Ordering::Less
        );
        assert_eq!(
            compare_values(
                &AbstractType::Reversed(Box::new(AbstractType::Int32)),
                &i(-1),
                &i(1)
            ),
            Ordering::Greater
        );
        assert_eq!(
            compare_values(&AbstractType::Utf8, b"", b"a"),
            Ordering::Less
        );
        let c = |v: i32| vec![i(v)];
        let t = [AbstractType::Int32];
        // An exclusive end bound at 3 sorts before the clustering 3, an inclusive end after it.
        assert_eq!(
            compare_prefixes(
                &t,
                (&c(3), PrefixKind::ExclEndBound),
                (&c(3), PrefixKind::Clustering)
            ),
            Ordering::Less
        );
        let two = [AbstractType::Int32, AbstractType::Int32];
        assert_eq!(
            compare_prefixes(
                &two,
                (&c(3), PrefixKind::InclEndBound),
                (&[i(3), i(9)], PrefixKind::Clustering)
            ),
            Ordering::Greater
        );
        assert_eq!(
            compare_prefixes(
                &two,
                (&[i(3), i(9)], PrefixKind::Clustering),
                (&c(3), PrefixKind::InclStartBound)
            ),
            Ordering::Greater
        );
    }
}
