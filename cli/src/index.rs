//! `sstable-inspect index PATH... [--json] [--blocks]`: every partition an SSTable's index lists
//! — key (rendered per the key type, and hex), token, Data.db position, row-index block count —
//! and the cross-checks of the index against Data.db, the bloom filter and Summary.db.
//!
//! big: Index.db is read in windows of 64 KiB (an entry's promoted index only with `--blocks`,
//! which lists its `IndexInfo` blocks: first/last clustering, offset, width, end-open marker).
//! bti: Partitions.db is read whole and walked; each partition with a row index has its Rows.db
//! entry read (with `--blocks`, its trie too: separators, offsets, widths, open markers). For
//! every partition the header at its Data.db position is read (one chunk) and its key compared.
//!
//! Exit status: 0 when every SSTable was listed (cross-check findings are reported, they are not
//! errors), 1 when a read or decode error cut a listing short, 2 on bad usage.

use std::fmt::Write as _;
use std::io::Write as _;

use serde_json::{json, Value};
use sstable_engine::clock::NoClock;
use sstable_engine::component::bti::bytecomparable::describe;
use sstable_engine::component::bti::partitions::{self, PartitionTarget};
use sstable_engine::component::bti::rows::{decode_entry, decode_row_index};
use sstable_engine::component::bti::TrieBytes;
use sstable_engine::component::common::ClusteringValueState;
use sstable_engine::component::data::DecodeOptions;
use sstable_engine::component::index::{
    clustering_value_lengths, DeletionTime, IndexEntry, IndexFile, IndexInfo, IndexName,
};
use sstable_engine::crosscheck::{CrossCheckReport, CrossChecker, IndexedPartition};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::lookup::{read_partition_start_with, CheckedDataReader};
use sstable_engine::range::{IndexEntries, IndexEntryStep, SyncDriver};
use sstable_engine::types::value::format_value;
use sstable_engine::types::AbstractType;
use sstable_engine::{ComponentType, Error, ErrorKind, Format};

use crate::files::ComponentFiles;
use crate::lookup::{hex, load_sstables, render_key};
use crate::Outcome;

/// Rows.db bytes read after an entry's position at first (grown when the entry is longer).
const ROWS_ENTRY_READ_BYTES: u64 = 4096;

/// `sstable-inspect index PATH... [--json] [--blocks]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// SSTable component files or directories
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Print JSON
    #[arg(long)]
    json: bool,
    /// List each row-index block (IndexInfo, or the Rows.db trie)
    #[arg(long)]
    blocks: bool,
}

pub fn run(args: Args) -> Result<Outcome, String> {
    let paths: Vec<&str> = args.paths.iter().map(String::as_str).collect();
    let json_out = args.json;
    let with_blocks = args.blocks;
    let sstables = load_sstables(&paths)?;
    if sstables.is_empty() {
        return Err(format!("{}: no SSTable found", paths.join(" ")));
    }
    let mut reports = Vec::new();
    let mut any_errors = false;
    for (mut files, metadata) in sstables {
        let mut listing = Listing::new(&files.prefix, &metadata, with_blocks, json_out);
        if !json_out {
            let heading = listing.heading();
            listing.print(&heading);
        }
        match metadata.descriptor.format {
            Format::Big => listing.list_big(&mut files),
            Format::Bti => listing.list_bti(&mut files),
        }
        let (report, errors) = listing.finish();
        any_errors |= errors;
        if json_out {
            reports.push(report);
        }
    }
    if json_out {
        println!(
            "{}",
            serde_json::to_string_pretty(&reports).map_err(|e| e.to_string())?
        );
    }
    Ok(if any_errors {
        Outcome::Errors
    } else {
        Outcome::Clean
    })
}

/// One SSTable being listed: partitions are printed as they come (or collected for JSON).
struct Listing<'m> {
    prefix: String,
    metadata: &'m SSTableMetadata,
    key_type: Option<AbstractType>,
    clustering_types: Vec<AbstractType>,
    with_blocks: bool,
    json_out: bool,
    checker: CrossChecker<'m>,
    data: Option<CheckedDataReader>,
    partitions: Vec<Value>,
    count: usize,
    expected_count: Option<u64>,
    errors: Vec<String>,
    /// stdout was closed: stop listing.
    closed: bool,
}

