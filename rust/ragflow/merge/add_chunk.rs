//! The `add_chunk` families (v0.20 – v0.26): pieces added one by one, a new chunk opened when
//! the running count passes the threshold.

use crate::ragflow::delimiters::{
    legacy_delimiters, split_every_char, v22_is_skipped, DelimiterSplitter, Piece,
};
use crate::tokenizer::TokenCounter;

use super::counting::Counting;
use super::overlap::{push_overlap_prefix, threshold};
use super::{contains, Chunk, Compat, MergeOptions, Section};

/// State of RAGFlow's `add_chunk` closure: `cks`, the running count of the last chunk, and
/// which `pos` the last chunk is known to contain.
struct AddChunk<'p> {
    chunks: Vec<Chunk>,
    last_tokens: u64,
    known_pos: Option<&'p str>,
    threshold: f64,
    percent: f64,
    recount: bool,
    want_sources: bool,
}

impl<'p> AddChunk<'p> {
    /// `add_chunk("\n" + piece, pos)`.
    fn add<C: TokenCounter>(
        &mut self,
        piece: &str,
        pos: &'p str,
        sec: usize,
        counting: &mut Counting<'_, C>,
    ) -> Result<(), C::Error> {
        let mut tnum = counting.newline_piece(piece)? as u64;
        // RAGFlow: `if tnum < 8: pos = ""`.
        let pos = if tnum < 8 { "" } else { pos };
        let last = self
            .chunks
            .last_mut()
            .expect("starts with the leading \"\" chunk");
        if last.text.is_empty() || self.last_tokens as f64 > self.threshold {
            // New chunk: overlap prefix from the current chunk (tags stripped), then the piece.
            let mut text = String::new();
            push_overlap_prefix(&mut text, &last.text, self.percent);
            let has_prefix = !text.is_empty();
            text.reserve(1 + piece.len() + pos.len());
            text.push('\n');
            text.push_str(piece);
            // RAGFlow v0.26 recounts the new chunk with its prefix; v0.22/v0.23 keep
            // tokens("\n" + piece). Without a prefix the two are the same string.
            if self.recount && has_prefix {
                tnum = counting.text(&text)? as u64;
            }
            self.known_pos = None;
            if !pos.is_empty() {
                if !contains(&text, pos) {
                    text.push_str(pos);
                }
                self.known_pos = Some(pos);
            }
            let sources = if self.want_sources {
                vec![sec]
            } else {
                Vec::new()
            };
            self.chunks.push(Chunk { text, sources });
            self.last_tokens = tnum;
        } else {
            // Merge: pos is checked against the current chunk only, not the piece, so a piece
            // carrying its own tag can end up with it twice (RAGFlow quirk).
            let add_pos =
                !pos.is_empty() && self.known_pos != Some(pos) && !contains(&last.text, pos);
            last.text.push('\n');
            last.text.push_str(piece);
            if add_pos {
                last.text.push_str(pos);
            }
            if !pos.is_empty() {
                self.known_pos = Some(pos);
            }
            if self.want_sources {
                last.sources.push(sec);
            }
            self.last_tokens += tnum;
        }
        Ok(())
    }
}

