//! Data.db decoding against Cassandra's real fixture files (MANIFEST.md §3, §4, §6): exact
//! content of every legacy table of every 3.0+ version, the `other/` oddities, byte-level
//! robustness (every truncation and every single-byte flip gives items or an error, never a
//! panic or an endless loop) and a synthetic ≥ 64-column row.

use crate::common;
use crate::common::legacy::{legacy_tables, long_value};

use std::path::{Path, PathBuf};

use sstable_engine::clock::NoClock;
use sstable_engine::component::compression_info::{self, CompressionInfo};
use sstable_engine::component::data::{
    self, CellKind, ColumnData, ColumnsEncoding, CounterShardKind, DataDecoder, DataFileReader,
    DataItem, DataSchema, DecodeOptions, DecodeStep, DeltaBase, FindingKind, MarkerDeletion,
    PushDecoder, Row,
};
use sstable_engine::component::statistics;
use sstable_engine::compress::{decompress_chunk, Compressor};
use sstable_engine::descriptor::parse_file_name;
use sstable_engine::range::{RangeReader, SliceSource, SyncDriver};
use sstable_engine::types::parse_type;
use sstable_engine::{ComponentType, Format, Version};

/// One SSTable's Data.db with what decoding it needs.
struct Table {
    dir: PathBuf,
    version: Version,
    schema: DataSchema,
    compression: Option<CompressionInfo>,
    data: Vec<u8>,
}

fn component(dir: &Path, suffix: &str) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    found.sort();
    found.into_iter().next()
}

fn load(dir: &Path) -> Table {
    let data_path = component(dir, "-Data.db").expect("a Data.db");
    let name = data_path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let (descriptor, _) = parse_file_name(&name).unwrap();
    let version = descriptor.version;
    let stats_bytes = std::fs::read(component(dir, "-Statistics.db").unwrap()).unwrap();
    let stats = statistics::decode(&stats_bytes, &version).unwrap();
    let header = stats.header.as_ref().expect("a SerializationHeader");
    let schema = DataSchema::from_header(header, &version).unwrap();
    let compression = component(dir, "-CompressionInfo.db")
        .map(|p| compression_info::decode(&std::fs::read(p).unwrap(), &version).unwrap());
    Table {
        dir: dir.to_path_buf(),
        version,
        schema,
        compression,
        data: std::fs::read(&data_path).unwrap(),
    }
}

impl Table {
    fn reader(&self, options: DecodeOptions) -> DataFileReader {
        match &self.compression {
            Some(c) => DataFileReader::compressed(
                self.schema.clone(),
                options,
                c.clone(),
                self.data.len() as u64,
            ),
            None => {
                DataFileReader::uncompressed(self.schema.clone(), options, self.data.len() as u64)
            }
        }
    }

    /// Every item, through the protocol's next_read / supply.
    fn items(&self) -> Vec<DataItem> {
        self.items_with(DecodeOptions::default())
    }

    fn items_with(&self, options: DecodeOptions) -> Vec<DataItem> {
        let mut reader = self.reader(options);
        let mut items = Vec::new();
        for _ in 0..1_000_000 {
            match reader
                .next_item()
                .unwrap_or_else(|e| panic!("{}: {e}", self.dir.display()))
            {
                DecodeStep::Item(item) => items.push(item),
                DecodeStep::NeedMoreData => {
                    let range = reader.next_read().expect("a range to read");
                    let bytes = &self.data[range.offset as usize..range.end() as usize];
                    reader.supply(&range, bytes, &NoClock).unwrap();
                }
                DecodeStep::Finished => {
                    assert!(reader.take_findings().is_empty(), "chunk checksums");
                    return items;
                }
            }
        }
        panic!("{}: no end", self.dir.display());
    }

    /// The uncompressed bytes of Data.db.
    fn uncompressed(&self) -> Vec<u8> {
        let Some(c) = &self.compression else {
            return self.data.clone();
        };
        let compressor = Compressor::from_class_name(&c.compressor);
        let mut out = Vec::new();
        let mut chunk = Vec::new();
        for i in 0..c.chunk_offsets.len() {
            let (start, end) = c.chunk_span(i, self.data.len() as u64).unwrap();
            let stored = &self.data[start as usize..end as usize - 4];
            let expected = c.chunk_uncompressed_len(i).unwrap() as usize;
            if c.is_chunk_stored_raw(i, self.data.len() as u64).unwrap() {
                out.extend_from_slice(&stored[..expected]);
            } else {
                decompress_chunk(&compressor, stored, expected, &mut chunk).unwrap();
                out.extend_from_slice(&chunk);
            }
        }
        assert_eq!(out.len() as u64, c.data_length_bytes.value);
        out
    }
}

const VERSIONS: [&str; 10] = ["ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da"];

/// MANIFEST §3: uncompressed Data.db lengths (simple, simple_counter, clust, clust_counter).
fn manifest_lengths(v: &str) -> [u64; 4] {
    match v {
        "ma" => [173, 298, 336_020, 312_519],
        "mb" => [174, 299, 336_082, 312_584],
        "mc" => [173, 298, 336_057, 312_557],
        "md" => [173, 298, 336_015, 312_515],
        "me" => [173, 298, 336_014, 312_514],
        "na" => [173, 298, 336_015, 312_515],
        "nb" => [173, 298, 336_016, 312_516],
        "nc" => [173, 298, 336_014, 312_514],
        "oa" => [118, 243, 335_958, 312_458],
        "da" => [118, 243, 335_958, 312_457],
        _ => unreachable!(),
    }
}

/// MANIFEST §3: the 128-char `val` of the `_clust` tables (and of `_clust_compact`).
fn manifest_val(v: &str, compact: bool) -> &'static str {
    match (v, compact) {
        ("ma", false) => "ftzoazjbohvmcdapafmgerkdrcqqhixhfqoasklsfjbbubbhcahxnljfgxvmiprapmexbduesgleepqpgjdpxtoxeldnokapzqimsgpyshbrosspfgtlpwlasbibibsz",
        ("ma", true) => "jwqwvlwohwpcijvmsuuvpaknrzwoatxrfuifsjwcdisxsdbxwocmfjgtszmcabvncgjabxsflisichlvcvuyqpndtobcdgdqgbajknlxleedtdzjkrjrianfnccqseny",
        ("mb", _) => "xhjslncmrlawwklkjfielihyxhvjveflytyozhloteietrhlvfhjufpksjnoisyensxbsnncsqsapktkvcmjuybwauwzgifurwmnoqlhlnkoasjupuhqoqjtjubfnvpw",
        ("mc", _) => "lcwqmhfwfoddagjtftqbfuvvrbwmdsgrygoscskugthnycyavmokaekgqvnkplaiduxfhpbjrqfejvvxsalbdklrgaqxixmpfjgenclvpdlfdjwklluhkgkbphrrwpxk",
        ("md", _) => "rmutqivrrhbtaatvlazzffickifqhpcgawugxdjwntjunopwdabeabwoigqakgjsinmkblrskzrogjbizvqhwhzchvqlhlzxhoabjgjcxamofytnzhnxlpyhylzlrzdt",
        ("me", _) => "oixgnbacuexwrsuuwzjuszpgsdswwtwepgqasmaymumevsvgdpogvetmrhbxgwelokmvkqmqdrhxlhzqbtgddexfvfeymprrbgsnmsnuprimiclezljvhsmmvqxcwzvj",
        ("na", false) => "tilwrdsqcbziyboacbzwaqbclreiftzigpsrucqodvzsekvwlatkgndaqzbhcxizkybkkcnqdypjmlmaijqmzgqgprpxuawfbbrtvghiouregebrudkhucnbwlagwdaa",
        ("na", true) => "ahjeneczajzidcricaboegbkwdzcllprkrdiavcwukizzjcniwaltrnfxsmnxtxegojvviboufaqmtkgejomzgxirmujuouonaoenyfevgjgeszhlzechldgoneogzmm",
        ("nb", _) => "lxvwpnwfbdpmayjujittwghygywemwpvlemfkutzstfbiednkferyifrvvauhpdowraebccylljbibrbolnnoifwjkspqzgjdihyknypyzricuymwknfitpvjmvpcxob",
        ("nc", _) => "gcnersapjsyifswdtadrieasyvangpmuvwsniejmykstmyibyitotyxaliayvcvrmmrjtjipdwotlkaawoidkdyifnjwxofycrgxxxaqchqdmuihrxcwodwdtxrtubkc",
        ("oa", _) => "rvuxpepvjxefzigbwqiygtxglwthqvrmbvqhewhyaznsquqbfualplyzbeqjeuylznsjivvrwwiajaxykiodasryolrtzpvduxfukbvcrrrjdokvklidxbzdvenrpddn",
        ("da", _) => "wxappmnfhjwtvqhxcmeeupmryhmmvjmcxrcbvtxfdyeaxbeemxusoynrkhgatseiqrrcseynuwevqdipsgplgvqcelsjdtlkeetrcufulrzonyuscrlbowotizznpmcd",
        _ => unreachable!(),
    }
}

