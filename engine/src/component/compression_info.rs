//! CompressionInfo.db: the compressor, its options, and where each chunk of a compressed
//! Data.db starts (Cassandra's `CompressionMetadata`).
//!
//! | field | type | since |
//! |---|---|---|
//! | compressor class | writeUTF: simple name (`LZ4Compressor`) or fully qualified | 1.0 |
//! | option count | i32 | 1.0 |
//! | options | count × (writeUTF key, writeUTF value) | 1.0 |
//! | chunk length | i32: uncompressed bytes per chunk, a power of two | 1.0 |
//! | max compressed length | i32: stored chunks this long or longer are raw, not compressed | `na`, `da` |
//! | data length | i64: uncompressed length of Data.db | 1.0 |
//! | chunk count | i32, > 0 | 1.0 |
//! | chunk offsets | count × i64: where each chunk starts in Data.db | 1.0 |
//!
//! Chunk `i` occupies Data.db `[offset_i, offset_{i+1})` (the last one runs to the end of the
//! file); its last 4 bytes are a big-endian checksum of the stored bytes
//! ([`ChecksumType::for_compressed_chunks`](crate::component::crc::ChecksumType::for_compressed_chunks)).
//! Uncompressed position `p` lives in chunk `p / chunk_length`.
//!
//! Src: `src/java/org/apache/cassandra/io/compress/CompressionMetadata.java`,
//! `src/java/org/apache/cassandra/schema/CompressionParams.java` (class-name resolution),
//! `src/java/org/apache/cassandra/io/compress/CompressedSequentialWriter.java`.

use serde::Serialize;

use crate::component::crc::push_warnings;
use crate::component::ComponentType;
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::version::Version;

/// At most this many chunk offsets become children in [`CompressionInfo::to_node`].
const MAX_CHILD_NODES: usize = 100;
/// At most this many offset warnings are listed one by one.
const MAX_OFFSET_WARNINGS: usize = 16;
/// Bytes of the checksum after each stored chunk.
const CHUNK_CHECKSUM_BYTES: u64 = 4;

/// One compressor option (`compression_level`, `crc_check_chance`, …).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompressionOption {
    pub key: Spanned<String>,
    pub value: Spanned<String>,
}

/// A decoded CompressionInfo.db.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompressionInfo {
    /// The compressor class name as stored.
    pub compressor_class: Spanned<String>,
    /// The simple class name, e.g. `LZ4Compressor`, whether stored short or fully qualified.
    pub compressor: String,
    pub option_count: Spanned<u32>,
    pub options: Vec<CompressionOption>,
    /// Uncompressed bytes per chunk.
    pub chunk_length_bytes: Spanned<u32>,
    /// `na`+ and `da` only: a stored chunk at least this long is raw (not compressed).
    pub max_compressed_length_bytes: Option<Spanned<u32>>,
    /// Uncompressed length of Data.db.
    pub data_length_bytes: Spanned<u64>,
    pub chunk_count: Spanned<u32>,
    /// Data.db offset of each chunk; offset `i` is stored at [`CompressionInfo::chunk_offset_span`]`(i)`.
    pub chunk_offsets: Vec<u64>,
    /// The bytes of the offset array.
    pub chunk_offsets_span: Span,
    /// Bytes after the offsets (none in any known version).
    pub trailing: Option<Span>,
    /// Suspicious values (decoding went on).
    pub warnings: Vec<String>,
    /// The whole file.
    pub span: Span,
}

