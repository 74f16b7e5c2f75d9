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
//! A bloom filter with `m` bits and `k` hash functions holding `n` keys leaves any given bit clear
//! with probability `(1 − 1/m)^(kn) ≈ e^(−kn/m)`, so a key that was never added finds all its `k`
//! bits set — a false positive — with probability
//!
//! ```text
//! p ≈ (1 − e^(−kn/m))^k
//! ```
//!
//! ([`false_positive_rate`], [`BloomFilter::expected_fp_rate`]). For a fixed number of bits per key
//! `b = m/n` the rate is lowest at `k = b·ln 2` ([`optimal_hash_count`]), where each bit is set
//! with probability ½ and `p = 2^(−k) = e^(−b·(ln 2)²) ≈ 0.6185^b` ([`optimal_fp_rate_for`]).
//!
//! Cassandra does not use the closed form: `FilterFactory.getFilter(n, fpChance)` asks
//! `BloomCalculations.computeBloomSpec(20, fpChance)`, which looks `p(b, k)` up in a table for
//! `b` = 2…20 "buckets per element" (the formula above rounded to three significant digits; only
//! `p(5, 3)` is listed as 0.092). It takes the smallest `b` whose best `k` meets the chance, then
//! lowers `k` while the chance is still met. The bitset gets `n·b + 20` bits, rounded up to whole
//! words. Examples ([`BloomSpecification::for_fp_chance`]): chance 0.1 → b = 5, k = 3; 0.01 (the
//! default) → b = 10, k = 5 (p = 0.00943); 0.001 → b = 15, k = 7; 0.0001 → b = 20, k = 10. The
//! `BloomFilter1000` fixtures are 1,000,000 keys at 0.0001: 20,000,020 bits = 312,501 words =
//! 2,500,016 bytes with the 8-byte header. A chance ≥ 1 means no filter (no Filter.db).
//!
//! With `X` of the `m` bits set, the number of keys is estimated as `n ≈ −(m/k)·ln(1 − X/m)`
//! (Swamidass & Baldi, 2007; [`BloomFilter::estimated_key_count`]) and the false-positive rate for a
//! random absent key is `(X/m)^k` ([`BloomFilter::fill_fp_rate`]).
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

/// `(1 − e^(−k·n/m))^k` for `k` hashes, `m` bits and `n` keys (1 when `m` is 0).
pub fn false_positive_rate(hash_count: u32, bitset_size_bits: u64, keys: u64) -> f64 {
    if bitset_size_bits == 0 {
        return 1.0;
    }
    let k = f64::from(hash_count);
    let per_bit = (-k * keys as f64 / bitset_size_bits as f64).exp();
    (1.0 - per_bit).powf(k)
}

/// `b·ln 2`: the hash count that minimises the false-positive rate at `b` bits per key.
pub fn optimal_hash_count(bits_per_key: f64) -> f64 {
    bits_per_key * core::f64::consts::LN_2
}

/// `e^(−b·(ln 2)²) ≈ 0.6185^b`: the lowest false-positive rate `b` bits per key can give.
pub fn optimal_fp_rate_for(bits_per_key: f64) -> f64 {
    let ln2 = core::f64::consts::LN_2;
    (-bits_per_key * ln2 * ln2).exp()
}

/// Highest hash count `BloomCalculations` tabulates for each number of buckets per element.
const TABULATED_MAX_HASH_COUNT: [u32; 21] = [
    0, 1, 2, 3, 4, 5, 6, 6, 7, 8, 8, 8, 8, 9, 10, 10, 11, 12, 12, 13, 14,
];

/// `BloomCalculations`' false-positive table entry for `b` buckets per element and `k` hashes:
/// `(1 − e^(−k/b))^k` rounded to three significant digits (`p(5, 3)` is tabulated as 0.092).
/// `None` outside the table; 1.0 for `k = 0` or `b < 2`.
pub fn tabulated_fp_rate(buckets_per_element: u32, hash_count: u32) -> Option<f64> {
    let max_k = *TABULATED_MAX_HASH_COUNT.get(usize::try_from(buckets_per_element).ok()?)?;
    if hash_count > max_k {
        return None;
    }
    if hash_count == 0 || buckets_per_element < 2 {
        return Some(1.0);
    }
    if (buckets_per_element, hash_count) == (5, 3) {
        return Some(0.092);
    }
    let k = f64::from(hash_count);
    let exact = (1.0 - (-k / f64::from(buckets_per_element)).exp()).powf(k);
    Some(round_significant(exact, 3))
}

