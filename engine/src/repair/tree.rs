//! A Merkle tree over the full Murmur3 token range (`utils/MerkleTree.java`): 2^depth leaves
//! of equal width, each the XOR of its partitions' digests with their count and size; an inner
//! node's hash is its children's XOR.

use serde::Serialize;

/// `MerkleTree.RECOMMENDED_DEPTH` / the default maximum: 20 (a million leaves).
pub const MAX_DEPTH: u8 = 20;

/// One leaf: the range (start, end] of tokens it covers and what was hashed into it.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leaf {
    pub hash: [u8; 32],
    pub partitions: u64,
    /// The digests' input bytes (`RowHash.size`, `MerkleTree`'s sizeOfRange).
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MerkleTree {
    depth: u8,
    leaves: Vec<Leaf>,
}

/// The depth `ValidationManager.createMerkleTrees` chooses: ceil(log2(estimated partitions)),
/// at most `max_depth` (0 for no partition).
pub fn depth_for(estimated_partitions: u64, max_depth: u8) -> u8 {
    if estimated_partitions == 0 {
        return 0;
    }
    let ceil_log2 = 64 - (estimated_partitions - 1).leading_zeros();
    u8::try_from(ceil_log2).unwrap_or(u8::MAX).min(max_depth)
}

impl MerkleTree {
    /// An empty tree of `depth` (capped at [`MAX_DEPTH`]).
    pub fn new(depth: u8) -> MerkleTree {
        let depth = depth.min(MAX_DEPTH);
        let empty = Leaf {
            hash: [0; 32],
            partitions: 0,
            bytes: 0,
        };
        MerkleTree {
            depth,
            leaves: vec![empty; 1usize << depth],
        }
    }

    pub fn depth(&self) -> u8 {
        self.depth
    }

    pub fn leaves(&self) -> &[Leaf] {
        &self.leaves
    }

    /// The leaf whose range (start, end] holds `token`.
    pub fn leaf_of(&self, token: i64) -> usize {
        // Offset from the minimum token; (MIN, MIN + w] is leaf 0.
        let offset = (token as u64) ^ (1 << 63);
        let shift = 64 - u32::from(self.depth);
        if self.depth == 0 {
            0
        } else {
            (offset.wrapping_sub(1) >> shift) as usize
        }
    }

    /// Leaf `i`'s range (start, end] as tokens; the last ends at the minimum token (the wrap).
    pub fn range_of(&self, i: usize) -> (i64, i64) {
        if self.depth == 0 {
            return (i64::MIN, i64::MIN);
        }
        let width = 1u128 << (64 - u32::from(self.depth));
        let start = (i as u128 * width) as u64 ^ (1 << 63);
        let end = ((i as u128 + 1) * width) as u64 ^ (1 << 63);
        (start as i64, end as i64)
    }

    /// `MerkleTree.TreeRange.addHash`: XOR the digest into its leaf.
    pub fn add(&mut self, token: i64, digest: &[u8; 32], input_bytes: u64) {
        let i = self.leaf_of(token);
        if let Some(leaf) = self.leaves.get_mut(i) {
            for (h, d) in leaf.hash.iter_mut().zip(digest) {
                *h ^= d;
            }
            leaf.partitions += 1;
            leaf.bytes += input_bytes;
        }
    }

    /// The root hash (every leaf XORed).
    pub fn root(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for l in &self.leaves {
            for (o, h) in out.iter_mut().zip(&l.hash) {
                *o ^= h;
            }
        }
        out
    }
}
