//! The steps of `test`, `build` and `serve`, each announced by name as it starts.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::{repo_root, server, tools};

/// Prints a step banner.
pub fn announce(what: &str) {
    println!("\n==> {what}");
}

/// Runs a command with inherited output (so progress shows), PATH including Cargo's bin dir.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let status = cmd
        .env("PATH", tools::path_env())
        .status()
        .map_err(|e| format!("could not start {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

/// Makes a cargo build (or Trunk's) run Clippy on the workspace's crates as it compiles them:
/// `clippy-driver` is rustc with Clippy's lints, so as `RUSTC_WORKSPACE_WRAPPER` it lints and
/// still produces the real artifacts (`cargo clippy` is this over `cargo check`), and
/// `CLIPPY_ARGS` carries `-D warnings` the way `cargo clippy -- -D warnings` passes it. Every
/// target CI builds (libraries, binaries, unit and integration tests, natively and for wasm32)
/// is linted, without a separate check pass over the dependency graph.
fn linted(cmd: &mut Command) -> &mut Command {
    cmd.env("RUSTC_WORKSPACE_WRAPPER", tools::clippy_driver())
        .env(
            "CLIPPY_ARGS",
            "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__",
        )
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(repo_root());
    c
}

/// Where the real Cassandra fixtures are: `$SSTABLE_FIXTURES` (the `fixtures` dir or its
/// `cassandra/` child) or `../shared/fixtures/cassandra` beside the repo.
pub fn fixtures_dir() -> Option<PathBuf> {
    let candidates = std::env::var_os("SSTABLE_FIXTURES")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            repo_root()
                .parent()
                .map(|p| p.join("shared").join("fixtures")),
        );
    for base in candidates {
        for dir in [base.join("cassandra"), base.clone()] {
            if dir.join("MANIFEST.md").is_file() {
                return Some(dir);
            }
        }
    }
    None
}

fn skip_log() -> PathBuf {
    repo_root().join("target").join("xtask").join("skips.log")
}

/// Environment shared by every test step: the skip log and the fixture location.
fn test_env(cmd: &mut Command) -> &mut Command {
    cmd.env("SSTABLE_SKIP_LOG", skip_log());
    if let Some(dir) = fixtures_dir() {
        cmd.env("SSTABLE_FIXTURES", dir);
    }
    cmd
}

struct Step {
    name: &'static str,
    run: fn() -> Result<(), String>,
}

/// `cargo xtask test`: everything, fail-fast.
pub fn test_all() -> Result<(), String> {
    let started = Instant::now();
    let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0");
    match fixtures_dir() {
        Some(dir) => println!("fixtures: {}", dir.display()),
        None if ci => {
            return Err("CI is set but the fixtures were not found: set SSTABLE_FIXTURES or put them at ../shared/fixtures".into())
        }
        None => println!("fixtures: not found (tests that read them will be skipped and counted)"),
    }
    let log = skip_log();
    if let Some(parent) = log.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    std::fs::write(&log, "").map_err(|e| format!("{}: {e}", log.display()))?;

    let steps = [
        Step {
            name: "tools: wasm32 target, wasm-bindgen-cli, trunk, chromium, npm packages",
            run: tools::ensure_all,
        },
        Step {
            name: "cargo fmt --check",
            run: || run(cargo().args(["fmt", "--all", "--check"])),
        },
        Step {
            // The web app is wasm-only: its lints and tests run in the wasm32 steps, so the
            // native steps never compile Yew. Clippy lints while this builds (see `linted`):
            // one compile of the workspace instead of a `cargo clippy` pass and a test build.
            name: "native: clippy -D warnings while building, then the tests (cargo test --workspace --exclude sstable-web)",
            run: || {
                run(test_env(linted(&mut cargo()).args([
                    "test",
                    "--workspace",
                    "--exclude",
                    "sstable-web",
                ])))
            },
        },
        Step {
            name: "wasm32: clippy -D warnings while building engine and web, their tests in headless Chromium (wasm-bindgen-test-runner)",
            run: browser_tests,
        },
        Step {
            name: "web app release build, clippy -D warnings on its binaries (trunk build --release)",
            run: build_dist,
        },
        Step {
            name: "end-to-end test (Playwright, Chromium) against the release build",
            run: e2e,
        },
    ];
    for (i, step) in steps.iter().enumerate() {
        announce(&format!("[{}/{}] {}", i + 1, steps.len(), step.name));
        let t = Instant::now();
        let cpu = children_cpu_secs();
        (step.run)().map_err(|e| format!("step `{}` failed: {e}", step.name))?;
        match (cpu, children_cpu_secs()) {
            (Some(before), Some(after)) => println!(
                "    ok in {:.1} s (CPU {:.1} s)",
                t.elapsed().as_secs_f64(),
                after - before
            ),
            _ => println!("    ok in {:.1} s", t.elapsed().as_secs_f64()),
        }
    }
    let skips = std::fs::read_to_string(&log).unwrap_or_default();
    let skipped: Vec<&str> = skips.lines().filter(|l| !l.trim().is_empty()).collect();
    println!(
        "\nall {} steps passed in {:.0} s",
        steps.len(),
        started.elapsed().as_secs_f64()
    );
    if skipped.is_empty() {
        println!("skipped: 0 tests");
    } else {
        println!("skipped: {} tests (fixtures not found):", skipped.len());
        for s in skipped {
            println!("    {s}");
        }
    }
    Ok(())
}

/// CPU seconds (user + system) of the finished child processes so far, from `/proc/self/stat`
/// (Linux; clock ticks of 1/100 s): on a busy machine wall time measures the neighbours too.
fn children_cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) closed by the last ')'.
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // cutime and cstime are fields 16 and 17 of the whole line: 14 and 15 after the name.
    let ticks: f64 = fields.get(13)?.parse::<f64>().ok()? + fields.get(14)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn browser_tests() -> Result<(), String> {
    run(test_env(
        linted(&mut cargo())
            .args([
                "test",
                "--target",
                "wasm32-unknown-unknown",
                "-p",
                "sstable-engine",
                "-p",
                "sstable-web",
                "--test",
                "browser",
            ])
            .env("CHROMEDRIVER", tools::CHROMEDRIVER)
            .env("WASM_BINDGEN_TEST_TIMEOUT", "180"),
    ))
}

