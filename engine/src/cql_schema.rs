//! A `CREATE TABLE` statement, parsed just enough to name the partition key and clustering
//! columns and to check the statement against an SSTable's serialization header (which stores
//! the regular and static column names, but only the types of the key and clustering columns).
//!
//! Grammar followed: Cassandra's `CREATE TABLE` (`cql3/statements/schema/CreateTableStatement`),
//! without options: `CREATE TABLE [IF NOT EXISTS] [ks.]name ( col type [STATIC] [PRIMARY KEY],
//! …, PRIMARY KEY ((pk, …), ck, …) ) [WITH …]`.
//!
//! A whole `schema.cql` as a snapshot holds it ([`parse_schema_cql`]) is read too: its
//! statements in order — `CREATE TYPE` (the user types), the `CREATE TABLE`, then `ALTER TABLE …
//! DROP col USING TIMESTAMP t` for each dropped column (the table statement lists dropped
//! columns so that the drop can be replayed) and `ALTER TABLE … ADD` for one added back, then
//! `CREATE [CUSTOM] INDEX`. `--`, `//` and `/* … */` comments are skipped (Cassandra comments
//! out a table it cannot express in CQL). Src: `db/SchemaCQLHelper.java`
//! (`reCreateStatementsForSchemaCql`), `schema/TableMetadata.java` (`toCqlString`).

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
    /// The clustering columns `WITH CLUSTERING ORDER BY (… DESC)` sorts in descending order
    /// (their type is `ReversedType` of the column's).
    pub descending: Vec<String>,
    /// Columns an `ALTER TABLE … DROP` removed (a schema.cql's; empty for a lone statement).
    pub dropped: Vec<DroppedColumn>,
}

/// A column dropped from the table: its cells written before `dropped_at_micros` are not
/// live any more, though SSTables written before the drop still hold them
/// (`schema/DroppedColumn.java`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DroppedColumn {
    pub name: String,
    /// Its CQL type, from the table statement (`None` when that did not list it).
    pub cql_type: Option<String>,
    pub is_static: bool,
    /// `USING TIMESTAMP` of the drop, µs since the epoch (`None`: not given).
    pub dropped_at_micros: Option<i64>,
}

/// A `CREATE TYPE`: the user type's name and its fields (name, CQL type).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CqlUserType {
    pub name: String,
    pub fields: Vec<(String, String)>,
}

/// A `CREATE [CUSTOM] INDEX`: its name, its target as written (`col`, `keys(col)`, …) and the
/// class of a custom index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CqlIndex {
    pub name: String,
    pub target: String,
    pub class: Option<String>,
}

