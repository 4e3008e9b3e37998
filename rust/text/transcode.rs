//! Between UTF-8 and CPython's fixed-width string layouts, for the bindings.
//!
//! **UTF-8 to UCS-2**, for making Python strings of chunk text.
//! CPython stores a `str` in the narrowest of three fixed-width layouts that holds its largest
//! code point (1, 2 or 4 bytes a character). Its UTF-8 decoder starts every string as ASCII,
//! widens the buffer (a new allocation and a copy) at the first character past U+00FF, decodes
//! one character per loop turn, then shrinks the buffer: for Chinese chunk text it runs at
//! ~0.45 GB/s, ~6% of `naive_merge`. [`shape`] finds a text's layout and length in one
//! vectorised pass, and [`utf8_to_ucs2`] fills a 2-byte layout directly, four or sixteen
//! characters at a time on the common runs (three-byte characters, ASCII).
//!
//! **Latin-1 and UCS-2 to UTF-8**, for reading documents: [`latin1_to_utf8`] and
//! [`ucs2_to_utf8`] make the UTF-8 of a `str` from its code units without the GIL (in a batch,
//! on the workers, in parallel), where CPython's encoder (one character per step) would run
//! with the GIL held and keep its copy inside the caller's string.
//!
//! Plain Rust: the bindings allocate the string and hand its buffer to [`utf8_to_ucs2`], or
//! hand a string's code units to the encoders.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_cmpeq_epi16, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8,
    _mm_or_si128, _mm_packus_epi16, _mm_set1_epi16, _mm_setr_epi8, _mm_setzero_si128,
    _mm_shuffle_epi8, _mm_slli_epi16, _mm_srli_epi16, _mm_storel_epi64, _mm_storeu_si128,
    _mm_unpackhi_epi8, _mm_unpacklo_epi8,
};

/// The layout CPython gives a string, from the largest code point in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// All below U+0080.
    Ascii,
    /// Some in U+0080..=U+00FF, none above (one byte a character, not ASCII).
    Latin1,
    /// Some in U+0100..=U+FFFF, none above (two bytes a character).
    Ucs2,
    /// Some above U+FFFF (four bytes a character).
    Ucs4,
}

/// A text's length in code points and its [`Width`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub chars: usize,
    pub width: Width,
}

/// The [`Shape`] of `text`, from its bytes alone: a code point starts at every byte that is
/// not a continuation byte (`0b10xx_xxxx`), and the largest lead byte bounds the largest code
/// point (below 0xC4 nothing exceeds U+00FF, below 0xF0 nothing exceeds U+FFFF; continuation
/// bytes are all below 0xC0). Both are plain folds the compiler vectorises.
pub fn shape(text: &str) -> Shape {
    let bytes = text.as_bytes();
    let mut chars = 0usize;
    let mut max = 0u8;
    // Blocks of 255 at most keep the per-lane counters in a byte without overflow.
    for block in bytes.chunks(255) {
        let mut starts = 0u8;
        for &b in block {
            starts += u8::from((b as i8) >= -0x40);
            max = max.max(b);
        }
        chars += usize::from(starts);
    }
    let width = match max {
        0x00..=0x7F => Width::Ascii,
        0x80..=0xC3 => Width::Latin1,
        0xC4..=0xEF => Width::Ucs2,
        _ => Width::Ucs4,
    };
    Shape { chars, width }
}

/// Writes the code points of `text` into `out`, one `u16` each.
///
/// `out` must be exactly as long as `text` has code points, and every code point must be at
/// most U+FFFF (`shape(text)` is `Ascii`, `Latin1` or `Ucs2` with `chars == out.len()`).
/// Returns `false`, with `out` partly written, when that does not hold; it never reads or
/// writes out of bounds.
pub fn utf8_to_ucs2(text: &str, out: &mut [u16]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: `ucs2_ssse3` only needs SSSE3, which this CPU has (checked just above).
        return unsafe { ucs2_ssse3(text.as_bytes(), out) };
    }
    ucs2_scalar(text.as_bytes(), 0, out, 0)
}

