//! The CUDA driver calls: finding the device, compiling the kernel with NVRTC (once per
//! process and module, or once per machine with the module cache), resident key images,
//! and one batch launch. Through `cudarc` with dynamic loading, so nothing of CUDA is
//! needed to build, and `libcuda.so.1` and `libnvrtc.so.13` are looked for only when the
//! backend is first asked for.
//!
//! `cudarc` panics when a library it needs is missing, so [`device`] first asks
//! whether each is present (`is_culib_present`) and runs the rest inside
//! `catch_unwind` as a second line of defence: a machine without a GPU gets
//! [`Error::Unsupported`] and the reason ([`status`]), never a panic.
//!
//! The modules follow [`Tuning`] (`tuning.rs`): the one for every size is compiled at
//! setup, so that a kernel NVRTC refuses shows there; with sized modules on, every
//! prime length's module is compiled and loaded at setup too, each on a thread of its
//! own, and the first batch of a size waits for its thread. NVRTC compiles each down to
//! the device's machine code (a cubin, so the driver has nothing left to compile at the
//! load), which takes up to half a minute of a core for the unrolled modules
//! (RSA-4096's the longest). With `CRYPTOCARD_GPU_CACHE` the cubins are kept on disk
//! and later processes load them (`module_cache.rs`);
//! [`precompile`](super::nvrtc::precompile) fills the cache without a device. A batch
//! mixing sizes runs one launch per size (`layout::by_size`). A sized module that fails to compile
//! leaves its size to the module for every size, with the error in [`status`].
//!
//! Key images are uploaded once per key and zeroed on the device when the key's last
//! clone is dropped ([`DeviceKey`]). A batch runs on a lane (`lane.rs`: a stream and
//! its kept device memory, zeroed after each batch; one lane, or two with
//! `CRYPTOCARD_GPU_STREAMS=2`); its planes on the host are page-locked (`staging.rs`,
//! unless `CRYPTOCARD_GPU_PINNED=0`), so that the copies run at the bus's speed without
//! the driver's bounce buffers, and are kept too, wiped, for the next batch.
//! [`counters`] keeps the launches, the
//! operations and the seconds in the kernel, for `speed`'s kernel-only rates.

#![allow(unsafe_code)]

use super::lane::{KernelClock, Lane, Scratch, room};
use super::layout::{self, IN_PLANES, OUT_PLANES, PlaneBuf, Planes};
use super::module_cache::ModuleCache;
use super::nvrtc::{module_name, nvrtc_compile, nvrtc_present};
use super::source::{KERNEL_NAME, KERNEL_SOURCE, SPLIT_NAMES};
use super::staging::Staging;
use super::tuning::Tuning;
use crate::{Error, Result};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DevicePtrMut,
    DriverError, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// The device, its compiled kernels, and what the speed report names.
pub(crate) struct Device {
    ctx: Arc<CudaContext>,
    /// The stream keys are uploaded and wiped on (the context's default stream).
    stream: Arc<CudaStream>,
    /// `sm_90`.
    arch: String,
    tuning: Tuning,
    /// Where compiled modules are kept between processes (`CRYPTOCARD_GPU_CACHE`).
    cache: Option<ModuleCache>,
    /// The module for every size.
    every: Kernels,
    /// The sized modules by prime length: compiling (from setup on) or loaded. The lock
    /// is held to find or add one, never while one builds.
    sized: Mutex<Vec<(usize, Arc<SizedModule>)>>,
    /// Where batches run: one launch at a time on each, with the device memory it
    /// reuses (the tuning's `streams`: one lane on the default stream, or two on
    /// streams of their own, so that one batch's copies overlap another's kernel).
    lanes: Vec<Lane>,
    /// The lane the next batch waits for when every lane is busy.
    next_lane: std::sync::atomic::AtomicUsize,
    /// The launches, operations and busy seconds; the kernel seconds are the clock's
    /// ([`counters`] puts them together).
    counters: Mutex<GpuCounters>,
    /// The kernels' time, counted once where two lanes' kernels run at once.
    clock: Mutex<KernelClock>,
    /// "NVIDIA H100 80GB HBM3, 132 SMs at 1980 MHz, sm_90; PTX carry chains, ...".
    pub(crate) description: String,
}

