#!/usr/bin/env python3
"""browser.py — load an HTML file in headless Chromium and check it.

Python's standard library only: Chromium is driven through the DevTools
protocol over --remote-debugging-pipe (it reads commands from its fd 3 and
writes replies and events to its fd 4, each message JSON ended by a NUL).

    browser.py [options] FILE.html

It loads file://FILE, waits for the load event and the first frames after
it, and then
  - collects what the page said: console.error/warn (Runtime.consoleAPICalled),
    uncaught exceptions (Runtime.exceptionThrown), and the browser's own
    errors (Log.entryAdded: a resource that failed to load, say);
  - runs the checks (--checks FILE, --exists, --colours, --text, --js);
  - measures the time to load and render it (the navigation's timing, and
    the first frame after the load event), in ms from the navigation's start;
  - takes a screenshot (--screenshot OUT.png) at the viewport's size.

Checks (a JSON list in --checks FILE; each an object, one test a check):
  {"name": "...", "exists": "SEL", "min": 1, "max": N}
      at least min (default 1), at most max elements match the CSS selector
  {"name": "...", "colours": "SEL", "property": "background-color",
   "distinct": 2}
      the matching elements' computed colours (any CSS property: fill,
      color...) take at least `distinct` values (default 2): not all alike
  {"name": "...", "colour_by": "SEL", "attribute": "data-where",
   "property": "background-color"}
      the matching elements' colours follow the attribute: one colour per
      value, a different colour for each value
  {"name": "...", "attribute_in": "SEL", "attribute": "A", "values": [...]}
      every matching element has attribute A, with one of these values
  {"name": "...", "text": "STRING"}      the page's text contains STRING
  {"name": "...", "rendered_max": "SEL", "max": N}
      at most N of the matching elements are visible (rendered, and not
      inside a closed <details>)
  {"name": "...", "js": "EXPRESSION"}
      evaluates to true; anything else (a string says why) fails
Any check may have
  "if": "SEL"        apply it only when SEL matches something in the page
  "only": ["TAG"]    apply it only when --tag TAG is given (what the report
                     was made from: a tuning with --bench, 10,000 sites...)
  "why": "..."       a comment, ignored
Checks not applied are listed as such.

Options:
  --checks FILE        checks as above (repeatable)
  --exists SEL, --colours SEL[@PROPERTY], --text STRING, --js EXPR
                       one check each (repeatable)
  --tag TAG            tags for the checks' "only" (repeatable)
  --screenshot OUT.png the viewport, as PNG
  --palette            write the screenshot with a palette of 256 colours
                       (the most frequent; the others as the nearest of
                       them): a third of the size, for docs/
  --viewport WxH       default 1200x900
  --json OUT           everything found, as JSON (timings, messages, checks)
  --fail-on-warnings   console warnings fail too (else they are printed;
                       errors always fail)
  --timeout SEC        for the whole of it (default 60)
  --chromium PATH      default: $CHROMIUM, or chromium, chromium-browser,
                       google-chrome on PATH

Exit status: 0 all checks passed and no errors in the console; 1 a check
failed or the page said an error; 2 usage; 3 Chromium could not be started,
stopped answering, or took longer than --timeout.
"""
import argparse
import base64
import collections
import fcntl
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
    "--remote-debugging-pipe",
]


class BrowserError(Exception):
    """Chromium failed: not started, gone, or too slow (exit 3)."""


