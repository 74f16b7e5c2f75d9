//! `sstable_inspect._native`: the Python module over `sstable-engine` and `sstable-arrow`.
//!
//! | function | returns |
//! |---|---|
//! | `info(path)` | dict: the `sstable-inspect info --json` report of the one SSTable at `path` |
//! | `verify(path)` | dict: the `verify --json` report (verdict, checks, findings) |
//! | `partitions(path, batch_rows)` | an object with `__arrow_c_stream__`: the partitions report |
//! | `scan(path, batch_rows, cell_metadata)` | an object with `__arrow_c_stream__`: the rows |
//!
//! The Python side (`sstable_inspect/__init__.py`) wraps the streams with
//! `pyarrow.RecordBatchReader.from_stream` (the Arrow C stream interface: batches cross without
//! a copy). Decoding runs without the GIL: `info`, `verify` and `partitions` decode inside
//! `Python::detach`; a scan's batches are decoded when pyarrow pulls them through the C stream,
//! which pyarrow does with the GIL released. Errors are `SSTableError` with `component` and
//! `offset` attributes (the engine's).
//!
//! Files are read by positioned reads of the component files ([`FileSource`]); Data.db is never
//! read whole.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::RecordBatchReader;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use sstable_arrow::{PartitionBatchReader, RowBatchReader, RowOptions};
use sstable_engine::analytics;
use sstable_engine::clock::Clock;
use sstable_engine::component::ComponentType;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::load::MetadataLoader;
use sstable_engine::range::{ByteRange, RangeSource, SyncDriver};
use sstable_engine::sstable_set::{group_files, SSTableFiles};
use sstable_engine::verify::{VerifyOptions, VerifyRun};

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

/// One SSTable's component files.
struct SSTable {
    group: SSTableFiles,
    paths: Vec<PathBuf>,
}

/// The one SSTable at `path` (a component file or a directory holding one SSTable).
fn one_sstable(py: Python<'_>, path: &str) -> PyResult<SSTable> {
    let mut paths = Vec::new();
    walk(Path::new(path), &mut paths).map_err(|e| error(py, format!("{path}: {e}"), None, None))?;
    paths.sort();
    let names: Vec<String> = paths
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let mut grouping = group_files(&names);
    if grouping.sstables.len() != 1 {
        return Err(error(
            py,
            format!(
                "{path}: {} SSTables found; give one SSTable's directory or component file",
                grouping.sstables.len()
            ),
            None,
            None,
        ));
    }
    let Some(group) = grouping.sstables.pop() else {
        return Err(error(py, format!("{path}: no SSTable"), None, None));
    };
    Ok(SSTable { group, paths })
}

/// Every file under `path` (or `path` itself, and its siblings that share its SSTable: a
/// component file selects its whole SSTable).
fn walk(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        for e in std::fs::read_dir(path)? {
            walk(&e?.path(), out)?;
        }
    } else if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let prefix = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = prefix.rsplit_once('-').map_or(prefix.as_str(), |(s, _)| s);
        for e in std::fs::read_dir(dir)? {
            let p = e?.path();
            if p.is_file()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(stem))
            {
                out.push(p);
            }
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}

/// Positioned reads of one SSTable's component files: the engine's `RangeSource`.
struct FileSource {
    files: Vec<(ComponentType, PathBuf)>,
    open: Vec<(ComponentType, File, u64)>,
}

impl FileSource {
    fn new(s: &SSTable) -> FileSource {
        FileSource {
            files: s
                .group
                .files
                .iter()
                .filter_map(|(c, i)| s.paths.get(*i).map(|p| (c.clone(), p.clone())))
                .collect(),
            open: Vec::new(),
        }
    }

    fn sizes(&self) -> Vec<(ComponentType, u64)> {
        self.files
            .iter()
            .filter_map(|(c, p)| std::fs::metadata(p).ok().map(|m| (c.clone(), m.len())))
            .collect()
    }
}

