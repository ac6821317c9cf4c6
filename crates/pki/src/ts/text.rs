//! Requests, responses and tokens as text, line for line as `openssl ts -text` prints
//! them (`TS_REQ_print_bio`, `TS_RESP_print_bio`, `TS_TST_INFO_print_bio`).

use super::asn1::{Accuracy, GenTime, MessageImprint, TstInfo, small};
use super::request::Request;
use super::response::Response;
use crate::Result;
use crate::asn1::{ObjectNames, hex_dump, object_name};
use crate::cert::{MONTHS, extension_value_lines, general_name, sign_magnitude};
use core::fmt::Write as _;
use der::asn1::Int;
use x509_cert::ext::Extension;

/// The statuses' texts (`TS_STATUS_INFO_print_bio`).
const STATUSES: [&str; 6] = [
    "Granted.",
    "Granted with modifications.",
    "Rejected.",
    "Waiting.",
    "Revocation warning.",
    "Revoked.",
];

/// A request (DER) as `openssl ts -query -text` prints it, object names from `names`.
pub fn request_text(der: &[u8], names: &ObjectNames) -> Result<String> {
    let r = Request::parse(der)?.req;
    let mut s = String::new();
    let _ = writeln!(s, "Version: {}", version(&r.version));
    imprint(&mut s, &r.message_imprint);
    match r.req_policy {
        None => s.push_str("Policy OID: unspecified\n"),
        Some(p) => policy(&mut s, &names.text(&p)),
    }
    let _ = writeln!(s, "Nonce: {}", r.nonce.as_ref().map_or("unspecified".into(), integer));
    let _ = writeln!(s, "Certificate required: {}", if r.cert_req { "yes" } else { "no" });
    extensions(&mut s, r.extensions.as_deref(), names);
    Ok(s)
}

impl Response {
    /// The response as `openssl ts -reply -text` prints it.
    pub fn text(&self, names: &ObjectNames) -> String {
        let mut s = String::from("Status info:\n");
        let status = match self.status() {
            Some(v) if (0..6).contains(&v) => STATUSES[v as usize],
            _ => "out of bounds",
        };
        let _ = writeln!(s, "Status: {status}");
        s.push_str("Status description: ");
        let texts = self.status_text();
        for (i, t) in texts.iter().enumerate() {
            if i > 0 {
                s.push('\t');
            }
            let _ = writeln!(s, "{t}");
        }
        if texts.is_empty() {
            s.push_str("unspecified\n");
        }
        let failures = self.failures();
        let failures: Vec<&str> = failures.iter().map(|f| f.text()).collect();
        match failures.is_empty() {
            true => s.push_str("Failure info: unspecified\n"),
            false => {
                let _ = writeln!(s, "Failure info: {}", failures.join(", "));
            }
        }
        s.push_str("\nTST info:\n");
        match &self.tst_info {
            Some(t) => s.push_str(&tst_info_text(t, names)),
            None => s.push_str("Not included.\n"),
        }
        s
    }

    /// The token's TSTInfo as `openssl ts -reply -token_out -text` prints it, if granted.
    pub fn tst_info_text(&self, names: &ObjectNames) -> Option<String> {
        self.tst_info.as_ref().map(|t| tst_info_text(t, names))
    }
}

fn tst_info_text(t: &TstInfo, names: &ObjectNames) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Version: {}", version(&t.version));
    policy(&mut s, &names.text(&t.policy));
    imprint(&mut s, &t.message_imprint);
    let _ = writeln!(s, "Serial number: {}", integer(&t.serial_number));
    let _ = writeln!(s, "Time stamp: {}", time(&t.gen_time));
    let _ = writeln!(s, "Accuracy: {}", t.accuracy.as_ref().map_or("unspecified".into(), accuracy));
    let _ = writeln!(s, "Ordering: {}", if t.ordering { "yes" } else { "no" });
    let _ = writeln!(s, "Nonce: {}", t.nonce.as_ref().map_or("unspecified".into(), integer));
    let _ = writeln!(s, "TSA: {}", t.tsa.as_ref().map_or("unspecified".into(), general_name));
    extensions(&mut s, t.extensions.as_deref(), names);
    s
}

