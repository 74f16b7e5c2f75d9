//! Byte spans and the owned field tree that the UI, the CLI and golden files all render.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::{Deserialize, Serialize};

/// Bytes as lowercase hex without a prefix (`00ff`): how every report shows raw bytes.
pub fn hex(bytes: &[u8]) -> String {
    use core::fmt::Write;
    let mut out = String::with_capacity(bytes.len().saturating_mul(2));
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// `#[serde(serialize_with = "crate::span::serialize_hex")]`: bytes as one [`hex`] string.
pub fn serialize_hex<S: serde::Serializer>(
    bytes: &[u8],
    s: S,
) -> core::result::Result<S::Ok, S::Error> {
    s.serialize_str(&hex(bytes))
}

/// [`serialize_hex`] for optional bytes (`null` when absent).
pub fn serialize_opt_hex<S: serde::Serializer>(
    bytes: &Option<Vec<u8>>,
    s: S,
) -> core::result::Result<S::Ok, S::Error> {
    match bytes {
        Some(b) => s.serialize_some(&hex(b)),
        None => s.serialize_none(),
    }
}

/// [`serialize_hex`] for spanned bytes: `{"value": "<hex>", "span": …}`.
pub fn serialize_spanned_hex<S: serde::Serializer>(
    v: &Spanned<Vec<u8>>,
    s: S,
) -> core::result::Result<S::Ok, S::Error> {
    Spanned {
        value: hex(&v.value),
        span: v.span,
    }
    .serialize(s)
}

/// A half-open absolute byte range `[start, end)` in one component file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Span {
    pub start: u64,
    pub end: u64,
}

impl Span {
    pub const fn new(start: u64, end: u64) -> Self {
        Span { start, end }
    }

    pub const fn len_bytes(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }

    pub const fn contains(&self, offset: u64) -> bool {
        self.start <= offset && offset < self.end
    }
}

/// A decoded value with the bytes it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// One labelled field of a decoded component: the boundary type that every front end renders
/// (deserialisable too: the page's workers send decoded trees to its UI thread).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Node {
    pub label: String,
    pub value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Node>,
}

impl Node {
    pub fn new(label: impl Into<String>, value: impl Into<String>, span: Option<Span>) -> Self {
        Node {
            label: label.into(),
            value: value.into(),
            span,
            children: Vec::new(),
        }
    }

    pub fn with_children(mut self, children: Vec<Node>) -> Self {
        self.children = children;
        self
    }

    /// The first `max` of `items` as nodes (`node` gets each with its index), then, when there
    /// are more, one "… N more {noun}" node over `rest_span()` (the bytes of those not shown):
    /// how every long list in a tree is cut.
    pub fn capped_list<'a, T>(
        items: &'a [T],
        max: usize,
        noun: &str,
        rest_span: impl FnOnce() -> Option<Span>,
        node: impl FnMut((usize, &'a T)) -> Node,
    ) -> Vec<Node> {
        let mut nodes: Vec<Node> = items.iter().enumerate().take(max).map(node).collect();
        if items.len() > max {
            nodes.push(Node::new(
                "…",
                format!("{} more {noun}", items.len().saturating_sub(max)),
                rest_span(),
            ));
        }
        nodes
    }

    /// The innermost node whose span contains `offset` (depth first), for "click a byte, select its field".
    pub fn find_at(&self, offset: u64) -> Option<&Node> {
        for child in &self.children {
            if let Some(found) = child.find_at(offset) {
                return Some(found);
            }
        }
        match self.span {
            Some(span) if span.contains(offset) => Some(self),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_list_is_cut_with_one_node_for_the_rest() {
        let items = [10u32, 11, 12, 13, 14];
        let node = |(i, v): (usize, &u32)| Node::new(format!("item {i}"), v.to_string(), None);
        let cut = Node::capped_list(&items, 3, "items", || Some(Span::new(30, 50)), node);
        let shown: Vec<(&str, &str)> = cut
            .iter()
            .map(|n| (n.label.as_str(), n.value.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                ("item 0", "10"),
                ("item 1", "11"),
                ("item 2", "12"),
                ("…", "2 more items")
            ]
        );
        assert_eq!(cut[3].span, Some(Span::new(30, 50)));
        let whole = Node::capped_list(&items, 5, "items", || panic!("nothing is cut"), node);
        assert_eq!(whole.len(), 5);
    }

    #[test]
    fn find_at_returns_innermost_field() {
        let tree = Node::new("root", "", Some(Span::new(0, 10))).with_children(vec![
            Node::new("a", "1", Some(Span::new(0, 4))),
            Node::new("b", "2", Some(Span::new(4, 8))),
        ]);
        assert_eq!(tree.find_at(5).map(|n| n.label.as_str()), Some("b"));
        assert_eq!(tree.find_at(9).map(|n| n.label.as_str()), Some("root"));
        assert!(tree.find_at(10).is_none());
    }
}
