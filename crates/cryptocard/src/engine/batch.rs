//! Running what a worker took from the queue: one request as a single operation, several
//! as one call to [`private_batch`], which groups them into 8-lane kernel calls.
//!
//! Padding, hashing, blinding and the fault check all happen inside the RSA layer, so an
//! answer from a batch is exactly the single-operation answer for the same request.
//! A panic below (an internal error, never input) is caught here: a batch that panics is
//! rerun one request at a time, so only the request that panics fails, with
//! [`OPERATION_PANICKED`], and the worker lives on.

use std::panic::{AssertUnwindSafe, catch_unwind};

use super::queue::Job;
use super::ticket::{Answer, Reply};
use crate::Error;
use crate::rng::RandomSource;
use crate::rsa::{PrivateRequest, RsaPrivateKey, private_batch};

/// The answer to a request whose operation panicked (a bug below the engine).
pub const OPERATION_PANICKED: Error = Error::Internal("the private-key operation panicked");

/// Runs one request on the single-operation path.
pub(crate) fn run_single(
    key: &RsaPrivateKey,
    req: &PrivateRequest,
    rng: &mut dyn RandomSource,
) -> Answer {
    catch_unwind(AssertUnwindSafe(|| req.run(key, rng))).unwrap_or(Err(OPERATION_PANICKED))
}

/// Runs the requests, one answer each, in order: one request on the single-operation
/// path, several through [`private_batch`] (and one at a time should that panic).
pub(crate) fn run_requests(
    pairs: &[(&RsaPrivateKey, &PrivateRequest)],
    rng: &mut dyn RandomSource,
) -> Vec<Answer> {
    if let [(key, req)] = pairs {
        return vec![run_single(key, req, rng)];
    }
    match catch_unwind(AssertUnwindSafe(|| private_batch(pairs, rng))) {
        Ok(a) if a.len() == pairs.len() => a,
        _ => pairs.iter().map(|(k, r)| run_single(k, r, rng)).collect(),
    }
}

/// Runs the jobs (one class, at most a batch) and pairs each reply with its answer; the
/// caller sends them once it has given its permit back.
pub(crate) fn run_jobs(jobs: Vec<Job>, rng: &mut dyn RandomSource) -> Vec<(Reply, Answer)> {
    let pairs: Vec<(&RsaPrivateKey, &PrivateRequest)> =
        jobs.iter().map(|j| (&*j.key, &j.req)).collect();
    let answers = run_requests(&pairs, rng);
    drop(pairs);
    jobs.into_iter().map(|j| j.reply).zip(answers).collect()
}
