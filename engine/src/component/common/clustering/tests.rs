use super::*;
use crate::error::ErrorKind;
use crate::types::AbstractType;
use crate::version::{Format, Version};
use crate::write::data::DataEncoder;
use crate::write::schema::PrefixKind;
use crate::write::{EncodingStats, TableSchema};

fn encoder(clustering: Vec<AbstractType>) -> DataEncoder {
    let schema = TableSchema::new(vec![AbstractType::Int32], clustering, vec![], vec![]).unwrap();
    DataEncoder::new(
        schema,
        Version::parse(Format::Big, "nb").unwrap(),
        EncodingStats::NO_STATS,
    )
}

fn present<'a>(p: &ClusteringPrefix<'a>) -> Vec<(ClusteringValueState, &'a [u8])> {
    p.values().map(|v| (v.state, v.bytes)).collect()
}

#[test]
fn row_clustering_round_trips_with_borrowed_values_and_spans() {
    let types = vec![AbstractType::Int32, AbstractType::Utf8];
    let enc = encoder(types.clone());
    let mut out = Vec::new();
    enc.write_clustering_values(&mut out, &[7i32.to_be_bytes().to_vec(), b"abc".to_vec()])
        .unwrap();
    // header 0, 4 fixed bytes, vint 3 + "abc".
    assert_eq!(out, [0, 0, 0, 0, 7, 3, b'a', b'b', b'c']);
    let fixed = fixed_value_lengths(&types);
    assert_eq!(fixed, [Some(4), None]);
    let mut r = Reader::new(&out, 1000);
    let c = ClusteringPrefix::read_clustering(&mut r, ClusteringLayout::new(&fixed), "t").unwrap();
    assert!(r.is_empty());
    assert_eq!(c.kind, ClusteringPrefixKind::Clustering);
    assert_eq!(c.kind_span, None);
    assert_eq!(c.size, None);
    assert_eq!(c.span, Span::new(1000, 1009));
    assert_eq!(c.len(), 2);
    let values: Vec<_> = c.values().collect();
    assert_eq!(values[0].bytes, 7i32.to_be_bytes());
    assert_eq!(values[0].span, Span::new(1001, 1005));
    assert_eq!(values[1].bytes, b"abc");
    assert_eq!(values[1].span, Span::new(1005, 1009));
    // The bytes are views into the input, not copies.
    assert!(core::ptr::eq(values[1].bytes.as_ptr(), out[6..].as_ptr()));
    let headers: Vec<_> = c.headers().collect();
    assert_eq!(
        headers,
        [Spanned {
            value: 0,
            span: Span::new(1000, 1001)
        }]
    );
    let owned = c.to_owned();
    assert_eq!(owned.values.len(), 2);
    assert_eq!(owned.values[1].bytes, b"abc");
    assert_eq!(owned.headers, headers);
    assert_eq!(
        serde_json::to_value(&owned.values[1]).unwrap()["bytes"],
        "616263"
    );
}

#[test]
fn empty_values_and_more_than_32_values_use_one_header_per_batch() {
    // 33 int columns; the writer marks empty values with the empty bit.
    let types = vec![AbstractType::Int32; 33];
    let enc = encoder(types.clone());
    let values: Vec<Vec<u8>> = (0..33i32)
        .map(|i| {
            if i == 1 || i == 32 {
                Vec::new()
            } else {
                i.to_be_bytes().to_vec()
            }
        })
        .collect();
    let mut out = Vec::new();
    enc.write_clustering_values(&mut out, &values).unwrap();
    let fixed = fixed_value_lengths(&types);
    let mut r = Reader::new(&out, 0);
    let c = ClusteringPrefix::read_clustering(&mut r, ClusteringLayout::new(&fixed), "t").unwrap();
    assert!(r.is_empty());
    let headers: Vec<_> = c.headers().collect();
    assert_eq!(headers.len(), 2);
    assert_eq!(headers[0].value, 1 << 2);
    assert_eq!(headers[1].value, 1);
    let end = out.len() as u64;
    assert_eq!(headers[1].span, Span::new(end - 1, end));
    let got = present(&c);
    assert_eq!(got.len(), 33);
    for (i, (state, bytes)) in got.iter().enumerate() {
        if i == 1 || i == 32 {
            assert_eq!(*state, ClusteringValueState::Empty, "value {i}");
            assert!(bytes.is_empty());
        } else {
            assert_eq!(*state, ClusteringValueState::Present, "value {i}");
            assert_eq!(*bytes, (i as i32).to_be_bytes(), "value {i}");
        }
    }
    // The empty value 32 sits after the second header, zero-length.
    let last = c.values().last().unwrap();
    assert_eq!(last.index, 32);
    assert_eq!(last.span, Span::new(end, end));
}

