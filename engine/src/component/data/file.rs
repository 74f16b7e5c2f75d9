//! The physical Data.db: plain, or compressed in chunks described by CompressionInfo.db; one
//! reader for every version, generic over the push decoder it feeds ([`PushDecoder`]: the 3.0+
//! [`DataDecoder`], the 2.x [`LegacyDataDecoder`](crate::component::legacy_data::LegacyDataDecoder)).
//!
//! | layout | stored | uncompressed position p |
//! |---|---|---|
//! | uncompressed | the bytes as they are | file offset p |
//! | compressed | chunk i at `[offset_i, offset_{i+1})`: stored chunk + 4-byte big-endian checksum | chunk `p / chunk_length`, at `p mod chunk_length` in it |
//!
//! The chunk checksum is Adler32 of the stored chunk before 3.0 (`jb`…`la`,
//! [`Version::uses_adler32`]), CRC32 from `ma` on. A na+/da chunk whose stored length is ≥
//! max-compressed-length is stored raw (its first `min(chunk length, data length − i·chunk
//! length)` bytes are the data); every other chunk is decompressed with the compressor
//! CompressionInfo names, straight into the decoder's window.
//!
//! [`ChunkedDataReader`] never reads a file: it speaks the one byte-range protocol
//! ([`RangeReader`]: the range it needs next — one chunk, or a block of a plain file — and the
//! bytes of it), driven by [`SyncDriver`](crate::range::SyncDriver) or
//! [`AsyncDriver`](crate::range::AsyncDriver), and [`ChunkedDataReader::next_item`] yields
//! items. Chunk checksums are checked cheaply; a mismatch is a finding
//! ([`ChunkedDataReader::take_findings`]), never a failure (the verifier owns checksums).
//!
//! Src: `src/java/org/apache/cassandra/io/compress/CompressionMetadata.java`,
//! `io/util/CompressedChunkReader.java`, `io/compress/CompressedSequentialWriter.java`;
//! cassandra-2.1 `io/compress/CompressedRandomAccessReader.java` (`reBuffer`: Adler32 before 3.0).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::schema::DataSchema;
use super::stream::{DataDecoder, PushDecoder, VisitStep};
use super::view::DataVisitor;
use super::{DecodeOptions, Finding, FindingKind};
use crate::byte_range::{ByteRange, RangeReader};
use crate::clock::Clock;
use crate::component::compression_info::CompressionInfo;
use crate::component::ComponentType;
use crate::compress::{
    check_expansion, decompress_chunk, decompress_chunk_into, CodecError, Compressor,
};
use crate::error::{Error, ErrorKind, Result};
use crate::span::Span;
use crate::version::Version;

/// One range of a split scan: the partitions starting in `[start, end)` of the uncompressed
/// Data.db (`start` is a partition position).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ScanRange {
    pub start: u64,
    pub end: u64,
}

impl ScanRange {
    /// Whether a scan of this range that stopped at uncompressed `stopped_at`, reading
    /// `frozen_udts` as it ended, hands over to `next` as the sequential scan would: it stopped
    /// exactly at `next`'s start, with the reading every range starts with.
    pub fn followed_by(&self, stopped_at: u64, frozen_udts: bool, next: &ScanRange) -> bool {
        stopped_at == next.start && !frozen_udts
    }
}

/// Bytes asked for at a time from an uncompressed Data.db.
const PLAIN_READ_BYTES: u64 = 64 * 1024;
/// Bytes of the checksum after each stored chunk.
const CHUNK_CHECKSUM_BYTES: u64 = 4;

#[derive(Debug, Clone)]
struct Compressed {
    info: CompressionInfo,
    compressor: Compressor,
}

/// Where the uncompressed data lies in the physical file, and how far it was supplied.
#[derive(Debug, Clone)]
struct DataLayout {
    compressed: Option<Compressed>,
    /// Physical length of Data.db.
    file_len_bytes: u64,
    /// Uncompressed length of the data.
    data_len_bytes: u64,
    /// Next uncompressed position to hand to the decoder.
    next_pos: u64,
    read_block_bytes: u64,
}

