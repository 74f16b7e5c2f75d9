//! CompressionInfo.db, Digest.*, CRC.db and Summary.db decoded from the real Cassandra fixtures
//! (MANIFEST.md §2, §3, §5–§7). Values are the MANIFEST's or recomputed here from Data.db/Index.db.

use crate::common;

use std::path::{Path, PathBuf};

use sstable_engine::component::crc::ChecksumType;
use sstable_engine::component::digest::DigestValue;
use sstable_engine::component::{compression_info, crc, digest, summary};
use sstable_engine::component::{ComponentType, DigestAlgorithm};
use sstable_engine::descriptor::parse_file_name;
use sstable_engine::{Format, Version};

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn file_name(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).unwrap()
}

fn version_of(p: &Path) -> Version {
    parse_file_name(file_name(p))
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .0
        .version
}

/// The same sstable's file for another component (`…-CRC.db` → `…-Data.db`).
fn sibling(p: &Path, from: &str, to: &str) -> PathBuf {
    let name = file_name(p);
    let base = name.strip_suffix(from).unwrap();
    p.with_file_name(format!("{base}{to}"))
}

/// Every fixture file whose name ends with `-<suffix>`, sorted.
fn files_with_suffix(fx: &Path, suffix: &str) -> Vec<PathBuf> {
    let tail = format!("-{suffix}");
    common::files_under(fx)
        .into_iter()
        .filter(|f| f.ends_with(&tail))
        .map(|f| fx.join(f))
        .collect()
}

/// The one file of `dir` whose name ends with `-<suffix>`.
fn component_in(dir: &Path, suffix: &str) -> PathBuf {
    let found = files_with_suffix(dir, suffix);
    assert_eq!(found.len(), 1, "{} in {}: {found:?}", suffix, dir.display());
    found.into_iter().next().unwrap()
}

fn big(v: &str) -> Version {
    Version::parse(Format::Big, v).unwrap()
}

fn adler32(bytes: &[u8]) -> u32 {
    adler32::RollingAdler32::from_buffer(bytes).hash()
}

/// Every prefix and every single-byte flip (xor 0xff) of `bytes` decodes to Ok or Err.
fn assert_robust(name: &str, bytes: &[u8], decode: impl Fn(&[u8])) {
    for len in 0..bytes.len() {
        decode(&bytes[..len]);
    }
    let mut flipped = bytes.to_vec();
    for i in 0..bytes.len() {
        flipped[i] ^= 0xff;
        decode(&flipped);
        flipped[i] ^= 0xff;
    }
    assert_eq!(flipped, bytes, "{name}");
}

const LEGACY_VERSIONS: [&str; 13] = [
    "jb", "ka", "la", "ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da",
];

/// MANIFEST §3: uncompressed Data.db lengths of simple, simple_counter, clust, clust_counter.
fn manifest_data_lengths(v: &str) -> Option<[u64; 4]> {
    Some(match v {
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
        _ => return None,
    })
}

fn version_for_dir(v: &str) -> Version {
    if v == "da" {
        Version::parse(Format::Bti, v).unwrap()
    } else {
        big(v)
    }
}

/// Chunk checksums and LZ4 length prefixes recomputed from Data.db, independently of the
/// decoder's helpers: the offsets must tile Data.db and the prefixes must add up to the data length.
fn check_chunks_against_data(ci: &compression_info::CompressionInfo, data: &[u8], v: &Version) {
    let adler = v.format() == Format::Big && ("jb".."ma").contains(&v.as_str());
    let offsets = &ci.chunk_offsets;
    let chunk_len = u64::from(ci.chunk_length_bytes.value);
    let mut total = 0u64;
    for (i, &start) in offsets.iter().enumerate() {
        let end = offsets.get(i + 1).copied().unwrap_or(data.len() as u64);
        let chunk = &data[start as usize..end as usize];
        let (stored, sum) = chunk.split_at(chunk.len() - 4);
        let want = u32::from_be_bytes(sum.try_into().unwrap());
        let got = if adler {
            adler32(stored)
        } else {
            crc32fast::hash(stored)
        };
        assert_eq!(got, want, "chunk {i} checksum");
        let raw = ci
            .max_compressed_length_bytes
            .as_ref()
            .is_some_and(|m| stored.len() as u64 >= u64::from(m.value));
        assert!(!raw);
        let prefix = u64::from(u32::from_le_bytes(stored[..4].try_into().unwrap()));
        let expected = chunk_len.min(
            ci.data_length_bytes
                .value
                .saturating_sub(i as u64 * chunk_len),
        );
        assert_eq!(prefix, expected, "chunk {i} LZ4 length prefix");
        assert_eq!(ci.chunk_span(i, data.len() as u64), Some((start, end)));
        assert_eq!(ci.chunk_uncompressed_len(i), Some(expected));
        total += prefix;
    }
    assert_eq!(total, ci.data_length_bytes.value);
}

