//! The data browser: partitions → rows → cells, a page at a time, with typed values; tombstones,
//! TTLs and expired cells marked; jump to a partition by key; an optional `CREATE TABLE` names the
//! key and clustering columns and is checked against the serialization header.
//!
//! 2.0–2.2 SSTables (`jb`, `ka`, `la`) are decoded by the engine's pre-3.0 path into the same
//! rows (their columns are the cell names found on the page: a 2.x Statistics.db has no schema),
//! and the "atoms" toggle lists the page's raw on-disk atoms, as `sstable-inspect dump --atoms`;
//! the `CREATE TABLE` box shows what the page's cell names tell of the table.
//!
//! Pages (and "Find") are decoded in the worker pool (`crate::worker::data_pages`); this
//! component only asks, renders, and cancels a page job it no longer waits for.

use sstable_engine::component::legacy_data::AtomJson;
use sstable_engine::dump::UnfilteredJson;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use std::rc::Rc;

use super::merged_view::{mode_toggle, MergedView};
use super::plural;
use crate::loader;
use crate::pool;
use crate::protocol::answers::SchemaAnswer;
use crate::protocol::pages::{CollectionLiteral, DataPage, PageMessage, PageRequest};
use crate::protocol::{Reply, Request};
use crate::state::{SSTableView, Shared};

const PAGE_PARTITIONS: usize = 10;
/// Rows shown per partition; the rest is summarised (the view never renders a whole huge partition).
const MAX_ROWS_SHOWN: usize = 200;
/// Rows of a partition laid out once a new page has settled, and added each time its table is
/// scrolled near its end: a page of partitions never lays out hundreds of rows at once.
const ROWS_PER_STEP: usize = 20;
/// Rows of a page's first partition in the page's first render (the other partitions start with
/// none); [`ROWS_PER_FRAME`] more each animation frame up to [`ROWS_PER_STEP`]: building and
/// laying out a page's 16-column tables in one task took 113–173 ms on the busy 2-core machine
/// (issue #12), a few rows per frame stay short.
const FIRST_ROWS: usize = 4;
/// Rows added to a partition's table each animation frame until it shows [`ROWS_PER_STEP`]; also
/// the size of a [`RowChunk`] (the first rows and every step are multiples of it).
const ROWS_PER_FRAME: usize = 2;

#[derive(Properties, PartialEq)]
pub struct DataBrowserProps {
    pub sstable: SSTableView,
    /// Every SSTable loaded: with more than one of this SSTable's table, the "Merged (table)"
    /// mode ([`MergedView`]) reads them merged.
    #[prop_or_default]
    pub all: Option<Shared<Vec<SSTableView>>>,
}

#[derive(Clone, PartialEq, Default)]
struct Browse {
    /// Start positions of the pages visited (for "previous").
    starts: Vec<u64>,
    page: Option<Rc<DataPage>>,
    /// What reading the page back from its worker took on the UI thread.
    parse_millis: f64,
    /// The page shown was asked as (start, key): the atoms toggle asks for it again.
    shown: Option<(u64, Option<String>)>,
    loading: bool,
    error: Option<String>,
    /// The read path of the last "Find", step by step.
    lookup_steps: Vec<String>,
}

/// What the data browser asks for: a page from `start`, or the partition of a key; with the
/// 2.x atoms or not.
type Load = (u64, Option<String>, bool);

