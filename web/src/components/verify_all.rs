//! "Verify all" on the overview: every SSTable loaded goes to the worker pool; one progress bar,
//! a badge on each card as it finishes, a summary (valid / invalid / not verifiable and why),
//! cancel, and the JSON export of every report.

use std::collections::BTreeMap;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::plural;
use crate::loader;
use crate::pool;
use crate::state::{State, Verdict, VerifyRun};
use crate::verification;
use sstable_engine::verify::{Check, CheckKind};

#[derive(Properties, PartialEq)]
pub struct VerifyAllProps {
    pub state: UseReducerHandle<State>,
}

#[function_component(VerifyAllPanel)]
pub fn verify_all_panel(props: &VerifyAllProps) -> Html {
    let state = &props.state;
    let workers = use_state(pool::size);
    let on_start = {
        let state = state.clone();
        Callback::from(move |_| verification::start_all(&state))
    };
    let on_cancel = {
        let state = state.clone();
        Callback::from(move |_| verification::cancel_all(&state))
    };
    let on_workers = {
        let workers = workers.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(n) = input.value().parse::<usize>() {
                pool::set_size(n);
                workers.set(pool::size());
            }
        })
    };
    let on_export = {
        let state = state.clone();
        Callback::from(move |_| {
            let json = verification::export_all_json(&state);
            let _ = loader::download_json("verify-all.json", &json);
        })
    };
    let running = state
        .verify_all
        .as_ref()
        .is_some_and(|a| a.finished < a.jobs.len() && !a.cancelled);
    html! {
        <section class="verify-all" data-testid="verify-all">
            <div class="data-controls">
                <button class="tab active" onclick={on_start} disabled={running} data-testid="verify-all-start">
                    { format!("Verify all {} SSTables", state.sstables.len()) }
                </button>
                <label>{ "workers " }
                    <input type="number" min="1" max={pool::MAX_WORKERS.to_string()} value={workers.to_string()}
                           onchange={on_workers} data-testid="pool-size" />
                </label>
                if running {
                    <button class="tab" onclick={on_cancel} data-testid="verify-all-cancel">{ "Cancel" }</button>
                }
            </div>
            if let Some(all) = &state.verify_all {
                <progress data-testid="verify-all-progress" max={all.jobs.len().max(1).to_string()} value={all.finished.to_string()} />
                <span class="muted" data-testid="verify-all-progress-text">
                    { format!(" {} of {} SSTables", all.finished, all.jobs.len()) }
                    { all.finished_millis.map(|end| format!(" in {:.0} ms", end - all.started_millis)).unwrap_or_default() }
                </span>
                { summary(state) }
                if all.finished == all.jobs.len() || all.cancelled {
                    <button class="tab" data-testid="export-verify-all" onclick={on_export}>{ "Export all reports as JSON" }</button>
                }
            }
        </section>
    }
}

/// How an invalid SSTable failed, in words: "digest only" when every failed check is the
/// whole-file digest (each chunk passed), else the failing chunks by number, then any other check.
pub fn failure_words(run: &VerifyRun) -> String {
    let failed: Vec<&Check> = run.checks.iter().filter(|c| !c.ok).collect();
    if !failed.is_empty() && failed.iter().all(|c| c.kind == CheckKind::Digest) {
        let chunked = run
            .checks
            .iter()
            .any(|c| matches!(c.kind, CheckKind::Chunk | CheckKind::CrcDb));
        return if chunked {
            format!("digest only ({}; every chunk passed)", components(&failed))
        } else {
            format!("digest only ({})", components(&failed))
        };
    }
    let mut parts = Vec::new();
    let chunk_checks: Vec<&&Check> = failed
        .iter()
        .filter(|c| {
            matches!(
                c.kind,
                CheckKind::Chunk | CheckKind::CrcDb | CheckKind::Decompress
            )
        })
        .collect();
    if !chunk_checks.is_empty() {
        let failed_chunks: u64 = chunk_checks.iter().map(|c| c.failed).sum();
        let mut named: Vec<u64> = chunk_checks
            .iter()
            .flat_map(|c| c.failures.iter().filter_map(|f| f.chunk))
            .collect();
        sstable_engine::sort::sort(&mut named);
        named.dedup();
        let mut list: Vec<String> = named.iter().map(u64::to_string).collect();
        let more = failed_chunks.saturating_sub(named.len() as u64);
        if more > 0 {
            list.push(format!("{more} more"));
        }
        let count = failed_chunks.max(named.len() as u64);
        let noun = if count == 1 { "chunk" } else { "chunks" };
        let verb = if count == 1 { "fails" } else { "fail" };
        let list = match list.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => list.join(""),
        };
        parts.push(format!("{noun} {list} {verb}"));
    }
    for c in failed.iter().filter(|c| {
        !matches!(
            c.kind,
            CheckKind::Chunk | CheckKind::CrcDb | CheckKind::Decompress
        )
    }) {
        parts.push(format!("{} fails", c.component));
    }
    if parts.is_empty() {
        parts.push(run.errors.join("; "));
    }
    parts.join("; ")
}

