//! One pool job a view runs in its [`pool::JobSlot`], and what the view shows of it: the
//! progress while it runs, then its answer or its error. Salvage, the resurrection risks and
//! "Compare replicas" run their jobs through it.

use std::rc::Rc;

use yew::prelude::*;

use crate::pool;
use crate::protocol::{Reply, Request};

/// The job's progress (bytes done, bytes in all) while it runs, then its answer or the
/// worker's message.
pub struct JobRun<T> {
    pub progress: Option<(u64, u64)>,
    pub result: Option<Result<Rc<T>, String>>,
}

impl<T> Default for JobRun<T> {
    fn default() -> Self {
        JobRun {
            progress: None,
            result: None,
        }
    }
}

impl<T> Clone for JobRun<T> {
    fn clone(&self) -> Self {
        JobRun {
            progress: self.progress,
            result: self.result.clone(),
        }
    }
}

impl<T> PartialEq for JobRun<T> {
    /// The same progress and the same answer (the one `Rc`) or message.
    fn eq(&self, other: &Self) -> bool {
        self.progress == other.progress
            && match (&self.result, &other.result) {
                (None, None) => true,
                (Some(Ok(a)), Some(Ok(b))) => Rc::ptr_eq(a, b),
                (Some(Err(a)), Some(Err(b))) => a == b,
                _ => false,
            }
    }
}

/// Submits `request` as `slot`'s job ([`pool::submit_in_slot`]: a job the slot still ran is
/// cancelled) and keeps `run` up to date: progress, then the answer `answer` takes out of the
/// final reply, or the message of a `Failed` one.
pub fn start<T: 'static>(
    slot: &pool::JobSlot,
    run: &UseStateHandle<JobRun<T>>,
    request: Request,
    answer: fn(Reply) -> Option<T>,
) {
    run.set(JobRun {
        progress: Some((0, 1)),
        result: None,
    });
    let run = run.clone();
    pool::submit_in_slot(slot, request, move |reply| match reply {
        Reply::Progress {
            done_bytes,
            total_bytes,
            ..
        } => run.set(JobRun {
            progress: Some((done_bytes, total_bytes)),
            result: None,
        }),
        Reply::Failed { message, .. } => run.set(JobRun {
            progress: None,
            result: Some(Err(message)),
        }),
        reply => {
            if let Some(answer) = answer(reply) {
                run.set(JobRun {
                    progress: None,
                    result: Some(Ok(Rc::new(answer))),
                });
            }
        }
    });
}

/// A Cancel button's callback: cancels `slot`'s running job and leaves it in the slot, so its
/// `Failed("cancelled")` (sent at the worker's next slice) reaches the view.
pub fn cancel<E: 'static>(slot: &pool::JobSlot) -> Callback<E> {
    let slot = slot.clone();
    Callback::from(move |_| {
        let running = *slot.borrow();
        if let Some(running) = running {
            pool::cancel(running);
        }
    })
}
