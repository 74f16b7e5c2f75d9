//! The browser half of `cargo xtask bench`'s decode-only scan (issue #13 item 4), run in one
//! worker ([`crate::protocol::Request::ScanBench`]): as `sstable-inspect bench` does natively,
//! Data.db is read into memory first (`FileReaderSync`), then, best of `runs` each, raw LZ4
//! decompression of every chunk into one reused buffer (the engine's `compress` module, nothing
//! else) and the decode-only scan (`ScanCounts` through `SyncDriver::visit_all`: every row, cell and tombstone decoded and
//! counted) over those bytes — so the ratio of the two is measured in the same run, in the same
//! worker, on the same bytes. A benchmark entry, not a page feature: it holds the whole Data.db.

use serde::{Deserialize, Serialize};
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{self, DataFileReader, DecodeOptions};
use sstable_engine::component::ComponentType;
use sstable_engine::compress::{decompress_all_chunks, Compressor};
use sstable_engine::range::{SliceSource, SyncDriver};

use crate::loader;
use crate::protocol::{FileRef, Reply};

/// What one [`run`] measured (times are the best of the runs, `performance.now()` milliseconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScanBench {
    /// Bytes of Data.db as stored.
    pub data_bytes: u64,
    /// Bytes of Data.db uncompressed (CompressionInfo.db's data length).
    pub uncompressed_bytes: u64,
    /// Timings per pass.
    pub runs: u32,
    /// Reading Data.db into memory (`FileReaderSync`, once).
    pub read_millis: f64,
    /// Raw LZ4 decompression of every chunk; `None` when Data.db is not LZ4-compressed.
    pub lz4_millis: Option<f64>,
    /// The decode-only scan.
    pub scan_millis: f64,
    pub partitions: u64,
    /// Regular and static rows.
    pub rows: u64,
    pub cells: u64,
    /// Partition and row deletions, range tombstone markers, complex deletions, tombstone cells.
    pub tombstones: u64,
}

/// Runs the bench on the SSTable made of `files`.
pub fn run(files: &[FileRef], runs: u32) -> Result<ScanBench, String> {
    let runs = runs.clamp(1, 20);
    let (metadata, handles) = super::load_metadata(files)?;
    let data_file = handles
        .iter()
        .find(|(c, _)| *c == ComponentType::Data)
        .map(|(_, f)| f)
        .ok_or("no Data.db")?;
    let started = loader::now_millis();
    let mut data = Vec::new();
    super::files::read_range_into(data_file, 0, data_file.size() as u64, &mut data)?;
    let read_millis = loader::now_millis() - started;
    let n = data.len() as u64;

    let lz4_millis = metadata
        .compression
        .as_ref()
        .filter(|c| Compressor::from_class_name(&c.compressor) == Compressor::Lz4)
        .map(|ci| {
            let mut out = Vec::new();
            best_of(runs, || {
                std::hint::black_box(decompress_all_chunks(ci, &data, &mut out));
            })
        });

    let new_reader = || DataFileReader::for_sstable(&metadata, DecodeOptions::default());
    let data_files = [(ComponentType::Data, data.as_slice())];
    let mut counts = Ok(data::ScanCounts::default());
    let scan_millis = best_of(runs, || {
        counts = new_reader().and_then(|mut reader| {
            let mut c = data::ScanCounts::default();
            SyncDriver::new(SliceSource { files: &data_files })
                .visit_all(&mut reader, &mut c, &NoClock)
                .map(|()| c)
        });
    });
    let c = counts.map_err(|e| format!("decode-only scan: {e}"))?;
    let uncompressed_bytes = metadata
        .compression
        .as_ref()
        .map_or(n, |ci| ci.data_length_bytes.value);
    Ok(ScanBench {
        data_bytes: n,
        uncompressed_bytes,
        runs,
        read_millis,
        lz4_millis,
        scan_millis,
        partitions: c.partitions,
        rows: c.rows.saturating_add(c.static_rows),
        cells: c.cells,
        tombstones: [
            c.partition_deletions,
            c.row_deletions,
            c.range_tombstone_markers,
            c.complex_deletions,
            c.tombstone_cells,
        ]
        .iter()
        .fold(0u64, |a, b| a.saturating_add(*b)),
    })
}

/// The shortest of `runs` timings of `pass`, in milliseconds.
fn best_of(runs: u32, mut pass: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = loader::now_millis();
            pass();
            loader::now_millis() - t
        })
        .fold(f64::INFINITY, f64::min)
}

/// [`crate::protocol::Request::ScanBench`]: the bench, as JSON.
pub(super) fn reply(job: u64, files: &[FileRef], runs: u32) -> Reply {
    let result =
        run(files, runs).and_then(|b| serde_json::to_string(&b).map_err(|e| e.to_string()));
    Reply::ScanBench { job, result }
}