/// The 50 clustering values `str(i) + LONG` sorted as text (so "10"+LONG = "100123…" comes
/// before "1"+LONG = "10123…"); the first is "0"+LONG, the last "9"+LONG.
fn clustering_order() -> Vec<Vec<u8>> {
    let mut values: Vec<Vec<u8>> = (0..50).map(|i| long_value(&i.to_string())).collect();
    values.sort();
    assert_eq!(values[0], long_value("0"));
    assert_eq!(values[49], long_value("9"));
    values
}

fn partitions(items: &[DataItem]) -> Vec<&sstable_engine::component::data::PartitionStart> {
    items
        .iter()
        .filter_map(|i| match i {
            DataItem::PartitionStart(p) => Some(p),
            _ => None,
        })
        .collect()
}

fn rows(items: &[DataItem]) -> Vec<&Row> {
    items
        .iter()
        .filter_map(|i| match i {
            DataItem::Row(r) => Some(r),
            _ => None,
        })
        .collect()
}

fn static_rows(items: &[DataItem]) -> Vec<&Row> {
    items
        .iter()
        .filter_map(|i| match i {
            DataItem::StaticRow(r) => Some(r),
            _ => None,
        })
        .collect()
}

/// The value bytes of the column named `name` in `row`.
fn cell_value<'a>(schema: &DataSchema, row: &'a Row, name: &str) -> &'a [u8] {
    let cols = schema.columns(row.is_static);
    let idx = cols
        .iter()
        .position(|c| c.name == name)
        .unwrap_or_else(|| panic!("no column {name} in {:?}", cols));
    match row.column(idx) {
        Some(ColumnData::Simple(c)) => &c.value.bytes,
        other => panic!("column {name}: {other:?}"),
    }
}

#[test]
fn legacy_tables_in_every_version() {
    let Some(fx) = common::cassandra_fixtures("data::legacy_tables_in_every_version") else {
        return;
    };
    let order = clustering_order();
    for v in VERSIONS {
        let lengths = manifest_lengths(v);
        for table_name in legacy_tables(v) {
            let ctx = format!("{v}/{table_name}");
            let table = load(&common::legacy_dir(&fx, v, &table_name));
            assert_eq!(table.version.as_str(), v);
            let counter = table_name.contains("counter");
            let clust = table_name.contains("clust");
            let compact = table_name.ends_with("compact");
            let compact_simple = compact && !clust;
            let items = table.items();

            // The whole uncompressed data is consumed: the last item ends at its length.
            let data_len = table.compression.as_ref().unwrap().data_length_bytes.value;
            assert_eq!(items.last().unwrap().span().end, data_len, "{ctx}");
            if !compact {
                let i = usize::from(counter) + 2 * usize::from(clust);
                assert_eq!(data_len, lengths[i], "{ctx}: MANIFEST length");
            }

            // 5 partitions, keys "0".."4", strictly increasing positions from 0.
            let parts = partitions(&items);
            let keys: Vec<&[u8]> = parts.iter().map(|p| p.key.bytes.bytes.as_slice()).collect();
            assert_eq!(keys, [b"0", b"1", b"2", b"3", b"4"], "{ctx}");
            assert_eq!(parts[0].position, 0, "{ctx}");
            assert!(
                parts.windows(2).all(|w| w[0].position < w[1].position),
                "{ctx}"
            );
            for p in &parts {
                assert!(p.deletion.is_live(), "{ctx}");
                assert_eq!(p.key.components.len(), 1);
                assert_eq!(p.key.components[0].value.bytes, p.key.bytes.bytes);
            }
            let ends: Vec<_> = items
                .iter()
                .filter_map(|i| match i {
                    DataItem::PartitionEnd(e) => Some(e),
                    _ => None,
                })
                .collect();
            assert_eq!(ends.len(), 5, "{ctx}");
            for (p, e) in parts.iter().zip(&ends) {
                assert_eq!(e.partition_position, p.position, "{ctx}");
            }

            // No findings, tombstones, TTLs or markers anywhere.
            for item in &items {
                assert!(item.findings().is_empty(), "{ctx}: {:?}", item.findings());
                assert!(!matches!(item, DataItem::RangeTombstoneMarker(_)), "{ctx}");
            }
            let all_rows: Vec<&Row> = rows(&items)
                .into_iter()
                .chain(static_rows(&items))
                .collect();
            for r in &all_rows {
                assert!(r.deletion.is_none(), "{ctx}");
                assert!(
                    r.liveness.as_ref().is_none_or(|l| !l.is_expiring()),
                    "{ctx}"
                );
                for c in r.cells() {
                    assert_eq!(c.kind, CellKind::Live, "{ctx}");
                    assert!(
                        c.ttl_secs.is_none() && c.local_deletion_time.is_none(),
                        "{ctx}"
                    );
                }
            }

            let regular = rows(&items);
            let statics = static_rows(&items);
            let value_rows: Vec<&Row> = if compact_simple {
                // Compact simple tables: only a static row per partition, val in it.
                assert!(regular.is_empty(), "{ctx}");
                assert_eq!(statics.len(), 5, "{ctx}");
                assert!(
                    ends.iter().all(|e| e.has_static_row && e.row_count == 0),
                    "{ctx}"
                );
                statics
            } else {
                assert!(statics.is_empty(), "{ctx}");
                let per_partition = if clust { 50 } else { 1 };
                assert_eq!(regular.len(), 5 * per_partition, "{ctx}");
                assert!(
                    ends.iter().all(|e| e.row_count == per_partition as u64),
                    "{ctx}"
                );
                if clust {
                    for (i, r) in regular.iter().enumerate() {
                        let c = r.clustering.as_ref().unwrap();
                        assert_eq!(c.values.len(), 1, "{ctx}");
                        assert!(c.values[0].bytes == order[i % 50], "{ctx} row {i}");
                    }
                }
                regular
            };
            for r in &value_rows {
                let val = cell_value(&table.schema, r, "val");
                if counter {
                    let cell = r.cells().next().unwrap();
                    let ctxt = cell
                        .counter
                        .as_ref()
                        .unwrap_or_else(|| panic!("{ctx}: counter"));
                    assert_eq!(val.len(), 36, "{ctx}");
                    assert_eq!(ctxt.total, 1, "{ctx}");
                    assert_eq!(ctxt.shards.len(), 1, "{ctx}");
                    assert_eq!(ctxt.shards[0].count, 1, "{ctx}");
                    assert_eq!(ctxt.header_count.value, 1, "{ctx}");
                    // Observed: 3.0.0–3.0.8 writers (ma–mc) stored the compact simple counters
                    // (static cells) with a *local* shard (header element 0), which is why their
                    // Statistics set hasLegacyCounterShards; every other table has one global
                    // shard (header `0001 8000`, MANIFEST §3).
                    let legacy_local = ["ma", "mb", "mc"].contains(&v)
                        && table_name.ends_with("simple_counter_compact");
                    if legacy_local {
                        assert_eq!(ctxt.shards[0].kind, CounterShardKind::Local, "{ctx}");
                        assert_eq!(&val[..4], [0x00, 0x01, 0x00, 0x00], "{ctx}");
                    } else {
                        assert_eq!(ctxt.shards[0].kind, CounterShardKind::Global, "{ctx}");
                        assert_eq!(&val[..4], [0x00, 0x01, 0x80, 0x00], "{ctx}");
                    }
                } else if clust {
                    assert_eq!(val, manifest_val(v, compact).as_bytes(), "{ctx}");
                } else {
                    assert_eq!(val, b"foo bar baz", "{ctx}");
                }
            }
        }
    }
}

