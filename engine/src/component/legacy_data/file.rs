//! The physical pre-3.0 Data.db, plain or compressed, feeding a [`LegacyDataDecoder`].
//!
//! | layout | stored | checksum |
//! |---|---|---|
//! | uncompressed | the bytes as they are | in CRC.db (the verifier's) |
//! | compressed | chunk i at `[offset_i, offset_{i+1})`: stored chunk + 4-byte big-endian checksum | Adler32 of the stored chunk (`jb`…`la`, [`Version::uses_adler32`]), CRC32 after |
//!
//! Same protocol as [`DataFileReader`](crate::component::data::DataFileReader): the reader names
//! the physical range it needs ([`LegacyDataFileReader::next_read`]: one chunk, or a block of a
//! plain file), the caller reads it and hands it over ([`LegacyDataFileReader::supply`]); chunk
//! offsets, lengths and codecs are CompressionInfo's and the engine's (`compress`). A checksum
//! mismatch is a finding ([`LegacyDataFileReader::take_findings`]), never a failure.
//!
//! Src: cassandra-2.1 `io/compress/CompressedRandomAccessReader.java` (`reBuffer`: Adler32
//! before 3.0), `io/compress/CompressionMetadata.java`.

use super::stream::{LegacyDataDecoder, LegacyStep};
use crate::component::compression_info::CompressionInfo;
use crate::component::data::{DecodeOptions, Finding, FindingKind};
use crate::component::ComponentType;
use crate::compress::{decompress_chunk, Compressor};
use crate::error::{Error, ErrorKind, Result};
use crate::span::Span;
use crate::version::Version;

/// Bytes asked for at a time from an uncompressed Data.db.
const PLAIN_READ_BYTES: u64 = 64 * 1024;
/// Bytes of the checksum after each stored chunk.
const CHUNK_CHECKSUM_BYTES: u64 = 4;

#[derive(Debug, Clone)]
struct Compressed {
    info: CompressionInfo,
    compressor: Compressor,
}

/// Streams the atoms of one pre-3.0 Data.db, asking the caller for byte ranges.
#[derive(Debug, Clone)]
pub struct LegacyDataFileReader {
    decoder: LegacyDataDecoder,
    compressed: Option<Compressed>,
    file_len_bytes: u64,
    data_len_bytes: u64,
    /// Next uncompressed position to hand to the decoder.
    next_pos: u64,
    chunk: Vec<u8>,
    findings: Vec<Finding>,
}

impl LegacyDataFileReader {
    /// An uncompressed Data.db of `file_len_bytes` bytes.
    pub fn uncompressed(version: Version, options: DecodeOptions, file_len_bytes: u64) -> Self {
        Self::build(version, options, None, file_len_bytes, file_len_bytes)
    }

    /// A compressed Data.db of `file_len_bytes` bytes, described by `compression`.
    pub fn compressed(
        version: Version,
        options: DecodeOptions,
        compression: CompressionInfo,
        file_len_bytes: u64,
    ) -> Self {
        let data_len = compression.data_length_bytes.value;
        let compressor = Compressor::from_class_name(&compression.compressor);
        Self::build(
            version,
            options,
            Some(Compressed {
                info: compression,
                compressor,
            }),
            file_len_bytes,
            data_len,
        )
    }

    fn build(
        version: Version,
        options: DecodeOptions,
        compressed: Option<Compressed>,
        file_len_bytes: u64,
        data_len_bytes: u64,
    ) -> Self {
        let mut reader = LegacyDataFileReader {
            decoder: LegacyDataDecoder::new(version, options),
            compressed,
            file_len_bytes,
            data_len_bytes,
            next_pos: 0,
            chunk: Vec::new(),
            findings: Vec::new(),
        };
        reader.finish_if_done();
        reader
    }

    pub fn decoder(&self) -> &LegacyDataDecoder {
        &self.decoder
    }

    /// Uncompressed length of the data.
    pub fn data_len_bytes(&self) -> u64 {
        self.data_len_bytes
    }

    /// Chunk checksum findings since the last call.
    pub fn take_findings(&mut self) -> Vec<Finding> {
        core::mem::take(&mut self.findings)
    }

    fn finish_if_done(&mut self) {
        if self.next_pos >= self.data_len_bytes && !self.decoder.is_input_finished() {
            self.decoder.finish();
        }
    }

    /// The physical byte range `(offset, len)` to read next, or `None` when all was supplied.
    pub fn next_read(&self) -> Option<(u64, u64)> {
        if self.next_pos >= self.data_len_bytes {
            return None;
        }
        match &self.compressed {
            None => Some((
                self.next_pos,
                PLAIN_READ_BYTES.min(self.data_len_bytes - self.next_pos),
            )),
            Some(c) => {
                let i = c.info.chunk_for_position(self.next_pos)?;
                let (start, end) = c.info.chunk_span(i, self.file_len_bytes)?;
                Some((start, end - start))
            }
        }
    }