#[test]
fn null_is_tested_before_empty() {
    // Two text columns: value 0 null (bit 1) and empty (bit 0) both set → null; value 1
    // empty (bit 2).
    let fixed = [None, None];
    let b = [0x07];
    let c = ClusteringPrefix::read_clustering(
        &mut Reader::new(&b, 0),
        ClusteringLayout::new(&fixed),
        "t",
    )
    .unwrap();
    assert_eq!(
        present(&c),
        [
            (ClusteringValueState::Null, &[][..]),
            (ClusteringValueState::Empty, &[][..])
        ]
    );
}

#[test]
fn marker_bounds_round_trip_and_kinds_are_checked() {
    let types = vec![AbstractType::Int32, AbstractType::Utf8];
    let enc = encoder(types.clone());
    let fixed = fixed_value_lengths(&types);
    let layout = ClusteringLayout::new(&fixed);
    for kind in [
        PrefixKind::ExclEndBound,
        PrefixKind::InclStartBound,
        PrefixKind::ExclEndInclStartBoundary,
        PrefixKind::InclEndExclStartBoundary,
        PrefixKind::InclEndBound,
        PrefixKind::ExclStartBound,
    ] {
        let mut out = Vec::new();
        enc.write_bound(&mut out, kind, &[5i32.to_be_bytes().to_vec()])
            .unwrap();
        let mut r = Reader::new(&out, 10);
        let b = ClusteringPrefix::read_bound_or_boundary(&mut r, layout, "t").unwrap();
        assert!(r.is_empty());
        assert_eq!(b.kind.ordinal(), kind.ordinal());
        assert_eq!(b.kind_span, Some(Span::new(10, 11)));
        assert_eq!(
            b.size.as_ref().map(|s| (s.value, s.span)),
            Some((1, Span::new(11, 13)))
        );
        assert_eq!(
            present(&b),
            [(ClusteringValueState::Present, &5i32.to_be_bytes()[..])]
        );
        // The same bytes as an IndexInfo prefix.
        let p = ClusteringPrefix::read_prefix(&mut Reader::new(&out, 10), layout, "t").unwrap();
        assert_eq!(p, b);
        // A Slice bound takes bounds, not boundaries.
        let slice = ClusteringPrefix::read_bound(&mut Reader::new(&out, 10), layout, "t");
        assert_eq!(slice.is_ok(), !b.kind.is_boundary(), "{}", b.kind.name());
    }
    // CLUSTERING (4) is no marker kind; STATIC_CLUSTERING (3) is never serialized; 8 and 9
    // exist only in memory; 12 is no kind.
    for ordinal in [3u8, 4, 8, 9, 12] {
        let e = ClusteringPrefix::read_bound_or_boundary(
            &mut Reader::new(&[ordinal, 0, 0], 50),
            layout,
            "t",
        )
        .unwrap_err();
        assert_eq!(e.offset(), 50);
        assert!(matches!(e.kind(), ErrorKind::InvalidValue(_)));
    }
    for ordinal in [3u8, 8, 9, 12] {
        assert!(
            ClusteringPrefix::read_prefix(&mut Reader::new(&[ordinal, 0, 0], 0), layout, "t")
                .is_err()
        );
    }
    assert_eq!(ClusteringPrefixKind::name_of_ordinal(12), "unknown kind");
    assert_eq!(ClusteringPrefixKind::InclEndBound.name(), "INCL_END_BOUND");
}

#[test]
fn index_prefix_clustering_kind_has_no_size() {
    let types = vec![AbstractType::Int32, AbstractType::Utf8];
    let enc = encoder(types.clone());
    let fixed = fixed_value_lengths(&types);
    let mut out = Vec::new();
    enc.write_index_prefix(
        &mut out,
        PrefixKind::Clustering,
        &[1i32.to_be_bytes().to_vec(), b"x".to_vec()],
    )
    .unwrap();
    let mut r = Reader::new(&out, 0);
    let p = ClusteringPrefix::read_prefix(&mut r, ClusteringLayout::new(&fixed), "t").unwrap();
    assert!(r.is_empty());
    assert_eq!(p.kind, ClusteringPrefixKind::Clustering);
    assert_eq!(p.size, None);
    assert_eq!(p.len(), 2);
    assert_eq!(p.to_owned().first_value(), Some(&1i32.to_be_bytes()[..]));
}

