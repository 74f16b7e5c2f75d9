//! `sstable_engine::checksum`: the CRC32 of every fixture's Data.db, as stored, equals
//! crc32fast's — by the portable slicing-by-16 path, the portable Chorba fold (the wasm paths'
//! algorithm on `u64` lanes), the build's default path, and split in two and combined. (The wasm
//! simd128 path runs the same checks in `tests/browser.rs`.)

use crate::common;

use sstable_engine::checksum::{self, chorba, scalar, Crc32};

#[test]
fn every_fixture_data_db_equals_crc32fast() {
    let Some(dir) = common::cassandra_fixtures("every_fixture_data_db_equals_crc32fast") else {
        return;
    };
    let files: Vec<String> = common::files_under(&dir)
        .into_iter()
        .filter(|p| p.ends_with("Data.db"))
        .collect();
    assert!(files.len() >= 100, "only {} Data.db files", files.len());
    let mut total_bytes = 0usize;
    for path in &files {
        let bytes = std::fs::read(dir.join(path)).unwrap();
        total_bytes += bytes.len();
        let want = crc32fast::hash(&bytes);
        assert_eq!(checksum::crc32(&bytes), want, "{path}");
        assert_eq!(scalar::crc32(&bytes), want, "{path} (scalar)");
        assert_eq!(chorba::crc32(&bytes), want, "{path} (chorba)");
        let (a, b) = bytes.split_at(bytes.len() / 3);
        assert_eq!(
            checksum::combine(scalar::crc32(a), scalar::crc32(b), b.len() as u64),
            want,
            "{path} (combined)"
        );
        let mut h = Crc32::new();
        h.update(a);
        let mut tail = Crc32::new();
        tail.update(b);
        h.combine(&tail);
        assert_eq!(h.finalize(), want, "{path} (Crc32::combine)");
    }
    assert!(total_bytes > 500_000);
}

#[test]
fn native_builds_use_crc32fast() {
    assert_eq!(checksum::implementation(), "crc32fast");
}
