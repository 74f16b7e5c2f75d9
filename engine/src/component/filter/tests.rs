//! Tests of Filter.db decoding, probing and the bloom-filter maths, on filters built by hand.

use super::*;
use crate::version::Format;

/// A filter file from a bit list, laid out in `format`.
fn build(hash_count: i32, words: usize, set_bits: &[u64], format: FilterFormat) -> Vec<u8> {
    let mut bitset = vec![0u8; words * 8];
    let header = FilterHeader {
        format,
        hash_count: Spanned {
            value: 0,
            span: Span::new(0, 4),
        },
        word_count: Spanned {
            value: words as u32,
            span: Span::new(4, 8),
        },
        bitset_span: Span::new(8, 8 + words as u64 * 8),
        bitset_size_bits: words as u64 * 64,
    };
    for &i in set_bits {
        let byte = header.relative_byte_of_bit(i) as usize;
        bitset[byte] |= 1 << (i & 7);
    }
    let mut out = hash_count.to_be_bytes().to_vec();
    out.extend_from_slice(&(words as i32).to_be_bytes());
    out.extend_from_slice(&bitset);
    out
}

fn header(format: FilterFormat, k: u32, words: u32) -> FilterHeader {
    FilterHeader {
        format,
        hash_count: Spanned {
            value: k,
            span: Span::new(0, 4),
        },
        word_count: Spanned {
            value: words,
            span: Span::new(4, 8),
        },
        bitset_span: Span::new(8, 8 + u64::from(words) * 8),
        bitset_size_bits: u64::from(words) * 64,
    }
}

#[test]
fn byte_positions_follow_each_format() {
    let new = header(FilterFormat::CURRENT, 1, 2);
    let old = header(FilterFormat::LEGACY_3_0, 1, 2);
    // Bit 0: first byte (new) / last byte of word 0 (old).
    assert_eq!(new.byte_offset_of_bit(0), 8);
    assert_eq!(old.byte_offset_of_bit(0), 8 + 7);
    // Bit 63: byte 7 (new) / byte 0 (old). Bit 64: byte 8 (new) / byte 15 (old).
    assert_eq!(new.byte_offset_of_bit(63), 8 + 7);
    assert_eq!(old.byte_offset_of_bit(63), 8);
    assert_eq!(new.byte_offset_of_bit(64), 8 + 8);
    assert_eq!(old.byte_offset_of_bit(64), 8 + 15);
    // Old format: bit i of the big-endian word at 8·(i/64).
    let file = build(1, 1, &[0, 9, 63], FilterFormat::LEGACY_3_0);
    let word = u64::from_be_bytes(file[8..16].try_into().unwrap());
    assert_eq!(word, 1 | (1 << 9) | (1 << 63));
    let file = build(1, 1, &[0, 9, 63], FilterFormat::CURRENT);
    assert_eq!(&file[8..16], &[0x01, 0x02, 0, 0, 0, 0, 0, 0x80]);
}

#[test]
fn decodes_header_counts_and_spans() {
    let file = build(3, 2, &[1, 2, 100], FilterFormat::CURRENT);
    let bf = decode_with(&file, FilterFormat::CURRENT).unwrap();
    assert_eq!(bf.hash_count(), 3);
    assert_eq!(bf.word_count(), 2);
    assert_eq!(bf.header.hash_count.span, Span::new(0, 4));
    assert_eq!(bf.header.word_count.span, Span::new(4, 8));
    assert_eq!(bf.header.bitset_span, Span::new(8, 24));
    assert_eq!(bf.bitset_size_bits(), 128);
    assert_eq!(bf.bits_set, 3);
    assert!((bf.fill_ratio - 3.0 / 128.0).abs() < 1e-12);
    assert!(bf.findings.is_empty());
    assert!(bf.is_bit_set(100) && !bf.is_bit_set(101) && !bf.is_bit_set(1000));
    let node = bf.to_node();
    assert_eq!(node.children.len(), 3);
    assert_eq!(node.find_at(9).map(|n| n.label.as_str()), Some("bitset"));
    assert_eq!(
        node.find_at(5).map(|n| n.label.as_str()),
        Some("word count")
    );
}

