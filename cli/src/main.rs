//! `sstable-inspect`: the SSTable inspector for terminals and scripts.
//!
//! Exit status: 0 when every SSTable was read without error, 1 when any had an error, 2 on bad usage.

mod bench;
mod dump;
mod files;
mod generate;
mod index;
mod info;
mod lookup;
mod ls;
mod verify;

use std::process::ExitCode;

const USAGE: &str = "\
sstable-inspect — look inside Apache Cassandra / ScyllaDB SSTable files

USAGE:
    sstable-inspect info PATH... [--json]  every metadata component (TOC, Statistics, CompressionInfo,
                                           Filter, Summary, Digest, CRC, Scylla) of every SSTable found
    sstable-inspect dump PATH [--json | --jsonl] [--key K]... [--limit N] [--schema FILE.cql]
                                           every partition, row, cell and tombstone of Data.db
                                           (3.0+ row format), values rendered like cqlsh
    sstable-inspect index PATH... [--json] [--blocks]
                                           every partition the index lists (Index.db, or Partitions.db
                                           + Rows.db): key, token, Data.db position, row-index blocks
                                           (--blocks: each block), and cross-checks against Data.db,
                                           the bloom filter and Summary.db (findings do not fail)
    sstable-inspect lookup PATH KEY [--hex] [--json]
                                           the read path of one partition key: bloom filter, summary,
                                           index, Data.db, each step's bytes and time. KEY as cqlsh
                                           prints it (text before 3.0), or hex (--hex or 0x…).
                                           Exit 0 found or not, 1 on a read/decode error
    sstable-inspect ls PATH... [--json]    list the SSTables found in files or directories (recursive),
                                           with version, format, generation and components vs TOC.txt
    sstable-inspect verify PATH... [--json] [--decompress]
                                           every checksum in one pass: compressed chunks, CRC.db,
                                           the Data.db digest, Statistics.db metadata CRCs; with
                                           --decompress also every chunk. Exit 1 if any fails
    sstable-inspect generate --out DIR --version nb|oa --compression lz4|snappy|deflate|zstd|none
                    --partitions N --rows-per-partition M [--chunk-kib K] [--seed S]
                    [--ttl-fraction F] [--tombstone-fraction F]
                                           write a deterministic test SSTable DIR/<version>-1-big-*
    sstable-inspect bench PATH [--json]    verify throughput next to memcpy, raw crc32fast and raw LZ4
                                           over the same Data.db bytes, held in memory
    sstable-inspect --help | --version

PATH is a component file (any of an SSTable's files selects it) or a directory.
";

/// Exit codes shared by every command.
pub(crate) enum Outcome {
    Clean,
    Errors,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match command.as_str() {
        "ls" => ls::run(rest),
        "info" => info::run(rest),
        "index" => index::run(rest),
        "lookup" => lookup::run(rest),
        "dump" => dump::run(rest),
        "bench" => bench::run(rest),
        "generate" => generate::run(rest),
        "verify" => verify::run(rest),
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        "-V" | "--version" => {
            println!("sstable-inspect {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        other => Err(format!("unknown command `{other}`")),
    };
    match result {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Errors) => ExitCode::from(1),
        Err(usage_error) => {
            eprintln!("error: {usage_error}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Splits arguments into paths and `--flags`; unknown flags are usage errors.
pub(crate) fn parse_flags<'a>(
    args: &'a [String],
    known: &[&str],
) -> Result<(Vec<&'a str>, Vec<&'a str>), String> {
    let mut paths = Vec::new();
    let mut flags = Vec::new();
    for a in args {
        if let Some(flag) = a.strip_prefix("--") {
            if !known.contains(&flag) {
                return Err(format!("unknown option `{a}`"));
            }
            flags.push(flag);
        } else {
            paths.push(a.as_str());
        }
    }
    if paths.is_empty() {
        return Err("no PATH given".to_owned());
    }
    Ok((paths, flags))
}
