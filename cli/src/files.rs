//! Finding SSTable files on disk: the CLI's side of the engine's sans-I/O boundary.

use std::path::{Path, PathBuf};

use sstable_engine::sstable_set::{group_files, Grouping};

/// The files found under the given paths, and how the engine grouped them.
pub struct FoundFiles {
    pub paths: Vec<PathBuf>,
    pub grouping: Grouping,
}

/// Walks every path (directories recursively, in name order). A file argument selects every
/// file of its SSTable in the same directory.
pub fn find(args: &[&str]) -> Result<FoundFiles, String> {
    let mut paths = Vec::new();
    for arg in args {
        let p = Path::new(arg);
        let meta = std::fs::metadata(p).map_err(|e| format!("{arg}: {e}"))?;
        if meta.is_dir() {
            walk(p, &mut paths).map_err(|e| format!("{arg}: {e}"))?;
        } else {
            siblings(p, &mut paths).map_err(|e| format!("{arg}: {e}"))?;
        }
    }
    paths.sort();
    paths.dedup();
    let names: Vec<String> = paths
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let grouping = group_files(&names);
    Ok(FoundFiles { paths, grouping })
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        if e.file_type()?.is_dir() {
            walk(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// The file itself plus every file in its directory that shares its SSTable prefix.
fn siblings(file: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    out.push(file.to_path_buf());
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Ok((descriptor, _)) = sstable_engine::descriptor::parse_file_name(&name) else {
        return Ok(());
    };
    let prefix = format!("{}-", descriptor.file_name_prefix());
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    for e in std::fs::read_dir(&dir)? {
        let e = e?;
        if e.file_name().to_string_lossy().starts_with(&prefix) && e.file_type()?.is_file() {
            out.push(if file.parent().is_some_and(|d| d.as_os_str().is_empty()) {
                PathBuf::from(e.file_name())
            } else {
                e.path()
            });
        }
    }
    Ok(())
}
