//! Exact, count-only BPE for tiktoken's `cl100k_base` and `o200k_base`, in pure Rust.
//!
//! `count_ordinary(text) == len(enc.encode_ordinary(text))` for every string: the text is cut by a
//! hand-written pretokenizer ([`pretok`]) that reproduces each encoding's regex exactly, with the
//! `regex-syntax` Unicode tables tiktoken's own regex engine uses ([`unicode`]); each piece is
//! then looked up whole (most pieces are a single token) or byte-pair merged with tiktoken's rule
//! ([`bpe`]).
//!
//! [`counter`] is the seam between the chunkers and counting: the [`TokenCounter`] trait and
//! the built-in counters over these encodings.
//!
//! Exactness evidence (kept as a dev script, numbers in the commit log): every Unicode scalar
//! value in a dozen contexts, random strings over tricky alphabets, and the whole 23.8 MB corpus
//! compared against tiktoken 0.14, for both encodings.

mod backtrack;
mod bpe;
mod cache;
mod chars;
pub mod counter;
#[cfg(feature = "hf")]
pub mod hf;
mod joins;
mod pretok;
mod resume;
mod session;
mod unicode;
mod vocab;

#[cfg(test)]
mod tests;

use std::ops::Range;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

pub use chars::{CharCount, IndexedCharCount};
pub use counter::{OrdinaryCount, RagflowCount, TokenCounter, UnitCount};
pub use resume::Resume;
use unicode::Classes;
use vocab::Vocab;

/// A built-in encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EncodingName {
    /// `cl100k_base` (GPT-3.5/4; RAGFlow's default).
    Cl100kBase,
    /// `o200k_base` (GPT-4o).
    O200kBase,
}

impl EncodingName {
    /// tiktoken's name for the encoding.
    pub fn as_str(self) -> &'static str {
        match self {
            EncodingName::Cl100kBase => "cl100k_base",
            EncodingName::O200kBase => "o200k_base",
        }
    }
}

impl std::fmt::Display for EncodingName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The name is not a built-in encoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown encoding {0:?} (built in: \"cl100k_base\", \"o200k_base\")")]
pub struct UnknownEncodingError(pub String);

impl FromStr for EncodingName {
    type Err = UnknownEncodingError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cl100k_base" => Ok(EncodingName::Cl100kBase),
            "o200k_base" => Ok(EncodingName::O200kBase),
            other => Err(UnknownEncodingError(other.to_owned())),
        }
    }
}

/// The text contains a special token's text, which tiktoken's `encode()` refuses by default.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("text contains the special token {token:?} at byte {}", .range.start)]
pub struct SpecialTokenError {
    /// The special token's text, e.g. `<|endoftext|>`.
    pub token: &'static str,
    /// Byte range of its first occurrence in the text.
    pub range: Range<usize>,
}

/// A token id that is neither in the vocabulary nor a special token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown token id {0}")]
pub struct UnknownTokenError(pub u32);

/// Bytes aligned to a cache line: the tables' sections start at multiples of 64 within them.
#[repr(C, align(64))]
struct Aligned<T: ?Sized>(T);

/// The encodings' lookup tables, laid out by the build script (`build.rs`) from the shipped
/// `.tiktoken.gz` files: the vocabulary's ([`Vocab::tables`]), then the crossings'
/// ([`joins::CharJoins::tables`]). Read in place: nothing is decompressed or parsed at run time.
static CL100K_TABLES: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(
    env!("OUT_DIR"),
    "/cl100k_base.tables"
)));
static O200K_TABLES: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(
    env!("OUT_DIR"),
    "/o200k_base.tables"
)));

/// The vocabulary and crossings of an encoding's tables.
fn read_tables(tables: &'static [u8]) -> (Vocab<'static>, joins::CharJoins<'static>) {
    let s = vocab::split_sections(tables);
    let section = |k: usize| s.get(k).copied().unwrap_or_default();
    (
        Vocab::from_tables(section(0)),
        joins::CharJoins::from_tables(section(1)),
    )
}

