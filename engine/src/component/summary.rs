//! Summary.db (big format): every `min_index_interval`-th partition key of Index.db with its
//! position there, plus the first and last key of the sstable (Cassandra's `IndexSummary`).
//!
//! | field | type | since |
//! |---|---|---|
//! | min index interval | i32 BE (default 128; "index interval" before ka) | 1.2 |
//! | entry count n | i32 BE | 1.2 |
//! | summary size S | i64 BE = 4·n + entry bytes | `ja` (2.0) |
//! | sampling level | i32 BE, 1…128 (128 = full) | `ka` (2.1) |
//! | size at full sampling | i32 BE: entries at sampling level 128 | `ka` |
//! | offsets | n × u32 **little-endian**, from the start of the offsets (the first is 4·n) | `ja` |
//! | entries | S − 4·n bytes; entry j = raw key bytes (no length) + i64 **little-endian** Index.db position; its key ends 8 bytes before the next offset (the last one before S) | `ja` |
//! | entries (before `ja`) | n × (i64 BE Index.db position, i32-length key) | 1.2 |
//! | first key, last key | i32 BE length + bytes each | 1.2 |
//! | trailing data | disk-access modes of Index.db then Data.db (writeUTF `mmap`/`standard`/`auto`), a mode possibly followed by i32 count + i64 segment boundaries; not decoded, only its span is kept | 1.2 … 2.2 |
//!
//! The little-endian parts are the writer's native byte order, which is little-endian on every
//! platform Cassandra runs on. The 1.2 layout is taken from the `ic` fixture; that `ja` (2.0.0)
//! already writes the `jb` layout is assumed (UNVERIFIED: no `ja` file to check).
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/indexsummary/IndexSummary.java` (serializer),
//! `.../indexsummary/IndexSummaryBuilder.java`, `.../format/big/IndexSummaryComponent.java`,
//! `.../io/sstable/Downsampling.java`; `cassandra-2.2` `io/sstable/format/SSTableReader.java`
//! (`saveSummary`) for the trailing data; `cassandra-2.0` `io/sstable/IndexSummary.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use crate::component::common::count::read_int_count;
use crate::component::common::offset_table::{offset_entry_span, offsets_node};
use crate::component::crc::push_warnings;
use crate::component::ComponentType;
use crate::error::{ErrorKind, Result};
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::version::{Format, Version};

/// At most this many offsets or entries become children in [`IndexSummary::to_node`].
const MAX_CHILD_NODES: usize = 100;
/// At most this many per-entry warnings are listed one by one.
const MAX_ENTRY_WARNINGS: usize = 16;
/// The full sampling level (`Downsampling.BASE_SAMPLING_LEVEL`).
pub const BASE_SAMPLING_LEVEL: u32 = 128;
/// Bytes of the Index.db position after each key.
const POSITION_BYTES: u64 = 8;

/// One sampled partition key and where its entry starts in Index.db.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SummaryEntry {
    /// Raw partition key bytes.
    pub key: Spanned<Vec<u8>>,
    /// Offset of the key's entry in Index.db.
    pub index_position: Spanned<u64>,
}

impl SummaryEntry {
    /// The bytes of the whole entry (key and position, in either order).
    pub fn span(&self) -> Span {
        Span::new(
            self.key.span.start.min(self.index_position.span.start),
            self.key.span.end.max(self.index_position.span.end),
        )
    }
}

/// A decoded Summary.db.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexSummary {
    pub min_index_interval: Spanned<u32>,
    pub entry_count: Spanned<u32>,
    /// S = offsets + entries bytes (`ja`+; `None` in the 1.2 layout).
    pub summary_size_bytes: Option<Spanned<u64>>,
    /// `ka`+ (`None` before: full sampling).
    pub sampling_level: Option<Spanned<u32>>,
    /// `ka`+.
    pub size_at_full_sampling: Option<Spanned<u32>>,
    /// The offsets as stored (from the start of the offsets table); empty in the 1.2 layout.
    pub offsets: Vec<u32>,
    /// The offsets table (`ja`+); offset `i` is at [`IndexSummary::offset_span`]`(i)`.
    pub offsets_span: Option<Span>,
    /// The decoded entries; fewer than `entry_count` when an offset was unusable (see `warnings`).
    pub entries: Vec<SummaryEntry>,
    /// The bytes of all entries.
    pub entries_span: Span,
    pub first_key: Spanned<Vec<u8>>,
    pub last_key: Spanned<Vec<u8>>,
    /// Bytes after the last key: 1.2–2.2 disk-access modes and segment boundaries, unparsed.
    pub trailing: Option<Span>,
    /// Suspicious values (decoding went on).
    pub warnings: Vec<String>,
    /// The whole file.
    pub span: Span,
}

