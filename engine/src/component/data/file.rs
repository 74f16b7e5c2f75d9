//! The physical Data.db: plain, or compressed in chunks described by CompressionInfo.db.
//!
//! | layout | stored | uncompressed position p |
//! |---|---|---|
//! | uncompressed | the bytes as they are | file offset p |
//! | compressed | chunk i at `[offset_i, offset_{i+1})`: stored chunk + 4-byte big-endian CRC32 | chunk `p / chunk_length`, at `p mod chunk_length` in it |
//!
//! A na+/da chunk whose stored length is ≥ max-compressed-length is stored raw (its first
//! `min(chunk length, data length − i·chunk length)` bytes are the data); every other chunk is
//! decompressed with the compressor CompressionInfo names ([`decompress_chunk`]).
//!
//! [`DataFileReader`] never reads a file: it says which range it needs next
//! ([`DataFileReader::next_read`]: one chunk, or a block of a plain file), the caller reads it
//! and hands it over ([`DataFileReader::supply`]), and [`DataFileReader::next_item`] yields
//! items. Chunk CRC32s are checked cheaply; a mismatch is a finding
//! ([`DataFileReader::take_findings`]), never a failure (the verifier owns checksums).
//!
//! Src: `src/java/org/apache/cassandra/io/compress/CompressionMetadata.java`,
//! `io/util/CompressedChunkReader.java`, `io/compress/CompressedSequentialWriter.java`.

use super::schema::DataSchema;
use super::stream::{DataDecoder, DecodeStep, VisitStep};
use super::visit::DataVisitor;
use super::{DataItem, DecodeOptions, Finding, FindingKind};
use crate::component::compression_info::CompressionInfo;
use crate::component::ComponentType;
use crate::compress::{decompress_chunk, decompress_chunk_append, CodecError, Compressor};
use crate::error::{Error, ErrorKind, Result};
use crate::span::Span;

/// Bytes asked for at a time from an uncompressed Data.db.
const PLAIN_READ_BYTES: u64 = 64 * 1024;
/// Bytes of the checksum after each stored chunk.
const CHUNK_CHECKSUM_BYTES: u64 = 4;

#[derive(Debug, Clone)]
struct Compressed {
    info: CompressionInfo,
    compressor: Compressor,
}

/// Streams the items of one Data.db file, asking the caller for byte ranges.
#[derive(Debug, Clone)]
pub struct DataFileReader {
    decoder: DataDecoder,
    compressed: Option<Compressed>,
    /// Physical length of Data.db.
    file_len_bytes: u64,
    /// Uncompressed length of the data.
    data_len_bytes: u64,
    /// Next uncompressed position to hand to the decoder.
    next_pos: u64,
    read_block_bytes: u64,
    chunk: Vec<u8>,
    findings: Vec<Finding>,
}

impl DataFileReader {
    /// An uncompressed Data.db of `file_len_bytes` bytes.
    pub fn uncompressed(schema: DataSchema, options: DecodeOptions, file_len_bytes: u64) -> Self {
        Self::build(schema, options, None, file_len_bytes, file_len_bytes)
    }

