//! Tests of Scylla.db decoding on components built by hand, tag by tag.

use super::*;

fn entry(tag: u32, body: &[u8]) -> Vec<u8> {
    let mut out = tag.to_be_bytes().to_vec();
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    out.extend_from_slice(body);
    out
}

fn file(entries: &[Vec<u8>]) -> Vec<u8> {
    let mut out = (entries.len() as u32).to_be_bytes().to_vec();
    for e in entries {
        out.extend_from_slice(e);
    }
    out
}

#[test]
fn features_and_origin() {
    let mut origin = 8u32.to_be_bytes().to_vec();
    origin.extend_from_slice(b"memtable");
    let bytes = file(&[
        entry(tag::FEATURES, &0x7fu64.to_be_bytes()),
        entry(tag::SSTABLE_ORIGIN, &origin),
    ]);
    let m = decode(&bytes).unwrap();
    assert_eq!(m.count.value, 2);
    let Some(ScyllaValue::Features(f)) = m.get(tag::FEATURES) else {
        panic!("{:?}", m.entries)
    };
    assert_eq!(f.names, FEATURE_NAMES);
    assert!(f.has(6) && !f.has(7) && !f.has(99));
    assert_eq!(f.mask.span, Span::new(12, 20));
    let Some(ScyllaValue::SstableOrigin(s)) = m.get(tag::SSTABLE_ORIGIN) else {
        panic!()
    };
    assert_eq!(s.value, "memtable");
    assert_eq!(s.span, Span::new(28, 40));
    assert!(m.findings.is_empty() && m.digest.is_none());
    assert_eq!(m.entries[1].span(), Span::new(20, 40));
}

#[test]
fn uuid_display() {
    let u = Uuid {
        msb: 0x0123_4567_89ab_1def,
        lsb: 0x8877_6655_4433_2211,
    };
    assert_eq!(u.to_string(), "01234567-89ab-1def-8877-665544332211");
    assert_eq!(u.version(), 1);
}

#[test]
fn unknown_tags_are_skipped_and_bad_bodies_do_not_stop_decoding() {
    let bytes = file(&[
        entry(99, &[1, 2, 3]),
        entry(tag::RUN_IDENTIFIER, &[0; 5]),
        entry(tag::FEATURES, &[0, 0, 0, 0, 0, 0, 0, 1, 0xee]),
    ]);
    let m = decode(&bytes).unwrap();
    assert_eq!(m.entries[0].value, ScyllaValue::Unknown);
    assert_eq!(m.entries[0].body_span, Span::new(12, 15));
    assert!(matches!(
        m.entries[1].value,
        ScyllaValue::Invalid { offset: 23, .. }
    ));
    assert!(matches!(m.entries[2].value, ScyllaValue::Features(_)));
    assert_eq!(m.findings.len(), 2);
    assert!(m.findings[1].value.contains("1 bytes"));
}

#[test]
fn many_entries_decode_in_linear_time() {
    let entries: Vec<Vec<u8>> = (0..50_000u32).map(|i| entry(100 + i % 3, &[])).collect();
    let m = decode(&file(&entries)).unwrap();
    assert_eq!(m.entries.len(), 50_000);
    // Three distinct tags: every later repeat is reported.
    assert_eq!(m.findings.len(), 50_000 - 3);
}

#[test]
fn structural_errors() {
    assert_eq!(decode(&[0, 0]).unwrap_err().offset(), 0);
    // A count larger than the file can hold.
    let e = decode(&[0, 0, 0, 9, 0, 0, 0, 1]).unwrap_err();
    assert_eq!(e.component(), Some(&ComponentType::Scylla));
    // A body size past the end.
    let e = decode(&[0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 9, 1]).unwrap_err();
    assert_eq!(e.offset(), 12);
}
