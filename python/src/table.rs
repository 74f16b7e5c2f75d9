//! `table(paths)`: the rows of every 3.0+ SSTable of one table under `paths` as one Arrow
//! stream (the `--cell-metadata` columns included), what DuckDB and DataFusion-python query
//! directly. SSTables are read one after the other, each chunk by chunk, when the consumer
//! pulls batches; their columns must agree (one table).

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::prelude::*;
use sstable_arrow::{RowBatchReader, RowOptions};
use sstable_native::files::{self, ComponentFiles, FoundFiles};

use crate::{arrow_error, error, ArrowStream};

/// The SSTables' rows, one SSTable after the other.
struct TableReader {
    found: FoundFiles,
    next: usize,
    current: Option<RowBatchReader<ComponentFiles>>,
    schema: SchemaRef,
    now: Option<i64>,
}

impl TableReader {
    fn open(&self, i: usize) -> Option<Result<RowBatchReader<ComponentFiles>, ArrowError>> {
        let sstable = self.found.grouping.sstables.get(i)?;
        let (metadata, _) = files::load_metadata(&self.found, sstable);
        let options = RowOptions {
            cell_metadata: true,
            ..RowOptions::default()
        };
        let source = ComponentFiles::new(&self.found, sstable);
        Some(
            RowBatchReader::new(&metadata, source, options, self.now).and_then(|r| {
                if i == 0 || r.schema().fields() == self.schema.fields() {
                    Ok(r)
                } else {
                    Err(ArrowError::SchemaError(format!(
                        "{}: its columns differ from the first SSTable's",
                        sstable.prefix
                    )))
                }
            }),
        )
    }
}

impl Iterator for TableReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.current.as_mut() {
                if let Some(b) = r.next() {
                    return Some(b);
                }
                self.current = None;
            }
            let i = self.next;
            self.next = self.next.saturating_add(1);
            match self.open(i)? {
                Ok(r) => self.current = Some(r),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

impl RecordBatchReader for TableReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// `table(paths)`: the table's rows as an Arrow C stream (`pyarrow.RecordBatchReader`).
#[pyfunction]
pub(crate) fn table(py: Python<'_>, paths: Vec<String>) -> PyResult<ArrowStream> {
    let args: Vec<&str> = paths.iter().map(String::as_str).collect();
    let found = files::find(&args).map_err(|e| error(py, e.to_string(), None, None))?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok());
    let mut reader = TableReader {
        found,
        next: 1,
        current: None,
        schema: std::sync::Arc::new(arrow_schema::Schema::empty()),
        now,
    };
    let first = match reader.open(0) {
        Some(r) => r.map_err(|e| arrow_error(py, &e))?,
        None => return Err(error(py, "no SSTable found".into(), None, None)),
    };
    reader.schema = first.schema();
    reader.current = Some(first);
    Ok(ArrowStream::new(reader))
}
