//! The borrowed decode path allocates nothing per row or per cell: a counting global allocator
//! (`cap`, stats feature) measures the bytes allocated while the decode-only scan (`ScanCounts`
//! through `SyncDriver::visit_all`) walks two generated tables that differ only in rows per
//! partition (same partitions, same seed). Alone in its test binary, so no other test allocates
//! at the same time.

use cap::Cap;
use sstable_engine::clock::NoClock;
use sstable_engine::component::compression_info;
use sstable_engine::component::data::{
    DataFileReader, DataSchema, DecodeOptions, DecodeStep, ScanCounts,
};
use sstable_engine::component::statistics;
use sstable_engine::compress::Compressor;
use sstable_engine::range::{RangeReader, SliceSource, SyncDriver};
use sstable_engine::write::generate::{self, GenerateOptions};
use sstable_engine::write::MemorySink;
use sstable_engine::{ComponentType, Format, Version};

#[global_allocator]
static ALLOC: Cap<std::alloc::System> = Cap::new(std::alloc::System, usize::MAX);

const PARTITIONS: u64 = 8;

struct Generated {
    sink: MemorySink,
    version: Version,
}

fn generated(rows_per_partition: u64) -> Generated {
    let version = Version::parse(Format::Big, "oa").unwrap();
    let mut options = GenerateOptions::new(version, PARTITIONS, rows_per_partition);
    options.compression = Some(Compressor::Lz4);
    options.seed = 11;
    options.ttl_fraction = 0.3;
    options.tombstone_fraction = 0.2;
    let g = generate::generate(&options, MemorySink::default()).unwrap();
    Generated {
        sink: g.sink,
        version,
    }
}

impl Generated {
    fn file(&self, c: ComponentType) -> &[u8] {
        self.sink.files.get(&c).unwrap()
    }

    fn reader(&self) -> DataFileReader {
        let stats =
            statistics::decode(self.file(ComponentType::Statistics), &self.version).unwrap();
        let schema =
            DataSchema::from_header(stats.header.as_ref().unwrap(), &self.version).unwrap();
        let ci = compression_info::decode(self.file(ComponentType::CompressionInfo), &self.version)
            .unwrap();
        let len = self.file(ComponentType::Data).len() as u64;
        DataFileReader::compressed(schema, DecodeOptions::default(), ci, len)
    }

    /// The counts of a borrowed scan and the bytes allocated during it.
    fn scan(&self) -> (ScanCounts, usize) {
        let mut reader = self.reader();
        let data = self.file(ComponentType::Data);
        let before = ALLOC.total_allocated();
        let files = [(ComponentType::Data, data)];
        let mut counts = ScanCounts::default();
        SyncDriver::new(SliceSource { files: &files })
            .visit_all(&mut reader, &mut counts, &NoClock)
            .unwrap();
        (counts, ALLOC.total_allocated() - before)
    }

    /// Bytes allocated while the owned items are built (a cell is a `Cell` with owned bytes).
    fn owned_items(&self) -> (u64, usize) {
        let mut reader = self.reader();
        let data = self.file(ComponentType::Data);
        let before = ALLOC.total_allocated();
        let mut items = 0;
        loop {
            match reader.next_item().unwrap() {
                DecodeStep::Item(_) => items += 1,
                DecodeStep::Finished => break,
                DecodeStep::NeedMoreData => {
                    let range = reader.next_read().unwrap();
                    let bytes = &data[range.offset as usize..range.end() as usize];
                    reader.supply(&range, bytes, &NoClock).unwrap();
                }
            }
        }
        (items, ALLOC.total_allocated() - before)
    }
}

#[test]
fn a_scan_allocates_per_partition_and_chunk_not_per_row_or_cell() {
    let small = generated(20);
    let large = generated(2000);
    let (s, small_bytes) = small.scan();
    let (l, large_bytes) = large.scan();
    // What was scanned: every row, known by construction, and a cell count that grows with it.
    assert_eq!(s.partitions, PARTITIONS);
    assert_eq!(l.partitions, PARTITIONS);
    assert_eq!(s.rows, PARTITIONS * 20);
    assert_eq!(l.rows, PARTITIONS * 2000);
    assert!(l.cells > 100 * s.cells / 2, "{l:?} vs {s:?}");
    assert!(l.tombstone_cells > 0 && l.expiring_cells > 0, "{l:?}");
    assert_eq!(l.findings, 0);
    // 100× the rows and cells: the scan allocates the same but for range tombstone markers
    // (owned, a few small vectors each) and the window, which holds one chunk.
    eprintln!(
        "scan: {} cells {small_bytes} bytes allocated; {} cells {large_bytes} bytes",
        s.cells, l.cells
    );
    let extra_markers = l.range_tombstone_markers - s.range_tombstone_markers;
    let allowed = 64 * 1024 + 256 * extra_markers as usize;
    assert!(
        large_bytes <= small_bytes + allowed,
        "scan of {} cells allocated {large_bytes} bytes, of {} cells {small_bytes} bytes \
         (allowed {allowed} more for {extra_markers} more markers)",
        l.cells,
        s.cells
    );
    // The measure can fail: the owned path allocates per cell.
    let (items, owned_bytes) = large.owned_items();
    eprintln!("owned items of the large table: {owned_bytes} bytes allocated");
    assert!(items > l.rows);
    assert!(
        owned_bytes > large_bytes + 8 * l.cells as usize,
        "owned {owned_bytes} bytes, borrowed {large_bytes}"
    );
}
