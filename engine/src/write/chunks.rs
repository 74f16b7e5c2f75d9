//! Data.db as stored: compressed chunks with CRC32s and CompressionInfo.db, or raw bytes with
//! CRC.db; and Digest.crc32 over the whole stored file.
//!
//! | output | layout | Src |
//! |---|---|---|
//! | compressed Data.db | per `chunk_length` uncompressed bytes: the compressed chunk, then its CRC32 (big-endian) | `io/compress/CompressedSequentialWriter.java` |
//! | CompressionInfo.db | writeUTF class, i32 option count, options, i32 chunk length, [na+: i32 max compressed length], i64 data length, i32 chunk count, i64 offsets | `io/compress/CompressionMetadata.java` (`Writer`) |
//! | uncompressed Data.db + CRC.db | the bytes as they are; CRC.db = i32 chunk size + one CRC32 per chunk | `io/util/ChecksummedSequentialWriter.java`, `io/util/ChecksumWriter.java` |
//! | Digest.crc32 | decimal CRC32 of the whole stored Data.db (chunk CRCs included) | `io/util/ChecksumWriter.java` (`writeFullChecksum`) |
//!
//! Only the current chunk (uncompressed and compressed) is buffered; chunk offsets (8 bytes per
//! chunk) and CRC.db checksums (4 bytes per chunk) are kept until the end, as Cassandra does.
//! The max compressed length is always `i32::MAX` (no `min_compress_ratio`), so every chunk is
//! stored compressed. Codecs: [`compress::compress_chunk`] (LZ4, Snappy, Deflate, Zstd, Noop;
//! Zstd at ruzstd's fastest level, so the stored chunks differ from Cassandra's level-3 ones while
//! decoding to the same bytes).

use super::bytes::Out;
use super::ComponentSink;
use crate::component::ComponentType;
use crate::compress::{self, Compressor};
use crate::error::{Error, Result};
use crate::version::Version;

/// The stored Data.db stream.
#[derive(Debug)]
pub struct DataStream {
    compressor: Option<Compressor>,
    chunk_length: usize,
    buffer: Vec<u8>,
    compressed: Vec<u8>,
    /// Uncompressed bytes written so far (positions in Index.db refer to these).
    position: u64,
    /// Stored bytes emitted so far.
    stored_length: u64,
    /// Compressed bytes without chunk checksums (for the compression ratio).
    compressed_bytes: u64,
    chunk_offsets: Vec<u64>,
    chunk_crcs: Vec<u32>,
    full: crc32fast::Hasher,
}

impl DataStream {
    /// `compressor` = `None` for an uncompressed Data.db with CRC.db chunks of `chunk_length`.
    pub fn new(compressor: Option<Compressor>, chunk_length: usize) -> Result<Self> {
        if let Some(c) = &compressor {
            check_codec(c)?;
        }
        if chunk_length == 0 || chunk_length > (1 << 30) {
            return Err(Error::invalid(
                format!("chunk length {chunk_length} is not in 1 B ..= 1 GiB"),
                0,
            ));
        }
        Ok(DataStream {
            compressor,
            chunk_length,
            buffer: Vec::with_capacity(chunk_length),
            compressed: Vec::new(),
            position: 0,
            stored_length: 0,
            compressed_bytes: 0,
            chunk_offsets: Vec::new(),
            chunk_crcs: Vec::new(),
            full: crc32fast::Hasher::new(),
        })
    }

    /// Uncompressed bytes written so far.
    pub fn position(&self) -> u64 {
        self.position
    }

    pub fn stored_length(&self) -> u64 {
        self.stored_length
    }

    pub fn compressor(&self) -> Option<&Compressor> {
        self.compressor.as_ref()
    }

    pub fn chunk_count(&self) -> usize {
        self.chunk_offsets.len().max(self.chunk_crcs.len())
    }

    /// Bytes held in the chunk buffers.
    pub fn buffered_bytes(&self) -> usize {
        self.buffer
            .capacity()
            .saturating_add(self.compressed.capacity())
    }

    /// Bytes of per-chunk bookkeeping (offsets, CRCs) that grow with the file.
    pub fn metadata_bytes(&self) -> usize {
        self.chunk_offsets
            .len()
            .saturating_mul(8)
            .saturating_add(self.chunk_crcs.len().saturating_mul(4))
    }

    pub fn write(&mut self, mut bytes: &[u8], sink: &mut dyn ComponentSink) -> Result<()> {
        // Positions count bytes this writer produced: far below 2^64, the saturating ops are exact.
        self.position = self.position.saturating_add(bytes.len() as u64);
        while !bytes.is_empty() {
            // The buffer is flushed as soon as it holds chunk_length bytes.
            let room = self.chunk_length.saturating_sub(self.buffer.len());
            let (now, later) = bytes.split_at(room.min(bytes.len()));
            self.buffer.extend_from_slice(now);
            bytes = later;
            if self.buffer.len() == self.chunk_length {
                self.flush_chunk(sink)?;
            }
        }
        Ok(())
    }

