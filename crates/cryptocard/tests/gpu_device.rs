//! The GPU backend on a device (issue 19): the kernel on the GPU against the same
//! source built for the host (`crates/gpu-host`, every output word) and against the
//! scalar backend (at least 100,000 operations over keys of 1024 to 4096 bits, mixed in
//! each launch), injected faults in every phase caught, and whole requests through
//! `private_batch` with `Backend::Gpu`. Prints rates (`--nocapture`; `scripts/gpu-check`
//! runs it so). Where there is no GPU (or the `gpu` feature is off) each test prints why
//! it skips and checks instead that the backend refuses clearly and nothing else
//! changes.

mod common;
mod gpu_common;

use cryptocard::rsa::{Backend, RsaPrivateKey};

/// Why the device tests cannot run here, or `None` when they can.
fn no_gpu() -> Option<String> {
    #[cfg(feature = "gpu")]
    {
        match Backend::Gpu.is_available() {
            true => None,
            false => Some(cryptocard::rsa::gpu_status()),
        }
    }
    #[cfg(not(feature = "gpu"))]
    Some("built without the `gpu` feature".into())
}

/// Where there is no GPU: choosing it fails with Unsupported and a reason, through the
/// API and per key, and the default backend still runs and still matches scalar.
#[test]
fn without_a_gpu_the_choice_fails_clearly() {
    let Some(why) = no_gpu() else {
        println!("a GPU is present ({}): the refusal is not tested here", gpu_status_line());
        return;
    };
    println!("skipped the device tests: {why}");
    assert!(!Backend::Gpu.is_available());
    assert_eq!(Backend::parse("gpu").unwrap(), Backend::Gpu);
    let key = RsaPrivateKey::generate(1024, &mut cryptocard::rng::OsRng).unwrap();
    match key.clone().with_backend(Backend::Gpu) {
        Err(cryptocard::Error::Unsupported(msg)) => {
            assert!(msg.contains("GPU") || msg.contains("gpu"), "unclear: {msg}");
            println!("with_backend(Gpu): {msg}");
        }
        other => panic!("expected Unsupported, got {:?}", other.map(|_| ())),
    }
    assert!(matches!(
        cryptocard::rsa::set_default_backend(Backend::Gpu),
        Err(cryptocard::Error::Unsupported(_))
    ));
    let x = vec![7u8; key.size()];
    let scalar = key.clone().with_backend(Backend::Scalar).unwrap();
    let mut rng = cryptocard::rng::OsRng;
    assert_eq!(key.raw_private(&x, &mut rng).unwrap(), scalar.raw_private(&x, &mut rng).unwrap());
    #[cfg(feature = "gpu")]
    assert_eq!(cryptocard::rsa::gpu_kernels(), "", "no device, no kernels to describe");
}

fn gpu_status_line() -> String {
    #[cfg(feature = "gpu")]
    return cryptocard::rsa::gpu_status();
    #[cfg(not(feature = "gpu"))]
    String::new()
}

/// Not a check: `scripts/gpu-bundle` runs it (`--ignored`) on the development machine to
/// compile the modules that the tuning in the environment (`CRYPTOCARD_GPU_*`) loads,
/// for Hopper (or `CRYPTOCARD_GPU_PRECOMPILE_ARCH`), into `CRYPTOCARD_GPU_CACHE`, so that
/// the device check's processes load them instead of each compiling them again.
#[cfg(feature = "gpu")]
#[test]
#[ignore = "a step of scripts/gpu-bundle, which sets CRYPTOCARD_GPU_CACHE"]
fn precompile_for_the_bundle() {
    let arch = std::env::var("CRYPTOCARD_GPU_PRECOMPILE_ARCH").unwrap_or_else(|_| "sm_90".into());
    match cryptocard::rsa::gpu_precompile(&arch) {
        Ok(lines) => println!("{lines}"),
        Err(e) => panic!("precompiling for {arch}:\n{e}"),
    }
}

/// `gpu_precompile` refuses what it cannot use before compiling anything: an
/// architecture not of the form `sm_90`, and no cache to put the modules in.
#[cfg(feature = "gpu")]
#[test]
fn precompile_refuses_what_it_cannot_use() {
    for bad in ["90", "sm_", "sm_9", "compute_90", "sm_9x", ""] {
        let e = cryptocard::rsa::gpu_precompile(bad).unwrap_err();
        assert!(e.contains("not a GPU architecture"), "{bad}: {e}");
    }
    if std::env::var_os("CRYPTOCARD_GPU_CACHE").is_none() {
        let e = cryptocard::rsa::gpu_precompile("sm_90").unwrap_err();
        assert!(e.contains("CRYPTOCARD_GPU_CACHE is not set"), "{e}");
    }
}