/// `ja` (2.0) moved the summary off heap: size field, little-endian offsets table.
fn has_offheap_summary(version: &Version) -> bool {
    version.format() == Format::Bti || version.is_dse() || version.as_str() >= "ja"
}

/// `ka` (2.1) persists the sampling level and size at full sampling (`hasSamplingLevel`).
fn has_sampling_level(version: &Version) -> bool {
    version.has_repaired_at()
}

/// 3.0 stopped appending the disk-access modes after the keys.
fn has_trailing_modes(version: &Version) -> bool {
    !version.has_row_format()
}

/// Decodes a whole Summary.db.
pub fn decode(bytes: &[u8], version: &Version) -> Result<IndexSummary> {
    let mut r = Reader::new(bytes, 0).for_component(ComponentType::Summary);
    let mut warnings = Vec::new();

    let min_index_interval = spanned_u32(&mut r, "min index interval")?;
    if min_index_interval.value == 0 || min_index_interval.value > 0x7fff_ffff {
        warnings.push(format!(
            "min index interval {} is not a positive int",
            min_index_interval.value as i32
        ));
    }
    let entry_count = read_int_count(&mut r, "summary entry count", "entry count")?;

    let mut summary = IndexSummary {
        min_index_interval,
        entry_count,
        summary_size_bytes: None,
        sampling_level: None,
        size_at_full_sampling: None,
        offsets: Vec::new(),
        offsets_span: None,
        entries: Vec::new(),
        entries_span: Span::new(0, 0),
        first_key: Spanned {
            value: Vec::new(),
            span: Span::new(0, 0),
        },
        last_key: Spanned {
            value: Vec::new(),
            span: Span::new(0, 0),
        },
        trailing: None,
        warnings: Vec::new(),
        span: Span::new(0, bytes.len() as u64),
    };

    if has_offheap_summary(version) {
        decode_offheap(&mut r, version, &mut summary, &mut warnings)?;
    } else {
        decode_legacy_entries(&mut r, &mut summary)?;
    }
    check_positions(&summary.entries, &mut warnings);

    summary.first_key = spanned_int_length_bytes(&mut r, "first key")?;
    summary.last_key = spanned_int_length_bytes(&mut r, "last key")?;
    if !r.is_empty() {
        let t = Span::new(
            r.offset(),
            r.offset().saturating_add(r.remaining_bytes() as u64),
        );
        if !has_trailing_modes(version) {
            warnings.push(format!(
                "{} unexpected bytes after the last key",
                t.len_bytes()
            ));
        }
        summary.trailing = Some(t);
    }
    summary.warnings = warnings;
    Ok(summary)
}