pub(super) fn add_chunk_family<C: TokenCounter>(
    sections: &[Section<'_>],
    opts: &MergeOptions<'_>,
    counting: &mut Counting<'_, C>,
    want_sources: bool,
) -> Result<Vec<Chunk>, C::Error> {
    let mut st = AddChunk {
        // The leading "" chunk RAGFlow starts with (and never removes).
        chunks: vec![Chunk::default()],
        last_tokens: 0,
        known_pos: None,
        threshold: threshold(opts),
        percent: opts.overlapped_percent,
        recount: opts.compat == Compat::V26,
        want_sources,
    };
    let legacy = legacy_delimiters(opts.delimiter);
    let splitter = DelimiterSplitter::new(&legacy);
    for (sec, s) in sections.iter().enumerate() {
        let pos = s.pos_str();
        let split = match opts.compat {
            Compat::V23 => false,
            Compat::V26 => {
                !legacy.is_empty() && counting.text(s.text)? as f64 >= opts.chunk_token_num
            }
            _ => counting.text(s.text)? as f64 >= opts.chunk_token_num,
        };
        if !split {
            st.add(s.text, pos, sec, counting)?;
            continue;
        }
        if opts.compat == Compat::V26 {
            // v0.26: empty pieces and delimiter pieces are skipped.
            for piece in splitter.split(s.text) {
                if let Piece::Text(t) = piece {
                    if !t.is_empty() {
                        st.add(t, pos, sec, counting)?;
                    }
                }
            }
        } else if legacy.is_empty() {
            // RAGFlow v0.22 quirk: pattern "()" splits between every character.
            for piece in split_every_char(s.text) {
                if !v22_is_skipped(piece.as_str(), &legacy) {
                    st.add(piece.as_str(), pos, sec, counting)?;
                }
            }
        } else {
            for piece in splitter.split(s.text) {
                if !v22_is_skipped(piece.as_str(), &legacy) {
                    st.add(piece.as_str(), pos, sec, counting)?;
                }
            }
        }
    }
    Ok(st.chunks)
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

    #[test]
    fn legacy_leading_empty_chunk() {
        for compat in [Compat::V22, Compat::V23, Compat::V26] {
            let o = opts(compat, 128.0, "\n。；！？", 0.0);
            assert_eq!(m(&["a"], &o), ["", "\na"]);
            assert!(m(&[], &o).is_empty());
            let got = naive_merge(&texts(&["a", "b"]), &o, &chars).unwrap();
            assert_eq!(got[0].sources, Vec::<usize>::new());
            assert_eq!(got[1].sources, [0, 1]);
        }
    }

    #[test]
    fn legacy_split_rules() {
        // v0.23: never split at ordinary delimiters
        assert_eq!(
            m(&["a。b"], &opts(Compat::V23, 1.0, "。", 0.0)),
            ["", "\na。b"]
        );
        // v0.22 / v0.26: split only when tokens(section) >= chunk_token_num
        for compat in [Compat::V22, Compat::V26] {
            assert_eq!(m(&["a。b"], &opts(compat, 3.0, "。", 0.0)), ["", "\na\nb"]);
            assert_eq!(m(&["a。b"], &opts(compat, 4.0, "。", 0.0)), ["", "\na。b"]);
        }
        // v0.22 keeps empty pieces (as "\n"), v0.26 skips them
        assert_eq!(
            m(&["a。。b"], &opts(Compat::V22, 1.0, "。", 0.0)),
            ["", "\na", "\n\nb"]
        );
        assert_eq!(
            m(&["a。。b"], &opts(Compat::V26, 1.0, "。", 0.0)),
            ["", "\na", "\nb"]
        );
    }

    #[test]
    fn v22_empty_delimiter_splits_every_char() {
        // RAGFlow v0.22 quirk: pattern "()" splits between characters, and "^$" also drops
        // the "\n" characters
        assert_eq!(
            m(&["ab\nc"], &opts(Compat::V22, 1.0, "", 0.0)),
            ["", "\na", "\nb", "\nc"]
        );
        // below the threshold: not split
        assert_eq!(m(&["ab"], &opts(Compat::V22, 9.0, "", 0.0)), ["", "\nab"]);
        // v0.26 never splits with an empty delimiter
        assert_eq!(
            m(&["ab\nc"], &opts(Compat::V26, 1.0, "", 0.0)),
            ["", "\nab\nc"]
        );
    }

    #[test]
    fn legacy_no_newline_normalisation() {
        assert_eq!(
            m(&["ab\r\ncd"], &opts(Compat::V26, 1.0, "\n", 0.0)),
            ["", "\nab\r", "\ncd"]
        );
    }

    #[test]
    fn v22_backticks_are_plain_delimiters() {
        assert_eq!(
            m(&["a##b"], &opts(Compat::V22, 1.0, "`##`", 0.0)),
            ["", "\na", "\nb"]
        );
    }

    #[test]
    fn legacy_pos_rules() {
        let o = opts(Compat::V23, 100.0, "", 0.0);
        // dropped under 8 tokens
        let secs = [Section {
            text: "ab",
            pos: Some(TAG),
        }];
        assert_eq!(run_t(&secs, &o), ["", "\nab"]);
        let secs = [Section {
            text: "abcdefghij",
            pos: Some(TAG),
        }];
        assert_eq!(
            run_t(&secs, &o),
            ["".to_string(), format!("\nabcdefghij{TAG}")]
        );
        // on a merge the pos is checked against the chunk only: a piece that carries its own
        // tag gets it twice (RAGFlow quirk)
        let secs = [
            Section::text("abcdefghij"),
            Section {
                text: "klm§nopqrs",
                pos: Some("§"),
            },
        ];
        assert_eq!(run_t(&secs, &o), ["", "\nabcdefghij\nklm§nopqrs§"]);
        // already in the chunk: not appended again
        let secs = [
            Section {
                text: "abcdefghij",
                pos: Some("§"),
            },
            Section {
                text: "klmnopqrst",
                pos: Some("§"),
            },
        ];
        assert_eq!(run_t(&secs, &o), ["", "\nabcdefghij§\nklmnopqrst"]);
    }

    #[test]
    fn legacy_overlap_and_v26_recount() {
        // threshold 10 * 50 / 100 = 5; "\n" + 12 a's = 13 tokens, prefix = last 7 code points
        let secs = ["aaaaaaaaaaaa", "b", "c"];
        // v0.23 keeps tokens("\nb") = 2 for the new chunk, so "\nc" merges
        assert_eq!(
            m(&secs, &opts(Compat::V23, 10.0, "", 50.0)),
            ["", "\naaaaaaaaaaaa", "aaaaaaa\nb\nc"]
        );
        // v0.26 recounts "aaaaaaa\nb" = 9 > 5, so "\nc" opens another chunk
        assert_eq!(
            m(&secs, &opts(Compat::V26, 10.0, "", 50.0)),
            ["", "\naaaaaaaaaaaa", "aaaaaaa\nb", "aaa\nb\nc"]
        );
    }
}
