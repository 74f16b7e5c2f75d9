//! The one protocol between the page and its engine workers: what the UI asks ([`Request`]),
//! what a worker answers ([`Reply`]) with the payload types of its submodules, and how both cross
//! (the [`JsCodec`] envelope, each reply encoded once by the worker: [`encode_reply`],
//! [`decode_reply`]). Both sides import this module; neither imports the other.
//!
//! Messages cross as compact bytes ([`wire`]) with the `File` handles beside them, which travel
//! by structured clone; every `i64`/`u64` crosses exactly.

pub mod analytics;
pub mod answers;
pub mod index_page;
pub mod liveness;
pub mod pages;
pub mod salvage;
pub mod summary;
pub mod table;
pub mod verify_run;
pub mod wire;

use gloo_worker::{Codec, HandlerId, Worker, WorkerScope};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sstable_engine::verify::{DataSplit, SplitOutcome};
use wasm_bindgen::JsValue;

use analytics::{AnalyticsAnswer, AnalyticsStep};
use answers::{BloomAnswer, SchemaAnswer, TableView};
pub use index_page::{BlockRow, IndexPage, IndexRow, PAGE_ROWS};
use pages::{PageMessage, PageRequest};
use summary::SSTableSummary;
use table::{MergedPageMessage, MergedPageRequest, ReplicaReport, ZombieReport};
use verify_run::{VerifyRun, WorkerTiming};

/// The most workers the pool runs.
pub const MAX_WORKERS: usize = 8;
/// The message of a job cancelled (before it started, or stopped at a slice).
pub const CANCELLED: &str = "cancelled";
/// A Data.db is split into parts of at least this many bytes (one `FileReaderSync` read of the
/// default size): smaller SSTables stay one job.
pub const MIN_SPLIT_BYTES: u64 = DEFAULT_READ_BYTES;

/// Default bytes per `FileReaderSync` read.
pub const DEFAULT_READ_BYTES: u64 = 16 << 20;

/// Worker messages in the protocol's encoding ([`wire`]: compact bytes, with the `File` and
/// `WebAssembly.Module` handles beside them), both ways.
#[derive(Debug)]
pub struct JsCodec;

impl Codec for JsCodec {
    fn encode<I: Serialize>(input: I) -> JsValue {
        wire::to_js(&input)
            .unwrap_or_else(|e| wasm_bindgen::throw_str(&format!("worker message: {e}")))
    }

    fn decode<O: DeserializeOwned>(input: JsValue) -> O {
        wire::from_js(&input)
            .unwrap_or_else(|e| wasm_bindgen::throw_str(&format!("worker message: {e}")))
    }
}

/// A reply as the worker encoded it ([`encode_reply`]): gloo-worker's envelope carries the
/// JavaScript value as is, and the pool decodes it ([`decode_reply`]). Encoding here, once, lets
/// a reply that cannot be encoded become a [`Reply::Failed`] of its job instead of silence.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Encoded(#[serde(with = "wire::handle")] pub JsValue);

/// Encodes `reply`; one that cannot be encoded becomes its job's [`Reply::Failed`] naming why.
pub fn encode_reply(reply: &Reply) -> Encoded {
    match wire::to_js(reply) {
        Ok(value) => Encoded(value),
        Err(e) => {
            let failed = Reply::Failed {
                job: reply.job(),
                message: format!("the worker could not send its answer: {e}"),
            };
            Encoded(wire::to_js(&failed).unwrap_or(JsValue::NULL))
        }
    }
}

/// Decodes a worker's reply; when it cannot be decoded, the error names the job it was for
/// (read from the bytes, when it has one: every variant but `Ready` starts with its job).
pub fn decode_reply(encoded: Encoded) -> Result<Reply, (Option<u64>, String)> {
    let fail = |e: wire::Error| format!("the page could not read the worker's answer: {e}");
    let (bytes, handles) = wire::parts_of(&encoded.0).map_err(|e| (None, fail(e)))?;
    wire::from_bytes(&bytes, handles).map_err(|e| {
        /// The variant index then the job, as [`wire`] writes a struct variant.
        #[derive(Deserialize)]
        struct Head(u32, u64);
        let job = wire::from_bytes_prefix::<Head>(&bytes)
            .ok()
            .filter(|h| h.0 != 0)
            .map(|h| h.1);
        (job, fail(e))
    })
}

