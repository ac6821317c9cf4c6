//! Batches of private-key operations: the interface between the RSA schemes and whatever
//! runs many private operations at once (the 8-lane AVX-512 IFMA kernels, the engine).
//!
//! ```
//! use cryptocard::digest::HashAlg;
//! use cryptocard::rng::OsRng;
//! use cryptocard::rsa::{PrivateRequest, RsaPrivateKey, private_batch};
//!
//! let key = RsaPrivateKey::generate(1024, &mut OsRng)?;
//! let requests: Vec<PrivateRequest> = (0..4u8)
//!     .map(|i| PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg: vec![i; 32] })
//!     .collect();
//! let batch: Vec<_> = requests.iter().map(|r| (&key, r)).collect();
//! for (result, req) in private_batch(&batch, &mut OsRng).into_iter().zip(&requests) {
//!     // Each result is what the single-operation method returns for the request.
//!     assert_eq!(result?, req.run(&key, &mut OsRng)?);
//! }
//! # Ok::<(), cryptocard::Error>(())
//! ```
//!
//! A [`PrivateRequest`] names one whole operation as a caller sees it (sign this message
//! with PKCS#1 v1.5, decrypt this OAEP ciphertext, ...). [`private_batch`] runs a slice of
//! them, possibly with different keys, and returns one result per request, in order.
//! Each result is exactly what the single-operation method would return for the same
//! request: the same bytes for deterministic schemes (PKCS#1 v1.5 signatures, every
//! decryption), a signature that verifies for PSS (whose salt is random). A request that
//! fails (a message too long, a bad ciphertext, a fault) fails alone.
//!
//! Requests own their data, so they can be queued and moved between threads.
//!
//! A large batch whose keys run on the GPU has its host work (hashing, padding,
//! decoding) split over every core, so that the host keeps up with the device; PSS's
//! salts are still drawn on the caller's thread from its source. One of two device
//! chunks (32,768 requests unless `CRYPTOCARD_GPU_CHUNK` says otherwise) or more runs as
//! a pipeline: two chunks' private operations at once on threads of their own (one on
//! the device while the other's planes are made or read) while the caller's thread
//! encodes the next and decodes the finished ones, and each chunk takes the blinding pairs that an earlier one renewed (a key's
//! pool keeps two chunks' worth, not a whole batch's).
//! Batches on the CPU's units stay on the calling thread (the engine runs one per
//! worker).

use super::accel::Lanes;
use super::blinding::BATCHES_IN_FLIGHT;
use super::oaep::oaep_finish;
#[cfg(any(feature = "gpu", feature = "hazmat"))]
use super::on_cores::host_threads;
use super::on_cores::map_chunks;
use super::pkcs1v15_enc::{explicit_finish, open_result};
use super::private::Ops;
use super::pss::pss_msg_digest;
use super::tags::N;
use super::{Oaep, Pss, RsaPrivateKey};
use crate::Result;
use crate::digest::{HashAlg, Hasher};
use crate::modular::{Elem, Plain};
use crate::rng::RandomSource;
use zeroize::Zeroizing;

