//! SSTable format and version letters, with Cassandra's feature predicates.
//!
//! Src: `format/big/BigFormat.java` (`BigVersion`), `format/bti/BtiFormat.java` (`BtiVersion`),
//! `format/Version.java`; the 3.0/2.2 branches for the older flags. Versions are compared as
//! strings *within* one format only: `"da" < "na"`, yet `da` has every `na` feature.
//!
//! DataStax Enterprise 6.x writes its own versions, `aa`…`bb`, in both formats (e.g.
//! `bb-1-bti-Data.db`). Their flags follow DataStax's converged Cassandra `BtiFormat.BtiVersion`
//! (public): `aa` DSE 6.0 (3.0-style rows, legacy min/max, old bloom filter), `ac` accurate min/max,
//! `ad` originating host id; `ba` DSE 6.8 (improved min/max, new bloom filter, DSE-only STATS
//! fields: zero-copy metadata, incremental NodeSync, max column value lengths), `bb` host id. All
//! have metadata CRCs, commit-log intervals, pending repair; none has `isTransient`, key range or
//! unsigned deletion times. See [`Version::is_dse`].

use core::fmt;

use serde::{Serialize, Serializer};

/// The SSTable format: `big` (Index.db + Summary.db) or `bti` (trie indexes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Big,
    Bti,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "big" => Some(Format::Big),
            "bti" => Some(Format::Bti),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Big => "big",
            Format::Bti => "bti",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Format {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A two-letter version (`nb`, `oa`, `da`, …) of a given format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Version {
    format: Format,
    letters: [u8; 2],
}

impl Version {
    /// Parses two lowercase ASCII letters.
    pub fn parse(format: Format, s: &str) -> Option<Version> {
        match s.as_bytes() {
            &[a, b] if a.is_ascii_lowercase() && b.is_ascii_lowercase() => Some(Version {
                format,
                letters: [a, b],
            }),
            _ => None,
        }
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// The two letters, e.g. `"nb"`.
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.letters).unwrap_or("??")
    }

    fn at_least(&self, v: &str) -> bool {
        self.as_str() >= v
    }

    fn is_bti(&self) -> bool {
        self.format == Format::Bti && !self.is_dse()
    }

    /// DataStax Enterprise 6.x (`aa`…`bz`, big or bti): the `a` line is DSE 6.0/6.7, `b` DSE 6.8.
    pub fn is_dse(&self) -> bool {
        matches!(self.letters[0], b'a' | b'b')
    }

    /// DSE 6.0/6.7 (`a?`).
    fn is_dse_a(&self) -> bool {
        self.letters[0] == b'a'
    }

    /// DSE 6.8 (`b?`).
    fn is_dse_b(&self) -> bool {
        self.letters[0] == b'b'
    }

    /// DSE 6.8's STATS fields after pending repair, unknown to Cassandra: zero-copy metadata (a
    /// byte), incremental NodeSync metadata (i64) and max column value lengths
    /// (`hasZeroCopyMetadata`, `hasIncrementalNodeSyncMetadata`, `hasMaxColumnValueLengths`).
    pub fn has_dse_stats_fields(&self) -> bool {
        self.is_dse_b()
    }

    /// 3.0 row format (`storeRows`): ma and later, and every bti version.
    pub fn has_row_format(&self) -> bool {
        self.is_bti() || self.is_dse() || self.at_least("ma")
    }

    /// Adler32 chunk checksums and digests (2.x) rather than CRC32.
    pub fn uses_adler32(&self) -> bool {
        !self.has_row_format()
    }

    pub fn has_commit_log_lower_bound(&self) -> bool {
        let s = self.as_str();
        self.is_bti() || self.is_dse() || ("lb".."ma").contains(&s) || s >= "mb"
    }

    pub fn has_commit_log_intervals(&self) -> bool {
        self.is_bti() || self.is_dse() || self.at_least("mc")
    }

    pub fn has_accurate_min_max(&self) -> bool {
        let s = self.as_str();
        if self.is_dse() {
            return self.is_dse_a() && s >= "ac";
        }
        self.is_bti() || ("md".."oa").contains(&s)
    }

    pub fn has_legacy_min_max(&self) -> bool {
        let s = self.as_str();
        if self.is_dse() {
            return self.is_dse_a();
        }
        !self.is_bti() && ("ma".."oa").contains(&s)
    }

    /// For DSE 6.8 (`bb`) the host id follows the DSE-only STATS fields, which the STATS decoder
    /// leaves to `statistics::dse`: this says whether *Cassandra's* position holds it.
    pub fn has_originating_host_id(&self) -> bool {
        let s = self.as_str();
        if self.is_dse() {
            return self.is_dse_a() && s >= "ad";
        }
        self.is_bti() || ("me".."na").contains(&s) || s >= "nb"
    }

    /// Max compressed length in CompressionInfo, pending repair, transient flag, metadata CRCs: na+.
    pub fn has_metadata_checksum(&self) -> bool {
        self.is_bti() || self.is_dse() || self.at_least("na")
    }

    pub fn has_max_compressed_length(&self) -> bool {
        self.has_metadata_checksum()
    }

    pub fn has_pending_repair(&self) -> bool {
        self.has_metadata_checksum()
    }

    /// Not in DSE 6.x.
    pub fn has_is_transient(&self) -> bool {
        self.has_metadata_checksum() && !self.is_dse()
    }

    /// Pre-4.0 bloom filter byte order (CASSANDRA-9067); DSE changed it in 6.8 (DB-2648).
    pub fn has_old_bf_format(&self) -> bool {
        if self.is_dse() {
            return self.is_dse_a();
        }
        !self.has_metadata_checksum()
    }

    /// Pre-3.0 bloom filter hash order (CASSANDRA-8413).
    pub fn has_old_bf_hash_order(&self) -> bool {
        !self.has_row_format()
    }

    /// 5.0 (oa, da): unsigned deletion times, 1-byte live DeletionTime, improved min/max, key range,
    /// token space coverage, partition-level deletion presence marker.
    pub fn has_uint_deletion_time(&self) -> bool {
        self.is_bti() || (!self.is_dse() && self.at_least("oa"))
    }

    /// 5.0, and DSE 6.8.
    pub fn has_improved_min_max(&self) -> bool {
        self.has_uint_deletion_time() || self.is_dse_b()
    }

    pub fn has_partition_level_deletions_presence_marker(&self) -> bool {
        self.has_uint_deletion_time()
    }

    pub fn has_key_range(&self) -> bool {
        self.has_uint_deletion_time()
    }

    pub fn has_token_space_coverage(&self) -> bool {
        self.has_uint_deletion_time()
    }

    /// ka and later (2.1+): repairedAt, sampling level in Summary.db.
    pub fn has_repaired_at(&self) -> bool {
        self.is_bti() || self.is_dse() || self.at_least("ka")
    }

    /// Compaction ancestors in Statistics (before 3.0).
    pub fn has_compaction_ancestors(&self) -> bool {
        !self.has_row_format()
    }

    /// The Cassandra release line that writes this version, for display.
    pub fn cassandra_release(&self) -> &'static str {
        if self.is_dse_a() {
            return "DataStax Enterprise 6.0 / 6.7";
        }
        if self.is_dse_b() {
            return "DataStax Enterprise 6.8";
        }
        if self.is_bti() {
            return "5.0 (BTI)";
        }
        match self.as_str() {
            "ic" => "1.2",
            "ja" | "jb" => "2.0",
            "ka" => "2.1",
            "la" | "lb" => "2.2",
            "ma" | "mb" | "mc" | "md" | "me" => "3.0 / 3.11",
            "ms" | "mt" => "ScyllaDB (trie index)",
            "na" | "nb" => "4.0 / 4.1",
            "nc" => "5.0 pre-release",
            "oa" => "5.0",
            _ => "unknown",
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Version {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(s: &str) -> Version {
        Version::parse(Format::Big, s).unwrap()
    }

    #[test]
    fn gates_follow_the_format_doc() {
        let da = Version::parse(Format::Bti, "da").unwrap();
        assert!(
            da.has_metadata_checksum() && da.has_uint_deletion_time() && !da.has_legacy_min_max()
        );
        assert!(!big("nb").has_uint_deletion_time() && big("oa").has_uint_deletion_time());
        assert!(big("mb").has_commit_log_lower_bound() && big("lb").has_commit_log_lower_bound());
        assert!(!big("ma").has_commit_log_lower_bound() && !big("la").has_commit_log_lower_bound());
        assert!(big("me").has_originating_host_id() && !big("na").has_originating_host_id());
        assert!(big("nb").has_originating_host_id());
        assert!(big("ka").has_old_bf_hash_order() && !big("ma").has_old_bf_hash_order());
        assert!(big("me").has_old_bf_format() && !big("na").has_old_bf_format());
        assert!(big("la").uses_adler32() && !big("ma").uses_adler32());
        assert!(Version::parse(Format::Big, "NB").is_none());
    }

    /// DataStax's converged Cassandra `BtiVersion` flags for the DSE 6.x versions.
    #[test]
    fn dse_versions_follow_datastax_flags() {
        for format in [Format::Big, Format::Bti] {
            let v = |s: &str| Version::parse(format, s).unwrap();
            for s in ["aa", "ac", "ad", "ba", "bb"] {
                let x = v(s);
                assert!(x.is_dse(), "{s}");
                assert!(x.has_row_format() && x.has_metadata_checksum() && x.has_pending_repair());
                assert!(x.has_commit_log_intervals() && x.has_max_compressed_length());
                assert!(!x.has_is_transient() && !x.has_uint_deletion_time() && !x.has_key_range());
                assert!(!x.has_token_space_coverage() && !x.has_compaction_ancestors());
                assert!(!x.uses_adler32() && !x.has_old_bf_hash_order());
            }
            assert!(v("aa").has_legacy_min_max() && !v("aa").has_improved_min_max());
            assert!(!v("aa").has_accurate_min_max() && v("ac").has_accurate_min_max());
            assert!(!v("ac").has_originating_host_id() && v("ad").has_originating_host_id());
            assert!(v("aa").has_old_bf_format() && !v("ba").has_old_bf_format());
            assert!(v("ba").has_improved_min_max() && !v("ba").has_legacy_min_max());
            assert!(v("bb").has_dse_stats_fields() && !v("ad").has_dse_stats_fields());
            assert!(!v("ba").has_accurate_min_max());
            assert_eq!(v("bb").cassandra_release(), "DataStax Enterprise 6.8");
        }
        let da = Version::parse(Format::Bti, "da").unwrap();
        assert!(!da.is_dse() && da.has_uint_deletion_time() && da.has_is_transient());
    }
}
