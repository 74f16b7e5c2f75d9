//! Several SSTables side by side, sortable by any column; a row selects its SSTable.

use sstable_engine::component::ComponentType;
use sstable_engine::datetime::iso8601_micros;
use yew::prelude::*;

use super::sstable_card::human_bytes;
use crate::state::SSTableView;

#[derive(Properties, PartialEq)]
pub struct OverviewTableProps {
    pub sstables: crate::state::Shared<Vec<SSTableView>>,
    pub selected: Option<usize>,
    pub on_select: Callback<usize>,
    /// Rows rendered so far (the page adds them a step per task, with the cards).
    pub shown: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Column {
    Name,
    Version,
    DataSize,
    Partitions,
    MaxTimestamp,
}

/// A sortable value of a column.
fn key(s: &SSTableView, c: Column) -> (i128, String) {
    let stats = s.info.as_ref().and_then(|i| i.stats.as_ref());
    match c {
        Column::Name => (0, s.prefix.clone()),
        Column::Version => (0, format!("{} {}", s.format, s.version)),
        Column::DataSize => (
            s.components
                .iter()
                .find(|(c, _)| *c == ComponentType::Data)
                .map_or(-1, |&(_, n)| i128::from(n)),
            String::new(),
        ),
        Column::Partitions => (
            stats.map_or(-1, |st| i128::from(st.estimated_partition_count)),
            String::new(),
        ),
        Column::MaxTimestamp => (
            stats.map_or(i128::MIN, |st| i128::from(st.max_timestamp)),
            String::new(),
        ),
    }
}

#[function_component(OverviewTable)]
pub fn overview_table(props: &OverviewTableProps) -> Html {
    let sort = use_state(|| (Column::Name, true));
    let mut order: Vec<(usize, &SSTableView)> = props.sstables.iter().enumerate().collect();
    let (column, ascending) = *sort;
    order.sort_by(|&(_, a), &(_, b)| {
        let (ka, kb) = (key(a, column), key(b, column));
        if ascending {
            ka.cmp(&kb)
        } else {
            kb.cmp(&ka)
        }
    });
    let header = |label: &str, c: Column| {
        let sort = sort.clone();
        let arrow = if column == c {
            if ascending {
                " ▲"
            } else {
                " ▼"
            }
        } else {
            ""
        };
        let onclick = Callback::from(move |_| {
            let (cur, asc) = *sort;
            sort.set((c, if cur == c { !asc } else { true }));
        });
        html! { <th><button class="sort" {onclick}>{ format!("{label}{arrow}") }</button></th> }
    };
    html! {
        <table class="overview" data-testid="overview-table">
            <thead><tr>
                { header("SSTable", Column::Name) }
                { header("Version", Column::Version) }
                <th>{ "Partitioner" }</th>
                <th>{ "Compression" }</th>
                { header("Data.db", Column::DataSize) }
                { header("Partitions", Column::Partitions) }
                { header("Newest write", Column::MaxTimestamp) }
                <th>{ "Status" }</th>
            </tr></thead>
            <tbody>
                { for order.into_iter().take(props.shown).map(|(i, s)| {
                    let info = s.info.as_ref();
                    let stats = info.and_then(|r| r.stats.as_ref());
                    let on_select = props.on_select.clone();
                    let selected = props.selected == Some(i);
                    let problems = info.map_or(0, |r| r.errors.len()) + s.errors.len();
                    let findings = info.map_or(0, |r| r.findings.len()) + s.check.missing.len();
                    html! {
                        <tr class={classes!(selected.then_some("selected"))} data-testid="overview-row"
                            onclick={Callback::from(move |_| on_select.emit(i))}>
                            <td><button class="link" aria-pressed={selected.to_string()}>{ &s.prefix }</button></td>
                            <td>{ format!("{} {}", s.format, s.version) }</td>
                            <td>{ info.and_then(|r| r.validation.as_ref()).map(|v| v.partitioner.rsplit('.').next().unwrap_or("").to_owned()).unwrap_or_default() }</td>
                            <td>{ info.and_then(|r| r.compression.as_ref()).map(|c| c.compressor.clone()).unwrap_or_else(|| "none".into()) }</td>
                            <td class="num">{ s.components.iter().find(|(c, _)| *c == ComponentType::Data).map(|&(_, n)| human_bytes(n)).unwrap_or_default() }</td>
                            <td class="num">{ stats.map(|st| st.estimated_partition_count.to_string()).unwrap_or_default() }</td>
                            <td>{ stats.map(|st| iso8601_micros(st.max_timestamp)).unwrap_or_default() }</td>
                            <td>{
                                if problems > 0 { html! { <span class="badge bad">{ format!("{problems} errors") }</span> } }
                                else if findings > 0 { html! { <span class="badge warn">{ format!("{findings} findings") }</span> } }
                                else { html! { <span class="badge ok">{ "decoded" }</span> } }
                            }</td>
                        </tr>
                    }
                }) }
            </tbody>
        </table>
    }
}
