//! A per-thread memory of what a pure text function answered, for short texts: a listing of
//! thousands of lines (`handover log`, `search`) names the same agents, branches, reasons and
//! files again and again, and redacting each of them afresh was a large part of its time.
//! Only for a function whose answer depends on the text and the key alone (a bound, say).

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hash;
use std::thread::LocalKey;

/// Texts at most this long are remembered; a longer one is answered afresh every time.
pub const REMEMBERED_BYTES: usize = 512;
/// Texts remembered per key; past it the memory of that key starts over (a bound on memory,
/// not on correctness: a forgotten text is answered afresh).
pub const REMEMBERED_TEXTS: usize = 4096;

/// Answers by key, then by text: looked up without a copy of the text.
pub struct TextMemory<K> {
    by_key: HashMap<K, HashMap<String, String>>,
}

impl<K> Default for TextMemory<K> {
    fn default() -> Self {
        TextMemory {
            by_key: HashMap::new(),
        }
    }
}

impl<K: Eq + Hash> TextMemory<K> {
    /// What `answer` gives for `text` under `key`: remembered, else computed and remembered.
    fn recall(&mut self, key: K, text: &str, answer: impl FnOnce(&str) -> String) -> String {
        let texts = self.by_key.entry(key).or_default();
        if let Some(known) = texts.get(text) {
            return known.clone();
        }
        let fresh = answer(text);
        if texts.len() >= REMEMBERED_TEXTS {
            texts.clear();
        }
        texts.insert(text.to_string(), fresh.clone());
        fresh
    }
}

/// `answer(text)`, remembered in this thread's `memory` under `key` when `text` is short.
/// `answer` must not ask the same memory (it is borrowed meanwhile).
pub fn remembered<K: Eq + Hash + 'static>(
    memory: &'static LocalKey<RefCell<TextMemory<K>>>,
    key: K,
    text: &str,
    answer: impl FnOnce(&str) -> String,
) -> String {
    if text.len() > REMEMBERED_BYTES {
        return answer(text);
    }
    memory.with(|m| m.borrow_mut().recall(key, text, answer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        static MEMORY: RefCell<TextMemory<usize>> = RefCell::new(TextMemory::default());
        static CALLS: Cell<usize> = const { Cell::new(0) };
    }

    fn counted(text: &str, key: usize) -> String {
        remembered(&MEMORY, key, text, |t| {
            CALLS.with(|c| c.set(c.get() + 1));
            format!("{key}:{}", t.to_uppercase())
        })
    }

    #[test]
    fn a_short_text_is_answered_once_per_key_and_a_long_one_every_time() {
        assert_eq!(counted("src/lib.rs", 3), "3:SRC/LIB.RS");
        assert_eq!(counted("src/lib.rs", 3), "3:SRC/LIB.RS");
        assert_eq!(CALLS.with(Cell::get), 1);
        assert_eq!(counted("src/lib.rs", 80), "80:SRC/LIB.RS");
        assert_eq!(CALLS.with(Cell::get), 2);
        let long = "x".repeat(REMEMBERED_BYTES + 1);
        counted(&long, 3);
        counted(&long, 3);
        assert_eq!(CALLS.with(Cell::get), 4);
    }

    #[test]
    fn past_its_bound_the_memory_starts_over_and_still_answers_right() {
        for round in 0..(REMEMBERED_TEXTS + 10) {
            let text = format!("file-{round}.rs");
            assert_eq!(counted(&text, 7), format!("7:FILE-{round}.RS"));
        }
        MEMORY.with(|m| {
            let held = m.borrow().by_key.get(&7).map_or(0, HashMap::len);
            assert!(held <= REMEMBERED_TEXTS, "{held} texts held");
        });
    }
}
