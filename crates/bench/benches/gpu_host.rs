//! The host's side of a GPU batch, on any machine: `private_batch` as it runs a batch on
//! the GPU, with a stand-in device (`hazmat::gpu::private_batch_stand_in`) that answers
//! at once, so that the time is the host's alone: hashing and padding, the blinding
//! pairs taken and put back, the planes packed and unpacked, the signatures' bytes. Its
//! rate is the ceiling the host sets for a device's end-to-end rate on this machine's
//! cores (issue 19's target is a million RSA-2048 signatures a second). With
//! `GPU_HOST_DEVICE_NS`, the stand-in takes that many nanoseconds an operation, as a
//! device of that rate would: how much of the host's work overlaps the device's (a
//! batch of two chunks or more runs as a pipeline, `rsa/batch.rs`). `GPU_HOST_CHUNKS`
//! lists the chunk sizes to try (`CRYPTOCARD_GPU_CHUNK` on a device; 32,768 by default).
//!
//! ```text
//! cargo bench -p cryptocard-bench --bench gpu_host     # RSA-2048, 8,192 to 262,144
//! GPU_HOST_BITS=4096 GPU_HOST_BATCHES=262144 GPU_HOST_REPS=20 cargo bench -p cryptocard-bench --bench gpu_host
//! GPU_HOST_DEVICE_NS=1000 cargo bench -p cryptocard-bench --bench gpu_host   # a 1M/s device
//! GPU_HOST_DEVICE_NS=1000 GPU_HOST_CHUNKS=16384,65536 cargo bench -p cryptocard-bench --bench gpu_host
//! ```

use cryptocard::digest::HashAlg;
use cryptocard::hazmat::gpu::{CHUNK, private_batch_stand_in};
use cryptocard::rng::OsRng;
use cryptocard::rsa::{PrivateRequest, RsaPrivateKey};
use std::time::Instant;

fn main() {
    cryptocard_bench::run_selected(&[("batches", batches)]);
}

/// A comma-separated list of numbers from the environment, or `default`.
fn env_list(name: &str, default: &[usize]) -> Vec<usize> {
    std::env::var(name)
        .map_or(default.to_vec(), |v| v.split(',').filter_map(|w| w.trim().parse().ok()).collect())
}

fn batches() {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let device_ns = env_list("GPU_HOST_DEVICE_NS", &[0])[0];
    let per_op = std::time::Duration::from_nanos(device_ns as u64);
    for bits in env_list("GPU_HOST_BITS", &[2048]) {
        let key = RsaPrivateKey::generate(bits, &mut OsRng).expect("a key");
        for (batch, chunk) in env_list("GPU_HOST_BATCHES", &[8192, 65536, 262144])
            .into_iter()
            .flat_map(|b| env_list("GPU_HOST_CHUNKS", &[CHUNK]).into_iter().map(move |c| (b, c)))
        {
            let requests: Vec<PrivateRequest> = (0..batch)
                .map(|i| PrivateRequest::SignPkcs1v15 {
                    hash: HashAlg::Sha256,
                    msg: format!("message {}", i % 64).into_bytes(),
                })
                .collect();
            let calls: Vec<(&RsaPrivateKey, &PrivateRequest)> =
                requests.iter().map(|r| (&key, r)).collect();
            // The first batch makes the pool's pairs; the others take their successors,
            // as a steady stream of batches does.
            let run = || {
                let t = Instant::now();
                let results = private_batch_stand_in(&calls, &mut OsRng, per_op, chunk);
                assert!(results.iter().all(Result::is_ok), "a request failed");
                t.elapsed().as_secs_f64()
            };
            let first = run();
            let reps = env_list("GPU_HOST_REPS", &[5])[0].max(3);
            let mut times: Vec<f64> = (0..reps).map(|_| run()).collect();
            times.sort_by(f64::total_cmp);
            println!(
                "RSA-{bits} batch {batch:>7}, chunk {chunk:>7}, device {device_ns} ns/op: \
                 {:>9.0} ops/s on \
                 {cores} cores (best {:.1} ms, median {:.1} ms a batch; first {:.1} ms)",
                batch as f64 / times[0],
                times[0] * 1e3,
                times[reps / 2] * 1e3,
                first * 1e3
            );
        }
    }
}
