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
crlnumber = $work/crlnumber
crl_extensions = $4
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
CNF
  echo 01 > "$work/crlnumber"
}
gen() { # gen OUT CERT KEY INDEX EXTS LAST NEXT
  conf "$2" "$3" "$4" "$5"
  openssl ca -batch -config "$work/ca.cnf" -gencrl -crl_lastupdate "$6" -crl_nextupdate "$7" -out "$1"
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
gen crl-root.pem root.pem root.key "$work/root.idx" number 20251101000000Z 21251101000000Z
gen crl-root-empty.pem root.pem root.key "$work/empty.idx" number 20251101000000Z 21251101000000Z
