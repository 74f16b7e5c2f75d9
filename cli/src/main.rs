//! `sstable-inspect`: the SSTable inspector for terminals and scripts.
//!
//! Arguments are parsed by clap (derive): [`Cli`] holds the global flags and one [`Command`]
//! variant per command; each command module has its own `Args` struct and a `run(Args)`. Adding a
//! command is a module with those two items and one variant here (its doc comment is the line
//! `--help` shows).
//!
//! Everything printed to stdout goes through [`output`]: a closed pipe ends the process quietly.
//!
//! Exit status: 0 when every SSTable was read without error, 1 when any had an error, 2 on bad usage.
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

// `output` first: its `print!`/`println!`/`eprint!`/`eprintln!` shadow std's in every module
// declared after it.
#[macro_use]
mod output;

mod atoms;
mod bench;
mod bench_legacy;
mod bench_merge;
mod bench_scan;
mod diff;
mod dump;
mod export;
mod generate;
mod index;
mod info;
mod jobs;
mod lookup;
mod ls;
mod now;
mod partitions;
mod progress;
mod read;
mod schema;
mod scrub;
#[cfg(feature = "sql")]
mod sql;
mod table;
mod tombstones;
mod verify;
mod zombies;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
// SSTable discovery and file-backed reads, shared with the Python package.
use sstable_native::files;

const AFTER_HELP: &str = "\
PATH is a component file (any of an SSTable's files selects its whole SSTable) or a directory
(searched recursively). A KEY is written as cqlsh prints it (components of a composite key
separated by `:`; text before 3.0) or as `0x…` hex; a key that begins with `-` can be given as is
when it is a number (`lookup PATH -5`), otherwise after `--` (`lookup PATH -- -abc`).

Exit status: 0 when everything decoded (for `verify`: every checksum matched), 1 when anything
failed to read, decode or verify, 2 on bad usage.

A progress bar is drawn on stderr for long work when stderr is a terminal and stdout is not a
pipe; never with --json, --jsonl or --quiet.";

/// Look inside Apache Cassandra / ScyllaDB SSTable files.
#[derive(Parser, Debug)]
#[command(
    name = "sstable-inspect",
    version,
    about = "Look inside Apache Cassandra / ScyllaDB SSTable files",
    long_about = "Look inside Apache Cassandra / ScyllaDB SSTable files: every metadata component, \
                  every partition, row and cell of Data.db, the indexes and the read path of a key, \
                  and every checksum. Versions: Cassandra 1.2 (ic) to 5.0 (oa, da) and ScyllaDB.",
    after_help = AFTER_HELP,
    arg_required_else_help = true,
    subcommand_required = true
)]
pub struct Cli {
    /// No progress bar
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

/// One variant per command; the doc comment is its line in `--help`.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Every metadata component (TOC, Statistics, CompressionInfo, Filter, Summary, Digest, CRC,
    /// Scylla) of every SSTable found
    Info(info::Args),
    /// Every partition, row, cell and tombstone of Data.db (3.0+ row format), values rendered
    /// like cqlsh
    Dump(dump::Args),
    /// Every partition the index lists (Index.db, or Partitions.db + Rows.db) with its token and
    /// Data.db position, and cross-checks against Data.db, the bloom filter and Summary.db
    Index(index::Args),
    /// The read path of one partition key: bloom filter, summary, index, Data.db, each step's
    /// bytes and time (exit 0 found or not, 1 on a read or decode error)
    Lookup(lookup::Args),
    /// The SSTables found in files or directories, with version, format, generation and
    /// components checked against TOC.txt
    Ls(ls::Args),
    /// Every checksum in one pass: compressed chunks, CRC.db, the Data.db digest, Statistics.db
    /// metadata CRCs (exit 1 if any fails)
    Verify(verify::Args),
    /// Write a deterministic test SSTable DIR/<version>-<G>-big-*
    Generate(generate::Args),
    /// Per partition (like sstablepartitions): key, token, position, bytes, rows, cells,
    /// tombstones by kind, TTL cells; filters, top N by a column, summary percentiles
    Partitions(partitions::Args),
    /// Tombstones droppable at a gc grace and a "now", expired TTL cells, when the rest become
    /// droppable or expire; Statistics.db's estimated droppable ratio beside the counted one
    Tombstones(tombstones::Args),
    /// What a read of the whole table returns: its SSTables merged as Cassandra's read path
    /// reconciles them, with the SSTable of every cell, row marker and tombstone (`--explain`:
    /// what beat each loser)
    Read(read::Args),
    /// Resurrection risks: droppable tombstones that shadow data in another SSTable, and
    /// droppable tombstones that shadow nothing
    Zombies(zombies::Args),
    /// Replicas compared offline: each directory's merged table hashed into a Merkle tree as
    /// Cassandra's validation does; mismatching ranges, differing partitions, bytes to stream
    Diff(diff::Args),
    /// The SSTables of one table: time ranges, token overlaps, level, repair, origin, fully
    /// expired SSTables and their blockers (like sstableexpiredblockers)
    Table(table::Args),
    /// Verify throughput next to memcpy, raw crc32fast and raw LZ4 over the same Data.db bytes,
    /// held in memory
    Bench(bench::Args),
    /// Rows (or the partitions report) of 3.0+ SSTables as Parquet, Arrow IPC or CSV files, one
    /// per SSTable
    Export(export::Args),
    /// Rewrite one SSTable as a valid nb/oa SSTable, dropping (or segregating) the partitions
    /// that do not decode, fail a chunk checksum or are out of order; with none, an upgrade
    Scrub(scrub::Args),
    /// SQL over the rows of a table's 3.0+ SSTables (DataFusion; the table is `t`)
    #[cfg(feature = "sql")]
    Sql(sql::Args),
}

