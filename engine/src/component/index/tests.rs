//! Tests of Index.db decoding: entries, promoted indexes and `IndexInfo` blocks, built by hand.

use super::promoted::{display_value, parse_composite};
use super::*;
use crate::component::common::ClusteringPrefixKind;
use crate::component::test_support::{big, Out};

/// A `nb` entry with a two-block promoted index over one int clustering column.
fn nb_entry(key: &[u8], position: u8) -> Vec<u8> {
    let mut blocks = Vec::new();
    let mut offsets = Vec::new();
    for (first, last, off) in [(1u32, 5u32, 4u8), (6, 9, 40)] {
        offsets.push(blocks.len() as u32);
        blocks.push(ClusteringPrefixKind::Clustering.ordinal());
        blocks.push(0); // header
        blocks.extend_from_slice(&first.to_be_bytes());
        blocks.push(ClusteringPrefixKind::Clustering.ordinal());
        blocks.push(0);
        blocks.extend_from_slice(&last.to_be_bytes());
        blocks.push(off);
        // width 36 → delta 36 − 65536 = −65500 → zigzag 130999 = 0x1ffb7 → `c1 ff b7`.
        blocks.extend_from_slice(&[0xc1, 0xff, 0xb7]);
        blocks.push(0);
    }
    let mut promoted = vec![15]; // header length
    promoted.extend_from_slice(&0x7fff_ffffu32.to_be_bytes());
    promoted.extend_from_slice(&i64::MIN.to_be_bytes());
    promoted.push(2);
    promoted.extend_from_slice(&blocks);
    for o in offsets {
        promoted.extend_from_slice(&o.to_be_bytes());
    }
    let mut out = Vec::new();
    out.short_length_bytes(key, "key").unwrap();
    out.push(position);
    out.push(promoted.len() as u8);
    out.extend_from_slice(&promoted);
    out
}

#[test]
fn current_layout_entries_and_blocks() {
    let mut bytes = nb_entry(b"k1", 0);
    let second = bytes.len() as u64;
    bytes.short_length_bytes(b"k2", "key").unwrap();
    bytes.extend_from_slice(&[77, 0]);
    let idx = decode(&bytes, &big("nb")).unwrap();
    assert_eq!(idx.entries.len(), 2);
    assert!(idx.warnings.is_empty(), "{:?}", idx.warnings);
    let e = &idx.entries[0];
    assert_eq!(e.key.value, b"k1");
    assert_eq!(e.block_count, Some(2));
    assert_eq!(e.span.end, second);
    assert_eq!(idx.entries[1].position.value, 77);
    assert!(!idx.entries[1].has_promoted_index());

    let file = IndexFile::whole(&bytes, big("nb"));
    let p = file.promoted_index(e).unwrap().unwrap();
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(p.header_length.as_ref().unwrap().value, 15);
    assert!(p.deletion.is_live());
    assert_eq!(p.offsets, [0, 17]);
    let b1 = file.block(&p, 1, &[Some(4)]).unwrap();
    assert_eq!(b1.first_name.first_value(), Some(&6u32.to_be_bytes()[..]));
    assert_eq!(b1.last_name.kind(), Some(ClusteringPrefixKind::Clustering));
    assert_eq!(b1.first_name.display(), "CLUSTERING [0x00000006]");
    assert_eq!(b1.offset.value, 40);
    assert_eq!(b1.width.value, 36);
    assert_eq!(b1.width_delta, Some(36 - 65536));
    assert!(b1.end_open_marker.is_none());
    assert!(file.block(&p, 2, &[Some(4)]).is_err());
    let _ = idx.to_node();
    let _ = p.to_node();
    let _ = b1.to_node();
}

#[test]
fn cursor_asks_for_more_bytes_at_the_end_of_a_window() {
    let mut bytes = nb_entry(b"k1", 0);
    let second = bytes.len();
    bytes.short_length_bytes(b"k2", "key").unwrap();
    bytes.extend_from_slice(&[77, 0]);
    // A window that stops inside the second entry.
    let window = IndexFile::new(&bytes[..second + 3], 0, big("nb"));
    let mut c = window.cursor(false);
    assert!(matches!(c.next_step().unwrap(), IndexStep::Entry(_)));
    assert_eq!(
        c.next_step().unwrap(),
        IndexStep::NeedMoreBytes {
            offset: second as u64
        }
    );
    // The rest, as a window with its base offset.
    let rest = IndexFile::new(&bytes[second..], second as u64, big("nb"));
    let mut c = rest.cursor(true);
    let IndexStep::Entry(e) = c.next_step().unwrap() else {
        panic!("no entry")
    };
    assert_eq!(e.key.span, Span::new(second as u64, second as u64 + 4));
    assert_eq!(c.next_step().unwrap(), IndexStep::End);
    // The same truncation at the end of the file is an error.
    assert!(decode(&bytes[..second + 3], &big("nb")).is_err());
}

#[test]
fn composite_names() {
    let mut name = Vec::new();
    name.short_length_bytes(b"ab", "key").unwrap();
    name.push(0);
    name.short_length_bytes(b"", "key").unwrap();
    name.push(0);
    let cs = parse_composite(&name, 10).unwrap();
    assert_eq!(cs.len(), 2);
    assert_eq!(cs[0].value, b"ab");
    assert_eq!(cs[0].span, Span::new(10, 15));
    assert!(parse_composite(b"\x00\x05ab", 0).is_none());
    assert_eq!(
        display_value(&[b'a'; 50]),
        format!("\"{}…\" (50 bytes)", "a".repeat(40))
    );
    assert_eq!(display_value(b"ab"), "\"ab\"");
}
