//! The engine worker: the page's engine work (metadata at load, verification, data pages and
//! "Find", the index listing, the Analytics tab's scan, the small answers) runs here, in a pool
//! of dedicated workers, never on the UI thread. It is a `gloo-worker` [`Worker`] built by Trunk
//! as its own bin (`sstable-worker`, `data-type="worker"`).
//!
//! This side imports the engine and [`crate::protocol`] (with the clock and yields of
//! [`crate::loader`] and the index listing of [`crate::worker::index_listing`]), never the UI's modules.
//! One handler module per request family: [`load`], [`verify`], [`data_pages`], [`index`],
//! [`analytics`], [`answers`], [`mod@bench`], [`table`] (the table-wide jobs).
//! [`analytics`], [`answers`], [`mod@bench`], [`scrub`] (salvage).
//!
//! Files are read with `FileReaderSync`, by the ranges the engine's readers ask for (one
//! `FileSource` driven by the engine's `SyncDriver`; the streaming jobs read Data.db a 1 MiB
//! block at a time through `ReadAhead`, as each read costs about a millisecond whatever its
//! length): memory per worker is one read buffer and one block per streaming source plus the
//! engine's few chunks, and the decoded metadata of the SSTables it used last
//! ([`KEPT_SSTABLES`]). A long job runs in slices; between slices the worker yields to its event
//! loop so a cancel message can arrive.

mod analytics;
mod answers;
mod bench;
pub mod data_pages;
mod files;
mod index;
pub mod index_listing;
mod load;
mod scrub;
mod table;
mod verify;

use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};
use std::rc::Rc;

use gloo_worker::{HandlerId, Registrable, Worker, WorkerScope};
use sstable_engine::component::ComponentType;
use sstable_engine::info::SSTableMetadata;

use crate::protocol::pages::PageMessage;
use crate::protocol::{encode_reply, Encoded, FileRef, JsCodec, Reply, Request};
use files::load_metadata;
pub(crate) use files::FileSource;
pub use files::ReadAhead;
use index_listing::Listing;

/// Work at most this long between yields to the worker's event loop (for cancel messages).
const SLICE_MILLIS: f64 = 50.0;

/// The decoded metadata of this many SSTables is kept (the ones used last): a later job on one
/// of them decodes nothing.
pub const KEPT_SSTABLES: usize = 4;

/// Sends `reply` to the bridge `id` ([`encode_reply`]).
fn respond(scope: &WorkerScope<EngineWorker>, id: HandlerId, reply: Reply) {
    scope.respond(id, encode_reply(&reply));
}

/// The worker.
pub struct EngineWorker {
    cancelled: Rc<RefCell<HashSet<u64>>>,
    /// The SSTables loaded or read last ([`KEPT_SSTABLES`]).
    kept: Kept,
    /// The last finished analytics scan, by the identity of its files.
    last_scan: Rc<RefCell<analytics::KeptScan>>,
    /// The index listing paged last (page starts seen), by the identity of its files.
    last_listing: RefCell<Option<(String, Listing)>>,
}

/// The decoded metadata of the SSTables used last, the newest first.
type Kept = Rc<RefCell<VecDeque<Rc<Loaded>>>>;

/// An SSTable's decoded metadata with its files' handles, and what identifies those files.
pub(crate) struct Loaded {
    identity: String,
    metadata: SSTableMetadata,
    handles: Vec<(ComponentType, web_sys::File)>,
}

/// What a running job sees: where its progress goes and whether it was cancelled.
#[derive(Clone)]
struct JobContext {
    scope: WorkerScope<EngineWorker>,
    id: HandlerId,
    job: u64,
    cancelled: Rc<RefCell<HashSet<u64>>>,
}

impl JobContext {
    fn respond(&self, reply: Reply) {
        respond(&self.scope, self.id, reply);
    }

    fn is_cancelled(&self) -> bool {
        self.cancelled.borrow().contains(&self.job)
    }

    /// Reports the job's progress ([`Reply::Progress`]).
    fn progress(&self, done_bytes: u64, total_bytes: u64) {
        self.respond(Reply::Progress {
            job: self.job,
            done_bytes,
            total_bytes,
        });
    }
}

impl EngineWorker {
    /// Runs job `job` on the worker's event loop: `work` gets the job's [`JobContext`]; its
    /// reply (or its error as [`Reply::Failed`]) is sent when it ends, and the job's cancel
    /// mark is dropped.
    fn spawn_job<F, Fut>(&self, scope: &WorkerScope<Self>, id: HandlerId, job: u64, work: F)
    where
        F: FnOnce(JobContext) -> Fut + 'static,
        Fut: std::future::Future<Output = Result<Reply, String>> + 'static,
    {
        let ctx = JobContext {
            scope: scope.clone(),
            id,
            job,
            cancelled: self.cancelled.clone(),
        };
        wasm_bindgen_futures::spawn_local(async move {
            let reply = work(ctx.clone())
                .await
                .unwrap_or_else(|message| Reply::Failed { job, message });
            ctx.cancelled.borrow_mut().remove(&job);
            ctx.respond(reply);
        });
    }
}

