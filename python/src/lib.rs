//! `sstable_inspect._native`: the Python module over `sstable-engine`, `sstable-native` and `sstable-arrow`.
//!
//! | function | returns |
//! |---|---|
//! | `info(path)` | dict: the `sstable-inspect info --json` report of the one SSTable at `path` |
//! | `verify(path)` | dict: the `verify --json` report (verdict, checks, findings) |
//! | `partitions(path, batch_rows, jobs)` | an object with `__arrow_c_stream__`: the partitions report |
//! | `scan(path, batch_rows, cell_metadata, jobs)` | an object with `__arrow_c_stream__`: the rows |
//! | `find(paths)` | list of `(prefix, {component suffix: path})`: every SSTable under `paths` |
//! | `merkle(paths, depth, now, gc_grace)`, `diff(replicas, …)`, `validation_depth(replicas)` | replica comparison ([`repair`]): a replica's Merkle leaves, the `diff --json` report |
//! | `partitions_schema()` | an object with `__arrow_c_schema__`: the partitions report's schema |
//!
//! The Python side (`sstable_inspect/__init__.py`) wraps the streams with
//! `pyarrow.RecordBatchReader.from_stream` (the Arrow C stream interface: batches cross without
//! a copy). Decoding runs without the GIL: `info`, `verify` and `partitions` decode inside
//! `Python::detach`; a scan's batches are decoded when pyarrow pulls them through the C stream,
//! which pyarrow does with the GIL released. With `jobs` > 1 (the default: the cores) a stream's
//! Data.db scan is split into partition-aligned ranges decoded on Rust threads ([`split`]: the
//! CLI's `--jobs` runner, `sstable_native::jobs`), its batches the sequential stream's. Errors are `SSTableError` with `component` and
//! `offset` attributes (the engine's).
//!
//! SSTables are found and their component files read (positioned, bounded reads: Data.db is never
//! read whole) by `sstable-native`, the CLI's file access too.

mod repair;
mod scrub;
mod split;

use std::sync::Mutex;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::RecordBatchReader;
use arrow_schema::ffi::FFI_ArrowSchema;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use sstable_arrow::{PartitionBatchReader, RowBatchReader, RowOptions};
use sstable_engine::analytics;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::SyncDriver;
use sstable_engine::sstable_set::SSTableFiles;
use sstable_engine::verify::{VerifyOptions, VerifyRun};
use sstable_native::clock::InstantClock;
use sstable_native::files::{self, ComponentFiles, FoundFiles};

create_exception!(
    sstable_inspect,
    SSTableError,
    PyException,
    "An SSTable could not be read or decoded (attributes: component, offset)."
);

/// An error as `SSTableError(message)` with `component` (a file-name suffix or None) and
/// `offset` (absolute, in that component; None when not about a byte).
fn error(py: Python<'_>, message: String, component: Option<String>, offset: Option<u64>) -> PyErr {
    let err = SSTableError::new_err(message);
    let value = err.value(py);
    let _ = value.setattr("component", component);
    let _ = value.setattr("offset", offset);
    err
}

fn engine_error(py: Python<'_>, e: &sstable_engine::Error) -> PyErr {
    error(
        py,
        e.to_string(),
        e.component().map(|c| c.file_suffix().to_owned()),
        Some(e.offset()),
    )
}

fn arrow_error(py: Python<'_>, e: &arrow_schema::ArrowError) -> PyErr {
    if let arrow_schema::ArrowError::ExternalError(inner) = e {
        if let Some(engine) = inner.downcast_ref::<sstable_engine::Error>() {
            return engine_error(py, engine);
        }
    }
    error(py, e.to_string(), None, None)
}

/// One SSTable's component files: what [`find_one`] found.
struct SSTable {
    found: FoundFiles,
    group: SSTableFiles,
}

impl SSTable {
    fn files(&self) -> ComponentFiles {
        ComponentFiles::new(&self.found, &self.group)
    }

    /// The decoded metadata (I/O errors are also in its errors, with their component).
    fn load_metadata(&self) -> SSTableMetadata {
        files::load_metadata(&self.found, &self.group).0
    }
}

