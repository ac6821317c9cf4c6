//! Punycode decoding (RFC 3492 section 6.2) and A-labels to U-labels (RFC 5890 section
//! 2.3.2.1), which name constraints need to compare an rfc822Name constraint, written in
//! A-labels, with a SmtpUTF8Mailbox name, written in U-labels (RFC 8398 section 6).
//!
//! Bounded as OpenSSL's `ossl_punycode_decode` and `ossl_a2ulabel` are: a label decodes to
//! at most [`MAX_LABEL_POINTS`] code points, arithmetic that would pass 2^32 - 1 fails.

/// The most code points one label may decode to.
pub(super) const MAX_LABEL_POINTS: usize = 512;

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 0x80;

/// The bias adaptation function of RFC 3492 section 6.1.
fn adapt(delta: u32, points: u32, first: bool) -> u32 {
    let mut delta = if first { delta / DAMP } else { delta / 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + ((BASE - T_MIN + 1) * delta) / (delta + SKEW)
}

fn digit(c: u8) -> Option<u32> {
    match c {
        b'A'..=b'Z' => Some(u32::from(c - b'A')),
        b'a'..=b'z' => Some(u32::from(c - b'a')),
        b'0'..=b'9' => Some(u32::from(c - b'0') + 26),
        _ => None,
    }
}

/// The code points `input` (a label's Punycode, without `xn--`) encodes; `None` if it is
/// no Punycode, overflows, or decodes to more than [`MAX_LABEL_POINTS`] points.
pub(super) fn decode(input: &[u8]) -> Option<Vec<u32>> {
    // The basic code points are those before the last delimiter, if any.
    let basic = input.iter().rposition(|&c| c == b'-').unwrap_or(0);
    if basic > MAX_LABEL_POINTS || !input[..basic].is_ascii() {
        return None;
    }
    let mut out: Vec<u32> = input[..basic].iter().map(|&c| u32::from(c)).collect();
    let mut rest = &input[if basic > 0 { basic + 1 } else { 0 }..];
    let (mut n, mut i, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    while !rest.is_empty() {
        let old_i = i;
        let mut w: u32 = 1;
        let mut k = BASE;
        loop {
            let (&c, tail) = rest.split_first()?;
            rest = tail;
            let d = digit(c)?;
            i = i.checked_add(d.checked_mul(w)?)?;
            let t = if k <= bias {
                T_MIN
            } else if k >= bias + T_MAX {
                T_MAX
            } else {
                k - bias
            };
            if d < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
        }
        let points = u32::try_from(out.len()).ok()? + 1;
        bias = adapt(i - old_i, points, old_i == 0);
        n = n.checked_add(i / points)?;
        i %= points;
        if out.len() >= MAX_LABEL_POINTS {
            return None;
        }
        out.insert(i as usize, n);
        i += 1;
    }
    Some(out)
}

/// `domain` with each `xn--` label decoded to UTF-8, the others as they are; `None` if a
/// label does not decode to Unicode scalar values.
pub(super) fn to_unicode(domain: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(domain.len());
    for (n, label) in domain.split(|&c| c == b'.').enumerate() {
        if n > 0 {
            out.push(b'.');
        }
        match label.strip_prefix(b"xn--") {
            None => out.extend_from_slice(label),
            Some(code) => {
                for point in decode(code)? {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(char::from_u32(point)?.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{decode, to_unicode};

    fn text(points: &[u32]) -> String {
        points.iter().map(|&p| char::from_u32(p).unwrap()).collect()
    }

    #[test]
    fn rfc3492_samples_decode() {
        // RFC 3492 section 7.1: (A) Arabic (Egyptian), (L) Japanese, (B) Chinese
        // (simplified), and labels of basic code points only.
        let arabic = "\u{644}\u{64A}\u{647}\u{645}\u{627}\u{628}\u{62A}\u{643}\u{644}\u{645}\
                      \u{648}\u{634}\u{639}\u{631}\u{628}\u{64A}\u{61F}";
        assert_eq!(text(&decode(b"egbpdaj6bu4bxfgehfvwxn").unwrap()), arabic);
        let chinese = "\u{4ED6}\u{4EEC}\u{4E3A}\u{4EC0}\u{4E48}\u{4E0D}\u{8BF4}\u{4E2D}\u{6587}";
        assert_eq!(text(&decode(b"ihqwcrb4cv8a8dqg056pqjye").unwrap()), chinese);
        let japanese = "3\u{5E74}B\u{7D44}\u{91D1}\u{516B}\u{5148}\u{751F}";
        assert_eq!(text(&decode(b"3B-ww4c5e180e575a65lsy2b").unwrap()), japanese);
        assert_eq!(text(&decode(b"-> $1.00 <--").unwrap()), "-> $1.00 <-");
        assert_eq!(text(&decode(b"bcher-kva").unwrap()), "b\u{FC}cher");
    }

    #[test]
    fn bad_punycode_is_refused() {
        // Not a digit, a variable-length integer cut short, overflow, non-ASCII basics.
        for bad in [&b"bcher-kv!"[..], b"bcher-k", b"99999999999", b"b\xFCcher-kva"] {
            assert_eq!(decode(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        // More than 512 basic code points.
        let long = [b'a'; 600].iter().chain(b"-").copied().collect::<Vec<u8>>();
        assert_eq!(decode(&long), None);
    }

    #[test]
    fn labels_convert() {
        assert_eq!(to_unicode(b"xn--bcher-kva.example").unwrap(), "b\u{FC}cher.example".as_bytes());
        assert_eq!(to_unicode(b".example.com").unwrap(), b".example.com");
        assert_eq!(to_unicode(b"XN--bcher-kva.example").unwrap(), b"XN--bcher-kva.example");
        assert_eq!(to_unicode(b"www.xn--bcher-kv!.example"), None);
    }
}