/// One private-key operation, with its scheme and its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrivateRequest {
    /// [`RsaPrivateKey::sign_pkcs1v15`]: hash `msg` and sign it (RSASSA-PKCS1-v1_5).
    SignPkcs1v15 {
        /// The digest to hash the message with.
        hash: HashAlg,
        /// The message.
        msg: Vec<u8>,
    },
    /// [`RsaPrivateKey::sign_pkcs1v15_prehashed`]: sign a digest computed by the caller.
    SignPkcs1v15Prehashed {
        /// The digest algorithm that produced `digest`.
        hash: HashAlg,
        /// The digest.
        digest: Vec<u8>,
    },
    /// [`RsaPrivateKey::sign_pkcs1v15_raw`]: PKCS#1 v1.5 type-1 padding of `data`, no
    /// DigestInfo.
    SignPkcs1v15Raw {
        /// The bytes to pad and sign.
        data: Vec<u8>,
    },
    /// [`RsaPrivateKey::sign_x931_prehashed`]: an ANSI X9.31 signature of a digest.
    SignX931Prehashed {
        /// The digest algorithm that produced `digest` (SHA-1 or SHA-2).
        hash: HashAlg,
        /// The digest.
        digest: Vec<u8>,
    },
    /// [`RsaPrivateKey::sign_pss`]: hash `msg` and sign it (RSASSA-PSS).
    SignPss {
        /// The PSS parameters.
        params: Pss,
        /// The message.
        msg: Vec<u8>,
    },
    /// [`RsaPrivateKey::sign_pss_prehashed`]: sign a digest computed by the caller.
    SignPssPrehashed {
        /// The PSS parameters.
        params: Pss,
        /// The digest.
        digest: Vec<u8>,
    },
    /// [`RsaPrivateKey::decrypt_oaep`] (RSAES-OAEP).
    DecryptOaep {
        /// The OAEP parameters.
        params: Oaep,
        /// The ciphertext.
        ciphertext: Vec<u8>,
    },
    /// [`RsaPrivateKey::decrypt_pkcs1v15`]: RSAES-PKCS1-v1_5 with implicit rejection.
    DecryptPkcs1v15 {
        /// The ciphertext.
        ciphertext: Vec<u8>,
    },
    /// [`RsaPrivateKey::decrypt_pkcs1v15_explicit`]: RSAES-PKCS1-v1_5 reporting bad
    /// padding as [`crate::Error::Decryption`].
    DecryptPkcs1v15Explicit {
        /// The ciphertext.
        ciphertext: Vec<u8>,
    },
    /// [`RsaPrivateKey::raw_private`]: RSADP/RSASP1 on exactly k bytes, no padding.
    RawPrivate {
        /// The k-byte input.
        input: Vec<u8>,
    },
}

impl PrivateRequest {
    /// Runs the request alone, with the single-operation method it names.
    pub fn run(&self, key: &RsaPrivateKey, rng: &mut dyn RandomSource) -> Result<Vec<u8>> {
        match self {
            PrivateRequest::SignPkcs1v15 { hash, msg } => key.sign_pkcs1v15(*hash, msg, rng),
            PrivateRequest::SignPkcs1v15Prehashed { hash, digest } => {
                key.sign_pkcs1v15_prehashed(*hash, digest, rng)
            }
            PrivateRequest::SignPkcs1v15Raw { data } => key.sign_pkcs1v15_raw(data, rng),
            PrivateRequest::SignX931Prehashed { hash, digest } => {
                key.sign_x931_prehashed(*hash, digest, rng)
            }
            PrivateRequest::SignPss { params, msg } => key.sign_pss(params, msg, rng),
            PrivateRequest::SignPssPrehashed { params, digest } => {
                key.sign_pss_prehashed(params, digest, rng)
            }
            PrivateRequest::DecryptOaep { params, ciphertext } => {
                key.decrypt_oaep(params, ciphertext, rng)
            }
            PrivateRequest::DecryptPkcs1v15 { ciphertext } => key.decrypt_pkcs1v15(ciphertext, rng),
            PrivateRequest::DecryptPkcs1v15Explicit { ciphertext } => {
                key.decrypt_pkcs1v15_explicit(ciphertext, rng)
            }
            PrivateRequest::RawPrivate { input } => key.raw_private(input, rng),
        }
    }
}

/// How [`private_batch`] groups a request: requests of one class share lane batches, so
/// an engine that collects requests should group them by this value (see
/// [`PrivateRequest::batch_class`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BatchClass {
    /// How the key's unit batches its operations (for the IFMA unit: the digit count of
    /// the key's mb8 calls, four operations to a call; for the AVX2 unit: its digit count,
    /// two to a call); `None` when they run one by one (scalar keys, multi-prime keys,
    /// sizes without lanes).
    lanes: Option<Lanes>,
}

