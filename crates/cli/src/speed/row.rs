//! What `speed` measures: rows, each one operation of an algorithm (RSA "sign", DES
//! "encrypt"...) with every implementation of it as a [`Candidate`] built over the same
//! prepared inputs.
//!
//! A candidate is a factory, not a closure over live state: the harness calls it once in
//! every measuring thread (so `-multi N` gives each thread its own contexts) and gets a
//! [`Bench`], whose `run` is the timed call. A candidate may do several operations per call
//! (`batch`), which is how a batched path of ours enters a row without changing the
//! harness: it reports `batch: N` and N operations per call. A bench's error is a cell of
//! the report (one implementation failed), not the command's failure, so it is a line of
//! text.

use super::peers::PeerSet;
use compare::PeerInfo;

/// Who implements a candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Who {
    /// cryptocard itself.
    Ours,
    /// A peer library.
    Peer(PeerInfo),
}

/// A ready-to-run benchmark instance, owned by one thread.
pub trait Bench {
    /// One timed call, performing [`Candidate::ops_per_call`] operations.
    fn run(&mut self) -> Result<(), String>;
    /// What the first call computed, for checking that every implementation of a row
    /// computes the same thing; `None` where the result is randomized (OAEP, PSS...).
    fn output(&self) -> Option<Vec<u8>>;
}

/// A [`Bench`] from a state value and two functions over it.
struct StateBench<S, R, O> {
    state: S,
    run: R,
    output: O,
}

impl<S, R, O> Bench for StateBench<S, R, O>
where
    R: FnMut(&mut S) -> Result<(), String>,
    O: Fn(&S) -> Option<Vec<u8>>,
{
    fn run(&mut self) -> Result<(), String> {
        (self.run)(&mut self.state)
    }

    fn output(&self) -> Option<Vec<u8>> {
        (self.output)(&self.state)
    }
}

/// Boxes `state` with its timed `run` and its `output`.
pub fn bench<S: 'static>(
    state: S,
    run: impl FnMut(&mut S) -> Result<(), String> + 'static,
    output: impl Fn(&S) -> Option<Vec<u8>> + 'static,
) -> Box<dyn Bench> {
    Box::new(StateBench { state, run, output })
}

/// Makes a [`Bench`] in the calling thread.
pub type Factory = Box<dyn Fn() -> Result<Box<dyn Bench>, String> + Send + Sync>;

/// One implementation of a row's operation.
pub struct Candidate {
    /// Whose implementation.
    pub who: Who,
    /// `Some(n)`: a batched path doing `n` operations per call (rows carry `"batch": n`).
    pub batch: Option<usize>,
    /// Builds the per-thread instance.
    pub make: Factory,
}

impl Candidate {
    /// An unbatched candidate.
    pub fn new(
        who: Who,
        make: impl Fn() -> Result<Box<dyn Bench>, String> + Send + Sync + 'static,
    ) -> Self {
        Candidate { who, batch: None, make: Box::new(make) }
    }

    /// A peer's candidate.
    pub fn peer(
        info: &PeerInfo,
        make: impl Fn() -> Result<Box<dyn Bench>, String> + Send + Sync + 'static,
    ) -> Self {
        Candidate::new(Who::Peer(info.clone()), make)
    }

    /// A candidate whose outputs a `check` must accept before it is timed, as the PKI
    /// rows' (a signed message, a token, a response): `make` prepares its state on the
    /// measuring thread, each call of `run` makes `batch` outputs (one if `None`), and
    /// every output of the first call is checked.
    pub fn checked<S: 'static>(
        who: Who,
        batch: Option<usize>,
        make: impl Fn() -> Result<S, String> + Send + Sync + 'static,
        run: impl Fn(&mut S) -> Result<Vec<Vec<u8>>, String> + Copy + Send + Sync + 'static,
        check: impl Fn(&[u8]) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        let make = move || {
            let mut state = make()?;
            let first = run(&mut state)?;
            if first.len() != batch.unwrap_or(1) {
                return Err(format!(
                    "{} outputs where {} were asked",
                    first.len(),
                    batch.unwrap_or(1)
                ));
            }
            first.iter().try_for_each(|out| check(out))?;
            Ok(bench(state, move |s| run(s).map(drop), |_| None))
        };
        Candidate { who, batch, make: Box::new(make) }
    }

    /// Operations per call of the bench.
    pub fn ops_per_call(&self) -> u64 {
        self.batch.unwrap_or(1) as u64
    }
}

impl std::fmt::Debug for Candidate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Candidate").field("who", &self.who).field("batch", &self.batch).finish()
    }
}

/// One measured line: an operation of an algorithm and its implementations.
#[derive(Debug)]
pub struct Row {
    /// Algorithm name as given on the command line ("rsa2048", "modexp4096", "md2").
    pub alg: String,
    /// Operation ("sign", "verify", "encrypt", "decrypt", "digest", "mac", "modexp", "mul").
    pub op: &'static str,
    /// Bits each operation counts for `bits_per_s`: operand or modulus bits, or 8 × bytes.
    pub bits_per_op: u64,
    /// Bytes each operation processes, for byte-oriented algorithms.
    pub bytes_per_op: Option<u64>,
    /// Ours first (when it exists), then the peers in the order of the peer set.
    pub candidates: Vec<Candidate>,
    /// Why a selected peer has no candidate here ("md2 is not in OpenSSL 3.0.19 (system)").
    pub notes: Vec<String>,
}

impl Row {
    /// A row without notes.
    pub fn new(
        alg: &str,
        op: &'static str,
        bits_per_op: u64,
        bytes_per_op: Option<u64>,
        candidates: Vec<Candidate>,
    ) -> Row {
        Row { alg: alg.to_string(), op, bits_per_op, bytes_per_op, candidates, notes: Vec::new() }
    }
}

/// What the rows are built from, besides the name.
#[derive(Debug)]
pub struct Context<'a> {
    /// The selected peers that are present.
    pub peers: &'a PeerSet,
    /// Buffer size for byte-oriented algorithms (`-bytes`).
    pub bytes: usize,
    /// Requested batch size (`-batch`), for algorithms with a batched path of ours.
    pub batch: Option<usize>,
}
