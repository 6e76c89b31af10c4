"""The true figures of tests/progs/model.c's cost model, for the tuner's
exact tests: what every configuration of a tuning must come out as.

model_args: the model's own command line (options and arrays), parsed as
model.c parses it; true_time(fast) is its figure with the arrays in `fast`
wholly in the fast pool and the others wholly in the slow one (noise aside),
and with shares={array: f} a share f of those arrays' pages fast.
"""
import itertools
import json
import math
import re

STATIC_BYTES = 8 << 20
OTHER_SHARE = 0.3  # model.c: the runs with pages refused or the clock low
CLOCK_LOW = 0.7


def parse_size(s):
    m = re.fullmatch(r"(\d+)([KMG]?)", s)
    assert m, s
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


class Model:
    def __init__(self, args):
        self.arrays = {}  # name -> (bytes, weight, ratio)
        self.base = 0.0
        self.saturate = 0.0
        self.pairs = []
        self.noise = 0.0
        self.noise_model = "lognormal"
        it = iter(args)
        for a in it:
            if a == "--base":
                self.base = float(next(it))
            elif a == "--saturate":
                self.saturate = float(next(it))
            elif a == "--noise":
                self.noise = float(next(it))
            elif a == "--noise-model":
                self.noise_model = next(it)
            elif a == "--pair":
                x, y, s = next(it).split(",")
                self.pairs.append((x, y, float(s)))
            elif a.startswith("--"):
                next(it)
            else:
                f = a.split(":")
                size = STATIC_BYTES if f[1] == "-" else parse_size(f[1])
                self.arrays[f[0]] = (size, float(f[2]), float(f[3]) if len(f) > 3 else 2.0)

    def share(self, name, fast, shares):
        return shares[name] if shares and name in shares else 1.0 if name in fast else 0.0

    def true_time(self, fast, shares=None):
        f = {n: self.share(n, fast, shares) for n in self.arrays}
        slow = self.base + sum(w for _, w, _ in self.arrays.values())
        saved = sum(w * f[n] * (1 - 1 / r) for n, (_, w, r) in self.arrays.items())
        if self.saturate > 0:
            saved = saved * self.saturate / (saved + self.saturate)
        t = slow - saved
        t += sum(s * f.get(x, 0) * f.get(y, 0) for x, y, s in self.pairs)
        return t

    def speedup(self, fast, shares=None):
        s = self.true_time(()) / self.true_time(fast, shares)
        # the machine's own states (model.c's header): exp(E log speedup)
        if self.noise_model == "pages":  # 2 MiB pages refused: no gain
            return math.exp((1 - OTHER_SHARE) * math.log(s))
        if self.noise_model == "frequency":  # the time no pool changes, stretched
            more = (self.base + sum(w for _, w, r in self.arrays.values() if r == 1)) * \
                (1 / CLOCK_LOW - 1)
            low = (self.true_time(()) + more) / (self.true_time(fast, shares) + more)
            return math.exp((1 - OTHER_SHARE) * math.log(s) + OTHER_SHARE * math.log(low))
        return s

    def fast_bytes(self, fast, shares=None):
        return sum(b * self.share(n, fast, shares) for n, (b, _, _) in self.arrays.items())

    def top(self):
        names = list(self.arrays)
        return max(self.speedup(set(s)) for k in range(len(names) + 1)
                   for s in itertools.combinations(names, k))

    def smallest(self, line, splittable):
        """The smallest fast footprint whose speedup reaches `line`: whole
        arrays, and at most one of `splittable` at the least share that
        reaches (found by bisection: the time falls as the share grows).
        (bytes, whole arrays, split array or None, its share)"""
        names = list(self.arrays)
        best = None
        for k in range(len(names) + 1):
            for s in itertools.combinations(names, k):
                if self.speedup(s) >= line:
                    cand = (self.fast_bytes(s), s, None, 1.0)
                    best = cand if best is None or cand[0] < best[0] else best
                    continue
                for i in splittable:
                    if i in s or self.speedup(s + (i,)) < line:
                        continue
                    lo, hi = 0.0, 1.0
                    for _ in range(50):
                        mid = (lo + hi) / 2
                        lo, hi = (lo, mid) if self.speedup(s, {i: mid}) >= line else (mid, hi)
                    cand = (self.fast_bytes(s, {i: hi}), s, i, hi)
                    best = cand if best is None or cand[0] < best[0] else best
        return best


def array_of(location):
    """'alloc_h1 (model.c:61)' -> 'h1'; 's0 (static, .bss)' -> 's0'"""
    m = re.match(r"(?:alloc_)?([hs]\d)\b", location)
    assert m, location
    return m.group(1)


class Tuning:
    """A finished tuning's results.json, its sites named by the model's arrays"""

    def __init__(self, path):
        self.r = json.load(open(path))
        self.site_array = {s["id"]: array_of(s["location"]) for s in self.r["sites"]}
        self.group_arrays = {}
        for s in self.r["sites"]:
            self.group_arrays.setdefault(s["group"], set()).add(self.site_array[s["id"]])
        self.by_key = {c["key"]: c for c in self.r["configs"]}

    def fast_arrays(self, config):
        return frozenset(self.site_array[i] for i in config["fast_sites"])

    def configs(self, phase=None):
        return [c for c in self.r["configs"] if phase is None or c["phase"] == phase]

    def chosen(self, which):
        c = self.r["chosen"][which]
        return self.fast_arrays(self.by_key[c["key"]]) if c else None

    def groups(self):
        """[(name, arrays)] in the tuning's order"""
        return [(g["name"], self.group_arrays.get(g["name"], set())) for g in self.r["groups"]]


def label(arrays):
    return "+".join(sorted(arrays)) or "none"
