#!/bin/sh
# How the fixed certificates here were made (OpenSSL 3.0.19, 2026-11-27): a root CA, an
# intermediate, a signer and a recipient under the intermediate, and an unrelated root;
# valid until 2126 so that the tests do not expire. Re-running makes new keys.
set -e
cd "$(dirname "$0")"
ext() { printf '%s\n' "$@" > ext.cnf; }
openssl req -x509 -newkey rsa:2048 -nodes -keyout root.key -subj /CN=cryptocard-test-root -days 36500 -out root.pem
openssl req -x509 -newkey rsa:2048 -nodes -keyout other-root.key -subj /CN=unrelated-root -days 36500 -out other-root.pem
ext basicConstraints=critical,CA:TRUE keyUsage=critical,keyCertSign,cRLSign subjectKeyIdentifier=hash authorityKeyIdentifier=keyid
openssl req -new -newkey rsa:2048 -nodes -keyout inter.key -subj /CN=cryptocard-test-intermediate -out inter.csr
openssl x509 -req -in inter.csr -CA root.pem -CAkey root.key -set_serial 2 -days 36500 -extfile ext.cnf -out inter.pem
ext basicConstraints=CA:FALSE keyUsage=digitalSignature,keyEncipherment subjectKeyIdentifier=hash authorityKeyIdentifier=keyid
for who in signer recipient; do
  openssl req -new -newkey rsa:2048 -nodes -keyout $who.key -subj /CN=cryptocard-test-$who -out $who.csr
  openssl x509 -req -in $who.csr -CA inter.pem -CAkey inter.key -set_serial 0x$(openssl rand -hex 8) -days 36500 -extfile ext.cnf -out $who.pem
done
rm -f ext.cnf *.csr other-root.key

# Messages made by OpenSSL for the tests to open (the content is message.txt).
printf 'The seed paper signs and envelopes this.\n' > message.txt
openssl cms -sign -in message.txt -signer signer.pem -inkey signer.key -certfile inter.pem -binary -nodetach -outform DER -out openssl-signed.der
openssl cms -sign -in message.txt -signer signer.pem -inkey signer.key -md sha384 -keyopt rsa_padding_mode:pss -binary -outform DER -out openssl-signed-pss-detached.der
for c in des3 aes128 aes256; do
  openssl cms -encrypt -in message.txt -binary -$c -outform DER -out openssl-enveloped-$c.der recipient.pem
done
# Single DES is in OpenSSL 3's legacy provider.
openssl cms -encrypt -provider legacy -provider default -in message.txt -binary -des -outform DER -out openssl-enveloped-des.der recipient.pem
openssl cms -encrypt -in message.txt -binary -aes256 -recip recipient.pem -keyopt rsa_padding_mode:oaep -keyopt rsa_oaep_md:sha256 -outform DER -out openssl-enveloped-oaep.der
# Streamed (BER, indefinite lengths, the content in chunks) as -stream writes them.
openssl cms -sign -stream -in message.txt -signer signer.pem -inkey signer.key -certfile inter.pem -binary -nodetach -outform DER -out openssl-signed-ber.der
openssl cms -encrypt -stream -in message.txt -binary -aes256 -outform DER -out openssl-enveloped-ber.der recipient.pem
