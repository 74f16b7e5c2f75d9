//! Loading dropped or picked files: grouped into SSTables here (`sstable_set::group_files`,
//! file names only), then each SSTable's metadata decoded by a worker of the pool
//! (`Request::Load`, all SSTables queued at once, so the pool's workers share them); the UI
//! thread keeps the [`crate::protocol::summary::SSTableSummary`] each sends back.

use sstable_engine::component::ComponentType;
use sstable_engine::sstable_set::{group_files, IgnoredFile, SSTableFiles};

use crate::loader::{now_millis, yield_to_event_loop, PickedFile};

/// Queue loads at most this long before [`load`] yields to the event loop.
const LOAD_SLICE_MILLIS: f64 = 25.0;
use crate::pool;
use crate::protocol::{FileRef, Reply, Request};
use crate::state::{SSTableView, Shared};

/// Groups files into SSTables and has the pool decode each one's metadata.
pub async fn load(files: &[PickedFile]) -> (Vec<SSTableView>, Vec<IgnoredFile>) {
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let grouping = group_files(&paths);
    let mut pending = Vec::new();
    let mut slice_started = now_millis();
    for sstable in &grouping.sstables {
        // Hundreds of SSTables are queued in tasks of at most LOAD_SLICE_MILLIS (issue #12).
        if now_millis() - slice_started >= LOAD_SLICE_MILLIS {
            yield_to_event_loop().await;
            slice_started = now_millis();
        }
        let view = view_of(sstable, files);
        let refs = view
            .files
            .iter()
            .map(|(_, f)| FileRef {
                path: f.name(),
                file: f.clone(),
            })
            .collect();
        let reply = pool::ask(Request::Load {
            job: 0,
            sstable: sstable.prefix.clone(),
            files: refs,
        });
        pending.push((view, reply));
    }
    let mut views = Vec::with_capacity(pending.len());
    for (mut view, reply) in pending {
        answer(&mut view, reply.await);
        views.push(view);
    }
    (views, grouping.ignored)
}

/// The `schema.cql` files among `files`, read as text (a file that does not read, or is not
/// UTF-8, is left out: the views then ask for the CREATE TABLE).
pub async fn schema_files(files: &[PickedFile]) -> crate::state::SchemaFiles {
    let mut found = Vec::new();
    for f in files {
        let (dir, name) = f.path.rsplit_once('/').unwrap_or(("", f.path.as_str()));
        if name != "schema.cql" {
            continue;
        }
        if let Ok(bytes) = crate::loader::read_all(&f.file).await {
            if let Ok(text) = String::from_utf8(bytes) {
                found.push((dir.to_owned(), text));
            }
        }
    }
    crate::state::SchemaFiles(std::rc::Rc::new(found))
}

/// The embedded sample: its files and metadata both come from a worker, which decodes it as it
/// starts (`Request::LoadSample`), while the page's own WebAssembly still loads (issue #12).
pub async fn load_sample() -> (Vec<SSTableView>, Vec<IgnoredFile>) {
    let (files, reply) = match pool::ask(Request::LoadSample { job: 0 }).await {
        Reply::Sample {
            job,
            files,
            summary,
        } => {
            let files: Vec<PickedFile> = files
                .into_iter()
                .map(|f| PickedFile {
                    path: f.path,
                    file: f.file,
                })
                .collect();
            let reply = match summary {
                Ok(summary) => Reply::Loaded { job, summary },
                Err(message) => Reply::Failed { job, message },
            };
            (files, reply)
        }
        other => (Vec::new(), other),
    };
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let grouping = group_files(&paths);
    let mut views = Vec::with_capacity(1);
    if let Some(sstable) = grouping.sstables.first() {
        let mut view = view_of(sstable, &files);
        answer(&mut view, reply);
        views.push(view);
    }
    (views, grouping.ignored)
}

/// An SSTable's view before its metadata is in.
fn view_of(sstable: &SSTableFiles, files: &[PickedFile]) -> SSTableView {
    // Sizes come with the worker's answer (`File.size` stats the file: 0.4 ms each here).
    let components: Vec<(ComponentType, u64)> =
        sstable.files.iter().map(|(c, _)| (c.clone(), 0)).collect();
    let handles: Vec<(ComponentType, web_sys::File)> = sstable
        .files
        .iter()
        .filter_map(|(c, i)| files.get(*i).map(|f| (c.clone(), f.file.clone())))
        .collect();
    let d = &sstable.descriptor;
    SSTableView {
        prefix: sstable.prefix.clone(),
        version: d.version.to_string(),
        release: d.version.cassandra_release().to_owned(),
        format: d.format.to_string(),
        generation: d.id.to_string(),
        components,
        errors: Vec::new(),
        summary: Shared::default(),
        files: handles,
    }
}

/// Puts a worker's answer to a load into the SSTable's view.
fn answer(view: &mut SSTableView, reply: Reply) {
    match reply {
        Reply::Loaded { summary, .. } => {
            for (c, size) in view.components.iter_mut() {
                *size = summary.size_of(c).unwrap_or(0);
            }
            view.summary = Shared(std::rc::Rc::new(*summary));
        }
        Reply::Failed { message, .. } => view.errors.push(message),
        _ => view
            .errors
            .push("the worker answered something else".to_owned()),
    }
}

/// [`load`] without the pool: each SSTable's metadata decoded on this thread, read by
/// `Blob.slice` (for the wasm-bindgen tests, which run no workers; the page never calls it, so
/// its WebAssembly does not link the decoders).
pub async fn load_here(files: &[PickedFile]) -> (Vec<SSTableView>, Vec<IgnoredFile>) {
    use sstable_engine::load::MetadataLoader;
    use sstable_engine::range::{AsyncDriver, ByteRange};
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let grouping = group_files(&paths);
    let mut views = Vec::new();
    for sstable in &grouping.sstables {
        let mut view = view_of(sstable, files);
        view.components = view
            .files
            .iter()
            .map(|(c, f)| (c.clone(), f.size() as u64))
            .collect();
        let mut loader = MetadataLoader::new(&sstable.descriptor, view.components.clone());
        let handles_ref = view.files.as_slice();
        let mut driver = AsyncDriver::new(|range: ByteRange| async move {
            let fail = |m: String| {
                sstable_engine::Error::invalid(m, range.offset)
                    .in_component(range.component.clone())
            };
            let file = handles_ref
                .iter()
                .find(|(c, _)| *c == range.component)
                .map(|(_, f)| f)
                .ok_or_else(|| fail(format!("{} was not given", range.component)))?;
            let end = range.end().min(file.size() as u64);
            crate::loader::read_range(file, range.offset.min(end), end)
                .await
                .map_err(fail)
        });
        let _ = driver
            .run(&mut loader, &crate::loader::PerformanceClock)
            .await;
        let metadata = loader.finish();
        let summary = crate::protocol::summary::SSTableSummary::new(
            &sstable.prefix,
            &metadata,
            crate::protocol::MIN_SPLIT_BYTES,
        );
        view.summary = Shared(std::rc::Rc::new(summary));
        views.push(view);
    }
    (views, grouping.ignored)
}
