//! The table's `CREATE TABLE` for the table-wide views ("Merged (table)", resurrection risks,
//! "Compare replicas"): 2.x SSTables (`jb`, `ka`, `la`) record no schema, so their merge needs
//! the statement, as the CLI's `--schema FILE.cql` or a `schema.cql` beside the SSTables
//! (`sstable_engine::merge::open_table`). The statement typed in the box wins; otherwise the
//! schema.cql dropped in the directory of the table's SSTables ([`SchemaFiles`]) is used.

use sstable_engine::version::{Format, Version};
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::state::{SSTableView, SchemaFiles};

/// Whether `view` is a 2.x SSTable (no 3.0 row format: its rows need the table's schema).
pub fn is_legacy(view: &SSTableView) -> bool {
    Format::parse(&view.format)
        .and_then(|f| Version::parse(f, &view.version))
        .is_some_and(|v| !v.has_row_format())
}

/// The names (file prefix without the directory) of the 2.x SSTables of `table_key` in `all`.
pub fn legacy_names(all: &[SSTableView], table_key: &str) -> Vec<String> {
    all.iter()
        .filter(|s| sstable_engine::sstable_set::table_of(&s.prefix).key == table_key)
        .filter(|s| is_legacy(s))
        .map(|s| s.prefix.rsplit('/').next().unwrap_or(&s.prefix).to_owned())
        .collect()
}

/// The statement the table's jobs get: the one typed when not blank, else the schema.cql
/// beside the first of `prefixes` that has one.
pub fn statement<'a>(
    typed: &str,
    files: &SchemaFiles,
    mut prefixes: impl Iterator<Item = &'a str>,
) -> Option<String> {
    if !typed.trim().is_empty() {
        return Some(typed.to_owned());
    }
    prefixes.find_map(|p| files.beside(p)).map(str::to_owned)
}

#[derive(Properties, PartialEq)]
pub struct TableSchemaBoxProps {
    /// The table's 2.x SSTables (the box shows only when there are some).
    pub legacy: Vec<String>,
    /// The statement typed so far.
    pub typed: String,
    /// Whether a dropped schema.cql gives the statement when none is typed.
    pub from_file: bool,
    pub on_input: Callback<String>,
    /// The `data-testid` of the text box.
    pub testid: AttrValue,
}

/// The box: which SSTables need the statement, where it comes from, the statement typed.
#[function_component(TableSchemaBox)]
pub fn table_schema_box(p: &TableSchemaBoxProps) -> Html {
    if p.legacy.is_empty() {
        return Html::default();
    }
    let on_input = {
        let emit = p.on_input.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(t) = e.target_dyn_into::<HtmlTextAreaElement>() {
                emit.emit(t.value());
            }
        })
    };
    let source = if !p.typed.trim().is_empty() {
        "the statement typed below"
    } else if p.from_file {
        "the schema.cql dropped with them (type one below to use another)"
    } else {
        "none yet: type it below, or drop the table's schema.cql with its SSTables"
    };
    html! {
        <details class="schema-box" open={!p.from_file} data-testid="table-schema-box">
            <summary>{ format!("CREATE TABLE: {} 2.x SSTable(s) of this table record no schema ({}); read with {source}", p.legacy.len(), p.legacy.join(", ")) }</summary>
            <textarea rows="4" value={p.typed.clone()} oninput={on_input} data-testid={p.testid.clone()} spellcheck="false"
                      placeholder="CREATE TABLE ks.t (pk text, ck text, val text, PRIMARY KEY (pk, ck))" />
        </details>
    }
}
