//! Filter.db and serialized BloomFilters from the real fixtures (MANIFEST.md §2, §3, §6).

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sstable_engine::component::filter::{
    self, BloomFilter, BloomSpecification, FilterFormat, HEADER_SIZE_BYTES,
};
use sstable_engine::hash::murmur3_token;
use sstable_engine::span::Span;
use sstable_engine::{Format, Version};

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn int_key(i: i32) -> [u8; 4] {
    i.to_be_bytes()
}

fn present_ints(bf: &BloomFilter, range: std::ops::Range<i32>) -> usize {
    range.filter(|&i| bf.contains(&int_key(i))).count()
}

/// The bit indexes a set of keys sets, and the set bits of the filter: equal when the filter was
/// built from exactly those keys in the format it is read with.
fn bits_of_keys(bf: &BloomFilter, keys: &[Vec<u8>]) -> (BTreeSet<u64>, BTreeSet<u64>) {
    let from_keys = keys.iter().flat_map(|k| bf.header.bit_indexes(k)).collect();
    let set = (0..bf.bitset_size_bits())
        .filter(|&i| bf.is_bit_set(i))
        .collect();
    (from_keys, set)
}

fn big(v: &str) -> Version {
    Version::parse(Format::Big, v).unwrap()
}

#[test]
fn murmur3_token_check_value() {
    assert_eq!(murmur3_token(&int_key(0)), -3485513579396041028);
}

fn bloom_filter_1000(version_dir: &str, format: FilterFormat, version: Version) {
    let Some(fx) = common::cassandra_fixtures("filter::bloom_filter_1000") else {
        return;
    };
    let path = fx
        .join("other/serialization")
        .join(version_dir)
        .join("utils.BloomFilter1000.bin");
    let bytes = read(&path);
    assert_eq!(bytes.len(), 2_500_016);
    let bf = filter::decode(&bytes, &version).unwrap();
    assert_eq!(bf.format(), format);
    // 1,000,000 keys at FP chance 0.0001: k = 10, 20 bits per key + 20 → 312,501 words.
    assert_eq!(bf.hash_count(), 10);
    assert_eq!(bf.word_count(), 312_501);
    assert_eq!(bf.bitset_size_bits(), 20_000_064);
    assert_eq!(bf.header.bitset_span, Span::new(8, 2_500_016));
    let spec = BloomSpecification::for_fp_chance(0.0001).unwrap();
    assert_eq!(
        (spec.hash_count, spec.bitset_size_bits(1_000_000)),
        (10, 20_000_064)
    );
    // 1000 keys × 10 probes, 3 collisions.
    assert_eq!(bf.bits_set, 9_997);
    assert!(bf.findings.is_empty(), "{:?}", bf.findings);
    // Keys 0..999 present, and exactly 1000 of 1000..1999 absent (no false positive).
    assert_eq!(present_ints(&bf, 0..1000), 1000);
    assert_eq!(1000 - present_ints(&bf, 1000..2000), 1000);
    let keys: Vec<Vec<u8>> = (0..1000).map(|i| int_key(i).to_vec()).collect();
    let (from_keys, set) = bits_of_keys(&bf, &keys);
    assert_eq!(from_keys, set);
    let estimate = bf.estimated_key_count().unwrap();
    assert!((estimate - 1000.0).abs() < 1.0, "{estimate}");
    // Negative control: every other format finds none of the 1000 keys.
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    for m in bf.format_survey(&refs) {
        let want = if m.format == format { 1000 } else { 0 };
        assert_eq!(m.keys_present, want, "{:?}", m.format);
    }
}

#[test]
fn bloom_filter_1000_from_3_0_uses_old_bytes_and_new_hash_order() {
    // Written by 3.0 (old byte format); read by trunk with oldBfFormat = true and the 3.0+ order.
    bloom_filter_1000("3.0", FilterFormat::LEGACY_3_0, big("ma"));
}

#[test]
fn bloom_filter_1000_from_4_0_uses_the_current_format() {
    bloom_filter_1000("4.0", FilterFormat::CURRENT, big("na"));
}

fn bloom_filter_table(dir: &str, file: &str) -> Option<BloomFilter> {
    let fx = common::cassandra_fixtures("filter::bloom_filter_table")?;
    let bytes = read(&fx.join("other/bloom-filter").join(dir).join(file));
    assert_eq!(bytes.len(), 24);
    let bf = filter::decode_with(&bytes, FilterFormat::LEGACY_2_X).unwrap();
    assert_eq!((bf.hash_count(), bf.word_count()), (5, 2));
    Some(bf)
}

