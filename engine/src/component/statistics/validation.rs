//! VALIDATION (`ValidationMetadata`): what a reader must check before using the sstable.
//!
//! | field | type | since |
//! |---|---|---|
//! | partitioner | writeUTF (u16 length + modified UTF-8) class name | ka |
//! | bloom_filter_fp_chance | f64 | ka |
//!
//! Before ka both fields sit in the flat `SSTableMetadata` record (`legacy.rs`), FP chance (ja+)
//! then compression ratio then partitioner; `ic` has no FP chance (−1.0, empty span).
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/metadata/ValidationMetadata.java`.

use serde::Serialize;

use super::spanned_leaf;
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};

/// Cassandra's `ValidationMetadata`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValidationMetadata {
    /// The component; for the legacy record, from the FP chance to the end of the partitioner
    /// (the compression ratio lies between them), or the partitioner alone in `ic`.
    pub span: Span,
    /// Fully qualified partitioner class, e.g. `org.apache.cassandra.dht.Murmur3Partitioner`.
    pub partitioner: Spanned<String>,
    pub bloom_filter_fp_chance: Spanned<f64>,
}

impl ValidationMetadata {
    pub fn decode(r: &mut Reader<'_>) -> Result<ValidationMetadata> {
        let start = r.offset();
        let partitioner = r.spanned(|r| r.utf("VALIDATION: partitioner class name"))?;
        let bloom_filter_fp_chance =
            r.spanned(|r| r.f64("VALIDATION: bloom filter false-positive chance"))?;
        Ok(ValidationMetadata {
            span: r.span_from(start),
            partitioner,
            bloom_filter_fp_chance,
        })
    }

    /// The partitioner's simple class name (`Murmur3Partitioner`).
    pub fn partitioner_short_name(&self) -> &str {
        self.partitioner
            .value
            .rsplit('.')
            .next()
            .unwrap_or(&self.partitioner.value)
    }

    pub fn to_node(&self) -> Node {
        Node::new(
            "VALIDATION",
            format!(
                "{}, bloom filter fp chance {}",
                self.partitioner_short_name(),
                self.bloom_filter_fp_chance.value
            ),
            Some(self.span),
        )
        .with_children(vec![
            spanned_leaf("partitioner", &self.partitioner),
            spanned_leaf("bloom filter fp chance", &self.bloom_filter_fp_chance),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_partitioner_and_fp_chance() {
        let name = b"org.apache.cassandra.dht.Murmur3Partitioner";
        let mut bytes = (name.len() as u16).to_be_bytes().to_vec();
        bytes.extend_from_slice(name);
        bytes.extend_from_slice(&0.01f64.to_be_bytes());
        let v = ValidationMetadata::decode(&mut Reader::new(&bytes, 10)).unwrap();
        assert_eq!(
            v.partitioner.value,
            "org.apache.cassandra.dht.Murmur3Partitioner"
        );
        assert_eq!(v.partitioner.span, Span::new(10, 12 + name.len() as u64));
        assert_eq!(v.bloom_filter_fp_chance.value, 0.01);
        assert_eq!(v.partitioner_short_name(), "Murmur3Partitioner");
        assert_eq!(v.span, Span::new(10, 10 + bytes.len() as u64));
    }
}
