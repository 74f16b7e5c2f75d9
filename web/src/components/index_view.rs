//! The partition index: the partitions Index.db lists (key, token, Data.db position, row-index
//! blocks), a page at a time, and a partition's promoted-index (`IndexInfo`) blocks on demand;
//! for BTI, the entries of the Partitions.db trie. Exportable as JSON. Every page is read and
//! decoded in a worker (`worker::index_listing`, Index.db in windows); this view asks and
//! renders.

use std::rc::Rc;

use yew::prelude::*;

use crate::loader;
use crate::pool;
use crate::protocol::{BlockRow, IndexPage};
use crate::protocol::{Reply, Request};
use crate::state::SSTableView;

#[derive(Properties, PartialEq)]
pub struct IndexViewProps {
    pub sstable: SSTableView,
}

/// The page shown, or why there is none; `None` while the first is read.
type Shown = Option<Result<Rc<IndexPage>, String>>;

#[function_component(IndexView)]
pub fn index_view(props: &IndexViewProps) -> Html {
    let shown = use_state(|| Shown::None);
    let page_no = use_state(|| 0usize);
    let open = use_state(|| None::<(usize, Result<Vec<BlockRow>, String>)>);
    let job = use_mut_ref(|| None::<u64>);
    let blocks_job = use_mut_ref(|| None::<u64>);
    {
        let shown = shown.clone();
        let open = open.clone();
        let job = job.clone();
        let view = props.sstable.clone();
        use_effect_with(
            (props.sstable.prefix.clone(), *page_no),
            move |(_, page)| {
                open.set(None);
                let request = Request::IndexPage {
                    job: 0,
                    files: view.file_refs(),
                    page: *page,
                    export: false,
                };
                pool::submit_in_slot(&job, request, move |reply| match reply {
                    Reply::IndexPage { page, .. } => shown.set(Some(Ok(Rc::new(*page)))),
                    Reply::Failed { message, .. } => shown.set(Some(Err(message))),
                    _ => {}
                });
                move || pool::cancel_slot(&job)
            },
        );
    }
    let Some(result) = (*shown).clone() else {
        return html! { <p class="muted" data-testid="index-view">{ "reading the index…" }</p> };
    };
    let page = match result {
        Ok(p) => p,
        Err(e) => {
            return html! { <section class="index-view" data-testid="index-view"><p class="error" role="alert">{ e }</p></section> }
        }
    };
    let export = {
        // Every partition, serialised by a worker when clicked.
        let view = props.sstable.clone();
        let name = format!(
            "{}-index.json",
            props.sstable.prefix.rsplit('/').next().unwrap_or("sstable")
        );
        Callback::from(move |_| {
            let name = name.clone();
            let request = Request::IndexPage {
                job: 0,
                files: view.file_refs(),
                page: 0,
                export: true,
            };
            let reply = pool::ask(request);
            wasm_bindgen_futures::spawn_local(async move {
                if let Reply::IndexPage { page, .. } = reply.await {
                    if let Some(json) = &page.export_json {
                        let _ = loader::download_json(&name, json);
                    }
                }
            });
        })
    };
    let on_prev = {
        let page_no = page_no.clone();
        Callback::from(move |_| page_no.set(page_no.saturating_sub(1)))
    };
    let on_next = {
        let page_no = page_no.clone();
        Callback::from(move |_| page_no.set(page_no.saturating_add(1)))
    };
    let rows = page.rows.iter().enumerate().map(|(i, r)| {
        let number = page.first.saturating_add(i);
        let onclick = {
            let open = open.clone();
            let view = props.sstable.clone();
            let job = blocks_job.clone();
            let offset = r.entry_offset.filter(|_| r.blocks.is_some_and(|b| b > 0));
            Callback::from(move |_| {
                let Some(offset) = offset else { return };
                let open = open.clone();
                let request = Request::IndexBlocks {
                    job: 0,
                    files: view.file_refs(),
                    offset,
                };
                pool::submit_in_slot(&job, request, move |reply| match reply {
                    Reply::IndexBlocks { blocks, .. } => open.set(Some((number, blocks))),
                    Reply::Failed { message, .. } => open.set(Some((number, Err(message)))),
                    _ => {}
                });
            })
        };
        html! {
            <tr data-testid="index-row" {onclick}>
                <td class="num">{ number }</td><td class="value" data-testid="index-key">{ &r.key }</td><td class="value">{ &r.token }</td>
                <td class="num" data-testid="index-position">{ &r.position }</td>
                <td class="num">{ r.blocks.map(|b| b.to_string()).unwrap_or_default() }</td>
            </tr>
        }
    });
    let detail = open.as_ref().map(|(i, result)| match result {
        Err(e) => html! { <p class="error">{ e }</p> },
        Ok(blocks) => html! {
            <div class="blocks" data-testid="index-blocks">
                <h3>{ format!("row-index blocks of partition #{i}") }</h3>
                <div class="rows-scroll"><table class="rows">
                    <thead><tr><th>{ "block" }</th><th>{ "first clustering" }</th><th>{ "last clustering" }</th>
                        <th class="num">{ "offset" }</th><th class="num">{ "width" }</th><th>{ "open marker" }</th></tr></thead>
                    <tbody>{ for blocks.iter().enumerate().map(|(j, b)| html! {
                        <tr data-testid="index-block"><td class="num">{ j }</td><td class="value">{ &b.first }</td><td class="value">{ &b.last }</td>
                            <td class="num">{ b.offset }</td><td class="num">{ b.width }</td><td>{ if b.end_open_marker { "yes" } else { "" } }</td></tr>
                    }) }</tbody>
                </table></div>
            </div>
        },
    });
    let last = page.first.saturating_add(page.rows.len());
    let of_total = page
        .total
        .map(|t| format!(" of {t}"))
        .unwrap_or_else(|| " (more follow)".to_owned());
    let of_total = if page.more || page.total.is_some() {
        of_total
    } else {
        String::new()
    };
    html! {
        <section class="index-view" data-testid="index-view" data-page={page.page.to_string()}>
            <div class="data-controls">
                <button class="tab" onclick={on_prev} disabled={page.page == 0} data-testid="index-prev">{ "◀ Previous" }</button>
                <button class="tab" onclick={on_next} disabled={!page.more} data-testid="index-next">{ "Next ▶" }</button>
                <button class="tab" onclick={export} data-testid="export-index">{ "Export as JSON" }</button>
                <span class="timing" data-testid="index-timing">{ format!("partitions {}–{}{} listed in {:.1} ms in a worker ({} bytes read)", page.first, last.saturating_sub(1), of_total, page.millis, page.bytes_read) }</span>
            </div>
            if let Some(e) = &page.error { <p class="error" role="alert">{ e }</p> }
            <div class="rows-scroll"><table class="rows">
                <thead><tr><th class="num">{ "#" }</th><th>{ "key" }</th><th>{ "token" }</th><th class="num">{ "position" }</th><th class="num">{ "blocks" }</th></tr></thead>
                <tbody>{ for rows }</tbody>
            </table></div>
            { detail.unwrap_or_default() }
        </section>
    }
}