fn round_significant(x: f64, digits: i32) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return x;
    }
    let magnitude = x.log10().floor() as i32;
    let scale = 10f64.powi(digits.saturating_sub(1).saturating_sub(magnitude));
    (x * scale).round() / scale
}

/// The hash count whose tabulated rate is lowest for `b` buckets per element (first on ties).
fn best_hash_count(buckets_per_element: u32) -> u32 {
    let max_k = TABULATED_MAX_HASH_COUNT
        .get(buckets_per_element as usize)
        .copied()
        .unwrap_or(0);
    let mut best_k = 1;
    let mut best = f64::MAX;
    for k in 0..=max_k {
        if let Some(p) = tabulated_fp_rate(buckets_per_element, k) {
            if p < best {
                best = p;
                best_k = k.max(1);
            }
        }
    }
    best_k
}

/// What `FilterFactory.getFilter(n, fpChance)` builds (`BloomCalculations.BloomSpecification`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BloomSpecification {
    /// `k`.
    pub hash_count: u32,
    /// Bits per key, `b`.
    pub buckets_per_element: u32,
    /// The tabulated false-positive rate for this `(b, k)`.
    pub fp_rate: f64,
}

impl BloomSpecification {
    /// Cassandra's choice for a table's `bloom_filter_fp_chance` (`computeBloomSpec(20, chance)`):
    /// `None` when the chance is ≥ 1 (no filter is written), not a number, or below the best
    /// tabulated rate (Cassandra refuses it).
    pub fn for_fp_chance(max_fp_chance: f64) -> Option<BloomSpecification> {
        if max_fp_chance.is_nan() || max_fp_chance >= 1.0 {
            return None;
        }
        let spec = |k: u32, b: u32| BloomSpecification {
            hash_count: k,
            buckets_per_element: b,
            fp_rate: tabulated_fp_rate(b, k).unwrap_or(1.0),
        };
        // Chances at or above p(2, 1): Cassandra passes (optimal k for 2, 2) in swapped order.
        if max_fp_chance >= tabulated_fp_rate(2, 1).unwrap_or(1.0) {
            return Some(spec(2, best_hash_count(2)));
        }
        let max_b = MAX_BUCKETS_PER_ELEMENT;
        let floor = tabulated_fp_rate(max_b, best_hash_count(max_b)).unwrap_or(0.0);
        if max_fp_chance < floor {
            return None;
        }
        let mut b = 2;
        let mut k = best_hash_count(b);
        while tabulated_fp_rate(b, k).unwrap_or(1.0) > max_fp_chance && b < max_b {
            b = b.saturating_add(1);
            k = best_hash_count(b);
        }
        while let Some(fewer) = k.checked_sub(1).filter(|&fewer| fewer >= 1) {
            if tabulated_fp_rate(b, fewer).unwrap_or(1.0) > max_fp_chance {
                break;
            }
            k = fewer;
        }
        Some(spec(k, b))
    }

