//! Record batches to a file: Parquet (Snappy-compressed pages), the Arrow IPC file format, or
//! CSV (rows from [`TypeMapping::Text`](crate::TypeMapping::Text): every value as `dump`
//! prints it, one header line, RFC 4180 quoting). Each writer takes batches one at a time, so
//! memory stays at one batch (Parquet: a row group of at most [`PARQUET_ROW_GROUP_BYTES`] encoded bytes).

use std::io::Write;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, TimestampMicrosecondType, TimestampSecondType, UInt64Type};
use arrow_array::{Array, RecordBatch};
use arrow_ipc::writer::FileWriter;
use arrow_schema::{ArrowError, DataType, SchemaRef, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use sstable_engine::datetime::{iso8601_micros, iso8601_secs};

use crate::TypeMapping;

/// Encoded bytes a Parquet row group may buffer before it is written out.
pub const PARQUET_ROW_GROUP_BYTES: usize = 16 << 20;

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Parquet,
    /// The Arrow IPC file format (Feather v2).
    Arrow,
    Csv,
}

impl Format {
    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Arrow => "arrow",
            Format::Csv => "csv",
        }
    }

    /// The type mapping this format can hold (CSV: text).
    pub fn mapping(self) -> TypeMapping {
        match self {
            Format::Parquet | Format::Arrow => TypeMapping::Nested,
            Format::Csv => TypeMapping::Text,
        }
    }
}

/// Writes batches of one schema in one [`Format`].
pub enum BatchWriter<W: Write + Send> {
    Parquet(Box<ArrowWriter<W>>),
    Arrow(Box<FileWriter<W>>),
    Csv(CsvWriter<W>),
}

impl<W: Write + Send> BatchWriter<W> {
    pub fn new(format: Format, out: W, schema: &SchemaRef) -> Result<Self, ArrowError> {
        Ok(match format {
            Format::Parquet => {
                let props = WriterProperties::builder()
                    .set_compression(Compression::SNAPPY)
                    .build();
                BatchWriter::Parquet(Box::new(
                    ArrowWriter::try_new(out, schema.clone(), Some(props))
                        .map_err(|e| ArrowError::ExternalError(Box::new(e)))?,
                ))
            }
            Format::Arrow => BatchWriter::Arrow(Box::new(FileWriter::try_new(out, schema)?)),
            Format::Csv => BatchWriter::Csv(CsvWriter::new(out, schema)?),
        })
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), ArrowError> {
        match self {
            // A row group is cut once its encoded pages reach PARQUET_ROW_GROUP_BYTES: the
            // writer holds that much, never the file.
            BatchWriter::Parquet(w) => w
                .write(batch)
                .and_then(|()| {
                    if w.in_progress_size() >= PARQUET_ROW_GROUP_BYTES {
                        w.flush()
                    } else {
                        Ok(())
                    }
                })
                .map_err(|e| ArrowError::ExternalError(Box::new(e))),
            BatchWriter::Arrow(w) => w.write(batch),
            BatchWriter::Csv(w) => w.write(batch),
        }
    }

    /// Writes the footer (Parquet, Arrow) and flushes.
    pub fn finish(self) -> Result<(), ArrowError> {
        match self {
            BatchWriter::Parquet(w) => w
                .close()
                .map(|_| ())
                .map_err(|e| ArrowError::ExternalError(Box::new(e))),
            BatchWriter::Arrow(mut w) => w.finish(),
            BatchWriter::Csv(w) => w.finish(),
        }
    }
}

/// CSV of text-mapped batches: Utf8, UInt64, Int32 and UTC timestamp columns (what
/// [`RowBatcher`](crate::RowBatcher) and the partitions report make with text mapping).
pub struct CsvWriter<W: Write> {
    out: W,
    line: Vec<u8>,
}

impl<W: Write> CsvWriter<W> {
    fn new(mut out: W, schema: &SchemaRef) -> Result<Self, ArrowError> {
        let mut line = Vec::new();
        for (i, f) in schema.fields().iter().enumerate() {
            if !matches!(
                f.data_type(),
                DataType::Utf8
                    | DataType::UInt64
                    | DataType::Int32
                    | DataType::Timestamp(TimeUnit::Microsecond | TimeUnit::Second, _)
            ) {
                return Err(ArrowError::CsvError(format!(
                    "column {} of type {} cannot be written as CSV (use the text mapping)",
                    f.name(),
                    f.data_type()
                )));
            }
            if i > 0 {
                line.push(b',');
            }
            push_field(&mut line, f.name());
        }
        line.push(b'\n');
        out.write_all(&line)?;
        Ok(CsvWriter { out, line })
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<(), ArrowError> {
        for row in 0..batch.num_rows() {
            self.line.clear();
            for (i, column) in batch.columns().iter().enumerate() {
                if i > 0 {
                    self.line.push(b',');
                }
                if column.is_null(row) {
                    continue;
                }
                match column.data_type() {
                    DataType::Utf8 => {
                        push_field(&mut self.line, column.as_string::<i32>().value(row))
                    }
                    DataType::UInt64 => {
                        let v = column.as_primitive::<UInt64Type>().value(row);
                        self.line.extend_from_slice(v.to_string().as_bytes());
                    }
                    DataType::Int32 => {
                        let v = column.as_primitive::<Int32Type>().value(row);
                        self.line.extend_from_slice(v.to_string().as_bytes());
                    }
                    DataType::Timestamp(TimeUnit::Microsecond, _) => {
                        let v = column.as_primitive::<TimestampMicrosecondType>().value(row);
                        self.line.extend_from_slice(iso8601_micros(v).as_bytes());
                    }
                    DataType::Timestamp(TimeUnit::Second, _) => {
                        let v = column.as_primitive::<TimestampSecondType>().value(row);
                        self.line.extend_from_slice(iso8601_secs(v).as_bytes());
                    }
                    other => {
                        return Err(ArrowError::CsvError(format!(
                            "type {other} cannot be written as CSV"
                        )))
                    }
                }
            }
            self.line.push(b'\n');
            self.out.write_all(&self.line)?;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<(), ArrowError> {
        self.out.flush()?;
        Ok(())
    }
}

/// A CSV field, quoted when it holds a comma, quote, CR or LF (quotes doubled).
fn push_field(out: &mut Vec<u8>, s: &str) {
    if s.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r')) {
        out.push(b'"');
        for b in s.bytes() {
            if b == b'"' {
                out.push(b'"');
            }
            out.push(b);
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(s.as_bytes());
    }
}