class Chromium:
    """One Chromium process, its own profile directory and process group."""

    def __init__(self, exe, deadline):
        self.deadline = deadline
        self.profile = tempfile.mkdtemp(prefix="hmpt-chromium.")
        self.log = open(os.path.join(self.profile, "stderr.log"), "w+b")
        self.buf = b""
        self.next_id = 0
        self.events = []
        # fds 3 (its commands) and 4 (its replies) in the child; high numbers
        # here, so that dup2 onto 3 and 4 never meets one of them
        cmd_r, cmd_w = os.pipe()
        rep_r, rep_w = os.pipe()
        self.cmd_r = fcntl.fcntl(cmd_r, fcntl.F_DUPFD_CLOEXEC, 10)
        self.rep_w = fcntl.fcntl(rep_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(cmd_r)
        os.close(rep_w)
        self.cmd_w, self.rep_r = cmd_w, rep_r

        def child_fds():
            os.dup2(self.cmd_r, 3)  # dup2 leaves them open across exec
            os.dup2(self.rep_w, 4)

        argv = [exe] + FLAGS + ["--user-data-dir=" + self.profile, "about:blank"]
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                preexec_fn=child_fds, pass_fds=(3, 4), start_new_session=True)
        except OSError as e:
            self.close()
            raise BrowserError("cannot start %s: %s" % (exe, e)) from e
        finally:
            os.close(self.cmd_r)
            os.close(self.rep_w)

    def why_gone(self):
        """Chromium's own last words, for an error message."""
        try:
            self.log.flush()
            self.log.seek(0)
            lines = [l for l in self.log.read().decode(errors="replace").splitlines() if l.strip()]
        except (OSError, ValueError):
            lines = []
        rc = self.proc.poll()
        said = "; ".join(lines[-5:]) or "nothing on its standard error"
        return ("exited with status %d" % rc if rc is not None else "still running") + ": " + said

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self.cmd_w, data):]
        except OSError as e:
            raise BrowserError("Chromium stopped reading commands (%s): %s" % (e, self.why_gone())) from e
        return self.next_id

    def receive(self):
        """The next message; raises BrowserError at the deadline or on EOF."""
        while b"\0" not in self.buf:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no answer from Chromium within the time limit (%s)" % self.why_gone())
            ready, _, _ = select.select([self.rep_r], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(self.rep_r, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed its pipe: " + self.why_gone())
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        """Send a command and wait for its reply; events meanwhile are kept."""
        want = self.send(method, params, session)
        while True:
            msg = self.receive()
            if msg.get("id") == want:
                if "error" in msg:
                    raise BrowserError("%s failed: %s" % (method, msg["error"].get("message", msg["error"])))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, session=None):
        """The first event `method` (of this session), kept ones first."""
        for i, ev in enumerate(self.events):
            if ev["method"] == method and (session is None or ev.get("sessionId") == session):
                return self.events.pop(i)
        while True:
            msg = self.receive()
            if msg.get("method") == method and (session is None or msg.get("sessionId") == session):
                return msg
            if "method" in msg:
                self.events.append(msg)

    def close(self):
        """Always: Chromium and every process it started gone, its files too."""
        proc = getattr(self, "proc", None)
        if proc is not None:
            if proc.poll() is None:
                try:  # ask first (its own group: the renderer, GPU and zygote go with it)
                    os.write(self.cmd_w, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
                    proc.wait(timeout=3)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the group Chromium leads
            except (ProcessLookupError, PermissionError):
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for fd in ("cmd_w", "rep_r"):
            if getattr(self, fd, None) is not None:
                try:
                    os.close(getattr(self, fd))
                except OSError:
                    pass
                setattr(self, fd, None)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


# ------------------------------------------------------------- the checks

# one function in the page: runs a check, returns [ok, what it found]
CHECK_JS = r"""
(function (c) {
  const all = s => Array.from(document.querySelectorAll(s));
  const style = (e, p) => getComputedStyle(e).getPropertyValue(p).trim();
  if ("exists" in c) {
    const n = all(c.exists).length, min = c.min ?? 1, max = c.max ?? Infinity;
    return [n >= min && n <= max, n + " match" + (n == 1 ? "" : "es") +
            (max < Infinity ? " (want " + min + "-" + max + ")" : " (want at least " + min + ")")];
  }
  if ("colours" in c) {
    const p = c.property || "background-color", es = all(c.colours);
    const seen = new Set(es.map(e => style(e, p)));
    return [seen.size >= (c.distinct ?? 2),
            es.length + " elements, " + seen.size + " distinct " + p + ": " + Array.from(seen).slice(0, 6).join(" | ")];
  }
  if ("colour_by" in c) {
    const p = c.property || "background-color", a = c.attribute, es = all(c.colour_by);
    const by = new Map();
    for (const e of es) {
      const v = e.getAttribute(a), col = style(e, p);
      if (!by.has(v)) by.set(v, new Set());
      by.get(v).add(col);
    }
    const mixed = Array.from(by).filter(([v, s]) => s.size > 1).map(([v]) => v);
    const cols = Array.from(by.values()).map(s => Array.from(s)[0]);
    const shared = cols.length != new Set(cols).size;
    const said = Array.from(by).map(([v, s]) => v + "=" + Array.from(s).join("/")).join(", ");
    return [es.length > 0 && !mixed.length && !shared,
            (es.length ? said : "no elements") + (mixed.length ? "; several colours for " + mixed : "") +
            (shared ? "; two values share a colour" : "")];
  }
  if ("attribute_in" in c) {
    const es = all(c.attribute_in), bad = es.filter(e => !c.values.includes(e.getAttribute(c.attribute)));
    return [es.length > 0 && !bad.length, es.length + " elements" +
            (bad.length ? "; " + c.attribute + " outside " + c.values + ": " +
             bad.slice(0, 3).map(e => JSON.stringify(e.getAttribute(c.attribute))).join(", ") : "")];
  }
  if ("text" in c) {
    return [document.body.innerText.includes(c.text), "text " + JSON.stringify(c.text)];
  }
  if ("rendered_max" in c) {
    // inside a closed <details> an element may keep its box (content-visibility: hidden)
    const seen = e => e.checkVisibility ? e.checkVisibility() : e.getClientRects().length > 0;
    const es = all(c.rendered_max), shown = es.filter(seen).length;
    return [shown <= c.max, shown + " of " + es.length + " rendered (at most " + c.max + ")"];
  }
  if ("js" in c) {
    const v = (0, eval)(c.js);
    return [v === true, v === true ? "true" : "gave " + JSON.stringify(v)];
  }
  return [false, "unknown check: " + JSON.stringify(c)];
})
"""

# after the load event and two frames: the timings, in ms from navigation start
TIMING_JS = r"""
new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
  const n = performance.getEntriesByType("navigation")[0] || {};
  const fcp = performance.getEntriesByType("paint").find(e => e.name == "first-contentful-paint");
  done({dom_content_loaded_ms: n.domContentLoadedEventEnd, load_ms: n.loadEventEnd,
        first_contentful_paint_ms: fcp ? fcp.startTime : null, rendered_ms: performance.now(),
        bytes: n.decodedBodySize, elements: document.getElementsByTagName("*").length,
        height_px: document.documentElement.scrollHeight});
})))
"""


# the screenshot's pixels, decoded by the page itself: [width, height, RGBA base64]
PIXELS_JS = r"""
(async png => {
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const c = document.createElement("canvas");
  c.width = img.width, c.height = img.height;
  const g = c.getContext("2d");
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  let s = "";
  for (let i = 0; i < d.length; i += 32768)
    s += String.fromCharCode.apply(null, d.subarray(i, i + 32768));
  return [c.width, c.height, btoa(s)];
})(%s)
"""


def indexed_png(width, height, rgba):
    """An 8-bit palette PNG of these pixels (opaque): the 256 most frequent
    colours, each other one drawn as the nearest of them."""
    raw = base64.b64decode(rgba)
    px = [raw[i:i + 3] for i in range(0, len(raw), 4)]
    counts = collections.Counter(px)
    palette = [c for c, _ in counts.most_common(256)]
    index = {c: i for i, c in enumerate(palette)}
    near = {}
    for c in counts:
        if c in index:
            continue
        key = (c[0] >> 2, c[1] >> 2, c[2] >> 2)
        if key not in near:
            near[key] = min(range(len(palette)), key=lambda i: 2 * (c[0] - palette[i][0]) ** 2 +
                            4 * (c[1] - palette[i][1]) ** 2 + 3 * (c[2] - palette[i][2]) ** 2)
        index[c] = near[key]
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # no filter: indices do not predict each other
        rows += bytes(index[p] for p in px[y * width:(y + 1) * width])

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)) +
            chunk(b"PLTE", b"".join(palette)) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) +
            chunk(b"IEND", b""))


