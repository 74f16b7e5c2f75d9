//! All browser I/O: files from `<input type=file>`, drag and drop (walking dropped directories with
//! `webkitGetAsEntry`), and reads of `Blob` byte ranges. Nothing here decodes; the engine does.

use js_sys::{Array, Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    DataTransfer, File, FileList, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry,
};

/// A file handle with the path it was found under (relative to what was dropped or picked).
#[derive(Clone)]
pub struct PickedFile {
    pub path: String,
    pub file: File,
}

/// Files from an `<input type=file>` (with or without `webkitdirectory`).
pub fn from_file_list(list: &FileList) -> Vec<PickedFile> {
    (0..list.length())
        .filter_map(|i| list.item(i))
        .map(|file| {
            let relative = Reflect::get(&file, &JsValue::from_str("webkitRelativePath"))
                .ok()
                .and_then(|v| v.as_string())
                .filter(|s| !s.is_empty());
            PickedFile {
                path: relative.unwrap_or_else(|| file.name()),
                file,
            }
        })
        .collect()
}

/// The entries of a drop, captured synchronously (a `DataTransfer` is emptied when the event ends).
pub fn drop_entries(transfer: &DataTransfer) -> (Vec<FileSystemEntry>, Vec<PickedFile>) {
    let mut entries = Vec::new();
    let items = transfer.items();
    for i in 0..items.length() {
        if let Some(item) = items.get(i) {
            if let Ok(Some(entry)) = item.webkit_get_as_entry() {
                entries.push(entry);
            }
        }
    }
    // Browsers (and synthetic drops) without entries still give plain files.
    let plain = if entries.is_empty() {
        transfer
            .files()
            .map(|l| from_file_list(&l))
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    (entries, plain)
}

/// Walks dropped entries recursively and returns every file with its path.
pub async fn walk_entries(entries: Vec<FileSystemEntry>) -> Result<Vec<PickedFile>, String> {
    let mut out = Vec::new();
    let mut stack = entries;
    while let Some(entry) = stack.pop() {
        if entry.is_directory() {
            let dir: FileSystemDirectoryEntry = entry.unchecked_into();
            let reader = dir.create_reader();
            // readEntries returns at most ~100 entries per call: call until it returns none.
            loop {
                let batch = callback_promise(|ok, err| {
                    reader.read_entries_with_callback_and_callback(&ok, &err)
                })
                .await?;
                let batch: Array = batch.unchecked_into();
                if batch.length() == 0 {
                    break;
                }
                stack.extend(batch.iter().map(|v| v.unchecked_into::<FileSystemEntry>()));
            }
        } else if entry.is_file() {
            let path = entry.full_path().trim_start_matches('/').to_owned();
            let file_entry: FileSystemFileEntry = entry.unchecked_into();
            let file = callback_promise(|ok, err| {
                file_entry.file_with_callback_and_callback(&ok, &err);
                Ok(())
            })
            .await?;
            out.push(PickedFile {
                path,
                file: file.unchecked_into(),
            });
        }
    }
    sstable_engine::sort::sort_by(&mut out, |a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Wraps a success/error callback API in a future.
async fn callback_promise(
    call: impl FnOnce(Function, Function) -> Result<(), JsValue>,
) -> Result<JsValue, String> {
    let mut call = Some(call);
    let promise = Promise::new(&mut |resolve, reject: Function| {
        if let Some(call) = call.take() {
            if let Err(e) = call(resolve, reject.clone()) {
                // The API threw instead of calling back: reject with what it threw.
                let _ = reject.call1(&JsValue::NULL, &e);
            }
        }
    });
    JsFuture::from(promise).await.map_err(js_error)
}

/// Reads bytes `[start, end)` of a file with `Blob.slice`: large files are never read whole.
pub async fn read_range(file: &File, start: u64, end: u64) -> Result<Vec<u8>, String> {
    let blob = file
        .slice_with_f64_and_f64(start as f64, end as f64)
        .map_err(js_error)?;
    let buffer = JsFuture::from(blob.array_buffer())
        .await
        .map_err(js_error)?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Reads a whole (small) file.
pub async fn read_all(file: &File) -> Result<Vec<u8>, String> {
    read_range(file, 0, file.size() as u64).await
}

pub fn js_error(v: JsValue) -> String {
    v.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| v.as_string())
        .unwrap_or_else(|| format!("{v:?}"))
}

/// Milliseconds from `performance.now()` of this page or worker (0 where unavailable).
pub fn now_millis() -> f64 {
    thread_local! {
        // Looked up once: the verifier reads the clock around every chunk's checksum, and the
        // lookup (a JS string, `Reflect.get`, an `instanceof`: several calls into JS) fell
        // inside each timed checksum.
        static PERFORMANCE: Option<web_sys::Performance> =
            Reflect::get(&js_sys::global(), &JsValue::from_str("performance"))
                .ok()
                .and_then(|p| p.dyn_into::<web_sys::Performance>().ok());
    }
    PERFORMANCE.with(|p| p.as_ref().map_or(0.0, |p| p.now()))
}

/// Lets the worker's (or page's) event loop run queued messages (a cancel can arrive) and comes
/// back at once: a message to itself through a new `MessageChannel`, queued behind the messages
/// already there. A `setTimeout(0)` from a timer's continuation is a nested timer, which Chromium
/// holds back ≥ 4 ms (measured: 4.07 ms a yield, the channel 0.01 ms: 8 % of a worker's 50 ms
/// slice). Falls back to `setTimeout(0)` where there is no `MessageChannel`.
pub async fn yield_to_event_loop() {
    let get = |target: &JsValue, name: &str| Reflect::get(target, &JsValue::from_str(name)).ok();
    let ports = get(&js_sys::global(), "MessageChannel")
        .and_then(|c| c.dyn_into::<Function>().ok())
        .and_then(|c| Reflect::construct(&c, &Array::new()).ok())
        .and_then(|channel| Some((get(&channel, "port1")?, get(&channel, "port2")?)));
    let post = ports.as_ref().and_then(|(_, port2)| {
        get(port2, "postMessage").and_then(|f| f.dyn_into::<Function>().ok())
    });
    let (Some((port1, port2)), Some(post)) = (ports, post) else {
        return set_timeout_zero().await;
    };
    let promise = Promise::new(&mut |resolve, _reject| {
        // Assigning `onmessage` starts the port.
        let _ = Reflect::set(&port1, &JsValue::from_str("onmessage"), &resolve);
        if post.call1(&port2, &JsValue::UNDEFINED).is_err() {
            let _ = resolve.call0(&JsValue::NULL);
        }
    });
    let _ = JsFuture::from(promise).await;
    // Closed, the pair is no longer entangled and goes with the garbage (a started port with a
    // listener would otherwise stay alive).
    if let Some(close) = get(&port1, "close").and_then(|f| f.dyn_into::<Function>().ok()) {
        let _ = close.call0(&port1);
    }
}

/// A `setTimeout(0)` task ([`yield_to_event_loop`] without `MessageChannel`).
async fn set_timeout_zero() {
    let promise = Promise::new(&mut |resolve, _reject| {
        let set_timeout = Reflect::get(&js_sys::global(), &JsValue::from_str("setTimeout"))
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok());
        match set_timeout {
            Some(f) => {
                let _ = f.call2(&JsValue::NULL, &resolve, &JsValue::from_f64(0.0));
            }
            None => {
                let _ = resolve.call0(&JsValue::NULL);
            }
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Offers `json` as a download named `file_name` (a Blob URL; nothing leaves the machine).
pub fn download_json(file_name: &str, json: &str) -> Result<(), String> {
    let parts = Array::of1(&JsValue::from_str(json));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/json");
    let blob =
        web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(js_error)?;
    download_blob(file_name, &blob)
}

/// Offers `blob` as a download named `file_name` (a Blob URL, revoked once clicked).
pub fn download_blob(file_name: &str, blob: &web_sys::Blob) -> Result<(), String> {
    use wasm_bindgen::JsCast;
    let url = web_sys::Url::create_object_url_with_blob(blob).map_err(js_error)?;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(js_error)?
        .unchecked_into();
    a.set_href(&url);
    a.set_download(file_name);
    a.click();
    web_sys::Url::revoke_object_url(&url).map_err(js_error)
}

/// Forbids every further network connection from this page: a second Content-Security-Policy,
/// added once the app's own files are loaded, that browsers enforce together with the first.
pub fn forbid_connections() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(meta) = document.create_element("meta") else {
        return;
    };
    let _ = meta.set_attribute("http-equiv", "Content-Security-Policy");
    let _ = meta.set_attribute(
        "content",
        "connect-src 'none'; frame-src 'none'; form-action 'none'; worker-src 'self' blob:",
    );
    if let Some(head) = document.head() {
        let _ = head.append_child(&meta);
    }
}

/// `performance.now()` as the engine's injected clock.
pub struct PerformanceClock;

impl sstable_engine::clock::Clock for PerformanceClock {
    fn now_nanos(&self) -> u64 {
        (now_millis() * 1_000_000.0).max(0.0) as u64
    }
}

/// Bytes of linear memory this WebAssembly instance (the page's or a worker's) holds now (the
/// page exports it as `wasmBindings.wasm_memory_bytes()` for the end-to-end tests).
pub fn wasm_memory_bytes() -> f64 {
    use wasm_bindgen::JsCast;
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map(|m| {
            m.buffer()
                .unchecked_into::<js_sys::ArrayBuffer>()
                .byte_length() as f64
        })
        .unwrap_or(0.0)
}
