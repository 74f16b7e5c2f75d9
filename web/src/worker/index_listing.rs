//! The index view's pages, decoded in the worker by the engine's index
//! listing (`sstable_engine::index_listing`, the one `sstable-inspect index` uses) through the
//! sync driver: Index.db (big format) from where the page starts (the start of each page seen
//! is kept, so "next" and "previous" read only their page); a partition's promoted-index
//! (`IndexInfo`) blocks from its entry. For BTI, the Partitions.db trie (at most
//! [`MAX_TRIE_BYTES`]) is walked once and its rows kept. Nothing is read on the UI thread,
//! which renders the [`IndexPage`] that comes back.

use sstable_engine::component::bti::partitions::PartitionTarget;
use sstable_engine::component::bti::rows::decode_entry;
use sstable_engine::component::bti::trie::TrieBytes;
use sstable_engine::component::data::DecodeOptions;
use sstable_engine::component::index::IndexName;
use sstable_engine::component::legacy_data::{untyped, CellName};
use sstable_engine::component::ComponentType;
use sstable_engine::index_listing::{
    IndexListing, ListedBlocks, ListedPartition, ListingItem, ListingOptions,
};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::lookup::{read_partition_start_with, CheckedDataReader};
use sstable_engine::range::{ByteRange, RangeSource, SyncDriver};
use sstable_engine::span::hex;
use sstable_engine::types::value::format_value;
use sstable_engine::types::AbstractType;
use sstable_engine::Format;

use crate::loader;
use crate::protocol::{BlockRow, IndexPage, IndexRow};

/// Partitions.db larger than this is not listed in the page (the CLI lists any size).
pub const MAX_TRIE_BYTES: u64 = 64 << 20;
/// A partition's promoted index larger than this is not read for its blocks.
pub const MAX_PROMOTED_BYTES: u64 = 16 << 20;
/// `IndexInfo` blocks listed for one partition.
pub const MAX_BLOCKS: u32 = 500;

/// What the worker keeps of one SSTable's listing between pages.
#[derive(Debug, Default)]
pub struct Listing {
    /// Index.db offset of each page's first entry (big format), as far as seen.
    page_starts: Vec<u64>,
    /// Partitions.db's rows, decoded once (BTI), each with where its payload points.
    trie_rows: Option<Result<Vec<(IndexRow, PartitionTarget)>, String>>,
    total: Option<usize>,
}

/// How a key is shown: by the header's key type; before 3.0 (no key type recorded), text when
/// valid UTF-8, else hex, as in the data view.
fn key_text(key_type: &Option<AbstractType>, bytes: &[u8]) -> String {
    match key_type {
        Some(t) => format_value(t, bytes).text,
        None => untyped(bytes).0,
    }
}