#[function_component(DataBrowser)]
pub fn data_browser(props: &DataBrowserProps) -> Html {
    let browse = use_state(Browse::default);
    let key_text = use_state(String::new);
    let schema_text = use_state(String::new);
    let schema = use_state(SchemaAnswer::default);
    let schema_job = use_mut_ref(|| None::<u64>);
    // 2.x only: the page's raw atoms in place of its rows.
    let show_atoms = use_state(|| false);
    // The page job running in the pool: replaced (and cancelled) by the next, cancelled when the
    // browser is left.
    let job = use_mut_ref(|| None::<u64>);

    let load = {
        let browse = browse.clone();
        let view = props.sstable.clone();
        let job = job.clone();
        let create_table = (*schema_text).clone();
        Callback::from(move |(start, key, atoms): Load| {
            let mut next = (*browse).clone();
            next.loading = true;
            next.error = None;
            browse.set(next.clone());
            let request = page_request(
                &view,
                PageRequest {
                    wanted_key: key.clone(),
                    atoms,
                    max_rows_per_partition: Some(MAX_ROWS_SHOWN),
                    create_table: Some(create_table.clone()).filter(|t| !t.trim().is_empty()),
                    ..page_from(start)
                },
            );
            let browse = browse.clone();
            let slot = job.clone();
            pool::submit_in_slot(&job, request, move |reply: Reply| {
                if !reply.is_final() {
                    return;
                }
                let mut done = next.clone();
                done.loading = false;
                match reply {
                    Reply::DataPage { page, .. } => {
                        let PageMessage { page, parse_millis } = *page;
                        done.lookup_steps = page.lookup_steps.clone();
                        if let Some(not_found) = &page.not_found {
                            done.error = Some(not_found.clone());
                        } else if key.is_some() && page.partitions.is_empty() {
                            done.error = Some("no partition with that key in Data.db".to_owned());
                        } else {
                            if key.is_none() {
                                if done.starts.last() != Some(&start) {
                                    done.starts.push(start);
                                }
                            } else {
                                done.starts.clear();
                            }
                            done.shown = Some((start, key.clone()));
                            done.parse_millis = parse_millis;
                            done.page = Some(Rc::new(page));
                        }
                    }
                    Reply::Failed { message, .. } => done.error = Some(message),
                    _ => return,
                }
                // Rendered in a task of its own, not in the one that read the reply back.
                let browse = browse.clone();
                let job = slot.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    loader::yield_to_event_loop().await;
                    // A page asked for meanwhile replaces this one.
                    if job.borrow().is_none() {
                        browse.set(done);
                    }
                });
            });
        })
    };
    // Leaving the browser cancels its page job.
    {
        let job = job.clone();
        use_effect_with((), move |_| move || pool::cancel_slot(&job));
    }
    // The first page, once per SSTable.
    {
        let load = load.clone();
        let atoms = *show_atoms;
        use_effect_with(props.sstable.prefix.clone(), move |_| {
            load.emit((0, None, atoms));
        });
    }
    // 2.x: the page read again typed by the CREATE TABLE (3.0+ pages are typed by their header).
    {
        let load = load.clone();
        let atoms = *show_atoms;
        let legacy = browse
            .page
            .as_deref()
            .is_some_and(|p| p.legacy_note.is_some());
        use_effect_with((*schema_text).clone(), move |_| {
            if legacy {
                load.emit((0, None, atoms));
            }
        });
    }
    // The CREATE TABLE typed, parsed and checked against the header in a worker.
    {
        let schema = schema.clone();
        let job = schema_job.clone();
        let view = props.sstable.clone();
        use_effect_with((*schema_text).clone(), move |text| {
            if text.trim().is_empty() {
                pool::cancel_slot(&job);
                schema.set(SchemaAnswer::default());
            } else {
                let request = Request::Schema {
                    job: 0,
                    files: view.file_refs(),
                    text: text.clone(),
                };
                pool::submit_in_slot(&job, request, move |reply| {
                    if let Reply::Schema { answer, .. } = reply {
                        schema.set(answer);
                    }
                });
            }
        });
    }
    // The table's SSTables merged ("Merged (table)"), when more than one of them is loaded.
    let merged_mode = use_state(|| false);
    let table_key = sstable_engine::sstable_set::table_of(&props.sstable.prefix).key;
    let table_count = props.all.as_ref().map_or(0, |all| {
        super::merged_view::table_sstables(all, &table_key).len()
    });
    let modes = mode_toggle(table_count, &merged_mode);
    if let (true, true, Some(all)) = (*merged_mode, table_count > 1, props.all.clone()) {
        return html! {
            <section class="data-browser" data-testid="data-browser">
                { modes }
                <MergedView {all} {table_key} create_table={(*schema_text).clone()} />
            </section>
        };
    }
    let header = props.sstable.summary.header.clone();
    let mismatches = &schema.mismatches;
    let key_names: Vec<String> = schema.partition_key.clone();
    let legacy_page = browse.page.as_deref().filter(|p| p.legacy_note.is_some());
    // A 2.x page has no serialization header: its clustering width and columns are the rows'.
    let clustering_count = match legacy_page {
        Some(p) => p
            .partitions
            .iter()
            .flat_map(|p| &p.rows)
            .map(|r| r.clustering.len())
            .max()
            .unwrap_or(0),
        None => header.as_ref().map_or(0, |h| h.clustering_count),
    };
    let ck_names: Vec<String> = (0..clustering_count)
        .map(|i| {
            schema
                .clustering
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("clustering {i}"))
        })
        .collect();
    let columns: Rc<Vec<String>> = Rc::new(match legacy_page {
        Some(p) => {
            let mut names: Vec<String> = Vec::new();
            for c in p
                .partitions
                .iter()
                .flat_map(|p| &p.rows)
                .flat_map(|r| &r.cells)
            {
                if !names.contains(&c.name) {
                    names.push(c.name.clone());
                }
            }
            names
        }
        None => header
            .as_ref()
            .map(|h| h.columns.clone())
            .unwrap_or_default(),
    });
    // The atoms are decoded on demand: the page shown is asked for again with them.
    let on_atoms = {
        let show_atoms = show_atoms.clone();
        let load = load.clone();
        let shown = browse.shown.clone();
        Callback::from(move |_| {
            let atoms = !*show_atoms;
            show_atoms.set(atoms);
            if let (true, Some((start, key))) = (atoms, shown.clone()) {
                load.emit((start, key, true));
            }
        })
    };

    let on_next = {
        let load = load.clone();
        let next = browse.page.as_ref().and_then(|p| p.next_position);
        let atoms = *show_atoms;
        Callback::from(move |_| {
            if let Some(n) = next {
                load.emit((n, None, atoms));
            }
        })
    };
    let on_prev = {
        let load = load.clone();
        let browse = browse.clone();
        let atoms = *show_atoms;
        Callback::from(move |_| {
            let mut b = (*browse).clone();
            b.starts.pop();
            let start = b.starts.pop().unwrap_or(0);
            browse.set(b);
            load.emit((start, None, atoms));
        })
    };
    let on_key_input = {
        let key_text = key_text.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(i) = e.target_dyn_into::<HtmlInputElement>() {
                key_text.set(i.value());
            }
        })
    };
    let on_jump = {
        let load = load.clone();
        let key_text = key_text.clone();
        let atoms = *show_atoms;
        // The key is parsed in the worker (a bad key comes back as "key: …").
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            load.emit((0, Some((*key_text).clone()), atoms));
        })
    };
    let on_schema = {
        let schema_text = schema_text.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(t) = e.target_dyn_into::<HtmlTextAreaElement>() {
                schema_text.set(t.value());
            }
        })
    };

    html! {
        <section class="data-browser" data-testid="data-browser">
            { modes }
            <div class="data-controls">
                <form class="jump" onsubmit={on_jump}>
                    <label>{ "Partition key: " }
                        <input type="text" value={(*key_text).clone()} oninput={on_key_input} data-testid="data-key" spellcheck="false" />
                    </label>
                    <button class="tab" type="submit" data-testid="data-jump">{ "Find" }</button>
                </form>
                <button class="tab" onclick={on_prev} disabled={browse.starts.len() < 2} data-testid="data-prev">{ "◀ Previous" }</button>
                <button class="tab" onclick={on_next} disabled={browse.page.as_ref().is_none_or(|p| p.next_position.is_none())} data-testid="data-next">{ "Next ▶" }</button>
                if legacy_page.is_some() {
                    <label class="toggle">
                        <input type="checkbox" checked={*show_atoms} onclick={on_atoms} data-testid="data-atoms-toggle" />
                        { " atoms (the on-disk cells and range tombstones)" }
                    </label>
                }
                if browse.loading { <span class="muted" aria-live="polite">{ "decoding…" }</span> }
            </div>
            <details class="schema-box">
                <summary>{ "CREATE TABLE (optional: names the key and clustering columns)" }</summary>
                <textarea rows="4" oninput={on_schema} data-testid="data-schema" spellcheck="false"
                          placeholder="CREATE TABLE ks.t (pk text, ck text, val text, PRIMARY KEY (pk, ck))" />
                { for mismatches.iter().map(|m| html! { <p class="warning" data-testid="schema-mismatch">{ m }</p> }) }
                if let Some(inferred) = legacy_page.and_then(|p| p.legacy_schema.as_ref()) {
                    <p class="muted">{ "What this 2.x SSTable tells of its table (from the cell names of the page shown):" }</p>
                    <pre class="value" data-testid="legacy-schema">{ inferred }</pre>
                }
            </details>
            if let Some(e) = &browse.error { <p class="error" role="alert" data-testid="data-error">{ e }</p> }
            if !browse.lookup_steps.is_empty() {
                <details class="read-path" data-testid="read-path" open=true>
                    <summary>{ "read path" }</summary>
                    <ol>{ for browse.lookup_steps.iter().map(|s| html! { <li data-testid="read-step">{ s }</li> }) }</ol>
                </details>
            }
            if let Some(page) = &browse.page {
                <button class="tab" data-testid="export-dump" onclick={{
                    // The worker decodes the page again, every row, and answers with its JSON.
                    let view = props.sstable.clone();
                    let shown = browse.shown.clone();
                    let name = format!("{}-dump.json", props.sstable.prefix.rsplit('/').next().unwrap_or("sstable"));
                    Callback::from(move |_| {
                        let Some((start, key)) = shown.clone() else { return };
                        let name = name.clone();
                        let handler: pool::Handler = Rc::new(move |reply: Reply| {
                            if let Reply::DataPage { page, .. } = reply {
                                if let Some(json) = &page.page.export_json {
                                    let _ = loader::download_json(&name, json);
                                }
                            }
                        });
                        let request = page_request(
                            &view,
                            PageRequest {
                                wanted_key: key,
                                export: true,
                                ..page_from(start)
                            },
                        );
                        pool::submit(request, handler);
                    })
                }}>{ "Export this page as JSON" }</button>
                <p class="timing" data-testid="data-timing">{ format!("{} decoded in a worker from {} bytes read (read + decompress + decode) in {:.1} ms, {:.1} MB/s; read back on the page in {:.1} ms", plural(page.partitions.len() as u64, "partition", "partitions"), page.bytes_read, page.millis, page.bytes_read as f64 / 1e3 / page.millis.max(0.001), browse.parse_millis) }</p>
                <p class="legend muted" data-testid="cell-legend">
                    { "Cells: " }<span class="cell ttl">{ "value" }</span>{ " has a TTL (underlined; hover for when it expires) · " }
                    <span class="cell expired">{ "value" }</span>{ " its TTL has passed: expired (struck through) · " }
                    <span class="cell tombstone">{ "✝ deleted" }</span>{ " a cell tombstone" }
                </p>
                if let Some(note) = &page.legacy_note { <p class="muted" data-testid="legacy-note">{ note }</p> }
                { for page.findings.iter().map(|f| html! { <p class="warning">{ f }</p> }) }
                if let (Some(atoms), true) = (page.atoms.as_ref(), page.legacy_note.is_some() && *show_atoms) {
                    { for (0..atoms.len()).map(|i| atom_partition(page, i)) }
                } else {
                    { for (0..page.partitions.len()).map(|i| partition(page, i, &key_names, &ck_names, &columns)) }
                }
            }
        </section>
    }
}

