//! The fuzz targets under plain `cargo test` (as wasmparser runs its fuzzers): every committed
//! input in `fuzz/regressions/<target>/` replayed (minimized crash inputs, and small hand-made
//! inputs of the failure classes found by the corruption sweep of issue 14), and ~100 deterministic random mutations
//! per target of inputs seeded from the fixtures. The targets themselves live in
//! `fuzz/src/lib.rs`, shared with `cargo xtask fuzz`.

use crate::common;

#[path = "../../fuzz/src/lib.rs"]
mod targets;

use std::path::{Path, PathBuf};

use sstable_engine::descriptor::parse_file_name;

use targets::{SSTableInput, TARGETS};

const MUTATIONS_PER_TARGET: usize = 100;

fn regressions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("fuzz")
        .join("regressions")
}

#[test]
fn committed_crash_inputs_replay_without_panic() {
    let mut replayed = 0;
    for (name, target) in TARGETS {
        let dir = regressions_dir().join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let bytes = std::fs::read(e.path()).unwrap();
            target(&bytes);
            replayed += 1;
        }
    }
    // Every directory under regressions/ names a target (a typo would silently replay nothing).
    if let Ok(dirs) = std::fs::read_dir(regressions_dir()) {
        for d in dirs.flatten() {
            let name = d.file_name().to_string_lossy().into_owned();
            assert!(
                TARGETS.iter().any(|(t, _)| *t == name),
                "fuzz/regressions/{name} is not a target"
            );
        }
    }
    // The committed inputs (crash and regression inputs) are really there and were replayed.
    assert!(
        replayed >= 4,
        "only {replayed} inputs under fuzz/regressions/"
    );
    eprintln!("replayed {replayed} inputs");
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One libFuzzer-like mutation: flip, set, big value, truncate, insert, erase.
fn mutate(input: &mut Vec<u8>, rng: &mut Rng) {
    let len = input.len();
    match rng.below(6) {
        0 if len > 0 => {
            let i = rng.below(len);
            input[i] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let i = rng.below(len);
            input[i] = rng.next() as u8;
        }
        2 if len >= 4 => {
            let i = rng.below(len - 3);
            let v: [u8; 4] = match rng.below(3) {
                0 => [0x7f, 0xff, 0xff, 0xff],
                1 => [0xff; 4],
                _ => [0x80, 0, 0, 0],
            };
            input[i..i + 4].copy_from_slice(&v);
        }
        3 => input.truncate(rng.below(len + 1)),
        4 => {
            let i = rng.below(len + 1);
            let n = 1 + rng.below(16);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            input.splice(i..i, bytes);
        }
        _ if len > 0 => {
            let i = rng.below(len);
            let n = 1 + rng.below(16);
            input.drain(i..(i + n).min(len));
        }
        _ => input.push(rng.next() as u8),
    }
}

/// The fixture SSTables the seeds come from: one small table per version.
const SEED_TABLES: [&str; 6] = [
    "legacy-sstables/ka/legacy_tables/legacy_ka_simple",
    "legacy-sstables/la/legacy_tables/legacy_la_simple",
    "legacy-sstables/mc/legacy_tables/legacy_mc_simple",
    "legacy-sstables/nb/legacy_tables/legacy_nb_simple",
    "legacy-sstables/oa/legacy_tables/legacy_oa_simple",
    "legacy-sstables/da/legacy_tables/legacy_da_clust",
];

/// A table's files: (file-name suffix, bytes).
type Files = Vec<(String, Vec<u8>)>;

/// (version, files) of each seed table.
fn seed_tables(fx: &Path) -> Vec<(sstable_engine::Version, Files)> {
    let mut out = Vec::new();
    for t in SEED_TABLES {
        let mut files = Vec::new();
        let mut version = None;
        let mut entries: Vec<_> = std::fs::read_dir(fx.join(t)).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().into_owned();
            let (d, c) = parse_file_name(&name).unwrap();
            version = Some(d.version);
            files.push((c.file_suffix().to_owned(), std::fs::read(e.path()).unwrap()));
        }
        out.push((version.unwrap(), files));
    }
    out
}

#[test]
fn every_target_survives_random_mutations() {
    let Some(fx) = common::cassandra_fixtures("fuzz_regressions::random_mutations") else {
        return;
    };
    let tables = seed_tables(&fx);
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for (name, target) in TARGETS {
        let seeds: Vec<Vec<u8>> = match targets::target_component(name) {
            Some(suffix) => tables
                .iter()
                .flat_map(|(v, files)| {
                    let code = targets::version_code(v).unwrap();
                    files
                        .iter()
                        .filter(|(s, _)| s == suffix)
                        .map(move |(_, b)| {
                            let mut input = vec![code];
                            input.extend_from_slice(b);
                            input
                        })
                })
                .collect(),
            None if name == "toc" || name == "scylla" => Vec::new(),
            None => tables
                .iter()
                .map(|(v, files)| SSTableInput::encode(v, files).unwrap())
                .collect(),
        };
        let seeds = if seeds.is_empty() {
            vec![b"\x00TOC.txt\nData.db\n".to_vec()]
        } else {
            seeds
        };
        for seed in &seeds {
            target(seed);
        }
        for i in 0..MUTATIONS_PER_TARGET {
            let mut input = seeds[i % seeds.len()].clone();
            for _ in 0..1 + rng.below(4) {
                mutate(&mut input, &mut rng);
            }
            target(&input);
        }
    }
}

