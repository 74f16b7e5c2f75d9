//! A Data.db scan split into partition-aligned ranges by the engine
//! (`sstable_engine::analytics::split_ranges`) and run on `N` std threads (the CLI's `--jobs N`,
//! the Python package's `jobs=N`: one implementation for both), each range with its own
//! reader and file handles. Results are handed to the caller in file order, and every seam is
//! checked (the engine's `InOrder`, which the page's split scan uses too): a
//! range that did not stop exactly where the next starts
//! discards the ranges after it, and the rest is scanned as one range from where it stopped, so
//! the output is the sequential run's byte for byte.
//!
//! Memory: at most `2 × N` ranges are decoded or waiting to be handed over at once; a range
//! covers at most [`MAX_RANGE_BYTES`] of uncompressed data (beyond `4 × N` ranges), so a
//! command that buffers a range's output (`dump`) keeps a few ranges' worth.

use std::sync::{mpsc, Condvar, Mutex};

use sstable_engine::analytics::{
    data_len_bytes, split_ranges, After, InOrder, RangeEnd, ScanRange,
};
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::DataFileReader;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::SyncDriver;
use sstable_engine::sstable_set::SSTableFiles;

use crate::files::{ComponentFiles, FoundFiles};

/// Uncompressed bytes a range covers at most, when the file is split at all.
pub const MAX_RANGE_BYTES: u64 = 8 << 20;

/// `--jobs`'s (and `jobs=`'s) default: the cores the process may use.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// What one range's scan gave.
pub struct RangeRun<T> {
    /// `None` only when the range could not be started (`error` says why).
    pub value: Option<T>,
    /// The error that stopped the range (a sequential scan stops at the same one).
    pub error: Option<String>,
    /// Chunk findings (checksum mismatches) of the chunks this range read.
    pub findings: Vec<String>,
    /// Uncompressed position the range stopped at.
    pub stopped_at: u64,
    frozen_udts: bool,
}

impl<T> RangeEnd for RangeRun<T> {
    fn stopped_at(&self) -> u64 {
        self.stopped_at
    }

    fn frozen_udts(&self) -> bool {
        self.frozen_udts
    }

    fn failed(&self) -> bool {
        self.error.is_some()
    }
}

/// The driver a range's scan reads through.
pub type Driver = SyncDriver<ComponentFiles>;

/// How many ranges a scan with `jobs` threads is split into.
fn range_count(jobs: usize, data_len: u64) -> usize {
    if jobs <= 1 {
        return 1;
    }
    let by_size = usize::try_from(data_len.div_ceil(MAX_RANGE_BYTES)).unwrap_or(usize::MAX);
    jobs.saturating_mul(4).max(by_size).min(4096)
}

