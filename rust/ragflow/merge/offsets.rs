//! [`naive_merge_offsets`]: where each v0.27 chunk of one plain string comes from, as
//! code-point offsets into the original text.

use crate::ragflow::delimiters::{has_wrapped_delimiter, splitter_for_field};
use crate::text::CharOffsets;
use crate::tokenizer::TokenCounter;

use super::counting::Counting;
use super::custom::{custom_mode, Flavor};
use super::paragraphs::v27_default;
use super::{MergeOptions, Section};

/// Where each chunk of [`naive_merge_offsets`] comes from, as code-point offsets (Python
/// string indexes) into the **original** text, CR/CRLF included.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkOffsets {
    /// Start of the chunk's first piece.
    pub starts: Vec<i64>,
    /// End of the chunk's last piece (exclusive); delimiters between its pieces lie inside.
    pub ends: Vec<i64>,
    /// Code points of the overlap prefix at the start of the chunk text (not in the span).
    pub prefix_lens: Vec<i64>,
}

/// Spans of the chunks `naive_merge` (v0.27) makes from one plain string, without the strings.
///
/// Chunk `i` is `prefix + "\n" + piece + "\n" + piece ...`: `text[starts[i]..ends[i]]` (code
/// points) runs from the first piece's start to the last piece's end, delimiters between them
/// included; the chunk holds the pieces of that span (delimiters removed, CRLF/CR as LF) each
/// after a `"\n"`, preceded by `prefix_lens[i]` code points of overlap prefix. With
/// [`Strategy::HardCap`](super::Strategy::HardCap) a piece may be cut into fragments, each after its own `"\n"`. In
/// custom mode (a backtick token in the field) every chunk is one segment. `opts.compat` is
/// ignored: the older families have no such spans (they do not split every section).
pub fn naive_merge_offsets<C: TokenCounter>(
    text: &str,
    opts: &MergeOptions<'_>,
    counter: &C,
) -> Result<ChunkOffsets, C::Error> {
    if text.is_empty() {
        return Ok(ChunkOffsets::default()); // RAGFlow: `if not sections: return []`
    }
    let sections = [Section::text(text)];
    let mut counting = Counting::new(counter);
    let mut spans = Vec::new();
    if has_wrapped_delimiter(opts.delimiter) {
        custom_mode(
            &sections,
            &splitter_for_field(opts.delimiter),
            &mut counting,
            Flavor::V27,
            false,
            Some(&mut spans),
        )?;
    } else {
        v27_default(&sections, opts, &mut counting, false, Some(&mut spans))?;
    }
    // Start, end, start, end...: in order for every mode, so one walk converts them all.
    let bounds: Vec<usize> = spans.iter().flat_map(|s| [s.start, s.end]).collect();
    let chars = to_original_chars(text, &bounds);
    Ok(ChunkOffsets {
        starts: chars.iter().step_by(2).copied().collect(),
        ends: chars.iter().skip(1).step_by(2).copied().collect(),
        prefix_lens: spans.iter().map(|s| s.prefix_chars as i64).collect(),
    })
}

