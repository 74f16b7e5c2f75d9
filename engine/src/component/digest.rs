//! Digest.crc32 / Digest.adler32 / Digest.sha1: the checksum of the whole Data.db as stored.
//!
//! | content | file name | written by |
//! |---|---|---|
//! | 40 hex digits of SHA-1, two spaces, the Data.db file name (`sha1sum` format) | `Digest.sha1` | ≤ 2.0 (`ic`, `jb`) |
//! | ASCII decimal unsigned Adler32 | `Digest.sha1` (sic) | 2.1 (`ka`), ScyllaDB ka/la |
//! | ASCII decimal unsigned Adler32 | `Digest.adler32` | 2.2 (`la`) |
//! | ASCII decimal unsigned CRC32 | `Digest.crc32` | 3.0+ (`ma`…`oa`, `da`) |
//!
//! The decimal forms have no trailing newline. The checksum covers every byte of Data.db, chunk
//! checksums included when it is compressed. Which algorithm is *effective* is decided by the
//! content: a decimal value in a `.sha1` file is an Adler32.
//!
//! Src: `src/java/org/apache/cassandra/io/util/ChecksumWriter.java` (`writeFullChecksum`: the
//! decimal `Checksum.getValue()`), `src/java/org/apache/cassandra/io/sstable/Component.java`
//! (digest names per checksum type); `cassandra-2.1`/`cassandra-2.2`
//! `io/util/DataIntegrityMetadata.java` (`ChecksumWriter.writeFullChecksum`). The 2.0 SHA-1 text
//! layout is taken from the `jb` and `ic` fixtures, not from source.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use crate::component::crc::{push_warnings, ChecksumType};
use crate::component::{ComponentType, DigestAlgorithm};
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::version::{Format, Version};

/// The parsed content of a digest file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum DigestValue {
    /// A decimal CRC32 or Adler32.
    Checksum(Spanned<u32>),
    /// A SHA-1 in lowercase or uppercase hex, and the file name after it, if any.
    Sha1 {
        hex: Spanned<String>,
        file_name: Option<Spanned<String>>,
    },
}

/// A decoded digest file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Digest {
    /// The algorithm named by the file name.
    pub file_algorithm: DigestAlgorithm,
    /// The algorithm the content really holds (Adler32 for a decimal value in `Digest.sha1`).
    pub algorithm: DigestAlgorithm,
    /// The whole stored text (lossy UTF-8).
    pub text: Spanned<String>,
    pub value: DigestValue,
    /// Suspicious values (decoding went on).
    pub warnings: Vec<String>,
}

/// The digest algorithm a writer of `version` uses: SHA-1 before ka, Adler32 for ka/la,
/// CRC32 from ma on (and `da`).
pub fn expected_algorithm(version: &Version) -> DigestAlgorithm {
    if version.format() == Format::Bti || version.has_row_format() {
        DigestAlgorithm::Crc32
    } else if version.has_repaired_at() {
        DigestAlgorithm::Adler32
    } else {
        DigestAlgorithm::Sha1
    }
}

fn algorithm_name(a: DigestAlgorithm) -> &'static str {
    match a {
        DigestAlgorithm::Crc32 => "CRC32",
        DigestAlgorithm::Adler32 => "Adler32",
        DigestAlgorithm::Sha1 => "SHA-1",
    }
}

