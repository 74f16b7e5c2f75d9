//! Verification in the worker: one SSTable whole ([`verify`]), one part of its Data.db
//! ([`verify_split`]), or the parts' outcomes combined into the whole file's report
//! ([`combine`]), each driven by the engine's [`SyncDriver`] over `FileReaderSync`.

use sstable_engine::range::{RangeReader, SyncDriver};
use sstable_engine::verify::{
    DataSplit, SplitOutcome, Verifier, VerifyOptions, VerifyRun as EngineRun,
};

use super::{FileSource, Loaded, SLICE_MILLIS};
use crate::loader;
use crate::protocol::verify_run::{VerifyRun, WorkerTiming};
use crate::protocol::{Reply, CANCELLED};

/// What a verification job was asked.
pub(super) struct VerifyJob {
    pub job: u64,
    pub worker: usize,
    pub sstable: String,
    pub decompress: bool,
    pub baseline: bool,
    pub read_size_bytes: u64,
}

/// Verifies one SSTable through the engine's [`EngineRun`] (Data.db, then the partitions of
/// failing chunks from Index.db) driven by a [`SyncDriver`] over `FileReaderSync`; between slices
/// of about [`SLICE_MILLIS`] it yields so a cancel message can arrive.
pub(super) async fn verify(
    args: &VerifyJob,
    loaded: &Loaded,
    respond: &dyn Fn(Reply),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<VerifyRun, String> {
    let started = loader::now_millis();
    let (m, handles) = (&loaded.metadata, &loaded.handles);
    let options = VerifyOptions {
        decompress: args.decompress,
        read_size_bytes: args.read_size_bytes.max(1),
    };
    let mut run = EngineRun::new(m, options);
    let clock = loader::PerformanceClock;
    let mut driver = SyncDriver::new(FileSource {
        files: handles,
        raw_crc32_millis: args.baseline.then_some(0.0),
    });
    let mut error = None;
    let mut cancelled = false;
    while run.next_read().is_some() {
        if is_cancelled() {
            cancelled = true;
            break;
        }
        let slice_started = loader::now_millis();
        let outcome = driver.run_while(&mut run, &clock, |run| {
            let p = run.progress();
            respond(Reply::Progress {
                job: args.job,
                done_bytes: p.done_bytes,
                total_bytes: p.total_bytes,
            });
            loader::now_millis() - slice_started < SLICE_MILLIS
        });
        if let Err(e) = outcome {
            error = Some(e);
            break;
        }
        if run.next_read().is_some() {
            loader::yield_to_event_loop().await;
        }
    }
    let stats = driver.stats();
    let raw_crc32_millis = driver.into_source().raw_crc32_millis;
    let report = run.finish(&args.sstable, error);
    let total_millis = loader::now_millis() - started;
    let mut run = VerifyRun::from_report(&report, cancelled);
    run.read_millis = stats.nanos as f64 / 1e6;
    run.read_bytes = stats.bytes;
    run.raw_crc32_millis = raw_crc32_millis;
    run.total_millis = total_millis;
    run.workers = vec![WorkerTiming {
        worker: args.worker,
        bytes: stats.bytes,
        millis: total_millis,
        wasm_memory_bytes: loader::wasm_memory_bytes(),
        range: None,
        chunks: None,
    }];
    Ok(run)
}

/// Verifies one part of Data.db through the engine's [`Verifier::for_split`], in slices as
/// [`verify`] does.
pub(super) async fn verify_split(
    args: &VerifyJob,
    loaded: &Loaded,
    split: DataSplit,
    respond: &dyn Fn(Reply),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<Reply, String> {
    let started = loader::now_millis();
    let (m, handles) = (&loaded.metadata, &loaded.handles);
    let options = VerifyOptions {
        decompress: args.decompress,
        read_size_bytes: args.read_size_bytes.max(1),
    };
    let mut v = Verifier::for_sstable(m, options)
        .ok_or("there is no Data.db")?
        .for_split(split)
        .map_err(|e| e.to_string())?;
    let clock = loader::PerformanceClock;
    let mut driver = SyncDriver::new(FileSource {
        files: handles,
        raw_crc32_millis: args.baseline.then_some(0.0),
    });
    while v.next_read().is_some() {
        if is_cancelled() {
            return Err(CANCELLED.to_owned());
        }
        let slice_started = loader::now_millis();
        driver
            .run_while(&mut v, &clock, |v| {
                let p = v.progress();
                respond(Reply::Progress {
                    job: args.job,
                    done_bytes: p.done_bytes,
                    total_bytes: p.total_bytes,
                });
                loader::now_millis() - slice_started < SLICE_MILLIS
            })
            .map_err(|e| e.to_string())?;
        if v.next_read().is_some() {
            loader::yield_to_event_loop().await;
        }
    }
    let stats = driver.stats();
    let raw_crc32_millis = driver.into_source().raw_crc32_millis;
    Ok(Reply::SplitVerified {
        job: args.job,
        outcome: Box::new(v.split_outcome()),
        timing: WorkerTiming {
            worker: args.worker,
            bytes: stats.bytes,
            millis: loader::now_millis() - started,
            wasm_memory_bytes: loader::wasm_memory_bytes(),
            range: Some((split.start, split.end)),
            chunks: Some((split.first_chunk, split.end_chunk)),
        },
        read_millis: stats.nanos as f64 / 1e6,
        read_bytes: stats.bytes,
        raw_crc32_millis,
    })
}

/// The whole file's report from its parts' outcomes ([`EngineRun::absorb_splits`]); the
/// partitions of failing chunks are then named here, from the index in windows.
pub(super) fn combine(
    sstable: &str,
    loaded: &Loaded,
    decompress: bool,
    read_size_bytes: u64,
    outcomes: &[SplitOutcome],
    worker: usize,
) -> Result<VerifyRun, String> {
    let started = loader::now_millis();
    let (m, handles) = (&loaded.metadata, &loaded.handles);
    let options = VerifyOptions {
        decompress,
        read_size_bytes: read_size_bytes.max(1),
    };
    let mut run = EngineRun::new(m, options);
    run.absorb_splits(outcomes).map_err(|e| e.to_string())?;
    let mut driver = SyncDriver::new(FileSource {
        files: handles,
        raw_crc32_millis: None,
    });
    // Only the partition stage is left: Index.db (or the trie) in windows, for failing chunks.
    let error = driver.run(&mut run, &loader::PerformanceClock).err();
    let stats = driver.stats();
    let report = run.finish(sstable, error);
    let mut out = VerifyRun::from_report(&report, false);
    out.combine = Some(WorkerTiming {
        worker,
        bytes: stats.bytes,
        millis: loader::now_millis() - started,
        wasm_memory_bytes: loader::wasm_memory_bytes(),
        range: None,
        chunks: None,
    });
    Ok(out)
}
