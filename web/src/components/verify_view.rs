//! Verification: one button checks every checksum (chunks, CRC.db, digest, metadata CRCs) with a
//! progress bar and a cancel button; a strip shows every Data.db chunk green or red; a red chunk
//! shows its bytes, expected vs actual and the partitions it overlaps; timings per phase.

use std::rc::Rc;

use sstable_engine::component::ComponentType;
use sstable_engine::span::Span;
use sstable_engine::verify::{CheckKind, Failure, FindingKind};
use yew::prelude::*;

use super::hex_view::HexView;
use super::sstable_card::human_bytes;
use crate::loader;

use crate::state::{SSTableView, Verdict, VerifyProgress, VerifyRun};

/// At most this many cells in the chunk strip; beyond, each cell stands for several chunks (a
/// report's first render lays out every cell in one task: 2,048 made it 120–220 ms on the 2-core
/// machine, issue #12).
const MAX_STRIP_CELLS: u64 = 256;

#[derive(Properties, PartialEq)]
pub struct VerifyViewProps {
    pub sstable: SSTableView,
    /// The last verification of this SSTable (kept in the state, for the overview's badge).
    pub report: Option<Rc<VerifyRun>>,
    /// The verification of this SSTable running in the worker pool, if any.
    pub progress: Option<VerifyProgress>,
    /// Starts a verification: (decompress, time a raw crc32fast baseline).
    pub on_start: Callback<(bool, bool)>,
    /// Cancels the pool's job.
    pub on_cancel: Callback<u64>,
}

