//! One SSTable: identity from its file names, its components and how they compare with TOC.txt.

use sstable_engine::component::ComponentType;
use yew::prelude::*;

use crate::state::SSTableView;

#[derive(Properties, PartialEq)]
pub struct SSTableCardProps {
    pub sstable: SSTableView,
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

fn names(components: &[ComponentType]) -> String {
    components
        .iter()
        .map(|c| c.file_suffix())
        .collect::<Vec<_>>()
        .join(", ")
}

#[function_component(SSTableCard)]
pub fn sstable_card(props: &SSTableCardProps) -> Html {
    let s = &props.sstable;
    html! {
        <article class="card" data-testid="sstable" data-prefix={s.prefix.clone()}>
            <h2><code>{ &s.prefix }</code></h2>
            <dl class="facts">
                <dt>{ "Version" }</dt><dd data-testid="version">{ &s.version }</dd>
                <dt>{ "Written by" }</dt><dd>{ format!("Cassandra {}", s.release) }</dd>
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
            if !s.check.missing.is_empty() {
                <p class="warning" data-testid="missing">{ format!("Listed in TOC.txt but not given: {}", names(&s.check.missing)) }</p>
            }
            if !s.check.unlisted.is_empty() {
                <p class="warning">{ format!("Not listed in TOC.txt: {}", names(&s.check.unlisted)) }</p>
            }
            if !s.check.unknown.is_empty() {
                <p class="warning">{ format!("Unknown components: {}", names(&s.check.unknown)) }</p>
            }
            { for s.errors.iter().map(|e| html! { <p class="error">{ e }</p> }) }
        </article>
    }
}