impl DataLayout {
    /// The physical byte range of Data.db to read next, or `None` when every byte was supplied
    /// (or no chunk holds `next_pos`).
    fn next_read(&self) -> Option<ByteRange> {
        let left = self.data_len_bytes.checked_sub(self.next_pos)?;
        if left == 0 {
            return None;
        }
        let (offset, len) = match &self.compressed {
            None => (self.next_pos, self.read_block_bytes.min(left)),
            Some(c) => {
                let i = c.info.chunk_for_position(self.next_pos)?;
                let (start, end) = c.info.chunk_span(i, self.file_len_bytes)?;
                (start, end.checked_sub(start)?)
            }
        };
        Some(ByteRange::new(ComponentType::Data, offset, len))
    }

    fn missing(&self, offset: u64, len: u64) -> Error {
        let (start, end) = self
            .next_read()
            .map_or((offset, offset), |r| (r.offset, r.end()));
        Error::new(
            ErrorKind::MissingBytes {
                wanted_start: start,
                wanted_end: end,
            },
            offset,
        )
        .context(if len == 0 {
            "supplied Data.db bytes (nothing was asked for)"
        } else {
            "supplied Data.db bytes (not the range next_read asked for)"
        })
        .in_component(ComponentType::Data)
    }

    /// The data is not all there, yet no chunk can be read: the file is shorter than
    /// CompressionInfo says, or its chunk offsets are unusable.
    fn no_more_input(&self) -> Error {
        let chunk = self
            .compressed
            .as_ref()
            .and_then(|c| c.info.chunk_for_position(self.next_pos));
        Error::new(
            ErrorKind::UnexpectedEof {
                needed_bytes: self.data_len_bytes.saturating_sub(self.next_pos),
                available_bytes: 0,
            },
            self.next_pos,
        )
        .context(match chunk {
            Some(_) => "compressed chunk (not inside the Data.db file, or bad chunk offsets)",
            None => "Data.db (shorter than CompressionInfo's data length)",
        })
        .in_component(ComponentType::Data)
    }
}

/// Streams the items of one Data.db file into a [`PushDecoder`], asking the caller for byte
/// ranges.
#[derive(Debug, Clone)]
pub struct ChunkedDataReader<D> {
    decoder: D,
    layout: DataLayout,
    /// A decompressed chunk that could not go straight into the window (entered in its middle
    /// while the window still held bytes); reused.
    chunk: Vec<u8>,
    findings: Vec<Finding>,
}

/// The Data.db reader of the 3.0+ row format.
pub type DataFileReader = ChunkedDataReader<DataDecoder>;

impl<D: PushDecoder> ChunkedDataReader<D> {
    /// An uncompressed Data.db of `file_len_bytes` bytes.
    pub fn uncompressed(setup: D::Setup, options: DecodeOptions, file_len_bytes: u64) -> Self {
        Self::with_decoder(D::from_setup(setup, options), None, file_len_bytes)
    }

    /// A compressed Data.db of `file_len_bytes` bytes, described by `compression`.
    pub fn compressed(
        setup: D::Setup,
        options: DecodeOptions,
        compression: CompressionInfo,
        file_len_bytes: u64,
    ) -> Self {
        Self::with_decoder(
            D::from_setup(setup, options),
            Some(compression),
            file_len_bytes,
        )
    }

    /// Feeds `decoder` (at position 0) from a Data.db of `file_len_bytes` bytes, compressed
    /// when `compression` is given.
    pub fn with_decoder(
        decoder: D,
        compression: Option<CompressionInfo>,
        file_len_bytes: u64,
    ) -> Self {
        let compressed = compression.map(|info| Compressed {
            compressor: Compressor::from_class_name(&info.compressor),
            info,
        });
        let data_len_bytes = compressed
            .as_ref()
            .map_or(file_len_bytes, |c| c.info.data_length_bytes.value);
        let mut reader = ChunkedDataReader {
            decoder,
            layout: DataLayout {
                compressed,
                file_len_bytes,
                data_len_bytes,
                next_pos: 0,
                read_block_bytes: PLAIN_READ_BYTES,
            },
            chunk: Vec::new(),
            findings: Vec::new(),
        };
        reader.finish_if_done();
        reader
    }

