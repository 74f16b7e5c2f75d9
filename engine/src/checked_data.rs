//! Data.db read as Cassandra reads it (`io/util/CompressedChunkReader.java`): the checksum of
//! every compressed chunk is verified before its bytes are used.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::clock::Clock;
use crate::component::crc::ChecksumType;
use crate::component::data::{DataFileReader, DecodeOptions, DecodeStep};
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::metadata::SSTableMetadata;
use crate::range::{ByteRange, ItemReader, RangeReader};
use crate::version::Format;

/// Data.db read as Cassandra reads it (`CompressedChunkReader`): the checksum of every
/// compressed chunk is verified before its bytes are used; a mismatch is an error naming the
/// chunk. Wraps the engine's [`DataFileReader`].
#[derive(Debug, Clone)]
pub struct CheckedDataReader {
    reader: DataFileReader,
    /// For a compressed Data.db (from `jb`, where the checksum covers the stored bytes): the
    /// chunk checksum algorithm and the chunk offsets.
    chunks: Option<(ChecksumType, Vec<u64>)>,
}

impl CheckedDataReader {
    /// The Data.db reader of the SSTable ([`DataFileReader::for_sstable`]), checking chunks.
    pub fn for_sstable(metadata: &SSTableMetadata, options: DecodeOptions) -> Result<Self> {
        let reader = DataFileReader::for_sstable(metadata, options)?;
        let version = metadata.descriptor.version;
        let checked = version.format() == Format::Bti || version.as_str() >= "jb";
        let chunks = metadata.compression.as_ref().filter(|_| checked).map(|c| {
            (
                ChecksumType::for_compressed_chunks(&version),
                c.chunk_offsets.clone(),
            )
        });
        Ok(CheckedDataReader { reader, chunks })
    }

    /// Reads of an uncompressed file ask for `bytes` at a time.
    pub fn with_read_block_bytes(mut self, bytes: u64) -> Self {
        self.reader = self.reader.with_read_block_bytes(bytes);
        self
    }

    pub fn reader(&self) -> &DataFileReader {
        &self.reader
    }

    pub fn reader_mut(&mut self) -> &mut DataFileReader {
        &mut self.reader
    }

    /// Verifies the checksum after the stored chunk `bytes` read at `range`.
    fn check_chunk(&self, range: &ByteRange, bytes: &[u8]) -> Result<()> {
        let Some((algorithm, offsets)) = &self.chunks else {
            return Ok(());
        };
        let Some(i) = offsets.iter().position(|&o| o == range.offset) else {
            return Ok(());
        };
        let want = usize::try_from(range.len)
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        let Some(split) = want.checked_sub(4) else {
            return Err(Error::invalid(
                format!(
                    "chunk {i} (Data.db {}..{}) is shorter than its checksum",
                    range.offset,
                    range.end()
                ),
                range.offset,
            )
            .context("compressed chunk")
            .in_component(ComponentType::Data));
        };
        let (stored, trailer) = bytes.get(..want).unwrap_or(bytes).split_at(split);
        let expected = match trailer {
            [a, b, c, d] => u32::from_be_bytes([*a, *b, *c, *d]),
            _ => return Ok(()),
        };
        let computed = algorithm.checksum(stored);
        if computed != expected {
            return Err(Error::invalid(
                format!(
                    "chunk {i} (Data.db {}..{}) fails its checksum: stored {} {expected:#010x}, computed {computed:#010x}",
                    range.offset,
                    range.end(),
                    match algorithm {
                        ChecksumType::Crc32 => "CRC32",
                        ChecksumType::Adler32 => "Adler32"}
                ),
                range.offset,
            )
            .context("compressed chunk checksum")
            .in_component(ComponentType::Data));
        }
        Ok(())
    }
}

impl RangeReader for CheckedDataReader {
    fn next_read(&self) -> Option<ByteRange> {
        RangeReader::next_read(&self.reader)
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        self.check_chunk(range, bytes)?;
        RangeReader::supply(&mut self.reader, range, bytes, clock)?;
        // The reader's own CRC32 findings are superseded by the check above.
        let _ = self.reader.take_findings();
        Ok(())
    }
}

impl ItemReader for CheckedDataReader {
    fn next_item(&mut self) -> Result<DecodeStep> {
        self.reader.next_item()
    }
}