/// Feeds `bytes` to a push decoder in pieces of 1, 2, …, 7 bytes (repeating) and returns the
/// items and the largest window the decoder held.
fn decode_in_pieces(schema: &DataSchema, bytes: &[u8]) -> (Vec<DataItem>, usize) {
    let mut decoder = DataDecoder::new(schema.clone(), DecodeOptions::default());
    let mut items = Vec::new();
    let (mut pos, mut piece, mut max_window) = (0usize, 0usize, 0usize);
    for _ in 0..10 * bytes.len() + 100 {
        match decoder.next_item().unwrap() {
            DecodeStep::Item(item) => items.push(item),
            DecodeStep::NeedMoreData => {
                if pos == bytes.len() {
                    decoder.finish();
                    continue;
                }
                assert_eq!(decoder.input_position(), pos as u64);
                let n = (piece % 7 + 1).min(bytes.len() - pos);
                piece += 1;
                decoder.push(&bytes[pos..pos + n]);
                pos += n;
                max_window = max_window.max(decoder.buffered_bytes());
            }
            DecodeStep::Finished => {
                assert_eq!(decoder.position(), bytes.len() as u64);
                return (items, max_window);
            }
        }
    }
    panic!("the decoder did not finish");
}

#[test]
fn tiny_pieces_give_the_same_items_with_a_bounded_window() {
    let Some(fx) = common::cassandra_fixtures("data::tiny_pieces") else {
        return;
    };
    for (v, t) in [
        ("oa", "legacy_oa_simple"),
        ("mc", "legacy_mc_inaccurate_min_max"),
        ("nb", "legacy_nb_clust"),
        ("ma", "legacy_ma_simple_counter_compact"),
    ] {
        let table = load(&common::legacy_dir(&fx, v, t));
        let expected = table.items();
        let bytes = table.uncompressed();
        let (items, max_window) = decode_in_pieces(&table.schema, &bytes);
        assert!(items == expected, "{t}: pieces and chunks disagree");
        // At most one item plus the last piece (7 bytes) is ever buffered.
        let largest_item = items.iter().map(|i| i.span().len_bytes()).max().unwrap() as usize;
        assert!(max_window <= largest_item + 7, "{t}: window {max_window}");
    }
}

#[test]
fn seek_to_partition_and_recover_after_an_error() {
    let Some(fx) = common::cassandra_fixtures("data::seek_to_partition") else {
        return;
    };
    // Compressed: seek to partition "3" (as Index.db would give) and read to the end.
    let table = load(&common::legacy_dir(&fx, "nb", "legacy_nb_clust"));
    let all = table.items();
    let third = partitions(&all)[3].position;
    let from = all.iter().position(|i| i.position() == third).unwrap();
    let mut reader = table.reader(DecodeOptions::default());
    reader.seek_to_partition(third).unwrap();
    let offset = reader.next_read().unwrap().offset;
    assert_eq!(
        offset,
        table.compression.as_ref().unwrap().chunk_offsets[(third / 16384) as usize]
    );
    let files = [(ComponentType::Data, table.data.as_slice())];
    let tail: Vec<DataItem> = SyncDriver::new(SliceSource { files: &files })
        .items(&mut reader, &NoClock)
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(tail == all[from..], "items after the seek differ");
    assert!(reader
        .seek_to_partition(table.compression.as_ref().unwrap().data_length_bytes.value + 1)
        .is_err());

    // Uncompressed push decoder: corrupt partition "1", fail, then seek to partition "2".
    let table = load(&common::legacy_dir(&fx, "nb", "legacy_nb_simple"));
    let bytes = table.uncompressed();
    let all = table.items();
    let starts: Vec<u64> = partitions(&all).iter().map(|p| p.position).collect();
    let mut bad = bytes.clone();
    let p1 = starts[1] as usize;
    // Partition 1's row flags (after the 2+1-byte key and the 12-byte deletion) become 0xff:
    // the END_OF_PARTITION bit ends the partition early (a finding on the end byte), and the
    // rest of the row does not read as a partition header.
    bad[p1 + 15] = 0xff;
    let mut decoder = DataDecoder::new(table.schema.clone(), DecodeOptions::default());
    decoder.push(&bad);
    decoder.finish();
    let mut seen = Vec::new();
    let err = loop {
        match decoder.next_item() {
            Ok(DecodeStep::Item(i)) => seen.push(i),
            Ok(other) => panic!("{other:?}"),
            Err(e) => break e,
        }
    };
    assert_eq!(err.component(), Some(&ComponentType::Data));
    assert!(
        err.offset() >= starts[1] && err.offset() < starts[2],
        "{err}"
    );
    assert_eq!(decoder.next_item().unwrap_err(), err, "stays failed");
    match seen.last() {
        Some(DataItem::PartitionEnd(e)) => {
            assert_eq!(e.position, starts[1] + 15);
            assert_eq!(e.findings[0].kind, FindingKind::UnexpectedFlags);
        }
        other => panic!("{other:?}"),
    }
    decoder.seek_to_partition(starts[2]);
    decoder.push(&bytes[starts[2] as usize..]);
    decoder.finish();
    let mut rest = Vec::new();
    while let DecodeStep::Item(i) = decoder.next_item().unwrap() {
        rest.push(i);
    }
    let keys: Vec<&[u8]> = partitions(&rest)
        .iter()
        .map(|p| p.key.bytes.bytes.as_slice())
        .collect();
    assert_eq!(keys, [b"2", b"3", b"4"]);
}

fn i32_bytes(v: i32) -> Vec<u8> {
    v.to_be_bytes().to_vec()
}

fn other(fx: &Path, dir: &str) -> Table {
    load(&fx.join("other").join(dir))
}

/// MANIFEST §6: expiry overflow. Data written 2018-02-02 with TTL 630,720,000 s (20 years):
/// the local expiration times pass 2038 and are negative as int32. They are findings, decoded.
#[test]
fn negative_local_expiration_tables() {
    let Some(fx) = common::cassandra_fixtures("data::negative_local_expiration") else {
        return;
    };
    const TTL: i32 = 630_720_000;
    // 2024-10-12: the cells expire in 2038 (read unsigned), so they are not expired yet.
    let now = 1_728_691_200;
    for n in 1..=4 {
        let table = other(&fx, &format!("negative-local-expiration-test/table{n}"));
        let ctx = format!("table{n}");
        assert_eq!(table.version.as_str(), "mc");
        assert_eq!(table.schema.delta_base.min_ttl_secs, TTL, "{ctx}");
        assert_eq!(
            table.schema.delta_base.min_local_deletion_time_raw,
            if n <= 2 { 2_148_266_895 } else { 2_148_266_896 }
        );
        let items = table.items_with(DecodeOptions::at(now));
        let keys: Vec<Vec<u8>> = partitions(&items)
            .iter()
            .map(|p| p.key.bytes.bytes.clone())
            .collect();
        assert_eq!(
            keys,
            [i32_bytes(1), i32_bytes(2)],
            "{ctx}: index order 1, 2"
        );
        let rs = rows(&items);
        assert_eq!(rs.len(), 2, "{ctx}");
        let clustered = n == 2 || n == 4;
        let set = n >= 3;
        for (r, k) in rs.iter().zip([1, 2]) {
            // `a` is a clustering column in tables 2 and 4, a regular column in 1 and 3.
            let a = if clustered {
                r.clustering.as_ref().unwrap().values[0].bytes.clone()
            } else {
                cell_value(&table.schema, r, "a").to_vec()
            };
            assert_eq!(a, i32_bytes(k), "{ctx}");
            let b_index = table
                .schema
                .regular_columns
                .iter()
                .position(|c| c.name == "b")
                .unwrap();
            let b = r.column(b_index);
            let mut expiring = 0;
            for c in r.cells() {
                assert_eq!(c.kind, CellKind::Expiring, "{ctx}");
                assert_eq!(c.ttl_secs, Some(TTL), "{ctx}");
                let ldt = c.local_deletion_time.unwrap();
                assert!(
                    ldt.secs < 0 && ldt.is_invalid() && ldt.expiry_secs() > now,
                    "{ctx}"
                );
                expiring += 1;
            }
            match (set, k, b) {
                (false, 1, Some(ColumnData::Simple(c))) => assert_eq!(c.value.bytes, i32_bytes(1)),
                (false, 2, None) => {} // b = null
                (true, _, Some(ColumnData::Complex(cc))) => {
                    let elements: Vec<String> = cc
                        .cells
                        .iter()
                        .map(|c| String::from_utf8(c.path.as_ref().unwrap().bytes.clone()).unwrap())
                        .collect();
                    let want: Vec<String> = (1..=4).map(|i| format!("v{k}{i}")).collect();
                    assert_eq!(elements, want, "{ctx}");
                    assert!(cc.cells.iter().all(|c| c.value.bytes.is_empty()));
                }
                other => panic!("{ctx}: b = {other:?}"),
            }
            // Every expiring cell and expiring liveness is flagged, and nothing else.
            let overflowed = r
                .findings
                .iter()
                .filter(|f| f.kind == FindingKind::OverflowedExpirationTime)
                .count();
            let liveness = r.liveness.as_ref().is_some_and(|l| l.is_expiring()) as usize;
            assert_eq!(overflowed, expiring + liveness, "{ctx}");
            assert_eq!(r.findings.len(), overflowed, "{ctx}: {:?}", r.findings);
        }
    }
}