/// [`utf8_to_ucs2`] one character at a time from `bytes[i..]` into `out[o..]`.
fn ucs2_scalar(bytes: &[u8], mut i: usize, out: &mut [u16], mut o: usize) -> bool {
    while i < bytes.len() {
        let Some(slot) = out.get_mut(o) else {
            return false;
        };
        let Some((c, len)) = decode_bmp(bytes, i) else {
            return false;
        };
        *slot = c;
        i += len;
        o += 1;
    }
    o == out.len()
}

/// The code point starting at `bytes[i]` and its length, if it is one of U+0000..=U+FFFF
/// (`bytes` is valid UTF-8 and `i` a character boundary).
#[inline(always)]
fn decode_bmp(bytes: &[u8], i: usize) -> Option<(u16, usize)> {
    let b0 = bytes[i];
    let cont = |k: usize| bytes.get(i + k).map(|&b| u16::from(b & 0x3F));
    if b0 < 0x80 {
        Some((u16::from(b0), 1))
    } else if b0 < 0xE0 {
        Some(((u16::from(b0 & 0x1F) << 6) | cont(1)?, 2))
    } else if b0 < 0xF0 {
        Some(((u16::from(b0 & 0x0F) << 12) | (cont(1)? << 6) | cont(2)?, 3))
    } else {
        None
    }
}

/// [`utf8_to_ucs2`] with SSSE3: the ASCII bytes that start a 16-byte block widen in one step,
/// up to four three-byte characters that start it decode in one shuffle; anything else one
/// character at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn ucs2_ssse3(bytes: &[u8], out: &mut [u16]) -> bool {
    // Four three-byte characters: lead bytes 0b1110_xxxx at 0, 3, 6, 9, continuation bytes
    // 0b10xx_xxxx between them; bytes 12..16 are not looked at (masked to zero).
    let mask = _mm_setr_epi8(
        -16, -64, -64, -16, -64, -64, -16, -64, -64, -16, -64, -64, 0, 0, 0, 0,
    );
    let want = _mm_setr_epi8(
        -32, -128, -128, -32, -128, -128, -32, -128, -128, -32, -128, -128, 0, 0, 0, 0,
    );
    // Lane k: (lead << 8 | second byte), and the third byte alone.
    let lead_second = _mm_setr_epi8(1, 0, 4, 3, 7, 6, 10, 9, -1, -1, -1, -1, -1, -1, -1, -1);
    let third = _mm_setr_epi8(2, -1, 5, -1, 8, -1, 11, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    let low4_of_lead = _mm_set1_epi16(0x0F00);
    let low6 = _mm_set1_epi16(0x003F);
    let zero = _mm_setzero_si128();

    let (n, m) = (bytes.len(), out.len());
    let (mut i, mut o) = (0usize, 0usize);
    while i + 16 <= n {
        // SAFETY: `i + 16 <= n`, so the 16 bytes read are in `bytes`; `loadu` needs no
        // alignment.
        let v = unsafe { _mm_loadu_si128(bytes.as_ptr().add(i).cast::<__m128i>()) };
        let high = _mm_movemask_epi8(v) as u32;
        if high & 1 == 0 && o + 16 <= m {
            // ASCII first: all 16 bytes widened and stored, the ones before the first
            // non-ASCII byte kept (the rest are overwritten later: `out` has room for 16).
            // SAFETY: `o + 16 <= m`: the 32 bytes written are `out[o..o + 16]`.
            unsafe {
                let dst = out.as_mut_ptr().add(o).cast::<__m128i>();
                _mm_storeu_si128(dst, _mm_unpacklo_epi8(v, zero));
                _mm_storeu_si128(dst.add(1), _mm_unpackhi_epi8(v, zero));
            }
            let k = (high | 1 << 16).trailing_zeros() as usize;
            i += k;
            o += k;
            continue;
        }
        // Three-byte characters first: as many whole ones as start the block, up to four.
        let fits = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(v, mask), want)) as u32;
        let k = ((!fits).trailing_zeros() / 3).min(4) as usize;
        if k > 0 && o + 4 <= m {
            let hi = _mm_shuffle_epi8(v, lead_second);
            let lo = _mm_shuffle_epi8(v, third);
            let c = _mm_or_si128(
                _mm_or_si128(
                    _mm_slli_epi16(_mm_and_si128(hi, low4_of_lead), 4),
                    _mm_slli_epi16(_mm_and_si128(hi, low6), 6),
                ),
                _mm_and_si128(lo, low6),
            );
            // SAFETY: `o + 4 <= m`: the 8 bytes written are `out[o..o + 4]`.
            unsafe { _mm_storel_epi64(out.as_mut_ptr().add(o).cast::<__m128i>(), c) };
            i += 3 * k;
            o += k;
            continue;
        }
        // Anything else (a two-byte character, or too near the end of `out`): one character.
        match ucs2_one(bytes, i, out, o) {
            Some(len) => {
                i += len;
                o += 1;
            }
            None => return false,
        }
    }
    ucs2_scalar(bytes, i, out, o)
}

