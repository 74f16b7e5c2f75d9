//! Import circles between the `.rs` files of the workspace's crates (issue 30): every
//! `crate::…`, `super::…` and `self::…` path in a file (its `use` lines, groups expanded, and
//! paths written in code) resolved to the file that defines the module, then the strongly
//! connected components of that graph. A child importing from its parent module (`mod.rs`,
//! `lib.rs`, `main.rs` re-exporting it) is not a circle; a file's own `#[cfg(test)] mod tests`
//! is not read. The same reading as `/work/shared/tools/import-circles`.
//!
//! `cargo xtask circles` prints them; the unit test `workspace_has_no_import_circle` (run by
//! `cargo xtask test` with the rest of `cargo test --workspace`) fails on one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Circles known and being fixed elsewhere, each named by why it is allowed for now: a circle is
/// allowed only when its files are exactly these. An entry that no longer matches a circle fails
/// the test too, so it is removed as soon as the fix lands.
const ALLOWED: &[(&str, &[&str])] = &[];

/// Every circle (two or more files, paths relative to `root`, sorted) of the crates under
/// `root` (each `*/src` directory).
pub fn find(root: &Path) -> Result<Vec<Vec<String>>, String> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .map_err(|e| format!("{}: {e}", root.display()))?
        .filter_map(|e| e.ok().map(|e| e.path().join("src")))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut circles = Vec::new();
    for src in dirs {
        for circle in circles_of(&src)? {
            circles.push(
                circle
                    .iter()
                    .map(|f| {
                        f.strip_prefix(root)
                            .unwrap_or(f)
                            .to_string_lossy()
                            .replace('\\', "/")
                    })
                    .collect(),
            );
        }
    }
    Ok(circles)
}

/// The circles not in [`ALLOWED`], and the allow-list entries that match no circle.
fn unexpected(circles: &[Vec<String>]) -> (Vec<&Vec<String>>, Vec<&'static str>) {
    let allowed = |c: &Vec<String>| {
        ALLOWED
            .iter()
            .any(|(_, files)| files.len() == c.len() && files.iter().zip(c).all(|(a, b)| a == b))
    };
    let stale = ALLOWED
        .iter()
        .filter(|(_, files)| {
            !circles
                .iter()
                .any(|c| files.len() == c.len() && files.iter().zip(c).all(|(a, b)| a == b))
        })
        .map(|(why, _)| *why)
        .collect();
    (circles.iter().filter(|c| !allowed(c)).collect(), stale)
}

/// `cargo xtask circles`: prints every circle; an error when one is not allowed.
pub fn check() -> Result<(), String> {
    let circles = find(&crate::repo_root())?;
    for c in &circles {
        println!("circle: {} files: {}", c.len(), c.join(", "));
    }
    let (bad, stale) = unexpected(&circles);
    for why in &stale {
        println!("allow-list entry matches no circle (remove it): {why}");
    }
    if bad.is_empty() && stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} import circle(s) not allowed, {} stale allow-list entr(ies)",
            bad.len(),
            stale.len()
        ))
    }
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            rs_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

fn is_parent_module(f: &Path) -> bool {
    matches!(
        f.file_name().and_then(|n| n.to_str()),
        Some("mod.rs" | "lib.rs" | "main.rs")
    )
}

/// The module path of file `f` under `src` (`a/b.rs`, `a/b/mod.rs` → `[a, b]`).
fn module_path(src: &Path, f: &Path) -> Vec<String> {
    let rel = f.strip_prefix(src).unwrap_or(f).with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|p| matches!(p.as_str(), "mod" | "lib" | "main"))
    {
        parts.pop();
    }
    parts
}

/// The file of the longest prefix of `parts` that names a module under `src`.
fn module_file(src: &Path, parts: &[String]) -> Option<PathBuf> {
    (0..=parts.len()).rev().find_map(|n| {
        let base = parts[..n].iter().fold(src.to_path_buf(), |p, s| p.join(s));
        let candidates = if n == 0 {
            [src.join("lib.rs"), src.join("main.rs")]
        } else {
            [base.with_extension("rs"), base.join("mod.rs")]
        };
        candidates.into_iter().find(|c| c.is_file())
    })
}

