//! The Python side (issue #17): a venv with the pinned packages (`python/requirements.txt`,
//! `examples/fleet/requirements.txt`, from PyPI), the `sstable_inspect` extension built into it
//! by maturin, its tests and the fleet jobs' tests (Spark `local[2]`, Dask `LocalCluster`), and
//! the fleet bench. Java for Spark comes from Debian.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::process::{announce, linted, path_env, run, run_maybe_logged};
use crate::repo_root;

/// The requirement files the venv is built from, in install order.
const REQUIREMENTS: [&str; 2] = ["python/requirements.txt", "examples/fleet/requirements.txt"];

/// The venv, kept under `target/` between runs.
fn venv_dir() -> PathBuf {
    repo_root().join("target").join("py-venv")
}

fn venv_bin(venv: &Path, tool: &str) -> PathBuf {
    venv.join("bin").join(tool)
}

/// PATH with the venv's bin directory first (maturin, python), then the usual tools.
fn venv_path(venv: &Path) -> std::ffi::OsString {
    let mut paths = vec![venv.join("bin")];
    paths.extend(std::env::split_paths(&path_env()));
    std::env::join_paths(paths).unwrap_or_default()
}

/// The venv with every pinned package: created and installed once, re-installed only when a
/// requirement file changes (their contents are kept beside it).
pub fn ensure_venv(log: Option<&Path>) -> Result<PathBuf, String> {
    crate::tools::ensure_java()?;
    let venv = venv_dir();
    let mut wanted = String::new();
    for file in REQUIREMENTS {
        let path = repo_root().join(file);
        wanted.push_str(
            &std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?,
        );
    }
    let marker = venv.join("requirements.installed");
    if venv_bin(&venv, "python").is_file()
        && std::fs::read_to_string(&marker).ok().as_deref() == Some(wanted.as_str())
    {
        return Ok(venv);
    }
    if !venv_bin(&venv, "python").is_file() {
        run_maybe_logged(Command::new("python3").args(["-m", "venv"]).arg(&venv), log)?;
    }
    let mut pip = Command::new(venv_bin(&venv, "pip"));
    pip.args(["install", "--quiet", "--disable-pip-version-check"]);
    for file in REQUIREMENTS {
        pip.arg("-r").arg(repo_root().join(file));
    }
    run_maybe_logged(&mut pip, log)?;
    std::fs::write(&marker, wanted).map_err(|e| format!("{}: {e}", marker.display()))?;
    Ok(venv)
}

/// Builds the `sstable_inspect` extension into the venv (`maturin develop`; `release` for the
/// bench) in the workspace's `target/`; `prepare` sets the environment its cargo runs in (the
/// test pipeline's lint wrapper, so the artifacts of the native build are reused).
pub fn build_extension(
    venv: &Path,
    release: bool,
    log: Option<&Path>,
    prepare: fn(&mut Command) -> &mut Command,
) -> Result<(), String> {
    let mut cmd = Command::new(venv_bin(venv, "maturin"));
    cmd.args(["develop", "--quiet"]);
    if release {
        cmd.arg("--release");
    }
    run_maybe_logged(
        prepare(&mut cmd)
            .current_dir(repo_root().join("python"))
            .env("VIRTUAL_ENV", venv)
            .env("PATH", venv_path(venv)),
        log,
    )
}

/// The Python package's tests and the fleet jobs' tests, against `cli` (the CLI whose figures
/// they compare with).
pub fn tests(venv: &Path, cli: &Path, log: Option<&Path>) -> Result<(), String> {
    run_maybe_logged(
        Command::new(venv_bin(venv, "python"))
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(repo_root().join("python").join("tests"))
            .arg(
                repo_root()
                    .join("examples")
                    .join("fleet")
                    .join("test_fleet.py"),
            )
            .current_dir(repo_root())
            .env("PATH", venv_path(venv))
            .env("PYSPARK_PYTHON", venv_bin(venv, "python"))
            .envs(crate::fixtures_dir().map(|d| ("SSTABLE_FIXTURES", d)))
            .env("SSTABLE_INSPECT", cli),
        log,
    )
}

/// The fleet bench: the Dask job's SSTables/s on 1 and 2 workers (release extension and CLI).
pub fn fleet_bench(cli: &Path) -> Result<(), String> {
    let venv = ensure_venv(None)?;
    build_extension(&venv, true, None, |c| c)?;
    run_maybe_logged(
        Command::new(venv_bin(&venv, "python"))
            .arg(
                repo_root()
                    .join("examples")
                    .join("fleet")
                    .join("bench_fleet.py"),
            )
            .arg("--cli")
            .arg(cli)
            .env("PATH", venv_path(&venv)),
        None,
    )
}

/// `cargo xtask python`: only the Python part of `test` (venv, extension, CLI, tests).
pub fn test_only() -> Result<(), String> {
    announce("the Python package and the fleet jobs (venv, maturin develop, pytest)");
    let venv = ensure_venv(None)?;
    // Linted as `test` builds, so the two share their artifacts.
    build_extension(&venv, false, None, linted)?;
    run(linted(&mut Command::new("cargo")).args(["build", "-q", "-p", "sstable-inspect"]))?;
    tests(
        &venv,
        &repo_root()
            .join("target")
            .join("debug")
            .join("sstable-inspect"),
        None,
    )
}
