//! Byte-comparable forms of partition keys: the byte strings the BTI partition trie is keyed by.
//!
//! | part | bytes |
//! |---|---|
//! | decorated key | `40` ‖ token ‖ `40` ‖ escape(key bytes) ‖ `38` (`ByteSource.withTerminator`) |
//! | Murmur3 token | 8 bytes big-endian of `token XOR 0x8000000000000000` (signed → unsigned order) |
//! | ByteOrdered token | escape(key bytes) |
//! | OrderPreserving token | escape(UTF-8 of the token string) |
//! | Random token | `IntegerType` form: 7+ significant bytes → `FF` ‖ (length − 7) ‖ magnitude bytes (small tokens use a signed varint form that is not implemented here) |
//! | Local token | the key type's own form (the type is not in the sstable: not supported) |
//!
//! Escaping (`ByteSource.of(bytes)`): bytes are copied; a run of n zero bytes becomes `00`
//! followed by n−1 × `FE`, then `FF` if more bytes follow; the encoding ends with `00`, or — when
//! the input ends in a zero byte — the last run ends with `FE` instead of `FF` and nothing is
//! appended (`22 00` → `22 00 FE`, `22 00 00 33` → `22 00 FE FF 33 00`, `22` → `22 00`).
//!
//! Separators `40` (next component), `38` (terminator), `20`/`60` (bound before/after) and `3F`
//! (null) are in [`NEXT_COMPONENT`] etc. Row-index separators are byte-comparable clustering
//! prefixes built the same way, one component per clustering column.
//!
//! Only the Murmur3 and ByteOrdered forms are checked against real files (the ByteOrdered
//! fixtures); the Random form is read from `IntegerType` and is UNVERIFIED.
//!
//! Src: `src/java/org/apache/cassandra/utils/bytecomparable/ByteComparable.md`, `ByteSource.java`,
//! `src/java/org/apache/cassandra/db/DecoratedKey.java` (`asComparableBytes`),
//! `dht/Murmur3Partitioner.java`, `dht/ByteOrderedPartitioner.java`,
//! `dht/OrderPreservingPartitioner.java`, `dht/RandomPartitioner.java`, `db/marshal/IntegerType.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::token::{md5_digest, Partitioner};

/// `ByteSource.NEXT_COMPONENT`: before each component of a sequence.
pub const NEXT_COMPONENT: u8 = 0x40;
/// `ByteSource.TERMINATOR`: ends a full sequence (partition or clustering key).
pub const TERMINATOR: u8 = 0x38;
/// `ByteSource.LT_NEXT_COMPONENT`: ends a bound that sorts before everything with its prefix.
pub const LT_NEXT_COMPONENT: u8 = 0x20;
/// `ByteSource.GT_NEXT_COMPONENT`: ends a bound that sorts after everything with its prefix.
pub const GT_NEXT_COMPONENT: u8 = 0x60;
/// `ByteSource.NEXT_COMPONENT_NULL`: a null component.
pub const NEXT_COMPONENT_NULL: u8 = 0x3f;

/// Appends the escaped form of `input` (`ByteSource.of(byte[])`) to `out`.
pub fn escape_bytes(input: &[u8], out: &mut Vec<u8>) {
    out.reserve(input.len().saturating_add(1));
    let mut in_zero_run = false;
    for &b in input {
        if b == 0 {
            out.push(if in_zero_run { 0xfe } else { 0x00 });
            in_zero_run = true;
        } else {
            if in_zero_run {
                out.push(0xff);
                in_zero_run = false;
            }
            out.push(b);
        }
    }
    out.push(if in_zero_run { 0xfe } else { 0x00 });
}

/// The escaped form of `input`.
pub fn escaped(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    escape_bytes(input, &mut out);
    out
}

