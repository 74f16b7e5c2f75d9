//! The in-browser SSTable inspector: a Yew app over `sstable-engine`.
//!
//! Layout: [`state`] holds the one reducer, [`loader`] does all browser I/O (file inputs, drag
//! and drop with directory walking, `Blob` and `FileReaderSync` reads), [`components`] renders,
//! one component per file. All engine decoding runs in [`worker`]s of a [`pool`] — metadata at
//! load ([`loading`] asks, [`summary`] is what comes back), data pages, the index listing,
//! lookups, verification, scans — so the UI's WebAssembly links no decoder; [`verification`]
//! turns verification replies into state actions.
//!
//! Module dependencies (callers first): `components` → `loading`, `verification` → `pool` → `worker`
//! → `data_page`, `index_listing`, `answers`, `summary` → `loader` → `state`. [`data_page`]
//! decodes the data browser's pages, [`index_listing`] the index view's, [`answers`] the bloom
//! lab, `CREATE TABLE` check and table view, and [`analytics_scan`] counts the Analytics tab's
//! partitions and tombstones (all in a worker); [`scan_bench`] is `cargo xtask bench`'s
//! decode-only scan in one worker.

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod analytics_scan;
pub mod answers;
pub mod components;
pub mod data_page;
pub mod index_listing;
pub mod liveness;
pub mod loader;
pub mod loading;
pub mod pool;
pub mod scan_bench;
pub mod state;
pub mod summary;
pub mod verification;
pub mod worker;

/// Mounts the app on `<main id="app">` (or `<body>` when absent).
pub fn start() {
    // The workers fetch their WebAssembly first; the pool forbids connections once they have.
    pool::warm_up();
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