/// MANIFEST §6: tombstones with local deletion time −1: findings, still decoded.
#[test]
fn negative_ldt_tables() {
    let Some(fx) = common::cassandra_fixtures("data::negative_ldts") else {
        return;
    };
    let dir = "negative-ldts-invalid-deletions-test";
    let key_order = [i32_bytes(1), i32_bytes(0), i32_bytes(22)];

    // invalid_partition_deletion (nc): partition 22 has a deletion with ldt −1 and no rows.
    let table = other(&fx, &format!("{dir}/invalid_partition_deletion"));
    let items = table.items();
    let parts = partitions(&items);
    let keys: Vec<Vec<u8>> = parts.iter().map(|p| p.key.bytes.bytes.clone()).collect();
    assert_eq!(keys, key_order);
    let rs = rows(&items);
    assert_eq!(rs.len(), 2);
    for (r, (id2, b)) in rs.iter().zip([(1, b"1"), (0, b"0")]) {
        assert_eq!(
            r.clustering.as_ref().unwrap().values[0].bytes,
            i32_bytes(id2)
        );
        assert_eq!(cell_value(&table.schema, r, "b"), b);
    }
    let d = &parts[2].deletion;
    assert!(!d.is_live());
    assert_eq!(d.marked_for_delete_at_micros, 1_677_485_274_992_000);
    assert_eq!(d.local_deletion_time.secs, -1);
    assert_eq!(parts[2].findings.len(), 1);
    assert_eq!(
        parts[2].findings[0].kind,
        FindingKind::InvalidLocalDeletionTime
    );
    assert_eq!(
        parts[2].findings[0].span,
        d.local_deletion_time_span.unwrap()
    );
    assert!(parts[0].findings.is_empty() && parts[1].findings.is_empty());

    // invalid_range_tombstone_compaction (nb): partition 22 holds row 33 between two markers
    // with ldt −1.
    let table = other(&fx, &format!("{dir}/invalid_range_tombstone_compaction"));
    let items = table.items();
    let keys: Vec<Vec<u8>> = partitions(&items)
        .iter()
        .map(|p| p.key.bytes.bytes.clone())
        .collect();
    assert_eq!(keys, key_order);
    let tail: Vec<&DataItem> = items
        .iter()
        .skip_while(|i| i.position() < partitions(&items)[2].position)
        .collect();
    let markers: Vec<_> = tail
        .iter()
        .filter_map(|i| match i {
            DataItem::RangeTombstoneMarker(m) => Some(m),
            _ => None,
        })
        .collect();
    assert_eq!(markers.len(), 2);
    for m in &markers {
        let MarkerDeletion::Bound(d) = &m.deletion else {
            panic!()
        };
        assert_eq!(d.local_deletion_time.secs, -1);
        assert_eq!(m.findings.len(), 1);
        assert_eq!(m.findings[0].kind, FindingKind::InvalidLocalDeletionTime);
    }
    assert!(markers[0].bound.kind.is_start() && !markers[1].bound.kind.is_start());
    let r22 = rows(&items)[2];
    assert_eq!(
        r22.clustering.as_ref().unwrap().values[0].bytes,
        i32_bytes(33)
    );
    assert!(markers[0].position < r22.position && r22.position < markers[1].position);

    // invalid_tombstones (nc): row 33 of partition 22 has a tombstone cell b with ldt −1.
    let table = other(&fx, &format!("{dir}/invalid_tombstones"));
    let items = table.items();
    let rs = rows(&items);
    assert_eq!(rs.len(), 3);
    let r = rs[2];
    assert_eq!(
        r.clustering.as_ref().unwrap().values[0].bytes,
        i32_bytes(33)
    );
    let cell = r.cells().next().unwrap();
    assert!(cell.is_tombstone() && cell.value.bytes.is_empty());
    assert_eq!(cell.local_deletion_time.unwrap().secs, -1);
    assert_eq!(r.findings.len(), 1);
    assert_eq!(r.findings[0].kind, FindingKind::InvalidLocalDeletionTime);
    assert!(rs[0].findings.is_empty() && rs[1].findings.is_empty());

    // invalid_range_tombstone_reader (nb): partition 22, rows id2 0..99 with b = "ABCDEFG"×10,
    // and 2 markers with ldt −1.
    let table = other(&fx, &format!("{dir}/invalid_range_tombstone_reader"));
    let items = table.items();
    let keys: Vec<Vec<u8>> = partitions(&items)
        .iter()
        .map(|p| p.key.bytes.bytes.clone())
        .collect();
    assert_eq!(keys, [i32_bytes(22)]);
    let rs = rows(&items);
    assert_eq!(rs.len(), 100);
    let b = "ABCDEFG".repeat(10);
    for (i, r) in rs.iter().enumerate() {
        assert_eq!(
            r.clustering.as_ref().unwrap().values[0].bytes,
            i32_bytes(i as i32)
        );
        assert_eq!(cell_value(&table.schema, r, "b"), b.as_bytes());
        assert!(r.findings.is_empty());
    }
    let markers: Vec<_> = items
        .iter()
        .filter_map(|i| match i {
            DataItem::RangeTombstoneMarker(m) => Some(m),
            _ => None,
        })
        .collect();
    assert_eq!(markers.len(), 2);
    for m in markers {
        let MarkerDeletion::Bound(d) = &m.deletion else {
            panic!()
        };
        assert_eq!(d.local_deletion_time.secs, -1);
        assert_eq!(m.findings[0].kind, FindingKind::InvalidLocalDeletionTime);
    }
}

/// MANIFEST §6: an mb file with two rows of the same clustering b = 2 in partition a = 1.
#[test]
fn duplicate_rows_are_shown_and_flagged() {
    let Some(fx) = common::cassandra_fixtures("data::duplicates") else {
        return;
    };
    let table = other(
        &fx,
        "invalid-legacy-sstables/Keyspace1/cf_with_duplicates_3_0",
    );
    assert_eq!(table.version.as_str(), "mb");
    let items = table.items();
    let keys: Vec<Vec<u8>> = partitions(&items)
        .iter()
        .map(|p| p.key.bytes.bytes.clone())
        .collect();
    assert_eq!(keys, [i32_bytes(1)]);
    let rs = rows(&items);
    assert_eq!(rs.len(), 2);
    for r in &rs {
        assert_eq!(r.clustering.as_ref().unwrap().values[0].bytes, i32_bytes(2));
    }
    assert!(rs[0].findings.is_empty());
    assert_eq!(rs[1].findings.len(), 1);
    assert_eq!(rs[1].findings[0].kind, FindingKind::DuplicateClustering);
    assert_eq!(
        rs[1].findings[0].span,
        rs[1].clustering.as_ref().unwrap().span
    );
}