/// Decodes a digest file whose name says `algorithm`.
pub fn decode(bytes: &[u8], algorithm: DigestAlgorithm, version: &Version) -> Result<Digest> {
    let r = Reader::new(bytes, 0).for_component(ComponentType::Digest(algorithm));
    let text = Spanned {
        value: String::from_utf8_lossy(bytes).into_owned(),
        span: Span::new(0, bytes.len() as u64),
    };
    let mut warnings = Vec::new();
    let Some((tok_start, tok_end)) = next_token(bytes, 0) else {
        return Err(r.invalid_at("the digest file holds no value", 0, "digest value"));
    };
    let token = bytes.get(tok_start..tok_end).unwrap_or(&[]);
    let token_span = Span::new(tok_start as u64, tok_end as u64);
    let (value, effective, rest_start) =
        if token.len() == 40 && token.iter().all(u8::is_ascii_hexdigit) {
            let hex = Spanned {
                value: String::from_utf8_lossy(token).to_ascii_lowercase(),
                span: token_span,
            };
            let (file_name, rest_start) = match file_name_after(bytes, tok_end) {
                Some((s, e)) => (
                    Some(Spanned {
                        value: String::from_utf8_lossy(bytes.get(s..e).unwrap_or(&[])).into_owned(),
                        span: Span::new(s as u64, e as u64),
                    }),
                    e,
                ),
                None => (None, tok_end),
            };
            if algorithm != DigestAlgorithm::Sha1 {
                warnings.push(format!(
                    "a {} digest file holds a SHA-1 hex string",
                    algorithm_name(algorithm)
                ));
            }
            (
                DigestValue::Sha1 { hex, file_name },
                DigestAlgorithm::Sha1,
                rest_start,
            )
        } else if token.iter().all(u8::is_ascii_digit) {
            let parsed = core::str::from_utf8(token)
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
                .and_then(|v| u32::try_from(v).ok());
            let Some(v) = parsed else {
                return Err(r.invalid_at(
                    format!(
                        "decimal digest {} does not fit in 32 bits",
                        String::from_utf8_lossy(token)
                    ),
                    tok_start as u64,
                    "digest value",
                ));
            };
            let effective = match algorithm {
                DigestAlgorithm::Crc32 => DigestAlgorithm::Crc32,
                DigestAlgorithm::Adler32 | DigestAlgorithm::Sha1 => DigestAlgorithm::Adler32,
            };
            (
                DigestValue::Checksum(Spanned {
                    value: v,
                    span: token_span,
                }),
                effective,
                tok_end,
            )
        } else {
            return Err(r.invalid_at(
                "neither a decimal checksum nor a 40-digit SHA-1 hex string",
                tok_start as u64,
                "digest value",
            ));
        };
    if let Some((s, _)) = next_token(bytes, rest_start) {
        warnings.push(format!("unexpected text after the digest at offset {s}"));
    }
    let expected = expected_algorithm(version);
    if expected != effective {
        warnings.push(format!(
            "version {version} writes {} digests, this file holds {}",
            algorithm_name(expected),
            algorithm_name(effective)
        ));
    }
    Ok(Digest {
        file_algorithm: algorithm,
        algorithm: effective,
        text,
        value,
        warnings,
    })
}

/// The next run of non-whitespace bytes at or after `from`, as `(start, end)`.
fn next_token(bytes: &[u8], from: usize) -> Option<(usize, usize)> {
    let rest = bytes.get(from..)?;
    let start = from.checked_add(rest.iter().position(|b| !b.is_ascii_whitespace())?)?;
    let token = bytes.get(start..)?;
    let len = token
        .iter()
        .position(u8::is_ascii_whitespace)
        .unwrap_or(token.len());
    Some((start, start.checked_add(len)?))
}

/// `sha1sum` format: after the hash, spaces, an optional `*` (binary mode), then the name up to
/// the end of the line.
fn file_name_after(bytes: &[u8], from: usize) -> Option<(usize, usize)> {
    let rest = bytes.get(from..)?;
    let mut start = from.checked_add(rest.iter().position(|&b| b != b' ' && b != b'\t')?)?;
    if bytes.get(start) == Some(&b'*') {
        start = start.checked_add(1)?;
    }
    let line = bytes.get(start..)?;
    let line_len = line
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .unwrap_or(line.len());
    let mut end = start.checked_add(line_len)?;
    while let Some(last) = end.checked_sub(1).filter(|&last| last >= start) {
        if !bytes.get(last).is_some_and(u8::is_ascii_whitespace) {
            break;
        }
        end = last;
    }
    (end > start).then_some((start, end))
}

impl Digest {
    /// The stored decimal checksum, if this is one.
    pub fn checksum(&self) -> Option<u32> {
        match &self.value {
            DigestValue::Checksum(v) => Some(v.value),
            DigestValue::Sha1 { .. } => None,
        }
    }

    /// The stored SHA-1 (lowercase hex), if this is one.
    pub fn sha1_hex(&self) -> Option<&str> {
        match &self.value {
            DigestValue::Sha1 { hex, .. } => Some(&hex.value),
            DigestValue::Checksum(_) => None,
        }
    }

