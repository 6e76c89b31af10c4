. "$(dirname "$0")/lib.sh"
# Many sites, and the order of equal ones.
# the site ids plan check lists (its rows start with one)
plan_ids() { awk 'length($1) == 16 && $1 ~ /^[0-9a-f]+$/ { print $1 }' "$@"; }

# 1. A program of 2,000 sites (bench/nsites_gen.sh, as the N-site benchmark
# builds them): profile -> plan make -> plan check keeps every site.
n=2000
"$top/bench/nsites_gen.sh" $n "$work/src" || fail "bench/nsites_gen.sh $n failed"
(cd "$work/src" && cc -O0 -fno-omit-frame-pointer -o "$work/nsites" ./*.c) ||
	fail "could not build the $n-site program"
run_profile "$work/prof" "$work/nsites" || fail "hmpt-tune profile of the $n-site program failed"
awk -F'\t' 'NR > 1 { print $1 }' "$work/prof/sites.tsv" | sort >"$work/ids.prof"
[ "$(wc -l <"$work/ids.prof")" = $n ] ||
	fail "the profile has $(wc -l <"$work/ids.prof") sites, expected $n"
$TUNE plan make -p 'slow={"nodes":"all"}' -s all=slow -o "$work/plan.json" "$work/prof" \
	2>"$work/make.err" || fail "plan make: $(cat "$work/make.err")"
$TUNE plan check --no-machine "$work/plan.json" >"$work/check.out" 2>&1 ||
	fail "plan check: $(tail -n 5 "$work/check.out")"
grep -q "1 group, $n sites" "$work/check.out" ||
	fail "plan check does not count $n sites: $(head -n 1 "$work/check.out")"
plan_ids "$work/check.out" | sort >"$work/ids.plan"
cmp -s "$work/ids.prof" "$work/ids.plan" ||
	fail "the plan's sites are not the profile's: $(diff "$work/ids.prof" "$work/ids.plan" | head -n 4)"

# 2. Two sites of equal bytes: top:1 takes the one allocated first, in
# either order, whichever of the two ids is the smaller.
cat >"$work/ties.c" <<'EOF'
#include <stdlib.h>
void *volatile sink;
__attribute__((noinline)) void alloc_a(void) { void *p = malloc(1 << 20); sink = p; free(p); }
__attribute__((noinline)) void alloc_b(void) { void *p = malloc(1 << 20); sink = p; free(p); }
int main(int argc, char **argv)
{
	if (argc > 1 && argv[1][0] == 'b') {
		alloc_b();
		alloc_a();
	} else {
		alloc_a();
		alloc_b();
	}
	return 0;
}
EOF
(cd "$work" && cc -g -O0 -fno-omit-frame-pointer -o ties ties.c) || fail "could not build ties.c"
for first in a b; do
	run_profile "$work/t$first" "$work/ties" $first || fail "profile of ties $first failed"
	id_a=$(awk -F'\t' '$8 == "alloc_a" { print $1 }' "$work/t$first/sites.tsv")
	id_b=$(awk -F'\t' '$8 == "alloc_b" { print $1 }' "$work/t$first/sites.tsv")
	[ -n "$id_a" ] && [ -n "$id_b" ] || fail "ties $first: alloc_a's or alloc_b's site missing"
	$TUNE plan make -p 'fast={"nodes":"all"}' -s top:1=fast -o "$work/t$first.json" \
		"$work/t$first" 2>/dev/null || fail "plan make -s top:1 for ties $first failed"
	want=$([ $first = a ] && echo "$id_a" || echo "$id_b")
	got=$($TUNE plan check --no-machine "$work/t$first.json" | plan_ids)
	[ "$got" = "$want" ] ||
		fail "ties, alloc_$first first: top:1 took $got, not alloc_$first's $want (a $id_a, b $id_b)"
	note "alloc_$first first: top:1 = $got (a $id_a, b $id_b)"
done
