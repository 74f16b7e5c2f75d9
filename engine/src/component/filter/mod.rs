//! Filter.db: the partition-key bloom filter (Cassandra's `BloomFilter`, an `IFilter`).
//!
//! Src: `utils/BloomFilterSerializer.java`, `utils/BloomFilter.java`, `utils/FilterFactory.java`,
//! `utils/BloomCalculations.java`, `utils/obs/OffHeapBitSet.java` (`deserialize(in, oldBfFormat)`),
//! `utils/MurmurHash.java`; the cassandra-3.0 branch's `BloomFilter.java` for the old hash order
//! (CASSANDRA-8413) and `io/sstable/format/big/BigFormat.java` for the version gates.
//!
//! # Layout
//!
//! | field | type | notes |
//! |---|---|---|
//! | hashCount | i32 BE | `k`, the number of bit positions per key |
//! | word count `W` | i32 BE | 64-bit words in the bitset; `m = 64·W` bits |
//! | bitset | `8·W` bytes | layout depends on the byte format below |
//!
//! The same structure, without a file around it, is what Cassandra's serialization tests store in
//! `test/data/serialization/{3.0,4.0}/utils.BloomFilter1000.bin`.
//!
//! # Formats
//!
//! | versions | byte format: bit `i` is | hash order `(base, inc)` | [`FilterFormat`] |
//! |---|---|---|---|
//! | ka, la (2.1, 2.2) | bit `i mod 64` of the big-endian u64 at `8·⌊i/64⌋` | `(h1, h2)` | [`FilterFormat::LEGACY_2_X`] |
//! | ma … me (3.0, 3.11) | same (old byte format, `hasOldBfFormat`) | `(h2, h1)` | [`FilterFormat::LEGACY_3_0`] |
//! | na and later, every bti version (4.0+) | bit `i mod 8` of byte `⌊i/8⌋` (memory order) | `(h2, h1)` | [`FilterFormat::CURRENT`] |
//!
//! `(h1, h2)` = [`murmur3_x64_128`] of the raw partition-key bytes with seed 0, whatever the
//! partitioner. Probe `j` (0 ≤ j < k) tests bit `|base + j·inc mod 2^64| mod m` (Java's
//! `abs(base % m)` with a wrapping `base += inc`, the Kirsch–Mitzenmacher double-hashing scheme).
//! A key "may be present" only if all `k` bits are set.
//!
//! Real files that do not follow their version (both found in Cassandra's own test data, both
//! confirmed with the fixtures): the early pre-release `na` `*_compact` legacy tables use the old
//! byte format; `test/data/bloom-filter/la` was written with the new (3.0) hash order, and
//! Cassandra's own test reads it that way. [`decode_with`] and [`BloomFilter::format_survey`] exist
//! for such files.
//!
//! # The maths
//!
//! `math.rs`: the false-positive rate of `k` hashes over `m` bits holding `n` keys
//! ([`false_positive_rate`]), and how `FilterFactory` sizes a filter for a chance
//! ([`BloomSpecification::for_fp_chance`]).
//!
//! # Large filters
//!
//! A filter is `n·b/8` bytes (about 1.2 GB for a billion keys at 0.01). [`decode_header`] reads
//! only the first 8 bytes; [`FilterHeader::probe_byte_offsets`] says which bytes a lookup needs,
//! so a caller can answer "may this key be present?" by fetching `k` bytes.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use crate::component::common::count::read_int_count;
use crate::component::ComponentType;
use crate::error::{ErrorKind, Result};
use crate::hash::murmur3::murmur3_x64_128;
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::version::Version;

mod math;

pub use math::{
    false_positive_rate, optimal_fp_rate_for, optimal_hash_count, tabulated_fp_rate,
    BloomSpecification,
};

/// Bytes before the bitset: hash count and word count.
pub const HEADER_SIZE_BYTES: u64 = 8;

/// The most hash functions Cassandra can probe: `BloomFilter` computes indexes into a reusable
/// 21-slot array, so a filter with more would fail on every lookup.
pub const CASSANDRA_MAX_HASH_COUNT: u32 = 21;

/// Decoding refuses hash counts above this: no sizing rule produces them, and probing would
/// otherwise be unbounded work for a corrupt file.
pub const MAX_HASH_COUNT: u32 = 64;

/// `FilterFactory.BITSET_EXCESS`: extra bits added to `n·b` when a filter is sized.
pub const BITSET_EXCESS_BITS: u64 = 20;

/// `BloomCalculations`' largest "buckets per element" (bits per key).
pub const MAX_BUCKETS_PER_ELEMENT: u32 = 20;