def evaluate(b, session, expr, await_promise=False):
    r = b.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                    "awaitPromise": await_promise}, session)
    if "exceptionDetails" in r:
        d = r["exceptionDetails"]
        raise RuntimeError((d.get("exception") or {}).get("description") or d.get("text"))
    return r["result"].get("value")


def message_text(ev):
    """(level, text) of a console or log event, or None."""
    m, p = ev["method"], ev["params"]
    if m == "Runtime.consoleAPICalled":
        level = {"error": "error", "assert": "error", "warning": "warning"}.get(p["type"])
        if not level:
            return None
        args = " ".join(str(a.get("value", a.get("description", a.get("type")))) for a in p.get("args", []))
        return level, "console.%s: %s" % (p["type"], args)
    if m == "Runtime.exceptionThrown":
        d = p["exceptionDetails"]
        text = (d.get("exception") or {}).get("description") or d.get("text", "")
        return "error", "uncaught: %s (%s:%s)" % (text, d.get("url", "?"), d.get("lineNumber", "?"))
    if m == "Log.entryAdded":
        e = p["entry"]
        if e["level"] not in ("error", "warning"):
            return None
        return e["level"], "%s: %s%s" % (e["source"], e["text"], " (%s)" % e["url"] if e.get("url") else "")
    return None