impl core::fmt::Debug for Device {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.description)
    }
}

/// A sized module: the thread that compiles and loads it, taken and waited for by the
/// first batch of its size (or none, where no thread could be started at setup: that
/// batch builds it), and what it made (`None`: it failed to compile or load, and its
/// size runs in the module for every size). Only batches of its own size wait for it.
#[derive(Default)]
struct SizedModule {
    thread: Mutex<Option<std::thread::JoinHandle<core::result::Result<Kernels, String>>>>,
    loaded: OnceLock<Option<Kernels>>,
}

/// A module's entry points: the operation whole, and the split form's three passes;
/// which of the two its batches run (the tuning's choice for its size); and what the
/// driver says of them (registers, local memory, blocks an SM).
#[derive(Clone)]
struct Kernels {
    whole: CudaFunction,
    split: [CudaFunction; 3],
    run_split: bool,
    report: String,
}

/// What the device has done since the process started: for rates of the kernel alone
/// beside those of whole requests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuCounters {
    /// Kernel launches.
    pub launches: u64,
    /// Operations in them.
    pub operations: u64,
    /// Seconds from each launch to the kernel's end (the device synchronised before
    /// and after), summed; where two lanes' kernels ran at once, that time counts once
    /// (a batch that failed midway counts its kernels' time too).
    pub kernel_seconds: f64,
    /// Seconds in the driver's batch call, transfers and waiting included, summed.
    pub busy_seconds: f64,
}

/// The outcome of the first use, kept for the process: the device, or why there is none.
/// The reason is made once per process and kept for its life (leaked), so that every
/// failed call can say it in an [`Error::Unsupported`].
static DEVICE: OnceLock<core::result::Result<Device, &'static str>> = OnceLock::new();

/// The device, set up on first use; [`Error::Unsupported`] with the reason when there is
/// none ("GPU backend: no CUDA driver (libcuda.so.1 not found)", ...).
pub(crate) fn device() -> Result<&'static Device> {
    DEVICE.get_or_init(init).as_ref().map_err(|why| Error::Unsupported(why))
}

/// The last CUDA error of a call that failed after setup, for [`status`].
static LAST_ERROR: Mutex<Option<String>> = Mutex::new(None);

/// One line on the GPU: its name, SMs and clock and the kernel's choices, or why the
/// backend cannot run; and the last CUDA error, if a call failed since.
pub fn status() -> String {
    let line = match DEVICE.get_or_init(init) {
        Ok(d) => d.description.clone(),
        Err(why) => why.to_string(),
    };
    match LAST_ERROR.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
        Some(e) => format!("{line}; last CUDA error: {e}"),
        None => line,
    }
}

/// The device's counters (zeros where there is no device or it was never used).
pub fn counters() -> GpuCounters {
    match DEVICE.get() {
        Some(Ok(d)) => GpuCounters {
            kernel_seconds: d.clock.lock().unwrap_or_else(|p| p.into_inner()).seconds,
            ..*d.counters.lock().unwrap_or_else(|p| p.into_inner())
        },
        _ => GpuCounters::default(),
    }
}

/// What the driver says of each module loaded so far (the one for every size, then the
/// sized ones in the order they were started): each entry point's registers per thread,
/// local memory per thread and the blocks an SM holds at the tuning's block size, and
/// whether the module came from the cache or NVRTC (and in how long), one module a
/// line. Empty where there is no device. The device check prints it beside the rates:
/// the occupancy is the driver's figure, which the kernel lint cannot give.
pub fn kernels() -> String {
    let Some(Ok(d)) = DEVICE.get() else { return String::new() };
    let sized = d.sized.lock().unwrap_or_else(|p| p.into_inner());
    core::iter::once(&d.every.report)
        .cloned()
        .chain(sized.iter().filter_map(|(_, m)| Some(m.loaded.get()?.as_ref()?.report.clone())))
        .collect::<Vec<_>>()
        .join("\n")
}

fn init() -> core::result::Result<Device, &'static str> {
    setup().map_err(|why| &*Box::leak(format!("GPU backend: {why}").into_boxed_str()))
}

