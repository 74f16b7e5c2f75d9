//! CounterContext: a counter cell's value.
//!
//! | part | encoding |
//! |---|---|
//! | header count n | i16; negative = local shards marked to be cleared, count = abs(n) |
//! | header elements | n × i16: `index + i16::MIN` for a global shard, `index` for a local one |
//! | shards | 32 bytes each: 16-byte counter id (UUID), i64 clock, i64 count; shards without a header element are remote |
//!
//! Src: `src/java/org/apache/cassandra/db/context/CounterContext.java` (`headerLength`, `total`,
//! `ContextState`).

use serde::Serialize;

use crate::reader::Reader;
use crate::span::{Span, Spanned};

/// A counter shard's role (`CounterContext`).
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterShardKind {
    Global,
    Local,
    Remote,
}

/// One shard of a CounterContext.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct CounterShard {
    pub span: Span,
    pub kind: CounterShardKind,
    /// The counter id (a UUID), `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
    pub counter_id: String,
    pub clock: i64,
    pub count: i64,
}

/// A counter cell's value (`CounterContext`).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct CounterContext {
    pub span: Span,
    /// As stored; negative means "local shards marked to be cleared".
    pub header_count: Spanned<i16>,
    pub header_elements: Vec<Spanned<i16>>,
    pub shards: Vec<CounterShard>,
    /// Sum of every shard's count (`CounterContext.total`), wrapping.
    pub total: i64,
}

impl CounterContext {
    /// Length of one shard: counter id, clock, count.
    pub const SHARD_BYTES: usize = 32;

    /// Decodes a counter context whose first byte is at `base_offset`.
    pub fn decode(bytes: &[u8], base_offset: u64) -> core::result::Result<CounterContext, String> {
        let mut r = Reader::new(bytes, base_offset);
        let start = r.offset();
        let header_count = r
            .spanned(|r| r.u16("counter header count").map(|n| n as i16))
            .map_err(|_| "too short for the 2-byte header count".to_owned())?;
        let n = header_count.value;
        let count = usize::from(n.unsigned_abs());
        if count.saturating_mul(2) > r.remaining_bytes() {
            return Err(format!(
                "{count} header elements do not fit in {} bytes",
                r.remaining_bytes()
            ));
        }
        let mut header_elements = Vec::with_capacity(count);
        for _ in 0..count {
            let e = r
                .spanned(|r| r.u16("counter header element").map(|e| e as i16))
                .map_err(|e| e.to_string())?;
            header_elements.push(e);
        }
        let body = r.remaining_bytes();
        if !body.is_multiple_of(Self::SHARD_BYTES) {
            return Err(format!(
                "{body} body bytes are not a whole number of {}-byte shards",
                Self::SHARD_BYTES
            ));
        }
        let shard_count = body / Self::SHARD_BYTES;
        let mut kinds = vec![CounterShardKind::Remote; shard_count];
        for e in &header_elements {
            let (index, kind) = if e.value < 0 {
                (
                    usize::from((e.value as u16) ^ 0x8000),
                    CounterShardKind::Global,
                )
            } else {
                (usize::from(e.value as u16), CounterShardKind::Local)
            };
            match kinds.get_mut(index) {
                Some(k) => *k = kind,
                None => {
                    return Err(format!(
                        "header element {} names shard {index} of {shard_count}",
                        e.value
                    ))
                }
            }
        }
        let mut shards = Vec::with_capacity(shard_count);
        let mut total = 0i64;
        for kind in kinds {
            let s = r.offset();
            let id = r.bytes(16, "counter id").map_err(|e| e.to_string())?;
            let counter_id = format_uuid(id);
            let clock = r.i64("counter clock").map_err(|e| e.to_string())?;
            let count = r.i64("counter count").map_err(|e| e.to_string())?;
            total = total.wrapping_add(count);
            shards.push(CounterShard {
                span: r.span_from(s),
                kind,
                counter_id,
                clock,
                count,
            });
        }
        Ok(CounterContext {
            span: r.span_from(start),
            header_count,
            header_elements,
            shards,
            total,
        })
    }
}

/// 16 bytes as `8-4-4-4-12` lowercase hex.
pub(crate) fn format_uuid(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(36);
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push_str(&format!("{b:02x}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_context_with_one_global_shard() {
        let mut b = vec![0x00, 0x01, 0x80, 0x00];
        b.extend_from_slice(&[0x11; 16]);
        b.extend_from_slice(&7i64.to_be_bytes());
        b.extend_from_slice(&1i64.to_be_bytes());
        let c = CounterContext::decode(&b, 100).unwrap();
        assert_eq!(c.header_count.value, 1);
        assert_eq!(c.shards.len(), 1);
        assert_eq!(c.shards[0].kind, CounterShardKind::Global);
        assert_eq!(c.shards[0].clock, 7);
        assert_eq!(c.total, 1);
        assert_eq!(c.shards[0].span, Span::new(104, 136));
        assert_eq!(
            c.shards[0].counter_id,
            "11111111-1111-1111-1111-111111111111"
        );
        // A remote shard plus a local one.
        let mut b = vec![0x00, 0x01, 0x00, 0x01];
        for count in [5i64, -2] {
            b.extend_from_slice(&[0; 16]);
            b.extend_from_slice(&1i64.to_be_bytes());
            b.extend_from_slice(&count.to_be_bytes());
        }
        let c = CounterContext::decode(&b, 0).unwrap();
        assert_eq!(
            c.shards.iter().map(|s| s.kind).collect::<Vec<_>>(),
            [CounterShardKind::Remote, CounterShardKind::Local]
        );
        assert_eq!(c.total, 3);
        assert!(CounterContext::decode(&b[..40], 0).is_err());
        assert!(CounterContext::decode(&[0x00, 0x01, 0x00, 0x05], 0).is_err());
        assert!(CounterContext::decode(&[0x7f], 0).is_err());
    }
}
