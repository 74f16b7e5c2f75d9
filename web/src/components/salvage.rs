//! Salvage (issue #28): the engine's scrub of the selected SSTable in a worker
//! (`Request::Salvage`, `crate::worker`'s scrub — what `sstable-inspect scrub` runs), with a
//! progress bar and Cancel; then the report (partitions kept, and each one dropped, cut short or
//! segregated with its key, token, reason and Data.db range) and the new SSTables' files to
//! download, one by one or as one tar. On an SSTable that verified invalid or could not be
//! verified it is offered as "Salvage"; on any other 3.0+ SSTable as a rewrite as nb or oa.

use std::rc::Rc;

use yew::prelude::*;

use super::job_run::{self, JobRun};
use super::plural;
use super::sstable_card::human_bytes;
use crate::loader;
use crate::pool;
use crate::protocol::salvage::{Salvage, SalvageProblem};
use crate::protocol::{FileRef, Reply, Request};
use crate::state::{SSTableView, Verdict};

/// At most this many problems are listed (all are in the report's JSON).
const MAX_LISTED: usize = 200;

#[derive(Properties, PartialEq)]
pub struct SalvageViewProps {
    pub sstable: SSTableView,
    /// The last verification's verdict (`None`: not verified).
    pub verdict: Option<Verdict>,
}

type Run = JobRun<Salvage>;

#[function_component(SalvageView)]
pub fn salvage_view(p: &SalvageViewProps) -> Html {
    let run = use_state(Run::default);
    let job = use_mut_ref(|| None::<u64>);
    let version = use_state(|| "nb");
    let segregate = use_state(|| false);
    {
        // Leaving the view (or another SSTable) cancels a salvage still running.
        let job = job.clone();
        use_effect_with(p.sstable.prefix.clone(), move |_| {
            move || pool::cancel_slot(&job)
        });
    }
    let start = {
        let run = run.clone();
        let job = job.clone();
        let files = p.sstable.file_refs();
        let mode = if *segregate { "segregate" } else { "skip" };
        let version = *version;
        Callback::from(move |_| {
            let request = Request::Salvage {
                job: 0,
                files: files.clone(),
                mode: mode.to_owned(),
                version: version.to_owned(),
            };
            job_run::start(&job, &run, request, |reply| match reply {
                Reply::Salvaged { salvage, .. } => Some(*salvage),
                _ => None,
            });
        })
    };
    let cancel = job_run::cancel(&job);
    let pick = |v: &'static str| {
        let version = version.clone();
        Callback::from(move |_| version.set(v))
    };
    let toggle_segregate = {
        let segregate = segregate.clone();
        Callback::from(move |_| segregate.set(!*segregate))
    };
    let broken = matches!(
        p.verdict,
        Some(Verdict::Invalid | Verdict::NotVerifiable(_))
    );
    let action = if broken { "Salvage" } else { "Rewrite" };
    html! {
        <section class="salvage" data-testid="salvage">
            <h3>{ if broken { "Salvage what is still good" } else { "Rewrite as nb or oa" } }</h3>
            <p class="muted">{ "The scrub of sstable-inspect scrub, run here in a worker: every partition that decodes, in a chunk whose checksum passes and in token order, is written to a new SSTable with every component; the others are reported (segregate: out-of-order and repeated keys go to further SSTables). Your files are only read." }</p>
            <div class="data-controls">
                <label><input type="radio" name="salvage-version" checked={*version == "nb"} onchange={pick("nb")} data-testid="salvage-nb" />{ " nb (4.x)" }</label>
                <label><input type="radio" name="salvage-version" checked={*version == "oa"} onchange={pick("oa")} data-testid="salvage-oa" />{ " oa (5.0)" }</label>
                <label><input type="checkbox" checked={*segregate} onchange={toggle_segregate} data-testid="salvage-segregate" />{ " segregate" }</label>
                <button class="tab active" onclick={start} disabled={run.progress.is_some()} data-testid="salvage-start">{ action }</button>
                if run.progress.is_some() {
                    <button class="tab" onclick={cancel} data-testid="salvage-cancel">{ "Cancel" }</button>
                }
            </div>
            if let Some((done, total)) = run.progress {
                <progress data-testid="salvage-progress" max={total.max(1).to_string()} value={done.to_string()} />
                <span class="muted">{ format!(" {} of {} of Data.db (in a worker)", human_bytes(done), human_bytes(total)) }</span>
            }
            { match &run.result {
                Some(Ok(s)) => report(s),
                Some(Err(e)) => html! { <p class="error" data-testid="salvage-error">{ e }</p> },
                None => html! {},
            } }
        </section>
    }
}

