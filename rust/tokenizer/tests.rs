//! Unit tests. Piece splits below were derived by hand from the regex branches and confirmed
//! with the pattern strings; token ids come from tiktoken 0.14 (`encode_ordinary`). The full
//! proof (every code point in 32 contexts, random strings, the corpus) is a dev sweep, see
//! the commit log.

use super::*;

fn cl() -> &'static Tokenizer {
    Tokenizer::get(EncodingName::Cl100kBase)
}

fn o2() -> &'static Tokenizer {
    Tokenizer::get(EncodingName::O200kBase)
}

fn pieces(tok: &Tokenizer, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    tok.for_each_piece(text, |p| out.push(String::from_utf8(p.to_vec()).unwrap()));
    out
}

fn check_pieces(tok: &Tokenizer, cases: &[(&str, &[&str])]) {
    for (text, want) in cases {
        assert_eq!(
            pieces(tok, text),
            *want,
            "pieces of {text:?} ({})",
            tok.name()
        );
    }
}

#[test]
fn cl100k_branches() {
    check_pieces(
        cl(),
        &[
            // 1. contractions, case-insensitive (`ſ` folds to `s`), only at a match start
            ("don't", &["don", "'t"]),
            ("Hello's", &["Hello", "'s"]),
            (
                "I'LL 'S 'ſ 've",
                &["I", "'LL", " '", "S", " '", "ſ", " '", "ve"],
            ),
            // 2. optional non-letter/number/newline prefix before letters
            ("'hello", &["'hello"]),
            ("hello world", &["hello", " world"]),
            (" \thi", &[" ", "\thi"]),
            ("\u{301}abc", &["\u{301}abc"]),
            ("a\u{a0}b", &["a", "\u{a0}b"]),
            ("HELLOworld", &["HELLOworld"]),
            ("中文，测试", &["中文", "，测试"]),
            // 3. digits in groups of three
            ("12345678", &["123", "456", "78"]),
            // 4. punctuation run with optional leading space, then newlines
            ("!!!\n\nfoo", &["!!!\n\n", "foo"]),
            (" !!/\n/x", &[" !!/\n", "/x"]),
            // 5. trailing whitespace; 6. up to the last newline; 7. give back one; 8. one
            ("x  ", &["x", "  "]),
            ("x \n  ", &["x", " \n  "]),
            ("a \n b", &["a", " \n", " b"]),
            ("a  b", &["a", " ", " b"]),
            ("\u{3000}\u{3000}x", &["\u{3000}", "\u{3000}x"]),
            ("x\r\n\r\ny", &["x", "\r\n\r\n", "y"]),
            ("\n\n\n", &["\n\n\n"]),
        ],
    );
}

#[test]
fn o200k_branches() {
    check_pieces(
        o2(),
        &[
            // contractions attach to the word
            ("don't", &["don't"]),
            ("Hello's", &["Hello's"]),
            (
                "I'LL 'S 'ſ 've",
                &["I'LL", " '", "S", " '", "ſ", " '", "ve"],
            ),
            // case-aware words: U*L+ backtracks to the last Lo (`ª`) of an all-upper run
            ("HELLOworld", &["HELLOworld"]),
            ("ABC\u{aa}DEF ", &["ABC\u{aa}", "DEF", " "]),
            ("\u{1c4}a", &["\u{1c4}a"]),
            ("\u{301}abc", &["\u{301}abc"]),
            ("'hello", &["'hello"]),
            // lowercase ASCII words (the fast path), running on into non-ASCII lowercase,
            // with and without a contraction, and an apostrophe that is none
            (" don'T it'ſ", &[" don'T", " it'ſ"]),
            (" naïve café'x", &[" naïve", " café", "'x"]),
            ("\u{301}éa\u{301}b", &["\u{301}éa\u{301}b"]),
            ("x'", &["x", "'"]),
            (" \thi", &[" ", "\thi"]),
            ("中文，测试", &["中文", "，测试"]),
            ("12345678", &["123", "456", "78"]),
            // punctuation then [\r\n/]*
            ("!!!\n\nfoo", &["!!!\n\n", "foo"]),
            (" !!/\n/x", &[" !!/\n/", "x"]),
            // whitespace: no `\s++$` branch, so a trailing run splits after its last newline
            ("x  ", &["x", "  "]),
            ("x \n  ", &["x", " \n", "  "]),
            ("a \n b", &["a", " \n", " b"]),
            ("a  b", &["a", " ", " b"]),
            ("x\r\n\r\ny", &["x", "\r\n\r\n", "y"]),
        ],
    );
}

