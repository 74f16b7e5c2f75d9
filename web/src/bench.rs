//! `cargo xtask bench`'s decode-only scan, asked of one worker of the pool (the page's
//! `wasmBindings.bench_scan`; the worker's side is `crate::worker::bench`).

use crate::protocol::{FileRef, Reply, Request};

/// Runs the scan bench in a worker of the pool on `files`; resolves to its `ScanBench` as JSON, or
/// rejects with the error (the page's `wasmBindings.bench_scan`).
pub fn bench_in_pool(files: &web_sys::FileList, runs: u32) -> js_sys::Promise {
    let files: Vec<FileRef> = (0..files.length())
        .filter_map(|i| files.item(i))
        .map(|file| FileRef {
            path: file.name(),
            file,
        })
        .collect();
    let reply = crate::pool::ask(Request::ScanBench {
        job: 0,
        files,
        runs,
    });
    wasm_bindgen_futures::future_to_promise(async move {
        let result = match reply.await {
            Reply::ScanBench { result, .. } => result,
            Reply::Failed { message, .. } => Err(message),
            _ => Err("the worker answered something else".to_owned()),
        };
        result
            .map(|json| wasm_bindgen::JsValue::from_str(&json))
            .map_err(|error| wasm_bindgen::JsValue::from_str(&error))
    })
}
