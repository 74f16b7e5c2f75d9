//! How a pre-3.0 table's cell names map to CQL rows: a 2.x Statistics.db has no serialization
//! header, so this comes from the caller's `CREATE TABLE` ([`LegacyLayout::from_cql`]) or is
//! inferred from the names ([`LegacyLayout::inferred`]).
//!
//! | table (2.x `CFMetaData`) | comparator | a cell name is |
//! |---|---|---|
//! | CQL3, not COMPACT (compound, sparse) | `CompositeType(ck…, UTF8Type[, ColumnToCollectionType])` | clustering values, column name, [element key] |
//! | COMPACT STORAGE, one clustering column (dense) | the clustering type | the clustering value; the value is the compact value column |
//! | COMPACT STORAGE, several clustering columns (dense) | `CompositeType(ck…)` | the clustering values |
//! | COMPACT STORAGE, no clustering column (static/Thrift) | `UTF8Type` (any type) | the column name; 3.0 reads these columns as static |
//!
//! [`LegacyLayout::place`] is where a cell goes in the 3.0 model (`decodeCellName`): for the
//! rows `dump` prints ([`super::RowGrouper`]) and for the conversion the merged read and the
//! rewrite use (`write::legacy`). Cassandra 3.0 gives a COMPACT STORAGE table hidden columns
//! (`db/CompactTables.java`): a static compact table a clustering column of the comparator's
//! type (`column1`) and a regular one of the default validator's (`value`) beside its declared
//! columns, which are static; a dense table without a regular column a `value` of `EmptyType`.
//! A static compact table's cell named by no declared column is a "dynamic" one: a row whose
//! clustering is the name, its value in `value`.
//!
//! Src: `config/CFMetaData.java` (2.1: `isDense`, `isCompound`; 3.0: `isStaticCompactTable`,
//! `compactValueColumn`), `db/composites/CellNames.java`, Cassandra 3.0 `db/LegacyLayout.java`
//! (`decodeCellName`, `decodeClustering`), `db/CompactTables.java` (`DefaultNames`).

use super::name::CellName;
use crate::cql_schema::CqlTable;
use crate::types::{parse_type, AbstractType};

/// The column a 2.x cell belongs to ([`CellPlace`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlacedColumn<'w> {
    /// The CQL row marker: an empty column name in a sparse table.
    RowMarker,
    /// The column the name's column component names.
    Named(&'w [u8]),
    /// The table's compact value column ([`LegacyLayout::compact_value_column`]): every cell of
    /// a dense table, a static compact table's dynamic cells.
    CompactValue,
    /// A composite name with no component after the clustering.
    Missing,
}

/// Where a 2.x cell goes in the 3.0 model (`LegacyLayout.decodeCellName`'s `LegacyCellName`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellPlace<'w> {
    /// In the static row: a `0xFFFF` name, or a declared column of a static compact table.
    pub is_static: bool,
    /// The row's clustering values (none for the static row).
    pub clustering: Vec<&'w [u8]>,
    pub column: PlacedColumn<'w>,
    /// A collection cell's element key (map key, set element, list timeuuid).
    pub element: Option<&'w [u8]>,
}

/// A table's layout for grouping atoms into rows.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyLayout {
    /// Whether names are `CompositeType`; `None`: decided per name by its shape.
    pub compound: Option<bool>,
    /// COMPACT STORAGE with clustering columns: names hold only clustering values.
    pub dense: bool,
    /// COMPACT STORAGE without clustering columns: names are column names of (3.0) static columns.
    pub static_compact: bool,
    /// Clustering columns; `None`: inferred from the first composite name (components − 1).
    pub clustering_size: Option<usize>,
    pub partition_key_names: Vec<String>,
    pub key_type: Option<AbstractType>,
    pub clustering_names: Vec<String>,
    pub clustering_types: Vec<AbstractType>,
    /// Regular and static columns with their types.
    pub columns: Vec<(String, AbstractType)>,
    /// The compact value column: a dense table's one regular column, `value` (3.0's hidden
    /// column) for a dense table without one (`PRIMARY KEY (k, v) WITH COMPACT STORAGE`) or a
    /// static compact table; `None` for other tables.
    pub compact_value_column: Option<String>,
}

