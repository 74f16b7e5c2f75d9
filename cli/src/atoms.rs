//! `sstable-inspect dump` for Cassandra 2.0–2.2 SSTables (`jb`, `ka`, `la`): rows in
//! sstabledump's shape (text, `--json`, `--jsonl`), or with `--atoms` the on-disk atoms of each
//! partition as 2.x's sstable2json listed them. `--schema FILE.cql` gives the column types and
//! the table's layout (a 2.x Statistics.db has none); without it values print as text when valid
//! UTF-8, else as hex. Data.db is read chunk by chunk by positioned reads.

use std::io::Write;

use sstable_engine::component::data::DecodeOptions;
use sstable_engine::component::legacy_data::{
    AtomPartitionJson, AtomsBuilder, LegacyDataFileReader, LegacyLayout, LegacyStep, RowGrouper,
};
use sstable_engine::component::ComponentType;
use sstable_engine::dump::PartitionJson;
use sstable_engine::span::hex;

use crate::files::{self, ComponentFiles};
use crate::Outcome;
use sstable_engine::clock::NoClock;
use sstable_engine::range::SyncDriver;

/// The `dump` options this module reads (parsed by `dump`'s clap `Args`).
pub struct Options<'a> {
    pub paths: &'a [&'a str],
    pub json: bool,
    pub jsonl: bool,
    pub atoms: bool,
    pub keys: &'a [String],
    pub limit: Option<u64>,
    pub schema: Option<&'a str>,
}

/// The hook `dump` calls first: handles the call when it asks for `--atoms` or when every
/// SSTable found predates the 3.0 row format; `None` leaves it to the 3.0+ dump.
pub fn run_if_legacy(a: &Options<'_>) -> Result<Option<Outcome>, String> {
    if !a.atoms {
        // Only a look at the file names; a bad call is reported by the 3.0+ dump.
        let Ok(found) = files::find(a.paths) else {
            return Ok(None);
        };
        let all_legacy = !found.grouping.sstables.is_empty()
            && found
                .grouping
                .sstables
                .iter()
                .all(|s| !s.descriptor.version.has_row_format());
        if !all_legacy {
            return Ok(None);
        }
    }
    run(a).map(Some)
}

/// Output state shared by the SSTables of one call.
struct Output<W: Write> {
    out: W,
    first_json: bool,
    json: bool,
}

impl<W: Write> Output<W> {
    fn json_value<T: serde::Serialize>(&mut self, v: &T) {
        if self.json {
            let sep = if self.first_json { "" } else { ",\n" };
            self.first_json = false;
            let _ = write!(
                self.out,
                "{sep}{}",
                serde_json::to_string_pretty(v).unwrap_or_default()
            );
        } else {
            let _ = writeln!(self.out, "{}", serde_json::to_string(v).unwrap_or_default());
        }
    }
}

