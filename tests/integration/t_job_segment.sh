. "$(dirname "$0")/lib.sh"
# The node's segment of a job (/dev/shm/hmpt.<uid>.<hash of the job key>,
# shim/job.c) trusts no one.  Its path is predictable, so another user
# (nobody) makes it first: (a) a file of mode 0666 set up like a segment,
# "ready", its robust mutex held by a live thread of theirs; (b) a symbolic
# link to a file of theirs; then root's own files that are not a segment
# made by the job: (c) mode 0644, (d) a second link to a segment.  In each
# case the three ranks of a job (alloc_c under the shim) finish with exit 0
# (none waits on the planted lock), each says once, with the path and why,
# that it goes alone, and the planted file is unchanged.  Then the leftovers
# of the same user's crashed jobs are reused: (e) the segment of a rank
# killed while attached (made 0600, single-linked), (f) an empty file whose
# maker died before setting it up: the ranks share it, say nothing, and the
# last one removes it; (g) a valid segment of root's whose lock a live
# process holds: the ranks wait a few seconds, then each goes alone; (h) an
# empty file, mode 0400 (its maker's umask), whose maker lives but stopped
# setting it up: the ranks wait, go alone and leave it there (removing it
# would split the job across two segments); (i) a rank sharing a segment
# whose lock another process then keeps: past the wait the rank goes alone
# and writes nothing more to the segment, and, the last one attached,
# removes it at its exit.
[ "$(id -u)" = 0 ] || skip "needs root (another user, nobody, plants the files)"
id nobody >/dev/null 2>&1 || skip "no user nobody"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is missing"

sdir=$(mktemp -d /var/tmp/hmpt-seg.XXXXXX)
squatter=
rank=
seg=
cleanup() {
	[ -n "$squatter" ] && kill "$squatter" 2>/dev/null
	[ -n "$rank" ] && kill "$rank" 2>/dev/null
	wait
	[ -n "$seg" ] && rm -f "$seg" "$seg.other"
	rm -rf "$work" "$sdir"
}
trap cleanup EXIT
cp "$P/seg_squat" "$sdir/"
chmod 755 "$sdir/seg_squat"
chmod 1777 "$sdir" # nobody makes the link's target there
# a command prefix, not a function: run in the background, its pid is the program's
as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)

key=t_job_segment.$$.$RANDOM
# Hydra's ranks: the job's key is PMI_KVSNAME's (job.c's families_g)
seg=$("$P/seg_squat" path "$(id -u)" "PMI_KVSNAME.$key") || fail "seg_squat path failed"
[ ! -e "$seg" ] || fail "$seg exists before the test"
alone_msg="cannot share with the job's other ranks on this node"

# job NAME: the job's three ranks at once, each bounded; exit codes in rc[]
job() {
	local r pids=()
	for r in 0 1 2; do
		PMI_KVSNAME=$key PMI_RANK=$r PMI_SIZE=3 timeout -k 5 30 env LD_PRELOAD="$LIB" "$P/alloc_c" \
			>"$work/$1.$r.out" 2>"$work/$1.$r.err" &
		pids+=($!)
	done
	for r in 0 1 2; do
		wait "${pids[$r]}"
		rc[$r]=$?
	done
}

# ranks_ok NAME: every rank exited 0 (124: it hung on the segment)
ranks_ok() {
	for r in 0 1 2; do
		[ "${rc[$r]}" = 0 ] || fail "$1: rank $r exited ${rc[$r]}: $(cat "$work/$1.$r.err")"
	done
}

# alone NAME REASON: each rank said once, with the path and REASON, that it went alone
alone() {
	ranks_ok "$1"
	for r in 0 1 2; do
		local n
		n=$(grep -c "$alone_msg" "$work/$1.$r.err")
		[ "$n" = 1 ] || fail "$1: rank $r said $n times (not once) that it goes alone: $(cat "$work/$1.$r.err")"
		grep "$alone_msg" "$work/$1.$r.err" | grep -F "$seg" | grep -q -- "$2" ||
			fail "$1: rank $r does not say why ($2) with the path: $(cat "$work/$1.$r.err")"
	done
	note "$1: 3 ranks exit 0, each alone: $(grep -h -o "$alone_msg ([^)]*)" "$work/$1.0.err")"
}

# shared NAME: no rank said it went alone, and the last one removed the segment
shared() {
	ranks_ok "$1"
	! grep -q "$alone_msg" "$work/$1".*.err || fail "$1: a rank went alone: $(cat "$work/$1".*.err)"
	[ ! -e "$seg" ] || fail "$1: the segment is left after the job: $(ls -l "$seg")"
	note "$1: 3 ranks exit 0 and shared the segment"
}

# wait_for WORD FILE: FILE has a line WORD (bounded: a program that hangs fails)
wait_for() {
	for _ in $(seq 300); do grep -qsx "$1" "$2" && return; sleep 0.1; done
	fail "no '$1' in $2: $(cat "$2")"
}

# squat CMD...: a seg_squat that holds its segment's lock, in the background;
# squat_end: it is still there, then gone
squat() {
	: >"$work/squat.out" # not the last squatter's word
	"$@" >"$work/squat.out" 2>&1 &
	squatter=$!
	for _ in $(seq 100); do grep -qs holding "$work/squat.out" && break; sleep 0.1; done
	grep -q holding "$work/squat.out" || fail "the squatter did not take its lock: $(cat "$work/squat.out")"
}
squat_end() {
	kill -0 "$squatter" || fail "the squatter is gone"
	kill "$squatter"
	wait "$squatter" 2>/dev/null
	squatter=
	rm -f "$seg"
}