#[test]
fn compression_info_of_every_legacy_table() {
    let Some(fx) = common::cassandra_fixtures("small_components::compression_info_legacy") else {
        return;
    };
    let mut checked = 0;
    for v in LEGACY_VERSIONS {
        let version = version_for_dir(v);
        let small_chunks = matches!(v, "nb" | "nc" | "oa" | "da");
        for (t, table) in ["simple", "simple_counter", "clust", "clust_counter"]
            .into_iter()
            .enumerate()
        {
            let dir = common::legacy_dir(&fx, v, &format!("legacy_{v}_{table}"));
            let path = component_in(&dir, "CompressionInfo.db");
            assert_eq!(version_of(&path), version);
            let ci = compression_info::decode(&read(&path), &version).unwrap();
            let data = read(&sibling(&path, "CompressionInfo.db", "Data.db"));
            assert_eq!(ci.compressor_class.value, "LZ4Compressor", "{v} {table}");
            assert_eq!(ci.compressor_class.span.len_bytes(), 15);
            assert_eq!(ci.compressor, "LZ4Compressor");
            assert_eq!(ci.option_count.value, 0);
            assert!(ci.options.is_empty());
            let chunk = if small_chunks { 16_384 } else { 65_536 };
            assert_eq!(ci.chunk_length_bytes.value, chunk, "{v} {table}");
            if version.has_max_compressed_length() {
                let m = ci.max_compressed_length_bytes.as_ref().unwrap();
                assert_eq!(m.value, 0x7fff_ffff, "{v} {table}");
            } else {
                assert_eq!(ci.max_compressed_length_bytes, None, "{v} {table}");
            }
            assert!(
                matches!(v, "na" | "nb" | "nc" | "oa" | "da")
                    == version.has_max_compressed_length()
            );
            match manifest_data_lengths(v) {
                Some(lens) => assert_eq!(ci.data_length_bytes.value, lens[t], "{v} {table}"),
                None if table == "clust" => assert_eq!(ci.data_length_bytes.value, 644_235),
                None => {}
            }
            let want_chunks = ci.data_length_bytes.value.div_ceil(u64::from(chunk));
            assert_eq!(u64::from(ci.chunk_count.value), want_chunks);
            assert_eq!(ci.chunk_offsets.len() as u64, want_chunks);
            assert!(ci.warnings.is_empty(), "{v} {table}: {:?}", ci.warnings);
            assert_eq!(ci.trailing, None);
            assert_eq!(ci.chunk_offsets_span.end, ci.span.end);
            check_chunks_against_data(&ci, &data, &version);
            let ratio = ci.compression_ratio(data.len() as u64).unwrap();
            assert!(ratio > 0.0 && ratio < 2.0, "{ratio}");
            checked += 1;
        }
    }
    assert_eq!(checked, 52);
}