impl BatchClass {
    /// Whether requests of this class run in lane batches (otherwise batching them gains
    /// nothing over running them one by one).
    pub fn is_lane_batched(self) -> bool {
        self.lanes.is_some()
    }

    /// The most operations one lane batch takes (each operation fills two lanes, one per
    /// CRT half); 1 when not lane-batched.
    pub fn ops_per_batch(self) -> usize {
        self.lanes.map_or(1, |l| l.per_call)
    }

    /// The fewest operations worth a lane batch: fewer run one by one (faster there).
    pub fn min_batch_ops(self) -> usize {
        self.lanes.map_or(1, |l| l.min_ops)
    }
}

impl RsaPrivateKey {
    /// The batch class of this key's private operations on its backend (a key whose
    /// backend choice is unusable is in the one-by-one class; its operations fail).
    pub fn batch_class(&self) -> BatchClass {
        let lanes = self.accel.unit().ok().and_then(|unit| self.accel_key(unit).lanes());
        BatchClass { lanes }
    }
}

impl PrivateRequest {
    /// The class [`private_batch`] groups this request in when run with `key`: that of
    /// the key ([`RsaPrivateKey::batch_class`]); every request kind costs the same one
    /// private operation.
    pub fn batch_class(&self, key: &RsaPrivateKey) -> BatchClass {
        key.batch_class()
    }

    /// The scheme's steps before RSADP / RSASP1: its k-byte input, or the scheme's own
    /// error (the same helpers as the single-operation methods, so the same checks).
    fn rsadp_input(
        &self,
        key: &RsaPrivateKey,
        rng: &mut dyn RandomSource,
    ) -> Result<Zeroizing<Vec<u8>>> {
        use PrivateRequest as R;
        let copy = |ct: &[u8]| Zeroizing::new(ct.to_vec());
        match self {
            R::SignPkcs1v15 { hash, msg } => {
                key.pkcs1v15_sign_input(*hash, Hasher::digest(*hash, msg).as_bytes())
            }
            R::SignPkcs1v15Prehashed { hash, digest } => key.pkcs1v15_sign_input(*hash, digest),
            R::SignPkcs1v15Raw { data } => key.pkcs1v15_raw_sign_input(data),
            R::SignX931Prehashed { hash, digest } => key.x931_sign_input_prehashed(*hash, digest),
            R::SignPss { params, msg } => {
                key.pss_sign_input(params, &pss_msg_digest(params, msg), rng)
            }
            R::SignPssPrehashed { params, digest } => key.pss_sign_input(params, digest, rng),
            R::DecryptOaep { params, ciphertext } => {
                key.oaep_check(params, ciphertext).map(|()| copy(ciphertext))
            }
            R::DecryptPkcs1v15 { ciphertext } | R::DecryptPkcs1v15Explicit { ciphertext } => {
                key.pkcs1v15_ct_check(ciphertext).map(|()| copy(ciphertext))
            }
            R::RawPrivate { input } => Ok(copy(input)),
        }
    }

    /// The scheme's steps after RSADP / RSASP1, given its result.
    fn rsadp_output(&self, key: &RsaPrivateKey, rsadp: Result<Vec<u8>>) -> Result<Vec<u8>> {
        use PrivateRequest as R;
        match self {
            R::DecryptOaep { params, .. } => oaep_finish(params, rsadp),
            R::DecryptPkcs1v15 { ciphertext } => {
                Ok(key.pkcs1v15_implicit_finish(ciphertext, &open_result(rsadp)?))
            }
            R::DecryptPkcs1v15Explicit { .. } => explicit_finish(&open_result(rsadp)?),
            R::RawPrivate { .. } => rsadp,
            R::SignX931Prehashed { .. } => {
                key.public.x931_signature(super::declassify::signature(rsadp)?)
            }
            _ => super::declassify::signature(rsadp),
        }
    }
}