/// One file of an SSTable, by path, with its browser handle.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRef {
    pub path: String,
    #[serde(with = "wire::handle")]
    pub file: web_sys::File,
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
    /// `gc_grace_secs` (a scan of the same files that this worker kept answers at once); `step`:
    /// all of it, or one step of a scan split over the pool ([`AnalyticsStep`]).
    Analytics {
        job: u64,
        sstable: String,
        files: Vec<FileRef>,
        gc_grace_secs: i64,
        step: AnalyticsStep,
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
    /// Page `page` of the index listing ([`PAGE_ROWS`] partitions), or with
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
    /// `cargo xtask bench`'s decode-only scan next to raw LZ4 (the worker's `bench`), best of
    /// `runs`.
    ScanBench {
        job: u64,
        files: Vec<FileRef>,
        runs: u32,
    },
    /// The resurrection risks of one table's SSTables (name, files) at (now, gc grace):
    /// `sstable_engine::merge::zombies` over their merge ([`Reply::Zombies`]).
    Zombies {
        job: u64,
        sstables: Vec<(String, Vec<FileRef>)>,
        /// The table's `CREATE TABLE`, for its 2.x SSTables.
        create_table: Option<String>,
        gc_grace_secs: i64,
        now_secs: i64,
    },
    /// A page of the merged read of one table's SSTables (name, files), with the SSTable of
    /// every part and what lost ([`Reply::MergedPage`]).
    MergedPage {
        job: u64,
        sstables: Vec<(String, Vec<FileRef>)>,
        page: MergedPageRequest,
    },
    /// "Compare replicas": each replica's SSTables (name, files) merged, purged and hashed into
    /// a Merkle tree as validation does, the trees and partitions compared
    /// ([`Reply::Replicas`]).
    Replicas {
        job: u64,
        /// Per replica: its name and its SSTables.
        replicas: Vec<table::Replica>,
        /// The table's `CREATE TABLE`, for its 2.x SSTables.
        create_table: Option<String>,
        gc_grace_secs: i64,
        now_secs: i64,
        /// Only this partition, its differing pieces sent (`ReplicaReport::pieces`).
        focus: Option<table::ReplicaFocus>,
    },
    /// Salvage: the engine's scrub of the SSTable made of `files` (`mode`: `skip` or
    /// `segregate`) into new `version` (`nb`/`oa`) SSTables, made as files in the worker.
    Salvage {
        job: u64,
        files: Vec<FileRef>,
        mode: String,
        version: String,
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
            | Request::Zombies { job, .. }
            | Request::MergedPage { job, .. }
            | Request::Replicas { job, .. }
            | Request::Salvage { job, .. }
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
            Request::Zombies { .. } => "looking for resurrection risks",
            Request::MergedPage { .. } => "merging the table's SSTables",
            Request::Replicas { .. } => "comparing the replicas",
            Request::Salvage { .. } => "salvaging this SSTable",
            Request::Cancel { .. } => "cancelling a job",
        }
    }
}

/// What a worker answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    /// The worker's WebAssembly is loaded and its bridge connected: the Web Lock it holds for
    /// its life ([`liveness`]), and its compiled WebAssembly (`WebAssembly.Module`), from
    /// which the pool starts a replacement once connections are forbidden.
    Ready {
        lock: Option<String>,
        #[serde(with = "wire::handle")]
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
        scan: Box<AnalyticsAnswer>,
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
        /// The worker's `ScanBench` as JSON (the page only hands it on).
        result: Result<String, String>,
    },
    Zombies {
        job: u64,
        report: Box<ZombieReport>,
    },
    MergedPage {
        job: u64,
        page: Box<MergedPageMessage>,
    },
    Replicas {
        job: u64,
        report: Box<ReplicaReport>,
    },
    /// The salvage's report and the new SSTables' files.
    Salvaged {
        job: u64,
        salvage: Box<salvage::Salvage>,
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
            | Reply::Zombies { job, .. }
            | Reply::MergedPage { job, .. }
            | Reply::Replicas { job, .. }
            | Reply::Salvaged { job, .. }
            | Reply::Failed { job, .. } => *job,
            Reply::Ready { .. } => 0,
        }
    }

    /// Whether this is the job's last message.
    pub fn is_final(&self) -> bool {
        !matches!(self, Reply::Progress { .. } | Reply::Ready { .. })
    }
}

/// The engine worker as the page's bridges see it: its messages only. A gloo-worker bridge is
/// typed by a [`Worker`]; the worker that runs (`crate::worker::EngineWorker`) has the same
/// [`Worker::Input`] and [`Worker::Output`], so the page never links the worker's code.
pub struct Remote;

impl Worker for Remote {
    type Message = ();
    type Input = Request;
    type Output = Encoded;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        Remote
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _msg: ()) {}

    fn received(&mut self, _scope: &WorkerScope<Self>, _msg: Request, _id: HandlerId) {}
}
