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
//! Validation on open ([`CompressionInfo::refusals`]): what Cassandra refuses when it opens the
//! file — an unknown compressor class (`CompressionParams.createCompressor`), a chunk length that
//! is not a positive power of two (`assert Integer.bitCount(chunkLength) == 1`), a chunk count
//! ≤ 0 or below ⌈data length / chunk length⌉ ("The end index … has to be <= chunk count"), offsets
//! that do not increase or lie outside Data.db. Each is a typed [`Refusal`]; everything else
//! suspicious (one surplus empty chunk, bytes after the table) is a finding in `warnings`.
//!
//! Src: `src/java/org/apache/cassandra/io/compress/CompressionMetadata.java`,
//! `src/java/org/apache/cassandra/schema/CompressionParams.java` (class-name resolution),
//! `src/java/org/apache/cassandra/io/compress/CompressedSequentialWriter.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use crate::component::common::count::read_int_count;
use crate::component::crc::push_warnings;
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::version::Version;

/// At most this many chunk offsets become children in [`CompressionInfo::to_node`].
const MAX_CHILD_NODES: usize = 100;
/// Bytes of the checksum after each stored chunk.
const CHUNK_CHECKSUM_BYTES: u64 = 4;

/// The compressors Cassandra ships (`org.apache.cassandra.io.compress.*`).
pub const KNOWN_COMPRESSORS: [&str; 5] = [
    "LZ4Compressor",
    "SnappyCompressor",
    "DeflateCompressor",
    "ZstdCompressor",
    "NoopCompressor",
];

/// Why Cassandra would refuse to open a CompressionInfo.db (`CompressionMetadata`); each makes
/// the file unusable: no chunk can be located or checked with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RefusalKind {
    /// The compressor class is none of [`KNOWN_COMPRESSORS`].
    UnknownCompressor { class: String },
    /// The chunk length is not a positive power of two.
    BadChunkLength { chunk_length_bytes: u32 },
    /// The chunk count is 0 (Cassandra: "Compressed file with 0 chunks encountered").
    NoChunks { data_length_bytes: u64 },
    /// Fewer chunks than ⌈data length / chunk length⌉.
    TooFewChunks {
        chunk_count: u32,
        needed_chunks: u64,
    },
    /// Chunk `chunk` starts before the end of the previous chunk's 4-byte checksum.
    OffsetNotIncreasing {
        chunk: u64,
        offset: u64,
        previous_offset: u64,
    },
    /// Chunk `chunk` (with its checksum) does not fit inside the Data.db file.
    OffsetOutsideDataFile {
        chunk: u64,
        offset: u64,
        data_file_len_bytes: u64,
    },
}

impl core::fmt::Display for RefusalKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RefusalKind::UnknownCompressor { class } => {
                write!(f, "unknown compressor class \"{class}\"")
            }
            RefusalKind::BadChunkLength { chunk_length_bytes } => write!(
                f,
                "chunk length {} is not a positive power of two",
                *chunk_length_bytes as i32
            ),
            RefusalKind::NoChunks { data_length_bytes } => write!(
                f,
                "0 chunks for {data_length_bytes} bytes of data (Cassandra refuses such a file)"
            ),
            RefusalKind::TooFewChunks {
                chunk_count,
                needed_chunks,
            } => write!(
                f,
                "{chunk_count} chunks stored, but the data length needs {needed_chunks}"
            ),
            RefusalKind::OffsetNotIncreasing {
                chunk,
                offset,
                previous_offset,
            } => write!(
                f,
                "chunk {chunk} starts at {offset}, before the end of chunk {}'s checksum \
                 (it starts at {previous_offset})",
                chunk.saturating_sub(1)
            ),
            RefusalKind::OffsetOutsideDataFile {
                chunk,
                offset,
                data_file_len_bytes,
            } => write!(
                f,
                "chunk {chunk} at {offset} does not fit in the {data_file_len_bytes}-byte Data.db"
            ),
        }
    }
}

/// One reason Cassandra refuses the file, with the CompressionInfo.db offset of the field at fault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    #[serde(flatten)]
    pub kind: RefusalKind,
    /// Absolute offset in CompressionInfo.db.
    pub offset: u64,
}

impl Refusal {
    /// As an engine error: "… at 0x… in CompressionInfo.db (reading CompressionInfo.db validation)".
    pub fn to_error(&self) -> Error {
        Error::invalid(self.kind.to_string(), self.offset)
            .in_component(ComponentType::CompressionInfo)
            .context(REFUSAL_CONTEXT)
    }
}