/// Decodes a whole CompressionInfo.db.
pub fn decode(bytes: &[u8], version: &Version) -> Result<CompressionInfo> {
    let mut r = Reader::new(bytes, 0).for_component(ComponentType::CompressionInfo);
    let mut warnings = Vec::new();

    let start = r.offset();
    let class = r.utf("compressor class name")?;
    let compressor_class = Spanned {
        value: class,
        span: r.span_from(start),
    };
    let compressor = simple_class_name(&compressor_class.value).to_owned();
    if compressor.is_empty() {
        warnings.push("empty compressor class name".to_owned());
    }

    let count_start = r.offset();
    let raw_count = r.i32("compression option count")?;
    let option_count = u32::try_from(raw_count).map_err(|_| {
        r.invalid_at(
            format!("negative option count {raw_count}"),
            count_start,
            "compression option count",
        )
    })?;
    // Each option is at least two empty writeUTF strings (2 bytes each).
    let n = r.check_count(u64::from(option_count), 4, "compression options")?;
    let option_count = Spanned {
        value: option_count,
        span: r.span_from(count_start),
    };
    let mut options = Vec::with_capacity(n);
    for _ in 0..n {
        let key = spanned_utf(&mut r, "compression option key")?;
        let value = spanned_utf(&mut r, "compression option value")?;
        options.push(CompressionOption { key, value });
    }

    let chunk_length_bytes = spanned_u32(&mut r, "chunk length")?;
    let chunk_len = chunk_length_bytes.value;
    if chunk_len == 0 || chunk_len > 0x7fff_ffff {
        warnings.push(format!(
            "chunk length {} is not a positive int",
            chunk_len as i32
        ));
    } else if !chunk_len.is_power_of_two() {
        warnings.push(format!("chunk length {chunk_len} is not a power of two"));
    }

    let max_compressed_length_bytes = if version.has_max_compressed_length() {
        let m = spanned_u32(&mut r, "max compressed length")?;
        if m.value == 0 || m.value > 0x7fff_ffff {
            warnings.push(format!(
                "max compressed length {} is not a positive int",
                m.value as i32
            ));
        }
        Some(m)
    } else {
        None
    };

    let start = r.offset();
    let data_len = r.u64("uncompressed data length")?;
    let data_length_bytes = Spanned {
        value: data_len,
        span: r.span_from(start),
    };
    if data_len > i64::MAX as u64 {
        warnings.push(format!(
            "data length {} is negative as a signed long",
            data_len as i64
        ));
    }

    let count_start = r.offset();
    let raw_count = r.i32("chunk count")?;
    let count = u32::try_from(raw_count).map_err(|_| {
        r.invalid_at(
            format!("negative chunk count {raw_count}"),
            count_start,
            "chunk count",
        )
    })?;
    let n = r.check_count(u64::from(count), 8, "chunk offsets")?;
    let chunk_count = Spanned {
        value: count,
        span: r.span_from(count_start),
    };
    if count == 0 {
        warnings.push("0 chunks (Cassandra refuses such a file)".to_owned());
    }
    if chunk_len > 0 {
        let expected = data_len.div_ceil(u64::from(chunk_len));
        if expected != u64::from(count) {
            warnings.push(format!(
                "{count} chunks stored, but {data_len} bytes in {chunk_len}-byte chunks need {expected}"
            ));
        }
    }

    let offsets_start = r.offset();
    let mut chunk_offsets = Vec::with_capacity(n);
    for _ in 0..n {
        chunk_offsets.push(r.u64("chunk offset")?);
    }
    let chunk_offsets_span = r.span_from(offsets_start);
    check_offsets(&chunk_offsets, &mut warnings);

    let trailing = if r.is_empty() {
        None
    } else {
        let t = Span::new(r.offset(), r.offset() + r.remaining_bytes() as u64);
        warnings.push(format!(
            "{} unexpected bytes after the chunk offsets",
            t.len_bytes()
        ));
        Some(t)
    };

    Ok(CompressionInfo {
        compressor_class,
        compressor,
        option_count,
        options,
        chunk_length_bytes,
        max_compressed_length_bytes,
        data_length_bytes,
        chunk_count,
        chunk_offsets,
        chunk_offsets_span,
        trailing,
        warnings,
        span: Span::new(0, bytes.len() as u64),
    })
}

