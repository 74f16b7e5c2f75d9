use wasm_bindgen::prelude::wasm_bindgen;

fn main() {
    sstable_web::start();
}

/// Bytes of linear memory the page's WebAssembly instance holds now (for the memory checks of the
/// end-to-end tests and for curious engineers: `wasmBindings.wasm_memory_bytes()`).
#[wasm_bindgen]
pub fn wasm_memory_bytes() -> f64 {
    sstable_web::wasm_memory_bytes()
}

/// `cargo xtask bench`'s decode-only scan in one worker (`e2e/bench/scan.mjs`:
/// `wasmBindings.bench_scan(fileList, runs)`): resolves to `ScanBench` (web/src/worker/bench.rs)
/// as JSON, or rejects with the error.
#[wasm_bindgen]
pub fn bench_scan(files: web_sys::FileList, runs: u32) -> js_sys::Promise {
    sstable_web::bench::bench_in_pool(&files, runs)
}
