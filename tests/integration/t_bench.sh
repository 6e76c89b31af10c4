. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
# hmpt-bench: a short run of every mode with the page-size pools (4 KiB and
# THP pages); the results' structure, every kernel verified, the arrays
# really in the pages their pool asks for (never how fast: that is a
# benchmark's to say, not a test's); a pool that cannot give its memory
# is said and skipped while the rest runs (exit 3); bad options exit 2.
BENCH=$B/hmpt-bench
# whether the kernel grants 2 MiB pages now (need_thp's pre-flight): when it
# does not, the thp pools' share of huge pages is not checked, and said so
thp=granted
(need_thp) >"$work/thp" 2>&1 || { [ $? = 77 ] && thp=$(tail -n 1 "$work/thp") || fail "$(cat "$work/thp")"; }
[ "$thp" = granted ] || note "$thp: the thp pools' huge pages are not checked"
out=$work/b
"$BENCH" -p 4k,thp -s 8M --window-max 8M -g 8M --reads 256K -n 3 -t 1,2 -o "$out" \
	>"$work/stdout" 2>"$work/stderr" || fail "hmpt-bench exited $?: $(cat "$work/stderr")"
cat "$work/stdout"
for f in results.json results.csv plots.gp; do [ -s "$out/$f" ] || fail "no $f"; done
if command -v gnuplot >/dev/null; then
	for f in stream latency gather; do
		for e in svg png; do [ -s "$out/$f.$e" ] || fail "no $f.$e: $(cat "$out/plots.log")"; done
	done