#[test]
fn keys_added_under_each_format_are_found_with_it() {
    // Build, for each format, a filter holding "0".."4" the way Cassandra would add them.
    for format in FilterFormat::ALL {
        let h = header(format, 5, 2);
        let bits: Vec<u64> = (0..5)
            .flat_map(|i| h.bit_indexes(i.to_string().as_bytes()))
            .collect();
        let file = build(5, 2, &bits, format);
        let bf = decode_with(&file, format).unwrap();
        let keys: Vec<Vec<u8>> = (0..5).map(|i| i.to_string().into_bytes()).collect();
        assert_eq!(bf.count_present(keys.iter().map(Vec::as_slice)), 5);
        let probe = bf.might_contain(b"3");
        assert!(probe.maybe_present);
        assert_eq!(probe.bits, vec![true; 5]);
        assert_eq!(probe.bit_indexes, h.bit_indexes(b"3"));
        assert_eq!(probe.byte_offsets, h.probe_byte_offsets(b"3"));
        let survey = bf.format_survey(&keys.iter().map(Vec::as_slice).collect::<Vec<_>>());
        let right = survey.iter().find(|s| s.format == format).unwrap();
        assert_eq!(right.keys_present, 5);
    }
}

#[test]
fn indexes_use_abs_of_the_wrapping_sum() {
    // h1 = i64::MIN exercises abs(MIN % m): |MIN| = 2^63, 2^63 mod 128 = 0.
    let h = header(FilterFormat::LEGACY_2_X, 3, 2);
    assert_eq!(h.bit_indexes_for_hash(i64::MIN, 1), vec![0, 127, 126]);
    let h = header(FilterFormat::CURRENT, 3, 2);
    assert_eq!(h.bit_indexes_for_hash(1, -5), vec![5, 4, 3]);
    assert_eq!(h.bit_indexes_for_hash(i64::MAX, i64::MAX), {
        let m = 128u64;
        let a = i64::MAX;
        let b = a.wrapping_add(i64::MAX);
        let c = b.wrapping_add(i64::MAX);
        vec![
            a.unsigned_abs() % m,
            b.unsigned_abs() % m,
            c.unsigned_abs() % m,
        ]
    });
    assert!(header(FilterFormat::CURRENT, 3, 0)
        .bit_indexes(b"x")
        .is_empty());
}

#[test]
fn format_follows_the_version_gates() {
    let v = |s| Version::parse(Format::Big, s).unwrap();
    assert_eq!(
        FilterFormat::for_version(&v("ka")),
        FilterFormat::LEGACY_2_X
    );
    assert_eq!(
        FilterFormat::for_version(&v("la")),
        FilterFormat::LEGACY_2_X
    );
    assert_eq!(
        FilterFormat::for_version(&v("ma")),
        FilterFormat::LEGACY_3_0
    );
    assert_eq!(
        FilterFormat::for_version(&v("me")),
        FilterFormat::LEGACY_3_0
    );
    assert_eq!(FilterFormat::for_version(&v("na")), FilterFormat::CURRENT);
    assert_eq!(FilterFormat::for_version(&v("oa")), FilterFormat::CURRENT);
    let da = Version::parse(Format::Bti, "da").unwrap();
    assert_eq!(FilterFormat::for_version(&da), FilterFormat::CURRENT);
}

#[test]
fn bad_headers_are_errors_with_offsets() {
    let e = decode_with(&[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0], FilterFormat::CURRENT).unwrap_err();
    assert_eq!(e.offset(), 0);
    assert_eq!(e.component(), Some(&ComponentType::Filter));
    assert!(e.to_string().contains("hash count -1"), "{e}");
    let e = decode_with(&[0, 0, 0, 5, 0x80, 0, 0, 0], FilterFormat::CURRENT).unwrap_err();
    assert_eq!(e.offset(), 4);
    let e = decode_with(&[0, 0, 0, 5, 0, 0, 0, 2, 1, 2, 3], FilterFormat::CURRENT).unwrap_err();
    assert_eq!(e.offset(), 8);
    assert!(e.to_string().contains("bitset"), "{e}");
    let e = decode_with(&[0, 0, 0, 5, 0, 0], FilterFormat::CURRENT).unwrap_err();
    assert_eq!(e.offset(), 4);
    assert!(decode_with(&[0, 0, 0, 65, 0, 0, 0, 0], FilterFormat::CURRENT).is_err());
    // A huge word count is refused before anything is allocated.
    assert!(decode_with(&[0, 0, 0, 5, 0x7f, 0xff, 0xff, 0xff], FilterFormat::CURRENT).is_err());
}