#[function_component(VerifyView)]
pub fn verify_view(props: &VerifyViewProps) -> Html {
    let selected = use_state(|| None::<u64>);
    let decompress = use_state(|| false);
    let baseline = use_state(|| false);

    let start = {
        let on_start = props.on_start.clone();
        let selected = selected.clone();
        let options = (*decompress, *baseline);
        Callback::from(move |_| {
            selected.set(None);
            on_start.emit(options);
        })
    };
    let on_cancel = {
        let on_cancel = props.on_cancel.clone();
        let job = props.progress.map(|p| p.job);
        Callback::from(move |_| {
            if let Some(job) = job {
                on_cancel.emit(job);
            }
        })
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
    let chunk_count = s.summary.chunk_count;
    let running = props.progress;
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
            if let Some(r) = running {
                <progress data-testid="verify-progress" max={r.total_bytes.max(1).to_string()} value={r.done_bytes.to_string()} />
                <span class="muted" data-testid="verify-progress-text">{ format!(" {} of {} (in a worker)", human_bytes(r.done_bytes), human_bytes(r.total_bytes)) }</span>
            }
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
    let r = run;
    let chunk_failures: Vec<&Failure> = r
        .checks
        .iter()
        .filter(|c| c.component == "Data.db" || c.component == "CRC.db")
        .flat_map(|c| &c.failures)
        .filter(|f| f.chunk.is_some())
        .collect();
    // The strip shows the chunks the checks counted (a finished run's chunk or CRC.db check);
    // a CRC.db with more checksums than Data.db has chunks says so, its extra entries unchecked.
    let checked = r
        .checks
        .iter()
        .find(|c| matches!(c.kind, CheckKind::Chunk | CheckKind::CrcDb))
        .filter(|_| r.complete)
        .map(|c| (c.component.clone(), c.checked));
    let strip_chunks = checked.as_ref().map(|(_, n)| *n).or(chunk_count);
    let extra = match (&checked, chunk_count) {
        (Some((component, n)), Some(listed)) if listed > *n => Some(format!(
            "{component} holds {listed} checksums, Data.db's {} bytes make {}: the last {} not checked: no Data.db bytes are left for {}.",
            r.data_bytes,
            super::plural(*n, "chunk", "chunks"),
            super::plural(listed - n, "checksum is", "checksums are"),
            if listed - n == 1 { "it" } else { "them" },
        )),
        _ => None,
    };
    let strip = strip_chunks
        .map(|n| strip(n, &chunk_failures, selected))
        .unwrap_or_default();
    let strip = html! { <>
        { strip }
        if let Some(extra) = extra { <p class="warning" data-testid="chunk-count-note">{ extra }</p> }
    </> };
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
                        { format!(" — {} at bytes {}..{} ({} bytes{}): expected {}, actual {}", without_chunk_prefix(&f.message, chunk), f.offset, f.offset + f.length, f.length,
                            if f.kind == FindingKind::Chunk { ", then its 4-byte checksum" } else { "" }, f.expected, f.actual) }
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
                    let json = format!("[{}]", run.report_json);
                    let _ = loader::download_json(&name, &json);
                })
            }}>{ "Export as JSON" }</button>
            <p data-testid="verify-badge" data-verdict={r.verdict.name()}
               class={classes!("badge", match r.verdict { Verdict::Valid => "ok", Verdict::Invalid => "bad", _ => "warn" })}>
                { match &r.verdict {
                    Verdict::Valid => "valid: every checksum matches".to_owned(),
                    Verdict::Invalid => "INVALID: checks failed".to_owned(),
                    Verdict::NotVerifiable(why) => format!("NOT VERIFIABLE: {why}"),
                    Verdict::Cancelled => "cancelled before the end".to_owned(),
                } }
            </p>
            { strip }
            { detail.unwrap_or_default() }
            <table class="checks" data-testid="verify-checks">
                <thead><tr><th>{ "component" }</th><th>{ "check" }</th><th>{ "algorithm" }</th><th class="num">{ "checked" }</th><th>{ "result" }</th></tr></thead>
                <tbody>
                    { for r.checks.iter().map(|c| html! {
                        <tr data-testid="verify-check" data-ok={c.ok.to_string()} data-kind={kind_name(c.kind)}
                            data-checked={c.checked.to_string()} data-failed={c.failed.to_string()}>
                            <td>{ &c.component }</td><td>{ kind_name(c.kind) }</td><td>{ &c.algorithm }</td>
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
            { for r.errors.iter().map(|e| html! { <p class="error">{ e }</p> }) }
            { timings(run) }
        </>
    }
}

/// Every chunk green or red (grouped into at most [`MAX_STRIP_CELLS`] cells). The cells are plain
/// buttons with a class, a title (their accessible name) and two data attributes; one click
/// handler on the strip reads the cell clicked (thousands of cells with a callback and a label
/// each made one UI-thread task of 120–220 ms when a large file's report arrived, issue #12).
fn strip(chunks: u64, failures: &[&Failure], selected: &UseStateHandle<Option<u64>>) -> Html {
    let per_cell = chunks.div_ceil(MAX_STRIP_CELLS).max(1);
    let cells = chunks.div_ceil(per_cell);
    let mut bad = std::collections::BTreeMap::new();
    for f in failures {
        if let Some(c) = f.chunk {
            // The first failing chunk of each cell is the one its click shows.
            bad.entry(c / per_cell).or_insert(c);
        }
    }
    let onclick = {
        let selected = selected.clone();
        let bad = bad.clone();
        Callback::from(move |e: MouseEvent| {
            let cell = e
                .target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
                .and_then(|el| el.get_attribute("data-chunk"))
                .and_then(|c| c.parse::<u64>().ok());
            if let Some(first_chunk) = cell {
                selected.set(bad.get(&(first_chunk / per_cell)).copied());
            }
        })
    };
    let items = (0..cells).map(|i| {
        let failing = bad.contains_key(&i);
        let first_chunk = i * per_cell;
        let range = if per_cell == 1 { format!("chunk {first_chunk}") } else { format!("chunks {first_chunk}..{}", (first_chunk + per_cell).min(chunks)) };
        let title = format!("{range}: {}", if failing { "checksum failed" } else { "ok" });
        html! {
            <button class={if failing { "chunk bad" } else { "chunk good" }} {title}
                    data-testid="chunk" data-chunk={first_chunk.to_string()} data-ok={if failing { "false" } else { "true" }} />
        }
    });
    html! {
        <div class="chunk-strip" data-testid="chunk-strip" data-chunks={chunks.to_string()} {onclick}>{ for items }</div>
    }
}

/// Per phase and per worker: bytes, time, MB/s; the baselines measured on the same bytes in the
/// same run (the `FileReaderSync` reads, one raw crc32fast pass) and our figures as ratios.
fn timings(run: &VerifyRun) -> Html {
    let mb_s = |bytes: u64, ms: f64| (ms > 0.0).then(|| bytes as f64 / 1e6 / (ms / 1000.0));
    let rate = |bytes: u64, ms: f64| {
        mb_s(bytes, ms).map_or_else(|| "–".to_owned(), |v| format!("{v:.0} MB/s"))
    };
    let read_rate = mb_s(run.read_bytes, run.read_millis);
    let crc_rate = run.raw_crc32_millis.and_then(|ms| mb_s(run.read_bytes, ms));
    let ratio = |ours: Option<f64>, base: Option<f64>, name: &str| match (ours, base) {
        (Some(o), Some(b)) if b > 0.0 => format!("{:.2} × {name}", o / b),
        _ => String::new(),
    };
    let total_rate = mb_s(run.data_bytes, run.total_millis);
    html! {
        <>
        <table class="timings" data-testid="timings" data-crc32={run.crc32_implementation.clone()}>
            <thead><tr><th>{ "phase" }</th><th class="num">{ "time" }</th><th class="num">{ "bytes" }</th><th class="num">{ "speed" }</th><th>{ "ratio" }</th></tr></thead>
            <tbody>
                <tr data-testid="timing" data-phase="read"><td>{ "read (FileReaderSync in the worker): the read limit" }</td><td class="num">{ format!("{:.1} ms", run.read_millis) }</td>
                    <td class="num">{ human_bytes(run.read_bytes) }</td><td class="num">{ rate(run.read_bytes, run.read_millis) }</td><td></td></tr>
                if let Some(ms) = run.raw_crc32_millis {
                    <tr data-testid="timing" data-phase="raw-crc32"><td>{ "raw crc32fast pass (same bytes)" }</td>
                        <td class="num">{ format!("{ms:.1} ms") }</td><td class="num">{ human_bytes(run.read_bytes) }</td>
                        <td class="num">{ rate(run.read_bytes, ms) }</td><td></td></tr>
                }
                { for run.timings.iter().map(|t| {
                    let ours = mb_s(t.bytes, t.millis);
                    let vs = if t.phase == "checksum" { ratio(ours, crc_rate, "raw crc32fast") } else { String::new() };
                    html! {
                        <tr data-testid="timing" data-phase={t.phase.clone()}>
                            <td>{ if t.phase == "checksum" { format!("checksum ({})", run.crc32_implementation) } else { t.phase.clone() } }</td>
                            <td class="num">{ format!("{:.1} ms", t.millis) }</td>
                            <td class="num">{ human_bytes(t.bytes) }</td><td class="num">{ rate(t.bytes, t.millis) }</td><td>{ vs }</td>
                        </tr>
                    }
                }) }
                <tr data-testid="timing" data-phase="total"><td>{ "end to end (wall clock in the worker)" }</td><td class="num">{ format!("{:.1} ms", run.total_millis) }</td>
                    <td class="num">{ human_bytes(run.data_bytes) }</td><td class="num">{ rate(run.data_bytes, run.total_millis) }</td>
                    <td>{ ratio(total_rate, read_rate, "read limit") }</td></tr>
            </tbody>
        </table>
        <table class="timings" data-testid="worker-timings" data-parts={run.workers.len().to_string()}>
            <thead><tr><th>{ "worker" }</th><th>{ "part of Data.db" }</th><th class="num">{ "bytes" }</th><th class="num">{ "time" }</th><th class="num">{ "speed" }</th><th class="num">{ "wasm memory" }</th></tr></thead>
            <tbody>
                { for run.workers.iter().chain(run.combine.iter()).map(|w| {
                    let combining = w.range.is_none() && run.combine.as_ref() == Some(w);
                    let part = match (w.range, w.chunks) {
                        (Some((start, end)), Some((first, last))) => format!("bytes {start}..{end}, chunks {first}..{last}"),
                        _ if combining => "combine the parts' checksums, name failing chunks' partitions".to_owned(),
                        _ => "all".to_owned(),
                    };
                    html! {
                    <tr data-testid={if combining { "worker-combine" } else { "worker-timing" }} data-worker={w.worker.to_string()}
                        data-memory={format!("{:.0}", w.wasm_memory_bytes)}
                        data-start={w.range.map(|r| r.0.to_string())} data-end={w.range.map(|r| r.1.to_string())}>
                        <td>{ format!("#{}", w.worker) }</td><td>{ part }</td><td class="num">{ human_bytes(w.bytes) }</td>
                        <td class="num">{ format!("{:.1} ms", w.millis) }</td><td class="num">{ rate(w.bytes, w.millis) }</td>
                        <td class="num">{ human_bytes(w.wasm_memory_bytes as u64) }</td>
                    </tr>
                }}) }
            </tbody>
        </table>
        </>
    }
}

/// A check's kind as the table and its test attribute name it (`chunk`, `crcdb`, `digest`, …).
fn kind_name(kind: CheckKind) -> String {
    format!("{kind:?}").to_lowercase()
}

/// A failure's message without the "chunk N (Data.db a..b): " the detail already leads with.
fn without_chunk_prefix(message: &str, chunk: u64) -> &str {
    let Some(rest) = message.strip_prefix(&format!("chunk {chunk}")) else {
        return message;
    };
    let rest = match rest.trim_start().strip_prefix('(') {
        Some(r) => r.split_once("): ").map_or(r, |(_, after)| after),
        None => rest,
    };
    let rest = rest.trim_start_matches([':', ' ']);
    if rest.is_empty() {
        message
    } else {
        rest
    }
}
