//! The type-string parser (Cassandra's `db/marshal/TypeParser.java` plus each type's
//! `getInstance(TypeParser)`); see the grammar table in the [module docs](super).

use core::fmt;

use serde::Serialize;

use super::{AbstractType, MARSHAL_PACKAGE};
use crate::error::Error;

/// How deeply type parameters may nest (`ListType(ListType(…))`); deeper strings are an error,
/// so that nothing recurses without bound.
pub const MAX_NESTING_DEPTH: usize = 64;

/// Why a type string did not parse.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TypeParseErrorKind {
    /// The string is empty or only blanks.
    Empty,
    /// A class name (or another identifier) was expected; `found` is `None` at the end.
    ExpectedName { found: Option<char> },
    /// A particular token was expected.
    Expected {
        expected: &'static str,
        found: Option<char>,
    },
    /// Characters follow a complete type.
    TrailingCharacters { found: char },
    /// Parameters nest deeper than [`MAX_NESTING_DEPTH`].
    TooDeep { limit: usize },
    /// A type got the wrong number of type parameters.
    ParameterCount {
        class: &'static str,
        expected: usize,
        found: usize,
    },
    /// A name that must be hex (UserType, ColumnToCollectionType) is not.
    InvalidHex { text: String },
    /// A hex-encoded name is not UTF-8.
    NameNotUtf8 { hex: String },
    /// A DynamicCompositeType alias that is not one character in `!`..=`\x7f`.
    InvalidAlias { alias: String },
    /// A VectorType dimension that is not a positive 32-bit integer, or that makes the vector
    /// larger than 2^31 − 1 bytes.
    InvalidDimension { text: String },
    /// A ColumnToCollectionType entry whose type is not a list, set or map.
    NotACollection { found: String },
}

impl fmt::Display for TypeParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn found(f: &mut fmt::Formatter<'_>, c: &Option<char>) -> fmt::Result {
            match c {
                Some(c) => write!(f, "found {c:?}"),
                None => f.write_str("found end of string"),
            }
        }
        match self {
            TypeParseErrorKind::Empty => f.write_str("empty type string"),
            TypeParseErrorKind::ExpectedName { found: c } => {
                f.write_str("expected a name, ")?;
                found(f, c)
            }
            TypeParseErrorKind::Expected { expected, found: c } => {
                write!(f, "expected {expected}, ")?;
                found(f, c)
            }
            TypeParseErrorKind::TrailingCharacters { found } => {
                write!(f, "unexpected {found:?} after the end of the type")
            }
            TypeParseErrorKind::TooDeep { limit } => {
                write!(f, "type parameters nest deeper than {limit} levels")
            }
            TypeParseErrorKind::ParameterCount {
                class,
                expected,
                found,
            } => write!(
                f,
                "{class} takes {expected} type parameter(s), found {found}"
            ),
            TypeParseErrorKind::InvalidHex { text } => {
                write!(f, "expected an even number of hex digits, found {text:?}")
            }
            TypeParseErrorKind::NameNotUtf8 { hex } => {
                write!(f, "hex-encoded name {hex:?} is not UTF-8")
            }
            TypeParseErrorKind::InvalidAlias { alias } => {
                write!(f, "alias {alias:?} is not a single printable character")
            }
            TypeParseErrorKind::InvalidDimension { text } => {
                write!(f, "invalid vector dimension {text:?}")
            }
            TypeParseErrorKind::NotACollection { found } => {
                write!(f, "expected a collection type, found {found}")
            }
        }
    }
}

/// A type string that did not parse, with the position where parsing stopped.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct TypeParseError {
    /// Character (not byte) offset in the type string.
    pub offset: usize,
    /// The same position in UTF-8 bytes, to point into the file the string came from.
    pub byte_offset: usize,
    pub kind: TypeParseErrorKind,
}

impl TypeParseError {
    /// This error as an engine [`Error`] at an absolute file offset, given the file offset of
    /// the type string's first byte.
    pub fn to_engine_error(&self, string_file_offset: u64) -> Error {
        let byte_offset = u64::try_from(self.byte_offset).unwrap_or(u64::MAX);
        Error::invalid(
            format!("bad type string: {} (at char {})", self.kind, self.offset),
            string_file_offset.saturating_add(byte_offset),
        )
    }
}

