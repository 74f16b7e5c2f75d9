//! The engine worker: the page's long engine work (verification, data pages and "Find", the
//! Analytics tab's partitions scan) runs here, in a pool of
//! dedicated workers ([`crate::pool`]), never on the UI thread. It is a `gloo-worker` [`Worker`]
//! built by Trunk as its own bin (`sstable-worker`, `data-type="worker"`).
//!
//! Messages cross as JavaScript values ([`JsCodec`]: serde-wasm-bindgen), so `File` handles travel
//! by structured clone and are read here with `FileReaderSync`, by the ranges the engine's readers
//! ask for (one [`RangeSource`] driven by the engine's [`SyncDriver`]): memory per worker is one
//! read buffer plus the engine's few chunks. A job runs in slices; between slices the worker yields to its event loop so a
//! cancel message can arrive.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use gloo_worker::{Codec, HandlerId, Registrable, Worker, WorkerScope};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sstable_engine::component::ComponentType;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::load::MetadataLoader;
use sstable_engine::range::{ByteRange, RangeReader, RangeSource, SyncDriver};
use sstable_engine::sstable_set::group_files;
use sstable_engine::verify::{
    DataSplit, SplitOutcome, Verifier, VerifyOptions, VerifyRun as EngineRun,
};
use wasm_bindgen::{JsCast, JsValue};

use crate::analytics_scan::{self, AnalyticsScan, ScanState};
use crate::answers::{self, BloomAnswer, SchemaAnswer, TableView};
use crate::data_page::{decode_page, table_names, DataPage, PageMessage, PageRequest};
use crate::index_listing::{self, BlockRow, IndexPage, Listing};
use crate::loader;
use crate::state::{SSTableView, VerifyRun, WorkerTiming};
use crate::summary::SSTableSummary;

/// Default bytes per `FileReaderSync` read.
pub const DEFAULT_READ_BYTES: u64 = 16 << 20;
/// Work at most this long between yields to the worker's event loop (for cancel messages).
const SLICE_MILLIS: f64 = 50.0;

/// Worker messages as JavaScript values (serde-wasm-bindgen): `File` handles pass through
/// unchanged (`serde_wasm_bindgen::preserve`). The protocol's one rule for 64-bit integers:
/// every `i64`/`u64` crosses as a BigInt, so values past 2^53 (Long.MAX_VALUE as a live
/// deletion time or a maximum timestamp) arrive exactly; as JavaScript numbers they made the
/// encoder throw and the reply never came.
#[derive(Debug)]
pub struct JsCodec;

impl Codec for JsCodec {
    fn encode<I: Serialize>(input: I) -> JsValue {
        input
            .serialize(
                &serde_wasm_bindgen::Serializer::new()
                    .serialize_large_number_types_as_bigints(true),
            )
            .unwrap_or_else(|e| wasm_bindgen::throw_str(&format!("worker message: {e}")))
    }

    fn decode<O: DeserializeOwned>(input: JsValue) -> O {
        serde_wasm_bindgen::from_value(input)
            .unwrap_or_else(|e| wasm_bindgen::throw_str(&format!("worker message: {e}")))
    }
}

/// A reply as the worker encoded it ([`encode_reply`]): gloo-worker's envelope carries the
/// JavaScript value as is, and the pool decodes it ([`decode_reply`]). Encoding here, once, lets
/// a reply that cannot be encoded become a [`Reply::Failed`] of its job instead of silence.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Encoded(#[serde(with = "serde_wasm_bindgen::preserve")] pub JsValue);

/// `value` as a JavaScript value by the protocol's rule (64-bit integers as BigInts).
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, serde_wasm_bindgen::Error> {
    value.serialize(
        &serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true),
    )
}

/// Encodes `reply`; one that cannot be encoded becomes its job's [`Reply::Failed`] naming why.
pub fn encode_reply(reply: &Reply) -> Encoded {
    match to_js(reply) {
        Ok(value) => Encoded(value),
        Err(e) => {
            let failed = Reply::Failed {
                job: reply.job(),
                message: format!("the worker could not send its answer: {e}"),
            };
            Encoded(to_js(&failed).unwrap_or(JsValue::NULL))
        }
    }
}

