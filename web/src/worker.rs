//! The engine worker: the page's long engine work (verification today) runs here, in a pool of
//! dedicated workers ([`crate::pool`]), never on the UI thread. It is a `gloo-worker` [`Worker`]
//! built by Trunk as its own bin (`sstable-worker`, `data-type="worker"`).
//!
//! Messages cross as JavaScript values ([`JsCodec`]: serde-wasm-bindgen), so `File` handles travel
//! by structured clone and are read here with `FileReaderSync`, by ranges
//! ([`crate::loader::read_range_sync`]): memory per worker is one read buffer plus the engine's
//! few chunks. A job runs in slices; between slices the worker yields to its event loop so a
//! cancel message can arrive.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use gloo_worker::{Codec, HandlerId, Registrable, Worker, WorkerScope};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sstable_engine::component::ComponentType;
use sstable_engine::info::{decode_metadata, reads_whole, ComponentInput, SSTableMetadata};
use sstable_engine::sstable_set::group_files;
use sstable_engine::verify::{Verifier, VerifyOptions};
use wasm_bindgen::JsValue;

use crate::loader::{self, read_range_sync};
use crate::state::{VerifyRun, WorkerTiming};

/// Default bytes per `FileReaderSync` read.
pub const DEFAULT_READ_BYTES: u64 = 16 << 20;
/// Work at most this long between yields to the worker's event loop (for cancel messages).
const SLICE_MILLIS: f64 = 50.0;

/// Worker messages as JavaScript values (serde-wasm-bindgen): `File` handles pass through
/// unchanged (`serde_wasm_bindgen::preserve`).
#[derive(Debug)]
pub struct JsCodec;

impl Codec for JsCodec {
    fn encode<I: Serialize>(input: I) -> JsValue {
        input
            .serialize(&serde_wasm_bindgen::Serializer::new())
            .unwrap_or_else(|e| wasm_bindgen::throw_str(&format!("worker message: {e}")))
    }

    fn decode<O: DeserializeOwned>(input: JsValue) -> O {
        serde_wasm_bindgen::from_value(input)
            .unwrap_or_else(|e| wasm_bindgen::throw_str(&format!("worker message: {e}")))
    }
}

/// One file of an SSTable, by path, with its browser handle.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRef {
    pub path: String,
    #[serde(with = "serde_wasm_bindgen::preserve")]
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
    /// Stop job `job` at its next slice.
    Cancel { job: u64 },
}

/// What a worker answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    /// The worker's WebAssembly is loaded and its bridge connected.
    Ready,
    Progress {
        job: u64,
        done_bytes: u64,
        total_bytes: u64,
    },
    Verified {
        job: u64,
        run: Box<VerifyRun>,
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
            | Reply::Failed { job, .. } => *job,
            Reply::Ready => 0,
        }
    }

    /// Whether this is the job's last message.
    pub fn is_final(&self) -> bool {
        !matches!(self, Reply::Progress { .. } | Reply::Ready)
    }
}

/// The worker.
pub struct EngineWorker {
    cancelled: Rc<RefCell<HashSet<u64>>>,
}

impl Worker for EngineWorker {
    type Message = ();
    type Input = Request;
    type Output = Reply;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        EngineWorker {
            cancelled: Rc::default(),
        }
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _msg: ()) {}

    fn connected(&mut self, scope: &WorkerScope<Self>, id: HandlerId) {
        scope.respond(id, Reply::Ready);
    }

    fn received(&mut self, scope: &WorkerScope<Self>, msg: Request, id: HandlerId) {
        match msg {
            Request::Cancel { job } => {
                self.cancelled.borrow_mut().insert(job);
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
                let scope = scope.clone();
                let cancelled = self.cancelled.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let respond = |reply: Reply| scope.respond(id, reply);
                    let is_cancelled = || cancelled.borrow().contains(&job);
                    let job_args = VerifyJob {
                        job,
                        worker,
                        sstable,
                        decompress,
                        baseline,
                        read_size_bytes,
                    };
                    let reply = match verify(&job_args, &files, &respond, &is_cancelled).await {
                        Ok(run) => Reply::Verified {
                            job,
                            run: Box::new(run),
                        },
                        Err(message) => Reply::Failed { job, message },
                    };
                    cancelled.borrow_mut().remove(&job);
                    respond(reply);
                });
            }
        }
    }
}

/// Registers the worker (the `sstable-worker` bin's `main`).
pub fn register() {
    EngineWorker::registrar().encoding::<JsCodec>().register();
}

struct VerifyJob {
    job: u64,
    worker: usize,
    sstable: String,
    decompress: bool,
    baseline: bool,
    read_size_bytes: u64,
}