#[test]
fn compression_info_manifest_examples() {
    let Some(fx) = common::cassandra_fixtures("small_components::compression_info_examples") else {
        return;
    };
    let nb_dir = common::legacy_dir(&fx, "nb", "legacy_nb_clust");
    let ci = compression_info::decode(
        &read(&nb_dir.join("nb-1-big-CompressionInfo.db")),
        &big("nb"),
    )
    .unwrap();
    assert_eq!(ci.chunk_count.value, 21);
    assert_eq!(ci.data_length_bytes.value, 336_016);
    assert_eq!(&ci.chunk_offsets[..4], [0, 424, 836, 1249]);
    let data_len = read(&nb_dir.join("nb-1-big-Data.db")).len() as u64;
    // MANIFEST §7: chunk 1 covers [424, 836), its CRC32 at 832..835.
    assert_eq!(ci.chunk_span(1, data_len), Some((424, 836)));
    assert_eq!(ci.chunk_for_position(0), Some(0));
    assert_eq!(ci.chunk_for_position(16_384), Some(1));
    assert_eq!(ci.chunk_for_position(336_015), Some(20));
    assert_eq!(ci.chunk_for_position(336_016), None);
    // Header bytes: 000d "LZ4Compressor" 00000000 00004000 7fffffff 0000000000052090 00000015.
    assert_eq!(ci.chunk_length_bytes.span.start, 19);
    assert_eq!(
        ci.max_compressed_length_bytes.as_ref().unwrap().span.start,
        23
    );
    assert_eq!(ci.data_length_bytes.span.start, 27);
    assert_eq!(ci.chunk_count.span.start, 35);
    assert_eq!(ci.chunk_offset_span(1).unwrap().start, 47);
    let node = ci.to_node();
    assert_eq!(node.find_at(48).unwrap().label, "chunk 1");
    assert_eq!(node.find_at(30).unwrap().label, "data length");

    let da = Version::parse(Format::Bti, "da").unwrap();
    let da_dir = common::legacy_dir(&fx, "da", "legacy_da_clust");
    let ci =
        compression_info::decode(&read(&da_dir.join("da-1-bti-CompressionInfo.db")), &da).unwrap();
    assert_eq!(ci.chunk_count.value, 21);
    assert_eq!(&ci.chunk_offsets[..4], [0, 417, 829, 1240]);

    let oa_dir = common::legacy_dir(&fx, "oa", "legacy_oa_simple");
    let ci = compression_info::decode(
        &read(&oa_dir.join("oa-1-big-CompressionInfo.db")),
        &big("oa"),
    )
    .unwrap();
    assert_eq!(ci.chunk_count.value, 1);
    assert_eq!(ci.chunk_offsets, [0]);
    assert_eq!(ci.data_length_bytes.value, 118);
    let data_len = read(&oa_dir.join("oa-1-big-Data.db")).len() as u64;
    assert_eq!(data_len, 78);
    assert_eq!(ci.chunk_span(0, data_len), Some((0, 78)));
    assert_eq!(ci.is_chunk_stored_raw(0, data_len), Some(false));
}

#[test]
fn compression_info_of_every_fixture_matches_its_data() {
    let Some(fx) = common::cassandra_fixtures("small_components::compression_info_all") else {
        return;
    };
    let files = files_with_suffix(&fx, "CompressionInfo.db");
    assert!(files.len() > 100, "{}", files.len());
    for path in files {
        let version = version_of(&path);
        let ci = compression_info::decode(&read(&path), &version)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if file_name(&path) == "mb-3-big-CompressionInfo.db" {
            // cf_with_duplicates_3_0 ends with a surplus empty chunk (LZ4 length 0): a finding.
            assert_eq!(
                ci.warnings,
                ["2 chunks stored, but 59 bytes in 65536-byte chunks need 1"]
            );
            assert_eq!(ci.chunk_uncompressed_len(1), Some(0));
        } else {
            assert!(
                ci.warnings.is_empty(),
                "{}: {:?}",
                path.display(),
                ci.warnings
            );
        }
        assert_eq!(ci.compressor, "LZ4Compressor", "{}", path.display());
        let data = read(&sibling(&path, "CompressionInfo.db", "Data.db"));
        check_chunks_against_data(&ci, &data, &version);
    }
}

#[test]
fn compression_info_survives_truncation_and_flips() {
    let Some(fx) = common::cassandra_fixtures("small_components::compression_info_robust") else {
        return;
    };
    for (v, table) in [("nb", "legacy_nb_clust"), ("ka", "legacy_ka_simple")] {
        let path = component_in(&common::legacy_dir(&fx, v, table), "CompressionInfo.db");
        let version = big(v);
        assert_robust(table, &read(&path), |b| {
            if let Ok(ci) = compression_info::decode(b, &version) {
                let _ = ci.to_node();
                let _ = ci.chunk_span(0, 1 << 20);
                let _ = ci.chunk_for_position(1 << 40);
                let _ = ci.compression_ratio(1000);
                let _ = ci.is_chunk_stored_raw(0, 1 << 20);
            }
        });
    }
}

