//! Names printed as OpenSSL's `X509_NAME_print_ex` prints them under the flags of its
//! `-nameopt` (`do_name_ex` and `do_print_ex` in its crypto/asn1/a_strex.c): the
//! entries in order or reversed, their separators, each attribute by short name, long
//! name or OID, and each value escaped as RFC 2253 (section 2.4) or RFC 2254 (section 4)
//! asks, in quotes, converted to UTF-8, or dumped as `#` and hex.
//!
//! [`NameOpt::ONELINE`] is what OpenSSL 3.0's commands print without `-nameopt`
//! (`C = US, O = Org, CN = name`); [`NameOpt::RFC2253`] is RFC 2253's string form (last
//! RDN first, `CN=name,O=Org,C=US`); [`NameOpt::MULTILINE`] one entry a line under long
//! names; [`NameOpt::COMPAT`] OpenSSL's oldest form.

use super::name::{compat_name, oneline};
use crate::asn1::{TAG_NAMES, long_name, short_name};
use crate::{Error, Result};
use der::asn1::Any;
use der::{Class, Encode, Tagged};
use x509_cert::name::Name;

// The string flags (OpenSSL's ASN1_STRFLGS_*).
const ESC_2253: u32 = 1;
const ESC_CTRL: u32 = 2;
const ESC_MSB: u32 = 4;
const ESC_QUOTE: u32 = 8;
const UTF8_CONVERT: u32 = 0x10;
const IGNORE_TYPE: u32 = 0x20;
const SHOW_TYPE: u32 = 0x40;
const DUMP_ALL: u32 = 0x80;
const DUMP_UNKNOWN: u32 = 0x100;
const DUMP_DER: u32 = 0x200;
const ESC_2254: u32 = 0x400;
const ESC_FLAGS: u32 = ESC_2253 | ESC_2254 | ESC_QUOTE | ESC_CTRL | ESC_MSB;
const STR_RFC2253: u32 = ESC_2253 | ESC_CTRL | ESC_MSB | UTF8_CONVERT | DUMP_UNKNOWN | DUMP_DER;

// The name flags (XN_FLAG_*).
const SEP_MASK: u32 = 0xf << 16;
const SEP_COMMA_PLUS: u32 = 1 << 16;
const SEP_CPLUS_SPC: u32 = 2 << 16;
const SEP_SPLUS_SPC: u32 = 3 << 16;
const SEP_MULTILINE: u32 = 4 << 16;
const DN_REV: u32 = 1 << 20;
const FN_MASK: u32 = 3 << 21;
const FN_SN: u32 = 0;
const FN_LN: u32 = 1 << 21;
const FN_OID: u32 = 2 << 21;
const FN_NONE: u32 = 3 << 21;
const SPC_EQ: u32 = 1 << 23;
const DUMP_UNKNOWN_FIELDS: u32 = 1 << 24;
const FN_ALIGN: u32 = 1 << 25;

// A character's place in a value, for RFC 2253's escapes of the first and last.
const FIRST_ESC_2253: u32 = 0x20;
const LAST_ESC_2253: u32 = 0x40;
const BS_ESC: u32 = ESC_2253 | FIRST_ESC_2253 | LAST_ESC_2253;

/// The widths alignment pads short and long names to (`FN_WIDTH_SN`, `FN_WIDTH_LN`).
const SN_WIDTH: usize = 10;
const LN_WIDTH: usize = 25;

/// The names `-nameopt` takes: (name, bits it sets, bits it clears first).
const OPTION_NAMES: &[(&str, u32, u32)] = &[
    ("esc_2253", ESC_2253, 0),
    ("esc_2254", ESC_2254, 0),
    ("esc_ctrl", ESC_CTRL, 0),
    ("esc_msb", ESC_MSB, 0),
    ("use_quote", ESC_QUOTE, 0),
    ("utf8", UTF8_CONVERT, 0),
    ("ignore_type", IGNORE_TYPE, 0),
    ("show_type", SHOW_TYPE, 0),
    ("dump_all", DUMP_ALL, 0),
    ("dump_nostr", DUMP_UNKNOWN, 0),
    ("dump_der", DUMP_DER, 0),
    ("compat", 0, u32::MAX),
    ("sep_comma_plus", SEP_COMMA_PLUS, SEP_MASK),
    ("sep_comma_plus_space", SEP_CPLUS_SPC, SEP_MASK),
    ("sep_semi_plus_space", SEP_SPLUS_SPC, SEP_MASK),
    ("sep_multiline", SEP_MULTILINE, SEP_MASK),
    ("dn_rev", DN_REV, 0),
    ("nofname", FN_NONE, FN_MASK),
    ("sname", FN_SN, FN_MASK),
    ("lname", FN_LN, FN_MASK),
    ("align", FN_ALIGN, 0),
    ("oid", FN_OID, FN_MASK),
    ("space_eq", SPC_EQ, 0),
    ("dump_unknown", DUMP_UNKNOWN_FIELDS, 0),
    ("RFC2253", NameOpt::RFC2253.0, u32::MAX),
    ("oneline", NameOpt::ONELINE.0, u32::MAX),
    ("multiline", NameOpt::MULTILINE.0, u32::MAX),
    ("ca_default", NameOpt::MULTILINE.0, u32::MAX),
];

