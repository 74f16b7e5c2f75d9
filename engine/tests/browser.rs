//! The engine inside headless Chromium (wasm-bindgen-test-runner): the same decoding as natively,
//! on `wasm32-unknown-unknown` where `usize` is 32 bits and there is no clock or file system.
#![cfg(target_arch = "wasm32")]

use sstable_engine::component::ComponentType;
use sstable_engine::descriptor::{parse_file_name, SSTableId};
use sstable_engine::reader::Reader;
use sstable_engine::sstable_set::group_files;
use sstable_engine::toc::{ComponentCheck, Toc};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn vints_and_lengths_behave_on_32_bit_usize() {
    let mut r = Reader::new(&[0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x81, 0x2c], 0);
    assert_eq!(r.unsigned_vint("v").unwrap(), 1 << 63);
    assert_eq!(r.unsigned_vint("v").unwrap(), 300);
    // A 2^63 length must be refused, not truncated to 32 bits.
    let mut r = Reader::new(&[0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2], 40);
    let e = r.vint_length_bytes("value").unwrap_err();
    assert_eq!(e.offset(), 49);
}

#[wasm_bindgen_test]
fn uuid_ids_decode_in_the_browser() {
    let (d, c) = parse_file_name("nb-3gsm_0lob_1zdg02we44my8dy25w-big-Data.db").unwrap();
    assert_eq!(c, ComponentType::Data);
    assert!(matches!(
        d.id,
        SSTableId::Uuid {
            unix_millis: 1_754_552_891_333,
            ..
        }
    ));
}

#[cfg(sstable_fixtures)]
#[wasm_bindgen_test]
fn real_nb_clust_toc_lists_eight_components() {
    const TOC: &[u8] = include_bytes!(concat!(
        env!("SSTABLE_FIXTURES_DIR"),
        "/legacy-sstables/nb/legacy_tables/legacy_nb_clust/nb-1-big-TOC.txt"
    ));
    let names = [
        "nb-1-big-CompressionInfo.db",
        "nb-1-big-Data.db",
        "nb-1-big-Digest.crc32",
        "nb-1-big-Filter.db",
        "nb-1-big-Index.db",
        "nb-1-big-Statistics.db",
        "nb-1-big-Summary.db",
        "nb-1-big-TOC.txt",
    ];
    let g = group_files(&names);
    assert_eq!(g.sstables.len(), 1);
    let s = &g.sstables[0];
    assert_eq!(
        (s.descriptor.version.as_str(), s.descriptor.format.name()),
        ("nb", "big")
    );
    let toc = Toc::parse(TOC);
    assert_eq!(toc.entries.len(), 8);
    let check = ComponentCheck::new(&s.components(), Some(&toc));
    assert!(
        check.missing.is_empty() && check.unlisted.is_empty(),
        "{check:?}"
    );
}

#[cfg(sstable_fixtures)]
mod nb_clust {
    use sstable_engine::clock::NoClock;
    use sstable_engine::component::data::{DataFileReader, DataItem, DataSchema, DecodeOptions};
    use sstable_engine::component::{ComponentType, DigestAlgorithm};
    use sstable_engine::descriptor::parse_file_name;
    use sstable_engine::info::{decode_metadata, ComponentInput, SSTableMetadata};
    use sstable_engine::types::value::format_value;
    use sstable_engine::verify::{Verifier, VerifyOptions};
    use wasm_bindgen_test::*;

    macro_rules! fixture {
        ($name:literal) => {
            include_bytes!(concat!(
                env!("SSTABLE_FIXTURES_DIR"),
                "/legacy-sstables/nb/legacy_tables/legacy_nb_clust/nb-1-big-",
                $name
            ))
        };
    }
    const DATA: &[u8] = fixture!("Data.db");
    const STATISTICS: &[u8] = fixture!("Statistics.db");
    const COMPRESSION: &[u8] = fixture!("CompressionInfo.db");
    const FILTER: &[u8] = fixture!("Filter.db");
    const DIGEST: &[u8] = fixture!("Digest.crc32");
    /// MANIFEST §3: the 128-character `val` of legacy_nb_clust.
    const VAL: &str = "lxvwpnwfbdpmayjujittwghygywemwpvlemfkutzstfbiednkferyifrvvauhpdowraebccylljbibrbolnnoifwjkspqzgjdihyknypyzricuymwknfitpvjmvpcxob";