fn report(s: &Rc<Salvage>) -> Html {
    let json = s.report_json.clone();
    let export = Callback::from(move |_| {
        let _ = loader::download_json("scrub-report.json", &json);
    });
    html! {
        <div data-testid="salvage-report" data-clean={s.clean.to_string()}
             data-kept={s.partitions_kept.to_string()} data-read={s.partitions_read.to_string()}
             data-problems={s.problems.len().to_string()}
             data-wasm-memory={s.wasm_memory_bytes.to_string()}>
            <p class={classes!("badge", if s.clean { "ok" } else { "warn" })} data-testid="salvage-summary">{ format!(
                "{} read, {} kept whole, {} written, {}",
                plural(s.partitions_read, "partition", "partitions"),
                s.partitions_kept,
                plural(s.rows_kept, "row", "rows"),
                plural(s.problems.len() as u64, "problem", "problems"),
            ) }</p>
            <p class="muted" data-testid="salvage-memory">{ format!(
                "The worker's memory: {} (the new files are Blobs outside it).",
                human_bytes(s.wasm_memory_bytes as u64),
            ) }</p>
            { for s.notes.iter().map(|n| html! { <p class="warning" data-testid="salvage-note">{ n }</p> }) }
            if !s.problems.is_empty() {
                <table class="components" data-testid="salvage-problems">
                    <thead><tr>
                        <th>{ "Key" }</th><th>{ "Token" }</th><th>{ "What" }</th><th>{ "Why" }</th><th class="num">{ "Data.db bytes" }</th>
                    </tr></thead>
                    <tbody>{ for s.problems.iter().take(MAX_LISTED).map(problem_row) }</tbody>
                </table>
                if s.problems.len() > MAX_LISTED {
                    <p class="muted">{ format!("The first {MAX_LISTED} are listed; the report JSON has all {}.", s.problems.len()) }</p>
                }
            }
            { for s.outputs.iter().map(|o| html! {
                <div class="salvage-output" data-testid="salvage-output" data-prefix={o.prefix.clone()}>
                    <p>{ format!("{}: {}, {}", o.prefix, plural(o.partitions, "partition", "partitions"), plural(o.rows, "row", "rows")) }</p>
                    <ul>{ for o.files.iter().map(file_link) }</ul>
                </div>
            }) }
            if let Some(archive) = &s.archive {
                <button class="button small" data-testid="salvage-download-all" onclick={download(archive)}>
                    { format!("Download all ({}, {})", archive.path, human_bytes(archive.file.size() as u64)) }
                </button>
            }
            <button class="button small" data-testid="salvage-export" onclick={export}>{ "Export report JSON" }</button>
        </div>
    }
}

fn problem_row(p: &SalvageProblem) -> Html {
    let end = p.end.map_or("?".to_owned(), |e| e.to_string());
    html! {
        <tr data-testid="salvage-problem" data-key={p.key.clone()} data-start={p.start.to_string()}>
            <td><code>{ &p.key }</code></td>
            <td class="num">{ &p.token }</td>
            <td>{ &p.outcome }</td>
            <td>{ format!("{}: {}", p.kind, p.reason) }</td>
            <td class="num">{ format!("{}..{end}", p.start) }</td>
        </tr>
    }
}

fn download(f: &FileRef) -> Callback<MouseEvent> {
    let f = f.clone();
    Callback::from(move |_| {
        let _ = loader::download_blob(&f.path, &f.file);
    })
}

fn file_link(f: &FileRef) -> Html {
    html! {
        <li>
            <button class="button small" data-testid="salvage-file" data-name={f.path.clone()} onclick={download(f)}>{ &f.path }</button>
            { format!(" {}", human_bytes(f.file.size() as u64)) }
        </li>
    }
}
