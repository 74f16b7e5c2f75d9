//! DeflateCompressor chunks: one zlib stream.
//!
//! | bytes | field |
//! |---|---|
//! | 2 | zlib header (CMF, FLG; `78 9c` at the default level) |
//! | … | deflate blocks |
//! | 4 | Adler-32 of the uncompressed bytes, big-endian |
//!
//! `java.util.zip.Deflater`/`Inflater` with their defaults (level 6, zlib wrapper). An empty chunk
//! is stored as **zero bytes**: the writer returns before deflating when there is no input, and the
//! reader returns 0 bytes for empty input.
//!
//! Src: `src/java/org/apache/cassandra/io/compress/DeflateCompressor.java`.

use miniz_oxide::inflate::TINFLStatus;

use super::CodecError;

/// `java.util.zip.Deflater.DEFAULT_COMPRESSION` resolves to zlib level 6.
#[cfg(feature = "write-codecs")]
const DEFAULT_LEVEL: u8 = 6;

pub(super) fn decompress(
    stored: &[u8],
    expected_bytes: usize,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    if stored.is_empty() {
        return Ok(());
    }
    // The output grows to at most `expected_bytes`; a stream with more to give is an error.
    match miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(stored, expected_bytes) {
        Ok(v) => {
            *out = v;
            Ok(())
        }
        Err(e) if e.status == TINFLStatus::HasMoreOutput => Err(CodecError::LengthTooLarge {
            claimed_bytes: (expected_bytes as u64).saturating_add(1),
            limit_bytes: expected_bytes as u64,
        }),
        Err(e) => Err(CodecError::Corrupt(format!(
            "zlib stream: {}",
            status_text(e.status)
        ))),
    }
}

#[cfg(feature = "write-codecs")]
pub(super) fn compress(data: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
    if !data.is_empty() {
        out.extend_from_slice(&miniz_oxide::deflate::compress_to_vec_zlib(
            data,
            DEFAULT_LEVEL,
        ));
    }
    Ok(())
}

fn status_text(status: TINFLStatus) -> &'static str {
    match status {
        TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => "truncated",
        TINFLStatus::Adler32Mismatch => "Adler-32 trailer mismatch",
        TINFLStatus::Failed => "invalid deflate data",
        TINFLStatus::BadParam => "bad parameter",
        TINFLStatus::HasMoreOutput => "more output than expected",
        TINFLStatus::Done => "done",
    }
}
