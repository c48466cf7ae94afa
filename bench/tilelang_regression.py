#!/usr/bin/env python3
"""TileLang's own performance-regression programs through real TileLang and
through this package, in one process per program, timed by one function.

TileLang's examples carry `run_regression_perf` functions (the programs its
authors track for speed) and `examples/*/regression_*.py` files that call
them with their shapes through `tilelang.testing.process_func`. This script
reads those calls from a TileLang checkout (by parsing the files: nothing
of TileLang is copied here or imported from the checkout but the examples
themselves), loads each example module twice in one process, once with
`import tilelang` resolving to the real TileLang and once to this package
(scripts/conformance/tilelang_alias.py), and runs its `run_regression_perf`
for each, interleaved, median of --rounds rounds after a first untimed
round (compilation, warm-up). Both sides' `tilelang.profiler.do_bench` (the
one every such function ends with, directly or through a kernel's
profiler) is replaced by timing.kernel_ms: the kernels' own time from the
profiler (CUPTI), the same function for both sides. The ratio is
TileLang / ours: above 1, ours is faster.

    PYTHONPATH=<this package>:<real TileLang>:python/tests \\
        python3 bench/tilelang_regression.py TILELANG_CHECKOUT [--match sparse_mla] \\
        [--rounds 3] [--timeout 300] [--json FILE]
    python3 bench/tilelang_regression.py TILELANG_CHECKOUT --list    (no GPU needed)

Each program runs in its own subprocess (a hang or a crash costs that
program only, after --timeout seconds). A side whose program raises is
reported with the first line of the error and not timed. The regression
functions do not check results: their correctness is what TileLang's test
files check (scripts/conformance), reported beside these numbers.
"""

import argparse
import ast
import glob
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ALIAS_DIR = os.path.join(ROOT, "scripts", "conformance")


# ---------------------------------------------------------------------------
# The programs: process_func calls of the regression files
# ---------------------------------------------------------------------------

def discover(checkout):
    """[{name, dir, module, function, kwargs}] of every
    `tilelang.testing.process_func(module.function[, name], **kwargs)` in
    examples/*/regression_*.py whose keyword values are literals."""
    programs = []
    for path in sorted(glob.glob(os.path.join(checkout, "examples", "*", "regression_*.py"))):
        tree = ast.parse(open(path).read(), path)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "process_func" and node.args
                    and isinstance(node.args[0], ast.Attribute)
                    and isinstance(node.args[0].value, ast.Name)):
                continue
            target = node.args[0]
            name = target.value.id
            if len(node.args) > 1:
                name = ast.literal_eval(node.args[1])
                name = name[len("regression_"):] if name.startswith("regression_") else name
            try:
                kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            except ValueError:
                print("skipped %s:%d: keyword arguments that are not literals"
                      % (path, node.lineno), file=sys.stderr)
                continue
            programs.append({"name": "%s/%s" % (os.path.basename(os.path.dirname(path)), name),
                             "dir": os.path.dirname(path), "module": target.value.id,
                             "function": target.attr, "kwargs": kwargs})
    return programs


# ---------------------------------------------------------------------------
# One program, both sides, in this process (the subprocess's work)
# ---------------------------------------------------------------------------

class Side:
    """One implementation of `tilelang`: the sys.modules entries it owns
    (tilelang.*, the example's own modules, TVM for the real one) and, for
    this package, the import hook of the alias."""

    def __init__(self, name):
        self.name = name
        self.modules = {}
        self.finders = []
        self.module = None


def _owned(name, module, example_dir):
    if name in ("tilelang", "tvm", "tvm_ffi") or name.startswith(("tilelang.", "tvm.", "tvm_ffi.")):
        return True
    path = getattr(module, "__file__", None) or ""
    return os.path.dirname(os.path.abspath(path)) == example_dir if path else False


def _take(side, example_dir):
    """Moves the side's modules out of sys.modules into `side`."""
    for name, module in list(sys.modules.items()):
        if _owned(name, module, example_dir):
            side.modules[name] = module
            del sys.modules[name]
    for finder in side.finders:
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)


def _give(side):
    sys.modules.update(side.modules)
    sys.meta_path[0:0] = side.finders


def _patch_profiler(timer):
    """`tilelang.profiler.do_bench` (and the real TileLang's
    `tilelang.profiler.bench.do_bench`) become `timer`, for modules that
    import it by name after this and for Profiler.do_bench, which calls
    the module's global."""
    import importlib
    for name in ("tilelang.profiler", "tilelang.profiler.bench"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "do_bench"):
            module.do_bench = timer


