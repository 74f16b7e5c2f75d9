//! The page's embedded sample (`static/sample/`) is exactly what `sstable-inspect generate` writes
//! with the arguments below: it is the output of the project's own writer, not a copied file.

use std::process::Command;

const ARGS: [&str; 14] = [
    "--version",
    "oa",
    "--compression",
    "lz4",
    "--partitions",
    "20",
    "--rows-per-partition",
    "12",
    "--seed",
    "42",
    "--ttl-fraction",
    "0.2",
    "--tombstone-fraction",
    "0.1",
];

#[test]
fn embedded_sample_is_the_writers_output() {
    let out = std::env::temp_dir().join(format!("sample-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .arg("generate")
        .arg("--out")
        .arg(&out)
        .args(ARGS)
        .status()
        .unwrap();
    assert!(status.success());
    let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../static/sample");
    let mut names: Vec<String> = std::fs::read_dir(&committed)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 8, "{names:?}");
    for name in names {
        let want = std::fs::read(committed.join(&name)).unwrap();
        let got = std::fs::read(out.join(&name)).unwrap();
        assert!(want == got, "static/sample/{name} differs from the writer's output: regenerate with `sstable-inspect generate --out static/sample {}`", ARGS.join(" "));
    }
    std::fs::remove_dir_all(&out).unwrap();
}
