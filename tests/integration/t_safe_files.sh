. "$(dirname "$0")/lib.sh"
# Files hmpt writes are made without following links.  Another user
# (nobody) plants, in a sticky world-writable directory (as /tmp is), links
# to a root-owned file where the shim's profile, its temporary, and
# hmpt-tune's outputs will be; root then runs a program under the shim and
# hmpt-tune there.  The root-owned file must not change, the program's exit
# status must be kept, and each refusal must be said once, naming the file.
# Then what the shim reads from its environment: a plan path that is a FIFO
# or /dev/zero must not hang it, and the profile path's directory a link of
# another user's must not be followed.
[ "$(id -u)" = 0 ] || skip "needs root (another user plants the links)"
id nobody >/dev/null 2>&1 || skip "no user nobody"
nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- "$@"; }
pub=$(mktemp -d /tmp/hmpt-pub.XXXXXX)
trap 'rm -rf "$work" "$pub"' EXIT
chmod 1777 "$pub"
victim=$work/victim
echo "root's own data" >"$victim"
chmod 644 "$victim"
want=$(cksum <"$victim")
intact() { [ "$(cksum <"$victim")" = "$want" ] || fail "$1: the root-owned file was overwritten"; }
once() { # once FILE TEXT WHAT: TEXT said exactly once in FILE
	local n; n=$(grep -cF -- "$2" "$1")
	[ "$n" = 1 ] || fail "$3: said $n times, want once: $2 -- stderr: $(cat "$1")"
}

# run_held OUT ERR ENV...: the program under the shim, held until the links
# are planted (its pid names the temporary a predictable writer would use);
# sets $child
mkfifo "$work/go"
run_held() {
	local out=$1 err=$2; shift 2
	(read -r _ <"$work/go"; exec env LD_PRELOAD="$LIB" "$@" "$P/exits" exit 3) >"$out" 2>"$err" &
	child=$!
}
release() { echo go >"$work/go"; wait "$child"; }

# 1. a link where the temporary of a writer that names it by pid would be:
#    the profile is still written, as a file of its own, the link untouched
run_held "$work/o1" "$work/e1" HMPT_PROFILE="$pub/prof1.json"
nobody ln -s "$victim" "$pub/prof1.json.tmp.$child"
release; rc=$?
intact "a link at the profile's temporary"
[ $rc = 3 ] || fail "exit status $rc under the shim, want 3: $(cat "$work/e1")"
[ -f "$pub/prof1.json" ] && [ ! -L "$pub/prof1.json" ] && [ "$(stat -c %u "$pub/prof1.json")" = 0 ] ||
	fail "no profile of root's own at $pub/prof1.json: $(cat "$work/e1")"
grep -q '"format"' "$pub/prof1.json" || fail "prof1.json is not a profile"
[ -L "$pub/prof1.json.tmp.$child" ] || fail "the planted link was removed or replaced"
note "a link at the temporary: profile written beside it, target intact, exit 3"

# 2. a link at the profile's own name: refused, said once, status kept
run_held "$work/o2" "$work/e2" HMPT_PROFILE="$pub/prof2.json"
nobody ln -s "$victim" "$pub/prof2.json"
nobody ln -s "$victim" "$pub/prof2.json.tmp.$child"
release; rc=$?
intact "a link at the profile's name"
[ $rc = 3 ] || fail "exit status $rc, want 3"
[ -L "$pub/prof2.json" ] || fail "the link at the profile's name was replaced"
once "$work/e2" "cannot write the profile $pub/prof2.json: it is a symbolic link" "link at the profile"
note "a link at the name: $(cat "$work/e2")"

# 2b. a device at the profile's name (HMPT_PROFILE=/dev/null, as root):
#     refused, not renamed over
mknod "$work/null" c 1 3
env LD_PRELOAD="$LIB" HMPT_PROFILE="$work/null" "$P/exits" exit 3 >/dev/null 2>"$work/e2b"
rc=$?
[ $rc = 3 ] || fail "exit status $rc, want 3"
[ -c "$work/null" ] || fail "the device at the profile's name was replaced by a file"
once "$work/e2b" "cannot write the profile $work/null: it exists and is not a regular file" "a device"

# 3. another user's file at the name in a sticky directory: left alone
nobody sh -c "echo theirs >'$pub/prof3.json'"
run_held "$work/o3" "$work/e3" HMPT_PROFILE="$pub/prof3.json"
release; rc=$?
[ $rc = 3 ] || fail "exit status $rc, want 3"
[ "$(cat "$pub/prof3.json")" = theirs ] || fail "another user's file was replaced"
once "$work/e3" "cannot write the profile $pub/prof3.json: another user's file" "another user's file"

# 4. the profile's directory another user's link to root's directory
mkdir "$work/rootdir"
nobody ln -s "$work/rootdir" "$pub/dir"
run_held "$work/o4" "$work/e4" HMPT_PROFILE="$pub/dir/prof4.json"
release; rc=$?
[ $rc = 3 ] || fail "exit status $rc, want 3"
[ -z "$(ls -A "$work/rootdir")" ] || fail "wrote through another user's directory link: $(ls "$work/rootdir")"
once "$work/e4" "its directory is another user's symbolic link" "directory link"

# 5. hmpt-tune's outputs: sites.tsv of `profile`, the plan of `plan make`
nobody ln -s "$victim" "$pub/sites.tsv"
nobody ln -s "$victim" "$pub/plan.json"
nobody cp "$pub/prof1.json" "$pub/profile.99999.json" # not this run's: not merged
$TUNE profile -q --lib "$LIB" -o "$pub" -- "$P/exits" exit 0 >/dev/null 2>"$work/e5"
intact "hmpt-tune profile"
once "$work/e5" "$pub/sites.tsv: not written: it is a symbolic link" "hmpt-tune profile"
once "$work/e5" "$pub/profile.99999.json: not merged: another user's file" "another's profile"
[ -f "$pub/profile.json" ] && [ ! -L "$pub/profile.json" ] || fail "hmpt-tune wrote no profile.json"
$TUNE plan make -p 'a={"pages":"4k"}' -d a -o "$pub/plan.json" "$pub/profile.json" 2>"$work/e6"
[ $? != 0 ] || fail "plan make succeeded through a link"
intact "hmpt-tune plan make"
once "$work/e6" "$pub/plan.json: not written: it is a symbolic link" "plan make"
[ -z "$(find "$pub" -name '*.tmp.*' ! -user nobody)" ] || fail "temporaries left: $(ls "$pub")"
note "hmpt-tune: $(cat "$work/e5" "$work/e6" | tr '\n' ' ')"

# 6. the plan path: a FIFO (opening it for reading would wait for a writer)
#    and /dev/zero (endless) are refused at once, the program runs
mkfifo "$work/fifo"
for plan in "$work/fifo" /dev/zero; do
	timeout 20 env LD_PRELOAD="$LIB" HMPT_PLAN="$plan" "$P/exits" exit 3 >/dev/null 2>"$work/e7"
	rc=$?
	[ $rc = 3 ] || fail "HMPT_PLAN=$plan: exit $rc, want 3 (124: hung): $(cat "$work/e7")"
	once "$work/e7" "$plan: not a regular file" "HMPT_PLAN=$plan"
done
note "HMPT_PLAN a FIFO or /dev/zero: refused, exit 3"