#[test]
fn digests_match_their_data_files() {
    let Some(fx) = common::cassandra_fixtures("small_components::digests") else {
        return;
    };
    let mut checked = 0;
    let mut sha1 = 0;
    for suffix in ["Digest.crc32", "Digest.adler32", "Digest.sha1"] {
        let ComponentType::Digest(algorithm) = ComponentType::from_suffix(suffix) else {
            unreachable!()
        };
        for path in files_with_suffix(&fx, suffix) {
            let version = version_of(&path);
            let d = digest::decode(&read(&path), algorithm, &version)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(d.file_algorithm, algorithm);
            assert!(
                d.warnings.is_empty(),
                "{}: {:?}",
                path.display(),
                d.warnings
            );
            let data = read(&sibling(&path, suffix, "Data.db"));
            let computed = match d.algorithm {
                DigestAlgorithm::Crc32 => crc32fast::hash(&data),
                DigestAlgorithm::Adler32 => adler32(&data),
                DigestAlgorithm::Sha1 => {
                    sha1 += 1;
                    continue;
                }
            };
            let stored = d.checksum().unwrap();
            if file_name(&path).contains("legacy_ka_14912") {
                // MANIFEST §5: a real mismatch in a committed fixture.
                assert_eq!(stored, 2_565_739_962);
                assert_eq!(computed, 4_125_366_287);
            } else {
                assert_eq!(stored, computed, "{}", path.display());
            }
            checked += 1;
        }
    }
    // Every decimal digest in the tree, and the two SHA-1 ones (jb Keyspace1, ic).
    assert_eq!(sha1, 2);
    assert!(checked >= 100, "{checked}");
}

#[test]
fn digest_manifest_values() {
    let Some(fx) = common::cassandra_fixtures("small_components::digest_values") else {
        return;
    };
    let da = Version::parse(Format::Bti, "da").unwrap();
    for (dir, name, version, want) in [
        (
            common::legacy_dir(&fx, "nb", "legacy_nb_clust"),
            "nb-1-big-Digest.crc32",
            big("nb"),
            2_568_411_107u32,
        ),
        (
            common::legacy_dir(&fx, "da", "legacy_da_clust"),
            "da-1-bti-Digest.crc32",
            da,
            1_983_729_251,
        ),
        (
            common::legacy_dir(&fx, "oa", "legacy_oa_simple"),
            "oa-1-big-Digest.crc32",
            big("oa"),
            309_360_903,
        ),
    ] {
        let bytes = read(&dir.join(name));
        let d = digest::decode(&bytes, DigestAlgorithm::Crc32, &version).unwrap();
        assert_eq!(d.checksum(), Some(want), "{name}");
        assert_eq!(d.algorithm, DigestAlgorithm::Crc32);
        assert_eq!(d.checksum_type(), Some(ChecksumType::Crc32));
        match &d.value {
            DigestValue::Checksum(v) => assert_eq!(v.span.len_bytes(), bytes.len() as u64),
            other => panic!("{other:?}"),
        }
    }

    let ka = component_in(
        &common::legacy_dir(&fx, "ka", "legacy_ka_14912"),
        "Digest.sha1",
    );
    let d = digest::decode(&read(&ka), DigestAlgorithm::Sha1, &big("ka")).unwrap();
    assert_eq!(d.checksum(), Some(2_565_739_962));
    assert_eq!(d.file_algorithm, DigestAlgorithm::Sha1);
    assert_eq!(d.algorithm, DigestAlgorithm::Adler32);
    assert_eq!(d.checksum_type(), Some(ChecksumType::Adler32));
    let data = read(&sibling(&ka, "Digest.sha1", "Data.db"));
    assert_eq!(adler32(&data), 4_125_366_287);
    assert_ne!(adler32(&data), 2_565_739_962);
    assert_eq!(ChecksumType::Adler32.checksum(&data), 4_125_366_287);

    let jb = fx.join("legacy-sstables/jb/Keyspace1/Keyspace1-Standard1-jb-0-Digest.sha1");
    let d = digest::decode(&read(&jb), DigestAlgorithm::Sha1, &big("jb")).unwrap();
    assert_eq!(d.algorithm, DigestAlgorithm::Sha1);
    assert_eq!(
        d.sha1_hex(),
        Some("4a9f1896a599e4b3ff5d19600901de1a0b851bc1")
    );
    match &d.value {
        DigestValue::Sha1 { hex, file_name } => {
            assert_eq!(hex.span.start, 0);
            assert_eq!(hex.span.end, 40);
            assert_eq!(
                file_name.as_ref().unwrap().value,
                "Keyspace1-Standard1-jb-0-Data.db"
            );
        }
        other => panic!("{other:?}"),
    }
    let node = d.to_node();
    assert_eq!(node.find_at(45).unwrap().label, "file name");
}