/// Applies the option list `arg` to `flags` as OpenSSL's apps' `set_multi_opts` does
/// (`-nameopt`, `-certopt`): comma-separated names of `table` (any case, anything after a
/// `:` ignored), each clearing its mask, then setting its bits, or clearing them after a
/// `-`. Errors: `Unsupported` naming the first unknown one as a `what`.
pub(super) fn apply_options(
    flags: &mut u32,
    arg: &str,
    table: &[(&str, u32, u32)],
    what: &str,
) -> Result<()> {
    for item in arg.split(',') {
        let item = item.split(':').next().unwrap_or("").trim();
        let (set, name) = match item.as_bytes().first() {
            Some(b'-') => (false, &item[1..]),
            Some(b'+') => (true, &item[1..]),
            _ => (true, item),
        };
        let Some(&(_, bits, clear)) = table.iter().find(|(n, _, _)| n.eq_ignore_ascii_case(name))
        else {
            return Err(Error::Unsupported(format!("{what} '{item}'")));
        };
        *flags &= !clear;
        if set {
            *flags |= bits;
        } else {
            *flags &= !bits;
        }
    }
    Ok(())
}

/// How names are printed: OpenSSL's flags word, which `-nameopt`'s names set and clear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameOpt(u32);

impl NameOpt {
    /// `C = US, O = Org, CN = name`: OpenSSL 3.0's default (`XN_FLAG_ONELINE`).
    pub const ONELINE: NameOpt = NameOpt(STR_RFC2253 | ESC_QUOTE | SEP_CPLUS_SPC | SPC_EQ | FN_SN);
    /// `CN=name,O=Org,C=US` (`XN_FLAG_RFC2253`).
    pub const RFC2253: NameOpt =
        NameOpt(STR_RFC2253 | SEP_COMMA_PLUS | DN_REV | FN_SN | DUMP_UNKNOWN_FIELDS);
    /// One entry a line, long names aligned (`XN_FLAG_MULTILINE`).
    pub const MULTILINE: NameOpt =
        NameOpt(ESC_CTRL | ESC_MSB | SEP_MULTILINE | SPC_EQ | FN_LN | FN_ALIGN);
    /// OpenSSL's oldest forms (`XN_FLAG_COMPAT`): `/C=US/O=Org` where a command prints a
    /// name alone, `C=US, O=Org` in a text dump.
    pub const COMPAT: NameOpt = NameOpt(0);

    /// The flags the `-nameopt` arguments `args` give, each applied in turn to what the
    /// ones before left, from nothing (OpenSSL's `set_nameopt`); [`NameOpt::ONELINE`]
    /// for none. An argument is a comma-separated list of the names OpenSSL takes (in
    /// any case), each set, or cleared with a `-` before it; one that leaves the
    /// separators unset gets `, ` and ` + `.
    pub fn from_args(args: &[&str]) -> Result<NameOpt> {
        if args.is_empty() {
            return Ok(NameOpt::ONELINE);
        }
        let mut flags = 0u32;
        for arg in args {
            apply_options(&mut flags, arg, OPTION_NAMES, "name option")?;
            if flags != 0 && flags & SEP_MASK == 0 {
                flags |= SEP_CPLUS_SPC;
            }
        }
        Ok(NameOpt(flags))
    }

    /// Whether each entry takes a line of its own (then a command starts the name on a
    /// new line).
    pub fn is_multiline(self) -> bool {
        self.0 & SEP_MASK == SEP_MULTILINE
    }
}

