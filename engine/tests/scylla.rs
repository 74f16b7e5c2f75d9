//! Scylla.db built byte by byte from ScyllaDB's documented layout (there are no Scylla fixtures):
//! `docs/dev/sstable-scylla-format.md` and `sstables/types.hh`, all integers big-endian.

use sstable_engine::component::scylla::{self, tag, ScyllaValue, Uuid, FEATURE_NAMES};
use sstable_engine::span::Span;

/// Appends big-endian integers and u32-length strings.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn uuid(&mut self, u: Uuid) -> &mut Self {
        self.u64(u.msb).u64(u.lsb)
    }
    fn string32(&mut self, s: &str) -> &mut Self {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    /// A Murmur3 token bound: exclusive flag, u16 length 8, the i64 big-endian.
    fn token_bound(&mut self, exclusive: bool, token: i64) -> &mut Self {
        self.u8(u8::from(exclusive)).u16(8);
        self.0.extend_from_slice(&token.to_be_bytes());
        self
    }
    /// A (tag, size, body) subcomponent.
    fn entry(&mut self, tag: u32, body: &Bytes) -> &mut Self {
        self.u32(tag).u32(body.0.len() as u32);
        self.0.extend_from_slice(&body.0);
        self
    }
}

const RUN_ID: Uuid = Uuid {
    msb: 0x6d1c_4c60_3b70_11ef,
    lsb: 0x9a2e_4a1b_6f2c_0d01,
};
const SSTABLE_ID: Uuid = Uuid {
    msb: 0x3b2a_1900_5cde_11f0,
    lsb: 0xbeaf_3829_db28_2c74,
};
const TABLE_ID: Uuid = Uuid {
    msb: 0x5a1c_395e_b5fd_11e9,
    lsb: 0x8a8f_1d3a_7ef0_42ab,
};
const SCHEMA_VERSION: Uuid = Uuid {
    msb: 0x0f2d_4b1c_aa00_3a61,
    lsb: 0x8b1d_9c3e_2d7f_1c00,
};

/// A Scylla.db like ScyllaDB 2025.x writes for an `me` sstable, every documented tag included.
fn full_file(with_digest_tag: bool) -> Vec<u8> {
    let mut sharding = Bytes::default();
    sharding
        .u32(2)
        .token_bound(false, -9_223_372_036_854_775_807)
        .token_bound(true, -4_611_686_018_427_387_904)
        .token_bound(false, 1_000)
        .token_bound(false, 9_223_372_036_854_775_807);
    let mut features = Bytes::default();
    features.u64(0x7f | (1 << 9));
    let mut ext = Bytes::default();
    ext.u32(1)
        .string32("scylla_encryption_options")
        .string32("{}");
    let mut run = Bytes::default();
    run.uuid(RUN_ID);
    let mut large = Bytes::default();
    large.u32(2);
    large.u32(1).u64(10_485_760).u64(1_048_576_000).u32(0); // partition_size
    large.u32(4).u64(50).u64(100_000).u32(0); // rows_in_partition
    let mut origin = Bytes::default();
    origin.string32("memtable");
    let mut build_id = Bytes::default();
    build_id.string32("9b3d0c56a5a6e1c8d7f4c2b1a0e9d8c7b6a5f4e3");
    let mut version = Bytes::default();
    version.string32("2025.1.2-0.20250412.3b8f6b2c1a0e");
    let mut ts = Bytes::default();
    ts.u32(2);
    ts.u32(1).u64(1_722_000_000_000_000);
    ts.u32(2).u64(1_722_000_000_000_001);
    let mut identifier = Bytes::default();
    identifier.uuid(SSTABLE_ID);
    let mut schema = Bytes::default();
    schema
        .uuid(TABLE_ID)
        .uuid(SCHEMA_VERSION)
        .string32("ks")
        .string32("tbl")
        .u32(3);
    schema
        .u8(1)
        .string32("pk")
        .string32("org.apache.cassandra.db.marshal.Int32Type");
    schema
        .u8(2)
        .string32("ck")
        .string32("org.apache.cassandra.db.marshal.UTF8Type");
    schema
        .u8(4)
        .string32("v")
        .string32("org.apache.cassandra.db.marshal.BytesType");
    let mut digests = Bytes::default();
    digests.u32(2);
    digests.u32(2).u32(0xdead_beef); // Data
    digests.u32(7).u32(12_345); // Filter

    let mut file = Bytes::default();
    file.u32(if with_digest_tag { 12 } else { 11 });
    file.entry(tag::SHARDING, &sharding)
        .entry(tag::FEATURES, &features)
        .entry(tag::EXTENSION_ATTRIBUTES, &ext)
        .entry(tag::RUN_IDENTIFIER, &run)
        .entry(tag::LARGE_DATA_STATS, &large)
        .entry(tag::SSTABLE_ORIGIN, &origin)
        .entry(tag::SCYLLA_BUILD_ID, &build_id)
        .entry(tag::SCYLLA_VERSION, &version)
        .entry(tag::EXT_TIMESTAMP_STATS, &ts)
        .entry(tag::SSTABLE_IDENTIFIER, &identifier)
        .entry(tag::SCHEMA, &schema);
    if with_digest_tag {
        file.entry(tag::COMPONENTS_DIGESTS, &digests);
        let crc = crc32fast::hash(&file.0);
        file.u32(crc);
    }
    file.0
}

