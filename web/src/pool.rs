//! The pool of engine workers ([`crate::protocol::Remote`], gloo-worker bridges): jobs queue
//! here and go to the first idle worker. Its size is `navigator.hardwareConcurrency`, clamped to
//! 1..=8, and can be set ([`set_size`]). The UI thread only routes messages.
//!
//! A worker fetches its WebAssembly when it starts, under the page's Content-Security-Policy: so
//! the pool starts its workers first ([`warm_up`]: one at once — the one `index.html` started
//! before the page's own WebAssembly, adopted here ([`ADOPT_EARLY_WORKER`]) — the rest once it
//! has answered its first job, the sample's metadata) and forbids connections
//! ([`crate::loader::forbid_connections`]) once all have loaded (or after
//! [`FORBID_AFTER_MILLIS`] at the latest). Later the pool can shrink and grow back, but not
//! beyond the workers started then.
//!
//! A worker that dies or fails ends only its job: the pool hears its `error` event (a crash, a
//! message it could not decode) and, through the Web Lock it holds for its life
//! ([`crate::protocol::liveness`]), that it closed or was killed. Its job's handler then hears
//! [`Reply::Failed`] ("the worker stopped while …") and a new worker takes its place, started
//! from the `WebAssembly.Module` the first worker sent (connections may be forbidden by then).

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use gloo_worker::{Spawnable, WorkerBridge};

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::protocol::{decode_reply, Encoded, JsCodec, Remote, Reply, Request};

pub use crate::protocol::MAX_WORKERS;
/// Where Trunk puts the worker's JavaScript (`sstable-worker` bin, `data-type="worker"`).
const WORKER_SCRIPT: &str = "./sstable-worker.js";

/// What hears a job's replies.
pub type Handler = Rc<dyn Fn(Reply)>;

struct Slot {
    bridge: WorkerBridge<Remote>,
    /// The native worker, when the pool made it (to hear its `error` events and terminate it).
    worker: Option<web_sys::Worker>,
    /// Tells this slot's worker from the one before it at the same index.
    generation: u64,
    /// The job it runs, and what that job does ([`Request::doing`]).
    job: Option<(u64, &'static str)>,
    /// Its worker has sent `Ready`.
    ready: bool,
    /// Its worker is gone and was not replaced: no job goes to it.
    dead: bool,
    _on_error: Option<Closure<dyn FnMut(web_sys::ErrorEvent)>>,
}

impl Slot {
    fn runs(&self, job: u64) -> bool {
        self.job.is_some_and(|(j, _)| j == job)
    }

    fn is_idle(&self) -> bool {
        self.job.is_none() && !self.dead
    }
}

#[derive(Default)]
struct Pool {
    slots: Vec<Slot>,
    /// Workers that have loaded.
    ready: usize,
    /// Workers [`warm_up`] starts (the first at once, the others once it has answered a job).
    started: usize,
    /// The rest of the pool is started or will be ([`start_rest`]).
    rest_scheduled: bool,
    /// Connections are forbidden: no new worker could load.
    forbidden: bool,
    size: usize,
    read_size_bytes: u64,
    next_job: u64,
    queue: VecDeque<(u64, Request)>,
    handlers: HashMap<u64, Handler>,
    /// Jobs cancelled with another (the parts of one split verification, by its first part).
    linked: HashMap<u64, Vec<u64>>,
    /// Jobs cancelled that others may still be [`link`]ed to (until [`unlink`]): a job linked
    /// to one of them is cancelled at once.
    cancelled: std::collections::HashSet<u64>,
    /// The workers' compiled WebAssembly (from the first `Ready`): replacements start from it.
    module: Option<JsValue>,
    /// The last slot generation given.
    generations: u64,
}

thread_local! {
    static POOL: RefCell<Pool> = RefCell::new(Pool {
        size: default_size(),
        read_size_bytes: crate::protocol::DEFAULT_READ_BYTES,
        ..Pool::default()
    });
}

/// `navigator.hardwareConcurrency`, clamped to 1..=[`MAX_WORKERS`].
pub fn default_size() -> usize {
    let cores = web_sys::window()
        .map(|w| w.navigator().hardware_concurrency())
        .unwrap_or(1.0);
    (cores as usize).clamp(1, MAX_WORKERS)
}

/// How many workers the pool uses.
pub fn size() -> usize {
    POOL.with(|p| p.borrow().size)
}

/// Sets how many workers the pool uses (clamped to 1..=[`MAX_WORKERS`], and to the workers
/// started before connections were forbidden).
pub fn set_size(n: usize) {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        let mut size = n.clamp(1, MAX_WORKERS);
        if p.forbidden {
            size = size.min(p.slots.len().max(1));
        }
        p.size = size;
    });
    dispatch();
}

