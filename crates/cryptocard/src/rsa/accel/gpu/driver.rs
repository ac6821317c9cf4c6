//! The CUDA driver calls: finding the device, compiling the kernel with NVRTC (once per
//! process), resident key images, and one batch launch. Through `cudarc` with dynamic
//! loading, so nothing of CUDA is needed to build, and `libcuda.so.1` and
//! `libnvrtc.so.13` are looked for only when the backend is first asked for.
//!
//! `cudarc` panics when a library it needs is missing, so [`device`] first asks
//! whether each is present (`is_culib_present`) and runs the rest inside
//! `catch_unwind` as a second line of defence: a machine without a GPU gets
//! [`Error::Unsupported`] and the reason ([`status`]), never a panic.
//!
//! Key images are uploaded once per key and zeroed on the device when the key's last
//! clone is dropped ([`DeviceKey`]); each batch's buffers are zeroed before they are
//! freed. One launch at a time per process (a mutex): the kernel fills the device by
//! itself at the batch sizes where the GPU pays.

#![allow(unsafe_code)]

use super::layout::{IN_PLANES, OUT_PLANES, Planes, WINDOW};
use super::source::{BLOCK_THREADS, KERNEL_NAME, KERNEL_SOURCE};
use crate::{Error, Result};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
};
use std::sync::{Arc, Mutex, OnceLock};

/// The environment variable that turns the PTX carry chains off (`0`): the kernel then
/// multiplies in 64 bits as on the host, for a device run that tells the two apart.
pub const PTX_VAR: &str = "CRYPTOCARD_GPU_PTX";

/// The device, its compiled kernel, and what the speed report names.
pub(crate) struct Device {
    stream: Arc<CudaStream>,
    func: CudaFunction,
    launch: Mutex<()>,
    /// "NVIDIA H100 80GB HBM3, 132 SMs at 1980 MHz, sm_90".
    pub(crate) description: String,
}

impl core::fmt::Debug for Device {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.description)
    }
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

/// One line on the GPU: its name, SMs and clock, or why the backend cannot run; and the
/// last CUDA error, if a call failed since.
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

fn init() -> core::result::Result<Device, &'static str> {
    setup().map_err(|why| &*Box::leak(format!("GPU backend: {why}").into_boxed_str()))
}

fn setup() -> core::result::Result<Device, String> {
    // SAFETY: loads the CUDA driver library by its usual names (libloading), which runs
    // its initialisers; nothing of it is called yet.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver (libcuda.so.1 not found)".into());
    }
    // SAFETY: as above, for libnvrtc.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err("no NVRTC (libnvrtc.so.13 not found), which compiles the kernel".into());
    }
    match std::panic::catch_unwind(init_device) {
        Ok(r) => r,
        Err(_) => Err("the CUDA libraries failed while setting up (a panic in cudarc)".into()),
    }
}

