//! One SSTable: identity from its file names, its components and how they compare with TOC.txt.

use yew::prelude::*;

use crate::protocol::summary::SSTableSummary;
use crate::state::{SSTableView, Shared, Verdict};

/// A card's props compare cheaply and stay equal while nothing about its SSTable changes (the
/// same `on_inspect` for every card, told apart by `index`), so a render of the page re-renders
/// only the cards whose verdict changed.
#[derive(Properties, PartialEq)]
pub struct SSTableCardProps {
    pub sstable: SSTableView,
    /// Its place in the list (what `on_inspect` hears).
    #[prop_or_default]
    pub index: usize,
    #[prop_or_default]
    pub on_inspect: Callback<usize>,
    /// The verdict of the last verification (`None`: not verified yet).
    #[prop_or_default]
    pub verified: Option<crate::state::Verdict>,
    /// A verification of it is running.
    #[prop_or_default]
    pub verifying: bool,
}

/// Human size: bytes, KiB, MiB, GiB.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS.get(unit).copied().unwrap_or("B"))
    }
}

fn names(components: &[String]) -> String {
    components.join(", ")
}

#[function_component(SSTableCard)]
pub fn sstable_card(props: &SSTableCardProps) -> Html {
    let s = &props.sstable;
    html! {
        <article class="card" data-testid="sstable" data-prefix={s.prefix.clone()}>
            <h2><code>{ &s.prefix }</code>{ " " }
                <span data-testid="verify-status"
                      data-verdict={if props.verifying { "running" } else { props.verified.as_ref().map_or("none", |v| v.name()) }}
                      class={classes!("badge", match &props.verified { Some(Verdict::Valid) => "ok", Some(Verdict::Invalid) => "bad", Some(_) => "warn", None => "" })}
                      title={match &props.verified { Some(Verdict::NotVerifiable(why)) => why.clone(), _ => String::new() }}>
                    { if props.verifying { "verifying…" } else { match &props.verified {
                        Some(Verdict::Valid) => "checksums valid",
                        Some(Verdict::Invalid) => "checksums FAILED",
                        Some(Verdict::NotVerifiable(_)) => "not verifiable",
                        Some(Verdict::Cancelled) => "verification cancelled",
                        None => "not verified",
                    } } }
                </span>
            </h2>
            <button class="button small" data-testid="inspect" onclick={{ let i = props.index; props.on_inspect.reform(move |_| i) }}>{ "Inspect components →" }</button>
            if !s.summary.info_json.is_empty() {
                <button class="button small" data-testid="export-info" onclick={export_info(&s.summary, &s.prefix)}>{ "Export info JSON" }</button>
            }
            <dl class="facts">
                <dt>{ "Version" }</dt><dd data-testid="version">{ &s.version }</dd>
                <dt>{ "Written by" }</dt><dd data-testid="written-by">{ written_by(&s.release) }</dd>
                <dt>{ "Format" }</dt><dd data-testid="format">{ &s.format }</dd>
                <dt>{ "Generation" }</dt><dd data-testid="generation">{ &s.generation }</dd>
                <dt>{ "Components" }</dt><dd data-testid="component-count">{ s.components.len() }</dd>
            </dl>
            <table class="components">
                <thead><tr><th>{ "Component" }</th><th class="num">{ "Size" }</th></tr></thead>
                <tbody>
                    { for s.components.iter().map(|(c, size)| html! {
                        <tr data-testid="component"><td>{ c.file_suffix() }</td><td class="num" title={format!("{size} bytes")}>{ human_bytes(*size) }</td></tr>
                    }) }
                </tbody>
            </table>
            if !s.summary.check.missing.is_empty() {
                <p class="warning" data-testid="missing">{ format!("Listed in TOC.txt but not given: {}", names(&s.summary.check.missing)) }</p>
            }
            if !s.summary.check.unlisted.is_empty() {
                <p class="warning">{ format!("Not listed in TOC.txt: {}", names(&s.summary.check.unlisted)) }</p>
            }
            if !s.summary.check.unknown.is_empty() {
                <p class="warning">{ format!("Unknown components: {}", names(&s.summary.check.unknown)) }</p>
            }
            { metadata(&s.summary) }
            { for s.errors.iter().map(|e| html! { <p class="error">{ e }</p> }) }
        </article>
    }
}

/// What Statistics, CompressionInfo, Filter and Digest say (the worker put it in words).
fn metadata(summary: &SSTableSummary) -> Html {
    html! {
        <>
            <dl class="facts metadata">{ for summary.facts.iter().map(|f| html! {
                <><dt>{ f.label.clone() }</dt><dd data-testid={f.id.clone()}>{ f.value.clone() }</dd></>
            }) }</dl>
            { for summary.findings.iter().map(|f| html! {
                <p class="warning" data-testid="finding">{ f }</p>
            }) }
            { for summary.errors.iter().map(|e| html! {
                <p class="error" data-testid="decode-error">{ e }</p>
            }) }
        </>
    }
}

/// Downloads the `sstable-inspect info --json` report of this SSTable (made by the worker).
fn export_info(summary: &Shared<SSTableSummary>, prefix: &str) -> Callback<MouseEvent> {
    let summary = summary.clone();
    let name = format!(
        "{}-info.json",
        prefix.rsplit('/').next().unwrap_or("sstable")
    );
    Callback::from(move |_| {
        let _ = crate::loader::download_json(&name, &summary.info_json);
    })
}

/// Who writes this version, in words: `Cassandra 4.0 / 4.1`, but a release line that names its
/// maker (`ScyllaDB (trie index)`, `DataStax Enterprise 6.8`) as it is.
pub fn written_by(release: &str) -> String {
    if release.starts_with("ScyllaDB") || release.starts_with("DataStax") {
        release.to_owned()
    } else {
        format!("Cassandra {release}")
    }
}

#[cfg(test)]
mod tests {
    use super::written_by;

    #[test]
    fn the_maker_is_named_once() {
        assert_eq!(written_by("4.0 / 4.1"), "Cassandra 4.0 / 4.1");
        assert_eq!(written_by("ScyllaDB (trie index)"), "ScyllaDB (trie index)");
        assert_eq!(
            written_by("DataStax Enterprise 6.8"),
            "DataStax Enterprise 6.8"
        );
    }
}
