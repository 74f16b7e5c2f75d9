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
    use sstable_engine::range::{SliceSource, SyncDriver};
    use sstable_engine::types::value::format_value;
    use sstable_engine::verify::{VerifyOptions, VerifyRun};
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
        let files = [(ComponentType::Data, DATA)];
        let items: Vec<_> = SyncDriver::new(SliceSource { files: &files })
            .items(&mut reader, &NoClock)
            .collect::<Result<_, _>>()
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
            let mut run = VerifyRun::new(&m, VerifyOptions::default());
            let files = [(ComponentType::Data, data)];
            let mut driver = SyncDriver::new(SliceSource { files: &files });
            // Only Data.db is given: a failing chunk's partitions stay unnamed.
            let error = driver.run(&mut run, &NoClock).err();
            run.finish("nb-1-big", error)
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

/// Deterministic bytes (xorshift), so a failure reproduces.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut s = seed | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

#[wasm_bindgen_test]
fn crc32_runs_simd128_and_equals_crc32fast_at_every_length_and_alignment() {
    use sstable_engine::checksum::{self, chorba, scalar};
    // The web build enables simd128 (.cargo/config.toml): the vector path is the one tested.
    assert_eq!(checksum::implementation(), "wasm simd128 chorba");
    let data = noise(4096 + 16, 5);
    for align in 0..16 {
        for len in 0..=4096 {
            let bytes = &data[align..align + len];
            let want = crc32fast::hash(bytes);
            assert_eq!(checksum::crc32(bytes), want, "len {len} align {align}");
            assert_eq!(
                scalar::crc32(bytes),
                want,
                "scalar, len {len} align {align}"
            );
            assert_eq!(
                chorba::crc32(bytes),
                want,
                "portable chorba, len {len} align {align}"
            );
        }
    }
    // Long inputs: the fold over many pairs, at every tail length.
    let big = noise(1 << 20, 9);
    for len in [
        (1 << 20) - 1,
        300_001,
        65_536,
        65_537,
        65_538,
        65_539,
        65_551,
    ] {
        assert_eq!(
            checksum::crc32(&big[..len]),
            crc32fast::hash(&big[..len]),
            "len {len}"
        );
    }
    let (a, b) = big.split_at(123_457);
    assert_eq!(
        checksum::combine(checksum::crc32(a), checksum::crc32(b), b.len() as u64),
        crc32fast::hash(&big)
    );
}

