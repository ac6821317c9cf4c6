//! OpenSSL's text mode for S/MIME content (RFC 8551 section 3.1.1, canonical form):
//! every line ends in CRLF before it is signed or encrypted.
//!
//! [`canonical_text`] follows OpenSSL's `SMIME_crlf_copy` byte for byte, so that a text
//! signature made here verifies there and back: input is read in lines of at most 1023
//! bytes, trailing CRs and the LF of each line are removed, and a line that had an LF gets
//! CRLF.

/// OpenSSL's `BIO_gets` buffer less its terminating NUL: the longest line piece.
const LINE_PIECE: usize = 1023;

/// `content` in canonical text form (see the module docs).
pub fn canonical_text(content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + content.len() / 32 + 2);
    let mut rest = content;
    while !rest.is_empty() {
        let limit = rest.len().min(LINE_PIECE);
        let end = rest[..limit].iter().position(|&b| b == b'\n').map_or(limit, |i| i + 1);
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        let had_lf = piece.last() == Some(&b'\n');
        let mut len = piece.len() - usize::from(had_lf);
        while len > 0 && piece[len - 1] == b'\r' {
            len -= 1;
        }
        out.extend_from_slice(&piece[..len]);
        if had_lf {
            out.extend_from_slice(b"\r\n");
        }
    }
    out
}

/// `-text` when signing or encrypting: the MIME header `Content-Type: text/plain` before
/// the canonical content.
pub fn add_text_header(canonical: &[u8]) -> Vec<u8> {
    let mut out = b"Content-Type: text/plain\r\n\r\n".to_vec();
    out.extend_from_slice(canonical);
    out
}

/// `-text` when verifying or decrypting: the content after its MIME headers, which must
/// say `Content-Type: text/plain` (OpenSSL's `SMIME_text`), or `None`.
pub fn strip_text_header(content: &[u8]) -> Option<&[u8]> {
    let (headers, body) = super::smime::split_headers(content)?;
    let ctype = super::smime::header(&headers, "content-type")?;
    ctype.to_ascii_lowercase().starts_with("text/plain").then_some(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_get_crlf_and_lose_trailing_crs() {
        assert_eq!(canonical_text(b"a\nb\r\nc\r\r\nd"), b"a\r\nb\r\nc\r\nd");
        assert_eq!(canonical_text(b"\n\n"), b"\r\n\r\n");
        assert_eq!(canonical_text(b""), b"");
    }

    #[test]
    fn long_lines_are_cut_where_openssl_cuts_them() {
        // A CR at the end of a 1023-byte piece is dropped, as OpenSSL drops it.
        let mut line = vec![b'x'; LINE_PIECE - 1];
        line.push(b'\r');
        line.extend_from_slice(b"yz\n");
        let mut want = vec![b'x'; LINE_PIECE - 1];
        want.extend_from_slice(b"yz\r\n");
        assert_eq!(canonical_text(&line), want);
    }

    #[test]
    fn text_header_round_trips() {
        let body = canonical_text(b"hello\n");
        let with = add_text_header(&body);
        assert_eq!(strip_text_header(&with), Some(&body[..]));
        assert_eq!(strip_text_header(b"Content-Type: image/png\r\n\r\nx"), None);
    }
}
