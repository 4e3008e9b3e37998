//! The splitters' language data (sentence abbreviations and clause separators, the code
//! splitter's languages and tree-sitter node kinds, the character sets of whitespace and
//! sentence terminators), read from the data file both backends share,
//! `python/ragchunk/data/splitter_rules.txt`.
//!
//! The file is embedded at compile time and parsed once, on first use ([`rules`]); the
//! pure-Python fallback parses the same file with the same rules (`ragchunk.core.rules`), so
//! the two backends cannot drift apart. The file's header documents the line format. The
//! splitters keep their own views of these tables in the shapes their hot paths use
//! (`&'static str` slices, see [`static_strs`]; the character sets as bitmaps,
//! [`crate::text::boundaries`]), built once from here.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::OnceLock;

/// The data file, as shipped in the Python package.
const RULES_TXT: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/python/ragchunk/data/splitter_rules.txt"
));

/// The file's name in error messages.
const FILE_NAME: &str = "splitter_rules.txt";

/// A malformed data file: what is wrong and, when one line is to blame, which (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesError {
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{FILE_NAME}, line {line}: {}", self.message),
            None => write!(f, "{FILE_NAME}: {}", self.message),
        }
    }
}

impl std::error::Error for RulesError {}

fn err<T>(line: Option<usize>, message: impl Into<String>) -> Result<T, RulesError> {
    Err(RulesError {
        line,
        message: message.into(),
    })
}

/// One supported language of the code splitter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeLanguage {
    /// The canonical name.
    pub name: String,
    /// Other accepted names (lowercase; callers trim and lowercase what they look up).
    pub aliases: Vec<String>,
    /// Node kinds that define a named symbol.
    pub defs: Vec<String>,
    /// Node kinds that get barriers like definitions (decorated, exported, templated ones).
    pub wrappers: Vec<String>,
}

/// The parsed data file. Lists keep the file's order (the separators' order matters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    /// `sentence.abbreviations`: lowercase words after which a single `.` never ends a
    /// sentence.
    pub abbreviations: Vec<String>,
    /// `sentence.separators`: how an over-long sentence is cut, coarsest first.
    pub sentence_separators: Vec<String>,
    /// `code.languages` with each language's `code.<name>.*` records, sorted by name.
    pub code_languages: Vec<CodeLanguage>,
    /// `code.need_body`: kinds that are definitions only with a body.
    pub need_body: Vec<String>,
    /// `code.fn_values`: values that make a `variable_declarator` a definition.
    pub fn_values: Vec<String>,
    /// The `chars.*` records ([`CHAR_KEYS`], in that order): each set's characters in the
    /// file's order, ranges expanded.
    pub chars: Vec<(&'static str, Vec<char>)>,
}

/// The character sets of the data file (`chars.*`), in file order; each is described there.
pub const CHAR_KEYS: &[&str] = &[
    "chars.whitespace.hard_cap",
    "chars.whitespace.langchain",
    "chars.whitespace.packer",
    "chars.whitespace.html",
    "chars.whitespace.code",
    "chars.terminators.ascii",
    "chars.terminators.packer_cjk",
    "chars.terminators.hard_cap_cjk",
    "chars.terminators.sentence_latin",
    "chars.terminators.sentence_cjk",
    "chars.terminators.flow",
    "chars.closers.sentence",
    "chars.openers.sentence",
];

/// The sets a splitter compares with bytes, which must therefore be ASCII.
const ASCII_CHAR_KEYS: &[&str] = &["chars.whitespace.code"];

/// One record: its key, its values, and the line where it starts.
struct Record {
    line: usize,
    values: Vec<String>,
}

/// Characters that may appear in a language name or alias (lookups lowercase the name, so an
/// uppercase letter would never match).
fn is_name_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || "+#_-.".contains(c)
}

/// The code point of `U+XXXX` (4 to 6 uppercase hex digits; range not checked).
fn code_point(text: &str) -> Option<u32> {
    let hex = text.strip_prefix("U+")?;
    let ok = (4..=6).contains(&hex.len())
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b));
    ok.then(|| u32::from_str_radix(hex, 16).ok()).flatten()
}

