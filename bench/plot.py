#!/usr/bin/env python3
"""Draws the H200 results of one run as a bar chart of ratios (peer time /
our time: above 1 is faster than the peer), with the issue's targets:

  python3 bench/plot.py bench/results/2026-11-30-h200-run17.csv docs/bench-h200.png

Needs matplotlib (not a project dependency: `pip install matplotlib` in a
virtual environment)."""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    source, target = sys.argv[1], sys.argv[2]
    with open(source) as f:
        rows = list(csv.DictReader(f))
    labels = ["%s vs %s" % (r["case"], r["peer"]) for r in rows]
    ratios = [float(r["peer_ms"]) / float(r["ours_ms"]) for r in rows]
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(rows) + 1.4))
    y = range(len(rows))
    colors = ["#2b7bba" if r >= 1 else "#7fb3d5" for r in ratios]
    ax.barh(list(y), ratios, color=colors)
    for i, (r, row) in enumerate(zip(ratios, rows)):
        ax.text(r + 0.02, i, "%.2f" % r, va="center", fontsize=8)
        if row["target"]:
            t = float(row["target"])
            ax.plot([t, t], [i - 0.4, i + 0.4], color="#c0392b", lw=2)
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_yticks(list(y))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("peer time / our time (red marks: the issue's targets)")
    ax.set_title("TileLang-MLIR on one H200 (%s)" % source.split("/")[-1]
                 .replace(".csv", ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(target, dpi=110)


if __name__ == "__main__":
    main()
