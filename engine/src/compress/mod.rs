//! Chunk codecs for compressed Data.db, framed exactly as Cassandra frames them.
//!
//! | compressor | stored chunk | module |
//! |---|---|---|
//! | LZ4Compressor | u32 **little-endian** uncompressed length, then one raw LZ4 block | `lz4.rs` |
//! | SnappyCompressor | one raw Snappy block (LEB128 length preamble, no stream framing) | `snappy.rs` |
//! | DeflateCompressor | one zlib stream (header, deflate, Adler-32); an empty chunk is 0 bytes | `deflate.rs` |
//! | ZstdCompressor | one zstd frame with the content-checksum flag | `zstd.rs` |
//! | NoopCompressor | the bytes as they are | here |
//!
//! Src: `src/java/org/apache/cassandra/io/compress/LZ4Compressor.java`, `SnappyCompressor.java`,
//! `DeflateCompressor.java`, `ZstdCompressor.java`, `NoopCompressor.java`,
//! `io/util/CompressedChunkReader.java`, `schema/CompressionParams.java` (class names).
//!
//! Every decompressor writes into a buffer bounded by the uncompressed length the caller expects
//! (from CompressionInfo): a stored length that claims more is an error, never an allocation, and a
//! stream that would inflate past the bound (a decompression bomb) stops there with
//! [`CodecError::LengthTooLarge`]. Whether a chunk is stored raw (na+: stored length ≥ max
//! compressed length) is decided by the caller from CompressionInfo before calling
//! [`decompress_chunk`].
//!
//! [`compress_chunk`] writes the same framing, for tests and a future writer. Zstd is written at
//! ruzstd's fastest level (about zstd level 1) whatever `compression_level` says; the other codecs
//! match Cassandra's defaults (LZ4 fast, zlib level 6).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use core::fmt;

use serde::Serialize;

mod deflate;
mod lz4;
mod snappy;
mod zstd;

/// A Data.db compressor, by the class name CompressionInfo.db stores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Compressor {
    Lz4,
    Snappy,
    Deflate,
    Zstd,
    Noop,
    /// A class this engine has no codec for (a custom compressor).
    Unknown(String),
}

impl Compressor {
    /// From a short (`LZ4Compressor`) or fully qualified class name.
    pub fn from_class_name(name: &str) -> Compressor {
        let short = name.rsplit('.').next().unwrap_or(name);
        match short {
            "LZ4Compressor" => Compressor::Lz4,
            "SnappyCompressor" => Compressor::Snappy,
            "DeflateCompressor" => Compressor::Deflate,
            "ZstdCompressor" => Compressor::Zstd,
            "NoopCompressor" => Compressor::Noop,
            _ => Compressor::Unknown(name.to_owned()),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Compressor::Lz4 => "LZ4Compressor",
            Compressor::Snappy => "SnappyCompressor",
            Compressor::Deflate => "DeflateCompressor",
            Compressor::Zstd => "ZstdCompressor",
            Compressor::Noop => "NoopCompressor",
            Compressor::Unknown(n) => n,
        }
    }

    /// A short lowercase codec name for reports: `lz4`, `snappy`, `deflate`, `zstd`, `noop`, or
    /// the class name of an unknown compressor.
    pub fn codec_name(&self) -> &str {
        match self {
            Compressor::Lz4 => "lz4",
            Compressor::Snappy => "snappy",
            Compressor::Deflate => "deflate",
            Compressor::Zstd => "zstd",
            Compressor::Noop => "noop",
            Compressor::Unknown(n) => n,
        }
    }
}

/// Why a chunk did not decompress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum CodecError {
    /// The chunk's own length header (or its output) claims more than the chunk can hold.
    LengthTooLarge {
        claimed_bytes: u64,
        limit_bytes: u64,
    },
    /// The decompressed length differs from what CompressionInfo implies.
    WrongLength {
        expected_bytes: u64,
        actual_bytes: u64,
    },
    /// The codec rejected the compressed bytes.
    Corrupt(String),
    /// No codec for this compressor in this build.
    Unsupported(String),
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodecError::LengthTooLarge {
                claimed_bytes,
                limit_bytes,
            } => write!(
                f,
                "chunk claims {claimed_bytes} uncompressed bytes, more than the {limit_bytes} it may hold"
            ),
            CodecError::WrongLength {
                expected_bytes,
                actual_bytes,
            } => {
                write!(
                    f,
                    "chunk decompressed to {actual_bytes} bytes, expected {expected_bytes}"
                )
            }
            CodecError::Corrupt(m) => write!(f, "corrupt compressed data: {m}"),
            CodecError::Unsupported(c) => write!(f, "no codec for {c}"),
        }
    }
}