impl<'m> Listing<'m> {
    fn new(prefix: &str, metadata: &'m SSTableMetadata, with_blocks: bool, json_out: bool) -> Self {
        let mut errors: Vec<String> = metadata.errors.iter().map(|e| e.to_string()).collect();
        let data = match CheckedDataReader::for_sstable(metadata, DecodeOptions::default()) {
            Ok(r) => Some(r),
            Err(e) => {
                errors.push(format!("Data.db keys not checked: {e}"));
                None
            }
        };
        let clustering_types = metadata.clustering_types();
        Listing {
            prefix: prefix.to_owned(),
            metadata,
            key_type: metadata.key_type(),
            clustering_types,
            with_blocks,
            json_out,
            checker: CrossChecker::new(metadata),
            data,
            partitions: Vec::new(),
            count: 0,
            expected_count: None,
            errors,
            closed: false,
        }
    }

    fn heading(&self) -> String {
        let d = &self.metadata.descriptor;
        format!(
            "SSTable: {}\n  version {} ({}), {}, key {}\n  {:>6}  {:<24} {:<20} {:>12} {:>7}\n",
            self.prefix,
            d.version,
            d.format,
            self.metadata.partitioner(),
            self.key_type
                .as_ref()
                .map_or_else(|| "not recorded (pre-3.0)".to_owned(), AbstractType::cql),
            "entry",
            "key",
            "token",
            "Data.db",
            "blocks"
        )
    }

