#!/bin/bash
# real_programs.sh — what libhmpt.so costs real programs with nothing asked
# (no plan, no profile), as ratios taken in one run on this machine: xz,
# sort, sqlite3, python3, node, java and gcc, each with glibc alone and under
# LD_PRELOAD=libhmpt.so, alternated ROUNDS times; per program the medians of
# the wall times and of the per-round ratios of time and of peak RSS
# (/usr/bin/time).  A program that is not installed is left out, and said so.
# It never fails on speed.
#
# Usage: bench/real_programs.sh   Environment: ROUNDS (3), B, LIB.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
lib=${LIB:-$B/libhmpt.so}
rounds=${ROUNDS:-3}
[ -f "$lib" ] || { echo "real_programs.sh: build first (make)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "real_programs.sh: /usr/bin/time is missing (Debian: time); left out"; exit 0; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 2
seq 1 3000000 | shuf --random-source=<(yes) >data.txt
head -c 60000000 data.txt >blob
cat >sq.sql <<'SQL'
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<400000)
  INSERT INTO t SELECT x, hex(randomblob(16)) FROM c;
CREATE INDEX i ON t(b);
SELECT count(*), sum(a) FROM t WHERE b > '8';
SQL
cat >nb.js <<'JS'
for (let i = 0; i < 400; i++) { const b = Buffer.alloc(8 << 20); b[4096 * (i % 100)] = 1; }
const m = new Map(); for (let i = 0; i < 300000; i++) m.set('k' + i, {i, s: 'v' + i});
JS
cat >Alloc.java <<'JV'
import java.nio.ByteBuffer;
public class Alloc {
	public static void main(String[] a) {
		long s = 0;
		for (int i = 0; i < 400; i++) {
			ByteBuffer b = ByteBuffer.allocateDirect(4 << 20);
			b.put(4096 * (i % 100), (byte)1);
			s += b.get(0);
		}
		java.util.HashMap<Integer, String> m = new java.util.HashMap<>();
		for (int i = 0; i < 300000; i++) m.put(i, "v" + i);
		System.out.println(s + m.size());
	}
}
JV
cat >py.py <<'PY'
d = {}
for i in range(600000): d[i] = [i] * 3
big = [bytearray(2 << 20) for _ in range(50)]
print(sum(len(v) for v in d.values()), len(big))
PY
printf 'int main(void) { return 0; }\n' >gc.c
progs=(
	"xz|xz|xz -T1 -6 -c blob"
	"sort|sort|sort -n data.txt"
	"sqlite|sqlite3|sqlite3 :memory: <sq.sql"
	"python|python3|python3 py.py"
	"node|node|node nb.js"
	"java|java|java -Xmx512m Alloc.java"
	"gcc|gcc|gcc -O2 -c gc.c -o /dev/null"
)
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# run PRELOAD CMD: "seconds maxrss_kib" of one run
run() {
	LD_PRELOAD=$1 /usr/bin/time -o t.out -f '%e %M' bash -c "$2" >/dev/null 2>&1 || return 1
	tail -n 1 t.out
}
echo "real programs with nothing asked of hmpt, against glibc alone: measured on this machine"
echo "($(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at the start), $rounds rounds"
printf '%-8s %9s %9s %8s %8s\n' program glibc_s hmpt_s time RSS
for p in "${progs[@]}"; do
	IFS='|' read -r name need cmd <<<"$p"
	if ! command -v "$need" >/dev/null 2>&1; then
		printf '%-8s (%s is not installed: left out)\n' "$name" "$need"
		continue
	fi
	tg=() th=() tr=() rr=()
	for r in $(seq 1 "$rounds"); do
		# alternating which goes first, so that drift hits both alike
		if [ $((r % 2)) = 1 ]; then
			g=$(run "" "$cmd"); rg=$?
			h=$(run "$lib" "$cmd"); rh=$?
		else
			h=$(run "$lib" "$cmd"); rh=$?
			g=$(run "" "$cmd"); rg=$?
		fi
		if [ "$rg" != 0 ] || [ "$rh" != 0 ]; then
			echo "$name: a run failed (exit $rg without hmpt, $rh with)" >&2
			exit 1
		fi
		read -r sg mg <<<"$g"
		read -r sh mh <<<"$h"
		tg+=("$sg") th+=("$sh")
		tr+=("$(awk -v a="$sh" -v b="$sg" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 1) }')")
		rr+=("$(awk -v a="$mh" -v b="$mg" 'BEGIN { printf "%.3f", a / b }')")
	done
	printf '%-8s %9s %9s %7sx %7sx\n' "$name" "$(median "${tg[@]}")" "$(median "${th[@]}")" \
		"$(median "${tr[@]}")" "$(median "${rr[@]}")"
done
echo "(time: wall seconds, medians; time and RSS (peak resident set): hmpt's over glibc's"
echo " within a round, median over rounds.  Only ratios taken together mean anything here.)"
