//! `sstable-inspect diff` on replicas written by `generate --overlapping`: a replica and its
//! copies agree in every range; a replica missing one SSTable differs in exactly the partitions
//! whose merged read (`read --json`, provenance left out) differs, none more; a corrupt SSTable
//! is an error naming it, the component and the offset.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const NOW: &str = "1700003600";
/// gc_grace so large that nothing is purged: the digest covers what `read` shows.
const NO_PURGE: &str = "2000000000";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .args(args)
        .output()
        .expect("run sstable-inspect")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "sstable-inspect-diff-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn generate(dir: &Path) {
    let out = run(&[
        "generate",
        "-q",
        "--out",
        &dir.to_string_lossy(),
        "--version",
        "oa",
        "--compression",
        "lz4",
        "--partitions",
        "80",
        "--rows-per-partition",
        "6",
        "--overlapping",
        "4",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn copy(from: &Path, to: &Path, skip_prefix: Option<&str>) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if skip_prefix.is_some_and(|p| name.starts_with(p)) {
            continue;
        }
        std::fs::copy(e.path(), to.join(name)).unwrap();
    }
}

fn diff_json(dirs: &[&Path], extra: &[&str]) -> Value {
    let mut args = vec!["diff".to_owned()];
    args.extend(dirs.iter().map(|d| d.to_string_lossy().into_owned()));
    args.extend(["--json", "--now", NOW].map(str::to_owned));
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `v` without provenance, positions and droppable flags.
fn strip(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| {
                    !k.contains("sstable") && k.as_str() != "position" && k.as_str() != "droppable"
                })
                .map(|(k, v)| (k.clone(), strip(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
        other => other.clone(),
    }
}

/// key hex → the merged partition as `read --json` shows it, provenance left out.
fn read_model(dir: &Path) -> BTreeMap<String, Value> {
    let out = run(&["read", &dir.to_string_lossy(), "--json", "--now", NOW]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let key = p["partition"]["key_hex"].as_str().unwrap().to_owned();
            (key, strip(p))
        })
        .collect()
}

#[test]
fn a_replica_and_its_copies_have_no_mismatching_range() {
    let root = temp_dir("copies");
    let (a, b, c) = (root.join("a"), root.join("b"), root.join("c"));
    generate(&a);
    copy(&a, &b, None);
    copy(&a, &c, None);
    for dirs in [vec![&*a, &*b], vec![&*a, &*b, &*c]] {
        let r = diff_json(&dirs, &[]);
        assert_eq!(r["mismatching_ranges"].as_array().unwrap().len(), 0, "{r}");
        assert_eq!(r["partition_diffs"].as_array().unwrap().len(), 0);
        for matrix in ["stream_bytes_by_range", "stream_bytes_by_partition"] {
            let m = r[matrix].as_array().unwrap();
            assert_eq!(m.len(), dirs.len());
            assert!(m.iter().flat_map(|x| x.as_array().unwrap()).all(|b| b == 0));
        }
        let roots = r["roots"].as_array().unwrap();
        assert!(roots.iter().all(|x| *x == roots[0]));
        // Every partition hashed on every replica.
        let n = read_model(&a).len() as u64;
        assert!(r["partitions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p.as_u64() == Some(n)));
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_replica_missing_an_sstable_differs_exactly_where_its_merged_read_does() {
    let root = temp_dir("missing");
    let (a, b, c) = (root.join("a"), root.join("b"), root.join("c"));
    generate(&a);
    copy(&a, &b, Some("oa-4-big-"));
    copy(&a, &c, None);
    let (ma, mb) = (read_model(&a), read_model(&b));
    let keys: BTreeSet<&String> = ma.keys().chain(mb.keys()).collect();
    let expected: BTreeSet<String> = keys
        .into_iter()
        .filter(|k| ma.get(*k) != mb.get(*k))
        .cloned()
        .collect();
    assert!(!expected.is_empty());
    for dirs in [vec![&*a, &*b], vec![&*a, &*b, &*c]] {
        let r = diff_json(&dirs, &["--gc-grace", NO_PURGE, "--depth", "12"]);
        let got: BTreeSet<String> = r["partition_diffs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["key_hex"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(got, expected);
        for p in r["partition_diffs"].as_array().unwrap() {
            // a and c agree; b is the odd one out.
            let d = p["digests"].as_array().unwrap();
            assert_ne!(d[0], d[1]);
            if let Some(c) = d.get(2) {
                assert_eq!(d[0], *c);
            }
        }
        let ranges = r["mismatching_ranges"].as_array().unwrap();
        assert!(!ranges.is_empty() && ranges.len() <= expected.len());
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_corrupt_sstable_is_an_error_naming_sstable_component_and_offset() {
    let root = temp_dir("corrupt");
    let (a, b) = (root.join("a"), root.join("b"));
    generate(&a);
    copy(&a, &b, None);
    let data = b.join("oa-3-big-Data.db");
    let mut bytes = std::fs::read(&data).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0xff;
    std::fs::write(&data, bytes).unwrap();
    let out = run(&[
        "diff",
        &a.to_string_lossy(),
        &b.to_string_lossy(),
        "--now",
        NOW,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("oa-3-big"), "{err}");
    assert!(err.contains("Data.db"), "{err}");
    assert!(err.contains(" at 0x"), "{err}");
    let _ = std::fs::remove_dir_all(&root);
}

/// `generate --overlapping 3 --replicas NODES [--all-divergences]` into `root`: key hex →
/// (divergence kind, node index), from its "divergence Kind on nodeK: partition 0x…" lines.
fn generate_replicas(
    root: &Path,
    version: &str,
    partitions: &str,
    nodes: usize,
    all: bool,
) -> BTreeMap<String, (String, usize)> {
    let n = nodes.to_string();
    let root = root.to_string_lossy();
    let mut args = vec![
        "generate",
        "-q",
        "--out",
        &root,
        "--version",
        version,
        "--compression",
        "lz4",
        "--partitions",
        partitions,
        "--rows-per-partition",
        "6",
        "--overlapping",
        "3",
        "--replicas",
        &n,
    ];
    if all {
        args.push("--all-divergences");
    }
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("divergence "))
        .map(|l| {
            let (head, key) = l.split_once(": partition 0x").unwrap();
            let (kind, node) = head.split_once(" on node").unwrap();
            (
                key.to_owned(),
                (kind.to_owned(), node.parse::<usize>().unwrap() - 1),
            )
        })
        .collect()
}

#[test]
fn generated_replicas_on_two_and_three_nodes_differ_in_exactly_the_injected_partitions() {
    for nodes in [2usize, 3] {
        let root = temp_dir(&format!("replicas{nodes}"));
        // key hex → "nodeK"
        let injected: BTreeMap<String, String> = generate_replicas(&root, "oa", "50", nodes, false)
            .into_iter()
            .map(|(key, (_, node))| (key, format!("node{}", node + 1)))
            .collect();
        assert_eq!(injected.len(), 5);
        let dirs: Vec<PathBuf> = (1..=nodes).map(|i| root.join(format!("node{i}"))).collect();
        let dir_refs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
        let r = diff_json(&dir_refs, &[]);
        let got: BTreeMap<String, String> = r["partition_diffs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let key = p["key_hex"].as_str().unwrap().to_owned();
                let d = p["digests"].as_array().unwrap();
                // The one node whose digest no other node shares (the first of two).
                let odd = (0..d.len())
                    .find(|i| (0..d.len()).all(|j| j == *i || d[j] != d[*i]))
                    .unwrap();
                (key, format!("node{}", odd + 1))
            })
            .collect();
        if nodes == 2 {
            // Two digests: either node is the odd one; the keys must match exactly.
            assert!(got.keys().eq(injected.keys()), "{got:?} {injected:?}");
        } else {
            assert_eq!(got, injected, "{nodes} nodes");
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}

/// The differing pieces of a partition diff: (kind, clustering, column), sorted.
fn pieces(p: &Value) -> Vec<(String, Vec<String>, Option<String>)> {
    let mut out: Vec<_> = p["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["differs"] == true)
        .map(|x| {
            (
                x["kind"].as_str().unwrap().to_owned(),
                x["clustering"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_str().unwrap().to_owned())
                    .collect(),
                x["column"].as_str().map(str::to_owned),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn generated_replicas_differ_in_exactly_the_injected_rows_and_cells() {
    for nodes in [2usize, 3] {
        let root = temp_dir(&format!("pieces{nodes}"));
        let injected = generate_replicas(&root, "nb", "40", nodes, true);
        assert_eq!(injected.len(), 6);
        let dirs: Vec<PathBuf> = (1..=nodes).map(|i| root.join(format!("node{i}"))).collect();
        let dir_refs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
        let r = diff_json(&dir_refs, &[]);
        let diffs = r["partition_diffs"].as_array().unwrap();
        let keys: BTreeSet<&str> = diffs
            .iter()
            .map(|p| p["key_hex"].as_str().unwrap())
            .collect();
        assert!(keys.iter().copied().eq(injected.keys().map(String::as_str)));
        let row = |kind: &str, ck: &str, column: Option<&str>| {
            (
                kind.to_owned(),
                vec![ck.to_owned()],
                column.map(str::to_owned),
            )
        };
        for p in diffs {
            let (kind, node) = &injected[p["key_hex"].as_str().unwrap()];
            let want = match kind.as_str() {
                "MissingPartition" | "TombstonePastGcGrace" => {
                    vec![row("Cell", "0", Some("v")), row("Liveness", "0", None)]
                }
                "OlderCell" | "ExpiredTtl" => vec![row("Cell", "0", Some("v"))],
                "ExtraRow" => vec![row("Cell", "1", Some("v")), row("Liveness", "1", None)],
                "ExtraRangeTombstone" => vec![
                    row("RangeTombstoneBound", "2", None),
                    row("RangeTombstoneBound", "3", None),
                ],
                other => panic!("unknown divergence {other}"),
            };
            assert_eq!(pieces(p), want, "{kind} on {nodes} nodes");
            // Only the divergent node's versions differ from the others'.
            for piece in p["pieces"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|x| x["differs"] == true)
            {
                let v = piece["versions"].as_array().unwrap();
                let others: Vec<usize> = (0..nodes).filter(|i| i != node).collect();
                for i in &others {
                    assert_eq!(v[*i], v[others[0]], "{kind}: {piece}");
                }
                assert_ne!(v[*node], v[others[0]], "{kind}: {piece}");
                if kind == "OlderCell" {
                    assert_eq!(v[*node]["value"], "older");
                    assert_eq!(piece["newest"].as_u64(), Some(others[0] as u64));
                }
                if kind == "ExtraRow" || kind == "ExtraRangeTombstone" {
                    assert_eq!(piece["newest"].as_u64(), Some(*node as u64));
                }
            }
            // Bytes: the divergent node's partition bytes differ (or are 0 where it has none).
            let bytes = p["bytes"].as_array().unwrap();
            let none_here = kind == "MissingPartition" || kind == "TombstonePastGcGrace";
            assert_eq!(bytes[*node] == 0, none_here, "{kind}");
        }
        // The text form: each differing piece on its own line under its partition.
        let mut args = vec!["diff".to_owned()];
        args.extend(dirs.iter().map(|d| d.to_string_lossy().into_owned()));
        args.extend(["--now".to_owned(), NOW.to_owned()]);
        let text = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(text.status.success());
        let text = String::from_utf8_lossy(&text.stdout);
        assert!(text.contains("6 differing partitions"), "{text}");
        assert!(text.contains("Cell (0) v: "), "{text}");
        assert!(text.contains("Live older @"), "{text}");
        assert!(text.contains("Expired v @"), "{text}");
        assert!(text.contains("(purged at gcBefore)"), "{text}");
        assert!(
            text.contains("RangeTombstoneBound (2) InclStartBound"),
            "{text}"
        );
        assert!(text.contains("node1 -> "), "{text}");
        let _ = std::fs::remove_dir_all(&root);
    }
}