#[test]
fn every_documented_tag_decodes() {
    let bytes = full_file(true);
    let m = scylla::decode(&bytes).unwrap();
    assert_eq!(m.count.value, 12);
    assert_eq!(m.count.span, Span::new(0, 4));
    assert!(m.findings.is_empty(), "{:?}", m.findings);
    let tags: Vec<u32> = m.entries.iter().map(|e| e.tag.value).collect();
    assert_eq!(tags, (1..=12).collect::<Vec<_>>());

    // Tag 1 starts at 4: tag 4..8, size 8..12, body 12.., range count 12..16, first bound at 16.
    let ScyllaValue::Sharding(ranges) = &m.entries[0].value else {
        panic!("{:?}", m.entries[0])
    };
    assert_eq!(m.entries[0].size.value, 4 + 2 * 2 * 11);
    assert_eq!(ranges.len(), 2);
    assert_eq!(
        ranges[0].left.long_token(),
        Some(-9_223_372_036_854_775_807)
    );
    assert!(ranges[0].right.exclusive.value);
    assert_eq!(ranges[0].left.exclusive.span, Span::new(16, 17));
    assert_eq!(ranges[0].left.token.span, Span::new(17, 27));
    assert_eq!(
        ranges[0].describe(),
        "[-9223372036854775807, -4611686018427387904)"
    );
    assert_eq!(ranges[1].describe(), "[1000, 9223372036854775807]");

    let Some(ScyllaValue::Features(f)) = m.get(tag::FEATURES) else {
        panic!()
    };
    let mut want: Vec<String> = FEATURE_NAMES.iter().map(|s| s.to_string()).collect();
    want.push("bit 9".to_owned());
    assert_eq!(f.names, want);

    let Some(ScyllaValue::ExtensionAttributes(a)) = m.get(tag::EXTENSION_ATTRIBUTES) else {
        panic!()
    };
    assert_eq!(a[0].key.value, "scylla_encryption_options");
    assert_eq!(a[0].value.value, "{}");

    let Some(ScyllaValue::RunIdentifier(run)) = m.get(tag::RUN_IDENTIFIER) else {
        panic!()
    };
    assert_eq!(run.value, RUN_ID);
    assert_eq!(
        run.value.to_string(),
        "6d1c4c60-3b70-11ef-9a2e-4a1b6f2c0d01"
    );
    assert_eq!(run.span.len_bytes(), 16);

    let Some(ScyllaValue::LargeDataStats(stats)) = m.get(tag::LARGE_DATA_STATS) else {
        panic!()
    };
    assert_eq!(stats.len(), 2);
    assert_eq!(stats[0].kind_name, "partition_size");
    assert_eq!(stats[0].max_value.value, 10_485_760);
    assert_eq!(stats[0].threshold.value, 1_048_576_000);
    assert_eq!(stats[1].kind_name, "rows_in_partition");
    assert_eq!(stats[1].span.len_bytes(), 24);

    let text = |t| match m.get(t) {
        Some(ScyllaValue::SstableOrigin(s))
        | Some(ScyllaValue::ScyllaBuildId(s))
        | Some(ScyllaValue::ScyllaVersion(s)) => s.value.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(text(tag::SSTABLE_ORIGIN), "memtable");
    assert_eq!(
        text(tag::SCYLLA_BUILD_ID),
        "9b3d0c56a5a6e1c8d7f4c2b1a0e9d8c7b6a5f4e3"
    );
    assert_eq!(
        text(tag::SCYLLA_VERSION),
        "2025.1.2-0.20250412.3b8f6b2c1a0e"
    );

    let Some(ScyllaValue::ExtTimestampStats(ts)) = m.get(tag::EXT_TIMESTAMP_STATS) else {
        panic!()
    };
    assert_eq!(ts[0].kind_name, "min_live_timestamp");
    assert_eq!(ts[1].kind_name, "min_live_row_marker_timestamp");
    assert_eq!(ts[1].value.value, 1_722_000_000_000_001);

    let Some(ScyllaValue::SstableIdentifier(id)) = m.get(tag::SSTABLE_IDENTIFIER) else {
        panic!()
    };
    assert_eq!(id.value.to_string(), "3b2a1900-5cde-11f0-beaf-3829db282c74");
    assert_eq!(id.value.version(), 1);

    let Some(ScyllaValue::Schema(s)) = m.get(tag::SCHEMA) else {
        panic!()
    };
    assert_eq!(
        (s.keyspace.value.as_str(), s.table.value.as_str()),
        ("ks", "tbl")
    );
    assert_eq!(s.table_id.value, TABLE_ID);
    assert_eq!(s.schema_version.value, SCHEMA_VERSION);
    let cols: Vec<(&str, &str)> = s
        .columns
        .iter()
        .map(|c| (c.name.value.as_str(), c.kind_name))
        .collect();
    assert_eq!(
        cols,
        [
            ("pk", "partition_key"),
            ("ck", "clustering_key"),
            ("v", "regular_column")
        ]
    );

    let Some(ScyllaValue::ComponentsDigests(d)) = m.get(tag::COMPONENTS_DIGESTS) else {
        panic!()
    };
    assert_eq!(
        (d[0].component_name, d[0].crc32.value),
        ("Data", 0xdead_beef)
    );
    assert_eq!((d[1].component_name, d[1].crc32.value), ("Filter", 12_345));

    // The trailing CRC32 covers every byte before it.
    let digest = m.digest.as_ref().unwrap();
    let len = bytes.len() as u64;
    assert_eq!(digest.stored_crc32.span, Span::new(len - 4, len));
    assert!(digest.matches);
    assert_eq!(
        digest.computed_crc32,
        crc32fast::hash(&bytes[..bytes.len() - 4])
    );

    // Entries tile the file: each starts where the previous ended.
    let mut at = 4;
    for e in &m.entries {
        assert_eq!(e.span().start, at);
        assert_eq!(e.body_span.len_bytes(), u64::from(e.size.value));
        at = e.span().end;
    }
    assert_eq!(at, len - 4);

    let node = m.to_node();
    assert_eq!(node.span, Some(Span::new(0, len)));
    assert_eq!(node.children.len(), 1 + 12 + 1);
    let origin_entry = &m.entries[5];
    assert_eq!(
        node.find_at(origin_entry.body_span.end - 1)
            .map(|n| n.label.as_str()),
        Some("string")
    );
    let json = serde_json::to_value(&m).unwrap();
    assert_eq!(json["entries"][5]["value"]["kind"], "sstable_origin");
    assert_eq!(
        json["entries"][3]["value"]["value"]["value"],
        "6d1c4c60-3b70-11ef-9a2e-4a1b6f2c0d01"
    );
}

#[test]
fn without_tag_12_there_is_no_digest() {
    let bytes = full_file(false);
    let m = scylla::decode(&bytes).unwrap();
    assert_eq!(m.entries.len(), 11);
    assert!(m.digest.is_none());
    assert!(m.findings.is_empty());
}

#[test]
fn a_wrong_digest_is_a_finding_not_an_error() {
    let mut bytes = full_file(true);
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let m = scylla::decode(&bytes).unwrap();
    assert!(!m.digest.unwrap().matches);
}

#[test]
fn repeated_and_unknown_tags() {
    let mut origin_a = Bytes::default();
    origin_a.string32("memtable");
    let mut origin_b = Bytes::default();
    origin_b.string32("compaction");
    let mut future = Bytes::default();
    future.u64(42).u8(7);
    let mut file = Bytes::default();
    file.u32(3)
        .entry(tag::SSTABLE_ORIGIN, &origin_a)
        .entry(77, &future)
        .entry(tag::SSTABLE_ORIGIN, &origin_b);
    let m = scylla::decode(&file.0).unwrap();
    // ScyllaDB keeps the first of two equal tags.
    let Some(ScyllaValue::SstableOrigin(s)) = m.get(tag::SSTABLE_ORIGIN) else {
        panic!()
    };
    assert_eq!(s.value, "memtable");
    assert_eq!(m.entries[1].value, ScyllaValue::Unknown);
    assert_eq!(m.entries[1].body_span, Span::new(32, 41));
    assert_eq!(m.findings.len(), 1);
    assert!(m.findings[0].value.contains("appears again"));
}

#[test]
fn truncations_and_byte_flips_never_panic() {
    for with_digest in [true, false] {
        let bytes = full_file(with_digest);
        for len in 0..bytes.len() {
            // Every proper prefix is missing at least one byte of some entry (or the digest).
            let e = scylla::decode(&bytes[..len]).unwrap_err();
            assert!(e.offset() <= len as u64, "{e}");
        }
        for i in 0..bytes.len() {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut flipped = bytes.clone();
                flipped[i] ^= mask;
                if let Ok(m) = scylla::decode(&flipped) {
                    let _ = m.to_node();
                    let _ = serde_json::to_string(&m).unwrap();
                }
            }
        }
    }
}
