"""A differential fuzzer of whole tile programs: random T.* kernels run
through the compiler and checked against a numpy model written here.

Each case is one kernel over a grid of output tiles, of one of five kinds:

  map      one or two inputs loaded as edge tiles (shared, fragment or
           local), a random elementwise expression tree over them and the
           global row/column indices, stored (straight from the fragment or
           through a shared tile);
  reduce   a map, then reduce_sum/max/min/abssum/absmax along either
           dimension (clear or combining with a filled value), an
           elementwise map of the 1-D result, stored into a region of a 2-D
           buffer (`R[by*bm:(by+1)*bm, bx]`) or atomically added across
           blocks;
  loop     a K loop (T.Pipelined with 0-3 stages, or T.serial) over shared
           tiles of an input whose K is not a multiple of the tile,
           accumulating a map elementwise into a fragment or as row sums;
  gemm     C (+)= op(A) @ op(B) over a pipelined K loop (transposes, A in
           shared or in a fragment, f16/f32/f64 -> f32/f64 and i8 -> i32,
           clear_accum on every iteration now and then), an epilogue map of
           the accumulator and the indices, a cast, optionally its row sums;
  cumsum   prefix sums of a loaded tile along either dimension, forward or
           reversed, in place or into another tile;
  direct   global buffers indexed element by element inside T.Parallel
           (no copies, no padding), the edges guarded by T.If, the row sums
           added into a vector with element atomics.

Shapes are random and rarely multiples of the tiles, so every case has
edge tiles. The model is the language's documented meaning, written with
numpy independently of the compiler: a load of an edge tile reads zeros
outside the buffer (so reductions and maps see those zeros), a store
writes only inside it, arithmetic rounds to the compute type after every
operation. Outputs are poisoned before the run (NaN / a sentinel) so an
element the kernel fails to write is a failure. Integers compare exactly;
floats within a tolerance of the compute type's epsilon, scaled by the
largest intermediate value.

    python3 program_fuzz.py --seed 1 --count 200 [--target sm_90a] [--torch]

prints one line per failing case (its program) and a summary; exit code 1
when a case failed. On a GPU target the CPU's result is checked too: both
against the model and against each other. python/tests/test_program_fuzz.py
runs it in CI; scripts/fuzz_tile.py --differential runs it for a time.
"""

import argparse
import operator
import sys
import time

import numpy as np

import tilelang_mlir
import tilelang_mlir.language as T

KINDS = ["map", "reduce", "loop", "gemm", "cumsum", "direct"]
REDUCE_KINDS = ["sum", "max", "min", "abssum", "absmax"]


# -- expression trees ---------------------------------------------------------

class Node:
    """An elementwise expression: evaluated once on T values (the kernel)
    and once on numpy arrays (the model)."""

    def __init__(self, op, *children, value=None):
        self.op, self.children, self.value = op, children, value

    def __str__(self):
        if self.op == "const":
            return repr(self.value)
        if not self.children:
            return self.op
        return "%s(%s)" % (self.op, ", ".join(str(c) for c in self.children))


def random_tree(rng, leaves, is_float, depth, exact=False, exact_leaves=None):
    """A random expression of `depth` at most; `exact` ones have no
    transcendental operations (a select compares exact values only: a
    comparison of rounded ones may take the other branch on a tie that
    differs in the last bit between two correct implementations). A
    select's comparison reads only `exact_leaves` (default: all `leaves`):
    a leaf that is itself a rounded result, such as a float sum whose order
    is the kernel's, may not decide a branch."""
    cond_leaves = leaves if exact_leaves is None else exact_leaves
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.2:
            if is_float:
                return Node("const", value=float(rng.integers(-16, 17)) / 4)
            return Node("const", value=int(rng.integers(-20, 21)))
        return Node(str(rng.choice(leaves)))
    unary = ["neg", "abs"] + (["exp", "sqrt", "tanh"] if is_float and not exact else [])
    binary = ["add", "sub", "mul", "max", "min"] + (
        [] if is_float else ["xor", "and", "or"])
    r = rng.random()
    if r < 0.25:
        return Node(str(rng.choice(unary)),
                    random_tree(rng, leaves, is_float, depth - 1, exact, exact_leaves))
    if r < 0.9:
        return Node(str(rng.choice(binary)),
                    random_tree(rng, leaves, is_float, depth - 1, exact, exact_leaves),
                    random_tree(rng, leaves, is_float, depth - 1, exact, exact_leaves))
    return Node("select", *([random_tree(rng, cond_leaves, is_float, depth - 1, True)
                             for _ in range(2)]
                            + [random_tree(rng, leaves, is_float, depth - 1, exact,
                                           exact_leaves)
                               for _ in range(2)]))


# The operations written with Python's operators mean the same on T values
# and on numpy arrays; the others each backend names.
OPERATORS = {"neg": operator.neg, "add": operator.add, "sub": operator.sub,
             "mul": operator.mul, "xor": operator.xor, "and": operator.and_,
             "or": operator.or_}