fn setup() -> core::result::Result<Device, String> {
    let tuning = Tuning::from_env()?;
    // SAFETY: loads the CUDA driver library by its usual names (libloading), which runs
    // its initialisers; nothing of it is called yet.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver (libcuda.so.1 not found)".into());
    }
    if !nvrtc_present() {
        return Err("no NVRTC (libnvrtc.so.13 not found), which compiles the kernel".into());
    }
    match std::panic::catch_unwind(|| init_device(tuning)) {
        Ok(r) => r,
        Err(_) => Err("the CUDA libraries failed while setting up (a panic in cudarc)".into()),
    }
}

/// Loads the module for `options` on the device: from `cache` where it holds one the
/// driver accepts, else compiled by NVRTC (and stored there). Also says where the module
/// came from ("from the cache", "compiled in 4.2 s, stored").
fn load(
    ctx: &Arc<CudaContext>,
    options: &[String],
    cache: Option<&ModuleCache>,
    which: &str,
) -> core::result::Result<(Arc<CudaModule>, String), String> {
    // The source hashed only where there is a cache to look in.
    let cached = cache.map(|c| (c, ModuleCache::key(KERNEL_SOURCE, options)));
    let mut refused = String::new();
    if let Some(cubin) = cached.as_ref().and_then(|(c, key)| c.get(key)) {
        match ctx.load_module(Ptx::from_binary(cubin)) {
            Ok(module) => return Ok((module, "from the cache".into())),
            Err(e) => refused = format!("; the driver refused the cached one: {e:?}"),
        }
    }
    let t = Instant::now();
    let compiled = nvrtc_compile(options)
        .map_err(|e| format!("NVRTC could not compile the kernel {which}: {e}"))?;
    let secs = t.elapsed().as_secs_f64();
    let stored = match cached.map(|(c, key)| c.put(&key, &compiled.cubin)) {
        Some(Ok(())) => ", stored".to_string(),
        Some(Err(e)) => format!(", not stored: {e}"),
        None => String::new(),
    };
    let module = ctx
        .load_module(Ptx::from_binary(compiled.cubin))
        .map_err(|e| format!("loading the kernel {which}: {e:?}"))?;
    Ok((module, format!("compiled in {secs:.1} s{stored}{refused}")))
}

/// "cc_rsa_exp 156 registers, 4480 bytes local, 3 blocks an SM" for `f` launched in
/// blocks of `block` threads, as the driver loaded it ("?" for what it would not say).
fn describe_kernel(name: &str, f: &CudaFunction, block: u32) -> String {
    let or_unknown = |r: core::result::Result<i32, _>| r.map_or("?".to_string(), |v| v.to_string());
    let blocks = f.occupancy_max_active_blocks_per_multiprocessor(block, 0, None);
    format!(
        "{name} {} registers, {} bytes local, {} blocks an SM",
        or_unknown(f.num_regs()),
        or_unknown(f.local_size_bytes()),
        blocks.map_or("?".to_string(), |b| b.to_string())
    )
}

/// Loads the module for `prime_words` (`None`: every size) on the device, from the cache
/// or compiled, and finds its entry points.
fn build(
    ctx: &Arc<CudaContext>,
    arch: &str,
    tuning: &Tuning,
    cache: Option<&ModuleCache>,
    prime_words: Option<usize>,
) -> core::result::Result<Kernels, String> {
    let (which, block) = (module_name(prime_words), tuning.block);
    let (module, origin) = load(ctx, &tuning.nvrtc_options(arch, prime_words), cache, &which)?;
    let entry =
        |name: &str| module.load_function(name).map_err(|e| format!("{name} {which}: {e:?}"));
    let whole = entry(KERNEL_NAME)?;
    let split = [entry(SPLIT_NAMES[0])?, entry(SPLIT_NAMES[1])?, entry(SPLIT_NAMES[2])?];
    // A block larger than an entry point can run (its registers times the block's
    // threads beyond an SM's) would fail every launch: refuse the tuning here, by name.
    for (name, f) in
        core::iter::once((KERNEL_NAME, &whole)).chain(SPLIT_NAMES.iter().copied().zip(&split))
    {
        match f.max_threads_per_block() {
            Ok(most) if block > most.max(0) as u32 => {
                return Err(format!(
                    "CRYPTOCARD_GPU_BLOCK={block} is more than {name} {which} can run in a block ({most} threads)"
                ));
            }
            _ => {}
        }
    }
    let described: Vec<String> = core::iter::once((KERNEL_NAME, &whole))
        .chain(SPLIT_NAMES.iter().copied().zip(&split))
        .map(|(name, f)| describe_kernel(name, f, block))
        .collect();
    let report = format!("module {which} ({origin}): {}", described.join("; "));
    Ok(Kernels { whole, split, run_split: tuning.split_for(prime_words), report })
}

