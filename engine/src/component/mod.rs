//! SSTable component types and their file-name suffixes.
//!
//! Src: `io/sstable/Component.java`, `format/SSTableFormat.java` (`Components`),
//! `format/big/BigFormat.java`, `format/bti/BtiFormat.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

pub mod bti;
pub mod common;
pub mod compression_info;
pub mod crc;
pub mod data;
pub mod digest;
pub mod filter;
pub mod index;
pub mod legacy_data;
pub mod scylla;
pub mod statistics;
pub mod summary;
#[cfg(test)]
mod test_support;

use core::fmt;

use serde::{Serialize, Serializer};

/// One kind of file in an SSTable (Cassandra's `Component.Type`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ComponentType {
    Data,
    PrimaryIndex,
    Summary,
    Partitions,
    Rows,
    Statistics,
    Filter,
    CompressionInfo,
    Crc,
    /// `Digest.crc32`, `Digest.adler32` or `Digest.sha1`.
    Digest(DigestAlgorithm),
    Toc,
    /// ScyllaDB's `Scylla.db`.
    Scylla,
    /// Storage-attached index files (`SAI+...`), 5.0.
    Sai(String),
    /// Anything else (a custom or unknown component), by file-name suffix.
    Custom(String),
}

/// The checksum a `Digest.*` file holds, by its file name (`ChecksumType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DigestAlgorithm {
    Crc32,
    Adler32,
    /// Named sha1; a 2.1 (`ka`) file of this name holds a decimal Adler32.
    Sha1,
}

impl ComponentType {
    /// Parses a file-name suffix such as `Data.db` or `Digest.crc32`.
    pub fn from_suffix(suffix: &str) -> ComponentType {
        match suffix {
            "Data.db" => ComponentType::Data,
            "Index.db" => ComponentType::PrimaryIndex,
            "Summary.db" => ComponentType::Summary,
            "Partitions.db" => ComponentType::Partitions,
            "Rows.db" => ComponentType::Rows,
            "Statistics.db" => ComponentType::Statistics,
            "Filter.db" => ComponentType::Filter,
            "CompressionInfo.db" => ComponentType::CompressionInfo,
            "CRC.db" => ComponentType::Crc,
            "Digest.crc32" => ComponentType::Digest(DigestAlgorithm::Crc32),
            "Digest.adler32" => ComponentType::Digest(DigestAlgorithm::Adler32),
            "Digest.sha1" => ComponentType::Digest(DigestAlgorithm::Sha1),
            "TOC.txt" => ComponentType::Toc,
            "Scylla.db" => ComponentType::Scylla,
            s if s.starts_with("SAI+") => ComponentType::Sai(s.to_owned()),
            s => ComponentType::Custom(s.to_owned()),
        }
    }

    /// The file-name suffix, as TOC.txt lists it.
    pub fn file_suffix(&self) -> &str {
        match self {
            ComponentType::Data => "Data.db",
            ComponentType::PrimaryIndex => "Index.db",
            ComponentType::Summary => "Summary.db",
            ComponentType::Partitions => "Partitions.db",
            ComponentType::Rows => "Rows.db",
            ComponentType::Statistics => "Statistics.db",
            ComponentType::Filter => "Filter.db",
            ComponentType::CompressionInfo => "CompressionInfo.db",
            ComponentType::Crc => "CRC.db",
            ComponentType::Digest(DigestAlgorithm::Crc32) => "Digest.crc32",
            ComponentType::Digest(DigestAlgorithm::Adler32) => "Digest.adler32",
            ComponentType::Digest(DigestAlgorithm::Sha1) => "Digest.sha1",
            ComponentType::Toc => "TOC.txt",
            ComponentType::Scylla => "Scylla.db",
            ComponentType::Sai(s) | ComponentType::Custom(s) => s,
        }
    }

    /// Whether this is a component Cassandra or ScyllaDB defines (not `Custom`).
    pub fn is_known(&self) -> bool {
        !matches!(self, ComponentType::Custom(_))
    }
}

impl fmt::Display for ComponentType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.file_suffix())
    }
}

impl Serialize for ComponentType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.file_suffix())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_round_trip() {
        for s in [
            "Data.db",
            "Index.db",
            "Summary.db",
            "Partitions.db",
            "Rows.db",
            "Statistics.db",
            "Filter.db",
            "CompressionInfo.db",
            "CRC.db",
            "Digest.crc32",
            "Digest.adler32",
            "Digest.sha1",
            "TOC.txt",
            "Scylla.db",
            "SAI+aa+GroupMeta.db",
        ] {
            let c = ComponentType::from_suffix(s);
            assert!(c.is_known(), "{s}");
            assert_eq!(c.file_suffix(), s);
        }
        assert_eq!(
            ComponentType::from_suffix("Foo.db"),
            ComponentType::Custom("Foo.db".into())
        );
    }
}
