//! The index view's pages and an entry's `IndexInfo` blocks, listed by [`crate::worker::index_listing`]
//! over the worker's files.

use std::cell::RefCell;

use sstable_engine::component::ComponentType;

use super::index_listing::{self, Listing};
use super::{cached_metadata, FileSource, Kept, Loaded};
use crate::protocol::PAGE_ROWS;
use crate::protocol::{FileRef, Reply};

/// [`crate::protocol::Request::IndexPage`]: page `page` (with `export`, every partition as
/// JSON); the listing's page starts are kept for the same files.
pub(super) fn page(
    kept: &Kept,
    listing: &RefCell<Option<(String, Listing)>>,
    job: u64,
    files: &[FileRef],
    page: usize,
    export: bool,
) -> Reply {
    let l = match cached_metadata(kept, files) {
        Ok(l) => l,
        Err(message) => return Reply::Failed { job, message },
    };
    let mut kept_listing = listing.borrow_mut();
    if kept_listing
        .as_ref()
        .is_none_or(|(id, _)| *id != l.identity)
    {
        *kept_listing = Some((l.identity.clone(), Listing::default()));
    }
    let mut fresh = Listing::default();
    let listing = match kept_listing.as_mut() {
        Some((_, listing)) => listing,
        None => &mut fresh,
    };
    let source = FileSource {
        files: &l.handles,
        raw_crc32_millis: None,
    };
    Reply::IndexPage {
        job,
        page: Box::new(index_listing::page(
            &l.metadata,
            listing,
            source,
            index_bytes(&l),
            page,
            PAGE_ROWS,
            export,
        )),
    }
}

/// [`crate::protocol::Request::IndexBlocks`]: the blocks of the Index.db entry at `offset`.
pub(super) fn blocks(kept: &Kept, job: u64, files: &[FileRef], offset: u64) -> Reply {
    match cached_metadata(kept, files) {
        Ok(l) => {
            let source = FileSource {
                files: &l.handles,
                raw_crc32_millis: None,
            };
            Reply::IndexBlocks {
                job,
                blocks: index_listing::blocks(&l.metadata, source, index_bytes(&l), offset),
            }
        }
        Err(message) => Reply::Failed { job, message },
    }
}

/// Bytes of the SSTable's partition index (Index.db, or Partitions.db for BTI), if given.
fn index_bytes(l: &Loaded) -> Option<u64> {
    let component = match l.metadata.descriptor.format {
        sstable_engine::Format::Big => ComponentType::PrimaryIndex,
        sstable_engine::Format::Bti => ComponentType::Partitions,
    };
    l.handles
        .iter()
        .find(|(c, _)| *c == component)
        .map(|(_, f)| f.size() as u64)
}