/// One character of [`ucs2_ssse3`]'s slow path: its length in bytes, once written. Kept out
/// of line: inlined, its byte loads were hoisted above the block tests and read back the
/// block from a stack copy on every step (a quarter of the loop's time).
#[cold]
#[inline(never)]
fn ucs2_one(bytes: &[u8], i: usize, out: &mut [u16], o: usize) -> Option<usize> {
    let slot = out.get_mut(o)?;
    let (c, len) = decode_bmp(bytes, i)?;
    *slot = c;
    Some(len)
}

/// Whether any of `units` is a surrogate (U+D800..=U+DFFF). A fold without early exit, so
/// that it vectorises.
pub fn has_surrogate(units: &[u16]) -> bool {
    units.chunks(256).any(|block| {
        block
            .iter()
            .fold(false, |seen, &c| seen | (c & 0xF800 == 0xD800))
    })
}

/// The UTF-8 of a 1-byte (Latin-1) string's code units.
pub fn latin1_to_utf8(units: &[u8]) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(2 * units.len());
    let mut ascii = units.chunks_exact(16);
    for block in ascii.by_ref() {
        if block.is_ascii() {
            out.extend_from_slice(block);
        } else {
            block.iter().for_each(|&c| push_latin1(&mut out, c));
        }
    }
    ascii
        .remainder()
        .iter()
        .for_each(|&c| push_latin1(&mut out, c));
    // SAFETY: every byte pushed is an ASCII byte, or the two-byte UTF-8 of U+0080..=U+00FF.
    unsafe { String::from_utf8_unchecked(out) }
}

#[inline(always)]
fn push_latin1(out: &mut Vec<u8>, c: u8) {
    if c < 0x80 {
        out.push(c);
    } else {
        out.extend_from_slice(&[0xC0 | c >> 6, 0x80 | (c & 0x3F)]);
    }
}

