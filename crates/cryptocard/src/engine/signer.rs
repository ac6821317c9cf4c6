//! [`AsyncSigningKey`] and [`AsyncPssSigningKey`]: the RustCrypto `signature` 3
//! `AsyncSigner` on an [`Engine`], for async code that signs with a shared key.
//!
//! # Why a type of their own, and `AsyncSigner` only
//!
//! `signature` 3 implements `AsyncSigner` for every `Signer` (a blanket impl that
//! computes inline), so no type can have both a `Signer` impl and an `AsyncSigner` impl
//! of its own. The keys of [`crate::rsa::pkcs1v15`] and [`crate::rsa::pss`] are
//! `Signer`s: their `sign_async` is the blocking signature, which is right for a
//! caller that owns its thread. These types are the other choice: `sign_async` queues
//! the request on the engine ([`Engine::try_submit`]) and awaits its [`Ticket`], so the
//! task yields while a worker (perhaps in an 8-lane batch with other callers' requests)
//! computes, and the executor's thread is never blocked. A full queue answers
//! [`Error::Busy`] rather than waiting for room, for the same reason. The signatures are
//! exactly the [`RsaPrivateKey`] methods' (`sign_pkcs1v15`, `sign_pss`).
//!
//! [`Ticket`]: super::Ticket
//! [`Error::Busy`]: crate::Error::Busy

use super::Engine;
use crate::digest::HashFunction;
use crate::rsa::signing::sig_error;
use crate::rsa::{PrivateRequest, Pss, RsaPrivateKey, pkcs1v15, pss};
use core::marker::PhantomData;
use signature::{AsyncSigner, Keypair};
use std::sync::Arc;

/// RSASSA-PKCS1-v1_5 over the digest `D`, signed by an [`Engine`]'s workers.
///
/// ```
/// use std::sync::Arc;
/// use cryptocard::digest::Sha256;
/// use cryptocard::engine::{AsyncSigningKey, Engine};
/// use cryptocard::rsa::RsaPrivateKey;
/// use signature::{AsyncSigner, Keypair, Verifier};
///
/// let key = Arc::new(RsaPrivateKey::generate(1024, &mut cryptocard::rng::OsRng)?);
/// let signer = AsyncSigningKey::<Sha256>::new(Arc::new(Engine::new()?), key);
/// let sig = signer.sign_async(b"hello"); // a future; any executor runs it
/// # let sig = block_on(sig).unwrap();
/// # assert!(signer.verifying_key().verify(b"hello", &sig).is_ok());
/// # fn block_on<F: Future>(f: F) -> F::Output {
/// #     struct W(std::thread::Thread);
/// #     impl std::task::Wake for W { fn wake(self: Arc<Self>) { self.0.unpark() } }
/// #     let waker = Arc::new(W(std::thread::current())).into();
/// #     let mut cx = std::task::Context::from_waker(&waker);
/// #     let mut f = std::pin::pin!(f);
/// #     loop {
/// #         if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; }
/// #         std::thread::park();
/// #     }
/// # }
/// # Ok::<(), cryptocard::Error>(())
/// ```
pub struct AsyncSigningKey<D> {
    engine: Arc<Engine>,
    key: Arc<RsaPrivateKey>,
    _digest: PhantomData<fn() -> D>,
}

/// RSASSA-PSS over the digest `D` (salt of the digest's length), signed by an
/// [`Engine`]'s workers, which draw the salt and the blinding from the operating system.
pub struct AsyncPssSigningKey<D> {
    engine: Arc<Engine>,
    key: Arc<RsaPrivateKey>,
    _digest: PhantomData<fn() -> D>,
}

macro_rules! async_signer {
    ($ty:ident, $scheme:ident, |$msg:ident| $req:expr) => {
        impl<D: HashFunction> $ty<D> {
            /// Signs with `key` on `engine`.
            pub fn new(engine: Arc<Engine>, key: Arc<RsaPrivateKey>) -> Self {
                $ty { engine, key, _digest: PhantomData }
            }

            /// The private key.
            pub fn key(&self) -> &Arc<RsaPrivateKey> {
                &self.key
            }
        }

        impl<D: HashFunction> AsyncSigner<$scheme::Signature> for $ty<D> {
            async fn sign_async(&self, $msg: &[u8]) -> signature::Result<$scheme::Signature> {
                let ticket = self.engine.try_submit(self.key.clone(), $req).map_err(sig_error)?;
                ticket.await.map($scheme::Signature::from).map_err(sig_error)
            }
        }

        impl<D: HashFunction> Keypair for $ty<D> {
            type VerifyingKey = $scheme::VerifyingKey<D>;

            fn verifying_key(&self) -> $scheme::VerifyingKey<D> {
                $scheme::VerifyingKey::new(self.key.public_key().clone())
            }
        }

        impl<D> Clone for $ty<D> {
            fn clone(&self) -> Self {
                $ty { engine: self.engine.clone(), key: self.key.clone(), _digest: PhantomData }
            }
        }

        impl<D> core::fmt::Debug for $ty<D> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($ty)).field("key", &self.key).finish_non_exhaustive()
            }
        }
    };
}

async_signer!(AsyncSigningKey, pkcs1v15, |msg| PrivateRequest::SignPkcs1v15 {
    hash: D::ALG,
    msg: msg.to_vec()
});
async_signer!(AsyncPssSigningKey, pss, |msg| PrivateRequest::SignPss {
    params: Pss::new(D::ALG),
    msg: msg.to_vec()
});
