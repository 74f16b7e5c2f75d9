//! A table of 4-byte offsets in front of the block they point into, as two components store
//! one: Summary.db's entry offsets (`u32` little-endian, relative to the offsets table;
//! `IndexSummary`) and a promoted index's `IndexInfo` offsets (`i32` big-endian, relative to the
//! first block; `RowIndexEntry.IndexedEntry`). The encodings differ and each component decodes
//! its own; the spans of the entries and the rendered node are the same, and live here once.
//!
//! Src: `io/sstable/indexsummary/IndexSummary.java`, `db/RowIndexEntry.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::span::{Node, Span};

/// Bytes per table entry.
pub const OFFSET_ENTRY_BYTES: u64 = 4;

/// The bytes of entry `i` of a table of `count` offsets that starts at `table.start`; `None`
/// past the last entry.
pub fn offset_entry_span(table: Span, count: usize, i: usize) -> Option<Span> {
    if i >= count {
        return None;
    }
    let start = table
        .start
        .checked_add((i as u64).checked_mul(OFFSET_ENTRY_BYTES)?)?;
    Some(Span::new(start, start.checked_add(OFFSET_ENTRY_BYTES)?))
}

/// The "offsets" node over `table`: one child per offset up to `max_children`, then one
/// "… N more offsets" child spanning the rest. `encoding` says how an entry is stored
/// (`"i32"`, `"u32 (little-endian)"`).
pub fn offsets_node(offsets: &[u32], table: Span, encoding: &str, max_children: usize) -> Node {
    let span_of = |i: usize| offset_entry_span(table, offsets.len(), i);
    let nodes = Node::capped_list(
        offsets,
        max_children,
        "offsets",
        || span_of(max_children).map(|s| Span::new(s.start, table.end)),
        |(i, o)| Node::new(format!("offset {i}"), o.to_string(), span_of(i)),
    );
    Node::new(
        "offsets",
        format!("{} × {encoding}", offsets.len()),
        Some(table),
    )
    .with_children(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_spans_are_four_bytes_from_the_table_start() {
        let table = Span::new(100, 112);
        assert_eq!(offset_entry_span(table, 3, 0), Some(Span::new(100, 104)));
        assert_eq!(offset_entry_span(table, 3, 2), Some(Span::new(108, 112)));
        assert_eq!(offset_entry_span(table, 3, 3), None);
        assert_eq!(
            offset_entry_span(Span::new(u64::MAX - 2, u64::MAX), 1, 0),
            None
        );
    }

    #[test]
    fn node_lists_at_most_max_children_then_the_rest() {
        let table = Span::new(8, 28);
        let node = offsets_node(&[20, 31, 42, 53, 64], table, "i32", 2);
        assert_eq!(node.value, "5 × i32");
        let shown: Vec<(&str, &str)> = node
            .children
            .iter()
            .map(|c| (c.label.as_str(), c.value.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                ("offset 0", "20"),
                ("offset 1", "31"),
                ("…", "3 more offsets")
            ]
        );
        assert_eq!(node.children[1].span, Some(Span::new(12, 16)));
        assert_eq!(node.children[2].span, Some(Span::new(16, 28)));
    }
}
