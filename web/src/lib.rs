//! The in-browser SSTable inspector: a Yew app over `sstable-engine`.
//!
//! Two layers around one protocol module: [`protocol`] holds the request and reply types and
//! their codec; [`worker`] (the engine side, one handler module per request family) imports the
//! engine and the protocol only; the UI side — [`state`] (the one reducer), [`components`] (one
//! component per file), [`pool`] (the worker pool's client), [`loading`], [`verification`], [`analytics_scan`],
//! [`mod@bench`] — imports the protocol and never the worker. Below both: [`loader`], the browser
//! I/O (file inputs, drag and drop, `Blob` reads, the clock, yields to the event loop), and
//! [`index_listing`], the index view's listing (run by the worker; its page types are the
//! protocol's). All engine decoding runs in workers of the pool, so the UI's WebAssembly links
//! no decoder.

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
pub mod bench;
pub mod components;
pub mod loader;
pub mod loading;
pub mod pool;
pub mod protocol;
pub mod state;
pub mod verification;
pub mod worker;

pub use loader::wasm_memory_bytes;

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