/// `trunk build --release` into `dist/` (Trunk never downloads: Trunk.toml sets `offline`).
fn build_dist() -> Result<(), String> {
    run(cargo().args(["fetch"]))?;
    run(linted(&mut Command::new("trunk"))
        .args(["build", "--release"])
        .current_dir(repo_root()))
}

pub fn build_web() -> Result<(), String> {
    tools::ensure_wasm_target()?;
    tools::ensure_wasm_bindgen()?;
    tools::ensure_trunk()?;
    announce("building the web app (trunk build --release)");
    build_dist()?;
    println!("built {}", repo_root().join("dist").display());
    Ok(())
}

pub fn serve(port: u16) -> Result<(), String> {
    build_web()?;
    let port = server::spawn(repo_root().join("dist"), port)?;
    announce(&format!(
        "serving the inspector on http://127.0.0.1:{port}/  (Ctrl-C to stop)"
    ));
    loop {
        std::thread::park();
    }
}

/// Which build of `sstable-inspect` writes a generated SSTable.
#[derive(Clone, Copy)]
enum Build {
    /// The dev build `cargo test` already compiled (tests: no extra release compile).
    Dev,
    /// A release build (benchmarks).
    Release,
}

/// A deterministic LZ4 `oa` SSTable of `partitions` × 1,000 rows (~140 KiB each), written once by
/// the project's own writer and kept under `target/<dir>` (rewritten only when the args change).
fn generated_sstable(dir: &str, partitions: u32, build: Build) -> Result<PathBuf, String> {
    let partitions = partitions.to_string();
    let args: [&str; 10] = [
        "--version",
        "oa",
        "--compression",
        "lz4",
        "--partitions",
        &partitions,
        "--rows-per-partition",
        "1000",
        "--seed",
        "11",
    ];
    let dir = repo_root().join("target").join(dir);
    let marker = dir.join("ARGS");
    if std::fs::read_to_string(&marker).ok().as_deref() == Some(args.join(" ").as_str()) {
        return Ok(dir);
    }
    let (flag, profile_dir): (&[&str], &str) = match build {
        Build::Dev => (&[], "debug"),
        Build::Release => (&["--release"], "release"),
    };
    announce(&format!(
        "generating an SSTable of {partitions} partitions into {} (sstable-inspect generate, {profile_dir} build)",
        dir.display()
    ));
    // Linted like the test step's build, so the dev build it made is reused, not rebuilt.
    run(linted(&mut cargo())
        .args(["build", "-p", "sstable-inspect"])
        .args(flag))?;
    let _ = std::fs::remove_dir_all(&dir);
    let bin = repo_root()
        .join("target")
        .join(profile_dir)
        .join("sstable-inspect");
    run(Command::new(bin)
        .arg("generate")
        .arg("--out")
        .arg(&dir)
        .args(args))?;
    std::fs::write(&marker, args.join(" ")).map_err(|e| e.to_string())?;
    Ok(dir)
}