/// What a `schema.cql` says: the table after its `ALTER`s, the user types, the indexes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CqlSchemaFile {
    pub table: CqlTable,
    pub types: Vec<CqlUserType>,
    pub indexes: Vec<CqlIndex>,
    /// The table statement says `WITH COMPACT STORAGE`.
    pub compact_storage: bool,
    /// The first words of statements that are not read (views, functions, …).
    pub ignored: Vec<String>,
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
                let dropped = self.dropped.iter().any(|d| d.name == c.name.value);
                match self.columns.iter().find(|(n, _, _)| *n == c.name.value) {
                    // An SSTable written before the drop: its header still lists the column.
                    None if dropped => {}
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

/// Tokens of CQL text: identifiers and words, `"quoted"` names (kept with their opening `"`),
/// `'strings'` (kept with their opening `'`), and the punctuation `(),;<>.=` one per token.
/// Comments are dropped.
fn tokens(s: &str) -> Vec<String> {
    const PUNCT: &str = "(),;<>.=";
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if (c == '-' && chars.peek() == Some(&'-')) || (c == '/' && chars.peek() == Some(&'/')) {
            for c in chars.by_ref() {
                if c == '\n' {
                    break;
                }
            }
        } else if c == '/' && chars.peek() == Some(&'*') {
            chars.next();
            let mut last = ' ';
            for c in chars.by_ref() {
                if last == '*' && c == '/' {
                    break;
                }
                last = c;
            }
        } else if c == '"' || c == '\'' {
            // A doubled quote inside is the quote itself.
            let mut t = c.to_string();
            while let Some(n) = chars.next() {
                if n == c {
                    if chars.peek() == Some(&c) {
                        chars.next();
                    } else {
                        break;
                    }
                }
                t.push(n);
            }
            out.push(t);
        } else if PUNCT.contains(c) {
            out.push(c.to_string());
        } else {
            let mut t = c.to_string();
            while let Some(&n) = chars.peek() {
                if n.is_whitespace() || PUNCT.contains(n) || n == '"' || n == '\'' {
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

/// Parses a `CREATE TABLE` statement, or a whole `schema.cql` (its table after the `ALTER`s:
/// see [`parse_schema_cql`]).
pub fn parse_create_table(text: &str) -> Result<CqlTable, String> {
    parse_schema_cql(text).map(|s| s.table)
}

/// Parses a snapshot's `schema.cql` (or any text of CQL statements holding one `CREATE TABLE`).
pub fn parse_schema_cql(text: &str) -> Result<CqlSchemaFile, String> {
    let toks = tokens(text);
    let mut table: Option<CqlTable> = None;
    let mut file = CqlSchemaFile {
        table: CqlTable {
            name: String::new(),
            columns: Vec::new(),
            partition_key: Vec::new(),
            clustering: Vec::new(),
            descending: Vec::new(),
            dropped: Vec::new(),
        },
        types: Vec::new(),
        indexes: Vec::new(),
        compact_storage: false,
        ignored: Vec::new(),
    };
    for statement in toks.split(|t| t == ";").filter(|s| !s.is_empty()) {
        let kw = |i: usize, k: &str| {
            statement
                .get(i)
                .is_some_and(|t: &String| t.eq_ignore_ascii_case(k))
        };
        if kw(0, "create") && (kw(1, "table") || kw(1, "columnfamily")) {
            if table.is_some() {
                return Err("more than one CREATE TABLE".to_owned());
            }
            file.compact_storage = statement
                .windows(2)
                .any(|w| matches!(w, [a, b] if a.eq_ignore_ascii_case("compact") && b.eq_ignore_ascii_case("storage")));
            table = Some(create_table(statement)?);
        } else if kw(0, "create") && kw(1, "type") {
            file.types.push(create_type(statement)?);
        } else if kw(0, "create") && (kw(1, "index") || (kw(1, "custom") && kw(2, "index"))) {
            file.indexes.push(create_index(statement));
        } else if kw(0, "alter") && (kw(1, "table") || kw(1, "columnfamily")) {
            let t = table
                .as_mut()
                .ok_or("ALTER TABLE before the CREATE TABLE")?;
            alter_table(t, statement)?;
        } else {
            let words: Vec<&str> = statement.iter().take(3).map(String::as_str).collect();
            file.ignored.push(words.join(" "));
        }
    }
    file.table = table.ok_or("expected CREATE TABLE")?;
    Ok(file)
}

/// `[IF NOT EXISTS] [ks.]name` from `toks[i]`: the name (unqualified) and the index after it.
fn qualified_name(toks: &[String], mut i: usize) -> (String, usize) {
    let peek = |i: usize| toks.get(i).map(String::as_str).unwrap_or("");
    if peek(i).eq_ignore_ascii_case("if") {
        i = i.saturating_add(if peek(i.saturating_add(1)).eq_ignore_ascii_case("not") {
            3
        } else {
            2
        });
    }
    let mut name = ident(peek(i));
    i = i.saturating_add(1);
    if peek(i) == "." {
        name = ident(peek(i.saturating_add(1)));
        i = i.saturating_add(2);
    }
    (name, i)
}

/// A type written from `toks[*i]` up to a `,` or `)` at depth 0 or a STATIC / PRIMARY word:
/// lowercased, `, ` between type arguments.
fn type_at(toks: &[String], i: &mut usize) -> String {
    let mut depth = 0i32;
    let mut ty = String::new();
    while let Some(t) = toks.get(*i) {
        if depth == 0
            && (t == ","
                || t == ")"
                || t.eq_ignore_ascii_case("static")
                || t.eq_ignore_ascii_case("primary"))
        {
            break;
        }
        match t.as_str() {
            "<" => depth = depth.saturating_add(1),
            ">" => depth = depth.saturating_sub(1),
            _ => {}
        }
        if t == "," {
            ty.push_str(", ");
        } else if t.starts_with('"') {
            ty.push_str(t);
            ty.push('"');
        } else {
            ty.push_str(&t.to_ascii_lowercase());
        }
        *i = i.saturating_add(1);
    }
    ty
}

/// `CREATE TYPE [IF NOT EXISTS] [ks.]name (field type, …)`.
fn create_type(toks: &[String]) -> Result<CqlUserType, String> {
    let (name, mut i) = qualified_name(toks, 2);
    if toks.get(i).map(String::as_str) != Some("(") {
        return Err(format!("CREATE TYPE {name}: expected ("));
    }
    i = i.saturating_add(1);
    let mut fields = Vec::new();
    while let Some(t) = toks.get(i) {
        match t.as_str() {
            ")" => break,
            "," => i = i.saturating_add(1),
            _ => {
                let field = ident(t);
                i = i.saturating_add(1);
                fields.push((field, type_at(toks, &mut i)));
            }
        }
    }
    Ok(CqlUserType { name, fields })
}

/// `CREATE [CUSTOM] INDEX [IF NOT EXISTS] [name] ON [ks.]table (target) [USING 'class'] …`.
fn create_index(toks: &[String]) -> CqlIndex {
    let on = toks
        .iter()
        .position(|t| t.eq_ignore_ascii_case("on"))
        .unwrap_or(toks.len());
    let start = if toks
        .get(1)
        .is_some_and(|t| t.eq_ignore_ascii_case("custom"))
    {
        3
    } else {
        2
    };
    let name = match toks.get(start..on) {
        Some(words) => words
            .iter()
            .rfind(|t| !t.eq_ignore_ascii_case("exists"))
            .filter(|t| !t.eq_ignore_ascii_case("if") && !t.eq_ignore_ascii_case("not"))
            .map(|t| ident(t))
            .unwrap_or_default(),
        None => String::new(),
    };
    let (_, mut i) = qualified_name(toks, on.saturating_add(1));
    let mut target = String::new();
    let mut depth = 0i32;
    while let Some(t) = toks.get(i) {
        match t.as_str() {
            "(" => depth = depth.saturating_add(1),
            ")" => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 {
            break;
        }
        if !(t == "(" && depth == 1) {
            target.push_str(&ident(t));
        }
        i = i.saturating_add(1);
    }
    let class = toks
        .iter()
        .position(|t| t.eq_ignore_ascii_case("using"))
        .and_then(|u| toks.get(u.saturating_add(1)))
        .and_then(|t| t.strip_prefix('\''))
        .map(str::to_owned);
    CqlIndex {
        name,
        target,
        class,
    }
}

/// `ALTER TABLE [ks.]t DROP col | DROP (a, b) [USING TIMESTAMP t]`, `ADD col type [STATIC] |
/// ADD (a type, …)`; other alterations (`WITH`, `RENAME`) do not change the columns read here
/// (a rename of a key column does).
fn alter_table(table: &mut CqlTable, toks: &[String]) -> Result<(), String> {
    let (_, mut i) = qualified_name(toks, 2);
    let peek = |i: usize| toks.get(i).map(String::as_str).unwrap_or("");
    let action = peek(i).to_ascii_lowercase();
    i = i.saturating_add(1);
    let parenthesised = peek(i) == "(";
    if parenthesised {
        i = i.saturating_add(1);
    }
    match action.as_str() {
        "drop" => {
            let mut names = Vec::new();
            while !peek(i).is_empty() && peek(i) != ")" && !peek(i).eq_ignore_ascii_case("using") {
                if peek(i) != ","
                    && !peek(i).eq_ignore_ascii_case("if")
                    && !peek(i).eq_ignore_ascii_case("exists")
                {
                    names.push(ident(peek(i)));
                }
                i = i.saturating_add(1);
                if !parenthesised {
                    break;
                }
            }
            let using = toks
                .iter()
                .position(|t| t.eq_ignore_ascii_case("timestamp"));
            let dropped_at_micros = match using.and_then(|u| toks.get(u.saturating_add(1))) {
                Some(t) => Some(
                    t.parse::<i64>()
                        .map_err(|_| format!("ALTER TABLE … DROP: bad USING TIMESTAMP `{t}`"))?,
                ),
                None => None,
            };
            for name in names {
                let at = table.columns.iter().position(|(n, _, _)| *n == name);
                let (cql_type, is_static) = match at {
                    Some(at) => {
                        let (_, t, s) = table.columns.remove(at);
                        (Some(t), s)
                    }
                    None => (None, false),
                };
                table.dropped.retain(|d| d.name != name);
                table.dropped.push(DroppedColumn {
                    name,
                    cql_type,
                    is_static,
                    dropped_at_micros,
                });
            }
        }
        "add" => loop {
            let t = peek(i);
            if t.is_empty() || t == ")" {
                break;
            }
            if t == ","
                || t.eq_ignore_ascii_case("if")
                || t.eq_ignore_ascii_case("not")
                || t.eq_ignore_ascii_case("exists")
            {
                i = i.saturating_add(1);
                continue;
            }
            let name = ident(t);
            i = i.saturating_add(1);
            let ty = type_at(toks, &mut i);
            let is_static = peek(i).eq_ignore_ascii_case("static");
            if is_static {
                i = i.saturating_add(1);
            }
            table.columns.retain(|(n, _, _)| *n != name);
            table.columns.push((name, ty, is_static));
            if !parenthesised {
                break;
            }
        },
        "rename" => {
            // RENAME a TO b [AND c TO d]
            while let (Some(from), Some(to)) = (toks.get(i), toks.get(i.saturating_add(2))) {
                let (from, to) = (ident(from), ident(to));
                for key in table
                    .partition_key
                    .iter_mut()
                    .chain(table.clustering.iter_mut())
                {
                    if *key == from {
                        key.clone_from(&to);
                    }
                }
                for c in &mut table.columns {
                    if c.0 == from {
                        c.0.clone_from(&to);
                    }
                }
                i = i.saturating_add(4);
            }
        }
        _ => {}
    }
    Ok(())
}

/// `CREATE TABLE …` (one statement's tokens).
fn create_table(toks: &[String]) -> Result<CqlTable, String> {
    let peek = |i: usize| toks.get(i).map(String::as_str).unwrap_or("");
    let kw = |i: usize, k: &str| peek(i).eq_ignore_ascii_case(k);
    if !(kw(0, "create") && (kw(1, "table") || kw(1, "columnfamily"))) {
        return Err("expected CREATE TABLE".to_owned());
    }
    let (name, mut i) = qualified_name(toks, 2);
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
        descending: Vec::new(),
        dropped: Vec::new(),
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
            let mut ty = String::new();
            let mut is_static = false;
            loop {
                ty.push_str(&type_at(toks, &mut i));
                let t = peek(i);
                if t.eq_ignore_ascii_case("static") {
                    is_static = true;
                    i = i.saturating_add(1);
                } else if t.eq_ignore_ascii_case("primary") {
                    table.partition_key.push(column.clone());
                    i = i.saturating_add(2); // PRIMARY KEY
                } else {
                    break;
                }
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
    // `WITH CLUSTERING ORDER BY (c1 ASC, c2 DESC)`.
    while !peek(i).is_empty() {
        if kw(i, "clustering") && kw(i.saturating_add(1), "order") && kw(i.saturating_add(2), "by")
        {
            i = i.saturating_add(3);
            if peek(i) == "(" {
                i = i.saturating_add(1);
            }
            while peek(i) != ")" && !peek(i).is_empty() {
                let column = ident(peek(i));
                if kw(i.saturating_add(1), "desc") {
                    table.descending.push(column);
                }
                i = i.saturating_add(1);
                while peek(i) != "," && peek(i) != ")" && !peek(i).is_empty() {
                    i = i.saturating_add(1);
                }
                if peek(i) == "," {
                    i = i.saturating_add(1);
                }
            }
        }
        i = i.saturating_add(1);
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
        assert_eq!(t.descending, ["c"]);
        assert_eq!(
            t.columns[2],
            ("c".into(), "frozen<map<text, int>>".into(), false)
        );
        assert_eq!(t.columns[3], ("s".into(), "int".into(), true));
        let t = parse_create_table(
            "CREATE TABLE t (k int, a int, b int, v int, PRIMARY KEY (k, a, b)) \
             WITH compaction = {'class': 'X'} AND CLUSTERING ORDER BY (a ASC, b DESC)",
        )
        .unwrap();
        assert_eq!(t.descending, ["b"]);
        let t = parse_create_table("create table t (pk text PRIMARY KEY, val text)").unwrap();
        assert!(t.descending.is_empty());
        assert_eq!(
            (t.partition_key.as_slice(), t.clustering.len()),
            (&["pk".to_owned()][..], 0)
        );
        assert!(parse_create_table("SELECT * FROM t").is_err());
        assert!(parse_create_table("CREATE TABLE t (a int").is_err());
    }

    /// A schema.cql as Cassandra 4.x writes it for a snapshot (`SchemaCQLHelper`): a user type,
    /// the table with a dropped column still listed, the drop, a column added back, an index.
    #[test]
    fn reads_a_snapshot_schema_cql() {
        let text = "-- written by a snapshot\n\
            CREATE TYPE IF NOT EXISTS ks.addr (street text, zip int);\n\
            CREATE TABLE IF NOT EXISTS ks.t (\n\tk int,\n\tc text,\n\told blob,\n\tback int,\n\
            \ta frozen<addr>,\n\tPRIMARY KEY (k, c)\n) WITH ID = 5a1c395e-b41f-11e5-9f22-ba0be0483c18\n\
            \tAND comment = 'it; (has) punctuation'\n\tAND CLUSTERING ORDER BY (c ASC);\n\
            ALTER TABLE ks.t DROP old USING TIMESTAMP 1620000000000000;\n\
            ALTER TABLE ks.t DROP back USING TIMESTAMP 1620000000000001;\n\
            ALTER TABLE ks.t ADD back int;\n\
            /* CREATE TABLE ks.commented (x int PRIMARY KEY); */\n\
            CREATE INDEX t_a_idx ON ks.t (a);\n\
            CREATE CUSTOM INDEX IF NOT EXISTS t_c ON ks.t (c) USING 'org.apache.cassandra.index.sai.StorageAttachedIndex';";
        let s = parse_schema_cql(text).unwrap();
        assert_eq!(s.table.name, "t");
        assert_eq!(s.table.partition_key, ["k"]);
        assert_eq!(s.table.clustering, ["c"]);
        let names: Vec<&str> = s.table.columns.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(names, ["k", "c", "a", "back"]);
        assert_eq!(
            s.table.dropped,
            [
                DroppedColumn {
                    name: "old".into(),
                    cql_type: Some("blob".into()),
                    is_static: false,
                    dropped_at_micros: Some(1_620_000_000_000_000),
                },
                DroppedColumn {
                    name: "back".into(),
                    cql_type: Some("int".into()),
                    is_static: false,
                    dropped_at_micros: Some(1_620_000_000_000_001),
                },
            ]
        );
        assert_eq!(
            s.types,
            [CqlUserType {
                name: "addr".into(),
                fields: vec![
                    ("street".into(), "text".into()),
                    ("zip".into(), "int".into())
                ],
            }]
        );
        assert_eq!(s.indexes.len(), 2);
        assert_eq!(
            (s.indexes[0].name.as_str(), s.indexes[0].target.as_str()),
            ("t_a_idx", "a")
        );
        assert_eq!(
            (s.indexes[1].name.as_str(), s.indexes[1].class.as_deref()),
            (
                "t_c",
                Some("org.apache.cassandra.index.sai.StorageAttachedIndex")
            )
        );
        assert!(!s.compact_storage);
        // The lone-statement entry point reads the same file.
        assert_eq!(parse_create_table(text).unwrap(), s.table);
        assert!(parse_schema_cql("CREATE TYPE ks.x (a int);").is_err());
    }
}
