//! Printing a type tree: back to Cassandra's type string (each `db/marshal/*Type.java`
//! `toString(boolean ignoreFreezing)`) and as CQL (`cql3/CQL3Type.java` `toString`).
//!
//! The CQL rendering choices are listed on [`AbstractType::cql`].

use super::{AbstractType, MARSHAL_PACKAGE};

/// CQL's reserved keywords (`reserved_keywords.txt`, Cassandra 5.0), which must be quoted.
const RESERVED_KEYWORDS: &[&str] = &[
    "add",
    "allow",
    "alter",
    "and",
    "apply",
    "asc",
    "authorize",
    "batch",
    "begin",
    "by",
    "columnfamily",
    "create",
    "delete",
    "desc",
    "describe",
    "drop",
    "entries",
    "execute",
    "from",
    "full",
    "grant",
    "if",
    "in",
    "index",
    "infinity",
    "insert",
    "into",
    "is",
    "keyspace",
    "limit",
    "materialized",
    "modify",
    "nan",
    "norecursive",
    "not",
    "null",
    "of",
    "on",
    "or",
    "order",
    "primary",
    "rename",
    "revoke",
    "schema",
    "select",
    "set",
    "table",
    "to",
    "token",
    "truncate",
    "unlogged",
    "update",
    "use",
    "using",
    "view",
    "where",
    "with",
];

