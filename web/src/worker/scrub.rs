//! Salvage ([`crate::protocol::Request::Salvage`]): the engine's scrub
//! (`sstable_engine::scrub::Scrubber`, what `sstable-inspect scrub` runs) over the worker's
//! `FileReaderSync` reads, in slices with progress and cancel. Each output SSTable's components
//! go to a [`BlobParts`] sink: bytes gather in one buffer per component and are copied out of
//! the WebAssembly memory as a JavaScript part every [`PART_BYTES`]; a finished component is a
//! `File` made of its parts. So the worker's own memory holds one partition (the scrub's), the
//! writer's bounded buffers and at most one part per component; the output lives in the
//! browser's Blob storage. The files are also offered as one uncompressed tar ([`tar_of`]),
//! itself a `File` of the same parts and 512-byte headers.

use std::collections::BTreeMap;

use js_sys::{Array, Uint8Array};
use sstable_engine::component::ComponentType;
use sstable_engine::descriptor::SSTableId;
use sstable_engine::range::{RangeReader, SyncDriver};
use sstable_engine::scrub::{ScrubMode, ScrubOptions, ScrubReport, Scrubber};
use sstable_engine::version::{Format, Version};
use sstable_engine::write::ComponentSink;
use web_sys::File;

use super::{FileSource, Loaded, ReadAhead, SLICE_MILLIS};
use crate::loader;
use crate::protocol::salvage::{Salvage, SalvageOutput, SalvageProblem};
use crate::protocol::{FileRef, CANCELLED};

/// A component's bytes leave the WebAssembly memory in parts of about this size.
const PART_BYTES: usize = 1 << 20;

/// One output SSTable's components, each a list of JavaScript parts and the bytes not yet
/// copied out.
struct BlobParts {
    prefix: String,
    components: BTreeMap<ComponentType, (Array, Vec<u8>)>,
}

impl BlobParts {
    fn new(prefix: String) -> BlobParts {
        BlobParts {
            prefix,
            components: BTreeMap::new(),
        }
    }

    /// Every component as a `File` named `<prefix>-<Component>`.
    fn finish(self) -> Result<Vec<FileRef>, String> {
        let mut files = Vec::new();
        for (component, (parts, rest)) in self.components {
            if !rest.is_empty() {
                parts.push(&Uint8Array::from(rest.as_slice()));
            }
            let path = format!("{}-{}", self.prefix, component.file_suffix());
            let file = File::new_with_u8_array_sequence(&parts, &path).map_err(loader::js_error)?;
            files.push(FileRef { path, file });
        }
        Ok(files)
    }
}

impl ComponentSink for BlobParts {
    fn write(&mut self, component: &ComponentType, bytes: &[u8]) -> sstable_engine::Result<()> {
        let (parts, buffer) = self
            .components
            .entry(component.clone())
            .or_insert_with(|| (Array::new(), Vec::new()));
        buffer.extend_from_slice(bytes);
        if buffer.len() >= PART_BYTES {
            parts.push(&Uint8Array::from(buffer.as_slice()));
            buffer.clear();
        }
        Ok(())
    }
}

/// The scrub mode and output version the page asks for (`skip`/`segregate`, `nb`/`oa`).
fn options(mode: &str, version: &str) -> Result<ScrubOptions, String> {
    let mode = ScrubMode::parse(mode).ok_or_else(|| format!("unknown scrub mode {mode}"))?;
    let version = match version {
        "nb" | "oa" => Version::parse(Format::Big, version),
        _ => None,
    }
    .ok_or_else(|| format!("salvage writes nb or oa, not {version}"))?;
    Ok(ScrubOptions::new(mode, version))
}