#[test]
fn digests_survive_truncation_and_flips() {
    let Some(fx) = common::cassandra_fixtures("small_components::digest_robust") else {
        return;
    };
    let nb = common::legacy_dir(&fx, "nb", "legacy_nb_clust").join("nb-1-big-Digest.crc32");
    let jb = fx.join("legacy-sstables/jb/Keyspace1/Keyspace1-Standard1-jb-0-Digest.sha1");
    for (path, algorithm, version) in [
        (nb, DigestAlgorithm::Crc32, big("nb")),
        (jb, DigestAlgorithm::Sha1, big("jb")),
    ] {
        assert_robust(file_name(&path), &read(&path), |b| {
            if let Ok(d) = digest::decode(b, algorithm, &version) {
                let _ = d.to_node();
            }
        });
    }
}

#[test]
fn crc_files_match_their_data_files() {
    let Some(fx) = common::cassandra_fixtures("small_components::crc") else {
        return;
    };
    let files = files_with_suffix(&fx, "CRC.db");
    assert_eq!(files.len(), 4, "{files:?}");
    for path in files {
        let version = version_of(&path);
        let c = crc::decode(&read(&path), &version).unwrap();
        let data = read(&sibling(&path, "CRC.db", "Data.db"));
        // 2.0 (jb) still used CRC32 here; 2.1 (ka) switched to Adler32.
        let adler = version.as_str() == "ka";
        assert!(
            matches!(version.as_str(), "jb" | "ka"),
            "{}",
            path.display()
        );
        let want_type = if adler {
            ChecksumType::Adler32
        } else {
            ChecksumType::Crc32
        };
        assert_eq!(c.algorithm, want_type, "{}", path.display());
        assert_eq!(c.chunk_size_bytes.value, 65_536);
        assert_eq!(c.chunk_size_bytes.span.end, 4);
        let chunks: Vec<&[u8]> = data.chunks(65_536).collect();
        assert_eq!(c.checksums.len(), chunks.len());
        assert_eq!(c.checksums.len(), 1);
        for (i, chunk) in chunks.iter().enumerate() {
            let want = if adler {
                adler32(chunk)
            } else {
                crc32fast::hash(chunk)
            };
            assert_eq!(c.checksums[i], want, "{} chunk {i}", path.display());
            assert_eq!(c.checksum_span(i).unwrap().start, 4 + 4 * i as u64);
        }
        assert!(c.verify(&data).is_empty());
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert_eq!(c.trailing, None);
        let mut bad = data.clone();
        bad[0] ^= 1;
        assert_eq!(c.verify(&bad).len(), 1);
    }
}

#[test]
fn crc_survives_truncation_and_flips() {
    let Some(fx) = common::cassandra_fixtures("small_components::crc_robust") else {
        return;
    };
    let path = fx.join("legacy-sstables/jb/Keyspace1/Keyspace1-Standard1-jb-0-CRC.db");
    assert_robust("jb CRC.db", &read(&path), |b| {
        if let Ok(c) = crc::decode(b, &big("jb")) {
            let _ = c.to_node();
            let _ = c.verify(&[0u8; 100]);
        }
    });
}

