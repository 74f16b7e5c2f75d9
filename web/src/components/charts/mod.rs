//! Charts drawn as plain SVG from Yew: axes with units, a hover / keyboard-focus readout, theme
//! colours from the page's CSS variables (with fallbacks, so an exported SVG stands alone), and
//! "Export SVG".

pub mod bar_chart;
pub mod timeline_chart;

pub use bar_chart::{Bar, BarChart};
pub use timeline_chart::{TimeAxis, TimelineChart, TimelineRow};

/// Offers the SVG element `id` as a download (`file_name`), built from its markup in the page.
pub fn export_svg(id: &str, file_name: &str) -> Result<(), String> {
    use wasm_bindgen::JsCast;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let svg = document
        .get_element_by_id(id)
        .ok_or_else(|| format!("no chart {id}"))?;
    let markup = svg.outer_html();
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(&markup));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("image/svg+xml");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
        .map_err(crate::loader::js_error)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(crate::loader::js_error)?;
    let a: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(crate::loader::js_error)?
        .unchecked_into();
    a.set_href(&url);
    a.set_download(file_name);
    a.click();
    web_sys::Url::revoke_object_url(&url).map_err(crate::loader::js_error)
}

/// Foreground, muted, accent and warning colours (page theme, with light fallbacks).
pub const FG: &str = "var(--fg, #1d2330)";
pub const MUTED: &str = "var(--muted, #5b6578)";
pub const ACCENT: &str = "var(--accent, #1287b1)";
pub const WARN: &str = "var(--warn, #9a6700)";
pub const BAD: &str = "var(--bad, #c62828)";
pub const OK: &str = "var(--ok, #1a7f37)";

/// A short number: 1234 → "1.2k", 5_000_000 → "5.0M".
pub fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}