/// Partition `index` of `page`: its rows are laid out by [`RowsTable`] as they are scrolled to,
/// so a render builds the few rows shown, not every row of the page.
fn partition(
    page: &Rc<DataPage>,
    index: usize,
    key_names: &[String],
    ck_names: &[String],
    columns: &Rc<Vec<String>>,
) -> Html {
    let Some(p) = page.partitions.get(index) else {
        return Html::default();
    };
    // The worker sends at most MAX_ROWS_SHOWN rows of a partition, and how many it has.
    let total_rows = page.row_totals.get(index).copied().unwrap_or(p.rows.len());
    let key = p
        .partition
        .key
        .iter()
        .enumerate()
        .map(|(i, v)| match key_names.get(i) {
            Some(n) => format!("{n} = {v}"),
            None => v.clone(),
        })
        .collect::<Vec<_>>()
        // As Find takes it and the Index tab prints it: `uuid:text` (named: `a = …, b = …`).
        .join(if key_names.is_empty() { ":" } else { ", " });
    let shown = p.rows.len().min(MAX_ROWS_SHOWN);
    html! {
        <article class="partition" data-testid="partition" data-key={p.partition.key.join(":")}>
            <h3>
                <span data-testid="partition-key">{ key }</span>
                <span class="muted">{ format!("  at {} · {}", p.partition.position, plural(total_rows as u64, "row", "rows")) }</span>
            </h3>
            if let Some(d) = &p.partition.deletion_info {
                <p class="tombstone">{ format!("partition deleted at {} (local {}{})", d.marked_deleted, d.local_delete_time, if d.invalid_local_delete_time { ", invalid" } else { "" }) }</p>
            }
            { for p.partition.findings.iter().map(|f| html! { <p class="warning">{ f }</p> }) }
            if !p.rows.is_empty() {
                <RowsTable key={p.partition.position.to_string()}
                    header={html! { <tr>
                        <th>{ "kind" }</th>
                        { for ck_names.iter().map(|n| html! { <th>{ n }</th> }) }
                        { for columns.iter().map(|n| html! { <th>{ n }</th> }) }
                        <th>{ "written" }</th>
                    </tr> }}
                    total={shown}
                    first={if index == 0 { FIRST_ROWS } else { 0 }}
                    page={PageRef(page.clone())}
                    {index}
                    kind={RowsOf::Rows { clustering_count: ck_names.len(), columns: columns.clone() }} />
            }
            if total_rows > shown {
                <p class="muted">{ format!("… {} more rows not shown (dump the partition with the CLI or export it)", total_rows - shown) }</p>
            }
        </article>
    }
}