# (a) nobody's segment, mode 0666, its lock held by a live thread
squat "${as_nobody[@]}" "$sdir/seg_squat" plant "$seg" 0666 held
before=$(sha256sum <"$seg")
job held
alone held "a file of uid $(id -u nobody), not this user's"
[ "$(sha256sum <"$seg")" = "$before" ] || fail "held: the ranks changed nobody's file"
squat_end

# (b) a symbolic link of nobody's to a file of theirs
"${as_nobody[@]}" touch "$sdir/target.b" || fail "nobody cannot make a file"
"${as_nobody[@]}" ln -s "$sdir/target.b" "$seg" || fail "nobody cannot make the link"
job link
alone link "a symbolic link at"
[ ! -s "$sdir/target.b" ] || fail "link: the ranks wrote through the link"
rm -f "$seg"

# (c) root's own file, set up like a segment, but mode 0644
"$P/seg_squat" plant "$seg" 0644 free || fail "plant 0644 failed"
before=$(sha256sum <"$seg")
job mode
alone mode "a file of mode 0644, not 0600"
[ "$(sha256sum <"$seg")" = "$before" ] || fail "mode: the ranks changed the file"
rm -f "$seg"

# (d) a second name of a segment: two links
"$P/seg_squat" plant "$seg.other" 0600 free || fail "plant failed"
ln "$seg.other" "$seg"
before=$(sha256sum <"$seg")
job nlink
alone nlink "a file of 2 links, not 1"
[ "$(sha256sum <"$seg")" = "$before" ] || fail "nlink: the ranks changed the file"
rm -f "$seg" "$seg.other"

# (e) the segment of a rank killed while attached: made 0600, one link, by root
PMI_KVSNAME=$key PMI_RANK=0 PMI_SIZE=3 LD_PRELOAD=$LIB sleep 60 &
sleeper=$!
for _ in $(seq 100); do [ -s "$seg" ] && break; sleep 0.1; done
made=$(stat -c '%U %a %h %F' "$seg" 2>&1)
bytes=$(stat -c %s "$seg" 2>&1)
kill -9 "$sleeper"
wait "$sleeper" 2>/dev/null
[ "$made" = "root 600 1 regular file" ] || fail "crash: the segment made by a rank is '$made'"
job crash
shared crash

# (f) an empty file of root's own, 0600: its maker died before setting it up
install -m 600 /dev/null "$seg"
job stale
shared stale

# (g) root's own segment, valid and ready, whose lock a live process holds
# (a rank stopped in it): each rank waits a bounded time, then goes alone
squat "$P/seg_squat" plant "$seg" 0600 held "$bytes"
job stuck
alone stuck "its lock held by another process for 3 s"
squat_end

# (h) root's own empty file, mode 0400 as its maker's umask left it, whose
# maker lives and holds its flock (stopped setting it up)
squat "$P/seg_squat" making "$seg" 0400
made=$(stat -c '%i %s' "$seg")
job making
alone making "its maker, alive, has not finished setting up"
[ "$(stat -c '%i %s' "$seg")" = "$made" ] || fail "making: the maker's file was replaced or changed"
squat_end

# (i) a rank that shares the node's accounts (a plan's pool), then another
# process takes the segment's lock and keeps it while the rank frees and
# allocates; the squatter compares the segment before it lets go
echo '{"format": "hmpt-plan", "format_version": 1, "pools": {"fast": {"pages": "4k", "capacity": "1G"}}, "default_pool": "fast", "groups": []}' >"$work/plan.json"
mkfifo "$work/to_rank" "$work/to_squat"
exec 3<>"$work/to_rank" 4<>"$work/to_squat"
PMI_KVSNAME=$key PMI_RANK=0 PMI_SIZE=1 HMPT_PLAN=$work/plan.json timeout -k 5 30 \
	env LD_PRELOAD="$LIB" "$P/seg_squat" rank 8 <&3 >"$work/rank.out" 2>"$work/rank.err" &
rank=$!
wait_for ready "$work/rank.out"
[ -s "$seg" ] || fail "alone: the rank made no segment: $(cat "$work/rank.err")"
"$P/seg_squat" hold "$seg" <&4 >"$work/squat.out" 2>&1 & # its stdin: not /dev/null
squatter=$!
wait_for holding "$work/squat.out"
echo go >&3
wait_for done "$work/rank.out"
echo go >&4
wait "$squatter"
squatter=
grep -qx unchanged "$work/squat.out" ||
	fail "alone: the rank wrote to the segment without its lock: $(cat "$work/squat.out")"
echo go >&3
wait "$rank"
rc=$?
rank=
[ "$rc" = 0 ] || fail "alone: the rank exited $rc: $(cat "$work/rank.err")"
# one line, that one: the plan was taken, nothing else went wrong
n=$(grep -c "$alone_msg" "$work/rank.err")
[ "$n" = 1 ] && [ "$(wc -l <"$work/rank.err")" = 1 ] && grep -F "$seg" "$work/rank.err" | grep -q "its lock held by another process for 3 s" ||
	fail "alone: the rank did not say once why it goes alone: $(cat "$work/rank.err")"
[ ! -e "$seg" ] || fail "alone: the segment is left after its last rank: $(ls -l "$seg")"
note "alone: the rank past the lock's wait wrote nothing more to the segment and removed it at exit"
