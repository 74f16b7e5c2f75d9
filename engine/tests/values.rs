//! Value rendering and key parsing against real fixtures (MANIFEST.md): the column types come
//! from each sstable's Statistics.db SerializationHeader, the values from the MANIFEST (and, for
//! text, from the decompressed Data.db itself).

use crate::common;

use std::path::{Path, PathBuf};

use sstable_engine::component::compression_info;
use sstable_engine::component::statistics::{self, SerializationHeader};
use sstable_engine::compress::{decompress_chunk, Compressor};
use sstable_engine::descriptor::parse_file_name;
use sstable_engine::types::value::{
    format_cell_path, format_value, parse_partition_key, parse_value, split_composite_key,
};
use sstable_engine::types::{parse_type, AbstractType};
use sstable_engine::Version;

/// Versions whose Statistics.db has a SerializationHeader.
const HEADER_VERSIONS: [&str; 10] = ["ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da"];

/// The component file of `dir` whose name ends with `-<suffix>`, and the version it names.
fn component(dir: &Path, suffix: &str) -> (PathBuf, Version) {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(&format!("-{suffix}")))
        .collect();
    found.sort();
    let path = found
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no {suffix} in {}", dir.display()));
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let (descriptor, _) = parse_file_name(&name).unwrap();
    (path, descriptor.version)
}

fn header(dir: &Path) -> SerializationHeader {
    let (path, version) = component(dir, "Statistics.db");
    let bytes = std::fs::read(&path).unwrap();
    let stats =
        statistics::decode(&bytes, &version).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    stats
        .header
        .unwrap_or_else(|| panic!("{}: no SerializationHeader", path.display()))
}

fn key_type(h: &SerializationHeader) -> AbstractType {
    parse_type(&h.key_type.value).unwrap()
}

/// The type of regular (or, failing that, static) column `name`.
fn column_type(h: &SerializationHeader, name: &str) -> AbstractType {
    let spec = h
        .regular_columns
        .columns
        .iter()
        .chain(&h.static_columns.columns)
        .find(|c| c.name.value == name)
        .unwrap_or_else(|| panic!("no column {name}"));
    parse_type(&spec.type_name.value).unwrap()
}

/// MANIFEST §3: a CounterContext with one global shard whose count is 1.
fn counter_context_of_one() -> Vec<u8> {
    let mut ctx = vec![0x00, 0x01, 0x80, 0x00];
    ctx.extend([0xab; 16]);
    ctx.extend(1i64.to_be_bytes());
    ctx.extend(1i64.to_be_bytes());
    ctx
}

/// The first chunk of a compressed Data.db, decompressed.
fn first_data_chunk(dir: &Path) -> Vec<u8> {
    let (info_path, version) = component(dir, "CompressionInfo.db");
    let info = compression_info::decode(&std::fs::read(info_path).unwrap(), &version).unwrap();
    let (data_path, _) = component(dir, "Data.db");
    let data = std::fs::read(data_path).unwrap();
    let (start, end) = info.chunk_span(0, data.len() as u64).unwrap();
    let stored = &data[start as usize..end as usize - 4];
    let expected = info.chunk_uncompressed_len(0).unwrap() as usize;
    let mut out = Vec::new();
    decompress_chunk(
        &Compressor::from_class_name(&info.compressor),
        stored,
        expected,
        &mut out,
    )
    .unwrap();
    out
}

#[test]
fn legacy_keys_and_values_render_with_header_types() {
    let Some(fx) =
        common::cassandra_fixtures("values::legacy_keys_and_values_render_with_header_types")
    else {
        return;
    };
    for v in HEADER_VERSIONS {
        for table in ["simple", "simple_counter", "clust", "clust_counter"] {
            let dir = common::legacy_dir(&fx, v, &format!("legacy_{v}_{table}"));
            let h = header(&dir);
            let key = key_type(&h);
            assert_eq!(key, AbstractType::Utf8, "{v} {table}");
            // The five partition keys "0".."4".
            for k in ["0", "1", "2", "3", "4"] {
                let shown = format_value(&key, k.as_bytes());
                assert_eq!((shown.text.as_str(), shown.note), (k, None), "{v} {table}");
                assert_eq!(parse_partition_key(&key, k).unwrap(), k.as_bytes());
                let parts = split_composite_key(&key, k.as_bytes()).unwrap();
                assert_eq!(parts.len(), 1);
                assert_eq!(parts[0].value.text, k);
            }
            let val = column_type(&h, "val");
            if table.ends_with("counter") {
                assert_eq!(val, AbstractType::Counter, "{v} {table}");
                assert_eq!(format_value(&val, &counter_context_of_one()).text, "1");
            } else {
                assert_eq!(val, AbstractType::Utf8, "{v} {table}");
                assert_eq!(format_value(&val, b"foo bar baz").text, "foo bar baz");
            }
        }
    }
}