/// The context of every [`Refusal::to_error`] error, so that callers can recognise them.
pub const REFUSAL_CONTEXT: &str = "CompressionInfo.db validation";

/// At most this many offset refusals are listed one by one.
const MAX_OFFSET_REFUSALS: usize = 16;

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
    /// Why Cassandra would refuse this file, from its own fields (see [`CompressionInfo::refusals`]
    /// for the checks against Data.db's length).
    pub refusals: Vec<Refusal>,
    /// The whole file.
    pub span: Span,
}

/// Decodes a whole CompressionInfo.db.
pub fn decode(bytes: &[u8], version: &Version) -> Result<CompressionInfo> {
    let mut r = Reader::new(bytes, 0).for_component(ComponentType::CompressionInfo);
    let mut warnings = Vec::new();

    let compressor_class = r.spanned(|r| r.utf("compressor class name"))?;
    let compressor = simple_class_name(&compressor_class.value).to_owned();
    if compressor.is_empty() {
        warnings.push("empty compressor class name".to_owned());
    }

    let option_count = read_int_count(&mut r, "compression option count", "option count")?;
    // Each option is at least two empty writeUTF strings (2 bytes each).
    let n = r.check_count(u64::from(option_count.value), 4, "compression options")?;
    let mut options = Vec::with_capacity(n);
    for _ in 0..n {
        let key = spanned_utf(&mut r, "compression option key")?;
        let value = spanned_utf(&mut r, "compression option value")?;
        options.push(CompressionOption { key, value });
    }

    let chunk_length_bytes = spanned_u32(&mut r, "chunk length")?;
    let chunk_len = chunk_length_bytes.value;
    let mut refusals = Vec::new();
    if !KNOWN_COMPRESSORS.contains(&compressor.as_str()) {
        refusals.push(Refusal {
            kind: RefusalKind::UnknownCompressor {
                class: compressor_class.value.clone(),
            },
            offset: compressor_class.span.start,
        });
    }
    if chunk_len > 0x7fff_ffff || !chunk_len.is_power_of_two() {
        refusals.push(Refusal {
            kind: RefusalKind::BadChunkLength {
                chunk_length_bytes: chunk_len,
            },
            offset: chunk_length_bytes.span.start,
        });
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

    let data_length_bytes = r.spanned(|r| r.u64("uncompressed data length"))?;
    let data_len = data_length_bytes.value;
    if data_len > i64::MAX as u64 {
        warnings.push(format!(
            "data length {} is negative as a signed long",
            data_len as i64
        ));
    }

    let chunk_count = read_int_count(&mut r, "chunk count", "chunk count")?;
    let count_start = chunk_count.span.start;
    let count = chunk_count.value;
    let n = r.check_count(u64::from(count), 8, "chunk offsets")?;
    if count == 0 {
        refusals.push(Refusal {
            kind: RefusalKind::NoChunks {
                data_length_bytes: data_len,
            },
            offset: count_start,
        });
    } else if chunk_len > 0 {
        let expected = data_len.div_ceil(u64::from(chunk_len));
        if u64::from(count) < expected {
            refusals.push(Refusal {
                kind: RefusalKind::TooFewChunks {
                    chunk_count: count,
                    needed_chunks: expected,
                },
                offset: count_start,
            });
        } else if u64::from(count) > expected {
            // Cassandra 3.0 was seen to end a file with one surplus empty chunk; it reads fine.
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
    check_offsets(&chunk_offsets, offsets_start, &mut warnings, &mut refusals);

    let trailing = if r.is_empty() {
        None
    } else {
        let t = Span::new(
            r.offset(),
            r.offset().saturating_add(r.remaining_bytes() as u64),
        );
        warnings.push(format!(
            "{} unexpected bytes after the chunk offsets (at offset {})",
            t.len_bytes(),
            t.start
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
        refusals,
        span: Span::new(0, bytes.len() as u64),
    })
}

/// `org.apache.cassandra.io.compress.LZ4Compressor` → `LZ4Compressor`; a short name is kept.
fn simple_class_name(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

fn spanned_utf(r: &mut Reader<'_>, what: &'static str) -> Result<Spanned<String>> {
    r.spanned(|r| r.utf(what))
}

fn spanned_u32(r: &mut Reader<'_>, what: &'static str) -> Result<Spanned<u32>> {
    r.spanned(|r| r.u32(what))
}

/// Offsets start at 0 (a finding otherwise) and grow by at least the 4-byte checksum per chunk
/// (a refusal otherwise: no chunk between them could be read).
fn check_offsets(
    offsets: &[u64],
    offsets_start: u64,
    warnings: &mut Vec<String>,
    refusals: &mut Vec<Refusal>,
) {
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
        if prev
            .checked_add(CHUNK_CHECKSUM_BYTES)
            .is_some_and(|end| next >= end)
        {
            continue;
        }
        bad = bad.saturating_add(1);
        if bad <= MAX_OFFSET_REFUSALS {
            let chunk = (i as u64).saturating_add(1);
            refusals.push(Refusal {
                kind: RefusalKind::OffsetNotIncreasing {
                    chunk,
                    offset: next,
                    previous_offset: prev,
                },
                offset: offsets_start.saturating_add(chunk.saturating_mul(8)),
            });
        }
    }
    if bad > MAX_OFFSET_REFUSALS {
        warnings.push(format!(
            "… and {} more chunk offsets that do not increase",
            bad.saturating_sub(MAX_OFFSET_REFUSALS)
        ));
    }
}

impl CompressionInfo {
    /// Everything Cassandra refuses on open: [`CompressionInfo::refusals`] (the file's own fields)
    /// and, when Data.db's length is known, every chunk lying inside it. Empty when the file is
    /// usable; otherwise no chunk checksum can be trusted to have been checked.
    pub fn refusals(&self, data_file_len: Option<u64>) -> Vec<Refusal> {
        let mut out = self.refusals.clone();
        let Some(data_file_len) = data_file_len else {
            return out;
        };
        // Offsets increase (or that is already refused): only the last chunk can reach past the end.
        if let Some((i, &last)) = self.chunk_offsets.iter().enumerate().next_back() {
            let fits = last
                .checked_add(CHUNK_CHECKSUM_BYTES)
                .is_some_and(|end| end <= data_file_len);
            if !fits {
                out.push(Refusal {
                    kind: RefusalKind::OffsetOutsideDataFile {
                        chunk: i as u64,
                        offset: last,
                        data_file_len_bytes: data_file_len,
                    },
                    offset: self
                        .chunk_offset_span(i)
                        .map_or(self.chunk_offsets_span.start, |s| s.start),
                });
            }
        }
        out
    }

    /// The first refusal as an error: Cassandra does not open a Data.db whose
    /// CompressionInfo.db it refuses, nor does the engine decode one (the chunk length and
    /// offsets would size its reads and its window).
    pub fn ensure_usable(&self, data_file_len: u64) -> Result<()> {
        match self.refusals(Some(data_file_len)).first() {
            Some(refusal) => Err(refusal.to_error()),
            None => Ok(()),
        }
    }

    /// Whether Cassandra would open this file (with Data.db `data_file_len` bytes long, if known).
    pub fn is_usable(&self, data_file_len: Option<u64>) -> bool {
        self.refusals(data_file_len).is_empty()
    }

    /// Where chunk `i` starts in Data.db.
    pub fn chunk_offset(&self, i: usize) -> Option<u64> {
        self.chunk_offsets.get(i).copied()
    }

    /// The CompressionInfo.db bytes that store chunk `i`'s offset.
    pub fn chunk_offset_span(&self, i: usize) -> Option<Span> {
        if i >= self.chunk_offsets.len() {
            return None;
        }
        // i < chunk count, so the span lies inside the decoded offsets table.
        let start = self
            .chunk_offsets_span
            .start
            .checked_add((i as u64).checked_mul(8)?)?;
        Some(Span::new(start, start.checked_add(8)?))
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
        let i = usize::try_from(uncompressed_pos.checked_div(chunk_len)?).ok()?;
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
        // chunk_span checked start + CHUNK_CHECKSUM_BYTES <= end.
        let stored = end.checked_sub(start)?.checked_sub(CHUNK_CHECKSUM_BYTES)?;
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
        let offsets = Node::capped_list(
            &self.chunk_offsets,
            MAX_CHILD_NODES,
            "offsets",
            || {
                self.chunk_offset_span(MAX_CHILD_NODES)
                    .map(|s| Span::new(s.start, self.chunk_offsets_span.end))
            },
            |(i, o)| {
                Node::new(
                    format!("chunk {i}"),
                    o.to_string(),
                    self.chunk_offset_span(i),
                )
            },
        );
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
        if !self.refusals.is_empty() {
            children.push(
                Node::new(
                    "refused by Cassandra",
                    self.refusals.len().to_string(),
                    None,
                )
                .with_children(
                    self.refusals
                        .iter()
                        .map(|r| {
                            Node::new(
                                "refusal",
                                format!("{} (at offset {})", r.kind, r.offset),
                                None,
                            )
                        })
                        .collect(),
                ),
            );
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
    use crate::component::test_support::{big, Out};
    use crate::version::Format;

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
        out.utf(class).unwrap();
        out.extend_from_slice(&(options.len() as u32).to_be_bytes());
        for (k, v) in options {
            out.utf(k).unwrap();
            out.utf(v).unwrap();
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
    fn what_cassandra_refuses_is_typed_the_rest_are_findings() {
        let bytes = file("LZ4Compressor", &[], 1000, None, 5000, &[8, 4, 5]);
        let ci = decode(&bytes, &big("ma")).unwrap();
        assert_eq!(ci.warnings, ["the first chunk starts at 8, not 0"]);
        // Offsets at 15 + 4 + 4 + 8 + 4 = 35.
        assert_eq!(
            ci.refusals,
            [
                Refusal {
                    kind: RefusalKind::BadChunkLength {
                        chunk_length_bytes: 1000
                    },
                    offset: 19
                },
                Refusal {
                    kind: RefusalKind::TooFewChunks {
                        chunk_count: 3,
                        needed_chunks: 5
                    },
                    offset: 31
                },
                Refusal {
                    kind: RefusalKind::OffsetNotIncreasing {
                        chunk: 1,
                        offset: 4,
                        previous_offset: 8
                    },
                    offset: 43
                },
                Refusal {
                    kind: RefusalKind::OffsetNotIncreasing {
                        chunk: 2,
                        offset: 5,
                        previous_offset: 4
                    },
                    offset: 51
                },
            ]
        );
        let e = ci.refusals[1].to_error();
        assert_eq!(e.offset(), 31);
        assert_eq!(e.what(), REFUSAL_CONTEXT);
        assert_eq!(e.component(), Some(&ComponentType::CompressionInfo));
        assert!(!ci.is_usable(None));

        let zero = file("LZ4Compressor", &[], 0, None, 0, &[]);
        let ci = decode(&zero, &big("ma")).unwrap();
        assert_eq!(ci.chunk_for_position(0), None);
        assert_eq!(ci.compression_ratio(0), None);
        let kinds: Vec<_> = ci.refusals.iter().map(|r| r.kind.clone()).collect();
        assert_eq!(
            kinds,
            [
                RefusalKind::BadChunkLength {
                    chunk_length_bytes: 0
                },
                RefusalKind::NoChunks {
                    data_length_bytes: 0
                }
            ]
        );

        let unknown = file("com.example.MyCompressor", &[], 65536, None, 10, &[0]);
        let ci = decode(&unknown, &big("ma")).unwrap();
        assert_eq!(
            ci.refusals(Some(100)),
            [Refusal {
                kind: RefusalKind::UnknownCompressor {
                    class: "com.example.MyCompressor".to_owned()
                },
                offset: 0
            }]
        );
        // One surplus (empty) chunk reads fine in Cassandra: a finding only.
        let surplus = file("LZ4Compressor", &[], 65536, None, 10, &[0, 20]);
        let ci = decode(&surplus, &big("ma")).unwrap();
        assert!(ci.refusals.is_empty());
        assert_eq!(
            ci.warnings,
            ["2 chunks stored, but 10 bytes in 65536-byte chunks need 1"]
        );
        // Against Data.db's length: the last chunk and its checksum must fit.
        assert!(ci.is_usable(Some(24)));
        assert_eq!(
            ci.refusals(Some(23)),
            [Refusal {
                kind: RefusalKind::OffsetOutsideDataFile {
                    chunk: 1,
                    offset: 20,
                    data_file_len_bytes: 23
                },
                offset: 43
            }]
        );
        // Bytes after the table are a finding naming their offset.
        let mut trailing = file("LZ4Compressor", &[], 65536, None, 10, &[0]);
        trailing.extend_from_slice(&[1, 2, 3]);
        let ci = decode(&trailing, &big("ma")).unwrap();
        assert_eq!(
            ci.warnings,
            ["3 unexpected bytes after the chunk offsets (at offset 43)"]
        );
        assert_eq!(ci.trailing, Some(Span::new(43, 46)));
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
