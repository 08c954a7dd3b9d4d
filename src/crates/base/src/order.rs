//! Sorting large values (session records, history items: hundreds of bytes each) in place by
//! moving each one about once: a sort of 20,000 of them moves each many times, and those
//! moves (and the pages of the copies) were a tenth of `handover log`'s time.

use std::cmp::Ordering;

/// Sorts `items` by `compare`, stably (equal items keep their order), as
/// `items.sort_by(compare)` does: the positions are sorted, then each item is swapped along
/// its cycle of the permutation to its place (no copy of the slice is made).
pub fn sort_by<T>(items: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    // `order[k]`: the position of the item that belongs at `k`.
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| compare(&items[a], &items[b]));
    for start in 0..order.len() {
        let mut k = start;
        // Each step puts one item in its place and marks that place done (`order[k] == k`).
        while order[k] != k {
            let next = order[k];
            order[k] = k;
            if next == start {
                break;
            }
            items.swap(k, next);
            k = next;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorts_as_a_stable_sort_does() {
        for n in [0u32, 1, 2, 3, 17, 500] {
            let items: Vec<(u32, String)> = (0..n)
                .map(|i| ((i * 7919) % 13, format!("item {i}")))
                .collect();
            let mut expected = items.clone();
            expected.sort_by_key(|item| std::cmp::Reverse(item.0));
            let mut sorted = items.clone();
            super::sort_by(&mut sorted, |a, b| b.0.cmp(&a.0));
            assert_eq!(sorted, expected, "{n} items");
            // Already in order, and in reverse.
            let mut again = sorted.clone();
            super::sort_by(&mut again, |a, b| b.0.cmp(&a.0));
            assert_eq!(again, expected);
            let mut reversed = items;
            reversed.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
            super::sort_by(&mut reversed, |a, b| a.1.cmp(&b.1));
            let mut by_text = expected;
            by_text.sort_by(|a, b| a.1.cmp(&b.1));
            assert_eq!(reversed, by_text);
        }
    }
}
