//! Every partition of a Partitions.db trie, in key order, over windows of the file that the
//! caller reads (`PartitionIndex.IndexPosIterator`, the iterator behind Cassandra's
//! `PartitionIterator`).
//!
//! [`PartitionWalk`] is a depth-first walk that keeps, per level, only the node position, the
//! transition byte that led to it and the next byte to try (24 bytes a level): on the way back
//! up it decodes the parent again. [`PartitionWalk::next`] is handed the windows the caller
//! holds and answers [`WalkStep::NeedBytes`] when a node or its payload is outside them (or runs
//! past a window's end), so the walk itself never reads.
//!
//! Bounds: every pointer goes strictly backwards (checked by [`super::trie::TrieBytes::node`]),
//! the walk visits at most one node per byte of the trie (a valid trie has fewer nodes than
//! bytes, so more means shared or looping sub-tries) and is at most [`MAX_TRIE_DEPTH`] levels
//! deep.
//!
//! Src: `src/java/org/apache/cassandra/io/tries/ValueIterator.java`, `Walker.java`,
//! `io/sstable/format/bti/PartitionIndex.java` (`IndexPosIterator`), `PartitionIterator.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::partitions::{decode_payload, PartitionPayload};
use super::trie::{TrieBytes, TrieNode};
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};

/// A walk deeper than this many levels is an error (a partition key is at most 64 KiB, its
/// byte-comparable form a little more).
pub const MAX_TRIE_DEPTH: usize = 1 << 18;

/// One level of the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Frame {
    position: u64,
    /// The transition byte from the parent (`None` for the root).
    byte: Option<u8>,
    /// The next transition byte to try (256: none left).
    next_byte: u16,
}

/// A partition the walk reached.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkEntry {
    /// The transition bytes from the root: the key's shortest unique byte-comparable prefix.
    pub key_prefix: Vec<u8>,
    pub node_position: u64,
    pub payload: PartitionPayload,
}

/// What [`PartitionWalk::next`] produced.
#[derive(Debug, Clone, PartialEq)]
pub enum WalkStep {
    Entry(WalkEntry),
    /// The node (or payload) at `position` is not inside the windows given; `grow`: it starts in
    /// one but runs past its end.
    NeedBytes {
        position: u64,
        grow: bool,
    },
    /// Every partition was listed.
    End,
}

/// A depth-first walk of a partition index trie (see the module docs).
#[derive(Debug, Clone)]
pub struct PartitionWalk {
    root: u64,
    /// Where the trie ends (the first key's position): no node lies at or past it.
    trie_end: u64,
    stack: Vec<Frame>,
    started: bool,
    visited_nodes: u64,
    done: bool,
    /// [`PartitionWalk::seek`]: the byte-comparable bound and how many of its bytes the walk
    /// has followed down from the root.
    seek: Option<(Vec<u8>, usize)>,
}

/// A node (and its payload), or where bytes are missing.
enum Loaded {
    Node(TrieNode, Option<PartitionPayload>),
    Need { position: u64, grow: bool },
}

impl PartitionWalk {
    /// A walk from `root` of a trie that ends at `trie_end`.
    pub fn new(root: u64, trie_end: u64) -> PartitionWalk {
        PartitionWalk {
            root,
            trie_end,
            stack: Vec::new(),
            started: false,
            visited_nodes: 0,
            done: false,
            seek: None,
        }
    }

    /// Starts the walk at `comparable` (a byte-comparable partition key, or a prefix of one
    /// such as a token's): before the first step, the walk follows its bytes down from the
    /// root as `Walker.ceiling` does, leaving behind every transition below them. The first
    /// entry is then the partition whose unique prefix the bound passes through (its key may
    /// sort before the bound: the trie holds prefixes only, so the caller compares its key)
    /// or the first partition after the bound; every later entry sorts after the bound.
    pub fn seek(mut self, comparable: Vec<u8>) -> PartitionWalk {
        self.seek = Some((comparable, 0));
        self
    }

    /// Where the trie ends.
    pub fn trie_end(&self) -> u64 {
        self.trie_end
    }

