//! Source code splitting along the syntax tree (tree-sitter), behind the `code` feature.
//!
//! # Grammars
//! One `tree-sitter-<lang>` crate per language, compiled from C by `cc` at build time and
//! linked statically; nothing is downloaded at run time. Versions are pinned in `Cargo.toml`
//! to the grammar wheels the pure-Python fallback uses
//! (`python/ragchunk/_pure/splitters/code.py`), so both backends parse into the same tree and
//! produce identical chunks.
//!
//! # Algorithm
//! 1. Parse. Syntax errors are recovered by tree-sitter (ERROR / MISSING nodes); the walk
//!    below does not care, so a broken file still yields a best-effort, lossless result.
//! 2. Walk from the root, turning the tree into *atoms* (byte ranges) in document order:
//!    * siblings are grouped into *units*: a comment that starts on the line where the
//!      previous sibling ends stays with that sibling; a run of comments (and Rust
//!      attributes) with no blank line before the next sibling goes with that sibling
//!      (leading doc comments stay with their function);
//!    * a unit whose text fits the budget is one atom (kept whole);
//!    * a unit that does not fit is *expanded*: each member is an atom if it fits, else its
//!      children are walked the same way (recursively, with an explicit stack: no recursion
//!      limit on deeply nested input). A childless node that does not fit is one atom (the
//!      packer cuts it), and so is a node [`MAX_DEPTH`] levels below the root: deeper
//!      structure is cut as text (lines, sentences, whitespace, characters), never walked,
//!      so pathological nesting costs at most `MAX_DEPTH` counts per byte;
//!    * non-whitespace text between siblings (nothing a grammar normally leaves out, but
//!      tree-sitter is allowed to) becomes an atom too, so no text can be lost.
//! 3. An expanded *definition* (function, class, impl, ... per language; or a wrapper such
//!    as a decorated/exported/templated definition) is fenced by *barriers*: its parts are
//!    never packed with text before or after it. Within a wrapper the inner definition gets
//!    no barrier of its own, so a decorator stays with its function's first chunk.
//! 4. Between barriers, atoms are packed greedily by the structure-aware splitters' packer
//!    ([`pack_spans`]): the longest run of whole atoms that fits; an atom over budget is cut
//!    at lines, then sentence ends, then whitespace, then between characters.
//! 5. Each chunk names the definitions it overlaps, innermost only, qualified by their
//!    enclosing definitions (`Class.method`), and its 1-based inclusive line range
//!    (lines are counted by `\n`).

use std::collections::HashSet;
use std::sync::LazyLock;

use tree_sitter::{Language, Node, Parser};

use super::packer::pack_spans;
use super::Span;
use crate::text::boundaries::boundaries;
use crate::text::rules::{rules, static_strs};
use crate::text::CharIndex;
use crate::tokenizer::TokenCounter;

/// How deep the walk goes into the syntax tree: a node this many levels below the root that
/// does not fit the budget is one atom, cut as text by the packer instead of walked into.
/// Each walked level may count its node's text once, so this bounds the work per input byte
/// on deeply nested input (`x = ((((...))))`). Ordinary code is far shallower where it
/// matters: a node this deep is nearly always within the budget already. The same limit is
/// `MAX_DEPTH` in `python/ragchunk/_pure/splitters/code.py`.
pub const MAX_DEPTH: usize = 64;

/// A supported language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    C,
    Cpp,
    Go,
    Java,
    JavaScript,
    Python,
    Rust,
    Tsx,
    TypeScript,
}

/// Canonical names of the supported languages, sorted (`code.languages` of the shared data
/// file, [`crate::text::rules`]; each must be one of [`Lang::ALL`]'s names).
pub static LANGUAGES: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    rules()
        .code_languages
        .iter()
        .map(|l| l.name.as_str())
        .collect()
});

/// Per [`Lang`] (indexed by `lang as usize`, the order of [`Lang::ALL`]): its definition
/// kinds and its wrapper kinds (`code.<name>.defs` and `.wrappers` of the data file).
static LANG_KINDS: LazyLock<Vec<(Vec<&'static str>, Vec<&'static str>)>> = LazyLock::new(|| {
    Lang::ALL
        .iter()
        .map(|&lang| {
            let l = rules()
                .language(lang.name())
                .unwrap_or_else(|| panic!("no `code.{}.*` in the data file", lang.name()));
            (static_strs(&l.defs), static_strs(&l.wrappers))
        })
        .collect()
});

