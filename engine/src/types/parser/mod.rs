//! The type-string parser (Cassandra's `db/marshal/TypeParser.java` plus each type's
//! `getInstance(TypeParser)`); see the grammar table in the [module docs](super).

use super::{AbstractType, MARSHAL_PACKAGE};

mod error;

pub use error::{TypeParseError, TypeParseErrorKind};

/// How deeply type parameters may nest (`ListType(ListType(…))`); deeper strings are an error,
/// so that nothing recurses without bound.
pub const MAX_NESTING_DEPTH: usize = 64;

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
mod tests;
