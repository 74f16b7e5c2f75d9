//! A JSON emitter straight into a byte buffer, byte for byte as `serde_json` writes
//! (`to_string` compact, `to_string_pretty` with two-space indents), so `dump --json`/`--jsonl`
//! need no value tree and no `String` per value.

/// `key!(json, out, "name")`: [`Json::key`] with `,"name":` joined at compile time.
macro_rules! key {
    ($json:expr, $out:expr, $name:literal) => {
        $json.key_joined($out, concat!(",\"", $name, "\":"))
    };
}
pub(crate) use key;

/// Where the emitter is: nesting depth and whether the current object/array is still empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Json {
    pub pretty: bool,
    pub depth: usize,
    /// No member/element written yet in the innermost object/array.
    pub first: bool,
}

impl Json {
    pub fn new(pretty: bool, depth: usize) -> Json {
        Json {
            pretty,
            depth,
            first: true,
        }
    }

    /// A line break and the indent of the current depth (pretty), after a `,` unless `first`:
    /// one copy out of [`BREAK`] for the usual depths.
    #[inline]
    fn line_break(&self, out: &mut Vec<u8>, comma: bool) {
        let indent = self.depth.saturating_mul(2);
        let from = usize::from(!comma);
        match BREAK.get(from..indent.saturating_add(2)) {
            Some(text) => out.extend_from_slice(text),
            None => {
                out.extend_from_slice(BREAK.get(from..2).unwrap_or_default());
                let mut left = indent;
                while left > 0 {
                    let n = left.min(INDENT.len());
                    out.extend_from_slice(INDENT.get(..n).unwrap_or_default());
                    left = left.saturating_sub(n);
                }
            }
        }
    }

    #[inline]
    fn newline(&self, out: &mut Vec<u8>) {
        self.line_break(out, false);
    }

    /// Before a member or an element: the separator and, pretty, the line break and indent.
    #[inline(always)]
    pub fn elem(&mut self, out: &mut Vec<u8>) {
        if self.pretty {
            self.line_break(out, !self.first);
        } else if !self.first {
            out.push(b',');
        }
        self.first = false;
    }

    /// `"key": ` (or `"key":` compact) as the next member. Keys are the dump format's own
    /// names, which need no escape. Inlined, so the key's length is a constant at each call.
    #[inline(always)]
    pub fn key(&mut self, out: &mut Vec<u8>, key: &'static str) {
        if self.pretty {
            self.elem(out);
            out.push(b'"');
            out.extend_from_slice(key.as_bytes());
            out.extend_from_slice(b"\": ");
            return;
        }
        out.reserve(key.len().saturating_add(4));
        if !self.first {
            out.push(b',');
        }
        self.first = false;
        out.push(b'"');
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":");
    }

    /// [`Json::key`] of `joined`, the key with its separator and quotes (`,"name":`, built by
    /// [`key!`]): one copy of a constant length.
    #[inline(always)]
    pub fn key_joined(&mut self, out: &mut Vec<u8>, joined: &'static str) {
        let bytes = joined.as_bytes();
        if self.pretty {
            self.elem(out);
            out.extend_from_slice(bytes.get(1..).unwrap_or_default());
            out.push(b' ');
            return;
        }
        if self.first {
            out.extend_from_slice(bytes.get(1..).unwrap_or_default());
        } else {
            out.extend_from_slice(bytes);
        }
        self.first = false;
    }

    #[inline]
    pub fn begin_object(&mut self, out: &mut Vec<u8>) {
        out.push(b'{');
        self.depth = self.depth.saturating_add(1);
        self.first = true;
    }

    #[inline]
    pub fn end_object(&mut self, out: &mut Vec<u8>) {
        self.close(out, b'}');
    }

    #[inline]
    pub fn begin_array(&mut self, out: &mut Vec<u8>) {
        out.push(b'[');
        self.depth = self.depth.saturating_add(1);
        self.first = true;
    }

    #[inline]
    pub fn end_array(&mut self, out: &mut Vec<u8>) {
        self.close(out, b']');
    }

    #[inline(always)]
    fn close(&mut self, out: &mut Vec<u8>, bracket: u8) {
        self.depth = self.depth.saturating_sub(1);
        if !self.first && self.pretty {
            self.newline(out);
        }
        out.push(bracket);
        self.first = false;
    }

    /// A member with a string value.
    #[inline]
    pub fn str_member(&mut self, out: &mut Vec<u8>, key: &'static str, value: &str) {
        self.key(out, key);
        string(out, value);
    }

    /// A member with an integer value.
    #[inline]
    pub fn int_member(&mut self, out: &mut Vec<u8>, key: &'static str, value: i64) {
        self.key(out, key);
        push_i64(out, value);
    }

    #[inline]
    pub fn bool_member(&mut self, out: &mut Vec<u8>, key: &'static str, value: bool) {
        self.key(out, key);
        out.extend_from_slice(if value { b"true" } else { b"false" });
    }

    /// A member whose value is an array of strings.
    pub fn strings_member<'s>(
        &mut self,
        out: &mut Vec<u8>,
        key: &'static str,
        values: impl IntoIterator<Item = Option<&'s str>>,
    ) {
        self.key(out, key);
        self.begin_array(out);
        for v in values {
            self.elem(out);
            match v {
                Some(s) => string(out, s),
                None => out.extend_from_slice(b"null"),
            }
        }
        self.end_array(out);
    }
}

