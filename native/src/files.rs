//! Finding SSTable files on disk and reading them by range.
//!
//! A path given by the user is a component file (which selects every file of its SSTable in the
//! same directory) or a directory (searched recursively, in name order). The files found are
//! grouped into SSTables by the engine's [`group_files`] (Cassandra's `Descriptor` file names).
//! [`ComponentFiles`] answers the engine's byte-range requests with positioned reads of one
//! SSTable's files: a read never holds more than the range asked for, so a multi-GB Data.db is
//! never in memory whole.

use std::fmt;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use sstable_engine::clock::NoClock;
use sstable_engine::descriptor::parse_file_name;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::load::MetadataLoader;
use sstable_engine::range::{ByteRange, RangeSource, SyncDriver};
use sstable_engine::sstable_set::{group_files, Grouping, SSTableFiles};
use sstable_engine::{ComponentType, Error};

/// Why a search for SSTables failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum FindError {
    /// `path` (as the caller gave it) could not be read: measured, or listed as a directory.
    Io {
        path: String,
        source: std::io::Error,
    },
    /// [`find_one`] found `count` SSTables under `path`, not one.
    NotOne { path: String, count: usize },
}

impl fmt::Display for FindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FindError::Io { path, source } => write!(f, "{path}: {source}"),
            FindError::NotOne { path, count } => write!(
                f,
                "{path}: {count} SSTables found; give one SSTable's directory or component file"
            ),
        }
    }
}

impl std::error::Error for FindError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FindError::Io { source, .. } => Some(source),
            FindError::NotOne { .. } => None,
        }
    }
}

/// The CLI reports errors as text.
impl From<FindError> for String {
    fn from(e: FindError) -> String {
        e.to_string()
    }
}

/// The files found under the given paths, and how the engine grouped them.
#[derive(Debug)]
pub struct FoundFiles {
    /// Every file found, sorted, without duplicates; [`SSTableFiles::files`] index into it.
    pub paths: Vec<PathBuf>,
    pub grouping: Grouping,
}

