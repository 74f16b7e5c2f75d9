//! Partitioners and the tokens they give partition keys.
//!
//! Statistics.db (VALIDATION) names the partitioner class; every index of an sstable is sorted by
//! the token of each partition key, then by the key bytes (`DecoratedKey.compareTo`).
//!
//! | partitioner | token of key `k` | order | shown as (nodetool) |
//! |---|---|---|---|
//! | `Murmur3Partitioner` | h1 of Cassandra's MurmurHash3 x64/128 of `k` (`i64::MIN` → `i64::MAX`; empty key → `i64::MIN`) | signed 64-bit | decimal |
//! | `RandomPartitioner` | `abs(BigInteger(MD5(k)))`, 0 … 2¹²⁷ (empty key → −1) | integer | decimal |
//! | `ByteOrderedPartitioner` | the key bytes | unsigned lexicographic | hex |
//! | `OrderPreservingPartitioner` | the key as a UTF-8 string | Java `String.compareTo` (UTF-16 units) | the string |
//! | `LocalPartitioner` | the key, ordered by a type the sstable does not record | here: unsigned bytes | hex |
//!
//! MD5 is implemented here (RFC 1321) so the engine needs no extra dependency.
//!
//! Src: `src/java/org/apache/cassandra/dht/Murmur3Partitioner.java`, `RandomPartitioner.java`,
//! `ByteOrderedPartitioner.java`, `OrderPreservingPartitioner.java`, `LocalPartitioner.java`,
//! `src/java/org/apache/cassandra/db/DecoratedKey.java`, `utils/MurmurHash.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use core::cmp::Ordering;
use core::fmt;

use serde::{Serialize, Serializer};

use crate::hash::murmur3_token;

/// The partitioner an sstable was written with (`IPartitioner`), from its class name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum Partitioner {
    Murmur3,
    Random,
    ByteOrdered,
    OrderPreserving,
    Local,
    /// A class this module does not know (the name as written).
    Unknown(String),
}

impl Partitioner {
    /// From a class name such as `org.apache.cassandra.dht.Murmur3Partitioner` (package optional).
    pub fn from_class_name(name: &str) -> Partitioner {
        let trimmed = name.trim();
        let simple = trimmed.rsplit('.').next().unwrap_or(trimmed);
        match simple {
            "Murmur3Partitioner" => Partitioner::Murmur3,
            "RandomPartitioner" => Partitioner::Random,
            "ByteOrderedPartitioner" => Partitioner::ByteOrdered,
            "OrderPreservingPartitioner" => Partitioner::OrderPreserving,
            "LocalPartitioner" => Partitioner::Local,
            _ => Partitioner::Unknown(trimmed.to_owned()),
        }
    }

    /// The simple class name.
    pub fn name(&self) -> &str {
        match self {
            Partitioner::Murmur3 => "Murmur3Partitioner",
            Partitioner::Random => "RandomPartitioner",
            Partitioner::ByteOrdered => "ByteOrderedPartitioner",
            Partitioner::OrderPreserving => "OrderPreservingPartitioner",
            Partitioner::Local => "LocalPartitioner",
            Partitioner::Unknown(s) => s,
        }
    }

    /// Whether key order follows the key bytes (so an index can be checked without hashing).
    pub fn preserves_order(&self) -> bool {
        matches!(
            self,
            Partitioner::ByteOrdered | Partitioner::OrderPreserving | Partitioner::Local
        )
    }

    /// The token of a partition key (`IPartitioner.getToken`).
    pub fn token(&self, key: &[u8]) -> Token {
        match self {
            Partitioner::Murmur3 => Token::Murmur3(murmur3_token(key)),
            Partitioner::Random => Token::Random(random_token(key)),
            Partitioner::ByteOrdered => Token::Bytes(key.to_vec()),
            Partitioner::OrderPreserving => {
                Token::String(String::from_utf8_lossy(key).into_owned())
            }
            Partitioner::Local | Partitioner::Unknown(_) => Token::Key(key.to_vec()),
        }
    }

    /// Compares two partition keys the way an index orders them: by token, then by key bytes.
    pub fn compare_keys(&self, a: &[u8], b: &[u8]) -> Ordering {
        self.token(a).cmp(&self.token(b)).then_with(|| a.cmp(b))
    }
}

impl fmt::Display for Partitioner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A partition key's token. Tokens of one partitioner are totally ordered; comparing tokens of
/// two partitioners orders them by partitioner first (meaningless, but total).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Token {
    /// `LongToken`.
    Murmur3(i64),
    /// `BigIntegerToken`: 0 … 2¹²⁷; `None` is the minimum token −1 (the empty key's).
    Random(Option<u128>),
    /// `BytesToken` (ByteOrderedPartitioner).
    Bytes(Vec<u8>),
    /// `StringToken` (OrderPreservingPartitioner).
    String(String),
    /// `LocalToken` (or an unknown partitioner): the key bytes.
    Key(Vec<u8>),
}