#[test]
fn token_ids_match_tiktoken() {
    let cases: &[(&Tokenizer, &str, &[u32])] = &[
        (cl(), "hello world", &[15339, 1917]),
        (cl(), "don't", &[15357, 956]),
        (cl(), "中文，测试", &[16325, 17161, 3922, 82805]),
        (cl(), "ragchunk tokenizer", &[4193, 27069, 47058]),
        (cl(), "<|endoftext|>", &[27, 91, 8862, 728, 428, 91, 29]),
        (cl(), "  \n\n  x", &[19124, 220, 865]),
        (cl(), "1234567", &[4513, 10961, 22]),
        (cl(), "ŀ\u{301}ſ'S", &[129, 222, 54939, 129, 123, 13575]),
        (o2(), "hello world", &[24912, 2375]),
        (o2(), "don't", &[91418]),
        (o2(), "中文，测试", &[10667, 979, 82843]),
        (o2(), "ragchunk tokenizer", &[17764, 56156, 99665]),
        (o2(), "<|endoftext|>", &[27, 91, 419, 1440, 919, 91, 29]),
        (o2(), "  \n\n  x", &[11691, 220, 1215]),
        (o2(), "1234567", &[7633, 19354, 22]),
        (o2(), "ŀ\u{301}ſ'S", &[129, 222, 13430, 70067, 31233]),
    ];
    for &(tok, text, want) in cases {
        assert_eq!(tok.encode_ordinary(text), want, "{text:?} ({})", tok.name());
        assert_eq!(tok.count_ordinary(text), want.len());
        assert_eq!(tok.decode_bytes(want).unwrap(), text.as_bytes());
    }
}

#[test]
fn special_tokens() {
    assert_eq!(cl().count("a <|endoftext|"), Ok(6));
    assert_eq!(cl().count("<|EndOfText|>"), Ok(7));
    assert_eq!(cl().count("<|im_start|>"), Ok(6));
    assert_eq!(o2().count("a <|endoftext|"), Ok(7));
    let err = cl().count("ab <|fim_middle|> <|endoftext|>").unwrap_err();
    assert_eq!(err.token, "<|fim_middle|>");
    assert_eq!(err.range, 3..17);
    assert_eq!(cl().find_special("x<|endofprompt|>"), Some(1..16));
    // o200k has no FIM tokens: that text is ordinary there.
    assert_eq!(o2().find_special("<|fim_prefix|>"), None);
    assert!(o2().count("<|endofprompt|>").is_err());
    assert_eq!(cl().count_or_zero("<|endoftext|>"), 0);
    assert_eq!(cl().count_or_zero("hello world"), 2);
    assert_eq!(RagflowCount(cl()).count("x<|endoftext|>"), Ok(0));
    assert_eq!(
        cl().decode_bytes(&[100257, 15339]).unwrap(),
        b"<|endoftext|>hello"
    );
    assert_eq!(cl().decode_bytes(&[100261]), Err(UnknownTokenError(100261)));
    assert_eq!(o2().decode_bytes(&[200018]).unwrap(), b"<|endofprompt|>");
}

#[test]
fn names_and_sizes() {
    assert_eq!("cl100k_base".parse(), Ok(EncodingName::Cl100kBase));
    assert_eq!("o200k_base".parse(), Ok(EncodingName::O200kBase));
    assert!("gpt2".parse::<EncodingName>().is_err());
    assert_eq!(EncodingName::O200kBase.as_str(), "o200k_base");
    assert_eq!(cl().n_vocab(), 100277);
    assert_eq!(o2().n_vocab(), 200019);
    assert_eq!(cl().count_ordinary(""), 0);
    assert!(std::ptr::eq(cl(), Tokenizer::get(EncodingName::Cl100kBase)));
}

