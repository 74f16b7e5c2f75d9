//! What is wrong with this table: partitions, tombstones, TTLs, overlaps and expired blockers.
//!
//! | module | answers | Cassandra tool |
//! |---|---|---|
//! | [`partitions`] | per partition: key, token, position, bytes, rows, cells, tombstones by kind, TTL cells; filters, top N, percentiles | `sstablepartitions` |
//! | [`tombstones`] | droppable tombstones at a gc grace and a "now", when the rest become droppable, expired TTL cells, a timeline; Statistics.db's estimate beside the count | `sstablemetadata` (droppable tombstones) |
//! | [`legacy`] | the same partitions and tombstones figures for 2.x (`jb`, `ka`, `la`) SSTables, from their atoms grouped into rows | `sstablepartitions` |
//! | [`split`] | a Data.db cut into partition-aligned ranges from the index, for threads or workers; results handed over in order, seams checked ([`InOrder`]) | — |
//! | [`pass`] | partitions and tombstones counted side by side (the page's Analytics pass), a range's figures across a worker boundary, merged in order | `sstablepartitions` |
//! | [`table`] | many SSTables of one table: time ranges, token overlaps, level, repair, origin; fully expired SSTables and their blockers | `sstableexpiredblockers`, `CompactionController.getFullyExpiredSSTables` |
//!
//! [`partitions::PartitionScan`] and [`tombstones::TombstoneScan`] count one pass over Data.db:
//! as [`DataVisitor`](crate::component::data::DataVisitor)s of the borrowing decoder (the CLI;
//! nothing allocated per row or cell), or fed owned items (`push`; any driver of
//! [`DataFileReader`](crate::component::data::DataFileReader)). They keep one partition's
//! counters, never the partitions. No clock: "now" is given, or taken
//! from the data and named in the report.

pub mod histogram;
pub mod legacy;
pub mod partitions;
pub mod pass;
pub mod split;
pub mod table;
pub mod tombstones;

pub use legacy::{legacy_data_reader, scan_legacy, LegacyScan};
pub use partitions::{
    ColumnSummary, NowSource, PartitionColumn, PartitionFilter, PartitionScan, PartitionStats,
    PartitionsCollector, PartitionsReport, PartitionsSummary, TombstoneCounts,
};
pub use pass::{merge_in_order, AnalyticsPass, Merged, PassFigures, RangeFigures};
pub use split::{
    data_len_bytes, listed_position, split_listing, split_ranges, whole_range, After, InOrder,
    RangeEnd, RangeSplitter, ScanRange,
};
pub use table::{table_report, Blocker, Overlap, TableReport, TableSSTable};
pub use tombstones::{TimelineBucket, TombstoneScan, TombstonesReport};

use crate::component::data::DataFileReader;
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::metadata::SSTableMetadata;
use crate::types::AbstractType;

/// A Data.db reader for an analytics pass, and the partition key type. Refuses SSTables before
/// the 3.0 row format (`ma`): their cells are not decoded, and counting only partition headers
/// would report wrong rows and cells.
pub fn data_reader(metadata: &SSTableMetadata) -> Result<(DataFileReader, AbstractType)> {
    let version = metadata.descriptor.version;
    if !version.has_row_format() {
        return Err(Error::invalid(
            format!(
                "version {version} uses the pre-3.0 cell layout: its rows and cells are not decoded, so they are not counted"
            ),
            0,
        )
        .in_component(ComponentType::Data));
    }
    let reader =
        DataFileReader::for_sstable(metadata, crate::component::data::DecodeOptions::default())?;
    let key_type = reader.decoder().schema().key_type.clone();
    Ok((reader, key_type))
}

/// The "now" of a partitions report when none is given: Statistics.db's maxTimestamp in seconds
/// (the newest write), or 0 without STATS.
pub fn default_now(metadata: &SSTableMetadata) -> (i64, NowSource) {
    match metadata.statistics.as_ref().and_then(|s| s.stats.as_ref()) {
        Some(s) => (
            s.max_timestamp_micros.value.div_euclid(1_000_000),
            NowSource::MaxTimestamp,
        ),
        None => (0, NowSource::None),
    }
}
