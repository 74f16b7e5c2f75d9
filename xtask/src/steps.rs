//! The steps of `test`, `build` and `serve`, each announced by name as it starts.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::process::{announce, linted, run, run_logged, run_maybe_logged};
use crate::{fixtures_dir, python, repo_root, server, tools};

fn cargo() -> Command {
    let mut c = Command::new(cargo_program());
    c.current_dir(repo_root());
    c
}

fn cargo_program() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// `cargo` at the lowest CPU priority (`nice -n 19`, inherited by rustc and the tests it runs),
/// for the browser tests: nothing waits for them, while the native tests (which the e2e test
/// waits for) share the machine with them.
fn cargo_niced() -> Command {
    let mut c = Command::new("nice");
    c.args(["-n", "19"])
        .arg(cargo_program())
        .current_dir(repo_root());
    c
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

/// `cargo xtask test`: everything CI runs. Tools and fmt first; then three pipelines side by
/// side: native (in `target/`: build `sstable-inspect`, write the e2e SSTable with it, then the
/// tests), wasm32 (in `target/wasm/`, since Cargo locks a target dir per build: Trunk's build of
/// the web app, then the browser tests from the same artifacts) and e2e (the Playwright test,
/// once the web app is built and the e2e SSTable written). On 2 cores no pipeline alone keeps
/// both busy (links, test runs, the browser waiting on the page), so together they take little
/// more than the longest, not the sum. Each step's output is kept in a log and printed whole
/// when the step ends, so the pipelines' output never interleaves.
pub fn test_all() -> Result<(), String> {
    let started = Instant::now();
    let cpu_before = children_cpu_secs();
    let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0");
    match fixtures_dir() {
        Some(dir) => println!("fixtures: {}", dir.display()),
        None if ci => {
            return Err("CI is set but the fixtures were not found: set SSTABLE_FIXTURES or put them at ../shared/fixtures".into())
        }
        None => println!("fixtures: not found (tests that read them will be skipped and counted)"),
    }
    let log = skip_log();
    let logs = log_dir();
    std::fs::create_dir_all(&logs).map_err(|e| format!("{}: {e}", logs.display()))?;
    std::fs::write(&log, "").map_err(|e| format!("{}: {e}", log.display()))?;

    // Every build of this run sees the same fixture variables: `engine/build.rs` reruns when
    // `SSTABLE_FIXTURES` changes, and a build without it would compile the engine again.
    // (Set before the pipelines' threads start.)
    std::env::set_var("SSTABLE_SKIP_LOG", &log);
    if ci {
        // A CI run compiles everything once from scratch: incremental state and line tables
        // would only be written, never read again (a panic still names its file and line).
        std::env::set_var("CARGO_INCREMENTAL", "0");
        std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "false");
    }
    if let Some(dir) = fixtures_dir() {
        std::env::set_var("SSTABLE_FIXTURES", dir);
    }

    announce("[1/2] tools: wasm32 target, wasm-bindgen-cli, trunk, chromium, npm packages");
    timed(tools::ensure_all)?;
    announce("[2/2] cargo fmt --check");
    timed(|| run(cargo().args(["fmt", "--all", "--check"])))?;

    // The e2e test needs the SSTable the native pipeline writes with its dev build.
    let (e2e_file_tx, e2e_file_rx) = std::sync::mpsc::channel::<Result<PathBuf, String>>();
    // The e2e test's long-task checks (no UI-thread task over 100 ms; over 200 ms fails) run on
    // a machine the native tests do not share: beside them, even at nice 19, runs saw 207–228 ms.
    let (native_done_tx, native_done_rx) = std::sync::mpsc::channel::<()>();
    // The Python extension builds in the native pipeline, from its artifacts, once the python
    // pipeline has the venv.
    let (venv_tx, venv_rx) = std::sync::mpsc::channel::<PathBuf>();
    let native = Pipeline {
        name: "native",
        steps: vec![
            PipelineStep {
                name: "build sstable-inspect and the engine's unit tests (dev, clippy -D warnings), write the e2e SSTable with it",
                run: Box::new(move |log| {
                    let made = e2e_sstable(Some(log));
                    let _ = e2e_file_tx.send(made.clone());
                    made.map(|_| ())
                }),
            },
            PipelineStep {
                // The web app is wasm-only: its lints and tests run in the wasm32 pipeline, so
                // the native one never compiles Yew. Clippy lints while this builds (see `linted`).
                // `sstable-inspect-py` is a cdylib for CPython: maturin builds it (next step).
                name: "clippy -D warnings while building, then the tests (cargo test --workspace --exclude sstable-web --exclude sstable-inspect-py --exclude sstable-sql)",
                run: Box::new(move |log| {
                    run_logged(
                        test_env(linted(&mut cargo()).args([
                            "test",
                            "--workspace",
                            "--exclude",
                            "sstable-web",
                            "--exclude",
                            "sstable-inspect-py",
                            "--exclude",
                            "sstable-sql",
                        ])),
                        log,
                    )
                }),
            },
            PipelineStep {
                // Linted like the steps before, so engine, arrow and every dependency come from
                // their artifacts: only pyo3 and the extension itself compile here.
                name: "the sstable_inspect extension into the venv (maturin develop, clippy -D warnings), from the same artifacts",
                run: Box::new(move |log| {
                    let _done = SendOnDrop(Some(native_done_tx));
                    let venv = venv_rx
                        .recv()
                        .map_err(|_| "the python pipeline ended before making the venv".to_owned())?;
                    python::build_extension(&venv, false, Some(log), linted)
                }),
            },
        ],
    };
    // Trunk first: it compiles the wasm32 graph (engine, Yew, web-sys) once, and the e2e test
    // can start on its build while the browser tests compile their two small test binaries.
    let (dist_tx, dist_rx) = std::sync::mpsc::channel::<()>();
    let wasm = Pipeline {
        name: "wasm32",
        steps: vec![
            PipelineStep {
                name: "the web app, clippy -D warnings while building engine and web (trunk build --cargo-profile ci-wasm)",
                run: Box::new(move |log| {
                    build_dist(WebProfile::Ci, Some(log))?;
                    let _ = dist_tx.send(());
                    Ok(())
                }),
            },
            PipelineStep {
                name: "the wasm-bindgen tests of engine and web in headless Chromium, from the same artifacts (profile ci-wasm)",
                run: Box::new(browser_tests),
            },
        ],
    };
    // The Python tests and the SQL build start when the e2e test is done: its long-task checks
    // need the CPU.
    let (e2e_done_tx, e2e_done_rx) = std::sync::mpsc::channel::<()>();
    let (sql_go_tx, sql_go_rx) = std::sync::mpsc::channel::<()>();
    let e2e = Pipeline {
        name: "e2e",
        steps: vec![PipelineStep {
            name: "end-to-end test (Playwright, Chromium) against the web app the wasm32 pipeline built",
            run: Box::new(move |log| {
                let _done = SendOnDrop(Some(e2e_done_tx));
                let _sql_go = SendOnDrop(Some(sql_go_tx));
                dist_rx
                    .recv()
                    .map_err(|_| "the wasm32 pipeline ended before building the web app".to_owned())?;
                let large = e2e_file_rx
                    .recv()
                    .map_err(|_| "the native pipeline ended before writing the e2e SSTable".to_owned())??;
                native_done_rx
                    .recv()
                    .map_err(|_| "the native pipeline failed".to_owned())?;
                e2e_with(&large, Some(log))
            }),
        }],
    };
    let venv = std::sync::OnceLock::new();
    let venv = &venv;
    let python = Pipeline {
        name: "python",
        steps: vec![
            PipelineStep {
                name: "a venv with the pinned Python packages (pip, PyPI) and Java (Debian) for Spark",
                run: Box::new(move |log| {
                    let made = python::ensure_venv(Some(log))?;
                    let _ = venv_tx.send(made.clone());
                    let _ = venv.set(made);
                    Ok(())
                }),
            },
            PipelineStep {
                name: "the Python package's tests and the fleet jobs on Spark local[2] and a Dask LocalCluster (after the e2e test)",
                run: Box::new(move |log| {
                    // An error of the e2e pipeline is reported by it; the tests run regardless
                    // (the extension was built before the e2e test started).
                    let _ = e2e_done_rx.recv();
                    python::tests(venv_of(venv)?, &dev_cli(), Some(log))
                }),
            },
        ],
    };
    // `sstable-inspect sql` is behind the CLI's `sql` feature: DataFusion's ~200 crates take
    // minutes to compile, so they build here, beside the Python tests, not before the e2e test.
    let sql = Pipeline {
        name: "sql",
        steps: vec![PipelineStep {
            name: "the CLI's sql feature (DataFusion): clippy -D warnings while building, then its tests (after the e2e test)",
            run: Box::new(move |log| {
                let _ = sql_go_rx.recv();
                run_logged(
                    test_env(linted(&mut cargo_niced()).args([
                        "test",
                        "-p",
                        "sstable-inspect",
                        "--features",
                        "sql",
                        "--test",
                        "integration",
                        "sql::",
                    ])),
                    log,
                )
            }),
        }],
    };
    let results = std::thread::scope(|s| {
        let pipelines = [native, wasm, e2e, python, sql].map(|p| {
            let name = p.name;
            (name, s.spawn(move || p.run()))
        });
        pipelines.map(|(name, handle)| {
            handle
                .join()
                .unwrap_or_else(|_| Err(format!("the {name} pipeline panicked")))
        })
    });
    for r in &results {
        r.clone()?;
    }
    let skips = std::fs::read_to_string(&log).unwrap_or_default();
    let skipped: Vec<&str> = skips.lines().filter(|l| !l.trim().is_empty()).collect();
    let cpu = match (cpu_before, children_cpu_secs()) {
        (Some(before), Some(after)) => format!(" (CPU {:.0} s)", after - before),
        _ => String::new(),
    };
    println!(
        "\nall steps passed in {:.0} s{cpu}",
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

/// Sends on its channel when dropped: a pipeline step's "done" whether it succeeds or fails.
struct SendOnDrop(Option<std::sync::mpsc::Sender<()>>);

impl Drop for SendOnDrop {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(());
        }
    }
}

