//! TOC.txt: the list of an SSTable's components, one file-name suffix per line.
//!
//! Src: `io/sstable/format/TOCComponent.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use crate::component::ComponentType;
use crate::span::{Span, Spanned};

/// The parsed TOC.txt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Toc {
    pub entries: Vec<Spanned<ComponentType>>,
}

impl Toc {
    /// Parses TOC.txt. Order is not significant; blank lines are ignored. Never fails: a line
    /// that names no known component becomes [`ComponentType::Custom`].
    pub fn parse(bytes: &[u8]) -> Toc {
        let mut entries = Vec::new();
        let mut start = 0usize;
        for line in bytes.split(|&b| b == b'\n') {
            let text = String::from_utf8_lossy(line);
            let trimmed = text.trim();
            if !trimmed.is_empty() {
                // Positions inside `bytes`: none of these sums can exceed its length + 1.
                let lead = text.len().saturating_sub(text.trim_start().len());
                let s = start.saturating_add(lead) as u64;
                entries.push(Spanned {
                    value: ComponentType::from_suffix(trimmed),
                    span: Span::new(s, s.saturating_add(trimmed.len() as u64)),
                });
            }
            start = start.saturating_add(line.len()).saturating_add(1);
        }
        Toc { entries }
    }

    pub fn components(&self) -> impl Iterator<Item = &ComponentType> {
        self.entries.iter().map(|e| &e.value)
    }
}

/// How the files present compare with what TOC.txt lists.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ComponentCheck {
    /// Components with a file, in a stable order.
    pub present: Vec<ComponentType>,
    /// Listed in TOC.txt, but no file was given.
    pub missing: Vec<ComponentType>,
    /// A file was given, but TOC.txt does not list it (TOC.txt itself is never listed).
    pub unlisted: Vec<ComponentType>,
    /// Present or listed, but not a component Cassandra or ScyllaDB defines.
    pub unknown: Vec<ComponentType>,
}

impl ComponentCheck {
    /// Compares present files with the TOC (`None` when there is no TOC.txt: nothing is missing or unlisted).
    pub fn new(present: &[ComponentType], toc: Option<&Toc>) -> ComponentCheck {
        let mut present_sorted: Vec<ComponentType> = present.to_vec();
        crate::sort::sort(&mut present_sorted);
        present_sorted.dedup();
        let mut check = ComponentCheck {
            present: present_sorted.clone(),
            ..Default::default()
        };
        if let Some(toc) = toc {
            let mut listed: Vec<ComponentType> = toc.components().cloned().collect();
            crate::sort::sort(&mut listed);
            listed.dedup();
            check.missing = listed
                .iter()
                .filter(|c| !present_sorted.contains(c))
                .cloned()
                .collect();
            check.unlisted = present_sorted
                .iter()
                .filter(|c| **c != ComponentType::Toc && !listed.contains(c))
                .cloned()
                .collect();
            check.unknown = listed.iter().filter(|c| !c.is_known()).cloned().collect();
        }
        for c in &present_sorted {
            if !c.is_known() && !check.unknown.contains(c) {
                check.unknown.push(c.clone());
            }
        }
        check
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lines_with_spans() {
        let toc = Toc::parse(b"Data.db\nTOC.txt\r\n  Filter.db\n\n");
        let names: Vec<&str> = toc.components().map(|c| c.file_suffix()).collect();
        assert_eq!(names, ["Data.db", "TOC.txt", "Filter.db"]);
        assert_eq!(toc.entries[2].span, Span::new(19, 28));
    }

    #[test]
    fn reports_missing_unlisted_and_unknown() {
        let toc = Toc::parse(b"Data.db\nSummary.db\nTOC.txt\nWeird.db\n");
        let present = [
            ComponentType::Data,
            ComponentType::Toc,
            ComponentType::Filter,
        ];
        let check = ComponentCheck::new(&present, Some(&toc));
        assert_eq!(
            check.missing,
            [
                ComponentType::Summary,
                ComponentType::Custom("Weird.db".into())
            ]
        );
        assert_eq!(check.unlisted, [ComponentType::Filter]);
        assert_eq!(check.unknown, [ComponentType::Custom("Weird.db".into())]);
    }
}