/// Whether `cp` is a Unicode scalar value (a `char`: not a surrogate, at most U+10FFFF).
fn is_scalar(cp: u32) -> bool {
    cp <= 0x10_FFFF && !(0xD800..=0xDFFF).contains(&cp)
}

/// The characters of a `chars.*` record's values (see the file's header), checked.
fn char_set(key: &str, values: &[String], line: usize) -> Result<Vec<char>, RulesError> {
    let mut out: Vec<char> = Vec::new();
    for v in values {
        let mut it = v.chars();
        let (lo, hi) = match (it.next(), it.next()) {
            (Some(c), None) => (c as u32, c as u32),
            _ => {
                let ends = match v.split_once("..") {
                    Some((a, b)) => code_point(a).zip(code_point(b)),
                    None => code_point(v).map(|c| (c, c)),
                };
                let Some((lo, hi)) = ends else {
                    return err(
                        Some(line),
                        format!(
                            "`{v}` in `{key}` is not one character, `U+XXXX` or \
                             `U+XXXX..U+YYYY`"
                        ),
                    );
                };
                if v.contains("..") && lo >= hi {
                    return err(
                        Some(line),
                        format!("`{v}` in `{key}`: a range must go upwards"),
                    );
                }
                if !is_scalar(lo) || !is_scalar(hi) || (lo < 0xD800 && hi > 0xDFFF) {
                    return err(
                        Some(line),
                        format!(
                            "`{v}` in `{key}`: surrogates and code points above U+10FFFF \
                             are not characters"
                        ),
                    );
                }
                (lo, hi)
            }
        };
        for c in (lo..=hi).filter_map(char::from_u32) {
            if out.contains(&c) {
                let cp = c as u32;
                return err(Some(line), format!("U+{cp:04X} is twice in `{key}`"));
            }
            if !c.is_ascii() && ASCII_CHAR_KEYS.contains(&key) {
                let cp = c as u32;
                return err(
                    Some(line),
                    format!("`{key}` must be ASCII (its splitter compares bytes): U+{cp:04X}"),
                );
            }
            out.push(c);
        }
    }
    Ok(out)
}

/// Splits one line's values (the part after the key, or a continuation line).
fn values_of(text: &str, line: usize, out: &mut Vec<String>) -> Result<(), RulesError> {
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|&c| c == ' ' || c == '\t').is_some() {}
        let Some(first) = chars.next() else {
            return Ok(());
        };
        let mut value = String::new();
        if first == '"' {
            loop {
                match chars.next() {
                    None => return err(Some(line), "unterminated quoted string"),
                    Some('"') => break,
                    Some('\\') => match chars.next() {
                        Some('"') => value.push('"'),
                        Some('\\') => value.push('\\'),
                        Some('n') => value.push('\n'),
                        Some('t') => value.push('\t'),
                        Some(c) => return err(Some(line), format!("unknown escape `\\{c}`")),
                        None => return err(Some(line), "unterminated quoted string"),
                    },
                    Some(c) => value.push(c),
                }
            }
            if chars.peek().is_some_and(|&c| c != ' ' && c != '\t') {
                return err(Some(line), "a quoted string must be followed by a space");
            }
        } else {
            value.push(first);
            while let Some(c) = chars.next_if(|&c| c != ' ' && c != '\t') {
                value.push(c);
            }
            if value.contains(['"', '\\']) {
                return err(
                    Some(line),
                    format!("`\"` or `\\` in the bare value `{value}` (quote the value)"),
                );
            }
        }
        out.push(value);
    }
}

