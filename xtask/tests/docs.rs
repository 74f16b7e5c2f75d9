//! The documentation stays as issue #30 left it: README.md is at most 250 lines; every relative
//! link in README.md, ARCHITECTURE.md and docs/*.md resolves to a file or directory of the
//! repository (and a `#fragment` into a Markdown file to one of its headings); every figure in
//! the README's figures table appears in docs/performance.md, where it is measured; and
//! ARCHITECTURE.md's diagram matches the code: each crate's `sstable-*` dependencies are the drawn
//! ones ([`CRATE_DEPENDENCIES`]) and no engine module imports from a layer above its own
//! ([`ENGINE_LAYERS`]).
//!
//! A *figure* is a number followed by a unit, as [`figures`] reads it: digits with `,` and `.`
//! (`13,075`, `0.83`), optionally a range or list of such (`762–825`, `0.12 / 0.08`), then an
//! optional space and one of [`UNITS`] (`ms`, `MB/s`, `×`, `%`, …). The figures table is the
//! first table after the README heading `## Figures`; its figures are those of its `measured`
//! column, every row of which must hold at least one.

use std::path::{Path, PathBuf};

const README_MAX_LINES: usize = 250;

/// Longest first, so `MB/s` is read before `MB` and `ms` before `s`.
const UNITS: &[&str] = &[
    "instructions/row",
    "SSTables/s",
    "M rows/s",
    "rows/s",
    "GB/s",
    "MB/s",
    "GiB",
    "MiB",
    "KiB",
    "GB",
    "MB",
    "KB",
    "ms",
    "µs",
    "s",
    "×",
    "%",
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ has a parent")
        .to_path_buf()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md, ARCHITECTURE.md and every docs/*.md.
fn documents() -> Vec<PathBuf> {
    let root = repo_root();
    let mut docs = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// The text outside fenced code blocks and inline code spans (links there are not links).
fn prose(markdown: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        if fenced {
            out.push('\n');
            continue;
        }
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// The targets of inline links and images: `[text](target)`, `![alt](target "title")`.
fn link_targets(markdown: &str) -> Vec<String> {
    let text = prose(markdown);
    let mut targets = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let end = after
            .find(|c: char| c == ')' || c.is_whitespace())
            .unwrap_or(after.len());
        targets.push(after[..end].to_owned());
        rest = &after[end..];
    }
    targets
}

/// GitHub's anchor of a heading: lower case, spaces to `-`, only letters, digits, `-`, `_` kept.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(markdown: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// Each unresolved relative link of `doc`, in words.
fn broken_links(doc: &Path) -> Vec<String> {
    let root = repo_root().canonicalize().expect("repo root");
    let dir = doc.parent().expect("a document has a directory");
    let mut broken = Vec::new();
    for target in link_targets(&read(doc)) {
        if target.is_empty()
            || target.contains("://")
            || target.starts_with("mailto:")
            || target.starts_with('#')
        {
            continue;
        }
        let (path, fragment) = match target.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (target.as_str(), None),
        };
        let resolved = dir.join(path);
        match resolved.canonicalize() {
            Ok(p) if p.starts_with(&root) => {
                if let Some(fragment) = fragment.filter(|_| path.ends_with(".md")) {
                    if !anchors(&read(&p)).iter().any(|a| a == fragment) {
                        broken.push(format!("{target}: no heading with the anchor #{fragment}"));
                    }
                }
            }
            Ok(p) => broken.push(format!(
                "{target}: {} is outside the repository",
                p.display()
            )),
            Err(e) => broken.push(format!("{target}: {e}")),
        }
    }
    broken
}

/// The figures of `text`, as the module's doc says.
fn figures(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let number_char = |c: char| c.is_ascii_digit() || c == ',' || c == '.';
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i].is_ascii_digit()
            && (i == 0 || !(number_char(chars[i - 1]) || chars[i - 1].is_alphabetic()));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i;
        while end < chars.len() && number_char(chars[end]) {
            end += 1;
        }
        // A range or a list: `762–825`, `0.12 / 0.08`.
        loop {
            let sep = ["–", " – ", " / ", "/"].iter().find_map(|s| {
                let s: Vec<char> = s.chars().collect();
                let fits = chars.len() > end + s.len()
                    && chars[end..end + s.len()] == s[..]
                    && chars[end + s.len()].is_ascii_digit();
                fits.then_some(s.len())
            });
            let Some(len) = sep else { break };
            end += len;
            while end < chars.len() && number_char(chars[end]) {
                end += 1;
            }
        }
        while end > start && matches!(chars[end - 1], ',' | '.') {
            end -= 1;
        }
        let mut unit_at = end;
        if unit_at < chars.len() && chars[unit_at] == ' ' {
            unit_at += 1;
        }
        let unit = UNITS.iter().find(|u| {
            let u: Vec<char> = u.chars().collect();
            let after = unit_at + u.len();
            after <= chars.len()
                && chars[unit_at..after] == u[..]
                && (after == chars.len() || !chars[after].is_alphanumeric())
        });
        match unit {
            Some(u) => {
                let figure_end = unit_at + u.chars().count();
                out.push(chars[start..figure_end].iter().collect());
                i = figure_end;
            }
            None => i = end.max(start + 1),
        }
    }
    out
}

/// Whether `figure` occurs in `text` as a whole figure (not inside a longer number or word).
fn contains_figure(text: &str, figure: &str) -> bool {
    text.match_indices(figure).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + figure.len()..].chars().next();
        let clean_before = before
            .is_none_or(|c| !(c.is_ascii_digit() || c == ',' || c == '.' || c.is_alphabetic()));
        let clean_after = after.is_none_or(|c| !c.is_alphanumeric());
        clean_before && clean_after
    })
}

/// The cells of a table row, split at unescaped `|`.
fn cells(row: &str) -> Vec<String> {
    let row = row.trim().trim_start_matches('|');
    let mut out = vec![String::new()];
    let mut chars = row.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().expect("one cell").push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            c => out.last_mut().expect("one cell").push(c),
        }
    }
    if out.last().is_some_and(|c| c.trim().is_empty()) {
        out.pop();
    }
    out.iter().map(|c| c.trim().to_owned()).collect()
}

/// The `measured` cells of the README's figures table, one per row.
fn figures_table_cells(readme: &str) -> Vec<String> {
    let after = readme
        .split_once("\n## Figures\n")
        .expect("README.md has a `## Figures` section")
        .1;
    let rows: Vec<&str> = after
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(rows.len() > 2, "the Figures section has a table with rows");
    let header = cells(rows[0]);
    let column = header
        .iter()
        .position(|h| h == "measured")
        .expect("the figures table has a `measured` column");
    rows[2..]
        .iter()
        .map(|row| cells(row).get(column).cloned().unwrap_or_default())
        .collect()
}

#[test]
fn readme_is_at_most_250_lines() {
    let lines = read(&repo_root().join("README.md")).lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, over {README_MAX_LINES}: move the detail to docs/ or ARCHITECTURE.md"
    );
}

#[test]
fn every_relative_link_resolves() {
    let docs = documents();
    assert!(
        docs.len() >= 4,
        "README, ARCHITECTURE and docs/*.md: {docs:?}"
    );
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        checked += link_targets(&read(doc)).len();
        for b in broken_links(doc) {
            broken.push(format!("{}: {b}", doc.display()));
        }
    }
    assert!(checked > 0, "no links found: the link reader is broken");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_readme_figure_is_in_performance_md() {
    let root = repo_root();
    let readme = read(&root.join("README.md"));
    let performance = read(&root.join("docs").join("performance.md"));
    let mut missing = Vec::new();
    for cell in figures_table_cells(&readme) {
        let found = figures(&cell);
        assert!(
            !found.is_empty(),
            "a row of the README's figures table has no figure with a unit: `{cell}`"
        );
        for figure in found {
            if !contains_figure(&performance, &figure) {
                missing.push(figure);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "figures in README.md's table but not in docs/performance.md: {missing:?}"
    );
}

#[test]
fn figures_are_read_with_their_units() {
    assert_eq!(
        figures("median 762–825 ms, worst 987 ms; 0.83 × / 1.13 × the read limit; 1 / 2 workers"),
        ["762–825 ms", "987 ms", "0.83 ×", "1.13 ×"]
    );
    assert_eq!(
        figures("357,000–638,000 rows/s; 13,075 instructions/row; 51.3 MiB, 797 KB, crc32fast"),
        [
            "357,000–638,000 rows/s",
            "13,075 instructions/row",
            "51.3 MiB",
            "797 KB"
        ]
    );
    assert_eq!(figures("0.12 / 0.08 × raw LZ4 (#13)"), ["0.12 / 0.08 ×"]);
    assert!(contains_figure("worst 987 ms.", "987 ms"));
    assert!(!contains_figure("worst 1,987 ms", "987 ms"));
    assert!(!contains_figure("797 KiB", "797 K"));
}

#[test]
fn links_and_anchors_are_read_as_github_does() {
    assert_eq!(
        link_targets("see [a](docs/a.md#x), ![b](b.png \"t\") and `[c](not/a/link)`"),
        ["docs/a.md#x", "b.png"]
    );
    assert_eq!(
        anchor(" Arrow out of the engine (`arrow/`)"),
        "arrow-out-of-the-engine-arrow"
    );
}

/// The engine's layers as ARCHITECTURE.md draws them, lowest first: a module may import from
/// its own layer and the layers below, never above. `component` is `component/mod.rs` alone
/// (the component names); `component::x` is each component's module.
const ENGINE_LAYERS: &[(&str, &[&str])] = &[
    (
        "base",
        &[
            "reader",
            "error",
            "span",
            "component",
            "version",
            "types",
            "token",
            "hash",
            "datetime",
            "clock",
            "checksum",
            "byte_range",
            "sort",
        ],
    ),
    (
        "metadata",
        &[
            "metadata",
            "info",
            "component::statistics",
            "component::compression_info",
            "component::summary",
            "component::index",
            "component::bti",
            "component::filter",
            "component::crc",
            "component::digest",
            "component::scylla",
            "component::common",
            "toc",
            "descriptor",
            "sstable_set",
            "cql_schema",
            "snapshot",
        ],
    ),
    (
        "Data.db",
        &[
            "component::legacy_data",
            "dump",
            "component::data",
            "compress",
        ],
    ),
    ("protocol", &["range"]),
    (
        "tasks",
        &[
            "verify",
            "lookup",
            "index_listing",
            "checked_data",
            "load",
            "analytics",
            "crosscheck",
            "write",
            "merge",
            "scrub",
            "repair",
        ],
    ),
];

/// The crates each workspace crate (and `fuzz/`) depends on, as ARCHITECTURE.md draws them.
const CRATE_DEPENDENCIES: &[(&str, &[&str])] = &[
    ("engine", &[]),
    ("native", &["sstable-engine"]),
    ("arrow", &["sstable-engine"]),
    (
        "cli",
        &[
            "sstable-arrow",
            "sstable-engine",
            "sstable-native",
            "sstable-sql",
        ],
    ),
    (
        "python",
        &["sstable-arrow", "sstable-engine", "sstable-native"],
    ),
    (
        "sql",
        &["sstable-arrow", "sstable-engine", "sstable-native"],
    ),
    ("web", &["sstable-engine"]),
    ("fuzz", &["sstable-engine"]),
    ("xtask", &[]),
];

/// The paths a use tree names, from just after `crate::`: `{a::B, c::{d, e}}` → `a::B`, `c::d`,
/// `c::e`; a plain path stops at the first character that is not part of it.
fn use_paths(text: &str) -> Vec<Vec<String>> {
    fn tree(chars: &[char], at: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        loop {
            while *at < chars.len() && chars[*at].is_whitespace() {
                *at += 1;
            }
            if *at < chars.len() && chars[*at] == '{' {
                *at += 1;
                loop {
                    tree(chars, at, &path, out);
                    while *at < chars.len() && chars[*at].is_whitespace() {
                        *at += 1;
                    }
                    match chars.get(*at) {
                        Some(',') => *at += 1,
                        Some('}') => {
                            *at += 1;
                            return;
                        }
                        _ => return,
                    }
                    while *at < chars.len() && chars[*at].is_whitespace() {
                        *at += 1;
                    }
                    if chars.get(*at) == Some(&'}') {
                        *at += 1;
                        return;
                    }
                }
            }
            let start = *at;
            while *at < chars.len() && (chars[*at].is_alphanumeric() || chars[*at] == '_') {
                *at += 1;
            }
            if *at > start {
                path.push(chars[start..*at].iter().collect());
            }
            if chars.get(*at) == Some(&':') && chars.get(*at + 1) == Some(&':') {
                *at += 2;
                continue;
            }
            // `as alias` and anything else end the path.
            while *at < chars.len() && !matches!(chars[*at], ',' | '}' | ';') {
                if chars[*at] == '{' || chars[*at] == '\n' {
                    break;
                }
                *at += 1;
            }
            if path.len() > prefix.len() {
                out.push(path);
            }
            return;
        }
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    tree(&chars, &mut 0, &[], &mut out);
    out
}

/// A file's code without comments and without its inline `#[cfg(test)]` modules.
fn non_test_code(source: &str) -> String {
    let mut out = String::new();
    let mut lines = source.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.contains("mod ") && next.trim_end().ends_with('{'))
        {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The engine module a path inside the engine names (see [`ENGINE_LAYERS`]).
fn engine_module(path: &[String]) -> Option<String> {
    let first = path.first()?;
    let component_dir = repo_root().join("engine/src/component");
    match path.get(1) {
        Some(sub)
            if first == "component"
                && (component_dir.join(format!("{sub}.rs")).is_file()
                    || component_dir.join(sub).is_dir()) =>
        {
            Some(format!("component::{sub}"))
        }
        _ => Some(first.clone()),
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn engine_modules_import_only_their_layer_and_below() {
    let layer_of = |module: &str| {
        ENGINE_LAYERS
            .iter()
            .position(|(_, modules)| modules.contains(&module))
    };
    let src = repo_root().join("engine/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut upward = Vec::new();
    let mut unknown = Vec::new();
    let mut edges = 0;
    for file in &files {
        let relative: Vec<String> = file
            .strip_prefix(&src)
            .expect("under engine/src")
            .with_extension("")
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        let name = relative.last().map(String::as_str);
        if relative == ["lib"] || matches!(name, Some("tests" | "test_support")) {
            continue;
        }
        let module = engine_module(&relative).expect("a file names a module");
        let module = if module == "component::mod" {
            "component".to_owned()
        } else {
            module
        };
        let Some(from) = layer_of(&module) else {
            unknown.push(module);
            continue;
        };
        let code = non_test_code(&read(file));
        for (at, _) in code.match_indices("crate::") {
            for path in use_paths(&code[at + "crate::".len()..]) {
                let Some(target) = engine_module(&path) else {
                    continue;
                };
                if target == module || !target.starts_with(|c: char| c.is_lowercase()) {
                    continue;
                }
                edges += 1;
                match layer_of(&target) {
                    Some(to) if to > from => upward.push(format!(
                        "{} ({}, layer {}) imports {target} (layer {})",
                        file.display(),
                        module,
                        ENGINE_LAYERS[from].0,
                        ENGINE_LAYERS[to].0
                    )),
                    Some(_) => {}
                    None => unknown.push(target),
                }
            }
        }
    }
    unknown.sort();
    unknown.dedup();
    assert!(
        edges > 100,
        "only {edges} imports read: the reader is broken"
    );
    assert!(
        unknown.is_empty(),
        "engine modules in no layer (add them to ARCHITECTURE.md's diagram and ENGINE_LAYERS): {unknown:?}"
    );
    assert!(
        upward.is_empty(),
        "imports upward, against ARCHITECTURE.md's layers:\n{}",
        upward.join("\n")
    );
}

#[test]
fn crate_dependencies_are_the_drawn_ones() {
    for (krate, expected) in CRATE_DEPENDENCIES {
        let manifest = read(&repo_root().join(krate).join("Cargo.toml"));
        let mut section = "";
        let mut found: Vec<String> = Vec::new();
        for line in manifest.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                section = line;
                continue;
            }
            let dependencies = section == "[dependencies]"
                || (section.starts_with("[target.") && section.ends_with(".dependencies]"));
            if let Some(name) = line.split(['=', '.', ' ']).next() {
                if dependencies && name.starts_with("sstable-") {
                    found.push(name.to_owned());
                }
            }
        }
        found.sort();
        found.dedup();
        assert_eq!(
            found, *expected,
            "{krate}/Cargo.toml's project dependencies differ from ARCHITECTURE.md's diagram"
        );
    }
}

#[test]
fn use_trees_are_read_whole() {
    assert_eq!(
        use_paths("{component::{data::View, index}, error::Error as E};"),
        [
            vec!["component", "data", "View"],
            vec!["component", "index"],
            vec!["error", "Error"],
        ]
    );
    assert_eq!(
        use_paths("info::SSTableMetadata,\n"),
        [vec!["info", "SSTableMetadata"]]
    );
    assert_eq!(
        non_test_code("use a; // crate::x\n#[cfg(test)]\nmod tests {\nuse crate::y;\n}\n"),
        "use a; \n"
    );
}
