//! `sstable-inspect index PATH... [--json] [--blocks]`: every partition an SSTable's index lists
//! — key (rendered per the key type, and hex), token, Data.db position, row-index block count —
//! and the cross-checks of the index against Data.db, the bloom filter and Summary.db.
//!
//! The engine's `IndexListing` walks the index through the sync driver (big: Index.db in
//! windows, a promoted index's `IndexInfo` blocks with `--blocks`; bti: Partitions.db page by
//! page, each partition's Rows.db entry, with `--blocks` its trie too) and reads the header at
//! every partition's Data.db position; this command renders what it lists and feeds the
//! engine's `CrossChecker`.
//!
//! Exit status: 0 when every SSTable was listed (cross-check findings are reported, they are not
//! errors), 1 when a read or decode error cut a listing short, 2 on bad usage.

use std::fmt::Write as _;
use std::io::Write as _;

use serde_json::{json, Value};
use sstable_engine::clock::NoClock;
use sstable_engine::component::bti::bytecomparable::describe;
use sstable_engine::component::common::ClusteringValueState;
use sstable_engine::component::index::{DeletionTime, IndexInfo, IndexName};
use sstable_engine::crosscheck::{CrossCheckReport, CrossChecker, IndexedPartition};
use sstable_engine::index_listing::{
    index_component, IndexListing, ListedBlocks, ListedPartition, ListingItem, ListingOptions,
    MissingIndex, RowsBlock,
};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::SyncDriver;
use sstable_engine::types::value::format_value;
use sstable_engine::types::AbstractType;
use sstable_engine::Format;

use crate::files::ComponentFiles;
use crate::lookup::{hex, load_sstables, render_key};
use crate::Outcome;

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
        listing.list(&mut files);
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
    partitions: Vec<Value>,
    count: usize,
    expected_count: Option<u64>,
    errors: Vec<String>,
    /// stdout was closed: stop listing.
    closed: bool,
}

impl<'m> Listing<'m> {
    fn new(prefix: &str, metadata: &'m SSTableMetadata, with_blocks: bool, json_out: bool) -> Self {
        let errors: Vec<String> = metadata.errors.iter().map(|e| e.to_string()).collect();
        let clustering_types = metadata.clustering_types();
        Listing {
            prefix: prefix.to_owned(),
            metadata,
            key_type: metadata.key_type(),
            clustering_types,
            with_blocks,
            json_out,
            checker: CrossChecker::new(metadata),
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

    /// Lists every partition through the engine's listing, driven over `files`.
    fn list(&mut self, files: &mut ComponentFiles) {
        let component = index_component(self.metadata);
        let index_len = self.metadata.size_of(&component);
        let options = ListingOptions::full(self.with_blocks);
        let mut listing = IndexListing::new(self.metadata, index_len.unwrap_or(0), options);
        if let Some(e) = listing.data_error() {
            self.error(format!("Data.db keys not checked: {e}"));
        }
        if index_len.is_none() {
            self.error(MissingIndex(component));
            return;
        }
        let warnings_at = self.errors.len();
        let mut driver = SyncDriver::new(files);
        while !self.closed {
            match driver.pull(&mut listing, &NoClock) {
                Ok(Some(ListingItem::Partition(p))) => self.partition(&p),
                Ok(Some(ListingItem::Skipped { message, .. })) => self.error(message),
                Ok(None) => break,
                Err(e) => {
                    self.error(match self.metadata.descriptor.format {
                        Format::Big => format!("Index.db listing stopped: {e}"),
                        Format::Bti => format!("Partitions.db: {e}"),
                    });
                    break;
                }
            }
        }
        self.expected_count = listing.expected_count();
        let warnings = listing.warnings();
        for (i, w) in warnings.into_iter().enumerate() {
            self.errors
                .insert(warnings_at + i, format!("Partitions.db: {w}"));
        }
    }

    /// Cross-checks and prints (or keeps) one listed partition.
    fn partition(&mut self, lp: &ListedPartition) {
        let key = lp.key.as_deref().unwrap_or_default();
        let position = lp.position.unwrap_or(0);
        let p = IndexedPartition {
            number: lp.number,
            key,
            position,
            index_offset: lp.index_offset,
        };
        self.checker.add_entry(&p);
        if let Some(trie) = &lp.trie {
            self.checker
                .check_trie_prefix(&p, &trie.key_prefix, trie.hash_byte);
        }
        if let Some(header) = &lp.data_header {
            self.checker.check_data_key(&p, header.as_ref());
        }
        let mut extra = Vec::new();
        if let Some(offset) = lp.index_offset {
            extra.push(("index_offset", json!(offset)));
        }
        if let Some(rows_position) = lp.rows_position {
            extra.push(("rows_position", json!(rows_position)));
        }
        match &lp.blocks {
            Some(Ok(ListedBlocks::Index(list))) => extra.push((
                "block_list",
                Value::Array(list.iter().map(|b| self.block_json(b)).collect()),
            )),
            Some(Ok(ListedBlocks::Rows(list))) => extra.push((
                "block_list",
                Value::Array(list.iter().map(rows_block_json).collect()),
            )),
            Some(Err(err)) => self.error(format!("entry {}: promoted index: {err}", lp.number)),
            None => {}
        }
        if let Some(trie) = &lp.trie {
            extra.push(("trie_node", json!(trie.node_position)));
        }
        let blocks = lp.block_count.unwrap_or(0);
        let v = self.partition_json(lp.number, key, position, blocks, &extra);
        self.emit(v);
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
}

/// A bti row-index block, as listed.
fn rows_block_json(b: &RowsBlock) -> Value {
    json!({
        "index": b.index,
        "separator": describe(&b.separator),
        "first": Value::Null,
        "last": Value::Null,
        "offset": b.offset,
        "width": b.width,
        "open_marker": b.open_marker.as_ref().map(deletion_json),
    })
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