/// `ColumnIdentifier.maybeQuote`: an identifier as CQL must write it.
fn maybe_quote(name: &str) -> String {
    let mut chars = name.chars();
    let unquoted = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !RESERVED_KEYWORDS.contains(&name);
    if unquoted {
        name.to_owned()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// A CQL custom type: the type string as a CQL string literal (`CQL3Type.Custom`).
fn custom_cql(type_string: &str) -> String {
    format!("'{}'", type_string.replace('\'', "''"))
}

fn push_hex(out: &mut String, text: &str) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in text.bytes() {
        for nibble in [b >> 4, b & 0x0f] {
            if let Some(&d) = DIGITS.get(usize::from(nibble)) {
                out.push(char::from(d));
            }
        }
    }
}

impl AbstractType {
    /// The type as CQL writes it (`text`, `frozen<map<text, int>>`, `list<frozen<address>>`,
    /// `vector<float, 3>`), following `CQL3Type.toString`. Where Cassandra has no single answer:
    ///
    /// * Tuples and vectors are always frozen and CQL accepts them without `frozen<>`, so they
    ///   render as `tuple<int, text>` / `vector<float, 3>` everywhere (Cassandra's own
    ///   `CQL3Type.Tuple.toString` adds a redundant `frozen<>` around tuples).
    /// * A frozen collection or UDT renders as `frozen<...>`; a UDT by its name only, quoted like
    ///   `ColumnIdentifier.maybeQuote` when needed (`frozen<address>`, `"Addr"`).
    /// * `ReversedType(T)` renders as `T` (CQL says DESC in the table's clustering order instead).
    /// * Composite types have no CQL form; they render as `composite<text, int>` and
    ///   `dynamic_composite<a=>int, b=>text>` so that multi-column partition keys stay readable.
    /// * Types without a CQL name (`LexicalUUIDType`, `PartitionerDefinedOrder`,
    ///   `ColumnToCollectionType`, unknown classes) render like CQL custom types: the type string
    ///   in single quotes, `'org.apache.cassandra.db.marshal.LexicalUUIDType'`.
    /// * `EmptyType` renders as `empty`, its name in Cassandra 4.0+ (`CQL3Type.Native.EMPTY`).
    pub fn cql(&self) -> String {
        let mut out = String::new();
        self.write_cql(&mut out);
        out
    }

    fn write_cql(&self, out: &mut String) {
        let frozen = |out: &mut String, multi_cell: bool| {
            if !multi_cell {
                out.push_str("frozen<");
            }
        };
        let close = |out: &mut String, multi_cell: bool| {
            out.push('>');
            if !multi_cell {
                out.push('>');
            }
        };
        match self {
            AbstractType::Ascii => out.push_str("ascii"),
            AbstractType::Boolean => out.push_str("boolean"),
            AbstractType::Bytes => out.push_str("blob"),
            AbstractType::Counter => out.push_str("counter"),
            AbstractType::Date | AbstractType::Timestamp => out.push_str("timestamp"),
            AbstractType::Decimal => out.push_str("decimal"),
            AbstractType::Double => out.push_str("double"),
            AbstractType::Duration => out.push_str("duration"),
            AbstractType::Empty => out.push_str("empty"),
            AbstractType::Float => out.push_str("float"),
            AbstractType::Inet => out.push_str("inet"),
            AbstractType::Int32 => out.push_str("int"),
            AbstractType::Integer => out.push_str("varint"),
            AbstractType::Long => out.push_str("bigint"),
            AbstractType::Short => out.push_str("smallint"),
            AbstractType::Byte => out.push_str("tinyint"),
            AbstractType::SimpleDate => out.push_str("date"),
            AbstractType::Time => out.push_str("time"),
            AbstractType::TimeUuid => out.push_str("timeuuid"),
            AbstractType::Utf8 => out.push_str("text"),
            AbstractType::Uuid => out.push_str("uuid"),
            AbstractType::Reversed(base) => base.write_cql(out),
            AbstractType::List {
                element,
                multi_cell,
            } => {
                frozen(out, *multi_cell);
                out.push_str("list<");
                element.write_cql(out);
                close(out, *multi_cell);
            }
            AbstractType::Set {
                element,
                multi_cell,
            } => {
                frozen(out, *multi_cell);
                out.push_str("set<");
                element.write_cql(out);
                close(out, *multi_cell);
            }
            AbstractType::Map {
                key,
                value,
                multi_cell,
            } => {
                frozen(out, *multi_cell);
                out.push_str("map<");
                key.write_cql(out);
                out.push_str(", ");
                value.write_cql(out);
                close(out, *multi_cell);
            }
            AbstractType::UserType {
                name, multi_cell, ..
            } => {
                if *multi_cell {
                    out.push_str(&maybe_quote(name));
                } else {
                    out.push_str("frozen<");
                    out.push_str(&maybe_quote(name));
                    out.push('>');
                }
            }
            AbstractType::Tuple(members) => {
                out.push_str("tuple<");
                write_cql_list(out, members.iter());
                out.push('>');
            }
            AbstractType::Vector { element, dimension } => {
                out.push_str("vector<");
                element.write_cql(out);
                out.push_str(", ");
                out.push_str(&dimension.to_string());
                out.push('>');
            }
            AbstractType::Composite(components) => {
                out.push_str("composite<");
                write_cql_list(out, components.iter());
                out.push('>');
            }
            AbstractType::DynamicComposite(aliases) => {
                out.push_str("dynamic_composite<");
                for (i, (alias, t)) in aliases.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push(*alias);
                    out.push_str("=>");
                    t.write_cql(out);
                }
                out.push('>');
            }
            AbstractType::LexicalUuid
            | AbstractType::PartitionerDefinedOrder { .. }
            | AbstractType::ColumnToCollection(_) => {
                out.push_str(&custom_cql(&self.to_type_string()));
            }
            AbstractType::Custom(class) => out.push_str(&custom_cql(class)),
        }
    }

    /// The type string as Cassandra prints it (`AbstractType.toString()`): fully qualified class
    /// names, `FrozenType(...)` where needed, hex-encoded UDT names. Parsing it gives back an
    /// equal tree.
    pub fn to_type_string(&self) -> String {
        let mut out = String::new();
        self.write_type_string(&mut out, false);
        out
    }

    /// `toString(ignoreFreezing)`: inside a frozen value the nested `FrozenType`s are implied.
    fn write_type_string(&self, out: &mut String, ignore_freezing: bool) {
        let class = |out: &mut String, short: &str| {
            out.push_str(MARSHAL_PACKAGE);
            out.push_str(short);
        };
        // A collection or UDT: frozen wrapper (unless implied), class, parameters.
        let wrap = |out: &mut String, multi_cell: bool, short: &str| {
            let with_frozen = !ignore_freezing && !multi_cell;
            if with_frozen {
                class(out, "FrozenType(");
            }
            class(out, short);
            out.push('(');
            with_frozen
        };
        let inner_ignore = |multi_cell: bool| ignore_freezing || !multi_cell;
        if let Some(short) = self.simple_short_name() {
            class(out, short);
            return;
        }
        match self {
            AbstractType::List {
                element,
                multi_cell,
            }
            | AbstractType::Set {
                element,
                multi_cell,
            } => {
                let short = if matches!(self, AbstractType::List { .. }) {
                    "ListType"
                } else {
                    "SetType"
                };
                let with_frozen = wrap(out, *multi_cell, short);
                element.write_type_string(out, inner_ignore(*multi_cell));
                out.push(')');
                if with_frozen {
                    out.push(')');
                }
            }
            AbstractType::Map {
                key,
                value,
                multi_cell,
            } => {
                let with_frozen = wrap(out, *multi_cell, "MapType");
                key.write_type_string(out, inner_ignore(*multi_cell));
                out.push(',');
                value.write_type_string(out, inner_ignore(*multi_cell));
                out.push(')');
                if with_frozen {
                    out.push(')');
                }
            }
            AbstractType::UserType {
                keyspace,
                name,
                fields,
                multi_cell,
            } => {
                let with_frozen = wrap(out, *multi_cell, "UserType");
                out.push_str(keyspace);
                out.push(',');
                push_hex(out, name);
                for (field, t) in fields {
                    out.push(',');
                    push_hex(out, field);
                    out.push(':');
                    t.write_type_string(out, inner_ignore(*multi_cell));
                }
                out.push(')');
                if with_frozen {
                    out.push(')');
                }
            }
            AbstractType::Tuple(members) => {
                class(out, "TupleType(");
                for (i, t) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    t.write_type_string(out, true);
                }
                out.push(')');
            }
            AbstractType::Vector { element, dimension } => {
                class(out, "VectorType(");
                element.write_type_string(out, ignore_freezing);
                out.push_str(" , ");
                out.push_str(&dimension.to_string());
                out.push(')');
            }
            AbstractType::Reversed(base) => {
                class(out, "ReversedType(");
                base.write_type_string(out, false);
                out.push(')');
            }
            AbstractType::Composite(components) => {
                class(out, "CompositeType(");
                for (i, t) in components.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    t.write_type_string(out, false);
                }
                out.push(')');
            }
            AbstractType::DynamicComposite(aliases) => {
                class(out, "DynamicCompositeType(");
                for (i, (alias, t)) in aliases.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push(*alias);
                    out.push_str("=>");
                    t.write_type_string(out, false);
                }
                out.push(')');
            }
            AbstractType::PartitionerDefinedOrder { partitioner, base } => {
                class(out, "PartitionerDefinedOrder(");
                out.push_str(partitioner);
                if let Some(base) = base {
                    out.push(':');
                    base.write_type_string(out, false);
                }
                out.push(')');
            }
            AbstractType::ColumnToCollection(entries) => {
                class(out, "ColumnToCollectionType(");
                for (i, (column, t)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_hex(out, column);
                    out.push(':');
                    t.write_type_string(out, false);
                }
                out.push(')');
            }
            AbstractType::Custom(text) => out.push_str(text),
            // Simple types were printed above.
            _ => {}
        }
    }
}