/// How a bitset is laid out and which Murmur3 half is the base: see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct FilterFormat {
    /// Before `na`: each 64-bit word stored big-endian (`hasOldBfFormat`, CASSANDRA-9067).
    pub old_byte_order: bool,
    /// Before `ma`: `(h1, h2)` as `(base, inc)` (`hasOldBfHashOrder`, CASSANDRA-8413).
    pub old_hash_order: bool,
}

impl FilterFormat {
    /// `na` and later, every `bti` version.
    pub const CURRENT: FilterFormat = FilterFormat {
        old_byte_order: false,
        old_hash_order: false,
    };
    /// `ma` … `me` (3.0, 3.11), and the `3.0/utils.BloomFilter1000.bin` fixture.
    pub const LEGACY_3_0: FilterFormat = FilterFormat {
        old_byte_order: true,
        old_hash_order: false,
    };
    /// `ka`, `la` (2.1, 2.2).
    pub const LEGACY_2_X: FilterFormat = FilterFormat {
        old_byte_order: true,
        old_hash_order: true,
    };
    /// Every combination, the version-implied ones first.
    pub const ALL: [FilterFormat; 4] = [
        FilterFormat::CURRENT,
        FilterFormat::LEGACY_3_0,
        FilterFormat::LEGACY_2_X,
        FilterFormat {
            old_byte_order: false,
            old_hash_order: true,
        },
    ];

    /// The format Cassandra reads for `version`.
    pub fn for_version(version: &Version) -> FilterFormat {
        FilterFormat {
            old_byte_order: version.has_old_bf_format(),
            old_hash_order: version.has_old_bf_hash_order(),
        }
    }

    /// "big-endian 64-bit words, (h2, h1) hash order".
    pub fn describe(&self) -> String {
        format!("{}, {}", self.byte_order_name(), self.hash_order_name())
    }

    fn byte_order_name(&self) -> &'static str {
        if self.old_byte_order {
            "big-endian 64-bit words (before na)"
        } else {
            "bytes in memory order (na and later)"
        }
    }

    fn hash_order_name(&self) -> &'static str {
        if self.old_hash_order {
            "(h1, h2) hash order (before ma)"
        } else {
            "(h2, h1) hash order (ma and later)"
        }
    }
}

/// The 8-byte header and where the bitset lies: enough to plan a lookup in a large filter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilterHeader {
    pub format: FilterFormat,
    /// `k`: bit positions tested per key.
    pub hash_count: Spanned<u32>,
    /// `W`: 64-bit words in the bitset.
    pub word_count: Spanned<u32>,
    /// Absolute span of the bitset, `[8, 8 + 8·W)`.
    pub bitset_span: Span,
    /// `m = 64·W`.
    pub bitset_size_bits: u64,
}

impl FilterHeader {
    /// The file size the header implies (8 + 8·W).
    pub fn expected_file_size_bytes(&self) -> u64 {
        self.bitset_span.end
    }

    /// The `k` bit indexes Cassandra tests for a key with Murmur3 halves `(h1, h2)`; empty when the
    /// bitset has no bits.
    pub fn bit_indexes_for_hash(&self, h1: i64, h2: i64) -> Vec<u64> {
        let m = self.bitset_size_bits;
        if m == 0 {
            return Vec::new();
        }
        let (mut base, inc) = if self.format.old_hash_order {
            (h1, h2)
        } else {
            (h2, h1)
        };
        let k = self.hash_count.value.min(MAX_HASH_COUNT);
        (0..k)
            .map(|_| {
                // |base % m| in Java equals |base| mod m; `unsigned_abs` also covers i64::MIN.
                let index = base.unsigned_abs().checked_rem(m).unwrap_or(0);
                base = base.wrapping_add(inc);
                index
            })
            .collect()
    }

    /// The `k` bit indexes Cassandra tests for `key` (raw partition-key bytes).
    pub fn bit_indexes(&self, key: &[u8]) -> Vec<u64> {
        let (h1, h2) = murmur3_x64_128(key, 0);
        self.bit_indexes_for_hash(h1, h2)
    }

    /// Index of the byte holding bit `bit_index`, relative to the start of the bitset; within that
    /// byte the bit is always `bit_index & 7`.
    fn relative_byte_of_bit(&self, bit_index: u64) -> u64 {
        if self.format.old_byte_order {
            // Word w is big-endian: its bits 0–7 are in its last byte.
            // (bit_index >> 6) × 8 < 2^61 and (bit_index & 63) >> 3 <= 7: no overflow possible.
            ((bit_index >> 6) << 3) | (7 ^ ((bit_index & 63) >> 3))
        } else {
            bit_index >> 3
        }
    }

