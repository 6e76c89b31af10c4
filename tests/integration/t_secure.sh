. "$(dirname "$0")/lib.sh"
# Under AT_SECURE (a set-user-ID program) the shim does nothing.  In secure
# mode ld.so preloads only from system directories and only set-user-ID
# libraries, so the test installs a copy there for the duration.
[ "$(id -u)" = 0 ] || skip "needs root (a set-user-ID program and a library in /usr/lib)"
id nobody >/dev/null 2>&1 || skip "no user nobody"
libdir=/usr/lib/x86_64-linux-gnu
[ -d "$libdir" ] || libdir=/usr/lib
name=libhmpt-securetest-$$.so
cp "$LIB" "$libdir/$name" && chmod 4755 "$libdir/$name" || skip "cannot install into $libdir"
trap 'rm -f "$libdir/$name"; rm -rf "$work"' EXIT
sdir=$(mktemp -d /var/tmp/hmpt-secure.XXXXXX)
trap 'rm -f "$libdir/$name"; rm -rf "$work" "$sdir"' EXIT
cp "$P/secure" "$sdir/secure"
chmod 755 "$sdir"
chown nobody "$sdir/secure" && chmod 4755 "$sdir/secure"
chmod 777 "$work"
out=$(HMPT_PROFILE=$work/sec.%p.json LD_PRELOAD=$name "$sdir/secure")
case $out in
AT_SECURE=1) ;;
AT_SECURE=0) skip "the set-user-ID bit has no effect here (nosuid mount?)" ;;
*) fail "secure program failed: $out" ;;
esac
ls "$work"/sec.*.json >/dev/null 2>&1 && fail "a profile was written under AT_SECURE"
# the same library without set-user-ID on the program: loaded and active
chmod 0755 "$sdir/secure"
out=$(HMPT_PROFILE=$work/plain.%p.json LD_PRELOAD=$name "$sdir/secure")
[ "$out" = AT_SECURE=0 ] || fail "plain run: $out"
ls "$work"/plain.*.json >/dev/null 2>&1 || fail "the library was not loaded (no profile without AT_SECURE)"
note "AT_SECURE: nothing written; without it: profile written"
