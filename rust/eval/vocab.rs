//! The term dictionary of a BM25 index: term ids in order of first appearance, every term's
//! text in one buffer, and an open-addressing table of ids (linear probing, at most half full)
//! looked up by a term's text without allocating.
//!
//! [`hash_bytes`] is one-to-one on the strings of any one length up to 8 bytes (packing them
//! into an integer, multiplying by an odd constant and the final xor-shift can all be undone),
//! so two such terms with the same hash and length are equal and their texts are never
//! compared.

use super::tokenize::hash_bytes;

/// One place of the table: a term's whole hash, its length and `id + 1` (0: empty), so that a
/// probe reads one place and, for a term of up to 8 bytes, nothing else.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    hash: u64,
    id1: u32,
    len: u32,
}

/// Interned terms, ids `0..len()` in order of first appearance.
#[derive(Debug, Default)]
pub struct Vocab {
    /// Every term's text, one after another; term `i` ends at `ends[i]`.
    text: String,
    ends: Vec<usize>,
    /// A power of two long, at most half full.
    slots: Vec<Slot>,
}

#[inline]
fn hash(term: &str) -> u64 {
    hash_bytes(term.as_bytes())
}

impl Vocab {
    /// A dictionary with room for about `terms` terms before it grows.
    pub fn with_capacity(terms: usize) -> Vocab {
        Vocab {
            text: String::with_capacity(terms * 8),
            ends: Vec::with_capacity(terms),
            slots: vec![Slot::default(); (terms * 2).next_power_of_two().max(16)],
        }
    }

    /// The number of terms.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no term.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The text of term `id`.
    pub fn term(&self, id: u32) -> &str {
        let id = id as usize;
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        &self.text[start..self.ends[id]]
    }

    /// The slot holding `term` (hash `h`), or the empty slot where it would go.
    #[inline(always)]
    fn find(&self, term: &str, h: u64) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let s = self.slots[i];
            if s.id1 == 0 {
                return Err(i);
            }
            if s.hash == h
                && s.len as usize == term.len()
                && (term.len() <= 8 || self.term(s.id1 - 1) == term)
            {
                return Ok(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// The id of `term`, if it is in the dictionary.
    #[inline]
    pub fn get(&self, term: &str) -> Option<u32> {
        self.get_hashed(term, hash(term))
    }

    /// [`Vocab::get`] of a term whose [`hash_bytes`] is `h`.
    #[inline]
    pub fn get_hashed(&self, term: &str, h: u64) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        self.find(term, h).ok().map(|i| self.slots[i].id1 - 1)
    }

    /// The id of `term`, added with the next id if it is new.
    #[inline]
    pub fn get_or_insert(&mut self, term: &str) -> u32 {
        self.get_or_insert_hashed(term, hash(term))
    }

    /// [`Vocab::get_or_insert`] of a term whose [`hash_bytes`] is `h`.
    #[inline(always)]
    pub fn get_or_insert_hashed(&mut self, term: &str, h: u64) -> u32 {
        if self.slots.is_empty() {
            *self = Vocab::with_capacity(8);
        }
        match self.find(term, h) {
            Ok(i) => self.slots[i].id1 - 1,
            Err(i) => self.insert_at(i, term, h),
        }
    }

    #[inline(never)]
    fn insert_at(&mut self, i: usize, term: &str, h: u64) -> u32 {
        let id = self.ends.len() as u32;
        self.text.push_str(term);
        self.ends.push(self.text.len());
        self.slots[i] = Slot {
            hash: h,
            id1: id + 1,
            len: term.len() as u32,
        };
        if self.ends.len() * 2 > self.slots.len() {
            self.grow();
        }
        id
    }

    fn grow(&mut self) {
        let mut slots = vec![Slot::default(); self.slots.len() * 2];
        let mask = slots.len() - 1;
        for s in self.slots.iter().filter(|s| s.id1 != 0) {
            let mut i = s.hash as usize & mask;
            while slots[i].id1 != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = *s;
        }
        self.slots = slots;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_first_appearance_through_growth() {
        let mut v = Vocab::default();
        assert_eq!(v.get("x"), None);
        let words: Vec<String> = (0..5000).map(|i| format!("w{}", i * 7919 % 5003)).collect();
        for (i, w) in words.iter().enumerate() {
            assert_eq!(v.get_or_insert(w), i as u32);
        }
        for (i, w) in words.iter().enumerate() {
            assert_eq!(v.get_or_insert(w), i as u32);
            assert_eq!(v.get(w), Some(i as u32));
            assert_eq!(v.term(i as u32), w);
        }
        assert_eq!(v.len(), 5000);
        assert_eq!(v.get("w5003"), None);
        assert_eq!(v.get(""), None);
        assert_eq!(v.get_or_insert(""), 5000);
        assert_eq!(v.term(5000), "");
    }
}
