//! Rewrite (upgrade) of a pre-3.0 SSTable (`jb`, `ka`, `la`) as `nb`/`oa` with a schema from a
//! `CREATE TABLE` statement (2.x records none): `sstableupgrade` without a node
//! (`db/compaction/Upgrader.java`, `db/LegacyLayout.java` for how atoms become rows).
//!
//! The atoms become rows by [`crate::write::legacy`] (the conversion the merged read uses too);
//! what it does not convert is an error naming the atom. Any decode error stops the rewrite:
//! corruption of 2.x files is not scrubbed, only reported.

use crate::clock::Clock;
use crate::component::data::{DecodeOptions, PushDecoder};
use crate::component::legacy_data::{LegacyDataDecoder, LegacyDataFileReader, LegacyStep};
use crate::error::{Error, Result};
use crate::metadata::SSTableMetadata;
use crate::range::{ByteRange, RangeReader};
use crate::version::Version;
use crate::write::legacy::LegacyConverter;
use crate::write::{ComponentSink, SSTableWriter, TableSchema, WriteOptions, WriteSummary};

/// The rewrite of one 2.x SSTable into one writer.
pub struct LegacyRewriter<S: ComponentSink> {
    data: LegacyDataFileReader,
    writer: Option<SSTableWriter<S>>,
    converter: LegacyConverter,
    error: Option<Error>,
    done: bool,
    partitions: u64,
}

impl<S: ComponentSink> core::fmt::Debug for LegacyRewriter<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LegacyRewriter")
            .field("partitions", &self.partitions)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

pub use crate::write::legacy::schema_from_cql;

impl<S: ComponentSink> LegacyRewriter<S> {
    /// A rewrite of `metadata`'s 2.x SSTable with `schema` ([`schema_from_cql`]).
    pub fn new(
        metadata: &SSTableMetadata,
        schema: TableSchema,
        version: Version,
        sink: S,
    ) -> Result<Self> {
        let data = LegacyDataFileReader::for_sstable(metadata, DecodeOptions::default())?;
        let mut options = WriteOptions::new(version);
        options.partitioner = metadata.partitioner();
        options.expected_keys = metadata
            .statistics
            .as_ref()
            .and_then(|s| s.estimated_partition_count())
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(1)
            .clamp(1, 1 << 32);
        let writer = SSTableWriter::new(schema.clone(), options, sink)?;
        Ok(LegacyRewriter {
            data,
            writer: Some(writer),
            converter: LegacyConverter::new(schema),
            error: None,
            done: false,
            partitions: 0,
        })
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The error that stopped the rewrite, if any.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// The sink and the summary; an error if the rewrite stopped or wrote nothing.
    pub fn finish(mut self) -> core::result::Result<(S, WriteSummary), (Error, Option<S>)> {
        let writer = self.writer.take();
        if let Some(e) = self.error.take() {
            return Err((e, writer.map(SSTableWriter::into_sink)));
        }
        match writer {
            Some(w) => w.finish().map_err(|e| (e, None)),
            None => Err((Error::invalid("the rewrite wrote nothing", 0), None)),
        }
    }

    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        self.done = true;
    }

    fn advance(&mut self) {
        while !self.done {
            let step = match self.data.next_item() {
                Ok(s) => s,
                Err(e) => return self.fail(e),
            };
            if LegacyDataDecoder::needs_more_data(&step) {
                return;
            }
            let result = match step {
                LegacyStep::Finished => {
                    self.done = true;
                    return;
                }
                LegacyStep::NeedMoreData => return,
                LegacyStep::Item(item) => self.converter.push(&item),
            };
            match result {
                Ok(Some(p)) => {
                    let written = match self.writer.as_mut() {
                        Some(w) => w.append(&p.partition),
                        None => Ok(()),
                    };
                    if let Err(e) = written {
                        return self.fail(e);
                    }
                    self.partitions = self.partitions.saturating_add(1);
                }
                Ok(None) => {}
                Err(e) => return self.fail(e),
            }
        }
    }
}

impl<S: ComponentSink> RangeReader for LegacyRewriter<S> {
    fn next_read(&self) -> Option<ByteRange> {
        if self.done {
            None
        } else {
            RangeReader::next_read(&self.data)
        }
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        if let Err(e) = self.data.supply(range, bytes, clock) {
            self.fail(e.clone());
            return Err(e);
        }
        self.advance();
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn abort(&mut self, _range: &ByteRange, error: &Error, _clock: &dyn Clock) {
        self.fail(error.clone());
    }
}
