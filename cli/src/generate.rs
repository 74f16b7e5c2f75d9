//! `sstable-inspect generate`: writes a deterministic test SSTable (big format `nb` or `oa`)
//! with the engine's writer (`sstable_engine::write::generate`).
//!
//! Files are `DIR/<version>-1-big-<Component>`; the engine emits bytes per component and this
//! module is its file sink (one buffered file per component). `--chunk-kib` is the compressed
//! chunk length (default 16), or the CRC.db chunk size with `--compression none` (default 64).
//! The same options always give the same bytes. Exit status: 0 written, 1 on an I/O or writer
//! error, 2 on bad usage (nothing written).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use sstable_engine::component::ComponentType;
use sstable_engine::compress::Compressor;
use sstable_engine::write::{self, ComponentSink, GenerateOptions};
use sstable_engine::{Error, Format, Version};

use crate::Outcome;

/// Writes each component to `DIR/<version>-1-big-<Component>` as its bytes arrive.
struct FileSink {
    dir: PathBuf,
    prefix: String,
    files: BTreeMap<ComponentType, BufWriter<File>>,
}

impl FileSink {
    fn path(&self, component: &ComponentType) -> PathBuf {
        self.dir
            .join(format!("{}{}", self.prefix, component.file_suffix()))
    }

    fn close(mut self) -> Result<Vec<PathBuf>, String> {
        let mut paths = Vec::new();
        let files = std::mem::take(&mut self.files);
        for (component, mut f) in files {
            let path = self.path(&component);
            f.flush().map_err(|e| format!("{}: {e}", path.display()))?;
            paths.push(path);
        }
        Ok(paths)
    }
}

impl ComponentSink for FileSink {
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

/// The value after `--flag`, parsed.
fn parse<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("invalid value `{value}` for --{flag}"))
}

fn fraction(flag: &str, value: &str) -> Result<f64, String> {
    let f: f64 = parse(flag, value)?;
    if (0.0..=1.0).contains(&f) {
        Ok(f)
    } else {
        Err(format!("--{flag} must be between 0 and 1, not {value}"))
    }
}

pub fn run(args: &[String]) -> Result<Outcome, String> {
    let mut out: Option<PathBuf> = None;
    let mut version: Option<Version> = None;
    let mut compression: Option<Option<Compressor>> = None;
    let mut partitions: Option<u64> = None;
    let mut rows: Option<u64> = None;
    let mut chunk_kib: Option<u32> = None;
    let mut seed = 0u64;
    let mut ttl_fraction = 0.0;
    let mut tombstone_fraction = 0.0;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let Some(flag) = arg.strip_prefix("--") else {
            return Err(format!("unexpected argument `{arg}`"));
        };
        let value = it.next().ok_or_else(|| format!("--{flag} needs a value"))?;
        match flag {
            "out" => out = Some(PathBuf::from(value)),
            "version" => {
                version = match value.as_str() {
                    "nb" | "oa" => Version::parse(Format::Big, value),
                    _ => return Err(format!("--version must be nb or oa, not `{value}`")),
                }
            }
            "compression" => {
                compression = Some(match value.as_str() {
                    "lz4" => Some(Compressor::Lz4),
                    "snappy" => Some(Compressor::Snappy),
                    "deflate" => Some(Compressor::Deflate),
                    "zstd" => Some(Compressor::Zstd),
                    "none" => None,
                    _ => {
                        return Err(format!(
                        "--compression must be lz4, snappy, deflate, zstd or none, not `{value}`"
                    ))
                    }
                })
            }
            "partitions" => partitions = Some(parse(flag, value)?),
            "rows-per-partition" => rows = Some(parse(flag, value)?),
            "chunk-kib" => {
                let k: u32 = parse(flag, value)?;
                if k == 0 || !k.is_power_of_two() || k > 1 << 20 {
                    return Err(format!("--chunk-kib must be a power of two, not {value}"));
                }
                chunk_kib = Some(k);
            }
            "seed" => seed = parse(flag, value)?,
            "ttl-fraction" => ttl_fraction = fraction(flag, value)?,
            "tombstone-fraction" => tombstone_fraction = fraction(flag, value)?,
            _ => return Err(format!("unknown option `{arg}`")),
        }
    }
    let out = out.ok_or("--out DIR is required")?;
    let version = version.ok_or("--version nb|oa is required")?;
    let compression = compression.ok_or("--compression is required")?;
    let partitions = partitions.ok_or("--partitions N is required")?;
    let rows = rows.ok_or("--rows-per-partition M is required")?;
    if partitions == 0 {
        return Err("--partitions must be at least 1".to_owned());
    }
    if rows > i32::MAX as u64 {
        return Err("--rows-per-partition must be below 2^31".to_owned());
    }

    let mut options = GenerateOptions::new(version, partitions, rows);
    options.compression = compression;
    options.chunk_kib = chunk_kib;
    options.seed = seed;
    options.ttl_fraction = ttl_fraction;
    options.tombstone_fraction = tombstone_fraction;

    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("error: {}: {e}", out.display());
        return Ok(Outcome::Errors);
    }
    let sink = FileSink {
        dir: out.clone(),
        prefix: format!("{version}-1-big-"),
        files: BTreeMap::new(),
    };
    let generated = match write::generate(&options, sink) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Outcome::Errors);
        }
    };
    let summary = generated.summary;
    let paths = match generated.sink.close() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Outcome::Errors);
        }
    };
    println!(
        "wrote {} files to {}: {} partitions, {} rows, {} range tombstone markers; Data.db {} bytes \
         ({} uncompressed, {} chunks), digest {}",
        paths.len(),
        out.display(),
        summary.partitions,
        summary.rows,
        summary.markers,
        summary.stored_length,
        summary.data_length,
        summary.chunk_count,
        summary.digest
    );
    Ok(Outcome::Clean)
}
