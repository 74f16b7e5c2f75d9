//! A bar chart (histograms and distributions): one focusable bar per bucket, value axis with
//! ticks and unit, the hovered or focused bar's value in a readout.

use yew::prelude::*;

use super::{export_svg, short, ACCENT, FG, MUTED, WARN};

/// One bar: its axis label, value, and the words the readout shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub detail: String,
}

#[derive(Properties, PartialEq)]
pub struct BarChartProps {
    /// Element id of the SVG (export, tests).
    pub id: AttrValue,
    pub title: AttrValue,
    /// Under the x axis, with its unit.
    pub x_label: AttrValue,
    /// Beside the value axis, with its unit.
    pub y_label: AttrValue,
    pub bars: Vec<Bar>,
}

const W: f64 = 640.0;
const H: f64 = 240.0;
const LEFT: f64 = 60.0;
const BOTTOM: f64 = 44.0;
const TOP: f64 = 12.0;
const RIGHT: f64 = 12.0;

#[function_component(BarChart)]
pub fn bar_chart(p: &BarChartProps) -> Html {
    let active = use_state(|| None::<usize>);
    let n = p.bars.len().max(1) as f64;
    let max = p
        .bars
        .iter()
        .map(|b| b.value)
        .fold(0.0_f64, f64::max)
        .max(1.0);
    let plot_w = W - LEFT - RIGHT;
    let plot_h = H - TOP - BOTTOM;
    let bw = plot_w / n;
    let label_every = (p.bars.len() / 8).max(1);
    let readout = active
        .and_then(|i| p.bars.get(i))
        .map(|b| format!("{}: {}", b.label, b.detail))
        .unwrap_or_else(|| "Hover or focus a bar (Tab) for its value".to_owned());
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
            <svg id={p.id.clone()} xmlns="http://www.w3.org/2000/svg" viewBox={format!("0 0 {W} {H}")}
                 width="100%" role="group" aria-label={p.title.clone()} style="max-width: 48rem; font: 11px system-ui, sans-serif">
                // Value axis: 0, half, max.
                { for [0.0, 0.5, 1.0].iter().map(|f| {
                    let y = TOP + plot_h * (1.0 - f);
                    html! { <g>
                        <line x1={LEFT.to_string()} x2={(W - RIGHT).to_string()} y1={y.to_string()} y2={y.to_string()}
                              style={format!("stroke: {MUTED}; stroke-opacity: 0.3")} />
                        <text x={(LEFT - 4.0).to_string()} y={(y + 4.0).to_string()} text-anchor="end" style={format!("fill: {FG}")}>{ short(max * f) }</text>
                    </g> }
                }) }
                <text transform={format!("translate(12 {}) rotate(-90)", TOP + plot_h / 2.0)} text-anchor="middle"
                      style={format!("fill: {MUTED}")}>{ p.y_label.clone() }</text>
                <text x={(LEFT + plot_w / 2.0).to_string()} y={(H - 4.0).to_string()} text-anchor="middle"
                      style={format!("fill: {MUTED}")}>{ p.x_label.clone() }</text>
                { for p.bars.iter().enumerate().map(|(i, b)| {
                    let h = (b.value / max * plot_h).max(if b.value > 0.0 { 1.0 } else { 0.0 });
                    let x = LEFT + bw * i as f64;
                    let on = { let active = active.clone(); Callback::from(move |_| active.set(Some(i))) };
                    let on_focus = { let active = active.clone(); Callback::from(move |_: FocusEvent| active.set(Some(i))) };
                    let fill = if *active == Some(i) { WARN } else { ACCENT };
                    html! { <g>
                        <rect x={(x + bw * 0.1).to_string()} y={(TOP + plot_h - h).to_string()}
                              width={(bw * 0.8).max(0.5).to_string()} height={h.to_string()}
                              style={format!("fill: {fill}")} tabindex="0" role="img"
                              aria-label={format!("{}: {}", b.label, b.detail)}
                              data-testid="bar" data-label={b.label.clone()} data-value={b.value.to_string()}
                              onmouseenter={on} onfocus={on_focus}>
                            <title>{ format!("{}: {}", b.label, b.detail) }</title>
                        </rect>
                        if i % label_every == 0 {
                            <text x={(x + bw / 2.0).to_string()} y={(TOP + plot_h + 14.0).to_string()} text-anchor="middle"
                                  style={format!("fill: {FG}")}>{ b.label.clone() }</text>
                        }
                    </g> }
                }) }
            </svg>
            <p class="chart-readout" data-testid="chart-readout" aria-live="polite">{ readout }</p>
        </figure>
    }
}
