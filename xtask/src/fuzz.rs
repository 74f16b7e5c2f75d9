//! `cargo xtask fuzz [--secs N] [TARGET]`: coverage-guided fuzzing of the engine's decoders with
//! cargo-fuzz (libFuzzer), on the stable toolchain.
//!
//! cargo-fuzz wants nightly for its `-Z` flags and the sanitizers; this machine has stable only,
//! so it runs with `RUSTC_BOOTSTRAP=1` (stable rustc accepts `-Z` flags) and `-s none` (no
//! sanitizer: the engine forbids `unsafe`, so AddressSanitizer would find nothing a panic does
//! not show). Each target's corpus (`fuzz/corpus/<target>/`, not committed) is seeded from the
//! fixtures on every run by the ignored test `write_fuzz_corpus` of
//! `engine/tests/fuzz_regressions.rs`; crashes land in `fuzz/artifacts/<target>/`. A crash input
//! worth keeping is minimized (`cargo fuzz tmin`) and committed to `fuzz/regressions/<target>/`,
//! where plain `cargo test` replays it.

use std::path::Path;
use std::process::Command;

use crate::process::path_env;
use crate::process::{announce, run};
use crate::repo_root;

pub const CARGO_FUZZ_VERSION: &str = "0.13.1";

/// Every target of `fuzz/Cargo.toml`.
pub const TARGETS: [&str; 16] = [
    "statistics",
    "compression_info",
    "summary",
    "filter",
    "toc",
    "digest",
    "crc",
    "scylla",
    "index",
    "bti_partitions",
    "bti_rows",
    "metadata",
    "data",
    "lookup",
    "verify",
    "sstable",
];

/// Largest input libFuzzer makes (the whole-SSTable seeds go up to 256 KiB).
const MAX_LEN_BYTES: u32 = 300_000;

/// `[--secs N] [TARGET]` → (seconds per target, targets).
pub fn parse_args(args: &[String]) -> Result<(u64, Vec<&'static str>), String> {
    let mut secs = 60;
    let mut targets = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--secs" {
            let v = it.next().ok_or("--secs needs a number of seconds")?;
            secs = v.parse().map_err(|_| format!("bad --secs `{v}`"))?;
        } else if let Some(t) = TARGETS.iter().find(|t| **t == a.as_str()) {
            targets.push(*t);
        } else {
            return Err(format!(
                "unknown fuzz target `{a}`; targets: {}",
                TARGETS.join(", ")
            ));
        }
    }
    if targets.is_empty() {
        targets = TARGETS.to_vec();
    }
    Ok((secs, targets))
}

fn ensure_cargo_fuzz() -> Result<(), String> {
    let installed = Command::new("cargo")
        .args(["fuzz", "--version"])
        .env("PATH", path_env())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .is_some_and(|v| v.contains(CARGO_FUZZ_VERSION));
    if installed {
        return Ok(());
    }
    announce(&format!(
        "installing cargo-fuzz {CARGO_FUZZ_VERSION} with cargo install (first time only)"
    ));
    run(Command::new("cargo").args([
        "install",
        "cargo-fuzz",
        "--version",
        CARGO_FUZZ_VERSION,
        "--locked",
    ]))
}

/// What one target's run did.
struct Outcome {
    target: &'static str,
    runs: Option<u64>,
    crashed: bool,
}

pub fn fuzz(args: &[String]) -> Result<(), String> {
    let (secs, targets) = parse_args(args)?;
    ensure_cargo_fuzz()?;
    let root = repo_root();
    let fuzz_dir = root.join("fuzz");
    let corpus = fuzz_dir.join("corpus");

    announce("seeding the corpora from the fixtures (engine/tests/fuzz_regressions.rs)");
    run(Command::new("cargo")
        .current_dir(&root)
        .env("FUZZ_CORPUS_DIR", &corpus)
        .args([
            "test",
            "-q",
            "-p",
            "sstable-engine",
            "--test",
            "integration",
            "--",
            "--ignored",
            "--exact",
            "fuzz_regressions::write_fuzz_corpus",
        ]))?;

    announce("building the fuzz targets (cargo fuzz build -s none -O, RUSTC_BOOTSTRAP=1)");
    run(fuzz_command(&fuzz_dir).args(["build", "-s", "none", "-O"]))?;

    let mut outcomes = Vec::new();
    for target in targets {
        announce(&format!("fuzzing {target} for {secs} s"));
        outcomes.push(fuzz_one(&fuzz_dir, &corpus, target, secs)?);
    }
    println!("\n{:<18} {:>14}  result", "target", "executions");
    for o in &outcomes {
        println!(
            "{:<18} {:>14}  {}",
            o.target,
            o.runs.map_or("?".to_owned(), |r| r.to_string()),
            if o.crashed {
                format!("CRASH (see fuzz/artifacts/{}/)", o.target)
            } else {
                "no crash".to_owned()
            }
        );
    }
    let crashed: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.crashed)
        .map(|o| o.target)
        .collect();
    if crashed.is_empty() {
        Ok(())
    } else {
        Err(format!("crashes in {}", crashed.join(", ")))
    }
}

fn fuzz_command(fuzz_dir: &Path) -> Command {
    let mut c = Command::new("cargo");
    c.current_dir(fuzz_dir)
        .arg("fuzz")
        .env("RUSTC_BOOTSTRAP", "1")
        .env("PATH", path_env());
    c
}

fn fuzz_one(
    fuzz_dir: &Path,
    corpus: &Path,
    target: &'static str,
    secs: u64,
) -> Result<Outcome, String> {
    let target_corpus = corpus.join(target);
    std::fs::create_dir_all(&target_corpus)
        .map_err(|e| format!("cannot create {}: {e}", target_corpus.display()))?;
    let out = fuzz_command(fuzz_dir)
        .args(["run", "-s", "none", "-O", target])
        .arg(&target_corpus)
        .arg("--")
        .arg(format!("-max_total_time={secs}"))
        .arg(format!("-max_len={MAX_LEN_BYTES}"))
        .arg("-rss_limit_mb=2048")
        .arg("-timeout=10")
        .arg("-print_final_stats=1")
        .output()
        .map_err(|e| format!("could not run cargo fuzz: {e}"))?;
    let log = String::from_utf8_lossy(&out.stderr);
    let log_path = fuzz_dir.join("artifacts").join(format!("{target}.log"));
    if let Some(parent) = log_path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let _ = std::fs::write(&log_path, log.as_bytes());
    // libFuzzer's last words: "Done 123456 runs in 60 second(s)" or "stat::number_of_executed_units: N".
    let runs = log.lines().rev().find_map(|l| {
        l.strip_prefix("stat::number_of_executed_units:")
            .or_else(|| {
                l.strip_prefix("Done ")
                    .and_then(|r| r.split_whitespace().next())
            })
            .and_then(|n| n.trim().parse().ok())
    });
    let crashed = !out.status.success();
    if crashed {
        let tail: Vec<&str> = log.lines().rev().take(30).collect();
        for l in tail.into_iter().rev() {
            eprintln!("{l}");
        }
    }
    println!(
        "{target}: {} executions{} (log: {})",
        runs.map_or("?".to_owned(), |r: u64| r.to_string()),
        if crashed { ", CRASH" } else { "" },
        log_path.display()
    );
    Ok(Outcome {
        target,
        runs,
        crashed,
    })
}
