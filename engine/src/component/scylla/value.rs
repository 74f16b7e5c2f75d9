//! The values Scylla.db holds: one [`ScyllaEntry`] per subcomponent, its body a
//! [`ScyllaValue`] (sharding token ranges, features, extension attributes, large-data and
//! timestamp stats, the schema, component digests), and the whole [`ScyllaMetadata`].
//!
//! Src (scylladb repo): `sstables/types.hh` (`scylla_metadata`, `sharding_metadata`,
//! `disk_token_bound`, `large_data_stats_entry`, `sstable_schema_type`).

use core::fmt;

use serde::{Serialize, Serializer};

use crate::span::{Span, Spanned};

use crate::span::hex;

use super::tag_name;

/// A 16-byte UUID (most significant half first), shown in the canonical 8-4-4-4-12 form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Uuid {
    pub msb: u64,
    pub lsb: u64,
}

impl Uuid {
    /// The UUID version nibble (1 = time-based).
    pub fn version(&self) -> u8 {
        ((self.msb >> 12) & 0xf) as u8
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            self.msb >> 32,
            (self.msb >> 16) & 0xffff,
            self.msb & 0xffff,
            self.lsb >> 48,
            self.lsb & 0xffff_ffff_ffff
        )
    }
}

impl Serialize for Uuid {
    fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One end of a sharding token range.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TokenBound {
    /// 0 = inclusive, 1 = exclusive (any non-zero byte is taken as exclusive).
    pub exclusive: Spanned<bool>,
    /// The token bytes (span includes the u16 length).
    pub token: Spanned<Vec<u8>>,
}

impl TokenBound {
    /// The token as a Murmur3 long token, when it is 8 bytes (big-endian i64).
    pub fn long_token(&self) -> Option<i64> {
        let bytes: [u8; 8] = self.token.value.as_slice().try_into().ok()?;
        Some(i64::from_be_bytes(bytes))
    }

    pub(super) fn describe(&self) -> String {
        match self.long_token() {
            Some(t) => t.to_string(),
            None => hex(&self.token.value),
        }
    }
}

/// A token range of tag 1.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TokenRange {
    pub left: TokenBound,
    pub right: TokenBound,
    pub span: Span,
}

impl TokenRange {
    /// `[a, b]`, `(a, b]`, … in interval notation.
    pub fn describe(&self) -> String {
        format!(
            "{}{}, {}{}",
            if self.left.exclusive.value { '(' } else { '[' },
            self.left.describe(),
            self.right.describe(),
            if self.right.exclusive.value { ')' } else { ']' }
        )
    }
}

/// Tag 2: the feature bit set and the names of its bits.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Features {
    pub mask: Spanned<u64>,
    /// Names of the set bits; bits ScyllaDB does not define show as `bit N`.
    pub names: Vec<String>,
}

impl Features {
    /// Whether bit `bit` is set.
    pub fn has(&self, bit: u32) -> bool {
        bit < 64 && (self.mask.value >> bit) & 1 == 1
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExtensionAttribute {
    pub key: Spanned<String>,
    pub value: Spanned<String>,
}

/// One `large_data_stats_entry` of tag 5.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LargeDataStat {
    pub kind: Spanned<u32>,
    pub kind_name: &'static str,
    pub max_value: Spanned<u64>,
    pub threshold: Spanned<u64>,
    pub above_threshold: Spanned<u32>,
    pub span: Span,
}

/// One entry of tag 9.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExtTimestampStat {
    pub kind: Spanned<u32>,
    pub kind_name: &'static str,
    /// Microseconds since the epoch.
    pub value: Spanned<i64>,
}

/// One column of tag 11.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemaColumn {
    pub kind: Spanned<u8>,
    pub kind_name: &'static str,
    pub name: Spanned<String>,
    pub type_name: Spanned<String>,
    pub span: Span,
}

/// Tag 11: the table's schema as the sstable's writer knew it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SstableSchema {
    pub table_id: Spanned<Uuid>,
    pub schema_version: Spanned<Uuid>,
    pub keyspace: Spanned<String>,
    pub table: Spanned<String>,
    pub columns: Vec<SchemaColumn>,
}

/// One entry of tag 12.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentDigest {
    pub component: Spanned<u32>,
    pub component_name: &'static str,
    pub crc32: Spanned<u32>,
}

/// A decoded subcomponent body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum ScyllaValue {
    Sharding(Vec<TokenRange>),
    Features(Features),
    ExtensionAttributes(Vec<ExtensionAttribute>),
    RunIdentifier(Spanned<Uuid>),
    LargeDataStats(Vec<LargeDataStat>),
    SstableOrigin(Spanned<String>),
    ScyllaBuildId(Spanned<String>),
    ScyllaVersion(Spanned<String>),
    ExtTimestampStats(Vec<ExtTimestampStat>),
    SstableIdentifier(Spanned<Uuid>),
    Schema(SstableSchema),
    ComponentsDigests(Vec<ComponentDigest>),
    /// A tag this decoder does not know; the bytes are the entry's `body_span`.
    Unknown,
    /// A known tag whose body did not decode.
    Invalid {
        message: String,
        offset: u64,
    },
}

/// One `(tag, size, body)` entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScyllaEntry {
    pub tag: Spanned<u32>,
    pub size: Spanned<u32>,
    pub body_span: Span,
    pub value: ScyllaValue,
}

impl ScyllaEntry {
    pub fn name(&self) -> &'static str {
        tag_name(self.tag.value)
    }

    /// From the tag to the end of the body.
    pub fn span(&self) -> Span {
        Span::new(self.tag.span.start, self.body_span.end)
    }
}

/// The trailing CRC32 written after the entries when tag 12 is present.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScyllaDigest {
    pub stored_crc32: Spanned<u32>,
    /// CRC32 of every byte before the digest (what the Scylla docs say it covers).
    pub computed_crc32: u32,
    pub matches: bool,
}

/// A decoded Scylla.db.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScyllaMetadata {
    pub count: Spanned<u32>,
    pub entries: Vec<ScyllaEntry>,
    pub digest: Option<ScyllaDigest>,
    /// Leftover body bytes, repeated tags, undecodable bodies, trailing bytes.
    pub findings: Vec<Spanned<String>>,
    pub file_size_bytes: u64,
}