/// The `ja`+ layout: size, [sampling], LE offsets, entries.
fn decode_offheap(
    r: &mut Reader<'_>,
    version: &Version,
    summary: &mut IndexSummary,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let size = r.spanned(|r| r.u64("summary size"))?;
    let size_start = size.span.start;
    summary.summary_size_bytes = Some(size.clone());
    let size = size.value;
    if has_sampling_level(version) {
        let level = spanned_u32(r, "sampling level")?;
        if level.value == 0 || level.value > BASE_SAMPLING_LEVEL {
            warnings.push(format!(
                "sampling level {} is outside 1..={BASE_SAMPLING_LEVEL}",
                level.value as i32
            ));
        }
        summary.sampling_level = Some(level);
        let full = spanned_u32(r, "size at full sampling")?;
        if full.value < summary.entry_count.value {
            warnings.push(format!(
                "{} entries, more than the {} at full sampling",
                summary.entry_count.value, full.value
            ));
        }
        summary.size_at_full_sampling = Some(full);
    }

    let n = r.check_count(
        u64::from(summary.entry_count.value),
        4 + POSITION_BYTES,
        "summary offsets",
    )?;
    // n × (4 + POSITION_BYTES) fit in the remaining bytes (check_count), so this cannot overflow.
    let overflow = |r: &Reader<'_>| r.error_at(ErrorKind::Overflow, size_start, "summary size");
    let table_bytes = (n as u64).checked_mul(4).ok_or_else(|| overflow(r))?;
    if size < table_bytes {
        return Err(r.invalid_at(
            format!("summary size {size} is smaller than the {table_bytes}-byte offsets table"),
            size_start,
            "summary size",
        ));
    }
    let block_start = r.offset();
    let mut block = r.sub_reader(size, "summary offsets and entries")?;
    let mut offsets = Vec::with_capacity(n);
    for _ in 0..n {
        offsets.push(block.u32_le("summary offset")?);
    }
    // The block of `size` bytes was taken from the reader, so both ends are real file offsets.
    let entries_start = block_start.saturating_add(table_bytes);
    summary.offsets_span = Some(Span::new(block_start, entries_start));
    summary.entries_span = Span::new(entries_start, block_start.saturating_add(size));
    if let Some(&first) = offsets.first() {
        if u64::from(first) != table_bytes {
            warnings.push(format!(
                "the first entry's offset is {first}, not {table_bytes} (4 × entry count)"
            ));
        }
    }

    let block_bytes = block.rest();
    let mut entries = Vec::with_capacity(n);
    for (i, &off) in offsets.iter().enumerate() {
        let start = u64::from(off);
        let end = i
            .checked_add(1)
            .and_then(|next| offsets.get(next))
            .map_or(size, |&next| u64::from(next));
        let usable = start >= table_bytes
            && end <= size
            && start.checked_add(POSITION_BYTES).is_some_and(|s| s <= end);
        let slice = if usable {
            start
                .checked_sub(table_bytes)
                .and_then(|s| usize::try_from(s).ok())
                .zip(
                    end.checked_sub(table_bytes)
                        .and_then(|e| usize::try_from(e).ok()),
                )
                .and_then(|(s, e)| block_bytes.get(s..e))
        } else {
            None
        };
        let Some(slice) = slice else {
            warnings.push(format!(
                "summary entry {i} has unusable bounds {start}..{end} (offsets table {table_bytes} bytes, \
                 summary size {size}); it and the {} entries after it are skipped",
                n.saturating_sub(i).saturating_sub(1)
            ));
            break;
        };
        let mut er = Reader::new(slice, block_start.saturating_add(start))
            .for_component(ComponentType::Summary);
        // `usable` checked start + POSITION_BYTES <= end, so the slice holds the position.
        let key_len = slice.len().saturating_sub(POSITION_BYTES as usize);
        let key = er.spanned(|r| r.bytes(key_len, "summary entry key").map(<[u8]>::to_vec))?;
        let index_position = er.spanned(|r| {
            r.i64_le("summary entry Index.db position")
                .map(|p| p as u64)
        })?;
        entries.push(SummaryEntry {
            key,
            index_position,
        });
    }
    summary.offsets = offsets;
    summary.entries = entries;
    Ok(())
}

/// The 1.2 layout: n × (i64 BE position, i32-length key).
fn decode_legacy_entries(r: &mut Reader<'_>, summary: &mut IndexSummary) -> Result<()> {
    let n = r.check_count(
        u64::from(summary.entry_count.value),
        4 + POSITION_BYTES,
        "summary entries",
    )?;
    let start = r.offset();
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        let index_position = r.spanned(|r| r.u64("summary entry Index.db position"))?;
        let key = spanned_int_length_bytes(r, "summary entry key")?;
        entries.push(SummaryEntry {
            key,
            index_position,
        });
    }
    summary.entries = entries;
    summary.entries_span = r.span_from(start);
    Ok(())
}