/// The partition key at `position` of an Index.db (every version starts an entry with a
/// short-length key).
fn index_key_at(index: &[u8], position: u64) -> &[u8] {
    let p = position as usize;
    let len = u16::from_be_bytes([index[p], index[p + 1]]) as usize;
    &index[p + 2..p + 2 + len]
}

#[test]
fn summaries_of_the_generated_legacy_tables() {
    let Some(fx) = common::cassandra_fixtures("small_components::summary_legacy") else {
        return;
    };
    let mut checked = 0;
    for v in [
        "jb", "ka", "la", "ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa",
    ] {
        let version = big(v);
        let compact = !matches!(v, "nb" | "nc" | "oa");
        let tables = ["simple", "simple_counter", "clust", "clust_counter"];
        let names: Vec<String> = tables
            .iter()
            .map(|t| format!("legacy_{v}_{t}"))
            .chain(
                tables
                    .iter()
                    .filter(|_| compact)
                    .map(|t| format!("legacy_{v}_{t}_compact")),
            )
            .collect();
        for table in names {
            let path = component_in(&common::legacy_dir(&fx, v, &table), "Summary.db");
            let s = summary::decode(&read(&path), &version).unwrap();
            assert!(s.warnings.is_empty(), "{table}: {:?}", s.warnings);
            assert_eq!(s.min_index_interval.value, 128, "{table}");
            assert_eq!(s.entry_count.value, 1, "{table}");
            assert_eq!(s.first_key.value, b"0", "{table}");
            assert_eq!(s.last_key.value, b"4", "{table}");
            assert_eq!(s.entries.len(), 1);
            assert_eq!(s.entries[0].key.value, b"0");
            assert_eq!(s.entries[0].index_position.value, 0);
            assert_eq!(s.offsets, [4]);
            assert_eq!(s.summary_size_bytes.as_ref().unwrap().value, 4 + 1 + 8);
            if v == "jb" {
                assert_eq!(s.sampling_level, None);
                assert_eq!(s.size_at_full_sampling, None);
            } else {
                assert_eq!(s.sampling_level.as_ref().unwrap().value, 128, "{table}");
                assert_eq!(s.size_at_full_sampling.as_ref().unwrap().value, 1);
            }
            // 2.x appends the disk-access modes; 3.0+ ends at the last key.
            assert_eq!(
                s.trailing.is_some(),
                matches!(v, "jb" | "ka" | "la"),
                "{table}"
            );
            assert_eq!(
                s.last_key.span.end,
                s.trailing.map_or(s.span.end, |t| t.start)
            );
            let index = read(&sibling(&path, "Summary.db", "Index.db"));
            assert_eq!(index_key_at(&index, 0), b"0");
            checked += 1;
        }
    }
    assert_eq!(checked, 3 * 8 + 6 * 8 + 3 * 4);
}

#[test]
fn every_summary_entry_points_at_its_key_in_index_db() {
    let Some(fx) = common::cassandra_fixtures("small_components::summary_all") else {
        return;
    };
    let files = files_with_suffix(&fx, "Summary.db");
    assert!(files.len() > 100, "{}", files.len());
    for path in files {
        let version = version_of(&path);
        let s = summary::decode(&read(&path), &version)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            s.warnings.is_empty(),
            "{}: {:?}",
            path.display(),
            s.warnings
        );
        assert_eq!(s.entries.len() as u32, s.entry_count.value);
        let index = read(&sibling(&path, "Summary.db", "Index.db"));
        for e in &s.entries {
            assert_eq!(
                index_key_at(&index, e.index_position.value),
                &e.key.value[..],
                "{}",
                path.display()
            );
        }
        assert_eq!(index_key_at(&index, 0), &s.first_key.value[..]);
        assert_eq!(s.entries[0].index_position.value, 0, "{}", path.display());
    }
}