def run_program(program, rounds, sides_wanted):
    import importlib
    import torch
    sys.path.insert(0, HERE)
    from common import import_timing
    timing = import_timing()

    state = {"mode": "warm"}

    def timer(fn, *args, **kwargs):
        if state["mode"] == "warm":
            fn()
            torch.cuda.synchronize()
            return 1.0
        return timing.kernel_ms(fn)

    example_dir = os.path.abspath(program["dir"])
    sys.path.insert(0, example_dir)
    sides = []
    for name in sides_wanted:
        side = Side(name)
        before = list(sys.meta_path)
        try:
            if name == "ours":
                sys.path.insert(0, ALIAS_DIR)
                import tilelang_alias  # noqa: F401 (enters the alias)
            else:
                import tilelang  # noqa: F401 (the real one: nothing is aliased yet)
            _patch_profiler(timer)
            side.module = importlib.import_module(program["module"])
        except Exception as error:  # noqa: BLE001 (reported)
            side.error = "import: %s: %s" % (type(error).__name__,
                                             str(error).splitlines()[0][:200] if str(error) else "")
        # The import hooks the side entered (the alias's, for ours).
        side.finders = [f for f in sys.meta_path if f not in before]
        _take(side, example_dir)
        sides.append(side)

    def call(side):
        _give(side)
        try:
            torch.manual_seed(0)
            return float(getattr(side.module, program["function"])(**program["kwargs"]))
        finally:
            _take(side, example_dir)

    times = {s.name: [] for s in sides}
    errors = {s.name: getattr(s, "error", None) for s in sides}
    for round_ in range(rounds + 1):
        state["mode"] = "warm" if round_ == 0 else "time"
        for side in sides:
            if errors[side.name]:
                continue
            try:
                value = call(side)
                if round_:
                    times[side.name].append(value)
            except Exception as error:  # noqa: BLE001 (reported)
                message = str(error).splitlines()[0][:200] if str(error) else ""
                errors[side.name] = "%s: %s" % (type(error).__name__, message)
    row = {"name": program["name"], "kwargs": program["kwargs"]}
    for side in sides:
        row[side.name] = ({"error": errors[side.name]} if errors[side.name]
                          else {"ms": statistics.median(times[side.name]),
                                "rounds": times[side.name]})
    ours, peer = row.get("ours", {}), row.get("TileLang", {})
    if "ms" in ours and "ms" in peer:
        row["ratio"] = peer["ms"] / ours["ms"]
    return row


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def print_row(row):
    def cell(side):
        entry = row.get(side)
        if entry is None:
            return "-"
        return "%.4f" % entry["ms"] if "ms" in entry else "error"
    ratio = "%.2fx" % row["ratio"] if "ratio" in row else "-"
    print("%-55s ours %-9s TileLang %-9s TileLang/ours %s"
          % (row["name"], cell("ours"), cell("TileLang"), ratio), flush=True)
    for side in ("ours", "TileLang"):
        entry = row.get(side) or {}
        if "error" in entry:
            print("    %s: %s" % (side, entry["error"]), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", help="a TileLang checkout (its examples/ are run)")
    parser.add_argument("--match", action="append", default=[],
                        help="only programs whose name contains this (repeatable; run in this order)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds for one program, both sides")
    parser.add_argument("--budget", type=float, default=0,
                        help="seconds after which no new program starts (0: none)")
    parser.add_argument("--no-tilelang", action="store_true")
    parser.add_argument("--list", action="store_true", help="list the programs and stop")
    parser.add_argument("--json")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the subprocess's program (JSON)
    args = parser.parse_args()

    if args.one:
        program = json.loads(args.one)
        sides = ["ours"] + ([] if args.no_tilelang else ["TileLang"])
        row = run_program(program, args.rounds, sides)
        print("ROW " + json.dumps(row), flush=True)
        return

    programs = discover(os.path.abspath(args.checkout))
    if args.match:  # in the order of the --match options
        programs = [p for m in args.match for p in programs
                    if m in p["name"] and not any(n in p["name"] for n in
                                                  args.match[:args.match.index(m)])]
    if args.list:
        for p in programs:
            print("%-55s %s.%s(%s)" % (p["name"], p["module"], p["function"],
                                       ", ".join("%s=%r" % kv for kv in p["kwargs"].items())))
        return
    start = time.time()
    rows = []
    for program in programs:
        if args.budget and time.time() - start > args.budget:
            rows.append({"name": program["name"], "skipped": "budget"})
            print("%-55s skipped (budget)" % program["name"], flush=True)
            continue
        command = [sys.executable, os.path.abspath(__file__), args.checkout,
                   "--rounds", str(args.rounds), "--one", json.dumps(program)]
        if args.no_tilelang:
            command.append("--no-tilelang")
        try:
            done = subprocess.run(command, capture_output=True, text=True,
                                  timeout=args.timeout, cwd=program["dir"])
            lines = [l for l in done.stdout.splitlines() if l.startswith("ROW ")]
            if lines:
                row = json.loads(lines[-1][4:])
            else:
                tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
                row = {"name": program["name"], "error": "exit %d: %s" % (done.returncode, tail[:200])}
        except subprocess.TimeoutExpired:
            row = {"name": program["name"], "error": "over %g s" % args.timeout}
        rows.append(row)
        if "error" in row:
            print("%-55s %s" % (row["name"], row["error"]), flush=True)
        else:
            print_row(row)
    ratios = [r["ratio"] for r in rows if "ratio" in r]
    if ratios:
        print("timed on both sides: %d of %d; geometric mean TileLang/ours %.3fx; "
              "ours >= TileLang on %d" % (len(ratios), len(rows),
                                          statistics.geometric_mean(ratios),
                                          sum(r >= 1.0 for r in ratios)))
    if args.json:
        import torch
        with open(args.json, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d"),
                       "device": torch.cuda.get_device_name(),
                       "timer": "kernel_ms (CUPTI) for both sides' do_bench, interleaved, "
                                "median of %d rounds after one untimed round" % args.rounds,
                       "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
