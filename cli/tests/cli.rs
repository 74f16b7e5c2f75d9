//! The command line itself: help and version, clap's usage errors (exit 2, with suggestions),
//! keys that begin with `-`, and a closed stdout pipe ending the process quietly.

use crate::common;
use crate::support::run;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every command and the flags its `--help` must name.
const COMMANDS: [(&str, &[&str]); 8] = [
    ("info", &["<PATH>...", "--json", "--quiet"]),
    (
        "dump",
        &[
            "<PATH>...",
            "--json",
            "--jsonl",
            "--key",
            "--limit",
            "--schema",
        ],
    ),
    ("index", &["<PATH>...", "--json", "--blocks"]),
    ("lookup", &["<PATH>", "<KEY>", "--hex", "--json"]),
    ("ls", &["<PATH>...", "--json"]),
    ("verify", &["<PATH>...", "--json", "--decompress"]),
    (
        "generate",
        &[
            "--out",
            "--version",
            "--compression",
            "--partitions",
            "--rows-per-partition",
            "--chunk-kib",
            "--seed",
            "--ttl-fraction",
            "--tombstone-fraction",
            "lz4|snappy|deflate|zstd|none",
        ],
    ),
    ("bench", &["<PATH>...", "--json"]),
];

#[test]
fn help_of_every_command_names_its_flags() {
    for (command, flags) in COMMANDS {
        for args in [
            vec![command, "--help"],
            vec!["help", command],
            vec![command, "-h"],
        ] {
            let (out, err, code) = run(&args);
            assert_eq!(code, 0, "{args:?}: {err}");
            assert!(err.is_empty(), "{args:?}: {err}");
            assert!(
                out.contains(&format!("USAGE: sstable-inspect {command}")),
                "{args:?}: {out}"
            );
            for flag in flags {
                assert!(out.contains(flag), "{args:?} names {flag}: {out}");
            }
        }
    }
    // `generate --help` used to answer "--help needs a value".
    let (out, _, code) = run(&["generate", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("power of two"), "{out}");
}

#[test]
fn top_level_help_lists_every_command_path_semantics_and_exit_codes() {
    let (out, err, code) = run(&["--help"]);
    assert_eq!(code, 0, "{err}");
    for (command, _) in COMMANDS {
        assert!(
            out.lines()
                .any(|l| l.trim_start().starts_with(&format!("{command} "))),
            "{command}: {out}"
        );
    }
    assert!(out.contains("PATH is a component file"), "{out}");
    assert!(out.contains("Exit status: 0"), "{out}");
    assert!(out.contains("2 on bad usage"), "{out}");
    // No command at all: the help, on stderr, as bad usage.
    let (out, err, code) = run(&[]);
    assert_eq!(code, 2);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("Commands:") && err.contains("verify"), "{err}");
}