/// Small deterministic PRNG (xorshift) so the test needs no crate.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn random_self_consistency() {
    let alphabet: Vec<char> =
        " \t\n\r\u{3000}\u{a0}aAzSslLvedmrt'1٣½!/.中é\u{301}ǅʰª\u{200b}😀\u{b}\u{85}\u{2028}ⅫKß"
            .chars()
            .collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..4000 {
        let len = if round % 100 == 0 {
            600
        } else {
            (rng.next() % 30) as usize
        };
        let mut text: String = (0..len)
            .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize])
            .collect();
        if round % 7 == 0 {
            // Any scalar value, to hit every class-table block.
            let cp = (rng.next() % 0x11_0000) as u32;
            text.extend(char::from_u32(cp));
        }
        for tok in [cl(), o2()] {
            let ids = tok.encode_ordinary(&text);
            assert_eq!(tok.count_ordinary(&text), ids.len(), "{text:?}");
            assert_eq!(tok.decode_bytes(&ids).unwrap(), text.as_bytes(), "{text:?}");
            let joined: String = pieces(tok, &text).concat();
            assert_eq!(joined, text);
        }
    }
}

#[test]
fn long_pieces_merge_like_short_ones() {
    // A piece > SMALL bytes goes through the heap merge; it must agree with the array merge.
    let words = ["中文字符测试", "abcxyzqj", "\u{301}", "aaaa", "ÁáÂâ"];
    let mut rng = Rng(42);
    for _ in 0..200 {
        let w = words[(rng.next() % words.len() as u64) as usize];
        let reps = 1 + (rng.next() % 40) as usize;
        let piece = w.repeat(reps);
        let bytes = piece.as_bytes();
        if bytes.len() < 2 || bytes.len() > bpe::SMALL {
            continue;
        }
        let mut heap = Vec::new();
        bpe::merge_heap(&cl().vocab, bytes, &mut heap);
        let mut arr = [0u32; bpe::SMALL + 1];
        let m = bpe::merge_small(&cl().vocab, bytes, &mut arr);
        assert_eq!(&arr[..m], &heap[..], "{piece:?}");
    }
    // A 1 MB single piece stays fast (the heap path is O(n log n)).
    let big = "ab".repeat(500_000);
    assert_eq!(cl().count_ordinary(&big), cl().encode_ordinary(&big).len());
}

/// `len` bytes of characters drawn from `alphabet` (the last one may be cut), or arbitrary bytes
/// when `raw` (merging never assumes UTF-8).
fn random_piece(rng: &mut Rng, alphabet: &str, len: usize, raw: bool) -> Vec<u8> {
    let chars: Vec<char> = alphabet.chars().collect();
    let mut piece = String::new();
    while piece.len() < len {
        piece.push(chars[(rng.next() % chars.len() as u64) as usize]);
    }
    let mut bytes = piece.into_bytes();
    bytes.truncate(len);
    if raw {
        bytes.iter_mut().for_each(|b| *b = rng.next() as u8);
    }
    bytes
}

#[test]
fn array_merge_paths_agree_with_the_heap() {
    // `merge_small` runs a build for AVX2 when the CPU has it and the baseline build otherwise:
    // both (and the heap merge) must give the same parts for every piece length up to SMALL,
    // on CJK runs (the pieces that reach it most), mixed scripts and raw bytes.
    let alphabets = [
        "中文字符测试数据库的一是了",
        "aé中😀 ,.xyzqj",
        "ÁáÂâ\u{301}ſK",
    ];
    let mut rng = Rng(7);
    for tok in [cl(), o2()] {
        for round in 0..3000 {
            let len = 2 + (rng.next() % (bpe::SMALL as u64 - 1)) as usize;
            let bytes = random_piece(&mut rng, alphabets[round % 3], len, round % 7 == 0);
            let mut heap = Vec::new();
            bpe::merge_heap(&tok.vocab, &bytes, &mut heap);
            let mut arr = [0u32; bpe::SMALL + 1];
            let m = bpe::merge_small(&tok.vocab, &bytes, &mut arr);
            assert_eq!(&arr[..m], &heap[..], "dispatch {bytes:?}");
            let mut arr = [0u32; bpe::SMALL + 1];
            let m = bpe::merge_small_baseline(&tok.vocab, &bytes, &mut arr);
            assert_eq!(&arr[..m], &heap[..], "baseline {bytes:?}");
        }
    }
}

