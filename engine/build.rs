//! Locates the real Cassandra fixtures for the browser tests, which cannot read files at run time:
//! `tests/browser.rs` embeds them with `include_bytes!` when this script finds them.
//! The library itself never uses what this script sets.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(sstable_fixtures)");
    println!("cargo::rerun-if-env-changed=SSTABLE_FIXTURES");
    println!("cargo::rerun-if-env-changed=CI");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let candidates = std::env::var_os("SSTABLE_FIXTURES")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            manifest
                .parent()
                .and_then(|p| p.parent())
                .map(|p| p.join("shared").join("fixtures")),
        );
    for base in candidates {
        for dir in [base.join("cassandra"), base.clone()] {
            let manifest_md = dir.join("MANIFEST.md");
            if manifest_md.is_file() {
                println!("cargo::rerun-if-changed={}", manifest_md.display());
                println!("cargo::rustc-env=SSTABLE_FIXTURES_DIR={}", dir.display());
                println!("cargo::rustc-cfg=sstable_fixtures");
                return;
            }
        }
    }
    println!(
        "cargo::warning=Cassandra fixtures not found: browser tests that embed them are skipped"
    );
    if let Some(log) = std::env::var_os("SSTABLE_SKIP_LOG") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "sstable-engine browser tests that embed fixtures (fixtures not found at build time)");
        }
    }
}