/// Runs every request with its key and returns one result per request, in order; each
/// equals what [`PrivateRequest::run`] would return alone (see the module docs).
///
/// Each request goes through its scheme's encoding, RSADP's checks and phase (a) of the
/// private operation (blinding, reduction mod the primes); then phase (b), the
/// exponentiations, runs for all of them at once on their keys' units, where the IFMA
/// unit fills 8-lane calls with the operations of one [`BatchClass`]; then phase (c)
/// (the fault checks and products together again) and the scheme's decoding. A request
/// that fails at any step fails alone: its operation never enters a batch, or, past one,
/// only its own result is dropped.
pub fn private_batch(
    requests: &[(&RsaPrivateKey, &PrivateRequest)],
    rng: &mut dyn RandomSource,
) -> Vec<Result<Vec<u8>>> {
    // A batch for the GPU: its host work (hashing, padding, decoding) on every core, so
    // that the host keeps up with the device; the CPU units keep one thread per batch
    // (the engine runs one batch per worker).
    // Small batches (every CPU batch of the engine) skip the scan of the keys' units.
    #[cfg(feature = "gpu")]
    let split = match host_threads(requests.len()) {
        n if n > 1 && requests.iter().any(|(k, _)| k.accel.unit().is_ok_and(|u| u.is_gpu())) => {
            (n, gpu_chunk())
        }
        _ => ONE_THREAD,
    };
    #[cfg(not(feature = "gpu"))]
    let split = ONE_THREAD;
    private_batch_with(requests, rng, split, &super::private::private_all)
}

/// [`private_batch`] with every key the GPU kernel takes on the GPU, whatever its own
/// backend: the engine's offload unit. [`Error::Unsupported`](crate::Error::Unsupported) for every request without
/// a usable GPU.
#[cfg(feature = "gpu")]
pub(crate) fn private_batch_on_gpu(
    requests: &[(&RsaPrivateKey, &PrivateRequest)],
    rng: &mut dyn RandomSource,
) -> Vec<Result<Vec<u8>>> {
    match super::Backend::Gpu.resolve() {
        Ok(gpu) => {
            let split = (host_threads(requests.len()), gpu_chunk());
            private_batch_with(requests, rng, split, &|ops, rng| {
                super::private::private_all_on_gpu(ops, gpu, rng)
            })
        }
        Err(e) => requests.iter().map(|_| Err(e)).collect(),
    }
}

/// [`private_batch`] as a GPU batch runs it in chunks of `chunk`, every key the kernel
/// takes on a stand-in device that answers after `per_op` an operation (`stand_in.rs`'s
/// `StandIn`: m = c, so no result is a real signature): the host's side, for
/// `hazmat::gpu::private_batch_stand_in`.
#[cfg(feature = "hazmat")]
pub(crate) fn private_batch_on_stand_in(
    requests: &[(&RsaPrivateKey, &PrivateRequest)],
    rng: &mut dyn RandomSource,
    per_op: core::time::Duration,
    chunk: usize,
) -> Vec<Result<Vec<u8>>> {
    use super::accel::gpu::stand_in::{StandIn, private_all_on_stand_in};
    let stand_in = StandIn::new(per_op);
    let split = (host_threads(requests.len()), chunk);
    private_batch_with(requests, rng, split, &|ops, rng| {
        private_all_on_stand_in(ops, rng, &stand_in)
    })
}

/// Randomness for the threads of [`map_chunks`]: none. Only PSS's encoding asks for any
/// (its salt), and those requests are encoded on the caller's thread with its source.
struct NoRandomness;

impl RandomSource for NoRandomness {
    fn fill_bytes(&mut self, _: &mut [u8]) -> Result<()> {
        Err(crate::Error::Internal("randomness asked for off the caller's thread"))
    }
}

