//! Deterministic test tables of any size: [`generate`] builds a schema, keys sorted by token and
//! rows from a seed, and streams them through an [`SSTableWriter`].
//!
//! Schema (`id bigint, ck1 int, ck2 text, s text static, v_* …`, PRIMARY KEY (id, ck1, ck2)):
//! regular columns of every common type (`bigint`, `blob`, `boolean`, `double`, `int`, `text`,
//! `timestamp`, `uuid`) and the non-frozen `list<int>`, `map<text, int>`, `set<text>`.
//!
//! Per row: a timestamp in `[base + 1 ms, base + 1 s)`; with probability `ttl_fraction` an
//! expiring liveness (TTL 60 s … 30 days; one cell sometimes with its own TTL); with probability
//! `tombstone_fraction` one of: a row deletion, a cell tombstone, collections overwritten (a
//! complex deletion on every collection of the row), or a range tombstone over the row's `ck1`
//! (adjacent ones meet in a boundary marker). Partitions get a partition deletion with
//! probability `tombstone_fraction / 4`, a static row with probability 0.9. About 10 % of rows are
//! UPDATE-style (no primary-key liveness) and columns are present with probability 0.8.
//!
//! Options for known answers ([`super::expected_counts`] counts them from the model):
//! `ttl_range_secs` bounds the TTLs, `static_ttl_fraction` makes static rows expire too (with
//! `ttl_fraction` 1 every live cell expires, so the SSTable can become fully expired), `skew`
//! gives one partition in [`SKEW_EVERY`] `skew ×` the rows, `base_timestamp_micros` places the
//! writes (every local deletion time is its second; expiries count from it).
//!
//! Everything comes from [`SplitMix64`] streams seeded from `seed` and the partition number, so
//! output bytes depend only on the options. Only the sorted key list (8 bytes per partition) and,
//! when [`GenerateOptions::keep_model`] is set, the model grow with the table.

use super::data::EncodingStats;
use super::metadata::SSTableFacts;
use super::model::{
    BoundKind, Cell, CellValue, ColumnData, Expiry, Liveness, ModelDeletion, Partition,
    RangeTombstoneMarker, Row, Unfiltered,
};
use super::schema::{ColumnDef, TableSchema};
use super::writer::{SSTableWriter, WriteOptions, WriteSummary};
use super::{sort_keys_by_token, ComponentSink};
use crate::compress::Compressor;
use crate::error::{Error, Result};
use crate::token::Partitioner;
use crate::types::AbstractType;
use crate::version::Version;

/// SplitMix64 (Steele, Lea & Flood 2014): a tiny, seedable, well-mixed generator.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // A u64 × u64 product always fits in a u128.
        (u128::from(self.next_u64()).wrapping_mul(u128::from(n)) >> 64) as u64
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n.saturating_add(8));
        while out.len() < n {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(n);
        out
    }

    fn word(&mut self, min: usize, max: usize) -> String {
        let span = max.saturating_sub(min).saturating_add(1);
        let n = min.saturating_add(self.below(span as u64) as usize);
        (0..n)
            .map(|_| char::from(b'a'.saturating_add(self.below(26) as u8)))
            .collect()
    }
}

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateOptions {
    pub version: Version,
    /// `None`: uncompressed Data.db with CRC.db.
    pub compression: Option<Compressor>,
    pub partitions: u64,
    pub rows_per_partition: u64,
    /// Chunk size in KiB (compressed chunks, or CRC.db chunks when uncompressed); `None` =
    /// Cassandra's default (16 / 64).
    pub chunk_kib: Option<u32>,
    pub seed: u64,
    pub ttl_fraction: f64,
    pub tombstone_fraction: f64,
    /// Keep every partition in [`Generated::model`] (tests; memory grows with the table).
    pub keep_model: bool,
    pub partitioner: Partitioner,
    /// Base of every timestamp; "now" for deletions is this in seconds.
    pub base_timestamp_micros: i64,
    pub column_index_size_bytes: u32,
    /// Length of every `v_blob` value; `None` = 1 to 32 bytes (a knob for large test files).
    pub blob_bytes: Option<usize>,
    /// Shortest and longest TTL drawn for expiring rows (default [`MIN_TTL_SECS`],
    /// [`MAX_TTL_SECS`]); a cell with its own TTL gets `min + 7` (capped at `max`).
    pub ttl_range_secs: (i32, i32),
    /// Probability that the static row expires too (with a TTL from `ttl_range_secs`). With
    /// `ttl_fraction` 1 and this 1, every live cell expires: the SSTable's maxLocalDeletionTime is
    /// finite and it can become fully expired.
    pub static_ttl_fraction: f64,
    /// Skewed partition sizes: when above 1, one partition in [`SKEW_EVERY`] (drawn from the
    /// seed) has `skew × rows_per_partition` rows.
    pub skew: u64,
}