fn write_cql_list<'a>(out: &mut String, types: impl Iterator<Item = &'a AbstractType>) {
    for (i, t) in types.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        t.write_cql(out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse_type;
    use super::*;

    const M: &str = "org.apache.cassandra.db.marshal.";

    /// Type strings in Cassandra's own form: each must print back exactly.
    fn canonical() -> Vec<String> {
        [
            "UTF8Type",
            "CompositeType(UTF8Type,Int32Type)",
            "ReversedType(TimeUUIDType)",
            "ReversedType(FrozenType(ListType(Int32Type)))",
            "ListType(Int32Type)",
            "FrozenType(ListType(Int32Type))",
            "SetType(UTF8Type)",
            "MapType(UTF8Type,FrozenType(ListType(Int32Type)))",
            "FrozenType(MapType(UTF8Type,ListType(Int32Type)))",
            "ListType(FrozenType(UserType(ks,7574,61:Int32Type,62:Int32Type)))",
            "UserType(ks,7574,61:FrozenType(ListType(Int32Type)),62:TupleType(Int32Type,ListType(UTF8Type)))",
            "FrozenType(UserType(ks,7574,61:ListType(Int32Type)))",
            "TupleType(Int32Type,UTF8Type)",
            "TupleType(ListType(Int32Type),TupleType(SetType(UTF8Type)))",
            "DynamicCompositeType(a=>Int32Type,b=>ReversedType(UTF8Type))",
            "VectorType(FloatType , 3)",
            "VectorType(FrozenType(ListType(Int32Type)) , 2)",
            "ColumnToCollectionType(6d:MapType(UTF8Type,Int32Type))",
        ]
        .iter()
        .map(|s| qualify(s))
        .collect()
    }

    /// Adds the marshal package to every short class name.
    fn qualify(s: &str) -> String {
        let mut out = String::new();
        let mut word = String::new();
        for c in s.chars().chain(Some('\0')) {
            if c.is_ascii_alphanumeric() {
                word.push(c);
                continue;
            }
            let class = word.ends_with("Type") || word == "PartitionerDefinedOrder";
            if class && word.starts_with(|c: char| c.is_ascii_uppercase()) {
                out.push_str(M);
            }
            out.push_str(&word);
            word.clear();
            if c != '\0' {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn prints_back_as_cassandra_does() {
        for s in canonical() {
            let t = parse_type(&s).unwrap();
            assert_eq!(t.to_type_string(), s);
            assert_eq!(parse_type(&t.to_type_string()).unwrap(), t);
        }
    }

    #[test]
    fn short_and_loose_forms_print_canonically() {
        let cases = [
            (
                "ListType(ListType(Int32Type))",
                "ListType(FrozenType(ListType(Int32Type)))",
            ),
            (
                "ListType( UserType(ks, 7574, 61 : Int32Type) )",
                "ListType(FrozenType(UserType(ks,7574,61:Int32Type)))",
            ),
            (
                "UserType(ks,7574,61:ListType(Int32Type))",
                "UserType(ks,7574,61:FrozenType(ListType(Int32Type)))",
            ),
            ("Int32Type(reversed=true)", "ReversedType(Int32Type)"),
            (
                "FrozenType(FrozenType(SetType(Int32Type)))",
                "FrozenType(SetType(Int32Type))",
            ),
            ("UserType(ks,5554)", "UserType(ks,5554)"),
            (
                "PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner)",
                "PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner)",
            ),
        ];
        for (input, printed) in cases {
            let t = parse_type(input).unwrap();
            assert_eq!(t.to_type_string(), qualify(printed), "{input}");
            assert_eq!(parse_type(&t.to_type_string()).unwrap(), t, "{input}");
        }
        let t = parse_type("UserType(ks,C3A9,C3A9:Int32Type)").unwrap();
        assert_eq!(
            t.to_type_string(),
            qualify("UserType(ks,c3a9,c3a9:Int32Type)")
        );
    }

    #[test]
    fn cql_rendering() {
        let cases = [
            ("ListType(Int32Type)", "list<int>"),
            ("SetType(UTF8Type)", "set<text>"),
            ("FrozenType(MapType(UTF8Type,Int32Type))", "frozen<map<text, int>>"),
            (
                "MapType(UTF8Type,FrozenType(ListType(Int32Type)))",
                "map<text, frozen<list<int>>>",
            ),
            (
                "FrozenType(ListType(SetType(Int32Type)))",
                "frozen<list<frozen<set<int>>>>",
            ),
            ("ReversedType(LongType)", "bigint"),
            ("ListType(TupleType(Int32Type,UTF8Type))", "list<tuple<int, text>>"),
            ("VectorType(FloatType , 3)", "vector<float, 3>"),
            ("CompositeType(UTF8Type,ReversedType(Int32Type))", "composite<text, int>"),
            ("UserType(ks,4d7954797065)", "\"MyType\""),
            ("UserType(ks,6d795f74797065)", "my_type"),
            ("FrozenType(UserType(ks,61222062))", "frozen<\"a\"\" b\">"),
            ("com.example.It'sType", "'com.example.It''sType'"),
            (
                "ColumnToCollectionType(6d:ListType(Int32Type))",
                "'org.apache.cassandra.db.marshal.ColumnToCollectionType(6d:org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.Int32Type))'",
            ),
        ];
        for (input, cql) in cases {
            let t = match parse_type(input) {
                Ok(t) => t,
                // `'` is not a type-string character; build the custom type directly.
                Err(_) => AbstractType::Custom(input.to_owned()),
            };
            assert_eq!(t.cql(), cql, "{input}");
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(maybe_quote("address"), "address");
        assert_eq!(maybe_quote("a1_b"), "a1_b");
        assert_eq!(maybe_quote("1a"), "\"1a\"");
        assert_eq!(maybe_quote(""), "\"\"");
        assert_eq!(maybe_quote("select"), "\"select\"");
        assert_eq!(maybe_quote("Address"), "\"Address\"");
        assert_eq!(maybe_quote("é"), "\"é\"");
    }
}
