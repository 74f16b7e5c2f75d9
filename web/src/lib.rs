//! The in-browser SSTable inspector: a Yew app over `sstable-engine`.
//!
//! Layout: [`state`] holds the one reducer, [`loader`] does all browser I/O (file inputs, drag
//! and drop with directory walking, `Blob` and `FileReaderSync` reads), [`components`] renders,
//! one component per file. Long engine work runs in [`worker`]s of a [`pool`]; [`verification`]
//! turns their replies into state actions.
//!
//! Module dependencies (no cycle): `components` → `verification` → `pool` → `worker` →
//! `loader` → `state`.

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod components;
pub mod loader;
pub mod pool;
pub mod state;
pub mod verification;
pub mod worker;

use wasm_bindgen::prelude::*;

/// Mounts the app on `<main id="app">` (or `<body>` when absent).
pub fn start() {
    // The workers fetch their WebAssembly before connections are forbidden.
    pool::warm_up();
    loader::forbid_connections();
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"));
    match root {
        Some(root) => {
            yew::Renderer::<components::app::App>::with_root(root).render();
        }
        None => {
            yew::Renderer::<components::app::App>::new().render();
        }
    }
}

/// Called by the generated JavaScript glue when the module is loaded as a library.
#[wasm_bindgen]
pub fn mount() {
    start();
}

/// Bytes of linear memory the app's WebAssembly instance holds now (for the memory checks of the
/// end-to-end tests and for curious engineers: `wasmBindings.wasm_memory_bytes()`).
#[wasm_bindgen]
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