/// With [`GenerateOptions::skew`], one partition in this many is large.
pub const SKEW_EVERY: u64 = 8;

impl GenerateOptions {
    pub fn new(version: Version, partitions: u64, rows_per_partition: u64) -> Self {
        GenerateOptions {
            version,
            compression: Some(Compressor::Lz4),
            partitions,
            rows_per_partition,
            chunk_kib: None,
            seed: 0,
            ttl_fraction: 0.0,
            tombstone_fraction: 0.0,
            keep_model: false,
            partitioner: Partitioner::Murmur3,
            base_timestamp_micros: 1_700_000_000_000_000,
            column_index_size_bytes: 64 * 1024,
            blob_bytes: None,
            ttl_range_secs: (MIN_TTL_SECS, MAX_TTL_SECS),
            static_ttl_fraction: 0.0,
            skew: 0,
        }
    }

    /// The regular rows of partition number `number` (in token order): `rows_per_partition`, or
    /// `skew ×` that for the partitions [`GenerateOptions::skew`] makes large.
    pub fn rows_in_partition(&self, number: u64) -> u64 {
        if self.skew > 1 {
            let mut rng = SplitMix64::new(self.seed ^ number.wrapping_mul(0x5ca1_ab1e_0dd5_eed5));
            if rng.below(SKEW_EVERY) == 0 {
                return self.rows_per_partition.saturating_mul(self.skew);
            }
        }
        self.rows_per_partition
    }
}

/// The generated table as data (only with [`GenerateOptions::keep_model`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub schema: TableSchema,
    /// In the order written (token order).
    pub partitions: Vec<Partition>,
}

impl Model {
    /// Every timestamp in the table: liveness, cells, row / complex / range / partition
    /// deletions.
    pub fn timestamps(&self) -> Vec<i64> {
        let mut out = Vec::new();
        let deletion = |d: &ModelDeletion, out: &mut Vec<i64>| {
            if !d.is_live() {
                out.push(d.marked_for_delete_at_micros);
            }
        };
        let row = |r: &Row, out: &mut Vec<i64>| {
            if let Some(l) = r.liveness {
                out.push(l.timestamp_micros);
            }
            deletion(&r.deletion, out);
            for c in &r.columns {
                if let ColumnData::Complex { deletion: d, .. } = c {
                    deletion(d, out);
                }
            }
            out.extend(r.cells().map(|c| c.timestamp_micros));
        };
        for p in &self.partitions {
            deletion(&p.deletion, &mut out);
            if let Some(s) = &p.static_row {
                row(s, &mut out);
            }
            for u in &p.unfiltereds {
                match u {
                    Unfiltered::Row(r) => row(r, &mut out),
                    Unfiltered::Marker(m) => {
                        deletion(&m.deletion, &mut out);
                        if let Some(s) = &m.start_deletion {
                            deletion(s, &mut out);
                        }
                    }
                }
            }
        }
        out
    }

    /// (min, max) of [`Model::timestamps`].
    pub fn timestamp_range(&self) -> Option<(i64, i64)> {
        let ts = self.timestamps();
        Some((*ts.iter().min()?, *ts.iter().max()?))
    }
}

/// What [`generate`] returns.
#[derive(Debug)]
pub struct Generated<S> {
    pub sink: S,
    pub summary: WriteSummary,
    pub model: Option<Model>,
}

/// Shortest and longest TTL generated.
pub const MIN_TTL_SECS: i32 = 60;
pub const MAX_TTL_SECS: i32 = 30 * 86_400;

