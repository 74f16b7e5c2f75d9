//! Text helpers: cqlsh's string escapes and their inverse, hex, and the `:` escaping of
//! `AbstractCompositeType` (`escape`, `unescape`, `split`).

use core::fmt::Write;

/// `0x` followed by the bytes in lowercase hex (cqlsh's `format_value_blob`).
pub(super) fn hex(bytes: &[u8]) -> String {
    format!("0x{}", crate::span::hex(bytes))
}

/// Hex digits (no prefix, even count) to bytes; `None` when not valid hex.
pub(super) fn parse_hex_digits(digits: &str) -> Option<Vec<u8>> {
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() / 2);
    let mut chars = digits.chars();
    while let (Some(hi), Some(lo)) = (chars.next(), chars.next()) {
        let byte = (hi.to_digit(16)? << 4) | lo.to_digit(16)?;
        out.push(u8::try_from(byte).ok()?);
    }
    Some(out)
}

/// A string as cqlsh shows it (`format_value_text`): `\` doubled; C0 controls, DEL and
/// U+0080–U+00A0 as Python's `repr` writes them (`\n`, `\t`, `\r`, `\xNN`); with `quote`, `'`
/// doubled and the whole wrapped in `'…'`.
pub(super) fn escape_text(s: &str, quote: bool) -> String {
    let mut out = String::with_capacity(s.len().saturating_add(if quote { 2 } else { 0 }));
    if quote {
        out.push('\'');
    }
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' if quote => out.push_str("''"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{a0}' => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            _ => out.push(c),
        }
    }
    if quote {
        out.push('\'');
    }
    out
}

/// Undoes [`escape_text`]'s backslash escapes (not the quoting): `\\`, `\n`, `\t`, `\r`,
/// `\xNN`, `\uNNNN`, `\UNNNNNNNN`. Any other backslash is kept as it is. Err: the byte offset
/// of a `\x`/`\u`/`\U` escape that does not name a character, and why.
pub(super) fn unescape_text(s: &str) -> Result<String, (usize, String)> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&(_, next)) = chars.peek() else {
            out.push('\\');
            continue;
        };
        let hex_len = match next {
            '\\' => {
                chars.next();
                out.push('\\');
                continue;
            }
            'n' | 't' | 'r' => {
                chars.next();
                out.push(match next {
                    'n' => '\n',
                    't' => '\t',
                    _ => '\r',
                });
                continue;
            }
            'x' => 2,
            'u' => 4,
            'U' => 8,
            _ => {
                out.push('\\');
                continue;
            }
        };
        chars.next();
        let mut code: u32 = 0;
        for _ in 0..hex_len {
            let digit = chars.next().and_then(|(_, d)| d.to_digit(16));
            match digit {
                Some(d) => code = (code << 4) | d,
                None => {
                    return Err((
                        at,
                        format!("\\{next} must be followed by {hex_len} hex digits"),
                    ))
                }
            }
        }
        match char::from_u32(code) {
            Some(ch) => out.push(ch),
            None => return Err((at, format!("\\{next}{code:x} is not a Unicode character"))),
        }
    }
    Ok(out)
}

/// `AbstractCompositeType.escape`: `:` → `\:`, and a `!` appended when the result ends with
/// `\` or `!`.
pub(super) fn composite_escape(s: &str) -> String {
    let mut out = s.replace(':', "\\:");
    if out.ends_with('\\') || out.ends_with('!') {
        out.push('!');
    }
    out
}

/// `AbstractCompositeType.unescape`: `\:` → `:`, and one trailing `!` removed.
pub(super) fn composite_unescape(s: &str) -> String {
    let mut out = s.replace("\\:", ":");
    if out.ends_with('!') {
        out.pop();
    }
    out
}

/// `AbstractCompositeType.split`: the parts between `:` characters not preceded by `\`, each
/// with its byte offset in `s`. An empty string has no parts.
pub(super) fn composite_split(s: &str) -> Vec<(usize, &str)> {
    let mut parts = Vec::new();
    if s.is_empty() {
        return parts;
    }
    let mut start = 0;
    let mut prev = None;
    for (i, c) in s.char_indices() {
        if c == ':' && prev != Some('\\') {
            parts.push((start, s.get(start..i).unwrap_or("")));
            start = i.saturating_add(1); // ':' is one byte
        }
        prev = Some(c);
    }
    parts.push((start, s.get(start..).unwrap_or("")));
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_cqlsh() {
        assert_eq!(escape_text("a'b", false), "a'b");
        assert_eq!(escape_text("a'b", true), "'a''b'");
        assert_eq!(
            escape_text("a\\b\n\t\r\u{1}\u{7f}\u{a0}é", false),
            "a\\\\b\\n\\t\\r\\x01\\x7f\\xa0é"
        );
        for s in [
            "",
            "plain",
            "a\\b",
            "x\u{0}y",
            "tab\there",
            "quote'\\",
            "\u{85}\u{a0}\u{a1}",
        ] {
            assert_eq!(unescape_text(&escape_text(s, false)).unwrap(), s);
        }
        assert_eq!(unescape_text("C:\\temp").unwrap(), "C:\temp");
        assert_eq!(unescape_text("a\\qb\\").unwrap(), "a\\qb\\");
        assert_eq!(unescape_text("\\u00e9\\U0001F600").unwrap(), "é\u{1F600}");
        assert_eq!(unescape_text("ab\\x4").unwrap_err().0, 2);
        assert!(unescape_text("\\ud800").is_err());
    }

    #[test]
    fn hex_round_trip() {
        assert_eq!(hex(&[0, 0xab, 0xff]), "0x00abff");
        assert_eq!(hex(&[]), "0x");
        assert_eq!(parse_hex_digits("00abFF"), Some(vec![0, 0xab, 0xff]));
        assert_eq!(parse_hex_digits("abc"), None);
        assert_eq!(parse_hex_digits("zz"), None);
        assert_eq!(parse_hex_digits("é1"), None);
    }

    #[test]
    fn composite_escaping_matches_abstract_composite_type() {
        assert_eq!(composite_escape("a:b"), "a\\:b");
        assert_eq!(composite_escape("a\\"), "a\\!");
        assert_eq!(composite_escape("hi!"), "hi!!");
        assert_eq!(composite_escape(""), "");
        for s in ["a:b", "a\\", "hi!", "", "x:", ":"] {
            assert_eq!(composite_unescape(&composite_escape(s)), s);
        }
        assert_eq!(
            composite_split("a\\:b:c::d"),
            vec![(0, "a\\:b"), (5, "c"), (7, ""), (8, "d")]
        );
        assert!(composite_split("").is_empty());
        assert_eq!(composite_split("x"), vec![(0, "x")]);
    }
}
