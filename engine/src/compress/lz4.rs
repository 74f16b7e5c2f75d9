//! LZ4Compressor chunks.
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | uncompressed length, u32 **little-endian** |
//! | 4.. | one raw LZ4 block (no frame, no checksum) |
//!
//! Src: `src/java/org/apache/cassandra/io/compress/LZ4Compressor.java`: the writer puts the
//! length first and the block after it; the reader decompresses exactly that many bytes and
//! rejects a block that does not use all of the stored bytes.

use super::CodecError;

/// Bytes of the little-endian length before the block.
const LENGTH_BYTES: usize = 4;

/// The claimed uncompressed length (at most `expected_bytes`) and the LZ4 block.
fn split_header(stored: &[u8], expected_bytes: usize) -> Result<(usize, &[u8]), CodecError> {
    let Some((header, block)) = stored.split_first_chunk::<LENGTH_BYTES>() else {
        return Err(CodecError::Corrupt(format!(
            "{} bytes cannot hold the 4-byte LZ4 length",
            stored.len()
        )));
    };
    let claimed = u32::from_le_bytes(*header);
    let claimed_bytes = usize::try_from(claimed).map_err(|_| CodecError::LengthTooLarge {
        claimed_bytes: u64::from(claimed),
        limit_bytes: expected_bytes as u64,
    })?;
    if claimed_bytes > expected_bytes {
        return Err(CodecError::LengthTooLarge {
            claimed_bytes: u64::from(claimed),
            limit_bytes: expected_bytes as u64,
        });
    }
    Ok((claimed_bytes, block))
}

/// Decompresses into `out` (cleared first), at most `expected_bytes`.
pub(super) fn decompress(
    stored: &[u8],
    expected_bytes: usize,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    let (claimed_bytes, block) = split_header(stored, expected_bytes)?;
    out.clear();
    out.resize(claimed_bytes, 0);
    let written = decompress_block(block, out)?;
    out.truncate(written);
    Ok(())
}

/// Decompresses into `out` (its length is the expected uncompressed length; nothing is zeroed
/// first), returning the bytes written: at most the length the chunk claims.
pub(super) fn decompress_into(stored: &[u8], out: &mut [u8]) -> Result<usize, CodecError> {
    let (claimed_bytes, block) = split_header(stored, out.len())?;
    match out.get_mut(..claimed_bytes) {
        Some(o) => decompress_block(block, o),
        None => Ok(0),
    }
}

fn decompress_block(block: &[u8], out: &mut [u8]) -> Result<usize, CodecError> {
    lz4_flex::block::decompress_into(block, out).map_err(|e| CodecError::Corrupt(e.to_string()))
}

pub(super) fn compress(data: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
    let len = u32::try_from(data.len()).map_err(|_| CodecError::LengthTooLarge {
        claimed_bytes: data.len() as u64,
        limit_bytes: u64::from(u32::MAX),
    })?;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&lz4_flex::block::compress(data));
    Ok(())
}
