//! A byte trie (llama.cpp's `naive_trie`): nodes are numbers, edges a hash table.

use alloc::vec::Vec;

use hashbrown::HashMap;

#[derive(Debug, Clone)]
pub(crate) struct Trie {
    edges: HashMap<(u32, u8), u32>,
    values: Vec<Option<u32>>,
}

impl Default for Trie {
    fn default() -> Trie {
        Trie {
            edges: HashMap::new(),
            values: alloc::vec![None],
        }
    }
}

impl Trie {
    pub(crate) const ROOT: u32 = 0;

    /// Adds `key` with `value` (a later insert of the same key wins).
    pub(crate) fn insert(&mut self, key: &[u8], value: u32) {
        let mut node = Self::ROOT;
        for &b in key {
            let next = self.values.len() as u32;
            node = *self.edges.entry((node, b)).or_insert(next);
            if node == next {
                self.values.push(None);
            }
        }
        self.values[node as usize] = Some(value);
    }

    pub(crate) fn child(&self, node: u32, b: u8) -> Option<u32> {
        self.edges.get(&(node, b)).copied()
    }

    pub(crate) fn value(&self, node: u32) -> Option<u32> {
        self.values[node as usize]
    }

    /// llama.cpp's `get_longest_prefix`: how far `key` follows the trie's edges (whether or
    /// not a key ends there).
    pub(crate) fn longest_path(&self, key: &[u8]) -> usize {
        let mut node = Self::ROOT;
        for (i, &b) in key.iter().enumerate() {
            match self.child(node, b) {
                Some(n) => node = n,
                None => return i,
            }
        }
        key.len()
    }
}