/// Cassandra's own check: keys 11..=1,000,010 as the FP sample.
fn false_positives(bf: &BloomFilter) -> usize {
    present_ints(bf, 11..1_000_011)
}

#[test]
fn bloom_filter_ka_holds_int_keys_1_to_10() {
    let Some(bf) = bloom_filter_table("ka/foo", "foo-atable-ka-1-Filter.db") else {
        return;
    };
    let bf = bf.with_format(FilterFormat::for_version(&big("ka")));
    assert_eq!(bf.format(), FilterFormat::LEGACY_2_X);
    assert_eq!(bf.bits_set, 42);
    assert_eq!(present_ints(&bf, 1..11), 10);
    let keys: Vec<Vec<u8>> = (1..11).map(|i| int_key(i).to_vec()).collect();
    let (from_keys, set) = bits_of_keys(&bf, &keys);
    assert_eq!(from_keys, set);
    let fp = false_positives(&bf);
    assert_eq!(fp, 4_968);
    assert!(fp as f64 / 1e6 <= 0.011);
    // Negative control: the other hash order or byte format loses the keys.
    for format in FilterFormat::ALL {
        if format != FilterFormat::LEGACY_2_X {
            assert_eq!(
                present_ints(&bf.with_format(format), 1..11),
                0,
                "{format:?}"
            );
        }
    }
}

#[test]
fn bloom_filter_la_uses_the_3_0_hash_order() {
    // Cassandra's 3.0 SerializationsTest reads this file with oldBfHashOrder = false: it was
    // written by a 3.0 development build that still named its files `la`.
    let Some(bf) = bloom_filter_table("la/foo", "la-1-big-Filter.db") else {
        return;
    };
    let as_version = bf.with_format(FilterFormat::for_version(&big("la")));
    assert_eq!(present_ints(&as_version, 1..11), 1);
    let bf = bf.with_format(FilterFormat::LEGACY_3_0);
    assert_eq!(bf.bits_set, 44);
    assert_eq!(present_ints(&bf, 1..11), 10);
    let keys: Vec<Vec<u8>> = (1..11).map(|i| int_key(i).to_vec()).collect();
    let (from_keys, set) = bits_of_keys(&bf, &keys);
    assert_eq!(from_keys, set);
    let fp = false_positives(&bf);
    assert_eq!(fp, 10_211);
    assert!(fp as f64 / 1e6 <= 0.011);
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let full: Vec<FilterFormat> = bf
        .format_survey(&refs)
        .into_iter()
        .filter(|m| m.keys_present == 10)
        .map(|m| m.format)
        .collect();
    assert_eq!(full, [FilterFormat::LEGACY_3_0]);
}

const VERSIONS: [&str; 12] = [
    "ka", "la", "ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da",
];

/// (table, Filter.db path) for the generated legacy tables of `v` (MANIFEST.md §3).
fn legacy_filters(fx: &Path, v: &str) -> Vec<(String, PathBuf)> {
    let mut kinds = vec!["simple", "simple_counter", "clust", "clust_counter"];
    if ["ka", "la", "ma", "mb", "mc", "md", "me", "na"].contains(&v) {
        kinds.extend([
            "simple_compact",
            "simple_counter_compact",
            "clust_compact",
            "clust_counter_compact",
        ]);
    }
    kinds
        .into_iter()
        .map(|kind| {
            let table = format!("legacy_{v}_{kind}");
            let dir = common::legacy_dir(fx, v, &table);
            let file = match v {
                "ka" => format!("legacy_tables-{table}-ka-1-Filter.db"),
                "da" => "da-1-bti-Filter.db".to_owned(),
                _ => format!("{v}-1-big-Filter.db"),
            };
            (table, dir.join(file))
        })
        .collect()
}