impl Token {
    fn rank(&self) -> u8 {
        match self {
            Token::Murmur3(_) => 0,
            Token::Random(_) => 1,
            Token::Bytes(_) => 2,
            Token::String(_) => 3,
            Token::Key(_) => 4,
        }
    }
}

impl Ord for Token {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Token::Murmur3(a), Token::Murmur3(b)) => a.cmp(b),
            (Token::Random(a), Token::Random(b)) => a.cmp(b),
            (Token::Bytes(a), Token::Bytes(b)) | (Token::Key(a), Token::Key(b)) => a.cmp(b),
            // Java compares strings by UTF-16 code units, not by code points.
            (Token::String(a), Token::String(b)) => a.encode_utf16().cmp(b.encode_utf16()),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for Token {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Murmur3(t) => write!(f, "{t}"),
            Token::Random(Some(t)) => write!(f, "{t}"),
            Token::Random(None) => f.write_str("-1"),
            Token::Bytes(b) | Token::Key(b) => {
                for byte in b {
                    write!(f, "{byte:02x}")?;
                }
                Ok(())
            }
            Token::String(s) => f.write_str(s),
        }
    }
}

impl Serialize for Token {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// `RandomPartitioner.getToken`: the MD5 digest read as a signed big-endian integer, made
/// positive (`BigInteger.abs`, so 0 … 2¹²⁷ inclusive); the empty key gets the minimum token −1
/// (`None`).
fn random_token(key: &[u8]) -> Option<u128> {
    if key.is_empty() {
        return None;
    }
    Some(i128::from_be_bytes(md5::digest(key)).unsigned_abs())
}

/// The MD5 digest (RFC 1321) of `input`.
pub fn md5_digest(input: &[u8]) -> [u8; 16] {
    md5::digest(input)
}

/// MD5 (RFC 1321): 512-bit blocks of 16 little-endian words, four rounds of 16 steps.
mod md5 {
    /// Per-step left rotations: four rounds, each repeating four amounts.
    const SHIFTS: [[u32; 4]; 4] = [
        [7, 12, 17, 22],
        [5, 9, 14, 20],
        [4, 11, 16, 23],
        [6, 10, 15, 21],
    ];

    /// `floor(abs(sin(i + 1)) · 2^32)` for i = 0..64 (RFC 1321 §3.4, table T).
    const SINES: [u32; 64] = [
        0xd76a_a478,
        0xe8c7_b756,
        0x2420_70db,
        0xc1bd_ceee,
        0xf57c_0faf,
        0x4787_c62a,
        0xa830_4613,
        0xfd46_9501,
        0x6980_98d8,
        0x8b44_f7af,
        0xffff_5bb1,
        0x895c_d7be,
        0x6b90_1122,
        0xfd98_7193,
        0xa679_438e,
        0x49b4_0821,
        0xf61e_2562,
        0xc040_b340,
        0x265e_5a51,
        0xe9b6_c7aa,
        0xd62f_105d,
        0x0244_1453,
        0xd8a1_e681,
        0xe7d3_fbc8,
        0x21e1_cde6,
        0xc337_07d6,
        0xf4d5_0d87,
        0x455a_14ed,
        0xa9e3_e905,
        0xfcef_a3f8,
        0x676f_02d9,
        0x8d2a_4c8a,
        0xfffa_3942,
        0x8771_f681,
        0x6d9d_6122,
        0xfde5_380c,
        0xa4be_ea44,
        0x4bde_cfa9,
        0xf6bb_4b60,
        0xbebf_bc70,
        0x289b_7ec6,
        0xeaa1_27fa,
        0xd4ef_3085,
        0x0488_1d05,
        0xd9d4_d039,
        0xe6db_99e5,
        0x1fa2_7cf8,
        0xc4ac_5665,
        0xf429_2244,
        0x432a_ff97,
        0xab94_23a7,
        0xfc93_a039,
        0x655b_59c3,
        0x8f0c_cc92,
        0xffef_f47d,
        0x8584_5dd1,
        0x6fa8_7e4f,
        0xfe2c_e6e0,
        0xa301_4314,
        0x4e08_11a1,
        0xf753_7e82,
        0xbd3a_f235,
        0x2ad7_d2bb,
        0xeb86_d391,
    ];

    pub(super) fn digest(input: &[u8]) -> [u8; 16] {
        let mut state: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
        let bit_len = (input.len() as u64).wrapping_mul(8);

        // Padding: 0x80, zeros to 56 mod 64, then the bit length as a little-endian u64.
        let mut tail = Vec::with_capacity(128);
        let blocks = input.chunks_exact(64);
        tail.extend_from_slice(blocks.remainder());
        tail.push(0x80);
        while tail.len() % 64 != 56 {
            tail.push(0);
        }
        tail.extend_from_slice(&bit_len.to_le_bytes());

        for block in blocks.chain(tail.chunks_exact(64)) {
            compress(&mut state, block);
        }
        let mut out = [0u8; 16];
        for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        out
    }

