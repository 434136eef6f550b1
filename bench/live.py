#!/usr/bin/env python3
"""How live the workbench is (issue 68): the helper bench/live.sh runs, python3's standard library only.

  live.py workbench  one workbench run in tmux (120x40): first picture, final headline, and the
                     growth, price-or-MFU and horizon steps to a final headline
  live.py cli        report cold, report warm and audit warm, wall seconds
  live.py table      the table per log from the results file the two above append to

Each measurement is appended to the results file as one tab-separated line:
log, round, metric, seconds ("NA" when it never came), note.

What is read off the screen (src/ui/panes/contracts.rs `waterfall_lines`, src/app/replay_state.rs
`board_pending`, src/ui/chrome.rs `header`): the Contracts pane's `saving  $24.84M/yr` line is the
headline; it is final when the screen carries none of `not final` (the saving line's `⧗ <step>…:
not final` while the replay, the forecast's fit or a re-audit runs), `fitting…`, `recomputing…`,
nor the header's spinner (◐◓◑◒, a read or an audit under way). At 120x40 the six panes stand three
over three and the saving line falls below the Contracts pane's window on logs whose price is
assumed (the ⚑ lines lead), so the run zooms the Contracts pane (`z`, `5`) as soon as the first
frame is up (a zoomed frame draws one pane, not six); a step goes to its pane and back in one
send-keys: `6 → 5` (a growth or the horizon), `1 → 5` (a cluster's price, in its drill), so the
headline is on screen again as soon as the step's frame is drawn. A step is done when anything
on the Contracts pane moved (the saving shows four digits: a growth step on openb moves step 6 by
$1k/mo and the saving not at all) and is final. An MFU step does not move the board by design
("growth moves it; MFU does not"): it is timed to the MFU pane's new figure, then the headline is
checked final. Times are those of the first capture that saw the state: late by up to a poll.
"""

import argparse
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

COLS, ROWS = 120, 40
SPINNER = "◐◓◑◒"
BUSY_MARKERS = ("not final", "fitting…", "recomputing…")
SAVING = re.compile(r"(?:^|[│┃])\s*saving\s+(\S+/yr)")
SELECTED_BG = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:48;|4[0-7]m|10[0-7]m)")
SGR = re.compile(r"\x1b\[[0-9;]*m")
MFU_FIGURE = re.compile(r"(\d+\.\d) %")


class Crash(Exception):
    """The workbench exited, or never drew what was waited for."""


class Screen:
    """A tmux session on its own socket, read with capture-pane."""

    def __init__(self, socket, session):
        self.socket = socket
        self.session = session

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.socket, *args], check=check,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def start(self, command):
        self.tmux("new-session", "-d", "-s", self.session, "-x", str(COLS), "-y", str(ROWS), command)

    def lines(self, escapes=False):
        args = ["capture-pane", "-p", "-t", self.session] + (["-e"] if escapes else [])
        out = self.tmux(*args, check=False)
        if out.returncode != 0:
            raise Crash("the tmux session is gone: " + out.stderr.strip())
        lines = out.stdout.split("\n")
        if any(line.startswith("gpuplan exited with") for line in lines):
            raise Crash("\n".join(line.rstrip() for line in lines if line.strip())[-1500:])
        return lines

    def keys(self, *keys):
        self.tmux("send-keys", "-t", self.session, *keys)

    def kill(self):
        self.tmux("kill-session", "-t", self.session, check=False)


def saving(lines):
    for line in lines:
        m = SAVING.search(line)
        if m:
            return m.group(1)
    return None


def busy(lines):
    if lines and any(c in lines[0] for c in SPINNER):
        return True
    return any(marker in line for line in lines for marker in BUSY_MARKERS)


def pane_top(lines):
    """The zoomed pane's title line: the second line, or the third under a banner."""
    return next((i for i in range(1, min(4, len(lines))) if "zoomed" in lines[i]), 1)


def body(lines):
    """What a zoomed pane shows, less the title line (the header's `*` and spinner) and the
    banner."""
    return "\n".join(lines[pane_top(lines):])


