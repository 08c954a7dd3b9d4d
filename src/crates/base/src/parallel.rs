//! One function applied to many items on every core, for the readers of the whole history
//! (thousands of stored files to read and parse: `handover log`, `search`). Never on a hook's
//! path: hooks stay on one thread.

/// Threads used at most, and items each is given at least (fewer items: one thread).
const MAX_THREADS: usize = 4;
const MIN_PER_THREAD: usize = 64;

/// `items.iter().map(f).collect()`, the items cut into one run per core (at most
/// [`MAX_THREADS`]), results in the items' order. A panic in `f` is the caller's panic.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_THREADS);
    if threads < 2 || items.len() < MIN_PER_THREAD * 2 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| {
                w.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_in_the_items_order() {
        let items: Vec<u32> = (0..1000).collect();
        let doubled = super::map(&items, |n| n * 2);
        assert_eq!(doubled, items.iter().map(|n| n * 2).collect::<Vec<_>>());
        assert_eq!(super::map(&items[..3], |n| n + 1), [1, 2, 3]);
    }
}
