//! The partition index: every partition Index.db lists (key, token, Data.db position, row-index
//! blocks), and a partition's promoted-index (`IndexInfo`) blocks on demand; for BTI, the entries
//! of the Partitions.db trie. Exportable as JSON.

use serde::Serialize;
use sstable_engine::component::bti::partitions;
use sstable_engine::component::index::{self, IndexFile, IndexName};
use sstable_engine::component::legacy_data::{untyped, CellName};
use sstable_engine::component::ComponentType;
use sstable_engine::types::value::format_value;
use sstable_engine::types::AbstractType;
use sstable_engine::Format;
use yew::prelude::*;

use crate::loader;
use crate::state::SSTableView;

/// Index files larger than this are not listed in the page (the CLI lists any size).
const MAX_INDEX_BYTES: u64 = 64 << 20;
/// Rows rendered at once.
const MAX_ROWS: usize = 500;

#[derive(Properties, PartialEq)]
pub struct IndexViewProps {
    pub sstable: SSTableView,
}

/// One listed partition (the page's export shape, a subset of `sstable-inspect index --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexRow {
    pub key: String,
    pub key_hex: String,
    pub token: String,
    /// Data.db position (big), or the trie payload's target (bti).
    pub position: String,
    pub blocks: Option<u32>,
}

/// One `IndexInfo` block of a partition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockRow {
    pub first: String,
    pub last: String,
    pub offset: u64,
    pub width: u64,
    pub end_open_marker: bool,
}

#[derive(Clone, PartialEq, Default)]
struct Listing {
    rows: Vec<IndexRow>,
    bytes: std::rc::Rc<Vec<u8>>,
    /// The decoded Index.db entries (big format), kept for the blocks of a clicked partition.
    entries: std::rc::Rc<Vec<index::IndexEntry>>,
    millis: f64,
    error: Option<String>,
    loaded: bool,
}

use sstable_engine::span::hex;

async fn list(view: &SSTableView) -> Listing {
    let started = loader::now_millis();
    let m = &view.metadata.0;
    let (component, format) = match m.descriptor.format {
        Format::Big => (ComponentType::PrimaryIndex, Format::Big),
        Format::Bti => (ComponentType::Partitions, Format::Bti),
    };
    let Some(file) = view.file(&component) else {
        return Listing {
            error: Some(format!("no {component} was given")),
            loaded: true,
            ..Listing::default()
        };
    };
    if file.size() as u64 > MAX_INDEX_BYTES {
        return Listing {
            error: Some(format!(
                "{component} is {} bytes: list it with `sstable-inspect index`",
                file.size()
            )),
            loaded: true,
            ..Listing::default()
        };
    }
    let bytes = match loader::read_all(file).await {
        Ok(b) => b,
        Err(e) => {
            return Listing {
                error: Some(e),
                loaded: true,
                ..Listing::default()
            }
        }
    };
    // Before 3.0 no key type is recorded: a key is text when valid UTF-8, else hex, as in the
    // data view.
    let key_type = m.key_type();
    let key_text = |bytes: &[u8]| match &key_type {
        Some(t) => format_value(t, bytes).text,
        None => untyped(bytes).0,
    };
    let partitioner = m.partitioner();
    let mut listing = Listing {
        loaded: true,
        ..Listing::default()
    };
    match format {
        Format::Big => match index::decode(&bytes, &m.descriptor.version) {
            Ok(ix) => {
                listing.rows = ix
                    .entries
                    .iter()
                    .map(|e| IndexRow {
                        key: key_text(&e.key.value),
                        key_hex: hex(&e.key.value),
                        token: partitioner.token(&e.key.value).to_string(),
                        position: e.position.value.to_string(),
                        blocks: e.block_count,
                    })
                    .collect();
                listing.entries = std::rc::Rc::new(ix.entries);
            }
            Err(e) => listing.error = Some(e.to_string()),
        },
        Format::Bti => match partitions::decode(&bytes) {
            Ok(p) => {
                listing.rows = p
                    .entries
                    .iter()
                    .map(|e| IndexRow {
                        key: format!("prefix 0x{}", hex(&e.key_prefix)),
                        key_hex: hex(&e.key_prefix),
                        token: String::new(),
                        position: e.payload.target.display(),
                        blocks: None,
                    })
                    .collect();
            }
            Err(e) => listing.error = Some(e.to_string()),
        },
    }
    listing.bytes = std::rc::Rc::new(bytes);
    listing.millis = loader::now_millis() - started;
    listing
}