def zoomed(lines, title):
    top = pane_top(lines)
    return len(lines) > top and title in lines[top] and "zoomed" in lines[top]


def selected(escaped_lines):
    """The plain text of the pane's rows drawn with a background (the selection), border cut."""
    rows = []
    for line in escaped_lines[2:]:
        body = line[1:]  # the border
        if SELECTED_BG.search(body):
            rows.append(SGR.sub("", body).strip("┃│ "))
    return rows


def mfu_figure(lines):
    """The zoomed MFU pane's first slider's figure (`45.0`), the selected accelerator's."""
    return next((m.group(1) for m in map(MFU_FIGURE.search, lines[2:]) if m), None)


class Run:
    """One workbench on the screen, and the polls that time it."""

    def __init__(self, args, screen):
        self.args = args
        self.screen = screen
        self.poll = args.poll

    def wait(self, what, ok, timeout, required=True):
        """Polls until ok(lines) holds: its lines and the time of the capture that saw it; past
        `timeout`, a Crash, or (None, None) when not `required`."""
        deadline = time.time() + timeout
        while True:
            at = time.time()
            lines = self.screen.lines()
            if ok(lines):
                return lines, at
            if at > deadline:
                if not required:
                    return None, None
                raise Crash(f"no {what} after {timeout:.0f} s; the screen:\n" + "\n".join(lines[:12]))
            time.sleep(self.poll)

    def final(self, start, before, settle, timeout, need_change=True):
        """From `start`, the seconds until the zoomed Contracts pane differs from `before` (its
        body as `body` reads it; a busy marker that came and went counts as a change) and is
        final, and stays so for `settle` seconds; with it the headline figure and the body.
        None past `timeout`, or when nothing was busy and nothing moved for `nochange` seconds.
        The time is that of the first capture of the final, unchanged pane."""
        seen_busy = False
        final_at, final_body, fig = None, None, None
        while True:
            at = time.time()
            if at - start > timeout or (not seen_busy and need_change and at - start > self.args.nochange):
                return None, fig, final_body
            lines = self.screen.lines()
            if not zoomed(lines, "Contracts"):
                final_at = None
            elif busy(lines):
                seen_busy, final_at = True, None
            elif saving(lines) is None and "↑" in lines[pane_top(lines)]:
                # The window followed the selected class down past the saving line: back to the top.
                print("  (the Contracts pane had scrolled: Home)", file=sys.stderr, flush=True)
                self.screen.keys("Home")
                final_at = None
            else:
                now_body, fig = body(lines), saving(lines)
                if fig and (not need_change or now_body != before or seen_busy):
                    if final_at is None or now_body != final_body:
                        final_at, final_body = at, now_body
                    elif at - final_at >= settle:
                        return final_at - start, fig, final_body
                else:
                    final_at = None
            time.sleep(self.poll)

    def select(self, want, down_first=True, tries=16):
        """Moves the focused pane's selection until its row starts with `want`; False if it never does."""
        key = "Down" if down_first else "Up"
        for _ in range(tries):
            time.sleep(0.15)
            rows = selected(self.screen.lines(escapes=True))
            if any(r.startswith(want) for r in rows):
                return True
            self.screen.keys(key)
        return False


