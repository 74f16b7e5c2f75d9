//! The Analytics tab: Statistics.db's histograms of the selected SSTable, a partitions scan of
//! its Data.db (size distribution, top partitions, tombstones and TTLs at a gc grace), and for
//! every SSTable loaded the table view — [min, max] timestamps, token ranges and overlaps, fully
//! expired SSTables and their blockers (`sstable_engine::analytics`, as `sstable-inspect
//! partitions | tombstones | table`).
//!
//! The scan reads Data.db by `Blob.slice` ranges through the engine's `AsyncDriver` and awaits
//! each read, so the page paints, the progress bar moves and Cancel is honoured between reads;
//! memory stays at one partition.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use sstable_engine::analytics::{
    self, table_report, PartitionColumn, PartitionFilter, PartitionScan, PartitionStats,
    PartitionsCollector, PartitionsSummary, TombstoneScan,
};
use sstable_engine::component::data::DecodeStep;
use sstable_engine::component::ComponentType;
use sstable_engine::datetime::iso8601_secs;
use sstable_engine::range::AsyncDriver;
use sstable_engine::token::Token;
use yew::prelude::*;

use super::charts::{Bar, BarChart, TimeAxis, TimelineChart, TimelineRow};
use crate::loader;
use crate::state::{SSTableView, Shared};

#[derive(Properties, PartialEq)]
pub struct AnalyticsViewProps {
    pub sstable: SSTableView,
    /// Every SSTable loaded (the table view).
    /// Every SSTable loaded (shared with the state, not copied).
    pub all: Shared<Vec<SSTableView>>,
}

/// What a finished scan keeps.
#[derive(Clone)]
struct ScanResult {
    top: Vec<PartitionStats>,
    summary: PartitionsSummary,
    tombstones: Rc<TombstoneScan>,
    millis: f64,
}

impl PartialEq for ScanResult {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.tombstones, &other.tombstones)
    }
}

/// Cassandra's default gc_grace_seconds.
const DEFAULT_GC_GRACE_SECS: i64 = 864_000;

async fn scan(
    view: &SSTableView,
    progress: impl Fn(u64, u64),
    cancel: Rc<Cell<bool>>,
) -> Result<ScanResult, String> {
    let started = loader::now_millis();
    let m = &view.metadata.0;
    let (mut reader, key_type) = analytics::data_reader(m).map_err(|e| e.to_string())?;
    let file = view
        .file(&ComponentType::Data)
        .ok_or("no Data.db was given")?;
    let total = file.size() as u64;
    let (now, _) = analytics::default_now(m);
    let mut partitions = PartitionScan::new(key_type, m.partitioner(), now);
    let mut collector = PartitionsCollector::new(
        PartitionFilter::default(),
        Some((10, PartitionColumn::Bytes)),
    );
    let mut tombstones = TombstoneScan::new();
    // Data.db through the engine's async driver: each read is awaited, so the page paints and
    // the cancel flag is seen between reads.
    let mut driver = AsyncDriver::new(|r| loader::read_component(&view.files, r));
    let mut reported = 0u64;
    loop {
        if cancel.get() {
            return Err("cancelled".to_owned());
        }
        let step = driver
            .next_item(&mut reader, &loader::PerformanceClock)
            .await
            .map_err(|e| e.to_string())?;
        let read = driver.stats().bytes;
        if read != reported {
            reported = read;
            progress(read, total);
        }
        match step {
            DecodeStep::Finished | DecodeStep::NeedMoreData => break,
            DecodeStep::Item(item) => {
                tombstones.push(&item);
                if let Some((key, p)) = partitions.push(&item) {
                    collector.add(&key, p);
                }
            }
        }
    }
    let (top, summary) = collector.finish();
    Ok(ScanResult {
        top,
        summary,
        tombstones: Rc::new(tombstones),
        millis: loader::now_millis() - started,
    })
}

fn histogram_bars(offsets: &[i64], counts: &[i64], unit: &str) -> Vec<Bar> {
    offsets
        .iter()
        .zip(counts)
        .filter(|(_, c)| **c > 0)
        .map(|(o, c)| Bar {
            label: format!("≤{}", super::charts::short(*o as f64)),
            value: *c as f64,
            detail: format!("{c} partitions of at most {o} {unit}"),
        })
        .collect()
}

