. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
# Pools of memory from a file (common/pool_file.c), read back from outside
# hmpt: a planned block lies in a shared mapping of the file the plan
# names (/proc/self/maps, through `placed`'s report), with its pages on a
# node (move_pages); a block beyond the file's size goes to the fallback;
# a directory gives the process an unnamed file of the pool's capacity;
# after a fork, parent and child each keep their own data; a freed range
# is reused and reads zero; a hugetlbfs file gives 2 MiB pages.  A file in
# use by another process, a missing path and a directory without capacity
# are refused, each with one message naming the field.
shm=$(mktemp -d /dev/shm/hmpt-file.XXXXXX) || skip "no tmpfs at /dev/shm"
huge=$work/huge
nr=/proc/sys/vm/nr_hugepages
old=$(cat $nr)
cleanup() {
	mountpoint -q "$huge" && umount "$huge"
	echo "$old" >$nr 2>/dev/null
	rm -rf "$shm" "$work"
}
trap cleanup EXIT
M=8
learn_arrays "$work/prof" $M

# 1. a named tmpfs file of 20 MiB: A and C fit (16 MiB), D (8 MiB) does not
truncate -s 20M "$shm/pool"
one_pool_plan "$work/plan.json" "$work/prof" \
	'pm={"backend":"file","file":"'"$shm/pool"'","fallback":"system"}' "$A,$C,$D=pm"
$TUNE plan check "$work/plan.json" >"$work/check" 2>&1 || fail "plan check: $(cat "$work/check")"
grep -q "pm  *file $shm/pool" "$work/check" || fail "plan check does not name the file: $(cat "$work/check")"
grep -q "budget 20.0 MiB (its file)" "$work/check" || fail "plan check budget: $(cat "$work/check")"
run_placed "$work/plan.json" "$work/run1" arrays $M
cat "$work/run1"
for x in A C; do
	expect "$work/run1" $x file "$shm/pool"
	expect "$work/run1" $x nodes "0:$((M * 256))"
done
expect "$work/run1" B file anon
expect "$work/run1" D file anon
grep -q "^hmpt: pool pm cannot take 8.00 MiB for site $D (budget 20.0 MiB from its file" "$work/run1.err" ||
	fail "no message for D: $(cat "$work/run1.err")"
[ "$(placement "$work/run1.profile.json" "$A")" = "pm pm:1:$((M << 20)):planned" ] ||
	fail "profile placement of A: $(placement "$work/run1.profile.json" "$A")"
[ "$(stat -c %s "$shm/pool")" = $((20 << 20)) ] || fail "the file changed size"

# 2. a directory: an unnamed file of the capacity, gone with the process
one_pool_plan "$work/plan2.json" "$work/prof" \
	'pd={"backend":"file","file":"'"$shm"'","capacity":"32M"}' "$A,$C=pd"
run_placed "$work/plan2.json" "$work/run2" arrays $M
cat "$work/run2"
case $(field "$work/run2" A file) in "$shm/#"*"_(deleted)") ;; *) fail "A not in an unnamed file of $shm: $(grep '^A ' "$work/run2")" ;; esac
[ "$(ls -A "$shm")" = pool ] || fail "files left in $shm: $(ls -A "$shm")"

# 3. fork: each side keeps its own data; the freed range is reused, zero
learn_sites "$work/profk" fork $M
FA=$(site_id "$work/profk" alloc_a) FB=$(site_id "$work/profk" alloc_b)
one_pool_plan "$work/plan3.json" "$work/profk" \
	'pm={"backend":"file","file":"'"$shm/pool"'"}' "$FA,$FB=pm"
run_placed "$work/plan3.json" "$work/run3" fork $M
cat "$work/run3"
grep -qx "fork parent=intact child=intact" "$work/run3" || fail "fork: $(cat "$work/run3")"
grep -qx "reuse same=1 zero=1" "$work/run3" || fail "reuse: $(cat "$work/run3")"
expect "$work/run3" A file "$shm/pool"
expect "$work/run3" B file "$shm/pool"

# 3b. realloc: moved within the file, out of it and back, contents intact
learn_sites "$work/profr" realloc $M
RA=$(site_id "$work/profr" alloc_a) RB=$(site_id "$work/profr" grow_b)
one_pool_plan "$work/planr.json" "$work/profr" \
	'pm={"backend":"file","file":"'"$shm/pool"'"}' "$RA,$RB=pm"
