//! One page of the data browser, decoded in a worker ([`crate::worker`]): Data.db partitions from
//! a position — 3.0+ rows through `DataFileReader` and `PartitionBuilder` (at most
//! `max_rows_per_partition` rows of a partition built; the rest only counted, by a borrowing
//! [`DataVisitor`]), 2.x (`jb`, `ka`, `la`) rows and atoms through `LegacyDataFileReader`,
//! `RowGrouper` (capped the same way: `with_row_limit`) and `AtomsBuilder` — and "Find" through the engine's `lookup` read path first. The engine's `SyncDriver` reads the ranges the
//! readers ask for from the worker's `RangeSource` (`FileReaderSync`); nothing here does I/O or
//! touches the DOM. The UI thread only renders the [`DataPage`] that comes back.

use sstable_engine::component::data::{
    ColumnSchema, DataFileReader, DataItem, DataSchema, DataVisitor, DecodeOptions, DecodeStep,
    PartitionEnd, RangeTombstoneMarker, RowView, VisitStep,
};
use sstable_engine::component::legacy_data::{
    AtomPartitionJson, AtomsBuilder, InferredTable, LegacyDataFileReader, LegacyItem, LegacyLayout,
    LegacyStep, RowGrouper,
};
use sstable_engine::component::ComponentType;
use sstable_engine::cql_schema::parse_create_table;
use sstable_engine::dump::{multi_cell_literal, CellJson, PartitionBuilder, PartitionJson};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::lookup::{Lookup, LookupResult, StopReason};
use sstable_engine::range::{RangeSource, SyncDriver};
use sstable_engine::types::value::parse_partition_key;

use super::{FileSource, Loaded, ReadAhead};
use crate::loader;
use crate::protocol::pages::{
    CollectionLiteral, DataPage, PageRequest, LEGACY_NOTE, MAX_PAGE_ROWS,
};
use crate::protocol::CANCELLED;

/// Decode at most this long before yielding to the worker's event loop (a cancel can arrive).
const SLICE_MILLIS: f64 = 50.0;

/// Decodes the page `request` asks for from `source` (the worker's files). `is_cancelled` is
/// asked between slices of about [`SLICE_MILLIS`], after a yield to the event loop; a cancelled
/// page is an error.
pub async fn decode_page<S: RangeSource>(
    metadata: &SSTableMetadata,
    names: (Option<String>, Option<String>),
    source: S,
    request: &PageRequest,
    is_cancelled: &dyn Fn() -> bool,
) -> Result<DataPage, String> {
    let started = loader::now_millis();
    let clock = loader::PerformanceClock;
    let mut driver = SyncDriver::new(source);
    let mut page = DataPage {
        start: request.start,
        ..DataPage::default()
    };
    if let Some(text) = &request.wanted_key {
        let key = match legacy_layout(metadata, request)?.and_then(|l| l.key_type) {
            Some(key_type) => parse_partition_key(&key_type, text).map_err(|e| e.to_string()),
            None => metadata.parse_key(text),
        }
        .map_err(|e| format!("key: {e}"))?;
        // A key is found through the SSTable's read path (bloom filter, Summary → Index.db or
        // the BTI trie, then Data.db), then its partition decoded.
        let mut lookup = Lookup::new(metadata, key, &clock);
        // An error ends the lookup and is in its result.
        let _ = driver.run(&mut lookup, &clock);
        let r = lookup.into_result();
        page.lookup_steps = r
            .steps
            .iter()
            .map(|s| {
                format!(
                    "{} bytes {}..{} ({:.2} ms): {}",
                    s.component,
                    s.offset,
                    s.offset.saturating_add(s.length),
                    s.nanos as f64 / 1e6,
                    s.note
                )
            })
            .collect();
        match r.partition_position {
            Some(p) => page.start = p,
            None => {
                page.not_found = Some(unfound(&r));
                page.millis = loader::now_millis() - started;
                return Ok(page);
            }
        }
    }
    let mut slices = Slices {
        started: loader::now_millis(),
        is_cancelled,
    };
    if metadata.descriptor.version.has_row_format() {
        rows_page(metadata, &mut driver, request, &mut page, &mut slices).await?;
    } else {
        legacy_page(metadata, &mut driver, request, &mut page, &mut slices).await?;
        let (keyspace, table) = names;
        page.legacy_schema = Some(
            InferredTable::from_partitions(&page.partitions)
                .create_table(keyspace.as_deref(), table.as_deref()),
        );
    }
    page.bytes_read = driver.stats().bytes;
    if request.export {
        let json = serde_json::to_string_pretty(&page.partitions).map_err(|e| e.to_string())?;
        page.export_json = Some(json);
        page.partitions.clear();
    } else if let Some(max) = request.max_rows_per_partition {
        for p in &mut page.partitions {
            p.rows.truncate(max);
        }
        for p in page.atoms.iter_mut().flatten() {
            p.atoms.truncate(max);
        }
    }
    page.millis = loader::now_millis() - started;
    Ok(page)
}