impl Worker for EngineWorker {
    type Message = ();
    type Input = Request;
    type Output = Encoded;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        EngineWorker {
            cancelled: Rc::default(),
            kept: Rc::default(),
            last_scan: Rc::default(),
            last_listing: RefCell::default(),
        }
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _msg: ()) {}

    fn connected(&mut self, scope: &WorkerScope<Self>, id: HandlerId) {
        let scope = scope.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let lock = crate::protocol::liveness::hold_for_life().await;
            let module = wasm_bindgen::module();
            respond(&scope, id, Reply::Ready { lock, module });
        });
    }

    fn received(&mut self, scope: &WorkerScope<Self>, msg: Request, id: HandlerId) {
        let kept = &self.kept;
        let reply = match msg {
            Request::Cancel { job } => {
                self.cancelled.borrow_mut().insert(job);
                return;
            }
            Request::Load {
                job,
                sstable,
                files,
            } => load::load(kept, job, &sstable, &files),
            Request::LoadSample { job } => load::sample(job),
            Request::ScanBench { job, files, runs } => bench::reply(job, &files, runs),
            Request::Bloom { job, files, key } => answers::bloom(kept, job, &files, &key),
            Request::Schema { job, files, text } => answers::schema(kept, job, &files, &text),
            Request::Table {
                job,
                sstables,
                gc_grace_secs,
            } => answers::table(job, &sstables, gc_grace_secs),
            Request::IndexPage {
                job,
                files,
                page,
                export,
            } => index::page(kept, &self.last_listing, job, &files, page, export),
            Request::IndexBlocks { job, files, offset } => index::blocks(kept, job, &files, offset),
            Request::VerifyCombine {
                job,
                worker,
                sstable,
                files,
                decompress,
                outcomes,
                read_size_bytes,
            } => match cached_metadata(kept, &files).and_then(|l| {
                verify::combine(&sstable, &l, decompress, read_size_bytes, &outcomes, worker)
            }) {
                Ok(run) => Reply::Verified {
                    job,
                    run: Box::new(run),
                },
                Err(message) => Reply::Failed { job, message },
            },
            Request::DataPage {
                job,
                sstable,
                files,
                page,
            } => {
                let kept = kept.clone();
                self.spawn_job(scope, id, job, move |ctx| async move {
                    let loaded = cached_metadata(&kept, &files)?;
                    let page =
                        data_pages::page(&loaded, &sstable, &page, &|| ctx.is_cancelled()).await?;
                    Ok(Reply::DataPage {
                        job,
                        page: Box::new(PageMessage {
                            page,
                            parse_millis: 0.0,
                        }),
                    })
                });
                return;
            }
            Request::Analytics {
                job,
                sstable,
                files,
                gc_grace_secs,
                step,
            } => {
                let kept = kept.clone();
                let scans = self.last_scan.clone();
                self.spawn_job(scope, id, job, move |ctx| async move {
                    let loaded = cached_metadata(&kept, &files)?;
                    let progress = |done_bytes, total_bytes| ctx.progress(done_bytes, total_bytes);
                    let scan = analytics::run(
                        &loaded,
                        &scans,
                        &sstable,
                        gc_grace_secs,
                        step,
                        &progress,
                        &|| ctx.is_cancelled(),
                    )
                    .await?;
                    Ok(Reply::Analytics {
                        job,
                        scan: Box::new(scan),
                    })
                });
                return;
            }
            Request::Zombies {
                job,
                sstables,
                create_table,
                gc_grace_secs,
                now_secs,
            } => {
                self.spawn_job(scope, id, job, move |ctx| async move {
                    let progress = |done_bytes, total_bytes| ctx.progress(done_bytes, total_bytes);
                    let report = table::zombies(
                        &sstables,
                        create_table.as_deref(),
                        gc_grace_secs,
                        now_secs,
                        &progress,
                        &|| ctx.is_cancelled(),
                    )
                    .await?;
                    Ok(Reply::Zombies {
                        job,
                        report: Box::new(report),
                    })
                });
                return;
            }
            Request::Replicas {
                job,
                replicas,
                create_table,
                gc_grace_secs,
                now_secs,
                focus,
            } => {
                self.spawn_job(scope, id, job, move |ctx| async move {
                    let progress = |done_bytes, total_bytes| ctx.progress(done_bytes, total_bytes);
                    let report = table::replicas(
                        &replicas,
                        create_table.as_deref(),
                        gc_grace_secs,
                        now_secs,
                        focus.as_ref(),
                        &progress,
                        &|| ctx.is_cancelled(),
                    )
                    .await?;
                    Ok(Reply::Replicas {
                        job,
                        report: Box::new(report),
                    })
                });
                return;
            }
            Request::MergedPage {
                job,
                sstables,
                page,
            } => {
                self.spawn_job(scope, id, job, move |ctx| async move {
                    let progress = |done_bytes, total_bytes| ctx.progress(done_bytes, total_bytes);
                    let page =
                        table::merged_page(&sstables, &page, &progress, &|| ctx.is_cancelled())
                            .await?;
                    Ok(Reply::MergedPage {
                        job,
                        page: Box::new(crate::protocol::table::MergedPageMessage(page)),
                    })
                });
                return;
            }
            Request::Verify {
                job,
                worker,
                sstable,
                files,
                decompress,
                baseline,
                read_size_bytes,
            } => {
                let args = verify::VerifyJob {
                    job,
                    worker,
                    sstable,
                    decompress,
                    baseline,
                    read_size_bytes,
                };
                let kept = kept.clone();
                self.spawn_job(scope, id, job, move |ctx| async move {
                    let loaded = cached_metadata(&kept, &files)?;
                    let run = verify::verify(&args, &loaded, &|reply| ctx.respond(reply), &|| {
                        ctx.is_cancelled()
                    })
                    .await?;
                    Ok(Reply::Verified {
                        job,
                        run: Box::new(run),
                    })
                });
                return;
            }
            Request::Salvage {
                job,
                files,
                mode,
                version,
            } => {
                let kept = kept.clone();
                self.spawn_job(scope, id, job, move |ctx| async move {
                    let loaded = cached_metadata(&kept, &files)?;
                    let progress = |done_bytes, total_bytes| ctx.progress(done_bytes, total_bytes);
                    let salvage =
                        scrub::salvage(&loaded, &mode, &version, &progress, &|| ctx.is_cancelled())
                            .await?;
                    Ok(Reply::Salvaged {
                        job,
                        salvage: Box::new(salvage),
                    })
                });
                return;
            }
            Request::VerifySplit {
                job,
                worker,
                sstable,
                files,
                decompress,
                baseline,
                read_size_bytes,
                split,
            } => {
                let args = verify::VerifyJob {
                    job,
                    worker,
                    sstable,
                    decompress,
                    baseline,
                    read_size_bytes,
                };
                let kept = kept.clone();
                self.spawn_job(scope, id, job, move |ctx| async move {
                    let loaded = cached_metadata(&kept, &files)?;
                    verify::verify_split(
                        &args,
                        &loaded,
                        split,
                        &|reply| ctx.respond(reply),
                        &|| ctx.is_cancelled(),
                    )
                    .await
                });
                return;
            }
        };
        respond(scope, id, reply);
    }
}