/// The generator's table.
pub fn schema() -> Result<TableSchema> {
    TableSchema::new(
        vec![AbstractType::Long],
        vec![AbstractType::Int32, AbstractType::Utf8],
        vec![ColumnDef::new("s", AbstractType::Utf8)],
        vec![
            ColumnDef::new("v_bigint", AbstractType::Long),
            ColumnDef::new("v_blob", AbstractType::Bytes),
            ColumnDef::new("v_bool", AbstractType::Boolean),
            ColumnDef::new("v_double", AbstractType::Double),
            ColumnDef::new("v_int", AbstractType::Int32),
            ColumnDef::new("v_text", AbstractType::Utf8),
            ColumnDef::new("v_ts", AbstractType::Timestamp),
            ColumnDef::new("v_uuid", AbstractType::Uuid),
            ColumnDef::new(
                "v_list",
                AbstractType::List {
                    element: Box::new(AbstractType::Int32),
                    multi_cell: true,
                },
            ),
            ColumnDef::new(
                "v_map",
                AbstractType::Map {
                    key: Box::new(AbstractType::Utf8),
                    value: Box::new(AbstractType::Int32),
                    multi_cell: true,
                },
            ),
            ColumnDef::new(
                "v_set",
                AbstractType::Set {
                    element: Box::new(AbstractType::Utf8),
                    multi_cell: true,
                },
            ),
        ],
    )
}

/// The partition keys (`bigint` ids, a bijection of `0..n` mixed with the seed), sorted for the
/// partitioner.
pub fn keys(options: &GenerateOptions) -> Vec<Vec<u8>> {
    let offset = SplitMix64::new(options.seed).next_u64();
    let mut keys: Vec<Vec<u8>> = (0..options.partitions)
        .map(|i| {
            i.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .wrapping_add(offset)
                .to_be_bytes()
                .to_vec()
        })
        .collect();
    sort_keys_by_token(&mut keys, &options.partitioner);
    keys
}

/// A version-1 TimeUUID for list cell paths, increasing with `tick`.
fn time_uuid(tick: u64, node: u64) -> Vec<u8> {
    let t = tick & 0x0fff_ffff_ffff_ffff;
    let msb = ((t & 0xffff_ffff) << 32) | (((t >> 32) & 0xffff) << 16) | 0x1000 | (t >> 48);
    let lsb = 0x8000_0000_0000_0000 | (node & 0x3fff_ffff_ffff_ffff);
    let mut out = msb.to_be_bytes().to_vec();
    out.extend_from_slice(&lsb.to_be_bytes());
    out
}

/// Column indexes of the generator's schema (sorted: simple columns, then list, map, set).
struct Cols {
    bigint: usize,
    blob: usize,
    boolean: usize,
    double: usize,
    int: usize,
    text: usize,
    ts: usize,
    uuid: usize,
    list: usize,
    map: usize,
    set: usize,
}

impl Cols {
    fn of(schema: &TableSchema) -> Result<Cols> {
        let i = |name: &str| {
            schema
                .column_index(false, name)
                .ok_or_else(|| Error::invalid(format!("generator column {name} missing"), 0))
        };
        Ok(Cols {
            bigint: i("v_bigint")?,
            blob: i("v_blob")?,
            boolean: i("v_bool")?,
            double: i("v_double")?,
            int: i("v_int")?,
            text: i("v_text")?,
            ts: i("v_ts")?,
            uuid: i("v_uuid")?,
            list: i("v_list")?,
            map: i("v_map")?,
            set: i("v_set")?,
        })
    }
}

/// Generates one partition's content, handing each part to `emit`.
struct PartitionGenerator<'a> {
    options: &'a GenerateOptions,
    cols: &'a Cols,
    rng: SplitMix64,
    now_secs: u32,
    tick: u64,
}

enum Part {
    Static(Row),
    Unfiltered(Unfiltered),
}