/// `performance.now()` in milliseconds (window or worker), or 0 where there is none.
fn now_millis() -> f64 {
    use wasm_bindgen::JsCast;
    let performance = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok();
    let now = performance
        .as_ref()
        .and_then(|p| js_sys::Reflect::get(p, &"now".into()).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    match (performance, now) {
        (Some(p), Some(f)) => f.call0(&p).ok().and_then(|v| v.as_f64()).unwrap_or(0.0),
        _ => 0.0,
    }
}

/// A checksum path timed by the speed test: its name and the function.
type NamedHash = (&'static str, fn(&[u8]) -> u32);

/// Our CRC32 as verify runs it on an LZ4 Data.db: one [`Crc32`] per 14,336-byte chunk (the
/// large bench file's mean stored chunk), each appended to the whole-file digest.
///
/// [`Crc32`]: sstable_engine::checksum::Crc32
fn crc32_by_chunks(bytes: &[u8]) -> u32 {
    use sstable_engine::checksum::Crc32;
    let mut digest = Crc32::new();
    for chunk in bytes.chunks(14_336) {
        let mut sum = Crc32::new();
        sum.update(chunk);
        digest.combine(&sum);
    }
    digest.finalize()
}

/// [`crc32_by_chunks`] without the digest: the chunks' CRCs XORed (a per-call cost apart from
/// `combine`).
fn crc32_of_chunks_xored(bytes: &[u8]) -> u32 {
    bytes
        .chunks(14_336)
        .fold(0, |x, chunk| x ^ sstable_engine::checksum::crc32(chunk))
}

/// The CRC32 paths and Adler32 in this browser, on the same 16 MiB: our CRC32 (simd128 fold), the
/// portable fold, slicing-by-16, crc32fast, and the `adler32` crate the 2.x digests use. Each is
/// timed once per round, the rounds interleave them (so a busy machine slows all alike), the best
/// round counts. Printed, not asserted: `-- --nocapture` shows it.
#[wasm_bindgen_test]
fn crc32_and_adler32_speed_in_this_browser() {
    use sstable_engine::checksum::{self, chorba, scalar};
    let bytes = noise(16 << 20, 21);
    let paths: [NamedHash; 7] = [
        (checksum::implementation(), checksum::crc32),
        ("ours by 14 KiB chunks + combine", crc32_by_chunks),
        ("ours by 14 KiB chunks, no combine", crc32_of_chunks_xored),
        ("portable chorba", chorba::crc32),
        ("slicing-by-16", scalar::crc32),
        ("crc32fast", crc32fast::hash),
        ("adler32 crate", |b| {
            let mut h = adler32::RollingAdler32::new();
            h.update_buffer(b);
            h.hash()
        }),
    ];
    let mut best_millis = [f64::INFINITY; 7];
    let mut values = [0u32; 7];
    for _round in 0..7 {
        for ((_, hash), (best, value)) in paths
            .iter()
            .zip(best_millis.iter_mut().zip(values.iter_mut()))
        {
            let start = now_millis();
            *value = std::hint::black_box(hash(std::hint::black_box(&bytes)));
            *best = best.min(now_millis() - start);
        }
    }
    let [ours, chunked, _xored, portable, table, fast, _adler] = values;
    assert!(
        [ours, chunked, portable, table].iter().all(|&v| v == fast),
        "the CRC32 paths disagree"
    );
    let mbs = best_millis.map(|ms| bytes.len() as f64 / 1e3 / ms);
    let line: Vec<String> = paths
        .iter()
        .zip(mbs)
        .map(|((name, _), mbs)| format!("{name} {mbs:.0} MB/s"))
        .collect();
    let [ours_mbs, _, _, _, _, crc32fast_mbs, _] = mbs;
    console_log!(
        "16 MiB in this browser: {}; ours = {:.2} x crc32fast",
        line.join(", "),
        ours_mbs / crc32fast_mbs
    );
}

#[cfg(sstable_fixtures)]
#[wasm_bindgen_test]
fn crc32_of_real_data_db_files_equals_crc32fast() {
    use sstable_engine::checksum::{self, Crc32};
    macro_rules! fixtures {
        ($($path:literal),* $(,)?) => {
            [$(($path, &include_bytes!(concat!(env!("SSTABLE_FIXTURES_DIR"), "/", $path))[..])),*]
        };
    }
    // The largest Data.db of each version directory (every one is checked natively in
    // tests/checksum.rs).
    let files = fixtures!(
        "legacy-sstables/da/legacy_tables/legacy_da_clust/da-1-bti-Data.db",
        "legacy-sstables/jb/Keyspace1/Keyspace1-Standard1-jb-0-Data.db",
        "legacy-sstables/ka/legacy_tables/legacy_ka_indexed_static/legacy_tables-legacy_ka_indexed_static-ka-1-Data.db",
        "legacy-sstables/la/legacy_tables/legacy_la_clust/la-1-big-Data.db",
        "legacy-sstables/ma/legacy_tables/legacy_ma_clust_compact/ma-1-big-Data.db",
        "legacy-sstables/mc/legacy_tables/legacy_mc_clust_compact/mc-1-big-Data.db",
        "legacy-sstables/me/legacy_tables/legacy_me_clust_compact/me-1-big-Data.db",
        "legacy-sstables/na/legacy_tables/legacy_na_clust_counter/na-1-big-Data.db",
        "legacy-sstables/nb/legacy_tables/legacy_nb_clust/nb-1-big-Data.db",
        "legacy-sstables/nc/legacy_tables/legacy_nc_clust/nc-1-big-Data.db",
        "legacy-sstables/oa/legacy_tables/legacy_oa_clust/oa-1-big-Data.db",
    );
    for (path, bytes) in files {
        let want = crc32fast::hash(bytes);
        assert_eq!(checksum::crc32(bytes), want, "{path}");
        let mut h = Crc32::new();
        for piece in bytes.chunks(5000) {
            let mut p = Crc32::new();
            p.update(piece);
            h.combine(&p);
        }
        assert_eq!(h.finalize(), want, "{path} (pieces combined)");
    }
}
