//! Two versions of a counter cell: `Cells.resolveCounter` and `CounterContext.merge`.
//!
//! | case | result | Src |
//! |---|---|---|
//! | one tombstone | the tombstone, whatever the timestamps (CASSANDRA-7346) | `db/rows/Cells.java` `resolveCounter` |
//! | two tombstones | the one with the higher timestamp (the right one on a tie) | `resolveCounter` |
//! | two live cells | the contexts merged shard by shard (by counter id), the higher timestamp; a context that already holds the merge is returned as it is | `db/context/CounterContext.java` `merge` |
//! | same counter id | global beats local and remote, local beats remote; two globals or two remotes: the higher clock (same clock: the larger count); two locals: clocks and counts added | `CounterContext.compare` |
//!
//! The merged context is written as `CounterContext` lays it out: header count (global + local
//! shards), one header element per global (`index + i16::MIN`) or local (`index`) shard, then
//! the shards in counter-id order.

use core::cmp::Ordering;

use crate::component::data::{Cell, CellKind, CounterContext, CounterShardKind};

/// One shard: the 16-byte counter id, its kind, clock and count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shard {
    id: [u8; 16],
    kind: CounterShardKind,
    clock: i64,
    count: i64,
}

const HEADER_COUNT_BYTES: usize = 2;
const HEADER_ELEMENT_BYTES: usize = 2;

/// The shards of a context value, or `None` when it does not decode.
fn shards(value: &[u8]) -> Option<Vec<Shard>> {
    let ctx = CounterContext::decode(value, 0).ok()?;
    let header = HEADER_COUNT_BYTES.saturating_add(
        ctx.header_elements
            .len()
            .saturating_mul(HEADER_ELEMENT_BYTES),
    );
    ctx.shards
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let at = header.saturating_add(i.saturating_mul(CounterContext::SHARD_BYTES));
            let id: [u8; 16] = value.get(at..at.saturating_add(16))?.try_into().ok()?;
            Some(Shard {
                id,
                kind: s.kind,
                clock: s.clock,
                count: s.count,
            })
        })
        .collect()
}

