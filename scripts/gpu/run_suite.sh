#!/usr/bin/env bash
# The GPU suite, on the GPU machine (an H200; no LLVM, no network there), from
# the repository root. Carry (the device tool's `carry`):
#   .bundle  scripts/gpu/build_bundle.sh: the static tile-run and the lit tools
#   dist     scripts/build_wheels.sh 3.12: the wheel
#   .whl     python3 -m pip download -d .whl pytest
#   .peers   timing.py, the one timer of ours and the peers:
#            mkdir -p .peers && cp ../shared/peers/timing.py .peers/
#            (or name the folder that holds it there in TIMING_DIR)
# Sections (SECTIONS, default "correct sanitize time python"):
#   correct      the GPU lit tests (test/Integration/GPU) but the sanitizer's
#   sanitize     test/Integration/GPU/sanitizer.test: memcheck and racecheck
#   time         bench/measure.py: the results file of the README's numbers
#   experiments  bench/experiments.py, each of EXPERIMENTS (names, default
#                all of `--list`) in a process and a results file of its own,
#                within EXPERIMENT_TIMEOUT seconds (default 1800)
#   python       the Python suite from the installed wheel, then the SASS of
#                the benchmarked kernels (scripts/gpu/sass_check.py)
#   ncu          one experiment (NCU_CASE) untimed under Nsight Compute: the
#                kernels matching NCU_KERNEL (a regex), NCU_COUNT of them,
#                with NCU_ARGS (sections, metrics)
# Results go to $OUT (default /tmp/tile-gpu-out), the logs to $OUT/logs.tgz:
#   SECTIONS="time experiments" EXPERIMENTS="pgemm ws-attention" scripts/gpu/run_suite.sh
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT" || exit 1
OUT="${OUT:-/tmp/tile-gpu-out}"
LOGS=/tmp/tile-gpu-logs
mkdir -p "$OUT" "$LOGS"
trap 'tar czf "$OUT/logs.tgz" -C "$LOGS" . 2>/dev/null' EXIT
export TILE_CACHE_DIR=/tmp/tile-cache
SECTIONS="${SECTIONS:-correct sanitize time python}"
want() { case " $SECTIONS " in *" $1 "*) return 0;; esac; return 1; }

echo "== machine"
nvidia-smi -L
command -v ptxas && ptxas --version | tail -1
echo "CUDA_HOME=${CUDA_HOME:-unset}"

# The installed wheel on PYTHONPATH (once), then timing.py too.
installed=
install() {
  [ -n "$installed" ] || { source scripts/gpu/install_wheel.sh && installed=1; }
}
timer() {
  local dir="${TIMING_DIR:-$ROOT/.peers}"
  if [ ! -f "$dir/timing.py" ]; then
    echo "no timing.py in \$TIMING_DIR (${TIMING_DIR:-unset}) or in $ROOT/.peers:" \
      "copy shared/peers/timing.py into .peers/ before carrying" >&2
    return 1
  fi
  case ":$PYTHONPATH:" in *":$dir:"*) ;; *) export PYTHONPATH="$PYTHONPATH:$ROOT/python/tests:$dir";; esac
}

if want correct; then
  echo "== correctness: the GPU lit tests (test/Integration/GPU: the examples against naive references, GEMM variants, wgmma, blocked layouts, persistent kernels, attention against the CPU lowering, the kernels against torch)"
  LIT_OPTS="--filter-out=sanitizer" OUT="$LOGS" scripts/gpu/run_lit.sh Integration/GPU > "$LOGS/lit-correct.log" 2>&1
  grep -E '^(PASS|FAIL|UNSUPPORTED|XFAIL|XPASS): |^  (Passed|Failed|Unsupported)' "$LOGS/lit-correct.log"
fi
if want sanitize; then
  echo "== compute-sanitizer (test/Integration/GPU/sanitizer.test: memcheck and racecheck, small sizes)"
  LIT_OPTS="--filter=sanitizer" scripts/gpu/run_lit.sh Integration/GPU > "$LOGS/lit-sanitize.log" 2>&1
  grep -E '^(PASS|FAIL|UNSUPPORTED): |^  (Passed|Failed|Unsupported)' "$LOGS/lit-sanitize.log"
fi
if want time && install && timer; then
  echo "== timing: bench/measure.py (ours and the peers by one timer, interleaved; $OUT/measure.json)"
  timeout 3000 python3 bench/measure.py --out "$OUT/measure.json" 2>&1 | tee "$LOGS/measure.log"
fi
if want experiments && install && timer; then
  names="${EXPERIMENTS:-$(python3 bench/experiments.py --list | sed -n 's/^\([^ :][^ :]*\): .*/\1/p')}"
  echo "== experiments: bench/experiments.py ($OUT/experiments/NAME.json):" "$names"
  mkdir -p "$OUT/experiments"
  for name in $names; do
    timeout "${EXPERIMENT_TIMEOUT:-1800}" python3 bench/experiments.py --only "$name" \
      --out "$OUT/experiments/$name.json" 2>&1 | tee "$LOGS/experiment-$name.log"
    status=${PIPESTATUS[0]}
    [ "$status" = 0 ] || echo "FAIL experiment $name: exit $status (124: past EXPERIMENT_TIMEOUT)"
  done
fi
if want python; then
  echo "== Python on the GPU: the Python suite from the installed wheel (scripts/gpu/run_wheel_suite.sh; wheel from scripts/build_wheels.sh, pytest from .whl/)"
  SITE=/tmp/tilelang-site TILE_CACHE_DIR=/tmp/tile-python-cache timeout 600 scripts/gpu/run_wheel_suite.sh 2>&1 | tee "$LOGS/python-gpu.log" | tail -8
  if install; then
    echo "== SASS of the benchmarked kernels (scripts/gpu/sass_check.py: HGMMA, UTMALDG / UTMASTG, SYNCS, setmaxnreg, no LDGSTS; listings in logs)"
    timeout 300 python3 scripts/gpu/sass_check.py --out "$LOGS/sass" 2>&1 | tee "$LOGS/sass-check.log"
  fi
fi
if want ncu; then
  if [ -z "${NCU_CASE:-}" ]; then
    echo "SKIP ncu: NCU_CASE names the experiment (bench/experiments.py --list)"
  elif install; then
    echo "== Nsight Compute (free clocks): experiment $NCU_CASE untimed, kernels matching ${NCU_KERNEL:=gemm|flash|fmha|sdpa|cudnn|softmax|rms} ($OUT/ncu-$NCU_CASE.txt)"
    timeout 600 ncu --target-processes all --clock-control none -k "regex:$NCU_KERNEL" -c "${NCU_COUNT:-8}" \
      ${NCU_ARGS:---section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats} \
      python3 bench/experiments.py --only "$NCU_CASE" --ncu > "$OUT/ncu-$NCU_CASE.txt" 2>&1
    echo "ncu exit $?"
  fi
fi
