#!/usr/bin/env bash
# Makes the TLS material of the test broker's secure listeners (see scripts/kafka.sh) in folder $1, with
# openssl and the JDK's keytool. Nothing here is committed: the files are made at the broker's start when they
# are absent or the CA expires within two days, so no test ever meets an expired certificate it did not ask for.
#
#   ca.pem                       the test CA (30 days), the brokers' and clients' trust anchor
#   other-ca.pem                 a CA nobody uses: trusting only it makes the broker's certificate untrusted
#   broker.keystore.pem          key + certificate for 127.0.0.1 and localhost (the SSL, MTLS and SASL_SSL listeners)
#   wronghost.keystore.pem       key + certificate for wrong-host.invalid only (the BADHOST listener)
#   expired.keystore.pem         key + certificate for 127.0.0.1 that expired yesterday (the EXPIRED listener)
#   client.pem, client.key       the client's certificate and unencrypted PKCS#8 key (mutual TLS, PEM)
#   client.encrypted.key         the same key encrypted with $TLS_PASSWORD (kafka.ssl.key.password)
#   client.p12                   the client's key and chain as PKCS12, password $TLS_PASSWORD
#   truststore.p12               ca.pem as a PKCS12 truststore written by keytool, password $TLS_PASSWORD
set -euo pipefail

DIR=$1
TLS_PASSWORD=${TLS_PASSWORD:-sluice-test-store}

command -v openssl >/dev/null 2>&1 || { echo "kafka: openssl not found (Debian/Ubuntu: apt-get install openssl)" >&2; exit 1; }
KEYTOOL="${JAVA_HOME:+$JAVA_HOME/bin/}keytool"
command -v "$KEYTOOL" >/dev/null 2>&1 || { echo "kafka: keytool not found: it comes with the JDK (openjdk-17-jdk-headless)" >&2; exit 1; }

if [ -f "$DIR/complete" ] && openssl x509 -checkend 172800 -noout -in "$DIR/ca.pem" >/dev/null 2>&1; then
  exit 0
fi

mkdir -p "$(dirname "$DIR")"
tmp=$(mktemp -d "${DIR%/}.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

ca() { # name, common name
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.pem" -days 30 -subj "/CN=$2" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}

leaf() { # name, common name, subjectAltName, validity in days (-1: expired yesterday)
  openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" 2>/dev/null
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n' "$3" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days "$4" -extfile "$1.ext" -out "$1.pem" 2>/dev/null
  cat "$1.key" "$1.pem" ca.pem >"$1.keystore.pem"
  rm -f "$1.csr" "$1.ext"
}

ca ca "Sluice test CA"
ca other-ca "Sluice unrelated CA"
leaf broker 127.0.0.1 "IP:127.0.0.1,DNS:localhost" 30
leaf wronghost wrong-host.invalid "DNS:wrong-host.invalid" 30
leaf expired 127.0.0.1 "IP:127.0.0.1,DNS:localhost" -1
leaf client sluice-client "DNS:sluice-client" 30
openssl pkcs8 -topk8 -in client.key -out client.encrypted.key -passout "pass:$TLS_PASSWORD" 2>/dev/null
openssl pkcs12 -export -in client.pem -inkey client.key -certfile ca.pem -name client -out client.p12 -passout "pass:$TLS_PASSWORD"
"$KEYTOOL" -importcert -noprompt -alias sluice-test-ca -file ca.pem -keystore truststore.p12 -storetype PKCS12 \
  -storepass "$TLS_PASSWORD" >/dev/null 2>&1
rm -f ca.key other-ca.key ca.srl

date -u +%FT%TZ >complete
cd /
rm -rf "$DIR"
mv "$tmp" "$DIR"
echo "kafka: made TLS material in $DIR (CA valid 30 days)"