/// A 2.x partition's raw atoms (`AtomsBuilder`'s view, 2.x sstable2json's shape).
fn atom_partition(page: &Rc<DataPage>, index: usize) -> Html {
    let Some(p) = page.atoms.as_ref().and_then(|a| a.get(index)) else {
        return Html::default();
    };
    let shown = p.atoms.len().min(MAX_ROWS_SHOWN);
    // The worker sends at most MAX_ROWS_SHOWN atoms of a partition; the counts are all of them.
    let total_atoms = p.atom_counts.total();
    let c = &p.atom_counts;
    let counts = format!(
        "{} cell, {} deleted, {} expiring, {} counter, {} counter_update, {} range_tombstone",
        c.cell, c.deleted, c.expiring, c.counter, c.counter_update, c.range_tombstone
    );
    html! {
        <article class="partition" data-testid="atom-partition" data-key={p.partition.key.clone()}>
            <h3>
                <span data-testid="partition-key">{ &p.partition.key }</span>
                <span class="muted">{ format!("  (0x{}) at {} · {} atoms: {counts}", p.partition.key_hex, p.partition.position, total_atoms) }</span>
            </h3>
            if let Some(d) = &p.partition.deletion_info {
                <p class="tombstone">{ format!("partition deleted at {} (local {})", d.marked_deleted, d.local_delete_time) }</p>
            }
            if !p.atoms.is_empty() {
                <RowsTable key={format!("atoms-{}", p.partition.position)}
                    header={html! { <tr>
                        <th>{ "type" }</th><th>{ "name" }</th><th>{ "value" }</th><th>{ "timestamp (µs)" }</th>
                        <th>{ "ttl / expires" }</th><th>{ "local deletion time" }</th><th>{ "range tombstone end" }</th><th class="num">{ "at" }</th>
                    </tr> }}
                    total={shown}
                    first={if index == 0 { FIRST_ROWS } else { 0 }}
                    page={PageRef(page.clone())}
                    {index}
                    kind={RowsOf::Atoms} />
            }
            if total_atoms > shown as u64 {
                <p class="muted">{ format!("… {} more atoms not shown (`sstable-inspect dump --atoms` lists them all)", total_atoms.saturating_sub(shown as u64)) }</p>
            }
        </article>
    }
}

