//! `sstable-inspect scrub PATH --out DIR`: one SSTable read partition by partition through the
//! checked Data.db reader and written again as a valid `nb` or `oa` SSTable (the engine's
//! [`Scrubber`], driven by its sync driver over positioned reads), like `sstablescrub` and
//! `scylla sstable scrub`. With no corruption it is a rewrite (`sstableupgrade`): any 3.0+
//! version the decoder reads (`ma` … `oa`, `da`, ScyllaDB `mc`/`md`/`me`) becomes `--version`.
//!
//! Modes: `skip` (default) drops the partitions that do not decode, lie in a chunk whose
//! checksum fails, are out of token order or repeat a key; `segregate` writes out-of-order and
//! repeated partitions to further SSTables, each in key order; `validate` only reports; `abort`
//! stops at the first problem and removes what it wrote. Output files are
//! `DIR/<version>-<G>-big-<Component>`, `G` the first generation above the source's that no
//! file in DIR uses (segregated SSTables take the next ones). The input is only read.
//!
//! Exit status: 0 when nothing was wrong, 1 when a partition was dropped, segregated or cut
//! short, or the scrub could not finish, 2 on bad usage.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use sstable_engine::component::ComponentType;
use sstable_engine::compress::Compressor;
use sstable_engine::descriptor::SSTableId;
use sstable_engine::range::SyncDriver;
use sstable_engine::scrub::{ScrubMode, ScrubOptions, ScrubReport, Scrubber};
use sstable_engine::write::ComponentSink;
use sstable_engine::{Error, Format, Version};
use sstable_native::clock::InstantClock;

use crate::files::{self, ComponentFiles};
use crate::progress::{self, Progress};
use crate::Outcome;

/// `sstable-inspect scrub PATH --out DIR [--mode M] [--version nb|oa] [--json]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// One SSTable: a component file or its directory
    #[arg(value_name = "PATH")]
    path: String,
    /// The directory the new SSTable(s) are written to (created if missing)
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// What to do with a problem partition
    #[arg(long, value_name = "skip|segregate|validate|abort", default_value = "skip", value_parser = mode)]
    mode: ScrubMode,
    /// The version written
    #[arg(long = "version", value_name = "nb|oa", default_value = "nb", value_parser = version)]
    sstable_version: Version,
    /// Print the engine's ScrubReport (with the files written) as JSON
    #[arg(long)]
    json: bool,
}

fn mode(value: &str) -> Result<ScrubMode, String> {
    ScrubMode::parse(value).ok_or_else(|| "must be skip, segregate, validate or abort".to_owned())
}

fn version(value: &str) -> Result<Version, String> {
    match value {
        "nb" | "oa" => Version::parse(Format::Big, value).ok_or_else(|| "unknown version".into()),
        _ => Err("must be nb or oa".to_owned()),
    }
}

/// Writes one output SSTable's components as they arrive, remembering the paths.
struct OutputFiles {
    prefix: PathBuf,
    files: BTreeMap<ComponentType, BufWriter<File>>,
}

impl OutputFiles {
    fn path(&self, component: &ComponentType) -> PathBuf {
        let mut name = self.prefix.as_os_str().to_owned();
        name.push(format!("-{}", component.file_suffix()));
        PathBuf::from(name)
    }

    /// Flushes every file; the paths written.
    fn close(mut self) -> Result<Vec<PathBuf>, String> {
        let mut paths = Vec::new();
        for (component, mut f) in std::mem::take(&mut self.files) {
            let path = self.path(&component);
            f.flush().map_err(|e| format!("{}: {e}", path.display()))?;
            paths.push(path);
        }
        Ok(paths)
    }