/// Decodes a worker's reply; when it cannot be decoded, the error names the job it was for
/// (read from the value, when it has one).
pub fn decode_reply(encoded: Encoded) -> Result<Reply, (Option<u64>, String)> {
    serde_wasm_bindgen::from_value(encoded.0.clone()).map_err(|e| {
        // An externally tagged variant: `{ Variant: { job, .. } }`.
        let job = js_sys::Object::values(&js_sys::Object::from(encoded.0))
            .get(0)
            .dyn_ref::<js_sys::Object>()
            .and_then(|fields| js_sys::Reflect::get(fields, &"job".into()).ok())
            .and_then(|job| u64::try_from(job).ok());
        (
            job,
            format!("the page could not read the worker's answer: {e}"),
        )
    })
}

/// One file of an SSTable, by path, with its browser handle.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRef {
    pub path: String,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub file: web_sys::File,
}

impl FileRef {
    /// Every file of a loaded SSTable.
    pub fn of_view(view: &SSTableView) -> Vec<FileRef> {
        view.files
            .iter()
            .map(|(_, f)| FileRef {
                path: f.name(),
                file: f.clone(),
            })
            .collect()
    }
}

/// What the UI asks a worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Request {
    /// Verify every checksum of the SSTable made of `files`.
    Verify {
        job: u64,
        /// The worker's place in the pool (reported back in the timings).
        worker: usize,
        sstable: String,
        files: Vec<FileRef>,
        decompress: bool,
        /// Also time a raw crc32fast pass over the same bytes.
        baseline: bool,
        read_size_bytes: u64,
    },
    /// Verify one part of the SSTable's Data.db ([`DataSplit`]): its chunks' checksums and the
    /// part's digest checksum, for [`Request::VerifyCombine`].
    VerifySplit {
        job: u64,
        worker: usize,
        sstable: String,
        files: Vec<FileRef>,
        decompress: bool,
        baseline: bool,
        read_size_bytes: u64,
        split: DataSplit,
    },
    /// Combine the parts' outcomes into the whole file's report (digest appended from the parts'
    /// checksums, no second pass), naming the partitions of failing chunks by windowed index reads.
    VerifyCombine {
        job: u64,
        worker: usize,
        sstable: String,
        files: Vec<FileRef>,
        decompress: bool,
        outcomes: Vec<SplitOutcome>,
        read_size_bytes: u64,
    },
    /// Decode one page of the data browser (and for "Find", the key's read path first).
    DataPage {
        job: u64,
        /// The path of the SSTable's files (names the table of a 2.x `CREATE TABLE`).
        sstable: String,
        files: Vec<FileRef>,
        page: PageRequest,
    },
    /// The Analytics tab's partitions and tombstones scan of Data.db, its tombstone report at
    /// `gc_grace_secs` (a scan of the same files that this worker kept answers at once).
    Analytics {
        job: u64,
        sstable: String,
        files: Vec<FileRef>,
        gc_grace_secs: i64,
    },
    /// Decode the metadata of the SSTable made of `files` (every small component) for the UI.
    Load {
        job: u64,
        sstable: String,
        files: Vec<FileRef>,
    },
    /// The embedded sample's files and metadata ([`Reply::Sample`]; decoded as the worker
    /// started).
    LoadSample { job: u64 },
    /// The bloom lab: the filter's answer for a typed partition key.
    Bloom {
        job: u64,
        files: Vec<FileRef>,
        key: String,
    },
    /// A `CREATE TABLE` parsed and checked against the serialization header.
    Schema {
        job: u64,
        files: Vec<FileRef>,
        text: String,
    },
    /// The Analytics tab's table view of every SSTable loaded (name, files).
    Table {
        job: u64,
        sstables: Vec<(String, Vec<FileRef>)>,
        gc_grace_secs: i64,
    },
    /// Page `page` of the index listing ([`index_listing::PAGE_ROWS`] partitions), or with
    /// `export` every partition as JSON.
    IndexPage {
        job: u64,
        files: Vec<FileRef>,
        page: usize,
        export: bool,
    },
    /// The `IndexInfo` blocks of the Index.db entry at `offset`.
    IndexBlocks {
        job: u64,
        files: Vec<FileRef>,
        offset: u64,
    },
    /// `cargo xtask bench`'s decode-only scan next to raw LZ4 ([`crate::scan_bench`]), best of
    /// `runs`.
    ScanBench {
        job: u64,
        files: Vec<FileRef>,
        runs: u32,
    },
    /// Stop job `job` at its next slice.
    Cancel { job: u64 },
}