    /// Reads of an uncompressed file ask for `bytes` at a time (default 64 KiB; at least 1).
    pub fn with_read_block_bytes(mut self, bytes: u64) -> Self {
        self.layout.read_block_bytes = bytes.max(1);
        self
    }

    pub fn decoder(&self) -> &D {
        &self.decoder
    }

    /// Uncompressed length of the data.
    pub fn data_len_bytes(&self) -> u64 {
        self.layout.data_len_bytes
    }

    /// Whether the file is compressed.
    pub fn is_compressed(&self) -> bool {
        self.layout.compressed.is_some()
    }

    /// Findings about the file itself (chunk checksum mismatches) since the last call.
    pub fn take_findings(&mut self) -> Vec<Finding> {
        core::mem::take(&mut self.findings)
    }

    fn finish_if_done(&mut self) {
        if self.layout.next_pos >= self.layout.data_len_bytes && !self.decoder.is_input_finished() {
            self.decoder.finish();
        }
    }

    /// Hands over the bytes read at physical `offset`: they must cover what
    /// [`RangeReader::next_read`] asked for (plain files: start at or before it and reach
    /// into it; compressed files: exactly the chunk).
    fn supply_at(&mut self, offset: u64, bytes: &[u8]) -> Result<()> {
        let Some(want) = self.layout.next_read() else {
            return Err(self.layout.missing(offset, 0));
        };
        let (want_start, want_len) = (want.offset, want.len);
        if self.layout.compressed.is_some() {
            self.supply_chunk(offset, bytes, want_start, want_len)?;
        } else {
            let end = offset.saturating_add(bytes.len() as u64);
            let skip = want_start.checked_sub(offset).filter(|_| end > want_start);
            let Some(skip) = skip else {
                return Err(self.layout.missing(offset, want_len));
            };
            let skip = usize::try_from(skip).unwrap_or(usize::MAX);
            let upto = self.layout.data_len_bytes.min(end).saturating_sub(offset);
            let upto = usize::try_from(upto).unwrap_or(usize::MAX);
            let part = bytes.get(skip..upto).unwrap_or(&[]);
            self.decoder.push(part);
            self.layout.next_pos = want_start.saturating_add(part.len() as u64);
        }
        self.finish_if_done();
        Ok(())
    }