/// A version as `ASN1_INTEGER_get` reads it (-1 where it does not fit a long).
fn version(v: &Int) -> i64 {
    small(v).unwrap_or(-1)
}

/// `TS_OBJ_print_bio`: the text in a 128-byte buffer.
fn policy(s: &mut String, text: &str) {
    let cut: String = text.chars().take(127).collect();
    let _ = writeln!(s, "Policy OID: {cut}");
}

/// `TS_MSG_IMPRINT_print_bio`: the hash's long name (`UNKNOWN` for one OpenSSL does not
/// know) and the digest dumped.
fn imprint(s: &mut String, m: &MessageImprint) {
    let name = object_name(m.hash_algorithm.oid.as_bytes()).unwrap_or("UNKNOWN");
    let _ = writeln!(s, "Hash Algorithm: {name}");
    s.push_str("Message data:\n");
    s.push_str(&hex_dump(m.hashed_message.as_bytes(), 4));
}

/// `TS_ASN1_INTEGER_print_bio`: `0x` and `BN_bn2hex` (upper case, whole bytes, `0` for
/// zero, a `-` for a negative number).
fn integer(i: &Int) -> String {
    let (negative, magnitude) = sign_magnitude(i.as_bytes());
    let digits = match magnitude.as_slice() {
        [] | [0] => "0".to_string(),
        m => m.iter().map(|b| format!("{b:02X}")).collect(),
    };
    format!("0x{}{digits}", if negative { "-" } else { "" })
}

fn accuracy(a: &Accuracy) -> String {
    let part = |v: &Option<Int>| v.as_ref().map_or("unspecified".into(), integer);
    format!("{} seconds, {} millis, {} micros", part(&a.seconds), part(&a.millis), part(&a.micros))
}

/// `ASN1_GENERALIZEDTIME_print`: `Dec  3 13:15:00.25 2026 GMT`, or `Bad time value`.
fn time(t: &GenTime) -> String {
    let Some(p) = t.parts() else { return "Bad time value".into() };
    let dot = if p.fraction.is_empty() { "" } else { "." };
    format!(
        "{} {:2} {:02}:{:02}:{:02}{dot}{} {} GMT",
        MONTHS[p.month as usize - 1],
        p.day,
        p.hour,
        p.minute,
        p.second,
        p.fraction,
        p.year
    )
}

/// `TS_ext_print_bio`: the title always, then each extension's name, `critical` if so,
/// and its value as `X509V3_EXT_print` writes it four spaces in.
fn extensions(s: &mut String, exts: Option<&[Extension]>, names: &ObjectNames) {
    s.push_str("Extensions:\n");
    for e in exts.unwrap_or_default() {
        let crit = if e.critical { " critical" } else { "" };
        let _ = writeln!(s, "{}:{crit}", names.text(&e.extn_id));
        extension_value_lines(s, "", e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_as_bn_bn2hex() {
        let i = |b: &[u8]| integer(&Int::new(b).unwrap());
        assert_eq!(i(&[1]), "0x01");
        assert_eq!(i(&[0]), "0x0");
        assert_eq!(i(&[0, 0x80, 0]), "0x8000");
        assert_eq!(i(&[0xff]), "0x-01");
        assert_eq!(i(&[0x80]), "0x-80");
        assert_eq!(i(&[0xfe, 0xff]), "0x-0101");
    }

    #[test]
    fn times_as_openssl_prints_them() {
        assert_eq!(time(&GenTime("20261203091500Z".into())), "Dec  3 09:15:00 2026 GMT");
        assert_eq!(time(&GenTime("20261203091500.25Z".into())), "Dec  3 09:15:00.25 2026 GMT");
        assert_eq!(time(&GenTime("2026".into())), "Bad time value");
    }
}
