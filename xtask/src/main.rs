//! Project automation, in Rust: `cargo xtask serve | test | build | fuzz | tools | circles | sizes`.
//!
//! Every slow step is announced as it starts; tools are installed once at pinned versions into
//! Cargo's bin directory and found there on later runs.

mod callgrind;
mod circles;
mod fuzz;
mod process;
mod python;
mod server;
mod sizes;
mod steps;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
cargo xtask <command>

  serve [--port N]   install what is missing, build the web app (release) and serve it on
                     http://127.0.0.1:8080 (or --port)
  test               everything CI runs: fmt, then side by side the native build and tests
                     (clippy inside the builds) and the wasm32 pipeline: headless-browser tests
                     of engine and web, the web app (profile ci-wasm) and the Playwright e2e test;
                     then the Python package's tests and the Spark and Dask fleet jobs
  python             only the Python part: venv (target/py-venv), maturin develop, pytest
  build              install what is missing and build the web app into dist/ (release)
  e2e                only the Playwright end-to-end tests, against the current dist/
  bench              generate a >= 1 GiB LZ4 SSTable (release build, kept under
                     target/bench-large) and measure every pass next to the limits measured
                     in the same run on the same bytes (memcpy, raw crc32fast, raw LZ4);
                     the Dask fleet job's SSTables/s on 1 and 2 workers
  fuzz [--secs N] [TARGET]
                     coverage-guided fuzzing of every decoder entry point (or TARGET) with
                     cargo-fuzz 0.13.1 on stable (RUSTC_BOOTSTRAP=1, no sanitizer), N s each
                     (default 60); corpora seeded from the fixtures
  circles            the import circles between files (fails on one; also a unit test)
  sizes              the source files (tests aside) over 900 lines (fails on one; also a
                     unit test)
  tools              only install the pinned tools (wasm32 target, trunk, wasm-bindgen-cli,
                     chromium + chromedriver, npm packages)
";

/// The repository root (the parent of `xtask/`).
pub fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("serve") => parse_port(&args[1..]).and_then(steps::serve),
        Some("test") => steps::test_all(),
        Some("build") => steps::build_web(),
        Some("tools") => tools::ensure_all(),
        Some("circles") => circles::check(),
        Some("sizes") => sizes::check(),
        Some("bench") => steps::bench(),
        Some("e2e") => steps::e2e(),
        Some("python") => python::test_only(),
        Some("fuzz") => fuzz::fuzz(&args[1..]),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("\nxtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_port(args: &[String]) -> Result<u16, String> {
    match args {
        [] => Ok(8080),
        [flag, port] if flag == "--port" => port.parse().map_err(|_| format!("bad port `{port}`")),
        _ => Err("usage: cargo xtask serve [--port N]".to_owned()),
    }
}
