//! Grouping a set of files (a dropped directory tree, a CLI argument list) into SSTables.
//!
//! Files are grouped by directory and file-name prefix (`Descriptor`); files whose names follow no
//! SSTable scheme are returned as ignored, each with the reason.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::component::ComponentType;
use crate::descriptor::{parse_file_name, Descriptor};
use crate::version::Format;

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

/// The index format the files show: a `big`-named SSTable with a Partitions.db and no Index.db is
/// read as BTI (a trie-indexed version this engine does not know by name); otherwise the
/// descriptor's ([`crate::descriptor::index_format`]).
fn format_by_components(descriptor: &Descriptor, files: &[(ComponentType, usize)]) -> Format {
    let has = |c: &ComponentType| files.iter().any(|(f, _)| f == c);
    if descriptor.format == Format::Big
        && has(&ComponentType::Partitions)
        && !has(&ComponentType::PrimaryIndex)
    {
        Format::Bti
    } else {
        descriptor.format
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
        crate::sort::sort(&mut s.files);
        s.descriptor.format = format_by_components(&s.descriptor, &s.files);
    }
    Grouping { sstables, ignored }
}

/// The table an SSTable belongs to, told by its path (Cassandra's `Directories`: data files live in
/// `<keyspace>/<table>-<table id, 32 hex>/`, before 2.1 in `<keyspace>/<table>/` with
/// `<keyspace>-<table>-` in the file names).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableOf {
    /// What SSTables of one table share: the table id when the path has one, else the keyspace and
    /// table of a legacy file name, else the directory.
    pub key: String,
    /// The table in words: `keyspace.table`, or the last two directories `a/b`.
    pub name: String,
    /// The table id of the directory name (32 hex digits), when there is one.
    pub table_id: Option<String>,
}

/// The table of the SSTable whose prefix (`directory/` + file-name prefix, as
/// [`SSTableFiles::prefix`]) is `prefix`: the deepest directory named `<table>-<32 hex>` (a
/// snapshot or backup directory below it stays apart), else a legacy file name's keyspace and
/// table, else the directory itself.
pub fn table_of(prefix: &str) -> TableOf {
    let (dir, name) = split_path(prefix);
    let dirs: Vec<&str> = dir.split(['/', '\\']).filter(|d| !d.is_empty()).collect();
    let found = dirs
        .iter()
        .enumerate()
        .rev()
        .find_map(|(at, d)| table_id(d).map(|t| (at, t)));
    if let Some((at, (table, id))) = found {
        let below = dirs
            .get(at.saturating_add(1)..)
            .unwrap_or_default()
            .join("/");
        let keyspace = at.checked_sub(1).and_then(|k| dirs.get(k));
        let mut name = match keyspace {
            Some(k) => format!("{k}.{table}"),
            None => table.to_owned(),
        };
        if !below.is_empty() {
            name = format!("{name} ({below})");
        }
        return TableOf {
            key: format!("{id}/{below}"),
            name,
            table_id: Some(id.to_owned()),
        };
    }
    if let Ok((d, _)) = parse_file_name(&format!("{name}-Data.db")) {
        if let (Some(k), Some(t)) = (d.keyspace, d.table) {
            let name = format!("{k}.{t}");
            return TableOf {
                key: format!("{dir}/{name}"),
                name,
                table_id: None,
            };
        }
    }
    let name = match dirs.len() {
        0 => "(no directory)".to_owned(),
        n => dirs
            .get(n.saturating_sub(2)..)
            .unwrap_or_default()
            .join("/"),
    };
    TableOf {
        key: dir.to_owned(),
        name,
        table_id: None,
    }
}

/// `users-5b6ca5a0e4c211e6a4b5b1c7a6ec8a25` → (`users`, the id): a table directory's name.
fn table_id(dir: &str) -> Option<(&str, &str)> {
    let (table, id) = dir.rsplit_once('-')?;
    (!table.is_empty() && id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some((table, id))
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

    /// BTI by version (`ms`) or by the components present (a `big` name with Partitions.db and no
    /// Index.db); a `big` SSTable with both stays big.
    #[test]
    fn the_index_format_follows_the_version_and_the_components() {
        let paths = [
            "a/ms-1-big-Data.db",
            "a/ms-1-big-Partitions.db",
            "b/xx-2-big-Data.db",
            "b/xx-2-big-Partitions.db",
            "b/xx-2-big-Rows.db",
            "c/me-3-big-Index.db",
            "c/me-3-big-Partitions.db",
        ];
        let g = group_files(&paths);
        let formats: Vec<(&str, Format)> = g
            .sstables
            .iter()
            .map(|s| (s.prefix.as_str(), s.descriptor.format))
            .collect();
        assert_eq!(
            formats,
            [
                ("a/ms-1-big", Format::Bti),
                ("b/xx-2-big", Format::Bti),
                ("c/me-3-big", Format::Big)
            ]
        );
    }

    #[test]
    fn the_table_of_an_sstable() {
        let id = "5b6ca5a0e4c211e6a4b5b1c7a6ec8a25";
        let t = table_of(&format!("data/ks1/users-{id}/nb-1-big"));
        assert_eq!(
            (t.name.as_str(), t.table_id.as_deref()),
            ("ks1.users", Some(id))
        );
        // The same table id on another node's disk: the same table.
        assert_eq!(
            table_of(&format!("node2/ks1/users-{id}/nb-7-big")).key,
            t.key
        );
        // Its snapshot stays apart.
        let s = table_of(&format!("data/ks1/users-{id}/snapshots/s1/nb-1-big"));
        assert_eq!(s.name, "ks1.users (snapshots/s1)");
        assert_ne!(s.key, t.key);
        // Two tables of one keyspace are two tables.
        assert_ne!(
            table_of("ks1/a/nb-1-big").key,
            table_of("ks1/b/nb-1-big").key
        );
        assert_eq!(table_of("x/ks1/a/nb-1-big").name, "ks1/a");
        // A legacy file name names its keyspace and table.
        let l = table_of("legacy_tables/legacy_ka_clust/legacy_tables-legacy_ka_clust-ka-1");
        assert_eq!(l.name, "legacy_tables.legacy_ka_clust");
        assert_eq!(table_of("nb-1-big").name, "(no directory)");
        // Not a table id: 31 hex digits, or not hex.
        assert_eq!(
            table_of(&format!("ks/users-{}/nb-1-big", &id[1..])).table_id,
            None
        );
    }
}