/// Walks every path (directories recursively, in name order). A file argument selects every
/// file of its SSTable in the same directory.
pub fn find(args: &[&str]) -> Result<FoundFiles, FindError> {
    let mut paths = Vec::new();
    for arg in args {
        let io = |source| FindError::Io {
            path: (*arg).to_owned(),
            source,
        };
        let p = Path::new(arg);
        let meta = std::fs::metadata(p).map_err(io)?;
        if meta.is_dir() {
            walk(p, &mut paths).map_err(io)?;
        } else {
            siblings(p, &mut paths).map_err(io)?;
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

/// The one SSTable at `path` (a component file, or a directory tree holding exactly one
/// SSTable): the files found and that SSTable's group (taken out of `grouping`).
pub fn find_one(path: &str) -> Result<(FoundFiles, SSTableFiles), FindError> {
    let mut found = find(&[path])?;
    let count = found.grouping.sstables.len();
    match found.grouping.sstables.pop() {
        Some(sstable) if count == 1 => Ok((found, sstable)),
        _ => Err(FindError::NotOne {
            path: path.to_owned(),
            count,
        }),
    }
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
    let Ok((descriptor, _)) = parse_file_name(&name) else {
        return Ok(());
    };
    let prefix = format!("{}-", descriptor.file_name_prefix());
    let bare = file.parent().is_some_and(|d| d.as_os_str().is_empty());
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    for e in std::fs::read_dir(&dir)? {
        let e = e?;
        if e.file_name().to_string_lossy().starts_with(&prefix) && e.file_type()?.is_file() {
            out.push(if bare {
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

/// An open component file and its length when opened.
#[derive(Debug)]
struct OpenFile {
    component: ComponentType,
    file: File,
    len_bytes: u64,
}

/// One SSTable's component files, answering the engine's range requests with positioned reads
/// (a [`RangeSource`]). Files are opened on first use; a read never allocates more than the
/// file holds past the offset.
#[derive(Debug)]
pub struct ComponentFiles {
    /// `directory/` + the SSTable's file-name prefix ([`SSTableFiles::prefix`]).
    pub prefix: String,
    files: Vec<(ComponentType, PathBuf)>,
    open: Vec<OpenFile>,
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

    /// The file holding `component`, if the SSTable has one.
    pub fn path(&self, component: &ComponentType) -> Option<&Path> {
        self.files
            .iter()
            .find(|(c, _)| c == component)
            .map(|(_, p)| p.as_path())
    }

    /// The open file of `component` and its length, opened on first use.
    fn file(&mut self, component: &ComponentType) -> Result<(&mut File, u64), String> {
        let i = match self.open.iter().position(|o| o.component == *component) {
            Some(i) => i,
            None => {
                let path = self
                    .path(component)
                    .ok_or_else(|| format!("the SSTable has no {component}"))?
                    .to_path_buf();
                let file = File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let len_bytes = file
                    .metadata()
                    .map_err(|e| format!("{}: {e}", path.display()))?
                    .len();
                self.open.push(OpenFile {
                    component: component.clone(),
                    file,
                    len_bytes,
                });
                self.open.len().saturating_sub(1)
            }
        };
        self.open
            .get_mut(i)
            .map(|o| (&mut o.file, o.len_bytes))
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
        let result = (|| -> Result<(), String> {
            let (file, file_len) = self.file(component)?;
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
            Error::invalid(m, range.offset).in_component(component.clone())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory holding `nb-1-big-Data.db` (bytes 0..100), `nb-1-big-TOC.txt`,
    /// `nb-2-big-Data.db` and a file that is no SSTable's.
    fn tree(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("sstable-native-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let data: Vec<u8> = (0..100).collect();
        std::fs::write(dir.join("nb-1-big-Data.db"), &data).unwrap();
        std::fs::write(dir.join("nb-1-big-TOC.txt"), "Data.db\nTOC.txt\n").unwrap();
        std::fs::write(dir.join("sub").join("nb-2-big-Data.db"), [7u8; 3]).unwrap();
        std::fs::write(dir.join("notes.txt"), "x").unwrap();
        dir
    }

    fn names(found: &FoundFiles) -> Vec<String> {
        found
            .paths
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn a_component_file_selects_its_sstable_and_a_directory_its_tree() {
        let dir = tree("find");
        let file = dir.join("nb-1-big-TOC.txt");
        let found = find(&[file.to_str().unwrap()]).unwrap();
        assert_eq!(names(&found), ["nb-1-big-Data.db", "nb-1-big-TOC.txt"]);
        assert_eq!(found.grouping.sstables.len(), 1);

        let found = find(&[dir.to_str().unwrap()]).unwrap();
        assert_eq!(
            names(&found),
            [
                "nb-1-big-Data.db",
                "nb-1-big-TOC.txt",
                "notes.txt",
                "nb-2-big-Data.db"
            ]
        );
        let prefixes: Vec<&str> = found
            .grouping
            .sstables
            .iter()
            .map(|s| s.prefix.rsplit('/').next().unwrap())
            .collect();
        assert_eq!(prefixes, ["nb-1-big", "nb-2-big"]);
        assert_eq!(found.grouping.ignored.len(), 1, "notes.txt");

        let err = find_one(dir.to_str().unwrap()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}: 2 SSTables found; give one SSTable's directory or component file",
                dir.display()
            )
        );
        let missing = dir.join("nb-9-big-Data.db");
        let err = find(&[missing.to_str().unwrap()]).unwrap_err();
        assert!(
            matches!(&err, FindError::Io { path, .. } if *path == missing.to_str().unwrap()),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reads_are_bounded_by_the_file_and_missing_components_are_errors() {
        let dir = tree("read");
        let (found, sstable) = find_one(dir.join("nb-1-big-Data.db").to_str().unwrap()).unwrap();
        let mut files = ComponentFiles::new(&found, &sstable);
        assert_eq!(
            files.sizes(),
            [(ComponentType::Data, 100), (ComponentType::Toc, 16)]
        );
        let data = ComponentType::Data;
        assert_eq!(files.read_at(&data, 10, 3).unwrap(), [10, 11, 12]);
        // A range past the end is cut at the end; one wholly past it is empty.
        assert_eq!(files.read_at(&data, 97, 1 << 40).unwrap(), [97, 98, 99]);
        assert_eq!(files.read_at(&data, 500, 8).unwrap(), Vec::<u8>::new());
        let err = files
            .read_at(&ComponentType::PrimaryIndex, 4, 8)
            .unwrap_err();
        assert_eq!(err.component(), Some(&ComponentType::PrimaryIndex));
        assert_eq!(err.offset(), 4);
        assert_eq!(files.io_errors, ["the SSTable has no Index.db"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
