//! A `CREATE TABLE` statement, parsed just enough to name the partition key and clustering
//! columns and to check the statement against an SSTable's serialization header (which stores
//! the regular and static column names, but only the types of the key and clustering columns).
//!
//! Grammar followed: Cassandra's `CREATE TABLE` (`cql3/statements/schema/CreateTableStatement`),
//! without options: `CREATE TABLE [IF NOT EXISTS] [ks.]name ( col type [STATIC] [PRIMARY KEY],
//! …, PRIMARY KEY ((pk, …), ck, …) ) [WITH …]`.

use serde::Serialize;

use crate::component::statistics::SerializationHeader;
use crate::types::parse_type;

/// The columns of a `CREATE TABLE`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CqlTable {
    pub name: String,
    /// (name, CQL type) in declaration order.
    pub columns: Vec<(String, String, bool)>,
    pub partition_key: Vec<String>,
    pub clustering: Vec<String>,
}

impl CqlTable {
    fn type_of(&self, column: &str) -> Option<&str> {
        self.columns
            .iter()
            .find(|(n, _, _)| n == column)
            .map(|(_, t, _)| t.as_str())
    }

    /// Where the statement and the header disagree, in words (empty when they agree).
    pub fn check(&self, header: &SerializationHeader) -> Vec<String> {
        let mut out = Vec::new();
        let cql = |t: &str| {
            parse_type(t)
                .map(|t| t.cql())
                .unwrap_or_else(|_| t.to_owned())
        };
        let norm = |t: &str| t.replace(' ', "").to_ascii_lowercase();
        let key_types: Vec<String> = match parse_type(&header.key_type.value) {
            Ok(crate::types::AbstractType::Composite(parts)) => {
                parts.iter().map(|t| t.cql()).collect()
            }
            Ok(t) => vec![t.cql()],
            Err(_) => vec![header.key_type.value.clone()],
        };
        if key_types.len() != self.partition_key.len() {
            out.push(format!(
                "the statement has {} partition key columns, the SSTable {}",
                self.partition_key.len(),
                key_types.len()
            ));
        }
        for (name, header_type) in self.partition_key.iter().zip(&key_types) {
            if let Some(t) = self.type_of(name) {
                if norm(t) != norm(header_type) {
                    out.push(format!(
                        "partition key {name}: the statement says {t}, the SSTable {header_type}"
                    ));
                }
            }
        }
        if header.clustering_types.len() != self.clustering.len() {
            out.push(format!(
                "the statement has {} clustering columns, the SSTable {}",
                self.clustering.len(),
                header.clustering_types.len()
            ));
        }
        for (name, t) in self.clustering.iter().zip(&header.clustering_types) {
            let header_type = cql(&t.value);
            if let Some(st) = self.type_of(name) {
                if norm(st) != norm(&header_type) {
                    out.push(format!("clustering column {name}: the statement says {st}, the SSTable {header_type}"));
                }
            }
        }
        for (list, is_static) in [
            (&header.static_columns, true),
            (&header.regular_columns, false),
        ] {
            for c in &list.columns {
                let header_type = cql(&c.type_name.value);
                match self.columns.iter().find(|(n, _, _)| *n == c.name.value) {
                    None => out.push(format!(
                        "column {} ({header_type}) is in the SSTable but not in the statement",
                        c.name.value
                    )),
                    Some((_, t, s)) => {
                        if norm(t) != norm(&header_type) {
                            out.push(format!(
                                "column {}: the statement says {t}, the SSTable {header_type}",
                                c.name.value
                            ));
                        }
                        if *s != is_static {
                            out.push(format!(
                                "column {}: static in one, regular in the other",
                                c.name.value
                            ));
                        }
                    }
                }
            }
        }
        out
    }
}

fn tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if c == '-' && chars.peek() == Some(&'-') {
            for c in chars.by_ref() {
                if c == '\n' {
                    break;
                }
            }
        } else if c == '"' {
            let mut t = String::from("\"");
            for c in chars.by_ref() {
                if c == '"' {
                    break;
                }
                t.push(c);
            }
            out.push(t);
        } else if "(),;<>.".contains(c) {
            out.push(c.to_string());
        } else {
            let mut t = c.to_string();
            while let Some(&n) = chars.peek() {
                if n.is_whitespace() || "(),;<>.\"".contains(n) {
                    break;
                }
                t.push(n);
                chars.next();
            }
            out.push(t);
        }
    }
    out
}

fn ident(t: &str) -> String {
    match t.strip_prefix('"') {
        Some(quoted) => quoted.to_owned(),
        None => t.to_ascii_lowercase(),
    }
}

