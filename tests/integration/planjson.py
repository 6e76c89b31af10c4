"""Plans as hmpt-tune writes them, for the tests' scripts.

hmpt-tune writes format 4 (docs/plan-format.md): each distinct frame once, in
a top-level "frames" table whose rows sites name by "stack" indices.  load()
gives a plan with each site's "frames", "symbols" and "symbolic" inline
again, as formats 1-3 have them, and its format_version 2 (3 where a group
has a share), so that a test can read or edit sites and write the plan back.
"""
import json


def expand(plan):
    if plan.get("format_version", 0) < 4:
        return plan
    rows = plan.pop("frames", [])
    share = False
    for g in plan["groups"]:
        share = share or "share" in g
        for i, s in enumerate(g["sites"]):
            stack = [rows[k] for k in s["stack"]]
            out = {}
            for key, v in s.items():
                if key != "stack":
                    out[key] = v
                    continue
                out["frames"] = [r["frame"] for r in stack]
                if any("symbol" in r for r in stack):
                    out["symbols"] = [r.get("symbol", "") for r in stack]
                if any("symbolic" in r for r in stack):
                    out["symbolic"] = [r.get("symbolic") for r in stack]
            g["sites"][i] = out
    plan["format_version"] = 3 if share else 2
    return plan


def load(path):
    with open(path) as f:
        return expand(json.load(f))
