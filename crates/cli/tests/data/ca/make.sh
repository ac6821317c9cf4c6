#!/bin/sh
# Makes this directory's CA, requests and OpenSSL's outputs for crates/cli/tests/ca.rs, with
# the system's OpenSSL 3.0 (run here: sh make.sh). The test makes the same files with
# `cryptocard ca` from the same inputs and compares them byte for byte.
set -eu
here=$(pwd)
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out ca.key 2>/dev/null
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out leaf1.key 2>/dev/null
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out leaf2.key 2>/dev/null
openssl req -x509 -key ca.key -subj "/C=US/O=Test Org/CN=Test CA" -days 36500 -out ca.pem
openssl req -new -key leaf1.key -subj "/C=US/O=Leaf/CN=leaf.example/emailAddress=me@leaf.example" \
    -addext "subjectAltName=DNS:req.example" -addext "keyUsage=critical,digitalSignature" -out r1.csr
openssl req -new -key leaf2.key -subj "/C=US/CN=sub.example" -addext "nsComment=from the request" -out r2.csr
openssl req -new -key leaf2.key -subj "/C=DE/CN=bad.example" -out r3.csr
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp ca.cnf ca.key ca.pem "$work"
cd "$work"
mkdir newcerts; : > index.txt; echo 1000 > serial; echo 01 > crlnumber
ca() { openssl ca -config ca.cnf "$@" 2>/dev/null; }
ca -batch -in "$here/r1.csr" -out c1.pem -startdate 20250101000000Z -enddate 20260101000000Z -extensions usr_cert
ca -batch -in "$here/r2.csr" -out c2.pem -startdate 250101000000Z -enddate 20500101000000Z -extensions v3_sub -notext
ca -batch -in "$here/r2.csr" -out c3.pem -subj /C=US/CN=other -startdate 250101000000Z -enddate 260101000000Z -md sha384
cp c1.pem c2.pem c3.pem "$here"
cp index.txt "$here/index-issued.txt"
cp serial "$here/serial-issued"
ca -revoke newcerts/1000.pem -crl_reason superseded
ca -revoke newcerts/1001.pem -crl_compromise 20240101000000Z
ca -revoke newcerts/1002.pem -crl_hold holdInstructionReject
# Revocation dates are now; fixed here so that the CRLs can be made again.
sed 's/\t[0-9]\{12\}Z,/\t250101000000Z,/' index.txt > "$here/index-revoked.txt"
cp "$here/index-revoked.txt" index.txt
ca -gencrl -out crl1.pem -crl_lastupdate 250201000000Z -crl_nextupdate 20250301000000Z
ca -gencrl -out crl2.pem -crlexts crl_ext -crl_lastupdate 250201000000Z -crl_nextupdate 20250301000000Z
cp crl1.pem crl2.pem "$here"
