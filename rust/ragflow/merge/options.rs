//! The arguments of `naive_merge` and the release families it reproduces.

/// How v0.27 groups paragraphs (RAGFlow's `MergeStrategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// `MergeStrategy.OVER_CAP`, the default: a paragraph joins the current group unless the
    /// group's running total already exceeds `chunk_token_num * (100 - p) / 100`, so a group can
    /// overflow by one paragraph. A paragraph of more than `chunk_token_num` tokens stands alone.
    #[default]
    OverCap,
    /// `MergeStrategy.UNDER_CAP`: a paragraph joins only while `running + size <=
    /// chunk_token_num`; the overlap does not affect grouping. Oversized paragraphs stand alone.
    UnderCap,
    /// `MergeStrategy.HARD_CAP`, a ragchunk extension (not in RAGFlow): **no chunk's text, as
    /// returned, counts more than `chunk_token_num` tokens** — overlap prefix and `pos` tags
    /// included, measured by recounting the final string.
    ///
    /// 1. Paragraphs come from the same delimiter split as the other strategies. A paragraph
    ///    that does not fit alone (`"\n" + piece` plus its `pos`) is cut into fragments that
    ///    do: at sentence ends (`.!?` followed by whitespace; `。！？` anywhere; the whitespace
    ///    stays with the sentence before it), then after whitespace runs, then between code
    ///    points — never inside a position tag `@@...##` of the text. Consecutive units are
    ///    packed greedily. Fragments are sub-slices covering the piece exactly; each becomes a
    ///    paragraph of its own (so it gets its own `"\n"`).
    /// 2. Paragraphs are grouped greedily; every candidate chunk is rebuilt and recounted.
    /// 3. With `overlapped_percent > 0` the v0.27 prefix is computed as usual, then only its
    ///    longest tail that still fits in front of the chunk is kept (possibly none).
    ///
    /// The one exception: a single code point or in-text position tag (with the `"\n"` before
    /// it and its section's `pos` after it) that is over the cap by itself stands alone.
    /// Probing uses galloping and bisection on verified counts (see the `hard_cap` module). Custom mode
    /// (a backtick token in the field) ignores the strategy, as RAGFlow does; the Python facade
    /// refuses HARD_CAP with such a field.
    HardCap,
}

/// Which RAGFlow release family to reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// v0.27.x.
    #[default]
    V27,
    /// v0.26.x.
    V26,
    /// v0.23 – v0.25.
    V23,
    /// v0.20 – v0.22.
    V22,
}

/// The arguments of `naive_merge` besides the sections.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MergeOptions<'a> {
    /// Target size in tokens (RAGFlow default 128). Compared as a float, as Python does.
    pub chunk_token_num: f64,
    /// The delimiter field (RAGFlow default `"\n。；！？"`).
    pub delimiter: &'a str,
    /// Overlap between consecutive chunks, in percent (RAGFlow default 0).
    pub overlapped_percent: f64,
    /// Grouping strategy; only v0.27 has one.
    pub strategy: Strategy,
    /// Release family.
    pub compat: Compat,
}

impl Default for MergeOptions<'_> {
    fn default() -> Self {
        MergeOptions {
            chunk_token_num: 128.0,
            delimiter: "\n。；！？",
            overlapped_percent: 0.0,
            strategy: Strategy::OverCap,
            compat: Compat::V27,
        }
    }
}

/// One input section: its text and its optional position tag.
///
/// `pos: None` is Python `None`, `Some("")` is `""`; RAGFlow treats both as "no tag". A plain
/// `str` section is `pos: None` (RAGFlow turns it into `(s, "")`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section<'a> {
    pub text: &'a str,
    pub pos: Option<&'a str>,
}

impl<'a> Section<'a> {
    /// A section without a position tag.
    pub fn text(text: &'a str) -> Self {
        Section { text, pos: None }
    }

    pub(super) fn pos_str(&self) -> &'a str {
        self.pos.unwrap_or("")
    }
}

/// One output chunk and where its pieces came from (see the module docs for `sources`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Chunk {
    pub text: String,
    pub sources: Vec<usize>,
}