/// At the latest this long after [`warm_up`], connections are forbidden even if a worker has not
/// loaded.
pub const FORBID_AFTER_MILLIS: i32 = 10_000;

/// Forbids connections (once).
fn forbid_connections() {
    let first = POOL.with(|p| {
        let mut p = p.borrow_mut();
        !std::mem::replace(&mut p.forbidden, true)
    });
    if first {
        crate::loader::forbid_connections();
    }
}

/// Bytes per `FileReaderSync` read in the workers.
pub fn read_size_bytes() -> u64 {
    POOL.with(|p| p.borrow().read_size_bytes)
}

/// Sets the bytes per read (at least 64 KiB).
pub fn set_read_size_bytes(n: u64) {
    POOL.with(|p| p.borrow_mut().read_size_bytes = n.max(64 << 10));
}

/// Starts the workers now (they load their WebAssembly in the background); connections are
/// forbidden once they have.
pub fn warm_up() {
    // One worker first: the page's first job (the sample's metadata) goes to it, and neither
    // does it share the CPU with its siblings compiling the same WebAssembly, nor does its job;
    // the rest start a little after it has answered ([`on_reply`], [`start_rest`]), or when
    // jobs wait for them ([`dispatch`]).
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.started = p.size;
        if p.slots.is_empty() {
            let slot = p.spawn(0);
            p.slots.push(slot);
        }
    });
    let later = wasm_bindgen::closure::Closure::once_into_js(forbid_connections);
    let scheduled = web_sys::window().map(|w| {
        w.set_timeout_with_callback_and_timeout_and_arguments_0(
            wasm_bindgen::JsCast::unchecked_ref(&later),
            FORBID_AFTER_MILLIS,
        )
    });
    if !matches!(scheduled, Some(Ok(_))) {
        forbid_connections();
    }
}

/// The function `index.html`'s first script defines when it has started a worker (before the
/// page's WebAssembly loads): called with a function that spawns one gloo-worker bridge, it has
/// that spawn's `new Worker` return its worker, then replays to the bridge what the worker posted
/// before (its "loaded" message). It works once (it removes itself).
const ADOPT_EARLY_WORKER: &str = "sstableAdoptEarlyWorker";

/// The function `index.html`'s first script defines: called with a worker and a function that
/// spawns one gloo-worker bridge, it has that spawn's `new Worker` return the worker.
const SPAWN_WITH: &str = "sstableSpawnWith";

impl Pool {
    /// A new slot at `index`, its worker started: the one `index.html` started if not adopted
    /// yet; else one the pool makes (from [`Pool::module`] when it has it).
    fn spawn(&mut self, index: usize) -> Slot {
        self.generations += 1;
        let generation = self.generations;
        let (bridge, worker) = match adopt_early_worker(index, generation) {
            Some(adopted) => adopted,
            None => match self
                .module
                .as_ref()
                .map_or_else(|| native_worker(None), |module| native_worker(Some(module)))
            {
                Some(worker) => match spawn_with(&worker, index, generation) {
                    Some(bridge) => (bridge, Some(worker)),
                    None => {
                        worker.terminate();
                        (spawner(index, generation).spawn(WORKER_SCRIPT), None)
                    }
                },
                None => (spawner(index, generation).spawn(WORKER_SCRIPT), None),
            },
        };
        let on_error = worker.as_ref().map(|worker| {
            let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(
                move |event: web_sys::ErrorEvent| {
                    // Handled here: its message goes on the job's card.
                    event.prevent_default();
                    let cause = format!("it failed: {}", event.message());
                    wasm_bindgen_futures::spawn_local(async move {
                        worker_stopped(index, generation, &cause)
                    });
                },
            );
            let _ =
                worker.add_event_listener_with_callback("error", on_error.as_ref().unchecked_ref());
            on_error
        });
        Slot {
            bridge,
            worker,
            generation,
            job: None,
            ready: false,
            dead: false,
            _on_error: on_error,
        }
    }
}

