//! "Verify all" on the overview: every SSTable loaded goes to the worker pool; one progress bar,
//! a badge on each card as it finishes, a summary (valid / invalid / not verifiable and why),
//! cancel, and the JSON export of every report.

use std::collections::BTreeMap;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::loader;
use crate::pool;
use crate::state::{State, Verdict};
use crate::verification;

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

fn summary(state: &State) -> Html {
    let Some(all) = &state.verify_all else {
        return Html::default();
    };
    let mut valid = 0usize;
    let mut invalid = Vec::new();
    let mut cancelled = 0usize;
    let mut not_verifiable: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (prefix, _) in &all.jobs {
        match state
            .verified
            .iter()
            .find(|(p, _)| p == prefix)
            .map(|(_, r)| &r.verdict)
        {
            Some(Verdict::Valid) => valid += 1,
            Some(Verdict::Invalid) => invalid.push(prefix.clone()),
            Some(Verdict::NotVerifiable(why)) => not_verifiable
                .entry(why.clone())
                .or_default()
                .push(prefix.clone()),
            Some(Verdict::Cancelled) => cancelled += 1,
            None => {}
        }
    }
    let not_verifiable_count: usize = not_verifiable.values().map(Vec::len).sum();
    html! {
        <div class="verify-summary" data-testid="verify-all-summary"
             data-valid={valid.to_string()} data-invalid={invalid.len().to_string()}
             data-not-verifiable={not_verifiable_count.to_string()} data-cancelled={cancelled.to_string()}>
            <span class="badge ok">{ format!("{valid} valid") }</span>{ " " }
            <span class="badge bad">{ format!("{} invalid", invalid.len()) }</span>{ " " }
            <span class="badge warn">{ format!("{not_verifiable_count} not verifiable") }</span>
            if cancelled > 0 { { " " }<span class="badge">{ format!("{cancelled} cancelled") }</span> }
            if !invalid.is_empty() {
                <p>{ "Invalid: " }{ for invalid.iter().map(|p| html! { <><code>{ p }</code>{ " " }</> }) }</p>
            }
            { for not_verifiable.iter().map(|(why, prefixes)| html! {
                <p class="warning">{ format!("Not verifiable ({} SSTable{}): {why}", prefixes.len(), if prefixes.len() == 1 { "" } else { "s" }) }</p>
            }) }
        </div>
    }
}