/// Kinds that are definitions only with a body (`code.need_body` of the data file).
static NEED_BODY: LazyLock<Vec<&'static str>> = LazyLock::new(|| static_strs(&rules().need_body));
/// Values that make a `variable_declarator` a definition (`code.fn_values` of the data file).
static FN_VALUES: LazyLock<Vec<&'static str>> = LazyLock::new(|| static_strs(&rules().fn_values));

impl Lang {
    /// Every language, in declaration order (so `lang as usize` indexes it), which is also
    /// the order of the data file's sorted `code.languages`.
    pub const ALL: [Lang; 9] = [
        Lang::C,
        Lang::Cpp,
        Lang::Go,
        Lang::Java,
        Lang::JavaScript,
        Lang::Python,
        Lang::Rust,
        Lang::Tsx,
        Lang::TypeScript,
    ];

    /// The language for a name: canonical (see [`LANGUAGES`]) or an alias (`py`, `js`, `jsx`,
    /// `ts`, `rs`, `golang`, `c++`: `code.<name>.aliases` of the data file),
    /// case-insensitive, surrounding whitespace ignored.
    pub fn from_name(name: &str) -> Option<Lang> {
        let canonical = &rules().language(&name.trim().to_lowercase())?.name;
        Lang::ALL.into_iter().find(|l| l.name() == canonical)
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Lang::C => "c",
            Lang::Cpp => "cpp",
            Lang::Go => "go",
            Lang::Java => "java",
            Lang::JavaScript => "javascript",
            Lang::Python => "python",
            Lang::Rust => "rust",
            Lang::Tsx => "tsx",
            Lang::TypeScript => "typescript",
        }
    }

    fn grammar(self) -> Language {
        match self {
            Lang::C => tree_sitter_c::LANGUAGE.into(),
            Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        }
    }

    /// Node kinds that define a named symbol.
    fn defs(self) -> &'static [&'static str] {
        &LANG_KINDS[self as usize].0
    }

    /// Wrappers that get barriers like definitions (decorated, exported, templated ones).
    fn wrappers(self) -> &'static [&'static str] {
        &LANG_KINDS[self as usize].1
    }
}

/// One code chunk: its span (byte offsets, size in the counter's unit), the innermost
/// definitions it overlaps (qualified names, document order) and its 1-based inclusive lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeChunk {
    pub span: Span,
    pub symbols: Vec<String>,
    pub start_line: usize,
    pub end_line: usize,
}

/// Comments (and Rust attributes) attach to the node after them.
fn is_leading(kind: &str) -> bool {
    kind.contains("comment") || kind == "attribute_item"
}

struct Unit<'t> {
    members: Vec<Node<'t>>,
    leading_only: bool,
}

fn units<'t>(children: &[Node<'t>], src: &[u8]) -> Vec<Unit<'t>> {
    let mut out: Vec<Unit<'t>> = Vec::new();
    for &ch in children {
        let kind = ch.kind();
        if let Some(last) = out.last_mut() {
            let prev_end = last.members[last.members.len() - 1].end_byte();
            let nl =
                memchr::memchr_iter(b'\n', &src[prev_end..ch.start_byte().max(prev_end)]).count();
            if (kind.contains("comment") && nl == 0 && !last.leading_only)
                || (last.leading_only && nl <= 1)
            {
                last.members.push(ch);
                last.leading_only = last.leading_only && is_leading(kind);
                continue;
            }
        }
        out.push(Unit {
            members: vec![ch],
            leading_only: is_leading(kind),
        });
    }
    out
}

fn children_of<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

fn text_of(src: &[u8], node: Node<'_>) -> String {
    String::from_utf8_lossy(&src[node.start_byte()..node.end_byte()]).into_owned()
}

/// The name a definition node declares, or `None` (no name, or not really a definition).
fn def_name(node: Node<'_>, src: &[u8]) -> Option<String> {
    let kind = node.kind();
    if NEED_BODY.contains(&kind) && node.child_by_field_name("body").is_none() {
        return None;
    }
    if kind == "variable_declarator" {
        let value = node.child_by_field_name("value")?;
        if !FN_VALUES.contains(&value.kind()) {
            return None;
        }
    }
    let field = if kind == "impl_item" { "type" } else { "name" };
    let n = match node.child_by_field_name(field) {
        Some(n) => n,
        None => {
            let mut n = node.child_by_field_name("declarator")?;
            while let Some(inner) = n.child_by_field_name("declarator") {
                n = inner;
            }
            n
        }
    };
    let mut name = text_of(src, n);
    if kind == "method_declaration" {
        if let Some(receiver) = node.child_by_field_name("receiver") {
            // Go: qualify with the receiver's type name.
            let mut stack = vec![receiver];
            while let Some(r) = stack.pop() {
                if r.kind() == "type_identifier" {
                    name = format!("{}.{}", text_of(src, r), name);
                    break;
                }
                let mut kids = children_of(r);
                kids.reverse();
                stack.extend(kids);
            }
        }
    }
    Some(name)
}