impl LegacyLayout {
    /// No schema: names split by their shape, values shown as text when UTF-8, else hex.
    pub fn inferred() -> LegacyLayout {
        LegacyLayout {
            compound: None,
            dense: false,
            static_compact: false,
            clustering_size: None,
            partition_key_names: Vec::new(),
            key_type: None,
            clustering_names: Vec::new(),
            clustering_types: Vec::new(),
            columns: Vec::new(),
            compact_value_column: None,
        }
    }

    /// Whether the layout came from a schema.
    pub fn has_schema(&self) -> bool {
        self.compound.is_some()
    }

    /// The layout of a `CREATE TABLE` (`compact_storage`: it said `WITH COMPACT STORAGE`).
    pub fn from_cql(table: &CqlTable, compact_storage: bool) -> Result<LegacyLayout, String> {
        let type_of = |name: &str| -> Result<AbstractType, String> {
            let cql = table
                .columns
                .iter()
                .find(|(n, _, _)| n == name)
                .map(|(_, t, _)| t.as_str())
                .ok_or_else(|| format!("column {name} has no type"))?;
            cql_type(cql)
        };
        let key_types = table
            .partition_key
            .iter()
            .map(|n| type_of(n))
            .collect::<Result<Vec<_>, _>>()?;
        let key_type = match key_types.as_slice() {
            [one] => one.clone(),
            _ => AbstractType::Composite(key_types),
        };
        // `CLUSTERING ORDER BY (c DESC)`: the comparator's `ReversedType`.
        let clustering_types = table
            .clustering
            .iter()
            .map(|n| {
                let t = type_of(n)?;
                Ok(if table.descending.contains(n) {
                    AbstractType::Reversed(Box::new(t))
                } else {
                    t
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let in_key = |n: &String| table.partition_key.contains(n) || table.clustering.contains(n);
        let columns = table
            .columns
            .iter()
            .filter(|(n, _, _)| !in_key(n))
            .map(|(n, t, _)| Ok((n.clone(), cql_type(t)?)))
            .collect::<Result<Vec<_>, String>>()?;
        let dense = compact_storage && !table.clustering.is_empty();
        let static_compact = compact_storage && table.clustering.is_empty();
        // `CompactTables.DefaultNames.defaultCompactValueName`: `value`, else `value1`, … .
        let hidden_value = || {
            (0..)
                .map(|i: u32| match i {
                    0 => "value".to_owned(),
                    i => format!("value{i}"),
                })
                .find(|n| !table.columns.iter().any(|(c, _, _)| c == n))
        };
        let compact_value_column = if dense {
            columns
                .first()
                .map(|(n, _)| n.clone())
                .or_else(hidden_value)
        } else if static_compact {
            hidden_value()
        } else {
            None
        };
        Ok(LegacyLayout {
            compound: Some(!compact_storage || table.clustering.len() > 1),
            dense,
            static_compact,
            clustering_size: Some(table.clustering.len()),
            partition_key_names: table.partition_key.clone(),
            key_type: Some(key_type),
            clustering_names: table.clustering.clone(),
            clustering_types,
            compact_value_column,
            columns,
        })
    }

    /// Where the cell named `name` goes (`LegacyLayout.decodeCellName`), `clustering_size` the
    /// clustering columns of a composite name (the schema's, or inferred by the caller):
    ///
    /// | table | name | place |
    /// |---|---|---|
    /// | dense | the clustering value(s) | that row, the compact value column |
    /// | static compact | a declared column's name | the static row, that column |
    /// | static compact | any other name | the row clustered by the name, the compact value column |
    /// | sparse (CQL3) | clustering values, column name, [element key] | that row (the static row after `0xFFFF`), that column; an empty column name is the row marker |
    ///
    /// Without a schema a simple name is a column of the row with no clustering.
    pub fn place<'w>(&self, name: &CellName<'w>, clustering_size: usize) -> CellPlace<'w> {
        match name {
            CellName::Simple(b) => {
                let dynamic =
                    self.static_compact && self.column_type(&String::from_utf8_lossy(b)).is_none();
                if self.dense || dynamic {
                    CellPlace {
                        is_static: false,
                        clustering: vec![*b],
                        column: PlacedColumn::CompactValue,
                        element: None,
                    }
                } else {
                    CellPlace {
                        is_static: self.static_compact,
                        clustering: Vec::new(),
                        column: PlacedColumn::Named(b),
                        element: None,
                    }
                }
            }
            CellName::Composite {
                is_static,
                components,
            } => {
                let values: Vec<&'w [u8]> = components.iter().map(|c| c.value).collect();
                if self.dense {
                    return CellPlace {
                        is_static: false,
                        clustering: values,
                        column: PlacedColumn::CompactValue,
                        element: None,
                    };
                }
                let n = clustering_size;
                let column = match values.get(n) {
                    Some([]) => PlacedColumn::RowMarker,
                    Some(c) => PlacedColumn::Named(c),
                    None => PlacedColumn::Missing,
                };
                CellPlace {
                    is_static: *is_static,
                    clustering: if *is_static {
                        Vec::new()
                    } else {
                        values.get(..n).unwrap_or(&values).to_vec()
                    },
                    column,
                    element: n.checked_add(1).and_then(|k| values.get(k)).copied(),
                }
            }
        }
    }

    /// The name of the column `column` is (`None`: the row marker, or no column).
    pub fn column_name<'a>(&'a self, column: &PlacedColumn<'a>) -> Option<&'a [u8]> {
        match column {
            PlacedColumn::Named(c) => Some(c),
            PlacedColumn::CompactValue => self.compact_value_column.as_deref().map(str::as_bytes),
            PlacedColumn::RowMarker | PlacedColumn::Missing => None,
        }
    }

    /// The type of a regular or static column.
    pub fn column_type(&self, name: &str) -> Option<&AbstractType> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }
}

/// Whether a `CREATE TABLE` statement says `WITH COMPACT STORAGE`.
pub fn says_compact_storage(statement: &str) -> bool {
    let words: Vec<String> = statement
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    words.windows(2).any(|w| w == ["compact", "storage"])
}

/// A CQL type (`text`, `set<int>`, `frozen<map<text, int>>`) as a Cassandra type.
pub fn cql_type(cql: &str) -> Result<AbstractType, String> {
    let class = cql_to_class(cql.trim())?;
    parse_type(&class).map_err(|e| format!("type {cql}: {e}"))
}

fn cql_to_class(cql: &str) -> Result<String, String> {
    let lower = cql.to_ascii_lowercase();
    if let Some(open) = lower.find('<') {
        let inner = lower
            .get(open.saturating_add(1)..)
            .and_then(|s| s.strip_suffix('>'))
            .ok_or_else(|| format!("bad type {cql}"))?;
        let args = split_top_level(inner)
            .into_iter()
            .map(cql_to_class)
            .collect::<Result<Vec<_>, _>>()?
            .join(",");
        let class = match lower.get(..open).map(str::trim) {
            Some("frozen") => "FrozenType",
            Some("set") => "SetType",
            Some("list") => "ListType",
            Some("map") => "MapType",
            Some("tuple") => "TupleType",
            _ => return Err(format!("unsupported type {cql}")),
        };
        return Ok(format!("{class}({args})"));
    }
    let class = match lower.as_str() {
        "ascii" => "AsciiType",
        "bigint" => "LongType",
        "blob" => "BytesType",
        "boolean" => "BooleanType",
        "counter" => "CounterColumnType",
        "date" => "SimpleDateType",
        "decimal" => "DecimalType",
        "double" => "DoubleType",
        "duration" => "DurationType",
        "float" => "FloatType",
        "inet" => "InetAddressType",
        "int" => "Int32Type",
        "smallint" => "ShortType",
        "text" | "varchar" => "UTF8Type",
        "time" => "TimeType",
        "timestamp" => "TimestampType",
        "timeuuid" => "TimeUUIDType",
        "tinyint" => "ByteType",
        "uuid" => "UUIDType",
        "varint" => "IntegerType",
        _ => return Err(format!("unsupported type {cql}")),
    };
    Ok(class.to_owned())
}

/// Splits `a, map<b, c>` at its top-level commas.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth = depth.saturating_add(1),
            '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(s.get(start..i).unwrap_or("").trim());
                start = i.saturating_add(1);
            }
            _ => {}
        }
    }
    out.push(s.get(start..).unwrap_or("").trim());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cql_schema::parse_create_table;

    #[test]
    fn cql_types_and_compact_layouts() {
        assert_eq!(cql_type("text").unwrap(), AbstractType::Utf8);
        assert_eq!(cql_type("set<text>").unwrap().cql(), "set<text>".to_owned());
        assert_eq!(
            cql_type("frozen<map<text, int>>").unwrap().cql(),
            "frozen<map<text, int>>"
        );
        assert!(cql_type("nope").is_err());
        let s = "CREATE TABLE t (pk text, ck text, val text, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE";
        assert!(says_compact_storage(s));
        let l = LegacyLayout::from_cql(&parse_create_table(s).unwrap(), true).unwrap();
        assert_eq!(l.compound, Some(false));
        assert!(l.dense && !l.static_compact);
        assert_eq!(l.compact_value_column.as_deref(), Some("val"));
        let s = "CREATE TABLE t (pk text PRIMARY KEY, val text)";
        assert!(!says_compact_storage(s));
        let l = LegacyLayout::from_cql(&parse_create_table(s).unwrap(), false).unwrap();
        assert_eq!((l.compound, l.clustering_size), (Some(true), Some(0)));
    }

    #[test]
    fn cell_names_placed_as_3_0_decodes_them() {
        let table = |s: &str| parse_create_table(s).unwrap();
        // Static compact: a declared column is static; any other name a dynamic row.
        let s = "CREATE TABLE t (pk text PRIMARY KEY, val text) WITH COMPACT STORAGE";
        let l = LegacyLayout::from_cql(&table(s), true).unwrap();
        assert_eq!(l.compact_value_column.as_deref(), Some("value"));
        let p = l.place(&CellName::parse(b"val", 0, l.compound), 0);
        assert_eq!(
            (p.is_static, p.clustering.len(), p.column),
            (true, 0, PlacedColumn::Named(b"val"))
        );
        let p = l.place(&CellName::parse(b"other", 0, l.compound), 0);
        assert_eq!(
            (p.is_static, p.clustering, p.column),
            (false, vec![&b"other"[..]], PlacedColumn::CompactValue)
        );
        // Dense, one clustering column: the name is the clustering value.
        let s =
            "CREATE TABLE t (pk text, ck text, v text, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE";
        let l = LegacyLayout::from_cql(&table(s), true).unwrap();
        let p = l.place(&CellName::parse(b"a", 0, l.compound), 1);
        assert_eq!(
            (p.is_static, p.clustering, p.column),
            (false, vec![&b"a"[..]], PlacedColumn::CompactValue)
        );
        assert_eq!(l.column_name(&p.column), Some(&b"v"[..]));
        // Dense without a regular column: 3.0's hidden `value` (`value1` when taken).
        let s = "CREATE TABLE t (value int, v text, PRIMARY KEY (value, v)) WITH COMPACT STORAGE";
        let l = LegacyLayout::from_cql(&table(s), true).unwrap();
        assert_eq!(l.compact_value_column.as_deref(), Some("value1"));
        // Sparse: clustering, column, element; an empty column is the row marker.
        let s = "CREATE TABLE t (pk text, ck text, m map<text, int>, PRIMARY KEY (pk, ck))";
        let l = LegacyLayout::from_cql(&table(s), false).unwrap();
        let name = [0, 1, b'a', 0, 0, 1, b'm', 0, 0, 1, b'k', 0];
        let p = l.place(&CellName::parse(&name, 0, l.compound), 1);
        assert_eq!(
            (p.clustering, p.column, p.element),
            (vec![&b"a"[..]], PlacedColumn::Named(b"m"), Some(&b"k"[..]))
        );
        let marker = [0, 1, b'a', 0, 0, 0, 0];
        let p = l.place(&CellName::parse(&marker, 0, l.compound), 1);
        assert_eq!(p.column, PlacedColumn::RowMarker);
    }
}