def workbench(args):
    work = tempfile.mkdtemp(prefix="run-", dir=args.work)
    env = {d: os.path.join(work, d.lower()) for d in ("GPUPLAN_DATA_DIR", "GPUPLAN_CONFIG_DIR", "GPUPLAN_CACHE_DIR")}
    for d in env.values():
        os.makedirs(d)
    start_file = os.path.join(work, "start")
    # The shell writes the instant it hands over to gpuplan: tmux's own start is not counted.
    command = " ".join(
        ["env", *(f"{k}={shlex.quote(v)}" for k, v in env.items()), "sh", "-c",
         shlex.quote(f"date +%s.%N > {shlex.quote(start_file)}; "
                     f"exec {shlex.quote(args.gpuplan)} {shlex.quote(args.log)}")])
    command = f"{command}; echo \"gpuplan exited with $?\"; sleep 3600"
    screen = Screen(args.socket, f"live-{os.getpid()}")
    results = []

    def record(metric, seconds, note=""):
        value = "NA" if seconds is None else f"{seconds:.3f}"
        results.append(f"{args.name}\t{args.round}\t{metric}\t{value}\t{note}")
        shown = "never" if seconds is None else f"{seconds:.3f} s"
        print(f"  {args.name} round {args.round}: {metric} {shown} {note}".rstrip(), flush=True)

    try:
        screen.start(command)
        # Escape and an arrow's sequence go through at once, not after tmux's half second.
        screen.tmux("set-option", "-s", "escape-time", "0")
        run = Run(args, screen)
        # First frame: zoom the Contracts pane so the saving line is on screen whatever leads it.
        lines, _ = run.wait("workbench frame", lambda ls: "gpuplan" in ls[0], args.start_timeout)
        # Zoom first, then focus: the Contracts pane is never drawn 17 rows high, where following
        # its selected class would scroll the saving line out of its window.
        screen.keys("z", "5")
        while not os.path.exists(start_file) or os.path.getsize(start_file) == 0:
            time.sleep(0.01)
        with open(start_file) as f:
            t0 = float(f.read().strip())
        first_at = None
        while first_at is None:
            at = time.time()
            lines = screen.lines()
            if saving(lines):
                first_at = at
            elif at - t0 > args.start_timeout:
                raise Crash("no saving line; the screen:\n" + "\n".join(lines[:16]))
            else:
                time.sleep(args.poll)
        record("first", first_at - t0)
        took, fig, board = run.final(t0, None, args.start_settle, args.start_timeout, need_change=False)
        record("final", took, fig or "")
        if took is None:
            return results
        headline = fig

        def steps(metric, pane_key):
            nonlocal headline, board
            for i in range(args.steps):
                direction = "Right" if i % 2 == 0 else "Left"
                start = time.time()
                screen.keys(pane_key, direction, "5")
                took, fig, after = run.final(start, board, args.settle, args.step_timeout)
                if took is None:
                    record(metric, None, "nothing on the Contracts pane moved, or it never came final")
                    # Look again: the step may have landed late or moved nothing.
                    _, fig, after = run.final(time.time(), board, args.settle, args.step_timeout, need_change=False)
                else:
                    moved = "" if fig != headline else " (the headline the same at its precision)"
                    record(metric, took, f"{headline} -> {fig}{moved}")
                headline, board = fig or headline, after or board

        # Growth: the Forecast pane's first class whose demand is not nil.
        screen.keys("6")
        lines, _ = run.wait("Forecast pane", lambda ls: zoomed(ls, "Forecast"), 10)
        classes = [c for c in ("training", "inference", "burst")
                   if any(re.match(rf"[┃│]{c}\s+[━─]", line) and "no demand" not in line for line in lines)]
        if classes and run.select(classes[0]):
            screen.keys("5")
            steps("growth", "6")
        else:
            screen.keys("5")
            record("growth", None, "no class with demand to grow")

        # A cluster's price (the first cluster's drill) when the plan prices it, else an MFU step.
        screen.keys("1")
        lines, _ = run.wait("Workloads pane", lambda ls: zoomed(ls, "Workloads"), 10)
        screen.keys("Enter")
        time.sleep(0.3)
        lines = screen.lines()
        if args.second in ("auto", "price") and any("price per GPU-hour" in line for line in lines) \
                and run.select("price per GPU-hour"):
            screen.keys("5")
            _, headline, board = run.final(time.time(), board, args.settle, args.step_timeout, need_change=False)
            steps("price", "1")
        else:
            screen.keys("Escape")
            time.sleep(0.2)  # Escape and a key at once read as Alt and the key
            screen.keys("2")
            lines, _ = run.wait("MFU pane", lambda ls: zoomed(ls, "MFU"), 10)
            for i in range(args.steps):
                before = mfu_figure(lines)
                start = time.time()
                screen.keys("Right" if i % 2 == 0 else "Left")
                _, at = run.wait("a new MFU figure", lambda ls: mfu_figure(ls) not in (None, before),
                                 args.step_timeout, required=False)
                took = None if at is None else at - start
                screen.keys("5")
                _, fig, board = run.final(time.time(), board, args.settle, args.step_timeout, need_change=False)
                note = f"mfu {before} %, headline {fig}" + ("" if fig == headline else f" (moved from {headline})")
                record("mfu", took, note)
                headline = fig or headline
                screen.keys("2")
                lines, _ = run.wait("MFU pane", lambda ls: zoomed(ls, "MFU"), 10)
            screen.keys("5")

        # The forecast horizon: back up to the horizon row.
        screen.keys("6")
        run.wait("Forecast pane", lambda ls: zoomed(ls, "Forecast"), 10)
        if run.select("horizon", down_first=False):
            screen.keys("5")
            steps("horizon", "6")
        else:
            screen.keys("5")
            record("horizon", None, "the horizon row was not found")
    except Crash as e:
        record("crash", None, str(e).split("\n")[0])
        print(str(e), file=sys.stderr, flush=True)
    finally:
        screen.kill()
        with open(args.results, "a") as out:
            out.write("".join(r + "\n" for r in results))
    return results


