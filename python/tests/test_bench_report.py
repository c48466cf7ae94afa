"""bench/report.py: the README's numbers are what the script computes from
the results file it names (no hand edits, no drift), and the arithmetic of
a ratio and its range."""

import importlib.util
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _report():
    spec = importlib.util.spec_from_file_location(
        "bench_report", os.path.join(ROOT, "bench", "report.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ratios_pair_interleaved_rounds():
    report = _report()
    record = {"date": "2000-01-01", "device": "GPU", "tilelang_mlir": "0 (x)",
              "timer": "t", "results": [{
                  "case": "c", "group": "g", "kind": "program",
                  "ms": {"ours": [1.0, 2.0, 4.0], "cuBLAS": [2.0, 2.0, 2.0]},
                  "caller_ms": {"ours": [2.0], "cuBLAS": [1.0]}}]}
    (row,) = list(report.rows(record))
    assert row["ratio"] == 1.0 and row["low"] == 0.5 and row["high"] == 2.0
    assert row["ours_ms"] == 2.0 and row["peer_kind"] == "vendor library"
    assert row["caller_ratio"] == 0.5
    text = report.table(record, os.path.join(ROOT, "bench", "results", "x.json"))
    assert "| c | 2.0000 | cuBLAS (vendor library) | 2.0000 | **1.00x** | 0.50-2.00 | 0.50x |" in text


def test_readme_numbers_are_generated_from_the_results_file():
    report = _report()
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    block = re.search(re.escape(report.BEGIN) + ".*?" + re.escape(report.END), readme, re.S)
    assert block, "README.md has no generated results block"
    source = re.search(r"`(bench/results/[^`]+\.json)`", block.group(0))
    assert source, "the results block does not name its results file"
    import json
    with open(os.path.join(ROOT, source.group(1))) as f:
        record = json.load(f)
    assert block.group(0) == report.table(record, os.path.join(ROOT, source.group(1))), \
        "README's results differ from bench/report.py's output: rerun it"