/// The file's records by key, in file order, each checked for duplicate values.
fn records(text: &str) -> Result<Vec<(String, Record)>, RulesError> {
    let mut out: Vec<(String, Record)> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        let body = raw.strip_suffix('\r').unwrap_or(raw);
        let rest = body.trim_start_matches([' ', '\t']);
        if rest.is_empty() || rest.starts_with('#') {
            continue;
        }
        if rest.len() < body.len() {
            let Some((key, record)) = out.last_mut() else {
                return err(Some(line), "a continuation line (indented) before any key");
            };
            let from = record.values.len();
            values_of(rest, line, &mut record.values)?;
            check_unique(key, &record.values, from, line)?;
            continue;
        }
        let mut values = Vec::new();
        values_of(rest, line, &mut values)?;
        if rest.starts_with('"') {
            return err(Some(line), "a key must be a bare word, not a quoted string");
        }
        let key = values.remove(0);
        if let Some(first) = seen.insert(key.clone(), line) {
            return err(
                Some(line),
                format!("duplicate key `{key}` (first at line {first})"),
            );
        }
        check_unique(&key, &values, 0, line)?;
        out.push((key, Record { line, values }));
    }
    Ok(out)
}

/// Errors on a value of `values[from..]` that already appears earlier in `values`.
fn check_unique(key: &str, values: &[String], from: usize, line: usize) -> Result<(), RulesError> {
    for (i, v) in values.iter().enumerate().skip(from) {
        if values[..i].contains(v) {
            return err(Some(line), format!("duplicate value `{v}` in `{key}`"));
        }
    }
    Ok(())
}

impl Rules {
    /// Parses the data file's text (see the file's header for the format), checking that
    /// every expected key is there once, with values where values are required, no unknown
    /// key, and no value repeated within a list or a language name given twice.
    pub fn parse(text: &str) -> Result<Rules, RulesError> {
        let mut recs: HashMap<String, Record> = HashMap::new();
        let mut order: Vec<String> = Vec::new();
        for (key, rec) in records(text)? {
            order.push(key.clone());
            recs.insert(key, rec);
        }
        let Some(langs) = recs.get("code.languages") else {
            return err(None, "missing key `code.languages`");
        };
        let names = langs.values.clone();
        let mut known: HashSet<String> = [
            "sentence.abbreviations",
            "sentence.separators",
            "code.languages",
            "code.need_body",
            "code.fn_values",
        ]
        .into_iter()
        .chain(CHAR_KEYS.iter().copied())
        .map(str::to_owned)
        .collect();
        for name in &names {
            for field in ["aliases", "defs", "wrappers"] {
                known.insert(format!("code.{name}.{field}"));
            }
        }
        for key in &order {
            if !known.contains(key) {
                return err(Some(recs[key].line), format!("unknown key `{key}`"));
            }
        }
        let mut take =
            |key: &str, may_be_empty: bool| -> Result<(Vec<String>, usize), RulesError> {
                let Some(rec) = recs.remove(key) else {
                    return err(None, format!("missing key `{key}`"));
                };
                if rec.values.is_empty() && !may_be_empty {
                    return err(Some(rec.line), format!("`{key}` needs at least one value"));
                }
                Ok((rec.values, rec.line))
            };
        let (abbreviations, _) = take("sentence.abbreviations", false)?;
        let (sentence_separators, _) = take("sentence.separators", false)?;
        let (_, langs_line) = take("code.languages", false)?;
        if !names.windows(2).all(|w| w[0] < w[1]) {
            return err(Some(langs_line), "`code.languages` must be sorted");
        }
        let (need_body, _) = take("code.need_body", false)?;
        let (fn_values, _) = take("code.fn_values", false)?;
        let mut code_languages = Vec::with_capacity(names.len());
        for name in &names {
            let (aliases, aliases_line) = take(&format!("code.{name}.aliases"), true)?;
            let (defs, _) = take(&format!("code.{name}.defs"), false)?;
            let (wrappers, _) = take(&format!("code.{name}.wrappers"), true)?;
            code_languages.push((
                CodeLanguage {
                    name: name.clone(),
                    aliases,
                    defs,
                    wrappers,
                },
                aliases_line,
            ));
        }
        let mut owner: HashMap<&str, &str> = HashMap::new();
        for (lang, line) in &code_languages {
            let own = std::iter::once((&lang.name, langs_line))
                .chain(lang.aliases.iter().map(|a| (a, *line)));
            for (n, line) in own {
                if !n.chars().all(is_name_char) {
                    return err(
                        Some(line),
                        format!(
                            "`{n}`: a language name is lowercase ASCII letters, digits or `+#_-.`"
                        ),
                    );
                }
                if let Some(other) = owner.insert(n, &lang.name) {
                    return err(Some(line), format!("`{n}` already names `{other}`"));
                }
            }
        }
        let mut chars = Vec::with_capacity(CHAR_KEYS.len());
        for &key in CHAR_KEYS {
            let (values, line) = take(key, false)?;
            chars.push((key, char_set(key, &values, line)?));
        }
        Ok(Rules {
            abbreviations,
            sentence_separators,
            code_languages: code_languages.into_iter().map(|(l, _)| l).collect(),
            need_body,
            fn_values,
            chars,
        })
    }

