//! DSE 6.8's STATS fields that Cassandra does not have (versions `ba`, `bb`).
//!
//! After pending repair, where Cassandra 4.0 writes `isTransient`, DSE 6.8 writes:
//!
//! | field | type | since |
//! |---|---|---|
//! | zero-copy metadata present | byte (non-zero: DSE partial zero-copy streaming metadata follows, layout not public) | ba |
//! | incremental NodeSync metadata | i64 | ba |
//! | max column value lengths | i32 n, n × (vint-length column name, i32 max length) | ba |
//! | originating host id | byte flag, 16-byte UUID when non-zero | bb |
//!
//! Src: DataStax's converged Cassandra (public) `io/sstable/metadata/StatsMetadata.java`
//! (`hasZeroCopyMetadata`, `hasIncrementalNodeSyncMetadata`, `hasMaxColumnValueLengths`) and
//! `io/sstable/format/bti/BtiFormat.java` (`BtiVersion`). Its reader, like this one, stops at
//! non-zero zero-copy metadata. Decoded only here: a Cassandra reader fails on these files.

use serde::Serialize;

use super::{leaf, spanned_leaf, uuid_string};
use crate::component::common::count::read_int_count;
use crate::error::{Error, Result};
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::version::Version;

/// One entry of DSE's max column value lengths.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MaxColumnValueLength {
    /// The column name bytes (UTF-8 for CQL columns).
    pub name: Spanned<String>,
    pub max_length_bytes: Spanned<i32>,
}

/// DSE 6.8's STATS tail.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DseStatsFields {
    pub span: Span,
    /// The zero-copy metadata byte (non-zero is refused, as DataStax's reader refuses it).
    pub zero_copy_metadata: Spanned<u8>,
    pub incremental_node_sync: Spanned<i64>,
    pub max_column_value_lengths: Vec<MaxColumnValueLength>,
    /// `bb`+: the originating host id, as a UUID string when the flag is set.
    pub originating_host_id: Option<Spanned<Option<String>>>,
}

impl DseStatsFields {
    /// Reads the DSE-only fields right after Cassandra's pending repair.
    pub fn decode(r: &mut Reader<'_>, version: &Version) -> Result<DseStatsFields> {
        let start = r.offset();
        let zero_copy_metadata = r.spanned(|r| r.u8("STATS (DSE): zero-copy metadata"))?;
        if zero_copy_metadata.value != 0 {
            return Err(r.invalid_at(
                "DSE 6.x STATS layout not supported beyond the zero-copy metadata flag: \
                 DSE partial zero-copy streaming metadata follows (its layout is not public)",
                zero_copy_metadata.span.start,
                "STATS (DSE): zero-copy metadata",
            ));
        }
        let incremental_node_sync =
            r.spanned(|r| r.i64("STATS (DSE): incremental NodeSync metadata"))?;
        let count = read_int_count(
            r,
            "STATS (DSE): max column value length count",
            "column count",
        )?;
        // Each entry is at least a 1-byte vint length and an i32.
        let n = r.check_count(
            u64::from(count.value),
            5,
            "STATS (DSE): max column value lengths",
        )?;
        let mut max_column_value_lengths = Vec::with_capacity(n);
        for _ in 0..n {
            let name = r.spanned(|r| {
                r.vint_length_bytes("STATS (DSE): column name")
                    .map(|b| String::from_utf8_lossy(b).into_owned())
            })?;
            let max_length_bytes = r.spanned(|r| r.i32("STATS (DSE): max value length"))?;
            max_column_value_lengths.push(MaxColumnValueLength {
                name,
                max_length_bytes,
            });
        }
        let originating_host_id = if version.is_dse() && version.as_str() >= "bb" {
            Some(r.spanned(|r| {
                let flag = r.u8("STATS (DSE): originating host id")?;
                if flag == 0 {
                    return Ok(None);
                }
                let msb = r.u64("STATS (DSE): originating host id")?;
                let lsb = r.u64("STATS (DSE): originating host id")?;
                Ok(Some(uuid_string(msb, lsb)))
            })?)
        } else {
            None
        };
        Ok(DseStatsFields {
            span: r.span_from(start),
            zero_copy_metadata,
            incremental_node_sync,
            max_column_value_lengths,
            originating_host_id,
        })
    }

    pub fn to_node(&self) -> Node {
        let mut children = vec![
            spanned_leaf("zero-copy metadata", &self.zero_copy_metadata),
            spanned_leaf("incremental NodeSync metadata", &self.incremental_node_sync),
        ];
        let lengths = self
            .max_column_value_lengths
            .iter()
            .map(|m| {
                leaf(
                    &m.name.value,
                    format!("{} bytes", m.max_length_bytes.value),
                    Span::new(m.name.span.start, m.max_length_bytes.span.end),
                )
            })
            .collect();
        children.push(
            Node::new(
                "max column value lengths",
                self.max_column_value_lengths.len().to_string(),
                None,
            )
            .with_children(lengths),
        );
        if let Some(h) = &self.originating_host_id {
            children.push(leaf(
                "originating host id",
                h.value.clone().unwrap_or_else(|| "(none)".to_owned()),
                h.span,
            ));
        }
        Node::new("STATS (DSE 6.8 fields)", "", Some(self.span)).with_children(children)
    }
}

/// A STATS error of a DSE version, restated so that it says which layout was tried.
pub(super) fn explain(e: Error, version: &Version) -> Error {
    if !version.is_dse() || e.message().starts_with("DSE 6.x") {
        return e;
    }
    Error::invalid(
        format!(
            "DSE 6.x STATS layout (version {version}) not supported beyond offset {}: {}",
            e.offset(),
            e.message()
        ),
        e.offset(),
    )
}