    /// Bitset size Cassandra allocates for `keys` keys: `keys·b + 20` bits, rounded up to words.
    pub fn bitset_size_bits(&self, keys: u64) -> u64 {
        let bits = keys
            .saturating_mul(u64::from(self.buckets_per_element))
            .saturating_add(BITSET_EXCESS_BITS);
        bits.div_ceil(64).saturating_mul(64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::Format;

    /// A filter file from a bit list, laid out in `format`.
    fn build(hash_count: i32, words: usize, set_bits: &[u64], format: FilterFormat) -> Vec<u8> {
        let mut bitset = vec![0u8; words * 8];
        let header = FilterHeader {
            format,
            hash_count: Spanned {
                value: 0,
                span: Span::new(0, 4),
            },
            word_count: Spanned {
                value: words as u32,
                span: Span::new(4, 8),
            },
            bitset_span: Span::new(8, 8 + words as u64 * 8),
            bitset_size_bits: words as u64 * 64,
        };
        for &i in set_bits {
            let byte = header.relative_byte_of_bit(i) as usize;
            bitset[byte] |= 1 << (i & 7);
        }
        let mut out = hash_count.to_be_bytes().to_vec();
        out.extend_from_slice(&(words as i32).to_be_bytes());
        out.extend_from_slice(&bitset);
        out
    }

    fn header(format: FilterFormat, k: u32, words: u32) -> FilterHeader {
        FilterHeader {
            format,
            hash_count: Spanned {
                value: k,
                span: Span::new(0, 4),
            },
            word_count: Spanned {
                value: words,
                span: Span::new(4, 8),
            },
            bitset_span: Span::new(8, 8 + u64::from(words) * 8),
            bitset_size_bits: u64::from(words) * 64,
        }
    }

    #[test]
    fn byte_positions_follow_each_format() {
        let new = header(FilterFormat::CURRENT, 1, 2);
        let old = header(FilterFormat::LEGACY_3_0, 1, 2);
        // Bit 0: first byte (new) / last byte of word 0 (old).
        assert_eq!(new.byte_offset_of_bit(0), 8);
        assert_eq!(old.byte_offset_of_bit(0), 8 + 7);
        // Bit 63: byte 7 (new) / byte 0 (old). Bit 64: byte 8 (new) / byte 15 (old).
        assert_eq!(new.byte_offset_of_bit(63), 8 + 7);
        assert_eq!(old.byte_offset_of_bit(63), 8);
        assert_eq!(new.byte_offset_of_bit(64), 8 + 8);
        assert_eq!(old.byte_offset_of_bit(64), 8 + 15);
        // Old format: bit i of the big-endian word at 8·(i/64).
        let file = build(1, 1, &[0, 9, 63], FilterFormat::LEGACY_3_0);
        let word = u64::from_be_bytes(file[8..16].try_into().unwrap());
        assert_eq!(word, 1 | (1 << 9) | (1 << 63));
        let file = build(1, 1, &[0, 9, 63], FilterFormat::CURRENT);
        assert_eq!(&file[8..16], &[0x01, 0x02, 0, 0, 0, 0, 0, 0x80]);
    }

    #[test]
    fn decodes_header_counts_and_spans() {
        let file = build(3, 2, &[1, 2, 100], FilterFormat::CURRENT);
        let bf = decode_with(&file, FilterFormat::CURRENT).unwrap();
        assert_eq!(bf.hash_count(), 3);
        assert_eq!(bf.word_count(), 2);
        assert_eq!(bf.header.hash_count.span, Span::new(0, 4));
        assert_eq!(bf.header.word_count.span, Span::new(4, 8));
        assert_eq!(bf.header.bitset_span, Span::new(8, 24));
        assert_eq!(bf.bitset_size_bits(), 128);
        assert_eq!(bf.bits_set, 3);
        assert!((bf.fill_ratio - 3.0 / 128.0).abs() < 1e-12);
        assert!(bf.findings.is_empty());
        assert!(bf.is_bit_set(100) && !bf.is_bit_set(101) && !bf.is_bit_set(1000));
        let node = bf.to_node();
        assert_eq!(node.children.len(), 3);
        assert_eq!(node.find_at(9).map(|n| n.label.as_str()), Some("bitset"));
        assert_eq!(
            node.find_at(5).map(|n| n.label.as_str()),
            Some("word count")
        );
    }

    #[test]
    fn keys_added_under_each_format_are_found_with_it() {
        // Build, for each format, a filter holding "0".."4" the way Cassandra would add them.
        for format in FilterFormat::ALL {
            let h = header(format, 5, 2);
            let bits: Vec<u64> = (0..5)
                .flat_map(|i| h.bit_indexes(i.to_string().as_bytes()))
                .collect();
            let file = build(5, 2, &bits, format);
            let bf = decode_with(&file, format).unwrap();
            let keys: Vec<Vec<u8>> = (0..5).map(|i| i.to_string().into_bytes()).collect();
            assert_eq!(bf.count_present(keys.iter().map(Vec::as_slice)), 5);
            let probe = bf.might_contain(b"3");
            assert!(probe.maybe_present);
            assert_eq!(probe.bits, vec![true; 5]);
            assert_eq!(probe.bit_indexes, h.bit_indexes(b"3"));
            assert_eq!(probe.byte_offsets, h.probe_byte_offsets(b"3"));
            let survey = bf.format_survey(&keys.iter().map(Vec::as_slice).collect::<Vec<_>>());
            let right = survey.iter().find(|s| s.format == format).unwrap();
            assert_eq!(right.keys_present, 5);
        }
    }

    #[test]
    fn indexes_use_abs_of_the_wrapping_sum() {
        // h1 = i64::MIN exercises abs(MIN % m): |MIN| = 2^63, 2^63 mod 128 = 0.
        let h = header(FilterFormat::LEGACY_2_X, 3, 2);
        assert_eq!(h.bit_indexes_for_hash(i64::MIN, 1), vec![0, 127, 126]);
        let h = header(FilterFormat::CURRENT, 3, 2);
        assert_eq!(h.bit_indexes_for_hash(1, -5), vec![5, 4, 3]);
        assert_eq!(h.bit_indexes_for_hash(i64::MAX, i64::MAX), {
            let m = 128u64;
            let a = i64::MAX;
            let b = a.wrapping_add(i64::MAX);
            let c = b.wrapping_add(i64::MAX);
            vec![
                a.unsigned_abs() % m,
                b.unsigned_abs() % m,
                c.unsigned_abs() % m,
            ]
        });
        assert!(header(FilterFormat::CURRENT, 3, 0)
            .bit_indexes(b"x")
            .is_empty());
    }

    #[test]
    fn format_follows_the_version_gates() {
        let v = |s| Version::parse(Format::Big, s).unwrap();
        assert_eq!(
            FilterFormat::for_version(&v("ka")),
            FilterFormat::LEGACY_2_X
        );
        assert_eq!(
            FilterFormat::for_version(&v("la")),
            FilterFormat::LEGACY_2_X
        );
        assert_eq!(
            FilterFormat::for_version(&v("ma")),
            FilterFormat::LEGACY_3_0
        );
        assert_eq!(
            FilterFormat::for_version(&v("me")),
            FilterFormat::LEGACY_3_0
        );
        assert_eq!(FilterFormat::for_version(&v("na")), FilterFormat::CURRENT);
        assert_eq!(FilterFormat::for_version(&v("oa")), FilterFormat::CURRENT);
        let da = Version::parse(Format::Bti, "da").unwrap();
        assert_eq!(FilterFormat::for_version(&da), FilterFormat::CURRENT);
    }

    #[test]
    fn bad_headers_are_errors_with_offsets() {
        let e =
            decode_with(&[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0], FilterFormat::CURRENT).unwrap_err();
        assert_eq!(e.offset(), 0);
        assert_eq!(e.component(), Some(&ComponentType::Filter));
        assert!(e.to_string().contains("hash count -1"), "{e}");
        let e = decode_with(&[0, 0, 0, 5, 0x80, 0, 0, 0], FilterFormat::CURRENT).unwrap_err();
        assert_eq!(e.offset(), 4);
        let e = decode_with(&[0, 0, 0, 5, 0, 0, 0, 2, 1, 2, 3], FilterFormat::CURRENT).unwrap_err();
        assert_eq!(e.offset(), 8);
        assert!(e.to_string().contains("bitset"), "{e}");
        let e = decode_with(&[0, 0, 0, 5, 0, 0], FilterFormat::CURRENT).unwrap_err();
        assert_eq!(e.offset(), 4);
        assert!(decode_with(&[0, 0, 0, 65, 0, 0, 0, 0], FilterFormat::CURRENT).is_err());
        // A huge word count is refused before anything is allocated.
        assert!(decode_with(&[0, 0, 0, 5, 0x7f, 0xff, 0xff, 0xff], FilterFormat::CURRENT).is_err());
    }

    #[test]
    fn suspicious_values_are_findings() {
        let mut file = build(0, 1, &[], FilterFormat::CURRENT);
        file.extend_from_slice(&[9, 9, 9]);
        let bf = decode_with(&file, FilterFormat::CURRENT).unwrap();
        assert_eq!(bf.findings.len(), 2);
        assert_eq!(bf.findings[1].span, Span::new(16, 19));
        assert!(bf.contains(b"anything"));
        let bf = decode_with(
            &build(30, 1, &[], FilterFormat::CURRENT),
            FilterFormat::CURRENT,
        )
        .unwrap();
        assert!(bf.findings[0].value.contains("21"));
        let bf = decode_with(
            &build(3, 0, &[], FilterFormat::CURRENT),
            FilterFormat::CURRENT,
        )
        .unwrap();
        assert!(bf.might_contain(b"k").maybe_present);
        assert_eq!(bf.fill_ratio, 0.0);
        assert_eq!(bf.findings.len(), 1);
    }

    #[test]
    fn header_alone_plans_a_lookup() {
        let file = build(4, 4, &[], FilterFormat::LEGACY_3_0);
        let h = decode_header(&file[..8], FilterFormat::LEGACY_3_0).unwrap();
        assert_eq!(h.expected_file_size_bytes(), 40);
        for off in h.probe_byte_offsets(b"key") {
            assert!((8..40).contains(&off));
        }
    }

    #[test]
    fn fp_maths() {
        // p = (1 − e^(−kn/m))^k: 10 bits per key, k = 7 → 0.00819 (BloomCalculations' table).
        let p = false_positive_rate(7, 1000, 100);
        assert!((p - 0.008_19).abs() < 5e-6, "{p}");
        assert_eq!(false_positive_rate(3, 0, 10), 1.0);
        assert!((optimal_hash_count(10.0) - 6.931).abs() < 1e-3);
        assert!((optimal_fp_rate_for(10.0) - 0.6185f64.powi(10)).abs() < 1e-4);
        let bf = decode_with(
            &build(2, 1, &[0, 1, 2, 3], FilterFormat::CURRENT),
            FilterFormat::CURRENT,
        )
        .unwrap();
        assert!((bf.fill_fp_rate() - (4.0f64 / 64.0).powi(2)).abs() < 1e-12);
        let n = bf.estimated_key_count().unwrap();
        assert!((n - (-(64.0 / 2.0) * (1.0f64 - 4.0 / 64.0).ln())).abs() < 1e-9);
        assert_eq!(bf.bits_per_key(8), 8.0);
    }

    #[test]
    fn tabulated_rates_and_cassandra_sizing() {
        assert_eq!(tabulated_fp_rate(2, 1), Some(0.393));
        assert_eq!(tabulated_fp_rate(10, 7), Some(0.00819));
        assert_eq!(tabulated_fp_rate(20, 14), Some(6.71e-05));
        assert_eq!(tabulated_fp_rate(5, 3), Some(0.092));
        assert_eq!(tabulated_fp_rate(7, 7), None);
        assert_eq!(tabulated_fp_rate(21, 1), None);
        let s = |fp| {
            BloomSpecification::for_fp_chance(fp).map(|s| (s.hash_count, s.buckets_per_element))
        };
        assert_eq!(s(0.1), Some((3, 5)));
        assert_eq!(s(0.01), Some((5, 10)));
        assert_eq!(s(0.001), Some((7, 15)));
        assert_eq!(s(0.0001), Some((10, 20)));
        assert_eq!(s(0.5), Some((2, 1)));
        assert_eq!(s(1.0), None);
        assert_eq!(s(1e-6), None);
        assert_eq!(s(f64::NAN), None);
        let spec = BloomSpecification::for_fp_chance(0.01).unwrap();
        assert_eq!(spec.fp_rate, 0.00943);
        // The BloomFilter1000 fixtures: 1,000,000 keys at 0.0001 → 312,501 words.
        let spec = BloomSpecification::for_fp_chance(0.0001).unwrap();
        assert_eq!(spec.bitset_size_bits(1_000_000), 312_501 * 64);
        // The legacy tables: 5 keys at 0.01 → 70 bits → 2 words.
        assert_eq!(
            BloomSpecification::for_fp_chance(0.01)
                .unwrap()
                .bitset_size_bits(5),
            128
        );
    }
}
