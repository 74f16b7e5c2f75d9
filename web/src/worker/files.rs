//! The worker's files: read by `FileReaderSync` ranges ([`FileSource`], the engine's
//! `RangeSource`), their metadata decoded ([`load_metadata`]), and the embedded sample's
//! ([`sample_files`]).

use js_sys::{Array, Uint8Array};
use sstable_engine::component::ComponentType;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::load::MetadataLoader;
use sstable_engine::range::{ByteRange, RangeSource, SyncDriver};
use sstable_engine::sstable_set::group_files;
use web_sys::File;

use crate::loader;
use crate::protocol::FileRef;

/// The worker's one [`RangeSource`]: the SSTable's files read by `FileReaderSync` ranges into the
/// driver's buffer (fewer bytes only where a file ends). With `raw_crc32_millis`, each Data.db
/// buffer is also run through one raw `crc32fast` pass, timed apart (the limit the checksum phase
/// is compared with, on the same bytes).
pub(crate) struct FileSource<'a> {
    pub files: &'a [(ComponentType, web_sys::File)],
    pub raw_crc32_millis: Option<f64>,
}

impl RangeSource for FileSource<'_> {
    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> sstable_engine::Result<()> {
        let fail = |m: String| {
            sstable_engine::Error::invalid(m, range.offset).in_component(range.component.clone())
        };
        let file = self
            .files
            .iter()
            .find(|(c, _)| *c == range.component)
            .map(|(_, f)| f)
            .ok_or_else(|| fail(format!("{} was not given", range.component)))?;
        let end = range.end().min(file.size() as u64);
        read_range_into(file, range.offset.min(end), end, buf).map_err(fail)?;
        if let (Some(ms), ComponentType::Data) = (self.raw_crc32_millis.as_mut(), &range.component)
        {
            let t = loader::now_millis();
            std::hint::black_box(crc32fast::hash(buf));
            *ms += loader::now_millis() - t;
        }
        Ok(())
    }
}

/// Reads the small components whole through the engine's [`MetadataLoader`] and decodes every
/// metadata component; returns it with the file handle of each component.
pub(super) fn load_metadata(
    files: &[FileRef],
) -> Result<(SSTableMetadata, Vec<(ComponentType, web_sys::File)>), String> {
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let grouping = group_files(&paths);
    let sstable = grouping
        .sstables
        .first()
        .ok_or("the files given are not an SSTable")?;
    let handles: Vec<(ComponentType, web_sys::File)> = sstable
        .files
        .iter()
        .filter_map(|(c, i)| files.get(*i).map(|f| (c.clone(), f.file.clone())))
        .collect();
    let sizes = handles
        .iter()
        .map(|(c, f)| (c.clone(), f.size() as u64))
        .collect();
    let mut metadata = MetadataLoader::new(&sstable.descriptor, sizes);
    let mut driver = SyncDriver::new(FileSource {
        files: &handles,
        raw_crc32_millis: None,
    });
    // A failed read is an error of its component, in the metadata.
    let _ = driver.run(&mut metadata, &loader::PerformanceClock);
    Ok((metadata.finish(), handles))
}

/// Reads bytes `[start, end)` of a file with `FileReaderSync` (in a worker only), into `buffer`
/// (reused between reads, so a worker holds one read buffer).
pub(super) fn read_range_into(
    file: &web_sys::Blob,
    start: u64,
    end: u64,
    buffer: &mut Vec<u8>,
) -> Result<(), String> {
    let blob = file
        .slice_with_f64_and_f64(start as f64, end as f64)
        .map_err(loader::js_error)?;
    let reader = web_sys::FileReaderSync::new().map_err(loader::js_error)?;
    let array = reader
        .read_as_array_buffer(&blob)
        .map_err(loader::js_error)?;
    let view = Uint8Array::new(&array);
    let len = view.length() as usize;
    buffer.clear();
    buffer.resize(len, 0);
    view.copy_to(buffer);
    Ok(())
}

/// The embedded sample SSTable (`static/sample/`, written by `sstable-inspect generate`; see
/// `cli/tests/sample.rs`), as files in a `sample/` directory. Compiled into the worker, which
/// decodes it as it starts and hands the files to the page ([`crate::protocol::Request::LoadSample`]): showing it
/// needs no network.
pub(super) fn sample_files() -> Vec<FileRef> {
    macro_rules! sample {
        ($($name:literal),*) => {
            [$(($name, &include_bytes!(concat!("../../../static/sample/", $name))[..])),*]
        };
    }
    let files = sample!(
        "oa-1-big-CompressionInfo.db",
        "oa-1-big-Data.db",
        "oa-1-big-Digest.crc32",
        "oa-1-big-Filter.db",
        "oa-1-big-Index.db",
        "oa-1-big-Statistics.db",
        "oa-1-big-Summary.db",
        "oa-1-big-TOC.txt"
    );
    files
        .iter()
        .filter_map(|(name, bytes)| {
            let parts = Array::of1(&Uint8Array::from(*bytes));
            File::new_with_u8_array_sequence(&parts, name)
                .ok()
                .map(|file| FileRef {
                    path: format!("sample/{name}"),
                    file,
                })
        })
        .collect()
}
