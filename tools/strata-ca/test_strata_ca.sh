#!/bin/sh
# strata-ca end to end: create-ca -> host -> user -> show -> revoke, in a scratch HOME,
# plus the refusals (existing files, missing CA, bad options).
# Usage: test_strata_ca.sh STRATA_CA
set -u

if [ $# -ne 1 ]; then
    echo "usage: $0 STRATA_CA" >&2
    exit 2
fi
case $1 in /*) ca=$1 ;; *) ca=$(pwd)/$1 ;; esac

scratch=$(mktemp -d "${TMPDIR:-/tmp}/strata-ca-test.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT INT TERM
HOME=$scratch/home
mkdir "$HOME"
export HOME
unset X509_CERT_DIR

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok - $1"; }
fail() { failed=$((failed + 1)); echo "not ok - $1"; }

# check NAME COMMAND...: the command must succeed (its output is in $scratch/out).
check() {
    name=$1
    shift
    if "$@" >"$scratch/out" 2>&1; then pass "$name"; else fail "$name"; cat "$scratch/out"; fi
}
# refuse NAME PATTERN COMMAND...: the command must fail, saying PATTERN on stderr.
refuse() {
    name=$1
    pattern=$2
    shift 2
    if "$@" >"$scratch/out" 2>"$scratch/err"; then
        fail "$name (succeeded)"
    elif grep -q -- "$pattern" "$scratch/err"; then
        pass "$name"
    else
        fail "$name (no \"$pattern\" in the message)"
        cat "$scratch/err"
    fi
}
# has NAME PATTERN: the last output has a line matching PATTERN.
has() {
    if grep -q -- "$2" "$scratch/out"; then pass "$1"; else fail "$1"; cat "$scratch/out"; fi
}
mode_of() { stat -c %a "$1" 2>/dev/null; }

strata=$HOME/.strata
refuse "host without a CA" "run \`strata-ca create-ca" "$ca" host --name node1
refuse "unknown option" "unknown option --colour" "$ca" create-ca --colour
refuse "unknown command" "unknown command" "$ca" frobnicate
refuse "user without --name" "needs --name" "$ca" user

check "create-ca" "$ca" create-ca
has "create-ca names the subject" "subject: *\/O=Strata Grid\/CN=Strata CA"
[ -f "$strata/ca/cacert.pem" ] && pass "cacert.pem written" || fail "cacert.pem written"
[ "$(mode_of "$strata/ca/cakey.pem")" = 600 ] && pass "cakey.pem is 0600" || fail "cakey.pem is 0600"
hashed=$(ls "$strata/certificates" | grep -E '^[0-9a-f]{8}\.0$')
[ -n "$hashed" ] && pass "hashed CA entry $hashed" || fail "hashed CA entry in $strata/certificates"
refuse "create-ca twice" "already exists" "$ca" create-ca
# --days is refused before anything is looked at; strtol took a sign and spaces.
for days in 0 36501 +30 " 30" 30x 99999999999999999999; do
    refuse "--days '$days'" "--days must be a whole number of days from 1 to 36500, not \"$days\"" \
        "$ca" create-ca --days "$days"
done

check "host" "$ca" host --name node1.example.org
has "host subject" "subject: *\/O=Strata Grid\/CN=host\/node1.example.org"
hostdir=$strata/hosts/node1.example.org
[ "$(mode_of "$hostdir/hostkey.pem")" = 600 ] && pass "hostkey.pem is 0600" || fail "hostkey.pem is 0600"

check "user" "$ca" user --name "Jane Doe"
if [ "$(id -u)" -eq 0 ]; then
    # Never a line mapping to root: a placeholder, and why.
    has "user prints the grid-mapfile line" "^\"/O=Strata Grid/OU=Users/CN=Jane Doe\" ACCOUNT\$"
    has "user says why not root" "^(with ACCOUNT your account at that site: a line mapping to root is refused"
else
    has "user prints the grid-mapfile line" "^\"/O=Strata Grid/OU=Users/CN=Jane Doe\" $(id -un)\$"
fi
[ "$(mode_of "$strata/userkey.pem")" = 600 ] && pass "userkey.pem is 0600" || fail "userkey.pem is 0600"
refuse "user twice" "usercert.pem already exists" "$ca" user --name "Jane Doe"
check "user --force" "$ca" user --name "Jane Doe" --force

check "show" "$ca" show "$strata/usercert.pem"
has "show subject" "^subject: *\/O=Strata Grid\/OU=Users\/CN=Jane Doe\$"
has "show issuer" "^issuer: *\/O=Strata Grid\/CN=Strata CA\$"
has "show validity" "^not after: *20[0-9][0-9]-"
has "show grid-mapfile DN" "^grid-mapfile DN: \"/O=Strata Grid/OU=Users/CN=Jane Doe\"\$"
refuse "show a missing file" "cannot read certificate '$scratch/nothing'" "$ca" show "$scratch/nothing"

# Another CA directory with X509_CERT_DIR as the trusted directory.
X509_CERT_DIR=$scratch/trusted check "create-ca with X509_CERT_DIR" \
    "$ca" create-ca --dir "$scratch/ca2" --subject "/C=NL/O=Test Lab/OU=Grid/CN=Lab CA" --days 30
ls "$scratch/trusted" | grep -qE '^[0-9a-f]{8}\.0$' && pass "installed into X509_CERT_DIR" \
    || fail "installed into X509_CERT_DIR"
check "user from the second CA" "$ca" user --ca "$scratch/ca2" --name "Joe Bloggs" --out "$scratch/joe"
has "second CA subject" "^\"/C=NL/O=Test Lab/OU=Grid/OU=Users/CN=Joe Bloggs\" "

if command -v openssl >/dev/null 2>&1; then
    check "openssl verify host and user" openssl verify -CApath "$strata/certificates" \
        "$hostdir/hostcert.pem" "$strata/usercert.pem"
    check "openssl verify, second CA" openssl verify -CApath "$scratch/trusted" "$scratch/joe/usercert.pem"
    refuse "openssl rejects a cert from the other CA" "error" \
        openssl verify -CApath "$strata/certificates" "$scratch/joe/usercert.pem"
fi

# Revocation: the list names the serial, is installed beside the CA, and
# OpenSSL's own CRL check then refuses the certificate and only it.
check "revoke the user" "$ca" revoke "$strata/usercert.pem"
has "revoke names the subject" "^revoked: *\/O=Strata Grid\/OU=Users\/CN=Jane Doe (serial [0-9A-F]*)\$"
has "revoke counts one entry" "(1 revoked, next update in 30 days)"
ls "$strata/certificates" | grep -qE '^[0-9a-f]{8}\.r0$' && pass "list installed as <hash>.r0" \
    || fail "list installed as <hash>.r0"
check "revoke it again" "$ca" revoke "$strata/usercert.pem" --days 7
has "no second entry" "(1 revoked, next update in 7 days)"
refuse "revoke a certificate of another CA" "was not issued by the CA /O=Strata Grid/CN=Strata CA" \
    "$ca" revoke "$scratch/joe/usercert.pem"
refuse "revoke without a file" "revoke takes one certificate file" "$ca" revoke
if command -v openssl >/dev/null 2>&1; then
    refuse "openssl -crl_check refuses the revoked user" "certificate revoked" \
        openssl verify -crl_check -CApath "$strata/certificates" "$strata/usercert.pem"
    check "openssl -crl_check accepts the host" openssl verify -crl_check -CApath "$strata/certificates" \
        "$hostdir/hostcert.pem"
else
    echo "# skipped the openssl verify checks: no openssl on PATH"
fi

leftovers=$(find "$scratch" -name '.*.pem.*' | head -1)
[ -z "$leftovers" ] && pass "no temporary files left" || fail "temporary file left: $leftovers"

echo "# $passed passed, $failed failed"
[ "$failed" -eq 0 ]
