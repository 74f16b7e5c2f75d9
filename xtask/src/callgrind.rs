//! `cargo xtask bench`'s instruction counts: each row-decoding pass of `sstable-inspect bench
//! FILE --only PART` (one pass, nothing else) run under `valgrind --tool=callgrind` with the
//! `profiling` build (release code with line tables), its total instructions (callgrind's
//! `summary:` line: the whole process, threads included) divided by the rows the scan counted.
//! Instruction counts do not depend on the machine's load, unlike the wall-clock figures.

use std::path::Path;
use std::process::Command;

use crate::process::announce;
use crate::repo_root;

/// The passes counted: `--only` name, and what the report calls it.
pub const PASSES: [(&str, &str); 3] = [
    ("scan", "decode-only scan"),
    ("partitions", "partitions pass"),
    ("dump", "dump --jsonl"),
];

/// Whether valgrind can be run.
pub fn has_valgrind() -> bool {
    Command::new("valgrind").arg("--version").output().is_ok()
}

/// Prints instructions per row of every pass of `bin` (the profiling build) on `file`.
pub fn instructions_per_row(bin: &Path, file: &Path) -> Result<(), String> {
    announce("instructions per row (valgrind --tool=callgrind, profiling build): scan, partitions, dump --jsonl");
    let mut rows = None;
    for (part, name) in PASSES {
        let out_file = repo_root()
            .join("target")
            .join(format!("callgrind.{part}.out"));
        let out = Command::new("valgrind")
            .arg("--tool=callgrind")
            .arg(format!("--callgrind-out-file={}", out_file.display()))
            .arg(bin)
            .arg("bench")
            .arg(file)
            .args(["--only", part])
            .output()
            .map_err(|e| format!("valgrind: {e}"))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(format!(
                "callgrind --only {part}: {}{}",
                stdout,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        if part == "scan" {
            // "100100 rows in 3.2 s"
            rows = stdout
                .split_whitespace()
                .next()
                .and_then(|n| n.parse::<u64>().ok());
        }
        let total = summary(&std::fs::read_to_string(&out_file).map_err(|e| e.to_string())?)
            .ok_or_else(|| format!("{}: no summary line", out_file.display()))?;
        match rows.filter(|&r| r > 0) {
            Some(r) => println!(
                "  {name:<18} {:>14} instructions = {:>7.0} per row ({r} rows; {})",
                total,
                total as f64 / r as f64,
                out_file.display()
            ),
            None => println!("  {name:<18} {total:>14} instructions"),
        }
    }
    Ok(())
}

/// The `summary:` (or `totals:`) line of a callgrind output file: instructions executed.
fn summary(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_summary_line_is_the_instruction_count() {
        let text = "events: Ir\nfl=(1) x\n0 5\nsummary: 394123456\ntotals: 1\n";
        assert_eq!(super::summary(text), Some(394_123_456));
        assert_eq!(super::summary("events: Ir\n"), None);
    }
}