/// MANIFEST §4: one partition k = 100 with an RT from the start to c1 < 3 (two markers) and
/// the row (4, 4, 4) with v = 4.
#[test]
fn inaccurate_min_max_markers_and_row() {
    let Some(fx) = common::cassandra_fixtures("data::inaccurate_min_max") else {
        return;
    };
    let table = load(&common::legacy_dir(
        &fx,
        "mc",
        "legacy_mc_inaccurate_min_max",
    ));
    let items = table.items();
    assert_eq!(items.len(), 5);
    let DataItem::PartitionStart(p) = &items[0] else {
        panic!()
    };
    assert_eq!(p.key.bytes.bytes, [0, 0, 0, 100]);
    let (DataItem::RangeTombstoneMarker(open), DataItem::RangeTombstoneMarker(close)) =
        (&items[1], &items[2])
    else {
        panic!("{items:?}")
    };
    assert_eq!(open.bound.kind.name(), "INCL_START_BOUND");
    assert_eq!(open.bound.size.as_ref().unwrap().value, 0);
    assert!(open.bound.values.is_empty());
    assert_eq!(close.bound.kind.name(), "EXCL_END_BOUND");
    assert_eq!(close.bound.values.len(), 1);
    assert_eq!(close.bound.values[0].bytes, i32_bytes(3));
    let (MarkerDeletion::Bound(a), MarkerDeletion::Bound(b)) = (&open.deletion, &close.deletion)
    else {
        panic!()
    };
    assert_eq!(a.marked_for_delete_at_micros, b.marked_for_delete_at_micros);
    assert!(!a.is_live() && !a.local_deletion_time.is_invalid());
    // The first unfiltered's previous size is the partition header's length (key + deletion).
    assert_eq!(open.previous_unfiltered_size.value, 18);
    let DataItem::Row(r) = &items[3] else {
        panic!()
    };
    let ck: Vec<Vec<u8>> = r
        .clustering
        .as_ref()
        .unwrap()
        .values
        .iter()
        .map(|v| v.bytes.clone())
        .collect();
    assert_eq!(ck, [i32_bytes(4), i32_bytes(4), i32_bytes(4)]);
    assert_eq!(cell_value(&table.schema, r, "v"), i32_bytes(4));
    // The row was written before the delete: its timestamp is older than the tombstone's.
    assert!(r.liveness.as_ref().unwrap().timestamp_micros.value < a.marked_for_delete_at_micros);
    let DataItem::PartitionEnd(e) = &items[4] else {
        panic!()
    };
    assert_eq!((e.row_count, e.range_tombstone_marker_count), (1, 2));
    assert!(items.iter().all(|i| i.findings().is_empty()));
}

/// Decodes uncompressed `bytes` (all pushed, then finished) until `Finished` or an error;
/// panics if the decoder neither ends nor fails within a bound.
fn decode_bounded(schema: &DataSchema, bytes: &[u8], pieces: bool) -> Result<usize, String> {
    let mut decoder = DataDecoder::new(schema.clone(), DecodeOptions::at(1_728_691_200));
    let mut pos = 0;
    if !pieces {
        decoder.push(bytes);
        decoder.finish();
        pos = bytes.len();
    }
    let mut items = 0;
    for _ in 0..4 * bytes.len() + 100 {
        match decoder.next_item() {
            Ok(DecodeStep::Item(_)) => items += 1,
            Ok(DecodeStep::NeedMoreData) => {
                assert!(pieces, "NeedMoreData after finish");
                if pos == bytes.len() {
                    decoder.finish();
                } else {
                    let n = (pos % 5 + 1).min(bytes.len() - pos);
                    decoder.push(&bytes[pos..pos + n]);
                    pos += n;
                }
            }
            Ok(DecodeStep::Finished) => return Ok(items),
            Err(e) => {
                assert_eq!(e.component(), Some(&ComponentType::Data));
                assert!(e.offset() <= bytes.len() as u64, "{e}");
                return Err(e.to_string());
            }
        }
    }
    panic!("no end after {} steps", 4 * bytes.len() + 100);
}

#[test]
fn every_truncation_and_flip_gives_items_or_an_error() {
    let Some(fx) = common::cassandra_fixtures("data::robustness") else {
        return;
    };
    let tables = [
        load(&common::legacy_dir(&fx, "oa", "legacy_oa_simple")),
        load(&common::legacy_dir(
            &fx,
            "mc",
            "legacy_mc_inaccurate_min_max",
        )),
        other(&fx, "negative-local-expiration-test/table3"),
        other(
            &fx,
            "negative-ldts-invalid-deletions-test/invalid_range_tombstone_compaction",
        ),
        load(&common::legacy_dir(
            &fx,
            "ma",
            "legacy_ma_simple_counter_compact",
        )),
    ];
    for table in &tables {
        let bytes = table.uncompressed();
        let whole = decode_bounded(&table.schema, &bytes, false).unwrap();
        assert_eq!(decode_bounded(&table.schema, &bytes, true).unwrap(), whole);
        let mut truncation_errors = 0;
        for n in 0..bytes.len() {
            if decode_bounded(&table.schema, &bytes[..n], false).is_err() {
                truncation_errors += 1;
            }
            let _ = decode_bounded(&table.schema, &bytes[..n], true);
        }
        // Only cuts at partition boundaries decode cleanly.
        assert!(
            truncation_errors >= bytes.len() - 6,
            "{}",
            table.dir.display()
        );
        for i in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[i] ^= 0xff;
            let _ = decode_bounded(&table.schema, &flipped, false);
            let _ = decode_bounded(&table.schema, &flipped, true);
        }
    }

    // The compressed nb simple Data.db through next_read / supply: flips and truncations of the
    // physical file (chunk CRC mismatches are findings, not failures).
    let table = load(&common::legacy_dir(&fx, "nb", "legacy_nb_simple"));
    let run = |data: &[u8]| -> Result<(usize, usize), String> {
        let mut reader = DataFileReader::compressed(
            table.schema.clone(),
            DecodeOptions::default(),
            table.compression.clone().unwrap(),
            data.len() as u64,
        );
        let mut items = 0;
        for _ in 0..10_000 {
            match reader.next_item() {
                Ok(DecodeStep::Item(_)) => items += 1,
                Ok(DecodeStep::NeedMoreData) => {
                    let range = reader.next_read().expect("a range");
                    let bytes = &data[range.offset as usize..range.end() as usize];
                    reader
                        .supply(&range, bytes, &NoClock)
                        .map_err(|e| e.to_string())?;
                }
                Ok(DecodeStep::Finished) => return Ok((items, reader.take_findings().len())),
                Err(e) => return Err(e.to_string()),
            }
        }
        panic!("no end");
    };
    assert_eq!(run(&table.data), Ok((15, 0)));
    for n in 0..table.data.len() {
        assert!(run(&table.data[..n]).is_err(), "truncated to {n}");
    }
    let mut crc_findings = 0;
    for i in 0..table.data.len() {
        let mut flipped = table.data.clone();
        flipped[i] ^= 0xff;
        if let Ok((_, findings)) = run(&flipped) {
            crc_findings += findings;
        }
    }
    // A flip in the CRC itself still decodes, with a checksum finding.
    assert!(crc_findings >= 4, "{crc_findings}");
}

/// Cassandra's unsigned vint (format doc §2.2).
fn vint(v: u64) -> Vec<u8> {
    let bits = 64 - v.leading_zeros() as usize;
    let extra = if bits <= 7 {
        0
    } else {
        ((bits - 1) / 7).min(8)
    };
    if extra == 8 {
        let mut out = vec![0xff];
        out.extend_from_slice(&v.to_be_bytes());
        return out;
    }
    let mut out = Vec::with_capacity(extra + 1);
    let first_mask = !(0xffu8 >> extra);
    let top = (v >> (8 * extra)) as u8;
    out.push(first_mask | top);
    for i in (0..extra).rev() {
        out.push((v >> (8 * i)) as u8);
    }
    out
}

/// Builds one partition: header, then unfiltereds with correct sizes and previous sizes.
struct PartitionBuilder {
    out: Vec<u8>,
    start: usize,
    previous: Option<usize>,
}

