//! HARD_CAP (a ragchunk extension; v0.27 only): no chunk, as returned, counts more than
//! `chunk_token_num` tokens. See [`super::Strategy::HardCap`] for the rules.
//!
//! Every rule here is mirrored line for line by the fallback's
//! `python/ragchunk/_pure/ragflow/merge/hard_cap.py` (the backends must agree byte for byte),
//! so the rules are spelled out rather than borrowed from `char::is_whitespace` or a regex,
//! and the character classes are the data file's `chars.*` sets, which both backends read
//! (here through [`crate::text::boundaries`]).

use std::ops::Range;

use crate::text::boundaries::boundaries;
use crate::tokenizer::TokenCounter;

use super::Section;
use super::{contains, push_body, Paragraph};

/// An indivisible unit of text: one code point, or a whole position tag `@@[\t0-9.-]+##`
/// found in the text (never cut, so `remove_tag` still finds every tag of the input).
#[derive(Debug, Clone, Copy)]
struct Atom {
    start: usize,
    end: usize,
    /// `None` for a position tag (neither whitespace nor a terminator).
    ch: Option<char>,
}

/// Byte length of a position tag starting at `s` (the `remove_tag` pattern), if any.
fn tag_len(s: &[u8]) -> Option<usize> {
    let body = s.strip_prefix(b"@@")?;
    let n = body
        .iter()
        .take_while(|&&b| matches!(b, b'\t' | b'0'..=b'9' | b'.' | b'-'))
        .count();
    (n > 0 && body[n..].starts_with(b"##")).then_some(n + 4)
}

fn atoms(piece: &str) -> Vec<Atom> {
    let bytes = piece.as_bytes();
    let mut out = Vec::with_capacity(piece.len());
    let mut i = 0;
    while i < bytes.len() {
        if let Some(n) = tag_len(&bytes[i..]) {
            out.push(Atom {
                start: i,
                end: i + n,
                ch: None,
            });
            i += n;
            continue;
        }
        let c = piece[i..]
            .chars()
            .next()
            .expect("i is a char boundary below len");
        out.push(Atom {
            start: i,
            end: i + c.len_utf8(),
            ch: Some(c),
        });
        i += c.len_utf8();
    }
    out
}

/// How finely an oversized paragraph is cut, coarsest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// After a run of terminators and the whitespace after it.
    Sentence,
    /// After each run of whitespace.
    Word,
    /// Between atoms (code points; position tags whole).
    Atom,
}

/// Splits `atoms` (a paragraph's atoms `lo..hi`) into consecutive units at `level`, as ranges
/// of atom indexes covering `lo..hi` exactly.
fn units(atoms: &[Atom], lo: usize, hi: usize, level: Level) -> Vec<Range<usize>> {
    let b = boundaries();
    let (space, terminators) = (b.hard_cap_space, b.hard_cap_terminators);
    let full_width = b.hard_cap_cjk_terminators;
    let ws = |i: usize| atoms[i].ch.is_some_and(|c| space.contains(c));
    let term = |i: usize| atoms[i].ch.is_some_and(|c| terminators.contains(c));
    let mut out = Vec::new();
    if level == Level::Atom {
        out.extend((lo..hi).map(|i| i..i + 1));
        return out;
    }
    let mut start = lo;
    let mut i = lo;
    while i < hi {
        let boundary_run = if level == Level::Sentence {
            term(i)
        } else {
            ws(i)
        };
        if !boundary_run {
            i += 1;
            continue;
        }
        let mut j = i;
        if level == Level::Sentence {
            while j < hi && term(j) {
                j += 1;
            }
        }
        let cjk =
            level == Level::Sentence && atoms[j - 1].ch.is_some_and(|c| full_width.contains(c));
        let mut k = j;
        while k < hi && ws(k) {
            k += 1;
        }
        // `i > start`: a unit never ends after nothing but terminators/whitespace (leading
        // whitespace stays with the word after it).
        if k < hi && i > start && (k > j || cjk || level == Level::Word) {
            out.push(start..k);
            start = k;
        }
        i = k.max(i + 1);
    }
    if start < hi {
        out.push(start..hi);
    }
    out
}

