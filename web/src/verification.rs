//! Verifications as the UI starts them: one SSTable, or "Verify all" over every SSTable loaded.
//! Each is a job of the worker pool; its replies become state actions tagged with the load they
//! belong to, so a verification stays with its SSTable and an old one cannot touch a new load.

use std::cell::RefCell;
use std::rc::Rc;

use yew::UseReducerHandle;

use crate::loader::now_millis;
use crate::pool;
use crate::state::{Action, SSTableView, State, Verdict, VerifyProgress, VerifyRun};
use crate::worker::{FileRef, Reply, Request};

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

/// Verifies one SSTable in the pool; returns the job id.
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
    let handler: pool::Handler = {
        let state = state.clone();
        let prefix = prefix.clone();
        Rc::new(move |reply: Reply| match reply {
            // Not replies to a verification.
            Reply::Ready | Reply::DataPage { .. } => {}
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
            Reply::Verified { run, .. } => apply_soon(
                &state,
                Action::Verified {
                    tag,
                    prefix: prefix.clone(),
                    run: Rc::new(*run),
                    at_millis: now_millis(),
                },
            ),
            Reply::Failed { message, .. } => {
                let mut run = VerifyRun::not_verifiable(&prefix, &message);
                if message == pool::CANCELLED {
                    run.verdict = Verdict::Cancelled;
                }
                apply_soon(
                    &state,
                    Action::Verified {
                        tag,
                        prefix: prefix.clone(),
                        run: Rc::new(run),
                        at_millis: now_millis(),
                    },
                )
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