impl Request {
    /// Sets the job id the pool gave.
    pub fn set_job(&mut self, id: u64) {
        match self {
            Request::Verify { job, .. }
            | Request::VerifySplit { job, .. }
            | Request::VerifyCombine { job, .. }
            | Request::DataPage { job, .. }
            | Request::Analytics { job, .. }
            | Request::Load { job, .. }
            | Request::LoadSample { job }
            | Request::Bloom { job, .. }
            | Request::Schema { job, .. }
            | Request::Table { job, .. }
            | Request::IndexPage { job, .. }
            | Request::IndexBlocks { job, .. }
            | Request::ScanBench { job, .. }
            | Request::Cancel { job } => *job = id,
        }
    }
}

impl Request {
    /// What the job does, as "the worker stopped while …" ends (the pool's message when the
    /// worker running it dies).
    pub fn doing(&self) -> &'static str {
        match self {
            Request::Verify { .. }
            | Request::VerifySplit { .. }
            | Request::VerifyCombine { .. } => "verifying this SSTable",
            Request::DataPage { .. } => "decoding this data page",
            Request::Analytics { .. } => "scanning this SSTable",
            Request::Load { .. } => "loading this SSTable",
            Request::LoadSample { .. } => "loading the sample",
            Request::Bloom { .. } => "asking the bloom filter",
            Request::Schema { .. } => "checking the CREATE TABLE",
            Request::Table { .. } => "building the table view",
            Request::IndexPage { .. } | Request::IndexBlocks { .. } => "reading the index",
            Request::ScanBench { .. } => "running the scan benchmark",
            Request::Cancel { .. } => "cancelling a job",
        }
    }
}

/// Sends `reply` to the bridge `id` ([`encode_reply`]).
fn respond(scope: &WorkerScope<EngineWorker>, id: HandlerId, reply: Reply) {
    scope.respond(id, encode_reply(&reply));
}

/// What a worker answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    /// The worker's WebAssembly is loaded and its bridge connected: the Web Lock it holds for
    /// its life ([`crate::liveness`]), and its compiled WebAssembly (`WebAssembly.Module`), from
    /// which the pool starts a replacement once connections are forbidden.
    Ready {
        lock: Option<String>,
        #[serde(with = "serde_wasm_bindgen::preserve")]
        module: JsValue,
    },
    Progress {
        job: u64,
        done_bytes: u64,
        total_bytes: u64,
    },
    Verified {
        job: u64,
        run: Box<VerifyRun>,
    },
    /// One part verified: what it found, and what reading and checking it took.
    SplitVerified {
        job: u64,
        outcome: Box<SplitOutcome>,
        timing: WorkerTiming,
        read_millis: f64,
        read_bytes: u64,
        raw_crc32_millis: Option<f64>,
    },
    DataPage {
        job: u64,
        page: Box<PageMessage>,
    },
    Analytics {
        job: u64,
        scan: Box<AnalyticsScan>,
    },
    Loaded {
        job: u64,
        summary: Box<SSTableSummary>,
    },
    /// The embedded sample: its files (`sample/…`, made in the worker) and what
    /// [`Reply::Loaded`] would say of them.
    Sample {
        job: u64,
        files: Vec<FileRef>,
        summary: Result<Box<SSTableSummary>, String>,
    },
    Bloom {
        job: u64,
        answer: Result<Option<BloomAnswer>, String>,
    },
    Schema {
        job: u64,
        answer: SchemaAnswer,
    },
    Table {
        job: u64,
        table: Box<TableView>,
    },
    IndexPage {
        job: u64,
        page: Box<IndexPage>,
    },
    IndexBlocks {
        job: u64,
        blocks: Result<Vec<BlockRow>, String>,
    },
    ScanBench {
        job: u64,
        /// The [`crate::scan_bench::ScanBench`] as JSON (the page only hands it on).
        result: Result<String, String>,
    },
    Failed {
        job: u64,
        message: String,
    },
}