/// The UTF-8 of a 2-byte (UCS-2) string's code units, or `None` if one is a surrogate
/// (U+D800..=U+DFFF, which a Python `str` may hold but UTF-8 cannot encode).
pub fn ucs2_to_utf8(units: &[u16]) -> Option<String> {
    let mut out: Vec<u8> = Vec::with_capacity(3 * units.len());
    #[cfg(target_arch = "x86_64")]
    let written = if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: `utf8_of_ucs2_ssse3` only needs SSSE3, which this CPU has (checked just
        // above); it writes only into `out`'s spare capacity, which is `3 * units.len()`.
        unsafe { utf8_of_ucs2_ssse3(units, out.spare_capacity_mut()) }
    } else {
        utf8_of_ucs2_scalar(units, 0, out.spare_capacity_mut(), 0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let written = utf8_of_ucs2_scalar(units, 0, out.spare_capacity_mut(), 0);
    let written = written?;
    // SAFETY: the first `written` bytes were initialised by the encoder, which writes the
    // UTF-8 of each unit, every one a scalar value (surrogates refused), so they are valid.
    unsafe {
        out.set_len(written);
        Some(String::from_utf8_unchecked(out))
    }
}

/// Encodes `units[i..]` into `out[j..]` one unit at a time; the bytes written in all, or
/// `None` at a surrogate. `out` holds three bytes for each unit from `i` on.
fn utf8_of_ucs2_scalar(
    units: &[u16],
    i: usize,
    out: &mut [std::mem::MaybeUninit<u8>],
    mut j: usize,
) -> Option<usize> {
    for &c in &units[i..] {
        j += put_ucs2(c, out, j)?;
    }
    Some(j)
}

/// Writes the UTF-8 of `c` at `out[j..]`; its length, or `None` if `c` is a surrogate.
#[inline(always)]
fn put_ucs2(c: u16, out: &mut [std::mem::MaybeUninit<u8>], j: usize) -> Option<usize> {
    if c < 0x80 {
        out[j].write(c as u8);
        Some(1)
    } else if c < 0x800 {
        out[j].write(0xC0 | (c >> 6) as u8);
        out[j + 1].write(0x80 | (c & 0x3F) as u8);
        Some(2)
    } else if c & 0xF800 == 0xD800 {
        None
    } else {
        out[j].write(0xE0 | (c >> 12) as u8);
        out[j + 1].write(0x80 | ((c >> 6) & 0x3F) as u8);
        out[j + 2].write(0x80 | (c & 0x3F) as u8);
        Some(3)
    }
}

/// Shuffle controls that interleave three byte planes into UTF-8 three-byte sequences: for
/// output byte `p` of eight characters (`first` picks bytes 0..16, else 16..24), the index
/// into `lead_mid` (leads in bytes 0..8, middle bytes in 8..16) or, for `from_last`, into the
/// plane of last bytes; -1 (zero) where the other plane supplies the byte.
const fn interleave3(first: bool, from_last: bool) -> [i8; 16] {
    let mut ctl = [-1i8; 16];
    let mut k = 0;
    while k < 16 {
        let p = if first { k } else { 16 + k };
        if p < 24 {
            let (ch, r) = ((p / 3) as i8, p % 3);
            ctl[k] = match (r, from_last) {
                (0, false) => ch,
                (1, false) => 8 + ch,
                (2, true) => ch,
                _ => -1,
            };
        }
        k += 1;
    }
    ctl
}

/// [`ucs2_to_utf8`] with SSSE3: leading ASCII units of an 8-unit block are narrowed in one
/// step, leading three-byte units (U+0800..=U+FFFF, not surrogates) encoded in one set of
/// shuffles; anything else one unit at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn utf8_of_ucs2_ssse3(
    units: &[u16],
    out: &mut [std::mem::MaybeUninit<u8>],
) -> Option<usize> {
    let ctl = |c: [i8; 16]| {
        // SAFETY: 16 bytes read from a 16-byte array; `loadu` needs no alignment.
        unsafe { _mm_loadu_si128(c.as_ptr().cast::<__m128i>()) }
    };
    let (lead_mid_0, last_0) = (ctl(interleave3(true, false)), ctl(interleave3(true, true)));
    let (lead_mid_1, last_1) = (
        ctl(interleave3(false, false)),
        ctl(interleave3(false, true)),
    );
    let (not_ascii, top5) = (
        _mm_set1_epi16(0xFF80u16 as i16),
        _mm_set1_epi16(0xF800u16 as i16),
    );
    let surrogate = _mm_set1_epi16(0xD800u16 as i16);
    let (low6, cont, lead3) = (
        _mm_set1_epi16(0x3F),
        _mm_set1_epi16(0x80),
        _mm_set1_epi16(0xE0),
    );
    let zero = _mm_setzero_si128();

    let n = units.len();
    let (mut i, mut j) = (0usize, 0usize);
    // Room: `j <= 3 * i` (no unit takes more than three bytes) and `out` holds `3 * n`, so
    // with `i + 8 <= n` the 8 or 24 bytes stored at `j` are in `out`.
    assert!(
        out.len() >= 3 * n,
        "ucs2_to_utf8: out holds three bytes a unit"
    );
    while i + 8 <= n {
        // SAFETY: `i + 8 <= n`: the 16 bytes read are `units[i..i + 8]`.
        let v = unsafe { _mm_loadu_si128(units.as_ptr().add(i).cast::<__m128i>()) };
        let ascii = _mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, not_ascii), zero)) as u32;
        if ascii & 1 != 0 {
            // SAFETY: `j + 8 <= 3 * i + 8 <= 3 * n <= out.len()` (see above).
            unsafe {
                _mm_storel_epi64(
                    out.as_mut_ptr().add(j).cast::<__m128i>(),
                    _mm_packus_epi16(v, v),
                );
            }
            let k = (!ascii).trailing_zeros() as usize / 2; // leading ASCII units, 1..=8
            i += k;
            j += k;
            continue;
        }
        let top = _mm_and_si128(v, top5);
        let short_or_surrogate =
            _mm_or_si128(_mm_cmpeq_epi16(top, zero), _mm_cmpeq_epi16(top, surrogate));
        let three = !(_mm_movemask_epi8(short_or_surrogate) as u32) & 0xFFFF;
        if three & 1 != 0 {
            let lead = _mm_or_si128(_mm_srli_epi16(v, 12), lead3);
            let mid = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(v, 6), low6), cont);
            let last = _mm_or_si128(_mm_and_si128(v, low6), cont);
            let lead_mid = _mm_packus_epi16(lead, mid);
            let last = _mm_packus_epi16(last, last);
            let a = _mm_or_si128(
                _mm_shuffle_epi8(lead_mid, lead_mid_0),
                _mm_shuffle_epi8(last, last_0),
            );
            let b = _mm_or_si128(
                _mm_shuffle_epi8(lead_mid, lead_mid_1),
                _mm_shuffle_epi8(last, last_1),
            );
            // SAFETY: `j + 24 <= 3 * i + 24 <= 3 * n <= out.len()` (see above).
            unsafe {
                let dst = out.as_mut_ptr().add(j);
                _mm_storeu_si128(dst.cast::<__m128i>(), a);
                _mm_storel_epi64(dst.add(16).cast::<__m128i>(), b);
            }
            let k = (!three).trailing_zeros() as usize / 2; // leading three-byte units, 1..=8
            i += k;
            j += 3 * k;
            continue;
        }
        j += put_ucs2(units[i], out, j)?;
        i += 1;
    }
    utf8_of_ucs2_scalar(units, i, out, j)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ucs2(text: &str) -> Option<Vec<u16>> {
        let mut out = vec![0u16; text.chars().count()];
        utf8_to_ucs2(text, &mut out).then_some(out)
    }

    fn reference(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    /// A deterministic mix of the pieces that exercise every path: ASCII runs longer and
    /// shorter than a block, two- and three-byte characters alone and in runs.
    fn mixed(seed: u64, len: usize) -> String {
        let alphabet = [
            "a", "Z", " ", "\n", "0", "é", "ß", "ÿ", "Ā", "ж", "中", "文", "。", "，", "\u{FFFF}",
            "\u{0800}", "\u{07FF}", "\u{0080}", "\u{E000}", "ｱ",
        ];
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut s = String::new();
        while s.chars().count() < len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let run = 1 + (x >> 60) as usize; // runs of 1..=16 of one piece
            let piece = alphabet[(x % alphabet.len() as u64) as usize];
            for _ in 0..run {
                s.push_str(piece);
            }
        }
        s
    }

    #[test]
    fn shape_of_each_width() {
        let cases = [
            ("", 0, Width::Ascii),
            ("hello", 5, Width::Ascii),
            ("caf\u{E9}", 4, Width::Latin1),
            ("\u{FF}\u{80}", 2, Width::Latin1),
            ("\u{100}", 1, Width::Ucs2),
            ("中文 ok", 5, Width::Ucs2),
            ("\u{FFFF}", 1, Width::Ucs2),
            ("a\u{10000}", 2, Width::Ucs4),
            ("\u{1F600}中", 2, Width::Ucs4),
        ];
        for (text, chars, width) in cases {
            assert_eq!(shape(text), Shape { chars, width }, "{text:?}");
        }
    }

    #[test]
    fn shape_counts_long_text() {
        // Longer than one 255-byte counting block, with a multi-byte character on the edge.
        for len in [254, 255, 256, 600, 1000] {
            let text = mixed(len as u64, len);
            assert_eq!(shape(&text).chars, text.chars().count(), "len {len}");
        }
    }

    #[test]
    fn every_bmp_scalar_value_alone_and_in_blocks() {
        for cp in (0..=0xFFFFu32).filter_map(char::from_u32) {
            let one = cp.to_string();
            assert_eq!(ucs2(&one), Some(reference(&one)), "U+{:04X}", cp as u32);
            // Long enough for the block paths, at each alignment to the 16-byte window.
            let run = format!("ab{}", one.repeat(9));
            assert_eq!(ucs2(&run), Some(reference(&run)), "U+{:04X}", cp as u32);
        }
    }

    #[test]
    fn mixed_text_at_every_length() {
        for seed in 0..200u64 {
            for len in [1, 3, 4, 5, 11, 12, 13, 15, 16, 17, 31, 33, 64, 200] {
                let text = mixed(seed, len);
                assert_eq!(ucs2(&text), Some(reference(&text)), "{text:?}");
                let mut scalar = vec![0u16; text.chars().count()];
                assert!(ucs2_scalar(text.as_bytes(), 0, &mut scalar, 0));
                assert_eq!(scalar, reference(&text));
            }
        }
    }

    #[test]
    fn surrogates_are_found_anywhere() {
        let mut units = vec![0x4E2Du16; 1000];
        assert!(!has_surrogate(&units));
        for at in [0, 7, 255, 256, 999] {
            for c in [0xD800, 0xDBFF, 0xDC00, 0xDFFF] {
                units[at] = c;
                assert!(has_surrogate(&units), "U+{c:04X} at {at}");
                units[at] = 0xD7FF;
                assert!(!has_surrogate(&units));
                units[at] = 0xE000;
            }
        }
    }

    #[test]
    fn latin1_to_utf8_matches_std() {
        for seed in 0..100u64 {
            for len in [0, 1, 15, 16, 17, 40, 300] {
                let text: String = mixed(seed, len)
                    .chars()
                    .filter(|&c| (c as u32) < 256)
                    .collect();
                let units: Vec<u8> = text.chars().map(|c| c as u32 as u8).collect();
                assert_eq!(latin1_to_utf8(&units), text);
            }
        }
        let all: Vec<u8> = (0..=255).collect();
        let want: String = all.iter().map(|&b| char::from(b)).collect();
        assert_eq!(latin1_to_utf8(&all), want);
    }

    #[test]
    fn ucs2_to_utf8_matches_std() {
        for seed in 0..300u64 {
            for len in [0, 1, 7, 8, 9, 16, 23, 64, 500] {
                let text = mixed(seed, len);
                let units: Vec<u16> = text.encode_utf16().collect();
                assert_eq!(ucs2_to_utf8(&units).as_deref(), Some(text.as_str()));
                let mut out = Vec::with_capacity(3 * units.len());
                let n = utf8_of_ucs2_scalar(&units, 0, out.spare_capacity_mut(), 0);
                assert_eq!(n, Some(text.len()));
            }
        }
    }

    #[test]
    fn ucs2_to_utf8_every_unit_alone_and_in_blocks() {
        for c in 0..=0xFFFFu16 {
            let want = char::from_u32(u32::from(c)).map(String::from);
            assert_eq!(ucs2_to_utf8(&[c]), want, "U+{c:04X}");
            // Every alignment of the unit against the 8-unit blocks, among ASCII and CJK.
            for pad in 0..9 {
                let mut units = vec![u16::from(b'a'); pad];
                units.extend([c; 10]);
                units.extend([0x4E2D; 9]);
                let want = char::from_u32(u32::from(c)).map(|ch| {
                    format!(
                        "{}{}{}",
                        "a".repeat(pad),
                        ch.to_string().repeat(10),
                        "中".repeat(9)
                    )
                });
                assert_eq!(ucs2_to_utf8(&units), want, "U+{c:04X} after {pad}");
            }
        }
    }

    #[test]
    fn wrong_length_or_astral_is_refused_not_overrun() {
        let text = "中文".repeat(20);
        let n = text.chars().count();
        for len in [0, 1, n - 1, n + 1] {
            let mut out = vec![0u16; len];
            assert!(!utf8_to_ucs2(&text, &mut out), "out of {len}");
        }
        let mut out = vec![0u16; 2];
        assert!(!utf8_to_ucs2("a\u{1F600}", &mut out));
    }
}