/// The text that is read: up to the file's `#[cfg(test)] mod tests`, without `//` comments.
fn code_of(text: &str) -> String {
    let mut end = text.len();
    let mut from = 0;
    while let Some(i) = text[from..].find("#[cfg(test)]") {
        let at = from + i;
        let rest = text[at + "#[cfg(test)]".len()..].trim_start();
        if rest.strip_prefix("mod").is_some_and(|r| {
            r.starts_with(char::is_whitespace) && r.trim_start().starts_with("tests")
        }) {
            end = at;
            break;
        }
        from = at + 1;
    }
    text[..end]
        .lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every `crate::a::b`, `super::…`, `self::…` path in `code`, with `use` groups expanded:
/// `(head, [a, b])`.
fn paths_in(code: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    // `use` trees: `use crate::a::{b, c::{d, e}};` gives crate::a::b, crate::a::c::d, …
    let mut rest = code;
    while let Some(i) = rest.find("use ") {
        let before_ok = rest[..i].chars().next_back().is_none_or(|c| !is_ident(c));
        rest = &rest[i + 4..];
        if !before_ok {
            continue;
        }
        let Some(end) = rest.find(';') else { break };
        expand_tree("", &compact(&rest[..end]), &mut out);
    }
    // Paths written in code.
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if (i == 0 || !is_ident(chars[i - 1])) && is_ident(chars[i]) {
            let start = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            let head: String = chars[start..i].iter().collect();
            if matches!(head.as_str(), "crate" | "super" | "self") {
                let mut parts = Vec::new();
                while i + 2 < chars.len()
                    && chars[i] == ':'
                    && chars[i + 1] == ':'
                    && is_ident(chars[i + 2])
                {
                    let s = i + 2;
                    i = s;
                    while i < chars.len() && is_ident(chars[i]) {
                        i += 1;
                    }
                    parts.push(chars[s..i].iter().collect());
                }
                if !parts.is_empty() {
                    out.push((head, parts));
                }
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Expands a `use` tree (whitespace removed) under `prefix` into paths that start with
/// `crate`, `super` or `self`.
fn expand_tree(prefix: &str, tree: &str, out: &mut Vec<(String, Vec<String>)>) {
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim_end_matches(':');
        let inner = tree[open + 1..]
            .strip_suffix('}')
            .unwrap_or(&tree[open + 1..]);
        let prefix = join(prefix, head);
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_tree(&prefix, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand_tree(&prefix, &inner[start..], out);
    } else {
        // `a::b as c`: the path is `a::b`.
        let path = join(prefix, tree.split(' ').next().unwrap_or(tree));
        let mut parts = path
            .split("::")
            .map(|p| p.trim_matches(|c: char| !is_ident(c)))
            .filter(|p| !p.is_empty())
            .map(str::to_owned);
        let head = parts.next();
        let parts: Vec<String> = parts.collect();
        if let Some(head) = head.filter(|h| matches!(h.as_str(), "crate" | "super" | "self")) {
            if !parts.is_empty() {
                out.push((head, parts));
            }
        }
    }
}

/// A `use` tree with its whitespace reduced to the single spaces of `as`.
fn compact(tree: &str) -> String {
    let words: Vec<&str> = tree.split_whitespace().collect();
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        let glue = i > 0
            && out.chars().next_back().is_some_and(is_ident)
            && w.chars().next().is_some_and(is_ident);
        if glue {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

fn join(prefix: &str, tail: &str) -> String {
    match (prefix.is_empty(), tail.is_empty()) {
        (true, _) => tail.to_owned(),
        (_, true) => prefix.to_owned(),
        _ => format!("{prefix}::{tail}"),
    }
}

/// The import graph of one crate's `src`: file → the files it imports from.
fn graph(src: &Path) -> Result<BTreeMap<PathBuf, BTreeSet<PathBuf>>, String> {
    let mut files = Vec::new();
    rs_files(src, &mut files)?;
    files.sort();
    let mut g = BTreeMap::new();
    for f in &files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let me = module_path(src, f);
        let mut targets = BTreeSet::new();
        for (head, mut parts) in paths_in(&code_of(&text)) {
            let mut base = match head.as_str() {
                "crate" => Vec::new(),
                "self" => me.clone(),
                _ => me[..me.len().saturating_sub(1)].to_vec(),
            };
            if head == "super" {
                while parts.first().is_some_and(|p| p == "super") {
                    base.pop();
                    parts.remove(0);
                }
            }
            base.extend(parts);
            if let Some(t) = module_file(src, &base).filter(|t| t != f) {
                targets.insert(t);
            }
        }
        g.insert(f.clone(), targets);
    }
    // A parent module re-exporting its children is not a circle of its own.
    let parents: Vec<PathBuf> = g.keys().filter(|f| is_parent_module(f)).cloned().collect();
    for p in parents {
        let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
        for (h, targets) in g.iter_mut() {
            if *h != p && h.parent().is_some_and(|d| d.starts_with(&dir)) {
                targets.remove(&p);
            }
        }
    }
    Ok(g)
}

/// Strongly connected components of two or more files (Tarjan's algorithm, iterative).
fn circles_of(src: &Path) -> Result<Vec<Vec<PathBuf>>, String> {
    let g = graph(src)?;
    let nodes: Vec<&PathBuf> = g.keys().collect();
    let index_of: BTreeMap<&PathBuf, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            g[*n]
                .iter()
                .filter_map(|t| index_of.get(t).copied())
                .collect()
        })
        .collect();
    let n = nodes.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on_stack, mut stack, mut next) = (vec![false; n], Vec::new(), 0);
    let mut out = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0)];
        while let Some((v, child)) = work.pop() {
            if child == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = succ[v].get(child) {
                work.push((v, child + 1));
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            if low[v] == index[v] {
                let mut c = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    c.push(nodes[w].clone());
                    if w == v {
                        break;
                    }
                }
                if c.len() > 1 {
                    c.sort();
                    out.push(c);
                }
            }
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A throwaway crate tree under the target dir.
    fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let root = crate::repo_root()
            .join("target")
            .join("xtask")
            .join("circles-test")
            .join(name);
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        root
    }

    #[test]
    fn finds_a_circle_through_use_groups_and_code_paths() {
        let root = tree(
            "circle",
            &[
                ("k/src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
                ("k/src/a.rs", "use crate::{b::B, c};\n"),
                ("k/src/b.rs", "pub struct B;\nfn f() { super::c::g() }\n"),
                ("k/src/c.rs", "pub fn g() {}\n// crate::a is a comment\n"),
                (
                    "k/src/d/mod.rs",
                    "use super::a::X;\nuse crate::c as renamed;\nmod e;\n",
                ),
                ("k/src/d/e.rs", "use self::super::super::a;\n"),
            ],
        );
        assert_eq!(find(&root).unwrap(), Vec::<Vec<String>>::new());
        std::fs::write(root.join("k/src/c.rs"), "pub fn g() { crate::a::h() }\n").unwrap();
        assert_eq!(
            find(&root).unwrap(),
            vec![vec![
                "k/src/a.rs".to_owned(),
                "k/src/b.rs".to_owned(),
                "k/src/c.rs".to_owned()
            ]]
        );
    }

    #[test]
    fn a_parent_module_and_a_files_tests_are_no_circle() {
        let root = tree(
            "parent",
            &[
                ("k/src/lib.rs", "mod m;\npub use m::x::X;\n"),
                ("k/src/m/mod.rs", "mod x;\npub use x::X;\nmod y;\n"),
                ("k/src/m/x.rs", "use super::Shared;\nuse crate::Top;\n"),
                (
                    "k/src/m/y.rs",
                    "pub fn y() {}\n#[cfg(test)]\nmod tests {\n    use super::super::x::*;\n}\n",
                ),
            ],
        );
        assert_eq!(find(&root).unwrap(), Vec::<Vec<String>>::new());
        std::fs::write(root.join("k/src/m/x.rs"), "use super::y::y;\n").unwrap();
        std::fs::write(root.join("k/src/m/y.rs"), "use super::x::X;\n").unwrap();
        assert_eq!(
            find(&root).unwrap(),
            vec![vec!["k/src/m/x.rs".to_owned(), "k/src/m/y.rs".to_owned()]]
        );
    }

    #[test]
    fn workspace_has_no_import_circle() {
        let circles = find(&crate::repo_root()).unwrap();
        let (bad, stale) = unexpected(&circles);
        assert!(
            bad.is_empty() && stale.is_empty(),
            "import circles between files: {bad:#?}\nstale allow-list entries: {stale:#?}"
        );
    }
}