impl fmt::Display for TypeParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at char {}", self.kind, self.offset)
    }
}

impl std::error::Error for TypeParseError {}

type Result<T> = core::result::Result<T, TypeParseError>;

/// Parses a Cassandra type string such as
/// `org.apache.cassandra.db.marshal.MapType(UTF8Type,FrozenType(ListType(Int32Type)))`.
///
/// The whole string must be one type (blanks around it are fine). Unknown classes become
/// [`AbstractType::Custom`]. See the [module docs](super) for the grammar and the freezing rules.
pub fn parse_type(s: &str) -> Result<AbstractType> {
    let mut p = Parser {
        chars: s.chars().collect(),
        idx: 0,
    };
    p.skip_blank();
    if p.peek().is_none() {
        return Err(p.error(TypeParseErrorKind::Empty));
    }
    let t = p.parse_type(0)?;
    p.skip_blank();
    match p.peek() {
        None => Ok(t),
        Some(found) => Err(p.error(TypeParseErrorKind::TrailingCharacters { found })),
    }
}

/// A class name split into its marshal short name (if it is in the marshal package) and its
/// fully qualified form.
fn resolve_class(name: &str) -> (Option<&str>, String) {
    if !name.contains('.') {
        return (Some(name), format!("{MARSHAL_PACKAGE}{name}"));
    }
    match name.strip_prefix(MARSHAL_PACKAGE) {
        Some(short) if !short.contains('.') => (Some(short), name.to_owned()),
        _ => (None, name.to_owned()),
    }
}

