//! ZstdCompressor chunks: one standard zstd frame (RFC 8878).
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `28 b5 2f fd` |
//! | 2–14 | frame header: descriptor, window descriptor or single-segment content size, content size |
//! | … | blocks (raw, RLE or compressed), each with a 3-byte header |
//! | 4 | content checksum (low 32 bits of XXH64), present: Cassandra sets the checksum flag |
//!
//! Cassandra writes with zstd-jni's one-shot `Zstd.compress(dst, src, level, true)` (level from
//! the `compression_level` option, default 3) and reads with `Zstd.decompress`, which accepts
//! concatenated and skippable frames; so does this decoder.
//!
//! Bounds: the frame's window (the decoder's allocation) may not exceed the larger of the expected
//! length and 1 MiB, and decoding stops with [`CodecError::LengthTooLarge`] as soon as the output
//! passes the expected length, so a decompression bomb costs at most one window plus one block.
//!
//! Writing uses ruzstd's encoder at its "fastest" level (about zstd level 1): the only compressing
//! level ruzstd implements. Its frames carry the content checksum too, so they read back in Cassandra.
//!
//! Src: `src/java/org/apache/cassandra/io/compress/ZstdCompressor.java`.

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

use super::CodecError;

/// The largest window accepted for chunks smaller than it.
const MIN_WINDOW_LIMIT_BYTES: u64 = 1 << 20;
/// Output decoded between two bound checks.
const DECODE_STEP_BYTES: usize = 64 * 1024;

fn corrupt(e: impl core::fmt::Display) -> CodecError {
    CodecError::Corrupt(format!("zstd: {e}"))
}

pub(super) fn decompress(
    stored: &[u8],
    expected_bytes: usize,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    if stored.is_empty() {
        return Err(CodecError::Corrupt(
            "an empty zstd chunk has no frame".to_owned(),
        ));
    }
    let too_large = |claimed: u64| CodecError::LengthTooLarge {
        claimed_bytes: claimed,
        limit_bytes: expected_bytes as u64,
    };
    let mut decoder = FrameDecoder::new();
    decoder.set_max_window_size((expected_bytes as u64).max(MIN_WINDOW_LIMIT_BYTES));
    let mut input = stored;
    while !input.is_empty() {
        match decoder.reset(&mut input) {
            Ok(()) => {}
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                length,
                ..
            })) => {
                input = usize::try_from(length)
                    .ok()
                    .and_then(|n| input.get(n..))
                    .ok_or_else(|| corrupt("skippable frame runs past the chunk"))?;
                continue;
            }
            Err(e) => return Err(corrupt(e)),
        }
        let declared = decoder.content_size();
        if declared > expected_bytes.saturating_sub(out.len()) as u64 {
            return Err(too_large((out.len() as u64).saturating_add(declared)));
        }
        loop {
            let finished = decoder
                .decode_blocks(
                    &mut input,
                    BlockDecodingStrategy::UptoBytes(DECODE_STEP_BYTES),
                )
                .map_err(corrupt)?;
            let ready = decoder.can_collect();
            let total = out.len().saturating_add(ready);
            if total > expected_bytes {
                return Err(too_large(total as u64));
            }
            decoder.collect_to_writer(&mut *out).map_err(corrupt)?;
            if finished {
                break;
            }
        }
        if let (Some(stored_sum), Some(computed)) = (
            decoder.get_checksum_from_data(),
            decoder.get_calculated_checksum(),
        ) {
            if stored_sum != computed {
                return Err(corrupt(format!(
                    "content checksum {stored_sum:#010x} stored, {computed:#010x} computed"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(feature = "write-codecs")]
pub(super) fn compress(data: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
    ruzstd::encoding::compress(data, &mut *out, ruzstd::encoding::CompressionLevel::Fastest);
    Ok(())
}
