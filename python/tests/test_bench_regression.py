"""bench/tilelang_regression.py, without a GPU: it finds TileLang's
regression programs in a checkout (process_func calls, their names and
literal shapes), and runs one program with `import tilelang` resolving to
each side in turn in one process: each side's example module, and the
modules beside it that it imports, see that side's `tilelang`, and both
sides' do_bench is the one timer. Real TileLang, torch and the timer are
stand-ins written here (tmp_path); this package is the real one."""

import json
import os
import subprocess
import sys
import textwrap

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, BENCH)
import tilelang_regression  # noqa: E402

import tilelang_mlir  # noqa: E402


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))


def make_checkout(root):
    demo = os.path.join(root, "checkout", "examples", "demo")
    write(os.path.join(demo, "regression_example_demo.py"), """\
        import tilelang.testing
        import example_demo
        def regression_example_demo():
            tilelang.testing.process_func(example_demo.run_regression_perf, n=3)
        def regression_other():
            tilelang.testing.process_func(example_demo.run_regression_perf, "regression_demo_wide", n=5)
        def regression_bad():
            tilelang.testing.process_func(example_demo.run_regression_perf_bad)
        def regression_not_literal():
            tilelang.testing.process_func(example_demo.run_regression_perf, n=len("ab"))
        """)
    # The example reads which `tilelang` it got through a module beside it,
    # imported at its own import, and through the profiler at call time.
    write(os.path.join(demo, "helper.py"), """\
        import tilelang
        def scale():
            return 2.0 if getattr(tilelang, "IS_STAND_IN", False) else 1.0
        """)
    write(os.path.join(demo, "example_demo.py"), """\
        import tilelang
        from helper import scale
        def run_regression_perf(n=1):
            from tilelang.profiler import do_bench
            return do_bench(lambda: scale() * n, backend="cupti")
        def run_regression_perf_bad():
            raise ValueError("no kernel here")
        """)
    site = os.path.join(root, "site")
    write(os.path.join(site, "tilelang", "__init__.py"), "IS_STAND_IN = True\n")
    write(os.path.join(site, "tilelang", "profiler", "__init__.py"), """\
        def do_bench(fn, **kwargs):
            raise AssertionError("the stand-in's own do_bench ran")
        """)
    write(os.path.join(site, "torch", "__init__.py"), """\
        def manual_seed(seed): pass
        class cuda:
            @staticmethod
            def synchronize(): pass
            @staticmethod
            def get_device_name(): return "stand-in"
        """)
    # The one timer: the function's value, so that each side's result
    # shows which program ran.
    write(os.path.join(site, "timing.py"), "def kernel_ms(fn):\n    return fn()\n")
    return os.path.join(root, "checkout"), site


def test_discovers_process_func_calls(tmp_path, capsys):
    checkout, _ = make_checkout(str(tmp_path))
    programs = tilelang_regression.discover(checkout)
    names = [(p["name"], p["function"], p["kwargs"]) for p in programs]
    assert names == [("demo/example_demo", "run_regression_perf", {"n": 3}),
                     ("demo/demo_wide", "run_regression_perf", {"n": 5}),
                     ("demo/example_demo", "run_regression_perf_bad", {})]
    assert "not literals" in capsys.readouterr().err


def test_each_side_runs_its_own_tilelang(tmp_path):
    checkout, site = make_checkout(str(tmp_path))
    package = os.path.dirname(os.path.dirname(os.path.abspath(tilelang_mlir.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package, site]))
    out = str(tmp_path / "rows.json")
    done = subprocess.run(
        [sys.executable, os.path.join(BENCH, "tilelang_regression.py"), checkout,
         "--rounds", "2", "--json", out],
        capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["name"] + ":" + str(row.get("kwargs")): row
            for row in json.load(open(out))["rows"]}
    demo = rows["demo/example_demo:{'n': 3}"]
    assert demo["ours"] == {"ms": 3.0, "rounds": [3.0, 3.0]}
    assert demo["TileLang"] == {"ms": 6.0, "rounds": [6.0, 6.0]}
    assert demo["ratio"] == 2.0
    assert rows["demo/demo_wide:{'n': 5}"]["ratio"] == 2.0
    bad = rows["demo/example_demo:{}"]
    assert bad["ours"] == {"error": "ValueError: no kernel here"}
    assert "ratio" not in bad
    assert "geometric mean TileLang/ours 2.000x" in done.stdout