impl Reply {
    pub fn job(&self) -> u64 {
        match self {
            Reply::Progress { job, .. }
            | Reply::Verified { job, .. }
            | Reply::SplitVerified { job, .. }
            | Reply::DataPage { job, .. }
            | Reply::Analytics { job, .. }
            | Reply::Loaded { job, .. }
            | Reply::Sample { job, .. }
            | Reply::Bloom { job, .. }
            | Reply::Schema { job, .. }
            | Reply::Table { job, .. }
            | Reply::IndexPage { job, .. }
            | Reply::IndexBlocks { job, .. }
            | Reply::ScanBench { job, .. }
            | Reply::Failed { job, .. } => *job,
            Reply::Ready { .. } => 0,
        }
    }

    /// Whether this is the job's last message.
    pub fn is_final(&self) -> bool {
        !matches!(self, Reply::Progress { .. } | Reply::Ready { .. })
    }
}

/// The worker.
pub struct EngineWorker {
    cancelled: Rc<RefCell<HashSet<u64>>>,
    /// The metadata of the SSTable paged or scanned last: the next job on the same files needs
    /// no reload.
    last_metadata: Rc<RefCell<Option<Rc<Loaded>>>>,
    /// The last finished analytics scan, by the identity of its files.
    last_scan: Rc<RefCell<KeptScan>>,
    /// The index listing paged last (page starts seen), by the identity of its files.
    last_listing: RefCell<Option<(String, Listing)>>,
}

/// A finished analytics scan and the identity of the files it read.
type KeptScan = Option<(String, Rc<ScanState>)>;