/// The end-to-end test's "large" SSTable: ~64 MiB, written by the dev build the test step
/// compiled, so CI pays no release compile for it. Benchmarks use [`large_sstable`].
fn e2e_sstable() -> Result<PathBuf, String> {
    generated_sstable("e2e-large", 470, Build::Dev)
}

/// The benchmarks' SSTable: ≥ 1 GiB of LZ4 `oa` Data.db, release build.
fn large_sstable() -> Result<PathBuf, String> {
    generated_sstable("bench-large", 7500, Build::Release)
}

pub fn e2e() -> Result<(), String> {
    let large = e2e_sstable()?;
    let port = server::spawn(repo_root().join("dist"), 0)?;
    let out = repo_root().join("target").join("e2e");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let e2e_dir = repo_root().join("e2e");
    run(test_env(
        Command::new("node")
            .args([
                "--test",
                "--test-reporter=spec",
                "--test-reporter-destination=stdout",
            ])
            .arg(Path::new("tests"))
            .current_dir(&e2e_dir)
            .env("BASE_URL", format!("http://127.0.0.1:{port}/"))
            .env("E2E_OUT", &out)
            .env("E2E_LARGE_SSTABLE", &large)
            .env("CHROMIUM", tools::CHROMIUM),
    ))
}

/// `cargo xtask bench`: native verify and row-decoding throughput (decode-only scan, `dump
/// --jsonl`, `dump --json`) as ratios to limits measured in the same run (memcpy, raw crc32fast,
/// raw LZ4), on a 100 × 1,000-row file and on the large one; and 2.x atoms/s vs raw
/// decompression on the `legacy_ka_indexed` fixture.
pub fn bench() -> Result<(), String> {
    let medium = generated_sstable("bench-100x1000", 100, Build::Release)?;
    let large = large_sstable()?;
    announce(
        "sstable-inspect bench (release): verify vs memcpy, raw crc32fast, raw LZ4; scan and dump vs raw LZ4; 2.x atoms vs raw decompression",
    );
    let bin = repo_root()
        .join("target")
        .join("release")
        .join("sstable-inspect");
    run(cargo().args(["build", "--release", "-p", "sstable-inspect"]))?;
    run(Command::new(&bin).arg("bench").arg(&medium))?;
    run(Command::new(&bin).arg("bench").arg(&large))?;
    // 2.x: a full atom decode vs raw decompression, on the largest 2.x fixture (one partition of
    // 5,000 rows, 15,000 cells), decoded many times per timing.
    let legacy = fixtures_dir().map(|d| {
        d.join("legacy-sstables")
            .join("ka")
            .join("legacy_tables")
            .join("legacy_ka_indexed")
    });
    match legacy.filter(|p| p.is_dir()) {
        Some(dir) => run(Command::new(bin).arg("bench").arg(dir)),
        None => {
            println!("skipped: the 2.x atoms bench needs the fixtures (legacy_ka_indexed)");
            Ok(())
        }
    }
}
