//! `scrub(path, out, mode, version, schema) -> dict`: one SSTable scrubbed into the directory `out`
//! (`schema`: the `CREATE TABLE` statement a 2.x SSTable needs)
//! (`sstable_native::scrub::scrub_to_dir`, what `sstable-inspect scrub` runs), the report as a
//! dict: the engine's `ScrubReport` plus `files`, the paths written per output SSTable.

use pyo3::prelude::*;
use sstable_engine::scrub::{ScrubMode, ScrubOptions};
use sstable_engine::{Format, Version};
use sstable_native::clock::InstantClock;
use sstable_native::scrub::scrub_to_dir;

use crate::{error, from_json, one_sstable};

#[pyfunction]
#[pyo3(signature = (path, out, mode="skip", version="nb", schema=None))]
pub fn scrub(
    py: Python<'_>,
    path: &str,
    out: &str,
    mode: &str,
    version: &str,
    schema: Option<&str>,
) -> PyResult<Py<PyAny>> {
    let mode = ScrubMode::parse(mode).ok_or_else(|| {
        error(
            py,
            format!("mode {mode:?}: must be skip, segregate, validate or abort"),
            None,
            None,
        )
    })?;
    let version = match version {
        "nb" | "oa" => Version::parse(Format::Big, version),
        _ => None,
    }
    .ok_or_else(|| {
        error(
            py,
            format!("version {version:?}: must be nb or oa"),
            None,
            None,
        )
    })?;
    let s = one_sstable(py, path)?;
    let done = py.detach(|| {
        scrub_to_dir(
            &s.found,
            &s.group,
            std::path::Path::new(out),
            ScrubOptions::new(mode, version),
            schema,
            &InstantClock::new(),
            |_, _| {},
        )
    });
    let done = done.map_err(|e| error(py, e, None, None))?;
    let mut json =
        serde_json::to_value(&done.report).map_err(|e| error(py, e.to_string(), None, None))?;
    if let serde_json::Value::Object(o) = &mut json {
        let files: Vec<Vec<String>> = done
            .files
            .iter()
            .map(|f| f.iter().map(|p| p.display().to_string()).collect())
            .collect();
        o.insert("files".to_owned(), serde_json::json!(files));
        o.insert("sstable".to_owned(), serde_json::json!(s.group.prefix));
    }
    from_json(py, &json.to_string())
}
