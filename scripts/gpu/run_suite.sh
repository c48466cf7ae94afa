#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .bundle/ carried:
# every example kernel on the GPU against its naive reference and against the
# CPU lowering of the same kernel (fresh random inputs, poisoned outputs,
# edge shapes), compute-sanitizer memcheck and racecheck on small sizes, then
# timings next to the peers (cuBLAS through torch). Logs go to $OUT.
set -u
OUT="${OUT:-/tmp/tile-gpu-out}"
# Per-case logs go to LOGS and come back as one archive ($OUT holds few files).
LOGS=/tmp/tile-gpu-logs
mkdir -p "$OUT" "$LOGS" /tmp/tile-bundle
trap 'tar czf "$OUT/logs.tgz" -C "$LOGS" . 2>/dev/null' EXIT
xz -dc .bundle/tile-run.xz > /tmp/tile-bundle/tile-run && chmod +x /tmp/tile-bundle/tile-run
TR=/tmp/tile-bundle/tile-run
CHIP="${CHIP:-sm_90a}"
export TILE_CACHE_DIR=/tmp/tile-cache
R=test/Integration/references
E=examples
G=test/Integration/Inputs/gen_gemm.py
B=test/Integration/blocked_swizzle.mlir
F128=bench/kernels/flash_attention_d128.mlir
F128O=bench/kernels/flash_attention_d128_overlap.mlir
F128S=bench/kernels/flash_attention_d128_split.mlir

echo "== machine"
nvidia-smi -L
command -v ptxas && ptxas --version | tail -1
echo "CUDA_HOME=${CUDA_HOME:-unset}"

# The experimental wgmma kernels (TN, full_row: 64 rows of C per warpgroup).
gen_wgmma_kernels() {
  python3 $G --dtype f16 --acc f32 --out f16 --tb --block 64x128x64 --threads 128 --stages 3 --policy full_row > /tmp/gemm_wg1.mlir
  python3 $G --dtype f16 --acc f32 --out f16 --tb --block 128x128x64 --threads 256 --stages 3 --policy full_row > /tmp/gemm_wg2.mlir
  python3 $G --dtype bf16 --acc f32 --out bf16 --tb --block 128x256x64 --threads 256 --stages 3 --policy full_row > /tmp/gemm_wg3.mlir
  # Four stages: one k tile of wgmma work stays in flight (wg_wait = 1).
  python3 $G --dtype f16 --acc f32 --out f16 --tb --block 64x128x64 --threads 128 --stages 4 --policy full_row > /tmp/gemm_wg4.mlir
  python3 $G --dtype f16 --acc f32 --out f16 --tb --block 128x128x64 --threads 256 --stages 4 --policy full_row --raster 8 > /tmp/gemm_wg5.mlir
  # The NN 128x256x64 kernel (B's 512-byte rows: blocked, in panels).
  python3 $G --dtype f16 --acc f32 --out f16 --block 128x256x64 --threads 256 --stages 4 --policy full_row --raster 8 > /tmp/gemm_nn_wide.mlir
  python3 $G --dtype bf16 --acc f32 --out bf16 --tb --block 128x256x64 --threads 256 --stages 4 --policy full_row --raster 8 > /tmp/gemm_wg6.mlir
  # NN: B stored K x N, MN-major with all 64 columns in one 128-byte row.
  python3 $G --dtype f16 --acc f32 --out f16 --block 128x64x64 --threads 256 --stages 4 --policy full_row > /tmp/gemm_wg7.mlir
  # The TN GEMM of the time section with C written through a shared tile.
  python3 $G --dtype f16 --acc f32 --out f16 --tb --block 128x256x64 --threads 256 --stages 4 --policy full_row --raster 8 --stage-epilogue > /tmp/gemm_wg8.mlir
  # ... and the NN one (B stored K x N) of the time section.
  python3 $G --dtype f16 --acc f32 --out f16 --block 128x256x64 --threads 256 --stages 4 --policy full_row --raster 8 --stage-epilogue > /tmp/gemm_wg9.mlir
}
gen_wgmma_kernels
# SECTIONS picks what runs: correct sanitize time python (the default),
# configs wgsweep attsweep blocked tma tmaatt tall persistent tmablocked
# overlap release panels attprofile profile sass launch compile ws producer
# ab (with .bundle/tile-run-prev.xz: that compiler against this one) peel
# deferred twofills dynamic blockn pdyn gemmncu pgemm lazy wsraster
# minblocks attncu attsrc.
SECTIONS="${SECTIONS:-correct sanitize time python}"
want() { case " $SECTIONS " in *" $1 "*) return 0;; esac; return 1; }
# Release barriers on every TMA pipeline, whatever its warpgroups and stages.
RELEASE_ALL="--tma-release --tma-release-min-warpgroups=1 --tma-release-max-stages=0"
# tile-run's timings: the kernels' time on the device (CUDA events around
# each launch, as the peers are timed) and the wall time of each call.
kernel_ms() { grep -oE 'median [0-9.]+ ms' "$1" | head -1 | grep -oE '[0-9.]+'; }
wall_ms() { grep -oE 'wall median [0-9.]+ ms' "$1" | grep -oE '[0-9.]+'; }
# One attention timing: log tag, shape (BxHxSxD), entry, kernel file,
# tile-run flags...; prints "tag: N ms".
attention_time() {
  local tag=$1 shape=$2 entry=$3 f=$4; shift 4
  timeout 60 "$TR" $f --entry=$entry --target=$CHIP "$@" --arg=$shape --arg=$shape --arg=$shape --arg=$shape --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/time-$tag.log" 2>&1
  echo "$tag: $(kernel_ms "$LOGS/time-$tag.log") ms"
}
# The split d128 attention kernel timed with and without TMA (log tag $1).
split_attention_tma_times() {
  local entry flag
  for entry in flash_attention flash_attention_causal; do
    for flag in --tma=false --tma; do
      "$TR" bench/kernels/flash_attention_d128_split.mlir --entry=$entry --target=$CHIP $flag --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/time-$1-$entry$flag.log" 2>&1
      echo "$entry d128 split $flag: $(kernel_ms "$LOGS/time-$1-$entry$flag.log") ms"
    done
  done
}
pass=0; fail=0
run() { # name, tile-run arguments...
  local name=$1; shift
  if timeout ${RUN_TIMEOUT:-300} "$TR" "$@" --target=$CHIP --seed=$RANDOM >"$LOGS/$name.log" 2>&1; then
    pass=$((pass + 1)); echo "PASS $name: $(grep -E '^output' "$LOGS/$name.log" | sed 's/.*max abs err/max abs err/' | head -1)"
  else
    fail=$((fail + 1)); echo "FAIL $name"; tail -4 "$LOGS/$name.log"
  fi
}

if want correct; then
echo "== correctness: the GPU lit tests (test/Integration/GPU: the examples against naive references, GEMM variants, wgmma, blocked layouts, persistent kernels, attention against the CPU lowering, the kernels against torch)"
LIT_OPTS="--filter-out=sanitizer" OUT="$LOGS" scripts/gpu/run_lit.sh Integration/GPU > "$LOGS/lit-correct.log" 2>&1
grep -E '^(PASS|FAIL|UNSUPPORTED|XFAIL|XPASS): |^  (Passed|Failed|Unsupported)' "$LOGS/lit-correct.log"
pass=$((pass + $(grep -c '^PASS: ' "$LOGS/lit-correct.log")))
fail=$((fail + $(grep -c '^FAIL: ' "$LOGS/lit-correct.log")))
echo "correctness: $pass passed, $fail failed"
fi

if want sanitize; then
echo "== compute-sanitizer (test/Integration/GPU/sanitizer.test: memcheck and racecheck, small sizes)"
LIT_OPTS="--filter=sanitizer" scripts/gpu/run_lit.sh Integration/GPU > "$LOGS/lit-sanitize.log" 2>&1
grep -E '^(PASS|FAIL|UNSUPPORTED): |^  (Passed|Failed|Unsupported)' "$LOGS/lit-sanitize.log"
fi
if want time; then
echo "== timing (ours: kernel time on the device from CUDA events, median of 20 calls after 5 warm-ups; peers: CUDA events, median of 20 after 5)"
echo "-- GEMM f16 (f32 accumulation), ours (mma.sync, pipelined copies; 'sync' = --pipeline-copies=false) vs cuBLAS (torch.matmul)"
for n in ${GEMM_SIZES:-4096 8192}; do
  flags=""; [ "${n%sync}" != "$n" ] && flags="--pipeline-copies=false" && n=${n%sync}
  "$TR" $E/gemm_relu.mlir --entry=gemm_relu --target=$CHIP --arg=${n}x${n} --arg=${n}x${n} --arg=${n}x${n} --repeat=20 --warmup=5 --no-check $flags >"$LOGS/time-gemm-$n$flags.log" 2>&1
  ours=$(kernel_ms "$LOGS/time-gemm-$n$flags.log")
  echo "gemm $n^3 $flags"
  peer=$(python3 scripts/gpu/peers.py matmul $n $n $n f16 nn relu)
  python3 -c "
n=$n; ours=float('${ours:-nan}'); peer=float('${peer:-nan}'); f=2*n**3
print(f'gemm {n}^3: ours {ours:.3f} ms ({f/ours/1e9:.1f} TFLOP/s), cuBLAS+relu {peer:.4f} ms ({f/peer/1e9:.1f} TFLOP/s), ratio ours/cuBLAS throughput = {peer/ours:.4f}')"
done

echo "-- GEMM on wgmma (TN: C = A B^T, B stored N x K; gen_gemm.py --tb 128x256x64, 256 threads, 4 stages, panel 8; f32 accumulation, C in the input type, staged through shared memory and stored by TMA: --stage-epilogue) vs cuBLAS TN (A @ B.t()) on the same shape"
G=test/Integration/Inputs/gen_gemm.py
wg_time() { # label, M, N, K, dtype[, nn]: TN unless the sixth argument is nn
  local label=$1 m=$2 n=$3 k=$4 dt=$5 lay=${6:-tn} f=/tmp/wg-time-$5-${6:-tn}.mlir
  local tb=--tb bshape=${n}x$k peerlay=nt
  [ $lay = nn ] && tb= && bshape=${k}x$n && peerlay=nn
  python3 $G --dtype $dt --acc f32 --out $dt $tb --policy full_row --block 128x256x64 --threads 256 --stages 4 --raster 8 ${WG_GEN---stage-epilogue} > $f
  # Ours before and after cuBLAS (one kernel's median moves a few percent
  # between runs in one call): the ratio uses the mean of the two, and
  # both are printed.
  local log="$LOGS/time-$label-$lay-$m-$n-$k" ours=() r
  for r in 1 2; do
    "$TR" $f --entry=gemm --target=$CHIP --arg=${m}x$k --arg=$bshape --arg=${m}x$n --repeat=20 --warmup=5 --no-check ${WG_FLAGS:-} >"$log-$r.log" 2>&1
    ours+=("$(kernel_ms "$log-$r.log")")
    [ $r = 1 ] && local peer=$(python3 scripts/gpu/peers.py matmul $m $n $k $dt $peerlay)
  done
  local triton=nan
  [ -n "${TRITON_PEER:-}" ] && triton=$(python3 scripts/gpu/peers.py triton $m $n $k $dt $peerlay 2>"$LOGS/triton-$lay-$m-$n-$k-$dt.log")
  python3 -c "
m, n, k, peer, tr = $m, $n, $k, float('${peer:-nan}'), float('${triton:-nan}'); f = 2 * m * n * k
a, b = float('${ours[0]:-nan}'), float('${ours[1]:-nan}'); ours = (a + b) / 2
print(f'$label $lay {m}x{n}x{k} $dt: ours {ours:.4f} ms ({a:.4f} / {b:.4f}; {f/ours/1e9:.1f} TFLOP/s), cuBLAS {peer:.4f} ms ({f/peer/1e9:.1f} TFLOP/s), ratio = {peer/ours:.4f}' + ('' if tr != tr else f'; Triton {tr:.4f} ms, ratio = {tr/ours:.4f}'))"
}
for dt in f16 bf16; do
  for n in 4096 8192; do TRITON_PEER=1 wg_time gemm-wgmma $n $n $n $dt; done
