//! S/MIME (RFC 8551 section 3) in the shape OpenSSL writes and reads it.
//!
//! A detached signature is `multipart/signed` (RFC 1847): the content as the first part,
//! unchanged, and the SignedData in base64 as the second. Everything else is one
//! `application/pkcs7-mime` entity whose body is the ContentInfo in base64. `openssl
//! smime` (PKCS#7) writes the older `x-` media types, which both readers accept.

use crate::{Error, Result};
use base64ct::{Base64, Encoding};
use cryptocard::digest::HashAlg;
use cryptocard::rng::{OsRng, RandomSource};

/// Which command's header style to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `openssl cms`: `application/pkcs7-mime`, `application/pkcs7-signature`.
    Cms,
    /// `openssl smime` (PKCS#7): `application/x-pkcs7-mime`, `application/x-pkcs7-signature`.
    Pkcs7,
}

impl Style {
    fn prefix(self) -> &'static str {
        match self {
            Style::Cms => "application/",
            Style::Pkcs7 => "application/x-",
        }
    }
}

/// The `micalg` parameter of a digest (RFC 8551 section 3.5.3.2).
fn micalg(hash: HashAlg) -> String {
    match hash {
        HashAlg::Md5 => "md5",
        HashAlg::Sha1 => "sha1",
        HashAlg::Sha224 => "sha-224",
        HashAlg::Sha256 => "sha-256",
        HashAlg::Sha384 => "sha-384",
        HashAlg::Sha512 => "sha-512",
        _ => "unknown",
    }
    .into()
}

/// Base64 in 64-column lines, each ending in LF.
fn base64_lines(der: &[u8]) -> String {
    let text = Base64::encode_string(der);
    let mut out = String::with_capacity(text.len() + text.len() / 64 + 1);
    for chunk in text.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(chunk).expect("internal error: base64 is ASCII"));
        out.push('\n');
    }
    out
}

/// A detached signature as `multipart/signed`: `content` exactly as signed, then the
/// SignedData `der`; `hashes` are the signers' digests, for `micalg`.
pub fn write_signed(
    der: &[u8],
    content: &[u8],
    hashes: &[HashAlg],
    style: Style,
) -> Result<Vec<u8>> {
    let mut random = [0u8; 16];
    OsRng.fill_bytes(&mut random)?;
    let boundary: String = random.iter().map(|b| format!("{b:02X}")).collect();
    let mut algs: Vec<String> = hashes.iter().map(|&h| micalg(h)).collect();
    algs.dedup();
    let p = style.prefix();
    let mut out = format!(
        "MIME-Version: 1.0\nContent-Type: multipart/signed; protocol=\"{p}pkcs7-signature\"; \
         micalg=\"{}\"; boundary=\"----{boundary}\"\n\nThis is an S/MIME signed message\n\n\
         ------{boundary}\n",
        algs.join(",")
    )
    .into_bytes();
    out.extend_from_slice(content);
    out.extend_from_slice(
        format!(
            "\n------{boundary}\nContent-Type: {p}pkcs7-signature; name=\"smime.p7s\"\n\
             Content-Transfer-Encoding: base64\nContent-Disposition: attachment; \
             filename=\"smime.p7s\"\n\n{}\n------{boundary}--\n\n",
            base64_lines(der)
        )
        .as_bytes(),
    );
    Ok(out)
}

/// A ContentInfo as one `application/pkcs7-mime` entity; `smime_type` is `signed-data` or
/// `enveloped-data`.
pub fn write_mime(der: &[u8], smime_type: &str, style: Style) -> Vec<u8> {
    format!(
        "MIME-Version: 1.0\nContent-Disposition: attachment; filename=\"smime.p7m\"\n\
         Content-Type: {}pkcs7-mime; smime-type={smime_type}; name=\"smime.p7m\"\n\
         Content-Transfer-Encoding: base64\n\n{}\n",
        style.prefix(),
        base64_lines(der)
    )
    .into_bytes()
}

/// A MIME entity's header fields: (lower-case name, value) in order.
pub(crate) type Headers = Vec<(String, String)>;

/// A MIME entity's headers (names lower-cased, folded lines joined) and its body: the
/// bytes after the first empty line. `None` if there is no empty line.
pub(crate) fn split_headers(entity: &[u8]) -> Option<(Headers, &[u8])> {
    let mut headers = Headers::new();
    let mut pos = 0;
    loop {
        let rel_end = entity[pos..].iter().position(|&b| b == b'\n')?;
        let raw = &entity[pos..pos + rel_end];
        pos += rel_end + 1;
        let line = String::from_utf8_lossy(raw.strip_suffix(b"\r").unwrap_or(raw)).into_owned();
        if line.is_empty() {
            return Some((headers, &entity[pos..]));
        }
        if line.starts_with([' ', '\t']) {
            let (_, value) = headers.last_mut()?;
            value.push(' ');
            value.push_str(line.trim());
        } else {
            let (name, value) = line.split_once(':')?;
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
}

/// The value of header `name` (lower case).
pub(crate) fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// The value of parameter `name` in a header value (`boundary="..."`).
fn parameter(value: &str, name: &str) -> Option<String> {
    value.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim().trim_matches('"').to_string())
    })
}

