//! A deterministic corruption sweep: one small fixture SSTable of every visible version (jb, ka,
//! la, ma, mb, mc, md, me, na, nb, nc, oa, da; LZ4-compressed and uncompressed with CRC.db), every component truncated, flipped,
//! given huge length fields, zero-filled, appended to and deleted, each result run through every
//! engine entry point (metadata, Data.db decoding, index listing, a lookup, verification with
//! decompression) through the drivers of `fuzz/src/lib.rs`, which bound their steps.
//!
//! Asserted: no panic; no hang (a driver that does not end within its step bound panics); memory
//! bounded (the allocator refuses to grow more than [`RUN_LIMIT_BYTES`] during one run, which
//! aborts the test); the unmutated SSTables decode fully (so the sweep exercises real paths); a
//! flipped Data.db byte is never `valid`; and no silent wrong answer: a lookup that ends
//! without an error answers as on the pristine copy (found or absent, position, partition
//! deletion), and a changed Data.db, digest or checksummed Statistics.db is never `valid`.
//! Run with `SWEEP_VERBOSE=1` to name each run as it starts (to find the
//! run of an abort).

mod common;

#[path = "../../fuzz/src/lib.rs"]
mod targets;

use std::alloc::System;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use cap::Cap;
use sstable_engine::component::ComponentType;
use sstable_engine::descriptor::parse_file_name;
use sstable_engine::lookup::{LookupResult, StopReason};
use sstable_engine::verify::Verdict;

use targets::{run_sstable, SSTableInput};

#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

/// How much one run may allocate on top of what the sweep holds.
const RUN_LIMIT_BYTES: usize = 64 << 20;

/// (fixture directory, a key the SSTable holds, whether Data.db has chunk checksums).
const TABLES: [(&str, &[u8]); 14] = [
    // MANIFEST §5: uncompressed, with CRC.db; keys "100".."999".
    ("legacy-sstables/jb/Keyspace1", b"100"),
    ("legacy-sstables/ka/legacy_tables/legacy_ka_simple", b"1"),
    (
        "legacy-sstables/ka/legacy_tables/legacy_ka_with_illegal_cell_names_indexed",
        b"key",
    ),
    ("legacy-sstables/la/legacy_tables/legacy_la_simple", b"1"),
    ("legacy-sstables/ma/legacy_tables/legacy_ma_simple", b"1"),
    ("legacy-sstables/mb/legacy_tables/legacy_mb_simple", b"1"),
    ("legacy-sstables/mc/legacy_tables/legacy_mc_simple", b"1"),
    ("legacy-sstables/md/legacy_tables/legacy_md_simple", b"1"),
    ("legacy-sstables/me/legacy_tables/legacy_me_simple", b"1"),
    ("legacy-sstables/na/legacy_tables/legacy_na_simple", b"1"),
    ("legacy-sstables/nb/legacy_tables/legacy_nb_simple", b"1"),
    ("legacy-sstables/nc/legacy_tables/legacy_nc_simple", b"1"),
    ("legacy-sstables/oa/legacy_tables/legacy_oa_simple", b"1"),
    ("legacy-sstables/da/legacy_tables/legacy_da_clust", b"1"),
];

fn load(dir: &Path) -> SSTableInput {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    let mut files = Vec::new();
    let mut descriptor = None;
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let (d, c) = parse_file_name(&name).unwrap();
        descriptor = Some(d);
        files.push((c, std::fs::read(e.path()).unwrap()));
    }
    SSTableInput {
        descriptor: descriptor.unwrap(),
        files,
    }
}

