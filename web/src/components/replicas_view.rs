//! "Compare replicas": one drop zone per node (2 or 3), each node's copy of one table; in a
//! worker (`Request::Replicas`) each replica's SSTables are merged, purged at gcBefore and
//! hashed per token range into a Merkle tree as Cassandra's validation compaction does, and the
//! replicas compared partition by partition (`sstable_engine::repair`, as `sstable-inspect diff
//! A B [C]`), with progress and Cancel.
//!
//! The mismatching ranges are drawn on a strip of the whole Murmur3 ring (like Verify's chunk
//! strip: [`STRIP_CELLS`] cells, red where a range differs) and listed; a range's partitions
//! that differ — on which replicas, which replica is newest — and the bytes each replica would
//! stream for it show when it is clicked, a page at a time; a partition's key shows its rows on
//! every replica side by side (each replica's merged read of it, `Request::MergedPage`), the
//! rows that differ marked; its pieces show the differing cells, livenesses and tombstones one
//! column per node, the winner marked ([`super::replica_pieces`], computed in a worker).

use std::rc::Rc;

use sstable_engine::datetime::iso8601_micros;
use sstable_engine::dump::UnfilteredJson;
use sstable_engine::sstable_set::group_files;
use yew::prelude::*;

use super::drop_zone::DropZone;
use super::job_run::{self, JobRun};
use super::plural;
use super::replica_pieces::{pieces_view, Pieces};
use super::table_schema::TableSchemaBox;
use crate::loader::PickedFile;
use crate::pool;
use crate::protocol::table::{
    MergedPageMessage, MergedPageRequest, MergedPartitionView, RangeView, ReplicaFocus,
    ReplicaReport,
};
use crate::protocol::{FileRef, Reply, Request};

/// Cells of the token-ring strip.
pub const STRIP_CELLS: usize = 128;
/// Differing partitions listed per page.
const PAGE_PARTITIONS: usize = 50;
/// Rows shown side by side.
const MAX_SIDE_ROWS: usize = 100;
/// Cassandra's default gc_grace_seconds.
const DEFAULT_GC_GRACE_SECS: i64 = 864_000;

/// One node's files: its name (their directory) and its SSTables (name, files).
type Node = crate::protocol::table::Replica;

type Run = JobRun<ReplicaReport>;

/// The files picked for a node, grouped into SSTables (`sstable_set::group_files`); its name
/// is the directory of its first SSTable.
fn node_of(files: &[PickedFile], index: usize) -> Node {
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let grouping = group_files(&paths);
    let name = grouping
        .sstables
        .first()
        .map(|s| s.directory.clone())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| format!("node {}", index + 1));
    let sstables = grouping
        .sstables
        .iter()
        .map(|s| {
            let refs = s
                .files
                .iter()
                .filter_map(|(_, i)| files.get(*i))
                .map(|f| FileRef {
                    path: f.path.clone(),
                    file: f.file.clone(),
                })
                .collect();
            (s.prefix.clone(), refs)
        })
        .collect();
    (name, sstables)
}

/// What a node's drop tells of the table's schema: its 2.x SSTables (they need the table's
/// `CREATE TABLE`) and the text of a schema.cql dropped with them.
#[derive(Clone, PartialEq, Default)]
struct NodeSchema {
    legacy: Vec<String>,
    schema_cql: Option<String>,
}

/// The 2.x SSTables among `files` (names without the directory).
fn legacy_of(files: &[PickedFile]) -> Vec<String> {
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    group_files(&paths)
        .sstables
        .iter()
        .filter(|s| !s.descriptor.version.has_row_format())
        .map(|s| s.prefix.rsplit('/').next().unwrap_or(&s.prefix).to_owned())
        .collect()
}

/// Where a token sits on the ring, 0 … 1.
fn ring_at(token: i64) -> f64 {
    (token as f64 - i64::MIN as f64) / 2f64.powi(64)
}

