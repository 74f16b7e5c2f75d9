//! SSTable file names: which SSTable a file belongs to and which component it is.
//!
//! Src: `io/sstable/Descriptor.java` (`fromFileWithComponent`), `io/sstable/SSTableIdFactory.java`,
//! `SequenceBasedSSTableId.java`, `UUIDBasedSSTableId.java`.
//!
//! | scheme | example |
//! |---|---|
//! | current (la+) | `<version>-<id>-<format>-<Component>`: `nb-1-big-Data.db`, `da-1-bti-Rows.db` |
//! | legacy (≤ ka) | `<keyspace>-<table>-[tmp-\|tmplink-]<version>-<generation>-<Component>` |
//! | UUID id (4.1+) | `nb-3gll_1kke_3qdyo2i4kzfpt3cqcy-big-Data.db` |
//! | ScyllaDB trie (`ms`, `mt`) | `ms-3gx0_0a1b_2c3d4e5f6g7h8i9j0k-big-Partitions.db` |
//!
//! The format token of a name is not always the index format: ScyllaDB has a single format name,
//! `big` (`sstables/version.hh`: `sstable_format_types { big }`), and its `ms`/`mt` versions
//! replace Index.db and Summary.db by BTI's Partitions.db and Rows.db (`has_summary_and_index`).
//! [`Descriptor::format`] is the index format the engine reads (BTI for `ms`/`mt`, and for any
//! SSTable whose files have a Partitions.db and no Index.db — [`crate::sstable_set`]); the name's
//! token stays in [`Version::format`], which also keeps `ms`/`mt` on the `me` feature flags.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use core::fmt;

use serde::Serialize;

use crate::component::ComponentType;
use crate::version::{Format, Version};

/// The identifier ("generation") of an SSTable within its table directory.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SSTableId {
    /// A decimal generation number (`SequenceBasedSSTableId`).
    Sequence { generation: u64 },
    /// A time-UUID based id in base 36 (`UUIDBasedSSTableId`, CASSANDRA-17048).
    Uuid {
        text: String,
        /// Creation time decoded from the id, milliseconds since the Unix epoch.
        unix_millis: i64,
        /// The least significant 64 bits of the time UUID.
        lsb: u64,
    },
}

impl SSTableId {
    /// Parses a numeric generation or a 28-character UUID-based id.
    pub fn parse(s: &str) -> Option<SSTableId> {
        if !s.is_empty() && s.len() <= 19 && s.bytes().all(|b| b.is_ascii_digit()) {
            return s
                .parse()
                .ok()
                .map(|generation| SSTableId::Sequence { generation });
        }
        parse_uuid_id(s)
    }
}

impl fmt::Display for SSTableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SSTableId::Sequence { generation } => write!(f, "{generation}"),
            SSTableId::Uuid { text, .. } => f.write_str(text),
        }
    }
}

/// 100-ns intervals between the UUID epoch (1582-10-15) and the Unix epoch, in milliseconds.
const UUID_EPOCH_OFFSET_MILLIS: i64 = 12_219_292_800_000;

fn base36(s: &str) -> Option<u64> {
    s.bytes().try_fold(0u64, |acc, b| {
        // 0-9, a-z and A-Z, case-insensitive, like Java's `Long.parseLong(s, 36)`.
        let digit = char::from(b).to_digit(36)?;
        acc.checked_mul(36)?.checked_add(u64::from(digit))
    })
}

/// `dddd_ssss_fffffrrrrrrrrrrrrr`: days since 1582-10-15, seconds in the day, the remaining 100-ns
/// units and the UUID's least significant bits, each zero-padded base 36.
fn parse_uuid_id(s: &str) -> Option<SSTableId> {
    let days = base36(s.get(0..4)?)?;
    let seconds = base36(s.get(5..9)?)?;
    let fraction = base36(s.get(10..15)?)?;
    let lsb = base36(s.get(15..28)?)?;
    if s.len() != 28 || s.get(4..5)? != "_" || s.get(9..10)? != "_" {
        return None;
    }
    let ts_100ns = days
        .checked_mul(86_400)?
        .checked_add(seconds)?
        .checked_mul(10_000_000)?
        .checked_add(fraction)?;
    let unix_millis = i64::try_from(ts_100ns / 10_000)
        .ok()?
        .checked_sub(UUID_EPOCH_OFFSET_MILLIS)?;
    Some(SSTableId::Uuid {
        text: s.to_ascii_lowercase(),
        unix_millis,
        lsb,
    })
}

/// Everything a file name says about its SSTable (`Descriptor`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Descriptor {
    /// Keyspace, from legacy (≤ ka) names only.
    pub keyspace: Option<String>,
    /// Table, from legacy (≤ ka) names only.
    pub table: Option<String>,
    /// The version; its [`Version::format`] is the format token of the file name.
    pub version: Version,
    /// The index format the SSTable is read with: `big` (Index.db, Summary.db) or `bti`
    /// (Partitions.db, Rows.db). Differs from the name's token for ScyllaDB `ms`/`mt`.
    pub format: Format,
    pub id: SSTableId,
    /// A `tmp-`/`tmplink-` legacy name: an SSTable still being written.
    pub temporary: bool,
}

impl Descriptor {
    /// The file-name prefix shared by every component, e.g. `nb-1-big` or `ks-tbl-ka-5`.
    pub fn file_name_prefix(&self) -> String {
        match (&self.keyspace, &self.table) {
            (Some(ks), Some(t)) => {
                let tmp = if self.temporary { "tmp-" } else { "" };
                format!("{ks}-{t}-{tmp}{}-{}", self.version, self.id)
            }
            _ => format!("{}-{}-{}", self.version, self.id, self.version.format()),
        }
    }