/// The byte-comparable form of a key's token (`Token.asComparableBytes`), or `None` where this
/// module cannot build it (Local and unknown partitioners; Random tokens below 2⁴⁸).
pub fn token_bytes(partitioner: &Partitioner, key: &[u8]) -> Option<Vec<u8>> {
    match partitioner {
        Partitioner::Murmur3 => {
            let token = crate::hash::murmur3_token(key);
            Some(((token as u64) ^ (1u64 << 63)).to_be_bytes().to_vec())
        }
        Partitioner::ByteOrdered => Some(escaped(key)),
        Partitioner::OrderPreserving => Some(escaped(String::from_utf8_lossy(key).as_bytes())),
        Partitioner::Random => random_token_bytes(key),
        Partitioner::Local | Partitioner::Unknown(_) => None,
    }
}

/// `DecoratedKey.asComparableBytes`: `40` token `40` escape(key) `38`.
pub fn partition_key(partitioner: &Partitioner, key: &[u8]) -> Option<Vec<u8>> {
    let token = token_bytes(partitioner, key)?;
    let mut out = Vec::with_capacity(token.len().saturating_add(key.len()).saturating_add(4));
    out.push(NEXT_COMPONENT);
    out.extend_from_slice(&token);
    out.push(NEXT_COMPONENT);
    escape_bytes(key, &mut out);
    out.push(TERMINATOR);
    Some(out)
}

/// The byte-comparable form of `key` as an SSTable of `version` indexes it in its trie:
/// ScyllaDB's typed per-column form for `ms`/`mt` ([`scylla_partition_key`]; Cassandra's where it
/// cannot be built — the two differ only below a shared token), Cassandra's
/// ([`partition_key`]) otherwise. `key_type` is the SerializationHeader's key type.
pub fn sstable_partition_key(
    version: &crate::version::Version,
    partitioner: &Partitioner,
    key: &[u8],
    key_type: Option<&crate::types::AbstractType>,
) -> Option<Vec<u8>> {
    let scylla =
        version.format() == crate::version::Format::Big && matches!(version.as_str(), "ms" | "mt");
    scylla
        .then(|| key_type.and_then(|t| scylla_partition_key(partitioner, key, t)))
        .flatten()
        .or_else(|| partition_key(partitioner, key))
}

/// The byte-comparable prefix every key of a token starts with (`40` ‖ the token's form, as
/// [`token_bytes`] builds it, ‖ `40`; the same in Cassandra's and ScyllaDB's forms): no other
/// key starts with it, keys of smaller tokens sort before it and keys of greater ones after it.
/// `None` for Random and Local tokens.
pub fn token_prefix(token: &crate::token::Token) -> Option<Vec<u8>> {
    use crate::token::Token;
    let mut out = vec![NEXT_COMPONENT];
    match token {
        Token::Murmur3(t) => out.extend_from_slice(&((*t as u64) ^ (1u64 << 63)).to_be_bytes()),
        Token::Bytes(b) => escape_bytes(b, &mut out),
        Token::String(s) => escape_bytes(s.as_bytes(), &mut out),
        Token::Random(_) | Token::Key(_) => return None,
    }
    // The key's component follows: the separator makes the prefix exact (an escaped token is a
    // prefix of a longer one's, `00 FE` of `00 FE FE`).
    out.push(NEXT_COMPONENT);
    Some(out)
}

