//! The Analytics tab: Statistics.db's histograms of the selected SSTable, a partitions scan of
//! its Data.db (size distribution, top partitions, tombstones and TTLs at a gc grace), and for
//! every SSTable loaded the table view — [min, max] timestamps, token ranges and overlaps, fully
//! expired SSTables and their blockers (`sstable_engine::analytics`, as `sstable-inspect
//! partitions | tombstones | table`).
//!
//! The scan runs in the worker pool (`crate::worker`'s analytics, `Request::Analytics` jobs),
//! split over its workers by partition-aligned ranges ([`crate::analytics_scan`]): Data.db is
//! read there with `FileReaderSync`, the progress bar follows the workers' reports, and Cancel,
//! leaving the tab or starting another scan cancels every job of it. What comes back is a few
//! hundred numbers; a new gc grace is answered by the worker's kept scan. The table view is
//! computed in a worker too (`Request::Table`, from every SSTable's small components), once per
//! set of SSTables and gc grace.

use std::rc::Rc;

use sstable_engine::datetime::iso8601_secs;
use sstable_engine::sstable_set::table_of;
use yew::prelude::*;

use super::charts::{Bar, BarChart, TimeAxis, TimelineChart, TimelineRow};
use super::plural;
use super::zombies_view::ZombiesView;
use crate::analytics_scan::{self, ScanEvent, ScanJob};
use crate::pool;
use crate::protocol::analytics::AnalyticsScan;
use crate::protocol::answers::{TableRow, TableView};
use crate::protocol::{Reply, Request};
use crate::state::{SSTableView, Shared};
use sstable_engine::component::ComponentType;

#[derive(Properties, PartialEq)]
pub struct AnalyticsViewProps {
    pub sstable: SSTableView,
    /// Every SSTable loaded (the table view), shared with the state, not copied.
    pub all: Shared<Vec<SSTableView>>,
}

/// Cassandra's default gc_grace_seconds.
const DEFAULT_GC_GRACE_SECS: i64 = 864_000;

/// What the scan shows: its progress while it runs, then its answer or its error.
#[derive(Clone, PartialEq, Default)]
struct ScanView {
    progress: Option<(u64, u64)>,
    result: Option<Result<Rc<AnalyticsScan>, String>>,
}

/// Starts the scan of `view` at `gc_grace_secs` in the pool ([`analytics_scan`]: split over
/// its workers; cancelling the one in `job`); its events go to `scan` while it is still the
/// current job.
fn submit_scan(
    view: &SSTableView,
    gc_grace_secs: i64,
    job: &pool::JobSlot,
    scan: &UseStateHandle<ScanView>,
) {
    let kept = scan.result.clone();
    scan.set(ScanView {
        progress: Some((0, 1)),
        result: kept.clone(),
    });
    let scan = scan.clone();
    let data_bytes = view
        .file(&ComponentType::Data)
        .map_or(0, |f| f.size() as u64);
    analytics_scan::start(
        job,
        ScanJob {
            sstable: view.prefix.clone(),
            files: view.file_refs(),
            data_bytes,
            gc_grace_secs,
            workers: pool::size(),
        },
        Rc::new(move |event: ScanEvent| match event {
            ScanEvent::Progress(done, total) => scan.set(ScanView {
                progress: Some((done, total)),
                result: kept.clone(),
            }),
            ScanEvent::Done(result) => scan.set(ScanView {
                progress: None,
                result: Some(result.map(|s| Rc::new(*s))),
            }),
        }),
    );
}

fn histogram_bars(buckets: &[(i64, i64)], unit: &str) -> Vec<Bar> {
    buckets
        .iter()
        .map(|(o, c)| (o, c))
        .filter(|(_, c)| **c > 0)
        .map(|(o, c)| Bar {
            label: format!("≤{}", super::charts::short(*o as f64)),
            value: *c as f64,
            detail: format!("{c} partitions of at most {o} {unit}"),
        })
        .collect()
}