#[test]
fn clust_val_is_found_in_data_and_rendered() {
    let Some(fx) = common::cassandra_fixtures("values::clust_val_is_found_in_data_and_rendered")
    else {
        return;
    };
    // MANIFEST §3: the 128-character `val` of every row of nb's legacy_nb_clust.
    let want = "lxvwpnwfbdpmayjujittwghygywemwpvlemfkutzstfbiednkferyifrvvauhpdowraebccylljbibrbolnnoifwjkspqzgjdihyknypyzricuymwknfitpvjmvpcxob";
    assert_eq!(want.len(), 128);
    let dir = common::legacy_dir(&fx, "nb", "legacy_nb_clust");
    let h = header(&dir);
    let val = column_type(&h, "val");
    let chunk = first_data_chunk(&dir);
    // A text cell value is written as an unsigned vint length (128 = 80 80) and the bytes.
    let mut needle = vec![0x80, 0x80];
    needle.extend(&want.as_bytes()[..20]);
    let at = chunk
        .windows(needle.len())
        .position(|w| w == needle.as_slice())
        .expect("the val bytes in the first chunk");
    let bytes = &chunk[at + 2..at + 2 + 128];
    let shown = format_value(&val, bytes);
    assert_eq!((shown.text.as_str(), shown.note), (want, None));
    assert_eq!(parse_value(&val, want).unwrap(), bytes);

    // The first clustering value, "0" followed by LONG (1201 characters, vint 84 b1).
    let clustering = parse_type(&h.clustering_types[0].value).unwrap();
    assert_eq!(clustering, AbstractType::Utf8);
    let long = "0123456789".repeat(120);
    let mut needle = vec![0x84, 0xb1, b'0'];
    needle.extend(&long.as_bytes()[..20]);
    let at = chunk
        .windows(needle.len())
        .position(|w| w == needle.as_slice())
        .expect("the first clustering value in the first chunk");
    let shown = format_value(&clustering, &chunk[at + 2..at + 2 + 1201]);
    assert_eq!(shown.text, format!("0{long}"));
}

#[test]
fn int_keys() {
    let Some(fx) = common::cassandra_fixtures("values::int_keys") else {
        return;
    };
    // MANIFEST §4: one partition, k = 100 (key bytes 00000064); clustering c1, c2, c3 int.
    let dir = common::legacy_dir(&fx, "mc", "legacy_mc_inaccurate_min_max");
    let h = header(&dir);
    let key = key_type(&h);
    assert_eq!(key, AbstractType::Int32);
    let shown = format_value(&key, &[0, 0, 0, 0x64]);
    assert_eq!((shown.text.as_str(), shown.note), ("100", None));
    assert_eq!(parse_partition_key(&key, "100").unwrap(), [0, 0, 0, 0x64]);
    assert_eq!(
        parse_partition_key(&key, "0x00000064").unwrap(),
        [0, 0, 0, 0x64]
    );
    assert_eq!(h.clustering_types.len(), 3);
    for t in &h.clustering_types {
        let t = parse_type(&t.value).unwrap();
        assert_eq!(format_value(&t, &[0, 0, 0, 3]).text, "3");
    }
    assert_eq!(format_value(&column_type(&h, "v"), &[0, 0, 0, 4]).text, "4");
    // A 3-byte int is not an int: hex with a note.
    let bad = format_value(&key, &[0, 0, 0x64]);
    assert_eq!(bad.text, "0x000064");
    assert!(bad.note.is_some());

    // MANIFEST §6: negative-ldts tables key `id int`; partition 22 holds the invalid tombstones.
    let dir = fx
        .join("other")
        .join("negative-ldts-invalid-deletions-test")
        .join("invalid_tombstones");
    let h = header(&dir);
    let key = key_type(&h);
    assert_eq!(parse_partition_key(&key, "22").unwrap(), [0, 0, 0, 22]);
    assert_eq!(
        format_value(&column_type(&h, "b"), b"ABCDEFG").text,
        "ABCDEFG"
    );
}

#[test]
fn set_cell_paths() {
    let Some(fx) = common::cassandra_fixtures("values::set_cell_paths") else {
        return;
    };
    // MANIFEST §6: table3 has `b set<text>` (non-frozen): one cell per element, the element in
    // the cell path.
    let dir = fx
        .join("other")
        .join("negative-local-expiration-test")
        .join("table3");
    let h = header(&dir);
    let b = column_type(&h, "b");
    assert!(b.is_multi_cell());
    assert_eq!(format_cell_path(&b, b"v11"), "'v11'");
    // A frozen serialization of the same set, as the native protocol would carry it.
    let mut frozen = 4i32.to_be_bytes().to_vec();
    for e in ["v11", "v12", "v13", "v14"] {
        frozen.extend((e.len() as i32).to_be_bytes());
        frozen.extend(e.as_bytes());
    }
    assert_eq!(
        format_value(&b, &frozen).text,
        "{'v11', 'v12', 'v13', 'v14'}"
    );
    assert_eq!(
        parse_value(&b, "{'v11', 'v12', 'v13', 'v14'}").unwrap(),
        frozen
    );
    assert_eq!(key_type(&h), AbstractType::Int32);
}
