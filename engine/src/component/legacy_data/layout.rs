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
//! Src: `config/CFMetaData.java` (2.1: `isDense`, `isCompound`), `db/composites/CellNames.java`,
//! Cassandra 3.0 `db/LegacyLayout.java` (`decodeCellName`).

use crate::cql_schema::CqlTable;
use crate::types::{parse_type, AbstractType};

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
    /// The value column of a dense table (`None` when the table has none, as in
    /// `PRIMARY KEY (k, v) WITH COMPACT STORAGE`).
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
        Ok(LegacyLayout {
            compound: Some(!compact_storage || table.clustering.len() > 1),
            dense,
            static_compact: compact_storage && table.clustering.is_empty(),
            clustering_size: Some(table.clustering.len()),
            partition_key_names: table.partition_key.clone(),
            key_type: Some(key_type),
            clustering_names: table.clustering.clone(),
            clustering_types,
            compact_value_column: if dense {
                columns.first().map(|(n, _)| n.clone())
            } else {
                None
            },
            columns,
        })
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
}