/// Yields between slices of work and stops a cancelled job.
struct Slices<'a> {
    started: f64,
    is_cancelled: &'a dyn Fn() -> bool,
}

impl Slices<'_> {
    async fn checkpoint(&mut self) -> Result<(), String> {
        if loader::now_millis() - self.started < SLICE_MILLIS {
            return Ok(());
        }
        loader::yield_to_event_loop().await;
        if (self.is_cancelled)() {
            return Err(CANCELLED.to_owned());
        }
        self.started = loader::now_millis();
        Ok(())
    }
}

/// Whether a page holding `partitions` partitions and `rows` rows (or atoms) is full, given the
/// partition just added was the one asked for.
fn page_full(partitions: usize, rows: usize, max_partitions: usize, found: bool) -> bool {
    partitions >= max_partitions || rows >= MAX_PAGE_ROWS || found
}

fn options(request: &PageRequest) -> DecodeOptions {
    DecodeOptions {
        now_seconds: Some(request.now_seconds),
        ..DecodeOptions::default()
    }
}

/// Items checked between two looks at the clock.
const ITEMS_PER_CHECK: u32 = 256;

/// Counts what is left of a partition once its row cap is reached, building nothing: rows (the
/// static row comes first, so it is never past a cap) and range tombstone markers, each one a
/// line of the page as `PartitionBuilder` would make it; and the partition's end.
#[derive(Default)]
struct RowCounter {
    rows: usize,
    end: Option<PartitionEnd>,
}

impl DataVisitor for RowCounter {
    fn row_start(&mut self, _row: &RowView<'_>) {
        self.rows = self.rows.saturating_add(1);
    }

    fn range_tombstone_marker(&mut self, _marker: &RangeTombstoneMarker) {
        self.rows = self.rows.saturating_add(1);
    }

    fn partition_end(&mut self, end: &PartitionEnd) {
        self.end = Some(end.clone());
    }
}

