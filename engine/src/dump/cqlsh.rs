//! A non-frozen collection or UDT column as cqlsh shows it (`pylib/cqlshlib/formatting.py`):
//! sstabledump lists its cells one by one (`"path"`, `"value"`); cqlsh shows the column as one
//! literal — a list `['a', 'b']`, a set `{1, 2}`, a map `{1: 'a'}`, a UDT `{f: 1, g: 'x'}`.

use super::CellJson;
use crate::types::value::{format_nested_value, parse_value};
use crate::types::AbstractType;

/// The literal of a multi-cell column of type `t` from its cells in one row, in their order;
/// `None` when `t` is not a multi-cell collection or UDT, or a cell is an element tombstone (the
/// cells then say more than a literal).
pub fn multi_cell_literal(t: &AbstractType, cells: &[&CellJson]) -> Option<String> {
    if !t.is_multi_cell() || cells.iter().any(|c| c.deletion_info.is_some()) {
        return None;
    }
    let path = |c: &CellJson| {
        c.path
            .as_ref()
            .and_then(|p| p.first())
            .cloned()
            .unwrap_or_default()
    };
    let value = |c: &CellJson| c.value.clone().unwrap_or_default();
    let items: Vec<String> = match t.base() {
        AbstractType::List { element, .. } => {
            cells.iter().map(|c| nested(element, &value(c))).collect()
        }
        AbstractType::Set { .. } => cells.iter().map(|c| path(c)).collect(),
        AbstractType::Map { value: v, .. } => cells
            .iter()
            .map(|c| format!("{}: {}", path(c), nested(v, &value(c))))
            .collect(),
        AbstractType::UserType { fields, .. } => cells
            .iter()
            .map(|c| {
                let name = path(c);
                match fields.iter().find(|(n, _)| *n == name) {
                    Some((_, ft)) => format!("{name}: {}", nested(ft, &value(c))),
                    None => format!("{name}: {}", value(c)),
                }
            })
            .collect(),
        _ => return None,
    };
    let (open, close) = match t.base() {
        AbstractType::List { .. } => ("[", "]"),
        _ => ("{", "}"),
    };
    Some(format!("{open}{}{close}", items.join(", ")))
}

/// A cell value (rendered at top level, as the dump has it) rendered as inside a collection:
/// read back to its bytes and formatted again; a value that does not read back stays as it is.
fn nested(t: &AbstractType, top_level: &str) -> String {
    match parse_value(t, top_level) {
        Ok(bytes) => format_nested_value(t, &bytes).text,
        Err(_) => top_level.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::parse_type;

    fn cell(path: Option<&str>, value: Option<&str>) -> CellJson {
        CellJson {
            name: "c".into(),
            path: path.map(|p| vec![p.to_owned()]),
            value: value.map(str::to_owned),
            ..CellJson::default()
        }
    }

    fn literal(t: &str, cells: &[CellJson]) -> Option<String> {
        let t = parse_type(t).unwrap();
        multi_cell_literal(&t, &cells.iter().collect::<Vec<_>>())
    }

    #[test]
    fn collections_as_cqlsh_shows_them() {
        let list =
            "org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.UTF8Type)";
        let uuid = "00000217-0000-11d0-8000-000000000003";
        assert_eq!(
            literal(
                list,
                &[
                    cell(Some(uuid), Some("Text 13")),
                    cell(Some(uuid), Some("it's"))
                ]
            )
            .as_deref(),
            Some("['Text 13', 'it''s']")
        );
        let set =
            "org.apache.cassandra.db.marshal.SetType(org.apache.cassandra.db.marshal.Int32Type)";
        assert_eq!(
            literal(
                set,
                &[cell(Some("13"), Some("")), cell(Some("14"), Some(""))]
            )
            .as_deref(),
            Some("{13, 14}")
        );
        let map = "org.apache.cassandra.db.marshal.MapType(org.apache.cassandra.db.marshal.Int32Type,org.apache.cassandra.db.marshal.UTF8Type)";
        assert_eq!(
            literal(map, &[cell(Some("13"), Some("Text 13"))]).as_deref(),
            Some("{13: 'Text 13'}")
        );
        // A non-frozen UDT (`address`: name text, num int): its fields by name.
        let udt = "org.apache.cassandra.db.marshal.UserType(ks,61646472657373,6e616d65:org.apache.cassandra.db.marshal.UTF8Type,6e756d:org.apache.cassandra.db.marshal.Int32Type)";
        assert_eq!(
            literal(
                udt,
                &[
                    cell(Some("name"), Some("Main St")),
                    cell(Some("num"), Some("5"))
                ]
            )
            .as_deref(),
            Some("{name: 'Main St', num: 5}")
        );
        // Frozen: one cell, already a literal.
        let frozen = "org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.Int32Type))";
        assert_eq!(literal(frozen, &[cell(None, Some("[1]"))]), None);
        // An element tombstone: the cells say more.
        let mut deleted = cell(Some("13"), None);
        deleted.deletion_info = Some(super::super::CellDeletionJson {
            local_delete_time: "2023-11-14T22:13:20Z".into(),
        });
        assert_eq!(literal(set, &[deleted]), None);
    }
}