/// The ring in [`STRIP_CELLS`] cells, red where a mismatching range meets the cell; a red
/// cell's click selects the first range in it.
fn strip(ranges: &[RangeView], selected: &UseStateHandle<Option<usize>>) -> Html {
    let cells = (0..STRIP_CELLS).map(|c| {
        let (lo, hi) = (
            c as f64 / STRIP_CELLS as f64,
            (c + 1) as f64 / STRIP_CELLS as f64,
        );
        let hit = ranges
            .iter()
            .position(|r| ring_at(r.start_token) < hi && ring_at(r.end_token) >= lo);
        let onclick = {
            let selected = selected.clone();
            Callback::from(move |_| selected.set(hit))
        };
        let title = match hit {
            Some(i) => format!(
                "ring {:.1}–{:.1} %: range #{} differs",
                lo * 100.0,
                hi * 100.0,
                i + 1
            ),
            None => format!(
                "ring {:.1}–{:.1} %: the same on every replica",
                lo * 100.0,
                hi * 100.0
            ),
        };
        html! {
            <button class={if hit.is_some() { "chunk bad" } else { "chunk good" }} {title} {onclick}
                    data-testid="ring-cell" data-ok={hit.is_none().to_string()} />
        }
    });
    html! { <div class="chunk-strip" data-testid="replica-strip">{ for cells }</div> }
}

/// One replica's merged read of a partition: `Ok(None)` when it does not hold it.
type ReplicaRead = Result<Option<Rc<MergedPartitionView>>, String>;

/// A differing partition read on every replica.
#[derive(Clone, PartialEq)]
struct Side {
    key_hex: String,
    /// Per replica, once its read is back.
    reads: Vec<Option<ReplicaRead>>,
}