done
echo "-- the same TN GEMM with C stored straight from the accumulators (no --stage-epilogue: 4-byte stores), and with the staged tile stored by the threads' vector stores instead of TMA (--tma-store=false)"
if [ "${WG_EXTRAS:-1}" = 1 ]; then
for n in 4096 8192; do WG_GEN= wg_time gemm-wgmma-direct $n $n $n f16; done
for n in 4096 8192; do WG_FLAGS=--tma-store=false wg_time gemm-wgmma-no-tma-store $n $n $n f16; done
for n in 4096 8192; do WG_FLAGS=--stmatrix wg_time gemm-wgmma-stmatrix $n $n $n f16; done
fi
echo "-- NN (B stored K x N: MN-major, 512-byte rows, blocked layout in 64-column panels on TMA) on wgmma vs cuBLAS NN"
for n in 4096 8192; do TRITON_PEER=1 wg_time gemm-wgmma $n $n $n f16 nn; done
echo "-- Llama-3-8B projections at 4096 tokens on wgmma (Y = X W^T, W stored N x K, f16)"
for nk in 6144x4096 4096x4096 28672x4096 4096x14336; do
  wg_time llama-wgmma 4096 ${nk%x*} ${nk#*x} f16
done
echo "-- attention forward b1 h8 s1024 d64 f16, ours vs torch SDPA (flash)"
"$TR" $E/flash_attention.mlir --entry=flash_attention --target=$CHIP --arg=1x8x1024x64 --arg=1x8x1024x64 --arg=1x8x1024x64 --arg=1x8x1024x64 --outputs=3 --repeat=20 --warmup=5 --no-check >"$LOGS/time-fa.log" 2>&1
ours=$(kernel_ms "$LOGS/time-fa.log")
"$TR" $E/flash_attention.mlir --entry=flash_attention --target=$CHIP --arg=1x8x1024x64 --arg=1x8x1024x64 --arg=1x8x1024x64 --arg=1x8x1024x64 --outputs=3 --repeat=20 --warmup=5 --no-check --wgmma=false >"$LOGS/time-fa-mma-sync.log" 2>&1
echo "attention d64: ours $ours ms (both gemms on wgmma), $(kernel_ms "$LOGS/time-fa-mma-sync.log") ms with --wgmma=false"
python3 - "${ours:-nan}" <<'PY'
import sys, torch, torch.nn.functional as F
ours = float(sys.argv[1])
q, k, v = (torch.randn(1, 8, 1024, 64, device="cuda", dtype=torch.float16) for _ in range(3))
with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
    for _ in range(5): F.scaled_dot_product_attention(q, k, v)
    torch.cuda.synchronize(); ts = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); F.scaled_dot_product_attention(q, k, v); e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
ts.sort(); peer = ts[len(ts) // 2]
print(f"attention: ours {ours:.3f} ms, SDPA flash {peer:.4f} ms, ratio ours/SDPA throughput = {peer/ours:.4f}")
PY
echo "-- attention forward b8 h32 s4096 d128 f16 (the issue's shape), ours vs torch SDPA flash and cuDNN"
for entry in flash_attention flash_attention_causal; do
  causal=full; [ $entry = flash_attention_causal ] && causal=causal
  read -r flash cudnn <<<"$(python3 scripts/gpu/peers.py attention 8 32 4096 128 $causal)"
  # The committed kernels: 64x64 blocks, 3 stages (flash_attention_d128);
  # 128x128 blocks over two warpgroups with the softmax under P V
  # (flash_attention_d128_overlap).
  # (-ws: the overlapped kernel without the producer warpgroup and
  # ping-pong, --warp-specialize=false; -nv: without the mask's versions
  # for whole tiles, --version-parallel=false.) The overlapped variants
  # run twice, interleaved: one kernel's median moves ~4 % between runs
  # in one call (H200 run 29), which bounds what a comparison can say.
  # ATT_KERNELS replaces the list (WG_EXTRAS=0 drops the epilogue variants
  # of the GEMM above): a shorter time section.
  for kernel in ${ATT_KERNELS:-flash_attention_d128 flash_attention_d128_overlap flash_attention_d128_overlap-ws flash_attention_d128_overlap-nv \
                flash_attention_d128_overlap flash_attention_d128_overlap-ws flash_attention_d128_overlap-nv}; do
    case $kernel in
      *-ws) flags="--warp-specialize=false";;
      *-nv) flags="--version-parallel=false";;
      *) flags="";;
    esac
    "$TR" bench/kernels/${kernel%-*}.mlir --entry=$entry --target=$CHIP $flags --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/time-$entry-$kernel.log" 2>&1
    ours=$(kernel_ms "$LOGS/time-$entry-$kernel.log")
    python3 -c "
ours, flash, cudnn = float('${ours:-nan}'), float('${flash:-nan}'), float('${cudnn:-nan}')
flops = 4 * 8 * 32 * 4096 * 4096 * 128 / (2 if '$causal' == 'causal' else 1)
print(f'attention d128{\" causal\" if \"$causal\" == \"causal\" else \"\"} ($kernel): ours {ours:.3f} ms ({flops/ours/1e9:.0f} TFLOP/s), flash {flash:.3f} ms, cuDNN {cudnn:.3f} ms; ours/flash = {flash/ours:.4f}, ours/cuDNN = {cudnn/ours:.4f}')"
  done
done
echo "-- softmax 65536x1024 f32, ours vs torch.softmax and the copy ceiling"
"$TR" $E/softmax.mlir --entry=softmax --target=$CHIP --arg=65536x1024 --arg=65536x1024 --outputs=1 --repeat=20 --warmup=5 --no-check >"$LOGS/time-softmax.log" 2>&1
"$TR" bench/kernels/softmax_warp_rows.mlir --entry=softmax --target=$CHIP --arg=65536x1024 --arg=65536x1024 --outputs=1 --repeat=20 --warmup=5 --no-check >"$LOGS/time-softmax-warp-rows.log" 2>&1
echo "softmax, one warp per row (bench/kernels/softmax_warp_rows.mlir, register fragments): $(kernel_ms "$LOGS/time-softmax-warp-rows.log") ms"
python3 scripts/gpu/peers.py softmax "$(kernel_ms "$LOGS/time-softmax.log")"
echo "-- RMSNorm 65536x1024 f32 (weights [1024]), ours vs torch rms_norm and the copy ceiling"
"$TR" $E/rmsnorm.mlir --entry=rmsnorm --target=$CHIP --arg=65536x1024 --arg=1024 --arg=65536x1024 --outputs=2 --repeat=20 --warmup=5 --no-check >"$LOGS/time-rmsnorm.log" 2>&1
python3 scripts/gpu/peers.py rmsnorm "$(kernel_ms "$LOGS/time-rmsnorm.log")"
fi
if want wgsweep; then
echo "== wgmma configurations (TN, C = A B^T, f16 -> f32 -> f16 unless bf16): kernel time (CUDA events, median of 20 after 5) vs cuBLAS TN on the same shape"
G=test/Integration/Inputs/gen_gemm.py
tn() { # label, M, N, K, dtype, gen_gemm flags...
  local label=$1 m=$2 n=$3 k=$4 dt=$5; shift 5
  local f=/tmp/wgsweep-$label.mlir
  python3 $G --dtype $dt --acc f32 --out $dt --tb --policy full_row "$@" > $f
  "$TR" $f --entry=gemm --target=$CHIP --wgmma --arg=${m}x$k --arg=${n}x$k --arg=${m}x$n --repeat=20 --warmup=5 --no-check >"$LOGS/wgsweep-$label-$m-$n-$k.log" 2>&1
  local ours=$(kernel_ms "$LOGS/wgsweep-$label-$m-$n-$k.log")
  local peer=$(python3 scripts/gpu/peers.py matmul $m $n $k $dt nt)
  python3 -c "
m, n, k, ours, peer = $m, $n, $k, float('${ours:-nan}'), float('${peer:-nan}'); f = 2 * m * n * k
print(f'$label {m}x{n}x{k} $dt: ours {ours:.4f} ms ({f/ours/1e9:.1f} TFLOP/s), cuBLAS {peer:.4f} ms ({f/peer/1e9:.1f} TFLOP/s), ratio = {peer/ours:.4f}')"
}
for cfg in ${WG_CONFIGS:-128x128x64:256:3:0 128x128x64:256:4:0 128x128x64:256:5:0 128x128x64:256:4:8 128x256x64:256:3:0 128x256x64:256:4:0 128x256x64:256:4:8 64x256x64:128:4:8}; do
  IFS=: read -r blk thr stg ras <<<"$cfg"
  tn "wg-$blk-t$thr-s$stg-r$ras" 4096 4096 4096 f16 --block $blk --threads $thr --stages $stg --raster $ras
done
for dt in f16 bf16; do
  for blk in 128x128x64 128x256x64; do
    tn "wg-$blk-t256-s4-r8" 8192 8192 8192 $dt --block $blk --threads 256 --stages 4 --raster 8
  done
done
tn "wg-128x256x64-t256-s4-r8" 4096 4096 4096 bf16 --block 128x256x64 --threads 256 --stages 4 --raster 8
for nk in 6144x4096 4096x4096 28672x4096 4096x14336; do
  tn "llama-wg-128x256x64-s4-r8" 4096 ${nk%x*} ${nk#*x} f16 --block 128x256x64 --threads 256 --stages 4 --raster 8
done
fi
if want attsweep; then
echo "== FlashAttention d128 in 64-column parts (every gemm on wgmma), block configurations: .bundle/attn/fa_M_N_STAGES_THREADS.mlir (bench/gen_attention.py --split 64), checked against the CPU lowering at 1x2x130x128, timed at b8 h32 s4096 (median of 10 after 3)"
for f in .bundle/attn/fa_*.mlir; do
  cfg=$(basename $f .mlir)
  for entry in flash_attention flash_attention_causal; do
    run "$cfg-$entry" $f --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --arg=1x2x130x128 --arg=1x2x130x128 --arg=1x2x130x128 --arg=1x2x130x128
    "$TR" $f --entry=$entry --target=$CHIP --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/attsweep-$cfg-$entry.log" 2>&1
    echo "$cfg $entry: $(kernel_ms "$LOGS/attsweep-$cfg-$entry.log") ms"
  done
done
for causal in full causal; do
  echo "SDPA flash / cuDNN ($causal): $(python3 scripts/gpu/peers.py attention 8 32 4096 128 $causal) ms"
done
echo "attsweep correctness: $pass passed, $fail failed"
fi
if want blocked; then
echo "== the blocked-layout kernels on mma.sync (--wgmma-blocked=false), for comparison with the time section"
python3 test/Integration/Inputs/gen_gemm.py --dtype f16 --acc f32 --out f16 --block 128x256x64 --threads 256 --stages 4 --policy full_row --raster 8 > /tmp/gemm_nn_wide.mlir
for n in 4096 8192; do
  "$TR" /tmp/gemm_nn_wide.mlir --entry=gemm --target=$CHIP --wgmma-blocked=false --arg=${n}x${n} --arg=${n}x${n} --arg=${n}x${n} --repeat=20 --warmup=5 --no-check >"$LOGS/time-nn-wide-mma-$n.log" 2>&1
  echo "NN 128x256x64 on mma.sync $n^3: $(kernel_ms "$LOGS/time-nn-wide-mma-$n.log") ms"
done
for entry in flash_attention flash_attention_causal; do
  "$TR" bench/kernels/flash_attention_d128.mlir --entry=$entry --target=$CHIP --wgmma-blocked=false --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/time-$entry-d128-mma.log" 2>&1
  echo "$entry d128 on mma.sync: $(kernel_ms "$LOGS/time-$entry-d128-mma.log") ms"
done
fi
if want tma; then
echo "== --tma (experimental): pipelined copies as TMA transfers counted on mbarriers; against the naive reference / the CPU lowering, then timed against the same kernels without it"
G=test/Integration/Inputs/gen_gemm.py
for wg in 1 2 3 4 5 6 7; do
  case $wg in 7) b=200x170;; *) b=170x200;; esac
  run tma_wgmma_$wg /tmp/gemm_wg$wg.mlir --entry=gemm --reference=@gemm_ref --outputs=2 --rtol=1e-2 --atol=1e-2 --repeat=0 --tma --arg=300x200 --arg=$b --arg=300x170