#[test]
fn cut_parts_count_like_the_whole_piece() {
    // `count_piece` merges a long piece's parts between cuts separately; the whole-piece heap
    // merge is the reference. CJK runs cut often in cl100k, rarely in o200k.
    let alphabets = [
        "中文字符测试数据库的一是了隻龘",
        "aé中😀xyzqj",
        "ÁáÂâ\u{301}ſKk",
    ];
    let mut rng = Rng(11);
    let mut cut = 0;
    for tok in [cl(), o2()] {
        for round in 0..4000 {
            let len = 2 + (rng.next() % 300) as usize;
            let bytes = random_piece(&mut rng, alphabets[round % 3], len, round % 5 == 0);
            let mut heap = Vec::new();
            bpe::merge_heap(&tok.vocab, &bytes, &mut heap);
            let want_count = if tok.vocab.rank(&bytes).is_some() {
                1
            } else {
                heap.len()
            };
            let mut parts = 0;
            tok.for_each_cut_part(&bytes, |_, _, _| parts += 1);
            cut += parts - 1;
            let (with, without) =
                cache::with(|c| (tok.count_piece(&bytes, c), tok.count_piece(&bytes, None)));
            assert_eq!(
                (with, without),
                (want_count, want_count),
                "{} {bytes:?}",
                tok.name()
            );
            let mut starts = Vec::new();
            tok.piece_token_starts(&bytes, None, |s| starts.push(s as u32));
            if want_count > 1 {
                assert_eq!(starts, heap, "{} {bytes:?}", tok.name());
            }
        }
    }
    assert!(cut > 10_000, "the pieces must exercise cuts ({cut})");
}

#[test]
fn no_token_holds_a_cut() {
    for tok in [cl(), o2()] {
        for rank in 0..tok.vocab.len() as u32 {
            for w in tok.vocab.bytes(rank).unwrap_or_default().windows(2) {
                assert!(tok.vocab.joined_somewhere(w[0], w[1]), "{rank}");
            }
        }
        // And the table is not trivially full: CJK letters cut in cl100k.
    }
    assert!(!cl().vocab.joined_somewhere(0xFF, 0xFF));
}