/// The `IndexInfo` blocks of entry `i` (big format).
fn blocks(
    view: &SSTableView,
    bytes: &[u8],
    entry: &index::IndexEntry,
) -> Result<Vec<BlockRow>, String> {
    let m = &view.metadata.0;
    let file = IndexFile::whole(bytes, m.descriptor.version);
    let Some(promoted) = file.promoted_index(entry).map_err(|e| e.to_string())? else {
        return Ok(Vec::new());
    };
    let clustering_types: Vec<AbstractType> = m.clustering_types();
    let lengths = index::clustering_value_lengths(&clustering_types);
    (0..promoted.block_count.value.min(MAX_ROWS as u32))
        .map(|j| {
            file.block(&promoted, j, &lengths)
                .map(|b| BlockRow {
                    first: block_name(&b.first_name),
                    last: block_name(&b.last_name),
                    offset: b.offset.value,
                    width: b.width.value,
                    end_open_marker: b.has_end_open_marker.as_ref().is_some_and(|m| m.value),
                })
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// Characters of one name component shown (a 2.x clustering value can be kilobytes).
const MAX_COMPONENT_CHARS: usize = 40;

/// An `IndexInfo` first/last name: 3.0+ clustering prefixes as the engine displays them; a 2.x
/// cell name split as a composite (`legacy_data::CellName`: static marker, components) and each
/// component printed as the engine prints it without a schema (text when UTF-8, else hex).
fn block_name(name: &IndexName) -> String {
    let IndexName::Legacy(l) = name else {
        return name.display();
    };
    // The name's bytes start after its u16 length.
    let parsed = CellName::parse(&l.bytes, l.span.start.saturating_add(2), None);
    let parts: Vec<String> = parsed
        .untyped_values()
        .into_iter()
        .map(|v| {
            let chars = v.chars().count();
            if chars <= MAX_COMPONENT_CHARS {
                v
            } else {
                let head: String = v.chars().take(MAX_COMPONENT_CHARS).collect();
                format!("{head}… ({chars} chars)")
            }
        })
        .collect();
    let kind = match parsed {
        CellName::Composite { .. } => "composite",
        CellName::Simple(_) => "name",
    };
    match parsed.last_end_of_component() {
        0 => format!("{kind} [{}]", parts.join(", ")),
        eoc => format!("{kind} [{}] (end of component {eoc})", parts.join(", ")),
    }
}

#[function_component(IndexView)]
pub fn index_view(props: &IndexViewProps) -> Html {
    let listing = use_state(Listing::default);
    let open = use_state(|| None::<(usize, Result<Vec<BlockRow>, String>)>);
    {
        let listing = listing.clone();
        let view = props.sstable.clone();
        use_effect_with(props.sstable.prefix.clone(), move |_| {
            wasm_bindgen_futures::spawn_local(async move { listing.set(list(&view).await) });
        });
    }
    if !listing.loaded {
        return html! { <p class="muted" data-testid="index-view">{ "reading the index…" }</p> };
    }
    let export = {
        // Serialised when clicked, not on every render.
        let listing = listing.clone();
        let name = format!(
            "{}-index.json",
            props.sstable.prefix.rsplit('/').next().unwrap_or("sstable")
        );
        Callback::from(move |_| {
            let json = serde_json::to_string_pretty(&listing.rows).unwrap_or_default();
            let _ = loader::download_json(&name, &json);
        })
    };
    let rows = listing.rows.iter().take(MAX_ROWS).enumerate().map(|(i, r)| {
        let onclick = {
            let open = open.clone();
            let view = props.sstable.clone();
            let bytes = listing.bytes.clone();
            let entries = listing.entries.clone();
            let has_blocks = r.blocks.is_some_and(|b| b > 0);
            Callback::from(move |_| {
                if let Some(entry) = entries.get(i).filter(|_| has_blocks) {
                    open.set(Some((i, blocks(&view, &bytes, entry))));
                }
            })
        };
        html! {
            <tr data-testid="index-row" {onclick}>
                <td class="num">{ i }</td><td class="value" data-testid="index-key">{ &r.key }</td><td class="value">{ &r.token }</td>
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
    html! {
        <section class="index-view" data-testid="index-view">
            <div class="data-controls">
                <button class="tab" onclick={export} data-testid="export-index">{ "Export as JSON" }</button>
                <span class="timing" data-testid="index-timing">{ format!("{} partitions listed in {:.1} ms ({} bytes read)", listing.rows.len(), listing.millis, listing.bytes.len()) }</span>
            </div>
            if let Some(e) = &listing.error { <p class="error" role="alert">{ e }</p> }
            <div class="rows-scroll"><table class="rows">
                <thead><tr><th class="num">{ "#" }</th><th>{ "key" }</th><th>{ "token" }</th><th class="num">{ "position" }</th><th class="num">{ "blocks" }</th></tr></thead>
                <tbody>{ for rows }</tbody>
            </table></div>
            if listing.rows.len() > MAX_ROWS {
                <p class="muted">{ format!("… {} more partitions: `sstable-inspect index` lists them all", listing.rows.len() - MAX_ROWS) }</p>
            }
            { detail.unwrap_or_default() }
        </section>
    }
}