#[test]
fn every_legacy_table_holds_keys_0_to_4() {
    let Some(fx) = common::cassandra_fixtures("filter::every_legacy_table") else {
        return;
    };
    let keys: Vec<Vec<u8>> = (0..5).map(|i| i.to_string().into_bytes()).collect();
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let mut checked = 0;
    for v in VERSIONS {
        let version = if v == "da" {
            Version::parse(Format::Bti, v).unwrap()
        } else {
            big(v)
        };
        for (table, path) in legacy_filters(&fx, v) {
            let bytes = read(&path);
            let by_version = filter::decode(&bytes, &version).unwrap();
            // 5 keys at FP chance 0.01: k = 5, 5·10 + 20 bits → 2 words.
            assert_eq!(
                (by_version.hash_count(), by_version.bitset_size_bits()),
                (
                    5,
                    BloomSpecification::for_fp_chance(0.01)
                        .unwrap()
                        .bitset_size_bits(5)
                ),
                "{table}"
            );
            assert_eq!(by_version.file_size_bytes, HEADER_SIZE_BYTES + 16);
            // The early pre-release `na` compact tables keep the old byte format (format doc §3.4).
            let actual = if v == "na" && table.ends_with("_compact") {
                assert_eq!(by_version.count_present(refs.iter().copied()), 0, "{table}");
                FilterFormat::LEGACY_3_0
            } else {
                FilterFormat::for_version(&version)
            };
            let bf = by_version.with_format(actual);
            assert_eq!(bf.count_present(refs.iter().copied()), 5, "{table}");
            let (from_keys, set) = bits_of_keys(&bf, &keys);
            assert_eq!(from_keys, set, "{table}");
            // Negative control: a wrong byte format or hash order finds none of the keys.
            for m in bf.format_survey(&refs) {
                let want = if m.format == actual { 5 } else { 0 };
                assert_eq!(m.keys_present, want, "{table} {:?}", m.format);
            }
            checked += 1;
        }
    }
    // 8 tables for ka…na (8 versions), 4 for nb, nc, oa, da.
    assert_eq!(checked, 8 * 8 + 4 * 4);
}

#[test]
fn probe_and_tree_of_a_real_filter() {
    let Some(fx) = common::cassandra_fixtures("filter::probe_and_tree") else {
        return;
    };
    let path = common::legacy_dir(&fx, "nb", "legacy_nb_simple").join("nb-1-big-Filter.db");
    let bytes = read(&path);
    let bf = filter::decode(&bytes, &big("nb")).unwrap();
    assert_eq!(bf.bits_set, 20);
    let probe = bf.might_contain(b"3");
    assert!(probe.maybe_present);
    assert_eq!(probe.bits, [true; 5]);
    for (&bit, &offset) in probe.bit_indexes.iter().zip(&probe.byte_offsets) {
        assert!(bit < 128);
        // New format: byte ⌊bit/8⌋ of the bitset, which starts at offset 8.
        assert_eq!(offset, 8 + bit / 8);
        assert_ne!(bytes[offset as usize] & (1 << (bit & 7)), 0);
    }
    let probe = bf.might_contain(b"5");
    assert_eq!(probe.maybe_present, probe.bits.iter().all(|&b| b));
    let node = bf.to_node();
    assert_eq!(node.span, Some(Span::new(0, 24)));
    assert_eq!(
        node.find_at(2).map(|n| n.label.as_str()),
        Some("hash count")
    );
    assert_eq!(node.find_at(20).map(|n| n.label.as_str()), Some("bitset"));
    let json = serde_json::to_value(&bf).unwrap();
    assert_eq!(json["bits_set"], 20);
    assert!(json.get("bitset").is_none());
}

/// Every truncation and single-byte change of a small real Filter.db decodes or errs, never panics.
#[test]
fn truncations_and_byte_flips_never_panic() {
    let Some(fx) = common::cassandra_fixtures("filter::robustness") else {
        return;
    };
    let files = [
        common::legacy_dir(&fx, "nb", "legacy_nb_simple").join("nb-1-big-Filter.db"),
        fx.join("other/bloom-filter/ka/foo/foo-atable-ka-1-Filter.db"),
    ];
    let exercise = |data: &[u8]| {
        for format in FilterFormat::ALL {
            if let Ok(bf) = filter::decode_with(data, format) {
                let _ = bf.might_contain(b"0");
                let _ = bf.contains(&int_key(7));
                let _ = bf.to_node();
                let _ = bf.expected_fp_rate(5);
                let _ = bf.estimated_key_count();
            }
            if let Ok(h) = filter::decode_header(data, format) {
                let _ = h.probe_byte_offsets(b"1");
            }
        }
    };
    for path in files {
        let bytes = read(&path);
        for len in 0..bytes.len() {
            let e = filter::decode_with(&bytes[..len], FilterFormat::CURRENT).unwrap_err();
            assert!(e.offset() <= len as u64, "{e}");
            exercise(&bytes[..len]);
        }
        for i in 0..bytes.len() {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut flipped = bytes.clone();
                flipped[i] ^= mask;
                exercise(&flipped);
            }
        }
    }
}