/// Reads the small components whole and decodes every metadata component; returns it with the
/// file handle of each component.
fn load_metadata(
    files: &[FileRef],
) -> Result<(SSTableMetadata, Vec<(ComponentType, web_sys::File)>), String> {
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let grouping = group_files(&paths);
    let sstable = grouping
        .sstables
        .first()
        .ok_or("the files given are not an SSTable")?;
    let mut contents = Vec::with_capacity(sstable.files.len());
    let mut sizes = Vec::with_capacity(sstable.files.len());
    for (component, index) in &sstable.files {
        let file = files.get(*index).map(|f| &f.file);
        let size = file.map_or(0, |f| f.size() as u64);
        sizes.push(size);
        contents.push(match file {
            Some(f) if reads_whole(component) => Some(read_range_sync(f, 0, size)?),
            _ => None,
        });
    }
    let inputs: Vec<ComponentInput<'_>> = sstable
        .files
        .iter()
        .zip(&contents)
        .zip(&sizes)
        .map(|(((component, _), bytes), size)| ComponentInput {
            component,
            size_bytes: *size,
            bytes: bytes.as_deref(),
        })
        .collect();
    let handles = sstable
        .files
        .iter()
        .filter_map(|(c, i)| files.get(*i).map(|f| (c.clone(), f.file.clone())))
        .collect();
    Ok((decode_metadata(&sstable.descriptor, &inputs), handles))
}

fn file_of<'a>(
    handles: &'a [(ComponentType, web_sys::File)],
    component: &ComponentType,
) -> Option<&'a web_sys::File> {
    handles.iter().find(|(c, _)| c == component).map(|(_, f)| f)
}

/// Verifies one SSTable, reading Data.db with `FileReaderSync`.
async fn verify(
    args: &VerifyJob,
    files: &[FileRef],
    respond: &dyn Fn(Reply),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<VerifyRun, String> {
    let started = loader::now_millis();
    let (m, handles) = load_metadata(files)?;
    let Some(data) = file_of(&handles, &ComponentType::Data) else {
        return Ok(VerifyRun::not_verifiable(
            &args.sstable,
            "no Data.db was given",
        ));
    };
    let options = VerifyOptions {
        decompress: args.decompress,
        read_size_bytes: args.read_size_bytes.max(1),
    };
    let Some(verifier) = Verifier::for_sstable(&m, options) else {
        return Ok(VerifyRun::not_verifiable(
            &args.sstable,
            "the size of Data.db is not known",
        ));
    };
    let index = file_of(&handles, &ComponentType::PrimaryIndex);
    let partitions = match index {
        Some(f) => loader::partition_ranges_sync(&m, f, 16 << 20),
        None => Vec::new(),
    };
    let mut verifier = verifier.with_partitions(partitions);
    let clock = loader::PerformanceClock;
    let mut buffer: Vec<u8> = Vec::new();
    let mut read_millis = 0.0;
    let mut read_bytes = 0u64;
    let mut raw_crc32_millis = args.baseline.then_some(0.0);
    let mut slice_started = loader::now_millis();
    while let Some((offset, len)) = verifier.next_read() {
        if loader::now_millis() - slice_started > SLICE_MILLIS {
            loader::yield_to_event_loop().await;
            slice_started = loader::now_millis();
        }
        if is_cancelled() {
            break;
        }
        let t = loader::now_millis();
        loader::read_range_into(data, offset, offset.saturating_add(len), &mut buffer)?;
        read_millis += loader::now_millis() - t;
        read_bytes += buffer.len() as u64;
        if buffer.is_empty() {
            break;
        }
        if let Some(ms) = raw_crc32_millis.as_mut() {
            let t = loader::now_millis();
            std::hint::black_box(crc32fast::hash(&buffer));
            *ms += loader::now_millis() - t;
        }
        verifier
            .supply(offset, &buffer, &clock)
            .map_err(|e| e.to_string())?;
        let p = verifier.progress();
        respond(Reply::Progress {
            job: args.job,
            done_bytes: p.done_bytes,
            total_bytes: p.total_bytes,
        });
    }
    let cancelled = is_cancelled();
    let report = verifier.finish(&args.sstable);
    let total_millis = loader::now_millis() - started;
    let mut run = VerifyRun::from_report(&report, cancelled);
    run.read_millis = read_millis;
    run.read_bytes = read_bytes;
    run.raw_crc32_millis = raw_crc32_millis;
    run.total_millis = total_millis;
    run.workers = vec![WorkerTiming {
        worker: args.worker,
        bytes: read_bytes,
        millis: total_millis,
        wasm_memory_bytes: crate::wasm_memory_bytes(),
    }];
    Ok(run)
}
