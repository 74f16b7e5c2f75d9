//! SnappyCompressor chunks: one raw Snappy block.
//!
//! | bytes | field |
//! |---|---|
//! | varint (LEB128, 1–5 bytes) | uncompressed length |
//! | rest | Snappy literal/copy elements (no stream framing, no CRC) |
//!
//! Src: `src/java/org/apache/cassandra/io/compress/SnappyCompressor.java` (`Snappy.compress` /
//! `Snappy.rawUncompress` of snappy-java, which read and write the raw block format).

use super::CodecError;

pub(super) fn decompress(
    stored: &[u8],
    expected_bytes: usize,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    // The preamble is read before anything is allocated.
    let claimed =
        snap::raw::decompress_len(stored).map_err(|e| CodecError::Corrupt(e.to_string()))?;
    if claimed > expected_bytes {
        return Err(CodecError::LengthTooLarge {
            claimed_bytes: claimed as u64,
            limit_bytes: expected_bytes as u64,
        });
    }
    if stored.is_empty() {
        return Err(CodecError::Corrupt(
            "an empty Snappy chunk has no length preamble".to_owned(),
        ));
    }
    out.resize(claimed, 0);
    let written = snap::raw::Decoder::new()
        .decompress(stored, out)
        .map_err(|e| CodecError::Corrupt(e.to_string()))?;
    out.truncate(written);
    Ok(())
}

#[cfg(feature = "write-codecs")]
pub(super) fn compress(data: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
    let start = out.len();
    out.resize(
        start.saturating_add(snap::raw::max_compress_len(data.len())),
        0,
    );
    let target = out.get_mut(start..).unwrap_or_default();
    let written = snap::raw::Encoder::new()
        .compress(data, target)
        .map_err(|e| CodecError::Corrupt(e.to_string()))?;
    out.truncate(start.saturating_add(written));
    Ok(())
}
