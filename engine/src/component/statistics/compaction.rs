//! COMPACTION (`CompactionMetadata`): ancestors (2.x only) and the cardinality estimator.
//!
//! | field | type | since |
//! |---|---|---|
//! | ancestor count + ancestors | i32 n, n × i32 generation | ka, la only (`hasCompactionAncestors`); ScyllaDB-written mc/md/me (below) |
//! | cardinality estimator | i32 length + stream-lib HyperLogLog++ bytes (see [`HyperLogLogPlus`]) | ka |
//!
//! ScyllaDB's `compaction_metadata` (`sstables/types.hh`) kept the pre-3.0 ancestors array in
//! some releases that write `mc`/`md`/`me`, so such a COMPACTION holds u32 count, count × u32
//! generations, then the estimator. The component's length (from the Statistics.db table of
//! contents) tells the two layouts apart: Cassandra's is exactly 4 + estimator length bytes,
//! ScyllaDB's exactly 4 + 4 × count + 4 + estimator length.
//!
//! Before ka there is no COMPACTION component: the flat `SSTableMetadata` record holds the
//! ancestors between the partitioner and the tombstone histogram, and no estimator (see
//! `legacy.rs`).
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/metadata/CompactionMetadata.java` (trunk and
//! cassandra-2.2); scylladb `sstables/types.hh` (`compaction_metadata`).

use serde::Serialize;

use super::{leaf, spanned_leaf, HyperLogLogPlus};
use crate::component::common::count::read_int_count;
use crate::error::{Error, Result};
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::version::Version;

/// Generations of the sstables this one was compacted from (2.x).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ancestors {
    pub span: Span,
    pub count: Spanned<u32>,
    pub generations: Vec<Spanned<i32>>,
}

impl Ancestors {
    /// i32 count, then that many i32 generations (`what_count` / `what_items` name the fields in
    /// errors: COMPACTION in ka/la, the flat `SSTableMetadata` record before ka).
    pub(super) fn decode(
        r: &mut Reader<'_>,
        what_count: &'static str,
        what_items: &'static str,
    ) -> Result<Ancestors> {
        let a_start = r.offset();
        let count = read_int_count(r, what_count, "ancestor count")?;
        let n = r.check_count(u64::from(count.value), 4, what_items)?;
        let mut generations = Vec::with_capacity(n);
        for _ in 0..n {
            generations.push(r.spanned(|r| r.i32(what_items))?);
        }
        Ok(Ancestors {
            span: r.span_from(a_start),
            count,
            generations,
        })
    }

    pub(super) fn to_node(&self) -> Node {
        let mut gens = vec![spanned_leaf("count", &self.count)];
        for (i, g) in self.generations.iter().enumerate() {
            gens.push(spanned_leaf(&format!("ancestor {i}"), g));
        }
        Node::new(
            "ancestors",
            format!("{} generations", self.generations.len()),
            Some(self.span),
        )
        .with_children(gens)
    }
}

/// Which COMPACTION layout a file has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionLayout {
    /// Cassandra's for the version: ancestors before 3.0 (and in the legacy record), none after.
    Cassandra,
    /// A 3.0+ version (`mc`/`md`/`me`) whose component still holds the ancestors, as ScyllaDB
    /// writes it.
    ScyllaAncestors,
}

/// Whether `body` (a whole COMPACTION component of a 3.0+ version) is u32 count, count × u32,
/// i32 estimator length, estimator — and not Cassandra's i32 length + estimator.
fn has_scylla_ancestors(body: &[u8]) -> bool {
    let be_u32 = |at: u64| -> Option<u64> {
        let at = usize::try_from(at).ok()?;
        let b: [u8; 4] = body.get(at..at.checked_add(4)?)?.try_into().ok()?;
        Some(u64::from(u32::from_be_bytes(b)))
    };
    let total = body.len() as u64;
    let Some(first) = be_u32(0) else {
        return false;
    };
    if first.checked_add(4) == Some(total) {
        return false;
    }
    let Some(estimator_at) = first.checked_mul(4).and_then(|n| n.checked_add(4)) else {
        return false;
    };
    be_u32(estimator_at)
        .and_then(|len| len.checked_add(estimator_at)?.checked_add(4))
        .is_some_and(|end| end == total)
}

/// Cassandra's `CompactionMetadata`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompactionMetadata {
    /// The component; for the legacy (ic–jb) record, the ancestors.
    pub span: Span,
    /// ic–la, and ScyllaDB-written 3.x files that keep them (see [`CompactionLayout`]).
    pub ancestors: Option<Ancestors>,
    /// Which layout the component has.
    pub layout: CompactionLayout,
    /// Length prefix of the serialized estimator; 0 with an empty span for the legacy (ic–jb)
    /// record, which stores no estimator.
    pub cardinality_estimator_length: Spanned<i32>,
    /// The raw serialized HyperLogLog++ bytes (empty for the legacy record).
    pub cardinality_estimator_bytes: Span,
    /// The decoded estimator; `None` (with an error in the report) when its bytes are malformed.
    pub cardinality_estimator: Option<HyperLogLogPlus>,
}

impl CompactionMetadata {
    /// Decodes COMPACTION; a malformed estimator is pushed to `errors` and leaves
    /// `cardinality_estimator` empty.
    pub fn decode(
        r: &mut Reader<'_>,
        version: &Version,
        errors: &mut Vec<Error>,
    ) -> Result<CompactionMetadata> {
        let start = r.offset();
        let layout = if !version.has_compaction_ancestors() && has_scylla_ancestors(r.rest()) {
            CompactionLayout::ScyllaAncestors
        } else {
            CompactionLayout::Cassandra
        };
        let ancestors =
            if version.has_compaction_ancestors() || layout == CompactionLayout::ScyllaAncestors {
                Some(Ancestors::decode(
                    r,
                    "COMPACTION: ancestor count",
                    "COMPACTION: ancestors",
                )?)
            } else {
                None
            };
        let length_start = r.offset();
        let cardinality_estimator_length =
            r.spanned(|r| r.i32("COMPACTION: cardinality estimator length"))?;
        let len = u64::try_from(cardinality_estimator_length.value).map_err(|_| {
            r.invalid_at(
                format!(
                    "negative cardinality estimator length {}",
                    cardinality_estimator_length.value
                ),
                length_start,
                "COMPACTION: cardinality estimator length",
            )
        })?;
        let mut hll_reader = r.sub_reader(len, "COMPACTION: cardinality estimator")?;
        let bytes_start = hll_reader.offset();
        let cardinality_estimator_bytes = Span::new(bytes_start, r.offset());
        let cardinality_estimator = match HyperLogLogPlus::decode(&mut hll_reader) {
            Ok(h) => Some(h),
            Err(e) => {
                errors.push(e);
                None
            }
        };
        Ok(CompactionMetadata {
            span: r.span_from(start),
            ancestors,
            layout,
            cardinality_estimator_length,
            cardinality_estimator_bytes,
            cardinality_estimator,
        })
    }

    /// The estimated number of partitions, from the HyperLogLog++ estimator.
    pub fn estimated_cardinality(&self) -> Option<u64> {
        self.cardinality_estimator
            .as_ref()
            .map(|h| h.estimated_cardinality)
    }

    pub fn to_node(&self) -> Node {
        let mut children = Vec::new();
        if let Some(a) = &self.ancestors {
            let mut node = a.to_node();
            if self.layout == CompactionLayout::ScyllaAncestors {
                node.value = format!("{} (ScyllaDB layout)", node.value);
            }
            children.push(node);
        }
        children.push(spanned_leaf(
            "cardinality estimator length",
            &self.cardinality_estimator_length,
        ));
        match &self.cardinality_estimator {
            Some(h) => children.push(h.to_node()),
            None => children.push(leaf(
                "cardinality estimator",
                "(not decoded)",
                self.cardinality_estimator_bytes,
            )),
        }
        let value = match self.estimated_cardinality() {
            Some(c) => format!("estimated cardinality {c}"),
            None => "cardinality estimator not decoded".to_owned(),
        };
        Node::new("COMPACTION", value, Some(self.span)).with_children(children)
    }
}