#[test]
fn sizes_caps_and_truncation_are_errors_with_offsets() {
    let fixed = [Some(4), None];
    let layout = ClusteringLayout::new(&fixed);
    // 3 values for 2 columns: the size field at offset 101 is named.
    let e =
        ClusteringPrefix::read_bound_or_boundary(&mut Reader::new(&[1, 0, 3, 0], 100), layout, "t")
            .unwrap_err();
    assert_eq!(e.offset(), 101);
    // A vint length above the cap is refused at the length's offset, before the bytes.
    let small = ClusteringLayout::new(&[None]).with_max_value_bytes(3);
    let e =
        ClusteringPrefix::read_clustering(&mut Reader::new(&[0, 4, 1, 2, 3, 4], 20), small, "t")
            .unwrap_err();
    assert_eq!(e.offset(), 21);
    assert!(matches!(e.kind(), ErrorKind::InvalidValue(_)));
    let ok = ClusteringPrefix::read_clustering(&mut Reader::new(&[0, 3, 1, 2, 3], 20), small, "t")
        .unwrap();
    assert_eq!(
        present(&ok),
        [(ClusteringValueState::Present, &[1u8, 2, 3][..])]
    );
    // Truncated fixed value: 2 of 4 bytes at offset 1.
    let e = ClusteringPrefix::read_clustering(&mut Reader::new(&[0, 9, 9], 0), layout, "t")
        .unwrap_err();
    assert_eq!(e.offset(), 1);
    assert!(matches!(
        e.kind(),
        ErrorKind::LengthTooLarge {
            length: 4,
            limit: 2
        }
    ));
    // Every truncation of a valid prefix is an error, never a panic.
    let full = [1u8, 0, 2, 0, 0, 0, 0, 7, 2, b'h', b'i'];
    assert!(
        ClusteringPrefix::read_bound_or_boundary(&mut Reader::new(&full, 0), layout, "t").is_ok()
    );
    for cut in 0..full.len() {
        assert!(
            ClusteringPrefix::read_bound_or_boundary(
                &mut Reader::new(&full[..cut], 0),
                layout,
                "t"
            )
            .is_err(),
            "cut at {cut}"
        );
    }
    // No clustering columns: nothing is read.
    let none = ClusteringPrefix::read_clustering(
        &mut Reader::new(&[0xff], 5),
        ClusteringLayout::new(&[]),
        "t",
    )
    .unwrap();
    assert!(none.is_empty() && none.span == Span::new(5, 5));
}

/// The slice read of the row decoder's fast path: the same prefix as the checked read at an
/// offset inside a longer slice, and `None` exactly where the checked read fails.
#[test]
fn clustering_at_matches_the_checked_read_and_refuses_where_it_fails() {
    let types = vec![AbstractType::Int32, AbstractType::Utf8];
    let fixed = fixed_value_lengths(&types);
    let layout = ClusteringLayout::new(&fixed);
    // header 0, 4 fixed bytes, vint 3 + "abc", then a byte of what follows.
    let bytes = [0x55, 0, 0, 0, 0, 7, 3, b'a', b'b', b'c', 0x99];
    let mut at = 1;
    let fast = ClusteringPrefix::clustering_at(&bytes, 1000, &mut at, layout).unwrap();
    assert_eq!(at, 10);
    let mut r = Reader::new(&bytes, 1000);
    r.skip(1, "t").unwrap();
    let checked = ClusteringPrefix::read_clustering(&mut r, layout, "t").unwrap();
    assert_eq!(fast, checked);
    assert_eq!(fast.span, Span::new(1001, 1010));
    assert_eq!(
        present(&fast)[1],
        (ClusteringValueState::Present, &b"abc"[..])
    );
    // Null second value (header bit 3), empty first value (bit 0): only the header is stored.
    let mut at = 0;
    let nulls = ClusteringPrefix::clustering_at(&[0b1001], 0, &mut at, layout).unwrap();
    assert_eq!(at, 1);
    assert_eq!(
        present(&nulls),
        [
            (ClusteringValueState::Empty, &[][..]),
            (ClusteringValueState::Null, &[][..])
        ]
    );
    // Every cut of the encoding, and a text length above the cap: `None`, and the checked read
    // fails too.
    for cut in 1..10 {
        let short = &bytes[..cut];
        let mut at = 1;
        assert!(ClusteringPrefix::clustering_at(short, 0, &mut at, layout).is_none());
        assert_eq!(at, 1, "cut {cut}: `at` moves only on success");
        let mut r = Reader::new(short, 0);
        let _ = r.skip(1, "t");
        assert!(ClusteringPrefix::read_clustering(&mut r, layout, "t").is_err());
    }
    let capped = layout.with_max_value_bytes(2);
    let mut at = 1;
    assert!(ClusteringPrefix::clustering_at(&bytes, 0, &mut at, capped).is_none());
    let mut r = Reader::new(&bytes[1..], 1);
    assert!(ClusteringPrefix::read_clustering(&mut r, capped, "t").is_err());
}