/// A 3.0+ page: owned items from the driver, one partition at a time through
/// `PartitionBuilder` — up to the request's row cap (none for an export); past it the rest of the
/// partition goes to a [`RowCounter`] (the borrowing decoder: no row or cell is materialised) and
/// only its end to the builder.
async fn rows_page<S: RangeSource>(
    metadata: &SSTableMetadata,
    driver: &mut SyncDriver<S>,
    request: &PageRequest,
    page: &mut DataPage,
    slices: &mut Slices<'_>,
) -> Result<(), String> {
    let clock = loader::PerformanceClock;
    let mut reader =
        DataFileReader::for_sstable(metadata, options(request)).map_err(|e| e.to_string())?;
    let data_len_bytes = reader.data_len_bytes();
    let schema = reader.decoder().schema().clone();
    if page.start > 0 {
        reader
            .seek_to_partition(page.start)
            .map_err(|e| e.to_string())?;
    }
    let mut builder = PartitionBuilder::new(Some(request.now_seconds));
    let cap = request
        .max_rows_per_partition
        .filter(|_| !request.export)
        .unwrap_or(usize::MAX);
    let mut rows = 0usize;
    let mut items = 0u32;
    // Inside a partition: lines built, and lines counted past the cap.
    let mut open = false;
    let mut built = 0usize;
    let mut counted = 0usize;
    loop {
        items = items.wrapping_add(1);
        if items.is_multiple_of(ITEMS_PER_CHECK) {
            slices.checkpoint().await?;
        }
        let item = if open && built >= cap {
            let mut counter = RowCounter::default();
            let step = driver
                .visit_next(&mut reader, &mut counter, &clock)
                .map_err(|e| e.to_string())?;
            if !matches!(step, VisitStep::Visited) {
                break;
            }
            counted = counted.saturating_add(counter.rows);
            match counter.end {
                Some(end) => DataItem::PartitionEnd(end),
                None => continue,
            }
        } else {
            match driver
                .next_item(&mut reader, &clock)
                .map_err(|e| e.to_string())?
            {
                DecodeStep::Finished | DecodeStep::NeedMoreData => break,
                DecodeStep::Item(item) => item,
            }
        };
        let end = match &item {
            DataItem::PartitionStart(_) => {
                (open, built, counted) = (true, 0, 0);
                None
            }
            DataItem::StaticRow(_) | DataItem::Row(_) | DataItem::RangeTombstoneMarker(_) => {
                built = built.saturating_add(1);
                None
            }
            DataItem::PartitionEnd(e) => {
                open = false;
                Some(e.partition_span.end)
            }
        };
        let Some(p) = builder.push(&schema, &item) else {
            continue;
        };
        let found = request.wanted_key.is_some();
        let total = p.rows.len().saturating_add(counted);
        rows = rows.saturating_add(total);
        page.row_totals.push(total);
        page.partitions.push(p);
        if page_full(page.partitions.len(), rows, request.max_partitions, found) {
            page.next_position = end.filter(|&e| e < data_len_bytes);
            break;
        }
    }
    page.findings = reader
        .take_findings()
        .into_iter()
        .map(|f| f.message)
        .collect();
    page.collections = collection_literals(&schema, &page.partitions);
    Ok(())
}

/// Every non-frozen collection or UDT column of every row of `partitions` as cqlsh shows it.
fn collection_literals(
    schema: &DataSchema,
    partitions: &[PartitionJson],
) -> Vec<CollectionLiteral> {
    let multi_cell: Vec<&ColumnSchema> = schema
        .static_columns
        .iter()
        .chain(&schema.regular_columns)
        .filter(|c| c.column_type.is_multi_cell())
        .collect();
    let mut out = Vec::new();
    if multi_cell.is_empty() {
        return out;
    }
    for (pi, p) in partitions.iter().enumerate() {
        for (ri, r) in p.rows.iter().enumerate() {
            for column in &multi_cell {
                let cells: Vec<&CellJson> =
                    r.cells.iter().filter(|c| c.name == column.name).collect();
                // A frozen UDT that the header calls multi-cell (CASSANDRA-15035) has no paths.
                if cells.is_empty() || cells.iter().any(|c| c.path.is_none()) {
                    continue;
                }
                if let Some(literal) = multi_cell_literal(&column.column_type, &cells) {
                    out.push(CollectionLiteral {
                        partition: pi,
                        row: ri,
                        column: column.name.clone(),
                        literal,
                    });
                }
            }
        }
    }
    out
}

