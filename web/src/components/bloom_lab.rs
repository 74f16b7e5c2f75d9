//! The bloom lab: type a partition key, see its token, the bit positions the filter probes and
//! its answer, next to the filter's fill ratio and expected false-positive rate.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::pool;
use crate::protocol::answers::BloomAnswer;
use crate::protocol::{Reply, Request};
use crate::state::SSTableView;

/// A typed key's answer from the worker (`Ok(None)`: no Filter.db), or why the key did not parse.
type KeyCheck = Result<Option<BloomAnswer>, String>;

#[derive(Properties, PartialEq)]
pub struct BloomLabProps {
    pub sstable: SSTableView,
}

#[function_component(BloomLab)]
pub fn bloom_lab(props: &BloomLabProps) -> Html {
    let text = use_state(String::new);
    // The answer for the text typed (the key is parsed and hashed in a worker).
    let result = use_state(|| None::<(String, KeyCheck)>);
    let job = use_mut_ref(|| None::<u64>);
    let summary = &props.sstable.summary;
    let report = summary.filter.clone();
    {
        let result = result.clone();
        let job = job.clone();
        let view = props.sstable.clone();
        use_effect_with((*text).clone(), move |text| {
            if text.is_empty() {
                pool::cancel_slot(&job);
                result.set(None);
            } else {
                // The last key's answer goes at once: only this key's answer is shown.
                result.set(None);
                let request = Request::Bloom {
                    job: 0,
                    files: view.file_refs(),
                    key: text.clone(),
                };
                let asked = text.clone();
                pool::submit_in_slot(&job, request, move |reply| match reply {
                    Reply::Bloom { answer, .. } => result.set(Some((asked.clone(), answer))),
                    Reply::Failed { message, .. } => {
                        result.set(Some((asked.clone(), Err(message))))
                    }
                    _ => {}
                });
            }
        });
    }
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(input) = e.target_dyn_into::<HtmlInputElement>() {
                text.set(input.value());
            }
        })
    };
    let key_type = summary
        .key_type_cql
        .clone()
        .unwrap_or_else(|| "text (no key type recorded before 3.0)".to_owned());
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
                // Only the answer for the text shown (not the last key's, while this one's comes).
                match (*result).clone().filter(|(asked, _)| !text.is_empty() && *asked == *text).map(|(_, a)| a) {
                    None => html! {},
                    Some(Err(e)) => html! { <p class="error" data-testid="bloom-error">{ e }</p> },
                    Some(Ok(None)) => html! {},
                    Some(Ok(Some(c))) => html! {
                            <div class="bloom-result">
                                <p data-testid="bloom-verdict" class={if c.maybe_present { "warning" } else { "ok" }}>
                                    { if c.maybe_present { "maybe present (all probed bits set)" } else { "absent (a probed bit is clear)" } }
                                </p>
                                <p>{ format!("key bytes 0x{}, token ", c.key_hex) }
                                   <code data-testid="bloom-token">{ &c.token }</code></p>
                                <table class="probes">
                                    <thead><tr><th>{ "probe" }</th><th class="num">{ "bit" }</th><th class="num">{ "byte offset" }</th><th>{ "set" }</th></tr></thead>
                                    <tbody>
                                        { for c.probes.iter().enumerate().map(|(i, (bit, set, off))| html! {
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
