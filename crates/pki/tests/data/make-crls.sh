#!/usr/bin/env bash
# Makes the CRLs of crates/pki/tests/data (crl-*.pem) with OpenSSL's `ca -gencrl` from
# root.key/root.pem and inter.key/inter.pem, at fixed update times. Run in that directory
# with OpenSSL 3.0 or later (for -crl_lastupdate and -crl_nextupdate).
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
conf() { # conf CERT KEY INDEX EXTS
  cat > "$work/ca.cnf" <<CNF
[ca]
default_ca = d
[d]
database = $3
certificate = $1
private_key = $2
default_md = sha256
${4:+crlnumber = $work/crlnumber}
${4:+crl_extensions = $4}
[number]
authorityKeyIdentifier = keyid:always
[critical]
authorityKeyIdentifier = keyid:always
1.3.6.1.4.1.99999.1 = critical,ASN1:NULL
[onlyca]
issuingDistributionPoint = critical,@onlyca_idp
[onlyca_idp]
onlyCA = TRUE
[onlyuser]
issuingDistributionPoint = critical,@onlyuser_idp
[onlyuser_idp]
onlyuser = TRUE
[point]
issuingDistributionPoint = critical,@point_idp
[point_idp]
fullname = URI:http://crl.example/inter.crl
[entries]
authorityKeyIdentifier = keyid:always
issuerAltName = email:ca@example.com
[delta]
issuingDistributionPoint = critical,@delta_idp
2.5.29.27 = critical,ASN1:INTEGER:7
[delta_idp]
fullname = URI:http://crl.example/a.crl,URI:http://crl.example/b.crl
onlyuser = TRUE
onlysomereasons = keyCompromise,superseded
indirectCRL = TRUE
CNF
  echo "${CRLNUMBER:-01}" > "$work/crlnumber"
}
gen() { # gen OUT CERT KEY INDEX EXTS LAST NEXT
  conf "$2" "$3" "$4" "$5"
  # shellcheck disable=SC2086 # SIGOPTS is a list of options
  openssl ca -batch -config "$work/ca.cnf" -gencrl -crl_lastupdate "$6" -crl_nextupdate "$7" \
    ${SIGOPTS:-} -out "$1"
}
# The intermediate revokes the recipient (keyCompromise) and the signer's serial + 1.
printf 'R\t21261103105817Z\t251101000000Z,keyCompromise\tF5D572D4F097CCFB\tunknown\t/CN=cryptocard-test-recipient\n' > "$work/inter.idx"
printf 'R\t21261103105817Z\t251101000000Z\t0E9C78FEBD456AD8\tunknown\t/CN=someone\n' >> "$work/inter.idx"
: > "$work/empty.idx"
printf 'R\t21261103105816Z\t251101000000Z,cessationOfOperation\t02\tunknown\t/CN=cryptocard-test-intermediate\n' > "$work/root.idx"
gen crl-inter.pem inter.pem inter.key "$work/inter.idx" number 20251101000000Z 21251101000000Z
gen crl-inter-empty.pem inter.pem inter.key "$work/empty.idx" number 20251101000000Z 21251101000000Z
gen crl-inter-expired.pem inter.pem inter.key "$work/empty.idx" number 20200101000000Z 20210101000000Z
gen crl-inter-future.pem inter.pem inter.key "$work/empty.idx" number 21000101000000Z 21010101000000Z
gen crl-inter-critical.pem inter.pem inter.key "$work/empty.idx" critical 20251101000000Z 21251101000000Z
gen crl-inter-onlyca.pem inter.pem inter.key "$work/inter.idx" onlyca 20251101000000Z 21251101000000Z
gen crl-inter-onlyuser.pem inter.pem inter.key "$work/inter.idx" onlyuser 20251101000000Z 21251101000000Z
gen crl-inter-point.pem inter.pem inter.key "$work/inter.idx" point 20251101000000Z 21251101000000Z
# Entry extensions (reasons, invalidity dates, a hold instruction), a serial of 41 bytes
# and a CRL number of 129 bits; then a delta CRL (RFC 5280 5.2.4) with every part of an
# issuingDistributionPoint: for `crl -text`.
printf 'R\t21261103105817Z\t251101000000Z,CAkeyTime,20240101000000Z\t00\tunknown\t/CN=a\n' > "$work/entries.idx"
printf 'R\t21261103105817Z\t251101000000Z,keyTime,20250101000000Z\t01\tunknown\t/CN=b\n' >> "$work/entries.idx"
printf 'R\t21261103105817Z\t251101000000Z,holdInstruction,holdInstructionReject\t02\tunknown\t/CN=c\n' >> "$work/entries.idx"
printf 'R\t21261103105817Z\t251101000000Z,removeFromCRL\t%s\tunknown\t/CN=d\n' "FF$(printf '%02X' $(seq 1 40))" >> "$work/entries.idx"
CRLNUMBER=0100000000000000000000000000000000 gen crl-inter-entries.pem inter.pem inter.key "$work/entries.idx" entries 20251101000000Z 21251101000000Z
CRLNUMBER=05 gen crl-inter-delta.pem inter.pem inter.key "$work/entries.idx" delta 20251101000000Z 21251101000000Z
# Signed with RSASSA-PSS (a new signature each run); a version 1 CRL (no extensions).
SIGOPTS="-sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32" \
  gen crl-inter-pss.pem inter.pem inter.key "$work/inter.idx" number 20251101000000Z 21251101000000Z
gen crl-root-v1.pem root.pem root.key "$work/empty.idx" "" 20251101000000Z 21251101000000Z
gen crl-root.pem root.pem root.key "$work/root.idx" number 20251101000000Z 21251101000000Z
gen crl-root-empty.pem root.pem root.key "$work/empty.idx" number 20251101000000Z 21251101000000Z