def find_chromium(given):
    if given:  # that one or none
        return shutil.which(given)
    for name in [os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"]:
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--checks", action="append", default=[])
    ap.add_argument("--exists", action="append", default=[])
    ap.add_argument("--colours", action="append", default=[])
    ap.add_argument("--text", action="append", default=[])
    ap.add_argument("--js", action="append", default=[])
    ap.add_argument("--tag", action="append", default=[])
    ap.add_argument("--screenshot")
    ap.add_argument("--palette", action="store_true")
    ap.add_argument("--viewport", default="1200x900")
    ap.add_argument("--json")
    ap.add_argument("--fail-on-warnings", action="store_true")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--chromium")
    a = ap.parse_args()

    def usage(msg):
        print("browser.py: " + msg, file=sys.stderr)
        sys.exit(2)

    if not os.path.isfile(a.file):
        usage("%s: no such file" % a.file)
    try:
        width, height = (int(x) for x in a.viewport.split("x"))
    except ValueError:
        usage("--viewport %s: expected WIDTHxHEIGHT" % a.viewport)
    checks = []
    for path in a.checks:
        try:
            with open(path) as f:
                more = json.load(f)
        except (OSError, ValueError) as e:
            usage("--checks %s: %s" % (path, e))
        if not isinstance(more, list) or not all(isinstance(c, dict) for c in more):
            usage("--checks %s: expected a JSON list of objects" % path)
        checks += more
    checks += [{"name": "exists " + s, "exists": s} for s in a.exists]
    for s in a.colours:
        sel, _, prop = s.partition("@")
        checks.append({"name": "colours of " + s, "colours": sel, "property": prop or "background-color"})
    checks += [{"name": "text " + t, "text": t} for t in a.text]
    checks += [{"name": j, "js": j} for j in a.js]

    exe = find_chromium(a.chromium)
    if not exe:
        print("browser.py: no Chromium: %s" % ("no " + a.chromium if a.chromium else
              "none of $CHROMIUM, chromium, chromium-browser, google-chrome on PATH"), file=sys.stderr)
        sys.exit(3)
    url = "file://" + os.path.abspath(a.file)
    out = {"file": a.file, "url": url, "chromium": exe, "viewport": [width, height],
           "errors": [], "warnings": [], "checks": []}
    deadline = time.monotonic() + a.timeout
    b = None
    # Chromium leads a process group of its own: on SIGTERM (a test's time
    # limit) end it too, by the finally below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("browser.py: terminated"))
    try:
        b = Chromium(exe, deadline)
        out["version"] = b.call("Browser.getVersion").get("product")
        target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for m in ("Page.enable", "Runtime.enable", "Log.enable"):
            b.call(m, session=s)
        b.call("Emulation.setDeviceMetricsOverride",
               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, s)
        t0 = time.monotonic()
        nav = b.call("Page.navigate", {"url": url}, s)
        if nav.get("errorText"):
            raise BrowserError("cannot load %s: %s" % (url, nav["errorText"]))
        b.wait_event("Page.loadEventFired", s)
        out["load_wall_ms"] = round(1000 * (time.monotonic() - t0), 1)
        out["timing"] = evaluate(b, s, TIMING_JS, await_promise=True)
        out["timing_wall_ms"] = round(1000 * (time.monotonic() - t0), 1)
        fn = CHECK_JS.strip()
        for c in checks:
            name = c.get("name") or json.dumps(c)
            skip = None
            if c.get("only") and not set(c["only"]) & set(a.tag):
                skip = "only for " + ", ".join(c["only"])
            elif c.get("if") and not evaluate(b, s, "document.querySelector(%s) !== null" % json.dumps(c["if"])):
                skip = "no " + c["if"] + " in the page"
            if skip:
                out["checks"].append({"name": name, "applied": False, "why": skip})
                continue
            try:
                ok, said = evaluate(b, s, "%s(%s)" % (fn, json.dumps(c)))
            except RuntimeError as e:
                ok, said = False, "threw: %s" % e
            out["checks"].append({"name": name, "applied": True, "ok": bool(ok), "found": said})
        if a.screenshot:
            shot = b.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False}, s)
            png = base64.b64decode(shot["data"])
            if a.palette:
                png = indexed_png(*evaluate(b, s, PIXELS_JS % json.dumps(shot["data"]), await_promise=True))
            with open(a.screenshot, "wb") as f:
                f.write(png)
            out["screenshot_bytes"] = os.path.getsize(a.screenshot)
        # what the page said, up to now: the events kept while waiting, and
        # any still in the pipe
        b.call("Runtime.evaluate", {"expression": "0"}, s)
        for ev in b.events:
            said = message_text(ev)
            if said:
                out[said[0] + "s"].append(said[1])
    except BrowserError as e:
        print("browser.py: %s" % e, file=sys.stderr)
        sys.exit(3)
    finally:
        if b:
            b.close()

    failed = [c for c in out["checks"] if c["applied"] and not c["ok"]]
    for c in out["checks"]:
        if not c["applied"]:
            print("not applied: %s (%s)" % (c["name"], c["why"]))
        else:
            print("%s: %s: %s" % ("ok" if c["ok"] else "FAILED", c["name"], c["found"]))
    for e in out["errors"]:
        print("console error: " + e)
    for w in out["warnings"]:
        print("console warning: " + w)
    t = out["timing"]
    print("timing: load %.0f ms, first frame after it %.0f ms (first contentful paint %s); "
          "%d elements, %d px high, %s bytes"
          % (t["load_ms"], t["rendered_ms"],
             "%.0f ms" % t["first_contentful_paint_ms"] if t["first_contentful_paint_ms"] else "not reported",
             t["elements"], t["height_px"], t["bytes"]))
    if a.screenshot:
        print("screenshot: %s (%dx%d, %d bytes)" % (a.screenshot, width, height, out["screenshot_bytes"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    bad = failed or out["errors"] or (a.fail_on_warnings and out["warnings"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