/// ScyllaDB's `ms`/`mt` form (scylladb `sstables/trie/bti_key_translation.cc`,
/// `lazy_comparable_bytes_from_ring_position`): `40` ‖ the 64-bit token with its sign bit flipped
/// (`token::unbias`) ‖ for each partition key column `40` ‖ that column type's own
/// byte-comparable form (`comparable_bytes`) ‖ `38`. Cassandra escapes the whole serialized key
/// as one component instead; the two agree on single-column text, ascii and blob keys and differ
/// on every other key type and on composite keys (`40 a 40 b 38` rather than `40 escape(len a ‖ a
/// ‖ 00 ‖ …) 38`). The key part only decides where tokens collide (each key is cut to its shortest
/// unique prefix). Column forms built here: text, ascii, blob (escaped, `ByteSource.of`),
/// `int` (sign bit flipped, 4 bytes), `boolean` (the byte); `None` for other types and for
/// partitioners whose tokens are not 64-bit (ScyllaDB writes the trie for those only).
pub fn scylla_partition_key(
    partitioner: &Partitioner,
    key: &[u8],
    key_type: &crate::types::AbstractType,
) -> Option<Vec<u8>> {
    use crate::types::AbstractType as T;
    if !matches!(partitioner, Partitioner::Murmur3) {
        return None;
    }
    let token = token_bytes(partitioner, key)?;
    let columns: Vec<(&[u8], &T)> = match key_type {
        T::Composite(types) => split_composite(key, types.len())?
            .into_iter()
            .zip(types.iter())
            .collect(),
        other => vec![(key, other)],
    };
    let mut out = Vec::with_capacity(key.len().saturating_add(16));
    out.push(NEXT_COMPONENT);
    out.extend_from_slice(&token);
    for (bytes, column_type) in columns {
        out.push(NEXT_COMPONENT);
        match column_type {
            T::Utf8 | T::Ascii | T::Bytes => escape_bytes(bytes, &mut out),
            T::Int32 => {
                let v: [u8; 4] = bytes.try_into().ok()?;
                out.extend_from_slice(&(u32::from_be_bytes(v) ^ 0x8000_0000).to_be_bytes());
            }
            T::Boolean => out.push(*bytes.first()?),
            _ => return None,
        }
    }
    out.push(TERMINATOR);
    Some(out)
}

/// The components of a `CompositeType` key: each a u16 length, the bytes, an end-of-component byte.
fn split_composite(key: &[u8], count: usize) -> Option<Vec<&[u8]>> {
    let mut parts = Vec::with_capacity(count.min(64));
    let mut rest = key;
    while !rest.is_empty() {
        let (len, tail) = rest.split_first_chunk::<2>()?;
        let len = usize::from(u16::from_be_bytes(*len));
        let part = tail.get(..len)?;
        rest = tail.get(len.checked_add(1)?..)?;
        parts.push(part);
    }
    (parts.len() == count).then_some(parts)
}

/// The RandomPartitioner token (`abs(BigInteger(MD5(key)))`) as `IntegerType` byte-comparable.
fn random_token_bytes(key: &[u8]) -> Option<Vec<u8>> {
    if key.is_empty() {
        return None; // the minimum token −1
    }
    let magnitude = i128::from_be_bytes(md5_digest(key)).unsigned_abs();
    let be = magnitude.to_be_bytes();
    let significant: Vec<u8> = be.iter().copied().skip_while(|&b| b == 0).collect();
    // Fewer than 7 significant bytes use the signed varint form (not implemented).
    const FULL_FORM_THRESHOLD: usize = 7;
    let extra = significant.len().checked_sub(FULL_FORM_THRESHOLD)?;
    let mut out = Vec::with_capacity(significant.len().saturating_add(2));
    out.push(0xff); // positive
    out.push(u8::try_from(extra).ok()?); // < 128: one byte of the unsigned variable-length form
    out.extend_from_slice(&significant);
    Some(out)
}

