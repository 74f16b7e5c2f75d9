//! The Analytics tab's "Resurrection risks" for the SSTables loaded of one table: every
//! tombstone droppable at (now, gc_grace) that shadows live data in another SSTable — which
//! comes back if the tombstone's SSTable is compacted without the other — and the droppable
//! tombstones that shadow nothing (`sstable_engine::merge::zombies`, as `sstable-inspect zombies
//! DIR --gc-grace S --now T`).
//!
//! The scan runs in the worker pool (`Request::Zombies`: the SSTables merged partition by
//! partition there), with progress and Cancel; the findings are shown a page at a time
//! ([`PAGE_FINDINGS`]).

use sstable_engine::datetime::{iso8601_micros, iso8601_secs};
use yew::prelude::*;

use super::job_run::{self, JobRun};
use super::merged_view::table_sstables;
use super::plural;
use super::table_schema::{legacy_names, statement, TableSchemaBox};
use crate::pool;
use crate::protocol::table::{ZombieFinding, ZombieReport};
use crate::protocol::{Reply, Request};
use crate::state::{SSTableView, SchemaFiles, Shared};

/// Findings shown per page.
pub const PAGE_FINDINGS: usize = 50;

#[derive(Properties, PartialEq)]
pub struct ZombiesViewProps {
    /// The SSTables loaded of the table (prefix, files are read from `all`).
    pub all: Shared<Vec<SSTableView>>,
    /// `sstable_set::table_of(prefix).key` of the table.
    pub table_key: String,
    /// The tab's gc_grace_seconds.
    pub gc_grace_secs: i64,
}

type Run = JobRun<ZombieReport>;

/// The browser clock, whole seconds since the epoch (the CLI's default "now").
fn clock_now_secs() -> i64 {
    (js_sys::Date::now() / 1000.0).floor() as i64
}

fn clustering_text(is_static: bool, values: &[String]) -> String {
    if is_static {
        "static row".to_owned()
    } else if values.is_empty() {
        "—".to_owned()
    } else {
        format!("({})", values.join(", "))
    }
}

fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    }
}

fn finding_row(f: &ZombieFinding) -> Html {
    let t = &f.tombstone;
    let mut what = clustering_text(t.is_static, &t.clustering);
    if let Some(end) = &t.range_end {
        what.push_str(&format!(" … ({})", end.join(", ")));
    }
    if let Some(c) = &t.column {
        what.push_str(&format!(" column {c}"));
    }
    if let Some(p) = &t.path_hex {
        what.push_str(&format!(" path 0x{p}"));
    }
    let tombstone = format!(
        "{} in {}: markedForDeleteAt {} ({}), deleted {}",
        t.kind,
        t.sstable,
        t.marked_for_delete_at_micros,
        iso8601_micros(t.marked_for_delete_at_micros),
        iso8601_secs(t.local_deletion_time_secs)
    );
    let clustering_json = serde_json::to_string(&t.clustering).unwrap_or_default();
    match &f.shadowed {
        Some(s) => {
            let shadowed = format!(
                "{} piece(s) of the {} in {}, newest {} ({})",
                s.pieces,
                if s.is_static {
                    "static row".to_owned()
                } else {
                    format!("row {}", clustering_text(false, &s.clustering))
                },
                s.sstable,
                s.timestamp_micros,
                iso8601_micros(s.timestamp_micros)
            );
            let overlap = format!(
                "token ranges intersect: {}; levels {}/{}{}; the purge evaluator keeps the tombstone while both are live: {}",
                yes_no(s.token_ranges_intersect),
                s.tombstone_level.map_or("?".to_owned(), |l| l.to_string()),
                s.shadowed_level.map_or("?".to_owned(), |l| l.to_string()),
                if s.same_level_above_zero { " (one level above 0: compacted apart)" } else { "" },
                if s.purge_evaluator_keeps_tombstone { "yes" } else { "no" },
            );
            html! {
                <tr data-testid="zombie-finding" data-finding="resurrection" data-key-hex={f.key_hex.clone()}
                    data-kind={t.kind.clone()} data-sstable={t.sstable.clone()} data-clustering={clustering_json}
                    data-column={t.column.clone().unwrap_or_default()} data-mfda={t.marked_for_delete_at_micros.to_string()}
                    data-shadowed-sstable={s.sstable.clone()} data-shadowed-static={s.is_static.to_string()}
                    data-shadowed-clustering={serde_json::to_string(&s.clustering).unwrap_or_default()}
                    data-shadowed-timestamp={s.timestamp_micros.to_string()} data-pieces={s.pieces.to_string()}>
                    <td>{ "resurrection" }</td><td><code>{ &f.key_text }</code></td><td>{ what }</td>
                    <td>{ tombstone }</td><td>{ shadowed }</td><td>{ overlap }</td>
                </tr>
            }
        }
        None => html! {
            <tr data-testid="zombie-finding" data-finding="garbage" data-key-hex={f.key_hex.clone()}
                data-kind={t.kind.clone()} data-sstable={t.sstable.clone()} data-clustering={clustering_json}
                data-column={t.column.clone().unwrap_or_default()} data-mfda={t.marked_for_delete_at_micros.to_string()}>
                <td>{ "garbage" }</td><td><code>{ &f.key_text }</code></td><td>{ what }</td>
                <td>{ tombstone }</td><td>{ "nothing in any SSTable" }</td><td>{ "droppable at the next compaction" }</td>
            </tr>
        },
    }
}

