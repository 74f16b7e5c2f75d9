//! Why a type string did not parse: [`TypeParseErrorKind`] and [`TypeParseError`] (with its
//! character and byte offsets), and how one becomes an engine [`Error`] at a file offset.
//!
//! Src: `db/marshal/TypeParser.java` (its `SyntaxException`s).

use core::fmt;

use serde::Serialize;

use crate::error::Error;

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
    /// Parameters nest deeper than [`MAX_NESTING_DEPTH`](super::MAX_NESTING_DEPTH).
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
