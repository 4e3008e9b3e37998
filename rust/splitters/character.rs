//! Fixed windows of characters: `chunk_size` code points, stepping by `chunk_size - overlap`.
//!
//! The loop of the textbook example (`for i in range(0, len(t) - size + 1, step)`) drops the
//! text after the last full window; here the trailing partial window is kept unless
//! `drop_last` asks for the textbook behaviour. A window is never emitted when it would only
//! repeat text the previous window already covered.

use super::Span;

/// Character windows of `text` as byte spans (`size` = characters in the window).
///
/// Requires `chunk_size >= 1` and `chunk_overlap < chunk_size` (validated by the caller);
/// anything else yields no windows rather than looping.
pub fn split(text: &str, chunk_size: usize, chunk_overlap: usize, drop_last: bool) -> Vec<Span> {
    if chunk_size == 0 || chunk_overlap >= chunk_size || text.is_empty() {
        return Vec::new();
    }
    let step = chunk_size - chunk_overlap;
    // Byte offset of every character start, plus the end: index = code-point offset.
    let mut bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    bounds.push(text.len());
    let n = bounds.len() - 1;
    let mut out = Vec::with_capacity(n / step + 1);
    let mut i = 0usize;
    loop {
        let end = (i + chunk_size).min(n);
        if end - i < chunk_size && drop_last {
            break;
        }
        out.push(Span {
            start: bounds[i],
            end: bounds[end],
            size: end - i,
        });
        if end == n {
            break;
        }
        i += step;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str, size: usize, overlap: usize, drop_last: bool) -> Vec<&str> {
        split(text, size, overlap, drop_last)
            .into_iter()
            .map(|s| &text[s.start..s.end])
            .collect()
    }

    #[test]
    fn worked_example() {
        let t = "Clouds come floating into my life, no longer to carry rain or usher storm, \
                 but to add color to my sunset sky.";
        assert_eq!(
            texts(t, 35, 5, true),
            [
                "Clouds come floating into my life, ",
                "ife, no longer to carry rain or ush",
                "r usher storm, but to add color to "
            ]
        );
        let kept = texts(t, 35, 5, false);
        assert_eq!(kept.len(), 4);
        assert_eq!(kept[3], "r to my sunset sky.");
    }

    #[test]
    fn multibyte_and_edges() {
        assert_eq!(texts("中文🦀é", 2, 1, false), ["中文", "文🦀", "🦀é"]);
        assert_eq!(texts("ab", 5, 0, false), ["ab"]);
        assert!(texts("ab", 5, 0, true).is_empty());
        assert!(texts("", 5, 0, false).is_empty());
        assert!(texts("abc", 2, 2, false).is_empty());
    }
}