/// The one SSTable at `path` (a component file or a directory holding one SSTable).
fn one_sstable(py: Python<'_>, path: &str) -> PyResult<SSTable> {
    let (found, group) = files::find_one(path).map_err(|e| error(py, e.to_string(), None, None))?;
    Ok(SSTable { found, group })
}

/// JSON text → a Python object.
fn from_json(py: Python<'_>, json: &str) -> PyResult<Py<PyAny>> {
    Ok(py.import("json")?.call_method1("loads", (json,))?.unbind())
}

/// `info(path) -> dict`: the metadata report of one SSTable.
#[pyfunction]
fn info(py: Python<'_>, path: &str) -> PyResult<Py<PyAny>> {
    let s = one_sstable(py, path)?;
    let json = py.detach(|| {
        let metadata = s.load_metadata();
        serde_json::to_string(&metadata.report(&s.group.prefix))
    });
    let json = json.map_err(|e| error(py, e.to_string(), None, None))?;
    from_json(py, &json)
}

/// `verify(path) -> dict`: every checksum of one SSTable, with the verdict.
#[pyfunction]
fn verify(py: Python<'_>, path: &str) -> PyResult<Py<PyAny>> {
    let s = one_sstable(py, path)?;
    let json = py.detach(|| {
        let metadata = s.load_metadata();
        let mut run = VerifyRun::new(&metadata, VerifyOptions::default());
        let mut source = s.files();
        let mut driver = SyncDriver::new(&mut source);
        let clock = InstantClock::new();
        let outcome = driver.run(&mut run, &clock);
        serde_json::to_string(&run.finish(&s.group.prefix, outcome.err()))
    });
    let json = json.map_err(|e| error(py, e.to_string(), None, None))?;
    from_json(py, &json)
}

/// A record batch stream handed to pyarrow through the Arrow C stream interface, once.
#[pyclass(module = "sstable_inspect._native")]
struct ArrowStream {
    reader: Mutex<Option<Box<dyn RecordBatchReader + Send>>>,
}

impl ArrowStream {
    fn new(reader: impl RecordBatchReader + Send + 'static) -> ArrowStream {
        ArrowStream {
            reader: Mutex::new(Some(Box::new(reader))),
        }
    }
}

#[pymethods]
impl ArrowStream {
    /// The PyCapsule `arrow_array_stream` protocol (`requested_schema` is not supported and
    /// ignored, as the protocol allows).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let taken = self.reader.lock().ok().and_then(|mut r| r.take());
        let Some(reader) = taken else {
            return Err(error(
                py,
                "the stream was already consumed".into(),
                None,
                None,
            ));
        };
        let stream = FFI_ArrowArrayStream::new(reader);
        // The capsule holds the struct itself (what the protocol's consumers read).
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }
}

/// `jobs` as given (at least 1), or the cores.
fn jobs_or_cores(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(sstable_native::jobs::default_jobs)
        .max(1)
}

/// `partitions(path, batch_rows, jobs)`: the partitions report as a stream; `jobs` > 1 splits
/// the scan over threads ([`split`]), the batches are the same.
#[pyfunction]
#[pyo3(signature = (path, batch_rows=sstable_arrow::DEFAULT_BATCH_ROWS, jobs=None))]
fn partitions(
    py: Python<'_>,
    path: &str,
    batch_rows: usize,
    jobs: Option<usize>,
) -> PyResult<ArrowStream> {
    let s = one_sstable(py, path)?;
    let metadata = py.detach(|| s.load_metadata());
    let (now, _) = analytics::default_now(&metadata);
    let reader = PartitionBatchReader::new(&metadata, s.files(), batch_rows, now)
        .map_err(|e| arrow_error(py, &e))?;
    let jobs = jobs_or_cores(jobs);
    if jobs <= 1 {
        return Ok(ArrowStream::new(reader));
    }
    let content = split::Content::Partitions { batch_rows, now };
    let stream = split::SplitStream::start(s.found, s.group, metadata, content, jobs)
        .map_err(|e| arrow_error(py, &e))?;
    Ok(ArrowStream::new(stream))
}

