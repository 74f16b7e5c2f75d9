//! The table-wide jobs (issue #25): several SSTables of one table merged by the engine
//! (`sstable_engine::merge::TableMerger`, each SSTable's Data.db read by `FileReaderSync`
//! ranges) — the resurrection risks ([`zombies`], `merge::zombies::ZombieFinder`, what
//! `sstable-inspect zombies DIR --gc-grace S --now T` reports) and a page of the merged read
//! with the SSTable of every part and what lost ([`merged_page`], what `sstable-inspect read
//! DIR --explain` prints; the merge started at the page's cursor or the wanted key), and replicas compared ([`replicas`], `repair::ReplicaDiff`, what
//! `sstable-inspect diff A B [C] --json` reports).
//!
//! Work runs one merged partition at a time, in slices ([`super::analytics::Slices`]): between
//! slices the worker reports the Data.db bytes read of every SSTable and yields, so a cancel
//! can arrive. Memory is the partitions being merged and the findings sent (at most
//! [`ZOMBIE_FINDINGS_SENT`]).

use std::cell::Cell;
use std::rc::Rc;

use sstable_engine::analytics::table_report;
use sstable_engine::component::data::DataSchema;
use sstable_engine::component::data::DecodeOptions;
use sstable_engine::component::ComponentType;
use sstable_engine::cql_schema::{parse_schema_cql, CqlSchemaFile};
use sstable_engine::dump::PartitionBuilder;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::merge::zombies::{DroppableTombstone, Resurrection, ZombieFinder};
use sstable_engine::merge::{
    open_table, Beaten, Loss, MergeOptions, MergedPartition, MergedUnfiltered, SeekTo, TableMerger,
    TableSSTable,
};
use sstable_engine::range::{ByteRange, RangeSource};
use sstable_engine::repair::{
    depth_for, PartitionDiff, ReplicaDiff, ValidationOptions, Validator, MAX_DEPTH,
};
use sstable_engine::span::hex;
use sstable_engine::sstable_set::split_path;

use super::analytics::Slices;
use super::{load_metadata, FileSource, ReadAhead};
use crate::loader;
use crate::protocol::table::{
    LossView, MergedPage, MergedPageRequest, MergedPartitionView, PartitionDiffView, PieceView,
    PiecesPage, RangeView, ReplicaFocus, ReplicaReport, RowSources, ShadowedView, TombstoneView,
    ZombieFinding, ZombieReport, MERGED_LOSSES_SENT, MERGED_ROWS_SENT, PIECES_PAGE,
    REPLICA_PARTITIONS_SENT, ZOMBIE_FINDINGS_SENT,
};
use crate::protocol::FileRef;

/// One table's SSTables as a merge needs them: each one's name (its file prefix without the
/// directory, as the CLI names it), decoded metadata and file handles.
pub(super) struct TableFiles {
    pub names: Vec<String>,
    pub metadata: Vec<SSTableMetadata>,
    handles: Vec<Vec<(ComponentType, web_sys::File)>>,
    /// The Data.db bytes of every SSTable (what progress counts up to).
    pub data_bytes: u64,
    /// The table's `CREATE TABLE` (typed, or a dropped schema.cql): what its 2.x SSTables are
    /// read with.
    schema: Option<CqlSchemaFile>,
}

/// The table's `CREATE TABLE` as the page gives it (`None` or blank: none given). A statement
/// that does not parse is an error when a 2.x SSTable needs it, and ignored otherwise (3.0+
/// SSTables are typed by their own headers).
fn table_schema(
    create_table: Option<&str>,
    metadata: &[SSTableMetadata],
) -> Result<Option<CqlSchemaFile>, String> {
    let Some(text) = create_table.filter(|t| !t.trim().is_empty()) else {
        return Ok(None);
    };
    match parse_schema_cql(text) {
        Ok(schema) => Ok(Some(schema)),
        Err(e) => {
            if metadata
                .iter()
                .any(|m| !m.descriptor.version.has_row_format())
            {
                Err(format!("the table's CREATE TABLE: {e}"))
            } else {
                Ok(None)
            }
        }
    }
}