    /// Nodes visited so far (a node reached twice counts twice).
    pub fn visited_nodes(&self) -> u64 {
        self.visited_nodes
    }

    /// The next partition, or the bytes needed to go on. After an error the walk is finished.
    pub fn next(&mut self, windows: &[TrieBytes<'_>]) -> Result<WalkStep> {
        let step = self.step(windows);
        if step.is_err() {
            self.done = true;
        }
        step
    }

    fn step(&mut self, windows: &[TrieBytes<'_>]) -> Result<WalkStep> {
        loop {
            if self.done {
                return Ok(WalkStep::End);
            }
            if !self.started {
                let (node, payload) = match self.load(windows, self.root, true)? {
                    Loaded::Node(n, p) => (n, p),
                    Loaded::Need { position, grow } => {
                        return Ok(WalkStep::NeedBytes { position, grow })
                    }
                };
                self.count_visit(node.position)?;
                self.started = true;
                self.stack.push(Frame {
                    position: node.position,
                    byte: None,
                    next_byte: 0,
                });
                if let Some(payload) = payload {
                    self.seek = None;
                    return Ok(WalkStep::Entry(self.entry(node.position, payload)));
                }
                continue;
            }
            if self.seek.is_some() {
                match self.seek_step(windows)? {
                    Some(step) => return Ok(step),
                    None => continue,
                }
            }
            let Some(top) = self.stack.last().copied() else {
                self.done = true;
                return Ok(WalkStep::End);
            };
            let node = match self.load(windows, top.position, false)? {
                Loaded::Node(n, _) => n,
                Loaded::Need { position, grow } => {
                    return Ok(WalkStep::NeedBytes { position, grow })
                }
            };
            let Some(t) = node
                .transitions
                .iter()
                .find(|t| u16::from(t.byte) >= top.next_byte)
                .copied()
            else {
                self.stack.pop();
                continue;
            };
            let (child, payload) = match self.load(windows, t.child, true)? {
                Loaded::Node(n, p) => (n, p),
                Loaded::Need { position, grow } => {
                    return Ok(WalkStep::NeedBytes { position, grow })
                }
            };
            self.count_visit(child.position)?;
            if self.stack.len() >= MAX_TRIE_DEPTH {
                return Err(Error::invalid(
                    format!("the partition index trie is more than {MAX_TRIE_DEPTH} levels deep"),
                    child.position,
                )
                .context("partition index trie walk")
                .in_component(ComponentType::Partitions));
            }
            if let Some(frame) = self.stack.last_mut() {
                frame.next_byte = u16::from(t.byte).saturating_add(1);
            }
            self.stack.push(Frame {
                position: child.position,
                byte: Some(t.byte),
                next_byte: 0,
            });
            if let Some(payload) = payload {
                return Ok(WalkStep::Entry(self.entry(child.position, payload)));
            }
        }
    }

    /// One node down the seek's bytes (see [`PartitionWalk::seek`]): `Some` to return (an
    /// entry reached on the way, or bytes needed), `None` to go on.
    fn seek_step(&mut self, windows: &[TrieBytes<'_>]) -> Result<Option<WalkStep>> {
        let (Some((bound, matched)), Some(top)) = (&self.seek, self.stack.last().copied()) else {
            self.seek = None;
            return Ok(None);
        };
        let Some(&b) = bound.get(*matched) else {
            // The bound ends here: every partition below sorts after it.
            self.seek = None;
            return Ok(None);
        };
        let node = match self.load(windows, top.position, false)? {
            Loaded::Node(n, _) => n,
            Loaded::Need { position, grow } => {
                return Ok(Some(WalkStep::NeedBytes { position, grow }))
            }
        };
        let Some(child) = node.child(b) else {
            // No partition shares the bound's next byte: the walk goes on with the
            // transitions after it.
            if let Some(frame) = self.stack.last_mut() {
                frame.next_byte = u16::from(b).saturating_add(1);
            }
            self.seek = None;
            return Ok(None);
        };
        let (child, payload) = match self.load(windows, child, true)? {
            Loaded::Node(n, p) => (n, p),
            Loaded::Need { position, grow } => {
                return Ok(Some(WalkStep::NeedBytes { position, grow }))
            }
        };
        self.count_visit(child.position)?;
        if self.stack.len() >= MAX_TRIE_DEPTH {
            return Err(Error::invalid(
                format!("the partition index trie is more than {MAX_TRIE_DEPTH} levels deep"),
                child.position,
            )
            .context("partition index trie walk")
            .in_component(ComponentType::Partitions));
        }
        if let Some(frame) = self.stack.last_mut() {
            frame.next_byte = u16::from(b).saturating_add(1);
        }
        self.stack.push(Frame {
            position: child.position,
            byte: Some(b),
            next_byte: 0,
        });
        if let Some((_, matched)) = self.seek.as_mut() {
            *matched = matched.saturating_add(1);
        }
        match payload {
            Some(payload) => {
                self.seek = None;
                Ok(Some(WalkStep::Entry(self.entry(child.position, payload))))
            }
            None => Ok(None),
        }
    }

    fn entry(&self, node_position: u64, payload: PartitionPayload) -> WalkEntry {
        WalkEntry {
            key_prefix: self.stack.iter().filter_map(|f| f.byte).collect(),
            node_position,
            payload,
        }
    }

    fn count_visit(&mut self, position: u64) -> Result<()> {
        self.visited_nodes = self.visited_nodes.saturating_add(1);
        if self.visited_nodes > self.trie_end {
            return Err(Error::invalid(
                format!(
                    "the partition index walk visited more than {} nodes, one per byte of the \
                     trie: shared or looping sub-tries",
                    self.trie_end
                ),
                position,
            )
            .context("partition index trie walk")
            .in_component(ComponentType::Partitions));
        }
        Ok(())
    }

    /// Decodes the node at `position` (and its payload when `with_payload`) from the window
    /// that holds it.
    fn load(&self, windows: &[TrieBytes<'_>], position: u64, with_payload: bool) -> Result<Loaded> {
        if position >= self.trie_end {
            return Err(Error::invalid(
                format!(
                    "trie node position {position} is outside the trie, which ends at {}",
                    self.trie_end
                ),
                position,
            )
            .context("partition index trie node")
            .in_component(ComponentType::Partitions));
        }
        let Some(window) = windows
            .iter()
            .find(|w| w.base_offset() <= position && position < w.end_offset())
        else {
            return Ok(Loaded::Need {
                position,
                grow: false,
            });
        };
        let short = |e: Error| -> Result<Loaded> {
            let is_short = matches!(
                e.kind(),
                ErrorKind::UnexpectedEof { .. } | ErrorKind::LengthTooLarge { .. }
            );
            if is_short && window.end_offset() < self.trie_end {
                Ok(Loaded::Need {
                    position,
                    grow: true,
                })
            } else {
                Err(e)
            }
        };
        let node = match window.node(position) {
            Ok(n) => n,
            Err(e) => return short(e),
        };
        if !with_payload {
            return Ok(Loaded::Node(node, None));
        }
        match decode_payload(window, node.payload_position, node.payload_flags) {
            Ok(p) => Ok(Loaded::Node(node, p)),
            Err(e) => short(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::bti::partitions::PartitionTarget;

    /// `da/legacy_da_simple/da-1-bti-Partitions.db` (MANIFEST §2): five partitions "0".."4".
    use crate::component::bti::partitions::tests::DA_SIMPLE;

    fn walk_all(windows: &[TrieBytes<'_>], walk: &mut PartitionWalk) -> Vec<WalkEntry> {
        let mut out = Vec::new();
        loop {
            match walk.next(windows).unwrap() {
                WalkStep::Entry(e) => out.push(e),
                WalkStep::End => return out,
                step => panic!("{step:?}"),
            }
        }
    }

    #[test]
    fn lists_what_the_whole_file_walk_lists() {
        let whole = TrieBytes::partitions(&DA_SIMPLE, 0);
        let expected = crate::component::bti::partitions::walk(&whole, 26, 58).unwrap();
        let got = walk_all(&[whole], &mut PartitionWalk::new(26, 28));
        assert_eq!(got.len(), 5);
        for (g, e) in got.iter().zip(&expected) {
            assert_eq!(g.key_prefix, e.key_prefix);
            assert_eq!(g.payload, e.payload);
        }
        assert_eq!(got[0].key_prefix, [0x40, 0x30]);
        assert_eq!(
            got[0].payload.target,
            PartitionTarget::Data { data_position: 0 }
        );
    }

    #[test]
    fn a_seek_starts_at_the_bound() {
        let whole = TrieBytes::partitions(&DA_SIMPLE, 0);
        let all = walk_all(&[whole], &mut PartitionWalk::new(26, 28));
        let prefixes = |entries: &[WalkEntry]| -> Vec<Vec<u8>> {
            entries.iter().map(|e| e.key_prefix.clone()).collect()
        };
        for i in 0..all.len() {
            // At a partition's own prefix: that partition, then the rest.
            let bound = all[i].key_prefix.clone();
            let got = walk_all(
                &[whole],
                &mut PartitionWalk::new(26, 28).seek(bound.clone()),
            );
            assert_eq!(prefixes(&got), prefixes(&all[i..]), "seek {i}");
            // Past its prefix (a longer key under it): that partition still comes first (its
            // key decides), then the rest.
            let mut longer = bound.clone();
            longer.push(0xff);
            let got = walk_all(&[whole], &mut PartitionWalk::new(26, 28).seek(longer));
            assert_eq!(prefixes(&got), prefixes(&all[i..]), "seek {i} + ff");
        }
        // Before every partition and after every one.
        let got = walk_all(&[whole], &mut PartitionWalk::new(26, 28).seek(vec![0x00]));
        assert_eq!(prefixes(&got), prefixes(&all));
        let got = walk_all(&[whole], &mut PartitionWalk::new(26, 28).seek(vec![0xff]));
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn asks_for_what_is_missing_and_resumes() {
        // Only the root's window [20, 58): the walk asks for the DENSE_12 node at 15.
        let mut walk = PartitionWalk::new(26, 28);
        let tail = TrieBytes::partitions(DA_SIMPLE.get(20..).unwrap(), 20);
        assert_eq!(
            walk.next(&[tail]).unwrap(),
            WalkStep::NeedBytes {
                position: 15,
                grow: false
            }
        );
        // A window [0, 16) that cuts that 11-byte node short: grow it.
        let cut = TrieBytes::partitions(DA_SIMPLE.get(..16).unwrap(), 0);
        assert_eq!(
            walk.next(&[cut, tail]).unwrap(),
            WalkStep::NeedBytes {
                position: 15,
                grow: true
            }
        );
        let whole = TrieBytes::partitions(&DA_SIMPLE, 0);
        assert_eq!(walk_all(&[whole], &mut walk).len(), 5);
    }

    #[test]
    fn a_loop_or_a_bad_root_is_an_error() {
        // Root outside the trie.
        let whole = TrieBytes::partitions(&DA_SIMPLE, 0);
        assert!(PartitionWalk::new(40, 28).next(&[whole]).is_err());
        // Six SPARSE_8 levels whose two children are both the level below: 127 visits over a
        // 38-byte trie, more than one per byte.
        let mut bytes = vec![0x01, 0x00];
        let mut below = 0u64;
        for _ in 0..6 {
            let at = bytes.len() as u64;
            let d = (at - below) as u8;
            bytes.extend_from_slice(&[0x50, 2, b'a', b'b', d, d]);
            below = at;
        }
        let t = TrieBytes::partitions(&bytes, 0);
        let mut walk = PartitionWalk::new(below, bytes.len() as u64);
        let mut result = Ok(WalkStep::End);
        for _ in 0..200 {
            result = walk.next(&[t]);
            if !matches!(result, Ok(WalkStep::Entry(_))) {
                break;
            }
        }
        assert!(result.is_err(), "{result:?}");
    }
}