#[test]
fn suspicious_values_are_findings() {
    let mut file = build(0, 1, &[], FilterFormat::CURRENT);
    file.extend_from_slice(&[9, 9, 9]);
    let bf = decode_with(&file, FilterFormat::CURRENT).unwrap();
    assert_eq!(bf.findings.len(), 2);
    assert_eq!(bf.findings[1].span, Span::new(16, 19));
    assert!(bf.contains(b"anything"));
    let bf = decode_with(
        &build(30, 1, &[], FilterFormat::CURRENT),
        FilterFormat::CURRENT,
    )
    .unwrap();
    assert!(bf.findings[0].value.contains("21"));
    let bf = decode_with(
        &build(3, 0, &[], FilterFormat::CURRENT),
        FilterFormat::CURRENT,
    )
    .unwrap();
    assert!(bf.might_contain(b"k").maybe_present);
    assert_eq!(bf.fill_ratio, 0.0);
    assert_eq!(bf.findings.len(), 1);
}

#[test]
fn header_alone_plans_a_lookup() {
    let file = build(4, 4, &[], FilterFormat::LEGACY_3_0);
    let h = decode_header(&file[..8], FilterFormat::LEGACY_3_0).unwrap();
    assert_eq!(h.expected_file_size_bytes(), 40);
    for off in h.probe_byte_offsets(b"key") {
        assert!((8..40).contains(&off));
    }
}

#[test]
fn fp_maths() {
    // p = (1 − e^(−kn/m))^k: 10 bits per key, k = 7 → 0.00819 (BloomCalculations' table).
    let p = false_positive_rate(7, 1000, 100);
    assert!((p - 0.008_19).abs() < 5e-6, "{p}");
    assert_eq!(false_positive_rate(3, 0, 10), 1.0);
    assert!((optimal_hash_count(10.0) - 6.931).abs() < 1e-3);
    assert!((optimal_fp_rate_for(10.0) - 0.6185f64.powi(10)).abs() < 1e-4);
    let bf = decode_with(
        &build(2, 1, &[0, 1, 2, 3], FilterFormat::CURRENT),
        FilterFormat::CURRENT,
    )
    .unwrap();
    assert!((bf.fill_fp_rate() - (4.0f64 / 64.0).powi(2)).abs() < 1e-12);
    let n = bf.estimated_key_count().unwrap();
    assert!((n - (-(64.0 / 2.0) * (1.0f64 - 4.0 / 64.0).ln())).abs() < 1e-9);
    assert_eq!(bf.bits_per_key(8), 8.0);
}

#[test]
fn tabulated_rates_and_cassandra_sizing() {
    assert_eq!(tabulated_fp_rate(2, 1), Some(0.393));
    assert_eq!(tabulated_fp_rate(10, 7), Some(0.00819));
    assert_eq!(tabulated_fp_rate(20, 14), Some(6.71e-05));
    assert_eq!(tabulated_fp_rate(5, 3), Some(0.092));
    assert_eq!(tabulated_fp_rate(7, 7), None);
    assert_eq!(tabulated_fp_rate(21, 1), None);
    let s =
        |fp| BloomSpecification::for_fp_chance(fp).map(|s| (s.hash_count, s.buckets_per_element));
    assert_eq!(s(0.1), Some((3, 5)));
    assert_eq!(s(0.01), Some((5, 10)));
    assert_eq!(s(0.001), Some((7, 15)));
    assert_eq!(s(0.0001), Some((10, 20)));
    assert_eq!(s(0.5), Some((2, 1)));
    assert_eq!(s(1.0), None);
    assert_eq!(s(1e-6), None);
    assert_eq!(s(f64::NAN), None);
    let spec = BloomSpecification::for_fp_chance(0.01).unwrap();
    assert_eq!(spec.fp_rate, 0.00943);
    // The BloomFilter1000 fixtures: 1,000,000 keys at 0.0001 → 312,501 words.
    let spec = BloomSpecification::for_fp_chance(0.0001).unwrap();
    assert_eq!(spec.bitset_size_bits(1_000_000), 312_501 * 64);
    // The legacy tables: 5 keys at 0.01 → 70 bits → 2 words.
    assert_eq!(
        BloomSpecification::for_fp_chance(0.01)
            .unwrap()
            .bitset_size_bits(5),
        128
    );
}