    /// The algorithm to recompute the stored checksum with (`None` for SHA-1, which the engine
    /// does not compute).
    pub fn checksum_type(&self) -> Option<ChecksumType> {
        match self.algorithm {
            DigestAlgorithm::Crc32 => Some(ChecksumType::Crc32),
            DigestAlgorithm::Adler32 => Some(ChecksumType::Adler32),
            DigestAlgorithm::Sha1 => None,
        }
    }

    /// The labelled field tree for the UI.
    pub fn to_node(&self) -> Node {
        let suffix = ComponentType::Digest(self.file_algorithm);
        let mut children = vec![Node::new(
            "algorithm",
            if self.algorithm == self.file_algorithm {
                algorithm_name(self.algorithm).to_owned()
            } else {
                format!(
                    "{} (in a file named {})",
                    algorithm_name(self.algorithm),
                    suffix.file_suffix()
                )
            },
            None,
        )];
        let summary = match &self.value {
            DigestValue::Checksum(v) => {
                children.push(Node::new(
                    "checksum",
                    format!("{} ({:#010x})", v.value, v.value),
                    Some(v.span),
                ));
                v.value.to_string()
            }
            DigestValue::Sha1 { hex, file_name } => {
                children.push(Node::new("sha1", hex.value.clone(), Some(hex.span)));
                if let Some(f) = file_name {
                    children.push(Node::new("file name", f.value.clone(), Some(f.span)));
                }
                hex.value.clone()
            }
        };
        push_warnings(&mut children, &self.warnings);
        Node::new(suffix.file_suffix(), summary, Some(self.text.span)).with_children(children)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::test_support::big;

    #[test]
    fn decimal_crc32() {
        let d = decode(b"2568411107", DigestAlgorithm::Crc32, &big("nb")).unwrap();
        assert_eq!(d.checksum(), Some(2_568_411_107));
        assert_eq!(d.algorithm, DigestAlgorithm::Crc32);
        assert_eq!(d.checksum_type(), Some(ChecksumType::Crc32));
        assert!(d.warnings.is_empty(), "{:?}", d.warnings);
        match &d.value {
            DigestValue::Checksum(v) => assert_eq!(v.span, Span::new(0, 10)),
            other => panic!("{other:?}"),
        }
        assert_eq!(d.to_node().find_at(3).unwrap().label, "checksum");
    }

    #[test]
    fn decimal_in_sha1_file_is_adler32() {
        let d = decode(b"2565739962", DigestAlgorithm::Sha1, &big("ka")).unwrap();
        assert_eq!(d.file_algorithm, DigestAlgorithm::Sha1);
        assert_eq!(d.algorithm, DigestAlgorithm::Adler32);
        assert_eq!(d.checksum_type(), Some(ChecksumType::Adler32));
        assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    }

    #[test]
    fn sha1_with_file_name() {
        let text = b"4A9F1896A599E4B3FF5D19600901DE1A0B851BC1  Keyspace1-Standard1-jb-0-Data.db\n";
        let d = decode(text, DigestAlgorithm::Sha1, &big("jb")).unwrap();
        assert_eq!(d.algorithm, DigestAlgorithm::Sha1);
        assert_eq!(
            d.sha1_hex(),
            Some("4a9f1896a599e4b3ff5d19600901de1a0b851bc1")
        );
        assert_eq!(d.checksum_type(), None);
        match &d.value {
            DigestValue::Sha1 { file_name, .. } => {
                let f = file_name.as_ref().unwrap();
                assert_eq!(f.value, "Keyspace1-Standard1-jb-0-Data.db");
                assert_eq!(f.span, Span::new(42, 74));
            }
            other => panic!("{other:?}"),
        }
        assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    }

    #[test]
    fn bad_content_is_an_error_or_a_warning() {
        for bad in [
            &b""[..],
            b"  \n",
            b"12x",
            b"4294967296",
            b"99999999999999999999999",
        ] {
            let e = decode(bad, DigestAlgorithm::Crc32, &big("nb")).unwrap_err();
            assert_eq!(
                e.component(),
                Some(&ComponentType::Digest(DigestAlgorithm::Crc32))
            );
        }
        let d = decode(b" 42\n junk", DigestAlgorithm::Crc32, &big("ka")).unwrap();
        assert_eq!(d.checksum(), Some(42));
        // Text after the value, and a CRC32 where ka writes Adler32.
        assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
    }
}
