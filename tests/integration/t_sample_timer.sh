#!/bin/bash
# The timer source against a program's own truth: tests/progs/truthwalk
# walks five arrays (sequential, strided by 4 KiB, random gather, pointer
# chase, random update), each for a known share of its CPU time, and writes
# what it did.  Under HMPT_SAMPLE=timer, with 1 and with 2 OpenMP threads:
# - Spearman's rho between each site's samples and its array's share of
#   the walks' CPU time is 0.9 or more, and the three top sites are the
#   three top arrays;
# - 90 % or more of the samples whose instruction touches memory are
#   decoded to an address (sampling.decode);
# - each site's pattern, from its sampled addresses, is the array's walk
#   (the stride too), and most of its samples name the walk's function.
# At 10 kHz (HMPT_SAMPLE_PERIOD): a sequential pass lasts ~10 ms here and a
# strided one ~5 ms, 10 and 5 samples at the default 1 kHz, too few to show
# a walk one way (both read as random there); the shares, the decoding and
# the random walks hold at 1 kHz too.  The truth is in CPU time, as the
# timer's is, so a busy machine changes neither.
. "$(dirname "$0")/lib.sh"

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$paranoid" -le 2 ] || skip "perf_event_paranoid $paranoid: perf events are closed to users here"

# run_truth THREADS: profile truthwalk -t THREADS and check it against its truth
run_truth() {
	local t=$1 out=$work/p$1
	HMPT_SAMPLE_PERIOD=100000 $TUNE profile -q -s timer --lib "$LIB" -o "$out" -- \
		$PREFIX "$P/truthwalk" -t "$t" -o "$work/truth$t.json" >"$work/out$t" 2>"$work/err$t" ||
		{ cat "$work/out$t" "$work/err$t"; fail "truthwalk -t $t under the shim failed"; }
	local prof
	prof=$(ls "$out"/profile.[0-9]*.json | head -1)
	if ! grep -q '"source": "timer"' "$prof"; then
		grep -o '"why": "[^"]*"' "$prof"
		grep -q 'without Zydis' "$prof" &&
			prereq_missing zydis -- "the timer source decodes its samples with Zydis"
		fail "truthwalk -t $t: the profile's source is not the timer"
	fi
	python3 - "$work/truth$t.json" "$prof" "$out/sites.tsv" "$t" <<'PY' || fail "truthwalk -t $t: figures off the truth (above)"
import json, sys

truth = json.load(open(sys.argv[1]))
prof = json.load(open(sys.argv[2]))
rows = open(sys.argv[3]).read().splitlines()
threads = int(sys.argv[4])
head = rows[0].split("\t")
tsv = {}
for row in rows[1:]:
    f = dict(zip(head, row.split("\t")))
    tsv[f["id"]] = f
bad = 0

def check(ok, what):
    global bad
    print("%s %s" % ("ok" if ok else "FAIL", what))
    bad += not ok

samp = prof["sampling"]
check(truth["threads"] == threads and samp["threads"] >= threads,
      "threads: %d walked, %d sampled" % (truth["threads"], samp["threads"]))
dec = samp["decode"]
rate = dec["decoded"] / dec["memory"] if dec["memory"] else 0
check(dec["memory"] >= 1000 and rate >= 0.9,
      "decoded %d of %d samples on memory instructions (%.2f %%; %d samples in all)"
      % (dec["decoded"], dec["memory"], 100 * rate, dec["samples"]))

# each array's site, by the function that allocated it
site = {}
for s in prof["sites"]:
    fn = tsv.get(s["id"], {}).get("function")
    if fn:
        site.setdefault(fn, []).append(s)
arrays = truth["arrays"]
got, want = [], []
for a in arrays:
    ss = site.get(a["function"], [])
    if len(ss) != 1:
        check(False, "%s: %d sites allocated by %s" % (a["name"], len(ss), a["function"]))
        got.append(0)
        want.append(a["share"])
        continue
    s = ss[0]
    sm = s["samples"]
    p = sm["pattern"]
    t = tsv[s["id"]]
    ok = p["kind"] == a["pattern"] and p["order"] == "samples"
    ok = ok and (a["pattern"] != "strided" or p["stride"] == a["stride"])
    ok = ok and t["most_from"].startswith(a["walk_function"] + " (truthwalk.c:")
    # the evidence, for the margins: steps one way (0.8 for a walk one
    # way), the commonest step's share (0.3 for a stride), words that are
    # pointers (0.5 for a chase)
    way = max(p["forward"], p["backward"]) / max(1, p["forward"] + p["backward"])
    step = max(p["steps_by_value"], key=lambda e: e["n"], default={"step": 0, "n": 0})
    check(ok, "%-6s %5d samples (%.3f of them), %.3f of the CPU time; %s, stride %d, "
          "confidence %.3f (walked %s%s); one way %.3f, step %d in %.3f, pointers %d/%d; "
          "most from %s"
          % (a["name"], sm["n"], sm["share"], a["share"], p["kind"], p["stride"],
             p["confidence"], a["pattern"], " %d" % a["stride"] if a["stride"] else "",
             way, step["step"], step["n"] / max(1, p["steps"]), p["pointers"], p["checked"],
             t["most_from"]))
    got.append(sm["n"])
    want.append(a["share"])

def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r

def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else 0

rho = pearson(ranks(got), ranks(want))
check(rho >= 0.9, "Spearman rho %.3f between samples and time shares" % rho)
top = lambda v: {arrays[i]["name"] for i in sorted(range(len(v)), key=lambda i: -v[i])[:3]}
check(top(got) == top(want), "top 3 sites %s, arrays %s" % (sorted(top(got)), sorted(top(want))))
sys.exit(1 if bad else 0)
PY
}

run_truth 1
run_truth 2
echo ok
