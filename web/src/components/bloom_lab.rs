//! The bloom lab: type a partition key, see its token, the bit positions the filter probes and
//! its answer, next to the filter's fill ratio and expected false-positive rate.

use sstable_engine::info::BloomCheck;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::state::SSTableView;

/// A typed key's bytes and the filter's answer, or why the key did not parse.
type KeyCheck = Result<(Vec<u8>, Option<BloomCheck>), String>;

#[derive(Properties, PartialEq)]
pub struct BloomLabProps {
    pub sstable: SSTableView,
}

#[function_component(BloomLab)]
pub fn bloom_lab(props: &BloomLabProps) -> Html {
    let text = use_state(String::new);
    let m = &props.sstable.metadata.0;
    let report = props.sstable.info.as_ref().and_then(|i| i.filter.clone());
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(input) = e.target_dyn_into::<HtmlInputElement>() {
                text.set(input.value());
            }
        })
    };
    let key_type = m
        .key_type()
        .map(|t| t.cql())
        .unwrap_or_else(|| "text (no key type recorded before 3.0)".to_owned());
    let result: Option<KeyCheck> = (!text.is_empty()).then(|| {
        let key = m.parse_key(&text)?;
        let check = m.bloom_check(&key);
        Ok((key, check))
    });
    let Some(report) = report else {
        return html! { <p class="muted" data-testid="bloom-lab">{ "This SSTable has no Filter.db." }</p> };
    };
    html! {
        <section class="bloom-lab" data-testid="bloom-lab">
            <dl class="facts">
                <dt>{ "Hash functions" }</dt><dd>{ report.hash_count }</dd>
                <dt>{ "Bits" }</dt><dd>{ format!("{} ({} set, fill {:.2}%)", report.bitset_bits, report.bits_set, report.fill_ratio * 100.0) }</dd>
                <dt>{ "Expected FP rate" }</dt>
                <dd data-testid="bloom-fp">{
                    match (report.expected_fp_rate, report.configured_fp_chance) {
                        (Some(p), Some(c)) => format!("{:.4}% for the estimated partitions (configured chance {}%)", p * 100.0, c * 100.0),
                        (Some(p), None) => format!("{:.4}%", p * 100.0),
                        _ => "unknown".to_owned(),
                    }
                }</dd>
                <dt>{ "Format" }</dt><dd>{ format!("{} byte order, {} hash order", report.format, report.hash_order) }</dd>
            </dl>
            <label class="key-input">
                { format!("Partition key ({key_type}, or 0x… hex): ") }
                <input type="text" value={(*text).clone()} {oninput} data-testid="bloom-key" spellcheck="false" />
            </label>
            {
                match result {
                    None => html! {},
                    Some(Err(e)) => html! { <p class="error" data-testid="bloom-error">{ e }</p> },
                    Some(Ok((_, None))) => html! {},
                    Some(Ok((key, Some(c)))) => html! {
                            <div class="bloom-result">
                                <p data-testid="bloom-verdict" class={if c.probe.maybe_present { "warning" } else { "ok" }}>
                                    { if c.probe.maybe_present { "maybe present (all probed bits set)" } else { "absent (a probed bit is clear)" } }
                                </p>
                                <p>{ format!("key bytes 0x{}, token ", sstable_engine::span::hex(&key)) }
                                   <code data-testid="bloom-token">{ &c.token }</code></p>
                                <table class="probes">
                                    <thead><tr><th>{ "probe" }</th><th class="num">{ "bit" }</th><th class="num">{ "byte offset" }</th><th>{ "set" }</th></tr></thead>
                                    <tbody>
                                        { for c.probe.bit_indexes.iter().zip(&c.probe.bits).zip(&c.probe.byte_offsets).enumerate().map(|(i, ((bit, set), off))| html! {
                                            <tr data-testid="bloom-probe"><td>{ i }</td><td class="num">{ bit }</td><td class="num">{ off }</td>
                                                <td>{ if *set { "1" } else { "0" } }</td></tr>
                                        }) }
                                    </tbody>
                                </table>
                            </div>
                    },
                }
            }
        </section>
    }
}