    /// Removes the files of an output that was not finished.
    fn remove(mut self) {
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

/// The `n`-th free generation in `dir` above `after`.
fn free_generations(dir: &Path, version: &Version, after: u64, n: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(n);
    let mut g = after;
    while out.len() < n {
        g = g.saturating_add(1);
        if !generation_used(dir, version, g) {
            out.push(g);
        }
    }
    out
}

#[derive(serde::Serialize)]
struct JsonReport<'a> {
    sstable: &'a str,
    files: &'a [Vec<String>],
    #[serde(flatten)]
    report: &'a ScrubReport,
}

pub fn run(args: Args) -> Result<Outcome, String> {
    if args.json {
        progress::disable();
    }
    let (found, sstable) = files::find_one(&args.path)?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let (metadata, io_errors) = files::load_metadata(&found, &sstable);
    for e in &io_errors {
        eprintln!("{}: {e}", sstable.prefix);
    }
    let source_generation = match &metadata.descriptor.id {
        SSTableId::Sequence { generation } => *generation,
        SSTableId::Uuid { .. } => 0,
    };
    let version = args.sstable_version;
    let options = ScrubOptions {
        compression: Some(Compressor::Lz4),
        ..ScrubOptions::new(args.mode, version)
    };
    // Generations are taken when an output is opened: the first free ones above the source's.
    let out_dir = args.out.clone();
    let mut taken: Vec<u64> = Vec::new();
    let open = |_output: usize| -> sstable_engine::Result<OutputFiles> {
        let after = taken.last().copied().unwrap_or(source_generation);
        let g = free_generations(&out_dir, &version, after, 1)
            .first()
            .copied()
            .unwrap_or(after.saturating_add(1));
        taken.push(g);
        Ok(OutputFiles {
            prefix: out_dir.join(format!("{version}-{g}-big")),
            files: BTreeMap::new(),
        })
    };
    let mut scrubber =
        Scrubber::new(&metadata, options, open).map_err(|e| format!("{}: {e}", sstable.prefix))?;
    let clock = InstantClock::new();
    let mut input = ComponentFiles::new(&found, &sstable);
    let mut driver = SyncDriver::new(&mut input);
    let progress = Progress::bytes(sstable.prefix.clone(), scrubber.data_len());
    let outcome = driver.run_while(&mut scrubber, &clock, |s| {
        progress.set_position(s.position());
        true
    });
    drop(progress);
    let done = scrubber.finish();
    let mut report = done.report;
    if let Err(e) = outcome {
        if report.error.is_none() {
            report.error = Some(e.to_string());
        }
    }
    let mut written = Vec::new();
    for (_, files, _) in done.outputs {
        let paths = files.close()?;
        written.push(
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>(),
        );
    }
    for (_, files) in done.abandoned {
        files.remove();
    }
    if args.json {
        let json = JsonReport {
            sstable: &sstable.prefix,
            files: &written,
            report: &report,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", human(&sstable.prefix, &report, &written));
    }
    Ok(if report.is_clean() && io_errors.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Errors
    })
}

fn human(sstable: &str, r: &ScrubReport, written: &[Vec<String>]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{sstable}: scrub ({}) as {}: {} partitions read, {} kept, {} rows written, {} problem(s)",
        r.mode.name(),
        r.version,
        r.partitions_read,
        r.partitions_kept,
        r.rows_kept,
        r.problems.len()
    );
    for p in &r.problems {
        let what = if let Some(o) = p.segregated_to {
            format!("segregated to output {o}")
        } else if p.is_cut_short() {
            format!("cut short ({} rows kept)", p.rows_kept)
        } else if r.mode.writes() {
            "dropped".to_owned()
        } else {
            "found".to_owned()
        };
        let end = p.end.map_or("?".to_owned(), |e| e.to_string());
        let _ = writeln!(
            out,
            "  {what}: key {} token {} Data.db {}..{end}: {}: {}",
            p.key.as_deref().unwrap_or("(unknown)"),
            p.token.as_deref().unwrap_or("?"),
            p.start,
            p.kind.name(),
            p.reason
        );
    }
    if let Some((start, end)) = r.unread {
        let _ = writeln!(out, "  not read: Data.db {start}..{end}");
    }
    if let Some(a) = &r.aborted {
        let _ = writeln!(out, "  aborted: {a} (nothing kept)");
    }
    if let Some(e) = &r.error {
        let _ = writeln!(out, "  error: {e}");
    }
    for (o, files) in r.outputs.iter().zip(written) {
        let prefix = files
            .first()
            .and_then(|f| f.rsplit_once("-big-").map(|(p, _)| format!("{p}-big")))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  wrote {prefix}-* ({} partitions, {} rows, {} components)",
            o.partitions,
            o.rows,
            files.len()
        );
    }
    out
}