/// `name` as `X509_NAME_print_ex(out, name, indent, opt)` writes it: `indent` spaces
/// before it (and before each line after the first, one entry a line); the older
/// `C=US, O=Org` for [`NameOpt::COMPAT`]. The bytes are OpenSSL's, which need not be
/// UTF-8 when the flags neither convert nor escape what is not ASCII. A value OpenSSL
/// cannot print (a BMPString of odd length, a UTF8String that is not UTF-8) ends the
/// output there, as it ends OpenSSL's.
pub fn print_name(name: &Name, indent: usize, opt: NameOpt) -> Vec<u8> {
    if opt == NameOpt::COMPAT {
        return compat_name(name).into_bytes();
    }
    let flags = opt.0;
    let mut out = vec![b' '; indent];
    let (sep_dn, sep_mv, indent) = match flags & SEP_MASK {
        SEP_MULTILINE => ("\n", " + ", indent),
        SEP_COMMA_PLUS => (",", "+", 0),
        SEP_CPLUS_SPC => (", ", " + ", 0),
        SEP_SPLUS_SPC => ("; ", " + ", 0),
        _ => return out,
    };
    let sep_eq = if flags & SPC_EQ != 0 { " = " } else { "=" };
    let mut entries: Vec<(usize, &_)> = name
        .iter_rdn()
        .enumerate()
        .flat_map(|(set, rdn)| rdn.iter().map(move |atv| (set, atv)))
        .collect();
    if flags & DN_REV != 0 {
        entries.reverse();
    }
    let mut prev = None;
    for (set, atv) in entries {
        if let Some(p) = prev {
            if p == set {
                out.extend_from_slice(sep_mv.as_bytes());
            } else {
                out.extend_from_slice(sep_dn.as_bytes());
                out.resize(out.len() + indent, b' ');
            }
        }
        prev = Some(set);
        let known = long_name(&atv.oid).is_some();
        let fn_opt = flags & FN_MASK;
        if fn_opt != FN_NONE {
            let (field, width) = match fn_opt {
                FN_SN if known => (short_name(&atv.oid).unwrap_or_default().to_string(), SN_WIDTH),
                FN_LN if known => (long_name(&atv.oid).unwrap_or_default().to_string(), LN_WIDTH),
                _ => (atv.oid.to_string(), 0),
            };
            out.extend_from_slice(field.as_bytes());
            if flags & FN_ALIGN != 0 && field.len() < width {
                out.resize(out.len() + width - field.len(), b' ');
            }
            out.extend_from_slice(sep_eq.as_bytes());
        }
        let dump_all = if !known && flags & DUMP_UNKNOWN_FIELDS != 0 { DUMP_ALL } else { 0 };
        if print_value(&mut out, &atv.value, flags | dump_all).is_none() {
            break;
        }
    }
    out
}

/// [`print_name`] as text, for a line of a text dump; bytes that are not UTF-8 (only
/// with flags that leave them unescaped) become U+FFFD.
pub fn name_text(name: &Name, indent: usize, opt: NameOpt) -> String {
    String::from_utf8_lossy(&print_name(name, indent, opt)).into_owned()
}

/// A name as a command prints it after `title` (OpenSSL's apps' `print_name`: `subject=`
/// and the name, on the lines after it one entry a line, `/C=US/O=Org` for
/// [`NameOpt::COMPAT`]), with its newline.
pub fn print_titled(title: &str, name: &Name, opt: NameOpt) -> Vec<u8> {
    let mut out = title.as_bytes().to_vec();
    if opt == NameOpt::COMPAT {
        out.extend_from_slice(oneline(name).as_bytes());
    } else if opt.is_multiline() {
        out.push(b'\n');
        out.extend(print_name(name, 4, opt));
    } else {
        out.extend(print_name(name, 0, opt));
    }
    out.push(b'\n');
    out
}

/// The bytes a character takes, by string type: 0 for UTF-8, `None` for a type that is
/// not a string (OpenSSL's `tag2nbyte`).
fn char_width(tag: u32) -> Option<usize> {
    match tag {
        12 => Some(0),
        18..=20 | 22..=24 | 26 => Some(1),
        28 => Some(4),
        30 => Some(2),
        _ => None,
    }
}