done
for k in 64 100 1000; do
  run tma_wgmma_5_k$k /tmp/gemm_wg5.mlir --entry=gemm --reference=@gemm_ref --outputs=2 --rtol=1e-2 --atol=1e-2 --repeat=0 --tma --arg=600x$k --arg=1100x$k --arg=600x1100
done
# K = 37: rows of 74 bytes, no tensor map: the synchronous fallback arrives instead.
run tma_wgmma_5_oddk /tmp/gemm_wg5.mlir --entry=gemm --reference=@gemm_ref --outputs=2 --rtol=1e-2 --atol=1e-2 --repeat=0 --tma --arg=300x37 --arg=170x37 --arg=300x170
run tma_gemm_relu $E/gemm_relu.mlir --entry=gemm_relu --reference=$R/gemm_relu.mlir@gemm_relu_ref --outputs=2 --repeat=0 --tma --arg=300x200 --arg=200x170 --arg=300x170
run tma_gemm_relu_oddk $E/gemm_relu.mlir --entry=gemm_relu --reference=$R/gemm_relu.mlir@gemm_relu_ref --outputs=2 --repeat=0 --tma --arg=129x37 --arg=37x131 --arg=129x131
run tma_fa_edge $E/flash_attention.mlir --entry=flash_attention --reference=$R/flash_attention.mlir@flash_attention_ref --outputs=3 --rtol=1e-2 --atol=2e-3 --repeat=0 --tma --arg=2x3x70x64 --arg=2x3x70x64 --arg=2x3x70x64 --arg=2x3x70x64
run tma_fa_causal_edge $E/flash_attention.mlir --entry=flash_attention_causal --reference=$R/flash_attention.mlir@flash_attention_causal_ref --outputs=3 --rtol=1e-2 --atol=2e-3 --repeat=0 --tma --arg=2x3x70x64 --arg=2x3x70x64 --arg=2x3x70x64 --arg=2x3x70x64
run tma_fa128split_vs_cpu bench/kernels/flash_attention_d128_split.mlir --entry=flash_attention --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --tma --arg=1x2x130x128 --arg=1x2x130x128 --arg=1x2x130x128 --arg=1x2x130x128
run tma_fa128split_causal_vs_cpu bench/kernels/flash_attention_d128_split.mlir --entry=flash_attention_causal --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --tma --arg=1x2x130x128 --arg=1x2x130x128 --arg=1x2x130x128 --arg=1x2x130x128
for tool in memcheck racecheck; do
  timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$TR" /tmp/gemm_wg5.mlir --entry=gemm --arg=300x200 --arg=170x200 --arg=300x170 --tma --target=$CHIP --repeat=0 --warmup=0 >"$LOGS/sanitizer-$tool-tma.log" 2>&1
  echo "$tool tma_wgmma_5: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOGS/sanitizer-$tool-tma.log" | head -1))"
done
echo "tma correctness: $pass passed, $fail failed"
for dt in f16 bf16; do
  f=/tmp/tma-time-$dt.mlir
  python3 $G --dtype $dt --acc f32 --out $dt --tb --policy full_row --block 128x256x64 --threads 256 --stages 4 --raster 8 > $f
  for n in 4096 8192; do
    for flag in --tma=false --tma; do
      "$TR" $f --entry=gemm --target=$CHIP $flag --arg=${n}x$n --arg=${n}x$n --arg=${n}x$n --repeat=20 --warmup=5 --no-check >"$LOGS/time-tma-$dt-$n$flag.log" 2>&1
      echo "TN $dt $n^3 $flag: $(kernel_ms "$LOGS/time-tma-$dt-$n$flag.log") ms"
    done
    echo "cuBLAS TN $dt $n^3: $(python3 scripts/gpu/peers.py matmul $n $n $n $dt nt) ms"
  done
done
split_attention_tma_times tma
fi
if want tmaatt; then
echo "== attention d128 split (64-column parts) with and without TMA"
split_attention_tma_times tmaatt
fi
if want tall; then
echo "== --wgmma-tall-rows timings: the example GEMM+ReLU (128 threads, 128x128x32, 3 stages) and TN 128x128x64 (128 threads, 4 stages) vs cuBLAS"
python3 test/Integration/Inputs/gen_gemm.py --dtype f16 --acc f32 --out f16 --tb --block 128x128x64 --threads 128 --stages 4 --policy full_row > /tmp/gemm_tall_tn.mlir
for n in 4096 8192; do
  for flag in --wgmma-tall-rows=false --wgmma-tall-rows; do
    "$TR" $E/gemm_relu.mlir --entry=gemm_relu --target=$CHIP $flag --arg=${n}x${n} --arg=${n}x${n} --arg=${n}x${n} --repeat=20 --warmup=5 --no-check >"$LOGS/time-tall-$n$flag.log" 2>&1
    echo "gemm_relu $n^3 $flag: $(kernel_ms "$LOGS/time-tall-$n$flag.log") ms"
  done
  "$TR" /tmp/gemm_tall_tn.mlir --entry=gemm --target=$CHIP --wgmma-tall-rows --arg=${n}x${n} --arg=${n}x${n} --arg=${n}x${n} --repeat=20 --warmup=5 --no-check >"$LOGS/time-tall-tn-$n.log" 2>&1
  echo "TN 128x128x64/128 threads $n^3 --wgmma-tall-rows: $(kernel_ms "$LOGS/time-tall-tn-$n.log") ms; cuBLAS NN+relu $(python3 scripts/gpu/peers.py matmul $n $n $n f16 nn relu) ms, TN $(python3 scripts/gpu/peers.py matmul $n $n $n f16 nt) ms"
done
fi
if want persistent; then
echo "== --persistent timings: TN 128x256x64 (4 stages, panel 8) f16, with and without"
python3 test/Integration/Inputs/gen_gemm.py --dtype f16 --acc f32 --out f16 --tb --policy full_row --block 128x256x64 --threads 256 --stages 4 --raster 8 > /tmp/persist-tn.mlir
for n in 4096 8192; do
  for flag in --persistent=false --persistent; do
    "$TR" /tmp/persist-tn.mlir --entry=gemm --target=$CHIP $flag --arg=${n}x${n} --arg=${n}x${n} --arg=${n}x${n} --repeat=20 --warmup=5 --no-check >"$LOGS/time-persist-$n$flag.log" 2>&1
    echo "TN $n^3 $flag: $(kernel_ms "$LOGS/time-persist-$n$flag.log") ms"
  done
  echo "cuBLAS TN $n^3: $(python3 scripts/gpu/peers.py matmul $n $n $n f16 nt) ms"
done
echo "== --persistent with warp specialization: the overlapped d128 attention at b8 h32 s4096, with and without (sanitizers first, on a small shape)"
for tool in racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=flash_attention_causal --persistent --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --outputs=3 --target=$CHIP --repeat=0 --warmup=0 >"$LOGS/persist-ws-$tool.log" 2>&1
  echo "persistent ws $tool: exit $? ($(grep -E 'SUMMARY' "$LOGS/persist-ws-$tool.log"))"
done
for entry in flash_attention flash_attention_causal; do
  for flag in --persistent=false --persistent --persistent=false --persistent; do
    timeout 60 "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --target=$CHIP $flag --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/time-persist-$entry$flag.log" 2>&1
    echo "attention $entry $flag: $(kernel_ms "$LOGS/time-persist-$entry$flag.log") ms"
  done
done
# Longest first (the causal kernel's blocks in order of decreasing work).
for flag in --persistent=false --persistent --persistent=false --persistent; do
  timeout 60 "$TR" bench/kernels/flash_attention_d128_overlap_lpt.mlir --entry=flash_attention_causal --target=$CHIP $flag --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/time-persist-lpt$flag.log" 2>&1
  echo "attention causal longest-first $flag: $(kernel_ms "$LOGS/time-persist-lpt$flag.log") ms"