    fn missing(&self, offset: u64) -> Error {
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
        .context("supplied Data.db bytes (not the range next_read asked for)")
        .in_component(ComponentType::Data)
    }

    /// Hands over the bytes read at physical `offset`, exactly the range
    /// [`LegacyDataFileReader::next_read`] asked for.
    pub fn supply(&mut self, offset: u64, bytes: &[u8]) -> Result<()> {
        let Some((want_start, want_len)) = self.next_read() else {
            return Err(self.missing(offset));
        };
        if offset != want_start || (bytes.len() as u64) < want_len {
            return Err(self.missing(offset));
        }
        let take = usize::try_from(want_len).unwrap_or(usize::MAX);
        let bytes = bytes.get(..take).unwrap_or(bytes);
        match self.compressed.take() {
            None => {
                self.decoder.push(bytes);
                self.next_pos = want_start + bytes.len() as u64;
            }
            Some(c) => {
                let result = self.supply_chunk(&c, offset, bytes);
                self.compressed = Some(c);
                result?;
            }
        }
        self.finish_if_done();
        Ok(())
    }

    fn supply_chunk(&mut self, c: &Compressed, offset: u64, bytes: &[u8]) -> Result<()> {
        let Some(i) = c.info.chunk_for_position(self.next_pos) else {
            return Err(self.missing(offset));
        };
        let chunk_len = u64::from(c.info.chunk_length_bytes.value);
        let chunk_start = (i as u64).saturating_mul(chunk_len);
        let expected = c.info.chunk_uncompressed_len(i).unwrap_or(0);
        let stored_len = (bytes.len() as u64).saturating_sub(CHUNK_CHECKSUM_BYTES);
        let split = usize::try_from(stored_len).unwrap_or(0);
        let (stored, sum) = bytes.split_at(split.min(bytes.len()));
        if let [a, b, c2, d] = sum {
            let stored_sum = u32::from_be_bytes([*a, *b, *c2, *d]);
            let version = self.decoder.version();
            let (name, computed) = if version.uses_adler32() {
                let mut h = adler32::RollingAdler32::new();
                h.update_buffer(stored);
                ("Adler32", h.hash())
            } else {
                ("CRC32", crc32fast::hash(stored))
            };
            if stored_sum != computed {
                self.findings.push(Finding::new(
                    FindingKind::ChunkChecksumMismatch,
                    Span::new(offset, offset + bytes.len() as u64),
                    format!(
                        "chunk {i} (Data.db bytes {offset}..{}): stored {name} {stored_sum:#010x}, \
                         computed {computed:#010x}",
                        offset + bytes.len() as u64
                    ),
                ));
            }
        }
        let expected_usize = usize::try_from(expected).unwrap_or(usize::MAX);
        if let Err(e) = decompress_chunk(&c.compressor, stored, expected_usize, &mut self.chunk) {
            return Err(Error::invalid(
                format!(
                    "chunk {i} (Data.db bytes {offset}..{}) does not decompress: {e}",
                    offset + bytes.len() as u64
                ),
                chunk_start,
            )
            .context("compressed chunk")
            .in_component(ComponentType::Data));
        }
        let skip = usize::try_from(self.next_pos.saturating_sub(chunk_start)).unwrap_or(usize::MAX);
        let part = self.chunk.get(skip..).unwrap_or(&[]);
        self.decoder.push(part);
        self.next_pos = (chunk_start + expected).max(self.next_pos + 1);
        Ok(())
    }

    /// The next item; [`LegacyStep::NeedMoreData`] means: call
    /// [`LegacyDataFileReader::next_read`], read that range and supply it.
    pub fn next_item(&mut self) -> Result<LegacyStep<'_>> {
        let stuck = self.next_read().is_none();
        let (next_pos, data_len) = (self.next_pos, self.data_len_bytes);
        match self.decoder.next_item()? {
            LegacyStep::NeedMoreData if stuck => Err(Error::new(
                ErrorKind::UnexpectedEof {
                    needed_bytes: data_len.saturating_sub(next_pos),
                    available_bytes: 0,
                },
                next_pos,
            )
            .context("Data.db (shorter than CompressionInfo says, or bad chunk offsets)")
            .in_component(ComponentType::Data)),
            step => Ok(step),
        }
    }

    /// Restarts at the partition at uncompressed `position` (from Index.db).
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
}
