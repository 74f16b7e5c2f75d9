//! One-pass verification of every checksum: the real fixtures (all valid but one, MANIFEST §5 and
//! §7), copies with flipped bytes and truncations, every codec, and bounded memory on a 64 MiB
//! synthetic Data.db.

use crate::common;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::future::Future;
use std::path::Path;

use sstable_engine::clock::{Clock, NoClock};
use sstable_engine::component::crc::ChecksumType;
use sstable_engine::component::statistics::{ChecksumPart, MetadataType};
use sstable_engine::component::{compression_info, digest, ComponentType, DigestAlgorithm};
use sstable_engine::compress::{compress_chunk, compress_lz4, Compressor};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::{AsyncDriver, ByteRange, RangeReader, SliceSource, SyncDriver};
use sstable_engine::sstable_set::{group_files, SSTableFiles};
use sstable_engine::verify::{
    CheckKind, FindingKind, PartitionRange, Phase, SplitOutcome, Verdict, Verifier, VerifyInput,
    VerifyOptions, VerifyReport, VerifyRun,
};
use sstable_engine::{ErrorKind, Format, Version};

/// One SSTable's files, as bytes (Data.db included, so tests can alter it).
struct SSTable {
    prefix: String,
    files: BTreeMap<ComponentType, Vec<u8>>,
    info: SSTableFiles,
}

impl SSTable {
    fn metadata(&self) -> SSTableMetadata {
        common::sstables::decode_components(
            &self.info.descriptor,
            self.files.iter().map(|(c, b)| (c, b.as_slice())),
        )
    }

    fn data(&self) -> &[u8] {
        &self.files[&ComponentType::Data]
    }

    fn file_mut(&mut self, c: &ComponentType) -> &mut Vec<u8> {
        self.files.get_mut(c).unwrap()
    }

    fn verify(&self, options: VerifyOptions) -> VerifyReport {
        self.verify_with(options, Vec::new())
    }

    fn verify_with(&self, options: VerifyOptions, partitions: Vec<PartitionRange>) -> VerifyReport {
        let m = self.metadata();
        let v = Verifier::for_sstable(&m, options)
            .unwrap()
            .with_partitions(partitions);
        drive(v, self.data(), &self.prefix)
    }
}

impl SSTable {
    /// Verifies through [`VerifyRun`] and the sync driver, as the CLI does: the partitions of
    /// a failing chunk are named from the SSTable's own index.
    fn run(&self, options: VerifyOptions) -> VerifyReport {
        let m = self.metadata();
        let mut run = VerifyRun::new(&m, options);
        let files: Vec<(ComponentType, &[u8])> = self
            .files
            .iter()
            .map(|(c, b)| (c.clone(), b.as_slice()))
            .collect();
        let mut driver = SyncDriver::new(SliceSource { files: &files });
        let outcome = driver.run(&mut run, &NoClock);
        run.finish(&self.prefix, outcome.err())
    }

    /// The same through the [`AsyncDriver`] (every read ready at once: one poll).
    fn run_async(&self, options: VerifyOptions) -> VerifyReport {
        let m = self.metadata();
        let mut run = VerifyRun::new(&m, options);
        let mut driver = AsyncDriver::new(|range: ByteRange| {
            let file = &self.files[&range.component];
            let end = (range.end() as usize).min(file.len());
            let bytes = file
                .get(range.offset as usize..end)
                .unwrap_or_default()
                .to_vec();
            std::future::ready(Ok(bytes))
        });
        let outcome = {
            let fut = driver.run(&mut run, &NoClock);
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            let mut fut = std::pin::pin!(fut);
            match fut.as_mut().poll(&mut cx) {
                std::task::Poll::Ready(r) => r,
                std::task::Poll::Pending => panic!("a ready read left the run pending"),
            }
        };
        run.finish(&self.prefix, outcome.err())
    }

    fn with_flip(&self, c: &ComponentType, at: usize, mask: u8) -> SSTable {
        let mut files = self.files.clone();
        files.get_mut(c).unwrap()[at] ^= mask;
        SSTable {
            prefix: self.prefix.clone(),
            files,
            info: self.info.clone(),
        }
    }
}