/// Spaces for pretty indents (two per level).
const INDENT: &[u8; 64] = &[b' '; 64];

/// `,`, a line break and 64 spaces: a pretty separator and indent up to depth 31 in one slice.
const BREAK: &[u8; 66] = b",\n                                                                ";

/// `serde_json`'s escape of a byte: 0 = as is, else the character after the backslash
/// (`u` = `\u00XX`).
fn escape_of(b: u8) -> u8 {
    match b {
        0x08 => b'b',
        0x09 => b't',
        0x0a => b'n',
        0x0c => b'f',
        0x0d => b'r',
        0..=0x1f => b'u',
        b'"' => b'"',
        b'\\' => b'\\',
        _ => 0,
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// SWAR: the high bit of each byte of `x` below `n` (`n` ≤ 0x80) survives; "any byte" is exact.
#[inline(always)]
fn bytes_below(x: u64, n: u8) -> u64 {
    x.wrapping_sub(ONES.wrapping_mul(u64::from(n))) & !x & HIGH
}

/// SWAR: nonzero exactly when some byte of `x` equals `b`.
#[inline(always)]
fn bytes_equal(x: u64, b: u8) -> u64 {
    bytes_below(x ^ ONES.wrapping_mul(u64::from(b)), 1)
}

/// `test` OR-ed over `bytes` read as little-endian 64-bit words: whole words, then the last
/// eight bytes again (overlapping), or for short input two overlapping 32-bit halves, or the
/// bytes padded with `pad` (a byte `test` passes). No byte-by-byte loop over the tail.
#[inline(always)]
fn any_word(bytes: &[u8], pad: u8, mut test: impl FnMut(u64) -> u64) -> u64 {
    let word = |b: &[u8]| u64::from_le_bytes(<[u8; 8]>::try_from(b).unwrap_or([pad; 8]));
    let half = |b: &[u8]| u32::from_le_bytes(<[u8; 4]>::try_from(b).unwrap_or([pad; 4]));
    let n = bytes.len();
    if n >= 8 {
        let words = bytes.chunks_exact(8);
        let tail = !words.remainder().is_empty();
        let mut found = words.fold(0, |found, w| found | test(word(w)));
        if tail {
            found |= test(word(bytes.get(n.saturating_sub(8)..).unwrap_or(&[])));
        }
        found
    } else if n >= 4 {
        let low = half(bytes.get(..4).unwrap_or(&[]));
        let high = half(bytes.get(n.saturating_sub(4)..).unwrap_or(&[]));
        test(u64::from(low) | u64::from(high) << 32)
    } else {
        let mut w = [pad; 8];
        for (d, &b) in w.iter_mut().zip(bytes) {
            *d = b;
        }
        test(u64::from_le_bytes(w))
    }
}

/// Whether any byte of `bytes` needs a JSON escape (a control byte, `"` or `\\`), eight bytes at
/// a time (SWAR: [`bytes_below`], [`bytes_equal`]).
#[inline]
pub(crate) fn needs_escape(bytes: &[u8]) -> bool {
    any_word(bytes, b'a', |x| {
        bytes_below(x, 0x20) | bytes_equal(x, b'"') | bytes_equal(x, b'\\')
    }) != 0
}

/// Text that a cqlsh-style dump writes as it is: printable ASCII (0x20–0x7e) without `\\` and
/// without `quote`. `Some(true)` when it also holds a `"` (a JSON escape then), `None` when it is
/// not such text.
#[inline]
pub(crate) fn plain_text(bytes: &[u8], quote: u8) -> Option<bool> {
    // One pass: the bytes that are not plain, and the `"`s (in the same pass).
    let mut double_quote = 0u64;
    let not_plain = any_word(bytes, b'a', |x| {
        double_quote |= bytes_equal(x, b'"');
        bytes_below(x, 0x20)
            | (x & HIGH)
            | bytes_equal(x, 0x7f)
            | bytes_equal(x, b'\\')
            | bytes_equal(x, quote)
    });
    (not_plain == 0).then_some(double_quote != 0)
}

/// Text written as it is both by a cqlsh-style dump and into a JSON string: printable ASCII
/// (0x20–0x7e) without `\\`, `"` and `quote` ([`plain_text`] giving `Some(false)`), in one
/// test per word: a byte below 0x20 borrows into its high bit when 0x20 is subtracted, one of
/// 0x7f or above has it set after 1 is added (a borrow or carry across bytes only follows a byte
/// that already fails).
#[inline(always)]
pub(crate) fn plain_ascii(bytes: &[u8], quote: u8) -> bool {
    any_word(bytes, b'a', |x| {
        ((x.wrapping_sub(ONES.wrapping_mul(0x20)) | x.wrapping_add(ONES)) & HIGH)
            | bytes_equal(x, b'\\')
            | bytes_equal(x, b'"')
            | bytes_equal(x, quote)
    }) == 0
}

/// `s` as a JSON string (quoted, escaped as `serde_json` escapes).
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    string_bytes(out, s.as_bytes());
}

/// [`string`] of UTF-8 bytes (only ASCII bytes are ever escaped, so bytes are enough). A string
/// with nothing to escape — the common case — is copied in one go.
pub(crate) fn string_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len().saturating_add(2));
    out.push(b'"');
    if !needs_escape(bytes) {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc = escape_of(b);
        if esc == 0 {
            continue;
        }
        out.extend_from_slice(bytes.get(start..i).unwrap_or(&[]));
        out.push(b'\\');
        out.push(esc);
        if esc == b'u' {
            out.extend_from_slice(b"00");
            push_hex(out, &[b]);
        }
        start = i.saturating_add(1);
    }
    out.extend_from_slice(bytes.get(start..).unwrap_or(&[]));
    out.push(b'"');
}

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// The two lowercase hex digits of every byte, by one table lookup (`u8` indexes it without a
/// bounds check).
// Evaluated at compile time: an index out of range would fail the build, not a run.
#[allow(clippy::indexing_slicing)]
pub(crate) const HEX_PAIRS: [[u8; 2]; 256] = {
    let mut pairs = [[0u8; 2]; 256];
    let mut b = 0;
    while b < 256 {
        pairs[b] = [HEX_DIGITS[b >> 4], HEX_DIGITS[b & 0xf]];
        b += 1;
    }
    pairs
};