fn venv_of(venv: &std::sync::OnceLock<PathBuf>) -> Result<&Path, String> {
    venv.get()
        .map(PathBuf::as_path)
        .ok_or_else(|| "the venv step did not finish".to_owned())
}

/// The dev build of `sstable-inspect` the native pipeline compiled.
fn dev_cli() -> PathBuf {
    repo_root()
        .join("target")
        .join("debug")
        .join("sstable-inspect")
}

/// Runs `step`, then prints its wall and CPU time.
fn timed(step: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    let t = Instant::now();
    let cpu = children_cpu_secs();
    step()?;
    match (cpu, children_cpu_secs()) {
        (Some(before), Some(after)) => println!(
            "    ok in {:.1} s (CPU {:.1} s)",
            t.elapsed().as_secs_f64(),
            after - before
        ),
        _ => println!("    ok in {:.1} s", t.elapsed().as_secs_f64()),
    }
    Ok(())
}

/// What a [`PipelineStep`] runs, given the log file its output goes to.
type StepFn<'a> = Box<dyn FnOnce(&Path) -> Result<(), String> + Send + 'a>;

/// One step of a [`Pipeline`].
struct PipelineStep<'a> {
    name: &'static str,
    run: StepFn<'a>,
}

/// Steps that run one after another, fail-fast, beside another pipeline.
struct Pipeline<'a> {
    name: &'static str,
    steps: Vec<PipelineStep<'a>>,
}