/// `CounterContext.compare` of two shards of the same counter id.
fn compare(l: &Shard, r: &Shard) -> Relationship {
    use CounterShardKind::*;
    let by_count = |l: &Shard, r: &Shard| match l.count.cmp(&r.count) {
        Ordering::Greater => Relationship::Greater,
        Ordering::Equal => Relationship::Equal,
        Ordering::Less => Relationship::Less,
    };
    match (l.kind, r.kind) {
        (Global, Global) if l.clock == r.clock => by_count(l, r),
        (Global, Global) => {
            if l.clock > r.clock {
                Relationship::Greater
            } else {
                Relationship::Less
            }
        }
        (Global, _) => Relationship::Greater,
        (_, Global) => Relationship::Less,
        (Local, Local) => Relationship::Disjoint,
        (Local, _) => Relationship::Greater,
        (_, Local) => Relationship::Less,
        (Remote, Remote) if l.clock == r.clock => by_count(l, r),
        (Remote, Remote) => {
            let (lc, rc) = (l.clock, r.clock);
            // A negative clock is a deleted shard (pre-2.1 contexts).
            let greater = if lc >= 0 {
                rc > 0 && lc >= rc
            } else {
                rc > 0 || lc < rc
            };
            if greater {
                Relationship::Greater
            } else {
                Relationship::Less
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relationship {
    Greater,
    Equal,
    Less,
    Disjoint,
}

/// `CounterContext.merge`: the merged shards, or which input already holds them.
enum Merged {
    Left,
    Right,
    New(Vec<Shard>),
}

fn merge_shards(left: &[Shard], right: &[Shard]) -> Merged {
    let (mut l_superset, mut r_superset) = (true, true);
    let mut out = Vec::with_capacity(left.len().saturating_add(right.len()));
    let (mut li, mut ri) = (left.iter().peekable(), right.iter().peekable());
    loop {
        match (li.peek(), ri.peek()) {
            (Some(l), Some(r)) => match l.id.cmp(&r.id) {
                Ordering::Equal => {
                    match compare(l, r) {
                        Relationship::Greater => {
                            r_superset = false;
                            out.push(**l);
                        }
                        Relationship::Less => {
                            l_superset = false;
                            out.push(**r);
                        }
                        Relationship::Equal => out.push(**r),
                        Relationship::Disjoint => {
                            l_superset = false;
                            r_superset = false;
                            out.push(Shard {
                                clock: l.clock.wrapping_add(r.clock),
                                count: l.count.wrapping_add(r.count),
                                ..**l
                            });
                        }
                    }
                    li.next();
                    ri.next();
                }
                Ordering::Greater => {
                    l_superset = false;
                    out.push(**r);
                    ri.next();
                }
                Ordering::Less => {
                    r_superset = false;
                    out.push(**l);
                    li.next();
                }
            },
            (Some(l), None) => {
                r_superset = false;
                out.push(**l);
                li.next();
            }
            (None, Some(r)) => {
                l_superset = false;
                out.push(**r);
                ri.next();
            }
            (None, None) => break,
        }
    }
    if l_superset {
        Merged::Left
    } else if r_superset {
        Merged::Right
    } else {
        Merged::New(out)
    }
}

/// The context bytes of `shards` (in counter-id order).
fn encode(shards: &[Shard]) -> Vec<u8> {
    let headed: Vec<(usize, &Shard)> = shards
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind != CounterShardKind::Remote)
        .collect();
    let mut out = Vec::new();
    out.extend_from_slice(
        &u16::try_from(headed.len())
            .unwrap_or(u16::MAX)
            .to_be_bytes(),
    );
    for (i, s) in &headed {
        let index = u16::try_from(*i).unwrap_or(u16::MAX);
        let element = if s.kind == CounterShardKind::Global {
            index | 0x8000
        } else {
            index
        };
        out.extend_from_slice(&element.to_be_bytes());
    }
    for s in shards {
        out.extend_from_slice(&s.id);
        out.extend_from_slice(&s.clock.to_be_bytes());
        out.extend_from_slice(&s.count.to_be_bytes());
    }
    out
}

/// Which version won a counter reconciliation.
pub(crate) enum CounterResolution {
    Left,
    Right,
    /// Both contributed: the merged cell (the newer timestamp, the merged context).
    Merged(Box<Cell>),
}

/// `Cells.resolveCounter(left, right)`. A live value that is not a valid context is
/// reconciled as a regular cell would be (`None`).
pub(crate) fn resolve_counter(left: &Cell, right: &Cell) -> Option<CounterResolution> {
    let (lt, rt) = (left.is_tombstone(), right.is_tombstone());
    if lt != rt {
        return Some(if lt {
            CounterResolution::Left
        } else {
            CounterResolution::Right
        });
    }
    if lt {
        return Some(if left.timestamp_micros > right.timestamp_micros {
            CounterResolution::Left
        } else {
            CounterResolution::Right
        });
    }
    let (ls, rs) = (shards(&left.value.bytes)?, shards(&right.value.bytes)?);
    let timestamp = left.timestamp_micros.max(right.timestamp_micros);
    let shards = match merge_shards(&ls, &rs) {
        Merged::Left if timestamp == left.timestamp_micros => return Some(CounterResolution::Left),
        Merged::Right if timestamp == right.timestamp_micros => {
            return Some(CounterResolution::Right)
        }
        Merged::Left => ls,
        Merged::Right => rs,
        Merged::New(s) => s,
    };
    let bytes = encode(&shards);
    let mut cell = if right.timestamp_micros > left.timestamp_micros {
        right.clone()
    } else {
        left.clone()
    };
    cell.counter = CounterContext::decode(&bytes, cell.value.span.start).ok();
    cell.value.bytes = bytes;
    cell.timestamp_micros = timestamp;
    cell.kind = CellKind::Live;
    cell.ttl_secs = None;
    cell.local_deletion_time = None;
    Some(CounterResolution::Merged(Box::new(cell)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(id: u8, kind: CounterShardKind, clock: i64, count: i64) -> Shard {
        Shard {
            id: [id; 16],
            kind,
            clock,
            count,
        }
    }

    #[test]
    fn encode_then_decode_keeps_kinds_and_total() {
        use CounterShardKind::*;
        let s = vec![
            shard(1, Global, 5, 10),
            shard(2, Remote, 3, -2),
            shard(3, Local, 1, 7),
        ];
        let bytes = encode(&s);
        assert_eq!(shards(&bytes).unwrap(), s);
        assert_eq!(CounterContext::decode(&bytes, 0).unwrap().total, 15);
    }

    #[test]
    fn merge_follows_counter_context() {
        use CounterShardKind::*;
        // Same id, two globals: the higher clock; disjoint ids: both.
        let l = vec![shard(1, Global, 5, 10), shard(3, Global, 1, 1)];
        let r = vec![shard(1, Global, 6, 12), shard(2, Global, 1, 4)];
        let Merged::New(m) = merge_shards(&l, &r) else {
            panic!("neither is a superset")
        };
        assert_eq!(
            m,
            vec![
                shard(1, Global, 6, 12),
                shard(2, Global, 1, 4),
                shard(3, Global, 1, 1)
            ]
        );
        // Two locals add up; a global beats a remote.
        let Merged::New(m) = merge_shards(
            &[shard(1, Local, 2, 3), shard(2, Remote, 9, 9)],
            &[shard(1, Local, 1, 4), shard(2, Global, 1, 1)],
        ) else {
            panic!("locals never make a superset")
        };
        assert_eq!(m, vec![shard(1, Local, 3, 7), shard(2, Global, 1, 1)]);
        // A context holding the other's shards is returned as it is.
        assert!(matches!(merge_shards(&l, &l[..1]), Merged::Left));
    }
}
