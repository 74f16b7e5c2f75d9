//! Every metadata component of every fixture SSTable, decoded together: spans are real byte
//! ranges of their files (the UI highlights them), and children lie inside their parents.

use crate::common;

use sstable_engine::component::ComponentType;
use sstable_engine::info::{decode_metadata, reads_whole, ComponentInput};
use sstable_engine::span::Node;
use sstable_engine::sstable_set::group_files;

fn check_spans(node: &Node, file_len: u64, parent: Option<(u64, u64)>, path: &str) -> usize {
    let mut checked = 0;
    if let Some(span) = node.span {
        assert!(
            span.start <= span.end && span.end <= file_len,
            "{path}/{}: {span:?} outside 0..{file_len}",
            node.label
        );
        if let Some((ps, pe)) = parent {
            assert!(
                ps <= span.start && span.end <= pe,
                "{path}/{}: {span:?} outside parent {ps}..{pe}",
                node.label
            );
        }
        checked += 1;
    }
    let own = node.span.map(|s| (s.start, s.end)).or(parent);
    for c in &node.children {
        checked += check_spans(c, file_len, own, &format!("{path}/{}", node.label));
    }
    checked
}

#[test]
fn every_field_span_lies_inside_its_file_and_its_parent() {
    let Some(fx) = common::cassandra_fixtures("info::spans") else {
        return;
    };
    let files = common::files_under(&fx);
    let grouping = group_files(&files);
    let mut spans_checked = 0;
    for sstable in &grouping.sstables {
        let contents: Vec<(ComponentType, Vec<u8>, u64)> = sstable
            .files
            .iter()
            .map(|(c, i)| {
                let path = fx.join(&files[*i]);
                let size = std::fs::metadata(&path).unwrap().len();
                let bytes = if reads_whole(c) {
                    std::fs::read(&path).unwrap()
                } else {
                    Vec::new()
                };
                (c.clone(), bytes, size)
            })
            .collect();
        let inputs: Vec<ComponentInput<'_>> = contents
            .iter()
            .map(|(c, b, size)| ComponentInput {
                component: c,
                size_bytes: *size,
                bytes: reads_whole(c).then_some(b.as_slice()),
            })
            .collect();
        let m = decode_metadata(&sstable.descriptor, &inputs);
        assert!(m.errors.is_empty(), "{}: {:?}", sstable.prefix, m.errors);
        for (component, node) in m.component_nodes() {
            let size = m.size_of(&component).unwrap();
            spans_checked += check_spans(
                &node,
                size,
                None,
                &format!("{} {component}", sstable.prefix),
            );
        }
    }
    // Every component of 120 SSTables carries spans: thousands of them.
    assert!(spans_checked > 10_000, "only {spans_checked} spans");
}

#[test]
fn empty_and_foreign_files_give_errors_naming_component_and_offset() {
    let Some(fx) = common::cassandra_fixtures("info::empty_files") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "oa", "legacy_oa_clust");
    let (descriptor, _) = sstable_engine::descriptor::parse_file_name("oa-1-big-Data.db").unwrap();
    let data = std::fs::read(dir.join("oa-1-big-Data.db")).unwrap();
    let filter = ComponentType::Filter;
    let stats = ComponentType::Statistics;
    let ci = ComponentType::CompressionInfo;
    let m = decode_metadata(
        &descriptor,
        &[
            ComponentInput {
                component: &filter,
                size_bytes: 0,
                bytes: Some(&[]),
            },
            ComponentInput {
                component: &stats,
                size_bytes: data.len() as u64,
                bytes: Some(&data),
            },
            ComponentInput {
                component: &ci,
                size_bytes: 0,
                bytes: Some(&[]),
            },
        ],
    );
    let mut seen: Vec<(String, u64)> = m
        .errors
        .iter()
        .map(|e| {
            (
                e.component().map(|c| c.to_string()).unwrap_or_default(),
                e.offset(),
            )
        })
        .collect();
    seen.sort();
    seen.dedup_by(|a, b| a.0 == b.0);
    let components: Vec<&str> = seen.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(
        components,
        ["CompressionInfo.db", "Filter.db", "Statistics.db"],
        "{:?}",
        m.errors
    );
    for e in &m.errors {
        assert!(!e.to_string().is_empty());
        assert!(e.to_string().contains(" at 0x"), "{e}");
    }
}
