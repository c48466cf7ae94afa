"""Checks a tile-run --json report (tile-run-json.test): STATUS FILE [hit|miss]."""
import json
import sys

status, path = sys.argv[1], sys.argv[2]
with open(path) as f:
    report = json.load(f)  # the whole of stdout is one object
assert report["status"] == status, report
if status == "error":
    assert "no function 'nothere'" in report["error"], report
    sys.exit(0)
assert report["entry"] in ("scale2", "scale2_floor"), report
assert report["target"] == "cpu:host", report
assert report["pipeline"] == "tile-to-cpu{emit-c-interface=true}", report
assert "arg0.shape=100" in report["specialization"], report
assert report["checked"] is True, report
assert len(report["cache"]["key"]) == 64, report
if len(sys.argv) > 3:
    assert report["cache"]["hit"] == (sys.argv[3] == "hit"), report
x, y = report["buffers"]
assert (x["index"], x["output"], x["outside"]) == (0, False, 0), x
assert (y["index"], y["name"], y["output"], y["shape"]) == (1, "arg1", True, [100]), y
assert y["outside"] == (4 if status == "mismatch" else 0), y
assert y["elements"] == 100 and y["rtol"] == 1e-4, y
time = report["time"]
assert time["runs"] == 3 and time["warmup"] == 2 and len(time["wall_ms"]) == 3, time
assert sorted(time["wall_ms"])[1] == time["wall_median_ms"], time
