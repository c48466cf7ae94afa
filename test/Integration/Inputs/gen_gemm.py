#!/usr/bin/env python3
"""Writes a tile-dialect GEMM and its naive reference as one module.

  @gemm      C = op(A) @ op(B), the tile kernel (tile.pipelined K loop)
  @gemm_serial  the same kernel with a plain scf.for K loop (no pipelining)
  @gemm_ref  naive loops in the accumulator type

op() transposes with --ta / --tb: A is then stored K x M, B N x K.
"""

import argparse

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("--dtype", default="f16", help="A/B element type")
p.add_argument("--acc", default="f32", help="accumulator (fragment) type")
p.add_argument("--out", default=None, help="C element type (default: acc)")
p.add_argument("--ta", action="store_true")
p.add_argument("--tb", action="store_true")
p.add_argument("--block", default="64x64x32", help="BMxBNxBK")
p.add_argument("--threads", type=int, default=128)
p.add_argument("--stages", type=int, default=3)
p.add_argument("--policy", default=None,
               choices=["square", "full_row", "full_col"],
               help="warp policy of the gemm (default: the dialect's)")
p.add_argument("--stage-epilogue", action="store_true",
               help="C goes to global memory through a shared tile "
                    "(fragment -> shared, then a block copy of 16-byte "
                    "rows), as TileLang's GEMMs write it")
p.add_argument("--raster", type=int, default=0,
               help="tile.use_swizzle panel size (0: none)")
a = p.parse_args()
out = a.out or a.acc
bm, bn, bk = (int(x) for x in a.block.split("x"))
is_float = not a.acc.startswith("i")


def conv(value, src, dst):
    """MLIR that converts `value` from src to dst (as tile.copy does)."""
    if src == dst:
        return value, ""
    # Bits of a type name: f16, bf16, i8; the FP8 names (f8E4M3FN) by
    # their leading number.
    width = lambda t: (8 if t.startswith("f8") else
                       int("".join(c for c in t if c.isdigit()) or 16))
    tmp = "%%conv_%s" % value.lstrip("%")
    if src.startswith("i"):
        op = "arith.extsi" if width(src) < width(dst) else "arith.trunci"
    else:
        op = "arith.extf" if width(src) < width(dst) else "arith.truncf"
    return tmp, "%s = %s %s : %s to %s\n" % (tmp, op, value, src, dst)


a_tile = "%dx%d" % ((bk, bm) if a.ta else (bm, bk))
b_tile = "%dx%d" % ((bn, bk) if a.tb else (bk, bn))
a_off = "[%kk, %m]" if a.ta else "[%m, %kk]"
b_off = "[%n, %kk]" if a.tb else "[%kk, %n]"
attrs = [x for x, on in (("transpose_a", a.ta), ("transpose_b", a.tb)) if on]
if a.policy:
    attrs.append("policy = #tile.policy<%s>" % a.policy)
attr_text = (" {" + ", ".join(attrs) + "}") if attrs else ""
k_dim = "%c0" if a.ta else "%c1"
sig = ("%%A: memref<?x?x%s>, %%B: memref<?x?x%s>, %%C: memref<?x?x%s>"
       % (a.dtype, a.dtype, out))


raster = ("\n    tile.use_swizzle panel(%d)" % a.raster) if a.raster else ""


def epilogue_swizzle():
    """XOR each row's 16-byte units (within 128 bytes) with the row's low
    bits, so that the accumulators' stores (a warp's lanes over 8 rows)
    land in different banks; None where the tile has no whole units. Rows
    of 128 bytes take the 128-byte swizzle, wider ones the blocked layout
    in 128-byte column panels: both are what TMA stores read (sm_90)."""
    bits = int("".join(c for c in out if c.isdigit()) or 16)
    per_unit = 128 // bits  # elements in 16 bytes
    if bits not in (16, 32) or bn % (8 * per_unit) or bn & (bn - 1) or bm % 8:
        return None
    base = per_unit.bit_length() - 1
    shift = (bn.bit_length() - 1) - base
    if shift > 3:
        return "#tile.swizzle<3, %d, 3, blocked = true, panels = true>" % base
    return "#tile.swizzle<3, %d, %d>" % (base, shift)