pub fn run(a: &Options<'_>) -> Result<Outcome, String> {
    if a.json || a.jsonl {
        crate::progress::disable();
    }
    let found = files::find(a.paths)?;
    if found.grouping.sstables.is_empty() {
        return Err("no SSTable found".to_owned());
    }
    // `--schema`, else the schema.cql beside the SSTables (a snapshot's).
    let (loaded, manifest_findings) = crate::schema::load(a.paths, a.schema)?;
    let layout = match loaded {
        Some(l) => LegacyLayout::from_cql(&l.file.table, l.file.compact_storage)
            .map_err(|e| format!("{}: {e}", l.path))?,
        None => {
            eprintln!(
                "note: no --schema: names are split by their shape and values shown as text when \
                 valid UTF-8, else as hex"
            );
            LegacyLayout::inferred()
        }
    };
    // "Now" as dump takes it (`$SSTABLE_INSPECT_NOW_SECONDS` or the system clock).
    let now = crate::now::now_seconds();
    let mut o = Output {
        out: std::io::BufWriter::new(crate::output::stdout()),
        first_json: true,
        json: a.json,
    };
    let mut errors = manifest_findings;
    if a.json {
        let _ = writeln!(o.out, "[");
    }
    for sstable in &found.grouping.sstables {
        let version = sstable.descriptor.version;
        if version.has_row_format() {
            eprintln!(
                "error: {}: version {version} has the 3.0 row format: no atoms (use dump without --atoms)",
                sstable.prefix
            );
            errors = true;
            continue;
        }
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        errors |= crate::output::print_errors(io_errors);
        let wanted: Vec<Vec<u8>> = match &layout.key_type {
            Some(t) => a
                .keys
                .iter()
                .map(|k| sstable_engine::types::value::parse_partition_key(t, k))
                .collect::<Result<_, _>>()
                .map_err(|e| format!("bad --key: {e}"))?,
            None => a
                .keys
                .iter()
                .map(|k| metadata.parse_key(k))
                .collect::<Result<_, _>>()
                .map_err(|e| format!("bad --key: {e}"))?,
        };
        if sstable.file(&ComponentType::Data).is_none() {
            eprintln!("error: {}: no Data.db", sstable.prefix);
            errors = true;
            continue;
        }
        // Data.db chunk by chunk, through the engine's sync driver.
        let mut files = ComponentFiles::new(&found, sstable);
        let mut driver = SyncDriver::new(&mut files);
        let options = DecodeOptions {
            now_seconds: now,
            ..DecodeOptions::default()
        };
        let mut reader = match LegacyDataFileReader::for_sstable(&metadata, options) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {}: {e}", sstable.prefix);
                errors = true;
                continue;
            }
        };
        if !a.json && !a.jsonl {
            let _ = writeln!(
                o.out,
                "SSTable {} ({} {}, pre-3.0 cell layout{})",
                sstable.prefix,
                sstable.descriptor.format,
                version,
                if a.atoms { ", atoms" } else { "" }
            );
        }
        let mut atoms = AtomsBuilder::new(layout.clone());
        let mut rows = RowGrouper::new(layout.clone(), now);
        let mut emitted = 0u64;
        loop {
            if a.limit.is_some_and(|l| emitted >= l) {
                break;
            }
            // The engine's driver reads the chunks the reader names and hands each step over
            // while it borrows the window.
            let step = driver.with_next_step(&mut reader, &NoClock, |step| match step {
                LegacyStep::Item(item) => {
                    let done_atoms = if a.atoms { atoms.push(&item) } else { None };
                    let done_rows = if a.atoms { None } else { rows.push(&item) };
                    Some((done_atoms, done_rows))
                }
                LegacyStep::Finished | LegacyStep::NeedMoreData => None,
            });
            let (done_atoms, done_rows) = match step {
                Ok(Some(done)) => done,
                Ok(None) => break,
                Err(e) => {
                    eprintln!("error: {}: {e}", sstable.prefix);
                    errors = true;
                    break;
                }
            };
            let key_hex = done_atoms
                .as_ref()
                .map(|p| p.partition.key_hex.clone())
                .or_else(|| done_rows.as_ref().map(|p| p.partition.key_hex.clone()));
            let Some(key_hex) = key_hex else { continue };
            if !wanted.is_empty() && !wanted.iter().any(|k| hex(k) == key_hex) {
                continue;
            }
            emitted += 1;
            if let Some(p) = done_atoms {
                if a.json || a.jsonl {
                    o.json_value(&p);
                } else {
                    write_atoms_text(&mut o.out, &p);
                }
            }
            if let Some(p) = done_rows {
                if a.json || a.jsonl {
                    o.json_value(&p);
                } else {
                    write_rows_text(&mut o.out, &p, &layout);
                }
            }
        }
        for f in reader.take_findings() {
            eprintln!("finding: {}: {}", sstable.prefix, f.message);
        }
    }
    if a.json {
        let _ = writeln!(o.out, "\n]");
    }
    let _ = o.out.flush();
    Ok(if errors {
        Outcome::Errors
    } else {
        Outcome::Clean
    })
}

