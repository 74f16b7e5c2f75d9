//! SSTables read into memory for the tests: the files of a fixture directory grouped into
//! SSTables (`sstable_set::group_files`), each SSTable's components read and its metadata
//! decoded (`info::decode_metadata`, as `SSTableReader.openForBatch` opens one).

use std::path::Path;

use sstable_engine::component::ComponentType;
use sstable_engine::descriptor::{parse_file_name, Descriptor};
use sstable_engine::info::{decode_metadata, reads_whole, ComponentInput, SSTableMetadata};
use sstable_engine::sstable_set::{group_files, Grouping, SSTableFiles};

/// One SSTable's components in memory, sorted by component.
pub type Files = Vec<(ComponentType, Vec<u8>)>;

/// Every file under `dir` as a full path, and those paths grouped into SSTables (the indexes in
/// the grouping point into the paths).
pub fn grouped_dir(dir: &Path) -> (Vec<String>, Grouping) {
    let names: Vec<String> = super::files_under(dir)
        .into_iter()
        .map(|n| dir.join(n).to_string_lossy().into_owned())
        .collect();
    let grouping = group_files(&names);
    (names, grouping)
}

/// The metadata decoded from one SSTable's components (`files` as (component, bytes)); the
/// components `reads_whole` names are passed whole, the others by size.
pub fn decode_components<'a>(
    descriptor: &Descriptor,
    files: impl IntoIterator<Item = (&'a ComponentType, &'a [u8])>,
) -> SSTableMetadata {
    let inputs: Vec<ComponentInput<'_>> = files
        .into_iter()
        .map(|(c, b)| ComponentInput {
            component: c,
            size_bytes: b.len() as u64,
            bytes: reads_whole(c).then_some(b),
        })
        .collect();
    decode_metadata(descriptor, &inputs)
}

/// One grouped SSTable read from disk (`names` the paths its grouping indexes): its
/// components and its decoded metadata.
pub fn read_sstable(names: &[String], sstable: &SSTableFiles) -> (Files, SSTableMetadata) {
    let files: Files = sstable
        .files
        .iter()
        .map(|(c, i)| {
            let bytes = std::fs::read(&names[*i]).unwrap_or_else(|e| panic!("{}: {e}", names[*i]));
            (c.clone(), bytes)
        })
        .collect();
    let metadata = decode_components(
        &sstable.descriptor,
        files.iter().map(|(c, b)| (c, b.as_slice())),
    );
    (files, metadata)
}

/// The metadata of a generated `big` SSTable held in memory, named as generation `generation` of
/// `version`; asserts that it decodes without error.
pub fn generated_metadata(version: &str, generation: u64, files: &Files) -> SSTableMetadata {
    let (descriptor, _) = parse_file_name(&format!("{version}-{generation}-big-Data.db")).unwrap();
    let m = decode_components(&descriptor, files.iter().map(|(c, b)| (c, b.as_slice())));
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    m
}
