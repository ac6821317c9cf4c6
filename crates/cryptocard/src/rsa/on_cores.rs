//! Work spread over the machine's cores: the host's share of a GPU batch (hashing,
//! padding and decoding, `batch.rs`; the planes packed and unpacked, `gpu/whole.rs`)
//! and the blinding pairs a large batch lacks (`blinding.rs`), each on scoped threads
//! over consecutive chunks.

/// The cores this process may use (1 where the system will not say).
#[cfg_attr(not(any(feature = "gpu", feature = "hazmat")), allow(dead_code))]
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |c| c.get())
}

/// Requests from which a batch's host work is split over threads.
#[cfg_attr(not(any(feature = "gpu", feature = "hazmat")), allow(dead_code))]
pub(crate) const PARALLEL_MIN: usize = 4096;

/// Threads for the host work of a GPU batch of `n` requests: every core for a large
/// batch, at least [`PARALLEL_MIN`] / 4 requests each.
#[cfg_attr(not(any(feature = "gpu", feature = "hazmat")), allow(dead_code))]
pub(crate) fn host_threads(n: usize) -> usize {
    if n < PARALLEL_MIN {
        return 1;
    }
    cores().min(n / (PARALLEL_MIN / 4)).max(1)
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
    let parts = items.chunks(items.len().div_ceil(threads)).collect();
    map_parts(parts, |part| part.iter().map(&f).collect::<Vec<U>>()).into_iter().flatten().collect()
}

/// `f` of each part, each on a thread of its own (one part: on this one), in order.
pub(crate) fn map_parts<T: Send, U: Send>(parts: Vec<T>, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    if parts.len() <= 1 {
        return parts.into_iter().map(f).collect();
    }
    std::thread::scope(|scope| {
        let f = &f;
        let running: Vec<_> = parts.into_iter().map(|part| scope.spawn(move || f(part))).collect();
        running
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}
