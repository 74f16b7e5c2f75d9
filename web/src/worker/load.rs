//! Loading: an SSTable's metadata decoded for the UI ([`load`]: its [`SSTableSummary`]), and
//! the embedded sample ([`sample`]), decoded as the worker `index.html` starts early begins.

use std::cell::RefCell;

use sstable_engine::sstable_set::group_files;

use super::{cached_metadata, load_metadata, Kept};
use crate::protocol::summary::SSTableSummary;
use crate::protocol::{FileRef, Reply, MIN_SPLIT_BYTES};

/// [`crate::protocol::Request::Load`]: the SSTable's summary (its metadata kept for later jobs).
pub(super) fn load(kept: &Kept, job: u64, sstable: &str, files: &[FileRef]) -> Reply {
    match cached_metadata(kept, files) {
        Ok(l) => Reply::Loaded {
            job,
            summary: Box::new(SSTableSummary::new(sstable, &l.metadata, MIN_SPLIT_BYTES)),
        },
        Err(message) => Reply::Failed { job, message },
    }
}

/// [`crate::protocol::Request::LoadSample`]: the sample's files and summary.
pub(super) fn sample(job: u64) -> Reply {
    let (files, summary) = SAMPLE
        .with(|s| s.borrow().clone())
        .unwrap_or_else(decode_sample);
    Reply::Sample {
        job,
        files,
        summary,
    }
}

/// Decodes the sample now and keeps it for [`sample`].
pub(super) fn decode_sample_now() {
    let sample = decode_sample();
    SAMPLE.with(|s| *s.borrow_mut() = Some(sample));
}

/// The global `index.html`'s loader sets in the worker it starts early.
pub(super) const DECODE_SAMPLE_AT_START: &str = "sstableDecodeSampleAtStart";

/// The embedded sample's files and metadata, or why it could not be decoded.
type SampleAnswer = (Vec<FileRef>, Result<Box<SSTableSummary>, String>);

thread_local! {
    /// The sample, decoded as the worker started ([`register`]).
    static SAMPLE: RefCell<Option<SampleAnswer>> = const { RefCell::new(None) };
}

/// Decodes the embedded sample ([`super::files::sample_files`]) as [`load`] does.
fn decode_sample() -> SampleAnswer {
    let files = super::files::sample_files();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let prefix = group_files(&paths)
        .sstables
        .first()
        .map(|s| s.prefix.clone())
        .unwrap_or_default();
    let summary = load_metadata(&files)
        .map(|(m, _)| Box::new(SSTableSummary::new(&prefix, &m, MIN_SPLIT_BYTES)));
    (files, summary)
}
