//! The data browser's "Merged (table)" mode: what a read of the whole table returns from the
//! SSTables loaded of one table — their partitions merged in token order and reconciled as
//! Cassandra's read path does (`sstable_engine::merge::TableMerger`, as `sstable-inspect read
//! DIR`), a page at a time. Every cell, row marker and tombstone carries a badge naming the
//! SSTable it came from; a row's "why" opens [`WhyPanel`]: what lost and what beat it.
//!
//! Pages are merged in the worker pool (`Request::MergedPage`), with progress and Cancel; a
//! page shows at most [`MERGED_PAGE_PARTITIONS`] partitions and [`ROWS_STEP`] rows of each
//! until more are asked for. "Next" sends the page's last key as the cursor (the worker's
//! merge starts after it, nothing before it read); "Previous" takes the cursor of the page
//! before from a stack of them kept here.

use std::rc::Rc;

use sstable_engine::dump::UnfilteredJson;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::plural;
use super::table_schema::{legacy_names, statement, TableSchemaBox};
use super::why_panel::WhyPanel;
use crate::pool;
use crate::protocol::table::{
    LossView, MergedPage, MergedPageMessage, MergedPageRequest, MergedPartitionView, RowSources,
    MERGED_PAGE_PARTITIONS,
};
use crate::protocol::{Reply, Request};
use crate::state::{SSTableView, SchemaFiles, Shared};

/// A page to load: partitions before it, its cursor, the cursors before that, a wanted key.
type PageAt = (u64, Option<String>, Vec<Option<String>>, Option<String>);

/// Rows of a partition shown at first, and added by "more rows".
const ROWS_STEP: usize = 20;

#[derive(Properties, PartialEq)]
pub struct MergedViewProps {
    pub all: Shared<Vec<SSTableView>>,
    /// `sstable_set::table_of(prefix).key` of the table.
    pub table_key: String,
    /// The `CREATE TABLE` typed in the data browser (the box starts with it): what the
    /// table's 2.x SSTables are read with.
    #[prop_or_default]
    pub create_table: String,
}

#[derive(Clone, PartialEq, Default)]
struct State {
    /// Partitions before the page shown (its first partition's number).
    skip: u64,
    /// The page's cursor: the last key (hex) of the page before it (`None`: the first page).
    after: Option<String>,
    /// The cursors of the pages before it, the nearest last ("Previous").
    back: Vec<Option<String>>,
    progress: Option<(u64, u64)>,
    page: Option<Rc<MergedPage>>,
    error: Option<String>,
}

/// The SSTables of `table_key` among `all` (name, files), as the table-wide jobs take them.
pub fn table_sstables(
    all: &[SSTableView],
    table_key: &str,
) -> Vec<(String, Vec<crate::protocol::FileRef>)> {
    all.iter()
        .filter(|s| sstable_engine::sstable_set::table_of(&s.prefix).key == table_key)
        .map(|s| (s.prefix.clone(), s.file_refs()))
        .collect()
}

/// The data browser's mode switch: this SSTable, or the table's SSTables merged (shown when
/// the table has more than one SSTable loaded).
pub fn mode_toggle(table_sstables: usize, merged: &UseStateHandle<bool>) -> Html {
    if table_sstables < 2 {
        return Html::default();
    }
    let set = |to: bool| {
        let merged = merged.clone();
        Callback::from(move |_| merged.set(to))
    };
    html! {
        <p class="data-modes" role="group" aria-label="what to read">
            <button class="tab" aria-pressed={(!**merged).to_string()} onclick={set(false)} data-testid="mode-sstable">{ "This SSTable" }</button>
            <button class="tab" aria-pressed={(**merged).to_string()} onclick={set(true)} data-testid="mode-merged">
                { format!("Merged (table, {table_sstables} SSTables)") }</button>
        </p>
    }
}

/// The row of `p` a loss is told with: the first row (static or of the same clustering) it
/// belongs to; `None` for the partition deletion and the pieces of rows the merge no longer
/// returns (the partition's "why").
fn owner(p: &MergedPartitionView, l: &LossView) -> Option<usize> {
    if l.what == "PartitionDeletion" {
        return None;
    }
    p.rows
        .iter()
        .position(|r| r.is_static == l.is_static && r.clustering_hex == l.clustering_hex)
}

