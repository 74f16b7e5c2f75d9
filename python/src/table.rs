//! `table(paths)`: the rows of the merged read of one table's 3.0+ SSTables under `paths`
//! (`sstable_engine::merge`, what `sstable-inspect read` and `sql` answer from: each
//! partition's versions reconciled at now) as one Arrow stream, the `--cell-metadata` columns
//! included — what DuckDB and DataFusion-python query directly. Rows are decoded when the
//! consumer pulls batches (`sstable_arrow::MergedRowReader`): memory is a batch and the merge
//! window.

use pyo3::prelude::*;
use sstable_arrow::{MergedRowReader, RowOptions};
use sstable_native::repair::open_replica;

use crate::{error, ArrowStream};

/// `table(paths)`: the table's rows as an Arrow C stream (`pyarrow.RecordBatchReader`).
#[pyfunction]
pub(crate) fn table(py: Python<'_>, paths: Vec<String>) -> PyResult<ArrowStream> {
    let args: Vec<&str> = paths.iter().map(String::as_str).collect();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok())
        .unwrap_or(i64::MAX);
    let replica = open_replica(&args, now).map_err(|e| error(py, e, None, None))?;
    let options = RowOptions {
        cell_metadata: true,
        ..RowOptions::default()
    };
    let reader = MergedRowReader::new(replica.merger, replica.partitioner, options, None, false);
    Ok(ArrowStream::new(reader))
}