    fn flush_chunk(&mut self, sink: &mut dyn ComponentSink) -> Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        match &self.compressor {
            Some(c) => {
                compress_chunk(c, &self.buffer, &mut self.compressed)?;
                let crc = crc32fast::hash(&self.compressed).to_be_bytes();
                self.chunk_offsets.push(self.stored_length);
                self.full.update(&self.compressed);
                self.full.update(&crc);
                sink.write(&ComponentType::Data, &self.compressed)?;
                sink.write(&ComponentType::Data, &crc)?;
                let stored = (self.compressed.len() as u64).saturating_add(4);
                self.stored_length = self.stored_length.saturating_add(stored);
                self.compressed_bytes = self
                    .compressed_bytes
                    .saturating_add(self.compressed.len() as u64);
            }
            None => {
                self.chunk_crcs.push(crc32fast::hash(&self.buffer));
                self.full.update(&self.buffer);
                sink.write(&ComponentType::Data, &self.buffer)?;
                self.stored_length = self.stored_length.saturating_add(self.buffer.len() as u64);
            }
        }
        self.buffer.clear();
        Ok(())
    }

    /// Flushes the last chunk and returns the stream's totals.
    pub fn finish(mut self, sink: &mut dyn ComponentSink) -> Result<DataTotals> {
        self.flush_chunk(sink)?;
        let ratio = match self.compressor {
            Some(_) if self.position > 0 => self.compressed_bytes as f64 / self.position as f64,
            _ => NO_COMPRESSION_RATIO,
        };
        Ok(DataTotals {
            compressor: self.compressor,
            chunk_length: self.chunk_length,
            data_length: self.position,
            stored_length: self.stored_length,
            compression_ratio: ratio,
            chunk_offsets: self.chunk_offsets,
            chunk_crcs: self.chunk_crcs,
            digest: self.full.finalize(),
        })
    }
}

/// `MetadataCollector.NO_COMPRESSION_RATIO`.
pub const NO_COMPRESSION_RATIO: f64 = -1.0;

/// What the finished Data.db stream knows.
#[derive(Debug, Clone)]
pub struct DataTotals {
    pub compressor: Option<Compressor>,
    pub chunk_length: usize,
    pub data_length: u64,
    pub stored_length: u64,
    /// Compressed bytes (without chunk CRCs) / uncompressed bytes; −1 when uncompressed.
    pub compression_ratio: f64,
    pub chunk_offsets: Vec<u64>,
    pub chunk_crcs: Vec<u32>,
    /// CRC32 of the whole stored Data.db.
    pub digest: u32,
}

impl DataTotals {
    /// CompressionInfo.db (compressed) or CRC.db (uncompressed).
    pub fn integrity_component(&self, version: &Version) -> Result<(ComponentType, Vec<u8>)> {
        let mut out = Vec::new();
        match &self.compressor {
            Some(c) => {
                out.utf(c.name())?;
                out.i32(0);
                out.i32(self.chunk_length as i32);
                if version.has_max_compressed_length() {
                    out.i32(i32::MAX);
                }
                out.i64(self.data_length as i64);
                let count = i32::try_from(self.chunk_offsets.len())
                    .map_err(|_| Error::invalid("more than i32::MAX chunks", 0))?;
                out.i32(count);
                for o in &self.chunk_offsets {
                    out.i64(*o as i64);
                }
                Ok((ComponentType::CompressionInfo, out))
            }
            None => {
                out.i32(self.chunk_length as i32);
                for crc in &self.chunk_crcs {
                    out.u32(*crc);
                }
                Ok((ComponentType::Crc, out))
            }
        }
    }

    /// Digest.crc32: the decimal digest, no newline.
    pub fn digest_component(&self) -> Vec<u8> {
        self.digest.to_string().into_bytes()
    }
}

/// Whether this build can write chunks with `compressor`.
pub fn check_codec(compressor: &Compressor) -> Result<()> {
    let mut out = Vec::new();
    compress_chunk(compressor, b"probe", &mut out)
}

/// Compresses one chunk as Cassandra's compressor class frames it ([`compress::compress_chunk`]).
fn compress_chunk(compressor: &Compressor, data: &[u8], out: &mut Vec<u8>) -> Result<()> {
    compress::compress_chunk(compressor, data, out).map_err(|e| {
        Error::invalid(
            format!("{} cannot compress a chunk: {e}", compressor.name()),
            0,
        )
    })
}