/// An SSTable's decoded metadata with its files' handles, and what identifies those files.
struct Loaded {
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
            last_metadata: Rc::default(),
            last_scan: Rc::default(),
            last_listing: RefCell::default(),
        }
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _msg: ()) {}

    fn connected(&mut self, scope: &WorkerScope<Self>, id: HandlerId) {
        let scope = scope.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let lock = crate::liveness::hold_for_life().await;
            let module = wasm_bindgen::module();
            respond(&scope, id, Reply::Ready { lock, module });
        });
    }

    fn received(&mut self, scope: &WorkerScope<Self>, msg: Request, id: HandlerId) {
        match msg {
            Request::Cancel { job } => {
                self.cancelled.borrow_mut().insert(job);
            }
            Request::Load {
                job,
                sstable,
                files,
            } => {
                let reply = match load_metadata(&files) {
                    Ok((m, _)) => Reply::Loaded {
                        job,
                        summary: Box::new(SSTableSummary::new(
                            &sstable,
                            &m,
                            crate::verification::MIN_SPLIT_BYTES,
                        )),
                    },
                    Err(message) => Reply::Failed { job, message },
                };
                respond(scope, id, reply);
            }
            Request::ScanBench { job, files, runs } => {
                let result = crate::scan_bench::run(&files, runs)
                    .and_then(|b| serde_json::to_string(&b).map_err(|e| e.to_string()));
                respond(scope, id, Reply::ScanBench { job, result });
            }
            Request::LoadSample { job } => {
                let (files, summary) = SAMPLE
                    .with(|s| s.borrow().clone())
                    .unwrap_or_else(decode_sample);
                respond(
                    scope,
                    id,
                    Reply::Sample {
                        job,
                        files,
                        summary,
                    },
                );
            }
            Request::Bloom { job, files, key } => {
                let reply = match cached_metadata(&self.last_metadata, &files) {
                    Ok(l) => Reply::Bloom {
                        job,
                        answer: answers::bloom(&l.metadata, &key),
                    },
                    Err(message) => Reply::Failed { job, message },
                };
                respond(scope, id, reply);
            }
            Request::Schema { job, files, text } => {
                let reply = match cached_metadata(&self.last_metadata, &files) {
                    Ok(l) => Reply::Schema {
                        job,
                        answer: answers::schema(&l.metadata, &text),
                    },
                    Err(message) => Reply::Failed { job, message },
                };
                respond(scope, id, reply);
            }
            Request::Table {
                job,
                sstables,
                gc_grace_secs,
            } => {
                let loaded: Vec<(String, SSTableMetadata)> = sstables
                    .iter()
                    .filter_map(|(name, files)| {
                        load_metadata(files).ok().map(|(m, _)| (name.clone(), m))
                    })
                    .collect();
                let list: Vec<(String, &SSTableMetadata)> =
                    loaded.iter().map(|(n, m)| (n.clone(), m)).collect();
                respond(
                    scope,
                    id,
                    Reply::Table {
                        job,
                        table: Box::new(answers::table(&list, gc_grace_secs)),
                    },
                );
            }
            Request::IndexPage {
                job,
                files,
                page,
                export,
            } => {
                let reply = match cached_metadata(&self.last_metadata, &files) {
                    Ok(l) => {
                        let mut kept = self.last_listing.borrow_mut();
                        if kept.as_ref().is_none_or(|(id, _)| *id != l.identity) {
                            *kept = Some((l.identity.clone(), Listing::default()));
                        }
                        let listing = kept.as_mut().map(|(_, listing)| listing);
                        let mut fresh = Listing::default();
                        let listing = listing.unwrap_or(&mut fresh);
                        let source = FileSource {
                            files: &l.handles,
                            raw_crc32_millis: None,
                        };
                        Reply::IndexPage {
                            job,
                            page: Box::new(index_listing::page(
                                &l.metadata,
                                listing,
                                source,
                                index_bytes(&l),
                                page,
                                index_listing::PAGE_ROWS,
                                export,
                            )),
                        }
                    }
                    Err(message) => Reply::Failed { job, message },
                };
                respond(scope, id, reply);
            }
            Request::IndexBlocks { job, files, offset } => {
                let reply = match cached_metadata(&self.last_metadata, &files) {
                    Ok(l) => {
                        let source = FileSource {
                            files: &l.handles,
                            raw_crc32_millis: None,
                        };
                        Reply::IndexBlocks {
                            job,
                            blocks: index_listing::blocks(
                                &l.metadata,
                                source,
                                index_bytes(&l),
                                offset,
                            ),
                        }
                    }
                    Err(message) => Reply::Failed { job, message },
                };
                respond(scope, id, reply);
            }
            Request::DataPage {
                job,
                sstable,
                files,
                page,
            } => {
                let cache = self.last_metadata.clone();
                self.spawn_job(scope, id, job, move |ctx| async move {
                    let page =
                        data_page(&cache, &sstable, &files, &page, &|| ctx.is_cancelled()).await?;
                    Ok(Reply::DataPage {
                        job,
                        page: Box::new(PageMessage {
                            page,
                            parse_millis: 0.0,
                        }),
                    })
                });
            }
            Request::Analytics {
                job,
                sstable,
                files,
                gc_grace_secs,
            } => {
                let cache = self.last_metadata.clone();
                let scans = self.last_scan.clone();
                self.spawn_job(scope, id, job, move |ctx| async move {
                    let scan = analytics(
                        &cache,
                        &scans,
                        &sstable,
                        &files,
                        gc_grace_secs,
                        &|done_bytes, total_bytes| {
                            ctx.respond(Reply::Progress {
                                job,
                                done_bytes,
                                total_bytes,
                            })
                        },
                        &|| ctx.is_cancelled(),
                    )
                    .await?;
                    Ok(Reply::Analytics {
                        job,
                        scan: Box::new(scan),
                    })
                });
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
                let job_args = VerifyJob {
                    job,
                    worker,
                    sstable,
                    decompress,
                    baseline,
                    read_size_bytes,
                };
                self.spawn_job(scope, id, job, move |ctx| async move {
                    let run = verify(&job_args, &files, &|reply| ctx.respond(reply), &|| {
                        ctx.is_cancelled()
                    })
                    .await?;
                    Ok(Reply::Verified {
                        job,
                        run: Box::new(run),
                    })
                });
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
                let job_args = VerifyJob {
                    job,
                    worker,
                    sstable,
                    decompress,
                    baseline,
                    read_size_bytes,
                };
                self.spawn_job(scope, id, job, move |ctx| async move {
                    verify_split(
                        &job_args,
                        &files,
                        split,
                        &|reply| ctx.respond(reply),
                        &|| ctx.is_cancelled(),
                    )
                    .await
                });
            }
            Request::VerifyCombine {
                job,
                worker,
                sstable,
                files,
                decompress,
                outcomes,
                read_size_bytes,
            } => {
                let reply = match combine(
                    &sstable,
                    &files,
                    decompress,
                    read_size_bytes,
                    &outcomes,
                    worker,
                ) {
                    Ok(run) => Reply::Verified {
                        job,
                        run: Box::new(run),
                    },
                    Err(message) => Reply::Failed { job, message },
                };
                respond(scope, id, reply);
            }
        }
    }
}

