//! LangChain's sentence split for its `SemanticChunker`: `re.split(r"(?<=[.?!])\s+", text)`,
//! with `\s` Python's (`str.isspace`, the rules file's `chars.whitespace.langchain`), and the
//! windows of neighbouring sentences it embeds.

use crate::text::boundaries::boundaries;

/// The sentences of `text` as byte ranges: the text between the whitespace runs that follow a
/// `.`, `?` or `!` (the runs dropped). Like `re.split`, a run ending the text leaves an empty
/// last sentence, and a text with no such run is one sentence.
pub fn langchain_sentences(text: &str) -> Vec<(usize, usize)> {
    let space = boundaries().langchain_space;
    let mut out = Vec::new();
    let mut at = 0usize;
    let mut prev = '\0';
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(prev, '.' | '?' | '!') && space.contains(c) {
            out.push((at, i));
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if !space.contains(d) {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            at = end;
            prev = ' ';
            continue;
        }
        prev = c;
    }
    out.push((at, text.len()));
    out
}

/// LangChain's window of sentence `i`: sentences `i - buffer ..= i + buffer` (clipped to the
/// text), joined by single spaces.
pub fn window(text: &str, sentences: &[(usize, usize)], i: usize, buffer: usize) -> String {
    let lo = i.saturating_sub(buffer);
    let hi = i
        .saturating_add(buffer)
        .min(sentences.len().saturating_sub(1));
    let mut out = String::new();
    for (k, &(s, e)) in sentences[lo..=hi].iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        out.push_str(&text[s..e]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        langchain_sentences(text)
            .into_iter()
            .map(|(s, e)| &text[s..e])
            .collect()
    }

    #[test]
    fn splits_after_terminators_only() {
        assert_eq!(
            split("One. Two?  Three!\nFour"),
            ["One.", "Two?", "Three!", "Four"]
        );
        assert_eq!(split("a .b. c"), ["a .b.", "c"]);
        assert_eq!(split("no end"), ["no end"]);
        assert_eq!(split(""), [""]);
    }

    #[test]
    fn trailing_run_leaves_an_empty_sentence() {
        assert_eq!(split("Done. "), ["Done.", ""]);
        assert_eq!(split(" . x"), [" .", "x"]);
    }

    #[test]
    fn python_whitespace_counts() {
        // U+001F is whitespace to Python, not to Rust's char::is_whitespace; U+3000 to both
        assert_eq!(split("a.\u{1f}b.\u{3000}c"), ["a.", "b.", "c"]);
        assert_eq!(split("é.\u{a0}\u{2029}ü"), ["é.", "ü"]);
    }

    #[test]
    fn windows_join_neighbours() {
        let text = "A. B. C. D.";
        let s = langchain_sentences(text);
        assert_eq!(window(text, &s, 0, 1), "A. B.");
        assert_eq!(window(text, &s, 2, 1), "B. C. D.");
        assert_eq!(window(text, &s, 3, 0), "D.");
        assert_eq!(window(text, &s, 1, 5), "A. B. C. D.");
    }
}
