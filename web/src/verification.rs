//! Verifications as the UI starts them: one SSTable, or "Verify all" over every SSTable loaded.
//! Each is a job of the worker pool; its replies become state actions tagged with the load they
//! belong to, so a verification stays with its SSTable and an old one cannot touch a new load.

use std::cell::RefCell;
use std::rc::Rc;

use yew::UseReducerHandle;

use crate::loader::now_millis;
use crate::pool;
use crate::protocol::{FileRef, Reply, Request};
use crate::state::{Action, SSTableView, State, Verdict, VerifyProgress, VerifyRun, WorkerTiming};
use sstable_engine::verify::{DataSplit, SplitOutcome};

pub use crate::protocol::MIN_SPLIT_BYTES;

/// Worker replies are applied at most this often (one render for all that arrived meanwhile).
const APPLY_EVERY_MILLIS: i32 = 100;

thread_local! {
    static PENDING: RefCell<Option<(UseReducerHandle<State>, Vec<Action>)>> = const { RefCell::new(None) };
}

/// Queues `action`; the queue is dispatched as one [`Action::Batch`] within
/// [`APPLY_EVERY_MILLIS`].
fn apply_soon(state: &UseReducerHandle<State>, action: Action) {
    let first = PENDING.with(|p| {
        let mut p = p.borrow_mut();
        match p.as_mut() {
            Some((_, actions)) => {
                actions.push(action);
                false
            }
            None => {
                *p = Some((state.clone(), vec![action]));
                true
            }
        }
    });
    if first {
        let flush = wasm_bindgen::closure::Closure::once_into_js(|| {
            if let Some((state, actions)) = PENDING.with(|p| p.borrow_mut().take()) {
                state.dispatch(Action::Batch(actions));
            }
        });
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(
                wasm_bindgen::JsCast::unchecked_ref(&flush),
                APPLY_EVERY_MILLIS,
            );
        }
    }
}

/// Verifies one SSTable in the pool; returns the job id ([`pool::cancel`] with it cancels every
/// part). A Data.db of at least two [`MIN_SPLIT_BYTES`] parts is split across the pool's workers
/// ([`start_split`]).
pub fn start(
    state: &UseReducerHandle<State>,
    view: &SSTableView,
    decompress: bool,
    baseline: bool,
) -> u64 {
    let tag = state.load_tag;
    let prefix = view.prefix.clone();
    let files: Vec<FileRef> = view
        .files
        .iter()
        .map(|(_, f)| FileRef {
            path: f.name(),
            file: f.clone(),
        })
        .collect();
    // Cut by the worker that loaded the SSTable, for every pool size.
    let splits = view
        .summary
        .splits
        .get(pool::size().saturating_sub(1))
        .cloned()
        .unwrap_or_default();
    if splits.len() > 1 {
        let job = start_split(state, &prefix, files, splits, decompress, baseline);
        apply_soon(state, Action::VerifyStarted { tag, prefix, job });
        return job;
    }
    let handler: pool::Handler = {
        let state = state.clone();
        let prefix = prefix.clone();
        Rc::new(move |reply: Reply| match reply {
            // Not replies to a verification.
            Reply::Ready { .. }
            | Reply::DataPage { .. }
            | Reply::Analytics { .. }
            | Reply::Loaded { .. }
            | Reply::Sample { .. }
            | Reply::ScanBench { .. }
            | Reply::Bloom { .. }
            | Reply::Schema { .. }
            | Reply::Table { .. }
            | Reply::IndexPage { .. }
            | Reply::IndexBlocks { .. }
            | Reply::Zombies { .. }
            | Reply::MergedPage { .. }
            | Reply::Replicas { .. }
            | Reply::Salvaged { .. }
            | Reply::SplitVerified { .. } => {}
            Reply::Progress {
                job,
                done_bytes,
                total_bytes,
            } => apply_soon(
                &state,
                Action::VerifyProgress {
                    tag,
                    prefix: prefix.clone(),
                    progress: VerifyProgress {
                        job,
                        done_bytes,
                        total_bytes,
                    },
                },
            ),
            Reply::Verified { run, .. } => verified(&state, tag, &prefix, *run),
            Reply::Failed { message, .. } => {
                verified(&state, tag, &prefix, failed_run(&prefix, &message))
            }
        })
    };
    let request = Request::Verify {
        job: 0,
        worker: 0,
        sstable: prefix.clone(),
        files,
        decompress,
        baseline,
        read_size_bytes: 0,
    };
    let job = pool::submit(request, handler);
    apply_soon(state, Action::VerifyStarted { tag, prefix, job });
    job
}