/// Serialises the pipelines' printing: a step's log is printed whole.
static STDOUT: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Pipeline<'_> {
    fn run(self) -> Result<(), String> {
        let count = self.steps.len();
        for (i, step) in self.steps.into_iter().enumerate() {
            let log = log_dir().join(format!("{}-{}.log", self.name, i + 1));
            std::fs::write(&log, "").map_err(|e| format!("{}: {e}", log.display()))?;
            let t = Instant::now();
            let result = (step.run)(&log);
            let output = std::fs::read_to_string(&log).unwrap_or_default();
            let _guard = STDOUT.lock();
            announce(&format!("[{} {}/{count}] {}", self.name, i + 1, step.name));
            print!("{output}");
            match &result {
                Ok(()) => println!(
                    "    [{}] ok in {:.1} s (output: {})",
                    self.name,
                    t.elapsed().as_secs_f64(),
                    log.display()
                ),
                Err(e) => println!(
                    "    [{}] FAILED after {:.1} s: {e}",
                    self.name,
                    t.elapsed().as_secs_f64()
                ),
            }
            result.map_err(|e| format!("step `{} {}` failed: {e}", self.name, step.name))?;
        }
        Ok(())
    }
}

/// Where `test` keeps each step's output.
fn log_dir() -> PathBuf {
    repo_root().join("target").join("xtask").join("logs")
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

/// The profile CI builds the wasm32 code with, for the browser tests and for Trunk alike, so
/// Trunk links the web app from the artifacts the tests already compiled (Cargo.toml
/// `[profile.ci-wasm]`: optimised, no LTO). A second, release compile of the whole wasm32
/// graph (Yew, web-sys, the engine) cost CI more than the tests themselves.
const CI_WASM_PROFILE: &str = "ci-wasm";

/// The wasm32 steps' own target dir, so they build while the native pipeline holds `target/`.
fn wasm_target_dir() -> PathBuf {
    repo_root().join("target").join("wasm")
}

fn browser_tests(log: &Path) -> Result<(), String> {
    run_logged(
        test_env(
            linted(&mut cargo_niced())
                .args([
                    "test",
                    "--profile",
                    CI_WASM_PROFILE,
                    "--target",
                    "wasm32-unknown-unknown",
                    "-p",
                    "sstable-engine",
                    "-p",
                    "sstable-web",
                    "--test",
                    "browser",
                ])
                .env("CARGO_TARGET_DIR", wasm_target_dir())
                .env("CHROMEDRIVER", tools::CHROMEDRIVER)
                .env("WASM_BINDGEN_TEST_TIMEOUT", "180"),
        ),
        log,
    )
}

/// Which build of the web app Trunk makes.
#[derive(Clone, Copy)]
enum WebProfile {
    /// `trunk build --release`: what `serve` and `build` give a user or a static host.
    Release,
    /// `--cargo-profile ci-wasm` in the wasm32 target dir: what CI's e2e test runs against.
    Ci,
}

/// `trunk build` into `dist/` (Trunk never downloads: Trunk.toml sets `offline`).
fn build_dist(profile: WebProfile, log: Option<&Path>) -> Result<(), String> {
    run_maybe_logged(cargo().args(["fetch"]), log)?;
    let mut trunk = Command::new("trunk");
    trunk.arg("build").current_dir(repo_root());
    match profile {
        WebProfile::Release => trunk.arg("--release"),
        WebProfile::Ci => trunk
            .args(["--cargo-profile", CI_WASM_PROFILE])
            .env("CARGO_TARGET_DIR", wasm_target_dir()),
    };
    run_maybe_logged(linted(&mut trunk), log)
}

/// `cargo xtask build`: the web app users get, with its size next to [`BUNDLE_LIMIT_BYTES`];
/// over the budget it fails (issue #12).
pub fn build_web() -> Result<(), String> {
    build_release_dist(true)
}

/// The download budget of the page: all wasm + JS in `dist/`, gzip-compressed (issue #12).
const BUNDLE_LIMIT_BYTES: u64 = 800_000;

/// `trunk build --release` (Cargo profile `web-release`, then binaryen's wasm-opt: index.html),
/// then the gzip size of dist's wasm + JS; over [`BUNDLE_LIMIT_BYTES`] it fails if
/// `enforce_limit`, else (`serve`, `bench`) it warns.
fn build_release_dist(enforce_limit: bool) -> Result<(), String> {
    tools::ensure_wasm_target()?;
    tools::ensure_wasm_bindgen()?;
    tools::ensure_trunk()?;
    // binaryen's wasm-opt, which Trunk runs on release builds, is an npm package.
    tools::ensure_npm_packages()?;
    announce("building the web app (trunk build --release)");
    build_dist(WebProfile::Release, None)?;
    let dist = repo_root().join("dist");
    println!("built {}", dist.display());
    let total_bytes = print_bundle_size(&dist)?;
    if total_bytes <= BUNDLE_LIMIT_BYTES {
        return Ok(());
    }
    let over = format!(
        "the page's wasm + JS is {} KB gzip-compressed, over the {} KB budget",
        total_bytes / 1000,
        BUNDLE_LIMIT_BYTES / 1000
    );
    if enforce_limit {
        Err(over)
    } else {
        println!("warning: {over}");
        Ok(())
    }
}

/// Prints each wasm and JS file of `dist` with its size and its `gzip -9` size, and the gzip
/// total, which it returns.
fn print_bundle_size(dist: &Path) -> Result<u64, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dist)
        .map_err(|e| format!("{}: {e}", dist.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|ext| ext == "wasm" || ext == "js")
        })
        .collect();
    files.sort();
    let mut total_bytes = 0u64;
    for file in &files {
        let raw_bytes = std::fs::metadata(file)
            .map_err(|e| format!("{}: {e}", file.display()))?
            .len();
        let out = Command::new("gzip")
            .args(["-9", "-c"])
            .arg(file)
            .output()
            .map_err(|e| format!("could not run gzip: {e}"))?;
        if !out.status.success() {
            return Err(format!("gzip {} failed ({})", file.display(), out.status));
        }
        let gzip_bytes = out.stdout.len() as u64;
        total_bytes += gzip_bytes;
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        println!("  {name:<44} {raw_bytes:>10} bytes, gzip {gzip_bytes:>9}");
    }
    println!(
        "  wasm + JS, gzip -9: {total_bytes} bytes ({} KB; budget {} KB)",
        total_bytes / 1000,
        BUNDLE_LIMIT_BYTES / 1000
    );
    Ok(total_bytes)
}