def apply(ops, op, args):
    """`op` of `args` with the functions of `ops` (TracedOps, NumpyOps)."""
    if op in OPERATORS:
        return OPERATORS[op](*args)
    if op == "exp":  # bounded, so that no float type overflows
        return ops.exp(ops.clamp(args[0], -4.0, 4.0))
    if op == "sqrt":
        return ops.sqrt(ops.abs(args[0]))
    if op == "select":
        return ops.where(args[0] > args[1], args[2], args[3])
    return getattr(ops, op)(*args)  # abs, tanh, max, min


def _names(node):
    return {node.op} | set().union(*[_names(c) for c in node.children])


def input_tree(rng, leaves, is_float, depth):
    """A random expression that reads every input among `leaves` (`x`, `y`):
    one that reads none of them tests nothing of the loads."""
    inputs = {"x", "y"} & set(leaves)
    while True:
        tree = random_tree(rng, leaves, is_float, depth)
        if inputs <= _names(tree):
            return tree


# -- the operations -------------------------------------------------------------

class TracedOps:
    """The tree's operations on T values of one compute type."""

    abs, exp, sqrt, tanh = (staticmethod(f) for f in (T.abs, T.exp, T.sqrt, T.tanh))
    max, min, where = (staticmethod(f) for f in (T.max, T.min, T.if_then_else))

    def __init__(self, dtype):
        self.dtype = dtype

    def const(self, value):
        return T.cast(value, self.dtype)

    def clamp(self, a, lo, hi):
        return T.clamp(a, self.const(lo), self.const(hi))

    def apply(self, op, args):
        return apply(self, op, args)


class NumpyOps:
    """The same operations on numpy arrays, rounded to the compute type
    after each one; records the largest magnitude seen (the tolerance's
    scale)."""

    abs, exp, sqrt, tanh = (staticmethod(f) for f in (np.abs, np.exp, np.sqrt, np.tanh))
    max, min, where = (staticmethod(f) for f in (np.maximum, np.minimum, np.where))

    def __init__(self, dtype, shape):
        self.dtype = np.dtype(dtype)
        self.shape = shape
        self.scale = 1.0

    def const(self, value):
        return np.full(self.shape, value, self.dtype)

    def clamp(self, a, lo, hi):
        return np.clip(a, self.dtype.type(lo), self.dtype.type(hi))

    def apply(self, op, args):
        with np.errstate(all="ignore"):
            x = apply(self, op, args).astype(self.dtype)
        if self.dtype.kind == "f":
            finite = np.abs(x[np.isfinite(x)])
            if finite.size:
                self.scale = max(self.scale, float(finite.max()))
        return x


def evaluate(node, ops, leaves):
    if node.op == "const":
        return ops.const(node.value)
    if not node.children:
        return leaves[node.op]
    return ops.apply(node.op, [evaluate(c, ops, leaves) for c in node.children])


# -- cases ---------------------------------------------------------------------

def _is_float(dtype):
    return np.dtype(dtype).kind == "f"


def pad(a, rows, cols):
    """`a` with zeros appended to `rows` x `cols` (an edge tile's load)."""
    out = np.zeros((rows, cols), a.dtype)
    out[:a.shape[0], :a.shape[1]] = a
    return out