/// The tables of a vocabulary without tokens (for an external tokenizer), built once.
fn empty_tables() -> &'static [u8] {
    static EMPTY: OnceLock<Vec<u8>> = OnceLock::new();
    EMPTY.get_or_init(|| {
        let vocab = Vocab::tables(&[], &[]);
        let joins = joins::CharJoins::tables(&Vocab::from_tables(&vocab));
        vocab::join_sections(&[&vocab, &joins])
    })
}

const CL100K_SPECIAL: &[(&str, u32)] = &[
    ("<|endoftext|>", 100257),
    ("<|fim_prefix|>", 100258),
    ("<|fim_middle|>", 100259),
    ("<|fim_suffix|>", 100260),
    ("<|endofprompt|>", 100276),
];
const O200K_SPECIAL: &[(&str, u32)] = &[("<|endoftext|>", 199999), ("<|endofprompt|>", 200018)];

/// An encoding ready to count: vocabulary, pretokenizer and special tokens.
pub struct Tokenizer {
    name: EncodingName,
    classes: &'static Classes,
    vocab: Vocab<'static>,
    /// Which neighbouring characters a token could join, for cuts inside letter runs.
    joins: joins::CharJoins<'static>,
    special: &'static [(&'static str, u32)],
    special_finder: AhoCorasick,
    n_vocab: usize,
    /// Tables of the linear-time encoder for long pieces, built once long pieces add up to
    /// more than [`DEFER_BYTES`] (see [`Tokenizer::long_starts`]).
    backtrack: OnceLock<backtrack::Backtrack>,
    /// Bytes of long pieces heap-merged while the tables above are not built.
    long_bytes: AtomicUsize,
    /// A tokenizer from outside the built-in encodings (a Hugging Face `tokenizer.json`):
    /// when set, every count and edge comes from it (see [`Tokenizer::external`]).
    external: Option<Box<dyn External>>,
}

/// A tokenizer that counts by itself (a Hugging Face `tokenizer.json`), made usable wherever a
/// built-in encoding is ([`Tokenizer::external`]): chunkers, counters, the parallel batch.
pub trait External: Send + Sync {
    /// Number of tokens of `text`.
    fn count(&self, text: &str) -> usize;
    /// Token ids of `text`.
    fn ids(&self, text: &str) -> Vec<u32>;
    /// Byte offset where each token starts, non-decreasing, the first one 0 (text before the
    /// first token belongs to it), then `text.len()`: `count + 1` values.
    fn edges(&self, text: &str) -> Vec<usize>;
    /// One past the largest token id.
    fn vocab_size(&self) -> usize;
}

/// Pieces longer than this many bytes are encoded left to right ([`backtrack`]) instead of
/// heap-merged. Below it the heap is as fast and needs no tables.
const BACKTRACK_MIN: usize = 512;

/// Bytes of long pieces heap-merged before the linear-time encoder's tables are built.
/// Building them costs about as much as heap-merging a few megabytes of long pieces (and a
/// transient of tens of megabytes), which a process counting one document, a CLI call or a
/// serverless worker, would pay for nothing; the heap merge is exact and `O(n log n)`, so
/// deferring costs a bounded amount, and a single piece longer than this builds them at once.
const DEFER_BYTES: usize = 1 << 20;

fn registry() -> &'static std::sync::Mutex<std::collections::HashMap<String, &'static Tokenizer>> {
    static REGISTRY: OnceLock<
        std::sync::Mutex<std::collections::HashMap<String, &'static Tokenizer>>,
    > = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

fn classes() -> &'static Classes {
    static CLASSES: OnceLock<Classes> = OnceLock::new();
    CLASSES.get_or_init(Classes::build)
}

