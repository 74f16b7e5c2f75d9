//! Errors with the component and absolute byte offset where decoding stopped.
//!
//! Like wasmparser's `BinaryReaderError`, an [`Error`] is one boxed word so that `Result<T, Error>`
//! stays small on hot paths. Its `Display` reads
//! "unexpected end of data at 0x1f40 in Statistics.db (reading STATS: estimated partition size)".

use core::fmt;

use crate::component::ComponentType;

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Fewer bytes remain than the field needs.
    UnexpectedEof {
        needed_bytes: u64,
        available_bytes: u64,
    },
    /// A length or count read from the file is larger than the bytes that remain or a sane limit.
    LengthTooLarge { length: u64, limit: u64 },
    /// A value that the format does not allow.
    InvalidValue(String),
    /// A file name that follows none of Cassandra's naming schemes.
    BadFileName(String),
    /// A byte range the caller supplied does not cover what was asked for.
    MissingBytes { wanted_start: u64, wanted_end: u64 },
    /// An offset or length computed from values read from the file does not fit in 64 bits.
    Overflow,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::UnexpectedEof {
                needed_bytes,
                available_bytes,
            } => write!(
                f,
                "unexpected end of data (needed {needed_bytes} bytes, {available_bytes} available)"
            ),
            ErrorKind::LengthTooLarge { length, limit } => {
                write!(f, "length {length} exceeds the {limit} bytes available")
            }
            ErrorKind::InvalidValue(msg) => f.write_str(msg),
            ErrorKind::BadFileName(msg) => write!(f, "not an SSTable file name: {msg}"),
            ErrorKind::MissingBytes {
                wanted_start,
                wanted_end,
            } => {
                write!(f, "bytes {wanted_start}..{wanted_end} were not supplied")
            }
            ErrorKind::Overflow => f.write_str("an offset or length overflows 64 bits"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    offset: u64,
    component: Option<ComponentType>,
    context: &'static str,
}

/// A decoding error: kind, absolute offset in the file, component and what was being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(Box<Inner>);

/// Result alias used throughout the engine.
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl Error {
    /// An error of `kind` at absolute file `offset`.
    pub fn new(kind: ErrorKind, offset: u64) -> Self {
        Error(Box::new(Inner {
            kind,
            offset,
            component: None,
            context: "",
        }))
    }

    /// An [`ErrorKind::InvalidValue`] at `offset`.
    pub fn invalid(msg: impl Into<String>, offset: u64) -> Self {
        Self::new(ErrorKind::InvalidValue(msg.into()), offset)
    }

    /// Names the component the error happened in, unless one is already set.
    pub fn in_component(mut self, component: ComponentType) -> Self {
        if self.0.component.is_none() {
            self.0.component = Some(component);
        }
        self
    }

    /// Says what was being read, unless a more precise context is already set.
    pub fn context(mut self, context: &'static str) -> Self {
        if self.0.context.is_empty() {
            self.0.context = context;
        }
        self
    }

    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// Absolute byte offset in the component file.
    pub fn offset(&self) -> u64 {
        self.0.offset
    }

    pub fn component(&self) -> Option<&ComponentType> {
        self.0.component.as_ref()
    }

    /// What was being read ("" when unknown).
    pub fn what(&self) -> &'static str {
        self.0.context
    }

    /// The message without the component and offset, for reports that show those separately.
    pub fn message(&self) -> String {
        if self.0.context.is_empty() {
            self.0.kind.to_string()
        } else {
            format!("{} (reading {})", self.0.kind, self.0.context)
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at 0x{:x}", self.0.kind, self.0.offset)?;
        if let Some(c) = &self.0.component {
            write!(f, " in {}", c.file_suffix())?;
        }
        if !self.0.context.is_empty() {
            write!(f, " (reading {})", self.0.context)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_offset_component_and_context() {
        let e = Error::new(
            ErrorKind::UnexpectedEof {
                needed_bytes: 8,
                available_bytes: 3,
            },
            0x1f40,
        )
        .context("STATS: estimated partition size")
        .in_component(ComponentType::Statistics);
        assert_eq!(
            e.to_string(),
            "unexpected end of data (needed 8 bytes, 3 available) at 0x1f40 in Statistics.db \
             (reading STATS: estimated partition size)"
        );
        assert_eq!(core::mem::size_of::<Error>(), core::mem::size_of::<usize>());
    }
}
