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

/// Bytes read at once from Data.db by [`ReadAhead`]: a compressed chunk is ~16 KiB, and each
/// `FileReaderSync` read costs about a millisecond in Chromium whatever its length (measured on
/// a 1 GB Data.db: 75,000 chunk reads took 76 s of a 1-worker Analytics scan with the CPU a
/// third busy), so a scan reads a block and hands the chunks out of it.
const READ_AHEAD_BYTES: u64 = 1 << 20;

/// A [`RangeSource`] for the page's streaming reads (Analytics, data pages, the merge, the
/// scrub): a Data.db range shorter than [`READ_AHEAD_BYTES`] is served from one block read
/// ahead from it (the same bytes, fewer where the file ends, as the inner source gives them);
/// other ranges and components go to the inner source. One block per source: memory bounded by
/// it, never by the file.
pub struct ReadAhead<S> {
    inner: S,
    block: Vec<u8>,
    /// The block's first byte in Data.db.
    block_start: u64,
    /// The block ends where Data.db ends (a shorter read than asked).
    block_at_end: bool,
}

impl<S: RangeSource> ReadAhead<S> {
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            block: Vec::new(),
            block_start: 0,
            block_at_end: false,
        }
    }

    /// `range`'s bytes in the block, if the block holds them (up to the file's end).
    fn cached(&self, range: &ByteRange) -> Option<&[u8]> {
        let from = usize::try_from(range.offset.checked_sub(self.block_start)?).ok()?;
        let to = usize::try_from(range.end().checked_sub(self.block_start)?).ok()?;
        if to <= self.block.len() {
            self.block.get(from..to)
        } else if self.block_at_end && from <= self.block.len() {
            self.block.get(from..)
        } else {
            None
        }
    }
}

impl<S: RangeSource> RangeSource for ReadAhead<S> {
    fn read_into(&mut self, range: &ByteRange, buf: &mut Vec<u8>) -> sstable_engine::Result<()> {
        if range.component != ComponentType::Data || range.len >= READ_AHEAD_BYTES {
            return self.inner.read_into(range, buf);
        }
        if self.cached(range).is_none() {
            let block = ByteRange::new(ComponentType::Data, range.offset, READ_AHEAD_BYTES);
            self.block_start = range.offset;
            if let Err(e) = self.inner.read_into(&block, &mut self.block) {
                self.block.clear();
                return Err(e);
            }
            self.block_at_end = (self.block.len() as u64) < READ_AHEAD_BYTES;
        }
        buf.clear();
        buf.extend_from_slice(self.cached(range).unwrap_or(&[]));
        Ok(())
    }

    /// A range the block holds is lent without a copy.
    fn borrow_range(&self, range: &ByteRange) -> Option<&[u8]> {
        if range.component != ComponentType::Data {
            return None;
        }
        self.cached(range)
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
