//! Data.db read as a debugging tool must read it: the checksum of every compressed chunk is
//! verified before its bytes are used (as Cassandra's `io/util/CompressedChunkReader.java`
//! does), and so is the CRC.db checksum of every chunk of an uncompressed file that a read
//! touches (which Cassandra does not check on read; `io/util/DataIntegrityMetadata.java`'s
//! `ChecksumValidator` is the verifier's).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::clock::Clock;
use crate::component::crc::{ChecksumType, CrcFile};
use crate::component::data::{DataFileReader, DataItem, DecodeOptions, DecodeStep, PartitionStart};
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::metadata::SSTableMetadata;
use crate::range::{ByteRange, ItemReader, RangeReader};
use crate::version::Format;

/// The largest CRC.db chunk a read is widened to (reads stay bounded whatever CRC.db says).
pub const MAX_CRC_CHUNK_BYTES: u64 = 1 << 20;

/// Data.db read with its checksums checked: every compressed chunk (`CompressedChunkReader`),
/// or every CRC.db chunk of an uncompressed file that a read touches, is verified before its
/// bytes are used; a mismatch is an error naming the chunk. Wraps the engine's
/// [`DataFileReader`].
#[derive(Debug, Clone)]
pub struct CheckedDataReader {
    reader: DataFileReader,
    /// For a compressed Data.db (from `jb`, where the checksum covers the stored bytes): the
    /// chunk checksum algorithm and the chunk offsets.
    chunks: Option<(ChecksumType, Vec<u64>)>,
    /// For an uncompressed Data.db with a decoded CRC.db: its checksums and the Data.db size.
    /// Reads are widened to whole CRC.db chunks so that each can be checked.
    crc: Option<(CrcFile, u64)>,
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
        // A chunk size past MAX_CRC_CHUNK_BYTES (Cassandra writes 64 KiB) would widen every read
        // towards the whole file: such a CRC.db is not used, and the reads say so.
        let crc = match (&metadata.compression, &metadata.crc) {
            (None, Some(crc))
                if crc.chunk_size_bytes.value > 0
                    && u64::from(crc.chunk_size_bytes.value) <= MAX_CRC_CHUNK_BYTES =>
            {
                metadata
                    .size_of(&ComponentType::Data)
                    .map(|len| (crc.clone(), len))
            }
            _ => None,
        };
        Ok(CheckedDataReader {
            reader,
            chunks,
            crc,
        })
    }

    /// Whether every Data.db byte this reader hands on was checked first: a compressed file
    /// with chunk checksums, or an uncompressed one with a CRC.db. When not, the reads are
    /// covered only by Digest.crc32, which covers the whole file and is not read here.
    pub fn checks_every_read(&self) -> bool {
        self.chunks.is_some() || self.crc.is_some()
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

    /// Starts reading the partition header at uncompressed Data.db `position`.
    pub fn seek_to_partition(&mut self, position: u64) -> Result<()> {
        self.reader.seek_to_partition(position)
    }

    /// The partition header at `position` (after [`CheckedDataReader::seek_to_partition`])
    /// from the bytes supplied so far; `None`: supply [`RangeReader::next_read`] first.
    pub fn poll_partition_start(&mut self, position: u64) -> Option<Result<PartitionStart>> {
        match self.reader.next_item() {
            Ok(DecodeStep::NeedMoreData) => None,
            Ok(DecodeStep::Item(DataItem::PartitionStart(s))) => Some(Ok(s)),
            Ok(DecodeStep::Item(other)) => Some(Err(not_a_partition_header(position, &other))),
            Ok(DecodeStep::Finished) => Some(Err(Error::invalid(
                format!("no partition at Data.db {position}: the data ends there"),
                position,
            )
            .in_component(ComponentType::Data))),
            Err(e) => Some(Err(e)),
        }
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

    /// `range` of an uncompressed file widened to the CRC.db chunks it touches.
    fn widen_to_crc_chunks(&self, range: ByteRange) -> ByteRange {
        let Some((crc, data_len)) = &self.crc else {
            return range;
        };
        let size = u64::from(crc.chunk_size_bytes.value);
        let start = range
            .offset
            .checked_div(size)
            .unwrap_or(0)
            .saturating_mul(size);
        let end = range
            .end()
            .div_ceil(size)
            .saturating_mul(size)
            .min(*data_len)
            .max(range.end());
        ByteRange::new(range.component, start, end.saturating_sub(start))
    }

    /// Verifies the CRC.db checksum of every whole CRC.db chunk in `bytes` read at `range`.
    fn check_crc_chunks(&self, range: &ByteRange, bytes: &[u8]) -> Result<()> {
        let Some((crc, data_len)) = &self.crc else {
            return Ok(());
        };
        let size = u64::from(crc.chunk_size_bytes.value);
        let first = usize::try_from(range.offset.div_ceil(size)).unwrap_or(usize::MAX);
        let read_end = range.offset.saturating_add(bytes.len() as u64);
        let mut i = first;
        while let Some((start, end)) = crc.chunk_range(i, *data_len) {
            if end > read_end {
                break;
            }
            let from = usize::try_from(start.saturating_sub(range.offset)).unwrap_or(usize::MAX);
            let to = usize::try_from(end.saturating_sub(range.offset)).unwrap_or(usize::MAX);
            let Some(chunk) = bytes.get(from..to) else {
                break;
            };
            let Some(&expected) = crc.checksums.get(i) else {
                return Err(Error::invalid(
                    format!(
                        "Data.db {start}..{end} (CRC.db chunk {i}) has no checksum: CRC.db holds {}",
                        crc.checksums.len()
                    ),
                    start,
                )
                .context("CRC.db chunk")
                .in_component(ComponentType::Data));
            };
            let computed = crc.algorithm.checksum(chunk);
            if computed != expected {
                return Err(Error::invalid(
                    format!(
                        "Data.db {start}..{end} fails its CRC.db checksum (chunk {i}): stored {} {expected:#010x}, computed {computed:#010x}",
                        crc.algorithm.name()
                    ),
                    start,
                )
                .context("CRC.db chunk checksum")
                .in_component(ComponentType::Data));
            }
            i = i.saturating_add(1);
        }
        Ok(())
    }
}

/// The error for an item other than a partition header where the index says one starts.
pub(crate) fn not_a_partition_header(position: u64, found: &DataItem) -> Error {
    Error::invalid(
        format!(
            "expected a partition header at Data.db {position}, found an item at {}",
            found.position()
        ),
        position,
    )
    .in_component(ComponentType::Data)
}

impl RangeReader for CheckedDataReader {
    fn next_read(&self) -> Option<ByteRange> {
        RangeReader::next_read(&self.reader).map(|r| self.widen_to_crc_chunks(r))
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        self.check_chunk(range, bytes)?;
        self.check_crc_chunks(range, bytes)?;
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