/// Decodes the metadata of every SSTable of `sstables` (name, files). They are merged in the
/// order the CLI finds them (`sstable_set::group_files`: by directory, then file prefix), so
/// ties are broken alike; whether they can be merged (one partitioner, a schema for 2.x) is the
/// engine's check ([`TableFiles::merger`]). `create_table` is the table's `CREATE TABLE`, needed
/// when an SSTable is 2.x.
pub(super) fn load_table(
    sstables: &[(String, Vec<FileRef>)],
    create_table: Option<&str>,
) -> Result<TableFiles, String> {
    let mut t = TableFiles {
        names: Vec::new(),
        metadata: Vec::new(),
        handles: Vec::new(),
        data_bytes: 0,
        schema: None,
    };
    let mut ordered: Vec<&(String, Vec<FileRef>)> = sstables.iter().collect();
    sstable_engine::sort::sort_by(&mut ordered, |a, b| split_path(&a.0).cmp(&split_path(&b.0)));
    for (name, files) in ordered {
        let (metadata, handles) = load_metadata(files)?;
        let short = name.rsplit('/').next().unwrap_or(name).to_owned();
        t.data_bytes = t.data_bytes.saturating_add(
            handles
                .iter()
                .find(|(c, _)| *c == ComponentType::Data)
                .map_or(0, |(_, f)| f.size() as u64),
        );
        t.names.push(short);
        t.metadata.push(metadata);
        t.handles.push(handles);
    }
    if t.names.is_empty() {
        return Err("no SSTable to merge".to_owned());
    }
    t.schema = table_schema(create_table, &t.metadata)?;
    Ok(t)
}

/// A [`FileSource`] that adds the Data.db bytes it reads to a counter shared by every input of
/// a merge (the job's progress).
pub(super) struct CountingSource<'a> {
    inner: ReadAhead<FileSource<'a>>,
    data_read: Rc<Cell<u64>>,
}

impl RangeSource for CountingSource<'_> {
    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> sstable_engine::Result<()> {
        self.inner.read_into(range, buf)?;
        if range.component == ComponentType::Data {
            self.data_read
                .set(self.data_read.get().saturating_add(buf.len() as u64));
        }
        Ok(())
    }
}

impl TableFiles {
    /// The merge of every SSTable, expired cells classified at `now_secs`; Data.db bytes read
    /// are added to `data_read`.
    pub(super) fn merger(
        &self,
        now_secs: i64,
        explain: bool,
        data_read: &Rc<Cell<u64>>,
    ) -> Result<TableMerger<CountingSource<'_>>, String> {
        let mut sstables = Vec::with_capacity(self.names.len());
        for ((name, metadata), handles) in self.names.iter().zip(&self.metadata).zip(&self.handles)
        {
            let source = CountingSource {
                inner: ReadAhead::new(FileSource {
                    files: handles,
                    raw_crc32_millis: None,
                }),
                data_read: data_read.clone(),
            };
            sstables.push(TableSSTable {
                name: name.clone(),
                metadata,
                source,
            });
        }
        // The engine builds the inputs and checks them (one partitioner; a 2.x SSTable without
        // the table's CREATE TABLE is an error naming it, as the CLI's without --schema).
        let merge_options = MergeOptions {
            now_seconds: Some(now_secs),
            explain,
        };
        let no_schema = self.schema.is_none()
            && self
                .metadata
                .iter()
                .any(|m| !m.descriptor.version.has_row_format());
        open_table(sstables, self.schema.as_ref(), DecodeOptions::at(now_secs), merge_options)
            .map(|(merger, _)| merger)
            .map_err(|e| {
                if no_schema {
                    format!("{e} (on the page: type the CREATE TABLE in the box above, or drop the table's schema.cql with its SSTables)")
                } else {
                    e.to_string()
                }
            })
    }
}

fn tombstone_view(t: &DroppableTombstone, names: &[String]) -> TombstoneView {
    TombstoneView {
        sstable: names.get(t.sstable).cloned().unwrap_or_default(),
        kind: format!("{:?}", t.kind),
        is_static: t.is_static,
        clustering: t.clustering.clone(),
        range_end: t.range_end.clone(),
        column: t.column.clone(),
        path_hex: t.path_hex.clone(),
        marked_for_delete_at_micros: t.marked_for_delete_at_micros,
        local_deletion_time_secs: t.local_deletion_time_secs,
    }
}

