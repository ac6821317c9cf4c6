//! Work spread over the machine's cores: the host's share of a GPU batch (hashing,
//! padding and decoding, `batch.rs`) and the blinding pairs a large batch lacks
//! (`blinding.rs`), each on scoped threads over consecutive chunks.

/// The cores this process may use (1 where the system will not say).
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |c| c.get())
}

/// `f` over `items` on `threads` threads (in order, chunks of consecutive items), or on
/// this one.
pub(crate) fn map_chunks<T: Sync, U: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> U + Sync,
) -> Vec<U> {
    if threads <= 1 || items.len() < 2 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let f = &f;
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<U>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}