/// One value (`do_print_ex`); `None` if OpenSSL would fail on it.
fn print_value(out: &mut Vec<u8>, value: &Any, lflags: u32) -> Option<()> {
    let tag = value.tag();
    let universal =
        (tag.class() == Class::Universal).then(|| tag.number().value()).filter(|&n| n <= 30);
    if lflags & SHOW_TYPE != 0 {
        let name = universal.map_or("(unknown)", |n| TAG_NAMES[n as usize]);
        out.extend_from_slice(name.as_bytes());
        out.push(b':');
    }
    let width = if lflags & DUMP_ALL != 0 {
        None
    } else if lflags & IGNORE_TYPE != 0 {
        Some(1)
    } else {
        universal.and_then(char_width).or((lflags & DUMP_UNKNOWN == 0).then_some(1))
    };
    let Some(width) = width else {
        out.push(b'#');
        let bytes =
            if lflags & DUMP_DER != 0 { value.to_der().ok()? } else { value.value().to_vec() };
        out.extend(bytes.iter().flat_map(|b| format!("{b:02X}").into_bytes()));
        return Some(());
    };
    // Converting UTF-8 to UTF-8 is reading it a byte at a time.
    let (width, convert) = match (lflags & UTF8_CONVERT != 0, width) {
        (true, 0) => (1, false),
        (convert, w) => (w, convert),
    };
    let mut quotes = false;
    let text = escaped(value.value(), width, convert, lflags & ESC_FLAGS, &mut quotes)?;
    if quotes {
        out.push(b'"');
    }
    out.extend(text);
    if quotes {
        out.push(b'"');
    }
    Some(())
}

/// A string's characters, read `width` bytes each (0: UTF-8), each escaped as `flags`
/// ask, or written as UTF-8 and its bytes escaped with `convert` (`do_buf`).
fn escaped(
    data: &[u8],
    width: usize,
    convert: bool,
    flags: u32,
    quotes: &mut bool,
) -> Option<Vec<u8>> {
    let chars: Vec<u32> = match width {
        0 => std::str::from_utf8(data).ok()?.chars().map(u32::from).collect(),
        1 => data.iter().map(|&b| u32::from(b)).collect(),
        w if data.len().is_multiple_of(w) => data
            .chunks(w)
            .map(|c| c.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b)))
            .collect(),
        _ => return None,
    };
    let mut out = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        // The last character's mark replaces the first's (a one-character value is
        // escaped as a last one only), as OpenSSL's loop assigns them.
        let place = if flags & ESC_2253 == 0 {
            0
        } else if i + 1 == chars.len() {
            LAST_ESC_2253
        } else if i == 0 {
            FIRST_ESC_2253
        } else {
            0
        };
        if convert {
            let ch = char::from_u32(c)?;
            let mut buf = [0u8; 4];
            for &b in ch.encode_utf8(&mut buf).as_bytes() {
                escape_char(&mut out, u32::from(b), flags | place, quotes);
            }
        } else {
            escape_char(&mut out, c, flags | place, quotes);
        }
    }
    Some(out)
}

/// The escapes each ASCII character may take (OpenSSL's charmap.h `char_type`, the bits
/// the flags select from).
fn char_class(c: u8) -> u32 {
    match c {
        0 => ESC_2254 | ESC_CTRL,
        1..=0x1f | 0x7f => ESC_CTRL,
        b' ' => FIRST_ESC_2253 | LAST_ESC_2253 | ESC_QUOTE,
        b'"' => ESC_2253,
        b'#' => FIRST_ESC_2253 | ESC_QUOTE,
        b'+' | b',' | b';' | b'<' | b'>' => ESC_2253 | ESC_QUOTE,
        b'\\' => ESC_2253 | ESC_2254,
        b'(' | b')' | b'*' => ESC_2254,
        _ => 0,
    }
}