impl PartitionGenerator<'_> {
    fn timestamp(&mut self) -> i64 {
        self.options
            .base_timestamp_micros
            .saturating_add(1_000_i64.saturating_add(self.rng.below(999_000) as i64))
    }

    fn expiry(&mut self) -> Expiry {
        let (min, max) = self.options.ttl_range_secs;
        let ttl = min.saturating_add(self.rng.below(max.saturating_sub(min).max(0) as u64) as i32);
        Expiry {
            ttl_secs: ttl,
            local_expiration_time_secs: self.now_secs.saturating_add(ttl as u32),
        }
    }

    fn deletion(&mut self, ts: i64) -> ModelDeletion {
        ModelDeletion::new(ts, self.now_secs)
    }

    fn simple(&mut self, column: usize, ts: i64) -> ColumnData {
        let c = self.cols;
        let value = if column == c.bigint {
            self.rng.next_u64().to_be_bytes().to_vec()
        } else if column == c.blob {
            let n = match self.options.blob_bytes {
                Some(n) => n,
                None => 1usize.saturating_add(self.rng.below(32) as usize),
            };
            self.rng.bytes(n)
        } else if column == c.boolean {
            vec![u8::from(self.rng.chance(0.5))]
        } else if column == c.double {
            ((self.rng.unit() - 0.5) * 1e6).to_be_bytes().to_vec()
        } else if column == c.int {
            (self.rng.next_u64() as i32).to_be_bytes().to_vec()
        } else if column == c.ts {
            (ts / 1000)
                .saturating_sub(self.rng.below(86_400_000) as i64)
                .to_be_bytes()
                .to_vec()
        } else if column == c.uuid {
            let mut u = self.rng.bytes(16);
            if let Some(v) = u.get_mut(6) {
                *v = (*v & 0x0f) | 0x40;
            }
            if let Some(v) = u.get_mut(8) {
                *v = (*v & 0x3f) | 0x80;
            }
            u
        } else {
            self.rng.word(4, 24).into_bytes()
        };
        ColumnData::Simple {
            column,
            cell: Cell::live(ts, value),
        }
    }

    fn complex(&mut self, column: usize, ts: i64, deletion: ModelDeletion) -> ColumnData {
        let c = self.cols;
        let n = 1usize.saturating_add(self.rng.below(3) as usize);
        let mut cells = Vec::with_capacity(n);
        if column == c.list {
            for _ in 0..n {
                self.tick = self
                    .tick
                    .saturating_add(1)
                    .saturating_add(self.rng.below(1000));
                let path = time_uuid(self.tick, self.options.seed);
                let value = (self.rng.next_u64() as i32).to_be_bytes().to_vec();
                cells.push(Cell::live(ts, value).with_path(path));
            }
        } else {
            let mut words: Vec<String> = (0..n).map(|_| self.rng.word(3, 10)).collect();
            words.sort();
            words.dedup();
            for w in words {
                let value = if column == c.map {
                    (self.rng.next_u64() as i32).to_be_bytes().to_vec()
                } else {
                    Vec::new()
                };
                cells.push(Cell::live(ts, value).with_path(w.into_bytes()));
            }
        }
        ColumnData::Complex {
            column,
            deletion,
            cells,
        }
    }

    /// One regular row (`kind`: 0 plain, 1 row deletion, 2 cell tombstone, 3 collections
    /// overwritten).
    fn row(&mut self, index: u64, kind: u8) -> Row {
        let c = self.cols;
        let ck1 = (index as i32).to_be_bytes().to_vec();
        let ck2 = format!("k{:03}", self.rng.below(1000)).into_bytes();
        let mut row = Row::new(vec![ck1, ck2]);
        let ts = self.timestamp();
        if kind == 1 {
            row.deletion = self.deletion(ts);
            return row;
        }
        let expiring = self.rng.chance(self.options.ttl_fraction);
        let row_expiry = if expiring { Some(self.expiry()) } else { None };
        let update_style = self.rng.chance(0.1);
        if !update_style {
            row.liveness = Some(Liveness {
                timestamp_micros: ts,
                expiry: row_expiry,
            });
        }
        let complex_deletion = if kind == 3 {
            self.deletion(ts.saturating_sub(1))
        } else {
            ModelDeletion::LIVE
        };
        let tombstone_column = if kind == 2 {
            Some(self.rng.below(8) as usize)
        } else {
            None
        };
        let simple = [
            c.bigint, c.blob, c.boolean, c.double, c.int, c.text, c.ts, c.uuid,
        ];
        let mut columns: Vec<usize> = simple
            .iter()
            .copied()
            .chain([c.list, c.map, c.set])
            .filter(|_| self.rng.chance(0.8))
            .collect();
        if let Some(t) = tombstone_column.and_then(|i| simple.get(i).copied()) {
            if !columns.contains(&t) {
                columns.push(t);
            }
        }
        if kind == 3 && !columns.contains(&c.list) {
            columns.push(c.list);
        }
        if columns.is_empty() {
            columns.push(c.int);
        }
        columns.sort_unstable();
        let own_ttl_column = if expiring && self.rng.chance(0.3) {
            columns.first().copied()
        } else {
            None
        };
        for column in columns {
            let is_complex = column == c.list || column == c.map || column == c.set;
            let mut data = if is_complex {
                self.complex(column, ts, complex_deletion)
            } else {
                self.simple(column, ts)
            };
            let cells: Vec<&mut Cell> = match &mut data {
                ColumnData::Simple { cell, .. } => vec![cell],
                ColumnData::Complex { cells, .. } => cells.iter_mut().collect(),
            };
            for cell in cells {
                if Some(column) == tombstone_column.and_then(|i| simple.get(i).copied()) {
                    cell.value = CellValue::Tombstone {
                        local_deletion_time_secs: self.now_secs,
                    };
                } else if let CellValue::Live { expiry, .. } = &mut cell.value {
                    *expiry = row_expiry;
                    if own_ttl_column == Some(column) {
                        let (min, max) = self.options.ttl_range_secs;
                        let ttl = min.saturating_add(7).min(max);
                        *expiry = Some(Expiry {
                            ttl_secs: ttl,
                            local_expiration_time_secs: self.now_secs.saturating_add(ttl as u32),
                        });
                    }
                }
            }
            row.columns.push(data);
        }
        row
    }

    /// The partition deletion (drawn first).
    fn partition_deletion(&mut self) -> ModelDeletion {
        if self.rng.chance(self.options.tombstone_fraction / 4.0) {
            ModelDeletion::new(self.options.base_timestamp_micros, self.now_secs)
        } else {
            ModelDeletion::LIVE
        }
    }

    /// The rest of the partition (`rows` regular rows), part by part.
    fn generate(&mut self, rows: u64, emit: &mut dyn FnMut(Part) -> Result<()>) -> Result<()> {
        let tf = self.options.tombstone_fraction;
        if self.rng.chance(0.9) {
            let ts = self.timestamp();
            let mut s = Row::default();
            let value = self.rng.word(4, 16).into_bytes();
            let mut cell = Cell::live(ts, value);
            if self.options.static_ttl_fraction > 0.0
                && self.rng.chance(self.options.static_ttl_fraction)
            {
                cell.value = CellValue::Live {
                    value: cell.value_bytes().to_vec(),
                    expiry: Some(self.expiry()),
                };
            }
            s.columns.push(ColumnData::Simple { column: 0, cell });
            emit(Part::Static(s))?;
        }
        let mut pending_end: Option<(Vec<Vec<u8>>, ModelDeletion)> = None;
        for i in 0..rows {
            let tombstone = self.rng.chance(tf);
            let kind = if tombstone {
                self.rng.below(4) as u8
            } else {
                0
            };
            let ck1 = vec![(i as i32).to_be_bytes().to_vec()];
            if kind == 0 && tombstone {
                // A range tombstone over this row's ck1, older than the row.
                let ts = self.timestamp();
                let d = self.deletion(ts.saturating_sub(10));
                let marker = match pending_end.take() {
                    Some((values, end)) => {
                        RangeTombstoneMarker::boundary(BoundKind::InclEndExclStart, values, end, d)
                    }
                    None => RangeTombstoneMarker::bound(BoundKind::InclStart, ck1.clone(), d),
                };
                emit(Part::Unfiltered(Unfiltered::Marker(marker)))?;
                let mut row = self.row(i, 0);
                if let Some(l) = &mut row.liveness {
                    l.timestamp_micros = l.timestamp_micros.max(ts);
                }
                for c in row.columns.iter_mut() {
                    match c {
                        ColumnData::Simple { cell, .. } => {
                            cell.timestamp_micros = cell.timestamp_micros.max(ts)
                        }
                        ColumnData::Complex { cells, .. } => {
                            for cell in cells {
                                cell.timestamp_micros = cell.timestamp_micros.max(ts);
                            }
                        }
                    }
                }
                emit(Part::Unfiltered(Unfiltered::Row(row)))?;
                pending_end = Some((ck1, d));
                continue;
            }
            if let Some((values, end)) = pending_end.take() {
                let m = RangeTombstoneMarker::bound(BoundKind::InclEnd, values, end);
                emit(Part::Unfiltered(Unfiltered::Marker(m)))?;
            }
            let row = self.row(i, kind);
            emit(Part::Unfiltered(Unfiltered::Row(row)))?;
        }
        if let Some((values, end)) = pending_end.take() {
            let m = RangeTombstoneMarker::bound(BoundKind::InclEnd, values, end);
            emit(Part::Unfiltered(Unfiltered::Marker(m)))?;
        }
        Ok(())
    }
}

