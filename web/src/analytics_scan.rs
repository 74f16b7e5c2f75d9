//! The Analytics scan as the UI starts it: with one worker, one job; with more, split over the
//! pool as Verify splits by chunks. One worker is asked for Data.db's partition-aligned ranges
//! ([`AnalyticsStep::Plan`], up to [`RANGES_PER_WORKER`] a worker on a large file; a worker that
//! kept a scan of the same files answers at once), each range is a job of its own ([`AnalyticsStep::Range`], the next
//! idle worker takes the next range), and when every range's
//! figures are in, one more job merges them in file order with the engine's merge, seams checked
//! ([`AnalyticsStep::Combine`]). The UI thread only routes messages and sums the ranges'
//! progress: the ranges' figures pass it encoded ([`RangePart`]), never decoded, and nothing
//! here takes long.
//!
//! Cancel: the plan's job id stands for the scan; [`pool::cancel`] with it cancels every range
//! and the merge ([`pool::link`]).

use std::cell::RefCell;
use std::rc::Rc;

use sstable_engine::analytics::ScanRange;

use crate::loader::now_millis;
use crate::pool;
use crate::protocol::analytics::{AnalyticsAnswer, AnalyticsScan, AnalyticsStep, RangePart};
use crate::protocol::{FileRef, Reply, Request};

/// The most ranges asked of the plan per worker: a worker that is done takes the next range, so
/// a worker the machine's other work slows (a shared 2-core machine gave two workers' halves of
/// the 1 GB scan 7.9 and 9.9 s) leaves less to wait for at the end than its half would. Each
/// range costs one more job and re-reads the chunk on its seam.
const RANGES_PER_WORKER: usize = 4;

/// A worker gets more than one range only when each has at least this much of Data.db (about
/// half a second of a worker's scan).
const MIN_RANGE_BYTES: u64 = 64 << 20;

/// Ranges per worker for a Data.db of `data_bytes` over `workers`: 1 to [`RANGES_PER_WORKER`].
fn ranges_per_worker(data_bytes: u64, workers: usize) -> usize {
    let ranges = data_bytes / MIN_RANGE_BYTES.saturating_mul(workers.max(1) as u64);
    usize::try_from(ranges).map_or(RANGES_PER_WORKER, |r| r.clamp(1, RANGES_PER_WORKER))
}

/// What the view hears of a scan.
pub enum ScanEvent {
    /// Compressed Data.db bytes read so far, of the total.
    Progress(u64, u64),
    /// The answer, or why there is none (`pool::CANCELLED` when cancelled).
    Done(Result<Box<AnalyticsScan>, String>),
}

/// Ends the scan with its answer or error (once; later calls do nothing).
type Done = Rc<dyn Fn(Result<Box<AnalyticsScan>, String>)>;

/// What a scan is given.
pub struct ScanJob {
    pub sstable: String,
    pub files: Vec<FileRef>,
    /// Data.db's size (the progress bar's total).
    pub data_bytes: u64,
    pub gc_grace_secs: i64,
    /// Workers to split over (1: one job).
    pub workers: usize,
}

/// A split scan in progress: the ranges' figures and progress as they arrive.
struct Split {
    ranges: Vec<ScanRange>,
    parts: Vec<Option<RangePart>>,
    done_bytes: Vec<u64>,
    started_millis: f64,
}

/// Starts the scan as `slot`'s job (cancelling the one it held); `on_event` hears its progress
/// and its end while it is still the slot's.
pub fn start(slot: &pool::JobSlot, job: ScanJob, on_event: Rc<dyn Fn(ScanEvent)>) {
    pool::cancel_slot(slot);
    let parent = Rc::new(std::cell::Cell::new(0u64));
    let job = Rc::new(job);
    // Still the slot's scan.
    let current = {
        let slot = slot.clone();
        let parent = parent.clone();
        move || *slot.borrow() == Some(parent.get())
    };
    let current: Rc<dyn Fn() -> bool> = Rc::new(current);
    let done: Done = {
        let slot = slot.clone();
        let parent = parent.clone();
        let current = current.clone();
        let on_event = on_event.clone();
        Rc::new(move |result| {
            if !current() {
                return;
            }
            *slot.borrow_mut() = None;
            // The ranges and the merge stop too (when it failed).
            pool::cancel(parent.get());
            pool::unlink(parent.get());
            on_event(ScanEvent::Done(result));
        })
    };
    let step = if job.workers > 1 {
        AnalyticsStep::Plan {
            ranges: job
                .workers
                .saturating_mul(ranges_per_worker(job.data_bytes, job.workers)),
        }
    } else {
        AnalyticsStep::Whole
    };
    let handler: pool::Handler = {
        let current = current.clone();
        let done = done.clone();
        let job = job.clone();
        let parent = parent.clone();
        Rc::new(move |reply: Reply| {
            if !current() {
                return;
            }
            match reply {
                Reply::Progress {
                    done_bytes,
                    total_bytes,
                    ..
                } => on_event(ScanEvent::Progress(done_bytes, total_bytes)),
                Reply::Analytics { scan, .. } => match *scan {
                    AnalyticsAnswer::Scan(s) => done(Ok(s)),
                    AnalyticsAnswer::Plan(ranges) => {
                        split(&job, ranges, &parent, &current, &done, &on_event)
                    }
                    AnalyticsAnswer::Range(_) => {
                        done(Err("the worker answered a range to the plan".to_owned()))
                    }
                },
                Reply::Failed { message, .. } => done(Err(message)),
                _ => {}
            }
        })
    };
    let request = Request::Analytics {
        job: 0,
        sstable: job.sstable.clone(),
        files: job.files.clone(),
        gc_grace_secs: job.gc_grace_secs,
        step,
    };
    parent.set(pool::submit(request, handler));
    *slot.borrow_mut() = Some(parent.get());
}