    /// Absolute file offset of the byte holding bit `bit_index` (its bit is `bit_index & 7`).
    pub fn byte_offset_of_bit(&self, bit_index: u64) -> u64 {
        self.bitset_span
            .start
            .saturating_add(self.relative_byte_of_bit(bit_index))
    }

    /// The absolute file offsets a lookup of `key` must read (one byte per probe, in probe order).
    pub fn probe_byte_offsets(&self, key: &[u8]) -> Vec<u64> {
        self.bit_indexes(key)
            .into_iter()
            .map(|i| self.byte_offset_of_bit(i))
            .collect()
    }
}

/// One lookup, for the bloom lab: the hash, each probed bit and whether it is set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BloomProbe {
    /// All probed bits are set (Cassandra's `isPresent`); also true when the bitset is empty.
    pub maybe_present: bool,
    /// Murmur3 `(h1, h2)` of the key.
    pub hash: (i64, i64),
    /// Probed bit indexes, in probe order.
    pub bit_indexes: Vec<u64>,
    /// Whether each probed bit is set.
    pub bits: Vec<bool>,
    /// Absolute file offset of the byte holding each probed bit.
    pub byte_offsets: Vec<u64>,
}

impl BloomProbe {
    /// A labelled tree: one child per probe (at most [`MAX_HASH_COUNT`]).
    pub fn to_node(&self) -> Node {
        let verdict = if self.maybe_present {
            "maybe present (every probed bit is set)"
        } else {
            "absent (a probed bit is clear)"
        };
        let mut children = vec![
            Node::new("murmur3 h1", self.hash.0.to_string(), None),
            Node::new("murmur3 h2", self.hash.1.to_string(), None),
        ];
        for (j, ((&bit, &set), &offset)) in self
            .bit_indexes
            .iter()
            .zip(&self.bits)
            .zip(&self.byte_offsets)
            .enumerate()
        {
            children.push(Node::new(
                format!("probe {j}"),
                format!(
                    "bit {bit} (bit {} of byte 0x{offset:x}): {}",
                    bit & 7,
                    if set { "set" } else { "clear" }
                ),
                Some(Span::new(offset, offset.saturating_add(1))),
            ));
        }
        Node::new("bloom filter lookup", verdict, None).with_children(children)
    }
}

/// How many of a set of keys one format finds (see [`BloomFilter::format_survey`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FormatMatch {
    pub format: FilterFormat,
    pub keys_present: usize,
    pub keys_probed: usize,
}

/// A decoded Filter.db (or a serialized `BloomFilter` of the same layout).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BloomFilter {
    pub header: FilterHeader,
    /// Set bits in the bitset (popcount; independent of the byte format).
    pub bits_set: u64,
    /// `bits_set / m` (0 when the bitset is empty).
    pub fill_ratio: f64,
    pub file_size_bytes: u64,
    /// Suspicious but decodable things: trailing bytes, hash counts Cassandra cannot probe, etc.
    pub findings: Vec<Spanned<String>>,
    /// The bitset exactly as stored.
    #[serde(skip)]
    bitset: Vec<u8>,
}

/// Decodes a Filter.db with the format Cassandra uses for `version`.
pub fn decode(bytes: &[u8], version: &Version) -> Result<BloomFilter> {
    decode_with(bytes, FilterFormat::for_version(version))
}

/// Decodes a Filter.db (or a serialized `BloomFilter`) with an explicit format.
pub fn decode_with(bytes: &[u8], format: FilterFormat) -> Result<BloomFilter> {
    let mut r = Reader::new(bytes, 0).for_component(ComponentType::Filter);
    let header = read_header(&mut r, format)?;
    let bitset = r.bytes_u64(
        header.bitset_span.len_bytes(),
        "BloomFilter bitset (8 × word count bytes)",
    )?;
    let mut findings = header_findings(&header);
    if !r.is_empty() {
        let start = r.offset();
        let end = start.saturating_add(r.remaining_bytes() as u64);
        findings.push(Spanned {
            value: format!(
                "{} bytes after the bitset that the word count does not cover",
                r.remaining_bytes()
            ),
            span: Span::new(start, end),
        });
    }
    let bits_set: u64 = bitset.iter().map(|b| u64::from(b.count_ones())).sum();
    let fill_ratio = if header.bitset_size_bits == 0 {
        0.0
    } else {
        bits_set as f64 / header.bitset_size_bits as f64
    };
    Ok(BloomFilter {
        header,
        bits_set,
        fill_ratio,
        file_size_bytes: bytes.len() as u64,
        findings,
        bitset: bitset.to_vec(),
    })
}