fn shadowed_view(r: &Resurrection, names: &[String]) -> ShadowedView {
    let c = &r.compaction;
    ShadowedView {
        sstable: names.get(r.shadowed_sstable).cloned().unwrap_or_default(),
        is_static: r.shadowed_is_static,
        clustering: r.shadowed_clustering.clone(),
        timestamp_micros: r.shadowed_timestamp_micros,
        pieces: r.shadowed_pieces,
        tombstone_level: c.tombstone_level,
        shadowed_level: c.shadowed_level,
        token_ranges_intersect: c.token_ranges_intersect,
        shadowed_min_timestamp_micros: c.shadowed_min_timestamp_micros,
        tombstone_max_timestamp_micros: c.tombstone_max_timestamp_micros,
        purge_evaluator_keeps_tombstone: c.purge_evaluator_keeps_tombstone,
        same_level_above_zero: c.same_level_above_zero,
    }
}

/// [`crate::protocol::Request::Zombies`]: the resurrection scan of `sstables` at
/// (`now_secs`, `gc_grace_secs`). `progress(read, total)` hears the Data.db bytes read; a
/// cancelled job is an error. A merge error ends the scan with the findings before it and the
/// error in the report.
pub(super) async fn zombies(
    sstables: &[(String, Vec<FileRef>)],
    create_table: Option<&str>,
    gc_grace_secs: i64,
    now_secs: i64,
    progress: &dyn Fn(u64, u64),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<ZombieReport, String> {
    let started = loader::now_millis();
    let table = load_table(sstables, create_table)?;
    let data_read = Rc::new(Cell::new(0u64));
    let merger = table.merger(now_secs, false, &data_read)?;
    let described: Vec<(String, &SSTableMetadata)> = table
        .names
        .iter()
        .cloned()
        .zip(table.metadata.iter())
        .collect();
    let placements = table_report(&described, gc_grace_secs, Some(now_secs)).sstables;
    let mut finder = ZombieFinder::new(merger, placements, now_secs, gc_grace_secs);
    let names = &table.names;
    let mut report = ZombieReport {
        now_secs,
        gc_grace_secs,
        gc_before_secs: finder.gc_before_secs(),
        sstables: names.clone(),
        ..ZombieReport::default()
    };
    let mut slices = Slices::every(started, 1);
    loop {
        slices
            .tick(data_read.get(), table.data_bytes, progress, is_cancelled)
            .await?;
        let p = match finder.next_partition(&loader::PerformanceClock) {
            Ok(Some(p)) => p,
            Ok(None) => break,
            Err(e) => {
                report.error = Some(e.to_string());
                break;
            }
        };
        report.partitions = report.partitions.saturating_add(1);
        report.resurrections = report
            .resurrections
            .saturating_add(p.resurrections.len() as u64);
        report.garbage = report.garbage.saturating_add(p.garbage.len() as u64);
        let key_hex = hex(&p.key);
        let found = p
            .resurrections
            .iter()
            .map(|r| (&r.tombstone, Some(shadowed_view(r, names))))
            .chain(p.garbage.iter().map(|t| (t, None)));
        for (t, shadowed) in found {
            if report.findings.len() >= ZOMBIE_FINDINGS_SENT {
                break;
            }
            report.findings.push(ZombieFinding {
                key_text: p.key_text.clone(),
                key_hex: key_hex.clone(),
                tombstone: tombstone_view(t, names),
                shadowed,
            });
        }
    }
    report.bytes_read = data_read.get();
    progress(report.bytes_read, table.data_bytes);
    report.millis = loader::now_millis() - started;
    report.wasm_memory_bytes = loader::wasm_memory_bytes();
    Ok(report)
}

fn name_of(names: &[String], source: usize) -> String {
    names.get(source).cloned().unwrap_or_default()
}

fn loss_view(l: &Loss, names: &[String]) -> LossView {
    let (beaten_by, tombstone_kind, winner_sstable, winner_timestamp_micros, expires_at_secs) =
        match &l.beaten_by {
            Beaten::Newer {
                source,
                timestamp_micros,
            } => (
                "newer",
                None,
                Some(name_of(names, *source)),
                Some(*timestamp_micros),
                None,
            ),
            Beaten::Tombstone {
                kind,
                source,
                marked_for_delete_at_micros,
            } => (
                "tombstone",
                Some(format!("{kind:?}")),
                Some(name_of(names, *source)),
                Some(*marked_for_delete_at_micros),
                None,
            ),
            Beaten::Expired { expires_at_secs } => {
                ("expired", None, None, None, Some(*expires_at_secs))
            }
        };
    LossView {
        what: format!("{:?}", l.what),
        sstable: name_of(names, l.source),
        is_static: l.is_static,
        clustering_hex: l.clustering.iter().map(|c| hex(&c.bytes)).collect(),
        column: l.column.clone(),
        path_hex: l.path.clone(),
        timestamp_micros: l.timestamp_micros,
        beaten_by: beaten_by.to_owned(),
        tombstone_kind,
        winner_sstable,
        winner_timestamp_micros,
        expires_at_secs,
    }
}

/// The page's view of one merged partition: its dump (`dump::PartitionBuilder` over the merged
/// items, as the CLI's `read` builds it), the SSTables of its rows' parts, what lost.
fn partition_view(
    schema: &DataSchema,
    p: &MergedPartition,
    names: &[String],
    now_secs: i64,
) -> Option<MergedPartitionView> {
    let mut builder = PartitionBuilder::new(Some(now_secs));
    let mut dump = p.to_items().iter().find_map(|i| builder.push(schema, i))?;
    let named = |s: &Option<usize>| s.map(|s| name_of(names, s));
    let row_sources = |r: &sstable_engine::merge::MergedRow| RowSources {
        sstables: r.sources.iter().map(|s| name_of(names, *s)).collect(),
        liveness: named(&r.liveness_source),
        deletion: named(&r.deletion_source),
        cells: r.cell_sources.iter().map(|s| name_of(names, *s)).collect(),
        is_static: r.row.is_static,
        clustering_hex: r
            .row
            .clustering
            .as_ref()
            .map(|c| c.values.iter().map(|v| hex(&v.bytes)).collect())
            .unwrap_or_default(),
        ..RowSources::default()
    };
    let rows: Vec<RowSources> = p
        .static_row
        .iter()
        .map(row_sources)
        .chain(p.unfiltereds.iter().map(|u| {
            match u {
                MergedUnfiltered::Row(r) => row_sources(r),
                MergedUnfiltered::Marker(m) => RowSources {
                    marker_end: named(&m.end_source),
                    marker_start: named(&m.start_source),
                    clustering_hex: m
                        .marker
                        .bound
                        .values
                        .iter()
                        .map(|v| hex(&v.bytes))
                        .collect(),
                    ..RowSources::default()
                },
            }
        }))
        .take(MERGED_ROWS_SENT)
        .collect();
    let row_total = dump.rows.len();
    dump.rows.truncate(MERGED_ROWS_SENT);
    Some(MergedPartitionView {
        partition: dump,
        sstables: p.sources.iter().map(|s| name_of(names, *s)).collect(),
        deletion_sstable: named(&p.deletion_source),
        rows,
        row_total,
        losses: p
            .losses
            .iter()
            .take(MERGED_LOSSES_SENT)
            .map(|l| loss_view(l, names))
            .collect(),
        loss_total: p.losses.len(),
    })
}

/// A key's hex (a page's cursor) back to its bytes.
fn key_from_hex(hex: &str) -> Result<Vec<u8>, String> {
    let digits = hex.strip_prefix("0x").unwrap_or(hex).as_bytes();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("the page cursor {hex} is not whole bytes of hex"));
    }
    digits
        .chunks(2)
        .map(|pair| {
            core::str::from_utf8(pair)
                .ok()
                .and_then(|p| u8::from_str_radix(p, 16).ok())
                .ok_or_else(|| format!("the page cursor {hex} is not hex"))
        })
        .collect()
}

