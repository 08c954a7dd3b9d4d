//! The texts a unit test asks of a remembered text function (`handover_base::memory`), round
//! after round (record and recall include this file by path, as the library crates include
//! `test_git.rs`): its answer must be the one computed afresh however often a text comes back,
//! for a text too long to be remembered, and past the point where the memory starts over.

/// `samples` in turn, with a file name of the round and a text longer than
/// [`handover_base::memory::REMEMBERED_BYTES`] made of `filler`, for more rounds than
/// [`handover_base::memory::REMEMBERED_TEXTS`].
pub(crate) fn rounds(samples: [&str; 5], filler: char) -> impl Iterator<Item = String> + '_ {
    let long = filler
        .to_string()
        .repeat(handover_base::memory::REMEMBERED_BYTES + 1);
    (0..handover_base::memory::REMEMBERED_TEXTS + 10).map(move |round| match round % 7 {
        5 => format!("file-{round}.rs"),
        6 => long.clone(),
        n => samples[n].to_string(),
    })
}
