//! The data browser's page request and the page a worker answers ([`crate::protocol::Request::DataPage`]).

use serde::{Deserialize, Serialize};
use sstable_engine::component::legacy_data::AtomPartitionJson;
use sstable_engine::dump::PartitionJson;

use crate::loader;

/// A data page ends after the partition that brings it to this many rows (or, for 2.x, atoms):
/// it holds every row of its partitions, so a page of wide partitions is fewer partitions.
pub const MAX_PAGE_ROWS: usize = 2000;

/// Said on every 2.x page: a 2.x Statistics.db has no schema (the CLI's `dump` note).
pub const LEGACY_NOTE: &str = "pre-3.0 cell layout, no schema: names are split by their shape \
     and values shown as text when valid UTF-8, else as hex";

/// What page to decode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageRequest {
    /// Uncompressed Data.db position of the first partition (0: the start).
    pub start: u64,
    pub max_partitions: usize,
    /// Find this partition key (as typed: parsed here by the header's key type, or `0x…` hex)
    /// through the read path and decode only its partition.
    pub wanted_key: Option<String>,
    /// 2.x: also list the page's raw atoms (the "atoms" toggle).
    pub atoms: bool,
    /// "Now" for TTL expiry, in seconds (the page's clock; the engine has none).
    pub now_seconds: i64,
    /// Rows (and 2.x atoms) sent per partition: the page shows no more, and a wide partition's
    /// thousands of rows would only cost the UI thread reading them back. A page does not even
    /// build the rows past it (they are counted: [`DataPage::row_totals`]; 2.x atoms, when
    /// listed, are still built and then cut), so a worker's memory is bounded by the cap, not
    /// by the widest partition. `None`: all.
    pub max_rows_per_partition: Option<usize>,
    /// Answer with the page's partitions, every row, as the export's pretty JSON
    /// ([`DataPage::export_json`]) in place of the partitions.
    pub export: bool,
    /// 2.x: the `CREATE TABLE` typed on the page (none recorded in the SSTable): the page's
    /// values, keys and clustering typed by it, and a wanted key parsed by its partition key
    /// (a composite key in cqlsh's `a:b` form). Ignored for 3.0+, whose header has the types.
    #[serde(default)]
    pub create_table: Option<String>,
}

/// One page of decoded partitions.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DataPage {
    pub partitions: Vec<PartitionJson>,
    /// Where the page started (a found key's partition position for "Find").
    pub start: u64,
    /// Where the next page starts (`None` at the end of Data.db).
    pub next_position: Option<u64>,
    pub bytes_read: u64,
    /// Read, decompress and decode in the worker.
    pub millis: f64,
    pub findings: Vec<String>,
    /// A 2.x page asked with `atoms`: the same partitions' raw on-disk atoms, decoded in the
    /// same pass as the rows.
    pub atoms: Option<Vec<AtomPartitionJson>>,
    /// How a 2.x page's names and values are rendered (it has no schema), as the CLI says it.
    pub legacy_note: Option<String>,
    /// A 2.x page: the `CREATE TABLE` its cell names show (`InferredTable`).
    pub legacy_schema: Option<String>,
    /// "Find": the read path, step by step.
    pub lookup_steps: Vec<String>,
    /// "Find": why the key is not in this SSTable.
    pub not_found: Option<String>,
    /// Rows of each partition (static row and range tombstone markers included), the ones
    /// past `max_rows_per_partition` too.
    pub row_totals: Vec<usize>,
    /// A page asked with `export`: its partitions as `sstabledump` JSON (pretty).
    pub export_json: Option<String>,
    /// Each non-frozen collection or UDT column of a row as cqlsh shows it
    /// (`dump::multi_cell_literal`): the page shows it in place of its cells.
    #[serde(default)]
    pub collections: Vec<CollectionLiteral>,
}

/// One multi-cell column of one row, as a cqlsh literal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectionLiteral {
    /// Index of the partition in the page, and of the row in the partition.
    pub partition: usize,
    pub row: usize,
    pub column: String,
    /// `['a', 'b']`, `{1, 2}`, `{1: 'a'}`, `{f: 1}`.
    pub literal: String,
}

/// A page as it crosses from the worker to the UI thread (in the protocol's bytes, like every
/// message); `parse_millis` is what reading it back took on the UI thread.
#[derive(Debug, Clone, PartialEq)]
pub struct PageMessage {
    pub page: DataPage,
    pub parse_millis: f64,
}

impl Serialize for PageMessage {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.page.serialize(s)
    }
}

impl<'de> Deserialize<'de> for PageMessage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PageMessage, D::Error> {
        let started = loader::now_millis();
        let page = DataPage::deserialize(d)?;
        Ok(PageMessage {
            page,
            parse_millis: loader::now_millis() - started,
        })
    }
}