/// Registers the worker (the `sstable-worker` bin's `main`).
pub fn register() {
    // The sample first, in the worker index.html started before the page's WebAssembly (it sets
    // [`DECODE_SAMPLE_AT_START`]): the page asks for it as soon as its own WebAssembly runs, and
    // the answer is ready, or nearly (issue #12). The pool's other workers decode it when asked.
    let at_start = js_sys::Reflect::get(&js_sys::global(), &DECODE_SAMPLE_AT_START.into())
        .is_ok_and(|v| v.is_truthy());
    if at_start {
        let sample = decode_sample();
        SAMPLE.with(|s| *s.borrow_mut() = Some(sample));
    }
    EngineWorker::registrar().encoding::<JsCodec>().register();
}

/// The global `index.html`'s loader sets in the worker it starts early.
const DECODE_SAMPLE_AT_START: &str = "sstableDecodeSampleAtStart";

/// The embedded sample's files and metadata, or why it could not be decoded.
type SampleAnswer = (Vec<FileRef>, Result<Box<SSTableSummary>, String>);

thread_local! {
    /// The sample, decoded as the worker started ([`register`]).
    static SAMPLE: RefCell<Option<SampleAnswer>> = const { RefCell::new(None) };
}

/// Decodes the embedded sample ([`loader::sample_files`]) as [`Request::Load`] does.
fn decode_sample() -> SampleAnswer {
    let files: Vec<FileRef> = loader::sample_files()
        .into_iter()
        .map(|f| FileRef {
            path: f.path,
            file: f.file,
        })
        .collect();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let prefix = group_files(&paths)
        .sstables
        .first()
        .map(|s| s.prefix.clone())
        .unwrap_or_default();
    let summary = load_metadata(&files).map(|(m, _)| {
        Box::new(SSTableSummary::new(
            &prefix,
            &m,
            crate::verification::MIN_SPLIT_BYTES,
        ))
    });
    (files, summary)
}

struct VerifyJob {
    job: u64,
    worker: usize,
    sstable: String,
    decompress: bool,
    baseline: bool,
    read_size_bytes: u64,
}

/// The worker's one [`RangeSource`]: the SSTable's files read by `FileReaderSync` ranges into the
/// driver's buffer (fewer bytes only where a file ends). With `raw_crc32_millis`, each Data.db
/// buffer is also run through one raw `crc32fast` pass, timed apart (the limit the checksum phase
/// is compared with, on the same bytes).
struct FileSource<'a> {
    files: &'a [(ComponentType, web_sys::File)],
    raw_crc32_millis: Option<f64>,
}