/// A row's label (its clustering, `static`, or a range tombstone bound's) and its content in
/// words (cells `name=value`, `✝` for a tombstone; liveness and deletion times).
fn row_words(r: &UnfilteredJson) -> (String, String) {
    let values = |c: &[Option<String>]| {
        c.iter()
            .map(|v| v.clone().unwrap_or_else(|| "null".to_owned()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if r.r#type.starts_with("range_tombstone") {
        let bound = r.start.as_ref().or(r.end.as_ref());
        let label = format!(
            "{} ({})",
            r.r#type,
            bound.map_or(String::new(), |b| values(&b.clustering))
        );
        let text = [("end", &r.end), ("start", &r.start)]
            .iter()
            .filter_map(|(side, b)| {
                b.as_ref()
                    .map(|b| format!("{side} deleted at {}", b.deletion_info.marked_deleted))
            })
            .collect::<Vec<_>>()
            .join("; ");
        return (label, text);
    }
    let label = if r.r#type == "static_block" {
        "static".to_owned()
    } else {
        format!("({})", values(&r.clustering))
    };
    let mut parts: Vec<String> = Vec::new();
    if let Some(l) = &r.liveness_info {
        parts.push(format!("written {}", l.tstamp));
    }
    if let Some(d) = &r.deletion_info {
        parts.push(format!("deleted {}", d.marked_deleted));
    }
    let cells: Vec<String> = r
        .cells
        .iter()
        .map(|c| {
            let path = c
                .path
                .as_ref()
                .map(|p| format!("[{}]", p.join(",")))
                .unwrap_or_default();
            let value = if c.deletion_info.is_some() {
                "✝".to_owned()
            } else {
                c.value.clone().unwrap_or_default()
            };
            // Its write time, TTL and expiry: an older cell or a TTL run out on one side
            // differs only there.
            let at = c
                .tstamp
                .as_ref()
                .map(|t| format!(" @{t}"))
                .unwrap_or_default();
            let ttl = c.ttl.map(|t| format!(" ttl {t}")).unwrap_or_default();
            let expired = if c.expired == Some(true) {
                " expired"
            } else {
                ""
            };
            format!("{}{path}={value}{at}{ttl}{expired}", c.name)
        })
        .collect();
    parts.push(cells.join(";"));
    (label, parts.join(" | "))
}

/// The partition's rows on every replica side by side, a row's differing versions marked.
fn side_by_side(side: &Side, replicas: &[String]) -> Html {
    let mut labels: Vec<String> = Vec::new();
    let per_replica: Vec<Vec<(String, String)>> = side
        .reads
        .iter()
        .map(|r| match r {
            Some(Ok(Some(p))) => p.partition.rows.iter().map(row_words).collect(),
            _ => Vec::new(),
        })
        .collect();
    for rows in &per_replica {
        for (label, _) in rows {
            if !labels.contains(label) {
                labels.push(label.clone());
            }
        }
    }
    let state = |r: &Option<ReplicaRead>| match r {
        None => "reading…".to_owned(),
        Some(Err(e)) => e.clone(),
        Some(Ok(None)) => "missing".to_owned(),
        Some(Ok(Some(p))) => format!("{} rows", p.row_total),
    };
    html! {
        <div class="chunk-detail" data-testid="side-by-side-view" data-key-hex={side.key_hex.clone()}
             data-ready={side.reads.iter().all(Option::is_some).to_string()}>
            <p>{ format!("partition 0x{} on each replica (merged read)", side.key_hex) }</p>
            <table class="grid">
                <thead><tr><th>{ "row" }</th>
                    { for replicas.iter().zip(&side.reads).map(|(n, r)| html! { <th>{ format!("{n}: {}", state(r)) }</th> }) }
                </tr></thead>
                <tbody>
                    { for labels.iter().take(MAX_SIDE_ROWS).map(|label| {
                        let texts: Vec<Option<&String>> = per_replica
                            .iter()
                            .map(|rows| rows.iter().find(|(l, _)| l == label).map(|(_, t)| t))
                            .collect();
                        let differs = texts.iter().any(|t| *t != texts.first().copied().flatten());
                        html! {
                            <tr class={if differs { "differs" } else { "" }} data-testid="side-row" data-label={label.clone()} data-differs={differs.to_string()}>
                                <td>{ label.clone() }</td>
                                { for texts.iter().enumerate().map(|(i, t)| html! {
                                    <td data-testid="side-cell" data-replica={i.to_string()} data-text={t.cloned().unwrap_or_default()}
                                        class={if differs { "tombstone" } else { "" }}>
                                        { t.cloned().unwrap_or_else(|| "—".to_owned()) }</td>
                                }) }
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}

#[function_component(ReplicasView)]
pub fn replicas_view() -> Html {
    let count = use_state(|| 2usize);
    let nodes = use_state(|| vec![None::<Node>; 3]);
    // Per node: its 2.x SSTables and dropped schema.cql; the statement typed for them.
    // (A cell, not a state: each drop's read ends on its own, and must not overwrite another's.)
    let schemas = use_mut_ref(|| vec![NodeSchema::default(); 3]);
    let schemas_read = use_force_update();
    let typed = use_state(String::new);
    let error = use_state(|| None::<String>);
    let gc_grace = use_state(|| DEFAULT_GC_GRACE_SECS);
    let now = use_state(|| (js_sys::Date::now() / 1000.0).floor() as i64);
    let run = use_state(Run::default);
    let job = use_mut_ref(|| None::<u64>);
    let selected = use_state(|| None::<usize>);
    let page = use_state(|| 0usize);
    // A differing partition read on every replica ("side by side"): its key and each
    // replica's merged read of it; one job slot per replica.
    let side = use_state(|| None::<Side>);
    let side_jobs = [
        use_mut_ref(|| None::<u64>),
        use_mut_ref(|| None::<u64>),
        use_mut_ref(|| None::<u64>),
    ];
    // A differing partition's pieces (a page of them) and its job.
    let pieces = use_state(|| None::<Pieces>);
    let pieces_job = use_mut_ref(|| None::<u64>);
    {
        let job = job.clone();
        let side_jobs = side_jobs.clone();
        let pieces_job = pieces_job.clone();
        use_effect_with((), move |_| {
            move || {
                pool::cancel_slot(&job);
                pool::cancel_slot(&pieces_job);
                for j in &side_jobs {
                    pool::cancel_slot(j);
                }
            }
        });
    }

    let number = |handle: &UseStateHandle<i64>| {
        let handle = handle.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().trim().parse::<i64>() {
                handle.set(v);
            }
        })
    };
    let on_count = {
        let count = count.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlSelectElement = e.target_unchecked_into();
            count.set(if input.value() == "3" { 3 } else { 2 });
        })
    };
    let picked: Vec<Node> = nodes.iter().take(*count).flatten().cloned().collect();
    let ready = picked.len() == *count;
    // 2.x SSTables merge with the table's CREATE TABLE: typed, else a node's schema.cql.
    let (legacy, from_file) = {
        let known = schemas.borrow();
        let used = known.iter().take(*count);
        let legacy: Vec<String> = used.clone().flat_map(|n| n.legacy.clone()).collect();
        (legacy, used.clone().find_map(|n| n.schema_cql.clone()))
    };
    let create_table = Some((*typed).clone())
        .filter(|t| !t.trim().is_empty())
        .or(from_file.clone());
    let schema_box = {
        let typed_handle = typed.clone();
        html! {
            <TableSchemaBox {legacy} typed={(*typed).clone()}
                from_file={from_file.is_some() && typed.trim().is_empty()}
                on_input={Callback::from(move |t: String| typed_handle.set(t))} testid="replicas-schema" />
        }
    };
    let on_run = {
        let run = run.clone();
        let job = job.clone();
        let selected = selected.clone();
        let (gc_grace_secs, now_secs) = (*gc_grace, *now);
        let picked = picked.clone();
        let create_table = create_table.clone();
        Callback::from(move |_| {
            selected.set(None);
            job_run::start(
                &job,
                &run,
                Request::Replicas {
                    job: 0,
                    replicas: picked.clone(),
                    create_table: create_table.clone(),
                    gc_grace_secs,
                    now_secs,
                    focus: None,
                },
                |reply| match reply {
                    Reply::Replicas { report, .. } => Some(*report),
                    _ => None,
                },
            );
        })
    };
    let on_cancel = job_run::cancel(&job);

    let on_side = {
        let side = side.clone();
        let side_jobs = side_jobs.clone();
        let now_secs = *now;
        let picked = picked.clone();
        let create_table = create_table.clone();
        Callback::from(move |key_hex: String| {
            side.set(Some(Side {
                key_hex: key_hex.clone(),
                reads: vec![None; picked.len()],
            }));
            // Each reply updates the state's latest value (replies come one at a time).
            let latest = Rc::new(std::cell::RefCell::new(Side {
                key_hex: key_hex.clone(),
                reads: vec![None; picked.len()],
            }));
            for (i, ((_, sstables), slot)) in picked.iter().zip(&side_jobs).enumerate() {
                let side = side.clone();
                let latest = latest.clone();
                pool::submit_in_slot(
                    slot,
                    Request::MergedPage {
                        job: 0,
                        sstables: sstables.clone(),
                        page: MergedPageRequest {
                            skip: 0,
                            after_key_hex: None,
                            max_partitions: 1,
                            wanted_key: Some(format!("0x{key_hex}")),
                            now_secs,
                            create_table: create_table.clone(),
                        },
                    },
                    move |reply| {
                        let read = match reply {
                            Reply::MergedPage { page, .. } => {
                                let MergedPageMessage(page) = *page;
                                Ok(page.partitions.into_iter().next())
                            }
                            Reply::Failed { message, .. } => Err(message),
                            _ => return,
                        };
                        if let Some(r) = latest.borrow_mut().reads.get_mut(i) {
                            *r = Some(read.map(|p| p.map(Rc::new)));
                        }
                        side.set(Some(latest.borrow().clone()));
                    },
                );
            }
        })
    };
    // A differing partition's pieces: the replicas compared again on its token only, in a
    // worker, a page of the pieces sent back.
    let on_pieces = {
        let pieces = pieces.clone();
        let pieces_job = pieces_job.clone();
        let (gc_grace_secs, now_secs) = (*gc_grace, *now);
        let picked = picked.clone();
        let create_table = create_table.clone();
        Callback::from(move |(token, key_hex, skip): (i64, String, usize)| {
            pieces.set(Some(Pieces::Loading {
                key_hex: key_hex.clone(),
            }));
            let pieces = pieces.clone();
            let key = key_hex.clone();
            pool::submit_in_slot(
                &pieces_job,
                Request::Replicas {
                    job: 0,
                    replicas: picked.clone(),
                    create_table: create_table.clone(),
                    gc_grace_secs,
                    now_secs,
                    focus: Some(ReplicaFocus {
                        token,
                        key_hex,
                        skip,
                    }),
                },
                move |reply| match reply {
                    Reply::Replicas { report, .. } => {
                        pieces.set(report.pieces.map(|p| Pieces::Ready(Rc::new(p))));
                    }
                    Reply::Failed { message, .. } => pieces.set(Some(Pieces::Failed {
                        key_hex: key.clone(),
                        message,
                    })),
                    _ => {}
                },
            );
        })
    };
    let zones = (0..*count).map(|i| {
        let on_files = {
            let nodes = nodes.clone();
            let schemas = schemas.clone();
            let schemas_read = schemas_read.clone();
            Callback::from(move |files: Vec<PickedFile>| {
                let mut next = (*nodes).clone();
                if let Some(n) = next.get_mut(i) {
                    *n = Some(node_of(&files, i));
                }
                nodes.set(next);
                // The schema.cql dropped with the node's SSTables, read as text.
                let legacy = legacy_of(&files);
                let schemas = schemas.clone();
                let schemas_read = schemas_read.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let found = crate::loading::schema_files(&files).await;
                    let schema_cql = found.0.first().map(|(_, text)| text.clone());
                    if let Some(n) = schemas.borrow_mut().get_mut(i) {
                        *n = NodeSchema { legacy, schema_cql };
                    }
                    schemas_read.force_update();
                });
            })
        };
        let on_error = {
            let error = error.clone();
            Callback::from(move |e: String| error.set(Some(e)))
        };
        let prefix = format!("node{}-", i + 1);
        let summary = match nodes.get(i).cloned().flatten() {
            Some((name, sstables)) => format!("node {}: {name}, {}", i + 1, plural(sstables.len() as u64, "SSTable", "SSTables")),
            None => format!("node {}: nothing yet", i + 1),
        };
        html! {
            <div class="replica-node">
                <DropZone {on_files} {on_error} testid_prefix={prefix.clone()}
                          hint={AttrValue::from(format!("Node {}: drop its copy of the table (a directory of SSTables)", i + 1))} />
                <p data-testid={format!("{prefix}summary")}>{ summary }</p>
            </div>
        }
    });

    let result = match &run.result {
        None => Html::default(),
        Some(Err(e)) => {
            html! { <p class="error" role="alert" data-testid="replicas-error">{ e }</p> }
        }
        Some(Ok(r)) => {
            let ranges = &r.mismatching_ranges;
            let detail = (*selected).and_then(|i| ranges.get(i).map(|range| (i, range))).map(|(i, range)| {
                let inside: Vec<_> = r
                    .partition_diffs
                    .iter()
                    .filter(|p| {
                        let (s, e) = (range.start_token, range.end_token);
                        if s < e { p.token > s && p.token <= e } else { p.token > s || p.token <= e }
                    })
                    .collect();
                let pages = inside.len().div_ceil(PAGE_PARTITIONS).max(1);
                let at = (*page).min(pages - 1);
                let go = |to: usize| {
                    let page = page.clone();
                    Callback::from(move |_| page.set(to))
                };
                html! {
                    <div class="chunk-detail" data-testid="range-detail" data-range={i.to_string()}>
                        <p>{ format!("range #{} ({}, {}]: ", i + 1, range.start_token, range.end_token) }
                            { for r.replicas.iter().enumerate().map(|(n, name)| html! {
                                <span data-testid="range-bytes" data-replica={n.to_string()} data-bytes={range.bytes.get(n).copied().unwrap_or(0).to_string()}>
                                    { format!("{name}: {} in {} bytes; ", plural(range.partitions.get(n).copied().unwrap_or(0), "partition", "partitions"), range.bytes.get(n).copied().unwrap_or(0)) }
                                </span>
                            }) }
                        </p>
                        <table class="grid">
                            <thead><tr><th>{ "key (hex)" }</th><th>{ "token" }</th>
                                { for r.replicas.iter().map(|n| html! { <th>{ n.clone() }</th> }) }
                                <th>{ "newest" }</th></tr></thead>
                            <tbody>
                                { for inside.iter().skip(at * PAGE_PARTITIONS).take(PAGE_PARTITIONS).map(|p| html! {
                                    <tr data-testid="differing-partition" data-key-hex={p.key_hex.clone()} data-token={p.token.to_string()}
                                        data-newest={p.newest.to_string()}
                                        data-present={p.digests.iter().map(|d| if d.is_some() { "1" } else { "0" }).collect::<String>()}>
                                        <td><button class="link" data-testid="side-by-side" onclick={{
                                            let on_side = on_side.clone();
                                            let key = p.key_hex.clone();
                                            Callback::from(move |_| on_side.emit(key.clone()))
                                        }}><code>{ &p.key_hex }</code></button>{ " " }
                                            <button class="link" data-testid="show-pieces" onclick={{
                                                let on_pieces = on_pieces.clone();
                                                let (token, key) = (p.token, p.key_hex.clone());
                                                Callback::from(move |_| on_pieces.emit((token, key.clone(), 0)))
                                            }}>{ "pieces" }</button></td><td>{ p.token }</td>
                                        { for p.digests.iter().zip(&p.max_timestamps_micros).map(|(d, t)| html! {
                                            <td>{ match (d, t) {
                                                (Some(d), Some(t)) => format!("digest {}…, newest write {}", d.get(..12).unwrap_or(d), iso8601_micros(*t)),
                                                (Some(d), None) => format!("digest {}…", d.get(..12).unwrap_or(d)),
                                                _ => "missing".to_owned(),
                                            } }</td>
                                        }) }
                                        <td>{ r.replicas.get(p.newest).cloned().unwrap_or_default() }</td>
                                    </tr>
                                }) }
                            </tbody>
                        </table>
                        if pages > 1 {
                            <p class="pager">
                                <button data-testid="range-prev" disabled={at == 0} onclick={go(at.saturating_sub(1))}>{ "Previous" }</button>
                                { format!(" page {} of {} ", at + 1, pages) }
                                <button data-testid="range-next" disabled={at + 1 >= pages} onclick={go(at + 1)}>{ "Next" }</button>
                            </p>
                        }
                    </div>
                }
            }).unwrap_or_default();
            html! { <>
                <p data-testid="replicas-summary" data-ranges={ranges.len().to_string()} data-partitions={r.partition_diff_total.to_string()}
                   data-depth={r.depth.to_string()} data-replicas={r.replicas.len().to_string()}
                   data-wasm-memory={r.wasm_memory_bytes.to_string()}>{ format!(
                    "Depth {} ({} leaves); partitions hashed per replica {:?}; {} and {} that differ (merged in a worker in {:.0} ms, {} bytes of Data.db read, the worker's memory {:.1} MiB; gcBefore {})",
                    r.depth, 1u64 << r.depth, r.partitions,
                    plural(ranges.len() as u64, "mismatching range", "mismatching ranges"),
                    plural(r.partition_diff_total, "partition", "partitions"), r.millis, r.bytes_read,
                    r.wasm_memory_bytes / 1_048_576.0, r.gc_before_secs) }</p>
                { strip(ranges, &selected) }
                <ol class="ranges">
                    { for ranges.iter().enumerate().map(|(i, range)| {
                        let onclick = {
                            let selected = selected.clone();
                            let page = page.clone();
                            Callback::from(move |_| { page.set(0); selected.set(Some(i)); })
                        };
                        html! { <li><button class="link" data-testid="replica-range" data-start={range.start_token.to_string()}
                                    data-end={range.end_token.to_string()} {onclick}>
                            { format!("({}, {}]: partitions {:?}, bytes each would stream {:?}", range.start_token, range.end_token, range.partitions, range.bytes) }
                        </button></li> }
                    }) }
                </ol>
                { detail }
                { pieces.as_ref().map(|ps| {
                    let on_page = {
                        let on_pieces = on_pieces.clone();
                        let at = match ps {
                            Pieces::Ready(pg) => Some((pg.token, pg.key_hex.clone())),
                            _ => None,
                        };
                        Callback::from(move |skip: usize| {
                            if let Some((token, key)) = &at {
                                on_pieces.emit((*token, key.clone(), skip));
                            }
                        })
                    };
                    pieces_view(ps, &r.replicas, &on_page)
                }).unwrap_or_default() }
                { side.as_ref().map(|sd| side_by_side(sd, &r.replicas)).unwrap_or_default() }
            </> }
        }
    };

    html! {
        <details class="replicas" data-testid="replicas">
            <summary><h2 style="display:inline">{ "Compare replicas" }</h2></summary>
            <p class="muted">{ "Each node's copy of one table, compared as a repair's validation would: every replica merged, purged at now − gc_grace, hashed per token range into a Merkle tree (Cassandra's validation digest). The files stay here." }</p>
            <p>
                <label>{ "nodes " }
                    <select onchange={on_count} data-testid="replica-count">
                        <option value="2" selected={*count == 2}>{ "2" }</option>
                        <option value="3" selected={*count == 3}>{ "3" }</option>
                    </select>
                </label>
                <label>{ " gc_grace_seconds " }<input type="number" min="0" value={gc_grace.to_string()} onchange={number(&gc_grace)} data-testid="replicas-gc-grace" /></label>
                <label>{ " now (seconds since the epoch) " }<input type="number" value={now.to_string()} onchange={number(&now)} data-testid="replicas-now" /></label>
            </p>
            <div class="replica-nodes">{ for zones }</div>
            { schema_box }
            if let Some(e) = &*error { <p class="error" role="alert">{ e }</p> }
            <p>
                <button onclick={on_run} disabled={!ready || run.progress.is_some()} data-testid="replicas-run">{ "Compare" }</button>
                if let Some((done, total)) = run.progress {
                    <progress data-testid="replicas-progress" max={total.max(1).to_string()} value={done.to_string()} />
                    <button onclick={on_cancel} data-testid="replicas-cancel">{ "Cancel" }</button>
                }
            </p>
            { result }
        </details>
    }
}