impl PartitionBuilder {
    fn new(key: &[u8], deletion: &[u8]) -> Self {
        let mut out = (key.len() as u16).to_be_bytes().to_vec();
        out.extend_from_slice(key);
        out.extend_from_slice(deletion);
        PartitionBuilder {
            out,
            start: 0,
            previous: None,
        }
    }

    /// flags, extended flags, prefix (clustering or bound), size, previous size, body.
    fn unfiltered(&mut self, flags: &[u8], prefix: &[u8], body: &[u8], is_static: bool) -> usize {
        let position = self.out.len();
        let previous = if is_static {
            0
        } else {
            (position - self.previous.unwrap_or(self.start)) as u64
        };
        let prev = vint(previous);
        self.out.extend_from_slice(flags);
        self.out.extend_from_slice(prefix);
        self.out
            .extend_from_slice(&vint((prev.len() + body.len()) as u64));
        self.out.extend_from_slice(&prev);
        self.out.extend_from_slice(body);
        if !is_static {
            self.previous = Some(position);
        }
        position
    }

    fn end(mut self) -> Vec<u8> {
        self.out.push(0x01);
        self.out
    }
}

fn decode_all(schema: &DataSchema, bytes: &[u8], options: DecodeOptions) -> Vec<DataItem> {
    let mut decoder = DataDecoder::new(schema.clone(), options);
    decoder.push(bytes);
    decoder.finish();
    let mut items = Vec::new();
    loop {
        match decoder.next_item().unwrap() {
            DecodeStep::Item(i) => items.push(i),
            DecodeStep::Finished => return items,
            DecodeStep::NeedMoreData => panic!("need more data after finish"),
        }
    }
}

fn t(s: &str) -> sstable_engine::types::AbstractType {
    parse_type(s).unwrap()
}

/// ≥ 64 regular columns: the large subset encodings (present indices, missing indices) and
/// the all-present `0`, built byte by byte from format doc §4.5.
#[test]
fn synthetic_row_with_70_columns_uses_large_subsets() {
    let nb = Version::parse(Format::Big, "nb").unwrap();
    let columns: Vec<(String, _)> = (0..70)
        .rev()
        .map(|i| (format!("c{i:02}"), t("Int32Type")))
        .collect();
    let base = DeltaBase {
        min_timestamp_micros: 1_000,
        min_local_deletion_time_raw: 0,
        min_ttl_secs: 0,
        unsigned_deletion_time: false,
    };
    let schema = DataSchema::from_parts(
        nb,
        t("Int32Type"),
        vec![t("Int32Type")],
        vec![],
        columns,
        base,
    );
    assert_eq!(schema.regular_columns[0].name, "c00");
    assert_eq!(schema.regular_columns[69].name, "c69");
    assert_eq!(schema.findings.len(), 1, "given in reverse order");

    let live = [0x7f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0];
    let mut p = PartitionBuilder::new(&[0, 0, 0, 7], &live);
    let clustering = |v: i32| {
        let mut c = vec![0x00];
        c.extend_from_slice(&v.to_be_bytes());
        c
    };
    let cells = |present: &[usize]| {
        let mut b = Vec::new();
        for &i in present {
            b.push(0x08); // USE_ROW_TIMESTAMP
            b.extend_from_slice(&(i as i32 * 10).to_be_bytes());
        }
        b
    };
    let present_sets: [Vec<usize>; 3] = [
        vec![2, 40, 69],
        (0..70).filter(|i| *i != 0 && *i != 64).collect(),
        (0..70).collect(),
    ];
    // Row 1: 3 of 70 present (3 < 35): missing count 67, then the present indices.
    let mut body = vint(5); // timestamp delta
    body.extend(vint(67));
    for i in [2, 40, 69] {
        body.extend(vint(i));
    }
    body.extend(cells(&present_sets[0]));
    p.unfiltered(&[0x04], &clustering(1), &body, false);
    // Row 2: 68 of 70 present: missing count 2, then the missing indices 0 and 64.
    let mut body = vint(6);
    body.extend(vint(2));
    body.extend(vint(0));
    body.extend(vint(64));
    body.extend(cells(&present_sets[1]));
    p.unfiltered(&[0x04], &clustering(2), &body, false);
    // Row 3: a stored 0 = every column.
    let mut body = vint(7);
    body.extend(vint(0));
    body.extend(cells(&present_sets[2]));
    p.unfiltered(&[0x04], &clustering(3), &body, false);
    let bytes = p.end();

    let items = decode_all(&schema, &bytes, DecodeOptions::default());
    assert_eq!(items.len(), 5);
    let rs = rows(&items);
    let encodings = [
        ColumnsEncoding::PresentIndices,
        ColumnsEncoding::MissingIndices,
        ColumnsEncoding::AllPresent,
    ];
    for (k, r) in rs.iter().enumerate() {
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        assert_eq!(r.columns.encoding, encodings[k]);
        assert_eq!(r.columns.present, present_sets[k]);
        assert_eq!(r.columns.superset_count, 70);
        assert_eq!(
            r.liveness.as_ref().unwrap().timestamp_micros.value,
            1_005 + k as i64
        );
        let got: Vec<(usize, Vec<u8>)> = r
            .cells()
            .map(|c| (c.column_index, c.value.bytes.clone()))
            .collect();
        let want: Vec<(usize, Vec<u8>)> = present_sets[k]
            .iter()
            .map(|&i| (i, (i as i32 * 10).to_be_bytes().to_vec()))
            .collect();
        assert_eq!(got, want);
        assert!(r
            .cells()
            .all(|c| c.timestamp_micros == 1_005 + k as i64 && c.timestamp_span.is_none()));
    }
    assert_eq!(rs[0].columns.stored.len(), 4);
    assert_eq!(
        rs[1]
            .columns
            .stored
            .iter()
            .map(|v| v.value)
            .collect::<Vec<_>>(),
        [2, 0, 64]
    );
    // Same bytes in tiny pieces.
    assert!(decode_in_pieces(&schema, &bytes).0 == items);
    // A non-ascending index is an error, not a guess.
    let mut bad = bytes.clone();
    let pos = rs[0].columns.stored[2].span.start as usize;
    bad[pos] = 1; // indices 2, 1, 69
    let mut decoder = DataDecoder::new(schema.clone(), DecodeOptions::default());
    decoder.push(&bad);
    decoder.finish();
    decoder.next_item().unwrap();
    let e = decoder.next_item().unwrap_err();
    assert_eq!(e.offset(), pos as u64);
}