/// A definition: byte range, qualified name, index of the enclosing definition.
struct Def {
    start: usize,
    end: usize,
    name: String,
    parent: Option<usize>,
}

fn definitions(root: Node<'_>, src: &[u8], lang: Lang) -> Vec<Def> {
    let defs = lang.defs();
    let mut out: Vec<Def> = Vec::new();
    let mut stack: Vec<(Node<'_>, Option<usize>)> = vec![(root, None)];
    while let Some((node, mut parent)) = stack.pop() {
        if defs.contains(&node.kind()) {
            if let Some(mut name) = def_name(node, src) {
                if let Some(p) = parent {
                    name = format!("{}.{}", out[p].name, name);
                }
                out.push(Def {
                    start: node.start_byte(),
                    end: node.end_byte(),
                    name,
                    parent,
                });
                parent = Some(out.len() - 1);
            }
        }
        let mut kids = children_of(node);
        kids.reverse();
        stack.extend(kids.into_iter().map(|k| (k, parent)));
    }
    out
}

/// Adds `[a, b)` as an atom, ASCII whitespace trimmed (nodes can end in a newline; text
/// between siblings is usually only whitespace).
fn push_trimmed(cur: &mut Vec<(usize, usize)>, src: &[u8], mut a: usize, mut b: usize) {
    let ws = boundaries().code_space;
    while a < b && ws.contains_byte(src[a]) {
        a += 1;
    }
    while b > a && ws.contains_byte(src[b - 1]) {
        b -= 1;
    }
    if a < b {
        cur.push((a, b));
    }
}

enum Op<'t> {
    Seq {
        children: Vec<Node<'t>>,
        lo: usize,
        hi: usize,
        in_wrapper: bool,
        depth: usize,
    },
    Gap(usize, usize),
    Place(Unit<'t>, bool, usize),
    Expand(Node<'t>, bool, usize),
    Barrier,
}

/// Byte-range atoms in document order, grouped: the packer never joins atoms of different
/// groups (see the module docs, steps 2-3).
fn atom_groups<E>(
    root: Node<'_>,
    src: &[u8],
    lang: Lang,
    fits: &mut dyn FnMut(usize, usize) -> Result<bool, E>,
) -> Result<Vec<Vec<(usize, usize)>>, E> {
    let (defs, wrappers) = (lang.defs(), lang.wrappers());
    let mut groups: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut cur: Vec<(usize, usize)> = Vec::new();
    let mut stack = vec![Op::Seq {
        children: children_of(root),
        lo: 0,
        hi: src.len(),
        in_wrapper: false,
        depth: 1,
    }];
    while let Some(op) = stack.pop() {
        match op {
            Op::Seq {
                children,
                lo,
                hi,
                in_wrapper,
                depth,
            } => {
                let mut todo = Vec::new();
                let mut pos = lo;
                for u in units(&children, src) {
                    todo.push(Op::Gap(pos, u.members[0].start_byte()));
                    pos = u.members[u.members.len() - 1].end_byte();
                    todo.push(Op::Place(u, in_wrapper, depth));
                }
                todo.push(Op::Gap(pos, hi));
                stack.extend(todo.into_iter().rev());
            }
            Op::Gap(a, b) => push_trimmed(&mut cur, src, a, b),
            Op::Barrier => {
                if !cur.is_empty() {
                    groups.push(std::mem::take(&mut cur));
                }
            }
            Op::Place(u, in_wrapper, depth) => {
                let s = u.members[0].start_byte();
                let e = u.members[u.members.len() - 1].end_byte();
                if fits(s, e)? {
                    push_trimmed(&mut cur, src, s, e);
                    continue;
                }
                let lone = u.members.len() == 1;
                let fenced = !in_wrapper
                    && u.members
                        .iter()
                        .any(|m| defs.contains(&m.kind()) || wrappers.contains(&m.kind()));
                let mut todo = Vec::new();
                if fenced {
                    todo.push(Op::Barrier);
                }
                let mut pos = s;
                for &m in &u.members {
                    todo.push(Op::Gap(pos, m.start_byte()));
                    // A lone member is known not to fit: expand it without counting again.
                    todo.push(Op::Expand(m, lone, depth));
                    pos = m.end_byte();
                }
                if fenced {
                    todo.push(Op::Barrier);
                }
                stack.extend(todo.into_iter().rev());
            }
            Op::Expand(node, known_big, depth) => {
                let (s, e) = (node.start_byte(), node.end_byte());
                if depth >= MAX_DEPTH || node.child_count() == 0 || (!known_big && fits(s, e)?) {
                    push_trimmed(&mut cur, src, s, e);
                    continue;
                }
                let children = children_of(node);
                stack.push(Op::Seq {
                    children,
                    lo: s,
                    hi: e,
                    in_wrapper: wrappers.contains(&node.kind()),
                    depth: depth + 1,
                });
            }
        }
    }
    if !cur.is_empty() {
        groups.push(cur);
    }
    Ok(groups)
}

/// Splits source `text` in `lang` into chunks of at most `budget` (in `counter`'s unit; only
/// a single character over budget overflows), following the module docs.
pub fn split_code<C: TokenCounter>(
    text: &str,
    lang: Lang,
    budget: usize,
    counter: &C,
) -> Result<Vec<CodeChunk>, C::Error> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let budget = budget.max(1);
    let src = text.as_bytes();
    let mut parser = Parser::new();
    let tree = parser
        .set_language(&lang.grammar())
        .ok()
        .and_then(|()| parser.parse(text, None));
    let Some(tree) = tree else {
        // Only a grammar/runtime ABI mismatch gets here (no timeout is set): keep the text.
        let spans = pack_spans(text, &[(0, text.len())], 0, budget, counter)?;
        return Ok(with_lines(text, spans, &[]));
    };
    let root = tree.root_node();
    let mut fits = |s: usize, e: usize| counter.count(&text[s..e]).map(|n| n <= budget);
    let groups = atom_groups(root, src, lang, &mut fits)?;
    let mut spans = Vec::new();
    for g in &groups {
        spans.extend(pack_spans(text, g, 0, budget, counter)?);
    }
    let defs = definitions(root, src, lang);
    Ok(with_lines(text, spans, &defs))
}

fn with_lines(text: &str, spans: Vec<Span>, defs: &[Def]) -> Vec<CodeChunk> {
    let src = text.as_bytes();
    let mut out = Vec::with_capacity(spans.len());
    let mut next = 0usize;
    let mut active: Vec<usize> = Vec::new();
    let (mut line, mut line_at) = (1usize, 0usize);
    for span in spans {
        let (s, e) = (span.start, span.end);
        while next < defs.len() && defs[next].start < e {
            active.push(next);
            next += 1;
        }
        active.retain(|&d| defs[d].end > s);
        let parents: HashSet<usize> = active.iter().filter_map(|&d| defs[d].parent).collect();
        let symbols = active
            .iter()
            .filter(|d| !parents.contains(d))
            .map(|&d| defs[d].name.clone())
            .collect();
        line += memchr::memchr_iter(b'\n', &src[line_at..s]).count();
        let start_line = line;
        let end_line =
            start_line + memchr::memchr_iter(b'\n', &src[s..e.saturating_sub(1).max(s)]).count();
        line_at = s;
        out.push(CodeChunk {
            span,
            symbols,
            start_line,
            end_line,
        });
    }
    out
}

/// `chunks` of `text` with code-point spans instead of byte spans (one pass over the text,
/// [`CharIndex`]); sizes, symbols and lines unchanged. What the bindings hand to Python.
pub fn chunks_in_chars(text: &str, mut chunks: Vec<CodeChunk>) -> Vec<CodeChunk> {
    let index = CharIndex::new(text);
    for c in &mut chunks {
        c.span.start = index.char_offset(c.span.start);
        c.span.end = index.char_offset(c.span.end);
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::CharCount;

    fn chunks(text: &str, lang: Lang, budget: usize) -> Vec<(String, Vec<String>, usize, usize)> {
        split_code(text, lang, budget, &CharCount)
            .unwrap()
            .into_iter()
            .map(|c| {
                (
                    text[c.span.start..c.span.end].to_owned(),
                    c.symbols,
                    c.start_line,
                    c.end_line,
                )
            })
            .collect()
    }

    fn covers(text: &str, lang: Lang, budget: usize) {
        let got = split_code(text, lang, budget, &CharCount).unwrap();
        let mut covered = vec![false; text.len()];
        let mut prev_end = 0;
        for c in &got {
            assert!(c.span.start >= prev_end, "overlap at {:?}", c.span);
            assert!(text.is_char_boundary(c.span.start) && text.is_char_boundary(c.span.end));
            assert!(c.span.size <= budget || text[c.span.start..c.span.end].chars().count() == 1);
            covered[c.span.start..c.span.end].fill(true);
            prev_end = c.span.end;
        }
        for (i, ch) in text.char_indices() {
            assert!(covered[i] || ch.is_whitespace(), "lost {ch:?} at {i}");
        }
    }

    #[test]
    fn deep_nesting_is_cut_as_text_past_max_depth() {
        // Without the limit, every nested level would be walked and counted: thousands of
        // atoms. With it, the walk stops MAX_DEPTH levels down and the rest is one atom.
        let deep = format!("x = {}1{}\n", "(".repeat(5000), ")".repeat(5000));
        let tree = {
            let mut p = Parser::new();
            p.set_language(&Lang::Python.grammar()).unwrap();
            p.parse(&deep, None).unwrap()
        };
        let mut fits = |s: usize, e: usize| Ok::<_, std::convert::Infallible>(e - s <= 16);
        let groups =
            atom_groups(tree.root_node(), deep.as_bytes(), Lang::Python, &mut fits).unwrap();
        let atoms: usize = groups.iter().map(Vec::len).sum();
        assert!(atoms <= 2 * MAX_DEPTH, "{atoms} atoms");
        covers(&deep, Lang::Python, 16);
        // Shallow code is walked as before: a nested definition still gets its own chunk.
        let nested = "class A:\n    def m(self):\n        return [[1, 2], [3, 4]]\n";
        let got = chunks(nested, Lang::Python, 30);
        assert_eq!(got[0].0, "class A:");
        assert_eq!(got[1].1, ["A.m"]);
    }

    #[test]
    fn names_and_aliases() {
        assert_eq!(Lang::from_name(" Py "), Some(Lang::Python));
        assert_eq!(Lang::from_name("c++"), Some(Lang::Cpp));
        assert_eq!(Lang::from_name("cobol"), None);
        for &name in LANGUAGES.iter() {
            assert_eq!(Lang::from_name(name).unwrap().name(), name);
        }
        let all: Vec<&str> = Lang::ALL.iter().map(|l| l.name()).collect();
        assert_eq!(all, *LANGUAGES);
        assert!(Lang::ALL.iter().enumerate().all(|(i, &l)| l as usize == i));
        assert!(Lang::Python.wrappers().contains(&"decorated_definition"));
        assert!(Lang::Rust.wrappers().is_empty());
        assert!(Lang::Cpp.defs().contains(&"namespace_definition"));
        assert!(Lang::Tsx.defs().contains(&"interface_declaration"));
        assert!(NEED_BODY.contains(&"class_specifier") && FN_VALUES.contains(&"arrow_function"));
    }

    #[test]
    fn python_functions_whole_then_split() {
        let src = "import os\n\n# lead\ndef f(a):\n    return a\n\nclass A:\n    def m(self):\n        return 1\n";
        let all = chunks(src, Lang::Python, 1000);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].1, ["f", "A.m"]);
        assert_eq!((all[0].2, all[0].3), (1, 9));
        let small = chunks(src, Lang::Python, 36);
        assert_eq!(
            small,
            [
                ("import os".to_owned(), vec![], 1, 1),
                (
                    "# lead\ndef f(a):\n    return a".to_owned(),
                    vec!["f".to_owned()],
                    3,
                    5
                ),
                ("class A:".to_owned(), vec!["A".to_owned()], 7, 7),
                (
                    "def m(self):\n        return 1".to_owned(),
                    vec!["A.m".to_owned()],
                    8,
                    9
                ),
            ]
        );
    }

    #[test]
    fn rust_impl_and_go_receiver_names() {
        let rs = "struct S;\nimpl S {\n    fn new() -> S { S }\n}\n";
        assert_eq!(chunks(rs, Lang::Rust, 100)[0].1, ["S", "S.new"]);
        let go = "package p\n\nfunc (s *Srv) Run() error {\n\treturn nil\n}\n";
        assert_eq!(chunks(go, Lang::Go, 100)[0].1, ["Srv.Run"]);
        let c = "static int *make(void) { return 0; }\n";
        assert_eq!(chunks(c, Lang::C, 100)[0].1, ["make"]);
    }

    #[test]
    fn lossless_on_broken_and_deep_input() {
        covers("def f(:\n  return ]]\n\u{a0}x = 'é🦀'\n", Lang::Python, 3);
        let deep = format!("x = {}1{}\n", "(".repeat(3000), ")".repeat(3000));
        covers(&deep, Lang::Python, 7);
        covers("fn main() { let s = \"長い文字列\"; }", Lang::Rust, 2);
        for &lang in LANGUAGES.iter() {
            covers(
                "int main() { return 0; } // é\n",
                Lang::from_name(lang).unwrap(),
                5,
            );
            assert!(chunks("   \n\t", Lang::from_name(lang).unwrap(), 5).is_empty());
        }
    }
}