    fn supply_chunk(
        &mut self,
        offset: u64,
        bytes: &[u8],
        want_start: u64,
        want_len: u64,
    ) -> Result<()> {
        let layout = &self.layout;
        let chunk = layout.compressed.as_ref().and_then(|c| {
            let i = c.info.chunk_for_position(layout.next_pos)?;
            Some((c, i))
        });
        let Some((c, i)) = chunk.filter(|_| offset == want_start && bytes.len() as u64 >= want_len)
        else {
            return Err(layout.missing(offset, want_len));
        };
        let end = offset.saturating_add(want_len);
        let chunk_len = u64::from(c.info.chunk_length_bytes.value);
        let chunk_start = (i as u64).saturating_mul(chunk_len);
        let expected = c.info.chunk_uncompressed_len(i).unwrap_or(0);
        let stored_len = usize::try_from(want_len.saturating_sub(CHUNK_CHECKSUM_BYTES))
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        let (stored, checksum) = bytes.split_at(stored_len);
        if let Some(&[a, b, c2, d]) = checksum.get(..4) {
            let stored_sum = u32::from_be_bytes([a, b, c2, d]);
            let (name, computed) = chunk_checksum(self.decoder.version(), stored);
            if stored_sum != computed {
                self.findings.push(Finding::new(
                    FindingKind::ChunkChecksumMismatch,
                    Span::new(offset, end),
                    format!(
                        "chunk {i} (Data.db bytes {offset}..{end}): stored {name} \
                         {stored_sum:#010x}, computed {computed:#010x}"
                    ),
                ));
            }
        }
        let expected_usize = usize::try_from(expected).unwrap_or(usize::MAX);
        let raw = c
            .info
            .is_chunk_stored_raw(i, layout.file_len_bytes)
            .unwrap_or(false);
        // The window is sized by the chunk's uncompressed length, which CompressionInfo.db
        // claims: never more than its stored bytes can hold.
        let codec = if raw {
            &Compressor::Noop
        } else {
            &c.compressor
        };
        if let Err(e) = check_expansion(codec, stored.len(), expected) {
            return Err(Error::invalid(
                format!("chunk {i} (Data.db bytes {offset}..{end}) does not decompress: {e}"),
                chunk_start,
            )
            .context("compressed chunk")
            .in_component(ComponentType::Data));
        }
        let skip =
            usize::try_from(layout.next_pos.saturating_sub(chunk_start)).unwrap_or(usize::MAX);
        let corrupt = |e: CodecError| {
            Error::invalid(
                format!("chunk {i} (Data.db bytes {offset}..{end}) does not decompress: {e}"),
                chunk_start,
            )
            .context("compressed chunk")
            .in_component(ComponentType::Data)
        };
        // A raw chunk's data is its first `expected` bytes.
        let raw_part = || {
            let part = stored.get(..expected_usize).unwrap_or(stored);
            if part.len() < expected_usize {
                return Err(Error::new(
                    ErrorKind::UnexpectedEof {
                        needed_bytes: expected,
                        available_bytes: part.len() as u64,
                    },
                    chunk_start,
                )
                .context("raw chunk shorter than its uncompressed length")
                .in_component(ComponentType::Data));
            }
            Ok(part)
        };
        // The chunk goes straight into the decoder's window (no copy of it), unless it is
        // entered in its middle while the window still holds bytes.
        let direct = self
            .decoder
            .window_mut()
            .fill_with(skip, expected_usize, |window| {
                if raw {
                    let part = raw_part()?;
                    if part.len() != window.len() {
                        return Err(corrupt(CodecError::WrongLength {
                            expected_bytes: expected,
                            actual_bytes: part.len() as u64,
                        }));
                    }
                    window.copy_from_slice(part);
                    Ok(())
                } else {
                    decompress_chunk_into(&c.compressor, stored, window).map_err(corrupt)
                }
            })?;
        if !direct {
            if raw {
                self.chunk.clear();
                self.chunk.extend_from_slice(raw_part()?);
            } else {
                decompress_chunk(&c.compressor, stored, expected_usize, &mut self.chunk)
                    .map_err(corrupt)?;
            }
            self.decoder.push(self.chunk.get(skip..).unwrap_or(&[]));
        }
        let next_pos = self.layout.next_pos;
        self.layout.next_pos = chunk_start
            .saturating_add(expected)
            .max(next_pos.saturating_add(1));
        Ok(())
    }

    /// The next item; "need more data" means: read the range [`RangeReader::next_read`] names
    /// and [`RangeReader::supply`] it (a [`SyncDriver`](crate::range::SyncDriver) or
    /// [`AsyncDriver`](crate::range::AsyncDriver) does both).
    pub fn next_item(&mut self) -> Result<D::Step<'_>> {
        let step = self.decoder.next_item()?;
        if D::needs_more_data(&step) && self.layout.next_read().is_none() {
            return Err(self.layout.no_more_input());
        }
        Ok(step)
    }

    /// Restarts decoding at the partition starting at uncompressed `position` (from Index.db /
    /// Partitions.db); also recovers from an error.
    pub fn seek_to_partition(&mut self, position: u64) -> Result<()> {
        let data_len = self.layout.data_len_bytes;
        if position > data_len {
            return Err(Error::invalid(
                format!(
                    "partition position {position} is past the end of the data ({data_len} bytes)"
                ),
                position,
            )
            .context("seek to partition")
            .in_component(ComponentType::Data));
        }
        self.decoder.seek_to_partition(position);
        self.layout.next_pos = position;
        self.finish_if_done();
        Ok(())
    }
}

/// The checksum of a stored chunk and its name: Adler32 before 3.0, CRC32 after
/// (`CompressedRandomAccessReader.reBuffer`, `CompressedChunkReader`).
fn chunk_checksum(version: &Version, stored: &[u8]) -> (&'static str, u32) {
    if version.uses_adler32() {
        let mut h = adler32::RollingAdler32::new();
        h.update_buffer(stored);
        ("Adler32", h.hash())
    } else {
        ("CRC32", crc32fast::hash(stored))
    }
}