/// Hex with the separator bytes of a decoded prefix made visible, for display.
pub fn describe(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len().saturating_mul(3));
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{b:02x}"));
    }
    if s.is_empty() {
        s.push_str("(empty)");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token's prefix starts every key of that token and sorts between the keys of smaller
    /// and greater tokens (what a seek down the trie relies on).
    #[test]
    fn token_prefix_starts_its_keys_and_orders_the_others() {
        let keys: Vec<Vec<u8>> = (0u32..300)
            .map(|i| {
                let mut k = i.to_be_bytes().to_vec();
                k.truncate(1 + (i as usize % 4));
                k
            })
            .collect();
        for partitioner in [
            Partitioner::Murmur3,
            Partitioner::ByteOrdered,
            Partitioner::OrderPreserving,
        ] {
            for bound in &keys {
                let token = partitioner.token(bound);
                let prefix = token_prefix(&token).unwrap();
                for k in &keys {
                    let form = partition_key(&partitioner, k).unwrap();
                    let t = partitioner.token(k);
                    assert_eq!(form.starts_with(&prefix), t == token, "{partitioner} {k:?}");
                    if t != token {
                        assert_eq!(form.as_slice() < prefix.as_slice(), t < token);
                    }
                }
            }
        }
        assert_eq!(token_prefix(&crate::token::Token::Random(Some(5))), None);
    }

    #[test]
    fn escape_examples_from_byte_comparable_md() {
        assert_eq!(escaped(&[0x22, 0x00]), [0x22, 0x00, 0xfe]);
        assert_eq!(
            escaped(&[0x22, 0x00, 0x00, 0x33]),
            [0x22, 0x00, 0xfe, 0xff, 0x33, 0x00]
        );
        assert_eq!(escaped(&[0x22, 0x00, 0x11]), [0x22, 0x00, 0xff, 0x11, 0x00]);
        assert_eq!(escaped(&[0x22, 0x00, 0x00]), [0x22, 0x00, 0xfe, 0xfe]);
        assert_eq!(escaped(&[0x22]), [0x22, 0x00]);
        assert_eq!(escaped(&[]), [0x00]);
    }

    #[test]
    fn partition_keys() {
        // ByteOrdered key "0": 40 · 30 00 · 40 · 30 00 · 38.
        assert_eq!(
            partition_key(&Partitioner::ByteOrdered, b"0").unwrap(),
            [0x40, 0x30, 0x00, 0x40, 0x30, 0x00, 0x38]
        );
        // Murmur3 int 0: token 0xcfa0f7ddd84c76bc with the sign bit flipped.
        let k = partition_key(&Partitioner::Murmur3, &[0, 0, 0, 0]).unwrap();
        assert_eq!(
            &k[..10],
            [0x40, 0x4f, 0xa0, 0xf7, 0xdd, 0xd8, 0x4c, 0x76, 0xbc, 0x40]
        );
        assert_eq!(&k[10..], [0x00, 0xfe, 0xfe, 0xfe, 0xfe, 0x38]);
        assert!(partition_key(&Partitioner::Local, b"x").is_none());
        let r = token_bytes(&Partitioner::Random, b"a").unwrap();
        assert_eq!(r[0], 0xff);
        assert_eq!(usize::from(r[1]) + 7, r.len() - 2);
        assert_eq!(describe(&[0x40, 0x30]), "40 30");
    }

    /// ScyllaDB's form: the same bytes as Cassandra's for a text key; per column and typed for an
    /// int key and for a composite (text, int) key.
    #[test]
    fn scylla_partition_keys() {
        use crate::types::AbstractType as T;
        let m = Partitioner::Murmur3;
        assert_eq!(
            scylla_partition_key(&m, b"a\0b", &T::Utf8),
            partition_key(&m, b"a\0b")
        );
        let int = scylla_partition_key(&m, &[0, 0, 0, 10], &T::Int32).unwrap();
        assert_eq!(&int[..9], &partition_key(&m, &[0, 0, 0, 10]).unwrap()[..9]);
        assert_eq!(&int[9..], [0x40, 0x80, 0, 0, 10, 0x38]);
        let key = [0, 1, b'u', 0, 0, 4, 0, 0, 0, 2, 0];
        let both = scylla_partition_key(&m, &key, &T::Composite(vec![T::Utf8, T::Int32])).unwrap();
        assert_eq!(&both[9..], [0x40, b'u', 0x00, 0x40, 0x80, 0, 0, 2, 0x38]);
        assert!(
            scylla_partition_key(&m, &key[..5], &T::Composite(vec![T::Utf8, T::Int32])).is_none()
        );
        assert!(scylla_partition_key(&Partitioner::ByteOrdered, b"a", &T::Utf8).is_none());
        assert!(scylla_partition_key(&m, &[1; 8], &T::Long).is_none());
    }
}
