//! Chunk codecs for compressed Data.db, framed exactly as Cassandra frames them.
//!
//! Src: `io/compress/LZ4Compressor.java`, `SnappyCompressor.java`, `DeflateCompressor.java`,
//! `ZstdCompressor.java`, `NoopCompressor.java`, `io/util/CompressedChunkReader.java`.
//!
//! | compressor | stored chunk |
//! |---|---|
//! | LZ4Compressor | u32 **little-endian** uncompressed length, then one raw LZ4 block |
//! | NoopCompressor | the bytes as they are |
//!
//! Every decompressor writes into a buffer bounded by the uncompressed length the caller expects
//! (from CompressionInfo): a stored length that claims more is an error, never an allocation.
//! Whether a chunk is stored raw (na+: stored length ≥ max compressed length) is decided by the
//! caller from CompressionInfo before calling [`decompress_chunk`].

use core::fmt;

use serde::Serialize;

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
}

/// Why a chunk did not decompress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum CodecError {
    /// The chunk's own length header claims more than the chunk can hold.
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
            CodecError::LengthTooLarge { claimed_bytes, limit_bytes } => write!(
                f,
                "chunk header claims {claimed_bytes} uncompressed bytes, more than the {limit_bytes} a chunk holds"
            ),
            CodecError::WrongLength { expected_bytes, actual_bytes } => {
                write!(f, "chunk decompressed to {actual_bytes} bytes, expected {expected_bytes}")
            }
            CodecError::Corrupt(m) => write!(f, "corrupt compressed data: {m}"),
            CodecError::Unsupported(c) => write!(f, "no decompressor for {c}"),
        }
    }
}

impl std::error::Error for CodecError {}

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
    match compressor {
        Compressor::Lz4 => lz4(stored, expected_bytes, out)?,
        Compressor::Noop => out.extend_from_slice(
            stored
                .get(..expected_bytes.min(stored.len()))
                .unwrap_or(stored),
        ),
        other => return Err(CodecError::Unsupported(other.name().to_owned())),
    }
    if out.len() != expected_bytes {
        return Err(CodecError::WrongLength {
            expected_bytes: expected_bytes as u64,
            actual_bytes: out.len() as u64,
        });
    }
    Ok(())
}

fn lz4(stored: &[u8], expected_bytes: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
    let (header, block) = match (stored.get(..4), stored.get(4..)) {
        (Some(h), Some(b)) => (h, b),
        _ => {
            return Err(CodecError::Corrupt(format!(
                "{} bytes cannot hold the 4-byte LZ4 length",
                stored.len()
            )))
        }
    };
    let mut le = [0u8; 4];
    le.copy_from_slice(header);
    let claimed = u32::from_le_bytes(le) as usize;
    if claimed > expected_bytes {
        return Err(CodecError::LengthTooLarge {
            claimed_bytes: claimed as u64,
            limit_bytes: expected_bytes as u64,
        });
    }
    out.resize(claimed, 0);
    let written = lz4_flex::block::decompress_into(block, out)
        .map_err(|e| CodecError::Corrupt(e.to_string()))?;
    out.truncate(written);
    Ok(())
}

/// Compresses `data` as Cassandra's LZ4Compressor frames a chunk (for the writer and tests).
pub fn compress_lz4(data: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(&lz4_flex::block::compress(data));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lz4_round_trip_and_lying_lengths() {
        let data: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
        let mut stored = Vec::new();
        compress_lz4(&data, &mut stored);
        let mut out = Vec::new();
        decompress_chunk(&Compressor::Lz4, &stored, data.len(), &mut out).unwrap();
        assert_eq!(out, data);
        // The chunk claims more than CompressionInfo allows: an error, not an allocation.
        let mut lying = stored.clone();
        lying[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            decompress_chunk(&Compressor::Lz4, &lying, data.len(), &mut out),
            Err(CodecError::LengthTooLarge { .. })
        ));
        // Every truncation and every flip: Ok or Err, never a panic.
        for n in 0..stored.len() {
            let _ = decompress_chunk(&Compressor::Lz4, &stored[..n], data.len(), &mut out);
        }
        for i in 0..stored.len() {
            let mut flipped = stored.clone();
            flipped[i] ^= 0xff;
            let _ = decompress_chunk(&Compressor::Lz4, &flipped, data.len(), &mut out);
        }
    }

    #[test]
    fn class_names_short_or_qualified() {
        assert_eq!(
            Compressor::from_class_name("LZ4Compressor"),
            Compressor::Lz4
        );
        assert_eq!(
            Compressor::from_class_name("org.apache.cassandra.io.compress.ZstdCompressor"),
            Compressor::Zstd
        );
        assert!(matches!(
            Compressor::from_class_name("com.acme.Custom"),
            Compressor::Unknown(_)
        ));
    }
}