def cli(args):
    work = tempfile.mkdtemp(prefix="cli-", dir=args.work)
    env = dict(os.environ)
    for d in ("GPUPLAN_DATA_DIR", "GPUPLAN_CONFIG_DIR", "GPUPLAN_CACHE_DIR"):
        env[d] = os.path.join(work, d.lower())
        os.makedirs(env[d])
    rows = []
    for metric, argv in (("report_cold", ["report", "--logs", args.log, "--format", "json"]),
                         ("report_warm", ["report", "--logs", args.log, "--format", "json"]),
                         ("audit_warm", ["audit", args.log, "--format", "json"])):
        start = time.perf_counter()
        done = subprocess.run([args.gpuplan, *argv], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        took = time.perf_counter() - start
        # 1 is a failed policy check, not a failed run.
        if done.returncode in (0, 1):
            rows.append(f"{args.name}\t{args.round}\t{metric}\t{took:.3f}\t")
            print(f"  {args.name} round {args.round}: {metric} {took:.3f} s", flush=True)
        else:
            why = done.stderr.strip().split("\n")[-1][:200]
            rows.append(f"{args.name}\t{args.round}\t{metric}\tNA\texit {done.returncode}: {why}")
            print(f"  {args.name} round {args.round}: {metric} failed, exit {done.returncode}: {why}", flush=True)
    with open(args.results, "a") as out:
        out.write("".join(r + "\n" for r in rows))


def p95(values):
    """Nearest rank: the smallest value at or above 95 % of the samples (the largest of fewer than 20)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def table(args):
    """Per log, the medians and p95s beside the issue's targets; then the same as one markdown table."""
    data, notes = {}, {}
    with open(args.results) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t") + [""]
            if len(parts) < 5:
                continue
            name, _round, metric, value, note = parts[:5]
            data.setdefault(name, {}).setdefault(metric, []).append(None if value == "NA" else float(value))
            if value == "NA":
                notes.setdefault(name, []).append(f"round {_round} {metric}: {note}")
    big = set(args.big.split())
    cold_target = set(args.cold_target.split())
    summary = []
    for name in args.logs.split():
        if name not in data:
            continue
        d = data[name]

        def stat(metric, kind="p50"):
            values = [v for v in d.get(metric, []) if v is not None]
            if not values:
                return None
            return statistics.median(values) if kind == "p50" else p95(values)

        def count(metric):
            values = d.get(metric, [])
            missing = sum(v is None for v in values)
            return f"{len(values) - missing}" + (f"+{missing}NA" if missing else "")

        second = "price" if "price" in d else "mfu"
        final_target = 3.0 if name in big else 1.0
        # label, metric, p95 shown, target, the statistic held to it
        rows = [
            ("first picture", "first", False, None, "p50"),
            ("final headline", "final", False, final_target, "p50"),
            ("growth step", "growth", True, 0.1, "p95"),
            (f"{second} step", second, True, 0.1, "p95"),
            ("horizon step", "horizon", True, 0.5, "p95"),
            ("report cold", "report_cold", False, 1.0 if name in cold_target else None, "p50"),
            ("report warm", "report_warm", False, None, "p50"),
            ("audit warm", "audit_warm", False, None, "p50"),
        ]
        print(f"\n== {name}")
        print(f"  {'seconds':<16} {'p50':>8} {'p95':>8} {'n':>6}  {'target':<13} met")
        for label, metric, show95, target, held in rows:
            p50v, p95v = stat(metric), stat(metric, "p95") if show95 else None
            goal = met = ""
            if target is not None:
                goal = f"{held} ≤ {target:g} s"
                checked = p95v if held == "p95" else p50v
                met = "–" if checked is None else ("yes" if checked <= target else "NO")
            print(f"  {label:<16} {fmt(p50v):>8} {fmt(p95v) if show95 else '':>8} {count(metric):>6}  {goal:<13} {met}")
        rw, aw = stat("report_warm"), stat("audit_warm")
        ratio = rw / aw if rw is not None and aw else None
        met = "–" if ratio is None else ("yes" if ratio <= 2.0 else "NO")
        print(f"  {'report/audit':<16} {fmt(ratio, 2):>8} {'':>8} {'':>6}  {'warm ≤ 2':<13} {met}")
        for note in notes.get(name, []):
            print(f"  ! {note}")
        def pair(metric):
            return f"{fmt(stat(metric))} / {fmt(stat(metric, 'p95'))}"

        summary.append([name, fmt(stat("first")), fmt(stat("final")), pair("growth"),
                        f"{pair(second)}" + (" (MFU)" if second == "mfu" else ""), pair("horizon"),
                        fmt(stat("report_cold")), fmt(rw), fmt(aw), fmt(ratio, 2)])
    print("\n| log | first picture | final headline | growth step p50 / p95 | price (or MFU) step p50 / p95 "
          "| horizon step p50 / p95 | report cold | report warm | audit warm | report/audit warm |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in summary:
        print("| " + " | ".join(row) + " |")
    print(f"| target | | ≤ 1.0 ({', '.join(sorted(big))}: ≤ 3) | p95 ≤ 0.1 | p95 ≤ 0.1 | p95 ≤ 0.5 "
          f"| ≤ 1.0 ({', '.join(args.cold_target.split())}) | | | ≤ 2 |")


def fmt(value, places=3):
    return "–" if value is None else f"{value:.{places}f}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    for name in ("workbench", "cli"):
        s = sub.add_parser(name)
        s.add_argument("--gpuplan", required=True)
        s.add_argument("--log", required=True)
        s.add_argument("--name", required=True)
        s.add_argument("--round", required=True)
        s.add_argument("--results", required=True)
        s.add_argument("--work", required=True, help="a folder for the run's fresh data, config and cache folders")
        if name == "workbench":
            s.add_argument("--socket", required=True, help="the tmux socket name (tmux -L)")
            s.add_argument("--steps", type=int, default=6, help="presses per kind of step")
            s.add_argument("--second", choices=("auto", "price", "mfu"), default="auto",
                           help="the second slider: a cluster's price when the plan prices it (auto), or MFU")
            s.add_argument("--poll", type=float, default=0.02, help="seconds between captures")
            s.add_argument("--settle", type=float, default=0.4,
                           help="seconds a step's final figure must stay final and unchanged")
            s.add_argument("--start-settle", type=float, default=2.0)
            s.add_argument("--step-timeout", type=float, default=60.0)
            s.add_argument("--nochange", type=float, default=3.0,
                           help="seconds after which a step that started nothing and moved nothing is given up")
            s.add_argument("--start-timeout", type=float, default=180.0)
    s = sub.add_parser("table")
    s.add_argument("--results", required=True)
    s.add_argument("--logs", required=True, help="the logs' names in the order to print")
    s.add_argument("--big", default="1m", help="logs held to the 3 s final headline, not 1 s")
    s.add_argument("--cold-target", default="sample openb", help="logs held to a 1 s cold report")
    args = p.parse_args()
    if args.what == "workbench":
        workbench(args)
    elif args.what == "cli":
        cli(args)
    else:
        table(args)


if __name__ == "__main__":
    main()