impl RangeSource for FileSource<'_> {
    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> sstable_engine::Result<()> {
        let fail = |m: String| {
            sstable_engine::Error::invalid(m, range.offset).in_component(range.component.clone())
        };
        let file = self
            .files
            .iter()
            .find(|(c, _)| *c == range.component)
            .map(|(_, f)| f)
            .ok_or_else(|| fail(format!("{} was not given", range.component)))?;
        let end = range.end().min(file.size() as u64);
        loader::read_range_into(file, range.offset.min(end), end, buf).map_err(fail)?;
        if let (Some(ms), ComponentType::Data) = (self.raw_crc32_millis.as_mut(), &range.component)
        {
            let t = loader::now_millis();
            std::hint::black_box(crc32fast::hash(buf));
            *ms += loader::now_millis() - t;
        }
        Ok(())
    }
}

/// Reads the small components whole through the engine's [`MetadataLoader`] and decodes every
/// metadata component; returns it with the file handle of each component.
pub(crate) fn load_metadata(
    files: &[FileRef],
) -> Result<(SSTableMetadata, Vec<(ComponentType, web_sys::File)>), String> {
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let grouping = group_files(&paths);
    let sstable = grouping
        .sstables
        .first()
        .ok_or("the files given are not an SSTable")?;
    let handles: Vec<(ComponentType, web_sys::File)> = sstable
        .files
        .iter()
        .filter_map(|(c, i)| files.get(*i).map(|f| (c.clone(), f.file.clone())))
        .collect();
    let sizes = handles
        .iter()
        .map(|(c, f)| (c.clone(), f.size() as u64))
        .collect();
    let mut metadata = MetadataLoader::new(&sstable.descriptor, sizes);
    let mut driver = SyncDriver::new(FileSource {
        files: &handles,
        raw_crc32_millis: None,
    });
    // A failed read is an error of its component, in the metadata.
    let _ = driver.run(&mut metadata, &loader::PerformanceClock);
    Ok((metadata.finish(), handles))
}