impl PrivateRequest {
    /// Whether the scheme's encoding draws randomness (PSS's salt).
    fn encodes_with_randomness(&self) -> bool {
        matches!(self, PrivateRequest::SignPss { .. } | PrivateRequest::SignPssPrehashed { .. })
    }
}

/// A request on its way: its RSADP input (later its RSADP result), and its own result
/// when it failed before RSADP (the encoding's error).
type Encoded = (Result<Elem<N, Plain>>, Option<Result<Vec<u8>>>);

/// The requests a large GPU batch hands the device at a time ([`pipelined`]): the
/// device's tuning (`layout::CHUNK` unless `CRYPTOCARD_GPU_CHUNK` says otherwise).
#[cfg(feature = "gpu")]
fn gpu_chunk() -> usize {
    use super::accel::gpu::{driver, layout::CHUNK};
    driver::device().map_or(CHUNK, |d| d.chunk())
}

/// A batch's host work on the calling thread, never cut in chunks.
const ONE_THREAD: (usize, usize) = (1, usize::MAX);

/// The private operations of a batch: each input (c, or the error it already failed
/// with) to its result, in order.
type PrivateAll<'f> = dyn Fn(Ops<'_, Elem<N, Plain>>, &mut dyn RandomSource) -> Vec<Result<Elem<N, Plain>>>
    + Sync
    + 'f;

/// [`private_batch`]'s body, with the private operations run by `private_all` and the
/// schemes' encoding and decoding on `threads` threads (the caller's `rng` for the
/// encodings that draw randomness, on this thread). A batch split over threads (a GPU
/// batch) of two `chunk`s or more runs [`pipelined`].
fn private_batch_with(
    requests: &[(&RsaPrivateKey, &PrivateRequest)],
    rng: &mut dyn RandomSource,
    (threads, chunk): (usize, usize),
    private_all: &PrivateAll<'_>,
) -> Vec<Result<Vec<u8>>> {
    if threads > 1 && requests.len() / 2 >= chunk {
        return pipelined(requests, rng, threads, chunk, private_all);
    }
    let (inputs, early) = encode_all(requests, rng, threads);
    let finished = private_all(inputs, rng);
    decode_all(requests, finished, early, threads)
}

