. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# report.html in a real browser: headless Chromium, driven by browser.py
# over the DevTools protocol, loads the reports of three tunings
#   demo   the bundled demo, tuned as `make demo` does but small (16 MiB)
#   model  the modelled workload (tests/progs/model.c): its groups, and with
#          transparent huge pages their gains alone, are known
#   many   10,000 sites (tests/progs/fanout.c) in two groups: the report
#          must stay usable, its sites table folded to the top rows; its
#          render time is printed, never judged (browser.py's time limit
#          only ends a hang)
# and checks each: no error in the console (console.error, an uncaught
# exception, a resource that failed to load), the checks of
# report_checks.json (the groups table, its rows and colours; the
# bottleneck view's elements where the report has #bottleneck), and from
# results.json: the groups table's rows in its order, with every group's
# name and first site's label.
command -v chromium >/dev/null 2>&1 ||
	prereq_missing chromium -- "no headless browser to load report.html in"

# the 10,000-site program, built here: its 100 calls a switch stay 100
# call sites at -O0
${CC:-cc} -g -O0 -fno-omit-frame-pointer -o "$work/fanout" "$top/tests/progs/fanout.c" ||
	fail "cannot build tests/progs/fanout.c"
# the longest tuning in the background, the others meanwhile: its figure is
# a constant, so its search is the same every time: 2 groups (the first
# ranked site, and the rest), 6 runs of which 4 under a plan of 9,999 or
# 10,000 sites
$TUNE -o "$work/many" --lib "$LIB" --pools 4k,system -m 'Time in seconds' --min-size 64K \
	--groups 2 --candidates 1 --reps 2 --confirm 0 --retakes 0 --seed 7 --no-memory-probe -- "$work/fanout" 10000 \
	>"$work/many.out" 2>"$work/many.err" &
many_pid=$!
# (stopped by SIGTERM, which the tuner takes as an interruption, when the
# test ends first)
trap 'kill "$many_pid" 2>/dev/null; wait "$many_pid" 2>/dev/null; rm -rf "$work"' EXIT

# the control: a page that says an error three ways and lacks an element
# fails, each named
cat >"$work/bad.html" <<'HTML'
<!DOCTYPE html><html><head><title>bad</title></head><body><p>a bad page</p><img src="gone.png">
<script>console.error("said an error"); throw new Error("thrown");</script></body></html>
HTML
python3 "$top/tests/integration/browser.py" --exists p --exists table --text 'a bad page' \
	"$work/bad.html" >"$work/bad.out" 2>&1
rc=$?
sed 's/^/   control: /' "$work/bad.out"
[ $rc = 3 ] && fail "Chromium failed (it is installed: this must run here): $(tail -n 1 "$work/bad.out")"
[ $rc = 1 ] || fail "the control page passed (exit $rc)"
for want in "ok: exists p" "FAILED: exists table" "ok: text a bad page" \
	"console error: console.error: said an error" "console error: uncaught: Error: thrown" \
	"console error: network: Failed to load resource"; do
	grep -qF -- "$want" "$work/bad.out" || fail "the control page: no line with: $want"
done

# the demo as `make demo` tunes it (pools thp,4k, ranking and model search),
# with fewer and smaller runs
$TUNE -o "$work/demo" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 3 --reps 2 \
	--confirm 0 --retakes 0 --seed 7 --no-memory-probe -- "$DEMO" -s 16 -i 1 >"$work/demo.out" 2>"$work/demo.err" ||
	fail "hmpt-tune on the demo exited $?: $(cat "$work/demo.err")"
# the model as t_tune_model tunes it, in fewer groups and runs
# and given a pool characterisation (a small hmpt-bench run kept in tests/data)
$TUNE -o "$work/model" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --groups 3 --reps 2 \
	--bench "$top/tests/data/bench" --confirm 0 --retakes 0 --seed 7 --no-memory-probe -- "$MODEL" --base 1 h0:16M:2.0:2 h1:8M:1.2:2 s0:-:0.8:2 h2:8M:0.3:2 \
	h3:4M:0.2:1 s1:-:0:1 --pair h0,s0,0.8 --noise 0.01 --seed 7 --state "$work/mstate" \
	>"$work/model.out" 2>"$work/model.err" ||
	fail "hmpt-tune on the model exited $?: $(cat "$work/model.err")"

# load NAME [browser.py options]: NAME's report in Chromium, with the checks
# every report gets and those results.json gives; prints what it found
load() {
	local name=$1; shift
	[ -s "$work/$name/report.html" ] || fail "$name: no report.html"
	python3 - "$work/$name/results.json" >"$work/$name.checks" <<'PY' || fail "$name: results.json unreadable"
import json, sys
r = json.load(open(sys.argv[1]))
names = [g["name"] for g in r["groups"]]
first = {}
for s in r["sites"]:
    first.setdefault(s["group"], s["location"])
checks = [{"name": "a row per group, in results.json's order: " + ", ".join(names),
           "js": "Array.from(document.querySelectorAll('.row table tr')).slice(1)"
                 ".map(r => r.cells[0].innerText.trim()).join(',') == %s || 'rows: ' + "
                 "Array.from(document.querySelectorAll('.row table tr')).slice(1)"
                 ".map(r => r.cells[0].innerText.trim()).join(',')" % json.dumps(",".join(names))}]
checks += [{"name": "group %s: its first site's label" % g, "text": first[g]} for g in names if g in first]
json.dump(checks, sys.stdout)
PY
	python3 "$top/tests/integration/browser.py" --timeout 60 \
		--checks "$top/tests/integration/report_checks.json" --checks "$work/$name.checks" \
		--json "$work/$name.json" "$@" "$work/$name/report.html" >"$work/$name.browser" 2>&1
	local rc=$?
	sed "s/^/   $name: /" "$work/$name.browser"
	case $rc in
	0) ;;
	3) fail "$name: Chromium failed (it is installed: this must run here): $(tail -n 1 "$work/$name.browser")" ;;
	*) fail "$name: $(grep -c '^FAILED' "$work/$name.browser") checks failed, $(grep -c '^console error' "$work/$name.browser") console errors" ;;
	esac
}
# render: NAME's time to load and to the first frame after, as measured
render() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); t = r["timing"]
print("%s: load %.0f ms, first frame after it %.0f ms, %d elements, %d px high, %d bytes"
      % (sys.argv[2], t["load_ms"], t["rendered_ms"], t["elements"], t["height_px"], t["bytes"]))' \
		"$work/$1.json" "$1"
}

load demo --tag demo --screenshot "$work/demo.png"
head -c 8 "$work/demo.png" | od -An -c | grep -q 'P   N   G' || fail "demo: the screenshot is no PNG"
note "demo: screenshot $(stat -c %s "$work/demo.png") bytes"
# with huge pages the model's arrays gain (t_tune_model): its groups'
# colours must differ; without, nothing gains and all are white
gains=()
grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null ||
	[ ! -r /sys/kernel/mm/transparent_hugepage/enabled ] || gains=(--tag gains)
[ ${#gains[@]} = 0 ] && note "no transparent huge pages here: the model's groups gain nothing, their colours are not checked"
load model --tag model --tag bench "${gains[@]}"

wait $many_pid || fail "the 10,000-site tuning failed: $(tail -n 5 "$work/many.err")"
sites=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["sites"]))' "$work/many/results.json")
[ "$sites" = 10000 ] || fail "many: $sites sites in results.json, want 10000"
load many --tag many
note "render times (not judged):"
note "$(render demo)"
note "$(render model)"
note "$(render many)"
