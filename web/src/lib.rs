//! The in-browser SSTable inspector: a Yew app over `sstable-engine`.
//!
//! Layout: [`state`] holds the one reducer, [`loader`] does all browser I/O (file inputs, drag
//! and drop with directory walking, `Blob` reads), [`components`] renders, one component per file.

pub mod components;
pub mod loader;
pub mod state;

use wasm_bindgen::prelude::*;

/// Mounts the app on `<main id="app">` (or `<body>` when absent).
pub fn start() {
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