run_placed "$work/planr.json" "$work/runr" realloc $M
cat "$work/runr"
grep -qx "realloc contents intact" "$work/runr" || fail "realloc: $(cat "$work/runr")"
for x in R0 R1 R3; do expect "$work/runr" $x file "$shm/pool"; done
expect "$work/runr" R2 file anon

# 4. refused: in use by another process, a missing path, no capacity; the
# program runs with default placement and keeps its exit status
flock "$shm/pool" sleep 60 &
holder=$!
for i in $(seq 50); do flock -n "$shm/pool" true 2>/dev/null || break; sleep 0.1; done
run_placed "$work/plan.json" "$work/run4" arrays $M
kill $holder 2>/dev/null; wait $holder 2>/dev/null
grep -q "pools.pm.file: another process uses $shm/pool: it holds a lock on it" "$work/run4.err" ||
	fail "in use: $(cat "$work/run4.err")"
grep -q "the program runs with default placement" "$work/run4.err" || fail "no fallback said"
expect "$work/run4" A file anon
sed "s|$shm/pool|$shm/missing|" "$work/plan.json" >"$work/bad1.json"
$TUNE plan check "$work/bad1.json" >"$work/bad1" 2>&1 && fail "plan check took a missing file"
grep -q "pools.pm.file: cannot use $shm/missing: No such file or directory" "$work/bad1" ||
	fail "missing file: $(cat "$work/bad1")"
python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); del p["pools"]["pd"]["capacity"]; json.dump(p, open(sys.argv[2], "w"))' \
	"$work/plan2.json" "$work/bad2.json" || fail "cannot write bad2.json"
$TUNE plan check "$work/bad2.json" >"$work/bad2" 2>&1 && fail "plan check took no capacity"
grep -q "pools.pd.capacity: missing: a file pool in a directory needs a capacity" "$work/bad2" ||
	fail "no capacity: $(cat "$work/bad2")"

# 5. hugetlbfs: 2 MiB pages from a file there
[ -w $nr ] || skip "cannot reserve huge pages (not root: $nr is not writable)"
echo $((old + 12)) >$nr
free=$(awk '/HugePages_Free/ { print $2 }' /proc/meminfo)
[ "$free" -ge 12 ] || skip "could reserve only $free free 2 MiB pages (memory too fragmented)"
mkdir -p "$huge" && mount -t hugetlbfs -o pagesize=2M none "$huge" || fail "cannot mount hugetlbfs"
one_pool_plan "$work/plan5.json" "$work/prof" \
	'ph={"backend":"file","file":"'"$huge"'","capacity":"16M"}' "$A=ph"
run_placed "$work/plan5.json" "$work/run5" arrays $M
cat "$work/run5"
expect "$work/run5" A pagesize_kb 2048
expect "$work/run5" A hugetlb_kb $((M * 1024))
case $(field "$work/run5" A file) in "$huge/"*) ;; *) fail "A not in $huge: $(grep '^A ' "$work/run5")" ;; esac
expect "$work/run5" B pagesize_kb 4
[ "$(awk '/HugePages_Free/ { print $2 }' /proc/meminfo)" = "$free" ] || fail "huge pages not given back"
# a capacity above the free huge pages: the pool is still made (nothing is
# reserved up front); a block that finds no huge pages goes to the fallback
one_pool_plan "$work/plan6.json" "$work/prof" \
	'ph={"backend":"file","file":"'"$huge"'","capacity":"1G"}' "$A,$C,$D=ph"
run_placed "$work/plan6.json" "$work/run6" arrays $M 20
cat "$work/run6" "$work/run6.err"
for x in A C; do expect "$work/run6" $x pagesize_kb 2048; done
expect "$work/run6" D pagesize_kb 4
expect "$work/run6" D file anon
grep -q "^hmpt: pool ph cannot take 20.0 MiB for site $D (placing it failed: Cannot allocate memory)" \
	"$work/run6.err" || fail "no message for D: $(cat "$work/run6.err")"
[ "$(awk '/HugePages_Free/ { print $2 }' /proc/meminfo)" = "$free" ] || fail "huge pages not given back (2)"
note "file pools: tmpfs file, directory, fork, reuse, refusals and hugetlbfs checked from /proc/self/maps"
