//! A snapshot directory's side files: `manifest.json` (the SSTables the snapshot took, when it
//! was taken and when it expires) checked against the files present, and the name of its
//! `schema.cql` (read by [`crate::cql_schema::parse_schema_cql`]).
//!
//! Cassandra writes both with every snapshot: `manifest.json` lists each SSTable by its Data.db
//! file name (`files`), with `created_at` and `expires_at` (ISO-8601 instants, `null` for no
//! expiry) since 4.1. Src: `service/snapshot/SnapshotManifest.java`,
//! `service/snapshot/TableSnapshot.java`, `db/ColumnFamilyStore.java` (`snapshotWithoutMemtable`).

use serde::{Deserialize, Serialize};

/// The schema file a snapshot holds beside its SSTables.
pub const SCHEMA_FILE: &str = "schema.cql";
/// The manifest file a snapshot holds beside its SSTables.
pub const MANIFEST_FILE: &str = "manifest.json";

/// `manifest.json` (`SnapshotManifest`); unknown fields (`ephemeral`) are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Data.db file names, relative to the snapshot directory.
    #[serde(default)]
    pub files: Vec<String>,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub expires_at: Option<String>,
}

/// A disagreement between the manifest and the directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum ManifestFinding {
    /// Listed in the manifest, not in the directory.
    Missing(String),
    /// A Data.db in the directory the manifest does not list.
    Extra(String),
}

impl ManifestFinding {
    pub fn message(&self) -> String {
        match self {
            ManifestFinding::Missing(f) => {
                format!("{MANIFEST_FILE} lists {f}, which is not in the directory")
            }
            ManifestFinding::Extra(f) => {
                format!("{f} is in the directory but not in {MANIFEST_FILE}")
            }
        }
    }
}

impl Manifest {
    /// The manifest's files against `present` (the directory's file names): every listed file
    /// must be there, and every Data.db there must be listed.
    pub fn check_files(&self, present: &[&str]) -> Vec<ManifestFinding> {
        let base = |f: &str| f.rsplit('/').next().unwrap_or(f).to_owned();
        let listed: Vec<String> = self.files.iter().map(|f| base(f)).collect();
        let mut out: Vec<ManifestFinding> = listed
            .iter()
            .filter(|f| !present.contains(&f.as_str()))
            .map(|f| ManifestFinding::Missing(f.clone()))
            .collect();
        out.extend(
            present
                .iter()
                .filter(|f| f.ends_with("-Data.db") && !listed.iter().any(|l| l == *f))
                .map(|f| ManifestFinding::Extra((*f).to_owned())),
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_and_an_extra_file_are_findings() {
        let m = Manifest {
            files: vec!["nb-1-big-Data.db".into(), "nb-2-big-Data.db".into()],
            created_at: Some("2026-12-03T10:00:00Z".into()),
            expires_at: None,
        };
        let present = [
            "nb-1-big-Data.db",
            "nb-1-big-Index.db",
            "nb-3-big-Data.db",
            "schema.cql",
        ];
        assert_eq!(
            m.check_files(&present),
            [
                ManifestFinding::Missing("nb-2-big-Data.db".into()),
                ManifestFinding::Extra("nb-3-big-Data.db".into()),
            ]
        );
        assert!(m
            .check_files(&["nb-1-big-Data.db", "nb-2-big-Data.db"])
            .is_empty());
    }
}
