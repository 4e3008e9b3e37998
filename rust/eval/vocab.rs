//! The term dictionary of a BM25 index: term ids in order of first appearance, every term's
//! text in one buffer, and an open-addressing table of ids (linear probing, at most half full)
//! looked up by a term's text without allocating.

use super::tokenize::hash_bytes;

/// Interned terms, ids `0..len()` in order of first appearance.
#[derive(Debug, Default)]
pub struct Vocab {
    /// Every term's text, one after another; term `i` ends at `ends[i]`.
    text: String,
    ends: Vec<usize>,
    hashes: Vec<u64>,
    /// Per slot: the high 32 bits of the term's hash and `id + 1` in the low 32, 0 for an empty
    /// slot; a power of two long.
    slots: Vec<u64>,
}

#[inline]
fn hash(term: &str) -> u64 {
    hash_bytes(term.as_bytes())
}

/// The slot value of term `id` with hash `h`.
#[inline]
fn slot(h: u64, id: u32) -> u64 {
    (h & !0xffff_ffff) | u64::from(id + 1)
}

impl Vocab {
    /// A dictionary with room for about `terms` terms before it grows.
    pub fn with_capacity(terms: usize) -> Vocab {
        Vocab {
            text: String::with_capacity(terms * 8),
            ends: Vec::with_capacity(terms),
            hashes: Vec::with_capacity(terms),
            slots: vec![0; (terms * 2).next_power_of_two().max(16)],
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
    #[inline]
    fn find(&self, term: &str, h: u64) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let s = self.slots[i];
            if s == 0 {
                return Err(i);
            }
            if (s ^ h) >> 32 == 0 {
                let id = (s as u32) - 1;
                if self.hashes[id as usize] == h && self.term(id) == term {
                    return Ok(i);
                }
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
        self.find(term, h).ok().map(|i| self.slots[i] as u32 - 1)
    }

    /// The id of `term`, added with the next id if it is new.
    #[inline]
    pub fn get_or_insert(&mut self, term: &str) -> u32 {
        self.get_or_insert_hashed(term, hash(term))
    }

    /// [`Vocab::get_or_insert`] of a term whose [`hash_bytes`] is `h`.
    #[inline]
    pub fn get_or_insert_hashed(&mut self, term: &str, h: u64) -> u32 {
        if self.slots.is_empty() {
            *self = Vocab::with_capacity(8);
        }
        match self.find(term, h) {
            Ok(i) => self.slots[i] as u32 - 1,
            Err(i) => {
                let id = self.ends.len() as u32;
                self.text.push_str(term);
                self.ends.push(self.text.len());
                self.hashes.push(h);
                self.slots[i] = slot(h, id);
                if self.ends.len() * 2 > self.slots.len() {
                    self.grow();
                }
                id
            }
        }
    }

    fn grow(&mut self) {
        let mut slots = vec![0u64; self.slots.len() * 2];
        let mask = slots.len() - 1;
        for (id, &h) in self.hashes.iter().enumerate() {
            let mut i = h as usize & mask;
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = slot(h, id as u32);
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
