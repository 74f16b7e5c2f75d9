//! Rooms a reader can hold (issue 30): no source file that is not a test over
//! [`MAX_LINES`] lines. Read are the workspace's Rust (`.rs`), JavaScript (`.mjs`, `.js`) and
//! Python (`.py`) files, outside build output and installed packages (`target`, `dist`,
//! `node_modules`, `out`, `__pycache__`, hidden directories). A file is a test when it is
//! `tests.rs` (a module's `#[cfg(test)] mod tests` moved beside it), lies under a `tests`
//! directory (integration tests, e2e tests and their helpers, the Python tests), or is named
//! `*.test.mjs` or `test_*.py`.
//!
//! The unit test `no_source_file_over_900_lines` (run by `cargo xtask test` with the rest of
//! `cargo test --workspace`) fails on one, beside `circles`'s `workspace_has_no_import_circle`.

use std::path::{Path, PathBuf};

/// The most lines a source file that is not a test may have.
pub const MAX_LINES: usize = 900;

/// Files known to be over [`MAX_LINES`] and being split elsewhere, each with why it is allowed
/// for now. An entry whose file is no longer over the limit (or is gone) fails the test too, so
/// it is removed as soon as the split lands.
const ALLOWED: &[(&str, &str)] = &[];

/// Directories never read: build output, installed packages, caches, hidden directories.
fn skipped(name: &str) -> bool {
    name.starts_with('.')
        || matches!(
            name,
            "target" | "dist" | "node_modules" | "out" | "__pycache__"
        )
}

fn is_source(name: &str) -> bool {
    [".rs", ".mjs", ".js", ".py"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// Whether `rel` (a path relative to the root, `/`-separated) is a test file.
fn is_test(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    rel.split('/').any(|part| part == "tests")
        || name == "tests.rs"
        || name.ends_with(".test.mjs")
        || (name.starts_with("test_") && name.ends_with(".py"))
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, usize)>) -> Result<(), String> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !skipped(name) {
                walk(root, &path, out)?;
            }
        } else if is_source(name) {
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            if !is_test(&rel) {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                out.push((rel, text.lines().count()));
            }
        }
    }
    Ok(())
}

/// Every source file under `root` that is not a test, with its line count, sorted by path.
pub fn source_files(root: &Path) -> Result<Vec<(String, usize)>, String> {
    let mut out = Vec::new();
    walk(root, root, &mut out)?;
    Ok(out)
}

/// The files over [`MAX_LINES`] not in [`ALLOWED`], and the allow-list entries whose file is
/// not over it.
fn unexpected<'a>(
    files: &'a [(String, usize)],
    allowed: &[(&str, &'static str)],
) -> (Vec<&'a (String, usize)>, Vec<&'static str>) {
    let over = |path: &str| {
        files
            .iter()
            .any(|(p, lines)| p == path && *lines > MAX_LINES)
    };
    let stale = allowed
        .iter()
        .filter(|(_, path)| !over(path))
        .map(|(_, path)| *path)
        .collect();
    let bad = files
        .iter()
        .filter(|(p, lines)| *lines > MAX_LINES && !allowed.iter().any(|(_, a)| a == p))
        .collect();
    (bad, stale)
}

/// `cargo xtask sizes`: prints every file over [`MAX_LINES`]; an error when one is not allowed.
pub fn check() -> Result<(), String> {
    let files = source_files(&crate::repo_root())?;
    for (path, lines) in files.iter().filter(|(_, lines)| *lines > MAX_LINES) {
        println!("over {MAX_LINES} lines: {path} ({lines})");
    }
    let (bad, stale) = unexpected(&files, ALLOWED);
    for path in &stale {
        println!("allow-list entry no longer over {MAX_LINES} lines (remove it): {path}");
    }
    if bad.is_empty() && stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} file(s) over {MAX_LINES} lines not allowed, {} stale allow-list entr(ies)",
            bad.len(),
            stale.len()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_are_told_apart() {
        for test in [
            "engine/src/types/value/tests.rs",
            "engine/tests/data.rs",
            "e2e/tests/helpers.mjs",
            "e2e/tests/inspector.test.mjs",
            "python/tests/test_sstable_inspect.py",
        ] {
            assert!(is_test(test), "{test}");
        }
        for source in [
            "engine/src/component/index.rs",
            "e2e/bench/scan.mjs",
            "python/sstable_inspect/__init__.py",
            "engine/src/tests_helpers.rs",
        ] {
            assert!(!is_test(source), "{source}");
        }
    }

    #[test]
    fn a_file_over_the_limit_is_found_and_a_stale_entry_reported() {
        let mut files = vec![
            ("a/src/small.rs".to_owned(), MAX_LINES),
            ("a/src/big.rs".to_owned(), MAX_LINES + 1),
        ];
        let allowed: &[(&str, &str)] = &[("being split", "a/src/was_big.rs")];
        files.push(("a/src/was_big.rs".to_owned(), MAX_LINES));
        let (bad, stale) = unexpected(&files, allowed);
        assert_eq!(bad, vec![&files[1]]);
        assert_eq!(stale, vec!["a/src/was_big.rs"]);
    }

    #[test]
    fn no_source_file_over_900_lines() {
        let files = source_files(&crate::repo_root()).unwrap();
        assert!(
            files.iter().any(|(p, _)| p == "engine/src/lib.rs"),
            "the walk did not reach the engine's sources"
        );
        let (bad, stale) = unexpected(&files, ALLOWED);
        assert!(
            bad.is_empty() && stale.is_empty(),
            "source files over {MAX_LINES} lines (split them into modules by what they hold): \
             {bad:#?}\nallow-list entries no longer over the limit (remove them): {stale:#?}"
        );
    }
}