impl RangeSource for FileSource {
    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> sstable_engine::Result<()> {
        let io = |e: std::io::Error| {
            sstable_engine::Error::invalid(format!("read failed: {e}"), range.offset)
                .in_component(range.component.clone())
        };
        if !self.open.iter().any(|(c, _, _)| *c == range.component) {
            let path = self
                .files
                .iter()
                .find(|(c, _)| *c == range.component)
                .map(|(_, p)| p.clone())
                .ok_or_else(|| {
                    sstable_engine::Error::invalid("component file missing", range.offset)
                        .in_component(range.component.clone())
                })?;
            let file = File::open(&path).map_err(io)?;
            let len = file.metadata().map_err(io)?.len();
            self.open.push((range.component.clone(), file, len));
        }
        let Some((_, file, len)) = self.open.iter_mut().find(|(c, _, _)| *c == range.component)
        else {
            return Err(sstable_engine::Error::invalid(
                "component file missing",
                range.offset,
            ));
        };
        // Never more than the file holds past the offset.
        let want = range.len.min(len.saturating_sub(range.offset));
        let want = usize::try_from(want).map_err(|_| {
            sstable_engine::Error::invalid("read too large", range.offset)
                .in_component(range.component.clone())
        })?;
        buf.clear();
        buf.resize(want, 0);
        file.seek(SeekFrom::Start(range.offset)).map_err(io)?;
        file.read_exact(buf).map_err(io)?;
        Ok(())
    }
}

fn load_metadata(s: &SSTable) -> SSTableMetadata {
    let mut source = FileSource::new(s);
    let mut loader = MetadataLoader::new(&s.group.descriptor, source.sizes());
    let mut driver = SyncDriver::new(&mut source);
    // A component that cannot be read is recorded by the loader, which goes on.
    let _ = driver.run(&mut loader, &sstable_engine::clock::NoClock);
    loader.finish()
}

/// JSON text → a Python object.
fn from_json(py: Python<'_>, json: &str) -> PyResult<Py<PyAny>> {
    Ok(py.import("json")?.call_method1("loads", (json,))?.unbind())
}

/// The wall clock for verify's phase timings (native only).
struct Wall(std::time::Instant);

impl Clock for Wall {
    fn now_nanos(&self) -> u64 {
        u64::try_from(self.0.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// `info(path) -> dict`: the metadata report of one SSTable.
#[pyfunction]
fn info(py: Python<'_>, path: &str) -> PyResult<Py<PyAny>> {
    let s = one_sstable(py, path)?;
    let json = py.detach(|| {
        let metadata = load_metadata(&s);
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
        let metadata = load_metadata(&s);
        let mut run = VerifyRun::new(&metadata, VerifyOptions::default());
        let mut source = FileSource::new(&s);
        let mut driver = SyncDriver::new(&mut source);
        let clock = Wall(std::time::Instant::now());
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

/// `partitions(path, batch_rows)`: the partitions report as a stream.
#[pyfunction]
#[pyo3(signature = (path, batch_rows=sstable_arrow::DEFAULT_BATCH_ROWS))]
fn partitions(py: Python<'_>, path: &str, batch_rows: usize) -> PyResult<ArrowStream> {
    let s = one_sstable(py, path)?;
    let metadata = py.detach(|| load_metadata(&s));
    let (now, _) = analytics::default_now(&metadata);
    let reader = PartitionBatchReader::new(&metadata, FileSource::new(&s), batch_rows, now)
        .map_err(|e| arrow_error(py, &e))?;
    Ok(ArrowStream::new(reader))
}

/// `scan(path, batch_rows, cell_metadata)`: the rows as a stream.
#[pyfunction]
#[pyo3(signature = (path, batch_rows=sstable_arrow::DEFAULT_BATCH_ROWS, cell_metadata=false))]
fn scan(
    py: Python<'_>,
    path: &str,
    batch_rows: usize,
    cell_metadata: bool,
) -> PyResult<ArrowStream> {
    let s = one_sstable(py, path)?;
    let metadata = py.detach(|| load_metadata(&s));
    let options = RowOptions {
        batch_rows,
        cell_metadata,
        ..RowOptions::default()
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok());
    let reader = RowBatchReader::new(&metadata, FileSource::new(&s), options, now)
        .map_err(|e| arrow_error(py, &e))?;
    Ok(ArrowStream::new(reader))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SSTableError", m.py().get_type::<SSTableError>())?;
    m.add_class::<ArrowStream>()?;
    m.add_function(wrap_pyfunction!(info, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(partitions, m)?)?;
    m.add_function(wrap_pyfunction!(scan, m)?)?;
    Ok(())
}