/// Exit codes shared by every command.
pub(crate) enum Outcome {
    Clean,
    Errors,
}

fn main() -> ExitCode {
    let mut command = Cli::command();
    let cli = match command
        .try_get_matches_from_mut(std::env::args_os())
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => {
            // clap leaves the usage line out of some errors (an invalid value): add the command's.
            let usage = std::env::args()
                .skip(1)
                .find(|a| !a.starts_with('-'))
                .and_then(|name| command.find_subcommand_mut(&name).map(|c| c.render_usage()))
                .unwrap_or_else(|| command.render_usage());
            return usage_exit(&e, &usage.to_string());
        }
    };
    if cli.quiet {
        progress::disable();
    }
    let name = subcommand_name(&cli.command);
    let result = match cli.command {
        Command::Info(args) => info::run(args),
        Command::Dump(args) => dump::run(args),
        Command::Index(args) => index::run(args),
        Command::Lookup(args) => lookup::run(args),
        Command::Ls(args) => ls::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Partitions(args) => partitions::run(args),
        Command::Tombstones(args) => tombstones::run(args),
        Command::Read(args) => read::run(args),
        Command::Zombies(args) => zombies::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Table(args) => table::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Export(args) => export::run(args),
        Command::Scrub(args) => scrub::run(args),
        #[cfg(feature = "sql")]
        Command::Sql(args) => sql::run(args),
    };
    match result {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Errors) => ExitCode::from(1),
        // A command's own usage error (a PATH that does not exist, a KEY that does not parse):
        // reported like clap's, with the command's usage line.
        Err(message) => {
            let error = match command.find_subcommand_mut(name) {
                Some(sub) => sub.error(clap::error::ErrorKind::ValueValidation, message),
                None => command.error(clap::error::ErrorKind::ValueValidation, message),
            };
            usage_exit(&error, "")
        }
    }
}

/// The subcommand's name as clap knows it (for its usage line).
fn subcommand_name(command: &Command) -> &'static str {
    match command {
        Command::Info(_) => "info",
        Command::Dump(_) => "dump",
        Command::Index(_) => "index",
        Command::Lookup(_) => "lookup",
        Command::Ls(_) => "ls",
        Command::Verify(_) => "verify",
        Command::Generate(_) => "generate",
        Command::Bench(_) => "bench",
        Command::Export(_) => "export",
        Command::Partitions(_) => "partitions",
        Command::Tombstones(_) => "tombstones",
        Command::Read(_) => "read",
        Command::Zombies(_) => "zombies",
        Command::Diff(_) => "diff",
        Command::Table(_) => "table",
        Command::Scrub(_) => "scrub",
        #[cfg(feature = "sql")]
        Command::Sql(_) => "sql",
    }
}

/// Prints clap's help, version or error (help and version to stdout, errors to stderr) and
/// returns its exit code: 0 for help and version, 2 for bad usage. An error without a usage line
/// gets `usage`. The usage heading is written `USAGE:`, as this CLI always wrote it.
fn usage_exit(error: &clap::Error, usage: &str) -> ExitCode {
    let to_stdout = !error.use_stderr();
    let styled = error.render();
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && if to_stdout {
            std::io::stdout().is_terminal()
        } else {
            std::io::stderr().is_terminal()
        };
    let text = if color {
        styled.ansi().to_string()
    } else {
        styled.to_string()
    };
    let mut text = text.replacen("Usage:", "USAGE:", 1);
    if !to_stdout && !text.contains("USAGE:") {
        let more = text.rfind("\n\nFor more information").unwrap_or(text.len());
        text.insert_str(
            more,
            &format!("\n\n{}", usage.replacen("Usage:", "USAGE:", 1)),
        );
    }
    if to_stdout {
        print!("{text}");
    } else {
        eprint!("{text}");
    }
    ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
}