/// [`crate::protocol::Request::MergedPage`]: a page of the merged read of `sstables`,
/// explained — the partitions after the cursor `after_key_hex` (the last key of the page
/// before; none: from the first partition), or the partition of the wanted key. The merge
/// starts there (`TableMerger::seek`: each SSTable's read positioned through its index, so
/// nothing before the page is read or merged) and runs in slices with progress and cancel.
pub(super) async fn merged_page(
    sstables: &[(String, Vec<FileRef>)],
    request: &MergedPageRequest,
    progress: &dyn Fn(u64, u64),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<MergedPage, String> {
    let started = loader::now_millis();
    let table = load_table(sstables, request.create_table.as_deref())?;
    let first = table.metadata.first().ok_or("no SSTable to merge")?;
    let wanted = request
        .wanted_key
        .as_deref()
        .map(|k| first.parse_key(k).map_err(|e| format!("key: {e}")))
        .transpose()?;
    let data_read = Rc::new(Cell::new(0u64));
    let mut merger = table.merger(request.now_secs, true, &data_read)?;
    let to = match (&wanted, &request.after_key_hex) {
        (Some(w), _) => Some(SeekTo::Key(w.clone())),
        (None, Some(after)) => Some(SeekTo::AfterKey(key_from_hex(after)?)),
        (None, None) => None,
    };
    if let Some(to) = to {
        let metadata: Vec<&SSTableMetadata> = table.metadata.iter().collect();
        merger
            .seek(&metadata, to, &loader::PerformanceClock)
            .map_err(|e| e.to_string())?;
    }
    let schema = merger.schema().clone();
    let names = &table.names;
    let mut page = MergedPage {
        sstables: names.clone(),
        skip: request.skip,
        ..MergedPage::default()
    };
    let mut slices = Slices::every(started, 1);
    let wanted_partitions = if wanted.is_some() {
        1
    } else {
        request.max_partitions
    };
    while page.partitions.len() < wanted_partitions {
        slices
            .tick(data_read.get(), table.data_bytes, progress, is_cancelled)
            .await?;
        let Some(p) = merger
            .next_partition(&loader::PerformanceClock)
            .map_err(|e| e.to_string())?
        else {
            break;
        };
        if let Some(w) = &wanted {
            // The first partition at or after the key: the key's, or it is not in the table.
            if p.start.key.bytes.bytes != *w {
                break;
            }
        }
        if let Some(v) = partition_view(&schema, &p, names, request.now_secs) {
            page.partitions.push(v);
        }
    }
    if wanted.is_none() {
        // Another partition follows: its header says so (it is not merged).
        page.more = merger
            .peek_key(&loader::PerformanceClock)
            .map_err(|e| e.to_string())?
            .is_some();
    }
    if wanted.is_some() && page.partitions.is_empty() {
        page.not_found = Some(format!(
            "no SSTable of the table holds the key {}",
            request.wanted_key.as_deref().unwrap_or_default()
        ));
    }
    page.bytes_read = data_read.get();
    progress(page.bytes_read, table.data_bytes);
    page.millis = loader::now_millis() - started;
    page.wasm_memory_bytes = loader::wasm_memory_bytes();
    Ok(page)
}

impl TableFiles {
    /// The partitions ValidationManager sizes a replica's tree from: its SSTables'
    /// [`SSTableMetadata::estimated_partitions`] summed, as `sstable-inspect diff` sizes it.
    fn estimated_partitions(&self) -> u64 {
        self.metadata
            .iter()
            .map(SSTableMetadata::estimated_partitions)
            .fold(0u64, u64::saturating_add)
    }
}

/// [`crate::protocol::Request::Replicas`]: every replica's SSTables merged, purged at
/// `now − gc_grace`, hashed per token range (`repair::Validator`) and compared in lockstep,
/// one partition per step ([`ReplicaDiff::step`]) in slices with progress (the Data.db bytes
/// of every replica read) and cancel. The tree's depth is `ValidationManager`'s for the
/// largest replica's estimate, as `sstable-inspect diff` chooses it. With `focus`, only the
/// partition's token is compared and a page of its differing pieces (`repair::compare`) sent.
pub(super) async fn replicas(
    replicas: &[crate::protocol::table::Replica],
    create_table: Option<&str>,
    gc_grace_secs: i64,
    now_secs: i64,
    focus: Option<&ReplicaFocus>,
    progress: &dyn Fn(u64, u64),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<ReplicaReport, String> {
    let started = loader::now_millis();
    if replicas.len() < 2 {
        return Err("compare at least two replicas".to_owned());
    }
    let tables = replicas
        .iter()
        .map(|(name, sstables)| {
            load_table(sstables, create_table).map_err(|e| format!("{name}: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let estimate = tables
        .iter()
        .map(TableFiles::estimated_partitions)
        .max()
        .unwrap_or(0);
    let options = ValidationOptions {
        now_seconds: now_secs,
        gc_before_seconds: now_secs.saturating_sub(gc_grace_secs),
        depth: depth_for(estimate, MAX_DEPTH),
        range: focus.map(|f| (f.token.wrapping_sub(1), f.token)),
    };
    let data_read = Rc::new(Cell::new(0u64));
    let data_bytes = tables
        .iter()
        .map(|t| t.data_bytes)
        .fold(0u64, u64::saturating_add);
    let mut validators = Vec::with_capacity(tables.len());
    for ((name, _), t) in replicas.iter().zip(&tables) {
        let merger = t
            .merger(now_secs, false, &data_read)
            .map_err(|e| format!("{name}: {e}"))?;
        let partitioner = t
            .metadata
            .first()
            .ok_or("no SSTable to merge")?
            .partitioner();
        validators.push(Validator::new(merger, partitioner, options));
    }
    let mut diff = ReplicaDiff::new(validators);
    let mut slices = Slices::every(started, 1);
    loop {
        slices
            .tick(data_read.get(), data_bytes, progress, is_cancelled)
            .await?;
        let more = diff.step(&loader::PerformanceClock).map_err(|(i, e)| {
            let name = replicas.get(i).map_or("?", |(n, _)| n.as_str());
            format!("replica {name}: {e}")
        })?;
        if !more {
            break;
        }
    }
    let mut r = diff.finish();
    progress(data_read.get(), data_bytes);
    let pieces = focus.map(|f| pieces_page(&mut r.partition_diffs, f));
    Ok(ReplicaReport {
        depth: r.depth,
        replicas: replicas.iter().map(|(n, _)| n.clone()).collect(),
        partitions: r.partitions,
        roots: r.roots,
        mismatching_ranges: r
            .mismatching_ranges
            .into_iter()
            .map(|m| RangeView {
                start_token: m.start_token,
                end_token: m.end_token,
                partitions: m.partitions,
                bytes: m.bytes,
            })
            .collect(),
        partition_diff_total: r.partition_diffs.len() as u64,
        partition_diffs: r
            .partition_diffs
            .into_iter()
            .take(REPLICA_PARTITIONS_SENT)
            .map(|p| PartitionDiffView {
                token: p.token,
                key_hex: p.key_hex,
                digests: p.digests,
                max_timestamps_micros: p.max_timestamps_micros,
                newest: p.newest,
            })
            .collect(),
        now_secs,
        gc_before_secs: options.gc_before_seconds,
        bytes_read: data_read.get(),
        millis: loader::now_millis() - started,
        wasm_memory_bytes: loader::wasm_memory_bytes(),
        pieces,
    })
}

/// The page of `focus`'s differing pieces (an empty page when its partition does not differ),
/// taken out of the report's partitions.
fn pieces_page(diffs: &mut [PartitionDiff], focus: &ReplicaFocus) -> PiecesPage {
    let mut page = PiecesPage {
        key_hex: focus.key_hex.clone(),
        token: focus.token,
        skip: focus.skip,
        ..PiecesPage::default()
    };
    if let Some(p) = diffs.iter_mut().find(|p| p.key_hex == focus.key_hex) {
        let pieces = std::mem::take(&mut p.pieces);
        page.total = pieces.len();
        page.pieces = pieces
            .into_iter()
            .skip(focus.skip)
            .take(PIECES_PAGE)
            .map(|d| PieceView {
                kind: format!("{:?}", d.kind),
                is_static: d.is_static,
                clustering: d.clustering,
                bound: d.bound,
                column: d.column,
                path: d.path,
                versions: d
                    .versions
                    .into_iter()
                    .map(|v| v.map(|v| v.to_string()))
                    .collect(),
                newest: d.newest,
                differs: d.differs,
            })
            .collect();
    }
    page
}
