//! `sstable-inspect generate`: writes a complete SSTable that the engine's decoders and the
//! `info` command read back; bad usage exits 2.

use crate::common;
use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sstable_engine::component::{crc, filter, statistics};
use sstable_engine::{Format, Version};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
}

fn temp_dir(name: &str) -> PathBuf {
    support::fresh_temp_dir("generate", name)
}

/// `nb`, 200 partitions × 20 rows in LZ4 chunks of 4 KiB, seed 3, 10 % TTLs and tombstones.
fn nb_options() -> Vec<&'static str> {
    let mut args = support::NB_200_BY_20_LZ4_4K.to_vec();
    args.extend([
        "--seed",
        "3",
        "--ttl-fraction",
        "0.1",
        "--tombstone-fraction",
        "0.1",
    ]);
    args
}

fn generate(dir: &Path, extra: &[&str]) -> Output {
    bin()
        .arg("generate")
        .arg("--out")
        .arg(dir)
        .args(extra)
        .output()
        .expect("run sstable-inspect generate")
}

#[test]
fn generate_writes_a_readable_nb_sstable() {
    let dir = temp_dir("nb");
    let out = generate(&dir, &nb_options());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("200 partitions, 4000 rows"), "{stdout}");
    assert_eq!(
        common::files_under(&dir),
        [
            "nb-1-big-CompressionInfo.db",
            "nb-1-big-Data.db",
            "nb-1-big-Digest.crc32",
            "nb-1-big-Filter.db",
            "nb-1-big-Index.db",
            "nb-1-big-Statistics.db",
            "nb-1-big-Summary.db",
            "nb-1-big-TOC.txt",
        ]
    );

    // The engine's decoders read it back.
    let v = Version::parse(Format::Big, "nb").unwrap();
    let read = |c: &str| std::fs::read(dir.join(format!("nb-1-big-{c}"))).unwrap();
    let stats = statistics::decode(&read("Statistics.db"), &v).unwrap();
    assert!(stats.errors.is_empty() && stats.checksums_ok());
    assert_eq!(stats.estimated_partition_count(), Some(200));
    let f = filter::decode(&read("Filter.db"), &v).unwrap();
    assert_eq!(f.hash_count(), 5);
    let data = read("Data.db");
    let digest: u32 = String::from_utf8(read("Digest.crc32"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(digest, crc32fast::hash(&data));

    // `info` reads it back without errors.
    let info = bin().arg("info").arg(&dir).arg("--json").output().unwrap();
    assert_eq!(
        info.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&info.stderr)
    );
    let json: Value = serde_json::from_slice(&info.stdout).unwrap();
    let t = &json[0];
    assert_eq!(t["version"], "nb");
    assert_eq!(t["errors"].as_array().map(Vec::len), Some(0));
    assert_eq!(t["stats"]["estimated_partition_count"], 200);
    assert_eq!(t["stats"]["metadata_checksums_ok"], true);
    assert_eq!(t["compression"]["compressor"], "LZ4Compressor");
    assert_eq!(t["compression"]["chunk_length"], 4096);
    assert_eq!(
        t["validation"]["partitioner"],
        "org.apache.cassandra.dht.Murmur3Partitioner"
    );

    // The same options give the same bytes.
    let again = temp_dir("nb-again");
    let out = generate(&again, &nb_options());
    assert_eq!(out.status.code(), Some(0));
    for name in common::files_under(&dir) {
        assert_eq!(
            std::fs::read(dir.join(&name)).unwrap(),
            std::fs::read(again.join(&name)).unwrap(),
            "{name} is deterministic"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&again);
}

#[test]
fn generate_uncompressed_oa_writes_crc_db() {
    let dir = temp_dir("oa-none");
    let out = generate(
        &dir,
        &[
            "--version",
            "oa",
            "--compression",
            "none",
            "--partitions",
            "10",
            "--rows-per-partition",
            "5",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files = common::files_under(&dir);
    assert!(files.contains(&"oa-1-big-CRC.db".to_owned()), "{files:?}");
    assert!(!files.iter().any(|f| f.ends_with("CompressionInfo.db")));
    let v = Version::parse(Format::Big, "oa").unwrap();
    let crc_file = crc::decode(&std::fs::read(dir.join("oa-1-big-CRC.db")).unwrap(), &v).unwrap();
    let data = std::fs::read(dir.join("oa-1-big-Data.db")).unwrap();
    assert_eq!(crc_file.chunk_size_bytes.value, 65536);
    assert!(crc_file.verify(&data).is_empty());
    let toc = std::fs::read_to_string(dir.join("oa-1-big-TOC.txt")).unwrap();
    assert_eq!(toc.lines().count(), files.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generate_bad_usage_exits_2() {
    let dir = temp_dir("bad");
    let full = |over: &[(&str, &str)]| -> Vec<String> {
        let mut args = vec![
            ("--version", "nb"),
            ("--compression", "lz4"),
            ("--partitions", "1"),
            ("--rows-per-partition", "1"),
        ];
        for (k, v) in over {
            match args.iter_mut().find(|(a, _)| a == k) {
                Some(slot) => slot.1 = v,
                None => args.push((k, v)),
            }
        }
        args.iter()
            .flat_map(|(k, v)| [k.to_string(), v.to_string()])
            .collect()
    };
    let cases: Vec<Vec<String>> = vec![
        vec![],
        vec!["--version".into(), "nb".into()],
        full(&[("--version", "da")]),
        full(&[("--compression", "brotli")]),
        full(&[("--partitions", "many")]),
        full(&[("--partitions", "0")]),
        full(&[("--ttl-fraction", "1.5")]),
        full(&[("--chunk-kib", "3")]),
        full(&[("--frobnicate", "1")]),
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = generate(&dir, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("USAGE"));
    }
    assert!(!dir.exists(), "bad usage writes nothing");
}