/// One raw atom's table row.
fn atom_row(a: &AtomJson) -> Html {
    html! {
                        <tr data-testid="atom" class={classes!(matches!(a.r#type, "deleted" | "range_tombstone").then_some("tombstone"))}>
                            <td data-testid="atom-type">{ a.r#type }</td>
                            <td class="value" data-testid="atom-name">{ format!("[{}]", a.name.join(", ")) }</td>
                            <td class="value" data-testid="atom-value">{ a.value.clone().unwrap_or_default() }</td>
                            <td class="num">{ a.tstamp }</td>
                            <td>{ a.ttl.map(|t| format!("{t}s, expires {}", a.expires_at.clone().unwrap_or_default())).unwrap_or_default() }</td>
                            <td>{ a.local_deletion_time.clone().unwrap_or_default() }</td>
                            <td class="value">{ a.end.as_ref().map(|e| format!("[{}]", e.join(", "))).unwrap_or_default() }</td>
                            <td class="num">{ a.position }</td>
                        </tr>
    }
}

/// One row; `literals`: its non-frozen collection and UDT columns as cqlsh shows them (the
/// worker's `multi_cell_literal`), shown in place of their cells.
fn row(
    r: &UnfilteredJson,
    clustering_count: usize,
    columns: &[String],
    literals: &[&CollectionLiteral],
) -> Html {
    let kind = match r.r#type {
        "static_block" => "static",
        "range_tombstone_bound" | "range_tombstone_boundary" => "range tombstone",
        _ => "row",
    };
    let mut clustering: Vec<Html> = Vec::new();
    if r.start.is_some() || r.end.is_some() {
        let text = range_tombstone_words(r.start.as_ref(), r.end.as_ref());
        clustering.push(html! { <td class="tombstone" colspan={clustering_count.max(1).to_string()}>{ text }</td> });
    } else {
        for i in 0..clustering_count {
            let v = r.clustering.get(i).cloned().flatten();
            clustering
                .push(html! { <td class="value">{ v.unwrap_or_else(|| "null".into()) }</td> });
        }
    }
    let cells = columns.iter().map(|name| {
        let cells: Vec<_> = r.cells.iter().filter(|c| c.name == *name).collect();
        if cells.is_empty() {
            return html! { <td></td> };
        }
        if let Some(l) = literals.iter().find(|l| l.column == *name) {
            let mut class = classes!("cell", "collection");
            let ttl = cells.iter().find_map(|c| c.ttl.map(|t| (t, c)));
            if let Some((_, c)) = ttl {
                class.push(if c.expired == Some(true) { "expired" } else { "ttl" });
            }
            let title = cells
                .iter()
                .map(|c| {
                    let mut t = format!(
                        "{}: {}",
                        c.path.as_ref().map(|p| p.join(",")).unwrap_or_default(),
                        c.tstamp.clone().unwrap_or_default()
                    );
                    if let Some(ttl) = c.ttl {
                        t.push_str(&format!(
                            " ttl {ttl}s, expires {}",
                            c.expires_at.clone().unwrap_or_default()
                        ));
                    }
                    t
                })
                .collect::<Vec<_>>()
                .join("\n");
            return html! {
                <td class="value"><span {class} {title} data-testid="collection" data-column={name.clone()}>{ &l.literal }</span></td>
            };
        }
        let parts: Vec<Html> = cells
            .iter()
            .map(|c| {
                let mut class = classes!("cell");
                let mut text = String::new();
                if let Some(p) = &c.path {
                    text.push_str(&format!("{}: ", p.join(",")));
                }
                if c.deletion_info.is_some() {
                    class.push("tombstone");
                    text.push_str("✝ deleted");
                } else if let Some(v) = &c.value {
                    text.push_str(v);
                }
                let mut title = c.tstamp.clone().unwrap_or_default();
                if let Some(ttl) = c.ttl {
                    class.push(if c.expired == Some(true) {
                        "expired"
                    } else {
                        "ttl"
                    });
                    title.push_str(&format!(
                        " ttl {ttl}s, expires {}",
                        c.expires_at.clone().unwrap_or_default()
                    ));
                }
                if let Some(n) = &c.value_note {
                    title.push_str(&format!(" ({n})"));
                }
                html! { <span {class} title={title} data-testid="cell">{ text }</span> }
            })
            .collect();
        html! { <td class="value">{ for parts }</td> }
    });
    let written = r
        .liveness_info
        .as_ref()
        .map(|l| l.tstamp.clone())
        .or_else(|| r.cells.first().and_then(|c| c.tstamp.clone()))
        .unwrap_or_default();
    html! {
        <tr class={classes!(r.deletion_info.is_some().then_some("tombstone"))} data-testid="row">
            <td>{ kind }</td>
            { for clustering }
            { for cells }
            <td class="muted">{ written }</td>
        </tr>
    }
}

/// The page a [`RowsTable`] shows rows of: equal when it is the same page (not compared row by
/// row), so re-rendering the browser (e.g. "decoding…" while the next page is asked for) does
/// not rebuild the rows shown.
#[derive(Clone)]
struct PageRef(Rc<DataPage>);

impl PartialEq for PageRef {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// What a [`RowsTable`] lists of its partition.
#[derive(Clone, PartialEq)]
enum RowsOf {
    /// Its rows, with their clustering columns and the table's (or the page's) columns.
    Rows {
        clustering_count: usize,
        columns: Rc<Vec<String>>,
    },
    /// Its 2.x atoms.
    Atoms,
}

#[derive(Properties, PartialEq)]
struct RowsTableProps {
    header: Html,
    /// Rows in the table.
    total: usize,
    /// Rows in its first render (a multiple of [`ROWS_PER_FRAME`]).
    first: usize,
    page: PageRef,
    /// The partition's index in the page.
    index: usize,
    kind: RowsOf,
}

/// A partition's rows in their scroll box: `first` at first, [`ROWS_PER_FRAME`] more
/// each animation frame up to [`ROWS_PER_STEP`], then [`ROWS_PER_STEP`] more each time it is
/// scrolled near its end. Only the rows shown are built.
#[function_component(RowsTable)]
fn rows_table(props: &RowsTableProps) -> Html {
    let shown = use_state(|| props.first);
    let total = props.total;
    // The first rows of a new page grow a few a frame: no single task lays out a whole page.
    {
        let shown = shown.clone();
        use_effect_with(*shown, move |&n| {
            if n < ROWS_PER_STEP.min(total) {
                let more = wasm_bindgen::closure::Closure::once_into_js(move || {
                    shown.set(n.saturating_add(ROWS_PER_FRAME))
                });
                if let Some(w) = web_sys::window() {
                    let _ = w.request_animation_frame(wasm_bindgen::JsCast::unchecked_ref(&more));
                }
            }
        });
    }
    let onscroll = {
        let shown = shown.clone();
        Callback::from(move |e: Event| {
            let Some(el) = e.target_dyn_into::<web_sys::Element>() else {
                return;
            };
            let near_end = el.scroll_top() + el.client_height() * 2 >= el.scroll_height();
            // Not while the first rows still grow a frame at a time.
            if near_end && *shown >= ROWS_PER_STEP && *shown < total {
                shown.set(*shown + ROWS_PER_STEP);
            }
        })
    };
    // Rows in chunks of ROWS_PER_FRAME, each a component of its own: a chunk already shown keeps
    // equal props, so adding rows builds only the new ones.
    let chunks = (0..(*shown).min(total)).step_by(ROWS_PER_FRAME).map(|from| {
        html! {
            <RowChunk key={from} page={props.page.clone()} index={props.index} kind={props.kind.clone()}
                      {from} to={from.saturating_add(ROWS_PER_FRAME).min(*shown).min(total)} />
        }
    });
    html! {
        <div class="rows-scroll" {onscroll} data-testid="rows-scroll"
             data-rows-shown={(*shown).min(total).to_string()} data-rows={total.to_string()}>
            <table class="rows">
                <thead>{ props.header.clone() }</thead>
                <tbody>{ for chunks }</tbody>
            </table>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct RowChunkProps {
    page: PageRef,
    index: usize,
    kind: RowsOf,
    /// The rows `from..to` of the partition.
    from: usize,
    to: usize,
}

/// Rows `from..to` of a [`RowsTable`].
#[function_component(RowChunk)]
fn row_chunk(props: &RowChunkProps) -> Html {
    let page = &props.page.0;
    let index = props.index;
    let render_row = |i: usize| -> Html {
        match &props.kind {
            RowsOf::Rows {
                clustering_count,
                columns,
            } => page
                .partitions
                .get(index)
                .and_then(|p| p.rows.get(i))
                .map(|r| {
                    let literals: Vec<&CollectionLiteral> = page
                        .collections
                        .iter()
                        .filter(|l| l.partition == index && l.row == i)
                        .collect();
                    row(r, *clustering_count, columns, &literals)
                })
                .unwrap_or_default(),
            RowsOf::Atoms => page
                .atoms
                .as_ref()
                .and_then(|a| a.get(index))
                .and_then(|p| p.atoms.get(i))
                .map(atom_row)
                .unwrap_or_default(),
        }
    };
    html! { for (props.from..props.to).map(render_row) }
}

/// [`PAGE_PARTITIONS`] partitions from `start`, every row, no atoms, no export, "now" from the
/// page's clock.
fn page_from(start: u64) -> PageRequest {
    PageRequest {
        start,
        max_partitions: PAGE_PARTITIONS,
        wanted_key: None,
        atoms: false,
        now_seconds: (js_sys::Date::now() / 1000.0) as i64,
        max_rows_per_partition: None,
        export: false,
        create_table: None,
    }
}

/// The worker request for `page` of `view`'s Data.db.
fn page_request(view: &SSTableView, page: PageRequest) -> Request {
    Request::DataPage {
        job: 0,
        sstable: view.prefix.clone(),
        files: view.file_refs(),
        page,
    }
}

/// A range tombstone marker in words, with each bound's deletion time: `from [104] inclusive
/// (deleted at …, local …) to [104] exclusive`; an empty bound is the partition's start or end.
fn range_tombstone_words(
    start: Option<&sstable_engine::dump::BoundJson>,
    end: Option<&sstable_engine::dump::BoundJson>,
) -> String {
    let bound = |b: &sstable_engine::dump::BoundJson, side: &str, open: &str| {
        let at = if b.clustering.is_empty() {
            open.to_owned()
        } else {
            format!(
                "[{}] {}",
                b.clustering
                    .iter()
                    .map(|v| v.clone().unwrap_or_else(|| "null".into()))
                    .collect::<Vec<_>>()
                    .join(", "),
                b.r#type
            )
        };
        let d = &b.deletion_info;
        format!(
            "{side} {at} (deleted at {}, local deletion time {}{})",
            d.marked_deleted,
            d.local_delete_time,
            if d.invalid_local_delete_time {
                ", invalid"
            } else {
                ""
            }
        )
    };
    [
        start.map(|b| bound(b, "from", "the partition's start")),
        end.map(|b| bound(b, "to", "the partition's end")),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ")
}
