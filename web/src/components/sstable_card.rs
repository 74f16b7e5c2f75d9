//! One SSTable: identity from its file names, its components and how they compare with TOC.txt.

use sstable_engine::component::ComponentType;
use sstable_engine::datetime::{human_seconds, iso8601_micros};
use sstable_engine::info::InfoReport;
use yew::prelude::*;

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
            if let Some(info) = &s.info {
                <button class="button small" data-testid="export-info" onclick={export_info(info, &s.prefix)}>{ "Export info JSON" }</button>
            }
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
            if let Some(info) = &s.info {
                { metadata(info) }
            }
            { for s.errors.iter().map(|e| html! { <p class="error">{ e }</p> }) }
        </article>
    }
}

fn short_class(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// What Statistics, CompressionInfo, Filter and Digest say, in human form.
fn metadata(info: &InfoReport) -> Html {
    let row = |label: &str, id: &str, value: String| {
        html! { <><dt>{ label.to_owned() }</dt><dd data-testid={id.to_owned()}>{ value }</dd></> }
    };
    let mut rows = Vec::new();
    if let Some(v) = &info.validation {
        rows.push(row(
            "Partitioner",
            "partitioner",
            short_class(&v.partitioner).to_owned(),
        ));
        rows.push(row(
            "Bloom FP chance",
            "fp-chance",
            v.bloom_filter_fp_chance.to_string(),
        ));
    }
    if let Some(c) = &info.compression {
        let ratio = c
            .ratio
            .map(|r| format!(", ratio {:.1}%", r * 100.0))
            .unwrap_or_default();
        rows.push(row(
            "Compression",
            "compressor",
            format!(
                "{} {} KiB chunks × {}{ratio}",
                c.compressor,
                c.chunk_length / 1024,
                c.chunk_count
            ),
        ));
    } else {
        rows.push(row("Compression", "compressor", "none".to_owned()));
    }
    if let Some(st) = &info.stats {
        rows.push(row(
            "Estimated partitions",
            "estimated-partitions",
            st.estimated_partition_count.to_string(),
        ));
        rows.push(row(
            "Timestamps",
            "timestamps",
            format!(
                "{} … {}",
                iso8601_micros(st.min_timestamp),
                iso8601_micros(st.max_timestamp)
            ),
        ));
        if let (Some(min), Some(max)) = (st.min_ttl, st.max_ttl) {
            rows.push(row(
                "TTL",
                "ttl",
                format!(
                    "{} … {}",
                    human_seconds(min.into()),
                    human_seconds(max.into())
                ),
            ));
        }
        if let Some(rows_total) = st.total_rows {
            rows.push(row("Rows", "total-rows", rows_total.to_string()));
        }
    }
    if let Some(h) = &info.header {
        let cql = |t: &Option<String>, raw: &str| t.clone().unwrap_or_else(|| raw.to_owned());
        let mut schema = vec![format!("key {}", cql(&h.key_cql_type, &h.key_type))];
        schema.extend(
            h.clustering_types
                .iter()
                .map(|c| format!("clustering {}", cql(&c.cql_type, &c.r#type))),
        );
        schema.extend(
            h.static_columns
                .iter()
                .map(|c| format!("{} {} static", c.name, cql(&c.cql_type, &c.r#type))),
        );
        schema.extend(
            h.regular_columns
                .iter()
                .map(|c| format!("{} {}", c.name, cql(&c.cql_type, &c.r#type))),
        );
        rows.push(row("Schema", "schema", schema.join(", ")));
    }
    if let Some(d) = &info.digest {
        rows.push(row(
            "Digest",
            "digest",
            format!("{} {}", serde_name(&d.algorithm), d.value),
        ));
    }
    html! {
        <>
            <dl class="facts metadata">{ for rows }</dl>
            { for info.findings.iter().map(|f| html! {
                <p class="warning" data-testid="finding">{ format!("{}: {}", f.component, f.message) }</p>
            }) }
            { for info.errors.iter().map(|e| html! {
                <p class="error" data-testid="decode-error">
                    { format!("{} at offset {}: {}", e.component.as_deref().unwrap_or("?"), e.offset, e.message) }
                </p>
            }) }
        </>
    }
}

fn serde_name(a: &sstable_engine::component::DigestAlgorithm) -> &'static str {
    match a {
        sstable_engine::component::DigestAlgorithm::Crc32 => "CRC32",
        sstable_engine::component::DigestAlgorithm::Adler32 => "Adler32",
        sstable_engine::component::DigestAlgorithm::Sha1 => "SHA-1",
    }
}

/// Downloads the `sstable-inspect info --json` report of this SSTable.
/// Serialised when clicked, not on every render (which only shares the report).
fn export_info(info: &Shared<InfoReport>, prefix: &str) -> Callback<MouseEvent> {
    let info = info.clone();
    let name = format!(
        "{}-info.json",
        prefix.rsplit('/').next().unwrap_or("sstable")
    );
    Callback::from(move |_| {
        let json = serde_json::to_string_pretty(&[&*info]).unwrap_or_default();
        let _ = crate::loader::download_json(&name, &json);
    })
}