/// `org.apache.cassandra.io.compress.LZ4Compressor` → `LZ4Compressor`; a short name is kept.
fn simple_class_name(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

fn spanned_utf(r: &mut Reader<'_>, what: &'static str) -> Result<Spanned<String>> {
    let start = r.offset();
    let value = r.utf(what)?;
    Ok(Spanned {
        value,
        span: r.span_from(start),
    })
}

fn spanned_u32(r: &mut Reader<'_>, what: &'static str) -> Result<Spanned<u32>> {
    let start = r.offset();
    let value = r.u32(what)?;
    Ok(Spanned {
        value,
        span: r.span_from(start),
    })
}

/// Offsets start at 0 and grow by at least the 4-byte checksum per chunk.
fn check_offsets(offsets: &[u64], warnings: &mut Vec<String>) {
    if let Some(&first) = offsets.first() {
        if first != 0 {
            warnings.push(format!("the first chunk starts at {first}, not 0"));
        }
    }
    let mut bad = 0usize;
    for (i, pair) in offsets.windows(2).enumerate() {
        let (prev, next) = match pair {
            [a, b] => (*a, *b),
            _ => continue,
        };
        let msg = if next < prev {
            format!(
                "chunk offset {} ({next}) is below chunk {i}'s ({prev})",
                i + 1
            )
        } else if next - prev < CHUNK_CHECKSUM_BYTES {
            format!(
                "chunk {i} is {} bytes, shorter than its 4-byte checksum",
                next - prev
            )
        } else {
            continue;
        };
        bad += 1;
        if bad <= MAX_OFFSET_WARNINGS {
            warnings.push(msg);
        }
    }
    if bad > MAX_OFFSET_WARNINGS {
        warnings.push(format!(
            "… and {} more bad chunk offsets",
            bad - MAX_OFFSET_WARNINGS
        ));
    }
}

impl CompressionInfo {
    /// Where chunk `i` starts in Data.db.
    pub fn chunk_offset(&self, i: usize) -> Option<u64> {
        self.chunk_offsets.get(i).copied()
    }

    /// The CompressionInfo.db bytes that store chunk `i`'s offset.
    pub fn chunk_offset_span(&self, i: usize) -> Option<Span> {
        if i >= self.chunk_offsets.len() {
            return None;
        }
        let start = self.chunk_offsets_span.start + 8 * i as u64;
        Some(Span::new(start, start + 8))
    }

    /// Data.db bytes `[start, end)` of chunk `i`, its trailing 4-byte checksum included; `None`
    /// when `i` is out of range or the offsets do not describe a chunk of at least 4 bytes inside
    /// a `data_file_len`-byte Data.db.
    pub fn chunk_span(&self, i: usize, data_file_len: u64) -> Option<(u64, u64)> {
        let start = self.chunk_offset(i)?;
        let end = match i.checked_add(1) {
            Some(next) if next < self.chunk_offsets.len() => self.chunk_offset(next)?,
            _ => data_file_len,
        };
        let valid = start.checked_add(CHUNK_CHECKSUM_BYTES)? <= end && end <= data_file_len;
        valid.then_some((start, end))
    }

    /// The chunk holding uncompressed position `uncompressed_pos`, if it is inside the data.
    pub fn chunk_for_position(&self, uncompressed_pos: u64) -> Option<usize> {
        let chunk_len = u64::from(self.chunk_length_bytes.value);
        if chunk_len == 0 || uncompressed_pos >= self.data_length_bytes.value {
            return None;
        }
        let i = usize::try_from(uncompressed_pos / chunk_len).ok()?;
        (i < self.chunk_offsets.len()).then_some(i)
    }

    /// Uncompressed bytes in chunk `i`: the chunk length, less for the last chunk, 0 for a
    /// surplus chunk past the data length (one real 3.0 fixture ends with such an empty chunk).
    pub fn chunk_uncompressed_len(&self, i: usize) -> Option<u64> {
        let chunk_len = u64::from(self.chunk_length_bytes.value);
        if i >= self.chunk_offsets.len() {
            return None;
        }
        let start = (i as u64).checked_mul(chunk_len)?;
        Some(
            self.data_length_bytes
                .value
                .saturating_sub(start)
                .min(chunk_len),
        )
    }

    /// Whether chunk `i` is stored raw rather than compressed: from `na` on, a stored chunk (without
    /// its checksum) at least max-compressed-length long; always `false` before.
    pub fn is_chunk_stored_raw(&self, i: usize, data_file_len: u64) -> Option<bool> {
        let (start, end) = self.chunk_span(i, data_file_len)?;
        let stored = end - start - CHUNK_CHECKSUM_BYTES;
        Some(
            self.max_compressed_length_bytes
                .as_ref()
                .is_some_and(|m| stored >= u64::from(m.value)),
        )
    }

    /// Cassandra's compression ratio: Data.db bytes on disk (`data_file_len`, checksums included)
    /// over uncompressed bytes, so smaller is better. `None` for empty data.
    pub fn compression_ratio(&self, data_file_len: u64) -> Option<f64> {
        let data_len = self.data_length_bytes.value;
        (data_len > 0).then(|| data_file_len as f64 / data_len as f64)
    }

    /// The labelled field tree for the UI.
    pub fn to_node(&self) -> Node {
        let mut children = vec![Node::new(
            "compressor",
            if self.compressor == self.compressor_class.value {
                self.compressor.clone()
            } else {
                format!("{} ({})", self.compressor_class.value, self.compressor)
            },
            Some(self.compressor_class.span),
        )];
        let option_nodes = self
            .options
            .iter()
            .map(|o| {
                Node::new(
                    o.key.value.clone(),
                    o.value.value.clone(),
                    Some(Span::new(o.key.span.start, o.value.span.end)),
                )
                .with_children(vec![
                    Node::new("key", o.key.value.clone(), Some(o.key.span)),
                    Node::new("value", o.value.value.clone(), Some(o.value.span)),
                ])
            })
            .collect();
        let options_end = self
            .options
            .last()
            .map_or(self.option_count.span.end, |o| o.value.span.end);
        children.push(
            Node::new(
                "options",
                self.option_count.value.to_string(),
                Some(Span::new(self.option_count.span.start, options_end)),
            )
            .with_children(option_nodes),
        );
        children.push(Node::new(
            "chunk length",
            format!("{} bytes", self.chunk_length_bytes.value),
            Some(self.chunk_length_bytes.span),
        ));
        if let Some(m) = &self.max_compressed_length_bytes {
            let value = if m.value == 0x7fff_ffff {
                format!("{} bytes (no limit)", m.value)
            } else {
                format!("{} bytes", m.value)
            };
            children.push(Node::new("max compressed length", value, Some(m.span)));
        }
        children.push(Node::new(
            "data length",
            format!("{} bytes (uncompressed)", self.data_length_bytes.value),
            Some(self.data_length_bytes.span),
        ));
        children.push(Node::new(
            "chunk count",
            self.chunk_count.value.to_string(),
            Some(self.chunk_count.span),
        ));
        let mut offsets: Vec<Node> = self
            .chunk_offsets
            .iter()
            .enumerate()
            .take(MAX_CHILD_NODES)
            .map(|(i, o)| {
                Node::new(
                    format!("chunk {i}"),
                    o.to_string(),
                    self.chunk_offset_span(i),
                )
            })
            .collect();
        if self.chunk_offsets.len() > MAX_CHILD_NODES {
            let hidden = self
                .chunk_offset_span(MAX_CHILD_NODES)
                .map(|s| Span::new(s.start, self.chunk_offsets_span.end));
            offsets.push(Node::new(
                "…",
                format!(
                    "{} more offsets",
                    self.chunk_offsets.len() - MAX_CHILD_NODES
                ),
                hidden,
            ));
        }
        children.push(
            Node::new(
                "chunk offsets",
                format!("{} × i64", self.chunk_offsets.len()),
                Some(self.chunk_offsets_span),
            )
            .with_children(offsets),
        );
        if let Some(t) = self.trailing {
            children.push(Node::new(
                "trailing bytes",
                format!("{} bytes", t.len_bytes()),
                Some(t),
            ));
        }
        push_warnings(&mut children, &self.warnings);
        Node::new(
            "CompressionInfo.db",
            format!(
                "{}, {} chunks of {} bytes",
                self.compressor, self.chunk_count.value, self.chunk_length_bytes.value
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::Format;

    fn big(s: &str) -> Version {
        Version::parse(Format::Big, s).unwrap()
    }

    fn utf(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as u16).to_be_bytes());
        out.extend_from_slice(s.as_bytes());
    }

    /// A CompressionInfo.db as Cassandra writes it.
    fn file(
        class: &str,
        options: &[(&str, &str)],
        chunk_len: u32,
        max: Option<u32>,
        data_len: u64,
        offsets: &[u64],
    ) -> Vec<u8> {
        let mut out = Vec::new();
        utf(&mut out, class);
        out.extend_from_slice(&(options.len() as u32).to_be_bytes());
        for (k, v) in options {
            utf(&mut out, k);
            utf(&mut out, v);
        }
        out.extend_from_slice(&chunk_len.to_be_bytes());
        if let Some(m) = max {
            out.extend_from_slice(&m.to_be_bytes());
        }
        out.extend_from_slice(&data_len.to_be_bytes());
        out.extend_from_slice(&(offsets.len() as u32).to_be_bytes());
        for o in offsets {
            out.extend_from_slice(&o.to_be_bytes());
        }
        out
    }

    #[test]
    fn decodes_a_4_0_file_with_options() {
        let bytes = file(
            "org.apache.cassandra.io.compress.ZstdCompressor",
            &[("compression_level", "3")],
            16384,
            Some(0x7fff_ffff),
            40000,
            &[0, 100, 250],
        );
        let ci = decode(&bytes, &big("nb")).unwrap();
        assert_eq!(ci.compressor, "ZstdCompressor");
        assert_eq!(ci.compressor_class.span, Span::new(0, 49));
        assert_eq!(ci.options.len(), 1);
        assert_eq!(ci.options[0].key.value, "compression_level");
        assert_eq!(ci.options[0].value.value, "3");
        assert_eq!(ci.chunk_length_bytes.value, 16384);
        assert_eq!(
            ci.max_compressed_length_bytes.as_ref().unwrap().value,
            0x7fff_ffff
        );
        assert_eq!(ci.data_length_bytes.value, 40000);
        assert_eq!(ci.chunk_offsets, [0, 100, 250]);
        assert!(ci.warnings.is_empty(), "{:?}", ci.warnings);
        assert_eq!(ci.chunk_offsets_span.len_bytes(), 24);
        assert_eq!(ci.chunk_offsets_span.end, bytes.len() as u64);
        assert_eq!(ci.chunk_offset_span(1).unwrap().len_bytes(), 8);

        assert_eq!(ci.chunk_span(0, 300), Some((0, 100)));
        assert_eq!(ci.chunk_span(2, 300), Some((250, 300)));
        assert_eq!(ci.chunk_span(2, 252), None);
        assert_eq!(ci.chunk_span(3, 300), None);
        assert_eq!(ci.chunk_for_position(0), Some(0));
        assert_eq!(ci.chunk_for_position(16384), Some(1));
        assert_eq!(ci.chunk_for_position(39999), Some(2));
        assert_eq!(ci.chunk_for_position(40000), None);
        assert_eq!(ci.chunk_uncompressed_len(2), Some(40000 - 2 * 16384));
        assert_eq!(ci.is_chunk_stored_raw(0, 300), Some(false));
        assert_eq!(ci.compression_ratio(300), Some(300.0 / 40000.0));
        let node = ci.to_node();
        let at = node
            .find_at(ci.chunk_offset_span(2).unwrap().start)
            .unwrap();
        assert_eq!(at.label, "chunk 2");
    }

    #[test]
    fn max_compressed_length_only_from_na() {
        let old = file("LZ4Compressor", &[], 65536, None, 10, &[0]);
        let ci = decode(&old, &big("me")).unwrap();
        assert_eq!(ci.max_compressed_length_bytes, None);
        assert_eq!(ci.compressor, "LZ4Compressor");
        assert!(ci.warnings.is_empty(), "{:?}", ci.warnings);
        // The same bytes read as na are misaligned: an error or findings, never silence.
        match decode(&old, &big("na")) {
            Err(_) => {}
            Ok(ci) => assert!(!ci.warnings.is_empty()),
        }
        let da = Version::parse(Format::Bti, "da").unwrap();
        let new = file("LZ4Compressor", &[], 16384, Some(100), 10, &[0]);
        let ci = decode(&new, &da).unwrap();
        assert_eq!(ci.max_compressed_length_bytes.as_ref().unwrap().value, 100);
        assert_eq!(ci.is_chunk_stored_raw(0, 104), Some(true));
        assert_eq!(ci.is_chunk_stored_raw(0, 103), Some(false));
    }

    #[test]
    fn inconsistencies_are_findings() {
        let bytes = file("LZ4Compressor", &[], 1000, None, 5000, &[8, 4, 5]);
        let ci = decode(&bytes, &big("ma")).unwrap();
        let w = ci.warnings.join("\n");
        assert!(w.contains("not a power of two"), "{w}");
        assert!(w.contains("need 5"), "{w}");
        assert!(w.contains("not 0"), "{w}");
        assert!(w.contains("below chunk 0"), "{w}");
        assert!(w.contains("shorter than its 4-byte checksum"), "{w}");
        let zero = file("LZ4Compressor", &[], 0, None, 0, &[]);
        let ci = decode(&zero, &big("ma")).unwrap();
        assert_eq!(ci.chunk_for_position(0), None);
        assert_eq!(ci.compression_ratio(0), None);
        assert!(ci.warnings.iter().any(|w| w.starts_with("0 chunks")));
    }

    #[test]
    fn bad_counts_are_errors_with_offsets() {
        let mut bytes = file("LZ4Compressor", &[], 65536, None, 10, &[0]);
        // Chunk count at 15 + 4 + 4 + 8 = 31.
        bytes[31..35].copy_from_slice(&(-1i32).to_be_bytes());
        let e = decode(&bytes, &big("ma")).unwrap_err();
        assert_eq!(e.offset(), 31);
        assert_eq!(e.component(), Some(&ComponentType::CompressionInfo));
        bytes[31..35].copy_from_slice(&1_000_000i32.to_be_bytes());
        assert!(decode(&bytes, &big("ma")).is_err());
        let mut opts = file("LZ4Compressor", &[], 65536, None, 10, &[0]);
        opts[15..19].copy_from_slice(&0x7fff_0000i32.to_be_bytes());
        assert_eq!(decode(&opts, &big("ma")).unwrap_err().offset(), 19);
    }

    #[test]
    fn long_offset_arrays_are_summarised() {
        let offsets: Vec<u64> = (0..250).map(|i| i * 10).collect();
        let bytes = file("LZ4Compressor", &[], 16, None, 4000, &offsets);
        let ci = decode(&bytes, &big("ma")).unwrap();
        let node = ci.to_node();
        let arr = node
            .children
            .iter()
            .find(|n| n.label == "chunk offsets")
            .unwrap();
        assert_eq!(arr.children.len(), MAX_CHILD_NODES + 1);
        assert_eq!(arr.children[MAX_CHILD_NODES].value, "150 more offsets");
    }
}
