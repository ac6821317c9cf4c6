//! Where a signature runs, given the thread rustls asks for it on (see the crate docs,
//! "When signatures batch").

use cryptocard::engine::Engine;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{PrivateRequest, RsaPrivateKey};
use std::sync::Arc;
use tokio::runtime::{Handle, RuntimeFlavor};

/// How a signature asked on a multi-thread tokio runtime's worker waits for its batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Wait {
    /// Inside [`tokio::task::block_in_place`]: the worker's queue moves to another
    /// thread while this one waits, so the runtime keeps accepting and driving
    /// connections and batches fill from them. Each wait costs a thread hand-off and,
    /// often, a new thread; on a server with few cores that costs more than the lanes
    /// save (the README's "Serving TLS" has the measurement), so it is opt-in.
    BlockInPlace,
    /// The worker blocks until its signature is done (the default). An idle engine runs
    /// it on this thread at once; it joins a batch when more threads sign at once than
    /// the engine runs operations (a runtime with more worker threads than the engine
    /// has workers). No thread hand-offs.
    #[default]
    Block,
    /// Never wait: each signature runs alone on the thread that asks for it, as on a
    /// current-thread runtime (no batching, no engine).
    Direct,
}

/// Runs `req` with `key`: on `engine` when batching pays (`batches`: the key's backend
/// runs lane batches) and this thread may wait for a batch, alone otherwise.
pub(crate) fn sign(
    engine: &Engine,
    key: &Arc<RsaPrivateKey>,
    req: PrivateRequest,
    wait: Wait,
    batches: bool,
) -> cryptocard::Result<Vec<u8>> {
    if !batches {
        // The scalar backend, or a key the lanes do not take: a batch would run its
        // members one after another, so waiting for one only adds hand-offs.
        return req.run(key, &mut OsRng);
    }
    let flavor = Handle::try_current().map(|h| h.runtime_flavor());
    match (flavor, wait) {
        (_, Wait::Direct) => req.run(key, &mut OsRng),
        // A plain thread: waiting blocks only the connection that asked.
        (Err(_), _) => engine.run(key.clone(), req),
        (Ok(RuntimeFlavor::MultiThread), Wait::BlockInPlace) => {
            tokio::task::block_in_place(|| engine.run(key.clone(), req))
        }
        (Ok(RuntimeFlavor::MultiThread), Wait::Block) => engine.run(key.clone(), req),
        // A current-thread runtime (or a flavor this crate does not know): the thread
        // that would bring the batch's other members is this one.
        (Ok(_), _) => req.run(key, &mut OsRng),
    }
}