#[function_component(AnalyticsView)]
pub fn analytics_view(p: &AnalyticsViewProps) -> Html {
    let scan = use_state(ScanView::default);
    // The scan job running in the pool (replaced and cancelled by the next; cancelled when the
    // tab is left).
    let job = use_mut_ref(|| None::<u64>);
    let gc_grace = use_state(|| DEFAULT_GC_GRACE_SECS);

    let stats = p.sstable.summary.histograms.clone();

    let on_scan = {
        let view = p.sstable.clone();
        let scan = scan.clone();
        let job = job.clone();
        let gc_grace = gc_grace.clone();
        Callback::from(move |_| submit_scan(&view, *gc_grace, &job, &scan))
    };
    let on_cancel = {
        let job = job.clone();
        Callback::from(move |_| {
            // The worker answers `Failed("cancelled")` at its next slice.
            let running = *job.borrow();
            if let Some(running) = running {
                pool::cancel(running);
            }
        })
    };
    let on_gc = {
        let gc_grace = gc_grace.clone();
        let view = p.sstable.clone();
        let scan = scan.clone();
        let job = job.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().parse::<i64>() {
                let v = v.max(0);
                gc_grace.set(v);
                // A scan shown is redone at the new gc grace (the worker's kept scan answers).
                if matches!(scan.result, Some(Ok(_))) {
                    submit_scan(&view, v, &job, &scan);
                }
            }
        })
    };
    // Leaving the tab cancels the scan.
    {
        let job = job.clone();
        use_effect_with((), move |_| {
            move || {
                pool::cancel_slot(&job);
            }
        });
    }

    // Statistics.db histograms.
    let stats_charts = match stats {
        Some(s) => {
            let drop_bars: Vec<Bar> = s
                .tombstone_drop
                .iter()
                .map(|&(point_secs, count)| Bar {
                    label: iso8601_secs(point_secs).chars().take(10).collect(),
                    value: count as f64,
                    detail: format!(
                        "{} tombstones / expiring cells droppable from about {}",
                        count,
                        iso8601_secs(point_secs)
                    ),
                })
                .collect();
            html! { <>
                <BarChart id="stats-partition-size" title="Statistics.db: estimated partition size"
                          x_label="partition size (bytes, bucket upper bound)" y_label="partitions"
                          bars={histogram_bars(&s.partition_size, "bytes")} />
                <BarChart id="stats-cell-count" title="Statistics.db: estimated cells per partition"
                          x_label="cells per partition (bucket upper bound)" y_label="partitions"
                          bars={histogram_bars(&s.cells_per_partition, "cells")} />
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
    let scan_html = match &scan.result {
        None => html! {},
        Some(Err(e)) => html! { <p class="error" role="alert" data-testid="scan-error">{ e }</p> },
        Some(Ok(r)) => {
            let size_bars: Vec<Bar> = r
                .size_histogram
                .iter()
                .map(|(upper, count)| Bar {
                    label: format!("≤{}", super::charts::short(*upper as f64)),
                    value: *count as f64,
                    detail: format!("{count} partitions of at most {upper} bytes"),
                })
                .collect();
            let t = &r.tombstone_report;
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
            let [partition, row, range, complex, cell] = r.tombstones_by_kind;
            html! { <>
                <p data-testid="scan-summary" data-reused={r.reused.to_string()} data-ranges={r.ranges.to_string()} data-millis={format!("{:.1}", r.millis)}>{ format!(
                    "{} scanned in {:.0} ms ({}, {} bytes of Data.db read): {}, {}, {} ({} partition, {} row, {} range, {} complex, {} cell), {}",
                    plural(r.partitions, "partition", "partitions"), r.millis,
                    if r.ranges > 1 { format!("{} ranges over the workers", r.ranges) } else { "in a worker".to_owned() }, r.bytes_read,
                    plural(r.rows, "row", "rows"), plural(r.cells, "cell", "cells"),
                    plural(r.tombstones, "tombstone", "tombstones"),
                    partition, row, range, complex, cell, plural(r.ttl_cells, "live TTL cell", "live TTL cells")) }</p>
                <BarChart id="scan-partition-size" title="Partition sizes (scan of Data.db)"
                          x_label="partition size (bytes, bucket upper bound)" y_label="partitions" bars={size_bars} />
                <h4>{ "Largest partitions" }</h4>
                <table class="grid" data-testid="top-partitions">
                    <thead><tr><th>{ "key" }</th><th>{ "token" }</th><th>{ "bytes" }</th><th>{ "rows" }</th><th>{ "cells" }</th><th>{ "tombstones" }</th><th>{ "TTL cells" }</th></tr></thead>
                    <tbody>
                        { for r.top.iter().map(|p| html! {
                            <tr><td><code>{ &p.key }</code></td><td>{ &p.token }</td><td>{ p.bytes }</td><td>{ p.rows }</td>
                                <td>{ p.cells }</td><td>{ p.tombstones }</td><td>{ p.ttl_cells }</td></tr>
                        }) }
                    </tbody>
                </table>
                <h4>{ "Tombstones and TTLs" }</h4>
                <p data-testid="tombstone-summary">{ format!(
                    "now {} ({}), gcBefore {}: {} of {} tombstones droppable ({} invalid local deletion times); {} of {} TTL cells expired; Statistics.db estimates a droppable ratio of {:.4}, counted {:.4}",
                    iso8601_secs(t.now_secs), t.now_source, iso8601_secs(t.gc_before_secs), t.droppable, t.total,
                    t.invalid_local_deletion_time, t.ttl_expired, t.ttl_total,
                    t.estimated_droppable_ratio.unwrap_or(0.0),
                    t.counted_droppable_ratio.unwrap_or(0.0)) }</p>
                if !timeline.is_empty() {
                    <BarChart id="scan-drop-timeline" title="What becomes droppable or expires, and when"
                              x_label="time after now (UTC)" y_label="tombstones + TTL cells" bars={timeline} />
                }
            </> }
        }
    };

    // The table: the SSTables loaded of the selected SSTable's table (by its path:
    // `sstable_set::table_of`), computed in a worker once per set of SSTables and gc grace (not
    // on every progress report of the scan). Other tables' SSTables are never compared with them.
    let table_of = table_of(&p.sstable.prefix);
    let tables_loaded = {
        let mut keys: Vec<String> = p.all.iter().map(|s| table_of_key(&s.prefix)).collect();
        sstable_engine::sort::sort(&mut keys);
        keys.dedup();
        keys.len()
    };
    let table_view = use_state(|| None::<Rc<TableView>>);
    let table_job = use_mut_ref(|| None::<u64>);
    {
        let table_view = table_view.clone();
        let table_job = table_job.clone();
        use_effect_with(
            (p.all.clone(), table_of.key.clone(), *gc_grace),
            move |(all, key, gc_grace)| {
                table_view.set(None);
                let request = Request::Table {
                    job: 0,
                    sstables: all
                        .iter()
                        .filter(|s| table_of_key(&s.prefix) == *key)
                        .map(|s| (s.prefix.clone(), s.file_refs()))
                        .collect(),
                    gc_grace_secs: *gc_grace,
                };
                pool::submit_in_slot(&table_job, request, move |reply| {
                    if let Reply::Table { table, .. } = reply {
                        table_view.set(Some(Rc::new(*table)));
                    }
                });
                move || pool::cancel_slot(&table_job)
            },
        );
    }
    let empty = Rc::new(TableView::default());
    let table = (*table_view).clone().unwrap_or(empty);
    let kind = |s: &TableRow| {
        if s.fully_expired {
            "expired"
        } else if !s.blocked_by.is_empty() {
            "blocked"
        } else if table
            .sstables
            .iter()
            .any(|o| o.blocked_by.contains(&s.sstable))
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
                start: a.at?,
                end: b.at?,
                kind: kind(s),
                detail: format!("tokens {} … {}", a.text, b.text),
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
                <button onclick={on_scan} data-testid="scan-partitions" disabled={scan.progress.is_some()}>{ "Scan partitions" }</button>
                if let Some((done, total)) = scan.progress {
                    <progress data-testid="scan-progress" max={total.max(1).to_string()} value={done.to_string()} />
                    <button onclick={on_cancel} data-testid="scan-cancel">{ "Cancel" }</button>
                }
            </p>
            { scan_html }
            <h3 data-testid="table-heading" data-table={table_of.key.clone()}>
                { format!("Table {}: {}", table_of.name, plural(table.sstables.len() as u64, "SSTable", "SSTables")) }
            </h3>
            if tables_loaded > 1 {
                <p class="muted" data-testid="table-scope">{ format!(
                    "The SSTables of {} loaded, one of {tables_loaded} tables: another table's SSTables are never compared with these (select one of them for its table).",
                    table_of.name) }</p>
            }
            <p data-testid="table-summary" data-ready={table_view.is_some().to_string()} data-overlaps={table.overlaps.to_string()}
               data-fully-expired={table.fully_expired.join(",")} data-blocked={table.blocked.join(",")}>
                { format!("now {} ({}), gcBefore {}; {} token-range overlaps; fully expired: {}; expired but blocked: {}",
                    iso8601_secs(table.now_secs), table.now_source, iso8601_secs(table.gc_before_secs), table.overlaps,
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
                            <td>{ s.blocked_by.join(", ") }</td></tr>
                    }) }
                </tbody>
            </table>
            // Counted from the SSTables loaded, not the table view (redone at each gc grace), so
            // a scan shown stays while the gc grace changes.
            if p.all.iter().filter(|s| table_of_key(&s.prefix) == table_of.key).count() > 1 {
                <ZombiesView all={p.all.clone()} table_key={table_of.key.clone()} gc_grace_secs={*gc_grace} />
            }
        </section>
    }
}

/// The key SSTables of one table share (`sstable_set::table_of`).
fn table_of_key(prefix: &str) -> String {
    table_of(prefix).key
}