fn badge(sstable: &str) -> Html {
    html! { <span class="badge" data-testid="badge" title={format!("from {sstable}")}>{ sstable.to_owned() }</span> }
}

/// The row `r` of partition `p` with its badges; `on_why` opens its explanation.
fn merged_row(
    p: &MergedPartitionView,
    index: usize,
    r: &UnfilteredJson,
    on_why: Callback<(usize, usize)>,
    partition: usize,
) -> Html {
    let default = RowSources::default();
    let s = p.rows.get(index).unwrap_or(&default);
    let clustering: Vec<String> = r
        .clustering
        .iter()
        .map(|c| c.clone().unwrap_or_else(|| "null".to_owned()))
        .collect();
    let why = Callback::from(move |_| on_why.emit((partition, index)));
    let kind = r.r#type.to_string();
    if kind.starts_with("range_tombstone") {
        let side = |name: &str,
                    b: &Option<sstable_engine::dump::BoundJson>,
                    src: &Option<String>| {
            b.as_ref().map_or(Html::default(), |b| html! {
                <span class="tombstone" data-testid="merged-bound" data-side={name.to_owned()} data-sstable={src.clone().unwrap_or_default()}>
                    { format!("{name} {} ({}) deleted at {} ", b.r#type, b.clustering.iter().map(|c| c.clone().unwrap_or_default()).collect::<Vec<_>>().join(", "), b.deletion_info.marked_deleted) }
                    { src.as_deref().map(badge).unwrap_or_default() }
                </span>
            })
        };
        return html! {
            <tr data-testid="merged-row" data-kind={kind.clone()}>
                <td>{ "range tombstone" }</td>
                <td colspan="2">{ side("end", &r.end, &s.marker_end) }{ side("start", &r.start, &s.marker_start) }</td>
                <td><button class="link" onclick={why} data-testid="merged-why">{ "why" }</button></td>
            </tr>
        };
    }
    let cells = r.cells.iter().enumerate().map(|(i, c)| {
        let sstable = s.cells.get(i).cloned().unwrap_or_default();
        let value = if c.deletion_info.is_some() {
            "✝ deleted".to_owned()
        } else {
            c.value.clone().unwrap_or_default()
        };
        let path = c.path.as_ref().map(|p| format!("[{}]", p.join(", "))).unwrap_or_default();
        let class = if c.deletion_info.is_some() {
            "cell tombstone"
        } else if c.expired == Some(true) {
            "cell expired"
        } else if c.ttl.is_some() {
            "cell ttl"
        } else {
            "cell"
        };
        html! {
            <span class="merged-cell" data-testid="merged-cell" data-name={c.name.clone()} data-value={c.value.clone().unwrap_or_default()}
                  data-path={c.path.as_ref().map(|p| serde_json::to_string(p).unwrap_or_default()).unwrap_or_default()}
                  data-tombstone={c.deletion_info.is_some().to_string()} data-sstable={sstable.clone()}>
                { format!("{}{path} = ", c.name) }<span class={class}>{ value }</span>{ " " }{ badge(&sstable) }{ " " }
            </span>
        }
    });
    html! {
        <tr data-testid="merged-row" data-kind={kind.clone()} data-clustering={serde_json::to_string(&clustering).unwrap_or_default()}
            data-sstables={s.sstables.join(",")} data-liveness-sstable={s.liveness.clone().unwrap_or_default()}
            data-deletion-sstable={s.deletion.clone().unwrap_or_default()}>
            <td>{ if s.is_static { "static".to_owned() } else { format!("({})", clustering.join(", ")) } }</td>
            <td>
                if let Some(l) = &r.liveness_info {
                    <span data-testid="merged-liveness">{ format!("written {} ", l.tstamp) }{ s.liveness.as_deref().map(badge).unwrap_or_default() }</span>
                }
                if let Some(d) = &r.deletion_info {
                    <span class="tombstone" data-testid="merged-row-deletion">{ format!(" row deleted at {} ", d.marked_deleted) }{ s.deletion.as_deref().map(badge).unwrap_or_default() }</span>
                }
            </td>
            <td>{ for cells }</td>
            <td><button class="link" onclick={why} data-testid="merged-why">{ "why" }</button></td>
        </tr>
    }
}

#[function_component(MergedView)]
pub fn merged_view(p: &MergedViewProps) -> Html {
    let state = use_state(State::default);
    let job = use_mut_ref(|| None::<u64>);
    let key_text = use_state(String::new);
    // (partition, row) whose "why" is open; row usize::MAX: the partition's own deletion.
    let why = use_state(|| None::<(usize, usize)>);
    // Rows shown per partition of the page.
    let shown_rows = use_state(|| ROWS_STEP);
    // "Now" for TTL expiry (the page's clock unless typed), as `read --now`.
    let now = use_state(|| (js_sys::Date::now() / 1000.0).floor() as i64);
    let sstables = table_sstables(&p.all, &p.table_key);
    // 2.x SSTables merge with the table's CREATE TABLE: typed, or a schema.cql dropped beside.
    let typed = use_state(|| p.create_table.clone());
    let schema_files = use_context::<SchemaFiles>().unwrap_or_default();
    let create_table = statement(
        &typed,
        &schema_files,
        sstables.iter().map(|(prefix, _)| prefix.as_str()),
    );
    let legacy = legacy_names(&p.all, &p.table_key);
    let schema_box = {
        let typed_handle = typed.clone();
        html! {
            <TableSchemaBox {legacy} typed={(*typed).clone()}
                from_file={create_table.is_some() && typed.trim().is_empty()}
                on_input={Callback::from(move |t: String| typed_handle.set(t))} testid="merged-schema" />
        }
    };

    let load = {
        let create_table = create_table.clone();
        let state = state.clone();
        let job = job.clone();
        let why = why.clone();
        let shown_rows = shown_rows.clone();
        let now_secs = *now;
        Callback::from(move |(skip, after, back, key): PageAt| {
            why.set(None);
            shown_rows.set(ROWS_STEP);
            let mut next = (*state).clone();
            next.progress = Some((0, 1));
            next.error = None;
            state.set(next.clone());
            let state = state.clone();
            pool::submit_in_slot(
                &job,
                Request::MergedPage {
                    job: 0,
                    sstables: sstables.clone(),
                    page: MergedPageRequest {
                        skip,
                        after_key_hex: after.clone(),
                        max_partitions: MERGED_PAGE_PARTITIONS,
                        wanted_key: key,
                        now_secs,
                        create_table: create_table.clone(),
                    },
                },
                move |reply| match reply {
                    Reply::Progress {
                        done_bytes,
                        total_bytes,
                        ..
                    } => {
                        let mut s = next.clone();
                        s.progress = Some((done_bytes, total_bytes));
                        state.set(s);
                    }
                    Reply::MergedPage { page, .. } => {
                        let MergedPageMessage(page) = *page;
                        let mut s = next.clone();
                        s.progress = None;
                        if let Some(e) = &page.not_found {
                            s.error = Some(e.clone());
                        } else {
                            s.skip = skip;
                            s.after = after.clone();
                            s.back = back.clone();
                            s.page = Some(Rc::new(page));
                        }
                        state.set(s);
                    }
                    Reply::Failed { message, .. } => {
                        let mut s = next.clone();
                        s.progress = None;
                        s.error = Some(message);
                        state.set(s);
                    }
                    _ => {}
                },
            );
        })
    };
    // The first page, again when the statement changes; leaving the mode cancels the job.
    {
        let load = load.clone();
        let job = job.clone();
        use_effect_with((p.table_key.clone(), create_table.clone()), move |_| {
            load.emit((0, None, Vec::new(), None));
            move || pool::cancel_slot(&job)
        });
    }
    let on_key = {
        let key_text = key_text.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(i) = e.target_dyn_into::<HtmlInputElement>() {
                key_text.set(i.value());
            }
        })
    };
    let on_find = {
        let load = load.clone();
        let key_text = key_text.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let k = (*key_text).trim().to_owned();
            load.emit((0, None, Vec::new(), Some(k).filter(|k| !k.is_empty())));
        })
    };
    let on_now = {
        let now = now.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().trim().parse::<i64>() {
                now.set(v);
            }
        })
    };
    let on_cancel = {
        let job = job.clone();
        Callback::from(move |_| {
            let running = *job.borrow();
            if let Some(running) = running {
                pool::cancel(running);
            }
        })
    };
    let page = state.page.clone();
    let on_prev = {
        let load = load.clone();
        let skip = state.skip;
        let back = state.back.clone();
        Callback::from(move |_| {
            let mut back = back.clone();
            let after = back.pop().flatten();
            load.emit((
                skip.saturating_sub(MERGED_PAGE_PARTITIONS as u64),
                after,
                back,
                None,
            ))
        })
    };
    let on_next = {
        let load = load.clone();
        let skip = state.skip;
        let shown = page.as_ref().map_or(0, |p| p.partitions.len()) as u64;
        // The cursor: the page's last key; the page's own cursor goes on the stack.
        let last = page
            .as_ref()
            .and_then(|p| p.partitions.last())
            .map(|p| p.partition.partition.key_hex.clone());
        let mut back = state.back.clone();
        back.push(state.after.clone());
        Callback::from(move |_| {
            load.emit((skip.saturating_add(shown), last.clone(), back.clone(), None))
        })
    };
    let on_why = {
        let why = why.clone();
        Callback::from(move |at: (usize, usize)| why.set(Some(at)))
    };
    let on_more = {
        let shown_rows = shown_rows.clone();
        Callback::from(move |_| shown_rows.set(*shown_rows + ROWS_STEP))
    };

    let panel = match (*why, page.as_ref()) {
        (Some((pi, ri)), Some(pg)) => pg
            .partitions
            .get(pi)
            .map(|part| {
                let close = {
                    let why = why.clone();
                    Callback::from(move |_| why.set(None))
                };
                let (what, losses, winners): (String, Vec<LossView>, Vec<(String, String)>) =
                    if ri == usize::MAX {
                        (
                            format!("partition {}", part.partition.partition.key.join(":")),
                            part.losses
                                .iter()
                                .filter(|l| owner(part, l).is_none())
                                .cloned()
                                .collect(),
                            part.deletion_sstable
                                .iter()
                                .map(|s| ("partition deletion".to_owned(), s.clone()))
                                .collect(),
                        )
                    } else {
                        let s = part.rows.get(ri).cloned().unwrap_or_default();
                        let row = part.partition.rows.get(ri);
                        let clustering = row.map_or(String::new(), |r| {
                            r.clustering
                                .iter()
                                .map(|c| c.clone().unwrap_or_default())
                                .collect::<Vec<_>>()
                                .join(", ")
                        });
                        let mut winners: Vec<(String, String)> = Vec::new();
                        if let Some(l) = &s.liveness {
                            winners.push(("row liveness".to_owned(), l.clone()));
                        }
                        if let Some(d) = &s.deletion {
                            winners.push(("row deletion".to_owned(), d.clone()));
                        }
                        if let Some(r) = row {
                            for (c, src) in r.cells.iter().zip(&s.cells) {
                                winners.push((format!("cell {}", c.name), src.clone()));
                            }
                        }
                        if let Some(e) = &s.marker_end {
                            winners.push(("range tombstone (closed)".to_owned(), e.clone()));
                        }
                        if let Some(st) = &s.marker_start {
                            winners.push(("range tombstone (opened)".to_owned(), st.clone()));
                        }
                        (
                            if s.is_static {
                                format!("static row of {}", part.partition.partition.key.join(":"))
                            } else {
                                format!(
                                    "row ({clustering}) of {}",
                                    part.partition.partition.key.join(":")
                                )
                            },
                            part.losses
                                .iter()
                                .filter(|l| owner(part, l) == Some(ri))
                                .cloned()
                                .collect(),
                            winners,
                        )
                    };
                html! { <div data-testid="why-for" data-at={format!("{pi}:{}", if ri == usize::MAX { "partition".to_owned() } else { ri.to_string() })}>
                    <WhyPanel {what} {losses} {winners} on_close={close} />
                </div> }
            })
            .unwrap_or_default(),
        _ => Html::default(),
    };

    let body = page.as_ref().map(|pg| {
        let rows_limit = *shown_rows;
        html! { <>
            <p class="timing" data-testid="merged-timing" data-skip={pg.skip.to_string()}
               data-wasm-memory={pg.wasm_memory_bytes.to_string()}>{ format!(
                "{} merged from {} ({}) in a worker in {:.0} ms, {} bytes of Data.db read, the worker's memory {:.1} MiB",
                plural(pg.partitions.len() as u64, "partition", "partitions"),
                plural(pg.sstables.len() as u64, "SSTable", "SSTables"), pg.sstables.join(", "),
                pg.millis, pg.bytes_read, pg.wasm_memory_bytes / 1_048_576.0) }</p>
            { for pg.partitions.iter().enumerate().map(|(pi, part)| {
                let why_partition = {
                    let on_why = on_why.clone();
                    Callback::from(move |_| on_why.emit((pi, usize::MAX)))
                };
                let shown = part.partition.rows.len().min(rows_limit);
                html! {
                    <article class="partition" data-testid="merged-partition" data-key={part.partition.partition.key.join(":")}
                             data-key-hex={part.partition.partition.key_hex.clone()} data-sstables={part.sstables.join(",")}>
                        <h3>
                            <span data-testid="partition-key">{ part.partition.partition.key.join(":") }</span>
                            { " " }{ for part.sstables.iter().map(|s| badge(s)) }
                            <span class="muted">{ format!("  {}; {} lost", plural(part.row_total as u64, "row", "rows"), part.loss_total) }</span>
                        </h3>
                        if let Some(d) = &part.partition.partition.deletion_info {
                            <p class="tombstone" data-testid="merged-partition-deletion" data-sstable={part.deletion_sstable.clone().unwrap_or_default()}>
                                { format!("partition deleted at {} ", d.marked_deleted) }{ part.deletion_sstable.as_deref().map(badge).unwrap_or_default() }
                            </p>
                        }
                        if part.losses.iter().any(|l| owner(part, l).is_none()) || part.partition.partition.deletion_info.is_some() {
                            <button class="link" onclick={why_partition} data-testid="merged-why-partition">{ "why (the partition deletion, and rows no longer read)" }</button>
                        }
                        <table class="grid">
                            <thead><tr><th>{ "clustering" }</th><th>{ "row marker / deletion" }</th><th>{ "cells" }</th><th></th></tr></thead>
                            <tbody>
                                { for part.partition.rows.iter().take(shown).enumerate().map(|(ri, r)| merged_row(part, ri, r, on_why.clone(), pi)) }
                            </tbody>
                        </table>
                        if part.row_total > shown {
                            <p class="muted">{ format!("{} of {} rows shown", shown, part.row_total) }
                                if part.partition.rows.len() > shown {
                                    <button class="link" onclick={on_more.clone()} data-testid="merged-more-rows">{ "more rows" }</button>
                                }
                            </p>
                        }
                    </article>
                }
            }) }
        </> }
    }).unwrap_or_default();

    html! {
        <div class="merged" data-testid="merged-view">
            <div class="data-controls">
                <form class="jump" onsubmit={on_find}>
                    <label>{ "Partition key: " }
                        <input type="text" value={(*key_text).clone()} oninput={on_key} data-testid="merged-key" spellcheck="false" />
                    </label>
                    <button class="tab" type="submit" data-testid="merged-find">{ "Find" }</button>
                </form>
                <label>{ " now (seconds since the epoch) " }
                    <input type="number" value={now.to_string()} onchange={on_now} data-testid="merged-now" />
                </label>
                <button class="tab" onclick={on_prev} disabled={state.skip == 0 || state.progress.is_some()} data-testid="merged-prev">{ "◀ Previous" }</button>
                <button class="tab" onclick={on_next} disabled={!page.as_ref().is_some_and(|p| p.more) || state.progress.is_some()} data-testid="merged-next">{ "Next ▶" }</button>
                if let Some((done, total)) = state.progress {
                    <progress data-testid="merged-progress" max={total.max(1).to_string()} value={done.to_string()} />
                    <button class="tab" onclick={on_cancel} data-testid="merged-cancel">{ "Cancel" }</button>
                }
            </div>
            { schema_box }
            if let Some(e) = &state.error { <p class="error" role="alert" data-testid="merged-error">{ e }</p> }
            { panel }
            { body }
        </div>
    }
}
