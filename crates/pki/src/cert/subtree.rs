//! Whether one name lies in one name-constraint subtree (RFC 5280 section 4.2.1.10), form
//! by form, as OpenSSL 3.0 decides it (`nc_dn`, `nc_dns`, `nc_email`, `nc_email_eai`,
//! `nc_uri` and `nc_ip` in `crypto/x509/v3_ncons.c`), so that a path `openssl verify`
//! accepts is accepted here and one it refuses is refused with the same error:
//!
//! - a directory name lies under a base whose canonical encoding (`name_hash.rs`: case
//!   and spacing folded) begins its own; the empty name is the base of every name;
//! - a DNS name lies under `example.com` if it is that name or ends in `.example.com`,
//!   and under `.example.com` if it ends so; the empty base holds every name;
//! - an email address lies under `user@host` if it is that address (the local part
//!   compared exactly, the host without regard to case), under `host` if its host is
//!   that, and under `.example.com` if it ends so;
//! - a SmtpUTF8Mailbox (RFC 8398 section 6) is an email address whose host compares
//!   with the base's A-labels decoded (`punycode.rs`). Where the base starts with a dot
//!   OpenSSL 3.0 decodes it with a second dot in front, so that no mailbox lies under it,
//!   as permitted or as excluded; here it holds the mailboxes whose host ends with it, as
//!   RFC 8398 means;
//! - a URI lies under a host base if the host between `scheme://` and the first `:` or
//!   `/` is that host, and under `.example.com` if its host ends so;
//! - an IP address lies under `address/mask` if it equals the address where the mask
//!   has ones; IPv4 never lies under an IPv6 base, nor the reverse.
//!
//! Names compare as bytes: case folding is ASCII's only, as in OpenSSL.

use super::failure::PathFailure;

/// `Ok(true)` if the name lies in the subtree, `Ok(false)` if not, `Err` if the two
/// cannot be compared (OpenSSL's `X509_V_ERR_UNSUPPORTED_NAME_SYNTAX` and kin).
pub(super) type Within = Result<bool, PathFailure>;

/// The canonical directory name `name` under the canonical `base`: a prefix of it.
pub(super) fn dn_within(name: &[u8], base: &[u8]) -> bool {
    name.starts_with(base)
}

/// A DNS name under a DNS base (`nc_dns`).
pub(super) fn dns_within(dns: &[u8], base: &[u8]) -> bool {
    if base.is_empty() {
        return true;
    }
    if dns.len() < base.len() {
        return false;
    }
    let cut = dns.len() - base.len();
    if cut > 0 && base[0] != b'.' && dns[cut - 1] != b'.' {
        return false;
    }
    dns[cut..].eq_ignore_ascii_case(base)
}

/// An rfc822Name under an rfc822Name base (`nc_email`).
pub(super) fn email_within(email: &[u8], base: &[u8]) -> Within {
    let Some(at) = email.iter().rposition(|&c| c == b'@') else {
        return Err(PathFailure::UnsupportedNameSyntax);
    };
    let base_at = base.iter().rposition(|&c| c == b'@');
    if base_at.is_none() && base.first() == Some(&b'.') {
        return Ok(ends_with_ignore_case(email, base));
    }
    let mut base_host = base;
    if let Some(base_at) = base_at {
        if base_at > 0 {
            let (local, base_local) = (&email[..at], &base[..base_at]);
            if local.len() != base_local.len() {
                return Ok(false);
            }
            if local.contains(&0) || base_local.contains(&0) {
                return Err(PathFailure::UnsupportedNameSyntax);
            }
            if local != base_local {
                return Ok(false);
            }
        }
        base_host = &base[base_at + 1..];
    }
    Ok(email[at + 1..].eq_ignore_ascii_case(base_host))
}

/// A SmtpUTF8Mailbox (its UTF8String's bytes, `None` for a value of another type) under
/// an rfc822Name base (`nc_email_eai`, but for a base with a leading dot: see the module
/// docs).
pub(super) fn mailbox_within(mailbox: Option<&[u8]>, base: &[u8]) -> Within {
    if base.contains(&0) {
        return Err(PathFailure::UnsupportedNameSyntax);
    }
    let Some(mailbox) = mailbox else { return Err(PathFailure::UnsupportedNameSyntax) };
    let Some(at) = mailbox.iter().rposition(|&c| c == b'@') else {
        return Err(PathFailure::UnsupportedNameSyntax);
    };
    // OpenSSL decodes into 256 bytes, its terminating NUL included.
    let host = match super::punycode::to_unicode(base) {
        Some(host) if host.len() < 256 => host,
        _ => return Err(PathFailure::Unspecified),
    };
    if host.first() == Some(&b'.') {
        return Ok(ends_with_ignore_case(mailbox, &host));
    }
    Ok(mailbox[at + 1..].eq_ignore_ascii_case(&host))
}

/// A URI under a URI base (`nc_uri` of OpenSSL 3.0).
pub(super) fn uri_within(uri: &[u8], base: &[u8]) -> Within {
    let syntax = Err(PathFailure::UnsupportedNameSyntax);
    let Some(colon) = uri.iter().position(|&c| c == b':') else { return syntax };
    if !uri[colon..].starts_with(b"://") {
        return syntax;
    }
    let rest = &uri[colon + 3..];
    let end = rest
        .iter()
        .position(|&c| c == b':')
        .or_else(|| rest.iter().position(|&c| c == b'/'))
        .unwrap_or(rest.len());
    let host = &rest[..end];
    if host.is_empty() {
        return syntax;
    }
    if base.first() == Some(&b'.') {
        return Ok(ends_with_ignore_case(host, base));
    }
    Ok(host.eq_ignore_ascii_case(base))
}