/// Index.db positions only grow, and fit a signed long.
fn check_positions(entries: &[SummaryEntry], warnings: &mut Vec<String>) {
    let mut bad = 0usize;
    let mut prev: Option<u64> = None;
    for (i, e) in entries.iter().enumerate() {
        let p = e.index_position.value;
        let msg = if p > i64::MAX as u64 {
            Some(format!(
                "entry {i}: Index.db position {} is negative",
                p as i64
            ))
        } else if prev.is_some_and(|q| p < q) {
            Some(format!(
                "entry {i}: Index.db position {p} is below the previous entry's"
            ))
        } else {
            None
        };
        if let Some(msg) = msg {
            bad = bad.saturating_add(1);
            if bad <= MAX_ENTRY_WARNINGS {
                warnings.push(msg);
            }
        }
        prev = Some(p);
    }
    if bad > MAX_ENTRY_WARNINGS {
        warnings.push(format!(
            "… and {} more bad Index.db positions",
            bad.saturating_sub(MAX_ENTRY_WARNINGS)
        ));
    }
}

fn spanned_u32(r: &mut Reader<'_>, what: &'static str) -> Result<Spanned<u32>> {
    r.spanned(|r| r.u32(what))
}

fn spanned_int_length_bytes(r: &mut Reader<'_>, what: &'static str) -> Result<Spanned<Vec<u8>>> {
    r.spanned(|r| r.int_length_bytes(what).map(<[u8]>::to_vec))
}

/// A key for display: quoted text when it is printable ASCII, else hex (long keys cut).
pub(crate) fn display_key(key: &[u8]) -> String {
    const MAX_SHOWN_BYTES: usize = 64;
    let printable = !key.is_empty() && key.iter().all(|b| (0x20..0x7f).contains(b));
    if printable && key.len() <= MAX_SHOWN_BYTES {
        return format!("{:?}", String::from_utf8_lossy(key));
    }
    // At most 2 + 2 × MAX_SHOWN_BYTES + 16 bytes: a constant bound.
    let mut s = String::with_capacity(
        key.len()
            .min(MAX_SHOWN_BYTES)
            .saturating_mul(2)
            .saturating_add(18),
    );
    s.push_str("0x");
    for b in key.iter().take(MAX_SHOWN_BYTES) {
        s.push_str(&format!("{b:02x}"));
    }
    if key.len() > MAX_SHOWN_BYTES {
        s.push_str(&format!("… ({} bytes)", key.len()));
    }
    s
}

impl IndexSummary {
    /// The bytes of offset `i` in the offsets table (`ja`+).
    pub fn offset_span(&self, i: usize) -> Option<Span> {
        offset_entry_span(self.offsets_span?, self.offsets.len(), i)
    }

    /// On average, partitions per summary entry: `128 / sampling level × min index interval`.
    pub fn effective_index_interval(&self) -> Option<f64> {
        let level = self
            .sampling_level
            .as_ref()
            .map_or(BASE_SAMPLING_LEVEL, |l| l.value);
        (level > 0).then(|| {
            f64::from(BASE_SAMPLING_LEVEL) / f64::from(level)
                * f64::from(self.min_index_interval.value)
        })
    }