/// Everything the fixtures lack, built from format doc §4 for an oa SSTable: a composite key,
/// a static row, bound and boundary markers, an expiring row (USE_ROW_TTL cells, expired or
/// not by `now_seconds`), a shadowable row deletion, Scylla's extra shadowable tombstone, a
/// complex column with a complex deletion, a set element and a cell tombstone.
#[test]
fn synthetic_partition_with_every_kind_of_item() {
    let oa = Version::parse(Format::Big, "oa").unwrap();
    let base = DeltaBase {
        min_timestamp_micros: 1_000_000,
        min_local_deletion_time_raw: 1_700_000_000,
        min_ttl_secs: 0,
        unsigned_deletion_time: true,
    };
    let schema = DataSchema::from_parts(
        oa,
        t("CompositeType(Int32Type,UTF8Type)"),
        vec![t("Int32Type")],
        vec![("s".into(), t("Int32Type"))],
        vec![
            ("m".into(), t("SetType(Int32Type)")),
            ("v".into(), t("Int32Type")),
        ],
        base,
    );
    assert_eq!(schema.regular_columns[0].name, "v", "simple before complex");
    assert!(schema.composite_key && schema.has_static_row());

    // Key (1, "ab"): per component u16 length, bytes, end-of-component 0.
    let key = [0, 4, 0, 0, 0, 1, 0, 0, 2, b'a', b'b', 0];
    let mut p = PartitionBuilder::new(&key, &[0x80]);
    // Static row: EXTENSION | HAS_ALL_COLUMNS, IS_STATIC; s = 9 with its own timestamp.
    let mut body = vec![0x00];
    body.extend(vint(3));
    body.extend(9i32.to_be_bytes());
    p.unfiltered(&[0xa0, 0x01], &[], &body, true);
    let bound = |kind: u8, v: i32| {
        let mut b = vec![kind, 0, 1, 0];
        b.extend(v.to_be_bytes());
        b
    };
    // INCL_START_BOUND [0]: deletion ts +10, ldt +5.
    let mut body = vint(10);
    body.extend(vint(5));
    p.unfiltered(&[0x02], &bound(1, 0), &body, false);
    // EXCL_END_INCL_START_BOUNDARY [1]: end deletion, then start deletion.
    let mut body = vint(10);
    body.extend(vint(5));
    body.extend(vint(11));
    body.extend(vint(6));
    p.unfiltered(&[0x02], &bound(2, 1), &body, false);
    // Row [2]: HAS_TIMESTAMP | HAS_TTL | HAS_DELETION | HAS_COMPLEX_DELETION | EXTENSION,
    // extended HAS_SHADOWABLE_DELETION | Scylla's 0x80.
    let mut body = vint(100); // liveness timestamp
    body.extend(vint(3600)); // ttl
    body.extend(vint(7200)); // local expiration time
    body.extend(vint(50)); // row deletion timestamp
    body.extend(vint(1)); // row deletion ldt
    body.extend(vint(60)); // Scylla shadowable deletion
    body.extend(vint(2));
    body.extend(vint(0)); // column subset: all
    body.push(0x1a); // v: IS_EXPIRING | USE_ROW_TIMESTAMP | USE_ROW_TTL
    body.extend(4i32.to_be_bytes());
    body.extend(vint(20)); // m: complex deletion
    body.extend(vint(3));
    body.extend(vint(2)); // 2 cells
    body.push(0x0c); // HAS_EMPTY_VALUE | USE_ROW_TIMESTAMP
    body.extend(vint(4));
    body.extend(5i32.to_be_bytes()); // path: element 5
    body.push(0x05); // IS_DELETED | HAS_EMPTY_VALUE
    body.extend(vint(70));
    body.extend(vint(9));
    body.extend(vint(4));
    body.extend(6i32.to_be_bytes()); // path: element 6
    let mut row_prefix = vec![0x00];
    row_prefix.extend(2i32.to_be_bytes());
    let row_pos = p.unfiltered(&[0xdc, 0x82], &row_prefix, &body, false);
    // INCL_END_BOUND [3].
    let mut body = vint(11);
    body.extend(vint(6));
    p.unfiltered(&[0x02], &bound(6, 3), &body, false);
    let bytes = p.end();

    let expiry = 1_700_000_000 + 7_200;
    for (now, want) in [
        (expiry - 1, CellKind::Expiring),
        (expiry, CellKind::Expired),
    ] {
        let items = decode_all(&schema, &bytes, DecodeOptions::at(now));
        assert_eq!(items.len(), 7);
        for i in &items {
            assert!(i.findings().is_empty(), "{:?}", i.findings());
        }
        let DataItem::PartitionStart(ps) = &items[0] else {
            panic!()
        };
        assert!(ps.deletion.is_live());
        assert_eq!(ps.deletion.span.len_bytes(), 1);
        let comps: Vec<&[u8]> = ps
            .key
            .components
            .iter()
            .map(|c| c.value.bytes.as_slice())
            .collect();
        assert_eq!(comps, [&[0, 0, 0, 1][..], b"ab"]);

        let DataItem::StaticRow(s) = &items[1] else {
            panic!()
        };
        assert_eq!(cell_value(&schema, s, "s"), 9i32.to_be_bytes());
        assert_eq!(s.cells().next().unwrap().timestamp_micros, 1_000_003);

        let DataItem::RangeTombstoneMarker(m) = &items[2] else {
            panic!()
        };
        let MarkerDeletion::Bound(d) = &m.deletion else {
            panic!()
        };
        assert_eq!(d.marked_for_delete_at_micros, 1_000_010);
        assert_eq!(d.local_deletion_time.secs, 1_700_000_005);
        let DataItem::RangeTombstoneMarker(m) = &items[3] else {
            panic!()
        };
        assert!(m.bound.kind.is_boundary());
        let MarkerDeletion::Boundary { end, start } = &m.deletion else {
            panic!()
        };
        assert_eq!(
            (
                end.marked_for_delete_at_micros,
                start.marked_for_delete_at_micros
            ),
            (1_000_010, 1_000_011)
        );

        let DataItem::Row(r) = &items[4] else {
            panic!()
        };
        assert_eq!(r.position, row_pos as u64);
        let l = r.liveness.as_ref().unwrap();
        assert_eq!(l.timestamp_micros.value, 1_000_100);
        assert_eq!(l.ttl_secs.as_ref().unwrap().value, 3600);
        assert_eq!(l.local_expiration_time.as_ref().unwrap().value.secs, expiry);
        let del = r.deletion.as_ref().unwrap();
        assert!(del.is_shadowable);
        assert_eq!(del.time.marked_for_delete_at_micros, 1_000_050);
        let sd = r.scylla_shadowable_deletion.as_ref().unwrap();
        assert_eq!(sd.local_deletion_time.secs, 1_700_000_002);
        let Some(ColumnData::Simple(v)) = r.column(0) else {
            panic!()
        };
        assert_eq!(v.kind, want);
        assert_eq!((v.ttl_secs, v.timestamp_micros), (Some(3600), 1_000_100));
        assert!(v.ttl_span.is_none() && v.local_deletion_time_span.is_none());
        let Some(ColumnData::Complex(mc)) = r.column(1) else {
            panic!()
        };
        let cd = mc.complex_deletion.as_ref().unwrap();
        assert_eq!(cd.marked_for_delete_at_micros, 1_000_020);
        assert_eq!(mc.cells.len(), 2);
        assert_eq!(mc.cells[0].kind, CellKind::Live);
        assert_eq!(mc.cells[0].path.as_ref().unwrap().bytes, 5i32.to_be_bytes());
        assert_eq!(mc.cells[1].kind, CellKind::Tombstone);
        assert_eq!(mc.cells[1].timestamp_micros, 1_000_070);
        assert_eq!(mc.cells[1].local_deletion_time.unwrap().secs, 1_700_000_009);
        assert_eq!(
            schema.regular_columns[1].cell_path_type,
            Some(t("Int32Type"))
        );

        let DataItem::PartitionEnd(e) = &items[6] else {
            panic!()
        };
        assert_eq!(
            (
                e.row_count,
                e.range_tombstone_marker_count,
                e.has_static_row
            ),
            (1, 3, true)
        );
        assert_eq!(e.partition_span.end, bytes.len() as u64);
    }

    // A row whose declared size is larger than its body: a finding, and decoding continues at
    // the declared end (here: one padding byte inserted before the next marker).
    let items = decode_all(&schema, &bytes, DecodeOptions::default());
    let DataItem::Row(r) = &items[4] else {
        panic!()
    };
    let size_at = r.row_size.span.start as usize;
    let body_end = r.span.end as usize;
    let mut padded = bytes[..size_at].to_vec();
    padded.extend(vint(r.row_size.value + 1));
    padded.extend_from_slice(&bytes[r.row_size.span.end as usize..body_end]);
    padded.push(0xee);
    padded.extend_from_slice(&bytes[body_end..]);
    let items = decode_all(&schema, &padded, DecodeOptions::default());
    assert_eq!(items.len(), 7);
    let DataItem::Row(r) = &items[4] else {
        panic!()
    };
    assert_eq!(r.findings.len(), 1);
    assert_eq!(r.findings[0].kind, FindingKind::SizeMismatch);
    assert_eq!(r.body_end + 1, r.span.end);
    // The next marker now starts one byte further than its stored previous size says.
    assert_eq!(items[5].findings().len(), 1);
    assert_eq!(
        items[5].findings()[0].kind,
        FindingKind::PreviousSizeMismatch
    );
    assert!(matches!(items[6], DataItem::PartitionEnd(_)));
}