/// A 2.x page: the engine's driver hands each step of the `LegacyDataFileReader` (atoms borrow
/// its window) to `RowGrouper` and, when asked, `AtomsBuilder`, in one pass.
async fn legacy_page<S: RangeSource>(
    metadata: &SSTableMetadata,
    driver: &mut SyncDriver<S>,
    request: &PageRequest,
    page: &mut DataPage,
    slices: &mut Slices<'_>,
) -> Result<(), String> {
    let clock = loader::PerformanceClock;
    let mut reader =
        LegacyDataFileReader::for_sstable(metadata, options(request)).map_err(|e| e.to_string())?;
    let data_len_bytes = reader.data_len_bytes();
    if page.start > 0 {
        reader
            .seek_to_partition(page.start)
            .map_err(|e| e.to_string())?;
    }
    let layout = legacy_layout(metadata, request)?.unwrap_or_else(LegacyLayout::inferred);
    let mut grouper = RowGrouper::new(layout.clone(), Some(request.now_seconds));
    // Rows past the cap are counted, never built (the 3.0+ path does the same with a visitor).
    if let Some(max) = request.max_rows_per_partition.filter(|_| !request.export) {
        grouper = grouper.with_row_limit(max);
    }
    let mut atoms = request.atoms.then(|| AtomsBuilder::new(layout));
    let mut listed = Vec::new();
    page.legacy_note = Some(LEGACY_NOTE.to_owned());
    let mut rows = 0usize;
    let mut atom_count = 0usize;
    let mut items = 0u32;
    loop {
        items = items.wrapping_add(1);
        if items.is_multiple_of(ITEMS_PER_CHECK) {
            slices.checkpoint().await?;
        }
        let done = driver
            .with_next_step(&mut reader, &clock, |step| match step {
                LegacyStep::Finished | LegacyStep::NeedMoreData => Partition::End,
                LegacyStep::Item(item) => {
                    let end = match &item {
                        LegacyItem::PartitionEnd(e) => Some(e),
                        _ => None,
                    };
                    let listed = atoms.as_mut().and_then(|a| a.push(&item));
                    match (grouper.push(&item), end) {
                        (Some(p), Some(e)) => Partition::Done {
                            row_total: p.rows.len().saturating_add(grouper.rows_past_limit()),
                            rows: p,
                            atoms: listed,
                            end: e.partition_span.end,
                            atom_count: usize::try_from(e.atom_counts.total())
                                .unwrap_or(usize::MAX),
                        },
                        _ => Partition::Open,
                    }
                }
            })
            .map_err(|e| e.to_string())?;
        match done {
            Partition::End => break,
            Partition::Open => {}
            Partition::Done {
                rows: p,
                row_total,
                atoms: a,
                end,
                atom_count: n,
            } => {
                rows = rows.saturating_add(row_total);
                atom_count = atom_count.saturating_add(n);
                page.row_totals.push(row_total);
                page.partitions.push(p);
                listed.extend(a);
                let found = request.wanted_key.is_some();
                if page_full(
                    page.partitions.len(),
                    rows.max(atom_count),
                    request.max_partitions,
                    found,
                ) {
                    page.next_position = Some(end).filter(|&e| e < data_len_bytes);
                    break;
                }
            }
        }
    }
    page.atoms = request.atoms.then_some(listed);
    page.findings = reader
        .take_findings()
        .into_iter()
        .map(|f| f.message)
        .collect();
    Ok(())
}

/// A 2.x SSTable's layout from the page's `CREATE TABLE` (`None`: none given, one that does not
/// parse yet — the schema check beside the box says why —, or a 3.0+ SSTable, whose
/// serialization header types it).
fn legacy_layout(
    metadata: &SSTableMetadata,
    request: &PageRequest,
) -> Result<Option<LegacyLayout>, String> {
    let Some(text) = request
        .create_table
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    else {
        return Ok(None);
    };
    if metadata.descriptor.version.has_row_format() {
        return Ok(None);
    }
    let Ok(table) = parse_create_table(text) else {
        return Ok(None);
    };
    let compact = text.to_ascii_uppercase().contains("COMPACT STORAGE");
    Ok(LegacyLayout::from_cql(&table, compact).ok())
}

