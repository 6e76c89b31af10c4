. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# Groups given by the user (--group): no ranking runs, the sites not named
# form the rest group, and every combination of the three groups is in the
# results (measured, or predicted by the model search).
run_profile "$work/p" "$DEMO" -s 32 -i 1 >/dev/null || fail "profile failed"
id_at() { awk -F'\t' -v loc="demo.c:$(grep -n "= $1(" "$top/bench/demo.c" | cut -d: -f1)" \
	'NR > 1 && $9 == loc { print substr($1, 1, 8) }' "$work/p/sites.tsv"; }
table=$(id_at alloc_table) counts=$(id_at alloc_counts) stream=$(id_at alloc_stream)
[ -n "$table" ] && [ -n "$counts" ] && [ -n "$stream" ] || fail "sites not found: $(cat "$work/p/sites.tsv")"
out=$work/t
$TUNE -o "$out" --lib "$LIB" --pools 4k,system --reps 2 --group "$table,$counts" \
	--group "$stream" -- "$DEMO" -s 32 -i 1 >"$work/s" 2>"$work/e" ||
	fail "hmpt-tune exited $?: $(cat "$work/e")"
python3 - "$out/results.json" <<'PY' || fail "groups or configurations are not as given"
import json, sys
r = json.load(open(sys.argv[1]))
groups = [(g["name"], g["sites"]) for g in r["groups"]]
assert groups == [("G1", 2), ("G2", 1), ("rest", 1)], groups
# the combinations; the confirmation's own configurations, when the search
# proposed one (by chance on a loaded machine), are apart
labels = sorted(c["label"] for c in r["configs"] if c["phase"] != "confirmation")
assert len(labels) == 8 and not any(l.startswith("alone") for l in labels), labels
print("groups", groups, "and", len(labels), "configurations")
PY
expect_err() { grep -qF -- "$1" "$work/e" || fail "want: $1, got: $(cat "$work/e")"; }
$TUNE -o "$work/t2" --lib "$LIB" --pools 4k,system --group "$table,$table" -- "$DEMO" -s 32 \
	>/dev/null 2>"$work/e" && fail "a site named twice was accepted"
expect_err "is already in a group"
$TUNE -o "$work/t3" --lib "$LIB" --pools 4k,system --group ffff0000 -- "$DEMO" -s 32 \
	>/dev/null 2>"$work/e" && fail "an unknown site was accepted"
expect_err "'ffff0000' names no site of the profile"