#[test]
fn summary_of_murmur3_tables_matches_their_index() {
    let Some(fx) = common::cassandra_fixtures("small_components::summary_bloom") else {
        return;
    };
    for (dir, prefix, v) in [
        ("other/bloom-filter/ka/foo", "foo-atable-ka-1-", "ka"),
        ("other/bloom-filter/la/foo", "la-1-big-", "la"),
    ] {
        let dir = fx.join(dir);
        let s = summary::decode(&read(&dir.join(format!("{prefix}Summary.db"))), &big(v)).unwrap();
        // MANIFEST §6: Index.db order 5, 10, 1, 8, 2, 4, 7, 6, 9, 3.
        assert_eq!(s.first_key.value, 5i32.to_be_bytes());
        assert_eq!(s.last_key.value, 3i32.to_be_bytes());
        assert_eq!(s.entries[0].key.value, 5i32.to_be_bytes());
        // Walk Index.db (pre-3.0 entries: short-length key, i64 position, i32 promoted size 0).
        let index = read(&dir.join(format!("{prefix}Index.db")));
        let mut keys = Vec::new();
        let mut p = 0;
        while p < index.len() {
            let key = index_key_at(&index, p as u64).to_vec();
            p += 2 + key.len() + 8;
            let promoted = i32::from_be_bytes(index[p..p + 4].try_into().unwrap());
            p += 4 + promoted as usize;
            keys.push(key);
        }
        let order: Vec<Vec<u8>> = [5, 10, 1, 8, 2, 4, 7, 6, 9, 3]
            .iter()
            .map(|k: &i32| k.to_be_bytes().to_vec())
            .collect();
        assert_eq!(keys, order);
        assert_eq!(&s.first_key.value, keys.first().unwrap());
        assert_eq!(&s.last_key.value, keys.last().unwrap());
        assert_eq!(s.min_index_interval.value, 128);
        assert_eq!(s.sampling_level.as_ref().unwrap().value, 128);
        let node = s.to_node();
        assert_eq!(
            node.find_at(s.first_key.span.start).unwrap().label,
            "first key"
        );
    }
}

#[test]
fn summary_with_several_entries_and_the_1_2_layout() {
    let Some(fx) = common::cassandra_fixtures("small_components::summary_jb_ic") else {
        return;
    };
    let jb = fx.join("legacy-sstables/jb/Keyspace1/Keyspace1-Standard1-jb-0-Summary.db");
    let s = summary::decode(&read(&jb), &big("jb")).unwrap();
    let keys: Vec<&[u8]> = s.entries.iter().map(|e| &e.key.value[..]).collect();
    assert_eq!(
        keys,
        [
            &b"100"[..],
            b"228",
            b"356",
            b"484",
            b"612",
            b"740",
            b"868",
            b"996"
        ]
    );
    assert_eq!(s.offsets, [32, 43, 54, 65, 76, 87, 98, 109]);
    assert_eq!(s.entries[1].index_position.value, 0x0880);
    assert_eq!(s.first_key.value, b"100");
    assert_eq!(s.last_key.value, b"999");
    assert_eq!(s.trailing.unwrap().len_bytes(), 12);

    let ic = fx.join(
        "other/invalid-legacy-sstables/Keyspace1/Standard1/Keyspace1-Standard1-ic-0-Summary.db",
    );
    let s = summary::decode(&read(&ic), &big("ic")).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.summary_size_bytes, None);
    assert_eq!(s.entries.len(), 1);
    assert_eq!(s.entries[0].key.value, b"key0");
    assert_eq!(s.entries[0].index_position.value, 0);
    assert_eq!(s.first_key.value, b"key0");
    assert_eq!(s.last_key.value, b"key9");
}

#[test]
fn summaries_survive_truncation_and_flips() {
    let Some(fx) = common::cassandra_fixtures("small_components::summary_robust") else {
        return;
    };
    let cases = [
        (
            common::legacy_dir(&fx, "nb", "legacy_nb_clust").join("nb-1-big-Summary.db"),
            big("nb"),
        ),
        (
            component_in(&common::legacy_dir(&fx, "ka", "legacy_ka_simple"), "Summary.db"),
            big("ka"),
        ),
        (
            fx.join("legacy-sstables/jb/Keyspace1/Keyspace1-Standard1-jb-0-Summary.db"),
            big("jb"),
        ),
        (
            fx.join(
                "other/invalid-legacy-sstables/Keyspace1/Standard1/Keyspace1-Standard1-ic-0-Summary.db",
            ),
            big("ic"),
        ),
    ];
    for (path, version) in cases {
        assert_robust(file_name(&path), &read(&path), |b| {
            if let Ok(s) = summary::decode(b, &version) {
                let _ = s.to_node();
                let _ = s.effective_index_interval();
            }
        });
    }
}

