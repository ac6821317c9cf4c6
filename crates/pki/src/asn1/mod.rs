//! Any DER or BER, listed element by element as `openssl asn1parse` lists it (X.690
//! section 8: identifier, length and contents octets), for looking inside what the rest
//! of the library parses by structure.
//!
//! - [`list`]: the listing, line for line as OpenSSL 3.0's `ASN1_parse_dump` prints it,
//!   including where it stops on a bad encoding.
//! - [`dig`]: the contents of the element at an offset (`asn1parse -strparse`), to list
//!   what an OCTET STRING or BIT STRING wraps.
//! - [`object_text`]: an OBJECT IDENTIFIER as OpenSSL names it (its object table's long
//!   names, `oid_names`, or dotted decimal).
//! - [`hex_dump`]: OpenSSL's `BIO_dump_indent` layout.
//! - [`generate`]: DER from OpenSSL's generator strings (`ASN1_generate_nconf`), for
//!   `asn1parse -genstr`/`-genconf` and extensions given as `ASN1:...`.
//! - [`ObjectNames`]: a configuration's own object names (`oid_section`).
//!
//! Every walk is linear in its input; nesting is bounded at OpenSSL's 128 levels for the
//! listing and 5 for constructed strings in [`dig`].

mod dig;
mod generate;
mod header;
mod listing;
mod names;
mod object;
mod oid_names;

pub use dig::{DigError, dig};
pub use generate::generate;
pub(crate) use listing::TAG_NAMES;
pub use listing::{Dump, Listing, list};
pub use names::ObjectNames;
pub use object::{long_name, object_by_name, object_name, object_text, short_name};

use core::fmt::Write as _;

/// `bytes` in OpenSSL's `BIO_dump_indent` layout: rows of `indent` spaces, the row's
/// offset in four hex digits, up to 16 bytes in hex (a `-` after the eighth) and the
/// bytes as ASCII, `.` for the unprintable. An indent above 6 takes bytes off each row,
/// as OpenSSL's does; indents are capped at 64.
pub fn hex_dump(bytes: &[u8], indent: usize) -> String {
    let indent = indent.min(64);
    let width = 16 - (indent - indent.min(6)).div_ceil(4);
    let mut s = String::new();
    for (row, chunk) in bytes.chunks(width).enumerate() {
        let _ = write!(s, "{:indent$}{:04x} - ", "", row * width);
        for j in 0..width {
            match chunk.get(j) {
                Some(b) => {
                    let _ = write!(s, "{b:02x}{}", if j == 7 { '-' } else { ' ' });
                }
                None => s.push_str("   "),
            }
        }
        s.push_str("  ");
        s.extend(chunk.iter().map(|&b| if (b' '..=b'~').contains(&b) { b as char } else { '.' }));
        s.push('\n');
    }
    s
}

/// The days of `month` (1 to 12) in `year` of the Gregorian calendar; `None` for a month
/// out of range. For the checks of times written as text.
pub(crate) fn days_in_month(year: u32, month: u32) -> Option<u32> {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    days.get(usize::try_from(month).ok()?.checked_sub(1)?).copied()
}

/// Upper-case hex without separators, as OpenSSL's `%02X` loops print bytes.
fn upper_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 * bytes.len());
    for b in bytes {
        let _ = write!(s, "{b:02X}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_dump_rows() {
        let data: Vec<u8> = (0x20..0x20 + 20).collect();
        let want = "      0000 - 20 21 22 23 24 25 26 27-28 29 2a 2b 2c 2d 2e 2f    !\"#$%&'()*+,-./\n\
                    \x20     0010 - 30 31 32 33                                       0123\n";
        assert_eq!(hex_dump(&data, 6), want);
        // Indent 10 takes one byte off a row; nothing at all prints no rows.
        assert!(hex_dump(&data, 10).contains("000f - 2f"));
        assert_eq!(hex_dump(&[], 6), "");
        // Indent 0 is `BIO_dump`'s layout.
        assert_eq!(
            hex_dump(b"hello world, this is a longer text!", 0),
            "0000 - 68 65 6c 6c 6f 20 77 6f-72 6c 64 2c 20 74 68 69   hello world, thi\n\
             0010 - 73 20 69 73 20 61 20 6c-6f 6e 67 65 72 20 74 65   s is a longer te\n\
             0020 - 78 74 21                                          xt!\n"
        );
    }
}