/// The lowercase hex digits of a byte.
#[inline(always)]
pub(crate) fn hex_pair(b: u8) -> [u8; 2] {
    HEX_PAIRS.get(usize::from(b)).copied().unwrap_or([b'0'; 2])
}

/// Lowercase hex of `bytes`, by table lookup, 32 bytes at a time through a stack buffer (up
/// to 16 bytes: the whole buffer copied, a constant-length copy, and cut back).
pub(crate) fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.len() <= 16 {
        let mut buf = [0u8; 32];
        for (pair, &b) in buf.chunks_exact_mut(2).zip(bytes) {
            pair.copy_from_slice(&hex_pair(b));
        }
        let end = out.len().saturating_add(bytes.len().saturating_mul(2));
        out.extend_from_slice(&buf);
        out.truncate(end);
        return;
    }
    out.reserve(bytes.len().saturating_mul(2));
    let mut buf = [0u8; 64];
    for chunk in bytes.chunks(32) {
        for (pair, &b) in buf.chunks_exact_mut(2).zip(chunk) {
            pair.copy_from_slice(&hex_pair(b));
        }
        out.extend_from_slice(buf.get(..chunk.len().saturating_mul(2)).unwrap_or(&[]));
    }
}

/// A decimal integer, as `Display` writes it.
#[inline]
pub(crate) fn push_i64(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    push_u64(out, v.unsigned_abs());
}