/// One split verification in progress: the parts' outcomes and timings as they arrive.
struct Split {
    started_millis: f64,
    parts: Vec<Option<(SplitOutcome, WorkerTiming)>>,
    done_bytes: Vec<u64>,
    read_millis: f64,
    read_bytes: u64,
    raw_crc32_millis: Option<f64>,
    /// Failed or cancelled: later replies are ignored.
    over: bool,
}

/// Verifies `splits` of one Data.db, one job a part, then one job that combines them (and names
/// the partitions of failing chunks); returns the first part's job id, which cancels them all.
fn start_split(
    state: &UseReducerHandle<State>,
    prefix: &str,
    files: Vec<FileRef>,
    splits: Vec<DataSplit>,
    decompress: bool,
    baseline: bool,
) -> u64 {
    let tag = state.load_tag;
    let total_bytes = splits.last().map_or(0, |s| s.end);
    let progress = Rc::new(RefCell::new(Split {
        started_millis: now_millis(),
        parts: vec![None; splits.len()],
        done_bytes: vec![0; splits.len()],
        read_millis: 0.0,
        read_bytes: 0,
        raw_crc32_millis: baseline.then_some(0.0),
        over: false,
    }));
    let parent = Rc::new(std::cell::Cell::new(0u64));
    let finish = {
        let state = state.clone();
        let prefix = prefix.to_owned();
        let parent = parent.clone();
        move |run: VerifyRun| {
            pool::unlink(parent.get());
            verified(&state, tag, &prefix, run);
        }
    };
    let finish: Rc<dyn Fn(VerifyRun)> = Rc::new(finish);
    let fail: Rc<dyn Fn(String)> = {
        let finish = finish.clone();
        let prefix = prefix.to_owned();
        let progress = progress.clone();
        let parent = parent.clone();
        Rc::new(move |message: String| {
            if std::mem::replace(&mut progress.borrow_mut().over, true) {
                return;
            }
            // The other parts stop too.
            pool::cancel(parent.get());
            finish(failed_run(&prefix, &message));
        })
    };
    for (i, split) in splits.iter().enumerate() {
        let handler: pool::Handler = {
            let state = state.clone();
            let prefix = prefix.to_owned();
            let progress = progress.clone();
            let parent = parent.clone();
            let fail = fail.clone();
            let finish = finish.clone();
            let files = files.clone();
            Rc::new(move |reply: Reply| match reply {
                Reply::Ready { .. }
                | Reply::DataPage { .. }
                | Reply::Analytics { .. }
                | Reply::Loaded { .. }
                | Reply::Sample { .. }
                | Reply::ScanBench { .. }
                | Reply::Bloom { .. }
                | Reply::Schema { .. }
                | Reply::Table { .. }
                | Reply::IndexPage { .. }
                | Reply::IndexBlocks { .. }
                | Reply::Zombies { .. }
                | Reply::MergedPage { .. }
                | Reply::Replicas { .. }
                | Reply::Salvaged { .. }
                | Reply::Verified { .. } => {}
                Reply::Progress { done_bytes, .. } => {
                    let done = {
                        let mut p = progress.borrow_mut();
                        if let Some(d) = p.done_bytes.get_mut(i) {
                            *d = done_bytes;
                        }
                        p.done_bytes.iter().sum()
                    };
                    apply_soon(
                        &state,
                        Action::VerifyProgress {
                            tag,
                            prefix: prefix.clone(),
                            progress: VerifyProgress {
                                job: parent.get(),
                                done_bytes: done,
                                total_bytes,
                            },
                        },
                    );
                }
                Reply::Failed { message, .. } => fail(message),
                Reply::SplitVerified {
                    outcome,
                    timing,
                    read_millis,
                    read_bytes,
                    raw_crc32_millis,
                    ..
                } => {
                    let all = {
                        let mut p = progress.borrow_mut();
                        if p.over {
                            return;
                        }
                        p.read_millis += read_millis;
                        p.read_bytes += read_bytes;
                        if let (Some(sum), Some(ms)) =
                            (p.raw_crc32_millis.as_mut(), raw_crc32_millis)
                        {
                            *sum += ms;
                        }
                        if let Some(slot) = p.parts.get_mut(i) {
                            *slot = Some((*outcome, timing));
                        }
                        p.parts.iter().all(Option::is_some)
                    };
                    if all {
                        combine(
                            &progress, &prefix, &files, decompress, &parent, &fail, &finish,
                        );
                    }
                }
            })
        };
        let request = Request::VerifySplit {
            job: 0,
            worker: 0,
            sstable: prefix.to_owned(),
            files: files.clone(),
            decompress,
            baseline,
            read_size_bytes: 0,
            split: *split,
        };
        let job = pool::submit(request, handler);
        if i == 0 {
            parent.set(job);
        } else {
            pool::link(parent.get(), job);
        }
    }
    parent.get()
}