#[cfg(feature = "gpu")]
mod device {
    use super::common::XorShift64;
    use super::gpu_common::{self, Op, TestKey, big, keys, pack, random_below, unpack};
    use super::no_gpu;
    use cryptocard::hazmat::gpu as layout;
    use cryptocard::rng::OsRng;
    use cryptocard::rsa::{Backend, PrivateRequest, private_batch};
    use num_bigint::BigUint;
    use std::time::Instant;

    /// Operations for the bulk runs: `CRYPTOCARD_GPU_OPS`, at least 100,000 by default.
    fn bulk_ops() -> usize {
        std::env::var("CRYPTOCARD_GPU_OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000)
    }

    /// `count` operations over every key (RSA-2048 most, as a server would), each with
    /// one of 16 pairs per key made here, c random below n.
    fn bulk(keys: &[TestKey], count: usize, seed: u64) -> Vec<Op> {
        let mut rng = XorShift64(seed);
        let pairs: Vec<Vec<(BigUint, BigUint)>> = keys
            .iter()
            .map(|k| {
                (0..16)
                    .map(|_| gpu_common::pair(k, &(random_below(&mut rng, &k.n) + 2u32)))
                    .collect()
            })
            .collect();
        let pattern = [1, 1, 0, 4, 2, 1, 5, 3]; // key indices: 2048 x 3, 1024, e3, 3072, e64, 4096
        (0..count)
            .map(|i| {
                let key = pattern[i % pattern.len()];
                let (a_m, ai_m) = pairs[key][rng.below(16)].clone();
                Op { key, c: random_below(&mut rng, &keys[key].n), a_m, ai_m }
            })
            .collect()
    }

    /// The scalar backend's m for every operation, on every core.
    fn scalar_all(keys: &[TestKey], ops: &[Op]) -> Vec<BigUint> {
        let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
        let chunk = ops.len().div_ceil(threads).max(1);
        std::thread::scope(|s| {
            let handles: Vec<_> = ops
                .chunks(chunk)
                .map(|part| {
                    s.spawn(move || {
                        part.iter()
                            .map(|op| gpu_common::scalar_private(&keys[op.key], &op.c))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
        })
    }

    fn run_device(images: &[Vec<u32>], b: &gpu_common::Batch) -> (Vec<u32>, Vec<u32>) {
        let refs: Vec<&[u32]> = images.iter().map(|i| i.as_slice()).collect();
        layout::device_run(&refs, &b.op_key, &b.input, b.words)
            .unwrap_or_else(|e| panic!("device run: {e:?}; {}", cryptocard::rsa::gpu_status()))
    }

    #[test]
    fn device_matches_host_build_and_scalar() {
        if let Some(why) = no_gpu() {
            println!("skipped: {why}");
            return;
        }
        println!("device: {}", cryptocard::rsa::gpu_status());
        let keys = keys();
        let images = gpu_common::images(keys, None);
        let ops = bulk(keys, bulk_ops(), 0x1111_2222_3333_4444);
        let b = pack(keys, &ops);
        let t = Instant::now();
        let (out, status) = run_device(&images, &b);
        let secs = t.elapsed().as_secs_f64();
        for line in cryptocard::rsa::gpu_kernels().lines() {
            println!("speed: kernels {line}");
        }
        println!(
            "device: {} mixed operations (1024-4096 bits) in {secs:.3} s with transfers: {:.0} ops/s",
            ops.len(),
            ops.len() as f64 / secs
        );
        // Every word of the first 1,000 against the host build of the same source.
        let head = 1000.min(ops.len());
        let hb = pack(keys, &ops[..head]);
        let refs: Vec<&[u32]> = images.iter().map(|i| i.as_slice()).collect();
        let host = cryptocard_gpu_host::rsa_private(
            &refs,
            &hb.op_key,
            &hb.input,
            hb.words,
            layout::WINDOW,
        );
        for (i, (got, want)) in status.iter().zip(&host.status).enumerate() {
            assert_eq!(got, want, "op {i}: status, device vs host build");
            for k in 0..layout::OUT_PLANES {
                assert_eq!(
                    unpack(&out, b.words, b.count, k, i),
                    unpack(&host.out, hb.words, hb.count, k, i),
                    "op {i} plane {k}: device vs host build"
                );
            }
        }
        // Every result against the scalar backend.
        let want = scalar_all(keys, &ops);
        let mut mismatches = 0usize;
        for (i, w) in want.iter().enumerate() {
            if status[i] != layout::STATUS_OK || big(&unpack(&out, b.words, b.count, 0, i)) != *w {
                mismatches += 1;
            }
        }
        println!("device vs scalar: {} operations, {mismatches} mismatches", ops.len());
        assert_eq!(mismatches, 0);
        // The successor pairs of a sample.
        gpu_common::check_outputs(
            keys,
            &ops[..200.min(ops.len())],
            &b_head(&b, 200),
            &slice_out(&out, &b, 200),
            &status[..200.min(ops.len())],
        );
    }

    /// The batch of the first `n` operations of `b` (to read a prefix of its outputs).
    fn b_head(b: &gpu_common::Batch, n: usize) -> gpu_common::Batch {
        let n = n.min(b.count);
        let mut input = vec![0u32; 3 * b.words * n];
        for k in 0..3 {
            for j in 0..b.words {
                for i in 0..n {
                    input[(k * b.words + j) * n + i] = b.input[(k * b.words + j) * b.count + i];
                }
            }
        }
        gpu_common::Batch { op_key: b.op_key[..n].to_vec(), input, words: b.words, count: n }
    }

    fn slice_out(out: &[u32], b: &gpu_common::Batch, n: usize) -> Vec<u32> {
        let n = n.min(b.count);
        let mut v = vec![0u32; 3 * b.words * n];
        for k in 0..3 {
            for j in 0..b.words {
                for i in 0..n {
                    v[(k * b.words + j) * n + i] = out[(k * b.words + j) * b.count + i];
                }
            }
        }
        v
    }

    #[test]
    fn device_catches_injected_faults() {
        if let Some(why) = no_gpu() {
            println!("skipped: {why}");
            return;
        }
        let keys = keys();
        let ops = bulk(keys, 4096, 0x5555_6666_7777_8888);
        let b = pack(keys, &ops);
        let faulty = 1; // RSA-2048, beside the others in each launch
        let mut caught = 0usize;
        for phase in
            [layout::FAULT_MP, layout::FAULT_MQ, layout::FAULT_GARNER, layout::FAULT_UNBLIND]
        {
            for bit in [0u32, 77, 1023] {
                let images = gpu_common::images(keys, Some((faulty, phase, bit)));
                let (out, status) = run_device(&images, &b);
                for (i, op) in ops.iter().enumerate() {
                    if op.key == faulty {
                        assert_eq!(
                            status[i],
                            layout::STATUS_FAULT,
                            "phase {phase} bit {bit} op {i}: not caught"
                        );
                        assert!(unpack(&out, b.words, b.count, 0, i).iter().all(|&w| w == 0));
                        caught += 1;
                    } else {
                        assert_eq!(
                            status[i],
                            layout::STATUS_OK,
                            "phase {phase}: op {i} of a healthy key"
                        );
                    }
                }
            }
        }
        // A corrupted dP word.
        let mut images = gpu_common::images(keys, None);
        let l = keys[faulty].nl / 2;
        images[faulty][layout::KEY_HDR + 2 * l + 5] ^= 0x10;
        let (_, status) = run_device(&images, &b);
        for (i, op) in ops.iter().enumerate() {
            let want = if op.key == faulty { layout::STATUS_FAULT } else { layout::STATUS_OK };
            assert_eq!(status[i], want, "corrupted dP, op {i}");
            caught += usize::from(op.key == faulty);
        }
        println!("device: {caught} injected faults, all caught");
    }

    #[test]
    fn private_batch_on_the_gpu_matches_scalar_and_rates() {
        if let Some(why) = no_gpu() {
            println!("skipped: {why}");
            return;
        }
        let keys = keys();
        let mut rng = OsRng;
        for k in [&keys[1], &keys[2], &keys[3]] {
            let gpu = k.key.clone().with_backend(Backend::Gpu).unwrap();
            assert_eq!(gpu.backend_name().unwrap(), "gpu");
            let reqs: Vec<PrivateRequest> = (0..64)
                .map(|i| PrivateRequest::SignPkcs1v15 {
                    hash: cryptocard::digest::HashAlg::Sha256,
                    msg: format!("message {i}").into_bytes(),
                })
                .collect();
            let on_gpu: Vec<_> = reqs.iter().map(|r| (&gpu, r)).collect();
            let on_cpu: Vec<_> = reqs.iter().map(|r| (&k.key, r)).collect();
            let (a, b) = (private_batch(&on_gpu, &mut rng), private_batch(&on_cpu, &mut rng));
            for (i, (a, b)) in a.iter().zip(&b).enumerate() {
                assert_eq!(a.as_ref().unwrap(), b.as_ref().unwrap(), "{} request {i}", k.name);
            }
            // End to end (hashing, padding, blinding, the device, the check), one thread.
            for batch in [1024usize, 8192, 65536] {
                let reqs: Vec<PrivateRequest> = (0..batch)
                    .map(|i| PrivateRequest::SignPkcs1v15 {
                        hash: cryptocard::digest::HashAlg::Sha256,
                        msg: i.to_le_bytes().to_vec(),
                    })
                    .collect();
                let jobs: Vec<_> = reqs.iter().map(|r| (&gpu, r)).collect();
                let t = Instant::now();
                let out = private_batch(&jobs, &mut rng);
                let secs = t.elapsed().as_secs_f64();
                assert!(out.iter().all(|r| r.is_ok()));
                println!(
                    "speed: {} sign, private_batch of {batch} on the GPU, one host thread: {:.0} ops/s ({:.1} ms a batch)",
                    k.name,
                    batch as f64 / secs,
                    secs * 1e3
                );
            }
        }
    }

    /// Batches from two threads at once, each on a key of its own size (RSA-2048 and
    /// 3072), for several rounds: with `CRYPTOCARD_GPU_STREAMS=2` (gpu-check's
    /// `gpu_device_streams` step) they run on the two lanes at once, with the default
    /// one waits for the other; every signature must be the CPU's, and the device's
    /// counters must have seen every operation.
    #[test]
    fn batches_from_two_threads_at_once_match_the_cpu() {
        if let Some(why) = no_gpu() {
            println!("skipped: {why}");
            return;
        }
        let keys = keys();
        let (per_batch, rounds, distinct) = (8192usize, 4, 64);
        let before = cryptocard::rsa::gpu_counters();
        let t = Instant::now();
        std::thread::scope(|s| {
            for k in [&keys[1], &keys[2]] {
                s.spawn(move || {
                    let gpu = k.key.clone().with_backend(Backend::Gpu).unwrap();
                    let sign = |i: usize| PrivateRequest::SignPkcs1v15 {
                        hash: cryptocard::digest::HashAlg::Sha256,
                        msg: format!("{} message {}", k.name, i % distinct).into_bytes(),
                    };
                    let expected: Vec<Vec<u8>> =
                        (0..distinct).map(|i| sign(i).run(&k.key, &mut OsRng).unwrap()).collect();
                    let reqs: Vec<PrivateRequest> = (0..per_batch).map(sign).collect();
                    let jobs: Vec<_> = reqs.iter().map(|r| (&gpu, r)).collect();
                    for round in 0..rounds {
                        let out = private_batch(&jobs, &mut OsRng);
                        for (i, r) in out.iter().enumerate() {
                            let sig = r.as_ref().unwrap_or_else(|e| {
                                panic!("{} round {round} request {i}: {e}", k.name)
                            });
                            assert_eq!(
                                sig,
                                &expected[i % distinct],
                                "{} round {round} request {i}",
                                k.name
                            );
                        }
                    }
                });
            }
        });
        let after = cryptocard::rsa::gpu_counters();
        let ops = 2 * rounds * per_batch;
        assert!(after.operations - before.operations >= ops as u64, "{before:?} -> {after:?}");
        println!(
            "speed: two threads' batches of {per_batch} (RSA-2048 and 3072) at once, {rounds} rounds: \
             {:.0} ops/s end to end, kernel time {:.2} s of {:.2} s ({})",
            ops as f64 / t.elapsed().as_secs_f64(),
            after.kernel_seconds - before.kernel_seconds,
            t.elapsed().as_secs_f64(),
            cryptocard::rsa::gpu_status()
        );
    }

    /// One line per key size for the device check's sweep of the kernel's choices
    /// (`CRYPTOCARD_GPU_*`, `rsa/accel/gpu/tuning.rs`; `scripts/gpu-check --sweep` runs
    /// this test once per choice): batches of `CRYPTOCARD_GPU_SWEEP_BATCH` (65,536 by
    /// default) one key, the kernel's own seconds from the device's counters beside the
    /// rate with transfers. Every status must be OK: the fault check m^e = c passed, so
    /// every result is right.
    #[test]
    fn device_rate_of_this_tuning() {
        if let Some(why) = no_gpu() {
            println!("skipped: {why}");
            return;
        }
        let batch: usize = std::env::var("CRYPTOCARD_GPU_SWEEP_BATCH")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(65536);
        let keys = keys();
        let images = gpu_common::images(keys, None);
        for (ki, name) in [(0usize, "RSA-1024"), (1, "RSA-2048"), (2, "RSA-3072"), (3, "RSA-4096")]
        {
            let mut rng = XorShift64(0x5eed_0000_0000_0001 + ki as u64);
            let cs: Vec<BigUint> = (0..64).map(|_| random_below(&mut rng, &keys[ki].n)).collect();
            let (a_m, ai_m) = gpu_common::pair(&keys[ki], &BigUint::from(54321u32));
            let n = if ki >= 2 { batch / 4 } else { batch }.max(1);
            let ops: Vec<Op> = (0..n)
                .map(|i| Op {
                    key: ki,
                    c: cs[i % 64].clone(),
                    a_m: a_m.clone(),
                    ai_m: ai_m.clone(),
                })
                .collect();
            let b = pack(keys, &ops);
            let _warm = run_device(&images, &b); // compiles this size's module
            let before = cryptocard::rsa::gpu_counters();
            let t = Instant::now();
            for _ in 0..2 {
                let (_, status) = run_device(&images, &b);
                assert!(
                    status.iter().all(|&s| s == layout::STATUS_OK),
                    "{name}: a failed operation"
                );
            }
            let secs = t.elapsed().as_secs_f64();
            let after = cryptocard::rsa::gpu_counters();
            let kernel = after.kernel_seconds - before.kernel_seconds;
            println!(
                "speed: tuning [{}] {name} batch {n}: kernel {:.0} ops/s, with transfers {:.0} ops/s",
                cryptocard::rsa::gpu_status(),
                (2 * n) as f64 / kernel,
                (2 * n) as f64 / secs
            );
        }
        // What the driver's compiler made of this tuning: registers, local memory and
        // blocks an SM, per module and entry point.
        for line in cryptocard::rsa::gpu_kernels().lines() {
            println!("speed: kernels {line}");
        }
    }

    #[test]
    fn device_rates_by_batch_size() {
        if let Some(why) = no_gpu() {
            println!("skipped: {why}");
            return;
        }
        let keys = keys();
        let images = gpu_common::images(keys, None);
        for (ki, name) in [(1usize, "RSA-2048"), (2, "RSA-3072"), (3, "RSA-4096")] {
            let mut rng = XorShift64(0x4242_4242_0000_0001 + ki as u64);
            let cs: Vec<BigUint> = (0..64).map(|_| random_below(&mut rng, &keys[ki].n)).collect();
            let (a_m, ai_m) = gpu_common::pair(&keys[ki], &BigUint::from(12345u32));
            // RSA-4096 up to 65,536: its larger batches would take most of the check's time.
            let sizes: &[usize] =
                if ki == 3 { &[1024, 8192, 65536] } else { &[1024, 8192, 65536, 262144] };
            for &batch in sizes {
                let ops: Vec<Op> = (0..batch)
                    .map(|i| Op {
                        key: ki,
                        c: cs[i % cs.len()].clone(),
                        a_m: a_m.clone(),
                        ai_m: ai_m.clone(),
                    })
                    .collect();
                let b = pack(keys, &ops);
                let _warm = run_device(&images, &b);
                let mut times = Vec::new();
                for _ in 0..3 {
                    let t = Instant::now();
                    let (_, status) = run_device(&images, &b);
                    times.push(t.elapsed().as_secs_f64());
                    assert!(status.iter().all(|&s| s == layout::STATUS_OK));
                }
                times.sort_by(|a, b| a.partial_cmp(b).unwrap());
                println!(
                    "speed: {name} device batch of {batch} (upload, kernel, download): {:.0} ops/s, median {:.2} ms",
                    batch as f64 / times[1],
                    times[1] * 1e3
                );
            }
        }
    }
}