impl std::error::Error for CodecError {}

/// The most bytes `stored_bytes` of `compressor`'s framing can decompress to: what a buffer
/// for the chunk may be sized by, whatever CompressionInfo.db's chunk length says (an untrusted
/// length). LZ4 expands at most 255 × (a match length run of 255-bytes, plus a block's last
/// literals), Snappy at most 64 bytes per 2-byte copy tag, Deflate at most 1,032 × (258 bytes per
/// 2-bit … 1-bit code, RFC 1951), Zstd at most a 128 KiB block per 4 bytes (an RLE block);
/// stored bytes as they are, and no bound for an unknown codec (it cannot be decompressed).
pub fn max_decompressed_bytes(compressor: &Compressor, stored_bytes: usize) -> u64 {
    let n = stored_bytes as u64;
    let (ratio, slack) = match compressor {
        Compressor::Lz4 => (255, 64),
        Compressor::Snappy => (32, 64),
        Compressor::Deflate => (1032, 64),
        Compressor::Zstd => (32 * 1024, 128 * 1024),
        Compressor::Noop => (1, 0),
        Compressor::Unknown(_) => return u64::MAX,
    };
    n.saturating_mul(ratio).saturating_add(slack)
}

/// A chunk whose expected uncompressed length no codec could reach from its stored bytes.
pub fn check_expansion(
    compressor: &Compressor,
    stored_bytes: usize,
    expected_bytes: u64,
) -> Result<(), CodecError> {
    let limit_bytes = max_decompressed_bytes(compressor, stored_bytes);
    if expected_bytes > limit_bytes {
        return Err(CodecError::LengthTooLarge {
            claimed_bytes: expected_bytes,
            limit_bytes,
        });
    }
    Ok(())
}

/// Decompresses one stored chunk (without its trailing checksum) into `out`, which is cleared
/// first. `expected_bytes` is the chunk's uncompressed length from CompressionInfo (the chunk
/// length, or less for the last chunk); the output must be exactly that long.
pub fn decompress_chunk(
    compressor: &Compressor,
    stored: &[u8],
    expected_bytes: usize,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    out.clear();
    // (A noop chunk copies what is stored: its length is checked below.)
    if *compressor != Compressor::Noop {
        check_expansion(compressor, stored.len(), expected_bytes as u64)?;
    }
    match compressor {
        Compressor::Lz4 => lz4::decompress(stored, expected_bytes, out)?,
        Compressor::Snappy => snappy::decompress(stored, expected_bytes, out)?,
        Compressor::Deflate => deflate::decompress(stored, expected_bytes, out)?,
        Compressor::Zstd => zstd::decompress(stored, expected_bytes, out)?,
        Compressor::Noop => out.extend_from_slice(
            stored
                .get(..expected_bytes.min(stored.len()))
                .unwrap_or(stored),
        ),
        Compressor::Unknown(name) => return Err(CodecError::Unsupported(name.clone())),
    }
    if out.len() != expected_bytes {
        return Err(CodecError::WrongLength {
            expected_bytes: expected_bytes as u64,
            actual_bytes: out.len() as u64,
        });
    }
    Ok(())
}