/// Code-point offsets into `orig` of byte offsets into `normalize_newlines(orig)`: one walk
/// for non-decreasing offsets (restarted when one goes back). A `"\r\n"` is one byte of the
/// normalised text and two code points of the original; a lone `"\r"` is one of each.
///
/// Without a `"\r"` the two texts are the same bytes, and the code points before a byte
/// offset are the bytes before it that do not continue a character, which the splitters'
/// [`CharOffsets`] counts, vectorised (the byte-by-byte walk below took ~10% of
/// `naive_merge_offsets`).
fn to_original_chars(orig: &str, offsets: &[usize]) -> Vec<i64> {
    let b = orig.as_bytes();
    if memchr::memchr(b'\r', b).is_none() {
        let mut chars = CharOffsets::new(orig);
        return offsets
            .iter()
            .map(|&t| chars.char_offset(t) as i64)
            .collect();
    }
    let (mut ob, mut nb, mut cp) = (0usize, 0usize, 0usize);
    let mut out = Vec::with_capacity(offsets.len());
    for &t in offsets {
        if t < nb {
            (ob, nb, cp) = (0, 0, 0);
        }
        while nb < t {
            if b[ob] == b'\r' && b.get(ob + 1) == Some(&b'\n') {
                ob += 2;
                cp += 2;
                nb += 1;
            } else {
                let len = match b[ob] {
                    0..=0x7f => 1,
                    0xc0..=0xdf => 2,
                    0xe0..=0xef => 3,
                    _ => 4,
                };
                ob += len;
                nb += len;
                cp += 1;
            }
        }
        out.push(cp as i64);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;
    use crate::ragflow::delimiters::normalize_newlines;

    #[test]
    fn offsets_map_back_to_the_original_text() {
        let text = "a。bb\r\ncc\rd";
        let o = opts(Compat::V27, 3.0, "\n。", 0.0);
        let got = naive_merge_offsets(text, &o, &chars).unwrap();
        // chunks "\na\nbb" and "\ncc\nd": spans "a。bb" and "cc\rd"
        assert_eq!(m(&[text], &o).len(), got.starts.len());
        let cps: Vec<char> = text.chars().collect();
        let spans: Vec<String> = got
            .starts
            .iter()
            .zip(&got.ends)
            .map(|(&s, &e)| cps[s as usize..e as usize].iter().collect())
            .collect();
        let chunks = m(&[text], &o);
        for (span, chunk) in spans.iter().zip(&chunks) {
            let pieces: Vec<&str> = span
                .split(['\r', '\n', '。'])
                .filter(|p| !p.is_empty())
                .collect();
            assert_eq!(format!("\n{}", pieces.join("\n")), *chunk);
        }
        let custom = opts(Compat::V27, 3.0, "`cc`", 0.0);
        let got = naive_merge_offsets("xxccyy", &custom, &chars).unwrap();
        assert_eq!((got.starts, got.ends), (vec![0, 4], vec![2, 6]));
        let p = opts(Compat::V27, 1.0, "\n", 50.0);
        let got = naive_merge_offsets("ab\ncd", &p, &chars).unwrap();
        assert_eq!(got.prefix_lens, [0, 2]); // "\nab" -> prefix "ab"
        assert!(naive_merge_offsets("", &p, &chars)
            .unwrap()
            .starts
            .is_empty());
    }

    #[test]
    fn original_chars_of_every_boundary() {
        // Both walks (without and with a "\r"): every boundary of the normalised text in
        // order, then the same offsets again after a jump back. The reference replays the
        // normalisation character by character, noting where each one lands.
        for text in ["a中b😀é\nxyｿz。", "a中\r\nb😀\ré\nx\r", ""] {
            let chars: Vec<char> = text.chars().collect();
            let (mut offsets, mut want) = (Vec::new(), Vec::new());
            let (mut nb, mut k) = (0usize, 0usize);
            while k < chars.len() {
                offsets.push(nb);
                want.push(k as i64);
                if chars[k] == '\r' && chars.get(k + 1) == Some(&'\n') {
                    (nb, k) = (nb + 1, k + 2); // "\r\n" -> "\n"
                } else {
                    let c = if chars[k] == '\r' { '\n' } else { chars[k] };
                    (nb, k) = (nb + c.len_utf8(), k + 1);
                }
            }
            assert_eq!(nb, normalize_newlines(text).len());
            offsets.push(nb);
            want.push(chars.len() as i64);
            let twice: Vec<usize> = offsets.iter().chain(&offsets).copied().collect();
            let got = to_original_chars(text, &twice);
            assert_eq!(got[..want.len()], want[..], "{text:?}");
            assert_eq!(got[want.len()..], want[..], "{text:?} after a jump back");
        }
    }
}