fn token_f64(t: &Token) -> Option<f64> {
    match t {
        Token::Murmur3(v) => Some(*v as f64),
        Token::Random(Some(v)) => Some(*v as f64),
        Token::Bytes(b) | Token::Key(b) => Some(
            b.iter()
                .take(8)
                .chain(std::iter::repeat(&0))
                .take(8)
                .fold(0.0, |a, x| a * 256.0 + f64::from(*x)),
        ),
        _ => None,
    }
}

#[function_component(AnalyticsView)]
pub fn analytics_view(p: &AnalyticsViewProps) -> Html {
    let progress = use_state(|| None::<(u64, u64)>);
    let result = use_state(|| None::<Result<ScanResult, String>>);
    let cancel = use_mut_ref(|| Rc::new(Cell::new(false)));
    let gc_grace = use_state(|| DEFAULT_GC_GRACE_SECS);
    let running = use_mut_ref(|| false);

    let m = &p.sstable.metadata.0;
    let stats = m.statistics.as_ref().and_then(|s| s.stats.as_ref());

    let on_scan = {
        let view = p.sstable.clone();
        let progress = progress.clone();
        let result = result.clone();
        let cancel = cancel.clone();
        let running: Rc<RefCell<bool>> = running.clone();
        Callback::from(move |_| {
            if *running.borrow() {
                return;
            }
            *running.borrow_mut() = true;
            let flag = Rc::new(Cell::new(false));
            *cancel.borrow_mut() = flag.clone();
            let view = view.clone();
            let progress = progress.clone();
            let result = result.clone();
            let running = running.clone();
            progress.set(Some((0, 1)));
            wasm_bindgen_futures::spawn_local(async move {
                let p2 = progress.clone();
                let r = scan(&view, move |d, t| p2.set(Some((d, t))), flag).await;
                progress.set(None);
                result.set(Some(r));
                *running.borrow_mut() = false;
            });
        })
    };
    let on_cancel = {
        let cancel = cancel.clone();
        Callback::from(move |_| cancel.borrow().set(true))
    };
    let on_gc = {
        let gc_grace = gc_grace.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().parse::<i64>() {
                gc_grace.set(v.max(0));
            }
        })
    };

    // Statistics.db histograms.
    let stats_charts = match stats {
        Some(s) => {
            let size = &s.estimated_partition_size;
            let cells = &s.estimated_cell_per_partition_count;
            let drop_bars: Vec<Bar> = s
                .estimated_tombstone_drop_time
                .bins
                .iter()
                .map(|b| Bar {
                    label: iso8601_secs(b.point_secs).chars().take(10).collect(),
                    value: b.count as f64,
                    detail: format!(
                        "{} tombstones / expiring cells droppable from about {}",
                        b.count,
                        iso8601_secs(b.point_secs)
                    ),
                })
                .collect();
            html! { <>
                <BarChart id="stats-partition-size" title="Statistics.db: estimated partition size"
                          x_label="partition size (bytes, bucket upper bound)" y_label="partitions"
                          bars={histogram_bars(&size.bucket_offsets(), &size.counts(), "bytes")} />
                <BarChart id="stats-cell-count" title="Statistics.db: estimated cells per partition"
                          x_label="cells per partition (bucket upper bound)" y_label="partitions"
                          bars={histogram_bars(&cells.bucket_offsets(), &cells.counts(), "cells")} />
                if !drop_bars.is_empty() {
                    <BarChart id="stats-tombstone-drop" title="Statistics.db: tombstone drop times"
                              x_label="local deletion / expiry time (UTC date)" y_label="tombstones + expiring cells"
                              bars={drop_bars} />
                }
            </> }
        }
        None => html! { <p class="muted">{ "No STATS in Statistics.db: no histograms." }</p> },
    };

    // The scan.
    let scan_html = match &*result {
        None => html! {},
        Some(Err(e)) => html! { <p class="error" role="alert" data-testid="scan-error">{ e }</p> },
        Some(Ok(r)) => {
            let size_bars: Vec<Bar> = r
                .summary
                .size_histogram
                .iter()
                .map(|(upper, count)| Bar {
                    label: format!("≤{}", super::charts::short(*upper as f64)),
                    value: *count as f64,
                    detail: format!("{count} partitions of at most {upper} bytes"),
                })
                .collect();
            let t = r
                .tombstones
                .report(&p.sstable.prefix, *gc_grace, None, stats);
            let timeline: Vec<Bar> = t
                .timeline
                .iter()
                .map(|b| Bar {
                    label: iso8601_secs(b.from_secs).chars().take(10).collect(),
                    value: (b.tombstones_droppable + b.ttl_cells_expiring) as f64,
                    detail: format!(
                        "{} tombstones become droppable, {} TTL cells expire, {} → {}",
                        b.tombstones_droppable,
                        b.ttl_cells_expiring,
                        iso8601_secs(b.from_secs),
                        iso8601_secs(b.to_secs)
                    ),
                })
                .collect();
            let s = &r.summary;
            html! { <>
                <p data-testid="scan-summary">{ format!(
                    "{} partitions scanned in {:.0} ms: {} rows, {} cells, {} tombstones ({} partition, {} row, {} range, {} complex, {} cell), {} live TTL cells",
                    s.partitions, r.millis, s.rows.total, s.cells.total, s.tombstones.total,
                    s.tombstones_by_kind.partition, s.tombstones_by_kind.row, s.tombstones_by_kind.range,
                    s.tombstones_by_kind.complex, s.tombstones_by_kind.cell, s.ttl_cells) }</p>
                <BarChart id="scan-partition-size" title="Partition sizes (scan of Data.db)"
                          x_label="partition size (bytes, bucket upper bound)" y_label="partitions" bars={size_bars} />
                <h4>{ "Largest partitions" }</h4>
                <table class="grid" data-testid="top-partitions">
                    <thead><tr><th>{ "key" }</th><th>{ "token" }</th><th>{ "bytes" }</th><th>{ "rows" }</th><th>{ "cells" }</th><th>{ "tombstones" }</th><th>{ "TTL cells" }</th></tr></thead>
                    <tbody>
                        { for r.top.iter().map(|p| html! {
                            <tr><td><code>{ &p.key }</code></td><td>{ p.token.to_string() }</td><td>{ p.bytes }</td><td>{ p.rows }</td>
                                <td>{ p.cells }</td><td>{ p.tombstones.total() }</td><td>{ p.ttl_cells }</td></tr>
                        }) }
                    </tbody>
                </table>
                <h4>{ "Tombstones and TTLs" }</h4>
                <p data-testid="tombstone-summary">{ format!(
                    "now {} ({:?}), gcBefore {}: {} of {} tombstones droppable ({} invalid local deletion times); {} of {} TTL cells expired; Statistics.db estimates a droppable ratio of {:.4}, counted {:.4}",
                    iso8601_secs(t.now_secs), t.now_source, iso8601_secs(t.gc_before_secs), t.tombstones.droppable, t.tombstones.total,
                    t.tombstones.invalid_local_deletion_time, t.ttl_cells.expired, t.ttl_cells.total,
                    t.statistics.as_ref().map_or(0.0, |s| s.estimated_droppable_ratio),
                    t.statistics.as_ref().map_or(0.0, |s| s.counted_droppable_ratio)) }</p>
                if !timeline.is_empty() {
                    <BarChart id="scan-drop-timeline" title="What becomes droppable or expires, and when"
                              x_label="time after now (UTC)" y_label="tombstones + TTL cells" bars={timeline} />
                }
            </> }
        }
    };

    // The table: every SSTable loaded.
    let list: Vec<(String, &sstable_engine::info::SSTableMetadata)> = p
        .all
        .iter()
        .map(|s| (s.prefix.clone(), &*s.metadata.0))
        .collect();
    let table = table_report(&list, *gc_grace, None);
    let kind = |s: &sstable_engine::analytics::TableSSTable| {
        if s.fully_expired {
            "expired"
        } else if !s.blocked_by.is_empty() {
            "blocked"
        } else if table
            .sstables
            .iter()
            .any(|o| o.blocked_by.iter().any(|b| b.sstable == s.sstable))
        {
            "blocker"
        } else {
            "live"
        }
    };
    let time_rows: Vec<TimelineRow> = table
        .sstables
        .iter()
        .filter_map(|s| {
            let (a, b) = (s.min_timestamp_micros?, s.max_timestamp_micros?);
            Some(TimelineRow {
                label: s.sstable.clone(),
                start: a as f64,
                end: b as f64,
                kind: kind(s),
                detail: format!(
                    "timestamps {} … {} µs; max local deletion time {}",
                    a,
                    b,
                    s.max_local_deletion_time_secs
                        .map_or("none".to_owned(), iso8601_secs)
                ),
            })
        })
        .collect();
    let token_rows: Vec<TimelineRow> = table
        .sstables
        .iter()
        .filter_map(|s| {
            let (a, b) = (s.first_token.as_ref()?, s.last_token.as_ref()?);
            Some(TimelineRow {
                label: s.sstable.clone(),
                start: token_f64(a)?,
                end: token_f64(b)?,
                kind: kind(s),
                detail: format!("tokens {a} … {b}"),
            })
        })
        .collect();

    html! {
        <section class="analytics" data-testid="analytics">
            <h3>{ "Statistics.db histograms" }</h3>
            { stats_charts }
            <h3>{ "Partitions, tombstones and TTLs" }</h3>
            <p>
                <label>{ "gc_grace_seconds " }
                    <input type="number" min="0" value={gc_grace.to_string()} onchange={on_gc} data-testid="gc-grace" />
                </label>
                { " " }
                <button onclick={on_scan} data-testid="scan-partitions" disabled={progress.is_some()}>{ "Scan partitions" }</button>
                if let Some((done, total)) = *progress {
                    <progress data-testid="scan-progress" max={total.max(1).to_string()} value={done.to_string()} />
                    <button onclick={on_cancel} data-testid="scan-cancel">{ "Cancel" }</button>
                }
            </p>
            { scan_html }
            <h3>{ format!("The table: {} SSTable{}", table.sstables.len(), if table.sstables.len() == 1 { "" } else { "s" }) }</h3>
            <p data-testid="table-summary" data-overlaps={table.overlaps.len().to_string()}
               data-fully-expired={table.fully_expired.join(",")} data-blocked={table.blocked.join(",")}>
                { format!("now {} ({:?}), gcBefore {}; {} token-range overlaps; fully expired: {}; expired but blocked: {}",
                    iso8601_secs(table.now_secs), table.now_source, iso8601_secs(table.gc_before_secs), table.overlaps.len(),
                    if table.fully_expired.is_empty() { "none".to_owned() } else { table.fully_expired.join(", ") },
                    if table.blocked.is_empty() { "none".to_owned() } else { table.blocked.join(", ") }) }
            </p>
            <TimelineChart id="table-timeline" title="Timestamps of each SSTable [min, max]" x_label="write time (UTC)"
                           axis={TimeAxis::Micros} rows={time_rows} />
            <TimelineChart id="table-tokens" title="Token ranges (overlapping bars overlap)" x_label="token"
                           axis={TimeAxis::Plain} rows={token_rows} />
            <table class="grid" data-testid="table-sstables">
                <thead><tr><th>{ "SSTable" }</th><th>{ "level" }</th><th>{ "repairedAt" }</th><th>{ "pending repair" }</th><th>{ "origin" }</th><th>{ "blocked by" }</th></tr></thead>
                <tbody>
                    { for table.sstables.iter().map(|s| html! {
                        <tr data-testid="table-sstable"><td><code>{ &s.sstable }</code></td>
                            <td>{ s.level.map(|l| l.to_string()).unwrap_or_default() }</td>
                            <td>{ s.repaired_at_millis.map(|l| l.to_string()).unwrap_or_default() }</td>
                            <td>{ s.pending_repair.clone().unwrap_or_default() }</td>
                            <td>{ s.originating_host_id.clone().unwrap_or_default() }</td>
                            <td>{ s.blocked_by.iter().map(|b| b.sstable.clone()).collect::<Vec<_>>().join(", ") }</td></tr>
                    }) }
                </tbody>
            </table>
        </section>
    }
}
