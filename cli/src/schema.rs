//! The schema of the SSTables a command was given: `--schema FILE` when given, else the
//! `schema.cql` a snapshot (or table directory) holds beside them, found by itself; a
//! `manifest.json` there is checked against the directory's files (each disagreement printed
//! as a finding). Parsing is the engine's (`cql_schema::parse_schema_cql`, `snapshot`).

use std::path::{Path, PathBuf};

use sstable_engine::cql_schema::{parse_schema_cql, CqlSchemaFile};
use sstable_engine::snapshot::{Manifest, MANIFEST_FILE, SCHEMA_FILE};

/// A schema read, and where from.
pub struct Loaded {
    pub path: String,
    pub file: CqlSchemaFile,
}

/// The directories `paths` name (a file's own directory for a file).
fn directories(paths: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in paths {
        let p = Path::new(p);
        let dir = if p.is_dir() {
            p.to_path_buf()
        } else {
            p.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        if !out.contains(&dir) {
            out.push(dir);
        }
    }
    out
}

/// `--schema` when given; else the first `schema.cql` in the directories of `paths`. Manifest
/// findings are printed; returns whether there were any, with the schema.
pub fn load(paths: &[&str], schema: Option<&str>) -> Result<(Option<Loaded>, bool), String> {
    let dirs = directories(paths);
    let findings = check_manifests(&dirs);
    let path = match schema {
        Some(p) => Some(PathBuf::from(p)),
        None => dirs
            .iter()
            .map(|d| d.join(SCHEMA_FILE))
            .find(|p| p.is_file()),
    };
    let Some(path) = path else {
        return Ok((None, findings));
    };
    let name = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{name}: {e}"))?;
    let file = parse_schema_cql(&text).map_err(|e| format!("{name}: {e}"))?;
    if schema.is_none() {
        eprintln!("note: schema from {name}");
    }
    for d in &file.table.dropped {
        eprintln!(
            "note: {name}: column {} was dropped{}: its cells written before then are not live",
            d.name,
            d.dropped_at_micros
                .map(|t| format!(" at {t} µs"))
                .unwrap_or_default()
        );
    }
    Ok((Some(Loaded { path: name, file }), findings))
}

/// Each directory's `manifest.json` against its files; prints and counts the findings.
fn check_manifests(dirs: &[PathBuf]) -> bool {
    let mut any = false;
    for dir in dirs {
        let path = dir.join(MANIFEST_FILE);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let manifest: Manifest = match serde_json::from_str(&text) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("finding: {}: not a snapshot manifest: {e}", path.display());
                any = true;
                continue;
            }
        };
        let names: Vec<String> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        let present: Vec<&str> = names.iter().map(String::as_str).collect();
        for f in manifest.check_files(&present) {
            eprintln!("finding: {}: {}", dir.display(), f.message());
            any = true;
        }
    }
    any
}