    /// The language called `name` (canonical or alias, exactly: callers trim and lowercase).
    pub fn language(&self, name: &str) -> Option<&CodeLanguage> {
        self.code_languages
            .iter()
            .find(|l| l.name == name || l.aliases.iter().any(|a| a == name))
    }

    /// The characters of the set `key` (one of [`CHAR_KEYS`]).
    ///
    /// # Panics
    /// If `key` is not in [`CHAR_KEYS`] (a typo in the caller; every key is always there).
    pub fn chars(&self, key: &str) -> &[char] {
        let found = self.chars.iter().find(|(k, _)| *k == key);
        &found
            .unwrap_or_else(|| panic!("no character set `{key}`"))
            .1
    }
}

/// The shipped data file, parsed on first use and kept for the life of the process.
///
/// # Panics
/// If the embedded file is malformed, naming the line; the unit tests below parse it, so a
/// build that passes them never panics here.
pub fn rules() -> &'static Rules {
    static RULES: OnceLock<Rules> = OnceLock::new();
    RULES.get_or_init(|| Rules::parse(RULES_TXT).unwrap_or_else(|e| panic!("{e}")))
}

/// `values` as `&'static str`s, the shape the splitters' tables have (for [`rules`]'s lists,
/// which live for the process).
pub fn static_strs(values: &'static [String]) -> Vec<&'static str> {
    values.iter().map(String::as_str).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_duplicates(list: &[String]) -> bool {
        list.iter().collect::<HashSet<_>>().len() == list.len()
    }

    #[test]
    fn shipped_file_parses_into_known_values() {
        let r = rules();
        assert!(r.abbreviations.iter().any(|a| a == "mr"));
        assert!(r.abbreviations.iter().any(|a| a == "eds"));
        assert!(!r.abbreviations.iter().any(|a| a == "etc"));
        assert_eq!(
            r.sentence_separators,
            ["; ", ": ", ", ", "，", "、", "：", " ", ""]
        );
        let names: Vec<&str> = r.code_languages.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "c",
                "cpp",
                "go",
                "java",
                "javascript",
                "python",
                "rust",
                "tsx",
                "typescript"
            ]
        );
        let python = r.language("python").unwrap();
        assert_eq!(python.wrappers, ["decorated_definition"]);
        assert_eq!(python.defs, ["function_definition", "class_definition"]);
        assert_eq!(r.language("py"), Some(python));
        assert_eq!(r.language("c++").unwrap().name, "cpp");
        assert_eq!(r.language("jsx").unwrap().name, "javascript");
        assert!(r.language("Py").is_none() && r.language("cobol").is_none());
        assert!(r.language("rust").unwrap().wrappers.is_empty());
        assert_eq!(r.need_body.len(), 4);
        assert!(r.fn_values.iter().any(|v| v == "arrow_function"));
        let ts = r.language("typescript").unwrap();
        assert_eq!(r.language("tsx").unwrap().defs, ts.defs);
        assert!(r
            .language("javascript")
            .unwrap()
            .defs
            .iter()
            .all(|d| ts.defs.contains(d)));
    }

    #[test]
    fn shipped_lists_are_non_empty_and_duplicate_free() {
        let r = rules();
        for list in [
            &r.abbreviations,
            &r.sentence_separators,
            &r.need_body,
            &r.fn_values,
        ] {
            assert!(!list.is_empty() && no_duplicates(list), "{list:?}");
        }
        for (key, set) in &r.chars {
            let unique: HashSet<&char> = set.iter().collect();
            assert!(!set.is_empty() && unique.len() == set.len(), "{key}");
        }
        for l in &r.code_languages {
            assert!(!l.defs.is_empty(), "{}", l.name);
            for list in [&l.aliases, &l.defs, &l.wrappers] {
                assert!(no_duplicates(list), "{}: {list:?}", l.name);
            }
        }
    }

    /// A minimal valid file, with `extra` after its first 8 lines (lines 1-8: abbreviations,
    /// separators, languages, need_body, fn_values, the language's 3 records; then `extra`;
    /// then every character set as `a`, from line 9 when `extra` is one line or none).
    fn file(extra: &str) -> String {
        let chars: String = CHAR_KEYS.iter().map(|k| format!("{k} a\n")).collect();
        format!(
            "sentence.abbreviations mr\nsentence.separators \" \" \"\"\ncode.languages x\n\
             code.need_body a\ncode.fn_values b\ncode.x.aliases\ncode.x.defs d\ncode.x.wrappers\n\
             {extra}{chars}"
        )
    }

    /// The minimal file with the set `key` holding `values` instead of `a`.
    fn with_set(key: &str, values: &str) -> String {
        file("").replace(&format!("\n{key} a\n"), &format!("\n{key} {values}\n"))
    }

    fn error(text: &str) -> String {
        Rules::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn format_quoting_continuations_and_comments() {
        let text = "# head\n\nsentence.abbreviations a\n  # between\n\tb  c\r\n\
                    sentence.separators \"; \" \"\\\"\\\\\\n\\t\" \"\"\n\
                    code.languages x\ncode.need_body a\ncode.fn_values b\n\
                    code.x.aliases y\ncode.x.defs d\ncode.x.wrappers\n";
        let chars: String = CHAR_KEYS.iter().map(|k| format!("{k} a\n")).collect();
        let r = Rules::parse(&format!("{text}{chars}")).unwrap();
        assert_eq!(r.abbreviations, ["a", "b", "c"]);
        assert_eq!(r.sentence_separators, ["; ", "\"\\\n\t", ""]);
        assert_eq!(r.language("y").unwrap().name, "x");
        assert!(Rules::parse(&file("")).is_ok());
    }

    #[test]
    fn character_sets_literal_code_points_and_ranges() {
        let text = with_set(
            "chars.whitespace.hard_cap",
            "U+0009 \"\\\"\" é U+0041..U+0043 U+10FFFF\n  \" \" U+1F600",
        );
        let r = Rules::parse(&text).unwrap();
        assert_eq!(
            r.chars("chars.whitespace.hard_cap"),
            ['\t', '"', 'é', 'A', 'B', 'C', '\u{10ffff}', ' ', '😀']
        );
        assert_eq!(r.chars("chars.openers.sentence"), ['a']);
        let keys: Vec<&str> = r.chars.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, CHAR_KEYS);
    }

    #[test]
    fn corrupt_character_sets_are_named() {
        let hc = "chars.whitespace.hard_cap";
        let bad = |v: &str| error(&with_set(hc, v));
        for v in [
            "U+00e9",
            "ab",
            "U+41",
            "U+0000041",
            "U+0041..",
            "..",
            "u+0041",
            "U+0041-U+0042",
            "U+0041..U+0042..U+0043",
            "U+00G1",
            "e\u{301}",
        ] {
            assert_eq!(
                bad(v),
                format!(
                    "splitter_rules.txt, line 9: `{v}` in `{hc}` is not one character, `U+XXXX` \
                     or `U+XXXX..U+YYYY`"
                )
            );
        }
        assert_eq!(
            bad("\"\""),
            format!(
                "splitter_rules.txt, line 9: `` in `{hc}` is not one character, `U+XXXX` or \
                 `U+XXXX..U+YYYY`"
            )
        );
        for v in ["U+0042..U+0041", "U+0041..U+0041"] {
            assert_eq!(
                bad(v),
                format!("splitter_rules.txt, line 9: `{v}` in `{hc}`: a range must go upwards")
            );
        }
        for v in [
            "U+D800",
            "U+DFFF",
            "U+110000",
            "U+D7FF..U+E000",
            "U+0041..U+D800",
        ] {
            assert_eq!(
                bad(v),
                format!(
                    "splitter_rules.txt, line 9: `{v}` in `{hc}`: surrogates and code points \
                     above U+10FFFF are not characters"
                )
            );
        }
        assert_eq!(
            bad("a U+0061"),
            format!("splitter_rules.txt, line 9: U+0061 is twice in `{hc}`")
        );
        assert_eq!(
            bad("U+0040..U+0042\n  A"),
            format!("splitter_rules.txt, line 9: U+0041 is twice in `{hc}`")
        );
        assert_eq!(
            bad("a a"),
            format!("splitter_rules.txt, line 9: duplicate value `a` in `{hc}`")
        );
        assert_eq!(
            error(&with_set("chars.whitespace.code", "U+0020 U+00A0")),
            "splitter_rules.txt, line 13: `chars.whitespace.code` must be ASCII (its splitter \
             compares bytes): U+00A0"
        );
        assert_eq!(
            error(&file("").replace("chars.whitespace.hard_cap a", hc)),
            format!("splitter_rules.txt, line 9: `{hc}` needs at least one value")
        );
        assert_eq!(
            error(&file("").replace("chars.openers.sentence a\n", "")),
            "splitter_rules.txt: missing key `chars.openers.sentence`"
        );
        assert_eq!(
            error(&file("chars.whitespace.nbsp U+00A0\n")),
            "splitter_rules.txt, line 9: unknown key `chars.whitespace.nbsp`"
        );
    }

    #[test]
    fn corrupt_lines_are_named() {
        assert_eq!(
            error(&file("code.x.defs e\n")),
            "splitter_rules.txt, line 9: duplicate key `code.x.defs` (first at line 7)"
        );
        assert_eq!(
            error(&file("code.y.defs e\n")),
            "splitter_rules.txt, line 9: unknown key `code.y.defs`"
        );
        assert_eq!(
            error("  mr\n"),
            "splitter_rules.txt, line 1: a continuation line (indented) before any key"
        );
        assert_eq!(
            error("sentence.abbreviations mr\n  ms mr\n"),
            "splitter_rules.txt, line 2: duplicate value `mr` in `sentence.abbreviations`"
        );
        assert_eq!(
            error("sentence.separators \"; \n"),
            "splitter_rules.txt, line 1: unterminated quoted string"
        );
        assert_eq!(
            error("sentence.separators \"\\x\"\n"),
            "splitter_rules.txt, line 1: unknown escape `\\x`"
        );
        assert_eq!(
            error("sentence.separators \"a\"b\n"),
            "splitter_rules.txt, line 1: a quoted string must be followed by a space"
        );
        assert_eq!(
            error("sentence.separators a\"b\n"),
            "splitter_rules.txt, line 1: `\"` or `\\` in the bare value `a\"b` (quote the value)"
        );
        assert_eq!(
            error("\"key\" a\n"),
            "splitter_rules.txt, line 1: a key must be a bare word, not a quoted string"
        );
        assert_eq!(
            error(&file("").replace("code.x.defs d", "code.x.defs")),
            "splitter_rules.txt, line 7: `code.x.defs` needs at least one value"
        );
        assert_eq!(
            error(&file("").replace("code.x.aliases", "code.x.aliases x")),
            "splitter_rules.txt, line 6: `x` already names `x`"
        );
        assert_eq!(
            error(&file("").replace("code.x.aliases", "code.x.aliases Y")),
            "splitter_rules.txt, line 6: `Y`: a language name is lowercase ASCII letters, \
             digits or `+#_-.`"
        );
        assert_eq!(
            error(&file("").replace("code.languages x", "code.languages x w")),
            "splitter_rules.txt, line 3: `code.languages` must be sorted"
        );
        assert_eq!(
            error(&file("").replace("code.fn_values b\n", "")),
            "splitter_rules.txt: missing key `code.fn_values`"
        );
        assert_eq!(
            error("sentence.abbreviations mr\n"),
            "splitter_rules.txt: missing key `code.languages`"
        );
    }
}