/// [`decompress_chunk`] into `out`, which is exactly `expected_bytes` long and must be filled
/// entirely: the Data.db reader decompresses a chunk straight into its decode window, whose
/// buffer is only grown, never re-zeroed (LZ4 and uncompressed chunks in place; the other
/// codecs through a temporary buffer). `out` holds garbage after an error.
pub fn decompress_chunk_into(
    compressor: &Compressor,
    stored: &[u8],
    out: &mut [u8],
) -> Result<(), CodecError> {
    let expected_bytes = out.len();
    let actual = match compressor {
        Compressor::Lz4 => lz4::decompress_into(stored, out)?,
        Compressor::Noop => {
            let part = stored.get(..expected_bytes).unwrap_or(stored);
            match out.get_mut(..part.len()) {
                Some(o) => o.copy_from_slice(part),
                None => {
                    return Err(CodecError::Corrupt(
                        "noop chunk longer than expected".into(),
                    ))
                }
            }
            part.len()
        }
        _ => {
            let mut tmp = Vec::new();
            decompress_chunk(compressor, stored, expected_bytes, &mut tmp)?;
            match out.get_mut(..tmp.len()) {
                Some(o) => o.copy_from_slice(&tmp),
                None => return Err(CodecError::Corrupt("chunk longer than expected".into())),
            }
            tmp.len()
        }
    };
    if actual != expected_bytes {
        return Err(CodecError::WrongLength {
            expected_bytes: expected_bytes as u64,
            actual_bytes: actual as u64,
        });
    }
    Ok(())
}

/// Compresses one chunk of uncompressed `data` into `out` (cleared first), framed as
/// `compressor`'s Cassandra class writes it. The 4-byte chunk checksum is not included. Without
/// the feature `write-codecs`, Snappy, Deflate and Zstd are `Unsupported`.
pub fn compress_chunk(
    compressor: &Compressor,
    data: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    out.clear();
    match compressor {
        Compressor::Lz4 => lz4::compress(data, out),
        #[cfg(feature = "write-codecs")]
        Compressor::Snappy => snappy::compress(data, out),
        #[cfg(feature = "write-codecs")]
        Compressor::Deflate => deflate::compress(data, out),
        #[cfg(feature = "write-codecs")]
        Compressor::Zstd => zstd::compress(data, out),
        #[cfg(not(feature = "write-codecs"))]
        Compressor::Snappy | Compressor::Deflate | Compressor::Zstd => {
            Err(CodecError::Unsupported(format!(
                "{} (this build writes LZ4 only: feature write-codecs)",
                compressor.name()
            )))
        }
        Compressor::Noop => {
            out.extend_from_slice(data);
            Ok(())
        }
        Compressor::Unknown(name) => Err(CodecError::Unsupported(name.clone())),
    }
}

/// Compresses `data` as Cassandra's LZ4Compressor frames a chunk (same as
/// [`compress_chunk`] with [`Compressor::Lz4`]; a chunk over 4 GiB leaves `out` empty).
pub fn compress_lz4(data: &[u8], out: &mut Vec<u8>) {
    if compress_chunk(&Compressor::Lz4, data, out).is_err() {
        out.clear();
    }
}

/// Raw decompression of every chunk of `data`, a whole compressed Data.db, into `out`, one
/// reused buffer grown to the largest chunk and never re-zeroed: nothing else (no checksum, no
/// decoding). It is the limit the benches compare row decoding against (`sstable-inspect bench`,
/// the page's scan bench). Returns the uncompressed bytes produced; a chunk outside `data` or
/// that fails to decompress adds nothing.
pub fn decompress_all_chunks(
    ci: &crate::component::compression_info::CompressionInfo,
    data: &[u8],
    out: &mut Vec<u8>,
) -> u64 {
    let compressor = Compressor::from_class_name(&ci.compressor);
    let data_len = data.len() as u64;
    let mut produced = 0u64;
    for i in 0..ci.chunk_offsets.len() {
        let Some((start, end)) = ci.chunk_span(i, data_len) else {
            continue;
        };
        // The stored chunk without its 4-byte checksum.
        let stored = usize::try_from(start)
            .ok()
            .zip(usize::try_from(end.saturating_sub(4)).ok())
            .and_then(|(s, e)| data.get(s..e));
        let expected = ci
            .chunk_uncompressed_len(i)
            .and_then(|n| usize::try_from(n).ok());
        let (Some(stored), Some(expected)) = (stored, expected) else {
            continue;
        };
        if out.len() < expected {
            out.resize(expected, 0);
        }
        if let Some(window) = out.get_mut(..expected) {
            if decompress_chunk_into(&compressor, stored, window).is_ok() {
                produced = produced.saturating_add(expected as u64);
            }
        }
    }
    produced
}

#[cfg(test)]
mod tests;