fn init_device(tuning: Tuning) -> core::result::Result<Device, String> {
    use cudarc::driver::sys::CUdevice_attribute as A;
    let count = CudaContext::device_count().map_err(|e| format!("CUDA driver: {e:?}"))?;
    if count < 1 {
        return Err("no CUDA device".into());
    }
    let ctx = CudaContext::new(0).map_err(|e| format!("CUDA context: {e:?}"))?;
    let (major, minor) = ctx.compute_capability().map_err(|e| format!("{e:?}"))?;
    let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
    let sms = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).unwrap_or(0);
    let clock = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE).unwrap_or(0);
    let arch = format!("sm_{major}{minor}");
    let tuning = tuning.for_arch(&arch);
    let (cache, cache_refused) = match ModuleCache::from_env() {
        Some(Ok(c)) => (Some(c), None),
        Some(Err(why)) => (None, Some(why)),
        None => (None, None),
    };
    // The sized modules start first, each compiled and loaded on its own thread, then
    // the one for every size here.
    let compiling = super::tuning::SIZED_PRIME_WORDS
        .iter()
        .filter(|&&l| tuning.module_for(l).is_some())
        .filter_map(|&l| {
            let (ctx, arch, tuning) = (ctx.clone(), arch.clone(), tuning.clone());
            let cache = cache.clone();
            std::thread::Builder::new()
                .name(format!("cryptocard-nvrtc-{l}"))
                .spawn(move || build(&ctx, &arch, &tuning, cache.as_ref(), Some(l)))
                .ok()
                .map(|h| {
                    let module = SizedModule { thread: Mutex::new(Some(h)), ..Default::default() };
                    (l, Arc::new(module))
                })
        })
        .collect();
    let every = build(&ctx, &arch, &tuning, cache.as_ref(), None)?;
    let stream = ctx.default_stream();
    // A second lane needs streams of their own: the default stream runs one thing at a
    // time. (cudarc then orders each buffer's uses across streams by its events.)
    let lanes = match tuning.streams {
        1 => vec![Lane::new(stream.clone())],
        n => (0..n)
            .map(|_| ctx.new_stream().map(Lane::new))
            .collect::<core::result::Result<_, _>>()
            .map_err(|e| format!("CUDA stream: {e:?}"))?,
    };
    let cached = match (&cache, cache_refused) {
        (Some(_), _) => "; modules kept in CRYPTOCARD_GPU_CACHE".to_string(),
        (None, Some(why)) => format!("; no module cache ({why})"),
        (None, None) => String::new(),
    };
    let description =
        format!("{name}, {sms} SMs at {} MHz, {arch}; {}{cached}", clock / 1000, tuning.describe());
    Ok(Device {
        ctx,
        stream,
        arch,
        tuning,
        cache,
        every,
        sized: Mutex::new(compiling),
        lanes,
        next_lane: Default::default(),
        counters: Mutex::new(GpuCounters::default()),
        clock: Mutex::new(KernelClock::default()),
        description,
    })
}

/// A key image resident on the device, zeroed there when dropped.
pub(crate) struct DeviceKey {
    buf: CudaSlice<u32>,
    stream: Arc<CudaStream>,
    /// The image's n in 32-bit limbs (2L).
    pub(crate) n_words: usize,
}

impl core::fmt::Debug for DeviceKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DeviceKey({} words of n)", self.n_words)
    }
}