/// `TypeParser.isIdentifierChar`: `[0-9a-zA-Z-+._&]`.
fn is_identifier_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.' | '_' | '&')
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// The parser state: the string as characters (so that offsets are character offsets) and the
/// current position.
struct Parser {
    chars: Vec<char>,
    idx: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.idx).copied()
    }

    /// Moves past one character; `idx` never exceeds the character count, so it cannot saturate.
    fn bump(&mut self) {
        self.idx = self.idx.saturating_add(1);
    }

    fn error(&self, kind: TypeParseErrorKind) -> TypeParseError {
        self.error_at(self.idx, kind)
    }

    fn error_at(&self, offset: usize, kind: TypeParseErrorKind) -> TypeParseError {
        let byte_offset = self.chars.iter().take(offset).map(|c| c.len_utf8()).sum();
        TypeParseError {
            offset,
            byte_offset,
            kind,
        }
    }

    fn skip_blank(&mut self) {
        while self.peek().is_some_and(is_blank) {
            self.bump();
        }
    }

    /// Reads a possibly empty identifier at the current position.
    fn identifier(&mut self) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek().filter(|&c| is_identifier_char(c)) {
            out.push(c);
            self.bump();
        }
        out
    }

    /// Skips blanks and reads a non-empty identifier.
    fn name(&mut self) -> Result<String> {
        self.skip_blank();
        let name = self.identifier();
        if name.is_empty() {
            return Err(self.error(TypeParseErrorKind::ExpectedName { found: self.peek() }));
        }
        Ok(name)
    }

    /// Skips blanks and consumes `c`, or fails saying `expected`.
    fn expect(&mut self, c: char, expected: &'static str) -> Result<()> {
        self.skip_blank();
        if self.peek() == Some(c) {
            self.bump();
            Ok(())
        } else {
            Err(self.error(TypeParseErrorKind::Expected {
                expected,
                found: self.peek(),
            }))
        }
    }

    /// Skips blanks and says whether a parameter list starts here.
    fn at_open_paren(&mut self) -> bool {
        self.skip_blank();
        self.peek() == Some('(')
    }

    /// A parenthesised, comma-separated list of `item`s, or `None` when no `(` follows.
    fn param_list<T>(
        &mut self,
        depth: usize,
        mut item: impl FnMut(&mut Parser, usize) -> Result<T>,
    ) -> Result<Option<Vec<T>>> {
        if !self.at_open_paren() {
            return Ok(None);
        }
        self.bump();
        let mut items = Vec::new();
        self.skip_blank();
        if self.peek() == Some(')') {
            self.bump();
            return Ok(Some(items));
        }
        loop {
            items.push(item(self, depth)?);
            self.skip_blank();
            match self.peek() {
                Some(',') => self.bump(),
                Some(')') => {
                    self.bump();
                    return Ok(Some(items));
                }
                found => {
                    return Err(self.error(TypeParseErrorKind::Expected {
                        expected: "',' or ')'",
                        found,
                    }))
                }
            }
        }
    }

    /// `getTypeParameters`: a list of types (empty when no `(` follows).
    fn type_params(&mut self, depth: usize) -> Result<Vec<AbstractType>> {
        Ok(self
            .param_list(depth, |p, d| p.parse_type(d.saturating_add(1)))?
            .unwrap_or_default())
    }

    /// Exactly `N` type parameters of `class`, whose name started at `start`.
    fn fixed_params<const N: usize>(
        &mut self,
        depth: usize,
        class: &'static str,
        start: usize,
    ) -> Result<[AbstractType; N]> {
        let params = self.type_params(depth)?;
        let found = params.len();
        <[AbstractType; N]>::try_from(params).map_err(|_| {
            self.error_at(
                start,
                TypeParseErrorKind::ParameterCount {
                    class,
                    expected: N,
                    found,
                },
            )
        })
    }

    /// One type, starting at the current position (blanks first are skipped).
    fn parse_type(&mut self, depth: usize) -> Result<AbstractType> {
        self.skip_blank();
        let start = self.idx;
        if depth > MAX_NESTING_DEPTH {
            return Err(self.error(TypeParseErrorKind::TooDeep {
                limit: MAX_NESTING_DEPTH,
            }));
        }
        let name = self.name()?;
        let (short, qualified) = resolve_class(&name);
        let Some(short) = short else {
            return self.custom(qualified);
        };
        if let Some(simple) = AbstractType::simple_from_short_name(short) {
            return self.default_parameters(simple, depth);
        }
        Ok(match short {
            "CompositeType" => AbstractType::Composite(self.type_params(depth)?),
            "DynamicCompositeType" => {
                AbstractType::DynamicComposite(self.alias_params(depth)?.unwrap_or_default())
            }
            "ReversedType" => {
                let [base] = self.fixed_params(depth, "ReversedType", start)?;
                AbstractType::Reversed(Box::new(base))
            }
            "FrozenType" => {
                let [inner] = self.fixed_params(depth, "FrozenType", start)?;
                inner.freeze()
            }
            "ListType" => {
                let [element] = self.fixed_params(depth, "ListType", start)?;
                AbstractType::List {
                    element: Box::new(element.freeze()),
                    multi_cell: true,
                }
            }
            "SetType" => {
                let [element] = self.fixed_params(depth, "SetType", start)?;
                AbstractType::Set {
                    element: Box::new(element.freeze()),
                    multi_cell: true,
                }
            }
            "MapType" => {
                let [key, value] = self.fixed_params(depth, "MapType", start)?;
                AbstractType::Map {
                    key: Box::new(key.freeze()),
                    value: Box::new(value.freeze()),
                    multi_cell: true,
                }
            }
            "TupleType" => AbstractType::Tuple(
                self.type_params(depth)?
                    .into_iter()
                    .map(AbstractType::freeze)
                    .collect(),
            ),
            "UserType" => self.user_type(depth)?,
            "VectorType" => self.vector(depth)?,
            "PartitionerDefinedOrder" => self.partitioner_defined_order(depth)?,
            "ColumnToCollectionType" => {
                AbstractType::ColumnToCollection(self.collection_params(depth)?.unwrap_or_default())
            }
            _ => return self.custom(qualified),
        })
    }

    /// `AbstractType.parseDefaultParameters`: a simple type may be followed by
    /// `(key=value,…)`; only `reversed` (empty or `true`) means anything.
    fn default_parameters(&mut self, simple: AbstractType, depth: usize) -> Result<AbstractType> {
        let params = self.param_list(depth, |p, _| {
            let key = p.name()?;
            p.skip_blank();
            let mut value = String::new();
            if p.peek() == Some('=') {
                p.bump();
                p.skip_blank();
                value = p.identifier();
            }
            Ok((key, value))
        })?;
        let reversed = params
            .unwrap_or_default()
            .iter()
            .any(|(key, value)| key == "reversed" && (value.is_empty() || value == "true"));
        Ok(if reversed {
            AbstractType::Reversed(Box::new(simple))
        } else {
            simple
        })
    }

    /// An unknown class: keep the name and the raw text of its parameters, parentheses matched.
    fn custom(&mut self, qualified: String) -> Result<AbstractType> {
        if !self.at_open_paren() {
            return Ok(AbstractType::Custom(qualified));
        }
        let open = self.idx;
        let mut level = 0usize;
        while let Some(c) = self.peek() {
            self.bump();
            match c {
                '(' => level = level.saturating_add(1),
                ')' => {
                    level = level.saturating_sub(1);
                    if level == 0 {
                        let raw: String = self
                            .chars
                            .get(open..self.idx)
                            .unwrap_or_default()
                            .iter()
                            .collect();
                        return Ok(AbstractType::Custom(qualified + &raw));
                    }
                }
                _ => {}
            }
        }
        Err(self.error(TypeParseErrorKind::Expected {
            expected: "')'",
            found: None,
        }))
    }

    /// A hex identifier decoded as UTF-8 (`TypeParser.fromHex` + `UTF8Type.compose`).
    fn hex_name(&mut self) -> Result<String> {
        self.skip_blank();
        let start = self.idx;
        let hex = self.identifier();
        let bytes = decode_hex(&hex).ok_or_else(|| {
            self.error_at(start, TypeParseErrorKind::InvalidHex { text: hex.clone() })
        })?;
        String::from_utf8(bytes)
            .map_err(|_| self.error_at(start, TypeParseErrorKind::NameNotUtf8 { hex }))
    }

    /// `UserType(ks,hexname,hexfield:T,…)` (`getUserTypeParameters`); fields are frozen.
    fn user_type(&mut self, depth: usize) -> Result<AbstractType> {
        self.expect('(', "'(' after UserType")?;
        let keyspace = self.name()?;
        self.expect(',', "','")?;
        let name = self.hex_name()?;
        let mut fields = Vec::new();
        loop {
            self.skip_blank();
            match self.peek() {
                Some(')') => {
                    self.bump();
                    break;
                }
                Some(',') => self.bump(),
                found => {
                    return Err(self.error(TypeParseErrorKind::Expected {
                        expected: "',' or ')'",
                        found,
                    }))
                }
            }
            let field = self.hex_name()?;
            self.expect(':', "':'")?;
            let t = self.parse_type(depth.saturating_add(1))?;
            fields.push((field, t.freeze()));
        }
        Ok(AbstractType::UserType {
            keyspace,
            name,
            fields,
            multi_cell: true,
        })
    }

    /// `DynamicCompositeType(a=>T,…)` (`getAliasParameters`).
    fn alias_params(&mut self, depth: usize) -> Result<Option<Vec<(char, AbstractType)>>> {
        self.param_list(depth, |p, d| {
            p.skip_blank();
            let start = p.idx;
            let alias = p.identifier();
            let mut chars = alias.chars();
            let c = match (chars.next(), chars.next()) {
                (Some(c), None) if ('!'..='\x7f').contains(&c) => c,
                _ => return Err(p.error_at(start, TypeParseErrorKind::InvalidAlias { alias })),
            };
            p.expect('=', "'=>'")?;
            if p.peek() != Some('>') {
                return Err(p.error(TypeParseErrorKind::Expected {
                    expected: "'=>'",
                    found: p.peek(),
                }));
            }
            p.bump();
            Ok((c, p.parse_type(d.saturating_add(1))?))
        })
    }

    /// `ColumnToCollectionType(hexname:collection,…)` (`getCollectionsParameters`).
    fn collection_params(&mut self, depth: usize) -> Result<Option<Vec<(String, AbstractType)>>> {
        self.param_list(depth, |p, d| {
            let name = p.hex_name()?;
            p.expect(':', "':'")?;
            p.skip_blank();
            let start = p.idx;
            let t = p.parse_type(d.saturating_add(1))?;
            if !matches!(
                t,
                AbstractType::List { .. } | AbstractType::Set { .. } | AbstractType::Map { .. }
            ) {
                return Err(p.error_at(
                    start,
                    TypeParseErrorKind::NotACollection {
                        found: t.to_type_string(),
                    },
                ));
            }
            Ok((name, t))
        })
    }

    /// `VectorType(T , dimension)` (`getVectorParameters`); the element is frozen.
    fn vector(&mut self, depth: usize) -> Result<AbstractType> {
        self.expect('(', "'(' after VectorType")?;
        let element = self.parse_type(depth.saturating_add(1))?.freeze();
        self.expect(',', "','")?;
        self.skip_blank();
        let start = self.idx;
        let text = self.identifier();
        let element_bytes = u64::from(element.value_length_if_fixed().unwrap_or(0));
        let dimension = text
            .parse::<u32>()
            .ok()
            .filter(|&d| d > 0 && i32::try_from(d).is_ok())
            .filter(|&d| {
                u64::from(d)
                    .checked_mul(element_bytes)
                    .is_some_and(|bytes| bytes <= i32::MAX as u64)
            });
        let Some(dimension) = dimension else {
            return Err(self.error_at(start, TypeParseErrorKind::InvalidDimension { text }));
        };
        self.expect(')', "')'")?;
        Ok(AbstractType::Vector {
            element: Box::new(element),
            dimension,
        })
    }

    /// `PartitionerDefinedOrder(partitioner[:type])` (`getPartitionerDefinedOrder`).
    fn partitioner_defined_order(&mut self, depth: usize) -> Result<AbstractType> {
        self.expect('(', "'(' after PartitionerDefinedOrder")?;
        let partitioner = self.name()?;
        self.skip_blank();
        let mut base = None;
        if self.peek() == Some(':') {
            self.bump();
            base = Some(Box::new(self.parse_type(depth.saturating_add(1))?));
        }
        self.expect(')', "')'")?;
        Ok(AbstractType::PartitionerDefinedOrder { partitioner, base })
    }
}