/// The metadata of the SSTable in `dir` (every file whole), with `edit` applied to its files.
fn metadata_with(
    dir: &Path,
    edit: impl Fn(&ComponentType, &mut Vec<u8>) -> bool,
) -> sstable_engine::info::SSTableMetadata {
    let mut files: Vec<(ComponentType, Vec<u8>)> = Vec::new();
    let mut descriptor = None;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let (d, c) = parse_file_name(&name).unwrap();
        descriptor = Some(d);
        let mut bytes = read(&e.path());
        if edit(&c, &mut bytes) {
            files.push((c, bytes));
        }
    }
    let inputs: Vec<sstable_engine::info::ComponentInput<'_>> = files
        .iter()
        .map(|(c, b)| sstable_engine::info::ComponentInput {
            component: c,
            size_bytes: b.len() as u64,
            bytes: Some(b.as_slice()),
        })
        .collect();
    sstable_engine::info::decode_metadata(&descriptor.unwrap(), &inputs)
}

/// What Cassandra refuses on open (`CompressionMetadata`) is an error of `info`, typed and
/// named by offset; what it reads fine is a finding.
#[test]
fn unusable_compression_info_is_an_error_of_the_sstable() {
    let Some(fx) = common::cassandra_fixtures("small_components::unusable_compression_info") else {
        return;
    };
    let dir = fx.join("legacy-sstables/nb/legacy_tables/legacy_nb_clust");
    let refusals = |m: &sstable_engine::info::SSTableMetadata| -> Vec<String> {
        m.errors
            .iter()
            .filter(|e| e.what() == compression_info::REFUSAL_CONTEXT)
            .map(|e| format!("{} @{}", e.kind(), e.offset()))
            .collect()
    };
    let clean = metadata_with(&dir, |_, _| true);
    assert!(clean.errors.is_empty(), "{:?}", clean.errors);
    let ci = clean.compression.as_ref().unwrap();
    let data_len = read(&component_in(&dir, "Data.db")).len() as u64;
    assert!(ci.is_usable(Some(data_len)));
    let count_at = ci.chunk_count.span.start as usize;
    let chunks = ci.chunk_count.value;
    assert!(chunks > 10, "{chunks}");

    // The chunk table zeroed: 0 chunks for the data length.
    let zeroed = metadata_with(&dir, |c, b| {
        if *c == ComponentType::CompressionInfo {
            b.truncate(count_at);
            b.extend_from_slice(&0u32.to_be_bytes());
        }
        true
    });
    let found = refusals(&zeroed);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("0 chunks for "), "{found:?}");
    assert!(found[0].ends_with(&format!("@{count_at}")), "{found:?}");

    // A chunk length of 3 KiB (not a power of two), and a Data.db cut short of the last chunk.
    let chunk_len_at = ci.chunk_length_bytes.span.start as usize;
    let bad = metadata_with(&dir, |c, b| {
        match c {
            ComponentType::CompressionInfo => {
                b[chunk_len_at..chunk_len_at + 4].copy_from_slice(&3072u32.to_be_bytes())
            }
            ComponentType::Data => b.truncate(10),
            _ => {}
        }
        true
    });
    let found = refusals(&bad);
    assert!(
        found
            .iter()
            .any(|m| m.starts_with("chunk length 3072 is not a positive power of two")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|m| m.contains("does not fit in the 10-byte Data.db")),
        "{found:?}"
    );

    // Bytes after the table: a finding naming where they start.
    let end = read(&component_in(&dir, "CompressionInfo.db")).len();
    let trailing = metadata_with(&dir, |c, b| {
        if *c == ComponentType::CompressionInfo {
            b.extend_from_slice(b"junk");
        }
        true
    });
    assert!(trailing.errors.is_empty(), "{:?}", trailing.errors);
    assert!(
        trailing.findings.iter().any(|f| f.message
            == format!("4 unexpected bytes after the chunk offsets (at offset {end})")),
        "{:?}",
        trailing.findings
    );
}
