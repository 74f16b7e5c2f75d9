//! The physical pre-3.0 Data.db, plain or compressed, feeding a [`LegacyDataDecoder`]: the one
//! chunked Data.db reader ([`ChunkedDataReader`]) of the 3.0+ format, with Adler32 chunk
//! checksums (`jb`…`la`, [`Version::uses_adler32`](crate::Version::uses_adler32)).
//!
//! | layout | stored | checksum |
//! |---|---|---|
//! | uncompressed | the bytes as they are | in CRC.db (the verifier's) |
//! | compressed | chunk i at `[offset_i, offset_{i+1})`: stored chunk + 4-byte big-endian checksum | Adler32 of the stored chunk |
//!
//! Src: cassandra-2.1 `io/compress/CompressedRandomAccessReader.java` (`reBuffer`: Adler32
//! before 3.0), `io/compress/CompressionMetadata.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::stream::LegacyDataDecoder;
use crate::component::data::ChunkedDataReader;

/// Streams the atoms of one pre-3.0 Data.db, asking the caller for byte ranges
/// (`LegacyDataFileReader::compressed(version, options, compression_info, file_len_bytes)`).
pub type LegacyDataFileReader = ChunkedDataReader<LegacyDataDecoder>;