/// Reads only the 8-byte header (for planning lookups in a filter too large to load).
pub fn decode_header(bytes: &[u8], format: FilterFormat) -> Result<FilterHeader> {
    let mut r = Reader::new(bytes, 0).for_component(ComponentType::Filter);
    read_header(&mut r, format)
}

fn read_header(r: &mut Reader<'_>, format: FilterFormat) -> Result<FilterHeader> {
    let hash_start = r.offset();
    let hash_count = r.i32("BloomFilter hash count")?;
    let hash_count = u32::try_from(hash_count)
        .ok()
        .filter(|&k| k <= MAX_HASH_COUNT)
        .ok_or_else(|| {
            r.invalid_at(
                format!("hash count {hash_count} is outside 0..={MAX_HASH_COUNT}"),
                hash_start,
                "BloomFilter hash count",
            )
        })?;
    let hash_count = Spanned {
        value: hash_count,
        span: r.span_from(hash_start),
    };
    let word_count = read_int_count(r, "BloomFilter bitset word count", "bitset word count")?;
    let words_start = word_count.span.start;
    let bitset_start = r.offset();
    let words = u64::from(word_count.value);
    // words <= u32::MAX, so words × 64 < 2^38: the shifts are exact.
    let bitset_bytes = words << 3;
    let bitset_end = bitset_start.checked_add(bitset_bytes).ok_or_else(|| {
        r.error_at(
            ErrorKind::Overflow,
            words_start,
            "BloomFilter bitset word count",
        )
    })?;
    Ok(FilterHeader {
        format,
        hash_count,
        word_count,
        bitset_span: Span::new(bitset_start, bitset_end),
        bitset_size_bits: words << 6,
    })
}

fn header_findings(header: &FilterHeader) -> Vec<Spanned<String>> {
    let mut findings = Vec::new();
    let k = header.hash_count.value;
    if k == 0 {
        findings.push(Spanned {
            value: "hash count 0: the filter rules out no key".to_owned(),
            span: header.hash_count.span,
        });
    } else if k > CASSANDRA_MAX_HASH_COUNT {
        findings.push(Spanned {
            value: format!(
                "hash count {k} exceeds the {CASSANDRA_MAX_HASH_COUNT} Cassandra can probe: its lookups would fail"
            ),
            span: header.hash_count.span,
        });
    }
    if header.bitset_size_bits == 0 && k > 0 {
        findings.push(Spanned {
            value: "empty bitset: Cassandra cannot probe it (division by zero); every key is treated as maybe present here".to_owned(),
            span: header.word_count.span,
        });
    }
    findings
}

impl BloomFilter {
    pub fn format(&self) -> FilterFormat {
        self.header.format
    }

    pub fn hash_count(&self) -> u32 {
        self.header.hash_count.value
    }

    pub fn word_count(&self) -> u32 {
        self.header.word_count.value
    }

    pub fn bitset_size_bits(&self) -> u64 {
        self.header.bitset_size_bits
    }

    /// The bitset bytes as stored in the file.
    pub fn bitset_bytes(&self) -> &[u8] {
        &self.bitset
    }

    /// The same filter read with another format (for files that do not follow their version).
    pub fn with_format(&self, format: FilterFormat) -> BloomFilter {
        let mut copy = self.clone();
        copy.header.format = format;
        copy
    }

    /// Whether bit `bit_index` is set (false outside the bitset).
    pub fn is_bit_set(&self, bit_index: u64) -> bool {
        test_bit(&self.header, &self.bitset, bit_index)
    }