/// Scrubs the SSTable `loaded` into new SSTables of `version` (generations above its own).
pub(super) async fn salvage(
    loaded: &Loaded,
    mode: &str,
    version: &str,
    progress: &dyn Fn(u64, u64),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<Salvage, String> {
    let options = options(mode, version)?;
    let metadata = &loaded.metadata;
    if !metadata.descriptor.version.has_row_format() {
        return Err(format!(
            "a {} SSTable records no schema: salvage it with `sstable-inspect scrub --schema FILE.cql`",
            metadata.descriptor.version
        ));
    }
    let source_generation = match &metadata.descriptor.id {
        SSTableId::Sequence { generation } => *generation,
        SSTableId::Uuid { .. } => 0,
    };
    let written = options.version;
    let open = |output: usize| -> sstable_engine::Result<BlobParts> {
        let g = source_generation
            .saturating_add(1)
            .saturating_add(output as u64);
        Ok(BlobParts::new(format!("{written}-{g}-big")))
    };
    let mut scrubber = Scrubber::new(metadata, options, open).map_err(|e| e.to_string())?;
    let total = scrubber.data_len();
    let clock = loader::PerformanceClock;
    let mut driver = SyncDriver::new(ReadAhead::new(FileSource {
        files: &loaded.handles,
        raw_crc32_millis: None,
    }));
    let mut stopped = None;
    loop {
        let slice_start = loader::now_millis();
        let outcome = driver.run_while(&mut scrubber, &clock, |_| {
            loader::now_millis() - slice_start < SLICE_MILLIS
        });
        if let Err(e) = outcome {
            stopped = Some(e.to_string());
            break;
        }
        if scrubber.next_read().is_none() {
            break;
        }
        progress(scrubber.position(), total);
        loader::yield_to_event_loop().await;
        if is_cancelled() {
            return Err(CANCELLED.to_owned());
        }
    }
    progress(total, total);
    let done = scrubber.finish();
    let mut report = done.report;
    if let (Some(e), None) = (stopped, &report.error) {
        report.error = Some(e);
    }
    let mut outputs = Vec::new();
    for (_, sink, summary) in done.outputs {
        outputs.push(SalvageOutput {
            prefix: sink.prefix.clone(),
            partitions: summary.partitions,
            rows: summary.rows,
            files: sink.finish()?,
        });
    }
    answer(report, outputs)
}

/// The page's form of `report`, with the files written.
fn answer(report: ScrubReport, outputs: Vec<SalvageOutput>) -> Result<Salvage, String> {
    let report_json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    let archive = if outputs.is_empty() {
        None
    } else {
        let name = outputs.first().map_or("salvaged".to_owned(), |o| {
            format!("{}-salvaged.tar", o.prefix)
        });
        Some(FileRef {
            file: tar_of(&outputs, &name)?,
            path: name,
        })
    };
    let writes = report.mode.writes();
    Ok(Salvage {
        clean: report.is_clean(),
        partitions_read: report.partitions_read,
        partitions_kept: report.partitions_kept,
        rows_kept: report.rows_kept,
        notes: report.notes(),
        problems: report
            .problems
            .iter()
            .map(|p| SalvageProblem {
                key: p.key.clone().unwrap_or_else(|| "(unknown)".to_owned()),
                token: p.token.clone().unwrap_or_else(|| "?".to_owned()),
                kind: p.kind.name().to_owned(),
                reason: p.reason.clone(),
                start: p.start,
                end: p.end,
                rows_kept: p.rows_kept,
                segregated_to: p.segregated_to.map(|o| o as u64),
                outcome: p.outcome(writes),
            })
            .collect(),
        outputs,
        archive,
        report_json,
        wasm_memory_bytes: loader::wasm_memory_bytes(),
    })
}

/// The largest file a ustar header's 11 octal digits can size (8 GiB).
const TAR_MAX_BYTES: u64 = 1 << 33;

/// A ustar header block for a regular file `name` (at most 100 bytes) of `size` bytes.
/// Src: POSIX.1-1988 `ustar` (the `pax` utility's format).
fn tar_header(name: &str, size: u64) -> [u8; 512] {
    let mut h = [0u8; 512];
    let mut put = |at: usize, field: &[u8]| {
        if let Some(dst) = h.get_mut(at..at.saturating_add(field.len())) {
            dst.copy_from_slice(field);
        }
    };
    put(0, name.as_bytes().get(..100).unwrap_or(name.as_bytes()));
    put(100, b"0000644\0");
    put(108, b"0000000\0");
    put(116, b"0000000\0");
    put(124, format!("{size:011o}\0").as_bytes());
    put(136, b"00000000000\0");
    put(148, b"        ");
    put(156, b"0");
    put(257, b"ustar\0");
    put(263, b"00");
    let sum: u32 = h.iter().map(|b| u32::from(*b)).sum();
    if let Some(dst) = h.get_mut(148..156) {
        dst.copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    }
    h
}

/// Every output's files in one uncompressed tar named `name`: each file as a header, its
/// parts and zero padding to 512 bytes, then two zero blocks. Nothing is copied: the tar is a
/// `File` of the files' own Blobs.
fn tar_of(outputs: &[SalvageOutput], name: &str) -> Result<File, String> {
    let parts = Array::new();
    for f in outputs.iter().flat_map(|o| &o.files) {
        let size = f.file.size() as u64;
        if size >= TAR_MAX_BYTES {
            return Err(format!(
                "{} is too large for a tar: download each file",
                f.path
            ));
        }
        parts.push(&Uint8Array::from(&tar_header(&f.path, size)[..]));
        parts.push(&f.file);
        let pad = (512 - size % 512) % 512;
        if pad > 0 {
            parts.push(&Uint8Array::new_with_length(pad as u32));
        }
    }
    parts.push(&Uint8Array::new_with_length(1024));
    File::new_with_u8_array_sequence(&parts, name).map_err(loader::js_error)
}

#[cfg(test)]
mod tests {
    use super::tar_header;

    #[test]
    fn a_tar_header_checksums_its_own_bytes() {
        let h = tar_header("nb-2-big-Data.db", 1234);
        assert_eq!(&h[..16], b"nb-2-big-Data.db");
        assert_eq!(&h[124..136], b"00000002322\0");
        assert_eq!(&h[257..263], b"ustar\0");
        let stored = std::str::from_utf8(&h[148..154]).unwrap();
        let mut blank = h;
        blank[148..156].copy_from_slice(b"        ");
        let sum: u32 = blank.iter().map(|b| u32::from(*b)).sum();
        assert_eq!(u32::from_str_radix(stored, 8).unwrap(), sum);
    }
}