/// `scan(path, batch_rows, cell_metadata, jobs)`: the rows as a stream; `jobs` > 1 splits the
/// scan over threads ([`split`]), the batches are the same.
#[pyfunction]
#[pyo3(signature = (path, batch_rows=sstable_arrow::DEFAULT_BATCH_ROWS, cell_metadata=false, jobs=None))]
fn scan(
    py: Python<'_>,
    path: &str,
    batch_rows: usize,
    cell_metadata: bool,
    jobs: Option<usize>,
) -> PyResult<ArrowStream> {
    let s = one_sstable(py, path)?;
    let metadata = py.detach(|| s.load_metadata());
    let options = RowOptions {
        batch_rows,
        cell_metadata,
        ..RowOptions::default()
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok());
    let reader =
        RowBatchReader::new(&metadata, s.files(), options, now).map_err(|e| arrow_error(py, &e))?;
    let jobs = jobs_or_cores(jobs);
    if jobs <= 1 {
        return Ok(ArrowStream::new(reader));
    }
    // The sequential reader was made only to refuse what it refuses (pre-3.0 files) alike.
    drop(reader);
    let content = split::Content::Rows { options, now };
    let stream = split::SplitStream::start(s.found, s.group, metadata, content, jobs)
        .map_err(|e| arrow_error(py, &e))?;
    Ok(ArrowStream::new(stream))
}

/// One SSTable found: its prefix and its (component file suffix, path) pairs.
type FoundSSTable = (String, Vec<(String, String)>);

/// `find(paths) -> list[(prefix, {suffix: path})]`: every SSTable under `paths` (directories
/// searched recursively; a component file selects its SSTable), as the CLI finds them.
#[pyfunction]
fn find(py: Python<'_>, paths: Vec<String>) -> PyResult<Vec<FoundSSTable>> {
    let args: Vec<&str> = paths.iter().map(String::as_str).collect();
    let found = files::find(&args).map_err(|e| error(py, e.to_string(), None, None))?;
    Ok(found
        .grouping
        .sstables
        .iter()
        .map(|s| {
            let components = s
                .files
                .iter()
                .filter_map(|(c, i)| {
                    let path = found.paths.get(*i)?;
                    Some((
                        c.file_suffix().to_owned(),
                        path.to_string_lossy().into_owned(),
                    ))
                })
                .collect();
            (s.prefix.clone(), components)
        })
        .collect())
}

/// A schema handed to pyarrow through the Arrow C data interface (`pyarrow.schema(obj)`).
#[pyclass(module = "sstable_inspect._native", frozen)]
struct ArrowSchema {
    schema: arrow_schema::SchemaRef,
}

#[pymethods]
impl ArrowSchema {
    /// The PyCapsule `arrow_schema` protocol.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema =
            FFI_ArrowSchema::try_from(self.schema.as_ref()).map_err(|e| arrow_error(py, &e))?;
        PyCapsule::new_with_value(py, schema, c"arrow_schema")
    }
}

/// `partitions_schema()`: the schema of `partitions`' batches (`sstable_arrow::partitions_schema`).
#[pyfunction]
fn partitions_schema() -> ArrowSchema {
    ArrowSchema {
        schema: sstable_arrow::partitions_schema(),
    }
}

mod table;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SSTableError", m.py().get_type::<SSTableError>())?;
    m.add_class::<ArrowStream>()?;
    m.add_function(wrap_pyfunction!(info, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(partitions, m)?)?;
    m.add_function(wrap_pyfunction!(scan, m)?)?;
    m.add_function(wrap_pyfunction!(table::table, m)?)?;
    m.add_class::<ArrowSchema>()?;
    m.add_function(wrap_pyfunction!(find, m)?)?;
    m.add_function(wrap_pyfunction!(partitions_schema, m)?)?;
    m.add_function(wrap_pyfunction!(scrub::scrub, m)?)?;
    repair::register(m)?;
    Ok(())
}
