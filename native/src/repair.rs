//! One replica of one table opened for validation (`sstable_engine::repair`): its 3.0+ SSTables
//! under some paths merged (`sstable_engine::merge::TableMerger`), with their partitioner and
//! the partition estimate `ValidationManager` sizes the Merkle tree from. What `sstable-inspect
//! diff` and the Python package's `merkle` and `diff` open per replica.

use sstable_engine::component::data::DecodeOptions;
use sstable_engine::merge::{MergeInput, MergeOptions, TableMerger};
use sstable_engine::repair::{ValidationOptions, Validator};
use sstable_engine::token::Partitioner;

use crate::files::{self, ComponentFiles};

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

/// Opens the SSTables under `paths` (one table) as one replica, reading at `now_seconds`.
/// Errors name the SSTable: an I/O or metadata error, a pre-3.0 version, a second partitioner.
pub fn open_replica(paths: &[&str], now_seconds: i64) -> Result<Replica, String> {
    let label = paths.join(", ");
    let found = files::find(paths).map_err(|e| format!("{label}: {e}"))?;
    let options = DecodeOptions {
        now_seconds: Some(now_seconds),
        ..DecodeOptions::default()
    };
    let mut inputs = Vec::new();
    let mut partitioner: Option<Partitioner> = None;
    let mut estimate = 0u64;
    for sstable in &found.grouping.sstables {
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        if let Some(e) = io_errors.first() {
            return Err(format!("{}: {e}", sstable.prefix));
        }
        if let Some(e) = metadata.errors.first() {
            return Err(format!("{}: {e}", sstable.prefix));
        }
        if !sstable.descriptor.version.has_row_format() {
            return Err(format!(
                "{}: version {} predates the 3.0 row format",
                sstable.prefix, sstable.descriptor.version
            ));
        }
        let p = metadata.partitioner();
        if partitioner.as_ref().is_some_and(|q| *q != p) {
            return Err(format!("{}: its partitioner differs", sstable.prefix));
        }
        estimate = estimate.saturating_add(metadata.estimated_partitions());
        partitioner = Some(p);
        let source = ComponentFiles::new(&found, sstable);
        let input = MergeInput::for_sstable(sstable.prefix.clone(), &metadata, options, source)
            .map_err(|e| format!("{}: {e}", sstable.prefix))?;
        inputs.push(input);
    }
    let partitioner = partitioner.ok_or_else(|| format!("{label}: no SSTable found"))?;
    let merge_options = MergeOptions {
        now_seconds: Some(now_seconds),
        explain: false,
    };
    let merger = TableMerger::new(inputs, partitioner.clone(), merge_options)
        .map_err(|e| format!("{label}: {e}"))?;
    Ok(Replica {
        merger,
        partitioner,
        estimated_partitions: estimate,
    })
}