/// Every part is in: one more job combines them; the run gets the parts' timings.
fn combine(
    progress: &Rc<RefCell<Split>>,
    prefix: &str,
    files: &[FileRef],
    decompress: bool,
    parent: &Rc<std::cell::Cell<u64>>,
    fail: &Rc<dyn Fn(String)>,
    finish: &Rc<dyn Fn(VerifyRun)>,
) {
    let (outcomes, workers): (Vec<SplitOutcome>, Vec<WorkerTiming>) =
        progress.borrow().parts.iter().flatten().cloned().unzip();
    let handler: pool::Handler = {
        let progress = progress.clone();
        let fail = fail.clone();
        let finish = finish.clone();
        Rc::new(move |reply: Reply| match reply {
            Reply::Verified { run, .. } => {
                let p = progress.borrow();
                if p.over {
                    return;
                }
                let mut run = *run;
                run.read_millis = p.read_millis;
                run.read_bytes = p.read_bytes;
                run.raw_crc32_millis = p.raw_crc32_millis;
                run.total_millis = now_millis() - p.started_millis;
                run.workers = workers.clone();
                drop(p);
                progress.borrow_mut().over = true;
                finish(run);
            }
            Reply::Failed { message, .. } => fail(message),
            _ => {}
        })
    };
    let request = Request::VerifyCombine {
        job: 0,
        worker: 0,
        sstable: prefix.to_owned(),
        files: files.to_vec(),
        decompress,
        outcomes,
        read_size_bytes: 0,
    };
    let job = pool::submit(request, handler);
    pool::link(parent.get(), job);
}

/// "Verify all": every SSTable loaded, queued in the pool.
pub fn start_all(state: &UseReducerHandle<State>) {
    let tag = state.load_tag;
    let started_millis = now_millis();
    let sstables = state.sstables.clone();
    let jobs: Vec<(String, u64)> = sstables
        .iter()
        .map(|s| (s.prefix.clone(), start(state, s, false, false)))
        .collect();
    apply_soon(
        state,
        Action::VerifyAllStarted {
            tag,
            jobs,
            started_millis,
        },
    );
}

/// Cancels "Verify all": queued jobs are dropped, running ones stop at their next slice.
pub fn cancel_all(state: &UseReducerHandle<State>) {
    if let Some(all) = &state.verify_all {
        for (_, job) in &all.jobs {
            pool::cancel(*job);
        }
    }
    apply_soon(state, Action::VerifyAllCancelled);
}

/// Every report of a "Verify all" as one JSON array (the `verify --json` shape per SSTable).
pub fn export_all_json(state: &State) -> String {
    let Some(all) = &state.verify_all else {
        return "[]".to_owned();
    };
    let reports: Vec<&str> = all
        .jobs
        .iter()
        .filter_map(|(p, _)| state.verified.iter().find(|(q, _)| q == p))
        .map(|(_, run)| run.report_json.as_str())
        .collect();
    format!("[{}]", reports.join(",\n"))
}

/// Hands `run` to the state as `prefix`'s verification (of the load tagged `tag`).
fn verified(state: &UseReducerHandle<State>, tag: u64, prefix: &str, run: VerifyRun) {
    apply_soon(
        state,
        Action::Verified {
            tag,
            prefix: prefix.to_owned(),
            run: Rc::new(run),
            at_millis: now_millis(),
        },
    );
}

/// The run a worker's failure (or a cancel) leaves: not verifiable, or cancelled.
fn failed_run(prefix: &str, message: &str) -> VerifyRun {
    let mut run = VerifyRun::not_verifiable(prefix, message);
    if message == pool::CANCELLED {
        run.verdict = Verdict::Cancelled;
    }
    run
}