done
fi
if want overlap; then
# OV_DIR: the kernels (default .bundle/ov); OV_QUICK=1 skips the sanitizer,
# the committed kernel's timing and the peers (when another section has them).
OV_DIR=${OV_DIR:-.bundle/ov}
echo "== FlashAttention d128 with the softmax under the previous tile's P V (gen_attention.py --overlap): $OV_DIR/ov_M_N_STAGES_THREADS.mlir (fa_*: without --overlap), checked against the CPU lowering, sanitized, timed at b8 h32 s4096 (median of 10 after 3) next to the committed kernel and SDPA"
for f in $OV_DIR/*.mlir; do
  cfg=$(basename $f .mlir)
  for entry in flash_attention flash_attention_causal; do
    run "$cfg-$entry" $f --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --arg=1x2x130x128 --arg=1x2x130x128 --arg=1x2x130x128 --arg=1x2x130x128
    run "$cfg-$entry-edge" $f --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --arg=2x3x70x128 --arg=2x3x70x128 --arg=2x3x70x128 --arg=2x3x70x128
  done
done
if [ -z "${OV_QUICK:-}" ]; then
for tool in memcheck racecheck; do
  for f in $OV_DIR/ov_64_64_3_128.mlir $OV_DIR/ov_128_64_3_256.mlir; do
    [ -f $f ] || continue
    name=$(basename $f .mlir)
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$TR" $f --entry=flash_attention_causal --arg=1x1x150x128 --arg=1x1x150x128 --arg=1x1x150x128 --arg=1x1x150x128 --outputs=3 --target=$CHIP --repeat=0 --warmup=0 >"$LOGS/sanitizer-$tool-$name.log" 2>&1
    echo "$tool $name: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOGS/sanitizer-$tool-$name.log" | head -1))"
  done
done
fi
timed=$(ls $OV_DIR/*.mlir)
[ -z "${OV_QUICK:-}" ] && timed="bench/kernels/flash_attention_d128.mlir $timed"
for f in $timed; do
  cfg=$(basename $f .mlir)
  for entry in flash_attention flash_attention_causal; do
    "$TR" $f --entry=$entry --target=$CHIP --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/overlap-$cfg-$entry.log" 2>&1
    echo "$cfg $entry: $(kernel_ms "$LOGS/overlap-$cfg-$entry.log") ms"
  done
done
if [ -z "${OV_QUICK:-}" ]; then
for causal in full causal; do
  echo "SDPA flash / cuDNN ($causal): $(python3 scripts/gpu/peers.py attention 8 32 4096 128 $causal) ms"
done
fi
echo "overlap correctness: $pass passed, $fail failed"
fi
if want release; then
echo "== --tma-release timings: TN GEMM 128x256x64 (4 stages, overlapped) and the TMA attention kernels (the committed d128 kernels with K/V in panels, OV_DIR/ovsplit_*: 64-column parts), with and without"
python3 test/Integration/Inputs/gen_gemm.py --dtype f16 --acc f32 --out f16 --tb --policy full_row --block 128x256x64 --threads 256 --stages 4 --raster 8 > /tmp/release-tn.mlir
python3 test/Integration/Inputs/gen_gemm.py --dtype f16 --acc f32 --out f16 --policy full_row --block 128x256x64 --threads 256 --stages 4 --raster 8 > /tmp/release-nn.mlir
for n in 4096 8192; do
  for lay in tn nn; do
    for flag in --tma-release=false "$RELEASE_ALL"; do
      "$TR" /tmp/release-$lay.mlir --entry=gemm --target=$CHIP $flag --arg=${n}x${n} --arg=${n}x${n} --arg=${n}x${n} --repeat=20 --warmup=5 --no-check >"$LOGS/time-release-$lay-$n-${flag%% *}.log" 2>&1
      echo "$lay $n^3 $flag: $(kernel_ms "$LOGS/time-release-$lay-$n-${flag%% *}.log") ms"
    done
  done
done
for f in ${RELEASE_KERNELS:-bench/kernels/flash_attention_d128.mlir bench/kernels/flash_attention_d128_overlap.mlir ${OV_DIR:-.bundle/ov}/ovsplit_*.mlir}; do
  [ -f "$f" ] || continue
  cfg=$(basename $f .mlir)
  for entry in flash_attention flash_attention_causal; do
    run "release-$cfg-$entry" $f --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 $RELEASE_ALL --arg=2x3x70x128 --arg=2x3x70x128 --arg=2x3x70x128 --arg=2x3x70x128
    for flag in --tma-release=false "$RELEASE_ALL"; do
      "$TR" $f --entry=$entry --target=$CHIP $flag --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/release-$cfg-$entry-${flag%% *}.log" 2>&1
      echo "$cfg $entry $flag: $(kernel_ms "$LOGS/release-$cfg-$entry-${flag%% *}.log") ms"
    done
  done
done
echo "release correctness: $pass passed, $fail failed"
fi
if want panels; then
echo "== --wgmma-panels timings: NN 128x256x64 GEMM (B 64 x 256 on TMA) and the d128 attention kernels (K, V on TMA), with and without"
python3 test/Integration/Inputs/gen_gemm.py --dtype f16 --acc f32 --out f16 --block 128x256x64 --threads 256 --stages 4 --policy full_row --raster 8 > /tmp/gemm_nn_wide.mlir
for n in 4096 8192; do
  for flag in --wgmma-panels=false --wgmma-panels; do
    "$TR" /tmp/gemm_nn_wide.mlir --entry=gemm --target=$CHIP $flag --arg=${n}x${n} --arg=${n}x${n} --arg=${n}x${n} --repeat=20 --warmup=5 --no-check >"$LOGS/time-panels-nn-$n$flag.log" 2>&1
    echo "NN $n^3 $flag: $(kernel_ms "$LOGS/time-panels-nn-$n$flag.log") ms"
  done
  echo "cuBLAS NN $n^3: $(python3 scripts/gpu/peers.py matmul $n $n $n f16 nn) ms"
done
for kernel in flash_attention_d128 flash_attention_d128_overlap; do
  for entry in flash_attention flash_attention_causal; do
    for flag in --wgmma-panels=false --wgmma-panels; do
      "$TR" bench/kernels/$kernel.mlir --entry=$entry --target=$CHIP $flag --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/time-panels-$kernel-$entry$flag.log" 2>&1
      echo "$kernel $entry $flag: $(kernel_ms "$LOGS/time-panels-$kernel-$entry$flag.log") ms"
    done
  done
done
fi
if want attprofile; then
echo "== Nsight Compute: FlashAttention d128 ($ATT_PROFILE, non-causal, b2 h32 s4096): speed of light, pipes, warp stalls"
timeout 300 ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats -k regex:flash -c 1 "$TR" ${ATT_PROFILE:-bench/kernels/flash_attention_d128.mlir} --entry=flash_attention --target=$CHIP --arg=2x32x4096x128 --arg=2x32x4096x128 --arg=2x32x4096x128 --arg=2x32x4096x128 --outputs=3 --repeat=1 --warmup=0 --no-check > "$LOGS/ncu-attention.log" 2>&1
echo "ncu exit $?"; grep -E "Duration|Throughput|Pipe|Registers|Shared Memory Config|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles|Stall|Issue|Eligible|Active Warps" "$LOGS/ncu-attention.log" | head -60
fi
if want tmablocked; then
echo "== --tma-blocked timings: NN 128x256x64 GEMM and the unsplit d128 attention kernel, with and without"
python3 test/Integration/Inputs/gen_gemm.py --dtype f16 --acc f32 --out f16 --block 128x256x64 --threads 256 --stages 4 --policy full_row --raster 8 > /tmp/gemm_nn_wide.mlir
for flag in "--wgmma-panels=false --tma-blocked=false" "--wgmma-panels=false --tma-blocked"; do
  for n in 4096 8192; do
    "$TR" /tmp/gemm_nn_wide.mlir --entry=gemm --target=$CHIP $flag --arg=${n}x${n} --arg=${n}x${n} --arg=${n}x${n} --repeat=20 --warmup=5 --no-check >"$LOGS/time-tmablocked-nn-$n$flag.log" 2>&1
    echo "NN $n^3 $flag: $(kernel_ms "$LOGS/time-tmablocked-nn-$n$flag.log") ms"
  done
  for entry in flash_attention flash_attention_causal; do
    "$TR" bench/kernels/flash_attention_d128.mlir --entry=$entry --target=$CHIP $flag --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/time-tmablocked-$entry$flag.log" 2>&1
    echo "$entry d128 $flag: $(kernel_ms "$LOGS/time-tmablocked-$entry$flag.log") ms"
  done
done
fi
if want profile; then
echo "== Nsight Compute: GEMM f16 4096^3"
timeout 300 ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis -k regex:gemm -c 1 "$TR" $E/gemm_relu.mlir --entry=gemm_relu --target=$CHIP --arg=4096x4096 --arg=4096x4096 --arg=4096x4096 --repeat=1 --warmup=0 --no-check > "$LOGS/ncu-gemm.log" 2>&1
echo "ncu exit $?"; grep -E "Duration|Throughput|Registers|Shared Memory|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles|Stall|Bank" "$LOGS/ncu-gemm.log" | head -40
fi
if want configs; then
echo "== GEMM f16 block configurations (gen_gemm.py, C f16): checked at 300x170x200, timed at 4096^3 (median of 20)"
G=test/Integration/Inputs/gen_gemm.py
for cfg in ${GEMM_CONFIGS:-128x128x32:128:3 128x128x32:128:4 128x128x64:128:3 128x128x32:256:3 128x256x32:256:3 256x128x32:256:3}; do
  IFS=: read -r blk thr stg <<<"$cfg"
  f=/tmp/gemm_cfg_$blk-$thr-$stg.mlir
  python3 $G --dtype f16 --acc f32 --out f16 --block $blk --threads $thr --stages $stg > $f
  if "$TR" $f --entry=gemm --reference=@gemm_ref --target=$CHIP --repeat=0 --arg=300x200 --arg=200x170 --arg=300x170 >"$LOGS/cfg-$blk-$thr-$stg-check.log" 2>&1; then ok=correct; else ok=WRONG; fi
  "$TR" $f --entry=gemm --target=$CHIP --arg=4096x4096 --arg=4096x4096 --arg=4096x4096 --repeat=20 --warmup=5 --no-check >"$LOGS/cfg-$blk-$thr-$stg.log" 2>&1
  ms=$(kernel_ms "$LOGS/cfg-$blk-$thr-$stg.log")
  python3 -c "ms=float('${ms:-nan}'); print(f'config $blk threads=$thr stages=$stg: $ok, {ms:.3f} ms, {2*4096**3/ms/1e9:.1f} TFLOP/s')"
done
fi
if want sass; then
echo "== SASS of the GEMM with per-instruction stall samples (Nsight Compute source page)"
timeout 300 ncu --clock-control none --section WarpStateStats --section SourceCounters --page source --print-source sass -k regex:gemm -c 1 "$TR" $E/gemm_relu.mlir --entry=gemm_relu --target=$CHIP --arg=4096x4096 --arg=4096x4096 --arg=4096x4096 --repeat=1 --warmup=0 --no-check > "$OUT/ncu-gemm-sass.txt" 2>&1
echo "ncu exit $?, $(wc -l < "$OUT/ncu-gemm-sass.txt") lines"
fi
if want launch; then
echo "== host launch overhead: one-block kernels called back to back through the JIT (each call: argument checks, stream from the runtime's pool, launch, sync; host wall clock) vs a tiny torch op"
# bench/kernels/add_one.mlir is torch's x.add_(1) on 128 floats; with
# --device-timing=false nothing but the call is timed (with it, two CUDA
# events per launch as well).
"$TR" bench/kernels/add_one.mlir --arg=128 --target=$CHIP --repeat=1000 --warmup=50 --no-check --device-timing=false >"$LOGS/time-launch-add_one.log" 2>&1
echo "add_one (128 floats, no events): median $(kernel_ms "$LOGS/time-launch-add_one.log" || tail -2 "$LOGS/time-launch-add_one.log") ms per call"
for case in "add_one:bench/kernels/add_one.mlir --arg=128" \
            "softmax:$E/softmax.mlir --entry=softmax --arg=1x1024 --arg=1x1024" \
            "cluster:test/Integration/cluster.mlir --entry=scale_rows --arg=2x64 --arg=2x64"; do
  name=${case%%:*}; args=${case#*:}
  "$TR" $args --target=$CHIP --repeat=200 --warmup=20 --no-check >"$LOGS/time-launch-$name-events.log" 2>&1
  echo "$name (with events): wall median $(wall_ms "$LOGS/time-launch-$name-events.log" || tail -2 "$LOGS/time-launch-$name-events.log") ms per call (kernel $(kernel_ms "$LOGS/time-launch-$name-events.log") ms)"
done
python3 - <<'PY'
import time, torch
x = torch.zeros(128, device="cuda")
for _ in range(20): x.add_(1)
torch.cuda.synchronize(); ts = []
for _ in range(200):
    t = time.perf_counter(); x.add_(1); torch.cuda.synchronize(); ts.append((time.perf_counter() - t) * 1e6)
ts.sort()
print(f"torch add_ + sync: median {ts[len(ts) // 2]:.1f} us")
try:
    import importlib.util, tempfile, textwrap
    # Triton's @jit needs its kernel in a file.
    path = tempfile.mkdtemp() + "/tiny_add.py"
    with open(path, "w") as f:
        f.write(textwrap.dedent("""
            import triton
            import triton.language as tl

            @triton.jit
            def add_one(x_ptr, n, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                mask = offs < n
                tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)
        """))
    spec = importlib.util.spec_from_file_location("tiny_add", path)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    for _ in range(20): mod.add_one[(1,)](x, 128, BLOCK=128)
    torch.cuda.synchronize(); ts = []
    for _ in range(200):
        t = time.perf_counter(); mod.add_one[(1,)](x, 128, BLOCK=128); torch.cuda.synchronize(); ts.append((time.perf_counter() - t) * 1e6)
    ts.sort()
    print(f"Triton add_one + sync: median {ts[len(ts) // 2]:.1f} us")
except Exception as e:  # noqa: BLE001
    print(f"Triton add_one: not measured ({e})")
PY
fi
if want ws; then
echo "== --warp-specialize (default on sm_90a): a producer warpgroup issues the TMA copies of pipelines with release barriers (setmaxnreg 24 / 240), against the CPU lowering, sanitized, then timed with and without"
# WS_KERNELS: more attention kernels to check and time with and without
# (e.g. .bundle/ws/*.mlir from gen_attention.py), with WS_FLAGS on both.
for f in ${WS_KERNELS:-}; do
  cfg=$(basename $f .mlir)
  for entry in flash_attention flash_attention_causal; do
    RUN_TIMEOUT=60 run "ws-$cfg-$entry" $f --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --warp-specialize ${WS_FLAGS:-} --arg=2x3x70x128 --arg=2x3x70x128 --arg=2x3x70x128 --arg=2x3x70x128
    for flag in --warp-specialize=false --warp-specialize; do
      timeout 120 "$TR" $f --entry=$entry --target=$CHIP $flag ${WS_FLAGS:-} --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/ws-$cfg-$entry$flag.log" 2>&1
      echo "$cfg $entry $flag ${WS_FLAGS:-}: $(kernel_ms "$LOGS/ws-$cfg-$entry$flag.log") ms"
    done
  done
done
if [ -z "${WS_ONLY_EXTRA:-}" ]; then
for entry in flash_attention flash_attention_causal; do
  for shape in 2x3x70x128 1x2x300x128; do
    RUN_TIMEOUT=60 run "ws-overlap-$entry-$shape" bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --warp-specialize --pingpong=false --arg=$shape --arg=$shape --arg=$shape --arg=$shape
    RUN_TIMEOUT=60 run "ws-pingpong-$entry-$shape" bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --warp-specialize --pingpong --arg=$shape --arg=$shape --arg=$shape --arg=$shape
  done
done
for tool in memcheck racecheck synccheck; do
  for flags in "--warp-specialize --pingpong=false" "--warp-specialize --pingpong"; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=flash_attention_causal --arg=1x1x200x128 --arg=1x1x200x128 --arg=1x1x200x128 --arg=1x1x200x128 --outputs=3 --target=$CHIP --repeat=0 --warmup=0 $flags >"$LOGS/ws-sanitizer-$tool.log" 2>&1
    echo "$flags $tool: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOGS/ws-sanitizer-$tool.log" | head -1))"
  done
done
for entry in flash_attention flash_attention_causal; do
  for flag in --warp-specialize=false "--warp-specialize --pingpong=false" "--warp-specialize --pingpong"; do
    timeout 120 "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --target=$CHIP $flag --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/ws-$entry-${flag// /}.log" 2>&1
    echo "overlap $entry $flag: $(kernel_ms "$LOGS/ws-$entry-${flag// /}.log") ms"
  done
done
fi
echo "ws correctness: $pass passed, $fail failed"
fi
if want twofills; then
echo "== the persistent peeled attention with producer copies (K_0 and the last V filled by the producer in turn): correctness, racecheck, one timing against the default"
pass=0; fail=0
for entry in flash_attention flash_attention_causal; do
  for shape in 2x3x700x128 1x2x130x128; do
    RUN_TIMEOUT=60 run twofills_${entry}_$shape bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --persistent --producer-copies --arg=$shape --arg=$shape --arg=$shape --arg=$shape
  done
done
echo "twofills correctness: $pass passed, $fail failed"
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=flash_attention_causal --persistent --producer-copies --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --outputs=3 --target=$CHIP --repeat=0 --warmup=0 >"$LOGS/twofills-racecheck.log" 2>&1
echo "twofills racecheck: exit $? ($(grep -E 'SUMMARY' "$LOGS/twofills-racecheck.log"))"
for entry in flash_attention flash_attention_causal; do
  for flag in "" "--persistent --producer-copies"; do
    timeout 60 "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --target=$CHIP $flag --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/twofills-$entry-${flag//[ -]/}.log" 2>&1
    echo "$entry $flag: $(kernel_ms "$LOGS/twofills-$entry-${flag//[ -]/}.log") ms"
  done
done
fi
if want producer; then
echo "== --producer-copies: the producer warpgroup issues the one-off copies (Q, the last V) by TMA, once per tile in persistent kernels (released after their last use); checked against the CPU lowering on edge shapes, sanitized, then timed at b8 h32 s4096 interleaved next to cuDNN"
pass=0; fail=0
for entry in flash_attention flash_attention_causal; do
  for flag in --producer-copies "--persistent --producer-copies"; do
    for shape in 2x3x700x128 1x2x130x128; do
      RUN_TIMEOUT=60 run producer_${entry}_${flag//[ -]/}_$shape bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 $flag --arg=$shape --arg=$shape --arg=$shape --arg=$shape
    done
  done
done
RUN_TIMEOUT=60 run producer_persistent_lpt_causal bench/kernels/flash_attention_d128_overlap_lpt.mlir --entry=flash_attention_causal --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --persistent --producer-copies --arg=2x3x700x128 --arg=2x3x700x128 --arg=2x3x700x128 --arg=2x3x700x128
# More tiles than blocks many times over (the release barriers' phases).
RUN_TIMEOUT=60 run producer_persistent_many_tiles bench/kernels/flash_attention_d128_overlap.mlir --entry=flash_attention --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --persistent --producer-copies --arg=4x32x1000x128 --arg=4x32x1000x128 --arg=4x32x1000x128 --arg=4x32x1000x128
echo "producer correctness: $pass passed, $fail failed"
fi
if want producer || want deferred; then
# A staged-epilogue TN GEMM persistent (128x128x64: the 128x256 one needs
# 263 KiB of shared memory persistent): its TMA store's read wait moves to
# the next tile's epilogue (deferTmaStoreReadWaits).
python3 test/Integration/Inputs/gen_gemm.py --dtype f16 --acc f32 --out f16 --tb --block 128x128x64 --threads 256 --stages 4 --policy full_row --raster 8 --stage-epilogue > /tmp/gemm_ps.mlir
pass=0; fail=0
run deferred_persistent_staged_gemm /tmp/gemm_ps.mlir --entry=gemm --reference=@gemm_ref --outputs=2 --rtol=1e-2 --atol=1e-2 --repeat=0 --persistent --arg=1000x1000 --arg=3100x1000 --arg=1000x3100
echo "deferred store wait correctness: $pass passed, $fail failed"
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 "$TR" /tmp/gemm_ps.mlir --entry=gemm --persistent --arg=300x256 --arg=1100x256 --arg=300x1100 --outputs=2 --target=$CHIP --repeat=0 --warmup=0 --no-check >"$LOGS/deferred-racecheck.log" 2>&1
echo "deferred store wait racecheck: exit $? ($(grep -E 'SUMMARY' "$LOGS/deferred-racecheck.log"))"
fi
if want producer; then
for tool in racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=flash_attention_causal --persistent --producer-copies --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --outputs=3 --target=$CHIP --repeat=0 --warmup=0 >"$LOGS/producer-$tool.log" 2>&1
  echo "persistent producer-copies $tool: exit $? ($(grep -E 'SUMMARY' "$LOGS/producer-$tool.log"))"
done
for causal in full causal; do
  entry=flash_attention; [ $causal = causal ] && entry=flash_attention_causal
  for rep in 1 2 3; do
    for flag in --producer-copies=false --producer-copies "--persistent --producer-copies=false" "--persistent --producer-copies"; do
      tag="${flag//[ -=]/}"
      timeout 60 "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --target=$CHIP $flag --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/producer-$entry-$tag-$rep.log" 2>&1
      echo "rep $rep $entry $flag: $(kernel_ms "$LOGS/producer-$entry-$tag-$rep.log") ms"
    done
    echo "rep $rep SDPA flash / cuDNN ($causal): $(python3 scripts/gpu/peers.py attention 8 32 4096 128 $causal) ms"
  done
done
fi
if want dynamic; then
echo "== --persistent --dynamic-tiles: tiles after the first wave from a global counter (tile.next_tile; the producer hands each index to the consumers), reset by the last block; correctness against the references / the CPU lowering on edge shapes, two launches in a row, sanitizers, then timed at b8 h32 s4096 interleaved with the static schedule, the plain kernel and cuDNN"
pass=0; fail=0
DYN="--persistent --dynamic-tiles"
# 60000 tiles over 132 blocks, launched twice in a row (the counters reset).
run dynamic_raster_twice test/Integration/raster.mlir --entry=row_panels_twice --reference=@visits_twice_ref --arg=300x200 --outputs=0 --no-poison --repeat=0 $DYN
run dynamic_raster test/Integration/raster.mlir --entry=column_panels --reference=@visits_ref --arg=170x90 --outputs=0 --no-poison --repeat=0 $DYN
run dynamic_gemm_relu $E/gemm_relu.mlir --entry=gemm_relu --reference=$R/gemm_relu.mlir@gemm_relu_ref --outputs=2 --repeat=0 $DYN --arg=1000x200 --arg=200x1700 --arg=1000x1700
run dynamic_wgmma_5 /tmp/gemm_wg5.mlir --entry=gemm --reference=@gemm_ref --outputs=2 --rtol=1e-2 --atol=1e-2 --repeat=0 $DYN --arg=2000x1000 --arg=3100x1000 --arg=2000x3100
run dynamic_fa_causal $E/flash_attention.mlir --entry=flash_attention_causal --reference=$R/flash_attention.mlir@flash_attention_causal_ref --outputs=3 --rtol=1e-2 --atol=2e-3 --repeat=0 $DYN --arg=2x3x700x64 --arg=2x3x700x64 --arg=2x3x700x64 --arg=2x3x700x64
for entry in flash_attention flash_attention_causal; do
  for flag in "" --producer-copies; do
    for shape in 2x3x700x128 1x2x130x128 4x32x1000x128; do
      RUN_TIMEOUT=90 run dynamic_ws_${entry}_${flag//[ -]/}_$shape bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 $DYN $flag --arg=$shape --arg=$shape --arg=$shape --arg=$shape
    done
  done
done
RUN_TIMEOUT=90 run dynamic_ws_lpt_causal bench/kernels/flash_attention_d128_overlap_lpt.mlir --entry=flash_attention_causal --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 $DYN --producer-copies --arg=2x3x700x128 --arg=2x3x700x128 --arg=2x3x700x128 --arg=2x3x700x128
echo "dynamic correctness: $pass passed, $fail failed"
for tool in racecheck synccheck memcheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=flash_attention_causal $DYN --producer-copies --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --outputs=3 --target=$CHIP --repeat=0 --warmup=0 >"$LOGS/dynamic-$tool.log" 2>&1
  echo "dynamic producer-copies $tool: exit $? ($(grep -E 'SUMMARY' "$LOGS/dynamic-$tool.log"))"
done
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "$TR" /tmp/gemm_wg5.mlir --entry=gemm $DYN --arg=300x256 --arg=1100x256 --arg=300x1100 --outputs=2 --target=$CHIP --repeat=0 --warmup=0 --no-check >"$LOGS/dynamic-gemm-racecheck.log" 2>&1
echo "dynamic block-form gemm racecheck: exit $? ($(grep -E 'SUMMARY' "$LOGS/dynamic-gemm-racecheck.log"))"
for causal in full causal; do
  entry=flash_attention; [ $causal = causal ] && entry=flash_attention_causal
  for rep in 1 2 3; do
    for flag in "" "--persistent --producer-copies" "$DYN --producer-copies" "$DYN"; do
      tag="${flag//[ -=]/}"
      timeout 60 "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --target=$CHIP $flag --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/dynamic-$entry-$tag-$rep.log" 2>&1
      echo "rep $rep $entry [$flag]: $(kernel_ms "$LOGS/dynamic-$entry-$tag-$rep.log") ms"
    done
    if [ $causal = causal ]; then
      timeout 60 "$TR" bench/kernels/flash_attention_d128_overlap_lpt.mlir --entry=$entry --target=$CHIP $DYN --producer-copies --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/dynamic-lpt-$rep.log" 2>&1
      echo "rep $rep $entry longest-first [$DYN --producer-copies]: $(kernel_ms "$LOGS/dynamic-lpt-$rep.log") ms"
    fi
    echo "rep $rep SDPA flash / cuDNN ($causal): $(python3 scripts/gpu/peers.py attention 8 32 4096 128 $causal) ms"
  done
done
fi
if want blockn; then
echo "== the overlapped d128 attention with wider key tiles (BN_DIR, default .bundle/bn: gen_attention_variants.sh's bn_N_PEEL.mlir), against the CPU lowering on edge shapes, racecheck, then timed at b8 h32 s4096 interleaved with the committed kernel and cuDNN"
pass=0; fail=0
BN_DIR=${BN_DIR:-.bundle/bn}
for f in $BN_DIR/*.mlir; do
  cfg=$(basename $f .mlir)
  for entry in flash_attention flash_attention_causal; do
    for shape in 2x3x700x128 1x2x130x128; do
      RUN_TIMEOUT=90 run blockn_${cfg}_${entry}_$shape $f --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --arg=$shape --arg=$shape --arg=$shape --arg=$shape
    done
  done
done
echo "blockn correctness: $pass passed, $fail failed"
for f in bench/kernels/flash_attention_d128_overlap.mlir $BN_DIR/bn_176_none.mlir; do
  [ -f $f ] || continue
  timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "$TR" $f --entry=flash_attention --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --outputs=3 --target=$CHIP --repeat=0 --warmup=0 >"$LOGS/blockn-racecheck-$(basename $f .mlir).log" 2>&1
  echo "racecheck $(basename $f .mlir): exit $? ($(grep -E 'SUMMARY' "$LOGS/blockn-racecheck-$(basename $f .mlir).log"))"
done
for causal in full causal; do
  entry=flash_attention; [ $causal = causal ] && entry=flash_attention_causal
  for rep in 1 2 3; do
    for f in bench/kernels/flash_attention_d128_overlap.mlir $BN_DIR/*.mlir; do
      attention_time "blockn-rep$rep-$entry-$(basename $f .mlir)" 8x32x4096x128 $entry $f
    done
    echo "rep $rep SDPA flash / cuDNN ($causal): $(python3 scripts/gpu/peers.py attention 8 32 4096 128 $causal) ms"
  done
done
fi
if want pdyn; then
echo "== the dynamic persistent attention (--persistent --dynamic-tiles --producer-copies) on the committed kernel (both loop ends peeled: K_0 and the last V take turns in one tile) and on PEEL_LAST (default .bundle/bn/peel_last.mlir: K_0 in the pipeline's ring, the last V in its own tile), against the plain kernels: correctness against the CPU lowering, racecheck, timings at S = 2048 / 4096 / 8192 (4096: three interleaved reps), the clocks under ncu --clock-control none at 8192"
pass=0; fail=0
PL=${PEEL_LAST:-.bundle/bn/peel_last.mlir}
C=bench/kernels/flash_attention_d128_overlap.mlir
PD="--persistent --dynamic-tiles --producer-copies"
for entry in flash_attention flash_attention_causal; do
  for shape in 2x3x700x128 1x2x130x128 4x32x1000x128; do
    RUN_TIMEOUT=90 run pdyn_last_${entry}_$shape $PL --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 $PD --arg=$shape --arg=$shape --arg=$shape --arg=$shape
  done
  RUN_TIMEOUT=90 run pdyn_last_plain_${entry} $PL --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --arg=2x3x700x128 --arg=2x3x700x128 --arg=2x3x700x128 --arg=2x3x700x128
done
echo "pdyn correctness: $pass passed, $fail failed"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "$TR" $PL --entry=flash_attention_causal $PD --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --outputs=3 --target=$CHIP --repeat=0 --warmup=0 >"$LOGS/pdyn-racecheck.log" 2>&1
echo "pdyn racecheck: exit $? ($(grep -E 'SUMMARY' "$LOGS/pdyn-racecheck.log"))"
for causal in full causal; do
  entry=flash_attention; [ $causal = causal ] && entry=flash_attention_causal
  for rep in 1 2 3; do
    attention_time "pdyn-rep$rep-$entry-committed" 8x32x4096x128 $entry $C
    attention_time "pdyn-rep$rep-$entry-committed-dynamic" 8x32x4096x128 $entry $C $PD
    attention_time "pdyn-rep$rep-$entry-last" 8x32x4096x128 $entry $PL
    attention_time "pdyn-rep$rep-$entry-last-dynamic" 8x32x4096x128 $entry $PL $PD
    echo "rep $rep SDPA flash / cuDNN ($causal): $(python3 scripts/gpu/peers.py attention 8 32 4096 128 $causal) ms"
  done
  for bs in 16_2048 4_8192; do
    IFS=_ read -r b s <<<"$bs"
    attention_time "pdyn-s$s-$entry-committed" ${b}x32x${s}x128 $entry $C
    attention_time "pdyn-s$s-$entry-committed-dynamic" ${b}x32x${s}x128 $entry $C $PD
    attention_time "pdyn-s$s-$entry-last-dynamic" ${b}x32x${s}x128 $entry $PL $PD
    echo "s$s SDPA flash / cuDNN ($causal): $(python3 scripts/gpu/peers.py attention $b 32 $s 128 $causal) ms"
  done
done
# The clock each kernel runs at (ncu without clock control), S = 8192.
for flags in "" "$PD"; do
  timeout 120 ncu --clock-control none -k regex:flash -c 3 --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second "$TR" $C --entry=flash_attention --target=$CHIP $flags --arg=4x32x8192x128 --arg=4x32x8192x128 --arg=4x32x8192x128 --arg=4x32x8192x128 --outputs=3 --repeat=3 --warmup=1 --no-check >"$LOGS/pdyn-ncu-${flags// /}.log" 2>&1
  echo "ncu [$flags]:"; grep -E "gpu__time_duration|cycles_elapsed" "$LOGS/pdyn-ncu-${flags// /}.log" | tail -6
done
fi
if want gemmncu; then
echo "== ncu (free clocks) of cuBLAS (torch.matmul) and of our TN GEMM (128x256x64, 4 stages, staged epilogue) at 8192^3 f16 and bf16: kernel, cluster size, time, clock, L2 and DRAM bytes"
NCU_METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__t_bytes.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
ncu_show() { grep -E "^  [a-zA-Z_0-9]+.*\(|Cluster Size|Grid Size|Registers Per|Dynamic Shared|gpu__time|cycles_elapsed|lts__t_bytes|dram__bytes|sm__throughput" "$1" | head -14; }
for dt in f16 bf16; do
  timeout 180 ncu --clock-control none -k regex:"gemm|xmma|sm90|cutlass|Kernel" -c 1 --section LaunchStats --metrics $NCU_METRICS python3 scripts/gpu/peers.py matmul 8192 8192 8192 $dt nt >"$LOGS/gemmncu-cublas-$dt.log" 2>&1
  echo "-- cuBLAS $dt (exit $?)"; ncu_show "$LOGS/gemmncu-cublas-$dt.log"
done
G=test/Integration/Inputs/gen_gemm.py
python3 $G --dtype bf16 --acc f32 --out bf16 --tb --block 128x256x64 --threads 256 --stages 4 --policy full_row --raster 8 --stage-epilogue > /tmp/gemm_wg8_bf16.mlir
for f in /tmp/gemm_wg8.mlir /tmp/gemm_wg8_bf16.mlir; do
  timeout 180 ncu --clock-control none -k regex:gemm -c 1 --section LaunchStats --metrics $NCU_METRICS "$TR" $f --entry=gemm --target=$CHIP --arg=8192x8192 --arg=8192x8192 --arg=8192x8192 --outputs=2 --repeat=1 --warmup=1 --no-check >"$LOGS/gemmncu-ours-$(basename $f .mlir).log" 2>&1
  echo "-- ours $(basename $f .mlir) (exit $?)"; ncu_show "$LOGS/gemmncu-ours-$(basename $f .mlir).log"
done
fi
if want pgemm; then
echo "== the TN GEMM 128x256x64 as cuBLAS runs it: 3 stages, persistent on the dynamic schedule, warp-specialized (a producer warpgroup: --tma-release-max-stages=0), the staged TMA-store epilogue of one tile under the next tile's loads; against the reference on edge shapes, racecheck, then timed next to the committed 4-stage kernel and cuBLAS"
pass=0; fail=0
G=test/Integration/Inputs/gen_gemm.py
for dt in f16 bf16; do
  python3 $G --dtype $dt --acc f32 --out $dt --tb --block 128x256x64 --threads 256 --stages 3 --policy full_row --raster 8 --stage-epilogue > /tmp/pgemm3_$dt.mlir
  python3 $G --dtype $dt --acc f32 --out $dt --tb --block 128x256x64 --threads 256 --stages 4 --policy full_row --raster 8 --stage-epilogue > /tmp/pgemm4_$dt.mlir
done
PWS="--persistent --dynamic-tiles --tma-release-max-stages=0"
run pgemm_ws_f16 /tmp/pgemm3_f16.mlir --entry=gemm --reference=@gemm_ref --outputs=2 --rtol=1e-2 --atol=1e-2 --repeat=0 $PWS --arg=1000x1000 --arg=3100x1000 --arg=1000x3100
run pgemm_ws_f16_b /tmp/pgemm3_f16.mlir --entry=gemm --reference=@gemm_ref --outputs=2 --rtol=1e-2 --atol=1e-2 --repeat=0 $PWS --arg=2000x520 --arg=700x520 --arg=2000x700
run pgemm_ws_bf16 /tmp/pgemm3_bf16.mlir --entry=gemm --reference=@gemm_ref --outputs=2 --rtol=2e-2 --atol=2e-2 --repeat=0 $PWS --arg=1000x1000 --arg=3100x1000 --arg=1000x3100
run pgemm_ws_nopp_f16 /tmp/pgemm3_f16.mlir --entry=gemm --reference=@gemm_ref --outputs=2 --rtol=1e-2 --atol=1e-2 --repeat=0 $PWS --pingpong=false --arg=1000x1000 --arg=3100x1000 --arg=1000x3100
echo "pgemm correctness: $pass passed, $fail failed"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "$TR" /tmp/pgemm3_f16.mlir --entry=gemm $PWS --arg=300x256 --arg=1100x256 --arg=300x1100 --outputs=2 --target=$CHIP --repeat=0 --warmup=0 --no-check >"$LOGS/pgemm-racecheck.log" 2>&1
echo "pgemm racecheck: exit $? ($(grep -E 'SUMMARY' "$LOGS/pgemm-racecheck.log"))"
pgemm_time() { # tag, m, n, k, file, flags...
  local tag=$1 m=$2 n=$3 k=$4 f=$5; shift 5
  timeout 90 "$TR" $f --entry=gemm --target=$CHIP "$@" --arg=${m}x$k --arg=${n}x$k --arg=${m}x$n --outputs=2 --repeat=20 --warmup=5 --no-check >"$LOGS/pgemm-$tag.log" 2>&1
  echo "$tag: $(kernel_ms "$LOGS/pgemm-$tag.log") ms"
}
# PGEMM_QUICK=1: the committed kernel and the persistent one without
# ping-pong only, no cuBLAS.
for mnk in 8192_8192_8192 4096_4096_4096 4096_28672_4096 4096_6144_4096 8192_8192_8192; do
  IFS=_ read -r m n k <<<"$mnk"
  pgemm_time "f16-$mnk-committed4" $m $n $k /tmp/pgemm4_f16.mlir
  [ -z "${PGEMM_QUICK:-}" ] && pgemm_time "f16-$mnk-plain3" $m $n $k /tmp/pgemm3_f16.mlir
  [ -z "${PGEMM_QUICK:-}" ] && pgemm_time "f16-$mnk-ws3" $m $n $k /tmp/pgemm3_f16.mlir $PWS
  pgemm_time "f16-$mnk-ws3-nopp" $m $n $k /tmp/pgemm3_f16.mlir $PWS --pingpong=false
  [ -z "${PGEMM_QUICK:-}" ] && echo "f16 $mnk cuBLAS: $(python3 scripts/gpu/peers.py matmul $m $n $k f16 nt) ms"
done
pgemm_time "bf16-8192-committed4" 8192 8192 8192 /tmp/pgemm4_bf16.mlir
[ -z "${PGEMM_QUICK:-}" ] && pgemm_time "bf16-8192-ws3" 8192 8192 8192 /tmp/pgemm3_bf16.mlir $PWS
pgemm_time "bf16-8192-ws3-nopp" 8192 8192 8192 /tmp/pgemm3_bf16.mlir $PWS --pingpong=false
[ -z "${PGEMM_QUICK:-}" ] && echo "bf16 8192 cuBLAS: $(python3 scripts/gpu/peers.py matmul 8192 8192 8192 bf16 nt) ms"
fi
if want lazy; then
echo "== the overlapped d128 attention with FlashAttention-4's conditional rescale (LAZY, default .bundle/bn/lazy.mlir: O rescaled, behind one branch per row of each thread, only when a row's maximum grows by more than 2^8), against the CPU lowering (random inputs and maxima growing along the keys), racecheck, then timed at b8 h32 s4096 interleaved with the committed kernel and cuDNN"
pass=0; fail=0
LZ=${LAZY:-.bundle/bn/lazy.mlir}
python3 test/Python/Inputs/growing_scores.py /tmp/lazy-in
for entry in flash_attention flash_attention_causal; do
  for shape in 2x3x700x128 1x2x130x128; do
    RUN_TIMEOUT=90 run lazy_${entry}_$shape $LZ --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --arg=$shape --arg=$shape --arg=$shape --arg=$shape
  done
  RUN_TIMEOUT=90 run lazy_${entry}_growing $LZ --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 --arg=@/tmp/lazy-in/q.npy --arg=@/tmp/lazy-in/k.npy --arg=@/tmp/lazy-in/v.npy --arg=1x2x300x128
  RUN_TIMEOUT=90 run lazy_${entry}_growing_vs_committed $LZ --entry=$entry --reference=bench/kernels/flash_attention_d128_overlap.mlir@$entry --outputs=3 --rtol=2e-3 --atol=2e-3 --repeat=0 --arg=@/tmp/lazy-in/q.npy --arg=@/tmp/lazy-in/k.npy --arg=@/tmp/lazy-in/v.npy --arg=1x2x300x128
done
echo "lazy correctness: $pass passed, $fail failed"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "$TR" $LZ --entry=flash_attention_causal --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --outputs=3 --target=$CHIP --repeat=0 --warmup=0 >"$LOGS/lazy-racecheck.log" 2>&1
echo "lazy racecheck: exit $? ($(grep -E 'SUMMARY' "$LOGS/lazy-racecheck.log"))"
for causal in full causal; do
  entry=flash_attention; [ $causal = causal ] && entry=flash_attention_causal
  for rep in 1 2 3; do
    attention_time "lazy-rep$rep-$entry-committed" 8x32x4096x128 $entry bench/kernels/flash_attention_d128_overlap.mlir
    attention_time "lazy-rep$rep-$entry-lazy" 8x32x4096x128 $entry $LZ
    echo "rep $rep SDPA flash / cuDNN ($causal): $(python3 scripts/gpu/peers.py attention 8 32 4096 128 $causal) ms"
  done
done
fi
if want wsraster; then
echo "== warp specialization of kernels with tile.use_swizzle (a producer warpgroup may follow the rasterization now): the example GEMM+ReLU (128 threads, 128x128x32, 3 stages; --tma-release-min-warpgroups=1 --tma-release-max-stages=0 gives it a producer) and the TN 128x256x64 4-stage GEMM (--tma-release-max-stages=0) against the references on edge shapes, racecheck, then timed interleaved with their defaults and cuBLAS"
pass=0; fail=0
EWS="--tma-release-min-warpgroups=1 --tma-release-max-stages=0"
for shape in "300x200 200x170 300x170" "129x37 37x131 129x131" "256x128 128x256 256x256" "1000x520 520x1700 1000x1700"; do
  set -- $shape
  run ws_gemm_relu_$1_$2 $E/gemm_relu.mlir --entry=gemm_relu --reference=$R/gemm_relu.mlir@gemm_relu_ref --outputs=2 --repeat=0 $EWS --arg=$1 --arg=$2 --arg=$3
  run ws_persistent_gemm_relu_$1_$2 $E/gemm_relu.mlir --entry=gemm_relu --reference=$R/gemm_relu.mlir@gemm_relu_ref --outputs=2 --repeat=0 $EWS --persistent --arg=$1 --arg=$2 --arg=$3
done
for shape in "1000x1000 904x1000 1000x904" "2000x520 700x520 2000x700"; do
  set -- $shape
  run ws_tn_$1_$2 /tmp/gemm_wg8.mlir --entry=gemm --reference=@gemm_ref --outputs=2 --rtol=1e-2 --atol=1e-2 --repeat=0 --tma-release-max-stages=0 --arg=$1 --arg=$2 --arg=$3
  run ws_tn_nopp_$1_$2 /tmp/gemm_wg8.mlir --entry=gemm --reference=@gemm_ref --outputs=2 --rtol=1e-2 --atol=1e-2 --repeat=0 --tma-release-max-stages=0 --pingpong=false --arg=$1 --arg=$2 --arg=$3
done
echo "wsraster correctness: $pass passed, $fail failed"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "$TR" $E/gemm_relu.mlir --entry=gemm_relu $EWS --arg=300x200 --arg=200x170 --arg=300x170 --outputs=2 --target=$CHIP --repeat=0 --warmup=0 --no-check >"$LOGS/wsraster-racecheck.log" 2>&1
echo "wsraster racecheck (example): exit $? ($(grep -E 'SUMMARY' "$LOGS/wsraster-racecheck.log"))"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "$TR" /tmp/gemm_wg8.mlir --entry=gemm --tma-release-max-stages=0 --arg=300x256 --arg=1100x256 --arg=300x1100 --outputs=2 --target=$CHIP --repeat=0 --warmup=0 --no-check >"$LOGS/wsraster-racecheck-tn.log" 2>&1
echo "wsraster racecheck (TN): exit $? ($(grep -E 'SUMMARY' "$LOGS/wsraster-racecheck-tn.log"))"
ws_time() { # tag, file, entry, A shape, B shape, C shape, flags...
  local tag=$1 f=$2 entry=$3 a=$4 b=$5 c=$6; shift 6
  timeout 90 "$TR" $f --entry=$entry --target=$CHIP "$@" --arg=$a --arg=$b --arg=$c --outputs=2 --repeat=20 --warmup=5 --no-check >"$LOGS/ws-$tag.log" 2>&1
  echo "$tag: $(kernel_ms "$LOGS/ws-$tag.log") ms"
}
for rep in 1 2; do
  for n in 4096 8192; do
    ws_time "rep$rep-example-$n-default" $E/gemm_relu.mlir gemm_relu ${n}x$n ${n}x$n ${n}x$n
    ws_time "rep$rep-example-$n-ws" $E/gemm_relu.mlir gemm_relu ${n}x$n ${n}x$n ${n}x$n $EWS
    ws_time "rep$rep-example-$n-ws-persistent" $E/gemm_relu.mlir gemm_relu ${n}x$n ${n}x$n ${n}x$n $EWS --persistent
    echo "rep$rep example $n cuBLAS+relu: $(python3 scripts/gpu/peers.py matmul $n $n $n f16 nn relu) ms"
  done
  for mnk in 4096_4096_4096 8192_8192_8192 4096_28672_4096; do
    IFS=_ read -r m n k <<<"$mnk"
    ws_time "rep$rep-tn-$mnk-default" /tmp/gemm_wg8.mlir gemm ${m}x$k ${n}x$k ${m}x$n
    ws_time "rep$rep-tn-$mnk-ws" /tmp/gemm_wg8.mlir gemm ${m}x$k ${n}x$k ${m}x$n --tma-release-max-stages=0
    ws_time "rep$rep-tn-$mnk-ws-nopp" /tmp/gemm_wg8.mlir gemm ${m}x$k ${n}x$k ${m}x$n --tma-release-max-stages=0 --pingpong=false
    echo "rep$rep tn $mnk cuBLAS: $(python3 scripts/gpu/peers.py matmul $m $n $k f16 nt) ms"
  done
done
fi
if want minblocks; then
echo "== --min-blocks-per-sm (tile-nvvm-min-blocks: ptxas's .minnctapersm) on the 128-thread example kernels: the GEMM+ReLU, the d64 attention and the dequantizing GEMM against their references on edge shapes with 2, 3 and 4 blocks, then timed interleaved with the defaults (and cuBLAS / SDPA)"
pass=0; fail=0
for mb in 2 3 4; do
  run mb${mb}_gemm_relu_edge $E/gemm_relu.mlir --entry=gemm_relu --reference=$R/gemm_relu.mlir@gemm_relu_ref --outputs=2 --repeat=0 --min-blocks-per-sm=$mb --arg=300x200 --arg=200x170 --arg=300x170
  run mb${mb}_gemm_relu_oddk $E/gemm_relu.mlir --entry=gemm_relu --reference=$R/gemm_relu.mlir@gemm_relu_ref --outputs=2 --repeat=0 --min-blocks-per-sm=$mb --arg=129x37 --arg=37x131 --arg=129x131
  run mb${mb}_fa_edge $E/flash_attention.mlir --entry=flash_attention --reference=$R/flash_attention.mlir@flash_attention_ref --outputs=3 --rtol=1e-2 --atol=2e-3 --repeat=0 --min-blocks-per-sm=$mb --arg=2x3x70x64 --arg=2x3x70x64 --arg=2x3x70x64 --arg=2x3x70x64
done
echo "minblocks correctness: $pass passed, $fail failed"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "$TR" $E/gemm_relu.mlir --entry=gemm_relu --min-blocks-per-sm=3 --arg=300x200 --arg=200x170 --arg=300x170 --outputs=2 --target=$CHIP --repeat=0 --warmup=0 --no-check >"$LOGS/minblocks-racecheck.log" 2>&1
echo "minblocks racecheck: exit $? ($(grep -E 'SUMMARY' "$LOGS/minblocks-racecheck.log"))"
mb_time() { # tag, file, entry, outputs, flags and args...
  local tag=$1 f=$2 entry=$3 outs=$4; shift 4
  timeout 90 "$TR" $f --entry=$entry --target=$CHIP "$@" --outputs=$outs --repeat=20 --warmup=5 --no-check >"$LOGS/mb-$tag.log" 2>&1
  echo "$tag: $(kernel_ms "$LOGS/mb-$tag.log") ms ($(grep -m1 -oE '[0-9]+ registers' "$LOGS/mb-$tag.log"))"
}
for rep in 1 2; do
  for n in 4096 8192; do
    for mb in 0 3 4; do
      mb_time "rep$rep-gemm-$n-mb$mb" $E/gemm_relu.mlir gemm_relu 2 --min-blocks-per-sm=$mb --arg=${n}x$n --arg=${n}x$n --arg=${n}x$n
    done
    echo "rep$rep gemm $n cuBLAS+relu: $(python3 scripts/gpu/peers.py matmul $n $n $n f16 nn relu) ms"
  done
  for mb in 0 2 3 4; do
    mb_time "rep$rep-fa64-mb$mb" $E/flash_attention.mlir flash_attention 3 --min-blocks-per-sm=$mb --arg=8x32x1024x64 --arg=8x32x1024x64 --arg=8x32x1024x64 --arg=8x32x1024x64
  done
  echo "rep$rep fa d64 8x32x1024 SDPA flash / cuDNN: $(python3 scripts/gpu/peers.py attention 8 32 1024 64 full) ms"
done
fi
if want peel; then
echo "== the committed overlapped attention (both ends of its loop peeled: S_0 before the loop, K_0 and the last V in one tile) under its lowering variants, against the CPU lowering on edge shapes; racecheck"
pass=0; fail=0
P=bench/kernels/flash_attention_d128_overlap.mlir
for entry in flash_attention flash_attention_causal; do
  for flag in "" --producer-copies "--persistent --producer-copies" --warp-specialize=false; do
    for shape in 2x3x700x128 1x2x130x128; do
      RUN_TIMEOUT=60 run peel_${entry}_${flag//[ -=]/}_$shape $P --entry=$entry --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 $flag --arg=$shape --arg=$shape --arg=$shape --arg=$shape
    done
  done
done
echo "peel correctness: $pass passed, $fail failed"
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 "$TR" $P --entry=flash_attention_causal --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --outputs=3 --target=$CHIP --repeat=0 --warmup=0 >"$LOGS/peel-racecheck.log" 2>&1
echo "peel racecheck: exit $? ($(grep -E 'SUMMARY' "$LOGS/peel-racecheck.log"))"
fi
if want ab; then
# Two compilers in one call: .bundle/tile-run-prev.xz (the state before a
# change) against the current bundle, interleaved, on the attention and the
# TN GEMMs, next to the peers.
if [ -f .bundle/tile-run-prev.xz ]; then
  xz -dc .bundle/tile-run-prev.xz > /tmp/tile-bundle/tile-run-prev && chmod +x /tmp/tile-bundle/tile-run-prev
  echo "== A/B: previous compiler (prev) vs this one (new), b8 h32 s4096 d128 attention and TN GEMMs, interleaved (median of 10 after 3)"
  for rep in 1 2 3; do
    for entry in flash_attention flash_attention_causal; do
      # AB_EXTRA: flags of a third variant of the new compiler (e.g.
      # "--persistent --producer-copies").
      for which in prev new ${AB_EXTRA:+extra}; do
        bin="$TR"; [ $which = prev ] && bin=/tmp/tile-bundle/tile-run-prev
        flags="${AB_FLAGS:-}"; [ $which = extra ] && flags="$AB_EXTRA"
        TILE_CACHE_DIR=/tmp/tile-cache-$which timeout 60 "$bin" bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --target=$CHIP $flags --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --repeat=10 --warmup=3 --no-check >"$LOGS/ab-$entry-$which-$rep.log" 2>&1
        echo "rep $rep $entry $which $flags: $(kernel_ms "$LOGS/ab-$entry-$which-$rep.log") ms"
      done
    done
    for causal in full causal; do
      echo "rep $rep SDPA flash / cuDNN ($causal): $(python3 scripts/gpu/peers.py attention 8 32 4096 128 $causal) ms"
    done
  done
  python3 test/Integration/Inputs/gen_gemm.py --dtype f16 --acc f32 --out f16 --tb --policy full_row --block 128x256x64 --threads 256 --stages 4 --raster 8 --stage-epilogue > /tmp/ab-tn.mlir
  for n in 4096 8192; do
    for rep in 1 2; do
      for which in prev new; do
        bin="$TR"; [ $which = prev ] && bin=/tmp/tile-bundle/tile-run-prev
        TILE_CACHE_DIR=/tmp/tile-cache-$which "$bin" /tmp/ab-tn.mlir --entry=gemm --target=$CHIP --arg=${n}x${n} --arg=${n}x${n} --arg=${n}x${n} --repeat=20 --warmup=5 --no-check >"$LOGS/ab-tn-$n-$which-$rep.log" 2>&1
        echo "TN $n^3 rep $rep $which: $(kernel_ms "$LOGS/ab-tn-$n-$which-$rep.log") ms"
      done
    done
    echo "cuBLAS TN $n^3: $(python3 scripts/gpu/peers.py matmul $n $n $n f16 nt) ms"
  done
else
  echo "SKIP ab: no .bundle/tile-run-prev.xz"
fi
fi
if want attncu; then
echo "== ncu (free clocks) of cuDNN's SDPA and of our d128 attention at b8 h32 s4096, causal and not: launch shape (grid, block, cluster, registers, shared memory), time, clock, instructions, L2 and DRAM bytes"
NCU_METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,smsp__inst_executed.sum,lts__t_bytes.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
ncu_att_show() { grep -E "^  [a-zA-Z_0-9]+.*\(|Cluster Size|Grid Size|Block Size|Registers Per|Shared Memory Config|Dynamic Shared|Static Shared|Waves Per|gpu__time|cycles_elapsed|inst_executed|lts__t_bytes|dram__bytes|sm__throughput" "$1" | head -18; }
for mode in full causal; do
  # The first launch builds cuDNN's plan: profile the second.
  timeout 240 ncu --clock-control none -k regex:"sdpa|fmha|flash|attention|cudnn" --launch-skip 1 -c 1 --section LaunchStats --metrics $NCU_METRICS python3 - $mode >"$LOGS/attncu-cudnn-$mode.log" 2>&1 <<'PY'
import sys, torch, torch.nn.functional as F
q, k, v = (torch.randn(8, 32, 4096, 128, device="cuda", dtype=torch.float16) for _ in range(3))
with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.CUDNN_ATTENTION):
    for _ in range(2):
        F.scaled_dot_product_attention(q, k, v, is_causal=sys.argv[1] == "causal")
torch.cuda.synchronize()
PY
  echo "-- cuDNN $mode (exit $?)"; ncu_att_show "$LOGS/attncu-cudnn-$mode.log"
  entry=flash_attention; [ $mode = causal ] && entry=flash_attention_causal
  timeout 240 ncu --clock-control none -k regex:flash_attention --launch-skip 1 -c 1 --section LaunchStats --metrics $NCU_METRICS "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --target=$CHIP --repeat=1 --warmup=1 --no-check >"$LOGS/attncu-ours-$mode.log" 2>&1
  echo "-- ours $mode (exit $?)"; ncu_att_show "$LOGS/attncu-ours-$mode.log"
  # The dynamic persistent form of the same kernel (session 11), whose
  # blocks cuDNN's launch shape resembles.
  timeout 240 ncu --clock-control none -k regex:flash_attention --launch-skip 1 -c 1 --section LaunchStats --metrics $NCU_METRICS "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --persistent --dynamic-tiles --producer-copies --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --target=$CHIP --repeat=1 --warmup=1 --no-check >"$LOGS/attncu-dyn-$mode.log" 2>&1
  echo "-- ours dynamic persistent $mode (exit $?)"; ncu_att_show "$LOGS/attncu-dyn-$mode.log"
done
fi
if want attsrc; then
echo "== ncu source counters (SASS, per-instruction executions and stall samples, CSV in \$OUT) of our d128 attention and cuDNN's at b8 h32 s4096, causal and not"
for mode in full causal; do
  entry=flash_attention; [ $mode = causal ] && entry=flash_attention_causal
  timeout 280 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --print-source sass --csv -k regex:flash_attention --launch-skip 1 -c 1 "$TR" bench/kernels/flash_attention_d128_overlap.mlir --entry=$entry --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --outputs=3 --target=$CHIP --repeat=1 --warmup=1 --no-check >"$OUT/attsrc-ours-$mode.csv" 2>"$LOGS/attsrc-ours-$mode.err"
  echo "ours $mode: exit $?, $(wc -l < "$OUT/attsrc-ours-$mode.csv") lines"
done
timeout 280 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --print-source sass --csv -k regex:"sdpa|fmha|cudnn" --launch-skip 1 -c 1 python3 - >"$OUT/attsrc-cudnn-causal.csv" 2>"$LOGS/attsrc-cudnn.err" <<'PY'
import torch, torch.nn.functional as F
q, k, v = (torch.randn(8, 32, 4096, 128, device="cuda", dtype=torch.float16) for _ in range(3))
with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.CUDNN_ATTENTION):
    for _ in range(2):
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
torch.cuda.synchronize()
PY
echo "cuDNN causal: exit $?, $(wc -l < "$OUT/attsrc-cudnn-causal.csv") lines"
fi
if want compile; then
echo "== cold compile of the example GEMM (4096^3 specialization for $CHIP: tile-to-nvvm, PTX, module load; empty cache each run) vs Triton's cold compile of its GEMM"
python3 bench/compile_cache.py --tile-run "$TR" --target=$CHIP --size 4096 --runs 5 2>&1 | tail -6
echo "Triton GEMM cold compile (128x256x64, 3 stages, 8 warps; fresh cache, median of 3): $(python3 scripts/gpu/peers.py triton-compile 2>"$LOGS/triton-compile.log" || tail -3 "$LOGS/triton-compile.log") s"
echo "-- where one cold compile's time goes on this machine (tile-run --time-compile: MLIR's pass timing; the slowest entries)"
rm -rf /tmp/tile-cache-split
TILE_CACHE_DIR=/tmp/tile-cache-split "$TR" $E/gemm_relu.mlir --entry=gemm_relu --target=$CHIP --arg=4096x4096 --arg=4096x4096 --arg=4096x4096 --outputs=2 --compile-only --time-compile >"$LOGS/compile-split.log" 2>&1
grep -E "host code" "$LOGS/compile-split.log"
grep -E "^ +[0-9]+\.[0-9]+ +\(" "$LOGS/compile-split.log" | sort -rn | head -8
fi
if want python; then
echo "== Python on the GPU: the Python suite from the installed wheel (scripts/gpu/run_wheel_suite.sh; wheel from scripts/build_wheels.sh, pytest from .whl/)"
if ls dist/tilelang_mlir-*-cp312-*.whl >/dev/null 2>&1; then
  SITE=/tmp/tilelang-site TILE_CACHE_DIR=/tmp/tile-python-cache timeout 600 scripts/gpu/run_wheel_suite.sh 2>&1 | tee "$LOGS/python-gpu.log" | tail -8
  echo "== SASS of the benchmarked kernels (scripts/gpu/sass_check.py: HGMMA, UTMALDG / UTMASTG, SYNCS, setmaxnreg, no LDGSTS; listings in logs)"
  PYTHONPATH=/tmp/tilelang-site timeout 300 python3 scripts/gpu/sass_check.py --out "$LOGS/sass" 2>&1 | tee "$LOGS/sass-check.log"
else
  echo "SKIP: no dist/tilelang_mlir-*-cp312-*.whl (run scripts/build_wheels.sh 3.12 and carry dist and .whl)"
fi
fi