/// Verifies one SSTable through the engine's [`EngineRun`] (Data.db, then the partitions of
/// failing chunks from Index.db) driven by a [`SyncDriver`] over `FileReaderSync`; between slices
/// of about [`SLICE_MILLIS`] it yields so a cancel message can arrive.
async fn verify(
    args: &VerifyJob,
    files: &[FileRef],
    respond: &dyn Fn(Reply),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<VerifyRun, String> {
    let started = loader::now_millis();
    let (m, handles) = load_metadata(files)?;
    let options = VerifyOptions {
        decompress: args.decompress,
        read_size_bytes: args.read_size_bytes.max(1),
    };
    let mut run = EngineRun::new(&m, options);
    let clock = loader::PerformanceClock;
    let mut driver = SyncDriver::new(FileSource {
        files: &handles,
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
        wasm_memory_bytes: crate::wasm_memory_bytes(),
        range: None,
        chunks: None,
    }];
    Ok(run)
}

/// Verifies one part of Data.db through the engine's [`Verifier::for_split`], in slices as
/// [`verify`] does.
async fn verify_split(
    args: &VerifyJob,
    files: &[FileRef],
    split: DataSplit,
    respond: &dyn Fn(Reply),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<Reply, String> {
    let started = loader::now_millis();
    let (m, handles) = load_metadata(files)?;
    let options = VerifyOptions {
        decompress: args.decompress,
        read_size_bytes: args.read_size_bytes.max(1),
    };
    let mut v = Verifier::for_sstable(&m, options)
        .ok_or("there is no Data.db")?
        .for_split(split)
        .map_err(|e| e.to_string())?;
    let clock = loader::PerformanceClock;
    let mut driver = SyncDriver::new(FileSource {
        files: &handles,
        raw_crc32_millis: args.baseline.then_some(0.0),
    });
    while v.next_read().is_some() {
        if is_cancelled() {
            return Err(crate::pool::CANCELLED.to_owned());
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
            wasm_memory_bytes: crate::wasm_memory_bytes(),
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
fn combine(
    sstable: &str,
    files: &[FileRef],
    decompress: bool,
    read_size_bytes: u64,
    outcomes: &[SplitOutcome],
    worker: usize,
) -> Result<VerifyRun, String> {
    let started = loader::now_millis();
    let (m, handles) = load_metadata(files)?;
    let options = VerifyOptions {
        decompress,
        read_size_bytes: read_size_bytes.max(1),
    };
    let mut run = EngineRun::new(&m, options);
    run.absorb_splits(outcomes).map_err(|e| e.to_string())?;
    let mut driver = SyncDriver::new(FileSource {
        files: &handles,
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
        wasm_memory_bytes: crate::wasm_memory_bytes(),
        range: None,
        chunks: None,
    });
    Ok(out)
}

/// Bytes of the SSTable's partition index (Index.db, or Partitions.db for BTI), if given.
fn index_bytes(l: &Loaded) -> Option<u64> {
    let component = match l.metadata.descriptor.format {
        sstable_engine::Format::Big => ComponentType::PrimaryIndex,
        sstable_engine::Format::Bti => ComponentType::Partitions,
    };
    l.handles
        .iter()
        .find(|(c, _)| *c == component)
        .map(|(_, f)| f.size() as u64)
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

/// The metadata of the SSTable made of `files`, loaded once per set of files.
fn cached_metadata(
    cache: &RefCell<Option<Rc<Loaded>>>,
    files: &[FileRef],
) -> Result<Rc<Loaded>, String> {
    let id = identity(files);
    let cached = cache.borrow().clone().filter(|l| l.identity == id);
    match cached {
        Some(l) => Ok(l),
        None => {
            let (metadata, handles) = load_metadata(files)?;
            let l = Rc::new(Loaded {
                identity: id,
                metadata,
                handles,
            });
            *cache.borrow_mut() = Some(l.clone());
            Ok(l)
        }
    }
}

/// Decodes one data page of the SSTable made of `files` through [`decode_page`], reading with
/// `FileReaderSync`; the metadata is loaded once per set of files.
async fn data_page(
    cache: &RefCell<Option<Rc<Loaded>>>,
    sstable: &str,
    files: &[FileRef],
    request: &PageRequest,
    is_cancelled: &dyn Fn() -> bool,
) -> Result<DataPage, String> {
    let loaded = cached_metadata(cache, files)?;
    let source = FileSource {
        files: &loaded.handles,
        raw_crc32_millis: None,
    };
    let names = table_names(&loaded.metadata, sstable);
    decode_page(&loaded.metadata, names, source, request, is_cancelled).await
}

/// The analytics scan of the SSTable made of `files` ([`analytics_scan::scan`], Data.db read
/// with `FileReaderSync`), answered at `gc_grace_secs`; the finished scan is kept, so the same
/// files at another gc grace are answered without reading Data.db again.
async fn analytics(
    cache: &RefCell<Option<Rc<Loaded>>>,
    scans: &RefCell<KeptScan>,
    sstable: &str,
    files: &[FileRef],
    gc_grace_secs: i64,
    progress: &dyn Fn(u64, u64),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<AnalyticsScan, String> {
    let loaded = cached_metadata(cache, files)?;
    let kept = scans
        .borrow()
        .as_ref()
        .filter(|(id, _)| *id == loaded.identity)
        .map(|(_, s)| s.clone());
    if let Some(kept) = kept {
        return Ok(kept.answer(sstable, &loaded.metadata, gc_grace_secs, true));
    }
    let data_bytes = loaded
        .handles
        .iter()
        .find(|(c, _)| *c == ComponentType::Data)
        .map(|(_, f)| f.size() as u64)
        .ok_or("no Data.db was given")?;
    let source = FileSource {
        files: &loaded.handles,
        raw_crc32_millis: None,
    };
    let state = Rc::new(
        analytics_scan::scan(&loaded.metadata, source, data_bytes, progress, is_cancelled).await?,
    );
    *scans.borrow_mut() = Some((loaded.identity.clone(), state.clone()));
    Ok(state.answer(sstable, &loaded.metadata, gc_grace_secs, false))
}