/// A worker running the engine worker's JavaScript, its WebAssembly fetched (as gloo-worker's
/// spawner does) or, with `module`, instantiated from it (posted as its first message).
fn native_worker(module: Option<&JsValue>) -> Option<web_sys::Worker> {
    let href = web_sys::window()?.location().href().ok()?;
    let js = web_sys::Url::new_with_base(WORKER_SCRIPT, &href)
        .ok()?
        .href();
    let source = match module {
        None => format!(
            r#"importScripts("{js}");wasm_bindgen("{}");"#,
            js.replace(".js", "_bg.wasm")
        ),
        Some(_) => format!(
            r#"importScripts("{js}");self.onmessage=function(e){{self.onmessage=null;wasm_bindgen({{module_or_path:e.data}});}};"#
        ),
    };
    let parts = js_sys::Array::of1(&source.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/javascript");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
    let worker = web_sys::Worker::new(&url).ok();
    let _ = web_sys::Url::revoke_object_url(&url);
    let worker = worker?;
    if let Some(module) = module {
        worker.post_message(module).ok()?;
    }
    Some(worker)
}

/// A gloo-worker bridge over `worker` (through `index.html`'s [`SPAWN_WITH`]).
fn spawn_with(
    worker: &web_sys::Worker,
    index: usize,
    generation: u64,
) -> Option<WorkerBridge<Remote>> {
    let window = web_sys::window()?;
    let spawn_with = js_sys::Reflect::get(&window, &SPAWN_WITH.into())
        .ok()?
        .dyn_into::<js_sys::Function>()
        .ok()?;
    let bridge: Rc<RefCell<Option<WorkerBridge<Remote>>>> = Rc::default();
    let spawn = {
        let bridge = bridge.clone();
        // The script URL is not used: `new Worker` answers `worker`.
        Closure::once(move || {
            *bridge.borrow_mut() =
                Some(spawner(index, generation).spawn_with_loader(WORKER_SCRIPT));
        })
    };
    let called = spawn_with.call2(&JsValue::NULL, worker, spawn.as_ref());
    let spawned = bridge.borrow_mut().take();
    called.ok().and(spawned)
}

/// A spawner of the worker at `index` of the pool, its replies going to [`on_reply`].
fn spawner(index: usize, generation: u64) -> gloo_worker::WorkerSpawner<Remote, JsCodec> {
    let mut spawner = Remote::spawner();
    let mut spawner = spawner.encoding::<JsCodec>();
    spawner.callback(move |reply: Encoded| on_reply(index, generation, reply));
    spawner
}

/// A bridge to the worker `index.html` started, and that worker, if it did and it was not
/// adopted yet.
fn adopt_early_worker(
    index: usize,
    generation: u64,
) -> Option<(WorkerBridge<Remote>, Option<web_sys::Worker>)> {
    let window = web_sys::window()?;
    let adopt = js_sys::Reflect::get(&window, &ADOPT_EARLY_WORKER.into())
        .ok()?
        .dyn_into::<js_sys::Function>()
        .ok()?;
    let bridge: Rc<RefCell<Option<WorkerBridge<Remote>>>> = Rc::default();
    let spawn = {
        let bridge = bridge.clone();
        // The script URL is not used: the adopted worker already runs it.
        Closure::once(move || {
            *bridge.borrow_mut() =
                Some(spawner(index, generation).spawn_with_loader(WORKER_SCRIPT));
        })
    };
    let called = adopt.call1(&JsValue::NULL, spawn.as_ref());
    let adopted = bridge.borrow_mut().take();
    let worker = called.ok()?.dyn_into::<web_sys::Worker>().ok();
    adopted.map(|bridge| (bridge, worker))
}

/// The worker of slot `index` (if still of `generation`) is gone (`cause`: why): its job's
/// handler hears [`Reply::Failed`], and a new worker takes its place (when one can load: from
/// the kept module, or while connections are allowed).
fn worker_stopped(index: usize, generation: u64, cause: &str) {
    let failed = POOL.with(|p| {
        let mut p = p.borrow_mut();
        let p = &mut *p;
        let slot = p
            .slots
            .get_mut(index)
            .filter(|s| s.generation == generation && !s.dead)?;
        if let Some(worker) = &slot.worker {
            worker.terminate();
        }
        let job = slot.job.take();
        // One that never loaded is not replaced (its replacement would fail the same way).
        let replaceable = slot.ready && (p.module.is_some() || !p.forbidden);
        if replaceable {
            let fresh = p.spawn(index);
            // The old bridge is dropped here (its Destroy goes nowhere).
            drop(p.slots.get_mut(index).map(|s| std::mem::replace(s, fresh)));
        } else if let Some(slot) = p.slots.get_mut(index) {
            slot.dead = true;
        }
        let next = if replaceable {
            "another worker took its place"
        } else {
            "no worker could replace it"
        };
        job.and_then(|(job, doing)| {
            let handler = p.handlers.remove(&job)?;
            let message = format!("the worker stopped while {doing} ({cause}); {next}");
            Some((handler, Reply::Failed { job, message }))
        })
    });
    if let Some((handler, reply)) = failed {
        handler(reply);
    }
    fail_if_no_worker();
    dispatch();
}

/// When every worker is gone and none can replace them, queued jobs fail (never wait forever).
fn fail_if_no_worker() {
    let failed: Vec<(Handler, u64)> = POOL.with(|p| {
        let mut p = p.borrow_mut();
        let size = p.size;
        let any_alive = (0..size).any(|i| p.slots.get(i).is_none_or(|s| !s.dead));
        if any_alive {
            return Vec::new();
        }
        let queued: Vec<u64> = p.queue.drain(..).map(|(job, _)| job).collect();
        queued
            .into_iter()
            .filter_map(|job| p.handlers.remove(&job).map(|h| (h, job)))
            .collect()
    });
    for (handler, job) in failed {
        handler(Reply::Failed {
            job,
            message: "every worker stopped and none could replace them".to_owned(),
        });
    }
}

/// Queues a job; `request`'s job id and worker index are filled in here. Returns the job id.
pub fn submit(request: Request, handler: Handler) -> u64 {
    let job = POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.next_job = p.next_job.wrapping_add(1);
        let job = p.next_job;
        p.handlers.insert(job, handler);
        p.queue.push_back((job, request));
        job
    });
    dispatch();
    job
}