/// The largest `k` in `lo..=n` with `fits(k)`, given that `fits(lo)` holds: probe `lo + 1`,
/// `lo + 3`, `lo + 7`, ... until one fails, then bisect. Token counts are not monotone in the
/// text length, so this is "a long prefix that was verified to fit", not "the longest one";
/// both backends probe the same `k`s and so agree. Galloping keeps the counted text near the
/// size of the answer (a 100k-character paragraph is never counted whole per fragment).
fn gallop<E>(
    mut lo: usize,
    n: usize,
    mut fits: impl FnMut(usize) -> Result<bool, E>,
) -> Result<usize, E> {
    let mut step = 1;
    let mut hi = loop {
        if lo >= n {
            return Ok(n);
        }
        let probe = (lo + step).min(n);
        if fits(probe)? {
            lo = probe;
            step *= 2;
        } else {
            break probe;
        }
    };
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// [`gallop`] from an estimate: the `k` in `lo..=n` (with `fits(lo)` known, never re-probed)
/// found by probing `k0` first, galloping up from it when it fits, otherwise galloping down
/// (`k0 - 1`, `k0 - 2`, `k0 - 4`, ...) to one that fits and bisecting. A good estimate costs
/// one or two counts instead of gallop's ~2·log2(k). Measured on the 21M-character corpus
/// (cap 128, overlap 25%, release build, 2 shared cores): plain galloping made HARD_CAP 7.3x
/// the time of OVER_CAP, estimates 5.2x (2.1x without overlap; the overlap prefix needs its
/// own recounts). The results are whatever these probes find, identically in both backends.
fn settle<E>(
    lo: usize,
    k0: usize,
    n: usize,
    mut fits: impl FnMut(usize) -> Result<bool, E>,
) -> Result<usize, E> {
    if k0 <= lo {
        return gallop(lo, n, fits);
    }
    if fits(k0)? {
        return gallop(k0, n, fits);
    }
    let mut hi = k0;
    let mut step = 1;
    let mut good = loop {
        let probe = hi.saturating_sub(step).max(lo);
        if probe == lo || fits(probe)? {
            break probe;
        }
        hi = probe;
        step *= 2;
    };
    while hi - good > 1 {
        let mid = good + (hi - good) / 2;
        if fits(mid)? {
            good = mid;
        } else {
            hi = mid;
        }
    }
    Ok(good)
}

fn within<C: TokenCounter>(counter: &C, cap: f64, text: &str) -> Result<bool, C::Error> {
    Ok(counter.count(text)? as f64 <= cap)
}

/// The tokens of the chunk `frag` alone makes: `"\n" + frag`, then `pos` unless the chunk
/// already contains it, exactly as [`push_body`] would build it.
fn fragment_count<C: TokenCounter>(
    counter: &C,
    buf: &mut String,
    frag: &str,
    pos: &str,
) -> Result<usize, C::Error> {
    buf.clear();
    buf.push('\n');
    buf.push_str(frag);
    if !pos.is_empty() && !contains(buf, pos) {
        buf.push_str(pos);
    }
    counter.count(buf)
}

fn fragment_fits<C: TokenCounter>(
    counter: &C,
    cap: f64,
    buf: &mut String,
    frag: &str,
    pos: &str,
) -> Result<bool, C::Error> {
    Ok(fragment_count(counter, buf, frag, pos)? as f64 <= cap)
}

/// Cuts atoms `span` of `piece` into fragments (byte ranges of `piece`) that each fit alone,
/// at the coarsest `level` that has boundaries, packing consecutive units greedily.
#[allow(clippy::too_many_arguments)]
fn pack<C: TokenCounter>(
    counter: &C,
    cap: f64,
    piece: &str,
    pos: &str,
    atoms: &[Atom],
    span: Range<usize>,
    level: Level,
    buf: &mut String,
    out: &mut Vec<Range<usize>>,
) -> Result<(), C::Error> {
    let us = units(atoms, span.start, span.end, level);
    let bytes = |a: usize, b: usize| atoms[a].start..atoms[b - 1].end;
    let mut i = 0;
    while i < us.len() {
        let u = us[i].clone();
        if !fragment_fits(counter, cap, buf, &piece[bytes(u.start, u.end)], pos)? {
            match level {
                Level::Sentence => pack(counter, cap, piece, pos, atoms, u, Level::Word, buf, out)?,
                Level::Word => pack(counter, cap, piece, pos, atoms, u, Level::Atom, buf, out)?,
                // A single atom over the cap: the one documented exception, it stands alone.
                Level::Atom => out.push(bytes(u.start, u.end)),
            }
            i += 1;
            continue;
        }
        let k = gallop(1, us.len() - i, |k| {
            let r = bytes(us[i].start, us[i + k - 1].end);
            fragment_fits(counter, cap, buf, &piece[r], pos)
        })?;
        out.push(bytes(us[i].start, us[i + k - 1].end));
        i += k;
    }
    Ok(())
}

/// HARD_CAP step 1: every paragraph that does not fit alone is replaced by fragments (sub-slices
/// of its text, in order, covering it exactly) that do, or by single over-cap atoms. Each
/// resulting paragraph's `tokens` is the count of the chunk it makes alone.
pub(super) fn hard_cap_fragments<'t, C: TokenCounter>(
    paras: Vec<Paragraph<'t>>,
    sections: &[Section<'_>],
    cap: f64,
    counter: &C,
) -> Result<Vec<Paragraph<'t>>, C::Error> {
    let mut buf = String::new();
    let mut out = Vec::with_capacity(paras.len());
    let mut frags = Vec::new();
    for mut p in paras {
        let pos = sections[p.sec].pos_str();
        p.tokens = fragment_count(counter, &mut buf, p.text, pos)?;
        if p.tokens as f64 <= cap {
            out.push(p);
            continue;
        }
        let atoms = atoms(p.text);
        if atoms.len() <= 1 {
            out.push(p); // one atom cannot be cut: it stays whole, over the cap
            continue;
        }
        frags.clear();
        let all = 0..atoms.len();
        pack(
            counter,
            cap,
            p.text,
            pos,
            &atoms,
            all,
            Level::Sentence,
            &mut buf,
            &mut frags,
        )?;
        for r in &frags {
            let text = &p.text[r.clone()];
            out.push(Paragraph {
                text,
                sec: p.sec,
                tokens: fragment_count(counter, &mut buf, text, pos)?,
            });
        }
    }
    Ok(out)
}