fn write_atoms_text(out: &mut impl Write, p: &AtomPartitionJson) {
    let _ = writeln!(
        out,
        "partition {} (0x{}) at {}",
        p.partition.key, p.partition.key_hex, p.partition.position
    );
    if let Some(d) = &p.partition.deletion_info {
        let _ = writeln!(
            out,
            "  partition deletion: marked {} local {}",
            d.marked_deleted, d.local_delete_time
        );
    }
    for a in &p.atoms {
        let mut line = format!("  {} at {} [{}]", a.r#type, a.position, a.name.join(", "));
        if let Some(end) = &a.end {
            line.push_str(&format!(" .. [{}]", end.join(", ")));
        }
        if let Some(v) = &a.value {
            line.push_str(&format!(" = {v}"));
        }
        line.push_str(&format!(" ts={}", a.tstamp));
        if let Some(ttl) = a.ttl {
            line.push_str(&format!(
                " ttl={ttl} expires {}",
                a.expires_at.as_deref().unwrap_or("?")
            ));
        }
        if let Some(l) = &a.local_deletion_time {
            line.push_str(&format!(" deleted {l}"));
        }
        let _ = writeln!(out, "{line}");
        for f in &a.findings {
            let _ = writeln!(out, "    finding: {f}");
        }
    }
    let c = &p.atom_counts;
    let _ = writeln!(
        out,
        "  atoms: {} cell, {} deleted, {} expiring, {} counter, {} counter_update, {} range_tombstone",
        c.cell, c.deleted, c.expiring, c.counter, c.counter_update, c.range_tombstone
    );
}

fn write_rows_text(out: &mut impl Write, p: &PartitionJson, layout: &LegacyLayout) {
    let key_names: Vec<String> = if layout.partition_key_names.is_empty() {
        (0..p.partition.key.len())
            .map(|i| format!("key{i}"))
            .collect()
    } else {
        layout.partition_key_names.clone()
    };
    let key = key_names
        .iter()
        .zip(&p.partition.key)
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(
        out,
        "partition {key} (0x{}) at {}",
        p.partition.key_hex, p.partition.position
    );
    if let Some(d) = &p.partition.deletion_info {
        let _ = writeln!(
            out,
            "  partition deletion: marked {} local {}",
            d.marked_deleted, d.local_delete_time
        );
    }
    for r in &p.rows {
        let clustering = r
            .clustering
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let name = layout
                    .clustering_names
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| format!("ck{i}"));
                format!("{name}={}", v.as_deref().unwrap_or("null"))
            })
            .collect::<Vec<_>>()
            .join(", ");
        let mut line = format!("  {} at {}", r.r#type, r.position);
        if !clustering.is_empty() {
            line.push_str(&format!(" [{clustering}]"));
        }
        if let Some(l) = &r.liveness_info {
            line.push_str(&format!(" ts={}", l.tstamp));
            if let Some(ttl) = l.ttl {
                line.push_str(&format!(" ttl={ttl}"));
            }
        }
        if let Some(d) = &r.deletion_info {
            line.push_str(&format!(" DELETED at {}", d.marked_deleted));
        }
        for (side, b) in [("start", &r.start), ("end", &r.end)] {
            if let Some(b) = b {
                let values: Vec<String> = b
                    .clustering
                    .iter()
                    .map(|v| v.clone().unwrap_or_else(|| "null".into()))
                    .collect();
                line.push_str(&format!(
                    " {side} {} [{}] deleted {}",
                    b.r#type,
                    values.join(", "),
                    b.deletion_info.marked_deleted
                ));
            }
        }
        let _ = writeln!(out, "{line}");
        for c in &r.cells {
            let path = c
                .path
                .as_ref()
                .map(|p| format!("[{}]", p.join(", ")))
                .unwrap_or_default();
            let value = match (&c.value, &c.deletion_info) {
                (_, Some(d)) => format!(" = <tombstone, deleted {}>", d.local_delete_time),
                (Some(v), None) => format!(" = {v}"),
                (None, None) => String::new(),
            };
            let mut line = format!("    {}{path}{value}", c.name);
            if let Some(ttl) = c.ttl {
                line.push_str(&format!(
                    " (ttl {ttl}, expires {})",
                    c.expires_at.as_deref().unwrap_or("?")
                ));
            }
            if c.expired == Some(true) {
                line.push_str(" EXPIRED");
            }
            if let Some(n) = &c.value_note {
                line.push_str(&format!(" [{n}]"));
            }
            let _ = writeln!(out, "{line}");
        }
        for f in &r.findings {
            let _ = writeln!(out, "    finding: {f}");
        }
    }
    for f in &p.partition.findings {
        let _ = writeln!(out, "  finding: {f}");
    }
}