/// The two digits of 0–99, for [`push_u64`] (two digits per division, as `itoa` does).
pub(crate) const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// `v` < 10^8 as eight zero-padded decimal digits (values 0–9, not yet ASCII), the first digit
/// in the lowest byte, so `to_le_bytes` gives them in reading order: SWAR, two halves of four
/// digits in 32-bit lanes, each split into pairs in 16-bit lanes and those into digits in bytes
/// (Khuong and Lemire's `encode_ten_thousands`: `x * 10486 >> 20` is `x / 100` for x < 10^4,
/// `x * 103 >> 10` is `x / 10` for x < 100).
#[inline(always)]
// Lane arithmetic: every lane's product stays inside its lane (9,999 × 10,486 < 2^32,
// 99 × 103 < 2^16), so no carry crosses into the next.
#[allow(clippy::arithmetic_side_effects)]
fn eight_digits(v: u32) -> u64 {
    let merged = u64::from(v / 10_000) | u64::from(v % 10_000) << 32;
    let hundreds_high = ((merged * 10_486) >> 20) & (0x7f << 32 | 0x7f);
    let pairs = ((merged - 100 * hundreds_high) << 16) + hundreds_high;
    let tens = ((pairs * 103) >> 10) & (0xf << 48 | 0xf << 32 | 0xf << 16 | 0xf);
    tens + ((pairs - 10 * tens) << 8)
}

/// `v` < 10^8 as eight zero-padded ASCII digits in a word, the first in its lowest byte.
#[inline(always)]
// `v % 10^8` fits a `u32`.
#[allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]
pub(crate) fn eight_digits_word(v: u64) -> u64 {
    eight_digits((v % 100_000_000) as u32) | ASCII_ZEROS
}

/// `'0'` in every byte.
const ASCII_ZEROS: u64 = 0x3030_3030_3030_3030;

/// 10^0 … 10^19.
// Evaluated at compile time: an index or product out of range would fail the build.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const POWERS_OF_10: [u64; 20] = {
    let mut p = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// A decimal integer, as `Display` writes it: its digit count first (from the bit length), the digits