    fn compress(state: &mut [u32; 4], block: &[u8]) {
        let mut m = [0u32; 16];
        for (word, bytes) in m.iter_mut().zip(block.chunks_exact(4)) {
            let mut le = [0u8; 4];
            le.copy_from_slice(bytes);
            *word = u32::from_le_bytes(le);
        }
        let [mut a, mut b, mut c, mut d] = *state;
        for (i, &t) in SINES.iter().enumerate() {
            let round = i / 16;
            let (f, g) = match round {
                0 => ((b & c) | (!b & d), i),
                // RFC 1321's message-word schedule, mod 16: i < 64, so wrapping never happens.
                1 => ((d & b) | (!d & c), i.wrapping_mul(5).wrapping_add(1) % 16),
                2 => (b ^ c ^ d, i.wrapping_mul(3).wrapping_add(5) % 16),
                _ => (c ^ (b | !d), i.wrapping_mul(7) % 16),
            };
            let shift = SHIFTS
                .get(round)
                .and_then(|r| r.get(i % 4))
                .copied()
                .unwrap_or(0);
            let word = m.get(g).copied().unwrap_or(0);
            let rotated = a
                .wrapping_add(f)
                .wrapping_add(t)
                .wrapping_add(word)
                .rotate_left(shift);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(rotated);
        }
        let [sa, sb, sc, sd] = state;
        *sa = sa.wrapping_add(a);
        *sb = sb.wrapping_add(b);
        *sc = sc.wrapping_add(c);
        *sd = sd.wrapping_add(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn md5_rfc_1321_test_suite() {
        // RFC 1321 appendix A.5.
        let vectors: [(&str, &str); 7] = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            (
                "abcdefghijklmnopqrstuvwxyz",
                "c3fcd3d76192e4007dfb496cca67e13b",
            ),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "d174ab98d277d9f5a5611c2c9f419d9f",
            ),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "57edf4a22be3c955ac49da2e2107b67a",
            ),
        ];
        for (input, want) in vectors {
            assert_eq!(hex(&md5_digest(input.as_bytes())), want, "{input:?}");
        }
        // Lengths around the padding boundary (55, 56, 63, 64 bytes) against independent values.
        assert_eq!(
            hex(&md5_digest(&[b'a'; 56])),
            "3b0c8ac703f828b04c6c197006d17218"
        );
        assert_eq!(
            hex(&md5_digest(&[b'a'; 64])),
            "014842d480b571495a4a0363793f7367"
        );
    }

    #[test]
    fn partitioner_names() {
        assert_eq!(
            Partitioner::from_class_name("org.apache.cassandra.dht.Murmur3Partitioner"),
            Partitioner::Murmur3
        );
        assert_eq!(
            Partitioner::from_class_name("ByteOrderedPartitioner"),
            Partitioner::ByteOrdered
        );
        assert_eq!(
            Partitioner::from_class_name("com.example.Mine"),
            Partitioner::Unknown("com.example.Mine".into())
        );
        assert_eq!(Partitioner::Random.to_string(), "RandomPartitioner");
    }

    #[test]
    fn tokens_display_like_nodetool() {
        assert_eq!(
            Partitioner::Murmur3.token(&[0, 0, 0, 0]).to_string(),
            "-3485513579396041028"
        );
        assert_eq!(Partitioner::ByteOrdered.token(b"0").to_string(), "30");
        assert_eq!(
            Partitioner::OrderPreserving.token(b"key").to_string(),
            "key"
        );
        // MD5("") = d41d8cd9…: top bit set → negative → absolute value.
        let t = Partitioner::Random.token(b"a");
        let Token::Random(Some(v)) = t else {
            panic!("not a Random token")
        };
        assert_eq!(v, i128::from_be_bytes(md5_digest(b"a")).unsigned_abs());
        assert!(Token::Random(None) < Token::Random(Some(0)));
        assert_eq!(Partitioner::Random.token(b"").to_string(), "-1");
    }

    #[test]
    fn token_order() {
        let p = Partitioner::Murmur3;
        assert!(p.token(&[0, 0, 0, 0]) < Token::Murmur3(0));
        assert!(Token::Bytes(vec![0x30]) < Token::Bytes(vec![0x30, 0]));
        assert!(Token::Bytes(vec![0x7f]) < Token::Bytes(vec![0x80]));
        // U+FFFD sorts above U+1F600 in UTF-16 order (0xFFFD > 0xD83D), not in code points.
        assert!(Token::String("\u{1F600}".into()) < Token::String("\u{FFFD}".into()));
        assert_eq!(
            Partitioner::ByteOrdered.compare_keys(b"a", b"b"),
            Ordering::Less
        );
    }
}