impl DataFileReader {
    /// The Data.db reader of a decoded SSTable: rows decoded per the SerializationHeader (3.0+);
    /// before 3.0 (no header, the old cell layout) partition headers only, with the key as raw
    /// bytes. Compressed when the SSTable has a CompressionInfo.db.
    pub fn for_sstable(
        metadata: &crate::info::SSTableMetadata,
        options: DecodeOptions,
    ) -> Result<DataFileReader> {
        let version = metadata.descriptor.version;
        let header = metadata.statistics.as_ref().and_then(|s| s.header.as_ref());
        let schema = match header {
            Some(h) if version.has_row_format() => DataSchema::from_header(h, &version)?,
            _ if version.has_row_format() => {
                return Err(Error::invalid(
                    "Statistics.db has no SerializationHeader: rows cannot be decoded",
                    0,
                )
                .in_component(ComponentType::Statistics))
            }
            _ => headers_only_schema(version),
        };
        let file_len = metadata.size_of(&ComponentType::Data).ok_or_else(|| {
            Error::invalid("the SSTable has no Data.db", 0).in_component(ComponentType::Data)
        })?;
        if let Some(c) = &metadata.compression {
            c.ensure_usable(file_len)?;
        }
        let decoder = DataDecoder::new(schema, options);
        Ok(DataFileReader::with_decoder(
            decoder,
            metadata.compression.clone(),
            file_len,
        ))
    }

    /// Restarts at `range.start` (a partition position) and ends the scan at the first
    /// partition starting at or after `range.end` (one range of a split scan,
    /// [`ScanRange`]); `frozen_udts`: rows read with bare UDTs as frozen, as the
    /// range before it ended ([`DataDecoder::reads_bare_udts_as_frozen`]).
    pub fn scan_range(&mut self, range: ScanRange, frozen_udts: bool) -> Result<()> {
        self.seek_to_partition(range.start)?;
        self.decoder
            .set_range_end((range.end < self.layout.data_len_bytes).then_some(range.end));
        if frozen_udts {
            self.decoder.read_bare_udts_as_frozen();
        }
        Ok(())
    }

    /// Uncompressed position of the next byte to decode (after a range scan finished: where
    /// its last partition ended).
    pub fn position(&self) -> u64 {
        self.decoder.window().position()
    }

    /// Decodes the next item into `visitor` (borrowed: rows and cells as views into the
    /// window); [`VisitStep::NeedMoreData`] means: read the range [`RangeReader::next_read`]
    /// names and [`RangeReader::supply`] it.
    #[inline(always)]
    pub fn visit_next<V: DataVisitor + ?Sized>(&mut self, visitor: &mut V) -> Result<VisitStep> {
        match self.decoder.visit_next(visitor)? {
            VisitStep::NeedMoreData if self.layout.next_read().is_none() => {
                Err(self.layout.no_more_input())
            }
            step => Ok(step),
        }
    }
}

/// Before 3.0 a partition starts as in 3.0 (u16-length key, then i32 local deletion time and
/// i64 markedForDeleteAt): the schema that reads partition headers only, the key as raw bytes.
pub(crate) fn headers_only_schema(version: crate::version::Version) -> DataSchema {
    DataSchema::from_parts(
        version,
        crate::types::AbstractType::Bytes,
        Vec::new(),
        Vec::new(),
        Vec::new(),
        super::DeltaBase {
            min_timestamp_micros: 0,
            min_local_deletion_time_raw: 0,
            min_ttl_secs: 0,
            unsigned_deletion_time: false,
        },
    )
}

/// Data.db through the protocol, for the 3.0+ and the 2.x decoder alike: a chunk (or a block
/// of a plain file) at a time.
impl<D: PushDecoder> RangeReader for ChunkedDataReader<D> {
    fn next_read(&self) -> Option<ByteRange> {
        self.layout.next_read()
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], _clock: &dyn Clock) -> Result<()> {
        self.supply_at(range.offset, bytes)
    }
}