pub fn serve(port: u16) -> Result<(), String> {
    build_release_dist(false)?;
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
fn generated_sstable(
    dir: &str,
    partitions: u32,
    build: Build,
    log: Option<&Path>,
) -> Result<PathBuf, String> {
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
    generated(dir, &args, build, log)
}

/// `sstable-inspect generate --out target/<dir> ARGS`, written once and kept (rewritten only
/// when the args change).
fn generated(
    dir: &str,
    args: &[&str],
    build: Build,
    log: Option<&Path>,
) -> Result<PathBuf, String> {
    let dir = repo_root().join("target").join(dir);
    let marker = dir.join("ARGS");
    if std::fs::read_to_string(&marker).ok().as_deref() == Some(args.join(" ").as_str()) {
        return Ok(dir);
    }
    let (flag, profile_dir): (&[&str], &str) = match build {
        Build::Dev => (&[], "debug"),
        Build::Release => (&["--release"], "release"),
    };
    let what = format!(
        "generating {} (sstable-inspect generate {}, {profile_dir} build)",
        dir.display(),
        args.join(" ")
    );
    match log {
        Some(log) => std::fs::write(log, format!("{what}\n")).map_err(|e| e.to_string())?,
        None => announce(&what),
    }
    // Linted like the test step's build, so the test step reuses this dev build. The dev build
    // comes from `cargo test --no-run` of the CLI's integration tests (which build the binary)
    // and of the engine's unit tests: that test binary needs no engine library, so it compiles
    // beside it instead of after it.
    let mut compile = cargo();
    linted(&mut compile);
    match build {
        Build::Dev => compile.args([
            "test",
            "--no-run",
            "-p",
            "sstable-engine",
            "--lib",
            "-p",
            "sstable-inspect",
            "--test",
            "integration",
        ]),
        Build::Release => compile.args(["build", "-p", "sstable-inspect"]).args(flag),
    };
    run_maybe_logged(&mut compile, log)?;
    let _ = std::fs::remove_dir_all(&dir);
    let bin = repo_root()
        .join("target")
        .join(profile_dir)
        .join("sstable-inspect");
    run_maybe_logged(
        Command::new(bin)
            .arg("generate")
            .arg("--out")
            .arg(&dir)
            .args(args),
        log,
    )?;
    std::fs::write(&marker, args.join(" ")).map_err(|e| e.to_string())?;
    Ok(dir)
}

/// The end-to-end test's "large" SSTable: ~64 MiB, written by the dev build the test step
/// compiled, so CI pays no release compile for it. Benchmarks use [`large_sstable`].
fn e2e_sstable(log: Option<&Path>) -> Result<PathBuf, String> {
    generated_sstable("e2e-large", 470, Build::Dev, log)
}

/// The merge benchmark's "now": an hour after `generate --overlapping`'s default base time.
const MERGE_BENCH_NOW: &str = "1700003600";

/// Two replicas (`target/bench-merge/node1`, `node2`) of one table written as 4 overlapping
/// LZ4 `oa` SSTables (`generate --overlapping 4 --replicas 2`: each node also holds one SSTable
/// of its own with the injected divergences), release build.
fn merge_bench_replicas() -> Result<PathBuf, String> {
    let args = [
        "-q",
        "--version",
        "oa",
        "--compression",
        "lz4",
        "--partitions",
        MERGE_BENCH_PARTITIONS,
        "--rows-per-partition",
        "100",
        "--overlapping",
        "4",
        "--replicas",
        "2",
    ];
    generated("bench-merge", &args, Build::Release, None)
}

/// Partitions of the merge benchmark's table (× 100 clusterings; see docs/performance.md for
/// the Data.db size this gives).
const MERGE_BENCH_PARTITIONS: &str = "20000";

/// The benchmarks' SSTable: ≥ 1 GiB of LZ4 `oa` Data.db, release build.
fn large_sstable() -> Result<PathBuf, String> {
    generated_sstable("bench-large", 7500, Build::Release, None)
}

/// `cargo xtask e2e`: the end-to-end tests against the current `dist/`.
pub fn e2e() -> Result<(), String> {
    e2e_with(&e2e_sstable(None)?, None)
}

fn e2e_with(large: &Path, log: Option<&Path>) -> Result<(), String> {
    let port = server::spawn(repo_root().join("dist"), 0)?;
    let out = repo_root().join("target").join("e2e");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let e2e_dir = repo_root().join("e2e");
    run_maybe_logged(
        test_env(
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
                .env("E2E_LARGE_SSTABLE", large)
                .env("CHROMIUM", tools::CHROMIUM),
        ),
        log,
    )
}

/// `cargo xtask bench`: native verify and row-decoding throughput (decode-only scan, `dump
/// --jsonl`, `dump --json`) as ratios to limits measured in the same run (memcpy, raw crc32fast,
/// raw LZ4), on a 100 × 1,000-row file and on the large one; and 2.x atoms/s vs raw
/// decompression on the `legacy_ka_indexed` fixture.
pub fn bench() -> Result<(), String> {
    let medium = generated_sstable("bench-100x1000", 100, Build::Release, None)?;
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
    // `partitions` split over 1 and 2 threads (`--jobs`), read from the file as the command
    // does; a ratio of wall times, so only a quiet machine gives the real scaling.
    announce(
        "partitions --jobs 1 vs --jobs 2 on the large SSTable (wall clock: needs a quiet machine)",
    );
    run(Command::new(&bin)
        .arg("bench")
        .arg(&large)
        .args(["--only", "partitions-jobs"]))?;
    // The merged read (issue #25): 4 overlapping SSTables of one table vs each alone, its
    // peak memory, and `diff` of two replicas of it vs merging both.
    let replicas = merge_bench_replicas()?;
    announce("merged read of 4 overlapping SSTables vs each alone; peak RSS; diff of 2 replicas vs merging both");
    run(Command::new(&bin)
        .arg("bench")
        .arg(replicas.join("node1"))
        .arg("--table")
        .arg("--replica")
        .arg(replicas.join("node2"))
        .args(["--now", MERGE_BENCH_NOW]))?;
    if crate::callgrind::has_valgrind() {
        run(cargo().args(["build", "--profile", "profiling", "-p", "sstable-inspect"]))?;
        let profiling = repo_root()
            .join("target")
            .join("profiling")
            .join("sstable-inspect");
        crate::callgrind::instructions_per_row(&profiling, &medium)?;
    } else {
        println!("skipped: instructions per row need valgrind (callgrind)");
    }
    // 2.x: a full atom decode vs raw decompression, on the largest 2.x fixture (one partition of
    // 5,000 rows, 15,000 cells), decoded many times per timing.
    let legacy = fixtures_dir().map(|d| {
        d.join("legacy-sstables")
            .join("ka")
            .join("legacy_tables")
            .join("legacy_ka_indexed")
    });
    match legacy.filter(|p| p.is_dir()) {
        Some(dir) => run(Command::new(&bin).arg("bench").arg(dir))?,
        None => {
            println!("skipped: the 2.x atoms bench needs the fixtures (legacy_ka_indexed)");
        }
    }
    // Headless Chromium on the same large SSTable: read limit, raw crc32fast, our CRC32, verify
    // end to end with 1 worker and N (one Data.db split across them), with decompression, wasm
    // memory per worker (e2e/bench/verify.mjs); then the decode-only scan of the 100 × 1,000-row
    // file in one worker vs raw LZ4 (e2e/bench/scan.mjs).
    announce("the Dask fleet job (examples/fleet): SSTables/s on 1 and 2 workers");
    python::fleet_bench(&bin)?;
    tools::ensure_chromium()?;
    tools::ensure_npm_packages()?;
    build_release_dist(false)?;
    announce("browser bench (headless Chromium): verify of the large SSTable, 1 worker and N");
    run(Command::new("node")
        .arg(Path::new("bench").join("verify.mjs"))
        .arg(repo_root().join("dist"))
        .arg(&large)
        .current_dir(repo_root().join("e2e"))
        .env("CHROMIUM", tools::CHROMIUM))?;
    // The Analytics scan of the same SSTable with 1 worker and 2 (split into partition-aligned
    // ranges over the pool, #26): wall times, their ratio, the figures compared.
    announce("browser bench (headless Chromium): the Analytics scan of the large SSTable, 1 worker and 2");
    run(Command::new("node")
        .arg(Path::new("bench").join("analytics.mjs"))
        .arg(repo_root().join("dist"))
        .arg(&large)
        .current_dir(repo_root().join("e2e"))
        .env("CHROMIUM", tools::CHROMIUM))?;
    // The decode-only scan in one worker of the page, next to raw LZ4 of the same Data.db in the
    // same worker and run, on the file of the native scan bench above (issue #13 item 4).
    announce("browser bench (headless Chromium): decode-only scan vs raw LZ4, one worker");
    run(Command::new("node")
        .arg(Path::new("bench").join("scan.mjs"))
        .arg(repo_root().join("dist"))
        .arg(&medium)
        .current_dir(repo_root().join("e2e"))
        .env("CHROMIUM", tools::CHROMIUM))
}
