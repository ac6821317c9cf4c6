#!/usr/bin/env python3
"""Writes the hostile key files of the bounded-work tests (crates/cli/tests/bounds.rs)
from rsa2048.pkcs1.der, with a DER encoder of its own (no cryptography library):

  rsa2048.ned.der      the test key as n, e, d with zero CRT fields (PKCS#1)
  hostile-p8.ned.der   n = p^8 (8192 bits) with zero CRT fields and a d right for it
  hostile-small-q.der  n = p * 3 with every CRT value right (PKCS#1)
  hostile-big-e.der    the test key's n with d = 65537 and e = d^-1 mod lambda (2047 bits)
  hostile-big-e.pub.der  its public key (PKCS#1 RSAPublicKey)
  hostile-iter.der     encrypted PKCS#8, PBKDF2-HMAC-SHA512 with 10,000,000 iterations
  hostile-short.der    encrypted PKCS#8 whose ciphertext is 15 bytes (not a whole block)

Run it from this directory: python3 hostile-keys.py
"""

from math import gcd


def der_len(n):
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def tlv(tag, body):
    return bytes([tag]) + der_len(len(body)) + body


def integer(x):
    b = x.to_bytes(x.bit_length() // 8 + 1, "big")  # a leading 0 keeps it positive
    while len(b) > 1 and b[0] == 0 and b[1] < 0x80:
        b = b[1:]
    return tlv(0x02, b)


def seq(*items):
    return tlv(0x30, b"".join(items))


def oid(dotted):
    parts = [int(p) for p in dotted.split(".")]
    body = bytes([40 * parts[0] + parts[1]])
    for p in parts[2:]:
        chunk = [p & 0x7F]
        p >>= 7
        while p:
            chunk.append(0x80 | (p & 0x7F))
            p >>= 7
        body += bytes(reversed(chunk))
    return tlv(0x06, body)


def read_integers(der):
    """The INTEGERs of a PKCS#1 RSAPrivateKey SEQUENCE."""
    assert der[0] == 0x30
    i = 2 + (der[1] & 0x7F if der[1] & 0x80 else 0)
    out = []
    while i < len(der):
        assert der[i] == 0x02
        n = der[i + 1]
        i += 2
        if n & 0x80:
            k = n & 0x7F
            n = int.from_bytes(der[i:i + k], "big")
            i += k
        out.append(int.from_bytes(der[i:i + n], "big"))
        i += n
    return out


def lcm(a, b):
    return a // gcd(a, b) * b


def pkcs1(n, e, d, p=0, q=0):
    """RSAPrivateKey version 0; zero CRT fields when p and q are 0."""
    if p:
        crt = [p, q, d % (p - 1), d % (q - 1), pow(q, -1, p)]
    else:
        crt = [0] * 5
    return seq(*(integer(x) for x in [0, n, e, d] + crt))


def encrypted(iterations, ciphertext):
    """EncryptedPrivateKeyInfo: PBES2, PBKDF2-HMAC-SHA512, AES-256-CBC."""
    kdf = seq(oid("1.2.840.113549.1.5.12"),
              seq(tlv(0x04, bytes([7] * 16)), integer(iterations),
                  seq(oid("1.2.840.113549.2.11"), tlv(0x05, b""))))
    cipher = seq(oid("2.16.840.1.101.3.4.1.42"), tlv(0x04, bytes([9] * 16)))
    alg = seq(oid("1.2.840.113549.1.5.13"), seq(kdf, cipher))
    return seq(alg, tlv(0x04, ciphertext))


def main():
    _, n, e, d, p, q, *_ = read_integers(open("rsa2048.pkcs1.der", "rb").read())
    files = {"rsa2048.ned.der": pkcs1(n, e, d)}
    lam8 = p ** 7 * (p - 1)
    files["hostile-p8.ned.der"] = pkcs1(p ** 8, e, pow(e, -1, lam8))
    files["hostile-small-q.der"] = pkcs1(3 * p, e, pow(e, -1, lcm(p - 1, 2)), p, 3)
    lam = lcm(p - 1, q - 1)
    big_e = pow(65537, -1, lam)
    files["hostile-big-e.der"] = pkcs1(n, big_e, 65537, p, q)
    files["hostile-big-e.pub.der"] = seq(integer(n), integer(big_e))
    files["hostile-iter.der"] = encrypted(10_000_000, bytes([0x5A] * 64))
    files["hostile-short.der"] = encrypted(2048, bytes([0x5A] * 15))
    for name, der in files.items():
        with open(name, "wb") as f:
            f.write(der)


main()