/// One character (`do_esc_char`): past 0xff as `\UXXXX` or `\WXXXXXXXX`; an RFC 2253
/// special one backslashed, or left for quotes to guard; a control, non-ASCII or RFC
/// 2254 one as `\XX`; a backslash doubled once anything is escaped.
fn escape_char(out: &mut Vec<u8>, c: u32, flags: u32, quotes: &mut bool) {
    if c > 0xffff {
        out.extend(format!("\\W{c:08X}").into_bytes());
        return;
    }
    if c > 0xff {
        out.extend(format!("\\U{c:04X}").into_bytes());
        return;
    }
    let b = c as u8;
    let class = if b > 0x7f { flags & ESC_MSB } else { char_class(b) & flags };
    if class & BS_ESC != 0 {
        if class & ESC_QUOTE != 0 {
            *quotes = true;
        } else {
            out.push(b'\\');
        }
        out.push(b);
    } else if class & (ESC_CTRL | ESC_MSB | ESC_2254) != 0 {
        out.extend(format!("\\{b:02X}").into_bytes());
    } else if b == b'\\' && flags & ESC_FLAGS != 0 {
        out.extend_from_slice(b"\\\\");
    } else {
        out.push(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cert::parse_subject;

    /// Each beside what `openssl x509 -noout -subject -nameopt OPTS` (3.0.19) printed for
    /// a certificate of the same subject.
    #[test]
    fn as_openssl_prints_them() {
        let n = parse_subject("/C=DE/O=Grüße, \"Ltd\"/OU= lead/emailAddress=x@y").unwrap();
        let m = parse_subject("/DC=org/DC=example/OU=1+CN=joined/CN=#hash").unwrap();
        let opt = |args: &[&str]| NameOpt::from_args(args).unwrap();
        let titled = |name: &Name, args: &[&str]| print_titled("subject=", name, opt(args));
        let cases: &[(&Name, &[&str], &[u8])] = &[
            (&n, &[], b"C = DE, O = \"Gr\\C3\\BC\\C3\\9Fe, \\\"Ltd\\\"\", OU = \" lead\", emailAddress = x@y"),
            (&n, &["RFC2253"], b"emailAddress=x@y,OU=\\ lead,O=Gr\\C3\\BC\\C3\\9Fe\\, \\\"Ltd\\\",C=DE"),
            (&n, &["compat"], b"/C=DE/O=Gr\\xC3\\xBC\\xC3\\x9Fe, \"Ltd\"/OU= lead/emailAddress=x@y"),
            (&n, &["-esc_msb"], b"/C=DE/O=Gr\\xC3\\xBC\\xC3\\x9Fe, \"Ltd\"/OU= lead/emailAddress=x@y"),
            (&n, &["utf8"], "C=DE, O=Grüße, \"Ltd\", OU= lead, emailAddress=x@y".as_bytes()),
            (&n, &["oneline,-esc_msb"], "C = DE, O = \"Grüße, \\\"Ltd\\\"\", OU = \" lead\", emailAddress = x@y".as_bytes()),
            (&n, &["sep_semi_plus_space,lname,align"], b"countryName              =DE; organizationName         =Gr\xFC\xDFe, \"Ltd\"; organizationalUnitName   = lead; emailAddress             =x@y"),
            (&n, &["oid,dump_all"], b"2.5.4.6=#4445, 2.5.4.10=#4772C3BCC39F652C20224C746422, 2.5.4.11=#206C656164, 1.2.840.113549.1.9.1=#784079"),
            (&n, &["esc_2254,esc_ctrl", "use_quote,space_eq"], b"C = DE, O = Gr\xFC\xDFe, \"Ltd\", OU =  lead, emailAddress = x@y"),
            (&n, &["RFC2253,show_type"], b"emailAddress=IA5STRING:x@y,OU=UTF8STRING:\\ lead,O=UTF8STRING:Gr\\C3\\BC\\C3\\9Fe\\, \\\"Ltd\\\",C=PRINTABLESTRING:DE"),
            (&m, &[], b"DC = org, DC = example, OU = 1 + CN = joined, CN = \"#hash\""),
            (&m, &["RFC2253"], b"CN=\\#hash,CN=joined+OU=1,DC=example,DC=org"),
            (&m, &["nofname,dn_rev,sep_comma_plus"], b"#hash,joined+1,example,org"),
        ];
        for (name, args, want) in cases {
            let mut expected = b"subject=".to_vec();
            expected.extend_from_slice(want);
            expected.push(b'\n');
            let got = titled(name, args);
            assert_eq!(got, expected, "{args:?}: {}", String::from_utf8_lossy(&got));
        }
        let got = titled(&m, &["multiline"]);
        let want = "subject=\n    domainComponent           = org\n    domainComponent           = example\n    organizationalUnitName    = 1 + commonName                = joined\n    commonName                = #hash\n";
        assert_eq!(String::from_utf8_lossy(&got), want);
        let got = String::from_utf8(titled(&n, &["ca_default"])).unwrap();
        assert!(got.contains("    organizationName          = Gr\\FC\\DFe, \"Ltd\"\n"), "{got}");
        assert!(NameOpt::from_args(&["oneline,bogus"]).is_err());
        assert_eq!(opt(&["ONELINE"]), NameOpt::ONELINE);
    }
}
