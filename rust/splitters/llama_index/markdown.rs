//! LlamaIndex's `MarkdownNodeParser` split: a document's sections at its `#` header lines,
//! each with the path of the headers above it.
//!
//! LlamaIndex's quirks, reproduced because its nodes carry them:
//! * **Header line rewritten.** A header's section starts with `"#" * level + " " + title`,
//!   so the whitespace character after the hashes (a tab, a no-break space) becomes a space;
//! * **Path without its own header.** `header_path` is the stack of headers *above* the
//!   section's own header (the stack minus its last entry);
//! * **Fences by prefix.** Any line whose left-stripped text starts with three backticks
//!   toggles the code block (`~~~` fences do not; an info string or a closing fence
//!   indented by any amount both count);
//! * **Levels unbounded.** Seven or more `#` make a header too (`re.match(r"^(#+)\s(.*)")`);
//! * **Sections stripped.** Each section is `str.strip()`ed (Python's whitespace), and a
//!   section that strips to nothing is dropped.

use super::punkt::is_py_space;

/// A section: its text (stripped, header line rewritten) and the header titles above it,
/// joined by the parser's `header_path_separator`.
pub type Section = (String, String);

/// Python's `str.strip()`.
fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// The header of `line` as `re.match(r"^(#+)\s(.*)", line)` reads it: the level and the
/// title (the rest of the line after one whitespace character).
fn header(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    if level == 0 {
        return None;
    }
    let mut rest = line[level..].chars();
    match rest.next() {
        Some(c) if is_py_space(c) => Some((level, rest.as_str())),
        _ => None,
    }
}

/// The sections of `text`, in order, as LlamaIndex's `MarkdownNodeParser.get_nodes_from_node`
/// builds them.
pub fn markdown_sections(text: &str, separator: &str) -> Vec<Section> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut stack: Vec<(usize, &str)> = Vec::new();
    let mut code_block = false;
    let path = |stack: &[(usize, &str)]| {
        let above = &stack[..stack.len().saturating_sub(1)];
        above
            .iter()
            .map(|&(_, title)| title)
            .collect::<Vec<_>>()
            .join(separator)
    };
    for line in text.split('\n') {
        if line.trim_start_matches(is_py_space).starts_with("```") {
            code_block = !code_block;
        } else if !code_block {
            if let Some((level, title)) = header(line) {
                let section = py_strip(&current);
                if !section.is_empty() {
                    out.push((section.to_owned(), path(&stack)));
                }
                while stack.last().is_some_and(|&(l, _)| l >= level) {
                    stack.pop();
                }
                stack.push((level, title));
                current.clear();
                current.push_str(&"#".repeat(level));
                current.push(' ');
                current.push_str(title);
                current.push('\n');
                continue;
            }
        }
        current.push_str(line);
        current.push('\n');
    }
    let section = py_strip(&current);
    if !section.is_empty() {
        out.push((section.to_owned(), path(&stack)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(v: &[(&str, &str)]) -> Vec<Section> {
        v.iter()
            .map(|&(a, b)| (a.to_owned(), b.to_owned()))
            .collect()
    }

    #[test]
    fn sections_paths_and_quirks() {
        let text = "intro\n# A\none\n##\tB\ntwo\n```\n# not\n```\n### C\n# D\n\n";
        assert_eq!(
            markdown_sections(text, "/"),
            owned(&[
                ("intro", ""),
                ("# A\none", ""),
                ("## B\ntwo\n```\n# not\n```", "A"),
                ("### C", "A/B"),
                ("# D", ""),
            ])
        );
    }

    #[test]
    fn not_headers() {
        assert_eq!(header("#tag"), None);
        assert_eq!(header("####### x"), Some((7, "x")));
        assert_eq!(header("#\u{a0}x"), Some((1, "x")));
        assert_eq!(markdown_sections(" \n\u{3000}", "/"), Vec::<Section>::new());
    }
}
