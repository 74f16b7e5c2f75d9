//! Running child processes: banners, PATH with the installed tools, Clippy as the compiler
//! wrapper, output kept in a log. Every other xtask module runs its commands through here.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Prints a step banner.
pub fn announce(what: &str) {
    println!("\n==> {what}");
}

/// Runs a command with inherited output (so progress shows), PATH including Cargo's bin dir.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let status = cmd
        .env("PATH", path_env())
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
pub(crate) fn linted(cmd: &mut Command) -> &mut Command {
    cmd.env("RUSTC_WORKSPACE_WRAPPER", clippy_driver()).env(
        "CLIPPY_ARGS",
        "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__",
    )
}

/// [`run`] with stdout and stderr appended to `log` (or inherited without one).
pub(crate) fn run_logged(cmd: &mut Command, log: &Path) -> Result<(), String> {
    let open = || {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .map_err(|e| format!("{}: {e}", log.display()))
    };
    run(cmd.stdout(open()?).stderr(open()?))
}

pub(crate) fn run_maybe_logged(cmd: &mut Command, log: Option<&Path>) -> Result<(), String> {
    match log {
        Some(log) => run_logged(cmd, log),
        None => run(cmd),
    }
}

/// Cargo's bin directory, where `cargo install` puts tools (kept between runs).
pub fn cargo_bin_dir() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"));
    home.join("bin")
}

/// The npm packages' executables (`e2e/node_modules/.bin`): binaryen's `wasm-opt`, which Trunk
/// finds on PATH for the release build.
pub fn npm_bin_dir() -> PathBuf {
    crate::repo_root()
        .join("e2e")
        .join("node_modules")
        .join(".bin")
}

/// PATH with Cargo's bin directory first, then the npm packages' executables, for every child
/// process.
pub fn path_env() -> std::ffi::OsString {
    let mut paths = vec![cargo_bin_dir(), npm_bin_dir()];
    if let Some(p) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&p));
    }
    std::env::join_paths(paths).unwrap_or_default()
}

/// The `clippy-driver` of the toolchain this build runs with (rustup's proxy in Cargo's bin dir,
/// else the one on PATH).
pub fn clippy_driver() -> PathBuf {
    let proxy = cargo_bin_dir().join("clippy-driver");
    if proxy.is_file() {
        proxy
    } else {
        PathBuf::from("clippy-driver")
    }
}
