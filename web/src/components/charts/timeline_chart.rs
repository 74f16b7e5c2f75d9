//! Horizontal ranges on a shared axis, one row per SSTable: [min, max] timestamps, local
//! deletion times or token ranges; overlapping rows overlap on screen. Every row is labelled
//! with its SSTable and is 14 px high: a chart of many rows scrolls inside its box (the page
//! does not grow); every row stays focusable with its value readout.

use sstable_engine::datetime::{iso8601_micros, iso8601_secs};
use yew::prelude::*;

use super::{export_svg, short, ACCENT, BAD, FG, MUTED, OK, WARN};
use crate::components::plural;

/// What the axis holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeAxis {
    Micros,
    Secs,
    /// Tokens (or any number).
    Plain,
}

impl TimeAxis {
    fn format(&self, v: f64) -> String {
        match self {
            TimeAxis::Micros => iso8601_micros(v as i64).chars().take(19).collect(),
            TimeAxis::Secs => iso8601_secs(v as i64),
            TimeAxis::Plain => short(v),
        }
    }
}

/// One row: a range and how to colour it (`live`, `expired`, `blocked`, `blocker`).
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRow {
    pub label: String,
    pub start: f64,
    pub end: f64,
    pub kind: &'static str,
    pub detail: String,
}

#[derive(Properties, PartialEq)]
pub struct TimelineChartProps {
    pub id: AttrValue,
    pub title: AttrValue,
    pub x_label: AttrValue,
    pub axis: TimeAxis,
    pub rows: Vec<TimelineRow>,
}

const W: f64 = 720.0;
const LEFT: f64 = 150.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 8.0;
const BOTTOM: f64 = 40.0;
/// Every row's height: enough for its label.
const ROW_H: f64 = 14.0;
/// A label's most characters (the rest is cut from its start: the generation stays).
const LABEL_CHARS: usize = 24;

/// The row's label: the SSTable's file-name prefix (its directory is the chart's table), cut
/// from the start to fit.
fn row_label(label: &str) -> String {
    let name = label.rsplit('/').next().unwrap_or(label);
    let n = name.chars().count();
    if n <= LABEL_CHARS {
        name.to_owned()
    } else {
        let tail: String = name.chars().skip(n - (LABEL_CHARS - 1)).collect();
        format!("…{tail}")
    }
}

