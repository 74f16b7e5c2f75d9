//! "Compare replicas", inside one differing partition: the pieces on which the replicas differ
//! (`sstable_engine::repair::compare`, computed in a worker by `Request::Replicas` with a
//! focus, a page of [`PIECES_PAGE`] at a time) — partition, row and complex deletions,
//! livenesses, cells, range tombstone bounds — one column per node with its merged version
//! (value, timestamp, TTL, deletion time, purged at gcBefore), the winning one marked, worded
//! as `sstable-inspect diff` lists them.

use std::rc::Rc;

use yew::prelude::*;

use crate::protocol::table::{PieceView, PiecesPage, PIECES_PAGE};

/// The pieces of one partition: asked for, back, or failed.
#[derive(Clone, PartialEq)]
pub enum Pieces {
    Loading { key_hex: String },
    Ready(Rc<PiecesPage>),
    Failed { key_hex: String, message: String },
}

/// Where a piece is, as the CLI's `diff` words it: its kind, `static`, the clustering, a
/// bound's kind, the column and a complex cell's element.
pub fn piece_where(p: &PieceView) -> String {
    let mut at = p.kind.clone();
    if p.is_static {
        at.push_str(" static");
    }
    if !p.clustering.is_empty() {
        at.push_str(&format!(" ({})", p.clustering.join(", ")));
    }
    if let Some(b) = &p.bound {
        at.push_str(&format!(" {b}"));
    }
    if let Some(c) = &p.column {
        at.push_str(&format!(" {c}"));
    }
    if let Some(path) = &p.path {
        at.push_str(&format!("[{path}]"));
    }
    at
}

/// One node's version, as the CLI's `diff` words it (`-`: the node has no such piece).
pub fn version_text(v: Option<&String>) -> String {
    v.cloned().unwrap_or_else(|| "-".to_owned())
}

/// The page of pieces, one column per node; `on_page(skip)` asks for another page.
pub fn pieces_view(pieces: &Pieces, replicas: &[String], on_page: &Callback<usize>) -> Html {
    let page = match pieces {
        Pieces::Loading { key_hex } => {
            return html! {
                <div class="chunk-detail" data-testid="pieces-view" data-key-hex={key_hex.clone()} data-ready="false">
                    <p>{ format!("partition 0x{key_hex}: comparing its pieces in a worker…") }</p>
                </div>
            }
        }
        Pieces::Failed { key_hex, message } => {
            return html! {
                <div class="chunk-detail" data-testid="pieces-view" data-key-hex={key_hex.clone()} data-ready="false">
                    <p class="error" role="alert">{ format!("partition 0x{key_hex}: {message}") }</p>
                </div>
            }
        }
        Pieces::Ready(page) => page,
    };
    let go = |skip: usize| {
        let on_page = on_page.clone();
        Callback::from(move |_| on_page.emit(skip))
    };
    let last = page.skip.saturating_add(page.pieces.len());
    html! {
        <div class="chunk-detail" data-testid="pieces-view" data-key-hex={page.key_hex.clone()} data-ready="true"
             data-total={page.total.to_string()} data-skip={page.skip.to_string()}>
            <p>{ format!("partition 0x{} (token {}): pieces {}–{} of {} that differ, each node's merged version; ★ wins reconciliation",
                page.key_hex, page.token, page.skip.saturating_add(1).min(last), last, page.total) }</p>
            <table class="grid pieces">
                <thead><tr><th>{ "piece" }</th>
                    { for replicas.iter().map(|n| html! { <th>{ n.clone() }</th> }) }
                </tr></thead>
                <tbody>
                    { for page.pieces.iter().map(|p| html! {
                        <tr data-testid="piece" data-where={piece_where(p)} data-differs={p.differs.to_string()}
                            data-newest={p.newest.map_or(String::new(), |n| n.to_string())}>
                            <td>{ piece_where(p) }{ if p.differs { "" } else { " (the same once purged)" } }</td>
                            { for p.versions.iter().enumerate().map(|(i, v)| {
                                let wins = p.newest == Some(i);
                                let text = version_text(v.as_ref());
                                html! {
                                    <td data-testid="piece-version" data-replica={i.to_string()} data-text={text.clone()}
                                        data-wins={wins.to_string()} class={if wins { "wins" } else { "" }}>
                                        { if wins { format!("★ {text}") } else { text } }</td>
                                }
                            }) }
                        </tr>
                    }) }
                </tbody>
            </table>
            if page.total > PIECES_PAGE {
                <p class="pager">
                    <button data-testid="pieces-prev" disabled={page.skip == 0}
                            onclick={go(page.skip.saturating_sub(PIECES_PAGE))}>{ "Previous" }</button>
                    <button data-testid="pieces-next" disabled={last >= page.total} onclick={go(last)}>{ "Next" }</button>
                </p>
            }
        </div>
    }
}