def blocks(a, bm, bn):
    """(gy, bm, gx, bn) view of a padded 2-D array."""
    return a.reshape(a.shape[0] // bm, bm, a.shape[1] // bn, bn)


class Case:
    """One random program, its inputs and its model."""

    def __init__(self, rng, index, gpu=False):
        self.index = index
        self.kind = str(rng.choice(KINDS, p=[0.2, 0.2, 0.12, 0.22, 0.08, 0.18]))
        self.threads = int(rng.choice([128, 256] if gpu else [32, 64, 128, 256]))
        sizes = [16, 32, 64] if gpu else [4, 8, 16, 32, 64]
        self.bm, self.bn = int(rng.choice(sizes)), int(rng.choice(sizes))
        self.M = int(rng.integers(1, 3 * self.bm + 2))
        self.N = int(rng.integers(1, 3 * self.bn + 2))
        self.K, self.bk = 0, 0
        self.space = str(rng.choice(["shared", "fragment", "local"]
                                    if self.kind in ("map", "reduce") else ["shared"]))
        self.stage = bool(rng.random() < 0.3)    # store through a shared tile
        self.integer = self.kind in ("map", "reduce", "loop", "cumsum", "direct") and \
            rng.random() < 0.3
        if self.integer:
            self.in_dtype = str(rng.choice(["int8", "int16", "int32"]))
            self.dtype = "int32"
        else:
            self.in_dtype = str(rng.choice(["float16", "float32"]
                                           + ([] if gpu else ["float64"])))
            self.dtype = str(rng.choice(["float32", self.in_dtype]))
        self.out_dtype = self.dtype
        leaves = ["x", "row", "col"]
        self.two = self.kind in ("map", "direct") and rng.random() < 0.5
        if self.two:
            leaves.append("y")
        self.tree = input_tree(rng, leaves, not self.integer, int(rng.integers(1, 4)))
        self.post = None
        if self.kind == "reduce":
            self.reduce = str(rng.choice(REDUCE_KINDS))
            self.dim = int(rng.integers(2))
            self.clear = bool(rng.random() < 0.6)
            self.init = (float(rng.integers(-8, 9)) / 2 if not self.integer
                         else int(rng.integers(-8, 9)))
            self.atomic = (self.reduce == "sum" and self.dim == 1 and
                           self.dtype in ("float32", "int32") and rng.random() < 0.4)
            if self.atomic:
                self.clear = True
            if rng.random() < 0.5:
                # The reduced value is exact where integer, or a max/min of
                # values without transcendentals; a float sum is rounded in
                # the kernel's order, so the post's selects compare `row`.
                inexact = not self.integer and (
                    self.reduce in ("sum", "abssum")
                    or bool({"exp", "sqrt", "tanh"} & _names(self.tree)))
                self.post = random_tree(rng, ["x", "row"], not self.integer, 2,
                                        exact_leaves=["row"] if inexact else None)
        elif self.kind == "loop":
            self.bk = int(rng.choice(sizes))
            self.K = int(rng.integers(1, 4 * self.bk + 2))
            self.N = self.bk
            self.bn = self.bk
            self.stages = int(rng.integers(0, 4))
            self.serial = bool(rng.random() < 0.3)
            self.rowsum = bool(rng.random() < 0.5)
            self.tree = input_tree(rng, ["x", "row", "col"], not self.integer,
                                   int(rng.integers(1, 3)))
        elif self.kind == "gemm":
            self._gemm(rng, gpu)
        elif self.kind == "direct":
            # Element atomics of the row sums into a vector (float32/int32).
            self.atomic = self.dtype in ("float32", "int32") and rng.random() < 0.5
        elif self.kind == "cumsum":
            self.dim = int(rng.integers(2))
            self.reverse = bool(rng.random() < 0.5)
            self.in_place = bool(rng.random() < 0.5)
            if not self.integer:
                self.in_dtype = self.dtype = self.out_dtype = "float32"

    def _gemm(self, rng, gpu):
        if gpu:
            self.bm = int(rng.choice([64, 128]))
            self.bn = int(rng.choice([32, 64, 128]))
            self.bk = int(rng.choice([32, 64]))
            self.in_dtype = "int8" if rng.random() < 0.2 else "float16"
        else:
            self.bk = int(rng.choice([8, 16, 32]))
            self.in_dtype = str(rng.choice(["float16", "float32", "float64", "int8"]))
        self.M = int(rng.integers(1, 3 * self.bm + 2))
        self.N = int(rng.integers(1, 3 * self.bn + 2))
        self.K = int(rng.integers(1, 4 * self.bk + 2))
        self.integer = self.in_dtype == "int8"
        self.acc = {"float64": "float64", "int8": "int32"}.get(self.in_dtype, "float32")
        self.dtype = self.acc
        self.out_dtype = str(rng.choice([self.acc, "int16" if self.integer else "float16"]))
        # clear_accum on every iteration: only the last K block counts.
        self.clear_each = bool(rng.random() < 0.15)
        self.trans_a = bool(rng.random() < 0.4)
        self.trans_b = bool(rng.random() < 0.4)
        self.a_fragment = bool(rng.random() < 0.2) and not self.trans_a
        self.stages = int(rng.integers(0, 4))
        self.rowsum = bool(rng.random() < 0.25)
        self.tree = (input_tree(rng, ["x", "row", "col"], not self.integer, 2)
                     if rng.random() < 0.6 else Node("x"))

    def describe(self):
        fields = ["#%d %s" % (self.index, self.kind),
                  "M=%d N=%d" % (self.M, self.N),
                  "bm=%d bn=%d" % (self.bm, self.bn),
                  "threads=%d" % self.threads,
                  "%s->%s" % (self.in_dtype, self.dtype)]
        if self.K:
            fields.append("K=%d bk=%d stages=%d" % (self.K, self.bk, self.stages))
        if self.kind in ("map", "reduce"):
            fields.append("space=%s" % self.space)
        if self.kind == "reduce":
            fields.append("%s dim=%d clear=%s init=%r atomic=%s post=%s" % (
                self.reduce, self.dim, self.clear, self.init, self.atomic, self.post))
        if self.kind == "loop":
            fields.append("serial=%s rowsum=%s" % (self.serial, self.rowsum))
        if self.kind == "gemm":
            fields.append("tA=%s tB=%s A_frag=%s out=%s rowsum=%s clear_each=%s" % (
                self.trans_a, self.trans_b, self.a_fragment, self.out_dtype, self.rowsum,
                self.clear_each))
        if self.kind == "direct":
            fields.append("two=%s atomic=%s" % (self.two, self.atomic))
        if self.kind == "cumsum":
            fields.append("dim=%d reverse=%s in_place=%s" % (
                self.dim, self.reverse, self.in_place))
        fields.append("stage=%s expr=%s" % (self.stage, self.tree))
        return " ".join(fields)

    @property
    def grid(self):
        return -(-self.N // self.bn), -(-self.M // self.bm)

    # -- the program ---------------------------------------------------------

    def _leaves(self, tiles, by, bx, i, j):
        ops = TracedOps(self.dtype)
        leaves = {name: T.cast(tile[i, j], self.dtype) for name, tile in tiles.items()}
        leaves["row"] = T.cast(by * self.bm + i, self.dtype)
        leaves["col"] = T.cast(bx * self.bn + j, self.dtype)
        return ops, leaves

    def _alloc(self, space, shape, dtype):
        return {"shared": T.alloc_shared, "fragment": T.alloc_fragment,
                "local": T.alloc_local}[space](shape, dtype)

    def _store(self, tile, dst, by, bx):
        """A 2-D result tile stored at its block, through shared memory
        when the case says so."""
        if self.stage:
            staged = T.alloc_shared((self.bm, self.bn), self.out_dtype)
            T.copy(tile, staged)
            tile = staged
        T.copy(tile, dst[by * self.bm, bx * self.bn])

    def program(self):
        return getattr(self, "_program_" + self.kind)()

    def _program_map(self):
        case, bm, bn = self, self.bm, self.bn
        names = ["x", "y"] if self.two else ["x"]
        shape, dt = (self.M, self.N), self.in_dtype

        def body(inputs, O, bx, by):
            tiles = {}
            for name, src in zip(names, inputs):
                tiles[name] = case._alloc(case.space, (bm, bn), dt)
                T.copy(src[by * bm, bx * bn], tiles[name])
            out = T.alloc_fragment((bm, bn), case.out_dtype)
            for i, j in T.Parallel(bm, bn):
                ops, leaves = case._leaves(tiles, by, bx, i, j)
                out[i, j] = T.cast(evaluate(case.tree, ops, leaves), case.out_dtype)
            return out

        gx, gy = self.grid
        if self.two:
            @T.prim_func
            def main(X: T.Tensor(shape, dt), Y: T.Tensor(shape, dt),
                     O: T.Tensor(shape, case.out_dtype)):
                with T.Kernel(gx, gy, threads=case.threads) as (bx, by):
                    case._store(body([X, Y], O, bx, by), O, by, bx)
        else:
            @T.prim_func
            def main(X: T.Tensor(shape, dt), O: T.Tensor(shape, case.out_dtype)):
                with T.Kernel(gx, gy, threads=case.threads) as (bx, by):
                    case._store(body([X], O, bx, by), O, by, bx)
        return main

    def _reduced_shape(self):
        gx, gy = self.grid
        if self.atomic:
            return (self.M,)
        return (self.M, gx) if self.dim == 1 else (gy, self.N)

    def _program_reduce(self):
        case, bm, bn = self, self.bm, self.bn
        gx, gy = self.grid
        length = bm if self.dim == 1 else bn

        @T.prim_func
        def main(X: T.Tensor((case.M, case.N), case.in_dtype),
                 R: T.Tensor(case._reduced_shape(), case.dtype)):
            with T.Kernel(gx, gy, threads=case.threads) as (bx, by):
                x = case._alloc(case.space, (bm, bn), case.in_dtype)
                T.copy(X[by * bm, bx * bn], x)
                mapped = T.alloc_fragment((bm, bn), case.dtype)
                for i, j in T.Parallel(bm, bn):
                    ops, leaves = case._leaves({"x": x}, by, bx, i, j)
                    mapped[i, j] = evaluate(case.tree, ops, leaves)
                r = T.alloc_fragment((length,), case.dtype)
                if not case.clear:
                    T.fill(r, case.init)
                getattr(T, "reduce_" + case.reduce)(mapped, r, dim=case.dim,
                                                     clear=case.clear)
                if case.post is not None:
                    for i in T.Parallel(length):
                        ops = TracedOps(case.dtype)
                        base = by * bm if case.dim == 1 else bx * bn
                        r[i] = evaluate(case.post, ops, {
                            "x": r[i], "row": T.cast(base + i, case.dtype)})
                if case.atomic:
                    T.atomic_add(R[by * bm:(by + 1) * bm], r)
                elif case.dim == 1:
                    T.copy(r, R[by * bm:(by + 1) * bm, bx])
                else:
                    T.copy(r, R[by, bx * bn:(bx + 1) * bn])
        return main

    def _program_loop(self):
        case, bm, bk = self, self.bm, self.bk
        _, gy = self.grid
        steps = -(-self.K // bk)

        @T.prim_func
        def main(X: T.Tensor((case.M, case.K), case.in_dtype),
                 O: T.Tensor((case.M,) if case.rowsum else (case.M, bk), case.dtype)):
            with T.Kernel(gy, threads=case.threads) as by:
                x = T.alloc_shared((bm, bk), case.in_dtype)
                acc = T.alloc_fragment((bm, bk), case.dtype)
                rows = T.alloc_fragment((bm,), case.dtype)
                mapped = T.alloc_fragment((bm, bk), case.dtype)
                T.clear(acc)
                T.clear(rows)
                loop = T.serial(steps) if case.serial else T.Pipelined(
                    steps, num_stages=case.stages)
                for k in loop:
                    T.copy(X[by * bm, k * bk], x)
                    for i, j in T.Parallel(bm, bk):
                        ops, leaves = case._leaves({"x": x}, by, k, i, j)
                        value = evaluate(case.tree, ops, leaves)
                        if case.rowsum:
                            mapped[i, j] = value
                        else:
                            acc[i, j] = acc[i, j] + value
                    if case.rowsum:
                        T.reduce_sum(mapped, rows, dim=1, clear=False)
                if case.rowsum:
                    T.copy(rows, O[by * bm:(by + 1) * bm])
                else:
                    T.copy(acc, O[by * bm, 0])
        return main

    def _program_gemm(self):
        case, bm, bn, bk = self, self.bm, self.bn, self.bk
        gx, gy = self.grid
        steps = -(-self.K // bk)
        a_shape = (case.K, case.M) if case.trans_a else (case.M, case.K)
        b_shape = (case.N, case.K) if case.trans_b else (case.K, case.N)
        dt = case.in_dtype

        @T.prim_func
        def main(A: T.Tensor(a_shape, dt), B: T.Tensor(b_shape, dt),
                 C: T.Tensor((case.M, case.N), case.out_dtype),
                 R: T.Tensor((case.M, gx), case.acc)):
            with T.Kernel(gx, gy, threads=case.threads) as (bx, by):
                a = T.alloc_shared((bk, bm) if case.trans_a else (bm, bk), dt)
                b = T.alloc_shared((bn, bk) if case.trans_b else (bk, bn), dt)
                acc = T.alloc_fragment((bm, bn), case.acc)
                a_frag = T.alloc_fragment((bm, bk), dt) if case.a_fragment else None
                T.clear(acc)
                for k in T.Pipelined(steps, num_stages=case.stages):
                    if case.trans_a:
                        T.copy(A[k * bk, by * bm], a)
                    else:
                        T.copy(A[by * bm, k * bk], a)
                    if case.trans_b:
                        T.copy(B[bx * bn, k * bk], b)
                    else:
                        T.copy(B[k * bk, bx * bn], b)
                    if case.a_fragment:
                        T.copy(a, a_frag)
                        T.gemm(a_frag, b, acc, transpose_B=case.trans_b,
                               clear_accum=case.clear_each)
                    else:
                        T.gemm(a, b, acc, transpose_A=case.trans_a,
                               transpose_B=case.trans_b, clear_accum=case.clear_each)
                out = T.alloc_fragment((bm, bn), case.acc)
                for i, j in T.Parallel(bm, bn):
                    ops, leaves = case._leaves({"x": acc}, by, bx, i, j)
                    out[i, j] = evaluate(case.tree, ops, leaves)
                if case.out_dtype != case.acc:
                    cast = T.alloc_fragment((bm, bn), case.out_dtype)
                    T.copy(out, cast)
                    case._store(cast, C, by, bx)
                else:
                    case._store(out, C, by, bx)
                if case.rowsum:
                    r = T.alloc_fragment((bm,), case.acc)
                    T.reduce_sum(out, r, dim=1)
                    T.copy(r, R[by * bm:(by + 1) * bm, bx])
        return main

    def _program_direct(self):
        """Global memory indexed element by element inside T.Parallel (no
        copies), guarded by T.If at the edges; row sums added with element
        atomics."""
        case, bm, bn = self, self.bm, self.bn
        gx, gy = self.grid
        shape, dt = (self.M, self.N), self.in_dtype
        names = ["x", "y"] if self.two else ["x"]

        def body(inputs, O, S, bx, by):
            for i, j in T.Parallel(bm, bn):
                row, col = by * bm + i, bx * bn + j
                with T.If(row < case.M):
                    with T.If(col < case.N):
                        ops = TracedOps(case.dtype)
                        leaves = {n: T.cast(src[row, col], case.dtype)
                                  for n, src in zip(names, inputs)}
                        leaves["row"] = T.cast(row, case.dtype)
                        leaves["col"] = T.cast(col, case.dtype)
                        value = evaluate(case.tree, ops, leaves)
                        O[row, col] = T.cast(value, case.out_dtype)
                        if case.atomic:
                            T.atomic_add(S[row], value)

        s_shape = (self.M,)
        if self.two:
            @T.prim_func
            def main(X: T.Tensor(shape, dt), Y: T.Tensor(shape, dt),
                     O: T.Tensor(shape, case.out_dtype), S: T.Tensor(s_shape, case.dtype)):
                with T.Kernel(gx, gy, threads=case.threads) as (bx, by):
                    body([X, Y], O, S, bx, by)
        else:
            @T.prim_func
            def main(X: T.Tensor(shape, dt), O: T.Tensor(shape, case.out_dtype),
                     S: T.Tensor(s_shape, case.dtype)):
                with T.Kernel(gx, gy, threads=case.threads) as (bx, by):
                    body([X], O, S, bx, by)
        return main

    def _program_cumsum(self):
        case, bm, bn = self, self.bm, self.bn
        gx, gy = self.grid

        @T.prim_func
        def main(X: T.Tensor((case.M, case.N), case.dtype),
                 O: T.Tensor((case.M, case.N), case.dtype)):
            with T.Kernel(gx, gy, threads=case.threads) as (bx, by):
                x = T.alloc_shared((bm, bn), case.dtype)
                T.copy(X[by * bm, bx * bn], x)
                if case.in_place:
                    T.cumsum(x, dim=case.dim, reverse=case.reverse)
                    T.copy(x, O[by * bm, bx * bn])
                else:
                    y = T.alloc_shared((bm, bn), case.dtype)
                    T.cumsum(x, y, dim=case.dim, reverse=case.reverse)
                    T.copy(y, O[by * bm, bx * bn])
        return main

    # -- inputs and the model ------------------------------------------------

    def _random(self, rng, shape, dtype):
        if _is_float(dtype):
            # Multiples of 1/4 in [-4, 4]: exact in every float type, and
            # gemm sums stay exact in float32 whatever their order.
            return (rng.integers(-16, 17, size=shape) / 4).astype(dtype)
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -50), min(info.max, 50) + 1,
                            size=shape).astype(dtype)

    def inputs(self, rng):
        """(inputs, poisoned outputs)."""
        if self.kind == "map":
            xs = [self._random(rng, (self.M, self.N), self.in_dtype)
                  for _ in range(2 if self.two else 1)]
            return xs, [poison((self.M, self.N), self.out_dtype)]
        if self.kind == "reduce":
            out = (np.zeros if self.atomic else poison)(self._reduced_shape(), self.dtype)
            return [self._random(rng, (self.M, self.N), self.in_dtype)], [out]
        if self.kind == "loop":
            shape = (self.M,) if self.rowsum else (self.M, self.bk)
            return ([self._random(rng, (self.M, self.K), self.in_dtype)],
                    [poison(shape, self.dtype)])
        if self.kind == "gemm":
            a = self._random(rng, (self.K, self.M) if self.trans_a else (self.M, self.K),
                             self.in_dtype)
            b = self._random(rng, (self.N, self.K) if self.trans_b else (self.K, self.N),
                             self.in_dtype)
            gx, _ = self.grid
            r = poison((self.M, gx), self.acc) if self.rowsum else \
                np.zeros((self.M, gx), self.acc)
            return [a, b], [poison((self.M, self.N), self.out_dtype), r]
        if self.kind == "direct":
            xs = [self._random(rng, (self.M, self.N), self.in_dtype)
                  for _ in range(2 if self.two else 1)]
            return xs, [poison((self.M, self.N), self.out_dtype),
                        np.zeros((self.M,), self.dtype)]
        return ([self._random(rng, (self.M, self.N), self.dtype)],
                [poison((self.M, self.N), self.dtype)])

    def _leaf_arrays(self, arrays, rows, cols, col_base=None):
        """The leaves over a rows x cols grid: the arrays, the row index and
        the column index (or `col_base`'s columns)."""
        ops = NumpyOps(self.dtype, (rows, cols))
        r, c = np.indices((rows, cols))
        if col_base is not None:
            c = col_base
        leaves = {name: a.astype(self.dtype) for name, a in arrays.items()}
        leaves["row"] = r.astype(self.dtype)
        leaves["col"] = c.astype(self.dtype)
        return ops, leaves

    def model(self, inputs, outputs):
        """(expected outputs, the tolerance's scale)."""
        return getattr(self, "_model_" + self.kind)(inputs, outputs)

    def _padded_shape(self):
        gx, gy = self.grid
        return gy * self.bm, gx * self.bn

    def _model_map(self, inputs, outputs):
        rows, cols = self._padded_shape()
        names = ["x", "y"][:len(inputs)]
        ops, leaves = self._leaf_arrays(
            {n: pad(a, rows, cols) for n, a in zip(names, inputs)}, rows, cols)
        value = evaluate(self.tree, ops, leaves)
        with np.errstate(all="ignore"):
            return [value.astype(self.out_dtype)[:self.M, :self.N]], ops.scale

    def _model_reduce(self, inputs, outputs):
        rows, cols = self._padded_shape()
        ops, leaves = self._leaf_arrays({"x": pad(inputs[0], rows, cols)}, rows, cols)
        mapped = blocks(evaluate(self.tree, ops, leaves), self.bm, self.bn)
        axis = 3 if self.dim == 1 else 1
        combine = {"sum": np.sum, "abssum": lambda v, axis: np.sum(np.abs(v), axis=axis),
                   "max": np.max, "min": np.min,
                   "absmax": lambda v, axis: np.max(np.abs(v), axis=axis)}[self.reduce]
        with np.errstate(all="ignore"):
            r = combine(mapped, axis=axis).astype(self.dtype)
            if not self.clear:
                init = np.full(r.shape, self.init, self.dtype)
                if self.reduce in ("sum", "abssum"):
                    r = (r + init).astype(self.dtype)
                elif self.reduce in ("max", "absmax"):
                    r = np.maximum(r, init)
                else:
                    r = np.minimum(r, init)
        ops.scale = max(ops.scale, _magnitude(r) if _is_float(self.dtype) else 1.0)
        if self.reduce in ("sum", "abssum"):  # summed in any order
            ops.scale *= self.bn if self.dim == 1 else self.bm
        # r: (gy, bm, gx) for dim 1, (gy, gx, bn) for dim 0.
        if self.post is not None:
            if self.dim == 1:
                base = np.arange(rows).reshape(-1, 1) * np.ones((1, r.shape[2]))
                flat = r.reshape(rows, -1)
            else:
                base = np.ones((r.shape[0], 1)) * np.arange(cols).reshape(1, -1)
                flat = r.reshape(r.shape[0], -1)
            post = NumpyOps(self.dtype, flat.shape)
            post.scale = ops.scale
            flat = evaluate(self.post, post, {"x": flat, "row": base.astype(self.dtype)})
            ops.scale = post.scale
            r = flat
        else:
            r = r.reshape(rows, -1) if self.dim == 1 else r.reshape(r.shape[0], -1)
        if self.atomic:
            with np.errstate(all="ignore"):
                return [r.sum(axis=1).astype(self.dtype)[:self.M]], ops.scale * r.shape[1]
        if self.dim == 1:
            return [r[:self.M]], ops.scale
        return [r[:, :self.N]], ops.scale

    def _model_loop(self, inputs, outputs):
        rows = self._padded_shape()[0]
        steps = -(-self.K // self.bk)
        x = pad(inputs[0], rows, steps * self.bk)
        acc = np.zeros((rows, self.bk), self.dtype)
        scale = 1.0
        for k in range(steps):
            # The block's column index is k (the loop's iv stands for bx).
            cols = np.arange(self.bk).reshape(1, -1) + k * self.bk + np.zeros((rows, 1), int)
            ops, leaves = self._leaf_arrays({"x": x[:, k * self.bk:(k + 1) * self.bk]},
                                            rows, self.bk, col_base=cols)
            value = evaluate(self.tree, ops, leaves)
            scale = max(scale, ops.scale)
            with np.errstate(all="ignore"):
                acc = (acc + value).astype(self.dtype)
        scale = max(scale, _magnitude(acc)) * steps
        if self.rowsum:
            with np.errstate(all="ignore"):
                return [acc.sum(axis=1).astype(self.dtype)[:self.M]], scale * self.bk
        return [acc[:self.M]], scale

    def _model_gemm(self, inputs, outputs):
        a, b = (x.astype(np.int64 if self.integer else np.float64) for x in inputs)
        if self.trans_a:
            a = a.T
        if self.trans_b:
            b = b.T
        if self.clear_each:  # the last K block only
            last = (-(-self.K // self.bk) - 1) * self.bk
            a, b = a[:, last:], b[last:, :]
        rows, cols = self._padded_shape()
        c = pad((a @ b).astype(self.acc), rows, cols)
        ops, leaves = self._leaf_arrays({"x": c}, rows, cols)
        out = evaluate(self.tree, ops, leaves)
        scale = max(ops.scale, _magnitude(c))
        with np.errstate(all="ignore"):
            # Row sums wrap in the accumulator's type as the kernel's do
            # (numpy would sum int32 in int64).
            r = blocks(out, self.bm, self.bn).sum(axis=3).astype(self.acc).reshape(rows, -1)
            expected = [out.astype(self.out_dtype)[:self.M, :self.N],
                        r[:self.M] if self.rowsum else outputs[1]]
        return expected, scale * (self.bn if self.rowsum else 1)

    def _model_direct(self, inputs, outputs):
        """Only the elements inside the buffers are computed: no padding."""
        names = ["x", "y"][:len(inputs)]
        ops, leaves = self._leaf_arrays(dict(zip(names, inputs)), self.M, self.N)
        value = evaluate(self.tree, ops, leaves)
        with np.errstate(all="ignore"):
            sums = (value.sum(axis=1).astype(self.dtype) if self.atomic
                    else outputs[1])
            return [value.astype(self.out_dtype), sums], ops.scale * (
                self.N if self.atomic else 1)

    def _model_cumsum(self, inputs, outputs):
        rows, cols = self._padded_shape()
        x = blocks(pad(inputs[0], rows, cols), self.bm, self.bn)
        axis = 3 if self.dim == 1 else 1
        if self.reverse:
            x = np.flip(x, axis)
        with np.errstate(all="ignore"):
            y = np.cumsum(x, axis=axis, dtype=self.dtype)
        if self.reverse:
            y = np.flip(y, axis)
        return [y.reshape(rows, cols)[:self.M, :self.N]], \
            max(1.0, _magnitude(y) if _is_float(self.dtype) else 1.0)


def _magnitude(a):
    finite = np.abs(a[np.isfinite(a)]) if a.dtype.kind == "f" else np.abs(a)
    return float(finite.max()) if finite.size else 1.0


def poison(shape, dtype):
    if _is_float(dtype):
        return np.full(shape, np.nan, dtype)
    return np.full(shape, -12345, dtype)


EPS = {"float16": 2.0 ** -10, "float32": 2.0 ** -23, "float64": 2.0 ** -52}


def compare(got, want, scale):
    """None when `got` matches `want`, else the reason."""
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if not _is_float(want.dtype):
        wrong = np.argwhere(got != want)
    else:
        g, w = got.astype(np.float64), want.astype(np.float64)
        tol = 64 * EPS[str(want.dtype)] * (scale + np.abs(w))
        with np.errstate(invalid="ignore"):
            same = (np.isnan(g) & np.isnan(w)) | (g == w) | (np.abs(g - w) <= tol)
        wrong = np.argwhere(~same)
    if len(wrong) == 0:
        return None
    first = tuple(int(i) for i in wrong[0])
    return "%d of %d elements wrong, first at %s: %r, expected %r" % (
        len(wrong), want.size, first, got[first], want[first])


class RunError(Exception):
    """A kernel that failed when it ran: on a GPU the context may be lost,
    so the fuzzer stops there."""


def _run(func, ins, outs, target, use_torch):
    kernel = tilelang_mlir.compile(func, target=target)
    if use_torch:
        import torch  # pylint: disable=import-outside-toplevel
        device = [torch.from_numpy(x).cuda() for x in ins + outs]
        kernel(*device)
        torch.cuda.synchronize()
        return [x.cpu().numpy() for x in device[len(ins):]]
    outs = [o.copy() for o in outs]
    kernel(*[x.copy() for x in ins], *outs)
    return outs


def run_case(case, rng, target="cpu", use_torch=False):
    """None when the kernel agrees with the model (and, on a GPU target,
    with the CPU), "refused: ..." when it does not compile, else the
    reason."""
    ins, outs = case.inputs(rng)
    try:
        func = case.program()
        cpu = _run(func, ins, outs, "cpu", False) if target == "cpu" else None
    except tilelang_mlir.TileError as error:
        return "refused: %s" % str(error).strip().splitlines()[-1][:300]
    except Exception as error:  # pylint: disable=broad-except
        return "does not trace: %s: %s" % (type(error).__name__,
                                           str(error).splitlines()[-1][:300])
    expected, scale = case.model(ins, outs)
    results = [("cpu", cpu)] if cpu is not None else []
    if target != "cpu":
        try:
            device = _run(func, ins, outs, target, use_torch)
        except tilelang_mlir.TileError as error:
            return "refused on %s: %s" % (target, str(error).strip().splitlines()[-1][:300])
        except Exception as error:  # pylint: disable=broad-except
            raise RunError("fails when it runs: %s" % str(error).splitlines()[-1])
        results.append((target, device))
        try:
            results.append(("cpu", _run(func, ins, outs, "cpu", False)))
        except Exception as error:  # pylint: disable=broad-except
            return "cpu refused: %s" % str(error).strip().splitlines()[-1][:300]
    for where, got in results:
        for n, (g, w) in enumerate(zip(got, expected)):
            reason = compare(g, w, scale)
            if reason is not None:
                return "%s output %d: %s" % (where, n, reason)
    if len(results) == 2:
        for n, (g, c) in enumerate(zip(results[0][1], results[1][1])):
            reason = compare(g, c, scale)
            if reason is not None:
                return "%s vs cpu, output %d: %s" % (target, n, reason)
    return None


def fuzz(seed, count, target="cpu", use_torch=False, budget=None, out=sys.stdout,
         verbose=False, first=0, kinds=None):
    """Runs `count` cases from `seed` (stopping after `budget` seconds);
    returns ([(case, reason)] of the failures, [(case, reason)] of the
    refusals, the number of cases run)."""
    rng = np.random.default_rng(seed)
    failures, refused, ran, begin = [], [], 0, time.time()
    gpu = target != "cpu"
    for i in range(count):
        if budget is not None and time.time() - begin > budget:
            break
        case = Case(rng, i, gpu=gpu)
        if kinds and case.kind not in kinds or i < first:
            case.inputs(rng)  # the same draws as when it runs
            continue
        if verbose:
            print("run %s" % case.describe(), file=out, flush=True)
        try:
            reason = run_case(case, rng, target, use_torch)
        except RunError as error:
            failures.append((case.describe(), str(error)))
            print("FAIL %s: %s (stopping)" % (case.describe(), error), file=out, flush=True)
            return failures, refused, ran + 1
        ran += 1
        if reason is None:
            continue
        if reason.startswith("refused"):
            refused.append((case.describe(), reason))
            if verbose:
                print("REFUSED %s: %s" % (case.describe(), reason), file=out, flush=True)
            continue
        failures.append((case.describe(), reason))
        print("FAIL %s: %s" % (case.describe(), reason), file=out, flush=True)
    return failures, refused, ran


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--torch", action="store_true",
                        help="pass torch CUDA tensors (GPU targets)")
    parser.add_argument("--budget", type=float, default=None,
                        help="stop after this many seconds")
    parser.add_argument("--kinds", default="", help="only these kinds (comma-separated)")
    parser.add_argument("--verbose", action="store_true",
                        help="print each case before it runs")
    parser.add_argument("--first", type=int, default=0,
                        help="run only cases from this index on")
    args = parser.parse_args()
    failures, refused, ran = fuzz(args.seed, args.count, args.target, args.torch,
                                  budget=args.budget, verbose=args.verbose,
                                  first=args.first,
                                  kinds=[k for k in args.kinds.split(",") if k])
    for description, reason in refused:
        print("refused %s: %s" % (description, reason))
    print("program_fuzz seed %d target %s: %d cases, %d failed, %d refused"
          % (args.seed, args.target, ran, len(failures), len(refused)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
