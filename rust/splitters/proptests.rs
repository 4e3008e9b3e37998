//! Property tests of the structure-aware splitters on hostile input (`proptest`): any text
//! over an alphabet of markup, brackets, separators and multi-byte characters, optionally
//! nested hundreds of levels deep, is cut into chunks that are in order, never overlap, sit
//! on character boundaries, keep the budget (only a single character may exceed it) and
//! together cover every non-whitespace character. No input may panic.

use proptest::prelude::*;

use super::html::{layout_html, split_html};
use super::markdown::split_markdown;
use super::packer::PackOptions;
use crate::tokenizer::CharCount;

/// Text from a hostile alphabet: markup, brackets, separators, CJK, combining marks, NUL.
fn hostile_text() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "a",
        "bc",
        " ",
        "\n",
        "\n\n",
        "\t",
        ".",
        "。",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "<",
        ">",
        "</",
        "<div>",
        "</div>",
        "<p>",
        "<br>",
        "<table><tr><td>",
        "# ",
        "> ",
        "- ",
        "1. ",
        "```",
        "|",
        "---",
        "\"",
        "\\",
        "é",
        "🦀",
        "\u{301}",
        "\u{0}",
        "\u{feff}",
        "def f():",
        "fn f() {",
        ";",
        "=",
        "//",
        "/*",
        "*/",
    ]);
    let flat = prop::collection::vec(atoms, 0..60).prop_map(|v| v.concat());
    (flat, 0usize..400, 0usize..4).prop_map(|(body, depth, shape)| {
        let (open, close) = [("(", ")"), ("<div>", "</div>"), ("> ", ""), ("[", "]")][shape];
        format!("{}{}{}", open.repeat(depth), body, close.repeat(depth))
    })
}

fn opts(size: usize, merge_sections: bool) -> PackOptions {
    let mut split_levels = [false; 7];
    split_levels[1..4].fill(true);
    PackOptions {
        chunk_size: size,
        overlap: 0,
        split_levels,
        strip_headers: false,
        merge_sections,
    }
}

/// The invariants of the module docs for byte spans `spans` of `text`.
fn check_spans(text: &str, spans: &[(usize, usize, usize)], budget: usize) {
    let mut covered = vec![false; text.len()];
    let mut prev_end = 0;
    for &(s, e, size) in spans {
        assert!(s >= prev_end && s < e && e <= text.len(), "span {s}..{e}");
        assert!(text.is_char_boundary(s) && text.is_char_boundary(e));
        assert!(
            size <= budget || text[s..e].chars().count() == 1,
            "{size} > {budget}"
        );
        covered[s..e].fill(true);
        prev_end = e;
    }
    for (i, ch) in text.char_indices() {
        assert!(covered[i] || ch.is_whitespace(), "lost {ch:?} at {i}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn markdown_chunks_keep_invariants(text in hostile_text(), size in 1usize..40, merge in any::<bool>()) {
        let out = split_markdown(&text, &opts(size, merge), &CharCount).unwrap();
        let spans: Vec<_> = out
            .chunks
            .iter()
            .map(|c| (c.span.start, c.span.end, c.span.size))
            .collect();
        // A continuation chunk of a table also carries its header rows (counted in size).
        let budget = if out.chunks.iter().any(|c| c.prefix.is_some()) { usize::MAX } else { size };
        check_spans(&text, &spans, budget);
    }

    #[test]
    fn html_chunks_keep_invariants(text in hostile_text(), size in 1usize..40, merge in any::<bool>()) {
        let out = split_html(&text, &opts(size, merge), &CharCount).unwrap();
        prop_assert_eq!(&out.text, &layout_html(&text).text);
        let spans: Vec<_> = out
            .out
            .chunks
            .iter()
            .map(|c| (c.span.start, c.span.end, c.span.size))
            .collect();
        let budget = if out.out.chunks.iter().any(|c| c.prefix.is_some()) {
            usize::MAX
        } else {
            size
        };
        check_spans(&out.text, &spans, budget);
    }
}

#[cfg(feature = "code")]
mod code {
    use super::*;
    use crate::splitters::code::{split_code, Lang};

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        #[test]
        fn code_chunks_keep_invariants(
            text in hostile_text(),
            size in 1usize..40,
            lang in prop::sample::select(Lang::ALL.to_vec()),
        ) {
            let chunks = split_code(&text, lang, size, &CharCount).unwrap();
            let spans: Vec<_> = chunks.iter().map(|c| (c.span.start, c.span.end, c.span.size)).collect();
            check_spans(&text, &spans, size);
            for c in &chunks {
                prop_assert!(c.start_line <= c.end_line);
            }
        }
    }
}