/// Page `page` of `page_rows` partitions (or, with `export`, every partition as JSON).
pub fn page<S: RangeSource>(
    m: &SSTableMetadata,
    listing: &mut Listing,
    mut source: S,
    index_bytes: Option<u64>,
    page: usize,
    page_rows: usize,
    export: bool,
) -> IndexPage {
    let started = loader::now_millis();
    let page_rows = page_rows.max(1);
    let mut out = IndexPage {
        page,
        first: page.saturating_mul(page_rows),
        ..IndexPage::default()
    };
    let component = match m.descriptor.format {
        Format::Big => ComponentType::PrimaryIndex,
        Format::Bti => ComponentType::Partitions,
    };
    let Some(file_len) = index_bytes else {
        out.error = Some(format!("no {component} was given"));
        return out;
    };
    match m.descriptor.format {
        Format::Bti => {
            if file_len > MAX_TRIE_BYTES {
                out.error = Some(format!(
                    "{component} is {file_len} bytes: list it with `sstable-inspect index`"
                ));
                return out;
            }
            let rows = listing
                .trie_rows
                .get_or_insert_with(|| trie_rows(m, &mut source, file_len, &mut out.bytes_read));
            match rows {
                Ok(rows) => {
                    out.total = Some(rows.len());
                    if export {
                        let rows: Vec<IndexRow> = rows.iter().map(|(r, _)| r.clone()).collect();
                        out.export_json = Some(json(&rows));
                    } else {
                        let shown: Vec<(IndexRow, PartitionTarget)> = rows
                            .iter()
                            .skip(out.first)
                            .take(page_rows)
                            .cloned()
                            .collect();
                        out.more = rows.len() > out.first.saturating_add(page_rows);
                        out.rows = with_keys(m, &mut source, shown, &mut out.bytes_read);
                    }
                }
                Err(e) => out.error = Some(e.clone()),
            }
        }
        Format::Big => {
            let key_type = m.key_type();
            let partitioner = m.partitioner();
            if listing.page_starts.is_empty() {
                listing.page_starts.push(0);
            }
            // Export walks every entry from the start; a page from its start when this worker
            // has seen it, else from the last page start it knows (another worker may have
            // listed the pages before), noting page starts on the way.
            let (known_page, start_offset) = if export {
                (0, 0)
            } else {
                let known = page.min(listing.page_starts.len().saturating_sub(1));
                (known, listing.page_starts.get(known).copied().unwrap_or(0))
            };
            let mut number = known_page.saturating_mul(page_rows);
            let wanted_end = if export {
                usize::MAX
            } else {
                out.first.saturating_add(page_rows)
            };
            let mut driver = SyncDriver::new(source);
            let mut walk = IndexListing::new(m, file_len, ListingOptions::index_only())
                .starting_at(start_offset, number);
            let clock = loader::PerformanceClock;
            let mut rows = Vec::new();
            loop {
                let p = match driver.pull(&mut walk, &clock) {
                    Ok(Some(ListingItem::Partition(p))) => p,
                    Ok(Some(ListingItem::Skipped { .. })) => continue,
                    Ok(None) => {
                        listing.total = Some(number);
                        break;
                    }
                    Err(e) => {
                        out.error = Some(e.to_string());
                        break;
                    }
                };
                number = p.number;
                let (Some(key), Some(entry_offset)) = (&p.key, p.index_offset) else {
                    continue;
                };
                if number % page_rows == 0 {
                    let this_page = number / page_rows;
                    if listing.page_starts.len() == this_page {
                        listing.page_starts.push(entry_offset);
                    }
                }
                if number >= wanted_end {
                    out.more = true;
                    break;
                }
                if number >= out.first {
                    rows.push(IndexRow {
                        key: key_text(&key_type, key),
                        key_hex: hex(key),
                        token: partitioner.token(key).to_string(),
                        position: p.position.unwrap_or(0).to_string(),
                        blocks: p.block_count,
                        entry_offset: Some(entry_offset),
                    });
                }
                number = number.saturating_add(1);
            }
            out.total = listing.total;
            out.bytes_read = driver.stats().bytes;
            if export {
                out.export_json = Some(json(&rows));
            } else {
                out.rows = rows;
            }
        }
    }
    out.millis = loader::now_millis() - started;
    out
}

fn json(rows: &[IndexRow]) -> String {
    serde_json::to_string_pretty(rows).unwrap_or_default()
}

/// The Partitions.db trie walked once (BTI): each partition's key prefix and payload.
fn trie_rows<S: RangeSource>(
    m: &SSTableMetadata,
    source: &mut S,
    file_len: u64,
    bytes_read: &mut u64,
) -> Result<Vec<(IndexRow, PartitionTarget)>, String> {
    let mut driver = SyncDriver::new(source);
    let mut walk = IndexListing::new(m, file_len, ListingOptions::index_only());
    let clock = loader::PerformanceClock;
    let mut rows = Vec::new();
    let walked = loop {
        match driver.pull(&mut walk, &clock) {
            Ok(Some(ListingItem::Partition(p))) => {
                rows.extend(trie_row(&p).zip(p.trie.map(|t| t.target)))
            }
            Ok(Some(ListingItem::Skipped { .. })) => {}
            Ok(None) => break Ok(rows),
            Err(e) => break Err(e.to_string()),
        }
    };
    *bytes_read = driver.stats().bytes;
    walked
}

/// Rows.db bytes read for one `TrieIndexEntry`: a key of at most 65,535 bytes with its length,
/// two vints, a block count and a deletion time.
const ROWS_ENTRY_BYTES: u64 = 2 + 65_535 + 64;

/// The shown page's partitions with their keys and tokens, read where each payload points: the
/// Data.db partition header (P < 0) or the Rows.db entry (P ≥ 0). Only the page's partitions are
/// read; a key that cannot be read leaves its row as the trie gives it (prefix, no token).
fn with_keys<S: RangeSource>(
    m: &SSTableMetadata,
    source: &mut S,
    rows: Vec<(IndexRow, PartitionTarget)>,
    bytes_read: &mut u64,
) -> Vec<IndexRow> {
    let key_type = m.key_type();
    let partitioner = m.partitioner();
    let clock = loader::PerformanceClock;
    let rows_len = m.size_of(&ComponentType::Rows).unwrap_or(0);
    let mut data = CheckedDataReader::for_sstable(m, DecodeOptions::default()).ok();
    let mut driver = SyncDriver::new(&mut *source);
    let mut buf = Vec::new();
    let mut rows_bytes = 0u64;
    let out = rows
        .into_iter()
        .map(|(mut row, target)| {
            let key = match target {
                PartitionTarget::Data { data_position } => data.as_mut().and_then(|r| {
                    read_partition_start_with(r, data_position, &mut driver, &clock)
                        .ok()
                        .map(|s| s.key.bytes.bytes)
                }),
                PartitionTarget::RowIndex { rows_position } => {
                    let len = rows_len.saturating_sub(rows_position).min(ROWS_ENTRY_BYTES);
                    let range = ByteRange::new(ComponentType::Rows, rows_position, len);
                    driver
                        .source_mut()
                        .read_into(&range, &mut buf)
                        .ok()
                        .and_then(|()| {
                            rows_bytes = rows_bytes.saturating_add(buf.len() as u64);
                            let trie = TrieBytes::rows(&buf, rows_position);
                            decode_entry(&trie, rows_position, &m.descriptor.version)
                                .ok()
                                .map(|e| e.key.value)
                        })
                }
            };
            if let Some(key) = key {
                row.key = key_text(&key_type, &key);
                row.key_hex = hex(&key);
                row.token = partitioner.token(&key).to_string();
            }
            row
        })
        .collect();
    *bytes_read = bytes_read
        .saturating_add(driver.stats().bytes)
        .saturating_add(rows_bytes);
    out
}