/// What one step of a 2.x page did.
// Made once per item and matched at once: boxing the partition would not save anything.
#[allow(clippy::large_enum_variant)]
enum Partition {
    /// The end of Data.db.
    End,
    /// Inside a partition.
    Open,
    /// A partition ended: its rows (at most the page's cap built), how many it has, its atoms
    /// (when listed), its end and atom count.
    Done {
        rows: PartitionJson,
        row_total: usize,
        atoms: Option<AtomPartitionJson>,
        end: u64,
        atom_count: usize,
    },
}

/// The keyspace and table a 2.x SSTable's `CREATE TABLE` is named by: its file name's (`ka` and
/// before), else the directories it was found in (`<keyspace>/<table>[-<id>]/la-1-big-…`).
pub fn table_names(metadata: &SSTableMetadata, path: &str) -> (Option<String>, Option<String>) {
    let d = &metadata.descriptor;
    if let (Some(k), Some(t)) = (&d.keyspace, &d.table) {
        return (Some(k.clone()), Some(t.clone()));
    }
    let mut dirs = path.rsplit('/').skip(1);
    let table = dirs.next().map(|t| {
        // 2.2+ table directories end with `-` and the table id's 32 hex digits.
        match t.rsplit_once('-') {
            Some((name, id)) if id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()) => {
                name.to_owned()
            }
            _ => t.to_owned(),
        }
    });
    let keyspace = table.as_ref().and_then(|_| dirs.next()).map(str::to_owned);
    (keyspace, table)
}

/// [`crate::protocol::Request::DataPage`]: one data page of the SSTable `loaded`, through
/// [`decode_page`], reading with `FileReaderSync`.
pub(super) async fn page(
    loaded: &Loaded,
    sstable: &str,
    request: &PageRequest,
    is_cancelled: &dyn Fn() -> bool,
) -> Result<DataPage, String> {
    let source = ReadAhead::new(FileSource {
        files: &loaded.handles,
        raw_crc32_millis: None,
    });
    let names = table_names(&loaded.metadata, sstable);
    decode_page(&loaded.metadata, names, source, request, is_cancelled).await
}

/// Why "Find" shows no partition, honestly: "not in this SSTable" only when a sound structure
/// ruled the key out ([`StopReason::is_absent`]); an index entry whose Data.db chunk fails its
/// checksum is "present but unreadable"; any other error says the lookup could not be done.
fn unfound(r: &LookupResult) -> String {
    let Some(stop) = &r.stopped_at else {
        return "not found: the lookup did not say why".to_owned();
    };
    if stop.is_absent() {
        return format!("not in this SSTable: {}", stop.describe());
    }
    if let StopReason::Error {
        component: Some(ComponentType::Data),
        message,
        ..
    } = stop
    {
        if r.index_entry.is_some() {
            // The engine's words: "chunk N (Data.db a..b) fails its checksum: …".
            let chunk = failing_chunk(message);
            return match chunk {
                Some(n) => format!(
                    "present but unreadable (chunk {n} fails its checksum): the index holds the key, its Data.db chunk does not read — {}",
                    stop.describe()
                ),
                None => format!(
                    "present but unreadable: the index holds the key, its Data.db partition does not read — {}",
                    stop.describe()
                ),
            };
        }
    }
    format!("could not be looked up: {}", stop.describe())
}

/// N of the engine's "chunk N (Data.db a..b) fails its checksum" in `message`.
fn failing_chunk(message: &str) -> Option<&str> {
    if !message.contains("fails its checksum") {
        return None;
    }
    message.match_indices("chunk ").find_map(|(i, m)| {
        let rest = message.get(i + m.len()..)?;
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let n = rest.get(..digits)?;
        (!n.is_empty() && rest.get(digits..)?.starts_with(" (")).then_some(n)
    })
}
