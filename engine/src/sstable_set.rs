//! Grouping a set of files (a dropped directory tree, a CLI argument list) into SSTables.
//!
//! Files are grouped by directory and file-name prefix (`Descriptor`); files whose names follow no
//! SSTable scheme are returned as ignored, each with the reason.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::component::ComponentType;
use crate::descriptor::{parse_file_name, Descriptor};

/// One SSTable's files, as indices into the caller's list of paths.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SSTableFiles {
    /// Directory part of the paths ("" when the caller gave bare names).
    pub directory: String,
    /// `directory/` + the shared file-name prefix, e.g. `…/legacy_nb_clust/nb-1-big`.
    pub prefix: String,
    pub descriptor: Descriptor,
    /// (component, index into the caller's paths), sorted by component.
    pub files: Vec<(ComponentType, usize)>,
}

impl SSTableFiles {
    /// The caller's index of the file holding `component`, if present.
    pub fn file(&self, component: &ComponentType) -> Option<usize> {
        self.files
            .iter()
            .find(|(c, _)| c == component)
            .map(|&(_, i)| i)
    }

    pub fn components(&self) -> Vec<ComponentType> {
        self.files.iter().map(|(c, _)| c.clone()).collect()
    }
}

/// A file that is not part of any SSTable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IgnoredFile {
    pub index: usize,
    pub path: String,
    pub reason: String,
}

/// The result of [`group_files`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Grouping {
    pub sstables: Vec<SSTableFiles>,
    pub ignored: Vec<IgnoredFile>,
}

/// Splits `a/b/c.db` into (`a/b`, `c.db`); both `/` and `\` separate.
pub fn split_path(path: &str) -> (&str, &str) {
    match path.rfind(['/', '\\']) {
        Some(i) => (
            path.get(..i).unwrap_or(""),
            path.get(i.saturating_add(1)..).unwrap_or(""),
        ),
        None => ("", path),
    }
}

/// Groups `paths` into SSTables. A path may carry directories; each directory is its own table.
pub fn group_files<S: AsRef<str>>(paths: &[S]) -> Grouping {
    let mut groups: BTreeMap<(String, String), SSTableFiles> = BTreeMap::new();
    let mut ignored = Vec::new();
    for (index, path) in paths.iter().enumerate() {
        let path = path.as_ref();
        let (dir, name) = split_path(path);
        match parse_file_name(name) {
            Ok((descriptor, component)) => {
                let file_prefix = descriptor.file_name_prefix();
                let prefix = if dir.is_empty() {
                    file_prefix.clone()
                } else {
                    format!("{dir}/{file_prefix}")
                };
                let entry = groups
                    .entry((dir.to_owned(), file_prefix))
                    .or_insert_with(|| SSTableFiles {
                        directory: dir.to_owned(),
                        prefix,
                        descriptor,
                        files: Vec::new(),
                    });
                if entry.files.iter().any(|(c, _)| *c == component) {
                    ignored.push(IgnoredFile {
                        index,
                        path: path.to_owned(),
                        reason: format!("a second {component} for {}", entry.prefix),
                    });
                } else {
                    entry.files.push((component, index));
                }
            }
            Err(reason) => ignored.push(IgnoredFile {
                index,
                path: path.to_owned(),
                reason,
            }),
        }
    }
    let mut sstables: Vec<SSTableFiles> = groups.into_values().collect();
    for s in &mut sstables {
        s.files.sort();
    }
    Grouping { sstables, ignored }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_by_directory_and_prefix() {
        let paths = [
            "t1/nb-1-big-Data.db",
            "t1/nb-1-big-TOC.txt",
            "t1/nb-2-big-Data.db",
            "t2/nb-1-big-Data.db",
            "t2/README.md",
            "ks-tbl-ka-3-Index.db",
        ];
        let g = group_files(&paths);
        let prefixes: Vec<&str> = g.sstables.iter().map(|s| s.prefix.as_str()).collect();
        assert_eq!(
            prefixes,
            ["ks-tbl-ka-3", "t1/nb-1-big", "t1/nb-2-big", "t2/nb-1-big"]
        );
        assert_eq!(
            g.sstables[1].files,
            [(ComponentType::Data, 0), (ComponentType::Toc, 1)]
        );
        assert_eq!(g.ignored.len(), 1);
        assert_eq!(g.ignored[0].path, "t2/README.md");
        assert!(g.ignored[0].reason.contains("expected <version>"));
    }
}