#[function_component(ZombiesView)]
pub fn zombies_view(p: &ZombiesViewProps) -> Html {
    let run = use_state(Run::default);
    let job = use_mut_ref(|| None::<u64>);
    let now = use_state(clock_now_secs);
    let page = use_state(|| 0usize);
    let sstables = table_sstables(&p.all, &p.table_key);
    let count = sstables.len();
    // 2.x SSTables merge with the table's CREATE TABLE: typed, or a schema.cql dropped beside.
    let typed = use_state(String::new);
    let schema_files = use_context::<SchemaFiles>().unwrap_or_default();
    let create_table = statement(
        &typed,
        &schema_files,
        sstables.iter().map(|(prefix, _)| prefix.as_str()),
    );
    let schema_box = {
        let typed_handle = typed.clone();
        html! {
            <TableSchemaBox legacy={legacy_names(&p.all, &p.table_key)} typed={(*typed).clone()}
                from_file={create_table.is_some() && typed.trim().is_empty()}
                on_input={Callback::from(move |t: String| typed_handle.set(t))} testid="zombies-schema" />
        }
    };

    let on_run = {
        let run = run.clone();
        let job = job.clone();
        let page = page.clone();
        let gc_grace_secs = p.gc_grace_secs;
        let now_secs = *now;
        Callback::from(move |_| {
            page.set(0);
            job_run::start(
                &job,
                &run,
                Request::Zombies {
                    job: 0,
                    sstables: sstables.clone(),
                    create_table: create_table.clone(),
                    gc_grace_secs,
                    now_secs,
                },
                |reply| match reply {
                    Reply::Zombies { report, .. } => Some(*report),
                    _ => None,
                },
            );
        })
    };
    let on_cancel = job_run::cancel(&job);
    let on_now = {
        let now = now.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().trim().parse::<i64>() {
                now.set(v);
            }
        })
    };
    // Leaving the tab cancels the scan.
    {
        let job = job.clone();
        use_effect_with((), move |_| move || pool::cancel_slot(&job));
    }

    let result = match &run.result {
        None => html! {},
        Some(Err(e)) => {
            html! { <p class="error" role="alert" data-testid="zombies-error">{ e }</p> }
        }
        Some(Ok(r)) => {
            let pages = r.findings.len().div_ceil(PAGE_FINDINGS).max(1);
            let at = (*page).min(pages - 1);
            let shown = r
                .findings
                .iter()
                .skip(at * PAGE_FINDINGS)
                .take(PAGE_FINDINGS);
            let go = |to: usize| {
                let page = page.clone();
                Callback::from(move |_| page.set(to))
            };
            let stale = r.gc_grace_secs != p.gc_grace_secs || r.now_secs != *now;
            html! { <>
                <p data-testid="zombies-summary" data-resurrections={r.resurrections.to_string()} data-garbage={r.garbage.to_string()}
                   data-partitions={r.partitions.to_string()} data-complete={r.error.is_none().to_string()}
                   data-findings={r.findings.len().to_string()} data-gc-grace={r.gc_grace_secs.to_string()}
                   data-wasm-memory={r.wasm_memory_bytes.to_string()}>
                    { format!("{} merged from {} in {:.0} ms (in a worker, {} bytes of Data.db read) at now {} (gc_grace_seconds {}, gcBefore {}): {}, {} that shadow nothing (droppable garbage); the worker's memory {:.1} MiB",
                        plural(r.partitions, "partition", "partitions"), plural(r.sstables.len() as u64, "SSTable", "SSTables"),
                        r.millis, r.bytes_read, iso8601_secs(r.now_secs), r.gc_grace_secs, iso8601_secs(r.gc_before_secs),
                        plural(r.resurrections, "resurrection risk", "resurrection risks"),
                        plural(r.garbage, "droppable tombstone", "droppable tombstones"), r.wasm_memory_bytes / 1_048_576.0) }
                    if (r.findings.len() as u64) < r.resurrections.saturating_add(r.garbage) {
                        { format!("; the first {} are listed", r.findings.len()) }
                    }
                </p>
                if stale {
                    <p class="muted" data-testid="zombies-stale">{ "gc_grace_seconds or now changed since this scan: run it again for the new values." }</p>
                }
                if let Some(e) = &r.error {
                    <p class="error" role="alert" data-testid="zombies-error">{ format!("The scan stopped: {e}") }</p>
                }
                if !r.findings.is_empty() {
                    <table class="grid" data-testid="zombie-findings">
                        <thead><tr><th>{ "finding" }</th><th>{ "key" }</th><th>{ "where" }</th><th>{ "droppable tombstone" }</th>
                            <th>{ "shadowed data" }</th><th>{ "compaction overlap" }</th></tr></thead>
                        <tbody>{ for shown.map(finding_row) }</tbody>
                    </table>
                    if pages > 1 {
                        <p class="pager">
                            <button data-testid="zombies-prev" disabled={at == 0} onclick={go(at.saturating_sub(1))}>{ "Previous" }</button>
                            <span data-testid="zombies-page">{ format!(" page {} of {} ", at + 1, pages) }</span>
                            <button data-testid="zombies-next" disabled={at + 1 >= pages} onclick={go(at + 1)}>{ "Next" }</button>
                        </p>
                    }
                }
            </> }
        }
    };

    html! {
        <section data-testid="zombies">
            <h4>{ "Resurrection risks" }</h4>
            <p class="muted">{ format!(
                "A tombstone droppable at (now, gc_grace_seconds) that hides data in another SSTable: if its SSTable is compacted without that one, the data comes back. The {count} SSTables are merged in a worker." ) }</p>
            <p>
                <label>{ "now (seconds since the epoch) " }
                    <input type="number" value={now.to_string()} onchange={on_now} data-testid="zombies-now" />
                </label>
                { " " }
                <button onclick={on_run} data-testid="zombies-run" disabled={run.progress.is_some()}>{ "Find resurrection risks" }</button>
                if let Some((done, total)) = run.progress {
                    <progress data-testid="zombies-progress" max={total.max(1).to_string()} value={done.to_string()} />
                    <button onclick={on_cancel} data-testid="zombies-cancel">{ "Cancel" }</button>
                }
            </p>
            { schema_box }
            { result }
        </section>
    }
}