/// One job a range; when all are in, the merge.
fn split(
    job: &Rc<ScanJob>,
    ranges: Vec<ScanRange>,
    parent: &Rc<std::cell::Cell<u64>>,
    current: &Rc<dyn Fn() -> bool>,
    done: &Done,
    on_event: &Rc<dyn Fn(ScanEvent)>,
) {
    let state = Rc::new(RefCell::new(Split {
        parts: vec![None; ranges.len()],
        done_bytes: vec![0; ranges.len()],
        ranges: ranges.clone(),
        started_millis: now_millis(),
    }));
    for (i, range) in ranges.into_iter().enumerate() {
        let handler: pool::Handler = {
            let state = state.clone();
            let current = current.clone();
            let done = done.clone();
            let on_event = on_event.clone();
            let job = job.clone();
            let parent = parent.clone();
            Rc::new(move |reply: Reply| {
                if !current() {
                    return;
                }
                match reply {
                    Reply::Progress { done_bytes, .. } => {
                        let sum = {
                            let mut s = state.borrow_mut();
                            if let Some(d) = s.done_bytes.get_mut(i) {
                                *d = done_bytes;
                            }
                            s.done_bytes.iter().sum::<u64>()
                        };
                        on_event(ScanEvent::Progress(sum.min(job.data_bytes), job.data_bytes));
                    }
                    Reply::Analytics { scan, .. } => match *scan {
                        AnalyticsAnswer::Range(figures) => {
                            let all = {
                                let mut s = state.borrow_mut();
                                if let Some(p) = s.parts.get_mut(i) {
                                    *p = Some(figures);
                                }
                                s.parts.iter().all(Option::is_some)
                            };
                            if all {
                                combine(&job, &state, &parent, &current, &done, &on_event);
                            }
                        }
                        AnalyticsAnswer::Scan(_) | AnalyticsAnswer::Plan(_) => {
                            done(Err("the worker answered a range with a scan".to_owned()))
                        }
                    },
                    Reply::Failed { message, .. } => done(Err(message)),
                    _ => {}
                }
            })
        };
        let request = Request::Analytics {
            job: 0,
            sstable: job.sstable.clone(),
            files: job.files.clone(),
            gc_grace_secs: job.gc_grace_secs,
            step: AnalyticsStep::Range { range },
        };
        pool::link(parent.get(), pool::submit(request, handler));
    }
}

/// Every range is in: one more job merges them and answers.
fn combine(
    job: &Rc<ScanJob>,
    state: &Rc<RefCell<Split>>,
    parent: &Rc<std::cell::Cell<u64>>,
    current: &Rc<dyn Fn() -> bool>,
    done: &Done,
    on_event: &Rc<dyn Fn(ScanEvent)>,
) {
    let (ranges, parts, millis) = {
        let mut s = state.borrow_mut();
        let parts: Vec<RangePart> = s.parts.iter_mut().filter_map(Option::take).collect();
        (s.ranges.clone(), parts, now_millis() - s.started_millis)
    };
    let handler: pool::Handler = {
        let current = current.clone();
        let done = done.clone();
        let on_event = on_event.clone();
        let parent = parent.clone();
        Rc::new(move |reply: Reply| {
            if !current() {
                return;
            }
            match reply {
                Reply::Progress {
                    done_bytes,
                    total_bytes,
                    ..
                } => on_event(ScanEvent::Progress(done_bytes, total_bytes)),
                Reply::Analytics { scan, .. } => {
                    pool::unlink(parent.get());
                    match *scan {
                        AnalyticsAnswer::Scan(s) => done(Ok(s)),
                        AnalyticsAnswer::Plan(_) | AnalyticsAnswer::Range(_) => {
                            done(Err("the worker answered the merge with a range".to_owned()))
                        }
                    }
                }
                Reply::Failed { message, .. } => done(Err(message)),
                _ => {}
            }
        })
    };
    let request = Request::Analytics {
        job: 0,
        sstable: job.sstable.clone(),
        files: job.files.clone(),
        gc_grace_secs: job.gc_grace_secs,
        step: AnalyticsStep::Combine {
            ranges,
            parts,
            millis,
        },
    };
    pool::link(parent.get(), pool::submit(request, handler));
}
