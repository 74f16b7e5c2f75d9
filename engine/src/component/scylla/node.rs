//! Scylla.db as a tree of [`Node`]s for the page and the CLI: each subcomponent with its
//! fields and their byte spans.
//!
//! Src (scylladb repo): `docs/dev/sstable-scylla-format.md`.

use core::fmt;

use crate::span::{Node, Span, Spanned};

use super::{ScyllaEntry, ScyllaMetadata, ScyllaValue, TokenBound};

fn leaf<T: fmt::Display>(label: &str, v: &Spanned<T>) -> Node {
    Node::new(label, v.value.to_string(), Some(v.span))
}

fn string_leaf(label: &str, v: &Spanned<String>) -> Node {
    Node::new(label, format!("{:?}", v.value), Some(v.span))
}

impl ScyllaValue {
    /// One-line summary for the entry's node.
    fn summary(&self) -> String {
        match self {
            ScyllaValue::Sharding(ranges) => match ranges.as_slice() {
                [one] => one.describe(),
                many => format!("{} token ranges", many.len()),
            },
            ScyllaValue::Features(f) => {
                format!("0x{:x}: {}", f.mask.value, f.names.join(", "))
            }
            ScyllaValue::ExtensionAttributes(a) => format!("{} attributes", a.len()),
            ScyllaValue::RunIdentifier(u) | ScyllaValue::SstableIdentifier(u) => {
                u.value.to_string()
            }
            ScyllaValue::LargeDataStats(s) => format!("{} entries", s.len()),
            ScyllaValue::SstableOrigin(s)
            | ScyllaValue::ScyllaBuildId(s)
            | ScyllaValue::ScyllaVersion(s) => format!("{:?}", s.value),
            ScyllaValue::ExtTimestampStats(s) => format!("{} entries", s.len()),
            ScyllaValue::Schema(s) => format!(
                "{}.{} ({} columns)",
                s.keyspace.value,
                s.table.value,
                s.columns.len()
            ),
            ScyllaValue::ComponentsDigests(d) => format!("{} components", d.len()),
            ScyllaValue::Unknown => "unknown tag (body skipped by size)".to_owned(),
            ScyllaValue::Invalid { message, offset } => {
                format!("does not decode: {message} at 0x{offset:x}")
            }
        }
    }