/// The keys each failure of the chunk check names, by chunk.
fn named(r: &VerifyReport) -> Vec<(Option<u64>, Vec<String>)> {
    r.check(CheckKind::Chunk)
        .map(|c| {
            c.failures
                .iter()
                .map(|f| (f.chunk, f.partitions.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// Hands the verifier Data.db bytes at `offset` through the byte-range protocol.
fn supply_at(
    v: &mut Verifier,
    offset: u64,
    bytes: &[u8],
    clock: &dyn Clock,
) -> sstable_engine::Result<()> {
    v.supply(
        &ByteRange::new(ComponentType::Data, offset, bytes.len() as u64),
        bytes,
        clock,
    )
}

/// Supplies exactly the ranges the verifier asks for.
fn drive(mut v: Verifier, data: &[u8], name: &str) -> VerifyReport {
    while let Some((offset, len)) = v.next_read().map(|r| (r.offset, r.len)) {
        let (s, e) = (offset as usize, (offset + len) as usize);
        supply_at(&mut v, offset, &data[s..e], &NoClock).unwrap();
    }
    assert_eq!(v.progress().done_bytes, data.len() as u64);
    v.finish(name)
}

fn load_all(fx: &Path) -> Vec<SSTable> {
    let files = common::files_under(fx);
    let grouping = group_files(&files);
    grouping
        .sstables
        .into_iter()
        .map(|info| SSTable {
            prefix: info.prefix.clone(),
            files: info
                .files
                .iter()
                .map(|(c, i)| (c.clone(), std::fs::read(fx.join(&files[*i])).unwrap()))
                .collect(),
            info,
        })
        .collect()
}

fn load(dir: &Path, prefix: &str) -> SSTable {
    let files: Vec<String> = common::files_under(dir)
        .into_iter()
        .filter(|f| f.starts_with(prefix))
        .collect();
    let grouping = group_files(&files);
    assert_eq!(grouping.sstables.len(), 1, "{dir:?} {prefix}");
    let info = grouping.sstables.into_iter().next().unwrap();
    SSTable {
        prefix: format!("{}/{}", dir.display(), info.prefix),
        files: info
            .files
            .iter()
            .map(|(c, i)| (c.clone(), std::fs::read(dir.join(&files[*i])).unwrap()))
            .collect(),
        info,
    }
}

fn legacy(fx: &Path, v: &str, table: &str, prefix: &str) -> SSTable {
    load(&common::legacy_dir(fx, v, table), prefix)
}

fn decompressing() -> VerifyOptions {
    VerifyOptions {
        decompress: true,
        ..VerifyOptions::default()
    }
}

/// (kind, chunk, offset, length) of every failure, check by check.
fn failures(r: &VerifyReport) -> Vec<(CheckKind, FindingKind, Option<u64>, u64, u64)> {
    r.checks
        .iter()
        .flat_map(|c| {
            c.failures
                .iter()
                .map(move |f| (c.kind, f.kind, f.chunk, f.offset, f.length))
        })
        .collect()
}

#[test]
fn every_fixture_verifies_except_the_known_bad_digest() {
    let Some(fx) = common::cassandra_fixtures("verify::every_fixture") else {
        return;
    };
    let mut verified = 0;
    let (mut chunks, mut crc_entries, mut digests, mut metadata_crcs) = (0, 0, 0, 0);
    let (mut sha1, mut adler, mut crc32) = (0, 0, 0);
    for t in load_all(&fx) {
        if !t.files.contains_key(&ComponentType::Data) {
            continue;
        }
        verified += 1;
        let m = t.metadata();
        let r = t.verify(decompressing());
        let name = &t.prefix;
        assert!(r.complete && r.errors.is_empty(), "{name}: {r:#?}");
        assert_eq!(r.data_bytes, t.data().len() as u64);
        if name.ends_with("legacy_ka_14912-ka-1") {
            assert!(!r.valid);
            let bad: Vec<_> = r.failed_checks().collect();
            assert_eq!(bad.len(), 1, "{r:#?}");
            let d = bad[0];
            assert_eq!(
                (d.kind, d.component.as_str(), d.algorithm.as_str()),
                (CheckKind::Digest, "Digest.sha1", "adler32")
            );
            assert_eq!(d.failures.len(), 1);
            let f = &d.failures[0];
            assert_eq!(
                (f.expected.as_str(), f.actual.as_str()),
                ("2565739962", "4125366287")
            );
            assert_eq!(
                (f.kind, f.chunk, f.offset, f.length),
                (FindingKind::Digest, None, 0, t.data().len() as u64)
            );
        } else {
            assert!(
                r.valid,
                "{name}: {:#?}",
                r.failed_checks().collect::<Vec<_>>()
            );
        }
        // Which checks were made follows from the components present.
        if let Some(ci) = &m.compression {
            let c = r.check(CheckKind::Chunk).unwrap();
            assert_eq!(c.checked, ci.chunk_offsets.len() as u64, "{name}");
            let v = t.info.descriptor.version;
            let expected = if v.as_str() < "ma" && v.format() == Format::Big {
                "adler32"
            } else {
                "crc32"
            };
            assert_eq!(c.algorithm, expected, "{name}");
            let d = r.check(CheckKind::Decompress).unwrap();
            assert_eq!(
                (d.checked, d.ok, d.algorithm.as_str()),
                (c.checked, true, "lz4"),
                "{name}"
            );
            chunks += c.checked;
        } else {
            assert!(
                r.check(CheckKind::Chunk).is_none() && r.check(CheckKind::Decompress).is_none()
            );
        }
        match &m.crc {
            Some(crc) => {
                let c = r.check(CheckKind::CrcDb).unwrap();
                assert_eq!(c.checked, crc.checksums.len() as u64, "{name}");
                crc_entries += c.checked;
            }
            None => assert!(r.check(CheckKind::CrcDb).is_none()),
        }
        match &m.digest {
            Some(_) => {
                let d = r.check(CheckKind::Digest).unwrap();
                assert_eq!(d.checked, 1);
                digests += 1;
                match d.algorithm.as_str() {
                    "sha1" => sha1 += 1,
                    "adler32" => adler += 1,
                    "crc32" => crc32 += 1,
                    other => panic!("{other}"),
                }
            }
            None => assert!(r.check(CheckKind::Digest).is_none()),
        }
        if t.info.descriptor.version.has_metadata_checksum() {
            let c = r.check(CheckKind::Metadata).unwrap();
            // Component count, table of contents, and 4 components.
            assert_eq!((c.checked, c.ok), (6, true), "{name}");
            metadata_crcs += c.checked;
        } else {
            assert!(r.check(CheckKind::Metadata).is_none());
        }
    }
    // 120 SSTables with a Data.db; 458 LZ4 chunks; CRC.db in jb Keyspace1, ka illegal_cell_names
    // gen 1, ka illegal_cell_names_indexed and corrupt-sstables ka-2 (one entry each); SHA-1 in
    // jb Keyspace1 and the ic SSTable; 28 na+ SSTables × 6 metadata CRCs.
    assert_eq!(
        (
            verified,
            chunks,
            crc_entries,
            digests,
            sha1,
            adler,
            crc32,
            metadata_crcs
        ),
        (120, 458, 4, 111, 2, 35, 74, 168)
    );
}

#[test]
fn manifest_figures() {
    let Some(fx) = common::cassandra_fixtures("verify::manifest_figures") else {
        return;
    };
    // MANIFEST §2 and §7: nb_clust has 21 chunks and digest 2568411107; da_clust 21 chunks and
    // digest 1983729251; oa_simple 1 chunk and digest 309360903.
    for (v, table, prefix, chunks, digest) in [
        ("nb", "legacy_nb_clust", "nb-1", 21, "2568411107"),
        ("da", "legacy_da_clust", "da-1", 21, "1983729251"),
        ("oa", "legacy_oa_simple", "oa-1", 1, "309360903"),
    ] {
        let t = legacy(&fx, v, table, prefix);
        assert_eq!(
            t.metadata().digest.unwrap().checksum().unwrap().to_string(),
            digest
        );
        assert_eq!(crc32fast::hash(t.data()).to_string(), digest);
        let r = t.verify(VerifyOptions::default());
        assert!(r.valid, "{r:#?}");
        let c = r.check(CheckKind::Chunk).unwrap();
        assert_eq!(
            (c.component.as_str(), c.algorithm.as_str(), c.checked),
            ("Data.db", "crc32", chunks)
        );
        let d = r.check(CheckKind::Digest).unwrap();
        assert_eq!(
            (d.component.as_str(), d.algorithm.as_str(), d.checked),
            ("Digest.crc32", "crc32", 1)
        );
        // No decompress check unless asked for.
        assert!(r.check(CheckKind::Decompress).is_none());
        assert_eq!(
            r.timings.iter().map(|t| t.phase).collect::<Vec<_>>(),
            [Phase::Checksum, Phase::Digest]
        );
    }
    // jb Keyspace1: uncompressed, CRC.db (CRC32, one 65536-byte chunk over 36000 bytes), real SHA-1.
    let jb = load(
        &fx.join("legacy-sstables/jb/Keyspace1"),
        "Keyspace1-Standard1-jb-0",
    );
    let r = jb.verify(VerifyOptions::default());
    assert!(r.valid, "{r:#?}");
    let c = r.check(CheckKind::CrcDb).unwrap();
    assert_eq!(
        (c.component.as_str(), c.algorithm.as_str(), c.checked),
        ("CRC.db", "crc32", 1)
    );
    let d = r.check(CheckKind::Digest).unwrap();
    assert_eq!(
        (d.component.as_str(), d.algorithm.as_str(), d.ok),
        ("Digest.sha1", "sha1", true)
    );
    // ka illegal_cell_names gen 1: CRC.db in Adler32, digest a decimal Adler32 in Digest.sha1.
    let ka = legacy(
        &fx,
        "ka",
        "legacy_ka_with_illegal_cell_names",
        "legacy_tables-legacy_ka_with_illegal_cell_names-ka-1",
    );
    let r = ka.verify(VerifyOptions::default());
    assert!(r.valid, "{r:#?}");
    assert_eq!(r.check(CheckKind::CrcDb).unwrap().algorithm, "adler32");
    assert_eq!(r.check(CheckKind::Digest).unwrap().algorithm, "adler32");
    // jb compressed chunks are Adler32, with no digest.
    let jb = legacy(
        &fx,
        "jb",
        "legacy_jb_clust",
        "legacy_tables-legacy_jb_clust-jb-1",
    );
    let r = jb.verify(VerifyOptions::default());
    assert!(r.valid && r.check(CheckKind::Digest).is_none(), "{r:#?}");
    assert_eq!(r.check(CheckKind::Chunk).unwrap().algorithm, "adler32");
}

#[test]
fn flipped_byte_in_a_compressed_chunk_fails_that_chunk_and_the_digest() {
    let Some(fx) = common::cassandra_fixtures("verify::flip_nb") else {
        return;
    };
    let mut t = legacy(&fx, "nb", "legacy_nb_clust", "nb-1");
    // Partition ranges in the uncompressed stream (made up for the test; chunk 1 holds
    // uncompressed bytes 16384..32768).
    let partitions = vec![
        PartitionRange {
            key: "a".into(),
            start: 0,
            end: 20_000,
        },
        PartitionRange {
            key: "b".into(),
            start: 20_000,
            end: 30_000,
        },
        PartitionRange {
            key: "c".into(),
            start: 30_000,
            end: 40_000,
        },
        PartitionRange {
            key: "d".into(),
            start: 40_000,
            end: 336_016,
        },
    ];
    // MANIFEST §7: chunk 1 is Data.db [424, 836); its stored bytes are 424..832.
    for at in [424usize, 600, 831] {
        let mut flipped = SSTable {
            prefix: t.prefix.clone(),
            files: t.files.clone(),
            info: t.info.clone(),
        };
        flipped.file_mut(&ComponentType::Data)[at] ^= 0x40;
        let r = flipped.verify_with(decompressing(), partitions.clone());
        assert!(!r.valid && r.complete);
        let chunk = r.check(CheckKind::Chunk).unwrap();
        assert_eq!((chunk.checked, chunk.failed), (21, 1));
        let f = &chunk.failures[0];
        assert_eq!(
            (f.kind, f.chunk, f.offset, f.length),
            (FindingKind::Chunk, Some(1), 424, 408)
        );
        let stored = u32::from_be_bytes(t.data()[832..836].try_into().unwrap());
        assert_eq!(f.expected, stored.to_string());
        assert_eq!(
            f.actual,
            crc32fast::hash(&flipped.data()[424..832]).to_string()
        );
        assert_eq!(f.partitions, ["a", "b", "c"]);
        let digest = r.check(CheckKind::Digest).unwrap();
        assert_eq!(digest.failed, 1);
        assert_eq!(digest.failures[0].expected, "2568411107");
        assert_eq!(
            digest.failures[0].actual,
            crc32fast::hash(flipped.data()).to_string()
        );
        assert!(r.check(CheckKind::Metadata).unwrap().ok);
        // Only chunk 1 and the digest; decompression may or may not notice a flipped LZ4 byte
        // (LZ4 has no checksum of its own), but it never fails another chunk.
        let fails = failures(&r);
        assert!(
            fails.iter().all(|f| f.2.is_none() || f.2 == Some(1)),
            "{fails:?}"
        );
        assert_eq!(
            fails
                .iter()
                .filter(|f| f.0 != CheckKind::Decompress)
                .count(),
            2,
            "{fails:?}"
        );
    }
    // A flip in the stored checksum itself (832..836) also fails chunk 1 only.
    t.file_mut(&ComponentType::Data)[833] ^= 1;
    let r = t.verify(VerifyOptions::default());
    assert_eq!(
        failures(&r),
        [
            (CheckKind::Chunk, FindingKind::Chunk, Some(1), 424, 408),
            (
                CheckKind::Digest,
                FindingKind::Digest,
                None,
                0,
                t.data().len() as u64
            )
        ]
    );
}

#[test]
fn flipped_byte_in_a_bti_chunk() {
    let Some(fx) = common::cassandra_fixtures("verify::flip_da") else {
        return;
    };
    let mut t = legacy(&fx, "da", "legacy_da_clust", "da-1");
    // Chunk 0 is [0, 417): stored bytes 0..413.
    t.file_mut(&ComponentType::Data)[100] ^= 0xff;
    let r = t.verify(VerifyOptions::default());
    let len = t.data().len() as u64;
    assert_eq!(
        failures(&r),
        [
            (CheckKind::Chunk, FindingKind::Chunk, Some(0), 0, 413),
            (CheckKind::Digest, FindingKind::Digest, None, 0, len)
        ]
    );
    assert_eq!(
        r.check(CheckKind::Digest).unwrap().failures[0].expected,
        "1983729251"
    );
}

#[test]
fn flipped_byte_in_crc_protected_data() {
    let Some(fx) = common::cassandra_fixtures("verify::flip_crc") else {
        return;
    };
    // ka, Adler32 CRC.db over a 292-byte Data.db, Adler32 digest.
    let mut t = legacy(
        &fx,
        "ka",
        "legacy_ka_with_illegal_cell_names",
        "legacy_tables-legacy_ka_with_illegal_cell_names-ka-1",
    );
    t.file_mut(&ComponentType::Data)[100] ^= 0x10;
    let r = t.verify(VerifyOptions::default());
    assert_eq!(
        failures(&r),
        [
            (CheckKind::CrcDb, FindingKind::CrcDb, Some(0), 0, 292),
            (CheckKind::Digest, FindingKind::Digest, None, 0, 292)
        ]
    );
    let f = &r.check(CheckKind::CrcDb).unwrap().failures[0];
    let crc = &t.files[&ComponentType::Crc];
    assert_eq!(
        f.expected,
        u32::from_be_bytes(crc[4..8].try_into().unwrap()).to_string()
    );
    assert_eq!(
        f.actual,
        adler32::RollingAdler32::from_buffer(t.data())
            .hash()
            .to_string()
    );
    // jb, CRC32 CRC.db and a SHA-1 digest over 36000 bytes.
    let mut t = load(
        &fx.join("legacy-sstables/jb/Keyspace1"),
        "Keyspace1-Standard1-jb-0",
    );
    t.file_mut(&ComponentType::Data)[35_999] ^= 1;
    let r = t.verify(VerifyOptions::default());
    assert_eq!(
        failures(&r),
        [
            (CheckKind::CrcDb, FindingKind::CrcDb, Some(0), 0, 36_000),
            (CheckKind::Digest, FindingKind::Digest, None, 0, 36_000)
        ]
    );
    let d = &r.check(CheckKind::Digest).unwrap().failures[0];
    assert_eq!(d.expected, "4a9f1896a599e4b3ff5d19600901de1a0b851bc1");
    assert_eq!(d.actual.len(), 40);
}

#[test]
fn truncated_compressed_data() {
    let Some(fx) = common::cassandra_fixtures("verify::truncated") else {
        return;
    };
    let t = legacy(&fx, "nb", "legacy_nb_clust", "nb-1");
    let full = t.data().len();
    // Cut inside chunk 2 ([836, 1249)): chunk 2 is short, chunks 3..=20 start past the end.
    for (cut, first_truncated) in [(1000usize, 2u64), (836, 2), (1249, 3)] {
        let mut c = SSTable {
            prefix: t.prefix.clone(),
            files: t.files.clone(),
            info: t.info.clone(),
        };
        c.file_mut(&ComponentType::Data).truncate(cut);
        let r = c.verify(decompressing());
        // The truncated chunks fail their checks: invalid (CompressionInfo.db's offsets past the
        // end of the cut Data.db are also reported, so the run is not `complete`).
        assert!(!r.valid && r.verdict == Verdict::Invalid, "{:?}", r.verdict);
        let chunk = r.check(CheckKind::Chunk).unwrap();
        assert_eq!(chunk.checked, 21);
        assert_eq!(chunk.failed, 21 - first_truncated, "cut at {cut}");
        assert!(chunk
            .failures
            .iter()
            .all(|f| f.kind == FindingKind::Truncated));
        let chunks: Vec<u64> = chunk.failures.iter().map(|f| f.chunk.unwrap()).collect();
        assert_eq!(chunks, (first_truncated..21).collect::<Vec<_>>());
        let first = &chunk.failures[0];
        if cut == 1000 {
            assert_eq!((first.offset, first.length), (836, 164));
            assert_eq!(
                (first.expected.as_str(), first.actual.as_str()),
                ("413 bytes", "164 bytes")
            );
        }
        // Decompression ran on the chunks that are there, and they are fine.
        let d = r.check(CheckKind::Decompress).unwrap();
        assert_eq!((d.checked, d.ok), (first_truncated, true));
        assert!(!r.check(CheckKind::Digest).unwrap().ok);
    }
    // Two bytes of the last chunk left: fewer than its 4-byte checksum.
    let m = t.metadata();
    let last_start = *m
        .compression
        .as_ref()
        .unwrap()
        .chunk_offsets
        .last()
        .unwrap() as usize;
    let mut c = SSTable {
        prefix: t.prefix.clone(),
        files: t.files.clone(),
        info: t.info.clone(),
    };
    c.file_mut(&ComponentType::Data).truncate(last_start + 2);
    let r = c.verify(VerifyOptions::default());
    let f = failures(&r);
    assert_eq!(
        f[0],
        (
            CheckKind::Chunk,
            FindingKind::Truncated,
            Some(20),
            last_start as u64,
            2
        )
    );
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(full > last_start + 2);
}

/// A CRC.db with more entries than the (truncated) Data.db has chunks.
#[test]
fn truncated_crc_protected_data() {
    let Some(fx) = common::cassandra_fixtures("verify::truncated_crc") else {
        return;
    };
    let mut t = load(
        &fx.join("legacy-sstables/jb/Keyspace1"),
        "Keyspace1-Standard1-jb-0",
    );
    // Rebuild CRC.db with 4096-byte chunks (the size is read from the file): 9 entries.
    let data = t.data().to_vec();
    let mut crc = 4096u32.to_be_bytes().to_vec();
    for chunk in data.chunks(4096) {
        crc.extend_from_slice(&crc32fast::hash(chunk).to_be_bytes());
    }
    *t.file_mut(&ComponentType::Crc) = crc;
    let r = t.verify(VerifyOptions {
        read_size_bytes: 10_000,
        ..VerifyOptions::default()
    });
    assert!(r.valid, "{r:#?}");
    assert_eq!(r.check(CheckKind::CrcDb).unwrap().checked, 9);
    t.file_mut(&ComponentType::Data).truncate(10_000);
    let r = t.verify(VerifyOptions::default());
    let crc = r.check(CheckKind::CrcDb).unwrap();
    assert_eq!((crc.checked, crc.failed), (9, 7));
    // Chunk 2 (8192..10000) is short and fails; chunks 3..=8 are past the end.
    assert_eq!(
        (
            crc.failures[0].kind,
            crc.failures[0].chunk,
            crc.failures[0].offset,
            crc.failures[0].length
        ),
        (FindingKind::CrcDb, Some(2), 8192, 1808)
    );
    let truncated: Vec<(Option<u64>, u64)> = crc.failures[1..]
        .iter()
        .map(|f| {
            assert_eq!(f.kind, FindingKind::Truncated);
            (f.chunk, f.offset)
        })
        .collect();
    assert_eq!(
        truncated,
        (3..9u64).map(|i| (Some(i), i * 4096)).collect::<Vec<_>>()
    );
    // A CRC.db with too few entries leaves bytes unchecked: one crc_db finding.
    let mut short = SSTable {
        prefix: t.prefix.clone(),
        files: t.files.clone(),
        info: t.info.clone(),
    };
    short.file_mut(&ComponentType::Crc).truncate(4 + 4 * 2);
    let r = short.verify(VerifyOptions::default());
    let crc = r.check(CheckKind::CrcDb).unwrap();
    assert_eq!((crc.checked, crc.failed), (3, 1));
    assert_eq!(
        (
            crc.failures[0].chunk,
            crc.failures[0].offset,
            crc.failures[0].length
        ),
        (Some(2), 8192, 1808)
    );
}

#[test]
fn flipped_statistics_byte_fails_its_metadata_crc() {
    let Some(fx) = common::cassandra_fixtures("verify::flip_statistics") else {
        return;
    };
    let mut t = legacy(&fx, "na", "legacy_na_clust", "na-1");
    let stats = t.metadata().statistics.unwrap();
    let validation = stats
        .toc
        .iter()
        .find(|e| e.metadata_type.value == MetadataType::Validation)
        .unwrap();
    let body = validation.body.unwrap();
    // A byte inside the partitioner class name.
    let at = body.start as usize + 10;
    t.file_mut(&ComponentType::Statistics)[at] ^= 0x01;
    let m = t.metadata();
    let c = m
        .statistics
        .as_ref()
        .unwrap()
        .failed_checksums()
        .next()
        .unwrap();
    assert_eq!(c.part, ChecksumPart::Component(MetadataType::Validation));
    let r = t.verify(VerifyOptions::default());
    assert!(!r.valid);
    let bad: Vec<_> = r.failed_checks().collect();
    assert_eq!(bad.len(), 1, "{bad:#?}");
    assert_eq!(
        (
            bad[0].kind,
            bad[0].component.as_str(),
            bad[0].checked,
            bad[0].failed
        ),
        (CheckKind::Metadata, "Statistics.db", 6, 1)
    );
    let f = &bad[0].failures[0];
    assert_eq!(
        (f.kind, f.chunk, f.offset, f.length),
        (
            FindingKind::Metadata,
            None,
            body.start,
            body.end - body.start
        )
    );
    assert_eq!(f.expected, c.stored.value.to_string());
    assert_eq!(f.actual, c.computed.to_string());
}

/// A clock that advances 1 µs per reading.
struct TickClock(Cell<u64>);

impl Clock for TickClock {
    fn now_nanos(&self) -> u64 {
        let t = self.0.get() + 1000;
        self.0.set(t);
        t
    }
}

/// CompressionInfo.db bytes (na+ layout) for `chunks` stored chunks.
fn compression_info_bytes(class: &str, chunk_len: u32, data_len: u64, offsets: &[u64]) -> Vec<u8> {
    let mut b = (class.len() as u16).to_be_bytes().to_vec();
    b.extend_from_slice(class.as_bytes());
    b.extend_from_slice(&0i32.to_be_bytes());
    b.extend_from_slice(&chunk_len.to_be_bytes());
    b.extend_from_slice(&i32::MAX.to_be_bytes());
    b.extend_from_slice(&data_len.to_be_bytes());
    b.extend_from_slice(&(offsets.len() as i32).to_be_bytes());
    for o in offsets {
        b.extend_from_slice(&o.to_be_bytes());
    }
    b
}

/// A synthetic compressed Data.db: chunks of `data` compressed with `codec`, each followed by its
/// CRC32; returns (Data.db, CompressionInfo.db).
fn build_compressed(codec: &Compressor, data: &[u8], chunk_len: u32) -> (Vec<u8>, Vec<u8>) {
    let mut file = Vec::new();
    let mut offsets = Vec::new();
    let mut stored = Vec::new();
    for chunk in data.chunks(chunk_len as usize) {
        offsets.push(file.len() as u64);
        compress_chunk(codec, chunk, &mut stored).unwrap();
        file.extend_from_slice(&stored);
        file.extend_from_slice(&crc32fast::hash(&stored).to_be_bytes());
    }
    let ci = compression_info_bytes(codec.name(), chunk_len, data.len() as u64, &offsets);
    (file, ci)
}

fn nb() -> Version {
    Version::parse(Format::Big, "nb").unwrap()
}

/// Semi-compressible bytes: runs of a counter mixed with noise.
fn sample_data(len: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let run = (x % 64) as usize + 1;
        let byte = (x >> 24) as u8;
        if x.is_multiple_of(3) {
            out.extend((0..run).map(|i| byte.wrapping_add(i as u8)));
        } else {
            out.extend(std::iter::repeat_n(byte, run));
        }
    }
    out.truncate(len);
    out
}

fn synthetic(
    codec: &Compressor,
    data: &[u8],
    chunk_len: u32,
    options: VerifyOptions,
) -> (Verifier, Vec<u8>) {
    let (file, ci) = build_compressed(codec, data, chunk_len);
    let ci = compression_info::decode(&ci, &nb()).unwrap();
    assert!(ci.warnings.is_empty(), "{:?}", ci.warnings);
    let digest_text = crc32fast::hash(&file).to_string();
    let d = digest::decode(digest_text.as_bytes(), DigestAlgorithm::Crc32, &nb()).unwrap();
    let input = VerifyInput {
        version: nb(),
        data_file_len_bytes: file.len() as u64,
        compression: Some(&ci),
        crc: None,
        digest: Some(&d),
        statistics: None,
    };
    (Verifier::new(input, options), file)
}

#[test]
fn every_codec_verifies_and_decompresses() {
    let data = sample_data(200_000);
    for codec in [
        Compressor::Lz4,
        Compressor::Snappy,
        Compressor::Deflate,
        Compressor::Zstd,
        Compressor::Noop,
    ] {
        let (v, file) = synthetic(&codec, &data, 16_384, decompressing());
        let r = drive(v, &file, "synthetic");
        assert!(r.valid, "{codec:?}: {r:#?}");
        assert_eq!(r.check(CheckKind::Chunk).unwrap().checked, 13);
        let d = r.check(CheckKind::Decompress).unwrap();
        assert_eq!((d.checked, d.algorithm.as_str()), (13, codec.codec_name()));
    }
}

#[test]
fn corrupt_chunk_with_a_valid_checksum_is_a_decompress_finding() {
    let data = sample_data(50_000);
    let (file, ci) = build_compressed(&Compressor::Deflate, &data, 16_384);
    let ci = compression_info::decode(&ci, &nb()).unwrap();
    // Rewrite chunk 1 as garbage with a matching CRC32: only decompression can tell.
    let (s, e) = (ci.chunk_offsets[1] as usize, ci.chunk_offsets[2] as usize);
    let mut bad = file.clone();
    for b in &mut bad[s + 2..e - 4] {
        *b = 0xaa;
    }
    let crc = crc32fast::hash(&bad[s..e - 4]);
    bad[e - 4..e].copy_from_slice(&crc.to_be_bytes());
    let input = VerifyInput {
        version: nb(),
        data_file_len_bytes: bad.len() as u64,
        compression: Some(&ci),
        crc: None,
        digest: None,
        statistics: None,
    };
    let r = drive(Verifier::new(input, decompressing()), &bad, "x");
    assert_eq!(
        failures(&r),
        [(
            CheckKind::Decompress,
            FindingKind::Decompress,
            Some(1),
            s as u64,
            (e - s - 4) as u64
        )]
    );
    assert!(r.check(CheckKind::Chunk).unwrap().ok);
    let f = &r.check(CheckKind::Decompress).unwrap().failures[0];
    assert_eq!(f.expected, "16384 bytes");
    // Without --decompress the file looks valid.
    let r = drive(Verifier::new(input, VerifyOptions::default()), &bad, "x");
    assert!(r.valid);
}

#[test]
fn stopping_early_and_bad_supplies() {
    let data = sample_data(100_000);
    // A 1-byte read budget: every read is one whole chunk.
    let one_chunk = VerifyOptions {
        read_size_bytes: 1,
        ..VerifyOptions::default()
    };
    let (mut v, file) = synthetic(&Compressor::Lz4, &data, 16_384, one_chunk);
    let (offset, len) = v.next_read().map(|r| (r.offset, r.len)).unwrap();
    assert_eq!(offset, 0);
    // A wrong offset or an empty or overlong slice is refused, naming the range wanted.
    let e = supply_at(&mut v, 5, &file[5..10], &NoClock).unwrap_err();
    assert_eq!(e.component(), Some(&ComponentType::Data));
    assert_eq!(
        e.kind(),
        &ErrorKind::MissingBytes {
            wanted_start: 0,
            wanted_end: len
        }
    );
    assert!(supply_at(&mut v, 0, &[], &NoClock).is_err());
    let mut too_long = file.clone();
    too_long.push(0);
    assert!(supply_at(&mut v, 0, &too_long, &NoClock).is_err());
    // One chunk, then stop.
    supply_at(&mut v, 0, &file[..len as usize], &NoClock).unwrap();
    let (next, next_len) = v.next_read().map(|r| (r.offset, r.len)).unwrap();
    assert_eq!(next, len);
    assert!(next_len > 4 && next_len < 16_384, "{next_len}");
    assert_eq!(v.progress().done_bytes, len);
    assert_eq!(v.progress().total_bytes, file.len() as u64);
    assert!(!v.is_done());
    let r = v.finish("stopped");
    assert!(!r.complete && !r.valid);
    assert_eq!(r.verified_bytes, len);
    assert_eq!(r.check(CheckKind::Chunk).unwrap().checked, 1);
    let d = r.check(CheckKind::Digest).unwrap();
    assert!(d.ok && d.checked == 0 && d.note.is_some(), "{d:#?}");
}

/// 64 MiB of data in 1024 LZ4 chunks: the verifier's own buffers stay within a few chunks and
/// every read it asks for is at most 1 MiB, whether the caller supplies what it asks for or
/// slices of another size.
#[test]
fn sixty_four_mib_in_bounded_memory() {
    const CHUNK: usize = 65_536;
    let data = sample_data(64 << 20);
    // Build the Data.db chunk by chunk with the LZ4 compressor.
    let mut file = Vec::new();
    let mut offsets = Vec::new();
    let mut stored = Vec::new();
    for chunk in data.chunks(CHUNK) {
        offsets.push(file.len() as u64);
        compress_lz4(chunk, &mut stored);
        file.extend_from_slice(&stored);
        file.extend_from_slice(&crc32fast::hash(&stored).to_be_bytes());
    }
    drop(data);
    let ci_bytes = compression_info_bytes("LZ4Compressor", CHUNK as u32, 64 << 20, &offsets);
    let ci = compression_info::decode(&ci_bytes, &nb()).unwrap();
    assert_eq!(ci.chunk_offsets.len(), 1024);
    let digest_text = crc32fast::hash(&file).to_string();
    let d = digest::decode(digest_text.as_bytes(), DigestAlgorithm::Crc32, &nb()).unwrap();
    let input = VerifyInput {
        version: nb(),
        data_file_len_bytes: file.len() as u64,
        compression: Some(&ci),
        crc: None,
        digest: Some(&d),
        statistics: None,
    };
    let clock = TickClock(Cell::new(0));
    // As asked.
    let mut v = Verifier::new(input, decompressing());
    let (mut reads, mut max_read) = (0, 0);
    while let Some((offset, len)) = v.next_read().map(|r| (r.offset, r.len)) {
        reads += 1;
        max_read = max_read.max(len);
        supply_at(
            &mut v,
            offset,
            &file[offset as usize..(offset + len) as usize],
            &clock,
        )
        .unwrap();
    }
    assert!(max_read <= 1 << 20, "{max_read}");
    assert!(reads >= file.len() as u64 / (1 << 20), "{reads}");
    // The decompression buffer: one chunk, nothing else.
    assert!(
        v.max_buffered_bytes() <= 2 * CHUNK,
        "{}",
        v.max_buffered_bytes()
    );
    let r = v.finish("synthetic-64MiB");
    assert!(r.valid, "{:#?}", r.failed_checks().collect::<Vec<_>>());
    assert_eq!(r.check(CheckKind::Chunk).unwrap().checked, 1024);
    assert_eq!(r.check(CheckKind::Decompress).unwrap().checked, 1024);
    let timing = |p: Phase| r.timings.iter().find(|t| t.phase == p).unwrap().clone();
    assert_eq!(timing(Phase::Checksum).bytes, file.len() as u64 - 4 * 1024);
    assert_eq!(timing(Phase::Decompress).bytes, 64 << 20);
    assert_eq!(timing(Phase::Digest).bytes, file.len() as u64);
    assert!(timing(Phase::Checksum).nanos > 0 && timing(Phase::Checksum).mb_per_s.is_some());
    // Supplied in 100,000-byte slices that split chunks: one split chunk is copied at a time.
    let mut v = Verifier::new(input, decompressing());
    let mut at = 0usize;
    while at < file.len() {
        let end = (at + 100_000).min(file.len());
        supply_at(&mut v, at as u64, &file[at..end], &NoClock).unwrap();
        at = end;
    }
    assert!(
        v.max_buffered_bytes() <= 4 * CHUNK,
        "{}",
        v.max_buffered_bytes()
    );
    let r = v.finish("synthetic-64MiB-split");
    assert!(r.valid, "{:#?}", r.failed_checks().collect::<Vec<_>>());
    assert_eq!(r.check(CheckKind::Decompress).unwrap().checked, 1024);
}

/// Whatever the supply sizes, the result is the same; every truncation and every flipped byte of
/// a real Data.db gives a report (never a panic), and never a valid one.
#[test]
fn any_split_any_truncation_any_flip() {
    let Some(fx) = common::cassandra_fixtures("verify::splits") else {
        return;
    };
    let t = legacy(&fx, "da", "legacy_da_clust", "da-1");
    let m = t.metadata();
    let data = t.data();
    let input = VerifyInput::from_metadata(&m).unwrap();
    for step in [1usize, 3, 4, 5, 100, 413, 417, 1000, 4096] {
        let mut v = Verifier::new(input, decompressing());
        for (i, piece) in data.chunks(step).enumerate() {
            supply_at(&mut v, (i * step) as u64, piece, &NoClock).unwrap();
        }
        let r = v.finish("split");
        assert!(r.valid, "step {step}: {r:#?}");
        assert_eq!(r.check(CheckKind::Decompress).unwrap().checked, 21);
    }
    // Cut before the last chunk's checksum can fit: a truncation finding; inside the last chunk
    // (which runs to the end of the file): that chunk's checksum fails.
    let last_start = *m
        .compression
        .as_ref()
        .unwrap()
        .chunk_offsets
        .last()
        .unwrap() as usize;
    for cut in 0..data.len() {
        let input = VerifyInput {
            data_file_len_bytes: cut as u64,
            ..input
        };
        let r = drive(
            Verifier::new(input, VerifyOptions::default()),
            &data[..cut],
            "cut",
        );
        assert!(!r.valid && r.complete, "cut at {cut}");
        let chunk = r.check(CheckKind::Chunk).unwrap();
        let truncated = chunk
            .failures
            .iter()
            .any(|f| f.kind == FindingKind::Truncated);
        assert_eq!(truncated, cut < last_start + 4, "cut at {cut}");
        if !truncated {
            assert_eq!(chunk.failures[0].chunk, Some(20), "cut at {cut}");
        }
    }
    // Every flip is caught by its chunk's CRC32 (decompressing too on a sample of them: LZ4 has no
    // checksum, so a flipped chunk may or may not decompress).
    let mut flipped = data.to_vec();
    for at in 0..data.len() {
        flipped[at] ^= 0x21;
        let options = if at.is_multiple_of(61) {
            decompressing()
        } else {
            VerifyOptions::default()
        };
        let r = drive(Verifier::new(input, options), &flipped, "flip");
        flipped[at] ^= 0x21;
        let chunk = r.check(CheckKind::Chunk).unwrap();
        assert_eq!(chunk.failed, 1, "flip at {at}");
        assert!(!r.check(CheckKind::Digest).unwrap().ok, "flip at {at}");
    }
}

/// Before `jb` the chunk CRC32 covers the uncompressed bytes, so every chunk is decompressed to
/// check it (synthetic: no such fixture); the digest is a SHA-1.
#[test]
fn pre_jb_chunk_checksums_cover_uncompressed_bytes() {
    let ic = Version::parse(Format::Big, "ic").unwrap();
    let data = sample_data(40_000);
    let mut file = Vec::new();
    let mut offsets = Vec::new();
    let mut stored = Vec::new();
    for chunk in data.chunks(16_384) {
        offsets.push(file.len() as u64);
        compress_chunk(&Compressor::Snappy, chunk, &mut stored).unwrap();
        file.extend_from_slice(&stored);
        file.extend_from_slice(&crc32fast::hash(chunk).to_be_bytes());
    }
    // Pre-na layout: no max compressed length.
    let mut ci = compression_info_bytes("SnappyCompressor", 16_384, data.len() as u64, &offsets);
    // It follows the class name (2 + 16 bytes), the option count and the chunk length.
    ci.drain(26..30);
    let ci = compression_info::decode(&ci, &ic).unwrap();
    assert_eq!(ci.chunk_offsets, offsets);
    assert_eq!(ci.chunk_length_bytes.value, 16_384);
    let text = format!("{}  Keyspace1-Standard1-ic-0-Data.db\n", sha1_hex(&file));
    let d = digest::decode(text.as_bytes(), DigestAlgorithm::Sha1, &ic).unwrap();
    let input = VerifyInput {
        version: ic,
        data_file_len_bytes: file.len() as u64,
        compression: Some(&ci),
        crc: None,
        digest: Some(&d),
        statistics: None,
    };
    let r = drive(Verifier::new(input, VerifyOptions::default()), &file, "ic");
    assert!(r.valid, "{r:#?}");
    assert_eq!(r.check(CheckKind::Chunk).unwrap().checked, 3);
    assert_eq!(r.check(CheckKind::Digest).unwrap().algorithm, "sha1");
    // A flipped compressed byte: the chunk either fails to decompress (then its checksum cannot be
    // computed) or decompresses to other bytes; either way chunk 1 fails.
    let mut bad = file.clone();
    bad[offsets[1] as usize + 40] ^= 0x55;
    let r = drive(Verifier::new(input, VerifyOptions::default()), &bad, "ic");
    let chunk = r.check(CheckKind::Chunk).unwrap();
    assert_eq!((chunk.failed, chunk.failures[0].chunk), (1, Some(1)));
    assert!(!r.check(CheckKind::Digest).unwrap().ok);
}

/// A CompressionInfo whose chunk length is 1 GiB: the chunk is checksummed but not decompressed,
/// and nothing of that size is allocated.
#[test]
fn huge_chunk_length_is_a_finding_not_an_allocation() {
    let mut stored = Vec::new();
    compress_lz4(&[7u8; 100], &mut stored);
    // The LZ4 header lies: it claims 1 GiB.
    stored[..4].copy_from_slice(&(1u32 << 30).to_le_bytes());
    let mut file = stored.clone();
    file.extend_from_slice(&crc32fast::hash(&stored).to_be_bytes());
    let ci = compression_info_bytes("LZ4Compressor", 1 << 30, 1 << 30, &[0]);
    let ci = compression_info::decode(&ci, &nb()).unwrap();
    let input = VerifyInput {
        version: nb(),
        data_file_len_bytes: file.len() as u64,
        compression: Some(&ci),
        crc: None,
        digest: None,
        statistics: None,
    };
    let mut v = Verifier::new(input, decompressing());
    let (_, len) = v.next_read().map(|r| (r.offset, r.len)).unwrap();
    supply_at(&mut v, 0, &file[..len as usize], &NoClock).unwrap();
    assert!(v.max_buffered_bytes() < 1 << 20);
    let r = v.finish("huge");
    assert!(r.check(CheckKind::Chunk).unwrap().ok);
    let f = &r.check(CheckKind::Decompress).unwrap().failures[0];
    assert_eq!(
        (f.kind, f.chunk, f.actual.as_str()),
        (FindingKind::Decompress, Some(0), "1073741824 bytes")
    );
}

/// SHA-1 of `bytes` in hex, from the `sha1` crate (what `Digest.sha1` stores).
fn sha1_hex(bytes: &[u8]) -> String {
    use sha1::Digest as _;
    sha1::Sha1::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn a_failing_bti_chunk_names_its_partitions_from_the_trie_and_rows_db() {
    let Some(fx) = common::cassandra_fixtures("verify::bti_partitions") else {
        return;
    };
    // MANIFEST §3/§7: legacy_da_clust holds partitions "0".."4" of ~67 KB each (335,958 bytes
    // in all), LZ4 in 16 KiB chunks at Data.db 0, 417, 829, …, 1638, …, 8316. Every partition
    // has a row index, so its key and Data.db position come from its Rows.db entry.
    let t = legacy(&fx, "da", "legacy_da_clust", "da-1");
    let cases: [(usize, u64, &[&str]); 4] = [
        // Chunk 1: uncompressed [16384, 32768), inside "0".
        (500, 1, &["0"]),
        // Chunk 4: uncompressed [65536, 81920), across the end of "0" (≈ 67,191).
        (2000, 4, &["0", "1"]),
        // Chunk 8: uncompressed [131072, 147456), "1" ends at ≈ 134,383.
        (3300, 8, &["1", "2"]),
        // Chunk 20, the last: uncompressed [327680, 335958), inside "4".
        (8400, 20, &["4"]),
    ];
    for (at, chunk, keys) in cases {
        let r = t
            .with_flip(&ComponentType::Data, at, 0x01)
            .run(VerifyOptions::default());
        assert_eq!(r.verdict, Verdict::Invalid);
        let keys: Vec<String> = keys.iter().map(|k| (*k).to_owned()).collect();
        assert_eq!(named(&r), [(Some(chunk), keys.clone())], "flip at {at}");
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        let r = t
            .with_flip(&ComponentType::Data, at, 0x01)
            .run_async(VerifyOptions::default());
        assert_eq!(named(&r), [(Some(chunk), keys)], "async, flip at {at}");
        assert!(r.errors.is_empty(), "{:?}", r.errors);
    }
}

#[test]
fn bti_keys_without_a_row_index_are_read_from_data_db() {
    let Some(fx) = common::cassandra_fixtures("verify::bti_data_keys") else {
        return;
    };
    // legacy_da_simple: one 79-byte chunk holding all five partitions, at uncompressed 0, 22,
    // 46, 70 and 94; Rows.db is empty (no row index): Partitions.db points into Data.db and
    // holds only key prefixes, so the whole keys are read from the partition headers.
    let t = legacy(&fx, "da", "legacy_da_simple", "da-1");
    let all: Vec<String> = ["0", "1", "2", "3", "4"].map(String::from).to_vec();
    // A flip in the stored CRC (bytes 75..79): the data decompresses, every key reads.
    let r = t
        .with_flip(&ComponentType::Data, 77, 0x01)
        .run(VerifyOptions::default());
    assert_eq!(named(&r), [(Some(0), all.clone())]);
    assert!(r.findings.is_empty() && r.errors.is_empty(), "{r:?}");
    let r = t
        .with_flip(&ComponentType::Data, 77, 0x01)
        .run_async(VerifyOptions::default());
    assert_eq!(named(&r), [(Some(0), all.clone())]);
    // A flip that breaks the LZ4 stream: the headers cannot be read, so each partition is
    // named by its Data.db position, never by a wrong key.
    let r = t
        .with_flip(&ComponentType::Data, 40, 0x01)
        .run(VerifyOptions::default());
    let names = named(&r);
    let [(Some(0), keys)] = names.as_slice() else {
        panic!("{names:?}");
    };
    let positions: Vec<&str> = keys
        .iter()
        .map(|k| {
            k.strip_prefix("? (Data.db ")
                .and_then(|k| k.split(':').next())
                .unwrap_or(k)
        })
        .collect();
    assert_eq!(positions, ["0", "22", "46", "70", "94"], "{keys:?}");
    assert_eq!(r.verdict, Verdict::Invalid);
}

#[test]
fn a_damaged_partitions_db_leaves_partitions_unnamed_not_the_sstable_unverifiable() {
    let Some(fx) = common::cassandra_fixtures("verify::bti_damaged_index") else {
        return;
    };
    let t = legacy(&fx, "da", "legacy_da_clust", "da-1");
    let mut bad = t.with_flip(&ComponentType::Data, 500, 0x01);
    // The footer's root position (the last 8 bytes) now points past the trie.
    let partitions = bad.file_mut(&ComponentType::Partitions);
    let n = partitions.len();
    partitions[n - 1] = 0xff;
    let r = bad.run(VerifyOptions::default());
    assert_eq!(r.verdict, Verdict::Invalid);
    assert_eq!(named(&r), [(Some(1), Vec::<String>::new())]);
    assert_eq!(r.findings.len(), 1, "{:?}", r.findings);
    assert_eq!(r.findings[0].component.as_deref(), Some("Partitions.db"));
    assert!(
        r.findings[0].message.starts_with("partitions not named: ")
            && r.findings[0].message.contains("root position"),
        "{:?}",
        r.findings[0]
    );
    // Rows.db cut short: the entry of "0" cannot be read.
    let mut bad = t.with_flip(&ComponentType::Data, 500, 0x01);
    bad.file_mut(&ComponentType::Rows).truncate(10);
    let r = bad.run(VerifyOptions::default());
    assert_eq!(r.verdict, Verdict::Invalid);
    assert_eq!(named(&r), [(Some(1), Vec::<String>::new())]);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.findings.len(), 1, "{:?}", r.findings);
}

#[test]
fn any_flip_or_cut_of_the_bti_indexes_names_partitions_or_says_why() {
    let Some(fx) = common::cassandra_fixtures("verify::bti_index_sweep") else {
        return;
    };
    for table in ["legacy_da_clust", "legacy_da_simple"] {
        let t = legacy(&fx, "da", table, "da-1");
        // A flip in chunk 0's stored CRC (bytes 413..417 of the clust file, 75..79 of simple):
        // the data still decompresses.
        let crc_at = if table == "legacy_da_clust" { 414 } else { 76 };
        let base = t.with_flip(&ComponentType::Data, crc_at, 0x01);
        for c in [ComponentType::Partitions, ComponentType::Rows] {
            let len = base.files[&c].len();
            let mut variants: Vec<SSTable> = Vec::new();
            for at in 0..len {
                for mask in [0x01, 0x80, 0xff] {
                    variants.push(base.with_flip(&c, at, mask));
                }
                let mut cut = base.with_flip(&c, at, 0);
                cut.file_mut(&c).truncate(at);
                variants.push(cut);
            }
            for v in variants {
                let r = v.run(VerifyOptions::default());
                // The verdict is the checksums' alone; a damaged index leaves names out (with a
                // finding), never an error or a panic.
                assert_eq!(r.verdict, Verdict::Invalid, "{table} {c}");
                assert!(r.errors.is_empty(), "{table} {c}: {:?}", r.errors);
                let names = named(&r);
                assert_eq!(names.len(), 1);
                assert!(names[0].1.len() <= 5, "{names:?}");
                // A key that is not the one the trie indexes is never shown as a key.
                for k in &names[0].1 {
                    assert!(
                        ["0", "1", "2", "3", "4"].contains(&k.as_str()) || k.starts_with("? ("),
                        "{table} {c}: {k}"
                    );
                }
                if names[0].1.is_empty() {
                    assert_eq!(r.findings.len(), 1, "{table} {c}: {:?}", r.findings);
                }
            }
        }
    }
}

#[test]
fn a_data_db_read_that_fails_while_naming_bti_partitions_leaves_keys_unread() {
    let Some(fx) = common::cassandra_fixtures("verify::bti_key_read_fails") else {
        return;
    };
    // legacy_da_simple with its chunk's CRC flipped: the verifier reads Data.db once; every
    // later Data.db read (the partition headers) fails.
    let t = legacy(&fx, "da", "legacy_da_simple", "da-1").with_flip(&ComponentType::Data, 77, 1);
    let m = t.metadata();
    let mut run = VerifyRun::new(&m, VerifyOptions::default());
    let data_reads = Cell::new(0);
    let mut driver = SyncDriver::new(sstable_engine::range::FnSource(|r: &ByteRange| {
        if r.component == ComponentType::Data {
            data_reads.set(data_reads.get() + 1);
            if data_reads.get() > 1 {
                return Err(sstable_engine::Error::invalid("read refused", r.offset));
            }
        }
        let file = &t.files[&r.component];
        let end = (r.end() as usize).min(file.len());
        Ok(file[r.offset as usize..end].to_vec())
    }));
    let outcome = driver.run(&mut run, &NoClock);
    assert!(outcome.is_err());
    let r = run.finish(&t.prefix, outcome.err());
    assert_eq!(r.verdict, Verdict::Invalid);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    // The chunk holding every header is asked for once more; its failure leaves each key
    // unread, named by its Data.db position, and the run ends there.
    assert_eq!(data_reads.get(), 2);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let names = named(&r);
    let [(Some(0), keys)] = names.as_slice() else {
        panic!("{names:?}");
    };
    assert_eq!(keys.len(), 5);
    for (k, position) in keys.iter().zip([0, 22, 46, 70, 94]) {
        assert!(
            k.starts_with(&format!("? (Data.db {position}: ")) && k.contains("read refused"),
            "{k}"
        );
    }
}

/// Verifies `v`'s SSTable in the parts `splits` gives (each by a fresh verifier, supplied exactly
/// what it asks for), then combines them into `whole`: the report and each part's outcome.
fn verify_in_parts(
    make: &dyn Fn() -> Verifier,
    parts: usize,
    data: &[u8],
    name: &str,
) -> (VerifyReport, Vec<SplitOutcome>) {
    let splits = make().splits(parts, 1);
    if splits.len() < 2 {
        // Not split: front ends verify in one pass.
        return (drive(make(), data, name), Vec::new());
    }
    let outcomes: Vec<SplitOutcome> = splits
        .iter()
        .map(|s| {
            let mut v = make().for_split(*s).unwrap();
            while let Some(r) = v.next_read() {
                assert!(
                    r.offset >= s.start && r.end() <= s.end,
                    "{r:?} outside {s:?}"
                );
                let bytes = &data[r.offset as usize..r.end() as usize];
                supply_at(&mut v, r.offset, bytes, &NoClock).unwrap();
            }
            assert_eq!(v.progress().done_bytes, s.end - s.start);
            v.split_outcome()
        })
        .collect();
    let mut whole = make();
    // Any order: the coordinator sorts them.
    let mut shuffled = outcomes.clone();
    shuffled.reverse();
    whole.absorb_splits(&shuffled).unwrap();
    (whole.finish(name), outcomes)
}

/// The CRC32 of the whole of Data.db from the parts' CRC32s (`crc32_combine`), no second pass.
fn combined_crc32(outcomes: &[SplitOutcome]) -> u32 {
    outcomes.iter().fold(0, |acc, o| {
        let d = o
            .digest
            .unwrap_or_else(|| panic!("no digest in {:?}", o.split));
        sstable_engine::checksum::combine(acc, d.value, d.len_bytes)
    })
}

/// Split at every chunk boundary (and in 2 and 3 parts), every fixture gives the one-pass report;
/// the parts' CRC32s combine into the CRC32 of the whole file.
#[test]
fn every_fixture_split_at_every_chunk_boundary_equals_one_pass() {
    let Some(fx) = common::cassandra_fixtures("verify::split_every_chunk") else {
        return;
    };
    let (mut split, mut combined_digests) = (0, 0);
    for t in load_all(&fx) {
        if !t.files.contains_key(&ComponentType::Data) {
            continue;
        }
        let m = t.metadata();
        let make = || Verifier::for_sstable(&m, decompressing()).unwrap();
        let one_pass = drive(make(), t.data(), &t.prefix);
        let chunks = make().splits(usize::MAX, 1).len();
        for parts in [usize::MAX, 2, 3] {
            let (r, outcomes) = verify_in_parts(&make, parts, t.data(), &t.prefix);
            assert_eq!(r, one_pass, "{} in {parts} parts", t.prefix);
            if outcomes.len() < 2 {
                continue;
            }
            if parts == usize::MAX {
                split += 1;
                assert_eq!(outcomes.len(), chunks);
                for o in &outcomes {
                    assert_eq!(o.split.end_chunk, o.split.first_chunk + 1, "{}", t.prefix);
                }
            }
            if m.digest.as_ref().and_then(|d| d.checksum_type()) == Some(ChecksumType::Crc32) {
                combined_digests += 1;
                assert_eq!(combined_crc32(&outcomes), crc32fast::hash(t.data()));
            }
        }
    }
    // MANIFEST: the 3.0+ compressed fixtures with more than one chunk, CRC32 digests.
    assert!(split >= 5, "{split} fixtures split");
    assert!(combined_digests >= 5, "{combined_digests} digests combined");
}

/// A flipped byte is reported by exactly the part (and chunk) that holds it, and the combined
/// report is the one-pass report of the flipped file.
#[test]
fn a_flipped_byte_is_reported_by_exactly_the_part_that_holds_it() {
    let Some(fx) = common::cassandra_fixtures("verify::split_flip") else {
        return;
    };
    let t = legacy(&fx, "nb", "legacy_nb_clust", "nb-1");
    // MANIFEST §7: chunk 1 is Data.db [424, 836).
    for at in [424usize, 600, 835] {
        let flipped = t.with_flip(&ComponentType::Data, at, 0x40);
        let m = flipped.metadata();
        let make = || Verifier::for_sstable(&m, VerifyOptions::default()).unwrap();
        let one_pass = drive(make(), flipped.data(), "flip");
        let (r, outcomes) = verify_in_parts(&make, usize::MAX, flipped.data(), "flip");
        assert_eq!(r, one_pass);
        assert_eq!(outcomes.len(), 21);
        let failing: Vec<(u64, Vec<Option<u64>>)> = outcomes
            .iter()
            .filter(|o| !o.chunk.as_ref().unwrap().ok)
            .map(|o| {
                let c = o.chunk.as_ref().unwrap();
                (o.split.index, c.failures.iter().map(|f| f.chunk).collect())
            })
            .collect();
        assert_eq!(failing, [(1, vec![Some(1)])], "flip at {at}");
        assert_eq!((outcomes[1].split.start, outcomes[1].split.end), (424, 836));
        let digest = r.check(CheckKind::Digest).unwrap();
        assert_eq!(digest.failures[0].expected, "2568411107");
        assert_eq!(
            digest.failures[0].actual,
            crc32fast::hash(flipped.data()).to_string()
        );
        assert_eq!(combined_crc32(&outcomes), crc32fast::hash(flipped.data()));
        // In 2 parts: the first holds chunk 1.
        let (r2, two) = verify_in_parts(&make, 2, flipped.data(), "flip");
        assert_eq!(r2, one_pass);
        assert_eq!(two.len(), 2);
        assert!(!two[0].chunk.as_ref().unwrap().ok && two[1].chunk.as_ref().unwrap().ok);
    }
}

/// An uncompressed Data.db is split by CRC.db slices; a flipped byte fails the slice (and only the
/// part) that holds it; a part that stops early leaves the whole not verifiable.
#[test]
fn uncompressed_data_splits_by_crc_db_slices() {
    let data = sample_data(100_000);
    let slice = 4096u32;
    let mut crc = slice.to_be_bytes().to_vec();
    for s in data.chunks(slice as usize) {
        crc.extend_from_slice(&crc32fast::hash(s).to_be_bytes());
    }
    let crc = sstable_engine::component::crc::decode(&crc, &nb()).unwrap();
    let digest_text = crc32fast::hash(&data).to_string();
    let d = digest::decode(digest_text.as_bytes(), DigestAlgorithm::Crc32, &nb()).unwrap();
    let input = VerifyInput {
        version: nb(),
        data_file_len_bytes: data.len() as u64,
        compression: None,
        crc: Some(&crc),
        digest: Some(&d),
        statistics: None,
    };
    let make = || Verifier::new(input, VerifyOptions::default());
    let splits = make().splits(4, 1);
    assert_eq!(
        splits
            .iter()
            .map(|s| (s.start, s.end, s.first_chunk, s.end_chunk))
            .collect::<Vec<_>>(),
        [
            (0, 28_672, 0, 7),
            (28_672, 53_248, 7, 13),
            (53_248, 77_824, 13, 19),
            (77_824, 100_000, 19, 25)
        ]
    );
    // Too small for parts of 64 KiB: one part.
    assert_eq!(make().splits(4, 64 << 10).len(), 1);
    let (r, outcomes) = verify_in_parts(&make, 4, &data, "crc");
    assert!(r.valid, "{r:#?}");
    assert_eq!(r, drive(make(), &data, "crc"));
    assert_eq!(r.check(CheckKind::CrcDb).unwrap().checked, 25);
    assert_eq!(combined_crc32(&outcomes), crc32fast::hash(&data));
    let mut flipped = data.clone();
    flipped[60_000] ^= 1; // slice 14, part 2
    let (r, outcomes) = verify_in_parts(&make, 4, &flipped, "crc");
    assert_eq!(r, drive(make(), &flipped, "crc"));
    assert_eq!(
        failures(&r),
        [
            (CheckKind::CrcDb, FindingKind::CrcDb, Some(14), 57_344, 4096),
            (CheckKind::Digest, FindingKind::Digest, None, 0, 100_000)
        ]
    );
    let failing: Vec<u64> = outcomes
        .iter()
        .filter(|o| !o.crc_db.as_ref().unwrap().ok)
        .map(|o| o.split.index)
        .collect();
    assert_eq!(failing, [2]);
    // A part not at a slice boundary is refused; a part that stopped early ends the verification.
    let mut bad = splits[1];
    bad.start += 1;
    assert!(make().for_split(bad).is_err());
    let mut first = make().for_split(splits[0]).unwrap();
    supply_at(&mut first, 0, &data[..4096], &NoClock).unwrap();
    let mut whole = make();
    whole.absorb_splits(&[first.split_outcome()]).unwrap();
    let r = whole.finish("stopped");
    assert_eq!(
        (r.verdict, r.verified_bytes, r.complete),
        (Verdict::NotVerifiable, 4096, false)
    );
    // A SHA-1 digest cannot be appended: one part.
    let jb = load(
        &common::cassandra_fixtures("verify::split_sha1")
            .unwrap_or_default()
            .join("legacy-sstables/jb/Keyspace1"),
        "Keyspace1-Standard1-jb-0",
    );
    let m = jb.metadata();
    assert_eq!(
        Verifier::for_sstable(&m, VerifyOptions::default())
            .unwrap()
            .splits(4, 1)
            .len(),
        1
    );
}

/// A report's coverage as (check, component, start, end, passed).
fn coverage_of(r: &VerifyReport) -> Vec<(&str, &str, u64, u64, bool)> {
    r.coverage
        .iter()
        .map(|c| {
            (
                c.check.as_str(),
                c.component.as_str(),
                c.start,
                c.end,
                c.passed,
            )
        })
        .collect()
}

/// Issue #31: an uncompressed SSTable copied without TOC.txt and CRC.db is covered by its
/// Digest (valid, with a finding that a corruption would be detected, not located); with only
/// CRC.db gone TOC.txt says the set is incomplete; with Digest and CRC.db gone and no TOC.txt
/// no check covers Data.db.
#[test]
fn uncompressed_without_toc_and_crc_db_is_covered_by_its_digest() {
    let Some(fx) = common::cassandra_fixtures("verify::digest_covers_data") else {
        return;
    };
    let whole = legacy(
        &fx,
        "ka",
        "legacy_ka_with_illegal_cell_names_indexed",
        "legacy_tables-legacy_ka_with_illegal_cell_names_indexed-ka-1",
    );
    let without = |gone: &[ComponentType]| SSTable {
        prefix: whole.prefix.clone(),
        files: whole
            .files
            .iter()
            .filter(|(c, _)| !gone.contains(c))
            .map(|(c, b)| (c.clone(), b.clone()))
            .collect(),
        info: whole.info.clone(),
    };
    let digest = ComponentType::Digest(DigestAlgorithm::Sha1);
    assert!(whole.files.contains_key(&digest) && whole.files.contains_key(&ComponentType::Crc));
    assert_eq!(whole.run(decompressing()).verdict, Verdict::Valid);

    let r = without(&[ComponentType::Toc, ComponentType::Crc]).run(decompressing());
    assert_eq!(r.verdict, Verdict::Valid, "{r:#?}");
    assert!(r.unverified.is_empty(), "{r:#?}");
    assert_eq!(r.verified_bytes, whole.data().len() as u64);
    let located: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.component.as_deref() == Some("CRC.db"))
        .collect();
    assert_eq!(located.len(), 1, "{r:#?}");
    assert!(located[0].message.contains("detected, not located"));
    // The report says what covered Data.db: the digest alone, all of it; with CRC.db, its
    // checksums too.
    let len = whole.data().len() as u64;
    let covered = coverage_of(&r);
    assert_eq!(covered, [("Digest.sha1 digest", "Data.db", 0, len, true)]);
    let r = whole.run(decompressing());
    let covered = coverage_of(&r);
    assert_eq!(
        covered,
        [
            ("CRC.db CRC.db checksums", "Data.db", 0, len, true),
            ("Digest.sha1 digest", "Data.db", 0, len, true)
        ]
    );
    // The same file with a flipped Data.db byte: the digest fails it.
    let mut flipped = without(&[ComponentType::Toc, ComponentType::Crc]);
    flipped.file_mut(&ComponentType::Data)[100] ^= 1;
    assert_eq!(flipped.run(decompressing()).verdict, Verdict::Invalid);

    let r = without(&[ComponentType::Crc]).run(decompressing());
    assert_eq!(r.verdict, Verdict::NotVerifiable, "{r:#?}");
    assert!(r
        .unverified
        .iter()
        .any(|u| u.contains("CRC.db is listed in TOC.txt but missing")));

    let r = without(&[ComponentType::Toc, ComponentType::Crc, digest]).run(decompressing());
    assert_eq!(r.verdict, Verdict::NotVerifiable, "{r:#?}");
    assert!(
        r.unverified
            .iter()
            .any(|u| u.contains("no check covers Data.db")),
        "{r:#?}"
    );
}

#[test]
fn the_report_lists_which_check_covered_which_bytes() {
    let Some(fx) = common::cassandra_fixtures("verify::coverage") else {
        return;
    };
    // MANIFEST: nb/legacy_nb_clust is LZ4-compressed, with Digest.crc32 and na+ metadata CRCs.
    let t = legacy(&fx, "nb", "legacy_nb_clust", "nb-1-big");
    let len = t.data().len() as u64;
    let r = t.run(decompressing());
    assert_eq!(r.verdict, Verdict::Valid, "{r:#?}");
    let data: Vec<_> = r
        .coverage
        .iter()
        .filter(|c| c.component == "Data.db")
        .map(|c| (c.check.as_str(), c.start, c.end, c.passed))
        .collect();
    assert_eq!(
        data,
        [
            ("Data.db chunk checksums", 0, len, true),
            ("Digest.crc32 digest", 0, len, true)
        ]
    );
    // Statistics.db: the parts its metadata CRCs cover, inside the file, each passed.
    let statistics_len = t.files[&ComponentType::Statistics].len() as u64;
    let parts: Vec<_> = r
        .coverage
        .iter()
        .filter(|c| c.component == "Statistics.db")
        .collect();
    assert!(!parts.is_empty());
    assert!(parts
        .iter()
        .all(|c| c.check == "Statistics.db metadata checksums"
            && c.passed
            && c.start < c.end
            && c.end <= statistics_len));
    // A flipped chunk byte: the chunk checksums' range did not pass.
    let mut flipped = t;
    flipped.file_mut(&ComponentType::Data)[10] ^= 1;
    let r = flipped.run(decompressing());
    assert!(r
        .coverage
        .iter()
        .any(|c| c.check == "Data.db chunk checksums" && !c.passed));
}
