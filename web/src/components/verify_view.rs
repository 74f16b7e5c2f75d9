//! Verification: one button checks every checksum (chunks, CRC.db, digest, metadata CRCs) with a
//! progress bar and a cancel button; a strip shows every Data.db chunk green or red; a red chunk
//! shows its bytes, expected vs actual and the partitions it overlaps; timings per phase.

use std::cell::Cell;
use std::rc::Rc;

use sstable_engine::component::ComponentType;
use sstable_engine::span::Span;
use sstable_engine::verify::{Failure, VerifyReport};
use yew::prelude::*;

use super::hex_view::HexView;
use super::sstable_card::human_bytes;
use crate::loader;
use crate::state::SSTableView;

/// At most this many cells in the chunk strip; beyond, each cell stands for several chunks.
const MAX_STRIP_CELLS: u64 = 2048;

#[derive(Properties, PartialEq)]
pub struct VerifyViewProps {
    pub sstable: SSTableView,
    /// The last report for this SSTable, kept by the app (for the overview's badge).
    pub report: Option<Rc<VerifyRun>>,
    pub on_report: Callback<Rc<VerifyRun>>,
}

/// A finished verification with what the browser measured around it.
#[derive(Debug, PartialEq)]
pub struct VerifyRun {
    pub report: VerifyReport,
    pub read_millis: f64,
    pub read_bytes: u64,
    pub total_millis: f64,
    /// One raw crc32fast pass over the same bytes, when asked for.
    pub raw_crc32_millis: Option<f64>,
}

#[derive(Clone, PartialEq, Default)]
struct Running {
    done: u64,
    total: u64,
}

#[function_component(VerifyView)]
pub fn verify_view(props: &VerifyViewProps) -> Html {
    let running = use_state(|| None::<Running>);
    let error = use_state(|| None::<String>);
    let cancel = use_mut_ref(|| Rc::new(Cell::new(false)));
    let selected = use_state(|| None::<u64>);
    let decompress = use_state(|| false);
    let baseline = use_state(|| false);

    let start = {
        let running = running.clone();
        let error = error.clone();
        let cancel = cancel.clone();
        let view = props.sstable.clone();
        let on_report = props.on_report.clone();
        let decompress = *decompress;
        let baseline = *baseline;
        let selected = selected.clone();
        Callback::from(move |_| {
            let flag = Rc::new(Cell::new(false));
            *cancel.borrow_mut() = flag.clone();
            running.set(Some(Running::default()));
            error.set(None);
            selected.set(None);
            let running = running.clone();
            let error = error.clone();
            let view = view.clone();
            let on_report = on_report.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let started = loader::now_millis();
                let progress = {
                    let running = running.clone();
                    move |done, total| running.set(Some(Running { done, total }))
                };
                match loader::verify(&view, decompress, baseline, progress, flag).await {
                    Ok((report, read_millis, read_bytes, raw_crc32_millis)) => {
                        on_report.emit(Rc::new(VerifyRun {
                            report,
                            read_millis,
                            read_bytes,
                            total_millis: loader::now_millis() - started,
                            raw_crc32_millis,
                        }))
                    }
                    Err(e) => error.set(Some(e)),
                }
                running.set(None);
            });
        })
    };
    let on_cancel = {
        let cancel = cancel.clone();
        Callback::from(move |_| cancel.borrow().set(true))
    };
    let toggle_baseline = {
        let baseline = baseline.clone();
        Callback::from(move |_| baseline.set(!*baseline))
    };
    let toggle_decompress = {
        let decompress = decompress.clone();
        Callback::from(move |_| decompress.set(!*decompress))
    };

    let s = &props.sstable;
    let chunk_count = s
        .metadata
        .0
        .compression
        .as_ref()
        .map(|c| c.chunk_offsets.len() as u64)
        .or_else(|| {
            let crc = s.metadata.0.crc.as_ref()?;
            Some(crc.checksums.len() as u64)
        });
    html! {
        <section class="verify" data-testid="verify-view">
            <div class="data-controls">
                <button class="tab active" onclick={start} disabled={running.is_some()} data-testid="verify-start">{ "Verify every checksum" }</button>
                <label><input type="checkbox" checked={*decompress} onchange={toggle_decompress} />{ " also decompress every chunk" }</label>
                <label><input type="checkbox" checked={*baseline} onchange={toggle_baseline} data-testid="verify-baseline" />
                    { " also time a raw crc32fast pass over the same bytes (the limit)" }</label>
                if running.is_some() {
                    <button class="tab" onclick={on_cancel} data-testid="verify-cancel">{ "Cancel" }</button>
                }
            </div>
            if let Some(r) = &*running {
                <progress data-testid="verify-progress" max={r.total.max(1).to_string()} value={r.done.to_string()} />
                <span class="muted" data-testid="verify-progress-text">{ format!(" {} of {}", human_bytes(r.done), human_bytes(r.total)) }</span>
            }
            if let Some(e) = &*error { <p class="error" role="alert">{ e }</p> }
            if let Some(run) = &props.report {
                { report_view(run, chunk_count, &selected, s) }
            }
        </section>
    }
}

