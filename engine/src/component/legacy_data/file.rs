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

impl LegacyDataFileReader {
    /// The Data.db reader of a decoded `jb`/`ka`/`la` SSTable (compressed when it has a
    /// CompressionInfo.db), as [`DataFileReader::for_sstable`](crate::component::data::DataFileReader::for_sstable)
    /// is for 3.0+: an error for a 3.0+ version, one before 2.0's row layout, or no Data.db.
    pub fn for_sstable(
        metadata: &crate::info::SSTableMetadata,
        options: crate::component::data::DecodeOptions,
    ) -> crate::error::Result<LegacyDataFileReader> {
        use crate::component::ComponentType;
        use crate::error::Error;
        let version = metadata.descriptor.version;
        if version.has_row_format() {
            return Err(Error::invalid(
                format!("version {version} has the 3.0 row format: no atoms"),
                0,
            )
            .in_component(ComponentType::Data));
        }
        if !LegacyDataDecoder::supports(&version) {
            return Err(Error::invalid(
                format!(
                    "version {version} predates ja (2.0): its rows carry a row size and a column \
                     count, which are not decoded"
                ),
                0,
            )
            .in_component(ComponentType::Data));
        }
        let file_len_bytes = metadata.size_of(&ComponentType::Data).ok_or_else(|| {
            Error::invalid("the SSTable has no Data.db", 0).in_component(ComponentType::Data)
        })?;
        if let Some(c) = &metadata.compression {
            c.ensure_usable(file_len_bytes)?;
        }
        Ok(LegacyDataFileReader::with_decoder(
            LegacyDataDecoder::new(version, options),
            metadata.compression.clone(),
            file_len_bytes,
        ))
    }
}
