//! Installing the pinned tools: only from package registries (crates.io, Debian, npm), never
//! a tool's own download of itself.

use std::process::Command;

use crate::process::{announce, path_env, run};

pub const TRUNK_VERSION: &str = "0.21.14";
pub const WASM_BINDGEN_VERSION: &str = "0.2.130";
pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// First line of `tool --version`, if the tool runs.
fn version_of(tool: &str) -> Option<String> {
    let out = Command::new(tool)
        .arg("--version")
        .env("PATH", path_env())
        .output()
        .ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_owned()
    })
}

pub fn ensure_wasm_target() -> Result<(), String> {
    let out = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map_err(|e| format!("rustup not found ({e}); install Rust with rustup"))?;
    if String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.trim() == "wasm32-unknown-unknown")
    {
        return Ok(());
    }
    announce("installing the wasm32-unknown-unknown target (rustup)");
    run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))
}

fn ensure_cargo_tool(binary: &str, krate: &str, version: &str, locked: bool) -> Result<(), String> {
    if version_of(binary).is_some_and(|v| v.contains(version)) {
        return Ok(());
    }
    announce(&format!(
        "installing {krate} {version} with cargo install (first time only; trunk takes ~7 min on 2 cores)"
    ));
    let mut cmd = Command::new("cargo");
    cmd.args(["install", krate, "--version", version]);
    // wasm-bindgen-cli's lockfile names a crate version the registry lacks: install it unlocked.
    if locked {
        cmd.arg("--locked");
    }
    run(&mut cmd)
}

pub fn ensure_trunk() -> Result<(), String> {
    ensure_cargo_tool("trunk", "trunk", TRUNK_VERSION, true)
}

pub fn ensure_wasm_bindgen() -> Result<(), String> {
    ensure_cargo_tool(
        "wasm-bindgen",
        "wasm-bindgen-cli",
        WASM_BINDGEN_VERSION,
        false,
    )?;
    if version_of("wasm-bindgen-test-runner").is_none() {
        return Err(
            "wasm-bindgen-test-runner is missing after installing wasm-bindgen-cli".to_owned(),
        );
    }
    Ok(())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Debian's Chromium and ChromeDriver, for the headless-browser tests.
pub fn ensure_chromium() -> Result<(), String> {
    let present = |p: &str| std::path::Path::new(p).exists();
    if present(CHROMIUM) && present(CHROMEDRIVER) {
        return Ok(());
    }
    let command = "apt-get update && apt-get install -y chromium chromium-driver";
    if !is_root() {
        return Err(format!("Chromium and ChromeDriver are needed for the browser tests; run as root:\n    {command}"));
    }
    announce("installing Debian's chromium and chromium-driver (apt-get)");
    run(Command::new("apt-get").arg("update"))?;
    run(Command::new("apt-get")
        .args([
            "install",
            "-y",
            "--no-install-recommends",
            "chromium",
            "chromium-driver",
        ])
        .env("DEBIAN_FRONTEND", "noninteractive"))
}

/// A Java runtime for Spark (the fleet tests): the one on PATH, else Debian's
/// openjdk-17-jre-headless.
pub fn ensure_java() -> Result<(), String> {
    let runs = Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if runs {
        return Ok(());
    }
    let command = "apt-get update && apt-get install -y openjdk-17-jre-headless";
    if !is_root() {
        return Err(format!(
            "Java is needed for the Spark fleet test; run as root:\n    {command}"
        ));
    }
    announce("installing Debian's openjdk-17-jre-headless (apt-get)");
    run(Command::new("apt-get").arg("update"))?;
    run(Command::new("apt-get")
        .args([
            "install",
            "-y",
            "--no-install-recommends",
            "openjdk-17-jre-headless",
        ])
        .env("DEBIAN_FRONTEND", "noninteractive"))
}

/// npm packages of the end-to-end test, exactly as `e2e/package-lock.json` pins them.
pub fn ensure_npm_packages() -> Result<(), String> {
    let e2e = crate::repo_root().join("e2e");
    let installed_lock = e2e.join("node_modules").join(".package-lock.json");
    let lock = e2e.join("package-lock.json");
    let fresh = match (std::fs::metadata(&installed_lock), std::fs::metadata(&lock)) {
        (Ok(a), Ok(b)) => a.modified().ok() >= b.modified().ok(),
        _ => false,
    };
    if fresh {
        return Ok(());
    }
    announce("installing the end-to-end test's npm packages (npm ci, from package-lock.json)");
    run(Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(&e2e))
}

/// Everything `serve` and `test` need.
pub fn ensure_all() -> Result<(), String> {
    ensure_wasm_target()?;
    ensure_wasm_bindgen()?;
    ensure_trunk()?;
    ensure_chromium()?;
    ensure_npm_packages()
}
