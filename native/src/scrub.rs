//! Scrub into a directory: the engine's [`Scrubber`] driven over positioned reads, each output
//! SSTable's components written to `DIR/<version>-<G>-big-<Component>` as they arrive, `G` the
//! first generation above the source's that no file in DIR uses (segregated outputs take the
//! next ones). Outputs the engine abandons (abort, a write error) are removed. The CLI's
//! `scrub` and the Python package's `scrub` both run this.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use sstable_engine::clock::Clock;
use sstable_engine::component::legacy_data::says_compact_storage;
use sstable_engine::component::ComponentType;
use sstable_engine::cql_schema::parse_create_table;
use sstable_engine::descriptor::SSTableId;
use sstable_engine::range::SyncDriver;
use sstable_engine::scrub::{
    schema_from_cql, LegacyRewriter, OutputReport, ScrubOptions, ScrubReport, Scrubber,
};
use sstable_engine::sstable_set::SSTableFiles;
use sstable_engine::write::ComponentSink;
use sstable_engine::{Error, Version};

use crate::files::{self, ComponentFiles, FoundFiles};

/// What [`scrub_to_dir`] did.
#[derive(Debug)]
pub struct ScrubbedFiles {
    pub report: ScrubReport,
    /// The files of each output written, by output.
    pub files: Vec<Vec<PathBuf>>,
    /// Read errors of the metadata components.
    pub io_errors: Vec<String>,
}

/// Writes one output SSTable's components to `<prefix>-<Component>` as they arrive.
pub struct OutputFiles {
    prefix: PathBuf,
    files: BTreeMap<ComponentType, BufWriter<File>>,
}

impl OutputFiles {
    /// Files `<prefix>-Data.db`, … (`prefix` e.g. `DIR/nb-2-big`).
    pub fn new(prefix: PathBuf) -> OutputFiles {
        OutputFiles {
            prefix,
            files: BTreeMap::new(),
        }
    }

    /// The prefix the files are named by (`DIR/nb-2-big`).
    pub fn prefix(&self) -> &Path {
        &self.prefix
    }

    pub fn path(&self, component: &ComponentType) -> PathBuf {
        let mut name = self.prefix.as_os_str().to_owned();
        name.push(format!("-{}", component.file_suffix()));
        PathBuf::from(name)
    }

    /// Flushes every file; the paths written.
    pub fn close(mut self) -> Result<Vec<PathBuf>, String> {
        let mut paths = Vec::new();
        for (component, mut f) in std::mem::take(&mut self.files) {
            let path = self.path(&component);
            f.flush().map_err(|e| format!("{}: {e}", path.display()))?;
            paths.push(path);
        }
        Ok(paths)
    }

    /// Removes the files of an output that was not finished.
    pub fn remove(mut self) {
        for (component, f) in std::mem::take(&mut self.files) {
            drop(f);
            let _ = std::fs::remove_file(self.path(&component));
        }
    }
}

impl ComponentSink for OutputFiles {
    fn write(&mut self, component: &ComponentType, bytes: &[u8]) -> sstable_engine::Result<()> {
        let path = self.path(component);
        let io = |e: std::io::Error| {
            Error::invalid(format!("{}: {e}", path.display()), 0).in_component(component.clone())
        };
        if !self.files.contains_key(component) {
            let f = File::create(&path).map_err(io)?;
            self.files
                .insert(component.clone(), BufWriter::with_capacity(1 << 20, f));
        }
        match self.files.get_mut(component) {
            Some(f) => f.write_all(bytes).map_err(io),
            None => Ok(()),
        }
    }
}

/// Whether any file in `dir` starts with `<version>-<generation>-`.
fn generation_used(dir: &Path, version: &Version, generation: u64) -> bool {
    let start = format!("{version}-{generation}-");
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(&start))
    })
}