#[function_component(TimelineChart)]
pub fn timeline_chart(p: &TimelineChartProps) -> Html {
    let active = use_state(|| None::<usize>);
    // Only rows with a finite range are drawn; the others are named below the chart.
    let rows: Vec<&TimelineRow> = p
        .rows
        .iter()
        .filter(|r| r.start.is_finite() && r.end.is_finite())
        .collect();
    let undrawn = p.rows.len() - rows.len();
    let n = rows.len().max(1);
    let row_h = ROW_H;
    let plot_h = row_h * n as f64;
    let h = TOP + plot_h + BOTTOM;
    let lo = rows.iter().map(|r| r.start).fold(f64::INFINITY, f64::min);
    let hi = rows.iter().map(|r| r.end).fold(f64::NEG_INFINITY, f64::max);
    // Why the chart cannot draw, when it cannot: no axis spans a single value (and past 2^53 a
    // widened axis would be no wider: every position NaN).
    let cannot_draw = if rows.is_empty() {
        Some(if p.rows.is_empty() {
            "Nothing to draw: no SSTable has this range.".to_owned()
        } else {
            format!(
                "Nothing to draw: no SSTable's range is a finite {} ({}).",
                p.x_label,
                plural(undrawn as u64, "SSTable", "SSTables")
            )
        })
    } else if hi <= lo {
        Some(format!(
            "Not drawn: every SSTable's range is the same single {}, with no span to draw ({}: {}).",
            p.x_label,
            plural(rows.len() as u64, "SSTable", "SSTables"),
            rows.first().map(|r| r.detail.as_str()).unwrap_or_default()
        ))
    } else {
        None
    };
    let (lo, hi) = if cannot_draw.is_none() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
    let plot_w = W - LEFT - RIGHT;
    let x = |v: f64| LEFT + (v - lo) / (hi - lo) * plot_w;
    let readout = active
        .and_then(|i| rows.get(i))
        .map(|r| format!("{}: {}", r.label, r.detail))
        .unwrap_or_else(|| "Hover or focus a row (Tab) for its range".to_owned());
    let id = p.id.to_string();
    let file_name = format!("{id}.svg");
    let on_export = Callback::from(move |_| {
        let _ = export_svg(&id, &file_name);
    });
    html! {
        <figure class="chart" data-testid={format!("chart-{}", p.id)}>
            <figcaption>{ p.title.clone() }
                <button class="small" onclick={on_export} data-testid="export-svg">{ "Export SVG" }</button>
            </figcaption>
            if let Some(why) = &cannot_draw {
                <p class="warning" data-testid="chart-cannot-draw">{ why }</p>
                <ul class="chart-rows">{ for p.rows.iter().map(|r| html! {
                    <li data-testid="timeline-text-row">{ format!("{}: {}", row_label(&r.label), r.detail) }</li>
                }) }</ul>
            } else {
            <div class="chart-scroll" data-testid="chart-scroll" style="max-height: 32rem; overflow-y: auto; overflow-x: hidden">
            <svg id={p.id.clone()} xmlns="http://www.w3.org/2000/svg" viewBox={format!("0 0 {W} {h}")}
                 width="100%" role="group" aria-label={p.title.clone()} style="max-width: 54rem; font: 11px system-ui, sans-serif">
                { for [0.0, 0.5, 1.0].iter().map(|f| {
                    let v = lo + (hi - lo) * f;
                    let anchor = if *f == 0.0 { "start" } else if *f == 1.0 { "end" } else { "middle" };
                    html! { <g>
                        <line x1={x(v).to_string()} x2={x(v).to_string()} y1={TOP.to_string()} y2={(TOP + plot_h).to_string()}
                              style={format!("stroke: {MUTED}; stroke-opacity: 0.3")} />
                        <text x={x(v).to_string()} y={(TOP + plot_h + 14.0).to_string()} text-anchor={anchor}
                              style={format!("fill: {FG}")}>{ p.axis.format(v) }</text>
                    </g> }
                }) }
                <text x={(LEFT + plot_w / 2.0).to_string()} y={(h - 4.0).to_string()} text-anchor="middle"
                      style={format!("fill: {MUTED}")}>{ p.x_label.clone() }</text>
                { for rows.iter().enumerate().map(|(i, r)| {
                    let y = TOP + row_h * i as f64;
                    let colour = match r.kind { "expired" => OK, "blocked" => BAD, "blocker" => WARN, _ => ACCENT };
                    let on = { let active = active.clone(); Callback::from(move |_| active.set(Some(i))) };
                    let on_focus = { let active = active.clone(); Callback::from(move |_: FocusEvent| active.set(Some(i))) };
                    let x0 = x(r.start);
                    let w = (x(r.end) - x0).max(2.0);
                    html! { <g>
                        <text x={(LEFT - 4.0).to_string()} y={(y + row_h * 0.75).to_string()} text-anchor="end"
                              data-testid="timeline-label" style={format!("fill: {FG}")}>{ row_label(&r.label) }</text>
                        <rect x={x0.to_string()} y={(y + row_h * 0.1).to_string()} width={w.to_string()} height={(row_h * 0.8).to_string()}
                              style={format!("fill: {colour}; stroke: {}", if *active == Some(i) { FG } else { "none" })}
                              tabindex="0" role="img" aria-label={format!("{}: {}", r.label, r.detail)}
                              data-testid="timeline-row" data-label={r.label.clone()} data-kind={r.kind}
                              data-start={r.start.to_string()} data-end={r.end.to_string()}
                              onmouseenter={on} onfocus={on_focus}>
                            <title>{ format!("{}: {}", r.label, r.detail) }</title>
                        </rect>
                    </g> }
                }) }
            </svg>
            </div>
            if undrawn > 0 {
                <p class="warning" data-testid="chart-undrawn">{ format!(
                    "{} not drawn: no finite {}.", plural(undrawn as u64, "SSTable", "SSTables"), p.x_label) }</p>
            }
            <p class="chart-readout" data-testid="chart-readout" aria-live="polite">{ readout }</p>
            }
        </figure>
    }
}