fn report_view(
    run: &Rc<VerifyRun>,
    chunk_count: Option<u64>,
    selected: &UseStateHandle<Option<u64>>,
    s: &SSTableView,
) -> Html {
    let r = &run.report;
    let chunk_failures: Vec<&Failure> = r
        .checks
        .iter()
        .filter(|c| c.component == "Data.db" || c.component == "CRC.db")
        .flat_map(|c| &c.failures)
        .filter(|f| f.chunk.is_some())
        .collect();
    let strip = chunk_count
        .map(|n| strip(n, &chunk_failures, selected))
        .unwrap_or_default();
    let detail = selected.and_then(|chunk| {
        let failures: Vec<&&Failure> = chunk_failures.iter().filter(|f| f.chunk == Some(chunk)).collect();
        let first = failures.first()?;
        let span = Span::new(first.offset, first.offset + first.length);
        let data = s.file(&ComponentType::Data)?.clone();
        let size = s.components.iter().find(|(c, _)| *c == ComponentType::Data).map_or(0, |&(_, n)| n);
        Some(html! {
            <div class="chunk-detail" data-testid="chunk-detail">
                { for failures.iter().map(|f| html! {
                    <p>
                        <strong>{ format!("chunk {}", chunk) }</strong>
                        { format!(" — {} at bytes {}..{} ({} bytes): expected {}, actual {}", f.message, f.offset, f.offset + f.length, f.length, f.expected, f.actual) }
                        if !f.partitions.is_empty() {
                            <br />{ format!("overlapping partitions: {}", f.partitions.join(", ")) }
                        }
                    </p>
                }) }
                <HexView file={data} size_bytes={size} highlight={Some(span)} on_byte={Callback::noop()} />
            </div>
        })
    });
    html! {
        <>
            <button class="tab" data-testid="export-verify" onclick={{
                // Serialised when clicked, not on every render.
                let run = run.clone();
                let name = format!("{}-verify.json", r.sstable.rsplit('/').next().unwrap_or("sstable"));
                Callback::from(move |_| {
                    let json = serde_json::to_string_pretty(&[&run.report]).unwrap_or_default();
                    let _ = loader::download_json(&name, &json);
                })
            }}>{ "Export as JSON" }</button>
            <p data-testid="verify-badge" class={classes!("badge", if r.valid { "ok" } else { "bad" })}>
                { match r.verdict {
                    sstable_engine::verify::Verdict::Valid => "valid: every checksum matches".to_owned(),
                    sstable_engine::verify::Verdict::Invalid => "INVALID: checks failed".to_owned(),
                    sstable_engine::verify::Verdict::NotVerifiable if r.verified_bytes < r.data_bytes => "cancelled before the end".to_owned(),
                    sstable_engine::verify::Verdict::NotVerifiable => format!("NOT VERIFIABLE: {}", r.unverified.join("; ")),
                } }
            </p>
            { strip }
            { detail.unwrap_or_default() }
            <table class="checks" data-testid="verify-checks">
                <thead><tr><th>{ "component" }</th><th>{ "check" }</th><th>{ "algorithm" }</th><th class="num">{ "checked" }</th><th>{ "result" }</th></tr></thead>
                <tbody>
                    { for r.checks.iter().map(|c| html! {
                        <tr data-testid="verify-check" data-ok={c.ok.to_string()}>
                            <td>{ &c.component }</td><td>{ format!("{:?}", c.kind).to_lowercase() }</td><td>{ &c.algorithm }</td>
                            <td class="num">{ c.checked }</td>
                            <td class={if c.ok { "ok" } else { "tombstone" }}>{
                                if c.ok { "ok".to_owned() } else {
                                    c.failures.iter().take(3).map(|f| format!("expected {} actual {}", f.expected, f.actual)).collect::<Vec<_>>().join("; ")
                                }
                            }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            { for r.errors.iter().map(|e| html! { <p class="error">{ format!("{} at offset {}: {}", e.component.as_deref().unwrap_or("?"), e.offset, e.message) }</p> }) }
            { timings(run) }
        </>
    }
}

/// Every chunk green or red (grouped into at most [`MAX_STRIP_CELLS`] cells).
fn strip(chunks: u64, failures: &[&Failure], selected: &UseStateHandle<Option<u64>>) -> Html {
    let per_cell = chunks.div_ceil(MAX_STRIP_CELLS).max(1);
    let cells = chunks.div_ceil(per_cell);
    let mut bad = std::collections::BTreeSet::new();
    for f in failures {
        if let Some(c) = f.chunk {
            bad.insert(c / per_cell);
        }
    }
    let items = (0..cells).map(|i| {
        let failing = bad.contains(&i);
        let first_chunk = i * per_cell;
        let title = if per_cell == 1 { format!("chunk {first_chunk}") } else { format!("chunks {first_chunk}..{}", (first_chunk + per_cell).min(chunks)) };
        let onclick = {
            let selected = selected.clone();
            let failing_chunk = failures.iter().filter_map(|f| f.chunk).find(|c| c / per_cell == i);
            Callback::from(move |_| selected.set(failing_chunk))
        };
        let label = format!("{title}: {}", if failing { "checksum failed" } else { "ok" });
        html! {
            <button class={classes!("chunk", if failing { "bad" } else { "good" })} {title} {onclick}
                    data-testid="chunk" data-chunk={first_chunk.to_string()} data-ok={(!failing).to_string()}
                    aria-label={label} />
        }
    });
    html! {
        <div class="chunk-strip" data-testid="chunk-strip" data-chunks={chunks.to_string()}>{ for items }</div>
    }
}

fn timings(run: &VerifyRun) -> Html {
    let r = &run.report;
    let rate = |bytes: u64, ms: f64| {
        if ms > 0.0 {
            format!("{:.0} MB/s", bytes as f64 / 1e6 / (ms / 1000.0))
        } else {
            "–".to_owned()
        }
    };
    html! {
        <table class="timings" data-testid="timings">
            <thead><tr><th>{ "phase" }</th><th class="num">{ "time" }</th><th class="num">{ "bytes" }</th><th class="num">{ "speed" }</th></tr></thead>
            <tbody>
                <tr data-testid="timing" data-phase="read"><td>{ "read (Blob.slice, this browser)" }</td><td class="num">{ format!("{:.1} ms", run.read_millis) }</td>
                    <td class="num">{ human_bytes(run.read_bytes) }</td><td class="num">{ rate(run.read_bytes, run.read_millis) }</td></tr>
                { for r.timings.iter().map(|t| {
                    let ms = t.nanos as f64 / 1e6;
                    html! {
                        <tr data-testid="timing" data-phase={format!("{:?}", t.phase).to_lowercase()}>
                            <td>{ format!("{:?}", t.phase).to_lowercase() }</td><td class="num">{ format!("{ms:.1} ms") }</td>
                            <td class="num">{ human_bytes(t.bytes) }</td><td class="num">{ rate(t.bytes, ms) }</td>
                        </tr>
                    }
                }) }
                if let Some(ms) = run.raw_crc32_millis {
                    <tr data-testid="timing" data-phase="raw-crc32"><td>{ "raw crc32fast pass (limit, same bytes)" }</td>
                        <td class="num">{ format!("{ms:.1} ms") }</td><td class="num">{ human_bytes(run.read_bytes) }</td>
                        <td class="num">{ rate(run.read_bytes, ms) }</td></tr>
                }
                <tr><td>{ "total (wall clock)" }</td><td class="num">{ format!("{:.1} ms", run.total_millis) }</td>
                    <td class="num">{ human_bytes(r.data_bytes) }</td><td class="num">{ rate(r.data_bytes, run.total_millis) }</td></tr>
            </tbody>
        </table>
    }
}