/// [`private_batch_with`] a chunk of `chunk` requests at a time, as a pipeline: the
/// private operations of up to [`BATCHES_IN_FLIGHT`] chunks run on threads of their own
/// (for a GPU batch, one chunk's planes packed or read while another is on the device,
/// which runs one launch at a time unless `CRYPTOCARD_GPU_STREAMS` is 2), while this
/// thread encodes the next chunk and decodes, in order, the ones done, on `threads`
/// threads. A chunk takes the pairs an earlier one renewed, since each key's pool keeps
/// room for the chunks in flight. The
/// workers draw what randomness the operations need (pairs a pool lacks) from the
/// system ([`OsRng`](crate::rng::OsRng)); PSS's salts still come from `rng` here.
fn pipelined(
    requests: &[(&RsaPrivateKey, &PrivateRequest)],
    rng: &mut dyn RandomSource,
    threads: usize,
    chunk: usize,
    private_all: &PrivateAll<'_>,
) -> Vec<Result<Vec<u8>>> {
    use std::collections::BTreeMap;
    use std::sync::mpsc::sync_channel;
    let chunk = chunk.max(1);
    let parts: Vec<_> = requests.chunks(chunk).collect();
    let mut results = Vec::with_capacity(requests.len());
    type Done = (usize, Vec<Result<Elem<N, Plain>>>, Vec<Early>);
    let (to_workers, jobs) = sync_channel::<(usize, Ops<'_, _>, Vec<Early>)>(1);
    let jobs = std::sync::Mutex::new(jobs);
    let (to_host, done) = sync_channel::<Done>(BATCHES_IN_FLIGHT);
    std::thread::scope(|scope| {
        for _ in 0..BATCHES_IN_FLIGHT {
            let (jobs, to_host) = (&jobs, to_host.clone());
            scope.spawn(move || {
                loop {
                    let job = jobs.lock().map(|jobs| jobs.recv());
                    let Ok(Ok((k, inputs, early))) = job else { return };
                    // A panic below (a bug) fails this chunk's requests and no other: the
                    // pipeline must go on, since this thread leaving would leave the
                    // chunk undecoded and the caller waiting for it.
                    let len = inputs.len();
                    let finished = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        private_all(inputs, &mut crate::rng::OsRng)
                    }))
                    .unwrap_or_else(|_| (0..len).map(|_| Err(PANICKED)).collect());
                    if to_host.send((k, finished, early)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(to_host);
        // Owned here, so that a panic on this thread drops it as it unwinds and no
        // worker stays blocked on a full channel while the scope waits for it.
        let done = done;
        // The chunks done, decoded in order (a later one may finish first).
        let (mut waiting, mut decoded) = (BTreeMap::new(), 0);
        let mut decode_next = || {
            while !waiting.contains_key(&decoded) {
                let Ok((k, finished, early)) = done.recv() else { return false };
                waiting.insert(k, (finished, early));
            }
            let Some((finished, early)) = waiting.remove(&decoded) else { return false };
            results.extend(decode_all(parts[decoded], finished, early, threads));
            decoded += 1;
            true
        };
        let mut sent = 0;
        for (k, part) in parts.iter().enumerate() {
            let (inputs, early) = encode_all(part, rng, threads);
            if to_workers.send((k, inputs, early)).is_err() {
                break;
            }
            sent += 1;
            // Beyond the chunks in flight and the one queued, the oldest is decoded
            // while the later ones run.
            if sent > BATCHES_IN_FLIGHT + 1 && !decode_next() {
                break;
            }
        }
        drop(to_workers);
        while decode_next() {}
    });
    // Only a worker that stopped midway (a panic, which the scope passes on) leaves
    // requests without a result.
    results.resize_with(requests.len(), || {
        Err(crate::Error::Internal("a batch's private operations stopped"))
    });
    results
}

/// A request's own result where it failed before RSADP (the encoding's error).
type Early = Option<Result<Vec<u8>>>;

/// The result of each request of a chunk whose private operations panicked (a bug).
const PANICKED: crate::Error = crate::Error::Internal("a batch's private operations panicked");

/// The schemes' encoding for each request (a failure is its result), then phase (a)'s
/// checks (a failure there is its RSADP result): the private operations' inputs and
/// the early results, on `threads` threads (the caller's `rng` for the encodings that
/// draw randomness, on this thread).
fn encode_all<'k>(
    requests: &[(&'k RsaPrivateKey, &PrivateRequest)],
    rng: &mut dyn RandomSource,
    threads: usize,
) -> (Ops<'k, Elem<N, Plain>>, Vec<Early>) {
    let encode = |key: &RsaPrivateKey, req: &PrivateRequest, rng: &mut dyn RandomSource| match req
        .rsadp_input(key, rng)
    {
        Err(e) => (Err(e), Some(Err(e))),
        Ok(input) => (key.rsadp_input(&input), None),
    };
    let mut encoded: Vec<Option<Encoded>> = map_chunks(requests, threads, |(key, req)| {
        (!req.encodes_with_randomness()).then(|| encode(key, req, &mut NoRandomness))
    });
    let mut inputs = Vec::with_capacity(requests.len());
    let mut early: Vec<Early> = Vec::with_capacity(requests.len());
    for ((key, req), e) in requests.iter().zip(encoded.iter_mut()) {
        let (c, done) = e.take().unwrap_or_else(|| encode(key, req, rng));
        inputs.push((*key, c));
        early.push(done);
    }
    (inputs, early)
}

/// The schemes' decoding of each request's RSADP result (or its early result), on
/// `threads` threads.
fn decode_all(
    requests: &[(&RsaPrivateKey, &PrivateRequest)],
    finished: Vec<Result<Elem<N, Plain>>>,
    early: Vec<Early>,
    threads: usize,
) -> Vec<Result<Vec<u8>>> {
    // One result a request, whatever `private_all` returned: a short answer must fail
    // the requests it left out, never shift another request's result onto them.
    let mut finished = finished;
    finished.resize_with(early.len(), || {
        Err(crate::Error::Internal("a batch's private operations lost a result"))
    });
    let finished: Vec<Encoded> = finished.into_iter().zip(early).collect();
    let jobs: Vec<_> = requests.iter().zip(finished).collect();
    map_chunks(&jobs, threads, |((key, req), (rsadp, done))| match done {
        Some(result) => result.clone(),
        None => req
            .rsadp_output(key, rsadp.as_ref().map(|m| key.public.n.to_be_bytes(m)).map_err(|e| *e)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::OsRng;
    use crate::rsa::key::test_key_2048;

    /// A GPU batch on the stand-in device (which answers each operation with its input)
    /// cut in chunks of 1,024, a pipeline of eight, returns what it returns uncut: each
    /// raw input back, in order.
    #[cfg(feature = "hazmat")]
    #[test]
    fn stand_in_batch_in_chunks_keeps_its_order() {
        let key = test_key_2048();
        let requests: Vec<PrivateRequest> = (0..8192u32)
            .map(|i| {
                let mut input = vec![0u8; key.size()];
                input[1..5].copy_from_slice(&i.to_be_bytes());
                PrivateRequest::RawPrivate { input }
            })
            .collect();
        let calls: Vec<(&RsaPrivateKey, &PrivateRequest)> =
            requests.iter().map(|r| (&key, r)).collect();
        let run = |chunk| private_batch_on_stand_in(&calls, &mut OsRng, Default::default(), chunk);
        let (cut, whole) = (run(1024), run(1 << 20));
        assert_eq!(cut.len(), requests.len());
        for (i, (req, (a, b))) in requests.iter().zip(cut.iter().zip(&whole)).enumerate() {
            let PrivateRequest::RawPrivate { input } = req else { unreachable!() };
            assert_eq!(a.as_ref().ok(), Some(input), "request {i} in chunks");
            assert_eq!(a, b, "request {i}");
        }
    }

    /// The host work split over threads (as for a GPU batch), and the batch run as a
    /// pipeline of chunks (as a large GPU batch is, here in chunks of 7 and of 1), give
    /// every request what one thread gives it, in order: PKCS#1 v1.5 signatures and
    /// every decryption byte for byte, PSS signatures (salted on the caller's thread)
    /// that verify, and each failure alone.
    #[test]
    fn host_work_on_threads_matches_one_thread() {
        let mut rng = OsRng;
        let keys = [test_key_2048(), RsaPrivateKey::generate(1024, &mut rng).unwrap()];
        let mut requests = Vec::new();
        for i in 0..60u8 {
            let key = &keys[usize::from(i % 2)];
            let public = key.public_key();
            let req = match i % 6 {
                0 => PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg: vec![i; 40] },
                1 => PrivateRequest::SignPss { params: Pss::new(HashAlg::Sha256), msg: vec![i; 9] },
                2 => PrivateRequest::DecryptPkcs1v15 {
                    ciphertext: public.encrypt_pkcs1v15(&[i; 16], &mut rng).unwrap(),
                },
                3 => PrivateRequest::DecryptOaep {
                    params: Oaep::new(HashAlg::Sha1),
                    ciphertext: public
                        .encrypt_oaep(&Oaep::new(HashAlg::Sha1), &[i; 5], &mut rng)
                        .unwrap(),
                },
                4 => PrivateRequest::DecryptOaep {
                    params: Oaep::new(HashAlg::Sha1),
                    ciphertext: vec![0xff; key.size()], // not below n: fails alone
                },
                _ => PrivateRequest::SignPkcs1v15Raw { data: vec![i; key.size()] }, // too long
            };
            requests.push((key, req));
        }
        let pairs: Vec<(&RsaPrivateKey, &PrivateRequest)> =
            requests.iter().map(|(k, r)| (*k, r)).collect();
        let run = |threads| {
            let split = (threads, usize::MAX);
            private_batch_with(&pairs, &mut OsRng, split, &super::super::private::private_all)
        };
        let one = run(1);
        assert_eq!(one.len(), pairs.len());
        let in_chunks =
            |chunk| pipelined(&pairs, &mut OsRng, 2, chunk, &super::super::private::private_all);
        for (name, many) in
            [("threads", run(3)), ("chunks of 7", in_chunks(7)), ("of 1", in_chunks(1))]
        {
            assert_eq!(many.len(), pairs.len(), "{name}");
            for (i, ((key, req), (a, b))) in pairs.iter().zip(one.iter().zip(&many)).enumerate() {
                match req {
                    PrivateRequest::SignPss { params, msg } => {
                        key.public_key().verify_pss(params, msg, b.as_ref().unwrap()).unwrap();
                        assert!(a.is_ok(), "{name}: request {i}");
                    }
                    _ => assert_eq!(a, b, "{name}: request {i}"),
                }
            }
            assert!(
                many.iter().filter(|r| r.is_err()).count() >= 20,
                "{name}: the failures stayed"
            );
        }
        // More threads than requests, and one request.
        assert_eq!(map_chunks(&[1, 2, 3], 8, |x| x * 2), vec![2, 4, 6]);
        assert_eq!(map_chunks(&[7], 4, |x| x + 1), vec![8]);
        assert_eq!(host_threads(crate::rsa::on_cores::PARALLEL_MIN - 1), 1);
    }

    /// A pipeline whose private operations panic on one chunk and come back one short on
    /// another (bugs below, as a driver's could be) finishes: the panicked chunk's
    /// requests fail, the short chunk's last request fails, and every other request gets
    /// its own signature, none shifted onto another's place. (A panic used to leave the
    /// chunk undecoded and the caller waiting forever.)
    #[test]
    fn a_chunk_that_panics_or_comes_back_short_fails_alone() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let key = test_key_2048();
        let msg = |i: usize| vec![i as u8; 3];
        let requests: Vec<PrivateRequest> = (0..48)
            .map(|i| PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg: msg(i) })
            .collect();
        let pairs: Vec<(&RsaPrivateKey, &PrivateRequest)> =
            requests.iter().map(|r| (&key, r)).collect();
        let calls = AtomicUsize::new(0);
        let flaky = |ops: Ops<'_, Elem<N, Plain>>, rng: &mut dyn RandomSource| {
            let call = calls.fetch_add(1, Ordering::SeqCst);
            assert_ne!(call, 2, "a bug in the private operations");
            let mut finished = super::super::private::private_all(ops, rng);
            if call == 5 {
                finished.pop();
            }
            finished
        };
        let results = pipelined(&pairs, &mut OsRng, 2, 4, &flaky);
        assert_eq!(results.len(), pairs.len());
        let (mut panicked, mut lost) = (0, 0);
        for (i, r) in results.iter().enumerate() {
            match r {
                Ok(sig) => key.public_key().verify_pkcs1v15(HashAlg::Sha256, &msg(i), sig).unwrap(),
                Err(PANICKED) => panicked += 1,
                Err(e) => {
                    assert_eq!(
                        *e,
                        crate::Error::Internal("a batch's private operations lost a result")
                    );
                    lost += 1;
                }
            }
        }
        assert_eq!((panicked, lost), (4, 1));
    }
}