impl Tokenizer {
    /// The tokenizer for `name`, built on first use (its tables are read in place from the
    /// binary, so that takes microseconds) and shared by all threads afterwards.
    pub fn get(name: EncodingName) -> &'static Tokenizer {
        static CL100K: OnceLock<Tokenizer> = OnceLock::new();
        static O200K: OnceLock<Tokenizer> = OnceLock::new();
        match name {
            EncodingName::Cl100kBase => CL100K.get_or_init(|| Tokenizer::build(name)),
            EncodingName::O200kBase => O200K.get_or_init(|| Tokenizer::build(name)),
        }
    }

    fn build(name: EncodingName) -> Tokenizer {
        let (tables, special) = match name {
            EncodingName::Cl100kBase => (CL100K_TABLES, CL100K_SPECIAL),
            EncodingName::O200kBase => (O200K_TABLES, O200K_SPECIAL),
        };
        let (vocab, joins) = read_tables(&tables.0);
        let special_finder = AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(special.iter().map(|(s, _)| s))
            .expect("special-token automaton builds");
        let max_special = special.iter().map(|&(_, id)| id as usize + 1).max();
        let n_vocab = vocab.len().max(max_special.unwrap_or(0));
        Tokenizer {
            name,
            classes: classes(),
            joins,
            vocab,
            special,
            special_finder,
            n_vocab,
            backtrack: OnceLock::new(),
            long_bytes: AtomicUsize::new(0),
            external: None,
        }
    }

    /// A tokenizer that counts with `model` everywhere a built-in encoding is accepted.
    /// Special-token text is ordinary text for it (`count` never refuses).
    pub fn external(model: Box<dyn External>) -> Tokenizer {
        let (vocab, joins) = read_tables(empty_tables());
        let n_vocab = model.vocab_size();
        Tokenizer {
            name: EncodingName::Cl100kBase,
            classes: classes(),
            joins,
            vocab,
            special: &[],
            special_finder: AhoCorasick::new(Vec::<&str>::new()).expect("empty automaton builds"),
            n_vocab,
            backtrack: OnceLock::new(),
            long_bytes: AtomicUsize::new(0),
            external: Some(model),
        }
    }

    /// Registers `tok` under `key` for [`Tokenizer::lookup`] and returns the shared instance
    /// (the one already registered under `key`, if any). Registered tokenizers live as long
    /// as the process, like the built-in ones.
    pub fn register(
        key: &str,
        tok: impl FnOnce() -> Result<Tokenizer, String>,
    ) -> Result<&'static Tokenizer, String> {
        let mut map = registry().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&t) = map.get(key) {
            return Ok(t);
        }
        let t: &'static Tokenizer = Box::leak(Box::new(tok()?));
        map.insert(key.to_owned(), t);
        Ok(t)
    }

    /// The tokenizer registered under `key`.
    pub fn lookup(key: &str) -> Option<&'static Tokenizer> {
        registry()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .copied()
    }

    /// Whether this is an external tokenizer ([`Tokenizer::external`]).
    pub fn is_external(&self) -> bool {
        self.external.is_some()
    }

    /// Which encoding this is (meaningless for an external tokenizer).
    pub fn name(&self) -> EncodingName {
        self.name
    }

    /// tiktoken's `n_vocab`: one past the largest token id, special tokens included.
    pub fn n_vocab(&self) -> usize {
        self.n_vocab
    }

    /// Calls `f` with the byte range of each regex piece of `text`, in order.
    #[inline(always)]
    fn for_each_piece(&self, text: &str, mut f: impl FnMut(&[u8])) {
        let s = text.as_bytes();
        let cls = self.classes;
        let mut i = 0;
        // Monomorphised per encoding so the lexer inlines into the loop.
        match self.name {
            EncodingName::Cl100kBase => {
                while i < s.len() {
                    let e = pretok::cl100k_end(cls, s, i);
                    f(s.get(i..e).unwrap_or_default());
                    i = e;
                }
            }
            EncodingName::O200kBase => {
                while i < s.len() {
                    let e = pretok::o200k_end(cls, s, i);
                    f(s.get(i..e).unwrap_or_default());
                    i = e;
                }
            }
        }
    }

    /// Id of the encoding in [`cache::PieceCache`] keys.
    fn cache_id(&self) -> u32 {
        match self.name {
            EncodingName::Cl100kBase => 1,
            EncodingName::O200kBase => 2,
        }
    }

    /// Token-start mask (bit `k`: a token starts at byte `k`) of a 2..=[`cache::MAX_LEN`]-byte
    /// piece that is not itself a token, by merging. Short arrays for short pieces:
    /// initialising two 129-entry arrays for every merged piece cost ~5% of English counting.
    #[inline(always)]
    fn small_mask(&self, piece: &[u8]) -> u32 {
        let mut starts = [0u32; cache::MAX_LEN + 1];
        let m = bpe::merge_small(&self.vocab, piece, &mut starts);
        starts[..m].iter().fold(0, |mask, &s| mask | 1 << s)
    }

    /// Token starts of a piece longer than [`bpe::SMALL`] bytes (heap merge).
    fn long_starts(&self, piece: &[u8]) -> Vec<u32> {
        let mut starts = Vec::new();
        if piece.len() >= BACKTRACK_MIN
            && self.tables_pay(piece.len())
            && self
                .backtracker()
                .starts(&self.vocab, piece, &mut starts)
                .is_some()
        {
            return starts;
        }
        starts.clear();
        bpe::merge_heap(&self.vocab, piece, &mut starts);
        starts
    }

    /// Whether a long piece of `len` bytes goes to the linear-time encoder: once its tables
    /// exist, or once long pieces (this one included) add up to more than [`DEFER_BYTES`].
    fn tables_pay(&self, len: usize) -> bool {
        if self.backtrack.get().is_some() {
            return true;
        }
        let seen = self.long_bytes.fetch_add(len, Ordering::Relaxed);
        seen.saturating_add(len) > DEFER_BYTES
    }

    /// The linear-time encoder's tables, built on first use.
    fn backtracker(&self) -> &backtrack::Backtrack {
        self.backtrack
            .get_or_init(|| backtrack::Backtrack::build(&self.vocab))
    }

    /// Token starts of `piece` by the heap merge and by the linear-time encoder (tests).
    #[cfg(test)]
    fn starts_both_ways(&self, piece: &[u8]) -> (Vec<u32>, Option<Vec<u32>>) {
        let mut heap = Vec::new();
        bpe::merge_heap(&self.vocab, piece, &mut heap);
        let mut linear = Vec::new();
        let found = self.backtracker().starts(&self.vocab, piece, &mut linear);
        (heap, found.map(|()| linear))
    }

    /// Calls `f(offset, part, count)` for the parts of a piece between its **cuts**: the
    /// positions no token of the vocabulary can span. `count` is the part's token count when
    /// it is one character whose count is known, else 0. In an ASCII piece a cut is where the
    /// two neighbouring bytes occur next to each other in no token; in any other piece it is a
    /// boundary between two characters that no token's crossing matches
    /// ([`joins::CharJoins::for_each_part`]).
    ///
    /// Why the parts can be merged separately, exactly: a byte-pair merge only ever joins two
    /// parts whose concatenation is a token, so a part that spanned a cut would be a token
    /// spanning it, which none is. No merge crosses a cut, and the pairs across it never have a
    /// rank, so each side goes through exactly the merges it would alone (the lowest-ranked
    /// pair of the whole piece is the lowest of one side), and the piece's tokens are the
    /// sides' tokens end to end.
    ///
    /// What it buys: in `cl100k_base` a run of CJK letters (one piece, rarely repeated) falls
    /// apart into single characters, counted from a table, and the few words the vocabulary
    /// holds, which the memo answers. The byte test alone left parts of about three
    /// characters, most of which missed the memo and were merged again. (`o200k_base` has many
    /// multi-character CJK tokens, so its runs cut less often.)
    #[inline(always)]
    fn for_each_cut_part(&self, piece: &[u8], mut f: impl FnMut(usize, &[u8], usize)) {
        if !piece.is_ascii() {
            return self.joins.for_each_part(&self.vocab, piece, f);
        }
        let mut start = 0;
        for (k, w) in piece.windows(2).enumerate() {
            if !self.vocab.joined_somewhere(w[0], w[1]) {
                f(start, piece.get(start..=k).unwrap_or_default(), 0);
                start = k + 1;
            }
        }
        f(start, piece.get(start..).unwrap_or_default(), 0);
    }

    /// Number of tokens of one piece; merged pieces go through `cache` when given.
    #[inline(always)]
    fn count_piece(&self, piece: &[u8], mut cache: Option<&mut cache::PieceCache>) -> usize {
        if piece.len() <= 1 {
            return piece.len();
        }
        if self.vocab.rank(piece).is_some() {
            return 1;
        }
        // Short pieces go to the memo whole when no cut is worth looking for: ASCII ones
        // (the byte cuts pay only on longer parts), and every short `o200k_base` piece, whose
        // vocabulary joins most neighbouring characters (22,012 crossings): Cyrillic, Hangul
        // and kana words repeat, so the memo answers them where the cut scan would run first.
        if piece.len() <= cache::MAX_LEN
            && (piece.is_ascii() || self.name == EncodingName::O200kBase)
        {
            return self.count_part(piece, cache);
        }
        let mut n = 0;
        self.for_each_cut_part(piece, |_, part, count| {
            n += if count > 0 {
                count
            } else if part.len() == piece.len() {
                self.count_part(part, cache.as_deref_mut())
            } else {
                self.count_piece_or_part(part, cache.as_deref_mut())
            }
        });
        n
    }

    /// [`count_part`](Self::count_part) of a part that may be a single token.
    #[inline(always)]
    fn count_piece_or_part(&self, part: &[u8], cache: Option<&mut cache::PieceCache>) -> usize {
        if part.len() <= 1 {
            part.len()
        } else if self.vocab.rank(part).is_some() {
            1
        } else {
            self.count_part(part, cache)
        }
    }

    /// Number of tokens of a part (2+ bytes, not itself a token): memo, array merge or heap.
    #[inline(always)]
    fn count_part(&self, part: &[u8], cache: Option<&mut cache::PieceCache>) -> usize {
        if part.len() <= cache::MAX_LEN {
            let mask = match cache {
                Some(c) => c.get_or(self.cache_id(), part, || self.small_mask(part)),
                None => self.small_mask(part),
            };
            mask.count_ones() as usize
        } else if part.len() <= bpe::SMALL {
            bpe::merge_small(&self.vocab, part, &mut [0u32; bpe::SMALL + 1])
        } else {
            match cache {
                Some(c) => {
                    let mut n = 0;
                    c.get_or_long(
                        self.cache_id(),
                        part,
                        || self.long_starts(part),
                        |s| n = s.len(),
                    );
                    n
                }
                None => self.long_starts(part).len(),
            }
        }
    }

    /// Calls `f` with the byte offset (within `piece`) where each token of `piece` starts, in
    /// order: the parts [`count_piece`](Self::count_piece) counts, from the same memo.
    #[inline(always)]
    fn piece_token_starts(
        &self,
        piece: &[u8],
        mut cache: Option<&mut cache::PieceCache>,
        mut f: impl FnMut(usize),
    ) {
        if piece.len() <= cache::MAX_LEN {
            return self.part_token_starts(piece, cache, f);
        }
        self.for_each_cut_part(piece, |at, part, _| {
            self.part_token_starts(part, cache.as_deref_mut(), |s| f(at + s))
        });
    }

    /// Token starts of one part (or of a short piece), as [`piece_token_starts`](Self::piece_token_starts).
    #[inline(always)]
    fn part_token_starts(
        &self,
        piece: &[u8],
        cache: Option<&mut cache::PieceCache>,
        mut f: impl FnMut(usize),
    ) {
        if piece.len() <= 1 || self.vocab.rank(piece).is_some() {
            if !piece.is_empty() {
                f(0);
            }
        } else if piece.len() <= cache::MAX_LEN {
            let mut mask = match cache {
                Some(c) => c.get_or(self.cache_id(), piece, || self.small_mask(piece)),
                None => self.small_mask(piece),
            };
            while mask != 0 {
                f(mask.trailing_zeros() as usize);
                mask &= mask - 1;
            }
        } else if piece.len() <= bpe::SMALL {
            let mut starts = [0u32; bpe::SMALL + 1];
            let m = bpe::merge_small(&self.vocab, piece, &mut starts);
            starts[..m].iter().for_each(|&s| f(s as usize));
        } else {
            let mut emit = |starts: &[u32]| starts.iter().for_each(|&s| f(s as usize));
            match cache {
                Some(c) => c.get_or_long(self.cache_id(), piece, || self.long_starts(piece), emit),
                None => emit(&self.long_starts(piece)),
            }
        }
    }

    /// `len(enc.encode_ordinary(text))`: special-token text is counted as ordinary text.
    pub fn count_ordinary(&self, text: &str) -> usize {
        if let Some(ext) = &self.external {
            return ext.count(text);
        }
        cache::with(|cache| self.count_ordinary_in(text, cache))
    }

    /// [`count_ordinary`](Self::count_ordinary) with the memo already in hand (or none).
    #[inline]
    fn count_ordinary_in(&self, text: &str, mut cache: Option<&mut cache::PieceCache>) -> usize {
        let mut n = 0;
        self.for_each_piece(text, |piece| {
            n += self.count_piece(piece, cache.as_deref_mut())
        });
        n
    }

    /// Byte offset of every token edge of `enc.encode_ordinary(text)`: `len + 1` values, the
    /// start of each token then `text.len()` (so `[0]` for `""`). The same memo as counting
    /// serves it, so it runs at counting speed with no token ids built: what token windows
    /// need (a token's bytes may end inside a UTF-8 character; callers check).
    pub fn token_edges(&self, text: &str) -> Vec<usize> {
        if let Some(ext) = &self.external {
            return ext.edges(text);
        }
        let mut edges = Vec::with_capacity(text.len() / 3 + 1);
        cache::with(|mut cache| {
            // Pieces are contiguous and cover the text.
            let mut at = 0;
            self.for_each_piece(text, |piece| {
                self.piece_token_starts(piece, cache.as_deref_mut(), |s| edges.push(at + s));
                at += piece.len();
            });
        });
        edges.push(text.len());
        edges
    }

    /// `enc.encode_ordinary(text)`.
    pub fn encode_ordinary(&self, text: &str) -> Vec<u32> {
        if let Some(ext) = &self.external {
            return ext.ids(text);
        }
        let mut out = Vec::with_capacity(text.len() / 3);
        let mut starts = Vec::new();
        cache::with(|mut cache| {
            self.for_each_piece(text, |piece| {
                if let Some(r) = self.vocab.rank(piece) {
                    out.push(r);
                    return;
                }
                starts.clear();
                self.piece_token_starts(piece, cache.as_deref_mut(), |s| starts.push(s));
                let ends = starts.iter().skip(1).copied().chain([piece.len()]);
                for (&start, end) in starts.iter().zip(ends) {
                    // Every part is a token by construction (single bytes are all tokens).
                    out.extend(self.vocab.rank(piece.get(start..end).unwrap_or_default()));
                }
            });
        });
        out
    }

    /// Byte range of the first special token's text in `text`, if any.
    pub fn find_special(&self, text: &str) -> Option<Range<usize>> {
        self.special_match(text).map(|m| m.range())
    }

    /// The first special token in `text`. Every special token of both encodings starts with
    /// `<|` (checked in the tests), so text without that pair (nearly all text) is answered by
    /// a `memchr` scan; the automaton's per-call setup cost ~4% of `naive_merge`, which checks
    /// every paragraph.
    #[inline]
    fn special_match(&self, text: &str) -> Option<aho_corasick::Match> {
        let b = text.as_bytes();
        let maybe = memchr::memchr_iter(b'<', b).any(|i| b.get(i + 1) == Some(&b'|'));
        if maybe {
            self.special_finder.find(text)
        } else {
            None
        }
    }

    /// `len(enc.encode(text))` with tiktoken's defaults: an error if `text` contains the text of
    /// any special token (`disallowed_special="all"`).
    pub fn count(&self, text: &str) -> Result<usize, SpecialTokenError> {
        if let Some(m) = self.special_match(text) {
            let token = self.special.get(m.pattern().as_usize()).map_or("", |s| s.0);
            return Err(SpecialTokenError {
                token,
                range: m.range(),
            });
        }
        Ok(self.count_ordinary(text))
    }

    /// RAGFlow's `num_tokens_from_string`: `count()`, or 0 when tiktoken would raise.
    pub fn count_or_zero(&self, text: &str) -> usize {
        self.count(text).unwrap_or(0)
    }

    /// `enc.decode_bytes(tokens)`: special tokens decode to their text.
    pub fn decode_bytes(&self, tokens: &[u32]) -> Result<Vec<u8>, UnknownTokenError> {
        let mut out = Vec::with_capacity(tokens.len() * 4);
        for &t in tokens {
            if let Some(bytes) = self.vocab.bytes(t) {
                out.extend_from_slice(bytes);
            } else if let Some((s, _)) = self.special.iter().find(|&&(_, id)| id == t) {
                out.extend_from_slice(s.as_bytes());
            } else {
                return Err(UnknownTokenError(t));
            }
        }
        Ok(out)
    }
}