/// Runs `work` over `template`'s Data.db (a fresh reader, cloned from it, per range) split for
/// `jobs` threads; `consume` receives every range's run in file order and returns whether to go
/// on. Chunk findings are handed over once each (a chunk on a seam is read by both ranges).
pub fn scan_split<T, W, C>(
    found: &FoundFiles,
    sstable: &SSTableFiles,
    metadata: &SSTableMetadata,
    template: &DataFileReader,
    jobs: usize,
    work: W,
    mut consume: C,
) where
    T: Send,
    W: Fn(&mut DataFileReader, &mut Driver) -> (T, Option<String>) + Sync,
    C: FnMut(RangeRun<T>) -> bool,
{
    let data_len = data_len_bytes(metadata).unwrap_or(0);
    let count = range_count(jobs, data_len);
    let ranges = if count > 1 {
        let mut driver = SyncDriver::new(ComponentFiles::new(found, sstable));
        split_ranges(metadata, &mut driver, count, &NoClock)
    } else {
        vec![ScanRange {
            start: 0,
            end: data_len,
        }]
    };
    let run_one = |range: ScanRange, frozen: bool| -> RangeRun<T> {
        let mut reader = template.clone();
        let mut driver = SyncDriver::new(ComponentFiles::new(found, sstable));
        let (value, error) = match reader.scan_range(range, frozen) {
            Ok(()) => {
                let (v, e) = work(&mut reader, &mut driver);
                (Some(v), e)
            }
            Err(e) => (None, Some(e.to_string())),
        };
        let findings = reader.take_findings();
        RangeRun {
            value,
            error,
            findings: findings.into_iter().map(|f| f.message).collect(),
            stopped_at: reader.position(),
            frozen_udts: reader.decoder().reads_bare_udts_as_frozen(),
        }
    };
    let mut seen_findings = std::collections::HashSet::new();
    let mut hand_over = |mut run: RangeRun<T>| -> bool {
        run.findings.retain(|f| seen_findings.insert(f.clone()));
        consume(run)
    };
    if ranges.len() <= 1 || jobs <= 1 {
        let mut range = ranges.first().copied().unwrap_or(ScanRange {
            start: 0,
            end: data_len,
        });
        range.end = data_len;
        hand_over(run_one(range, false));
        return;
    }
    // The rest after a failed seam: one range from where the scan stopped, with its reading.
    let mut rest: Option<(u64, bool)> = None;
    let window = jobs.saturating_mul(2);
    // (next range to start, ranges handed over, cancelled)
    let state = Mutex::new((0usize, 0usize, false));
    let wake = Condvar::new();
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, RangeRun<T>)>();
        for _ in 0..jobs {
            let tx = tx.clone();
            let (state, wake, ranges, run_one) = (&state, &wake, &ranges, &run_one);
            scope.spawn(move || loop {
                let i = {
                    let Ok(mut g) = state.lock() else { return };
                    while !g.2 && g.0 < ranges.len() && g.0 >= g.1.saturating_add(window) {
                        g = match wake.wait(g) {
                            Ok(g) => g,
                            Err(_) => return,
                        };
                    }
                    if g.2 || g.0 >= ranges.len() {
                        return;
                    }
                    g.0 = g.0.saturating_add(1);
                    g.0.saturating_sub(1)
                };
                let Some(&range) = ranges.get(i) else { return };
                if tx.send((i, run_one(range, false))).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        // In file order, every seam checked: the engine's ordered merge (the page's too).
        let mut order = InOrder::new(ranges.clone());
        'recv: for (i, run) in rx.iter() {
            order.insert(i, run);
            while let Some((run, after)) = order.pop() {
                let stop = after != After::Next;
                let go_on = hand_over(run);
                if let Ok(mut g) = state.lock() {
                    g.1 = order.handed();
                    g.2 |= stop || !go_on;
                }
                wake.notify_all();
                if stop || !go_on {
                    rest = match after {
                        After::Rest { start, frozen_udts } if go_on => Some((start, frozen_udts)),
                        _ => None,
                    };
                    break 'recv;
                }
            }
        }
        if let Ok(mut g) = state.lock() {
            g.2 = true;
        }
        wake.notify_all();
        drop(rx);
    });
    if let Some((start, frozen)) = rest {
        hand_over(run_one(
            ScanRange {
                start,
                end: data_len,
            },
            frozen,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sstable_engine::analytics::{self, PartitionScan};
    use sstable_engine::component::data::VisitStep;
    use sstable_engine::write::MemorySink;
    use sstable_engine::write::{generate, GenerateOptions};
    use sstable_engine::{Format, Version};

    /// 3,000 generated partitions of 5 rows in 4 KiB chunks, scanned on 2 threads: the runner
    /// splits the file into `4 × 2` ranges and hands every partition over once, in file order.
    #[test]
    fn a_split_scan_hands_every_partition_over_once_in_file_order() {
        let dir = std::env::temp_dir().join(format!("sstable-native-jobs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let version = Version::parse(Format::Big, "oa").unwrap();
        let mut options = GenerateOptions::new(version, 3000, 5);
        options.chunk_kib = Some(4);
        let generated = generate(&options, MemorySink::default()).unwrap();
        for (c, bytes) in &generated.sink.files {
            std::fs::write(dir.join(format!("oa-1-big-{}", c.file_suffix())), bytes).unwrap();
        }
        let (found, sstable) = crate::files::find_one(dir.to_str().unwrap()).unwrap();
        let (metadata, _) = crate::files::load_metadata(&found, &sstable);
        let (template, key_type) = analytics::data_reader(&metadata).unwrap();
        let partitioner = metadata.partitioner();
        for jobs in [1, 2] {
            let mut runs = Vec::new();
            scan_split(
                &found,
                &sstable,
                &metadata,
                &template,
                jobs,
                |reader, driver| {
                    let mut scan = PartitionScan::new(key_type.clone(), partitioner.clone(), 0);
                    let mut positions = Vec::new();
                    loop {
                        match driver.visit_next(reader, &mut scan, &NoClock) {
                            Ok(VisitStep::Visited) => {
                                if let Some((_, stats)) = scan.take_finished() {
                                    positions.push(stats.position);
                                }
                            }
                            Ok(_) => return (positions, None),
                            Err(e) => return (positions, Some(e.to_string())),
                        }
                    }
                },
                |run| {
                    assert_eq!(run.error, None);
                    runs.push(run.value.unwrap());
                    true
                },
            );
            assert_eq!(runs.len(), if jobs == 1 { 1 } else { 8 }, "jobs {jobs}");
            let positions: Vec<u64> = runs.concat();
            assert_eq!(positions.len(), 3000);
            assert_eq!(positions.first(), Some(&0));
            assert!(positions.windows(2).all(|w| w[0] < w[1]));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
