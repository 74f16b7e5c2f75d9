//! Several SSTables side by side, sortable by any column; a row selects its SSTable.
//!
//! The table scrolls in a box of fixed-height rows and renders only the rows in and near view
//! (spacer rows stand for the others): a tree of hundreds of SSTables is laid out as a few dozen
//! rows. Adding rows to one table of every SSTable made each step of the page's card rendering
//! a layout of the whole table, the long tasks of loading 106 SSTables (issue #12).

use sstable_engine::component::ComponentType;
use sstable_engine::datetime::iso8601_micros;
use yew::prelude::*;

use super::plural;
use super::sstable_card::human_bytes;
use crate::state::SSTableView;

#[derive(Properties, PartialEq)]
pub struct OverviewTableProps {
    pub sstables: crate::state::Shared<Vec<SSTableView>>,
    pub selected: Option<usize>,
    pub on_select: Callback<usize>,
}

/// The height of a row (`table.overview tbody tr` in style.css).
const ROW_PX: i32 = 28;
/// Rows rendered: the ones in view and some around them.
const WINDOW_ROWS: usize = 24;
/// Rows rendered above the first one in view.
const ROWS_BEFORE: usize = 6;

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
    let m = &s.summary;
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
        Column::Partitions => (m.estimated_partitions.map_or(-1, i128::from), String::new()),
        Column::MaxTimestamp => (
            m.max_timestamp_micros.map_or(i128::MIN, i128::from),
            String::new(),
        ),
    }
}

#[function_component(OverviewTable)]
pub fn overview_table(props: &OverviewTableProps) -> Html {
    let sort = use_state(|| (Column::Name, true));
    // The first row rendered (from the box's scroll position).
    let first = use_state(|| 0usize);
    let onscroll = {
        let first = first.clone();
        Callback::from(move |e: Event| {
            let Some(el) = e.target_dyn_into::<web_sys::Element>() else {
                return;
            };
            let in_view = usize::try_from(el.scroll_top() / ROW_PX).unwrap_or(0);
            let next = in_view.saturating_sub(ROWS_BEFORE);
            // Re-rendered only when the window moves by a quarter of itself.
            if next.abs_diff(*first) >= WINDOW_ROWS / 4 || (next == 0 && *first != 0) {
                first.set(next);
            }
        })
    };
    let mut order: Vec<(usize, &SSTableView)> = props.sstables.iter().enumerate().collect();
    let (column, ascending) = *sort;
    sstable_engine::sort::sort_by(&mut order, |&(_, a), &(_, b)| {
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
    let total = order.len();
    let start = (*first).min(total);
    let end = start.saturating_add(WINDOW_ROWS).min(total);
    let spacer = |rows: usize| {
        let px = i64::try_from(rows)
            .unwrap_or(0)
            .saturating_mul(i64::from(ROW_PX));
        html! { <tr class="spacer" aria-hidden="true" style={format!("height: {px}px")}><td colspan="8"></td></tr> }
    };
    html! {
        <div class="overview-scroll" {onscroll} data-testid="overview-scroll" data-rows={total.to_string()}>
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
                if start > 0 { { spacer(start) } }
                { for order.into_iter().skip(start).take(end - start).map(|(i, s)| {
                    let m = &s.summary;
                    let on_select = props.on_select.clone();
                    let selected = props.selected == Some(i);
                    let problems = m.errors.len() + s.errors.len();
                    let findings = m.findings.len() + m.check.missing.len();
                    html! {
                        <tr class={classes!(selected.then_some("selected"))} data-testid="overview-row"
                            onclick={Callback::from(move |_| on_select.emit(i))}>
                            <td class="name"><button class="link" aria-pressed={selected.to_string()} title={s.prefix.clone()}>{ &s.prefix }</button></td>
                            <td>{ format!("{} {}", s.format, s.version) }</td>
                            <td>{ m.partitioner.clone().unwrap_or_default() }</td>
                            <td>{ m.compressor.clone().unwrap_or_else(|| "none".into()) }</td>
                            <td class="num">{ s.components.iter().find(|(c, _)| *c == ComponentType::Data).map(|&(_, n)| human_bytes(n)).unwrap_or_default() }</td>
                            <td class="num">{ m.estimated_partitions.map(|n| n.to_string()).unwrap_or_default() }</td>
                            <td>{ m.max_timestamp_micros.map(iso8601_micros).unwrap_or_default() }</td>
                            <td>{
                                if problems > 0 { html! { <span class="badge bad">{ plural(problems as u64, "error", "errors") }</span> } }
                                else if findings > 0 { html! { <span class="badge warn">{ plural(findings as u64, "finding", "findings") }</span> } }
                                else { html! { <span class="badge ok">{ "decoded" }</span> } }
                            }</td>
                        </tr>
                    }
                }) }
                if end < total { { spacer(total - end) } }
            </tbody>
        </table>
        </div>
    }
}