/// Registers the worker (the `sstable-worker` bin's `main`).
pub fn register() {
    // The sample first, in the worker index.html started before the page's WebAssembly (it sets
    // [`load::DECODE_SAMPLE_AT_START`]): the page asks for it as soon as its own WebAssembly runs, and
    // the answer is ready, or nearly (issue #12). The pool's other workers decode it when asked.
    let at_start = js_sys::Reflect::get(&js_sys::global(), &load::DECODE_SAMPLE_AT_START.into())
        .is_ok_and(|v| v.is_truthy());
    if at_start {
        load::decode_sample_now();
    }
    EngineWorker::registrar().encoding::<JsCodec>().register();
}

/// What identifies a set of files: paths, sizes and modification times.
fn identity(files: &[FileRef]) -> String {
    files
        .iter()
        .map(|f| {
            format!(
                "{}\u{0}{}\u{0}{}",
                f.path,
                f.file.size(),
                f.file.last_modified()
            )
        })
        .collect::<Vec<_>>()
        .join("\u{1}")
}

/// The metadata of the SSTable made of `files`: kept from an earlier job, else decoded now and
/// kept ([`KEPT_SSTABLES`], the oldest dropped).
fn cached_metadata(kept: &Kept, files: &[FileRef]) -> Result<Rc<Loaded>, String> {
    let id = identity(files);
    let mut kept = kept.borrow_mut();
    if let Some(at) = kept.iter().position(|l| l.identity == id) {
        let loaded = kept.remove(at).ok_or("the kept metadata moved")?;
        kept.push_front(loaded.clone());
        return Ok(loaded);
    }
    let (metadata, handles) = load_metadata(files)?;
    let loaded = Rc::new(Loaded {
        identity: id,
        metadata,
        handles,
    });
    kept.push_front(loaded.clone());
    kept.truncate(KEPT_SSTABLES);
    Ok(loaded)
}