/// A 2.x SSTable rewritten with `statement`'s schema: the report and the files written.
fn rewrite_legacy(
    found: &FoundFiles,
    sstable: &SSTableFiles,
    metadata: &sstable_engine::info::SSTableMetadata,
    statement: &str,
    options: &ScrubOptions,
    output: OutputFiles,
    clock: &dyn Clock,
) -> Result<(ScrubReport, Option<Vec<PathBuf>>), String> {
    let table = parse_create_table(statement).map_err(|e| format!("--schema: {e}"))?;
    let schema = schema_from_cql(&table, says_compact_storage(statement))
        .map_err(|e| format!("--schema: {e}"))?;
    let mut rewriter = LegacyRewriter::new(metadata, schema, options.version, output)
        .map_err(|e| format!("{}: {e}", sstable.prefix))?;
    let mut input = ComponentFiles::new(found, sstable);
    let outcome = SyncDriver::new(&mut input).run(&mut rewriter, clock);
    let mut report = ScrubReport::new(options.mode, options.version.as_str());
    // The 2.x reader checks each compressed chunk's checksum; an uncompressed 2.x Data.db is
    // read unchecked (its CRC.db is not used here).
    report.data_checksums_checked = metadata.compression.is_some();
    match rewriter.finish() {
        Ok((files, summary)) => {
            report.partitions_read = summary.partitions;
            report.partitions_kept = summary.partitions;
            report.rows_kept = summary.rows.saturating_add(summary.markers);
            report.outputs.push(OutputReport::new(0, &summary));
            Ok((report, Some(files.close()?)))
        }
        Err((e, files)) => {
            if let Some(f) = files {
                f.remove();
            }
            let e = outcome.err().unwrap_or(e);
            report.error = Some(format!("the rewrite stopped: {e}"));
            Ok((report, None))
        }
    }
}

/// The first generation above `after` that no file in `dir` uses.
fn next_free_generation(dir: &Path, version: &Version, after: u64) -> u64 {
    let mut g = after.saturating_add(1);
    while generation_used(dir, version, g) && g < u64::MAX {
        g = g.saturating_add(1);
    }
    g
}

/// Scrubs `sstable` into `dir` (created if missing); `progress` sees the Data.db position. A
/// pre-3.0 SSTable is rewritten (not scrubbed) with the schema of `create_table` (a `CREATE
/// TABLE` statement), which only 2.x needs.
pub fn scrub_to_dir(
    found: &FoundFiles,
    sstable: &SSTableFiles,
    dir: &Path,
    options: ScrubOptions,
    create_table: Option<&str>,
    clock: &dyn Clock,
    mut progress: impl FnMut(u64, u64),
) -> Result<ScrubbedFiles, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (metadata, io_errors) = files::load_metadata(found, sstable);
    let source_generation = match &metadata.descriptor.id {
        SSTableId::Sequence { generation } => *generation,
        SSTableId::Uuid { .. } => 0,
    };
    let version = options.version;
    if !metadata.descriptor.version.has_row_format() {
        let Some(statement) = create_table else {
            return Err(format!(
                "{}: a {} SSTable records no schema: give its CREATE TABLE (--schema FILE.cql)",
                sstable.prefix, metadata.descriptor.version
            ));
        };
        let g = next_free_generation(dir, &version, source_generation);
        let output = OutputFiles::new(dir.join(format!("{version}-{g}-big")));
        let report = rewrite_legacy(
            found, sstable, &metadata, statement, &options, output, clock,
        )?;
        return Ok(ScrubbedFiles {
            files: report.1.into_iter().collect(),
            report: report.0,
            io_errors,
        });
    }
    let mut taken: Vec<u64> = Vec::new();
    let open = |_output: usize| -> sstable_engine::Result<OutputFiles> {
        let after = taken.last().copied().unwrap_or(source_generation);
        let g = next_free_generation(dir, &version, after);
        taken.push(g);
        Ok(OutputFiles::new(dir.join(format!("{version}-{g}-big"))))
    };
    let mut scrubber =
        Scrubber::new(&metadata, options, open).map_err(|e| format!("{}: {e}", sstable.prefix))?;
    let mut input = ComponentFiles::new(found, sstable);
    let mut driver = SyncDriver::new(&mut input);
    let total = scrubber.data_len();
    let outcome = driver.run_while(&mut scrubber, clock, |s| {
        progress(s.position(), total);
        true
    });
    let done = scrubber.finish();
    let mut report = done.report;
    if let Err(e) = outcome {
        if report.error.is_none() {
            report.error = Some(e.to_string());
        }
    }
    let mut written = Vec::new();
    for (_, files, _) in done.outputs {
        written.push(files.close()?);
    }
    for (_, files) in done.abandoned {
        files.remove();
    }
    Ok(ScrubbedFiles {
        report,
        files: written,
        io_errors,
    })
}
