//! BoringSSL's bignum known-answer tests (`tests/data/boringssl-bn/`, see its README),
//! every case of sum, product, quotient, shift, gcd, mod_inv and exp.
//!
//! BoringSSL's `BIGNUM` is signed and `Nat` is not, so the harness carries a sign beside
//! each magnitude and maps the signed operation onto the unsigned ones, the way a signed
//! integer built on `Nat` would: `a + (-b) = a - b` (larger magnitude minus smaller, with
//! the larger one's sign), products and quotients take the xor of the signs, division
//! truncates (the remainder has the dividend's sign), shifts act on the magnitude.

mod common;

use common::{Record, parse_records, read_data};
use cryptocard::bignum::Nat;

/// A signed value: sign and magnitude, zero always non-negative.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Int {
    neg: bool,
    mag: Nat,
}

impl Int {
    fn new(neg: bool, mag: Nat) -> Int {
        Int { neg: neg && !mag.is_zero(), mag }
    }

    fn parse(s: &str) -> Int {
        let (neg, digits) = match s.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, s),
        };
        Int::new(neg, Nat::from_hex(digits).expect("test vector hex"))
    }

    fn neg(&self) -> Int {
        Int::new(!self.neg, self.mag.clone())
    }

    fn add(&self, o: &Int) -> Int {
        if self.neg == o.neg {
            return Int::new(self.neg, &self.mag + &o.mag);
        }
        match self.mag.checked_sub(&o.mag) {
            Some(d) => Int::new(self.neg, d),
            None => Int::new(o.neg, o.mag.sub(&self.mag).expect("larger minus smaller")),
        }
    }

    fn sub(&self, o: &Int) -> Int {
        self.add(&o.neg())
    }

    fn mul(&self, o: &Int) -> Int {
        Int::new(self.neg ^ o.neg, &self.mag * &o.mag)
    }
}

/// The cases of one file of tests/data/boringssl-bn, in file order.
fn cases(name: &str) -> Vec<Record> {
    parse_records(&read_data(&format!("boringssl-bn/{name}")))
}

fn get(c: &Record, k: &str) -> Int {
    Int::parse(c.get(k).unwrap_or_else(|| panic!("missing {k} in {c:?}")))
}

#[test]
fn sum() {
    let cs = cases("sum_tests.txt");
    assert_eq!(cs.len(), 654);
    for c in &cs {
        let (a, b, sum) = (get(c, "A"), get(c, "B"), get(c, "Sum"));
        assert_eq!(a.add(&b), sum, "{c:?}");
        assert_eq!(b.add(&a), sum, "{c:?}");
        assert_eq!(sum.sub(&a), b, "{c:?}");
        assert_eq!(sum.sub(&b), a, "{c:?}");
    }
}

#[test]
fn product_and_square() {
    let cs = cases("product_tests.txt");
    let (mut products, mut squares) = (0, 0);
    for c in &cs {
        let a = get(c, "A");
        if c.contains_key("Square") {
            let sq = get(c, "Square");
            assert_eq!(a.mul(&a), sq, "{c:?}");
            assert_eq!(a.mag.square(), sq.mag, "{c:?}");
            squares += 1;
        } else {
            let (b, p) = (get(c, "B"), get(c, "Product"));
            assert_eq!(a.mul(&b), p, "{c:?}");
            assert_eq!(b.mul(&a), p, "{c:?}");
            products += 1;
        }
    }
    assert_eq!((products, squares), (170, 107));
}

#[test]
fn quotient() {
    let cs = cases("quotient_tests.txt");
    assert_eq!(cs.len(), 367);
    for c in &cs {
        let (a, b) = (get(c, "A"), get(c, "B"));
        let (q, r) = (get(c, "Quotient"), get(c, "Remainder"));
        let (qm, rm) = a.mag.div_rem(&b.mag).expect("non-zero divisor");
        assert_eq!(Int::new(a.neg ^ b.neg, qm), q, "{c:?}");
        assert_eq!(Int::new(a.neg, rm.clone()), r, "{c:?}");
        assert_eq!(a.mag.rem(&b.mag).unwrap(), rm, "{c:?}");
        // And the identity itself, on the signed values.
        assert_eq!(q.mul(&b).add(&r), a, "{c:?}");
    }
}

#[test]
fn shift() {
    let cs = cases("shift_tests.txt");
    let mut counts = [0; 3];
    for c in &cs {
        let a = get(c, "A");
        if c.contains_key("LShift1") {
            let want = get(c, "LShift1");
            assert_eq!(Int::new(a.neg, &a.mag << 1), want, "{c:?}");
            // BN_rshift1 is checked on the same vector: want >> 1 = a.
            assert_eq!(Int::new(want.neg, &want.mag >> 1), a, "{c:?}");
            counts[0] += 1;
        } else {
            let n = get(c, "N").mag.to_u64().expect("small shift") as usize;
            if c.contains_key("LShift") {
                assert_eq!(Int::new(a.neg, &a.mag << n), get(c, "LShift"), "{c:?}");
                counts[1] += 1;
            } else {
                assert_eq!(Int::new(a.neg, &a.mag >> n), get(c, "RShift"), "{c:?}");
                counts[2] += 1;
            }
        }
    }
    assert_eq!(counts, [401, 200, 100]);
}

#[test]
fn gcd_and_lcm() {
    let cs = cases("gcd_tests.txt");
    assert_eq!(cs.len(), 55);
    for c in &cs {
        let (a, b) = (get(c, "A"), get(c, "B"));
        assert!(!a.neg && !b.neg, "the gcd vectors are non-negative");
        assert_eq!(a.mag.gcd(&b.mag), get(c, "GCD").mag, "{c:?}");
        assert_eq!(b.mag.gcd(&a.mag), get(c, "GCD").mag, "{c:?}");
        assert_eq!(a.mag.lcm(&b.mag), get(c, "LCM").mag, "{c:?}");
    }
}

#[test]
fn mod_inverse() {
    let cs = cases("mod_inv_tests.txt");
    assert_eq!(cs.len(), 28);
    let mut odd_moduli = 0;
    for c in &cs {
        let (a, m, want) = (get(c, "A"), get(c, "M"), get(c, "ModInv"));
        assert!(!a.neg && !m.neg && !want.neg);
        assert_eq!(a.mag.mod_inverse_vartime(&m.mag).unwrap(), want.mag, "{c:?}");
        // The constant-time inverse takes odd moduli > 1 and values of at most the
        // modulus's length: reduce first (the test values are public).
        if m.mag.is_odd() && !m.mag.is_one() {
            let a_red = a.mag.rem(&m.mag).unwrap();
            assert_eq!(a_red.mod_inverse_odd(&m.mag).unwrap(), want.mag, "{c:?}");
            if a.mag.limb_len() <= m.mag.limb_len() {
                assert_eq!(a.mag.mod_inverse_odd(&m.mag).unwrap(), want.mag, "{c:?}");
            }
            odd_moduli += 1;
        }
    }
    assert!(odd_moduli >= 10, "both inverses were exercised");
}

#[test]
fn exp() {
    let cs = cases("exp_tests.txt");
    assert_eq!(cs.len(), 5);
    for c in &cs {
        let (a, e) = (get(c, "A"), get(c, "E"));
        let e = e.mag.to_u64().expect("small exponent");
        let want = get(c, "Exp");
        let got = Int::new(a.neg && e % 2 == 1, a.mag.pow(e).unwrap());
        assert_eq!(got, want, "{c:?}");
    }
}
