//! A `CREATE TABLE` inferred from a 2.x SSTable's rows: a `jb`/`ka`/`la` Statistics.db has no
//! serialization header, so all the file tells is the shape of its cell names — how many
//! clustering components a composite name has, the column names after them, which columns are
//! static (`0xFFFF`-prefixed names) and which are collections (an element key after the column
//! name). Names of the partition key and clustering columns and every type are not recorded:
//! they are written as Cassandra names columns it does not know (`key`, `column1`, …, from
//! 3.0's `CompactTables` defaults) and `blob`, each with a comment saying so.
//!
//! Src: Cassandra 3.0 `db/LegacyLayout.java` (`decodeCellName`), `db/CompactTables.java`
//! (default names), cassandra-2.1 `config/CFMetaData.java` (the comparator a 2.x table keeps
//! in its schema tables, not in the SSTable).

use crate::dump::PartitionJson;

/// Said above an inferred `CREATE TABLE`.
pub const INFERRED_SCHEMA_NOTE: &str = "inferred from the cell names of the rows decoded \
     (a 2.x Statistics.db holds no schema): key and clustering names and every type are \
     unknown, shown as blob";

/// What the rows of some partitions (grouped by [`super::RowGrouper`] without a schema) say
/// about their table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InferredTable {
    /// Clustering components of the widest row.
    pub clustering_count: usize,
    /// Static columns, in first-seen order.
    pub static_columns: Vec<InferredColumn>,
    /// Regular columns, in first-seen order.
    pub regular_columns: Vec<InferredColumn>,
}

/// A column seen in the rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InferredColumn {
    pub name: String,
    /// Its cells carry an element key (a collection column).
    pub collection: bool,
}

impl InferredTable {
    /// Collects the clustering width and the columns of `partitions`' rows (range tombstone
    /// markers name no column).
    pub fn from_partitions(partitions: &[PartitionJson]) -> InferredTable {
        let mut t = InferredTable::default();
        for row in partitions.iter().flat_map(|p| &p.rows) {
            let is_static = match row.r#type {
                "static_block" => true,
                "row" => false,
                _ => continue,
            };
            if !is_static {
                t.clustering_count = t.clustering_count.max(row.clustering.len());
            }
            let columns = if is_static {
                &mut t.static_columns
            } else {
                &mut t.regular_columns
            };
            for cell in &row.cells {
                let collection = cell.path.is_some();
                match columns.iter_mut().find(|c| c.name == cell.name) {
                    Some(c) => c.collection |= collection,
                    None => columns.push(InferredColumn {
                        name: cell.name.clone(),
                        collection,
                    }),
                }
            }
        }
        t
    }

    /// The statement, `keyspace.table` when known, with a comment per unknown.
    pub fn create_table(&self, keyspace: Option<&str>, table: Option<&str>) -> String {
        let name = match (keyspace, table) {
            (Some(k), Some(t)) => format!("{}.{}", cql_name(k), cql_name(t)),
            (None, Some(t)) => cql_name(t),
            _ => "unknown_table".to_owned(),
        };
        let mut lines = vec![
            "    key blob, -- partition key: its name and type are not in the SSTable".to_owned(),
        ];
        let clustering: Vec<String> = (1..=self.clustering_count)
            .map(|i| format!("column{i}"))
            .collect();
        for c in &clustering {
            lines.push(format!(
                "    {c} blob, -- clustering column: its name and type are not in the SSTable"
            ));
        }
        for (c, kind) in self
            .static_columns
            .iter()
            .map(|c| (c, " static"))
            .chain(self.regular_columns.iter().map(|c| (c, "")))
        {
            let note = if c.collection {
                "a collection (cells carry element keys); its type is not in the SSTable"
            } else {
                "type not in the SSTable"
            };
            lines.push(format!("    {} blob{kind}, -- {note}", cql_name(&c.name)));
        }
        let key = core::iter::once("key".to_owned())
            .chain(clustering)
            .collect::<Vec<_>>()
            .join(", ");
        lines.push(format!("    PRIMARY KEY ({key})"));
        format!(
            "-- {INFERRED_SCHEMA_NOTE}\nCREATE TABLE {name} (\n{}\n);",
            lines.join("\n")
        )
    }
}

/// A CQL identifier: as is when lower-case `[a-z][a-z0-9_]*`, else double-quoted.
fn cql_name(name: &str) -> String {
    let plain = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_owned()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dump::{CellJson, PartitionHeaderJson, UnfilteredJson};

    fn cell(name: &str, path: Option<&str>) -> CellJson {
        CellJson {
            name: name.to_owned(),
            path: path.map(|p| vec![p.to_owned()]),
            value: Some("x".to_owned()),
            value_note: None,
            deletion_info: None,
            tstamp: None,
            ttl: None,
            expires_at: None,
            expired: None,
            shards: Vec::new(),
        }
    }

    fn row(kind: &'static str, clustering: usize, cells: Vec<CellJson>) -> UnfilteredJson {
        UnfilteredJson {
            r#type: kind,
            position: 0,
            clustering: vec![Some("c".to_owned()); clustering],
            liveness_info: None,
            deletion_info: None,
            start: None,
            end: None,
            cells,
            findings: Vec::new(),
        }
    }

    #[test]
    fn statics_clustering_and_collections_become_columns() {
        let p = PartitionJson {
            partition: PartitionHeaderJson {
                key: vec!["1".to_owned()],
                key_hex: "31".to_owned(),
                position: 0,
                deletion_info: None,
                findings: Vec::new(),
            },
            rows: vec![
                row("static_block", 0, vec![cell("s1", None)]),
                row("row", 1, vec![cell("v1", None), cell("Tags", Some("a"))]),
                row("row", 1, vec![cell("v1", None), cell("v2", None)]),
            ],
        };
        let t = InferredTable::from_partitions(&[p]);
        assert_eq!(t.clustering_count, 1);
        let names = |cs: &[InferredColumn]| {
            cs.iter()
                .map(|c| (c.name.clone(), c.collection))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&t.static_columns), [("s1".to_owned(), false)]);
        assert_eq!(
            names(&t.regular_columns),
            [
                ("v1".to_owned(), false),
                ("Tags".to_owned(), true),
                ("v2".to_owned(), false)
            ]
        );
        let cql = t.create_table(Some("ks"), Some("t"));
        let body: Vec<&str> = cql
            .lines()
            .skip(1)
            .map(|l| l.split(" --").next().unwrap_or(l).trim())
            .collect();
        assert_eq!(
            body,
            [
                "CREATE TABLE ks.t (",
                "key blob,",
                "column1 blob,",
                "s1 blob static,",
                "v1 blob,",
                "\"Tags\" blob,",
                "v2 blob,",
                "PRIMARY KEY (key, column1)",
                ");"
            ]
        );
        // The statement parses back with the key and clustering it names.
        let parsed = crate::cql_schema::parse_create_table(&cql).unwrap();
        assert_eq!(parsed.partition_key, ["key"]);
        assert_eq!(parsed.clustering, ["column1"]);
    }
}