/// `bytes` completed into one valid character of `len` bytes: `bytes` is its end (`at_end`) or
/// its start, and the rest is filled with lead or continuation bytes that make it valid.
fn complete(bytes: &[u8], len: usize, at_end: bool) -> Option<Vec<u8>> {
    let fill = len.checked_sub(bytes.len())?;
    if at_end && fill == 0 {
        return None; // no room for the lead byte: not a proper end of a character
    }
    let leads: &[u8] = match len {
        2 => &[0xc2, 0xd5],
        3 => &[0xe1, 0xe5, 0xea],
        _ => &[0xf1, 0xf2],
    };
    for &lead in leads {
        for cont in [0x80u8, 0x90, 0xa0, 0xbf] {
            let mut c = Vec::with_capacity(len);
            if at_end {
                c.push(lead);
                c.extend(std::iter::repeat(cont).take(fill - 1));
                c.extend_from_slice(bytes);
            } else {
                c.extend_from_slice(bytes);
                c.extend(std::iter::repeat(cont).take(fill));
            }
            if std::str::from_utf8(&c).is_ok_and(|s| s.chars().count() == 1) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_cut_inside_any_token_crossing() {
    // Every place a token spans two characters (whole or partial ones, completed here into
    // real characters with other bytes) must read as joinable: the per-character filters and
    // partial lookups of `CharJoins` answer what its build enumerated.
    let mut checked = 0;
    for tok in [cl(), o2()] {
        for rank in 0..tok.vocab.len() as u32 {
            let t = tok.vocab.bytes(rank).unwrap_or_default();
            for q in 1..t.len() {
                if t[q - 1] < 0x80 && t[q] < 0x80 || t[q] & 0xc0 == 0x80 {
                    continue;
                }
                let lb = joins::utf8_len(t[q]);
                if lb == 0 {
                    continue;
                }
                let right = &t[q..t.len().min(q + lb)];
                let Some(b) = complete(right, lb, false) else {
                    continue; // no character starts with these bytes
                };
                let lead = (q.saturating_sub(4)..q)
                    .rev()
                    .find(|&i| t[i] & 0xc0 != 0x80);
                let lefts: Vec<Vec<u8>> = match lead {
                    Some(i) => vec![t[i..q].to_vec()],
                    None => (2..=4)
                        .filter_map(|la| complete(&t[..q], la, true))
                        .collect(),
                };
                for a in lefts {
                    if std::str::from_utf8(&a).map_or(true, |s| s.chars().count() != 1) {
                        continue;
                    }
                    let text = [a.as_slice(), b.as_slice()].concat();
                    let mut parts = 0;
                    tok.joins
                        .for_each_part(&tok.vocab, &text, |_, _, _| parts += 1);
                    assert_eq!(
                        parts,
                        1,
                        "{} token {rank} {t:?} at {q}: {text:?}",
                        tok.name()
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 20_000, "{checked}");
}

#[test]
fn character_cuts_count_like_the_whole_piece() {
    // The characters that tokens join (taken from the vocabularies' multi-character tokens,
    // so joins and partial crossings are common) in random runs: counting the parts between
    // the character cuts must equal merging the whole piece.
    for tok in [cl(), o2()] {
        let mut alphabet: Vec<char> = Vec::new();
        for rank in 0..tok.vocab.len() as u32 {
            let t = tok.vocab.bytes(rank).unwrap_or_default();
            let s = String::from_utf8_lossy(t);
            if s.chars().filter(|c| !c.is_ascii()).count() >= 2 || rank % 97 == 0 {
                alphabet.extend(s.chars().filter(|&c| c != '\u{fffd}'));
            }
        }
        alphabet.sort_unstable();
        alphabet.dedup();
        alphabet.extend(['中', 'a', ' ', 'é', '😀', '\u{301}']);
        let alphabet: String = alphabet.into_iter().collect();
        let mut rng = Rng(0xC0FFEE);
        for round in 0..6000 {
            let len = 2 + (rng.next() % 90) as usize;
            let chars: Vec<char> = alphabet.chars().collect();
            let piece: String = (0..len)
                .map(|_| chars[(rng.next() % chars.len() as u64) as usize])
                .collect();
            let mut bytes = piece.into_bytes();
            if round % 10 == 0 {
                bytes.truncate(bytes.len() - 1); // a cut last character
            }
            let mut heap = Vec::new();
            bpe::merge_heap(&tok.vocab, &bytes, &mut heap);
            let want = if tok.vocab.rank(&bytes).is_some() {
                1
            } else {
                heap.len()
            };
            let (with, without) =
                cache::with(|c| (tok.count_piece(&bytes, c), tok.count_piece(&bytes, None)));
            assert_eq!((with, without), (want, want), "{} {bytes:?}", tok.name());
            let mut starts = Vec::new();
            tok.piece_token_starts(&bytes, None, |s| starts.push(s as u32));
            if want > 1 {
                assert_eq!(starts, heap, "{} {bytes:?}", tok.name());
            }
        }
    }
}

#[test]
fn special_tokens_start_with_lt_pipe() {
    // `Tokenizer::special_match` skips the automaton for text without `<|`.
    for table in [CL100K_SPECIAL, O200K_SPECIAL] {
        assert!(table.iter().all(|(s, _)| s.starts_with("<|")));
    }
    assert_eq!(cl().find_special("a < b | c <<|endoftext|>"), Some(11..24));
    assert_eq!(
        cl().count("x <|endoftext"),
        Ok(cl().count_ordinary("x <|endoftext"))
    );
}

#[test]
fn piece_cache_is_exact_across_encodings_and_threads() {
    // Counts through the per-thread memo equal fresh merges; the two encodings share the
    // table, so interleave them on words whose counts differ between encodings.
    let words = [
        " indistinguishable",
        " Tokenization",
        " pneumonoultra",
        "abcdefghijklmnopqrstuvwx",
        " zyxwvutsrqponmlk",
        " 量子计算机",
        "sdkfjhsdkjfhskjd",
        " re-re-re-re",
    ];
    let text: String = words.concat();
    let fresh = |tok: &Tokenizer| -> Vec<usize> {
        words.iter().map(|w| tok.encode_ordinary(w).len()).collect()
    };
    let (want_cl, want_o2) = (fresh(cl()), fresh(o2()));
    for _ in 0..3 {
        for (tok, want) in [(cl(), &want_cl), (o2(), &want_o2)] {
            let got: Vec<usize> = words.iter().map(|w| tok.count_ordinary(w)).collect();
            assert_eq!(&got, want, "{}", tok.name());
            assert_eq!(tok.count_ordinary(&text), tok.encode_ordinary(&text).len());
        }
    }
    std::thread::spawn(move || {
        assert_eq!(
            cl().count_ordinary(&text),
            cl().encode_ordinary(&text).len()
        );
    })
    .join()
    .unwrap();
}

#[test]
fn long_piece_memo_is_exact_and_bounded() {
    // Heap-merged pieces (> 128 bytes) are memoised by their bytes; 4,000 distinct 300-byte
    // letter runs overflow the 1 MiB budget, so the memo starts over at least once.
    let mut state = 0x2545_f491_u32;
    let mut next_letter = || {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        char::from(b'a' + (state >> 16) as u8 % 26)
    };
    let runs: Vec<String> = (0..4000)
        .map(|_| (0..300).map(|_| next_letter()).collect())
        .collect();
    let spaces = " ".repeat(517);
    for tok in [cl(), o2()] {
        for (i, run) in runs.iter().enumerate() {
            if i % 97 == 0 {
                assert_eq!(tok.count_ordinary(run), tok.encode_ordinary(run).len());
            } else {
                tok.count_ordinary(run);
            }
        }
        for run in runs.iter().take(50).chain([&spaces]) {
            let want = tok.encode_ordinary(run).len();
            assert_eq!(tok.count_ordinary(run), want, "{}", tok.name());
            assert_eq!(tok.count_ordinary(run), want, "{} (memoised)", tok.name());
        }
    }
}

#[test]
fn linear_encoder_agrees_with_the_heap_on_long_pieces() {
    // The left-to-right encoder must give the heap merge's tokens on every long piece: runs of
    // one character (the worst case it exists for), repeated words, random text over tricky
    // alphabets, raw bytes, and lengths on both sides of the threshold.
    let alphabets = [
        "a",
        "aab",
        "中",
        "中文字符测试数据库的一是了",
        "aé中😀 ,.xyzqj",
        "ÁáÂâ\u{301}ſK",
        " ",
        "!!?.-=",
        "0123456789",
        "abcdefghijklmnopqrstuvwxyz",
        "ab",
        "\n ",
    ];
    let mut rng = Rng(11);
    for tok in [cl(), o2()] {
        for round in 0..600 {
            let alphabet = alphabets[round % alphabets.len()];
            let len = 2 + (rng.next() % 3000) as usize;
            let bytes = random_piece(&mut rng, alphabet, len, round % 13 == 0);
            let (heap, linear) = tok.starts_both_ways(&bytes);
            assert_eq!(linear.as_ref(), Some(&heap), "{} {bytes:?}", tok.name());
        }
        for unit in ["a", "中", " ", "0", "!", "ab", "abc", "🙂", "\u{301}", "é"] {
            for reps in [200, 333, 1000, 4097] {
                let piece = unit.repeat(reps);
                let (heap, linear) = tok.starts_both_ways(piece.as_bytes());
                assert_eq!(
                    linear.as_ref(),
                    Some(&heap),
                    "{} {unit:?} x {reps}",
                    tok.name()
                );
            }
        }
    }
}

#[test]
fn a_ten_megabyte_letter_run_counts_promptly() {
    // One 10 MB piece: the linear encoder, checked against the heap merge on a 1 MB run.
    for tok in [cl(), o2()] {
        let run = "a".repeat(1_000_000);
        let (heap, linear) = tok.starts_both_ways(run.as_bytes());
        assert_eq!(linear.as_ref(), Some(&heap), "{}", tok.name());
        let big = "a".repeat(10_000_000);
        let t = std::time::Instant::now();
        let n = tok.count_ordinary(&big);
        assert!(t.elapsed().as_secs_f64() < 10.0, "{}", tok.name());
        // Eight-letter tokens all the way: the 1 MB run's tokens, ten times over.
        assert_eq!(n, 10 * heap.len(), "{}", tok.name());
    }
}

#[test]
fn linear_encoder_tables_wait_for_a_megabyte_of_long_pieces() {
    // a tokenizer of its own: the shared ones may have built their tables in other tests
    let tok = Tokenizer::build(EncodingName::Cl100kBase);
    let long = "Q".repeat(4000);
    let want = tok.count(&long).unwrap();
    assert!(
        tok.backtrack.get().is_none(),
        "a few long pieces are heap-merged"
    );
    assert_eq!(want, cl().count(&long).unwrap());
    let huge = "Q".repeat(DEFER_BYTES + 1);
    let n = tok.count(&huge).unwrap();
    assert!(
        tok.backtrack.get().is_some(),
        "a piece past the budget builds the tables"
    );
    assert_eq!(n, cl().count(&huge).unwrap());
    assert_eq!(tok.count(&long).unwrap(), want);
}
