//! Tests of STATS decoding on components built by hand, one per layout.

use super::clustering::{bound_node, clustering_fixed_lengths};
use super::*;
use crate::component::common::{ClusteringLayout, ClusteringPrefix, ClusteringValueState};

/// An oa STATS body: one tombstone bin (new layout), a pending repair, an Int32 clustering.
fn oa_stats_bytes(cut_after_level: bool) -> Vec<u8> {
    let mut b = Vec::new();
    for _ in 0..2 {
        // Histogram with offsets [1], buckets [3, 0].
        b.extend_from_slice(&2i32.to_be_bytes());
        for (o, c) in [(1i64, 3i64), (1, 0)] {
            b.extend_from_slice(&o.to_be_bytes());
            b.extend_from_slice(&c.to_be_bytes());
        }
    }
    b.extend_from_slice(&(-1i64).to_be_bytes()); // upper bound NONE
    b.extend_from_slice(&0i32.to_be_bytes());
    b.extend_from_slice(&10i64.to_be_bytes()); // min timestamp
    b.extend_from_slice(&20i64.to_be_bytes()); // max timestamp
    b.extend_from_slice(&3_000_000_000u32.to_be_bytes()); // min ldt (past 2038)
    b.extend_from_slice(&u32::MAX.to_be_bytes()); // max ldt: none
    b.extend_from_slice(&5i32.to_be_bytes());
    b.extend_from_slice(&6i32.to_be_bytes());
    b.extend_from_slice(&(-1f64).to_be_bytes());
    b.extend_from_slice(&1i32.to_be_bytes()); // max bin size
    b.extend_from_slice(&1i32.to_be_bytes()); // bins
    b.extend_from_slice(&3_000_000_000i64.to_be_bytes());
    b.extend_from_slice(&2i32.to_be_bytes());
    b.extend_from_slice(&0i32.to_be_bytes()); // level
    if cut_after_level {
        return b;
    }
    b.extend_from_slice(&0i64.to_be_bytes()); // repaired at
    let ty = b"org.apache.cassandra.db.marshal.Int32Type";
    b.push(1);
    b.push(ty.len() as u8);
    b.extend_from_slice(ty);
    b.extend_from_slice(&[1, 0, 1, 0, 0, 0, 0, 7]); // start: INCL_START [7]
    b.extend_from_slice(&[6, 0, 1, 0, 0, 0, 0, 9]); // end: INCL_END [9]
    b.push(0); // legacy counter shards
    b.extend_from_slice(&1i64.to_be_bytes());
    b.extend_from_slice(&1i64.to_be_bytes());
    b.extend_from_slice(&(-1i64).to_be_bytes()); // lower bound NONE
    b.extend_from_slice(&0i32.to_be_bytes());
    b.extend_from_slice(&0i32.to_be_bytes()); // no intervals
    b.push(1); // pending repair present
    b.extend_from_slice(&0x0011_2233_4455_6677u64.to_be_bytes());
    b.extend_from_slice(&0x8899_aabb_ccdd_eeffu64.to_be_bytes());
    b.push(1); // transient
    b.push(0); // no host id
    b.push(1); // partition deletions
    b.extend_from_slice(&[1, b'a', 2, b'z', b'z']);
    b.extend_from_slice(&0.5f64.to_be_bytes());
    b
}

#[test]
fn oa_stats_every_field() {
    let oa = Version::parse(Format::Big, "oa").unwrap();
    let bytes = oa_stats_bytes(false);
    let mut r = Reader::new(&bytes, 1000);
    let s = StatsMetadata::decode(&mut r, &oa).unwrap();
    assert!(r.is_empty());
    assert_eq!(s.span, Span::new(1000, 1000 + bytes.len() as u64));
    assert_eq!(s.estimated_partition_count, 3);
    assert!(s.commit_log_upper_bound.is_none());
    let min_ldt = s.min_local_deletion_time.as_ref().unwrap();
    assert_eq!(min_ldt.value.secs_if_set(), Some(3_000_000_000));
    assert_eq!(s.max_local_deletion_time.value.secs_if_set(), None);
    assert_eq!(s.min_ttl_secs.as_ref().map(|t| t.value), Some(5));
    let bins = &s.estimated_tombstone_drop_time.bins;
    assert_eq!(bins.len(), 1);
    assert_eq!(
        bins.first().map(|b| (b.point_secs, b.count)),
        Some((3_000_000_000, 2))
    );
    let cc = s.covered_clustering.as_ref().unwrap();
    assert_eq!(
        cc.start.values.first().map(|v| v.bytes.clone()),
        Some(vec![0, 0, 0, 7])
    );
    assert_eq!(
        cc.end.values.first().map(|v| v.bytes.clone()),
        Some(vec![0, 0, 0, 9])
    );
    assert!(s.min_clustering_values.is_none());
    let pending = s.pending_repair.as_ref().unwrap();
    assert_eq!(
        pending.uuid.as_ref().map(|u| u.value.as_str()),
        Some("00112233-4455-6677-8899-aabbccddeeff")
    );
    assert_eq!(s.is_transient.as_ref().map(|t| t.value), Some(true));
    assert!(s.originating_host_id.as_ref().unwrap().uuid.is_none());
    assert_eq!(
        s.has_partition_level_deletions.as_ref().map(|t| t.value),
        Some(true)
    );
    assert_eq!(
        s.first_key.as_ref().map(|k| k.bytes.clone()),
        Some(b"a".to_vec())
    );
    assert_eq!(
        s.last_key.as_ref().map(|k| k.bytes.clone()),
        Some(b"zz".to_vec())
    );
    assert_eq!(s.token_space_coverage.as_ref().map(|t| t.value), Some(0.5));
    assert!(s.missing_fields.is_empty());
    let node = s.to_node();
    assert!(node.find_at(1000 + bytes.len() as u64 - 1).is_some());
}

