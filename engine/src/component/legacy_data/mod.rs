//! Data.db of Cassandra 2.0–2.2 (`jb`, `ka`, `la`): partitions of on-disk atoms (cells and
//! range tombstones) in the pre-3.0 cell layout, decoded as a bounded stream, then grouped into
//! CQL rows.
//!
//! | part | encoding | versions |
//! |---|---|---|
//! | partition key | u16 length + bytes | jb ka la |
//! | partition deletion | `DeletionTime`: i32 localDeletionTime, i64 markedForDeleteAt | jb ka la |
//! | atoms | until an empty name | jb ka la |
//! | end of partition | u16 `0x0000` (an empty name) | jb ka la |
//!
//! An atom ([`Atom`], `OnDiskAtom.Serializer`):
//!
//! | field | encoding | when |
//! |---|---|---|
//! | name | u16 length + bytes (a cell name, [`CellName`]) | always |
//! | mask | u8: `0x01` deleted, `0x02` expiring, `0x04` counter, `0x08` counter update, `0x10` range tombstone | always |
//! | range tombstone | end name (u16 length + bytes), `DeletionTime` (i32 ldt, i64 mfda) | mask `0x10` |
//! | counter | i64 timestampOfLastDelete (µs) | mask `0x04` |
//! | expiring | i32 ttl (s), i32 local expiration time (s) | mask `0x02` |
//! | cell | i64 timestamp (µs), i32 length + value | every cell |
//!
//! A deleted cell's value is its i32 local deletion time; a counter cell's value is a
//! `CounterContext` ([`CounterContext`](crate::component::data::CounterContext), shared with the
//! 3.0+ decoder). Before 2.1 (`jb`) counter contexts only have local shards; from `ka` on, new
//! increments write global shards. There is no row size, column count or row index in Data.db
//! since `ja` (`hasRowSizeAndColumnCount`); `jb` to `la` differ only outside Data.db's atoms
//! (Statistics.db, file names). Compressed chunks carry Adler32 checksums
//! ([`Version::uses_adler32`](crate::Version::uses_adler32)).
//!
//! Cell names ([`CellName`]): CQL3 (compound) tables write `CompositeType` names — per component
//! u16 length, bytes, an end-of-component byte; a static cell's name starts with `0xFFFF`; the
//! row marker has an empty last component; a collection cell adds the element key after the
//! column name. COMPACT STORAGE and Thrift tables with one comparator type write the value itself.
//! A partition that spans several row-index blocks repeats the range tombstones still open at
//! each block start (`ColumnIndex`, `RangeTombstone.Tracker`).
//!
//! Driving it: [`LegacyDataDecoder`] is the sans-I/O push decoder (`push`, `finish`,
//! `next_item` → [`LegacyStep`]) over uncompressed bytes; atoms borrow their names and values
//! from its window. [`LegacyDataFileReader`] sits on top for the physical file, plain or
//! compressed, with the `next_read` / `supply` protocol of the 3.0+ `DataFileReader`. [`RowGrouper`] turns a partition's atoms into sstabledump-shaped rows
//! ([`crate::dump::PartitionJson`]) with a [`LegacyLayout`]; [`AtomPartitionJson`] is the raw view
//! shaped like 2.x's sstable2json.
//!
//! Src (cassandra-2.0 / 2.1 / 2.2): `db/OnDiskAtom.java` (`Serializer`),
//! `db/ColumnSerializer.java` (2.0: `Column.java`), `db/RangeTombstone.java` (`Serializer`,
//! `Tracker`), `db/DeletionTime.java`, `db/ColumnIndex.java`, `db/context/CounterContext.java`,
//! `db/marshal/CompositeType.java`, `db/composites/CompoundSparseCellNameType.java`,
//! `io/sstable/Descriptor.java` (2.0 `Version`); Cassandra 3.0's `db/LegacyLayout.java` for how
//! atoms become rows.

#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

mod atom;
mod file;
mod json;
mod layout;
mod name;
mod rows;
mod schema;
mod stream;

pub use atom::{Atom, AtomBody, AtomKind, LegacyCell, LegacyRangeTombstone};
pub use file::LegacyDataFileReader;
pub use json::{AtomJson, AtomPartitionHeaderJson, AtomPartitionJson, AtomsBuilder};
pub use layout::{cql_type, says_compact_storage, CellPlace, LegacyLayout, PlacedColumn};
pub use name::{untyped, CellName, NameComponent, STATIC_MARKER};
pub use rows::RowGrouper;
pub use schema::{InferredColumn, InferredTable, INFERRED_SCHEMA_NOTE};
pub use stream::{AtomCounts, LegacyDataDecoder, LegacyItem, LegacyPartitionEnd, LegacyStep};

/// Mask bit: a deleted cell (tombstone); the value is its local deletion time.
pub const DELETION_MASK: u8 = 0x01;
/// Mask bit: an expiring cell (TTL and local expiration time follow).
pub const EXPIRATION_MASK: u8 = 0x02;
/// Mask bit: a counter cell (timestamp of last delete follows; the value is a CounterContext).
pub const COUNTER_MASK: u8 = 0x04;
/// Mask bit: a counter update (a delta not yet merged; only in memtables and commit logs).
pub const COUNTER_UPDATE_MASK: u8 = 0x08;
/// Mask bit: a range tombstone (end name and DeletionTime follow).
pub const RANGE_TOMBSTONE_MASK: u8 = 0x10;