fn components(checks: &[&Check]) -> String {
    checks
        .iter()
        .map(|c| c.component.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn summary(state: &State) -> Html {
    let Some(all) = &state.verify_all else {
        return Html::default();
    };
    let mut valid = 0usize;
    let mut invalid: Vec<(String, String)> = Vec::new();
    let mut cancelled = Vec::new();
    let mut not_verifiable: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (prefix, _) in &all.jobs {
        let run = state
            .verified
            .iter()
            .find(|(p, _)| p == prefix)
            .map(|(_, r)| r);
        match run.map(|r| &r.verdict) {
            Some(Verdict::Valid) => valid += 1,
            Some(Verdict::Invalid) => invalid.push((
                prefix.clone(),
                run.map(|r| failure_words(r)).unwrap_or_default(),
            )),
            Some(Verdict::NotVerifiable(why)) => not_verifiable
                .entry(why.clone())
                .or_default()
                .push(prefix.clone()),
            Some(Verdict::Cancelled) => cancelled.push(prefix.clone()),
            None => {}
        }
    }
    let (digest_only, chunks): (Vec<_>, Vec<_>) = invalid
        .iter()
        .partition(|(_, words)| words.starts_with("digest only"));
    let not_verifiable_count: usize = not_verifiable.values().map(Vec::len).sum();
    let names = |prefixes: &mut dyn Iterator<Item = &String>| -> Html {
        html! { for prefixes.map(|p| html! { <><code data-testid="summary-sstable">{ p }</code>{ " " }</> }) }
    };
    let invalid_group = |title: &str, group: &[&(String, String)], testid: &'static str| -> Html {
        if group.is_empty() {
            return Html::default();
        }
        html! {
            <div class="summary-group" data-testid={testid}>
                <p>{ format!("Invalid, {title} ({}):", plural(group.len() as u64, "SSTable", "SSTables")) }</p>
                <ul>
                    { for group.iter().map(|(p, words)| html! {
                        <li><code data-testid="summary-sstable">{ p }</code>{ format!(" — {words}") }</li>
                    }) }
                </ul>
            </div>
        }
    };
    html! {
        <div class="verify-summary" data-testid="verify-all-summary"
             data-valid={valid.to_string()} data-invalid={invalid.len().to_string()}
             data-not-verifiable={not_verifiable_count.to_string()} data-cancelled={cancelled.len().to_string()}>
            <span class="badge ok">{ format!("{valid} valid") }</span>{ " " }
            <span class="badge bad">{ format!("{} invalid", invalid.len()) }</span>{ " " }
            <span class="badge warn">{ format!("{not_verifiable_count} not verifiable") }</span>
            if !cancelled.is_empty() { { " " }<span class="badge">{ format!("{} cancelled", cancelled.len()) }</span> }
            { invalid_group("failing chunks", &chunks, "summary-invalid-chunks") }
            { invalid_group("digest only", &digest_only, "summary-invalid-digest") }
            { for not_verifiable.iter().map(|(why, prefixes)| html! {
                <div class="summary-group warning" data-testid="summary-not-verifiable">
                    <p>{ format!("Not verifiable ({}): {why}", plural(prefixes.len() as u64, "SSTable", "SSTables")) }</p>
                    <p>{ names(&mut prefixes.iter()) }</p>
                </div>
            }) }
            if !cancelled.is_empty() {
                <div class="summary-group" data-testid="summary-cancelled">
                    <p>{ format!("Cancelled ({}):", plural(cancelled.len() as u64, "SSTable", "SSTables")) }</p>
                    <p>{ names(&mut cancelled.iter()) }</p>
                </div>
            }
        </div>
    }
}
