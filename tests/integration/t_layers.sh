. "$(dirname "$0")/lib.sh"
# The layers, from the sources alone (nothing built): each directory
# includes only its own headers and those of the layers below it
#   shim/, tools/  <- include/, common/
#   tuner/, bench/ <- include/, common/, tools/
# (the shim runs inside the application; tools/ is what hmpt-tune and
# hmpt-bench share, which the shim must not link), no directory's modules
# include each other in a circle (a module: x.c and x.h), and the Makefile
# gives no compiler the include path of a layer it must not see.
python3 - "$top" <<'PY' || exit 1
import os, re, sys

top = sys.argv[1]
may = {
    "common": ["include"],
    "shim": ["include", "common"],
    "tools": ["include", "common"],
    "tuner": ["include", "common", "tools"],
    "bench": ["include", "common", "tools"],
}
layers = set(may) | {"include"}
bad = []

def sources(d):
    d = os.path.join(top, d)
    return sorted(f for f in os.listdir(d) if re.search(r"\.[ch]$", f)) if os.path.isdir(d) else []

def includes(d, f):
    with open(os.path.join(top, d, f)) as src:
        for n, line in enumerate(src, 1):
            m = re.match(r'\s*#\s*include\s*([<"])([^">]+)[">]', line)
            if m:
                yield n, m.group(1) == "<", m.group(2)

for d, allowed in may.items():
    deps = {}
    for f in sources(d):
        mod = os.path.splitext(f)[0]
        for n, angle, h in includes(d, f):
            # "../shim/x.h" would be found from any directory: no climbing out
            if ".." in h.split("/") or h.startswith("/"):
                bad.append("%s/%s:%d includes %s: a path out of the layers (%s/ may include "
                           "from %s only, by name)" %
                           (d, f, n, h, d, ", ".join(a + "/" for a in allowed + [d])))
                continue
            # <x.h>: a system header unless a layer has it (through some -I)
            if angle and not any(os.path.exists(os.path.join(top, l, h)) for l in layers):
                continue
            if os.path.exists(os.path.join(top, d, h)):
                if os.path.splitext(h)[0] != mod:
                    deps.setdefault(mod, set()).add(os.path.splitext(h)[0])
                continue
            if any(os.path.exists(os.path.join(top, a, h)) for a in allowed):
                continue
            where = [l for l in sorted(layers) if os.path.exists(os.path.join(top, l, h))]
            bad.append("%s/%s:%d includes %s, from %s (%s/ may include from %s only)" %
                       (d, f, n, h, " and ".join(w + "/" for w in where) or "no layer",
                        d, ", ".join(a + "/" for a in allowed + [d])))
    # a circle among the directory's modules, named by one path around it
    state = {}
    def visit(m, path):
        state[m] = 1
        for x in sorted(deps.get(m, ())):
            if state.get(x) == 1:
                cyc = path[path.index(x):] + [x]
                bad.append("%s/: modules include each other in a circle: %s" %
                           (d, " -> ".join(cyc)))
            elif x not in state:
                visit(x, path + [x])
        state[m] = 2
    for m in sorted(deps):
        if m not in state:
            visit(m, [m])

for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# what the Makefile really runs to compile one source of each layer (make -n)
first() { (cd "$top/$1" && ls ./*.c | head -n 1 | sed 's|^\./||; s|\.c$||'); }
compiles() { # TARGET...: the compiler lines make would run
	make -s -n -B -C "$top" "$@" 2>&1 | grep -e ' -c ' || fail "make -n $* printed no compile line"
}
# sees LINE DIR: LINE puts DIR on the include path (-IDIR, -I DIR, -I./DIR/,
# -iquote DIR, an absolute path ending in /DIR)
sees() {
	grep -Eq -- "(^|[[:space:]])-(I|iquote|isystem|idirafter)[[:space:]]*([^[:space:]]*/)?$2/?([[:space:]]|\$)" <<<"$1"
}
tu=$(first tuner) to=$(first tools)
for t in build/tuner/$tu.o build/asan/tuner/$tu.o build/tools/$to.o build/asan/tools/$to.o; do
	line=$(compiles "$t")
	sees "$line" shim && fail "the Makefile compiles $t with shim/ on the include path: $line"
done
for t in build/hb/hmpt_bench.o build/tools/$to.o build/asan/tools/$to.o; do
	line=$(compiles "$t")
	sees "$line" tuner && fail "the Makefile compiles $t with tuner/ on the include path: $line"
done
line=$(compiles build/hb/hmpt_bench.o)
sees "$line" shim && fail "the Makefile compiles build/hb/hmpt_bench.o with shim/ on the include path: $line"
note "layers kept: includes, circles and include paths"