impl Drop for DeviceKey {
    fn drop(&mut self) {
        // Best effort: a device that fails here has lost the context, and its memory
        // with it.
        let _ = self.stream.memset_zeros(&mut self.buf);
        let _ = self.stream.synchronize();
    }
}

impl Device {
    /// The requests of a large batch handed to the device at a time (the tuning's).
    pub(crate) fn chunk(&self) -> usize {
        self.tuning.chunk
    }

    /// Uploads a key image ([`super::layout::key_image`]).
    pub(crate) fn upload(&self, image: &[u32]) -> Result<DeviceKey> {
        let buf = self.stream.clone_htod(image).map_err(gpu_failed)?;
        Ok(DeviceKey { buf, stream: self.stream.clone(), n_words: image[2] as usize })
    }

    /// The kernel for keys whose primes have `prime_words` limbs: their own module
    /// (waited for if this is the first batch of that size, or compiled and loaded now
    /// where no thread could be started at setup) or the one for every size.
    fn kernels(&self, prime_words: usize) -> Kernels {
        let Some(l) = self.tuning.module_for(prime_words) else { return self.every.clone() };
        let module = {
            let mut sized = self.sized.lock().unwrap_or_else(|p| p.into_inner());
            match sized.iter().find(|(k, _)| *k == l) {
                Some((_, m)) => m.clone(),
                None => {
                    let m = Arc::new(SizedModule::default());
                    sized.push((l, m.clone()));
                    m
                }
            }
        };
        // The first batch of this size waits for its thread (or builds the module where
        // no thread could be started at setup); batches of other sizes go on meanwhile.
        let loaded = module.loaded.get_or_init(|| {
            let thread = module.thread.lock().unwrap_or_else(|p| p.into_inner()).take();
            let built = match thread {
                Some(h) => {
                    h.join().unwrap_or_else(|_| Err("the thread building a module panicked".into()))
                }
                None => build(&self.ctx, &self.arch, &self.tuning, self.cache.as_ref(), Some(l)),
            };
            built.map_err(|e| *LAST_ERROR.lock().unwrap_or_else(|p| p.into_inner()) = Some(e)).ok()
        });
        loaded.clone().unwrap_or_else(|| self.every.clone())
    }

    /// Runs one batch: `op_key[i]` indexes `keys`, `input` holds the planes (c, A R,
    /// Ai R). Returns the output planes (m, A^2 R, Ai^2 R) and the status words. One
    /// launch per size of n in the batch.
    pub(crate) fn run(
        &self,
        keys: &[&DeviceKey],
        op_key: &[u32],
        input: &Planes,
    ) -> Result<(Planes, Vec<u32>)> {
        if input.count == 0 {
            return Ok((Planes::new(OUT_PLANES, input.words, 0), Vec::new()));
        }
        // The kernels read every word the layout gives the batch, and a key index for
        // each operation: less than that would have them read past their copies.
        if input.buf.len() != IN_PLANES * input.words * input.count || op_key.len() != input.count {
            return Err(Error::Internal("GPU batch planes of the wrong length"));
        }
        let (stream, mut scratch) = self.lane();
        let started = Instant::now();
        let key_words: Vec<usize> = keys.iter().map(|k| k.n_words).collect();
        let mut launches = 0;
        let result = layout::by_size(&key_words, op_key, input, |nw, op_key, planes| {
            let kernels = self.kernels(nw / 2);
            let launched = self.launch_one(stream, &mut scratch, &kernels, keys, op_key, planes);
            if launched.is_err() {
                // A call failed midway: nothing may stay behind (Scratch's docs).
                scratch.wipe_after_failure(stream);
            }
            let (out, status) = launched?;
            launches += 1;
            Ok((out, status))
        });
        drop(scratch);
        if result.is_ok() {
            let mut c = self.counters.lock().unwrap_or_else(|p| p.into_inner());
            c.launches += launches;
            c.operations += input.count as u64;
            c.busy_seconds += started.elapsed().as_secs_f64();
        }
        result
    }