    fn children(&self) -> Vec<Node> {
        match self {
            ScyllaValue::Sharding(ranges) => ranges
                .iter()
                .enumerate()
                .map(|(i, range)| {
                    let bound = |label: &str, b: &TokenBound| {
                        Node::new(
                            label,
                            b.describe(),
                            Some(Span::new(b.exclusive.span.start, b.token.span.end)),
                        )
                        .with_children(vec![
                            leaf("exclusive", &b.exclusive),
                            Node::new("token", b.describe(), Some(b.token.span)),
                        ])
                    };
                    Node::new(format!("range {i}"), range.describe(), Some(range.span))
                        .with_children(vec![
                            bound("left", &range.left),
                            bound("right", &range.right),
                        ])
                })
                .collect(),
            ScyllaValue::Features(f) => vec![Node::new(
                "bit set",
                format!("0x{:016x}: {}", f.mask.value, f.names.join(", ")),
                Some(f.mask.span),
            )],
            ScyllaValue::ExtensionAttributes(attrs) => attrs
                .iter()
                .map(|a| {
                    Node::new(
                        a.key.value.clone(),
                        a.value.value.clone(),
                        Some(Span::new(a.key.span.start, a.value.span.end)),
                    )
                    .with_children(vec![
                        string_leaf("key", &a.key),
                        string_leaf("value", &a.value),
                    ])
                })
                .collect(),
            ScyllaValue::RunIdentifier(u) | ScyllaValue::SstableIdentifier(u) => {
                vec![leaf("uuid", u)]
            }
            ScyllaValue::LargeDataStats(stats) => stats
                .iter()
                .map(|s| {
                    Node::new(
                        s.kind_name,
                        format!(
                            "max {}, threshold {}, {} above",
                            s.max_value.value, s.threshold.value, s.above_threshold.value
                        ),
                        Some(s.span),
                    )
                    .with_children(vec![
                        leaf("type", &s.kind),
                        leaf("max value", &s.max_value),
                        leaf("threshold", &s.threshold),
                        leaf("above threshold", &s.above_threshold),
                    ])
                })
                .collect(),
            ScyllaValue::SstableOrigin(s)
            | ScyllaValue::ScyllaBuildId(s)
            | ScyllaValue::ScyllaVersion(s) => vec![string_leaf("string", s)],
            ScyllaValue::ExtTimestampStats(stats) => stats
                .iter()
                .map(|s| {
                    Node::new(
                        s.kind_name,
                        s.value.value.to_string(),
                        Some(Span::new(s.kind.span.start, s.value.span.end)),
                    )
                    .with_children(vec![leaf("type", &s.kind), leaf("value", &s.value)])
                })
                .collect(),
            ScyllaValue::Schema(s) => {
                let mut nodes = vec![
                    leaf("table id", &s.table_id),
                    leaf("schema version", &s.schema_version),
                    string_leaf("keyspace", &s.keyspace),
                    string_leaf("table", &s.table),
                ];
                nodes.extend(s.columns.iter().map(|c| {
                    Node::new(
                        c.name.value.clone(),
                        format!("{} {}", c.kind_name, c.type_name.value),
                        Some(c.span),
                    )
                    .with_children(vec![
                        leaf("kind", &c.kind),
                        string_leaf("name", &c.name),
                        string_leaf("type", &c.type_name),
                    ])
                }));
                nodes
            }
            ScyllaValue::ComponentsDigests(digests) => digests
                .iter()
                .map(|d| {
                    Node::new(
                        d.component_name,
                        format!("CRC32 {}", d.crc32.value),
                        Some(Span::new(d.component.span.start, d.crc32.span.end)),
                    )
                    .with_children(vec![
                        leaf("component type", &d.component),
                        leaf("CRC32", &d.crc32),
                    ])
                })
                .collect(),
            ScyllaValue::Unknown | ScyllaValue::Invalid { .. } => Vec::new(),
        }
    }
}

impl ScyllaMetadata {
    /// The first entry with `tag` (the one ScyllaDB keeps).
    pub fn get(&self, tag: u32) -> Option<&ScyllaValue> {
        self.entries
            .iter()
            .find(|e| e.tag.value == tag)
            .map(|e| &e.value)
    }

    /// The labelled tree for the tree + hex view.
    pub fn to_node(&self) -> Node {
        let names: Vec<&str> = self.entries.iter().map(ScyllaEntry::name).collect();
        let mut children = vec![leaf("subcomponent count", &self.count)];
        for e in &self.entries {
            let mut kids = vec![
                Node::new(
                    "tag",
                    format!("{} ({})", e.tag.value, e.name()),
                    Some(e.tag.span),
                ),
                Node::new("size", format!("{} bytes", e.size.value), Some(e.size.span)),
            ];
            kids.extend(e.value.children());
            children.push(
                Node::new(
                    format!("tag {}: {}", e.tag.value, e.name()),
                    e.value.summary(),
                    Some(e.span()),
                )
                .with_children(kids),
            );
        }
        if let Some(d) = &self.digest {
            children.push(Node::new(
                "digest (CRC32)",
                format!(
                    "{} ({}; computed {})",
                    d.stored_crc32.value,
                    if d.matches { "matches" } else { "MISMATCH" },
                    d.computed_crc32
                ),
                Some(d.stored_crc32.span),
            ));
        }
        for f in &self.findings {
            children.push(Node::new("finding", f.value.clone(), Some(f.span)));
        }
        Node::new(
            "Scylla.db",
            format!("{} subcomponents: {}", self.entries.len(), names.join(", ")),
            Some(Span::new(0, self.file_size_bytes)),
        )
        .with_children(children)
    }
}