/// written two at a time into a 20-byte stack buffer from the left, and the whole buffer copied
/// (a constant-length copy, no call to `memcpy`) and cut back to the digits.
#[inline]
// Digit arithmetic: `v % 100 * 2` < 200, `n` counts down from the digit count (≤ 20).
#[allow(clippy::arithmetic_side_effects)]
pub(crate) fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    if v < 10 {
        out.push(b'0' + v as u8);
        return;
    }
    // ⌊log10 v⌋ from the bit length (1233/4096 ≈ log10 2), one below when v < 10^t.
    let t = ((64 - v.leading_zeros()) as usize * 1233) >> 12;
    let len = t + usize::from(POWERS_OF_10.get(t).is_none_or(|&p| v >= p));
    let mut digits = [b'0'; 20];
    let mut n = len;
    while v >= 100 {
        let pair = (v % 100) as usize * 2;
        v /= 100;
        n -= 2;
        if let (Some(d), Some(p)) = (digits.get_mut(n..n + 2), DIGIT_PAIRS.get(pair..pair + 2)) {
            d.copy_from_slice(p);
        }
    }
    if v >= 10 {
        let pair = v as usize * 2;
        if let (Some(d), Some(p)) = (digits.get_mut(0..2), DIGIT_PAIRS.get(pair..pair + 2)) {
            d.copy_from_slice(p);
        }
    } else if let Some(d) = digits.first_mut() {
        *d = b'0' + v as u8;
    }
    let end = out.len() + len;
    out.extend_from_slice(&digits);
    out.truncate(end);
}

