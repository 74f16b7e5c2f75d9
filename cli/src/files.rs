//! Finding SSTable files on disk: the CLI's side of the engine's sans-I/O boundary.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use sstable_engine::clock::NoClock;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::load::MetadataLoader;
use sstable_engine::range::{ByteRange, RangeSource, SyncDriver};
use sstable_engine::sstable_set::{group_files, Grouping, SSTableFiles};
use sstable_engine::{ComponentType, Error};

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

/// Reads an SSTable's small metadata components whole (sizes only for the rest) and decodes them
/// with the engine's [`MetadataLoader`]. Returns the decoded metadata and any I/O errors, in words
/// (they are also in the metadata's errors, with their component).
pub fn load_metadata(found: &FoundFiles, sstable: &SSTableFiles) -> (SSTableMetadata, Vec<String>) {
    let mut files = ComponentFiles::new(found, sstable);
    let sizes = files.sizes();
    let mut loader = MetadataLoader::new(&sstable.descriptor, sizes);
    let mut driver = SyncDriver::new(&mut files);
    // A component that cannot be read is recorded by the loader, which goes on.
    let _ = driver.run(&mut loader, &NoClock);
    let io_errors = std::mem::take(&mut files.io_errors);
    (loader.finish(), io_errors)
}

/// One SSTable's component files, answering the engine's range requests with positioned reads
/// (a [`RangeSource`]). Files are opened on first use; a read never allocates more than the
/// file holds past the offset.
pub struct ComponentFiles {
    pub prefix: String,
    files: Vec<(ComponentType, PathBuf)>,
    open: Vec<(ComponentType, File)>,
    /// Files that could not be measured or read, in words.
    pub io_errors: Vec<String>,
}

impl ComponentFiles {
    pub fn new(found: &FoundFiles, sstable: &SSTableFiles) -> ComponentFiles {
        ComponentFiles {
            prefix: sstable.prefix.clone(),
            files: sstable
                .files
                .iter()
                .filter_map(|(c, i)| found.paths.get(*i).map(|p| (c.clone(), p.clone())))
                .collect(),
            open: Vec::new(),
            io_errors: Vec::new(),
        }
    }

    /// Every component and its size (a file that cannot be measured is left out, and its
    /// error kept in [`ComponentFiles::io_errors`]).
    pub fn sizes(&mut self) -> Vec<(ComponentType, u64)> {
        let mut out = Vec::new();
        for (c, path) in &self.files {
            match std::fs::metadata(path) {
                Ok(m) => out.push((c.clone(), m.len())),
                Err(e) => self.io_errors.push(format!("{}: {e}", path.display())),
            }
        }
        out
    }

    pub fn path(&self, component: &ComponentType) -> Option<&Path> {
        self.files
            .iter()
            .find(|(c, _)| c == component)
            .map(|(_, p)| p.as_path())
    }

    fn file(&mut self, component: &ComponentType) -> Result<&mut File, String> {
        if let Some(i) = self.open.iter().position(|(c, _)| c == component) {
            return self
                .open
                .get_mut(i)
                .map(|(_, f)| f)
                .ok_or_else(|| "file handle lost".to_owned());
        }
        let path = self
            .path(component)
            .ok_or_else(|| format!("the SSTable has no {component}"))?
            .to_path_buf();
        let file = File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        self.open.push((component.clone(), file));
        self.open
            .last_mut()
            .map(|(_, f)| f)
            .ok_or_else(|| "file handle lost".to_owned())
    }

    /// Up to `len` bytes at `offset` of `component` (fewer only at the end of the file).
    pub fn read_at(
        &mut self,
        component: &ComponentType,
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>, Error> {
        let mut buf = Vec::new();
        self.read_into(&ByteRange::new(component.clone(), offset, len), &mut buf)?;
        Ok(buf)
    }
}

impl RangeSource for ComponentFiles {
    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> Result<(), Error> {
        let component = &range.component;
        let fail = |msg: String| Error::invalid(msg, range.offset).in_component(component.clone());
        let result = (|| -> Result<(), String> {
            let file = self.file(component)?;
            let file_len = file.metadata().map_err(|e| e.to_string())?.len();
            // Never more than the file holds past the offset, whatever length was asked for.
            let available = file_len.saturating_sub(range.offset).min(range.len);
            let n =
                usize::try_from(available).map_err(|_| format!("a read of {available} bytes"))?;
            file.seek(SeekFrom::Start(range.offset))
                .map_err(|e| format!("seek: {e}"))?;
            buf.clear();
            buf.try_reserve_exact(n)
                .map_err(|e| format!("{n} bytes: {e}"))?;
            file.take(available)
                .read_to_end(buf)
                .map_err(|e| format!("read: {e}"))?;
            Ok(())
        })();
        result.map_err(|m| {
            let m = match self.path(component) {
                Some(p) if !m.starts_with(&*p.to_string_lossy()) => format!("{}: {m}", p.display()),
                _ => m,
            };
            self.io_errors.push(m.clone());
            fail(m)
        })
    }
}