/// Hex digits (either case) to bytes; `None` for odd lengths or non-hex characters.
fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = hex
        .chars()
        .map(|c| c.to_digit(16).and_then(|d| u8::try_from(d).ok()))
        .collect::<Option<_>>()?;
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    Some(
        digits
            .chunks_exact(2)
            .map(|pair| pair.iter().fold(0u8, |acc, d| (acc << 4) | d))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> TypeParseError {
        match parse_type(s) {
            Ok(t) => panic!("{s:?} parsed as {t:?}"),
            Err(e) => e,
        }
    }

    fn int() -> Box<AbstractType> {
        Box::new(AbstractType::Int32)
    }

    #[test]
    fn composite() {
        let t = parse_type("CompositeType(UTF8Type,Int32Type)").unwrap();
        assert_eq!(
            t,
            AbstractType::Composite(vec![AbstractType::Utf8, AbstractType::Int32])
        );
        assert_eq!(t.cql(), "composite<text, int>");
        assert_eq!(
            parse_type("org.apache.cassandra.db.marshal.CompositeType( UTF8Type , Int32Type )")
                .unwrap(),
            t
        );
        assert_eq!(
            parse_type("CompositeType").unwrap(),
            AbstractType::Composite(vec![])
        );
    }

    #[test]
    fn reversed() {
        let t = parse_type("ReversedType(Int32Type)").unwrap();
        assert_eq!(t, AbstractType::Reversed(int()));
        assert!(t.is_reversed());
        assert_eq!(t.base(), &AbstractType::Int32);
        assert_eq!(t.cql(), "int");
        assert_eq!(t.value_length_if_fixed(), Some(4));
        // The legacy key-value form means the same.
        assert_eq!(parse_type("Int32Type(reversed=true)").unwrap(), t);
        assert_eq!(parse_type("Int32Type(reversed)").unwrap(), t);
        assert_eq!(
            parse_type("Int32Type(reversed=false)").unwrap(),
            AbstractType::Int32
        );
    }

    #[test]
    fn frozen_map() {
        let t = parse_type("FrozenType(MapType(UTF8Type,Int32Type))").unwrap();
        assert_eq!(
            t,
            AbstractType::Map {
                key: Box::new(AbstractType::Utf8),
                value: int(),
                multi_cell: false
            }
        );
        assert!(!t.is_multi_cell() && t.is_collection());
        assert_eq!(t.cql(), "frozen<map<text, int>>");
        let bare = parse_type("MapType(UTF8Type,Int32Type)").unwrap();
        assert!(bare.is_multi_cell());
        assert_eq!(bare.cql(), "map<text, int>");
    }

    #[test]
    fn list_of_frozen_udt() {
        let s = "ListType(FrozenType(UserType(ks,7574,61:Int32Type,62:Int32Type)))";
        let t = parse_type(s).unwrap();
        let udt = AbstractType::UserType {
            keyspace: "ks".into(),
            name: "ut".into(),
            fields: vec![
                ("a".into(), AbstractType::Int32),
                ("b".into(), AbstractType::Int32),
            ],
            multi_cell: false,
        };
        assert_eq!(
            t,
            AbstractType::List {
                element: Box::new(udt),
                multi_cell: true
            }
        );
        assert!(t.is_multi_cell() && t.is_collection());
        assert_eq!(t.cql(), "list<frozen<ut>>");
        // Elements are frozen even without FrozenType (3.0.x wrote UDTs that way).
        assert_eq!(
            parse_type("ListType(UserType(ks,7574,61:Int32Type,62:Int32Type))").unwrap(),
            t
        );
    }

    #[test]
    fn bare_udt_is_multi_cell() {
        let t = parse_type("UserType(ks,61646472657373,7a6970:Int32Type)").unwrap();
        assert!(t.is_multi_cell());
        assert_eq!(t.cql(), "address");
        assert_eq!(t.clone().freeze().cql(), "frozen<address>");
        let t = parse_type("UserType(ks,4164647220,78:Int32Type)").unwrap();
        assert_eq!(t.cql(), "\"Addr \"");
        // Reserved keywords are quoted too (`table`), other keywords are not (`key`).
        let t = parse_type("UserType(ks,7461626c65)").unwrap();
        assert_eq!(t.cql(), "\"table\"");
        let t = parse_type("UserType(ks,6b6579)").unwrap();
        assert_eq!(t.cql(), "key");
    }

    #[test]
    fn tuple() {
        let t = parse_type("TupleType(Int32Type,UTF8Type)").unwrap();
        assert_eq!(
            t,
            AbstractType::Tuple(vec![AbstractType::Int32, AbstractType::Utf8])
        );
        assert!(!t.is_multi_cell() && !t.is_collection());
        assert_eq!(t.cql(), "tuple<int, text>");
        // Members are frozen.
        let t = parse_type("TupleType(ListType(Int32Type))").unwrap();
        assert_eq!(t.cql(), "tuple<frozen<list<int>>>");
        assert_eq!(
            parse_type("FrozenType(TupleType(Int32Type,UTF8Type))").unwrap(),
            AbstractType::Tuple(vec![AbstractType::Int32, AbstractType::Utf8])
        );
    }

    #[test]
    fn dynamic_composite() {
        let t = parse_type("DynamicCompositeType(a=>Int32Type,b=>UTF8Type)").unwrap();
        assert_eq!(
            t,
            AbstractType::DynamicComposite(vec![
                ('a', AbstractType::Int32),
                ('b', AbstractType::Utf8)
            ])
        );
        assert_eq!(t.cql(), "dynamic_composite<a=>int, b=>text>");
        assert_eq!(
            parse_type("DynamicCompositeType( a => Int32Type , b=>UTF8Type )").unwrap(),
            t
        );
        let e = err("DynamicCompositeType(ab=>Int32Type)");
        assert_eq!(e.offset, 21);
        assert!(matches!(e.kind, TypeParseErrorKind::InvalidAlias { .. }));
        let e = err("DynamicCompositeType(a=Int32Type)");
        assert_eq!(e.offset, 23);
    }

    #[test]
    fn vector() {
        let t = parse_type("VectorType(FloatType , 3)").unwrap();
        assert_eq!(
            t,
            AbstractType::Vector {
                element: Box::new(AbstractType::Float),
                dimension: 3
            }
        );
        assert_eq!(t.cql(), "vector<float, 3>");
        assert_eq!(t.value_length_if_fixed(), Some(12));
        assert_eq!(
            t.to_type_string(),
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)"
        );
        assert_eq!(parse_type("VectorType(FloatType,3)").unwrap(), t);
        let t = parse_type("VectorType(ListType(Int32Type) , 2)").unwrap();
        assert_eq!(t.cql(), "vector<frozen<list<int>>, 2>");
        for (s, at) in [
            ("VectorType(FloatType , 0)", 23),
            ("VectorType(FloatType , -3)", 23),
            ("VectorType(FloatType , x)", 23),
            ("VectorType(FloatType , 2147483648)", 23),
            ("VectorType(DoubleType , 268435456)", 24),
        ] {
            let e = err(s);
            assert!(
                matches!(e.kind, TypeParseErrorKind::InvalidDimension { .. }),
                "{s}: {e}"
            );
            assert_eq!(e.offset, at, "{s}");
        }
        assert_eq!(err("VectorType(FloatType)").offset, 20);
        assert_eq!(err("VectorType(FloatType , 3").offset, 24);
    }

    #[test]
    fn partitioner_defined_order() {
        let t = parse_type("PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner)")
            .unwrap();
        assert_eq!(
            t,
            AbstractType::PartitionerDefinedOrder {
                partitioner: "org.apache.cassandra.dht.Murmur3Partitioner".into(),
                base: None
            }
        );
        assert_eq!(
            t.cql(),
            "'org.apache.cassandra.db.marshal.PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner)'"
        );
        assert_eq!(t.value_length_if_fixed(), None);
        let t = parse_type("PartitionerDefinedOrder(Murmur3Partitioner:Int32Type)").unwrap();
        assert_eq!(
            t,
            AbstractType::PartitionerDefinedOrder {
                partitioner: "Murmur3Partitioner".into(),
                base: Some(int())
            }
        );
        assert_eq!(
            t.to_type_string(),
            "org.apache.cassandra.db.marshal.PartitionerDefinedOrder(Murmur3Partitioner:org.apache.cassandra.db.marshal.Int32Type)"
        );
        assert_eq!(err("PartitionerDefinedOrder").offset, 23);
    }

    #[test]
    fn column_to_collection() {
        let t = parse_type(
            "ColumnToCollectionType(6d:MapType(UTF8Type,Int32Type),73:SetType(Int32Type))",
        )
        .unwrap();
        let AbstractType::ColumnToCollection(entries) = &t else {
            panic!("{t:?}")
        };
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].0, "m");
        assert_eq!(entries[0].1.cql(), "map<text, int>");
        assert_eq!(entries[1].0, "s");
        let e = err("ColumnToCollectionType(6d:Int32Type)");
        assert_eq!(e.offset, 26);
        assert!(matches!(e.kind, TypeParseErrorKind::NotACollection { .. }));
    }

    #[test]
    fn unknown_classes_are_custom() {
        let t = parse_type("com.example.PointType").unwrap();
        assert_eq!(t, AbstractType::Custom("com.example.PointType".into()));
        assert_eq!(t.cql(), "'com.example.PointType'");
        let t = parse_type("FancyType").unwrap();
        assert_eq!(
            t,
            AbstractType::Custom("org.apache.cassandra.db.marshal.FancyType".into())
        );
        let t = parse_type("ListType(com.example.Geo(a=1, b=(2,3)))").unwrap();
        assert_eq!(t.cql(), "list<'com.example.Geo(a=1, b=(2,3))'>");
        assert_eq!(parse_type(&t.to_type_string()).unwrap(), t);
        assert!(!t.base().is_counter());
        assert_eq!(err("com.example.Geo(a=(1)").offset, 21);
    }

    #[test]
    fn malformed_strings_have_offsets() {
        let cases: &[(&str, usize)] = &[
            ("", 0),
            ("   ", 3),
            ("ListType(Int32Type", 18),
            ("ListType(Int32Type))", 19),
            ("MapType(UTF8Type,Int32Type", 26),
            ("Int32Type junk", 10),
            ("Int32Type)", 9),
            ("(Int32Type)", 0),
            ("ListType()", 0),
            ("ListType", 0),
            ("MapType(Int32Type)", 0),
            ("ReversedType(Int32Type,Int32Type)", 0),
            ("FrozenType()", 0),
            ("ListType(,Int32Type)", 9),
            ("CompositeType(Int32Type,,Int32Type)", 24),
            ("CompositeType(Int32Type Int32Type)", 24),
            ("UserType", 8),
            ("UserType(ks,7g,61:Int32Type)", 12),
            ("UserType(ks,757,61:Int32Type)", 12),
            ("UserType(ks,ff,61:Int32Type)", 12),
            ("UserType(ks,7574,61 Int32Type)", 20),
            ("UserType(ks,7574,61:)", 20),
            ("UserType(,7574)", 9),
            ("Int32Type(reversed=true", 23),
            ("Int32Type(=true)", 10),
            ("List\u{e9}Type(Int32Type)", 4),
        ];
        for &(s, offset) in cases {
            let e = err(s);
            assert_eq!(e.offset, offset, "{s:?}: {e}");
            assert!(!e.to_string().is_empty());
        }
        assert_eq!(err("").kind, TypeParseErrorKind::Empty);
        let e = err("ListType(Int32Type");
        assert_eq!(
            e.to_string(),
            "expected ',' or ')', found end of string at char 18"
        );
        let e = err("Int32Type junk");
        assert_eq!(
            e.kind,
            TypeParseErrorKind::TrailingCharacters { found: 'j' }
        );
        let e = err("MapType(Int32Type)");
        assert_eq!(
            e.to_string(),
            "MapType takes 2 type parameter(s), found 1 at char 0"
        );
        // Character and byte offsets differ after non-ASCII text.
        let e = err("\u{e9}");
        assert_eq!((e.offset, e.byte_offset), (0, 0));
        let e = err("Int32Type\u{e9}\u{e9}");
        assert_eq!((e.offset, e.byte_offset), (9, 9));
        let e = err("com.x.T(\u{e9}");
        assert_eq!((e.offset, e.byte_offset), (9, 10));
        let engine = e.to_engine_error(100);
        assert_eq!(engine.offset(), 110);
    }

    #[test]
    fn absurd_nesting_is_an_error() {
        let n = 100_000;
        let s = format!("{}Int32Type{}", "ListType(".repeat(n), ")".repeat(n));
        let e = err(&s);
        assert_eq!(
            e.kind,
            TypeParseErrorKind::TooDeep {
                limit: MAX_NESTING_DEPTH
            }
        );
        assert_eq!(e.offset, 9 * (MAX_NESTING_DEPTH + 1));
        // The limit itself is fine.
        let d = MAX_NESTING_DEPTH;
        let s = format!("{}Int32Type{}", "FrozenType(".repeat(d), ")".repeat(d));
        assert_eq!(parse_type(&s).unwrap(), AbstractType::Int32);
        // Deep unknown parameters are raw text, not recursion.
        let s = format!("com.x.T{}{}", "(".repeat(n), ")".repeat(n));
        assert!(parse_type(&s).is_ok());
    }

    #[test]
    fn hex_decoding() {
        assert_eq!(decode_hex(""), Some(vec![]));
        assert_eq!(decode_hex("00ffA0"), Some(vec![0, 0xff, 0xa0]));
        assert_eq!(decode_hex("abc"), None);
        assert_eq!(decode_hex("zz"), None);
    }
}