/// `v` in exactly `width` digits (zero-padded; `v` < 10^width, `width` ≤ 8): the eight
/// digits of [`eight_digits`] copied whole and cut back.
#[inline]
// `width` ≤ 8 (clamped), so the shift stays below 64.
#[allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]
pub(crate) fn push_padded(out: &mut Vec<u8>, v: u64, width: usize) {
    let width = width.clamp(1, 8);
    let digits = eight_digits((v % 100_000_000) as u32) | ASCII_ZEROS;
    let end = out.len() + width;
    out.extend_from_slice(&(digits >> ((8 - width) * 8)).to_le_bytes());
    out.truncate(end);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_numbers_as_serde_json_writes_them() {
        for s in [
            "",
            "plain",
            "q\"uo\\te",
            "\u{0}\u{1f}\u{8}\t\n\u{c}\r\u{7f}",
            "é ü 日本",
            "eight by\"tes and more \\ of them",
            "long plain text without anything to escape at all",
            "a control byte late in a long string\u{1}",
            "\u{7f}\u{80}\u{ff}~ !#[]{}",
        ] {
            let mut out = Vec::new();
            string(&mut out, s);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
        for v in [
            0,
            7,
            -1,
            9,
            10,
            99,
            100,
            101,
            -999,
            1000,
            12_345,
            99_999,
            100_000,
            999_999_999_999_999_999,
            1_000_000_000_000_000_000,
            i64::MIN,
            i64::MIN + 1,
            -9,
            -10,
            i64::MAX,
            1_234_567_890,
        ] {
            let mut out = Vec::new();
            push_i64(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
        }
        for p in 0..20u32 {
            for d in [0, 1, 2] {
                let v = 10u64.pow(p).wrapping_sub(1).wrapping_add(d);
                let mut out = Vec::new();
                push_u64(&mut out, v);
                assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
            }
        }
        let mut bits = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            bits ^= bits << 13;
            bits ^= bits >> 7;
            bits ^= bits << 17;
            for v in [bits, bits >> (bits % 64), bits % 100_000_000] {
                let mut out = Vec::new();
                push_u64(&mut out, v);
                assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
            }
            let v = bits % 100_000_000;
            for width in 1..=8 {
                if v < 10u64.pow(width as u32) {
                    let mut out = Vec::new();
                    push_padded(&mut out, v, width);
                    assert_eq!(String::from_utf8(out).unwrap(), format!("{v:0width$}"));
                }
            }
        }
        for v in 0..100_000u64 {
            let mut out = Vec::new();
            push_u64(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
            for width in 1..=8 {
                if v < 10u64.pow(width as u32) {
                    let mut out = Vec::new();
                    push_padded(&mut out, v, width);
                    assert_eq!(String::from_utf8(out).unwrap(), format!("{v:0width$}"));
                }
            }
        }
        let mut out = Vec::new();
        push_u64(&mut out, u64::MAX);
        assert_eq!(String::from_utf8(out).unwrap(), u64::MAX.to_string());
        for len in 0..=70usize {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let mut out = b"x".to_vec();
            push_hex(&mut out, &bytes);
            let want: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(String::from_utf8(out).unwrap(), format!("x{want}"));
        }
        let mut out = Vec::new();
        push_padded(&mut out, 42, 6);
        push_hex(&mut out, &[0, 0xab, 0xff]);
        assert_eq!(out, b"00004200abff");
    }

    #[test]
    fn plain_text_is_printable_ascii_without_the_quote_and_says_whether_a_json_escape_is_due() {
        assert_eq!(plain_text(b"", b'\''), Some(false));
        for b in 0..=255u8 {
            for quote in [b'\'', b'\\'] {
                let plain = (0x20..0x7f).contains(&b) && b != b'\\' && b != quote;
                for len in 1..=20 {
                    for pos in 0..len {
                        let mut buf = vec![b'a'; len];
                        buf[pos] = b;
                        let want = plain.then_some(b == b'"');
                        assert_eq!(plain_text(&buf, quote), want, "{b:#04x} at {pos} of {len}");
                        for fill in [b'a', b' ', b'~', 0x1f, 0x7f, 0xff] {
                            let mut buf = vec![fill; len];
                            buf[pos] = b;
                            let plain = |b: u8| {
                                (0x20..0x7f).contains(&b) && ![b'\\', b'"', quote].contains(&b)
                            };
                            assert_eq!(
                                plain_ascii(&buf, quote),
                                buf.iter().all(|&b| plain(b)),
                                "{b:#04x} at {pos} of {len} among {fill:#04x}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_word_at_a_time_escape_check_finds_every_byte_that_needs_one() {
        for b in 0..=255u8 {
            let want = b < 0x20 || b == b'"' || b == b'\\';
            // Every length of the short paths (1–3 padded, 4–7 two halves) and of the word loop
            // with and without an overlapping tail.
            for len in 1..=20 {
                for pos in 0..len {
                    // Neighbours of both kinds: high bytes (UTF-8) and plain ASCII.
                    for fill in [b'a', 0xff, 0x80, b'!', b'#'] {
                        let mut buf = vec![fill; len];
                        buf[pos] = b;
                        assert_eq!(needs_escape(&buf), want, "byte {b:#04x} at {pos} of {len}");
                    }
                }
            }
        }
    }

    #[test]
    fn pretty_and_compact_layouts_match_serde_json() {
        let value = serde_json::json!({"a": [], "b": {"c": [1, null, "x"]}, "d": {}, "e": true});
        for pretty in [false, true] {
            let mut out = Vec::new();
            let mut j = Json::new(pretty, 0);
            j.begin_object(&mut out);
            j.key(&mut out, "a");
            j.begin_array(&mut out);
            j.end_array(&mut out);
            j.key(&mut out, "b");
            j.begin_object(&mut out);
            j.key(&mut out, "c");
            j.begin_array(&mut out);
            j.elem(&mut out);
            push_i64(&mut out, 1);
            j.elem(&mut out);
            out.extend_from_slice(b"null");
            j.elem(&mut out);
            string(&mut out, "x");
            j.end_array(&mut out);
            j.end_object(&mut out);
            j.key(&mut out, "d");
            j.begin_object(&mut out);
            j.end_object(&mut out);
            j.bool_member(&mut out, "e", true);
            j.end_object(&mut out);
            let expected = if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                serde_json::to_string(&value).unwrap()
            };
            assert_eq!(String::from_utf8(out).unwrap(), expected);
        }
    }
}
