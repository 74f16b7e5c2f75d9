//! What the benches share: this thread's CPU time, rates, and the decode-only scan of a Data.db
//! held in memory (`bench`, `bench_merge`).

use std::time::Instant;

use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{DataFileReader, DataSchema, DecodeOptions, ScanCounts};
use sstable_engine::component::ComponentType;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::{SliceSource, SyncDriver};

pub(crate) fn mb_s(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / 1e6 / secs.max(1e-9)
}

/// CPU time of this thread so far (`/proc/thread-self/schedstat`, ns), where Linux has it: on
/// a busy machine wall time measures the neighbours too.
fn thread_cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// Best of `runs` timings of `f`: wall seconds and, where known, CPU seconds.
pub(crate) fn best_cpu_of(runs: usize, mut f: impl FnMut()) -> (f64, Option<f64>) {
    let mut wall = f64::INFINITY;
    let mut cpu: Option<f64> = None;
    for _ in 0..runs {
        let c = thread_cpu_secs();
        let t = Instant::now();
        f();
        wall = wall.min(t.elapsed().as_secs_f64());
        if let (Some(before), Some(after)) = (c, thread_cpu_secs()) {
            let secs = (after - before).max(1e-9);
            cpu = Some(cpu.map_or(secs, |c: f64| c.min(secs)));
        }
    }
    (wall, cpu)
}

/// The rows' schema from Statistics.db's serialization header.
pub(crate) fn header_schema(metadata: &SSTableMetadata) -> Result<DataSchema, String> {
    metadata
        .statistics
        .as_ref()
        .and_then(|s| s.header.as_ref())
        .map(|h| DataSchema::from_header(h, &metadata.descriptor.version))
        .transpose()
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "no serialization header: rows are not decoded".to_owned())
}

/// A reader of the `n`-byte Data.db (compressed as CompressionInfo.db says).
pub(crate) fn data_reader(
    metadata: &SSTableMetadata,
    schema: &DataSchema,
    n: usize,
) -> DataFileReader {
    match &metadata.compression {
        Some(ci) => DataFileReader::compressed(
            schema.clone(),
            DecodeOptions::default(),
            ci.clone(),
            n as u64,
        ),
        None => DataFileReader::uncompressed(schema.clone(), DecodeOptions::default(), n as u64),
    }
}

/// Data.db held in memory, as the files of a [`SliceSource`].
pub(crate) fn data_files(data: &[u8]) -> [(ComponentType, &[u8]); 1] {
    [(ComponentType::Data, data)]
}

/// The decode-only scan of Data.db in memory: every partition, row and cell decoded and
/// counted, nothing kept.
pub(crate) fn scan_counts(
    reader: &mut DataFileReader,
    data: &[u8],
) -> Result<ScanCounts, sstable_engine::Error> {
    let files = data_files(data);
    let mut counts = ScanCounts::default();
    SyncDriver::new(SliceSource { files: &files }).visit_all(reader, &mut counts, &NoClock)?;
    Ok(counts)
}