/// The one job a view runs at a time (its id while it runs).
pub type JobSlot = Rc<RefCell<Option<u64>>>;

/// Submits `request` as `slot`'s job: cancels the job the slot held, and hands `on_reply` this
/// job's replies only while it is still the slot's (a final reply empties the slot first), so a
/// replaced job's late replies are dropped.
pub fn submit_in_slot(slot: &JobSlot, request: Request, on_reply: impl Fn(Reply) + 'static) {
    cancel_slot(slot);
    let mine = Rc::new(std::cell::Cell::new(0u64));
    let handler: Handler = {
        let slot = slot.clone();
        let mine = mine.clone();
        Rc::new(move |reply: Reply| {
            if *slot.borrow() != Some(mine.get()) {
                return;
            }
            if reply.is_final() {
                *slot.borrow_mut() = None;
            }
            on_reply(reply);
        })
    };
    mine.set(submit(request, handler));
    *slot.borrow_mut() = Some(mine.get());
}

/// Cancels `slot`'s job, if one runs, and the jobs linked to it, and empties the slot (its
/// handlers drop every later reply, so no job is linked to it later).
pub fn cancel_slot(slot: &JobSlot) {
    let running = slot.borrow_mut().take();
    if let Some(running) = running {
        cancel(running);
        unlink(running);
    }
}

/// Makes [`cancel`]`(job)` also cancel `other` (until [`unlink`]); when `job` was cancelled
/// already (a split scan's plan cancelled before its ranges were queued), `other` is cancelled
/// now.
pub fn link(job: u64, other: u64) {
    let cancelled = POOL.with(|p| {
        let mut p = p.borrow_mut();
        if p.cancelled.contains(&job) {
            return true;
        }
        p.linked.entry(job).or_default().push(other);
        false
    });
    if cancelled {
        cancel_one(other);
    }
}

/// Forgets the jobs linked to `job` (and that it was cancelled).
pub fn unlink(job: u64) {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.linked.remove(&job);
        p.cancelled.remove(&job);
    });
}

/// Cancels a job and the jobs [`link`]ed to it (or linked later, until [`unlink`]): each is
/// dropped if still queued (its handler hears `Failed` with [`CANCELLED`]), else its worker
/// stops at its next slice.
pub fn cancel(job: u64) {
    let linked = POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.cancelled.insert(job);
        p.linked.remove(&job).unwrap_or_default()
    });
    for other in linked {
        cancel_one(other);
    }
    cancel_one(job);
}

fn cancel_one(job: u64) {
    let dropped = POOL.with(|p| {
        let mut p = p.borrow_mut();
        let before = p.queue.len();
        p.queue.retain(|(j, _)| *j != job);
        if p.queue.len() < before {
            return p.handlers.remove(&job);
        }
        if let Some(slot) = p.slots.iter().find(|s| s.runs(job)) {
            slot.bridge.send(Request::Cancel { job });
        }
        None
    });
    if let Some(handler) = dropped {
        handler(Reply::Failed {
            job,
            message: CANCELLED.to_owned(),
        });
    }
}

pub use crate::protocol::CANCELLED;

