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

/// Reads an SSTable's small metadata components whole (sizes only for the rest) and decodes them.
/// Returns the decoded metadata and any I/O errors, in words.
pub fn load_metadata(
    found: &FoundFiles,
    sstable: &sstable_engine::sstable_set::SSTableFiles,
) -> (sstable_engine::info::SSTableMetadata, Vec<String>) {
    use sstable_engine::info::{decode_metadata, reads_whole, ComponentInput};
    let mut io_errors = Vec::new();
    let mut contents: Vec<(Option<Vec<u8>>, u64)> = Vec::new();
    for (component, index) in &sstable.files {
        let Some(path) = found.paths.get(*index) else {
            contents.push((None, 0));
            continue;
        };
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let bytes = if reads_whole(component) {
            std::fs::read(path)
                .map_err(|e| io_errors.push(format!("{}: {e}", path.display())))
                .ok()
        } else {
            None
        };
        contents.push((bytes, size));
    }
    let inputs: Vec<ComponentInput<'_>> = sstable
        .files
        .iter()
        .zip(&contents)
        .map(|((component, _), (bytes, size))| ComponentInput {
            component,
            size_bytes: *size,
            bytes: bytes.as_deref(),
        })
        .collect();
    (decode_metadata(&sstable.descriptor, &inputs), io_errors)
}

/// Positioned reads of one file: what the engine's range requests are answered with.
pub struct RangeFile {
    file: std::fs::File,
    pub len_bytes: u64,
}

impl RangeFile {
    pub fn open(path: &Path) -> std::io::Result<RangeFile> {
        let file = std::fs::File::open(path)?;
        let len_bytes = file.metadata()?.len();
        Ok(RangeFile { file, len_bytes })
    }

    /// Reads `len` bytes at `offset` (fewer at the end of the file).
    pub fn read_at(&mut self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        use std::io::{Read, Seek, SeekFrom};
        self.file.seek(SeekFrom::Start(offset))?;
        let mut buf = Vec::with_capacity(len.min(64 << 20));
        (&mut self.file).take(len as u64).read_to_end(&mut buf)?;
        Ok(buf)
    }
}