    fn metadata() -> SSTableMetadata {
        let (descriptor, _) = parse_file_name("nb-1-big-Data.db").unwrap();
        let components = [
            (ComponentType::Data, None),
            (ComponentType::Statistics, Some(STATISTICS)),
            (ComponentType::CompressionInfo, Some(COMPRESSION)),
            (ComponentType::Filter, Some(FILTER)),
            (ComponentType::Digest(DigestAlgorithm::Crc32), Some(DIGEST)),
        ];
        let inputs: Vec<ComponentInput<'_>> = components
            .iter()
            .map(|(c, bytes)| ComponentInput {
                component: c,
                size_bytes: bytes.map_or(DATA.len(), |b| b.len()) as u64,
                bytes: *bytes,
            })
            .collect();
        decode_metadata(&descriptor, &inputs)
    }

    #[wasm_bindgen_test]
    fn metadata_decodes_as_manifest_states() {
        let m = metadata();
        assert!(m.errors.is_empty(), "{:?}", m.errors);
        let r = m.report("nb-1-big");
        assert_eq!(
            r.validation.unwrap().partitioner,
            "org.apache.cassandra.dht.ByteOrderedPartitioner"
        );
        let c = r.compression.unwrap();
        assert_eq!(
            (
                c.compressor.as_str(),
                c.chunk_length,
                c.data_length,
                c.chunk_count
            ),
            ("LZ4Compressor", 16384, 336_016, 21)
        );
        assert_eq!(r.digest.unwrap().value, "2568411107");
        assert_eq!(r.stats.unwrap().estimated_partition_count, 5);
        for key in [b"0", b"1", b"2", b"3", b"4"] {
            assert!(m.bloom_check(key).unwrap().probe.maybe_present);
        }
    }

    #[wasm_bindgen_test]
    fn data_decodes_five_partitions_of_fifty_rows_in_the_browser() {
        let m = metadata();
        let header = m
            .statistics
            .as_ref()
            .and_then(|s| s.header.as_ref())
            .unwrap();
        let schema = DataSchema::from_header(header, &m.descriptor.version).unwrap();
        let mut reader = DataFileReader::compressed(
            schema.clone(),
            DecodeOptions::default(),
            m.compression.clone().unwrap(),
            DATA.len() as u64,
        );
        let items = reader
            .decode_all_with(
                |offset, len| Ok(DATA[offset as usize..offset as usize + len].to_vec()),
            )
            .unwrap();
        let mut keys = Vec::new();
        let mut rows = 0;
        for item in &items {
            match item {
                DataItem::PartitionStart(p) => keys.push(p.key.bytes.bytes.clone()),
                DataItem::Row(r) => {
                    rows += 1;
                    let cell = r.cells().next().unwrap();
                    let t = schema.regular_columns[cell.column_index]
                        .cell_value_type(None)
                        .unwrap();
                    assert_eq!(format_value(t, &cell.value.bytes).text, VAL);
                }
                _ => {}
            }
        }
        assert_eq!(
            keys,
            [
                b"0".to_vec(),
                b"1".to_vec(),
                b"2".to_vec(),
                b"3".to_vec(),
                b"4".to_vec()
            ]
        );
        assert_eq!(rows, 250);
    }

    #[wasm_bindgen_test]
    fn every_checksum_verifies_and_a_flip_is_pinpointed() {
        let m = metadata();
        let run = |data: &[u8]| {
            let mut v = Verifier::for_sstable(&m, VerifyOptions::default()).unwrap();
            while let Some((offset, len)) = v.next_read() {
                v.supply(
                    offset,
                    &data[offset as usize..(offset + len) as usize],
                    &NoClock,
                )
                .unwrap();
            }
            v.finish("nb-1-big")
        };
        assert!(run(DATA).valid);
        let mut flipped = DATA.to_vec();
        flipped[600] ^= 0xff;
        let report = run(&flipped);
        assert!(!report.valid);
        let chunk_failures: Vec<Option<u64>> = report
            .checks
            .iter()
            .filter(|c| c.component == "Data.db")
            .flat_map(|c| c.failures.iter().map(|f| f.chunk))
            .collect();
        assert_eq!(chunk_failures, [Some(1)]);
    }
}