    /// A lane for a batch: the first free one, else the next in turn, waited for.
    fn lane(&self) -> (&Arc<CudaStream>, std::sync::MutexGuard<'_, Scratch>) {
        use std::sync::TryLockError;
        for lane in &self.lanes {
            match lane.scratch.try_lock() {
                Ok(s) => return (&lane.stream, s),
                Err(TryLockError::Poisoned(p)) => return (&lane.stream, p.into_inner()),
                Err(TryLockError::WouldBlock) => {}
            }
        }
        let i = self.next_lane.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let lane = &self.lanes[i % self.lanes.len()];
        (&lane.stream, lane.scratch.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Zeroed planes for `count` operations of `words` limbs, page-locked where the
    /// tuning allows and the driver gives the memory (else on the heap).
    pub(crate) fn planes(&self, planes: usize, words: usize, count: usize) -> Planes {
        let len = planes * words * count;
        match self.tuning.pinned.then(|| Staging::take(&self.ctx, len)).flatten() {
            Some(staged) => Planes { words, count, buf: PlaneBuf::Pinned(staged) },
            None => Planes::new(planes, words, count),
        }
    }

    /// One launch of `func` over a batch of one size on `s`, in the device memory of
    /// `scratch`, its kernels' time on the device's [`KernelClock`]. Returns at the
    /// first CUDA call that fails (the caller then wipes the lane's memory).
    fn launch_one(
        &self,
        s: &Arc<CudaStream>,
        scratch: &mut Scratch,
        kernels: &Kernels,
        keys: &[&DeviceKey],
        op_key: &[u32],
        input: &Planes,
    ) -> Result<(Planes, Vec<u32>)> {
        let count = input.count;
        let failed = gpu_failed;
        // Each key's pointer, with the guard that records its read on `s` when dropped:
        // held until the kernels end, so that with two lanes (cudarc's events ordering
        // the streams) the key's wipe on the default stream waits for them.
        let (ptrs, reads): (Vec<u64>, Vec<_>) = keys.iter().map(|k| k.buf.device_ptr(s)).unzip();
        // The split form's scratch: c' mod p then m_p, c' mod q then m_q (rsa_op.cuh).
        // The whole kernel takes a null pointer there and never reads it.
        let in_words = IN_PLANES * input.words * count;
        let out_words = OUT_PLANES * input.words * count;
        let mid_words = if kernels.run_split { 2 * (input.words / 2) * count } else { 0 };
        let Scratch { keys: d_keys, op_key: d_op_key, input: d_in, output: d_out, mid, status } =
            scratch;
        let mut d_keys = room(d_keys, ptrs.len(), s).map_err(failed)?.slice_mut(..ptrs.len());
        let mut d_op_key = room(d_op_key, count, s).map_err(failed)?.slice_mut(..count);
        let mut d_in = room(d_in, in_words, s).map_err(failed)?.slice_mut(..in_words);
        let mut d_out = room(d_out, out_words, s).map_err(failed)?.slice_mut(..out_words);
        let mut d_status = room(status, count, s).map_err(failed)?.slice_mut(..count);
        let mut d_mid = match mid_words {
            0 => None,
            words => Some(room(mid, words, s).map_err(failed)?.slice_mut(..words)),
        };
        // What an earlier batch that failed midway may have left is cleared first. Every
        // status word starts as one no kernel writes, so that an operation the kernels
        // did not reach fails rather than reads as done.
        s.memset_zeros(&mut d_out).map_err(failed)?;
        fill_unset(s, &mut d_status).map_err(failed)?;
        if let Some(mid) = d_mid.as_mut() {
            s.memset_zeros(mid).map_err(failed)?;
        }
        s.memcpy_htod(&ptrs, &mut d_keys).map_err(failed)?;
        s.memcpy_htod(op_key, &mut d_op_key).map_err(failed)?;
        s.memcpy_htod(&input.buf[..in_words], &mut d_in).map_err(failed)?;
        let (key_count, n, words, w) =
            (keys.len() as u32, count as u32, input.words as u32, self.tuning.window);
        let block = self.tuning.block;
        let cfg = |threads: u32| LaunchConfig {
            grid_dim: (threads.div_ceil(block), 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        const NO_SCRATCH: u64 = 0;
        s.synchronize().map_err(failed)?;
        let kernels_run = KernelClock::start(&self.clock);
        let mut launch = |f: &CudaFunction, threads: u32| {
            let mut launch = s.launch_builder(f);
            launch.arg(&mut d_keys).arg(&key_count).arg(&mut d_op_key).arg(&mut d_in);
            match d_mid.as_mut() {
                Some(mid) => launch.arg(mid),
                None => launch.arg(&NO_SCRATCH),
            };
            launch.arg(&mut d_out).arg(&mut d_status).arg(&n).arg(&words).arg(&w);
            // SAFETY: the arguments match every entry point's parameters in kind and
            // order (CC_ENTRY_PARAMS, kernel/kernel.cu); every key pointer is a live
            // image of the words its header announces (DeviceKey, made by `upload` from
            // layout::key_image) and `keys` keeps them alive until the stream is
            // synchronised below; the views have the lengths the batch layout gives
            // `count` operations of `words` limbs (the scratch, for the split kernels,
            // two planes of words / 2; null for the whole one, which ignores it), and the
            // kernels index them only below those (rsa_op.cuh's cc_rsa_*_at: one thread
            // per operation, two for cc_rsa_exp); a sized module reads no more of an
            // image than its header's L allows, since it refuses every other L before
            // reading past the header.
            unsafe { launch.launch(cfg(threads)) }.map(|_| ()).map_err(failed)
        };
        if kernels.run_split {
            let [blind, exp, join] = &kernels.split;
            launch(blind, n)?;
            launch(exp, 2 * n)?;
            launch(join, n)?;
        } else {
            launch(&kernels.whole, n)?;
        }
        let finished = s.synchronize().map_err(failed);
        drop(kernels_run);
        drop(reads);
        finished?;
        let mut out = self.planes(OUT_PLANES, input.words, count);
        let mut status = vec![layout::STATUS_UNSET; count];
        let copied = s
            .memcpy_dtoh(&d_out, &mut out.buf[..out_words])
            .and_then(|()| s.memcpy_dtoh(&d_status, &mut status[..]));
        // A page-locked `out` is copied to asynchronously, and goes back to the kept
        // buffers when dropped: the copies end before it can be read or dropped, whether
        // or not both were queued. If the stream cannot say they ended, the buffer is
        // never reused.
        if let Err(e) = s.synchronize() {
            out.buf.abandon();
            return Err(failed(e));
        }
        copied.map_err(failed)?;
        // The blinded inputs and the pairs' successors are secrets: wipe them there too.
        s.memset_zeros(&mut d_in).map_err(failed)?;
        s.memset_zeros(&mut d_out).map_err(failed)?;
        if let Some(mid) = d_mid.as_mut() {
            s.memset_zeros(mid).map_err(failed)?;
        }
        s.synchronize().map_err(failed)?;
        Ok((out, status))
    }
}

/// Sets every word of `dst` to [`layout::STATUS_UNSET`] on `s`, on the device (no host
/// buffer, no copy): cudarc's `memset_zeros` with the byte 0xFF.
fn fill_unset<D: DevicePtrMut<u32>>(s: &Arc<CudaStream>, dst: &mut D) -> Result<(), DriverError> {
    const { assert!(layout::STATUS_UNSET == u32::MAX, "a word of 0xFF bytes") };
    s.context().bind_to_thread()?;
    let bytes = dst.num_bytes();
    let (ptr, _record) = dst.device_ptr_mut(s);
    // SAFETY: `ptr` is the start of `dst`'s live device memory, `bytes` long, its use
    // ordered on `s` by the record guard (as cudarc's `memset_zeros` does it); every bit
    // pattern is a valid u32.
    unsafe { cudarc::driver::result::memset_d8_async(ptr, 0xFF, bytes, s.cu_stream()) }
}

/// A CUDA call failed: the error is kept for [`status`], the caller gets a fixed one.
fn gpu_failed(e: impl core::fmt::Debug) -> Error {
    *LAST_ERROR.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!("{e:?}"));
    Error::Unsupported("GPU backend: a CUDA call failed (rsa::gpu_status says which)")
}