    /// The labelled field tree for the UI.
    pub fn to_node(&self) -> Node {
        let mut children = vec![
            Node::new(
                "min index interval",
                self.min_index_interval.value.to_string(),
                Some(self.min_index_interval.span),
            ),
            Node::new(
                "entry count",
                self.entry_count.value.to_string(),
                Some(self.entry_count.span),
            ),
        ];
        if let Some(s) = &self.summary_size_bytes {
            children.push(Node::new(
                "summary size",
                format!("{} bytes (offsets + entries)", s.value),
                Some(s.span),
            ));
        }
        if let Some(l) = &self.sampling_level {
            children.push(Node::new(
                "sampling level",
                format!("{} of {BASE_SAMPLING_LEVEL}", l.value),
                Some(l.span),
            ));
        }
        if let Some(f) = &self.size_at_full_sampling {
            children.push(Node::new(
                "size at full sampling",
                format!("{} entries", f.value),
                Some(f.span),
            ));
        }
        if let Some(table) = self.offsets_span {
            children.push(offsets_node(
                &self.offsets,
                table,
                "u32 (little-endian)",
                MAX_CHILD_NODES,
            ));
        }
        let nodes = Node::capped_list(
            &self.entries,
            MAX_CHILD_NODES,
            "entries",
            || {
                self.entries
                    .get(MAX_CHILD_NODES)
                    .map(|e| Span::new(e.span().start, self.entries_span.end))
            },
            |(i, e)| {
                Node::new(
                    format!("entry {i}"),
                    format!(
                        "{} → Index.db {}",
                        display_key(&e.key.value),
                        e.index_position.value
                    ),
                    Some(e.span()),
                )
                .with_children(vec![
                    Node::new("key", display_key(&e.key.value), Some(e.key.span)),
                    Node::new(
                        "Index.db position",
                        e.index_position.value.to_string(),
                        Some(e.index_position.span),
                    ),
                ])
            },
        );
        children.push(
            Node::new(
                "entries",
                self.entries.len().to_string(),
                Some(self.entries_span),
            )
            .with_children(nodes),
        );
        children.push(Node::new(
            "first key",
            display_key(&self.first_key.value),
            Some(self.first_key.span),
        ));
        children.push(Node::new(
            "last key",
            display_key(&self.last_key.value),
            Some(self.last_key.span),
        ));
        if let Some(t) = self.trailing {
            children.push(Node::new(
                "trailing data",
                format!("{} bytes (disk access modes, not decoded)", t.len_bytes()),
                Some(t),
            ));
        }
        push_warnings(&mut children, &self.warnings);
        Node::new(
            "Summary.db",
            format!(
                "{} entries, keys {} … {}",
                self.entry_count.value,
                display_key(&self.first_key.value),
                display_key(&self.last_key.value)
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::test_support::{big, Out};

    /// A `ka`+ Summary.db as Cassandra writes it.
    fn file(keys: &[(&[u8], u64)], sampling: bool, trailing: &[u8]) -> Vec<u8> {
        let n = keys.len() as u32;
        let mut offsets = Vec::new();
        let mut entries = Vec::new();
        for (k, p) in keys {
            offsets.extend_from_slice(&(4 * n + entries.len() as u32).to_le_bytes());
            entries.extend_from_slice(k);
            entries.extend_from_slice(&p.to_le_bytes());
        }
        let mut out = Vec::new();
        out.extend_from_slice(&128u32.to_be_bytes());
        out.extend_from_slice(&n.to_be_bytes());
        out.extend_from_slice(&((offsets.len() + entries.len()) as u64).to_be_bytes());
        if sampling {
            out.extend_from_slice(&128u32.to_be_bytes());
            out.extend_from_slice(&n.to_be_bytes());
        }
        out.extend_from_slice(&offsets);
        out.extend_from_slice(&entries);
        out.int_length_bytes(keys.first().map_or(&[][..], |k| k.0), "key")
            .unwrap();
        out.int_length_bytes(keys.last().map_or(&[][..], |k| k.0), "key")
            .unwrap();
        out.extend_from_slice(trailing);
        out
    }

    #[test]
    fn decodes_entries_with_spans() {
        let bytes = file(&[(b"abc", 0), (b"k", 4242), (b"", 9000)], true, &[]);
        let s = decode(&bytes, &big("nb")).unwrap();
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert_eq!(s.min_index_interval.value, 128);
        assert_eq!(s.entry_count.value, 3);
        assert_eq!(
            s.summary_size_bytes.as_ref().unwrap().value,
            12 + 11 + 9 + 8
        );
        assert_eq!(s.sampling_level.as_ref().unwrap().value, 128);
        assert_eq!(s.size_at_full_sampling.as_ref().unwrap().value, 3);
        assert_eq!(s.offsets, [12, 23, 32]);
        assert_eq!(s.offsets_span, Some(Span::new(24, 36)));
        assert_eq!(s.offset_span(1), Some(Span::new(28, 32)));
        assert_eq!(s.entries.len(), 3);
        assert_eq!(s.entries[0].key.value, b"abc");
        assert_eq!(s.entries[0].key.span, Span::new(36, 39));
        assert_eq!(s.entries[0].index_position.span, Span::new(39, 47));
        assert_eq!(s.entries[1].index_position.value, 4242);
        assert_eq!(s.entries[2].key.value, b"");
        assert_eq!(s.entries[2].index_position.value, 9000);
        assert_eq!(s.entries_span, Span::new(36, 64));
        assert_eq!(s.first_key.value, b"abc");
        assert_eq!(s.last_key.value, b"");
        assert_eq!(s.trailing, None);
        assert_eq!(s.effective_index_interval(), Some(128.0));
        let node = s.to_node();
        assert_eq!(node.find_at(40).unwrap().label, "Index.db position");
        assert_eq!(node.find_at(37).unwrap().value, "\"abc\"");
    }

    #[test]
    fn version_gates_and_trailing_data() {
        let jb = file(&[(b"a", 0)], false, b"\x00\x04auto\x00\x04auto");
        let s = decode(&jb, &big("jb")).unwrap();
        assert_eq!(s.sampling_level, None);
        assert_eq!(s.trailing.unwrap().len_bytes(), 12);
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        let ma = file(&[(b"a", 0)], true, b"xx");
        let s = decode(&ma, &big("ma")).unwrap();
        assert_eq!(s.trailing.unwrap().len_bytes(), 2);
        assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    }

    #[test]
    fn legacy_1_2_layout() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&128u32.to_be_bytes());
        bytes.extend_from_slice(&2u32.to_be_bytes());
        for (p, k) in [(0u64, &b"key0"[..]), (77, b"key5")] {
            bytes.extend_from_slice(&p.to_be_bytes());
            bytes.int_length_bytes(k, "key").unwrap();
        }
        bytes.int_length_bytes(b"key0", "key").unwrap();
        bytes.int_length_bytes(b"key9", "key").unwrap();
        let s = decode(&bytes, &big("ic")).unwrap();
        assert_eq!(s.summary_size_bytes, None);
        assert_eq!(s.offsets_span, None);
        assert_eq!(s.entries.len(), 2);
        assert_eq!(s.entries[1].index_position.value, 77);
        assert_eq!(s.entries[1].key.value, b"key5");
        assert_eq!(s.entries[1].index_position.span, Span::new(24, 32));
        assert_eq!(s.last_key.value, b"key9");
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert!(s.to_node().find_at(30).is_some());
    }

    #[test]
    fn bad_offsets_are_findings_bad_sizes_errors() {
        let mut bytes = file(&[(b"abc", 0), (b"k", 5)], true, &[]);
        // Second offset (at 28) points past the summary.
        bytes[28..32].copy_from_slice(&1000u32.to_le_bytes());
        let s = decode(&bytes, &big("nb")).unwrap();
        assert_eq!(s.entries.len(), 0);
        assert!(s.warnings[0].contains("entry 0"), "{:?}", s.warnings);
        assert_eq!(s.last_key.value, b"k");

        let mut bytes = file(&[(b"abc", 7), (b"k", 5)], true, &[]);
        assert!(decode(&bytes, &big("nb")).unwrap().warnings[0].contains("below"));
        // Summary size smaller than the offsets table.
        bytes[8..16].copy_from_slice(&4u64.to_be_bytes());
        let e = decode(&bytes, &big("nb")).unwrap_err();
        assert_eq!(e.offset(), 8);
        assert_eq!(e.component(), Some(&ComponentType::Summary));
        // Negative entry count.
        bytes[4..8].copy_from_slice(&(-2i32).to_be_bytes());
        assert_eq!(decode(&bytes, &big("nb")).unwrap_err().offset(), 4);
    }

    #[test]
    fn long_entry_lists_are_summarised() {
        let keys: Vec<Vec<u8>> = (0..150u32).map(|i| i.to_be_bytes().to_vec()).collect();
        let pairs: Vec<(&[u8], u64)> = keys.iter().map(|k| (&k[..], 0)).collect();
        let s = decode(&file(&pairs, true, &[]), &big("nb")).unwrap();
        assert_eq!(s.entries.len(), 150);
        let node = s.to_node();
        let entries = node.children.iter().find(|n| n.label == "entries").unwrap();
        assert_eq!(entries.children.len(), MAX_CHILD_NODES + 1);
        assert_eq!(entries.children[1].children[0].value, "0x00000001");
    }
}