/// HARD_CAP step 2: greedy grouping, each candidate chunk body built and recounted (counts of
/// joined paragraphs are not sums; the sum only gives [`settle`] its first guess). A
/// paragraph that does not fit alone (an over-cap atom) is its own group.
pub(super) fn group_hard_cap<C: TokenCounter>(
    paras: &[Paragraph<'_>],
    sections: &[Section<'_>],
    cap: f64,
    counter: &C,
) -> Result<Vec<Range<usize>>, C::Error> {
    let mut buf = String::new();
    let mut body_fits = |r: Range<usize>| {
        buf.clear();
        push_body(&mut buf, &paras[r], sections);
        within(counter, cap, &buf)
    };
    let mut groups = Vec::new();
    let mut i = 0;
    while i < paras.len() {
        if paras[i].tokens as f64 > cap {
            groups.push(i..i + 1);
            i += 1;
            continue;
        }
        let mut k0 = 1;
        let mut sum = paras[i].tokens;
        while i + k0 < paras.len() && (sum + paras[i + k0].tokens) as f64 <= cap {
            sum += paras[i + k0].tokens;
            k0 += 1;
        }
        let k = settle(1, k0, paras.len() - i, |k| body_fits(i..i + k))?;
        groups.push(i..i + k);
        i += k;
    }
    Ok(groups)
}

/// HARD_CAP step 3: `prefix` (the v0.27 overlap prefix) is cut down to its longest verified
/// tail (in code points) such that `tail + body` is within the cap; nothing is kept when the
/// body alone is over the cap. Returns the kept prefix's byte length.
pub(super) fn shrink_prefix<C: TokenCounter>(
    prefix: &mut String,
    body: &str,
    cap: f64,
    counter: &C,
) -> Result<usize, C::Error> {
    if prefix.is_empty() {
        return Ok(0);
    }
    let body_tokens = counter.count(body)?;
    if body_tokens as f64 > cap {
        prefix.clear();
        return Ok(0);
    }
    let starts: Vec<usize> = prefix.char_indices().map(|(i, _)| i).collect();
    let n = starts.len();
    // First guess: the share of the prefix's code points that the room left would hold if
    // tokens were spread evenly (float arithmetic mirrored by the Python twin).
    let room = cap.floor() - body_tokens as f64;
    let prefix_tokens = counter.count(prefix)? as f64;
    let guess = if prefix_tokens <= room {
        n
    } else {
        ((n as f64 * room / prefix_tokens).floor() as usize).min(n)
    };
    let cut = |l: usize| if l == 0 { prefix.len() } else { starts[n - l] };
    let mut buf = String::new();
    let keep = settle(0, guess, n, |l| {
        buf.clear();
        buf.push_str(&prefix[cut(l)..]);
        buf.push_str(body);
        within(counter, cap, &buf)
    })?;
    let from = cut(keep);
    prefix.drain(..from);
    Ok(prefix.len())
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;

    fn hard(c: f64, d: &str, p: f64) -> MergeOptions<'_> {
        MergeOptions {
            strategy: Strategy::HardCap,
            ..opts(Compat::V27, c, d, p)
        }
    }

    #[test]
    fn hard_cap_recount_never_exceeds_the_cap() {
        let text =
            "Hello world. This is a long sentence with many words! Short? 一二三四五六七八九十";
        for cap in [1.0, 2.0, 5.0, 9.0, 20.0, 200.0] {
            for p in [0.0, 30.0, 100.0] {
                let got = m(&[text], &hard(cap, "\n", p));
                for c in &got {
                    // one token per code point: only a lone "\n" + one char may be over
                    assert!(chars(c) as f64 <= cap || chars(c) == 2, "{c:?} over {cap}");
                }
                // nothing lost: without "\n" and overlap prefixes the text comes back
                if p == 0.0 {
                    assert_eq!(got.concat().replace('\n', ""), text);
                }
            }
        }
    }

    #[test]
    fn hard_cap_cuts_sentences_then_words_then_chars() {
        // "\nAb cd. " = 7 code points
        assert_eq!(
            m(&["Ab cd. Ef gh."], &hard(8.0, "\n", 0.0)),
            ["\nAb cd. ", "\nEf gh."]
        );
        assert_eq!(
            m(&["Ab cd. Ef gh."], &hard(5.0, "\n", 0.0)),
            ["\nAb ", "\ncd. ", "\nEf ", "\ngh."]
        );
        assert_eq!(
            m(&["abcdef"], &hard(3.0, "\n", 0.0)),
            ["\nab", "\ncd", "\nef"]
        );
        // 3.14 is not a sentence end; 。 always is
        assert_eq!(
            m(&["π=3.14。ok"], &hard(8.0, "\n", 0.0)),
            ["\nπ=3.14。", "\nok"]
        );
    }

    #[test]
    fn hard_cap_keeps_position_tags_whole() {
        let text = format!("ab{TAG}cd");
        let got = m(&[text.as_str()], &hard(4.0, "\n", 0.0));
        assert!(got.iter().any(|c| c == &format!("\n{TAG}")), "{got:?}");
        assert_eq!(got.concat().replace('\n', ""), text);
    }

    #[test]
    fn hard_cap_pos_and_overlap_fit() {
        let secs = [
            Section {
                text: "aaaa",
                pos: Some("§§"),
            },
            Section::text("bbbb"),
            Section::text("cccc"),
        ];
        let got = run_t(&secs, &hard(8.0, "\n", 50.0));
        assert_eq!(
            got,
            ["\naaaa§§", "a§§\nbbbb", "bbb\ncccc"].map(String::from)
        );
        for c in &got {
            assert!(chars(c) <= 8);
        }
    }

    #[test]
    fn hard_cap_single_char_over_cap_stands_alone() {
        let three = |s: &str| 3 * s.chars().count();
        let o = hard(1.0, "\n", 50.0);
        let got = naive_merge_texts(&texts(&["ab"]), &o, &three).unwrap();
        assert_eq!(got, ["\na", "\nb"]);
    }

    #[test]
    fn gallop_finds_verified_lengths() {
        for n in 1..40 {
            for t in 1..=n {
                let k: Result<usize, ()> = gallop(1, n, |k| Ok(k <= t));
                assert_eq!(k, Ok(t));
            }
        }
        assert_eq!(gallop::<()>(0, 0, |_| Ok(false)), Ok(0));
    }
}