#[test]
fn version_prints_the_package_version() {
    for flag in ["--version", "-V"] {
        let (out, err, code) = run(&[flag]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            out,
            format!("sstable-inspect {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn wrong_flags_and_commands_exit_2_with_a_suggestion() {
    for (args, suggestion) in [
        (vec!["info", ".", "--jsn"], "--json"),
        (vec!["verify", ".", "--decompres"], "--decompress"),
        (vec!["dump", ".", "--limt", "3"], "--limit"),
        (vec!["verfy", "."], "verify"),
        (vec!["index", ".", "--block"], "--blocks"),
    ] {
        let (out, err, code) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.starts_with("error:"), "{args:?}: {err}");
        assert!(
            err.contains("similar") && err.contains(&format!("'{suggestion}'")),
            "{args:?}: {err}"
        );
        assert!(err.contains("USAGE: sstable-inspect"), "{args:?}: {err}");
    }
    // A value clap checks: exit 2 and the reason.
    let (_, err, code) = run(&["dump", ".", "--limit", "many"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("'many'") && err.contains("--limit"), "{err}");
    let (_, err, code) = run(&["dump", ".", "--json", "--jsonl"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
    // A command's own usage error names the command in its usage line.
    let (out, err, code) = run(&["info", "/nonexistent/dir"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.starts_with("error: /nonexistent/dir: "), "{err}");
    assert!(err.contains("USAGE: sstable-inspect info"), "{err}");
}

/// MANIFEST §6: negative-local-expiration table1, `k int PRIMARY KEY`, holds keys 1 and 2.
fn int_key_table() -> Option<PathBuf> {
    let fx = common::cassandra_fixtures("cli::cli::negative_keys")?;
    Some(fx.join("other/negative-local-expiration-test/table1"))
}

#[test]
fn a_negative_int_key_is_a_key_not_an_option() {
    let Some(dir) = int_key_table() else {
        return;
    };
    let d = s(&dir);
    // `lookup PATH -5`, with the flag before or after, or after `--`.
    for args in [
        vec!["lookup", d, "-5", "--json"],
        vec!["lookup", "--json", d, "-5"],
        vec!["lookup", "--json", "--", d, "-5"],
    ] {
        let (out, err, code) = run(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        let j: Value = serde_json::from_str(&out).expect("lookup JSON");
        assert_eq!(j["key"]["text"], "-5", "{args:?}");
        assert_eq!(j["key"]["hex"], "0xfffffffb", "{args:?}");
        assert_eq!(j["found"], false, "{args:?}");
    }
    // The same path finds key 1, so the miss above is the key's, not the path's.
    let (out, err, code) = run(&["lookup", d, "1", "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: Value = serde_json::from_str(&out).expect("lookup JSON");
    assert_eq!(j["found"], true);

    // `dump --key -1` is accepted and selects nothing; `--key 2` selects partition 2.
    let dump_keys = |key: &str| -> Vec<Value> {
        let (out, err, code) = run(&["dump", d, "--key", key, "--json"]);
        assert_eq!(code, 0, "--key {key}: {err}");
        serde_json::from_str::<Vec<Value>>(&out).expect("dump JSON")
    };
    assert!(dump_keys("-1").is_empty());
    let two = dump_keys("2");
    assert_eq!(two.len(), 1);
    assert_eq!(two[0]["partition"]["key"], serde_json::json!(["2"]));
    // A text key that begins with `-` and is not a number needs `--`: without it, clap says so.
    let (_, err, code) = run(&["lookup", d, "-x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("'-x'"), "{err}");
}

/// Runs the binary with stdout a pipe closed after `keep` bytes; returns (bytes read, stderr,
/// exit code).
fn run_closing_stdout_after(args: &[&str], keep: usize) -> (Vec<u8>, String, Option<i32>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sstable-inspect");
    let mut head = vec![0; keep];
    let mut stdout = child.stdout.take().expect("stdout");
    stdout.read_exact(&mut head).expect("the first bytes");
    drop(stdout);
    let out = child.wait_with_output().expect("wait");
    (
        head,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let Some(fx) = common::cassandra_fixtures("cli::cli::closed_pipe") else {
        return;
    };
    let tree = fx.join("legacy-sstables");
    // The whole listing is longer than a pipe's buffer (64 KiB), so the writer meets the closed
    // pipe.
    let (full, _, _) = run(&["info", s(&tree), "--json"]);
    assert!(full.len() > 3 << 16, "{} bytes", full.len());
    let (head, err, code) = run_closing_stdout_after(&["info", s(&tree), "--json"], 100);
    assert_eq!(head, full.as_bytes()[..100]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.is_empty(), "{err}");

    // dump streams partition by partition through a buffered writer: the same.
    let dir = std::env::temp_dir().join(format!("sstable-inspect-cli-pipe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (_, err, code) = run(&[
        "generate",
        "--out",
        s(&dir),
        "--version",
        "oa",
        "--compression",
        "lz4",
        "--partitions",
        "3000",
        "--rows-per-partition",
        "4",
    ]);
    assert_eq!(code, 0, "{err}");
    let (head, err, code) = run_closing_stdout_after(&["dump", s(&dir), "--jsonl"], 100);
    assert!(head.starts_with(b"{\"partition\""), "{head:?}");
    assert_eq!(code, Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
    let (head, err, code) = run_closing_stdout_after(&["dump", s(&dir)], 100);
    assert!(head.starts_with(b"SSTable "), "{head:?}");
    assert_eq!(code, Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    let Some(fx) = common::cassandra_fixtures("cli::cli::progress") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "nb", "legacy_nb_clust");
    for args in [
        vec!["verify", s(&dir)],
        vec!["verify", s(&dir), "--quiet"],
        vec!["-q", "dump", s(&dir), "--limit", "1"],
    ] {
        let (out, err, code) = run(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!out.is_empty(), "{args:?}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}

/// A Rows.db cut short (a corrupt file's length): `index` reports an error naming Rows.db and
/// exits 1; it used to panic on a length computed from the file ("attempt to subtract with
/// overflow", or "capacity overflow" in release builds).
#[test]
fn a_truncated_rows_db_is_an_error_not_a_panic() {
    let Some(fx) = common::cassandra_fixtures("cli::cli::truncated_rows") else {
        return;
    };
    let src = common::legacy_dir(&fx, "da", "legacy_da_clust");
    let dir = std::env::temp_dir().join(format!("sstable-inspect-cli-rows-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    let rows = dir.join("da-1-bti-Rows.db");
    let len = std::fs::metadata(&rows).unwrap().len();
    for cut in [len - 18, len - 11, len / 2] {
        std::fs::OpenOptions::new()
            .write(true)
            .open(&rows)
            .unwrap()
            .set_len(cut)
            .unwrap();
        for blocks in [false, true] {
            let mut args = vec!["index", s(&dir), "--json"];
            if blocks {
                args.push("--blocks");
            }
            let (out, err, code) = run(&args);
            assert!(!err.contains("panicked"), "{args:?} cut {cut}: {err}");
            assert_eq!(code, 1, "{args:?} cut {cut}: {err}");
            let j: Value = serde_json::from_str(&out).expect("index JSON");
            let errors = j[0]["errors"].as_array().expect("errors").clone();
            assert!(
                errors
                    .iter()
                    .any(|e| e.as_str().unwrap().contains("Rows.db")),
                "{args:?} cut {cut}: {errors:?}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