fi
# the last-level cache and where its size came from (sysfs, or sysconf or
# cpuid where sysfs has no cache entries); the STREAM-rule warning comes
# exactly when 8 MiB arrays are below 4 x that size, whichever source gave it
read -r llc src < <(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["machine"]
print(m["last_level_cache_bytes"], m["last_level_cache_source"])' "$out/results.json")
grep -qF "last-level cache " "$work/stdout" && grep -qF "($src)" "$work/stdout" ||
	fail "the output does not say where the cache size came from ($src)"
if [ "$llc" -gt 0 ] && [ $((4 * llc)) -gt $((8 << 20)) ]; then
	grep -q "below STREAM's rule of 4 x the last-level cache" "$work/stderr" ||
		fail "no warning about arrays smaller than STREAM's rule (cache $llc bytes, $src)"
elif [ "$llc" -eq 0 ]; then
	grep -q "last-level cache size is unknown" "$work/stderr" ||
		fail "no warning that the cache size is unknown"
else
	grep -q "below STREAM's rule" "$work/stderr" && fail "a STREAM-rule warning for 8 MiB arrays with a $llc-byte cache"
fi
note "last-level cache $llc bytes ($src)"
python3 - "$out" "$thp" <<'PY' || fail "results.json"
import csv, json, sys
out, thp = sys.argv[1], sys.argv[2]
r = json.load(open(out + "/results.json"))
rows = r["results"]
def of(mode): return [x for x in rows if x["mode"] == mode]
# stream: copy and scale 2x2 placements, add and triad 3x2 (inputs unordered), 2 thread counts
s = of("stream")
want = {("copy", p) for p in ("4k->4k", "4k->thp", "thp->4k", "thp->thp")}
want |= {("scale", p) for p in ("4k->4k", "4k->thp", "thp->4k", "thp->thp")}
for k in ("add", "triad"):
    want |= {(k, i + "->" + o) for i in ("4k+4k", "4k+thp", "thp+thp") for o in ("4k", "thp")}
got = {(x["what"], x["placement"]) for x in s}
assert got == want, (sorted(got ^ want))
assert len(s) == 2 * len(want) and {x["threads"] for x in s} == {1, 2}
assert all(x["verified"] and x["value"] > 0 and x["min_s"] <= x["avg_s"] <= x["max_s"] for x in s)
assert all(x["bytes"] == 8 << 20 and x["unit"] == "GB/s" for x in s)
assert r["stream"]["passes"] == 3 and r["stream"]["counted"] == 2 and r["stream"]["elements"] == 1 << 20
# latency: windows 4K..8M for the two page kinds (4k and thp are already those pools)
l = of("latency")
wins = [4096 << i for i in range(12)]
for pool in ("4k", "thp"):
    assert [x["bytes"] for x in l if x["placement"] == pool] == wins, pool
assert all(x["value"] > 0 and x["threads"] == 1 for x in l)
# gather: both pools, both thread counts, sums verified
g = of("gather")
assert sorted((x["placement"], x["threads"]) for x in g) == [("4k", 1), ("4k", 2), ("thp", 1), ("thp", 2)]
assert all(x["verified"] and x["value"] > 0 for x in g)
# every figure names its pools (node set and page policy), threads and sizes
pools = {p["name"]: p for p in r["pools"]}
assert pools["4k"]["placement"] == "no node policy, 4k pages", pools
assert pools["thp"]["placement"] == "no node policy, thp pages", pools
for k in ("stream_text", "latency_text", "gather_text"):
    assert "MiB" in r[k] or "KiB" in r[k], r[k]
# where the arrays really were: 4k pools never in huge pages; thp ones mostly
# (when the kernel grants huge pages here now)
pl = r["placement"]
assert len(pl) == 3 * 2 + 2 + 2 * 2, len(pl)
for p in pl:
    assert p["sampled_pages"] > 0 and sum(p["nodes"].values()) == p["sampled_pages"], p
    if p["pool"] == "4k":
        assert p["huge_pages"] == 0, p
    elif thp == "granted":
        assert p["huge_pages"] > 0.9, p
# results.csv: one row per result
c = list(csv.DictReader(open(out + "/results.csv")))
assert len(c) == len(rows) and all(x["verified"] == "yes" for x in c)
print("stream %d, latency %d, gather %d figures; all verified" % (len(s), len(l), len(g)))
PY
note "every mode measured and verified; arrays in the pages their pools ask for"

# memory it cannot get: a pool whose capacity is too small, and HBM that is
# not here; the rest still runs and the exit status says so
"$BENCH" -q -p '{"pages":"4k","capacity":"4M"}',4k,hbm -s 8M -n 2 -t 1 -k copy \
	--window-max 64K -g 8M --reads 64K -o "$work/c" 2>"$work/err"
rc=$?
cat "$work/err"
[ $rc = 3 ] || fail "exit $rc with a pool that cannot give its memory, want 3"
grep -q '^hmpt-bench: stream: pool pool1: cannot get 8.00 MiB: its budget is 4.00 MiB (capacity)' "$work/err" ||
	fail "no clear message for the pool without room"
# (on a one-node machine there is no HBM to find)
[ -d /sys/devices/system/node/node1 ] ||
	grep -q '^hmpt-bench: pool hbm: nodes: "hbm", but no HBM nodes were found' "$work/err" ||
	fail "no message for hbm"
python3 - "$work/c/results.json" <<'PY' || fail "the other pool was not measured"
import json, sys
r = json.load(open(sys.argv[1]))
got = {(x["mode"], x["placement"]) for x in r["results"]}
assert ("stream", "4k->4k") in got and ("gather", "4k") in got and ("latency", "4k") in got, got
assert not [x for x in r["results"] if "pool1" in x["placement"] and x["mode"] != "latency"], got
av = {p["name"]: p["available"] for p in r["pools"]}
assert av["4k"] and av["pool1"], av
PY
note "a pool without room: said, skipped, the rest measured, exit 3"

# bad usage: one message naming the option, exit 2
expect_usage() {
	local msg=$1; shift
	"$BENCH" "$@" >/dev/null 2>"$work/err"
	local rc=$?
	[ $rc = 2 ] || fail "hmpt-bench $*: exit $rc, want 2"
	grep -qF -- "$msg" "$work/err" || fail "hmpt-bench $*: says $(cat "$work/err") -- want: $msg"
	echo "ok: $(head -n 1 "$work/err")"
}
expect_usage "--kernels: expected a list of copy,scale,add,triad: copy,foo" --kernels copy,foo
expect_usage "--threads: expected thread counts from 1 to 4096" -t 1,0
expect_usage "--size: expected a size of at least 4.00 KiB" -s 12x
expect_usage "--pools: expected hbm, ddr, fastest-tier, slowest-tier, thp, 4k, hugetlb, system or a pool" -p 4k,fast
expect_usage "--pages: expected a list of 4k,thp,hugetlb" --pages 1g
expect_usage "expected a mode: stream, latency or gather: bogus" bogus
expect_usage "--window-min is larger than --window-max" --window-min 1M --window-max 64K
"$BENCH" --help | grep -q '^Usage: hmpt-bench' || fail "--help"