    /// A compressed Data.db of `file_len_bytes` bytes, described by `compression`.
    pub fn compressed(
        schema: DataSchema,
        options: DecodeOptions,
        compression: CompressionInfo,
        file_len_bytes: u64,
    ) -> Self {
        let data_len = compression.data_length_bytes.value;
        let compressor = Compressor::from_class_name(&compression.compressor);
        Self::build(
            schema,
            options,
            Some(Compressed {
                info: compression,
                compressor,
            }),
            file_len_bytes,
            data_len,
        )
    }

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
        Ok(match &metadata.compression {
            Some(c) => DataFileReader::compressed(schema, options, c.clone(), file_len),
            None => DataFileReader::uncompressed(schema, options, file_len),
        })
    }

    fn build(
        schema: DataSchema,
        options: DecodeOptions,
        compressed: Option<Compressed>,
        file_len_bytes: u64,
        data_len_bytes: u64,
    ) -> Self {
        let mut reader = DataFileReader {
            decoder: DataDecoder::new(schema, options),
            compressed,
            file_len_bytes,
            data_len_bytes,
            next_pos: 0,
            read_block_bytes: PLAIN_READ_BYTES,
            chunk: Vec::new(),
            findings: Vec::new(),
        };
        reader.finish_if_done();
        reader
    }

    /// Reads of an uncompressed file ask for `bytes` at a time (default 64 KiB; at least 1).
    pub fn with_read_block_bytes(mut self, bytes: u64) -> Self {
        self.read_block_bytes = bytes.max(1);
        self
    }

    pub fn decoder(&self) -> &DataDecoder {
        &self.decoder
    }

    /// Uncompressed length of the data.
    pub fn data_len_bytes(&self) -> u64 {
        self.data_len_bytes
    }

    /// Whether the file is compressed.
    pub fn is_compressed(&self) -> bool {
        self.compressed.is_some()
    }

    /// Findings about the file itself (chunk checksum mismatches) since the last call.
    pub fn take_findings(&mut self) -> Vec<Finding> {
        core::mem::take(&mut self.findings)
    }

    fn finish_if_done(&mut self) {
        if self.next_pos >= self.data_len_bytes && !self.decoder.is_input_finished() {
            self.decoder.finish();
        }
    }

    /// The physical byte range `(offset, len)` to read next, or `None` when every byte was
    /// supplied.
    pub fn next_read(&self) -> Option<(u64, u64)> {
        if self.next_pos >= self.data_len_bytes {
            return None;
        }
        match &self.compressed {
            None => Some((
                self.next_pos,
                self.read_block_bytes
                    .min(self.data_len_bytes - self.next_pos),
            )),
            Some(c) => {
                let i = c.info.chunk_for_position(self.next_pos)?;
                let (start, end) = c.info.chunk_span(i, self.file_len_bytes)?;
                Some((start, end - start))
            }
        }
    }

    fn missing(&self, offset: u64, len: u64) -> Error {
        let (start, end) = self
            .next_read()
            .map_or((offset, offset), |(s, l)| (s, s + l));
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

    /// Hands over the bytes read at physical `offset`: they must cover what
    /// [`DataFileReader::next_read`] asked for (plain files: start at or before it and reach
    /// into it; compressed files: exactly the chunk).
    pub fn supply(&mut self, offset: u64, bytes: &[u8]) -> Result<()> {
        let Some((want_start, want_len)) = self.next_read() else {
            return Err(self.missing(offset, 0));
        };
        let len = bytes.len() as u64;
        match self.compressed.take() {
            None => {
                let end = offset.saturating_add(len);
                if offset > want_start || end <= want_start {
                    return Err(self.missing(offset, want_len));
                }
                let skip = usize::try_from(want_start - offset).unwrap_or(usize::MAX);
                let upto =
                    usize::try_from(self.data_len_bytes.min(end) - offset).unwrap_or(usize::MAX);
                let part = bytes.get(skip..upto).unwrap_or(&[]);
                self.decoder.push(part);
                self.next_pos = want_start + part.len() as u64;
            }
            Some(c) => {
                let result = self.supply_chunk(&c, offset, bytes, want_start, want_len);
                self.compressed = Some(c);
                result?;
            }
        }
        self.finish_if_done();
        Ok(())
    }

    fn supply_chunk(
        &mut self,
        c: &Compressed,
        offset: u64,
        bytes: &[u8],
        want_start: u64,
        want_len: u64,
    ) -> Result<()> {
        if offset != want_start || (bytes.len() as u64) < want_len {
            return Err(self.missing(offset, want_len));
        }
        let Some(i) = c.info.chunk_for_position(self.next_pos) else {
            return Err(self.missing(offset, want_len));
        };
        let chunk_len = u64::from(c.info.chunk_length_bytes.value);
        let chunk_start = (i as u64).saturating_mul(chunk_len);
        let expected = c.info.chunk_uncompressed_len(i).unwrap_or(0);
        let stored_len = want_len.saturating_sub(CHUNK_CHECKSUM_BYTES);
        let stored = usize::try_from(stored_len)
            .ok()
            .and_then(|n| bytes.get(..n))
            .unwrap_or(&[]);
        let checksum = usize::try_from(stored_len)
            .ok()
            .and_then(|n| bytes.get(n..n.checked_add(4)?));
        if let Some(&[a, b, c2, d]) = checksum {
            let stored_crc = u32::from_be_bytes([a, b, c2, d]);
            let computed = crc32fast::hash(stored);
            if stored_crc != computed {
                self.findings.push(Finding::new(
                    FindingKind::ChunkChecksumMismatch,
                    Span::new(offset, offset + want_len),
                    format!(
                        "chunk {i} (Data.db bytes {offset}..{}): stored CRC32 {stored_crc:#010x}, \
                         computed {computed:#010x}",
                        offset + want_len
                    ),
                ));
            }
        }
        let expected_usize = usize::try_from(expected).unwrap_or(usize::MAX);
        let raw = c
            .info
            .is_chunk_stored_raw(i, self.file_len_bytes)
            .unwrap_or(false);
        let skip = usize::try_from(self.next_pos - chunk_start).unwrap_or(usize::MAX);
        let corrupt = |e: CodecError| {
            Error::invalid(
                format!(
                    "chunk {i} (Data.db bytes {offset}..{}) does not decompress: {e}",
                    offset + want_len
                ),
                chunk_start,
            )
            .context("compressed chunk")
            .in_component(ComponentType::Data)
        };
        let short_raw = |available: usize| {
            Error::new(
                ErrorKind::UnexpectedEof {
                    needed_bytes: expected,
                    available_bytes: available as u64,
                },
                chunk_start,
            )
            .context("raw chunk shorter than its uncompressed length")
            .in_component(ComponentType::Data)
        };
        // The chunk goes straight into the decoder's window (no copy of it), unless it is
        // entered in its middle while the window still holds bytes.
        let direct = self.decoder.fill_with(skip, |window| {
            if raw {
                let part = stored.get(..expected_usize).unwrap_or(stored);
                if part.len() < expected_usize {
                    return Err(short_raw(part.len()));
                }
                window.extend_from_slice(part);
                Ok(())
            } else {
                decompress_chunk_append(&c.compressor, stored, expected_usize, window)
                    .map_err(corrupt)
            }
        })?;
        if !direct {
            if raw {
                self.chunk.clear();
                self.chunk
                    .extend_from_slice(stored.get(..expected_usize).unwrap_or(stored));
                if self.chunk.len() < expected_usize {
                    return Err(short_raw(self.chunk.len()));
                }
            } else {
                decompress_chunk(&c.compressor, stored, expected_usize, &mut self.chunk)
                    .map_err(corrupt)?;
            }
            let part = self.chunk.get(skip..).unwrap_or(&[]);
            self.decoder.push(part);
        }
        self.next_pos = (chunk_start + expected).max(self.next_pos + 1);
        Ok(())
    }

    /// The next item; [`DecodeStep::NeedMoreData`] means: call [`DataFileReader::next_read`],
    /// read that range and [`DataFileReader::supply`] it.
    pub fn next_item(&mut self) -> Result<DecodeStep> {
        match self.decoder.next_item()? {
            DecodeStep::NeedMoreData if self.next_read().is_none() => Err(self.no_more_input()),
            step => Ok(step),
        }
    }

    /// Decodes the next item into `visitor` (borrowed: rows and cells as views into the
    /// window); [`VisitStep::NeedMoreData`] means: call [`DataFileReader::next_read`], read that
    /// range and [`DataFileReader::supply`] it.
    pub fn visit_next<V: DataVisitor + ?Sized>(&mut self, visitor: &mut V) -> Result<VisitStep> {
        match self.decoder.visit_next(visitor)? {
            VisitStep::NeedMoreData if self.next_read().is_none() => Err(self.no_more_input()),
            step => Ok(step),
        }
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

    /// Restarts decoding at the partition starting at uncompressed `position` (from Index.db /
    /// Partitions.db); also recovers from an error.
    pub fn seek_to_partition(&mut self, position: u64) -> Result<()> {
        if position > self.data_len_bytes {
            return Err(Error::invalid(
                format!(
                    "partition position {position} is past the end of the data ({} bytes)",
                    self.data_len_bytes
                ),
                position,
            )
            .context("seek to partition")
            .in_component(ComponentType::Data));
        }
        self.decoder.seek_to_partition(position);
        self.next_pos = position;
        self.finish_if_done();
        Ok(())
    }

    /// An iterator over the items, reading with `read_at(offset, len)` (e.g. `pread`). It ends
    /// after the last item or the first error.
    pub fn items_with<F>(&mut self, read_at: F) -> DataItems<'_, F>
    where
        F: FnMut(u64, usize) -> Result<Vec<u8>>,
    {
        DataItems {
            reader: self,
            read_at,
            done: false,
        }
    }

    /// Every item from the current position to the end, for small files and tests (a large
    /// file is better walked with [`DataFileReader::items_with`]).
    pub fn decode_all_with<F>(&mut self, read_at: F) -> Result<Vec<DataItem>>
    where
        F: FnMut(u64, usize) -> Result<Vec<u8>>,
    {
        self.items_with(read_at).collect()
    }
}

/// Before 3.0 a partition starts as in 3.0 (u16-length key, then i32 local deletion time and
/// i64 markedForDeleteAt); nothing after the header is decoded.
fn headers_only_schema(version: crate::version::Version) -> DataSchema {
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

/// Iterator returned by [`DataFileReader::items_with`].
pub struct DataItems<'r, F> {
    reader: &'r mut DataFileReader,
    read_at: F,
    done: bool,
}

impl<F> Iterator for DataItems<'_, F>
where
    F: FnMut(u64, usize) -> Result<Vec<u8>>,
{
    type Item = Result<DataItem>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let step = match self.reader.next_item() {
                Ok(s) => s,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            match step {
                DecodeStep::Item(item) => return Some(Ok(item)),
                DecodeStep::Finished => self.done = true,
                DecodeStep::NeedMoreData => {
                    let Some((offset, len)) = self.reader.next_read() else {
                        // Unreachable in practice: next_item finishes the input when nothing
                        // more can be read.
                        self.done = true;
                        return None;
                    };
                    let result = usize::try_from(len)
                        .map_err(|_| {
                            Error::invalid(format!("read of {len} bytes"), offset)
                                .in_component(ComponentType::Data)
                        })
                        .and_then(|n| (self.read_at)(offset, n))
                        .and_then(|bytes| self.reader.supply(offset, &bytes));
                    if let Err(e) = result {
                        self.done = true;
                        return Some(Err(e));
                    }
                }
            }
        }
        None
    }
}