    /// Prints (or keeps) one partition.
    fn emit(&mut self, partition: Value) {
        self.count += 1;
        if self.json_out {
            self.partitions.push(partition);
            return;
        }
        let p = &partition;
        let key = p["key"]
            .as_array()
            .map(|parts| {
                parts
                    .iter()
                    .map(|v| v.as_str().unwrap_or("?").to_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_else(|| "?".to_owned());
        let mut out = format!(
            "  {:>6}  {:<24} {:<20} {:>12} {:>7}\n",
            p["entry"].to_string(),
            short(&key),
            short(p["token"].as_str().unwrap_or("?")),
            p["position"].to_string(),
            p["blocks"].to_string()
        );
        for b in p["block_list"].as_array().into_iter().flatten() {
            let names = |v: &Value| {
                if v.is_null() {
                    return String::new();
                }
                let values: Vec<String> = v["values"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|x| x.as_str().map_or_else(|| "null".to_owned(), short))
                    .collect();
                format!(
                    "{}[{}]",
                    v["kind"]
                        .as_str()
                        .map(|k| format!("{k} "))
                        .unwrap_or_default(),
                    values.join(", ")
                )
            };
            let _ = write!(out, "          block {}: ", b["index"]);
            if b["separator"].is_string() {
                let _ = write!(out, "separator {}, ", b["separator"].as_str().unwrap_or(""));
            } else {
                let _ = write!(out, "{} … {}, ", names(&b["first"]), names(&b["last"]));
            }
            let _ = writeln!(
                out,
                "offset {}, width {}{}",
                b["offset"],
                b["width"],
                if b["open_marker"].is_null() {
                    String::new()
                } else {
                    format!(", open range tombstone {}", b["open_marker"])
                }
            );
        }
        self.print(&out);
    }

    /// Writes to stdout; a closed pipe (`| head`) ends the listing quietly.
    fn print(&mut self, text: &str) {
        if self.closed {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        if stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            .is_err()
        {
            self.closed = true;
        }
    }

    fn error(&mut self, e: impl std::fmt::Display) {
        self.errors.push(e.to_string());
    }

    /// The JSON report, and whether there were errors (printing the human summary).
    fn finish(mut self) -> (Value, bool) {
        let report: CrossCheckReport = self.checker.clone().finish(self.expected_count);
        let had_errors = !self.errors.is_empty();
        if !self.json_out {
            let mut out = String::new();
            let _ = writeln!(
                out,
                "  cross-checks: {} entries, {} keys confirmed in Data.db, {} Summary.db samples: {}",
                report.checked,
                report.data_keys_checked,
                report.summary_samples_checked,
                if report.is_clean() {
                    "clean".to_owned()
                } else {
                    format!("{} findings", report.finding_count)
                }
            );
            for f in &report.findings {
                let _ = writeln!(out, "  finding ({:?}): {}", f.kind, f.message);
            }
            if report.finding_count > report.findings.len() {
                let _ = writeln!(
                    out,
                    "  … and {} more findings",
                    report.finding_count - report.findings.len()
                );
            }
            for e in &self.errors {
                let _ = writeln!(out, "  error: {e}");
            }
            self.print(&out);
        }
        let d = &self.metadata.descriptor;
        let value = json!({
            "sstable": self.prefix,
            "version": d.version.to_string(),
            "format": d.format.to_string(),
            "partitioner": self.metadata.partitioner().name(),
            "key_type": self.key_type.as_ref().map(AbstractType::cql),
            "partition_count": self.count,
            "partitions": self.partitions,
            "crosscheck": report,
            "errors": self.errors,
        });
        (value, had_errors)
    }

    /// The partition header at `position`, read from Data.db.
    fn data_start(
        &mut self,
        files: &mut ComponentFiles,
        position: u64,
    ) -> Option<Result<sstable_engine::component::data::PartitionStart, Error>> {
        let reader = self.data.as_mut()?;
        let mut driver = SyncDriver::new(files);
        Some(read_partition_start_with(
            reader,
            position,
            &mut driver,
            &NoClock,
        ))
    }

    fn partition_json(
        &self,
        number: usize,
        key: &[u8],
        position: u64,
        blocks: u32,
        extra: &[(&str, Value)],
    ) -> Value {
        let mut v = json!({
            "entry": number,
            "key": render_key(self.key_type.as_ref(), key),
            "hex": hex(key),
            "token": self.metadata.partitioner().token(key).to_string(),
            "position": position,
            "blocks": blocks,
        });
        if let Some(fields) = v.as_object_mut() {
            for (k, x) in extra {
                fields.insert((*k).to_owned(), x.clone());
            }
        }
        v
    }

    fn list_big(&mut self, files: &mut ComponentFiles) {
        let version = self.metadata.descriptor.version;
        let Some(size) = self.metadata.size_of(&ComponentType::PrimaryIndex) else {
            self.error("the SSTable has no Index.db");
            return;
        };
        // Index.db in windows through the engine's protocol.
        let mut entries = IndexEntries::new(version, size);
        let mut number = 0usize;
        loop {
            match entries.next_entry() {
                Ok(IndexEntryStep::Entry(_)) if self.closed => return,
                Ok(IndexEntryStep::Entry(e)) => {
                    self.big_entry(files, &entries.window(), number, &e);
                    number += 1;
                }
                Ok(IndexEntryStep::NeedMoreData) => {
                    if let Err(e) = SyncDriver::new(&mut *files).step(&mut entries, &NoClock) {
                        self.error(format!("Index.db listing stopped: {e}"));
                        return;
                    }
                }
                Ok(IndexEntryStep::End) => return,
                Err(e) => {
                    self.error(format!("Index.db listing stopped: {e}"));
                    return;
                }
            }
        }
    }

    fn big_entry(
        &mut self,
        files: &mut ComponentFiles,
        window: &IndexFile<'_>,
        number: usize,
        e: &IndexEntry,
    ) {
        let key = e.key.value.as_slice();
        let position = e.position.value;
        let p = IndexedPartition {
            number,
            key,
            position,
            index_offset: Some(e.span.start),
        };
        self.checker.add_entry(&p);
        if let Some(start) = self.data_start(files, position) {
            self.checker.check_data_key(&p, start.as_ref());
        }
        let mut extra = vec![("index_offset", json!(e.span.start))];
        if self.with_blocks {
            let list = match e.promoted_span {
                None => Ok(Vec::new()),
                Some(span)
                    if window.window().start <= span.start && span.end <= window.window().end =>
                {
                    self.big_blocks(window, e)
                }
                Some(span) => {
                    match files.read_at(&ComponentType::PrimaryIndex, span.start, span.len_bytes())
                    {
                        Ok(bytes) => {
                            let own = IndexFile::new(&bytes, span.start, window.version());
                            self.big_blocks(&own, e)
                        }
                        Err(err) => Err(err),
                    }
                }
            };
            match list {
                Ok(list) => extra.push(("block_list", Value::Array(list))),
                Err(err) => self.error(format!("entry {number}: promoted index: {err}")),
            }
        }
        let v = self.partition_json(number, key, position, e.block_count.unwrap_or(0), &extra);
        self.emit(v);
    }

    fn big_blocks(&self, file: &IndexFile<'_>, e: &IndexEntry) -> Result<Vec<Value>, Error> {
        let Some(promoted) = file.promoted_index(e)? else {
            return Ok(Vec::new());
        };
        let lengths = clustering_value_lengths(&self.clustering_types);
        let mut out = Vec::new();
        for j in 0..promoted.block_count.value {
            let b = file.block(&promoted, j, &lengths)?;
            out.push(self.block_json(&b));
        }
        Ok(out)
    }

    fn block_json(&self, b: &IndexInfo) -> Value {
        json!({
            "index": b.index,
            "first": self.name_json(&b.first_name),
            "last": self.name_json(&b.last_name),
            "offset": b.offset.value,
            "width": b.width.value,
            "open_marker": b.end_open_marker.as_ref().map(deletion_json),
            "span": [b.span.start, b.span.end],
        })
    }

    fn name_json(&self, name: &IndexName) -> Value {
        match name {
            IndexName::Clustering(c) => {
                let values: Vec<Value> = c
                    .values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| match v.state {
                        ClusteringValueState::Present => json!(
                            format_value(
                                self.clustering_types.get(i).unwrap_or(&AbstractType::Bytes),
                                &v.bytes
                            )
                            .text
                        ),
                        ClusteringValueState::Empty => json!(""),
                        ClusteringValueState::Null => Value::Null,
                    })
                    .collect();
                json!({"kind": c.kind.name(), "values": values})
            }
            IndexName::Legacy(l) => {
                let values: Vec<Value> = match &l.components {
                    Some(cs) => cs.iter().map(|c| json!(legacy_value(&c.value))).collect(),
                    None => vec![json!(legacy_value(&l.bytes))],
                };
                json!({"kind": Value::Null, "values": values})
            }
        }
    }

    fn list_bti(&mut self, files: &mut ComponentFiles) {
        let Some(size) = self.metadata.size_of(&ComponentType::Partitions) else {
            self.error("the SSTable has no Partitions.db");
            return;
        };
        let bytes = match files.read_at(&ComponentType::Partitions, 0, size) {
            Ok(b) => b,
            Err(e) => {
                self.error(e);
                return;
            }
        };
        let index = match partitions::decode(&bytes) {
            Ok(i) => i,
            Err(e) => {
                self.error(format!("Partitions.db: {e}"));
                return;
            }
        };
        for w in &index.warnings {
            self.error(format!("Partitions.db: {w}"));
        }
        self.expected_count = Some(index.footer.partition_count.value);
        let rows_size = self.metadata.size_of(&ComponentType::Rows).unwrap_or(0);
        let mut previous_rows_end = 0u64;
        for (number, pe) in index.entries.iter().enumerate() {
            if self.closed {
                return;
            }
            let (key, position, blocks, mut extra, header) = match pe.payload.target {
                PartitionTarget::Data { data_position } => {
                    match self.data_start(files, data_position) {
                        Some(Ok(start)) => (
                            start.key.bytes.bytes.clone(),
                            data_position,
                            0,
                            Vec::new(),
                            Some(start),
                        ),
                        Some(Err(e)) => {
                            self.error(format!(
                                "entry {number}: no partition header at Data.db {data_position}: {e}"
                            ));
                            continue;
                        }
                        None => {
                            self.error(format!(
                                "entry {number}: Data.db {data_position} not read: the key is unknown"
                            ));
                            continue;
                        }
                    }
                }
                PartitionTarget::RowIndex { rows_position } => {
                    let lower = if self.with_blocks {
                        previous_rows_end.min(rows_position)
                    } else {
                        rows_position
                    };
                    match self.rows_entry(files, lower, rows_position, rows_size) {
                        Ok(entry) => {
                            previous_rows_end = entry.end;
                            let mut extra = vec![("rows_position", json!(rows_position))];
                            if let Some(list) = entry.blocks {
                                extra.push(("block_list", Value::Array(list)));
                            }
                            (
                                entry.key,
                                entry.data_position,
                                entry.block_count,
                                extra,
                                None,
                            )
                        }
                        Err(e) => {
                            self.error(format!("entry {number}: Rows.db {rows_position}: {e}"));
                            continue;
                        }
                    }
                }
            };
            let p = IndexedPartition {
                number,
                key: &key,
                position,
                index_offset: None,
            };
            self.checker.add_entry(&p);
            self.checker
                .check_trie_prefix(&p, &pe.key_prefix, pe.payload.hash_byte);
            match &header {
                // The key came from Data.db: the header counts as confirmed.
                Some(start) => self.checker.check_data_key(&p, Ok(start)),
                // The Rows.db entry's key against Data.db.
                None => {
                    if let Some(start) = self.data_start(files, position) {
                        self.checker.check_data_key(&p, start.as_ref());
                    }
                }
            }
            extra.push(("trie_node", json!(pe.node_position)));
            let v = self.partition_json(number, &key, position, blocks, &extra);
            self.emit(v);
        }
    }

    /// The Rows.db entry at `position`, read from `lower` so that `--blocks` has the trie.
    fn rows_entry(
        &self,
        files: &mut ComponentFiles,
        lower: u64,
        position: u64,
        rows_size: u64,
    ) -> Result<RowsEntry, Error> {
        let version = self.metadata.descriptor.version;
        if position >= rows_size {
            return Err(Error::invalid(
                format!("the trie points at Rows.db {position}, past its end ({rows_size} bytes)"),
                position,
            )
            .in_component(ComponentType::Rows));
        }
        let lower = lower.min(position);
        let mut tail = ROWS_ENTRY_READ_BYTES;
        loop {
            let end = position.saturating_add(tail).min(rows_size);
            let bytes = files.read_at(&ComponentType::Rows, lower, end.saturating_sub(lower))?;
            let trie = TrieBytes::rows(&bytes, lower);
            let result = if self.with_blocks {
                decode_row_index(&trie, position, &version).map(|ri| {
                    let list = bti_blocks(&ri);
                    (ri.entry, Some(list))
                })
            } else {
                decode_entry(&trie, position, &version).map(|e| (e, None))
            };
            match result {
                Ok((entry, blocks)) => {
                    return Ok(RowsEntry {
                        end: entry.span.end,
                        key: entry.key.value,
                        data_position: entry.data_position.value,
                        block_count: entry.block_count.value,
                        blocks,
                    })
                }
                Err(e)
                    if end < rows_size
                        && matches!(
                            e.kind(),
                            ErrorKind::UnexpectedEof { .. } | ErrorKind::LengthTooLarge { .. }
                        ) =>
                {
                    tail = tail.saturating_mul(4);
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// A partition's `TrieIndexEntry` in Rows.db, as listed.
struct RowsEntry {
    /// Where the entry ends in Rows.db (the next partition's trie starts there).
    end: u64,
    key: Vec<u8>,
    data_position: u64,
    block_count: u32,
    /// With `--blocks`: the blocks, as JSON.
    blocks: Option<Vec<Value>>,
}

/// The row-index blocks of a bti partition (the trie's final end-of-partition entry gives the
/// last block's width).
fn bti_blocks(ri: &sstable_engine::component::bti::RowIndex) -> Vec<Value> {
    let count = ri.entry.block_count.value as usize;
    ri.blocks
        .iter()
        .take(count)
        .enumerate()
        .map(|(i, b)| {
            let width = ri.blocks.get(i + 1).map(|next| {
                let end = if i + 1 == count {
                    // The extra entry points at the end-of-partition byte, which the last
                    // block includes.
                    next.offset + 1
                } else {
                    next.offset
                };
                end - b.offset
            });
            json!({
                "index": i,
                "separator": describe(&b.separator),
                "first": Value::Null,
                "last": Value::Null,
                "offset": b.offset,
                "width": width,
                "open_marker": b.open_marker.as_ref().map(deletion_json),
            })
        })
        .collect()
}

fn deletion_json(d: &DeletionTime) -> Value {
    json!({
        "marked_for_delete_at": d.marked_for_delete_at_if_deleted(),
        "local_deletion_time": d.local_deletion_time_if_deleted(),
    })
}

/// A pre-3.0 cell-name component: printable text, else `0x…` hex.
fn legacy_value(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(char::is_control) => s.to_owned(),
        _ => hex(bytes),
    }
}

/// A long value cut for the terminal.
fn short(s: &str) -> String {
    const MAX_CHARS: usize = 24;
    if s.chars().count() <= MAX_CHARS {
        return s.to_owned();
    }
    let head: String = s.chars().take(MAX_CHARS).collect();
    format!("{head}… ({} chars)", s.chars().count())
}