fn init_device() -> core::result::Result<Device, String> {
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
    let ptx_chains = std::env::var(PTX_VAR).map_or(true, |v| v.trim() != "0");
    let opts = cudarc::nvrtc::CompileOptions {
        options: vec![
            format!("--gpu-architecture=sm_{major}{minor}"),
            format!("-DCC_USE_PTX={}", u8::from(ptx_chains)),
        ],
        ..Default::default()
    };
    let ptx = cudarc::nvrtc::compile_ptx_with_opts(KERNEL_SOURCE, opts)
        .map_err(|e| format!("NVRTC could not compile the kernel: {e:?}"))?;
    let module = ctx.load_module(ptx).map_err(|e| format!("loading the kernel: {e:?}"))?;
    let func = module.load_function(KERNEL_NAME).map_err(|e| format!("{KERNEL_NAME}: {e:?}"))?;
    let stream = ctx.default_stream();
    let description = format!(
        "{name}, {sms} SMs at {} MHz, sm_{major}{minor}, {} carry chains",
        clock / 1000,
        if ptx_chains { "PTX" } else { "64-bit product" }
    );
    Ok(Device { stream, func, launch: Mutex::new(()), description })
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
    /// Uploads a key image ([`super::layout::key_image`]).
    pub(crate) fn upload(&self, image: &[u32]) -> Result<DeviceKey> {
        let buf = self.stream.clone_htod(image).map_err(gpu_failed)?;
        Ok(DeviceKey { buf, stream: self.stream.clone(), n_words: image[2] as usize })
    }

    /// Runs one batch: `op_key[i]` indexes `keys`, `input` holds the planes (c, A R,
    /// Ai R). Returns the output planes (m, A^2 R, Ai^2 R) and the status words.
    pub(crate) fn run(
        &self,
        keys: &[&DeviceKey],
        op_key: &[u32],
        input: &Planes,
    ) -> Result<(Planes, Vec<u32>)> {
        let count = input.count;
        if count == 0 {
            return Ok((Planes::new(OUT_PLANES, input.words, 0), Vec::new()));
        }
        debug_assert_eq!(input.buf.len(), IN_PLANES * input.words * count);
        let _one_at_a_time = self.launch.lock().unwrap_or_else(|p| p.into_inner());
        let s = &self.stream;
        let ptrs: Vec<u64> = keys
            .iter()
            .map(|k| {
                let (ptr, _sync) = k.buf.device_ptr(s);
                ptr
            })
            .collect();
        let failed = gpu_failed;
        let d_keys = s.clone_htod(&ptrs).map_err(failed)?;
        let d_op_key = s.clone_htod(op_key).map_err(failed)?;
        let mut d_in = s.clone_htod(&input.buf[..]).map_err(failed)?;
        let mut d_out = s.alloc_zeros::<u32>(OUT_PLANES * input.words * count).map_err(failed)?;
        let mut d_status = s.alloc_zeros::<u32>(count).map_err(failed)?;
        let (key_count, n, words, w) =
            (keys.len() as u32, count as u32, input.words as u32, WINDOW);
        let cfg = LaunchConfig {
            grid_dim: (n.div_ceil(BLOCK_THREADS), 1, 1),
            block_dim: (BLOCK_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = s.launch_builder(&self.func);
        launch
            .arg(&d_keys)
            .arg(&key_count)
            .arg(&d_op_key)
            .arg(&d_in)
            .arg(&mut d_out)
            .arg(&mut d_status)
            .arg(&n)
            .arg(&words)
            .arg(&w);
        // SAFETY: the arguments match cc_rsa_private's parameters in kind and order
        // (kernel/kernel.cu); every key pointer is a live image of the words its header
        // announces (DeviceKey, made by `upload` from layout::key_image) and `keys`
        // keeps them alive until the stream is synchronised below; the buffers have the
        // lengths the batch layout gives `count` operations of `words` limbs, and the
        // kernel indexes them only below those (rsa_op.cuh's cc_rsa_private_at).
        unsafe { launch.launch(cfg) }.map_err(failed)?;
        let mut out = Planes::new(OUT_PLANES, input.words, count);
        s.memcpy_dtoh(&d_out, &mut out.buf[..]).map_err(failed)?;
        let status = s.clone_dtoh(&d_status).map_err(failed)?;
        // The blinded inputs and the pairs' successors are secrets: wipe them there too.
        s.memset_zeros(&mut d_in).map_err(failed)?;
        s.memset_zeros(&mut d_out).map_err(failed)?;
        s.synchronize().map_err(failed)?;
        Ok((out, status))
    }
}

/// A CUDA call failed: the error is kept for [`status`], the caller gets a fixed one.
fn gpu_failed(e: impl core::fmt::Debug) -> Error {
    *LAST_ERROR.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!("{e:?}"));
    Error::Unsupported("GPU backend: a CUDA call failed (rsa::gpu_status says which)")
}