if a.stage_epilogue:
    swz = epilogue_swizzle()
    layout = (" {layout = %s}" % swz) if swz else ""
    epilogue = f"""    %c_s = tile.alloc_shared{layout} : memref<{bm}x{bn}x{out}, #tile.mem<shared>>
    tile.copy %c_f to %c_s : memref<{bm}x{bn}x{a.acc}, #tile.mem<fragment>> to memref<{bm}x{bn}x{out}, #tile.mem<shared>>
    tile.copy %c_s to %C[%m, %n] : memref<{bm}x{bn}x{out}, #tile.mem<shared>> to memref<?x?x{out}>"""
else:
    epilogue = f"""    tile.copy %c_f to %C[%m, %n] : memref<{bm}x{bn}x{a.acc}, #tile.mem<fragment>> to memref<?x?x{out}>"""


def kernel(name, loop):
    if loop == "pipelined":
        head = "tile.pipelined %%k = %%c0 to %%kt step %%c1 num_stages = %d {" % a.stages
    else:
        head = "scf.for %k = %c0 to %kt step %c1 {"
    return f"""
func.func @{name}({sig}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant {bm} : index
  %bn = arith.constant {bn} : index
  %bk = arith.constant {bk} : index
  %M = memref.dim %C, %c0 : memref<?x?x{out}>
  %N = memref.dim %C, %c1 : memref<?x?x{out}>
  %K = memref.dim %A, {k_dim} : memref<?x?x{a.dtype}>
  %gx = arith.ceildivui %N, %bn : index
  %gy = arith.ceildivui %M, %bm : index
  %kt = arith.ceildivui %K, %bk : index
  tile.kernel grid(%gx, %gy) threads({a.threads}) -> (%bx, %by) {{{raster}
    %a_s = tile.alloc_shared : memref<{a_tile}x{a.dtype}, #tile.mem<shared>>
    %b_s = tile.alloc_shared : memref<{b_tile}x{a.dtype}, #tile.mem<shared>>
    %c_f = tile.alloc_fragment : memref<{bm}x{bn}x{a.acc}, #tile.mem<fragment>>
    %m = arith.muli %by, %bm : index
    %n = arith.muli %bx, %bn : index
    tile.clear %c_f : memref<{bm}x{bn}x{a.acc}, #tile.mem<fragment>>
    {head}
      %kk = arith.muli %k, %bk : index
      tile.copy %A{a_off} to %a_s : memref<?x?x{a.dtype}> to memref<{a_tile}x{a.dtype}, #tile.mem<shared>>
      tile.copy %B{b_off} to %b_s : memref<?x?x{a.dtype}> to memref<{b_tile}x{a.dtype}, #tile.mem<shared>>
      tile.gemm %a_s, %b_s, %c_f{attr_text} : memref<{a_tile}x{a.dtype}, #tile.mem<shared>>, memref<{b_tile}x{a.dtype}, #tile.mem<shared>> -> memref<{bm}x{bn}x{a.acc}, #tile.mem<fragment>>
    }}
{epilogue}
  }}
  return
}}
"""


a_idx = "[%k, %i]" if a.ta else "[%i, %k]"
b_idx = "[%j, %k]" if a.tb else "[%k, %j]"
av, a_conv = conv("%a", a.dtype, a.acc)
bv, b_conv = conv("%b", a.dtype, a.acc)
sv, s_conv = conv("%sum", a.acc, out)
zero = "0.0" if is_float else "0"
mul = "arith.mulf" if is_float else "arith.muli"
add = "arith.addf" if is_float else "arith.addi"
reference = f"""
func.func @gemm_ref({sig}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant {zero} : {a.acc}
  %M = memref.dim %C, %c0 : memref<?x?x{out}>
  %N = memref.dim %C, %c1 : memref<?x?x{out}>
  %K = memref.dim %A, {k_dim} : memref<?x?x{a.dtype}>
  scf.for %i = %c0 to %M step %c1 {{
    scf.for %j = %c0 to %N step %c1 {{
      %sum = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zero) -> ({a.acc}) {{
        %a = memref.load %A{a_idx} : memref<?x?x{a.dtype}>
        %b = memref.load %B{b_idx} : memref<?x?x{a.dtype}>
        {a_conv}        {b_conv}        %p = {mul} {av}, {bv} : {a.acc}
        %s = {add} %acc, %p : {a.acc}
        scf.yield %s : {a.acc}
      }}
      {s_conv}      memref.store {sv}, %C[%i, %j] : memref<?x?x{out}>
    }}
  }}
  return
}}
"""
print("// Generated by gen_gemm.py %s" % " ".join(
    "--%s=%s" % kv for kv in vars(a).items()))
print(kernel("gemm", "pipelined") + kernel("gemm_serial", "serial") + reference)