    /// Cassandra's `isPresent`: true if `key` may be in the sstable, false if it certainly is not.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.header
            .bit_indexes(key)
            .into_iter()
            .all(|i| self.is_bit_set(i))
    }

    /// A lookup with every probed position, for display.
    pub fn might_contain(&self, key: &[u8]) -> BloomProbe {
        let (h1, h2) = murmur3_x64_128(key, 0);
        let bit_indexes = self.header.bit_indexes_for_hash(h1, h2);
        let bits: Vec<bool> = bit_indexes.iter().map(|&i| self.is_bit_set(i)).collect();
        let byte_offsets = bit_indexes
            .iter()
            .map(|&i| self.header.byte_offset_of_bit(i))
            .collect();
        BloomProbe {
            maybe_present: bits.iter().all(|&b| b),
            hash: (h1, h2),
            bit_indexes,
            bits,
            byte_offsets,
        }
    }

    /// How many of `keys` may be present.
    pub fn count_present<'k, I>(&self, keys: I) -> usize
    where
        I: IntoIterator<Item = &'k [u8]>,
    {
        keys.into_iter().filter(|k| self.contains(k)).count()
    }

    /// For keys known to be in the sstable: how many each of the four formats finds. The right
    /// format finds them all; the others find about `fill_ratio^k` of them.
    pub fn format_survey(&self, keys: &[&[u8]]) -> Vec<FormatMatch> {
        FilterFormat::ALL
            .iter()
            .map(|&format| {
                let header = FilterHeader {
                    format,
                    ..self.header.clone()
                };
                let keys_present = keys
                    .iter()
                    .filter(|k| {
                        header
                            .bit_indexes(k)
                            .into_iter()
                            .all(|i| test_bit(&header, &self.bitset, i))
                    })
                    .count();
                FormatMatch {
                    format,
                    keys_present,
                    keys_probed: keys.len(),
                }
            })
            .collect()
    }

    /// `(1 − e^(−k·n/m))^k`: the false-positive rate expected with `estimated_keys` keys.
    pub fn expected_fp_rate(&self, estimated_keys: u64) -> f64 {
        false_positive_rate(self.hash_count(), self.bitset_size_bits(), estimated_keys)
    }

    /// `fill_ratio^k`: the chance that an absent key finds all its bits set in this bitset.
    pub fn fill_fp_rate(&self) -> f64 {
        if self.bitset_size_bits() == 0 {
            return 1.0;
        }
        self.fill_ratio.powf(f64::from(self.hash_count()))
    }

    /// Keys the fill ratio implies, `−(m/k)·ln(1 − X/m)`; `None` when `k` is 0 or every bit is set.
    pub fn estimated_key_count(&self) -> Option<f64> {
        let m = self.bitset_size_bits() as f64;
        let k = f64::from(self.hash_count());
        if k == 0.0 || m == 0.0 || self.bits_set >= self.bitset_size_bits() {
            return None;
        }
        Some(-(m / k) * (1.0 - self.bits_set as f64 / m).ln())
    }

    /// `m / keys`.
    pub fn bits_per_key(&self, keys: u64) -> f64 {
        if keys == 0 {
            return f64::INFINITY;
        }
        self.bitset_size_bits() as f64 / keys as f64
    }

    /// The labelled tree for the tree + hex view (the bitset is summarised, not listed).
    pub fn to_node(&self) -> Node {
        let h = &self.header;
        let summary = format!(
            "BloomFilter: {} hashes, {} bits, {} set ({:.2} % full)",
            h.hash_count.value,
            h.bitset_size_bits,
            self.bits_set,
            self.fill_ratio * 100.0
        );
        let estimate = match self.estimated_key_count() {
            Some(n) => format!("≈ {n:.0} keys"),
            None => "cannot be estimated (no hashes, or every bit set)".to_owned(),
        };
        let bitset = Node::new(
            "bitset",
            format!(
                "{} bytes = {} bits, {} set ({:.2} % full)",
                h.bitset_span.len_bytes(),
                h.bitset_size_bits,
                self.bits_set,
                self.fill_ratio * 100.0
            ),
            Some(h.bitset_span),
        )
        .with_children(vec![
            Node::new("byte format", h.format.byte_order_name(), None),
            Node::new("hash order", h.format.hash_order_name(), None),
            Node::new("keys implied by the fill ratio", estimate, None),
            Node::new(
                "false-positive rate at this fill",
                format!("{:.6}", self.fill_fp_rate()),
                None,
            ),
        ]);
        let mut children = vec![
            Node::new(
                "hash count",
                h.hash_count.value.to_string(),
                Some(h.hash_count.span),
            ),
            Node::new(
                "word count",
                format!("{} (64-bit words)", h.word_count.value),
                Some(h.word_count.span),
            ),
            bitset,
        ];
        for f in &self.findings {
            children.push(Node::new("finding", f.value.clone(), Some(f.span)));
        }
        Node::new(
            "Filter.db",
            summary,
            Some(Span::new(0, self.file_size_bytes)),
        )
        .with_children(children)
    }
}

/// Whether bit `bit_index` of `bitset`, laid out as `header` says, is set (false outside it).
fn test_bit(header: &FilterHeader, bitset: &[u8], bit_index: u64) -> bool {
    if bit_index >= header.bitset_size_bits {
        return false;
    }
    let byte = header.relative_byte_of_bit(bit_index);
    usize::try_from(byte)
        .ok()
        .and_then(|i| bitset.get(i))
        .is_some_and(|b| (b >> (bit_index & 7)) & 1 == 1)
}

#[cfg(test)]
mod tests;