/// CASSANDRA-15035: a bare `UserType(...)` from a 3.0.x writer is frozen. The row only decodes
/// to its declared size with that reading, which is then kept.
#[test]
fn synthetic_bare_udt_is_retried_as_frozen() {
    let mc = Version::parse(Format::Big, "mc").unwrap();
    let base = DeltaBase {
        min_timestamp_micros: 0,
        min_local_deletion_time_raw: 0,
        min_ttl_secs: 0,
        unsigned_deletion_time: false,
    };
    let udt = t("UserType(ks,7574,6631:Int32Type,6632:Int32Type)");
    let schema = DataSchema::from_parts(
        mc,
        t("Int32Type"),
        vec![],
        vec![],
        vec![("b".into(), udt), ("c".into(), t("Int32Type"))],
        base,
    );
    assert!(schema.has_ambiguous_udts());
    assert_eq!(
        schema.regular_columns[0].name, "c",
        "multi-cell reading: c first"
    );
    let live = [0x7f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0];
    let mut bytes = Vec::new();
    for k in [1i32, 2] {
        let mut p = PartitionBuilder::new(&k.to_be_bytes(), &live);
        // Frozen reading, HAS_TIMESTAMP | HAS_ALL_COLUMNS: b (vint length + frozen value), c.
        let mut body = vint(1);
        body.push(0x08);
        body.extend(vint(16));
        for f in [k, 10 * k] {
            body.extend(4i32.to_be_bytes());
            body.extend(f.to_be_bytes());
        }
        body.push(0x08);
        body.extend((100 * k).to_be_bytes());
        p.unfiltered(&[0x24], &[], &body, false);
        bytes.extend(p.end());
    }
    let items = decode_all(&schema, &bytes, DecodeOptions::default());
    let rs = rows(&items);
    assert_eq!(rs.len(), 2);
    assert_eq!(rs[0].findings.len(), 1);
    assert_eq!(rs[0].findings[0].kind, FindingKind::FrozenUdtInterpretation);
    assert!(rs[1].findings.is_empty(), "the frozen reading is kept");
    let mut decoder = DataDecoder::new(schema.clone(), DecodeOptions::default());
    decoder.push(&bytes);
    decoder.finish();
    while let DecodeStep::Item(_) = decoder.next_item().unwrap() {}
    let frozen = decoder.schema();
    assert!(frozen.frozen_bare_udts);
    assert_eq!(frozen.regular_columns[0].name, "b");
    for (r, k) in rs.iter().zip([1i32, 2]) {
        assert_eq!(cell_value(frozen, r, "c"), (100 * k).to_be_bytes());
        assert_eq!(cell_value(frozen, r, "b").len(), 16);
    }
}

/// The UI trees: a partition node with row children; a byte of a cell value finds its field.
#[test]
fn partition_trees_and_json() {
    let Some(fx) = common::cassandra_fixtures("data::trees") else {
        return;
    };
    let table = load(&common::legacy_dir(&fx, "nb", "legacy_nb_clust"));
    let items = table.items();
    let first_end = items
        .iter()
        .position(|i| matches!(i, DataItem::PartitionEnd(_)))
        .unwrap();
    let partition = &items[..=first_end];
    let utf8 = |ty: &sstable_engine::types::AbstractType, b: &[u8]| match ty {
        sstable_engine::types::AbstractType::Utf8 => {
            String::from_utf8_lossy(&b[..b.len().min(8)]).into_owned()
        }
        _ => format!("{b:02x?}"),
    };
    let node = sstable_engine::component::data::partition_node(partition, &table.schema, &utf8);
    assert_eq!(node.label, "partition");
    assert!(node.value.starts_with("key 0 at 0"), "{}", node.value);
    assert!(node.value.ends_with("50 rows"), "{}", node.value);
    let row_nodes: Vec<_> = node.children.iter().filter(|n| n.label == "row").collect();
    assert_eq!(row_nodes.len(), 50);
    assert_eq!(node.span.unwrap().end, partition.last().unwrap().span().end);
    let r = rows(partition)[0];
    let cell = r.cells().next().unwrap();
    let at = node.find_at(cell.value.span.end - 1).unwrap();
    assert_eq!(at.label, "value");
    assert!(at.value.starts_with("lxvwpnwf"), "{}", at.value);
    let ck = node
        .find_at(r.clustering.as_ref().unwrap().values[0].span.start + 5)
        .unwrap();
    assert_eq!(ck.label, "value 0 (text)");
    // Hex by default.
    let row = r.to_node(&table.schema);
    assert!(row
        .children
        .iter()
        .any(|c| c.label == "val" && c.value.starts_with("0x6c7876")));

    let json = serde_json::to_value(&items[1]).unwrap();
    let value = &json["Row"]["column_data"][0]["Simple"]["value"]["bytes"];
    assert_eq!(value.as_str().unwrap().len(), 256, "128 bytes as hex");
}

/// The borrowed scan counts what MANIFEST §3 says every legacy table holds: 5 partitions of 1
/// (simple) or 50 (clust) rows, one live `val` cell per row, no tombstones, and its data bytes
/// are the whole uncompressed Data.db.
#[test]
fn scan_counts_match_the_manifest() {
    let Some(fx) = common::cassandra_fixtures("data::scan_counts_match_the_manifest") else {
        return;
    };
    for v in VERSIONS {
        for table_name in legacy_tables(v) {
            let ctx = format!("{v}/{table_name}");
            let table = load(&common::legacy_dir(&fx, v, &table_name));
            let mut reader = table.reader(DecodeOptions::default());
            let files = [(ComponentType::Data, table.data.as_slice())];
            let mut counts = data::ScanCounts::default();
            SyncDriver::new(SliceSource { files: &files })
                .visit_all(&mut reader, &mut counts, &NoClock)
                .unwrap_or_else(|e| panic!("{ctx}: {e}"));
            let clust = table_name.contains("clust");
            let compact_simple = table_name.ends_with("compact") && !clust;
            let rows_per_partition = if clust { 50 } else { 1 };
            assert_eq!(counts.partitions, 5, "{ctx}");
            if compact_simple {
                // `val` lives in the static row of a compact table without clustering.
                assert_eq!((counts.static_rows, counts.rows), (5, 0), "{ctx}");
            } else {
                assert_eq!(
                    (counts.static_rows, counts.rows),
                    (0, 5 * rows_per_partition),
                    "{ctx}"
                );
            }
            assert_eq!(counts.cells, 5 * rows_per_partition, "{ctx}");
            assert_eq!(counts.live_cells, counts.cells, "{ctx}");
            assert_eq!(
                counts.tombstone_cells + counts.expiring_cells + counts.expired_cells,
                0,
                "{ctx}"
            );
            assert_eq!(
                counts.partition_deletions + counts.row_deletions,
                0,
                "{ctx}"
            );
            assert_eq!(counts.range_tombstone_markers + counts.findings, 0, "{ctx}");
            let data_len = table.compression.as_ref().unwrap().data_length_bytes.value;
            assert_eq!(counts.data_bytes, data_len, "{ctx}");
        }
    }
}

/// `Cell::view` is the inverse of `CellView::to_cell`: every cell of every 3.0+ legacy table and
/// of the TTL, collection and tombstone fixtures (MANIFEST §3, §6) viewed and owned again is the
/// same cell, spans included.
#[test]
fn an_owned_cell_viewed_is_the_same_cell() {
    let Some(fx) = common::cassandra_fixtures("data::an_owned_cell_viewed") else {
        return;
    };
    let mut dirs: Vec<PathBuf> = Vec::new();
    for v in VERSIONS {
        for t in legacy_tables(v) {
            dirs.push(common::legacy_dir(&fx, v, &t));
        }
    }
    for n in 1..=4 {
        dirs.push(fx.join(format!("other/negative-local-expiration-test/table{n}")));
    }
    dirs.push(fx.join("other/negative-ldts-invalid-deletions-test/invalid_tombstones"));
    let mut cells = 0usize;
    for dir in dirs {
        let table = load(&dir);
        for item in table.items() {
            let (DataItem::Row(row) | DataItem::StaticRow(row)) = item else {
                continue;
            };
            for cell in row.cells() {
                assert_eq!(&cell.view().to_cell(), cell, "{}", dir.display());
                cells += 1;
            }
        }
    }
    assert!(cells > 8_000, "{cells}");
}
