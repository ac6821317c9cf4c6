//! Fault injection for the tests of the fault check (feature `fault-injection`, which
//! only this crate's own tests enable; not part of the public API otherwise).
//!
//! A test arms one fault ([`arm`]): one bit flipped in the value one phase of the
//! private operation produces, at that phase's n-th occurrence in the process. The
//! private operation's code calls `strike` at each such point; without the feature
//! the calls compile to nothing. The phases are those of `private.rs` and of the
//! blinding pairs' life (`blinding.rs`):
//!
//! | phase | the value hit |
//! |---|---|
//! | [`Phase::Blind`] | c' = c A mod n, the blinded input |
//! | [`Phase::ReduceP`], [`Phase::ReduceQ`] | c' mod p, c' mod q (the exponentiations' bases) |
//! | [`Phase::PowerP`], [`Phase::PowerQ`] | m_p, m_q as the unit returns them (an x2 half, an mb8 lane) |
//! | [`Phase::Garner`] | m', Garner's recombination |
//! | [`Phase::Unblind`] | m = m' Ai mod n |
//! | [`Phase::FreshSet`] | the shared inverse of a set of fresh pairs (every Ai of the set) |
//! | [`Phase::Renew`] | A^2, the renewed half of a used pair |
//!
//! Boneh, DeMillo and Lipton ("On the importance of checking cryptographic protocols for
//! faults", 1997) is the attack such faults make possible; the tests assert that every
//! one of them ends in [`crate::Error::FaultDetected`] and never in a released result.
//!
//! The plan is global (the engine's workers are other threads), so tests that arm
//! faults run one at a time: [`arm`] holds a process-wide lock until its [`Armed`] is
//! dropped.

use crate::bignum::{LIMB_BITS, Limb};
use crate::modular::Elem;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Where a fault strikes (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// c' = c A mod n.
    Blind,
    /// c' mod p.
    ReduceP,
    /// c' mod q.
    ReduceQ,
    /// c'^(d_p) mod p, as the unit returns it.
    PowerP,
    /// c'^(d_q) mod q, as the unit returns it.
    PowerQ,
    /// Garner's recombination m'.
    Garner,
    /// The unblinded m = m' Ai.
    Unblind,
    /// The inverse shared by a set of fresh blinding pairs.
    FreshSet,
    /// A^2 of a renewed blinding pair.
    Renew,
}

impl Phase {
    /// Every phase.
    pub const ALL: [Phase; 9] = [
        Phase::Blind,
        Phase::ReduceP,
        Phase::ReduceQ,
        Phase::PowerP,
        Phase::PowerQ,
        Phase::Garner,
        Phase::Unblind,
        Phase::FreshSet,
        Phase::Renew,
    ];
}

struct Plan {
    phase: Phase,
    /// Occurrences of `phase` still to pass before the one that is hit.
    skip: usize,
    bit: usize,
    fired: bool,
}

static ARMED: AtomicBool = AtomicBool::new(false);
static PLAN: Mutex<Option<Plan>> = Mutex::new(None);
static SERIAL: Mutex<()> = Mutex::new(());

fn plan() -> MutexGuard<'static, Option<Plan>> {
    PLAN.lock().unwrap_or_else(|p| p.into_inner())
}

/// An armed fault; dropping it disarms (whether or not it struck) and lets the next test
/// arm one.
#[derive(Debug)]
pub struct Armed {
    _serial: MutexGuard<'static, ()>,
}

impl Armed {
    /// Whether the fault has struck.
    pub fn fired(&self) -> bool {
        plan().as_ref().is_some_and(|p| p.fired)
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        ARMED.store(false, Ordering::SeqCst);
        *plan() = None;
    }
}

/// Arms one fault: bit `bit` (taken modulo the bits of the value's limbs but its top
/// limb, so that the value stays below its modulus as a glitch in the low limbs would
/// leave it) of the value of `phase`'s occurrence number `nth` (from 0) from now on, in
/// any thread. Waits for an earlier [`Armed`] to be dropped.
pub fn arm(phase: Phase, nth: usize, bit: usize) -> Armed {
    let serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    *plan() = Some(Plan { phase, skip: nth, bit, fired: false });
    ARMED.store(true, Ordering::SeqCst);
    Armed { _serial: serial }
}

/// The value of `phase`, struck if armed ([`strike`]; the `faulted!` macro's body).
pub(crate) fn hit<M, E>(phase: Phase, mut value: Elem<M, E>) -> Elem<M, E> {
    strike(phase, &mut value.limbs);
    value
}

/// Flips the armed bit of `limbs` if this is the armed phase's armed occurrence.
pub(crate) fn strike(phase: Phase, limbs: &mut [Limb]) {
    if !ARMED.load(Ordering::SeqCst) {
        return;
    }
    let mut plan = plan();
    let Some(p) = plan.as_mut().filter(|p| p.phase == phase && !p.fired) else { return };
    if p.skip > 0 {
        p.skip -= 1;
        return;
    }
    let low = LIMB_BITS * limbs.len().saturating_sub(1).max(1);
    let bit = p.bit % low;
    limbs[bit / LIMB_BITS] ^= 1 << (bit % LIMB_BITS);
    p.fired = true;
}
