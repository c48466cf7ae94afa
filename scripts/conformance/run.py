#!/usr/bin/env python3
"""Runs TileLang's own test files unchanged, against this package (``import
tilelang`` resolving to ``tilelang_mlir`` through tilelang_alias.py) or
against TileLang itself, and compares the two per test item.

  run.py run CHECKOUT --impl ours|tilelang --out DIR [--jobs N] [--timeout S]
      runs every selected file of CHECKOUT (a TileLang source tree) under
      pytest, one process per file, and writes DIR/<impl>.json: each item's
      outcome (passed, failed, error, skipped, timeout) by pytest node id.
  run.py report DIR [--markdown]
      prints, per folder, the items, what TileLang passes, what this package
      passes of those, the ratio, and the most frequent first error lines.

Selected: testing/python/{language,kernel,jit}/test_*.py and
examples/*/test_*.py, less the files and tests named in excluded.txt
(tests of TVM internals and of backends that are not this package's, each
with the reason). The report's ratio is over the items TileLang passes on the same
machine: a file that fails to import counts all of them as failed here.
"""

import argparse
import collections
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDERS = ("testing/python/language", "testing/python/kernel",
           "testing/python/jit", "examples")


def excluded():
    table = {}
    with open(os.path.join(HERE, "excluded.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                path, _, why = line.partition(" ")
                table[path] = why.strip()
    return table


def is_excluded(node, table):
    """Whether an item is left out: its file, or the test (any of its
    parametrizations) named `path::test` in excluded.txt."""
    rel, _, name = node.partition("::")
    if rel in table:
        return True
    base = name.split("[")[0]
    return "%s::%s" % (rel, base) in table


def folder_of(path):
    for folder in FOLDERS:
        if path.startswith(folder + "/"):
            return folder
    return "?"


def select(checkout):
    out = []
    for folder in FOLDERS:
        pattern = "*/test_*.py" if folder == "examples" else "test_*.py"
        for path in sorted(glob.glob(os.path.join(checkout, folder, pattern))):
            out.append(os.path.relpath(path, checkout))
    return out


def first_line(text):
    """The line that says what went wrong: the last `E   ` line of pytest's
    report (the exception), else the message's first line."""
    lines = [l for l in (text or "").splitlines() if l.startswith("E   ")]
    line = lines[-1][4:].strip() if lines else (text or "").strip().split("\n")[0]
    return line[:300]


def parse_junit(path, rel):
    items = {}
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        cls, name = case.get("classname", ""), case.get("name", "")
        node = "%s::%s" % (rel, name) if cls else "%s::<collection>" % rel
        # A class-based test's classname ends with its class: keep it.
        if cls and "." in cls and cls.rsplit(".", 1)[1][:1].isupper():
            node = "%s::%s::%s" % (rel, cls.rsplit(".", 1)[1], name)
        outcome, why = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed" if child.tag == "failure" else "error"
                why = first_line(child.text or child.get("message", ""))
                break
            if child.tag == "skipped":
                outcome, why = "skipped", (child.get("message") or "")[:300]
        items[node] = {"outcome": outcome, "why": why}
    return items


def run_file(checkout, rel, impl, timeout, junit_dir):
    path = os.path.join(checkout, rel)
    junit = os.path.join(junit_dir, rel.replace("/", "__") + ".xml")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
           "-o", "addopts=", "--junitxml", junit, "-o",
           "junit_family=xunit1", os.path.basename(path)]
    env = dict(os.environ)
    if impl == "ours":
        cmd[3:3] = ["-p", "tilelang_alias"]
        env["PYTHONPATH"] = os.pathsep.join(
            [HERE] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    start = time.time()
    try:
        proc = subprocess.run(cmd, cwd=os.path.dirname(path), env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout)
        tail = proc.stdout.decode(errors="replace")[-4000:]
    except subprocess.TimeoutExpired:
        return rel, {"%s::<file>" % rel: {
            "outcome": "timeout", "why": "over %d s" % timeout}}, time.time() - start
    if os.path.exists(junit):
        items = parse_junit(junit, rel)
    else:
        items = {}
    if not items:
        items["%s::<file>" % rel] = {"outcome": "error",
                                     "why": first_line(tail) or "no report"}
    return rel, items, time.time() - start


def cmd_run(args):
    table = excluded()
    files = [f for f in select(args.checkout) if f not in table]
    if args.only:
        files = [f for f in files if any(f.startswith(o) for o in args.only)]
    out_path = os.path.join(args.out, "%s.json" % args.impl)
    os.makedirs(args.out, exist_ok=True)
    result = {"impl": args.impl, "items": {}, "seconds": {}}
    if os.path.exists(out_path) and args.resume:
        result = json.load(open(out_path))
    done = {node.split("::")[0] for node in result["items"]}
    files = [f for f in files if f not in done]
    deadline = time.time() + args.budget if args.budget else None
    with tempfile.TemporaryDirectory() as junit_dir, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {}
        for rel in files:
            futures[pool.submit(run_file, args.checkout, rel, args.impl,
                                args.timeout, junit_dir)] = rel
        for future in concurrent.futures.as_completed(futures):
            if future.cancelled():
                continue
            rel, items, seconds = future.result()
            result["items"].update(items)
            result["seconds"][rel] = round(seconds, 1)
            counts = collections.Counter(i["outcome"] for i in items.values())
            print("%6.1fs %-70s %s" % (seconds, rel, dict(counts)), flush=True)
            with open(out_path, "w") as f:
                json.dump(result, f, indent=1, sort_keys=True)
            if deadline and time.time() > deadline:
                for other in futures:
                    other.cancel()
    print("wrote", out_path)


def cmd_report(args):
    theirs = json.load(open(os.path.join(args.dir, "tilelang.json")))["items"]
    ours = json.load(open(os.path.join(args.dir, "ours.json")))["items"]

    def outcome(items, node):
        if node in items:
            return items[node]["outcome"]
        rel = node.split("::")[0]
        for key in ("%s::<file>" % rel, "%s::<collection>" % rel):
            if key in items:
                return items[key]["outcome"]
        return "missing"

    rows = collections.OrderedDict((f, collections.Counter()) for f in FOLDERS)
    reasons = collections.Counter()
    table = excluded()
    for node, item in sorted(theirs.items()):
        if node.endswith(("::<file>", "::<collection>")) or is_excluded(node, table):
            continue
        row = rows[folder_of(node)]
        row["items"] += 1
        if item["outcome"] != "passed":
            continue
        row["theirs"] += 1
        mine = outcome(ours, node)
        if mine == "passed":
            row["both"] += 1
        else:
            rel = node.split("::")[0]
            entry = ours.get(node) or ours.get("%s::<file>" % rel) or \
                ours.get("%s::<collection>" % rel) or {"why": mine}
            reasons[re.sub(r"0x[0-9a-f]+|\d+", "N", entry["why"])[:160]] += 1
    for node, item in ours.items():
        if item["outcome"] == "passed" and not node.endswith(">") and \
                not is_excluded(node, table):
            rows[folder_of(node)]["ours"] += 1
    total = collections.Counter()
    for row in rows.values():
        total.update(row)
    rows["all"] = total
    md = args.markdown
    if md:
        print("| folder | items | TileLang passes | this package passes | of TileLang's | ratio |")
        print("|---|---|---|---|---|---|")
    for name, row in rows.items():
        ratio = row["both"] / row["theirs"] if row["theirs"] else 0.0
        if md:
            print("| %s | %d | %d | %d | %d | %.0f%% |" % (
                name, row["items"], row["theirs"], row["ours"], row["both"], 100 * ratio))
        else:
            print("%-26s items %4d  TileLang passes %4d  ours %4d  of those %4d  %5.1f%%" % (
                name, row["items"], row["theirs"], row["ours"], row["both"], 100 * ratio))
    print()
    print("why items TileLang passes fail here (most frequent first):")
    for why, n in reasons.most_common(args.reasons):
        print("%5d  %s" % (n, why))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("checkout")
    run.add_argument("--impl", choices=("ours", "tilelang"), required=True)
    run.add_argument("--out", required=True)
    run.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    run.add_argument("--timeout", type=int, default=300, help="seconds per file")
    run.add_argument("--budget", type=int, default=0,
                     help="stop starting files after this many seconds")
    run.add_argument("--only", nargs="*", help="path prefixes to run")
    run.add_argument("--resume", action="store_true",
                     help="keep DIR/<impl>.json's files and run the rest")
    report = sub.add_parser("report")
    report.add_argument("dir")
    report.add_argument("--markdown", action="store_true")
    report.add_argument("--reasons", type=int, default=40)
    args = parser.parse_args()
    args.checkout = os.path.abspath(getattr(args, "checkout", ".") or ".")
    {"run": cmd_run, "report": cmd_report}[args.command](args)


if __name__ == "__main__":
    main()