    /// The full file name of `component` in this SSTable.
    pub fn file_name(&self, component: &ComponentType) -> String {
        format!("{}-{}", self.file_name_prefix(), component.file_suffix())
    }
}

/// The index format a version is read with: ScyllaDB's `ms` and `mt` are named `big` but have
/// BTI's Partitions.db and Rows.db instead of Index.db and Summary.db (scylladb
/// `sstables/version.hh`, `sstables/trie/`); every other version keeps its name's format.
pub fn index_format(version: &Version) -> Format {
    match (version.format(), version.as_str()) {
        (Format::Big, "ms" | "mt") => Format::Bti,
        (format, _) => format,
    }
}

/// Parses a bare file name (no directory) into its descriptor and component.
pub fn parse_file_name(name: &str) -> Result<(Descriptor, ComponentType), String> {
    let tokens: Vec<&str> = name.split('-').collect();
    let (keyspace, table, temporary, version, id, format, component) = match tokens.as_slice() {
        [version, id, format, component] => {
            let format = Format::parse(format)
                .ok_or_else(|| format!("unknown SSTable format `{format}` (expected big or bti)"))?;
            (None, None, false, *version, *id, format, *component)
        }
        [ks, table, version, id, component] => {
            (Some(*ks), Some(*table), false, *version, *id, Format::Big, *component)
        }
        [ks, table, tmp, version, id, component] if *tmp == "tmp" || *tmp == "tmplink" => {
            (Some(*ks), Some(*table), true, *version, *id, Format::Big, *component)
        }
        _ => {
            return Err(
                "expected <version>-<id>-<format>-<Component> or <keyspace>-<table>-<version>-<generation>-<Component>"
                    .to_owned(),
            )
        }
    };
    let version = Version::parse(format, version)
        .ok_or_else(|| format!("`{version}` is not a two-letter SSTable version"))?;
    let format = index_format(&version);
    let id =
        SSTableId::parse(id).ok_or_else(|| format!("`{id}` is not an SSTable generation or id"))?;
    if component.is_empty() {
        return Err("no component after the last `-`".to_owned());
    }
    let descriptor = Descriptor {
        keyspace: keyspace.map(str::to_owned),
        table: table.map(str::to_owned),
        version,
        format,
        id,
        temporary,
    };
    Ok((descriptor, ComponentType::from_suffix(component)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_names() {
        let (d, c) = parse_file_name("nb-1-big-Data.db").unwrap();
        assert_eq!(
            (d.version.as_str(), d.format, c),
            ("nb", Format::Big, ComponentType::Data)
        );
        assert_eq!(d.id, SSTableId::Sequence { generation: 1 });
        assert_eq!(d.file_name_prefix(), "nb-1-big");
        let (d, c) = parse_file_name("da-1-bti-Partitions.db").unwrap();
        assert_eq!((d.format, c), (Format::Bti, ComponentType::Partitions));
    }

    /// ScyllaDB names its trie-indexed SSTables `big`: read as BTI, named as written, flags of `me`.
    #[test]
    fn scylla_trie_versions_are_bti_under_the_big_name() {
        for v in ["ms", "mt"] {
            let (d, c) = parse_file_name(&format!("{v}-7-big-Rows.db")).unwrap();
            assert_eq!((d.format, c), (Format::Bti, ComponentType::Rows));
            assert_eq!(d.version.format(), Format::Big);
            assert_eq!(d.file_name_prefix(), format!("{v}-7-big"));
            assert!(!d.version.has_uint_deletion_time() && d.version.has_originating_host_id());
            assert!(!d.version.has_metadata_checksum());
        }
        let (d, _) = parse_file_name("me-1-big-Data.db").unwrap();
        assert_eq!(d.format, Format::Big);
    }

    #[test]
    fn legacy_names() {
        let (d, c) = parse_file_name("legacy_tables-legacy_ka_clust-ka-1-Statistics.db").unwrap();
        assert_eq!(d.keyspace.as_deref(), Some("legacy_tables"));
        assert_eq!(d.table.as_deref(), Some("legacy_ka_clust"));
        assert_eq!((d.version.as_str(), c), ("ka", ComponentType::Statistics));
        assert_eq!(
            d.file_name(&ComponentType::Toc),
            "legacy_tables-legacy_ka_clust-ka-1-TOC.txt"
        );
        let (d, _) = parse_file_name("ks-t-tmp-jb-7-Data.db").unwrap();
        assert!(d.temporary);
    }

    #[test]
    fn uuid_ids_decode_their_time() {
        let id = SSTableId::parse("3gsm_0lob_1zdg02we44my8dy25w").unwrap();
        // 2025-08-07T07:48:11.333Z
        assert_eq!(
            id,
            SSTableId::Uuid {
                text: "3gsm_0lob_1zdg02we44my8dy25w".into(),
                unix_millis: 1_754_552_891_333,
                lsb: 0xbeaf_3829_db28_2c74
            }
        );
        let (d, c) = parse_file_name("nb-3gll_1kke_3qdyo2i4kzfpt3cqcy-big-Data.db").unwrap();
        assert!(matches!(d.id, SSTableId::Uuid { .. }));
        assert_eq!(c, ComponentType::Data);
        assert_eq!(d.file_name_prefix(), "nb-3gll_1kke_3qdyo2i4kzfpt3cqcy-big");
    }

    #[test]
    fn non_sstable_names_are_rejected_with_a_reason() {
        for name in [
            "MANIFEST.md",
            "utils.BloomFilter1000.bin",
            "nb-1-huge-Data.db",
            "NB-1-big-Data.db",
            "a-b-c-d-e-f-g",
        ] {
            assert!(parse_file_name(name).is_err(), "{name}");
        }
    }
}