/// The write options [`generate`] uses.
pub fn write_options(options: &GenerateOptions) -> WriteOptions {
    let mut w = WriteOptions::new(options.version);
    w.partitioner = options.partitioner.clone();
    w.compression = options.compression.clone();
    if let Some(k) = options.chunk_kib {
        w.chunk_length_bytes = k.saturating_mul(1024);
        w.crc_chunk_bytes = k.saturating_mul(1024);
    }
    w.column_index_size_bytes = options.column_index_size_bytes;
    w.expected_keys = options.partitions;
    let now_secs = (options.base_timestamp_micros / 1_000_000) as u32;
    w.encoding_stats = EncodingStats {
        min_timestamp_micros: options.base_timestamp_micros,
        min_local_deletion_time_secs: now_secs,
        min_ttl_secs: if options.ttl_fraction > 0.0 || options.static_ttl_fraction > 0.0 {
            options.ttl_range_secs.0
        } else {
            0
        },
    };
    let mut host = SplitMix64::new(options.seed ^ 0x686f_7374)
        .next_u64()
        .to_be_bytes()
        .to_vec();
    host.extend_from_slice(
        &SplitMix64::new(options.seed ^ 0x6964)
            .next_u64()
            .to_be_bytes(),
    );
    if let Some(b) = host.get_mut(6) {
        *b = (*b & 0x0f) | 0x40;
    }
    if let Some(b) = host.get_mut(8) {
        *b = (*b & 0x3f) | 0x80;
    }
    w.facts = SSTableFacts {
        originating_host_id: host.try_into().ok(),
        ..SSTableFacts::default()
    };
    w
}