/// The whole-SSTable input round-trips and the unmutated seeds decode fully.
#[test]
fn sstable_inputs_round_trip() {
    let Some(fx) = common::cassandra_fixtures("fuzz_regressions::round_trip") else {
        return;
    };
    for (version, files) in seed_tables(&fx) {
        let bytes = SSTableInput::encode(&version, &files).unwrap();
        let input = SSTableInput::parse(&bytes).unwrap();
        assert_eq!(input.descriptor.version, version);
        assert_eq!(input.files.len(), files.len());
        let outcome = targets::run_sstable(&input, b"1");
        assert_eq!(outcome.metadata_errors, 0, "{version}");
        assert!(
            matches!(outcome.data, Some(Ok(n)) if n > 0),
            "{version}: {:?}",
            outcome.data
        );
        assert!(
            matches!(outcome.index, Some(Ok(n)) if n > 0),
            "{version}: {:?}",
            outcome.index
        );
        let lookup = outcome.lookup.unwrap();
        assert!(lookup.found, "{version}: {:?}", lookup.stopped_at);
        let verify = outcome.verify.unwrap();
        assert!(
            verify.valid && verify.complete,
            "{version}: {:?}",
            verify.errors
        );
    }
}

/// Writes the seed corpus of every target into `$FUZZ_CORPUS_DIR/<target>/` from the fixtures
/// (run by `cargo xtask fuzz`; ignored otherwise). Component targets get every fixture file of
/// their component; whole-SSTable targets every small fixture SSTable.
#[test]
#[ignore = "run by cargo xtask fuzz"]
fn write_fuzz_corpus() {
    let out = PathBuf::from(std::env::var_os("FUZZ_CORPUS_DIR").expect("FUZZ_CORPUS_DIR"));
    let fx = common::cassandra_fixtures("fuzz_regressions::write_fuzz_corpus")
        .expect("the fixtures are needed to seed the corpus");
    let mut seeds: Vec<(&str, Vec<u8>)> = Vec::new();
    let files = common::files_under(&fx);
    let grouping = sstable_engine::sstable_set::group_files(&files);
    for sstable in &grouping.sstables {
        let version = sstable.descriptor.version;
        let Some(code) = targets::version_code(&version) else {
            continue;
        };
        let mut whole = Vec::new();
        let mut total = 0usize;
        for (component, index) in &sstable.files {
            let bytes = std::fs::read(fx.join(&files[*index])).unwrap();
            total += bytes.len();
            for (name, _) in TARGETS {
                if targets::target_component(name) == Some(component.file_suffix()) {
                    let mut input = vec![code];
                    input.extend_from_slice(&bytes);
                    seeds.push((name, input));
                }
            }
            whole.push((component.file_suffix().to_owned(), bytes));
        }
        if total <= 256 << 10 {
            if let Some(input) = SSTableInput::encode(&version, &whole) {
                for name in ["metadata", "data", "lookup", "verify", "sstable"] {
                    seeds.push((name, input.clone()));
                }
            }
        }
    }
    seeds.push(("toc", b"Data.db\nTOC.txt\nStatistics.db\n".to_vec()));
    let mut written = 0;
    for (name, input) in seeds {
        let dir = out.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("seed-{:016x}", fnv1a(&input)));
        std::fs::write(file, &input).unwrap();
        written += 1;
    }
    eprintln!("wrote {written} seeds under {}", out.display());
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The hand-made regression inputs decode as the fixed engine decodes them.
#[test]
fn regression_inputs_give_typed_outcomes() {
    use sstable_engine::component::bti::partitions;
    use sstable_engine::component::compression_info::{self, RefusalKind};
    use sstable_engine::component::statistics;
    use sstable_engine::{Format, Version};

    let nb = Version::parse(Format::Big, "nb").unwrap();
    let read = |target: &str, name: &str| {
        let bytes = std::fs::read(regressions_dir().join(target).join(name)).unwrap();
        assert_eq!(bytes[0], targets::version_code(&nb).unwrap());
        bytes
    };
    let zero = read("compression_info", "zero-chunks-for-173-bytes");
    let ci = compression_info::decode(&zero[1..], &nb).unwrap();
    assert_eq!(
        ci.refusals(None)
            .into_iter()
            .map(|r| r.kind)
            .collect::<Vec<_>>(),
        [RefusalKind::NoChunks {
            data_length_bytes: 173
        }]
    );
    let huge = read("compression_info", "huge-chunk-count");
    let e = compression_info::decode(&huge[1..], &nb).unwrap_err();
    assert!(
        matches!(e.kind(), sstable_engine::ErrorKind::LengthTooLarge { .. }),
        "{e}"
    );
    let stats = read("statistics", "huge-component-count");
    assert!(statistics::decode(&stats[1..], &nb).is_err());
    let root = std::fs::read(regressions_dir().join("bti_partitions/root-past-trie-end")).unwrap();
    assert!(partitions::decode(&root).is_err());
}