/// The mutations of one file: (name, mutated bytes or `None` for a deleted file).
fn mutations(bytes: &[u8]) -> Vec<(String, Option<Vec<u8>>)> {
    let len = bytes.len();
    let mut out: Vec<(String, Option<Vec<u8>>)> = Vec::new();
    for cut in [0, len / 2, len.saturating_sub(1)] {
        if cut < len {
            out.push((format!("truncated to {cut}"), Some(bytes[..cut].to_vec())));
        }
    }
    let mut at: Vec<usize> = [len / 7, len / 3, 2 * len / 3, len.saturating_sub(1)]
        .into_iter()
        .filter(|&i| i < len)
        .collect();
    at.dedup();
    for i in at {
        let mut b = bytes.to_vec();
        b[i] ^= 0xff;
        out.push((format!("byte {i} flipped"), Some(b)));
    }
    // Huge values over the header (every offset of its first 48 bytes, where the lengths,
    // counts and sizes of the small components are), the middle and near the end.
    let header = (0..48usize).flat_map(|i| {
        [
            (i, &[0xff; 8][..]),
            (i, &[0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0][..]),
        ]
    });
    for (i, value) in [
        (0, &[0x7f, 0xff, 0xff, 0xff][..]),
        (len / 2, &[0xff; 8][..]),
        (
            len.saturating_sub(12),
            &[0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0][..],
        ),
    ]
    .into_iter()
    .chain(header)
    {
        if i + value.len() <= len {
            let mut b = bytes.to_vec();
            b[i..i + value.len()].copy_from_slice(value);
            out.push((format!("huge value {} at {i}", hex(value)), Some(b)));
        }
    }
    for start in [0, len / 2] {
        let end = (start + 16).min(len);
        if start < end {
            let mut b = bytes.to_vec();
            b[start..end].fill(0);
            out.push((format!("zeroed {start}..{end}"), Some(b)));
        }
    }
    let mut b = bytes.to_vec();
    b.extend_from_slice(b"garbage");
    out.push(("7 bytes appended".to_owned(), Some(b)));
    out.push(("deleted".to_owned(), None));
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a lookup answers when it ends without an error: found or not, where, and the
/// partition's deletion.
type LookupAnswer = (bool, Option<u64>, Option<String>);

/// The lookup's answer, or `None` when it ended in an error (or did not finish): an error is
/// said, so any answer may differ.
fn lookup_answer(r: &LookupResult) -> Option<LookupAnswer> {
    if matches!(
        r.stopped_at,
        Some(StopReason::Error { .. } | StopReason::Unfinished | StopReason::Unsupported { .. })
    ) {
        return None;
    }
    Some((
        r.found,
        r.partition_position,
        r.partition_start
            .as_ref()
            .map(|s| format!("{:?}", s.deletion)),
    ))
}

#[test]
fn mutated_sstables_never_panic_hang_or_grow() {
    let Some(fx) = common::cassandra_fixtures("sweep::mutated_sstables") else {
        return;
    };
    let verbose = std::env::var_os("SWEEP_VERBOSE").is_some();
    let mut runs = 0usize;
    let mut panics = Vec::new();
    let mut silent: Vec<String> = Vec::new();
    let started = std::time::Instant::now();
    for (dir, key) in TABLES {
        let original = load(&fx.join(dir));
        let version = original.descriptor.version;

        // The unmutated SSTable decodes fully through every entry point.
        let base = run_sstable(&original, key);
        assert_eq!(base.metadata_errors, 0, "{dir}");
        assert!(
            matches!(base.data, Some(Ok(n)) if n > 0),
            "{dir}: {:?}",
            base.data
        );
        assert!(
            matches!(base.index, Some(Ok(n)) if n > 0),
            "{dir}: {:?}",
            base.index
        );
        let lookup = base.lookup.as_ref().unwrap();
        assert!(lookup.found, "{dir}: {:?}", lookup.stopped_at);
        let report = base.verify.as_ref().unwrap();
        assert!(
            report.valid && report.complete,
            "{dir}: {:?}",
            report.errors
        );

        for (component, bytes) in &original.files {
            for (what, mutated) in mutations(bytes) {
                let name = format!("{dir} {}: {what}", component.file_suffix());
                if verbose {
                    eprintln!("{name}");
                }
                let mut input = SSTableInput {
                    descriptor: original.descriptor.clone(),
                    files: original.files.clone(),
                };
                input.files.retain(|(c, _)| c != component);
                if let Some(m) = &mutated {
                    input.files.push((component.clone(), m.clone()));
                }
                ALLOCATOR
                    .set_limit(ALLOCATOR.allocated() + RUN_LIMIT_BYTES)
                    .unwrap();
                let outcome = catch_unwind(AssertUnwindSafe(|| run_sstable(&input, key)));
                ALLOCATOR.set_limit(usize::MAX).unwrap();
                runs += 1;
                let outcome = match outcome {
                    Ok(o) => o,
                    Err(_) => {
                        panics.push(name);
                        continue;
                    }
                };
                // A flipped Data.db byte is covered by a chunk checksum or the digest.
                if *component == ComponentType::Data && what.contains("flipped") {
                    if let Some(report) = &outcome.verify {
                        assert!(!report.valid, "{name}: verify says valid");
                    }
                }
                // A component verify needs, deleted: a check could not run, so never "valid".
                let checked = matches!(
                    component,
                    ComponentType::Data
                        | ComponentType::CompressionInfo
                        | ComponentType::Crc
                        | ComponentType::Digest(_)
                        | ComponentType::Statistics
                );
                if checked && mutated.is_none() {
                    let report = outcome.verify.as_ref();
                    assert!(
                        report.is_none_or(|r| !r.valid && r.verdict != Verdict::Valid),
                        "{name}: verify says valid"
                    );
                }
                // The read path deleted or cut short: the key is found where the bytes that
                // hold it survived, or the lookup ends in an error — never a sound "absent".
                let on_read_path = matches!(
                    component,
                    ComponentType::PrimaryIndex | ComponentType::Partitions | ComponentType::Data
                );
                if on_read_path && (mutated.is_none() || what.contains("truncated")) {
                    if let Some(lookup) = &outcome.lookup {
                        assert!(
                            lookup.found
                                || matches!(
                                    lookup.stopped_at,
                                    Some(StopReason::Error { .. } | StopReason::Unfinished)
                                ),
                            "{name}: lookup says absent ({:?})",
                            lookup.stopped_at
                        );
                    }
                }
                let _ = version;
                // No silent wrong answer: a lookup that ends without an error (and without
                // naming a corrupt Filter.db) answers as on the pristine SSTable — found or
                // absent, the same position, the same partition deletion.
                if let (Some(mutated), Some(pristine)) = (&outcome.lookup, &base.lookup) {
                    let false_negative = mutated.bloom.as_ref().is_some_and(|b| b.false_negative);
                    if let Some(answer) = lookup_answer(mutated).filter(|_| !false_negative) {
                        if Some(&answer) != lookup_answer(pristine).as_ref() {
                            silent.push(format!(
                                "{name}: lookup answers {answer:?} without an error ({:?})",
                                mutated.stopped_at
                            ));
                        }
                    }
                }
                // A changed byte of Data.db, or of Statistics.db where its metadata is
                // checksummed, is never "valid". (A changed CRC.db can be: its chunk size
                // altered on a one-chunk Data.db places the same checksum; so can a changed
                // Digest.sha1, whose file name after the hash nothing reads.)
                let covered = match component {
                    ComponentType::Data => true,
                    ComponentType::Statistics => version.has_metadata_checksum(),
                    _ => false,
                };
                if covered && mutated.as_ref().is_some_and(|m| m != bytes) {
                    if let Some(report) = outcome.verify.as_ref().filter(|r| r.valid) {
                        silent.push(format!("{name}: verify says valid ({:?})", report.verdict));
                    }
                }
            }
        }
    }
    let elapsed = started.elapsed();
    eprintln!(
        "sweep: {runs} runs in {:.1} s, peak heap {} KiB",
        elapsed.as_secs_f64(),
        ALLOCATOR.max_allocated() / 1024
    );
    assert!(panics.is_empty(), "{} panics: {panics:#?}", panics.len());
    assert!(
        silent.is_empty(),
        "{} silent wrong answers: {silent:#?}",
        silent.len()
    );
    assert!(runs > 500, "{runs}");
}

/// Found by the sweep: a Partitions.db whose first-key position is zeroed puts the root past the
/// trie's end; the lookup asked for the same empty range forever. Now an error naming the node.
#[test]
fn a_trie_root_past_the_trie_end_is_an_error() {
    let Some(fx) = common::cassandra_fixtures("sweep::trie_root_past_end") else {
        return;
    };
    let mut input = load(&fx.join("legacy-sstables/da/legacy_tables/legacy_da_clust"));
    for (c, b) in &mut input.files {
        if *c == ComponentType::Partitions {
            let footer = b.len() - 24;
            b[footer..footer + 8].fill(0);
        }
    }
    let m = input.metadata();
    let result = targets::lookup(&input, &m, b"1");
    assert!(!result.found);
    match result.stopped_at {
        Some(sstable_engine::lookup::StopReason::Error {
            component, message, ..
        }) => {
            assert_eq!(component, Some(ComponentType::Partitions));
            assert!(message.contains("outside the trie"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(result.steps.len() < 5, "{}", result.steps.len());
}