/// Generates a table and writes it through `sink`.
pub fn generate<S: ComponentSink>(options: &GenerateOptions, sink: S) -> Result<Generated<S>> {
    if options.partitions == 0 {
        return Err(Error::invalid("generate at least one partition", 0));
    }
    for (name, f) in [
        ("ttl fraction", options.ttl_fraction),
        ("tombstone fraction", options.tombstone_fraction),
        ("static ttl fraction", options.static_ttl_fraction),
    ] {
        if !(0.0..=1.0).contains(&f) {
            return Err(Error::invalid(format!("{name} {f} is not in [0, 1]"), 0));
        }
    }
    let (ttl_min, ttl_max) = options.ttl_range_secs;
    if ttl_min < 1 || ttl_max < ttl_min {
        return Err(Error::invalid(
            format!("TTL range {ttl_min}..{ttl_max} s is empty or not positive"),
            0,
        ));
    }
    let most_rows = options
        .rows_per_partition
        .saturating_mul(options.skew.max(1));
    if most_rows > i32::MAX as u64 {
        return Err(Error::invalid("at most 2^31 − 1 rows per partition", 0));
    }
    let schema = schema()?;
    let cols = Cols::of(&schema)?;
    let mut writer = SSTableWriter::new(schema.clone(), write_options(options), sink)?;
    let mut model = options.keep_model.then(|| Model {
        schema: schema.clone(),
        partitions: Vec::new(),
    });
    let now_secs = (options.base_timestamp_micros / 1_000_000) as u32;
    for (number, key) in keys(options).into_iter().enumerate() {
        let mut generator = PartitionGenerator {
            options,
            cols: &cols,
            rng: SplitMix64::new(
                options.seed ^ (number as u64).wrapping_mul(0xa076_1d64_78bd_642f),
            ),
            now_secs,
            tick: 0x01d0_0000_0000_0000,
        };
        let partition_deletion = generator.partition_deletion();
        writer.start_partition(&key, partition_deletion)?;
        let mut kept = model.as_ref().map(|_| Partition {
            key: key.clone(),
            deletion: partition_deletion,
            static_row: None,
            unfiltereds: Vec::new(),
        });
        let mut emit = |part: Part| -> Result<()> {
            match part {
                Part::Static(row) => {
                    writer.add_static_row(&row)?;
                    if let Some(k) = &mut kept {
                        k.static_row = Some(row);
                    }
                }
                Part::Unfiltered(u) => {
                    writer.add_unfiltered(&u)?;
                    if let Some(k) = &mut kept {
                        k.unfiltereds.push(u);
                    }
                }
            }
            Ok(())
        };
        generator.generate(options.rows_in_partition(number as u64), &mut emit)?;
        writer.end_partition()?;
        if let (Some(m), Some(k)) = (&mut model, kept) {
            m.partitions.push(k);
        }
    }
    let (sink, summary) = writer.finish()?;
    Ok(Generated {
        sink,
        summary,
        model,
    })
}