/// Gives queued jobs to idle workers.
fn dispatch() {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        loop {
            let size = p.size;
            let idle = (0..size).find(|&i| p.slots.get(i).is_none_or(Slot::is_idle));
            let Some(index) = idle else { break };
            let Some((job, mut request)) = p.queue.pop_front() else {
                break;
            };
            while p.slots.len() <= index {
                let n = p.slots.len();
                let slot = p.spawn(n);
                p.slots.push(slot);
            }
            request.set_job(job);
            let doing = request.doing();
            if let Request::Verify {
                worker,
                read_size_bytes,
                ..
            }
            | Request::VerifySplit {
                worker,
                read_size_bytes,
                ..
            }
            | Request::VerifyCombine {
                worker,
                read_size_bytes,
                ..
            } = &mut request
            {
                *worker = index;
                if *read_size_bytes == 0 {
                    *read_size_bytes = p.read_size_bytes;
                }
            }
            if let Some(slot) = p.slots.get_mut(index) {
                slot.job = Some((job, doing));
                slot.bridge.send(request);
            }
        }
    });
}

fn on_reply(index: usize, generation: u64, encoded: Encoded) {
    let current = POOL.with(|p| {
        p.borrow()
            .slots
            .get(index)
            .is_none_or(|s| s.generation == generation)
    });
    if !current {
        // A replaced worker's late message.
        return;
    }
    let reply = match decode_reply(encoded) {
        Ok(reply) => reply,
        Err((job, message)) => match job {
            Some(job) => Reply::Failed { job, message },
            None => {
                web_sys::console::error_1(&message.into());
                return;
            }
        },
    };
    if let Reply::Ready { lock, module } = reply {
        let all = POOL.with(|p| {
            let mut p = p.borrow_mut();
            if p.module.is_none() && module.is_instance_of::<js_sys::WebAssembly::Module>() {
                p.module = Some(module);
            }
            if let Some(slot) = p.slots.get_mut(index) {
                slot.ready = true;
            }
            p.ready += 1;
            p.ready >= p.started.max(p.slots.len())
        });
        if let Some(lock) = lock {
            crate::protocol::liveness::when_released(&lock, move || {
                worker_stopped(index, generation, "it closed or was killed")
            });
        }
        if all {
            forbid_connections();
        }
        return;
    }
    let job = reply.job();
    let schedule_rest = reply.is_final()
        && POOL.with(|p| !std::mem::replace(&mut p.borrow_mut().rest_scheduled, true));
    if schedule_rest {
        // The first answer is in; the page renders it before the rest of the pool starts.
        let later = wasm_bindgen::closure::Closure::once_into_js(start_rest);
        let scheduled = web_sys::window().map(|w| {
            w.set_timeout_with_callback_and_timeout_and_arguments_0(
                wasm_bindgen::JsCast::unchecked_ref(&later),
                REST_AFTER_MILLIS,
            )
        });
        if !matches!(scheduled, Some(Ok(_))) {
            start_rest();
        }
    }
    let handler = POOL.with(|p| {
        let mut p = p.borrow_mut();
        if reply.is_final() {
            if let Some(slot) = p.slots.get_mut(index) {
                if slot.runs(job) {
                    slot.job = None;
                }
            }
            p.handlers.remove(&job)
        } else {
            p.handlers.get(&job).cloned()
        }
    });
    if let Some(handler) = handler {
        handler(reply);
    }
    // Outside the bridge's own callback borrow.
    wasm_bindgen_futures::spawn_local(async { dispatch() });
}

/// The rest of the pool starts this long after the first answer (of the first worker: the
/// sample's metadata), so that its workers' start does not compete with rendering that answer.
const REST_AFTER_MILLIS: i32 = 300;

/// Starts the workers [`warm_up`] counted that are not running yet.
fn start_rest() {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        while p.slots.len() < p.started {
            let index = p.slots.len();
            let slot = p.spawn(index);
            p.slots.push(slot);
        }
    });
}

/// Queues `request` now; the future resolves to the job's final reply (its progress reports
/// are dropped): for the short jobs a view awaits (loading metadata, the table view).
pub fn ask(request: Request) -> impl std::future::Future<Output = Reply> {
    let answer: Rc<RefCell<Option<Reply>>> = Rc::default();
    let mut resolve = None;
    let promise = js_sys::Promise::new(&mut |ok, _| resolve = Some(ok));
    let handler: Handler = {
        let answer = answer.clone();
        Rc::new(move |reply: Reply| {
            if reply.is_final() {
                *answer.borrow_mut() = Some(reply);
                if let Some(ok) = &resolve {
                    let _ = ok.call0(&wasm_bindgen::JsValue::NULL);
                }
            }
        })
    };
    let job = submit(request, handler);
    async move {
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
        let reply = answer.borrow_mut().take();
        reply.unwrap_or(Reply::Failed {
            job,
            message: "the worker did not answer".to_owned(),
        })
    }
}