#[test]
fn a_stats_cut_before_required_fields_is_an_error() {
    let oa = Version::parse(Format::Big, "oa").unwrap();
    let bytes = oa_stats_bytes(true);
    let e = StatsMetadata::decode(&mut Reader::new(&bytes, 0), &oa).unwrap_err();
    assert_eq!(e.offset(), bytes.len() as u64);
    assert_eq!(e.what(), "STATS: repaired at");
}

#[test]
fn fixed_lengths_follow_the_type_strings() {
    let t = |s: &str| Spanned {
        value: s.to_owned(),
        span: Span::new(0, 0),
    };
    let deep = "ReversedType(".repeat(10_000) + "LongType" + &")".repeat(10_000);
    assert_eq!(
        clustering_fixed_lengths(&[
            t("org.apache.cassandra.db.marshal.Int32Type"),
            t("org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.TimeUUIDType)"),
            t("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 3)"),
            t("org.apache.cassandra.db.marshal.UTF8Type"),
            t("ShortType"),
            // Nesting past the parser's limit: treated as vint-length.
            t(&deep),
        ]),
        [Some(4), Some(16), Some(12), None, None, None]
    );
}

#[test]
fn covered_slice_bounds_use_header_bits() {
    let types: Vec<Spanned<String>> = ["Int32Type", "UTF8Type", "UTF8Type"]
        .iter()
        .map(|t| Spanned {
            value: (*t).to_owned(),
            span: Span::new(0, 0),
        })
        .collect();
    let fixed = clustering_fixed_lengths(&types);
    let layout = ClusteringLayout::new(&fixed);
    // kind 1, size 3, header: value 1 empty (bit 2), value 2 null (bit 5).
    let bytes = [1u8, 0, 3, 0x24, 0, 0, 0, 7];
    let mut r = Reader::new(&bytes, 50);
    let b = ClusteringPrefix::read_bound(&mut r, layout, "t")
        .unwrap()
        .to_owned();
    assert!(r.is_empty());
    assert_eq!(b.kind.ordinal(), 1);
    let states: Vec<_> = b.values.iter().map(|v| v.state).collect();
    assert_eq!(
        states,
        [
            ClusteringValueState::Present,
            ClusteringValueState::Empty,
            ClusteringValueState::Null
        ]
    );
    assert_eq!(b.first_value(), Some(&[0u8, 0, 0, 7][..]));
    assert_eq!(b.values.first().map(|v| v.span), Some(Span::new(54, 58)));
    let node = bound_node("start", &b);
    assert_eq!(node.value, "INCL_START_BOUND with 3 values");
    // More values than types is an error.
    let bytes = [6u8, 0, 4, 0];
    assert!(ClusteringPrefix::read_bound(&mut Reader::new(&bytes, 0), layout, "t").is_err());
}

#[test]
fn deletion_times_signed_and_unsigned() {
    let bytes = 0x8000_0001u32.to_be_bytes();
    let t = LocalDeletionTime::decode(&mut Reader::new(&bytes, 0), false, "t").unwrap();
    assert_eq!(t.secs_if_set(), Some(i64::from(i32::MIN) + 1));
    let t = LocalDeletionTime::decode(&mut Reader::new(&bytes, 0), true, "t").unwrap();
    assert_eq!(t.secs_if_set(), Some(0x8000_0001));
    let none = i32::MAX.to_be_bytes();
    let t = LocalDeletionTime::decode(&mut Reader::new(&none, 0), false, "t").unwrap();
    assert_eq!(t.secs_if_set(), None);
    let none = u32::MAX.to_be_bytes();
    let t = LocalDeletionTime::decode(&mut Reader::new(&none, 0), true, "t").unwrap();
    assert_eq!(t.secs_if_set(), None);
}