fn malformed(what: &str) -> Error {
    Error::Malformed(format!("S/MIME: {what}"))
}

/// The DER of an entity's body, by its transfer encoding (base64 or binary).
fn body_der(headers: &[(String, String)], body: &[u8]) -> Result<Vec<u8>> {
    let encoding = header(headers, "content-transfer-encoding").unwrap_or("7bit");
    if encoding.eq_ignore_ascii_case("base64") {
        let text: Vec<u8> = body.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
        Base64::decode_vec(std::str::from_utf8(&text).map_err(|_| malformed("base64 body"))?)
            .map_err(|_| malformed("base64 body"))
    } else if encoding.eq_ignore_ascii_case("binary") {
        Ok(body.to_vec())
    } else {
        Err(malformed(&format!("transfer encoding {encoding}")))
    }
}

/// Where the delimiter line `--boundary` starts at a line start after `from`, and where
/// the content before it ends (the line break before a delimiter belongs to it).
fn find_delimiter(body: &[u8], delimiter: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut pos = from;
    while pos <= body.len() {
        let at_line_start = pos == 0 || body[pos - 1] == b'\n';
        if at_line_start && body[pos..].starts_with(delimiter) {
            let end = if pos == from {
                pos
            } else if pos >= 2 && body[pos - 2] == b'\r' {
                pos - 2
            } else {
                pos - 1
            };
            return Some((pos, end.max(from)));
        }
        pos += body[pos..].iter().position(|&b| b == b'\n')? + 1;
    }
    None
}

/// The ContentInfo DER of an S/MIME message and, for `multipart/signed`, the signed
/// content (the first part's bytes).
pub fn read(message: &[u8]) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
    let (headers, body) = split_headers(message).ok_or_else(|| malformed("no header block"))?;
    let ctype = header(&headers, "content-type").ok_or_else(|| malformed("no Content-Type"))?;
    let media = ctype.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match media.as_str() {
        "application/pkcs7-mime" | "application/x-pkcs7-mime" => {
            Ok((body_der(&headers, body)?, None))
        }
        "multipart/signed" => {
            let boundary = parameter(ctype, "boundary").ok_or_else(|| malformed("no boundary"))?;
            let delimiter = format!("--{boundary}").into_bytes();
            // Each part starts on the line after its delimiter line.
            let part_start = |delimiter_at: usize| -> Result<usize> {
                let from = delimiter_at + delimiter.len();
                let eol = body[from..].iter().position(|&b| b == b'\n');
                Ok(from + eol.ok_or_else(|| malformed("truncated"))? + 1)
            };
            let (first, _) =
                find_delimiter(body, &delimiter, 0).ok_or_else(|| malformed("no first part"))?;
            let start = part_start(first)?;
            let (second, content_end) = find_delimiter(body, &delimiter, start)
                .ok_or_else(|| malformed("no signature part"))?;
            let content = body[start..content_end].to_vec();
            let sig_start = part_start(second)?;
            let (_, sig_end) = find_delimiter(body, &delimiter, sig_start)
                .ok_or_else(|| malformed("no closing boundary"))?;
            let (sig_headers, sig_body) = split_headers(&body[sig_start..sig_end])
                .ok_or_else(|| malformed("signature part has no header block"))?;
            Ok((body_der(&sig_headers, sig_body)?, Some(content)))
        }
        other => Err(malformed(&format!("content type {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micalg_names() {
        assert_eq!(micalg(HashAlg::Sha1), "sha1");
        assert_eq!(micalg(HashAlg::Sha256), "sha-256");
        assert_eq!(micalg(HashAlg::Sha512), "sha-512");
    }

    #[test]
    fn multipart_round_trip_keeps_the_content_bytes() {
        for content in [&b"hello world\r\n"[..], b"no final newline", b"a\r\n\r\n--x\r\n"] {
            let msg =
                write_signed(b"\x30\x03\x02\x01\x05", content, &[HashAlg::Sha256], Style::Cms)
                    .unwrap();
            let (der, got) = read(&msg).unwrap();
            assert_eq!(der, b"\x30\x03\x02\x01\x05");
            assert_eq!(got.as_deref(), Some(content));
        }
    }

    #[test]
    fn opaque_round_trip_and_errors() {
        let msg = write_mime(&[0x30, 0x00], "enveloped-data", Style::Pkcs7);
        assert_eq!(read(&msg).unwrap(), (vec![0x30, 0x00], None));
        assert!(read(b"no headers at all").is_err());
        assert!(read(b"Content-Type: text/plain\n\nhi").is_err());
        assert!(read(b"Content-Type: multipart/signed; boundary=\"b\"\n\n--b\nx\n").is_err());
    }
}