/// A partition as the trie lists it: its key prefix and where the payload points.
fn trie_row(p: &ListedPartition) -> Option<IndexRow> {
    let trie = p.trie.as_ref()?;
    Some(IndexRow {
        key: format!("prefix 0x{}", hex(&trie.key_prefix)),
        key_hex: hex(&trie.key_prefix),
        token: String::new(),
        position: trie.target.display(),
        blocks: None,
        entry_offset: None,
    })
}

/// The `IndexInfo` blocks of the Index.db entry at `offset` (big format), at most
/// [`MAX_BLOCKS`], from its promoted index (at most [`MAX_PROMOTED_BYTES`]).
pub fn blocks<S: RangeSource>(
    m: &SSTableMetadata,
    source: S,
    index_bytes: Option<u64>,
    offset: u64,
) -> Result<Vec<BlockRow>, String> {
    let file_len = index_bytes.ok_or("no Index.db was given")?;
    let mut driver = SyncDriver::new(source);
    let clock = loader::PerformanceClock;
    let options = ListingOptions {
        blocks: true,
        max_blocks: MAX_BLOCKS,
        max_promoted_bytes: MAX_PROMOTED_BYTES,
        ..ListingOptions::index_only()
    };
    let mut walk = IndexListing::new(m, file_len, options).starting_at(offset, 0);
    let p = match driver.pull(&mut walk, &clock).map_err(|e| e.to_string())? {
        Some(ListingItem::Partition(p)) => p,
        Some(ListingItem::Skipped { message, .. }) => return Err(message),
        None => return Err("Index.db ended before the entry".to_owned()),
    };
    if let Some(span) = p
        .promoted_span
        .filter(|s| s.len_bytes() > MAX_PROMOTED_BYTES)
    {
        return Err(format!(
            "the promoted index of this partition is {} bytes: list its blocks with `sstable-inspect index`",
            span.len_bytes()
        ));
    }
    match p.blocks {
        Some(Ok(ListedBlocks::Index(list))) => Ok(list
            .iter()
            .map(|b| BlockRow {
                first: block_name(&b.first_name),
                last: block_name(&b.last_name),
                offset: b.offset.value,
                width: b.width.value,
                end_open_marker: b.has_end_open_marker.as_ref().is_some_and(|m| m.value),
            })
            .collect()),
        Some(Err(e)) => Err(e.to_string()),
        Some(Ok(ListedBlocks::Rows(_))) | None => Ok(Vec::new()),
    }
}

/// Characters of one name component shown (a 2.x clustering value can be kilobytes).
const MAX_COMPONENT_CHARS: usize = 40;

/// An `IndexInfo` first/last name: 3.0+ clustering prefixes as the engine displays them; a 2.x
/// cell name split as a composite (`legacy_data::CellName`: static marker, components) and each
/// component printed as the engine prints it without a schema (text when UTF-8, else hex).
fn block_name(name: &IndexName) -> String {
    let IndexName::Legacy(l) = name else {
        return name.display();
    };
    // The name's bytes start after its u16 length.
    let parsed = CellName::parse(&l.bytes, l.span.start.saturating_add(2), None);
    let parts: Vec<String> = parsed
        .untyped_values()
        .into_iter()
        .map(|v| {
            let chars = v.chars().count();
            if chars <= MAX_COMPONENT_CHARS {
                v
            } else {
                let head: String = v.chars().take(MAX_COMPONENT_CHARS).collect();
                format!("{head}… ({chars} chars)")
            }
        })
        .collect();
    let kind = match parsed {
        CellName::Composite { .. } => "composite",
        CellName::Simple(_) => "name",
    };
    match parsed.last_end_of_component() {
        0 => format!("{kind} [{}]", parts.join(", ")),
        eoc => format!("{kind} [{}] (end of component {eoc})", parts.join(", ")),
    }
}
