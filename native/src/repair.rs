//! One table's SSTables under some paths opened for the merged read: the files found and their
//! metadata loaded here, the merge inputs built by the engine
//! (`sstable_engine::merge::open_table`: 3.0+ and, given the table's `CREATE TABLE`, 2.x
//! SSTables; one partitioner). [`open_table`] is what `sstable-inspect read`, `lookup` and
//! `zombies` open; [`open_replica`] adds the partition estimate `ValidationManager` sizes the
//! Merkle tree from, for `sstable_engine::repair` (`sstable-inspect diff`, the Python package's
//! `merkle` and `diff`).

use sstable_engine::component::data::DecodeOptions;
use sstable_engine::cql_schema::CqlSchemaFile;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::merge::{MergeOptions, TableMerger, TableSSTable};
use sstable_engine::repair::{ValidationOptions, Validator};
use sstable_engine::token::Partitioner;

use crate::files::{self, ComponentFiles};

/// One table's merge, with what the callers show beside it.
pub struct OpenTable {
    pub merger: TableMerger<ComponentFiles>,
    pub partitioner: Partitioner,
    /// Each SSTable's name as the merge names it ([`sstable_engine::merge::SourceId`] order).
    pub names: Vec<String>,
    pub metadata: Vec<SSTableMetadata>,
}

/// How [`open_table`] names and reads the SSTables.
#[derive(Debug, Clone, Copy)]
pub struct TableOptions<'a> {
    /// The table's `CREATE TABLE` (needed for 2.x SSTables, which record no schema).
    pub schema: Option<&'a CqlSchemaFile>,
    pub decode: DecodeOptions,
    pub merge: MergeOptions,
    /// Name each SSTable by its file name prefix only (`nb-1-big`), not its path.
    pub short_names: bool,
}

/// Opens the SSTables under `paths` (one table) for the merge. Errors name the SSTable: an I/O
/// or metadata error, a 2.x SSTable without a schema, a second partitioner, a column the first
/// SSTable does not have.
pub fn open_table(paths: &[&str], options: TableOptions<'_>) -> Result<OpenTable, String> {
    let label = paths.join(", ");
    let found = files::find(paths).map_err(|e| format!("{label}: {e}"))?;
    let mut names = Vec::new();
    let mut all = Vec::new();
    let mut sources = Vec::new();
    for sstable in &found.grouping.sstables {
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        if let Some(e) = io_errors.first() {
            return Err(format!("{}: {e}", sstable.prefix));
        }
        let name = if options.short_names {
            sstable.prefix.rsplit('/').next().unwrap_or(&sstable.prefix)
        } else {
            sstable.prefix.as_str()
        };
        names.push(name.to_owned());
        all.push(metadata);
        sources.push(ComponentFiles::new(&found, sstable));
    }
    if all.is_empty() {
        return Err(format!("{label}: no SSTable found"));
    }
    let sstables = names
        .iter()
        .zip(&all)
        .zip(sources)
        .map(|((name, metadata), source)| TableSSTable {
            name: name.clone(),
            metadata,
            source,
        })
        .collect();
    let (merger, partitioner) =
        sstable_engine::merge::open_table(sstables, options.schema, options.decode, options.merge)
            .map_err(|e| e.to_string())?;
    Ok(OpenTable {
        merger,
        partitioner,
        names,
        metadata: all,
    })
}

/// One replica: its merged SSTables, their partitioner, and the summed estimated partitions
/// (each SSTable's cardinality estimate, else its estimated partition count).
pub struct Replica {
    pub merger: TableMerger<ComponentFiles>,
    pub partitioner: Partitioner,
    pub estimated_partitions: u64,
}

impl Replica {
    /// This replica's validation at `options`.
    pub fn validator(self, options: ValidationOptions) -> Validator<ComponentFiles> {
        Validator::new(self.merger, self.partitioner, options)
    }
}

/// Opens the SSTables under `paths` (one table, 3.0+) as one replica, reading at
/// `now_seconds`: [`open_replica_with_schema`] without a schema.
pub fn open_replica(paths: &[&str], now_seconds: i64) -> Result<Replica, String> {
    open_replica_with_schema(paths, now_seconds, None)
}

/// Opens the SSTables under `paths` (one table; 2.x ones with `schema`) as one replica, reading
/// at `now_seconds`. Errors name the SSTable ([`open_table`]).
pub fn open_replica_with_schema(
    paths: &[&str],
    now_seconds: i64,
    schema: Option<&CqlSchemaFile>,
) -> Result<Replica, String> {
    let table = open_table(
        paths,
        TableOptions {
            schema,
            decode: DecodeOptions {
                now_seconds: Some(now_seconds),
                ..DecodeOptions::default()
            },
            merge: MergeOptions {
                now_seconds: Some(now_seconds),
                explain: false,
            },
            short_names: false,
        },
    )?;
    // Validation answers for whole SSTables: one whose metadata did not decode is an error.
    for (name, m) in table.names.iter().zip(&table.metadata) {
        if let Some(e) = m.errors.first() {
            return Err(format!("{name}: {e}"));
        }
    }
    let estimated_partitions = table
        .metadata
        .iter()
        .map(SSTableMetadata::estimated_partitions)
        .fold(0u64, u64::saturating_add);
    Ok(Replica {
        merger: table.merger,
        partitioner: table.partitioner,
        estimated_partitions,
    })
}
