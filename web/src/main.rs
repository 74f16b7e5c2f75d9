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
