//! A virtualised hex view of one file: only the visible rows are rendered, and only their bytes
//! are read (`Blob.slice`), so a multi-GB Data.db scrolls as smoothly as a 24-byte Filter.db.

use sstable_engine::span::Span;
use web_sys::{Element, File};
use yew::prelude::*;

use crate::loader;

const BYTES_PER_ROW: u64 = 16;
const ROW_HEIGHT_PX: f64 = 18.0;
const VISIBLE_ROWS: u64 = 32;
/// Browsers cap element heights (~33M px in Chromium): beyond this the scrollbar is scaled.
const MAX_SCROLL_HEIGHT_PX: f64 = 8_000_000.0;

#[derive(Properties, PartialEq)]
pub struct HexViewProps {
    pub file: File,
    pub size_bytes: u64,
    /// Bytes to highlight (the selected field).
    pub highlight: Option<Span>,
    /// A byte was clicked: its absolute offset.
    pub on_byte: Callback<u64>,
}

fn total_rows(size: u64) -> u64 {
    size.div_ceil(BYTES_PER_ROW).max(1)
}

/// Pixel height of the scrollable area and the scale from pixels to rows.
fn geometry(rows: u64) -> (f64, f64) {
    let natural = rows as f64 * ROW_HEIGHT_PX;
    let height = natural.min(MAX_SCROLL_HEIGHT_PX);
    let viewport = VISIBLE_ROWS as f64 * ROW_HEIGHT_PX;
    let scrollable_rows = rows.saturating_sub(VISIBLE_ROWS) as f64;
    let scrollable_px = (height - viewport).max(1.0);
    (height, scrollable_rows / scrollable_px)
}

#[function_component(HexView)]
pub fn hex_view(props: &HexViewProps) -> Html {
    let rows = total_rows(props.size_bytes);
    let (height_px, rows_per_px) = geometry(rows);
    let first_row = use_state(|| 0u64);
    let window = use_state(|| (u64::MAX, Vec::<u8>::new()));
    let scroller = use_node_ref();

    // Read the visible window whenever it moves (or the file changes).
    {
        let window = window.clone();
        let file = props.file.clone();
        let size = props.size_bytes;
        use_effect_with((*first_row, props.file.clone()), move |(first, _)| {
            let start = first * BYTES_PER_ROW;
            let end = (start + VISIBLE_ROWS * BYTES_PER_ROW).min(size);
            let first = *first;
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(bytes) = loader::read_range(&file, start, end).await {
                    window.set((first, bytes));
                }
            });
        });
    }
    // Scroll so that a newly highlighted field is in view.
    {
        let scroller = scroller.clone();
        let first_row = first_row.clone();
        use_effect_with(props.highlight, move |h| {
            if let Some(span) = h {
                let row = span.start / BYTES_PER_ROW;
                let visible = *first_row..*first_row + VISIBLE_ROWS;
                if !visible.contains(&row) {
                    let target = row.saturating_sub(4);
                    if let Some(el) = scroller.cast::<Element>() {
                        el.set_scroll_top(
                            (target as f64 / rows_per_px.max(f64::MIN_POSITIVE)) as i32,
                        );
                    }
                    first_row.set(target);
                }
            }
        });
    }
    let on_scroll = {
        let first_row = first_row.clone();
        let scroller = scroller.clone();
        Callback::from(move |_: Event| {
            if let Some(el) = scroller.cast::<Element>() {
                let row = (f64::from(el.scroll_top()) * rows_per_px).floor() as u64;
                let row = row.min(rows.saturating_sub(VISIBLE_ROWS));
                if row != *first_row {
                    first_row.set(row);
                }
            }
        })
    };

    let (loaded_row, bytes) = &*window;
    let top_px = (*first_row as f64 / rows_per_px.max(f64::MIN_POSITIVE)).min(height_px);
    let mut lines = Vec::new();
    if *loaded_row == *first_row {
        for (r, chunk) in bytes.chunks(BYTES_PER_ROW as usize).enumerate() {
            let row_offset = (*first_row + r as u64) * BYTES_PER_ROW;
            let cells: Vec<Html> = chunk
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let offset = row_offset + i as u64;
                    let lit = props.highlight.is_some_and(|s| s.contains(offset));
                    let on_byte = props.on_byte.clone();
                    html! {
                        <span class={classes!("byte", lit.then_some("lit"))} data-offset={offset.to_string()}
                              onclick={Callback::from(move |_: MouseEvent| on_byte.emit(offset))}>
                            { format!("{b:02x}") }
                        </span>
                    }
                })
                .collect();
            let ascii: String = chunk
                .iter()
                .map(|&b| {
                    if (0x20..0x7f).contains(&b) {
                        b as char
                    } else {
                        '.'
                    }
                })
                .collect();
            lines.push(html! {
                <div class="hex-row">
                    <span class="hex-offset">{ format!("{row_offset:010x}") }</span>
                    <span class="hex-bytes">{ for cells }</span>
                    <span class="hex-ascii">{ ascii }</span>
                </div>
            });
        }
    }
    html! {
        <div class="hex" ref={scroller} onscroll={on_scroll} data-testid="hex-view"
             style={format!("height: {}px", VISIBLE_ROWS as f64 * ROW_HEIGHT_PX)}>
            <div class="hex-spacer" style={format!("height: {height_px}px")}>
                <div class="hex-window" style={format!("transform: translateY({top_px}px)")}>
                    { for lines }
                </div>
            </div>
        </div>
    }
}