/// Parses a `CREATE TABLE` statement.
pub fn parse_create_table(statement: &str) -> Result<CqlTable, String> {
    let toks = tokens(statement);
    let mut i = 0usize;
    let peek = |i: usize| toks.get(i).map(String::as_str).unwrap_or("");
    let kw = |i: usize, k: &str| peek(i).eq_ignore_ascii_case(k);
    if !(kw(0, "create") && (kw(1, "table") || kw(1, "columnfamily"))) {
        return Err("expected CREATE TABLE".to_owned());
    }
    i = i.saturating_add(2);
    if kw(i, "if") {
        i = i.saturating_add(3);
    }
    let mut name = ident(peek(i));
    i = i.saturating_add(1);
    if peek(i) == "." {
        name = ident(peek(i.saturating_add(1)));
        i = i.saturating_add(2);
    }
    if peek(i) != "(" {
        return Err(format!(
            "expected ( after the table name, found `{}`",
            peek(i)
        ));
    }
    i = i.saturating_add(1);
    let mut table = CqlTable {
        name,
        columns: Vec::new(),
        partition_key: Vec::new(),
        clustering: Vec::new(),
    };
    loop {
        if peek(i).is_empty() {
            return Err("unexpected end of statement".to_owned());
        }
        if kw(i, "primary") && kw(i.saturating_add(1), "key") {
            i = i.saturating_add(2);
            if peek(i) != "(" {
                return Err("expected ( after PRIMARY KEY".to_owned());
            }
            i = i.saturating_add(1);
            if peek(i) == "(" {
                i = i.saturating_add(1);
                while peek(i) != ")" && !peek(i).is_empty() {
                    if peek(i) != "," {
                        table.partition_key.push(ident(peek(i)));
                    }
                    i = i.saturating_add(1);
                }
                i = i.saturating_add(1);
            } else {
                table.partition_key.push(ident(peek(i)));
                i = i.saturating_add(1);
            }
            while peek(i) != ")" && !peek(i).is_empty() {
                if peek(i) != "," {
                    table.clustering.push(ident(peek(i)));
                }
                i = i.saturating_add(1);
            }
            i = i.saturating_add(1);
        } else {
            let column = ident(peek(i));
            i = i.saturating_add(1);
            // The type: tokens up to a `,` or `)` at depth 0, or STATIC / PRIMARY.
            let mut depth = 0i32;
            let mut ty = String::new();
            let mut is_static = false;
            loop {
                let t = peek(i);
                if t.is_empty() || (depth == 0 && (t == "," || t == ")")) {
                    break;
                }
                if depth == 0 && t.eq_ignore_ascii_case("static") {
                    is_static = true;
                } else if depth == 0 && t.eq_ignore_ascii_case("primary") {
                    table.partition_key.push(column.clone());
                    i = i.saturating_add(1); // KEY
                } else {
                    match t {
                        "<" => depth = depth.saturating_add(1),
                        ">" => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    if t == "," && depth > 0 {
                        ty.push_str(", ");
                    } else {
                        ty.push_str(&t.to_ascii_lowercase());
                    }
                }
                i = i.saturating_add(1);
            }
            table.columns.push((column, ty, is_static));
        }
        match peek(i) {
            "," => i = i.saturating_add(1),
            ")" => break,
            other => {
                return Err(format!(
                    "expected , or ) in the column list, found `{other}`"
                ))
            }
        }
    }
    if table.partition_key.is_empty() {
        return Err("no PRIMARY KEY".to_owned());
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_compound_keys_and_types() {
        let t = parse_create_table(
            "CREATE TABLE IF NOT EXISTS ks.\"Tbl\" (a int, b text, c frozen<map<text, int>>, s int static, v list<int>, \
             PRIMARY KEY ((a, b), c)) WITH CLUSTERING ORDER BY (c DESC);",
        )
        .unwrap();
        assert_eq!(t.name, "Tbl");
        assert_eq!(t.partition_key, ["a", "b"]);
        assert_eq!(t.clustering, ["c"]);
        assert_eq!(
            t.columns[2],
            ("c".into(), "frozen<map<text, int>>".into(), false)
        );
        assert_eq!(t.columns[3], ("s".into(), "int".into(), true));
        let t = parse_create_table("create table t (pk text PRIMARY KEY, val text)").unwrap();
        assert_eq!(
            (t.partition_key.as_slice(), t.clustering.len()),
            (&["pk".to_owned()][..], 0)
        );
        assert!(parse_create_table("SELECT * FROM t").is_err());
        assert!(parse_create_table("CREATE TABLE t (a int").is_err());
    }
}