/// An iPAddress under an iPAddress base, `address || mask` (`nc_ip`).
pub(super) fn ip_within(ip: &[u8], base: &[u8]) -> Within {
    if !matches!(ip.len(), 4 | 16) || !matches!(base.len(), 8 | 32) {
        return Err(PathFailure::UnsupportedNameSyntax);
    }
    if 2 * ip.len() != base.len() {
        return Ok(false);
    }
    let (address, mask) = base.split_at(ip.len());
    Ok(ip.iter().zip(address).zip(mask).all(|((&i, &a), &m)| i & m == a & m))
}

/// `name` is longer than `suffix` and ends with it, without regard to ASCII case.
fn ends_with_ignore_case(name: &[u8], suffix: &[u8]) -> bool {
    name.len() > suffix.len() && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use PathFailure::UnsupportedNameSyntax as Syntax;

    #[test]
    fn dns_names() {
        let cases = [
            ("www.example.com", "example.com", true),
            ("example.com", "example.com", true),
            ("WWW.EXAMPLE.com", "example.COM", true),
            ("wwwexample.com", "example.com", false),
            ("example.com", ".example.com", false),
            ("www.example.com", ".example.com", true),
            ("xexample.com", ".example.com", false),
            ("com", "example.com", false),
            ("anything", "", true),
        ];
        for (dns, base, want) in cases {
            assert_eq!(dns_within(dns.as_bytes(), base.as_bytes()), want, "{dns} under {base}");
        }
    }

    #[test]
    fn email_addresses() {
        let cases = [
            ("user@example.com", "user@example.com", Ok(true)),
            ("User@example.com", "user@example.com", Ok(false)),
            ("user@EXAMPLE.com", "user@example.com", Ok(true)),
            ("other@example.com", "user@example.com", Ok(false)),
            ("user@example.com", "example.com", Ok(true)),
            ("user@www.example.com", "example.com", Ok(false)),
            ("user@www.example.com", ".example.com", Ok(true)),
            ("user@example.com", ".example.com", Ok(false)),
            ("user@example.com", "@example.com", Ok(true)),
            ("user@example.com", "", Ok(false)),
            ("no-at-sign", "example.com", Err(Syntax)),
            ("us\0r@example.com", "us\0r@example.com", Err(Syntax)),
        ];
        for (email, base, want) in cases {
            assert_eq!(email_within(email.as_bytes(), base.as_bytes()), want, "{email} {base}");
        }
    }

    #[test]
    fn mailboxes() {
        let host = "b\u{FC}cher.example";
        let mailbox = format!("\u{7528}\u{6237}@{host}");
        let under = |base: &str| mailbox_within(Some(mailbox.as_bytes()), base.as_bytes());
        assert_eq!(under("xn--bcher-kva.example"), Ok(true));
        assert_eq!(under("XN--bcher-kva.example"), Ok(false));
        assert_eq!(under("other.example"), Ok(false));
        assert_eq!(under(".example"), Ok(true));
        assert_eq!(under(".other"), Ok(false));
        assert_eq!(under("xn--bcher-kv!.example"), Err(PathFailure::Unspecified));
        assert_eq!(mailbox_within(None, b"example"), Err(Syntax));
        assert_eq!(mailbox_within(Some(b"no-at"), b"example"), Err(Syntax));
    }

    #[test]
    fn uris() {
        let cases = [
            ("https://www.example.com/path", "www.example.com", Ok(true)),
            ("https://WWW.example.com:8443/", "www.example.com", Ok(true)),
            ("https://example.com/", "www.example.com", Ok(false)),
            ("https://www.example.com", ".example.com", Ok(true)),
            ("https://example.com", ".example.com", Ok(false)),
            ("urn:isbn:0451450523", "example.com", Err(Syntax)),
            ("https:///path", "example.com", Err(Syntax)),
            ("https:/", "example.com", Err(Syntax)),
        ];
        for (uri, base, want) in cases {
            assert_eq!(uri_within(uri.as_bytes(), base.as_bytes()), want, "{uri} {base}");
        }
    }

    #[test]
    fn ip_addresses() {
        let net10 = [10, 0, 0, 0, 255, 0, 0, 0];
        assert_eq!(ip_within(&[10, 1, 2, 3], &net10), Ok(true));
        assert_eq!(ip_within(&[11, 1, 2, 3], &net10), Ok(false));
        assert_eq!(ip_within(&[0; 16], &net10), Ok(false));
        assert_eq!(ip_within(&[10, 1, 2], &net10), Err(Syntax));
        assert_eq!(ip_within(&[10, 1, 2, 3], &net10[..7]), Err(Syntax));
        let mut v6 = [0u8; 32];
        v6[..2].copy_from_slice(&[0x20, 0x01]);
        v6[16..18].copy_from_slice(&[0xff, 0xff]);
        let mut addr = [0u8; 16];
        addr[..2].copy_from_slice(&[0x20, 0x01]);
        addr[15] = 1;
        assert_eq!(ip_within(&addr, &v6), Ok(true));
        addr[1] = 2;
        assert_eq!(ip_within(&addr, &v6), Ok(false));
    }
}
