"""A differential fuzzer of tile copies: random T.copy / T.atomic_add
programs over regions of global buffers, checked against numpy.

Each case draws a buffer of rank 1 to 5, a slice pattern (every dimension
sliced or indexed, slices of random extents including 1 and extents that
run past the buffer's edge), a tile shape that TileLang's matching accepts
for it (unit slices dropped or kept, a leading unit dimension added), a
head-address form now and then, per-block offsets that put tiles partly or
wholly outside the buffer (negative ones included), element types with a
conversion between the buffer and the tile, the tile's memory (shared,
fragment, local) and the direction: load (region -> tile -> a compact
output), store (a compact input -> tile -> region of a poisoned output) or
atomic add (tile added into the region). The reference is numpy indexing
written here, independently of the compiler: element by element, zeros
outside the buffer on loads, nothing written outside it on stores.

    python3 copy_fuzz.py --seed 1 --count 200 [--target sm_90a] [--torch]

prints one line per failing case (its program) and a summary; the exit code
is 1 when a case failed. python/tests/test_regions.py runs it in CI.
"""

import argparse
import itertools
import sys
import time

import numpy as np

import tilelang_mlir
import tilelang_mlir.language as T

FLOATS = ["float16", "float32", "float64"]
INTS = ["int8", "int16", "int32", "int64"]
SPACES = ["shared", "fragment", "local"]


class Case:
    """One random copy program and what it needs to run."""

    def __init__(self, rng, index, spaces=SPACES, max_rank=5):
        self.index = index
        self.iterations = 1
        self.kstep = None
        if rng.random() < 0.2 and "shared" in spaces:
            self._pipelined(rng, max_rank)
            return
        self.rank = int(rng.integers(1, max_rank + 1))
        self.shape = [int(rng.integers(1, 8)) for _ in range(self.rank)]
        if rng.random() < 0.3:  # one longer dimension now and then
            self.shape[int(rng.integers(self.rank))] = int(rng.integers(8, 40))
        self.blocks = int(rng.integers(1, 5))
        self.mode = str(rng.choice(["load", "store", "atomic"],
                                   p=[0.5, 0.35, 0.15]))
        self.space = str(rng.choice(spaces))
        if self.mode == "atomic":
            self.space = str(rng.choice([s for s in spaces if s != "local"]
                                        or spaces))
        family = FLOATS if rng.random() < 0.6 else INTS
        if self.mode == "atomic":
            family = ["float32"] if family is FLOATS else ["int32"]
        self.buffer_dtype = str(rng.choice(family))
        self.tile_dtype = str(rng.choice(family))
        if {self.buffer_dtype, self.tile_dtype} == {"float64", "float16"}:
            self.tile_dtype = self.buffer_dtype  # avoid double rounding
        # The head-address form: offsets only, the tile along the trailing
        # dimensions.
        self.head = rng.random() < 0.15
        self.sliced, self.extents = [], []
        for d in range(self.rank):
            sliced = self.head or rng.random() < 0.6
            self.sliced.append(sliced)
            if not sliced:
                self.extents.append(1)
            elif rng.random() < 0.2:
                self.extents.append(1)
            else:
                self.extents.append(int(rng.integers(1, self.shape[d] + 3)))
        if self.head:
            trailing = int(rng.integers(1, self.rank + 1))
            for d in range(self.rank - trailing):
                self.extents[d] = 1
            self.tile = self.extents[self.rank - trailing:]
        else:
            if not any(self.sliced):
                d = int(rng.integers(self.rank))
                self.sliced[d] = True
            self.tile = [e for e, s in zip(self.extents, self.sliced)
                         if s and (e != 1 or rng.random() < 0.5)]
            if not self.tile or rng.random() < 0.1:
                self.tile = [1] + self.tile
        # Offsets: base + bx * step along each dimension. Stores and atomic
        # adds step one dimension by its extent so that blocks write
        # disjoint elements.
        self.base, self.step = [], []
        stepped = int(rng.integers(self.rank))
        for d in range(self.rank):
            low, high = -self.extents[d] + 1, self.shape[d]
            self.base.append(int(rng.integers(low - 1, high + 1)))
            if self.mode == "load":
                self.step.append(int(rng.integers(-2, 3)))
            else:
                self.step.append(self.extents[d] if d == stepped else 0)
        # Full slices (`:`) where a slice covers its dimension from 0 (not
        # the dimension that keeps the blocks' stores apart).
        self.full = [s and not self.head and self.extents[d] == self.shape[d]
                     and (self.mode == "load" or d != stepped)
                     and rng.random() < 0.5 for d, s in enumerate(self.sliced)]
        for d in range(self.rank):
            if self.full[d]:
                self.base[d], self.step[d] = 0, 0

    def _pipelined(self, rng, max_rank):
        """A loop of 2-3 iterations whose copy into a shared tile the
        pipeline planner makes asynchronous (TMA boxes on sm_90 where the
        tile's rows run along the last dimension), summed into a fragment:
        regions of rank 2 to 4 with two sliced dimensions, tiles whose
        rows are 16-byte multiples (TMA's), offsets that move with the block
        and the iteration, starts that are negative or not 16-byte aligned
        now and then."""
        self.mode = "pipelined"
        self.space = "shared"
        self.head = False
        self.rank = int(rng.integers(2, min(max_rank, 4) + 1))
        self.buffer_dtype = self.tile_dtype = str(
            rng.choice(["float16", "float32", "float64", "int8", "int32"]))
        self.blocks = int(rng.integers(1, 4))
        self.iterations = int(rng.integers(2, 4))
        rows_dim = int(rng.integers(self.rank - 1))
        cols_dim = self.rank - 1 if rng.random() < 0.8 else int(
            rng.integers(rows_dim + 1, self.rank))
        self.sliced = [d in (rows_dim, cols_dim) for d in range(self.rank)]
        bytes_ = np.dtype(self.buffer_dtype).itemsize
        self.extents, self.shape = [], []
        for d in range(self.rank):
            if d == rows_dim:
                self.extents.append(int(rng.choice([8, 16, 32])))
            elif d == cols_dim:
                self.extents.append(int(rng.choice([16, 32, 64])) // bytes_
                                    * (2 if bytes_ == 1 else 1) or 8)
            else:
                self.extents.append(1)
            self.shape.append(int(rng.integers(1, 4)) if not self.sliced[d]
                              else int(rng.integers(5, 3 * self.extents[d])))
        self.tile = [e for e, sl in zip(self.extents, self.sliced) if sl]
        self.base, self.step, self.kstep = [], [], []
        for d in range(self.rank):
            e = self.extents[d]
            aligned = rng.random() < 0.6
            self.base.append(int(rng.integers(0, self.shape[d])) if not
                             aligned else int(rng.integers(-1, 2)) * e)
            self.step.append(int(rng.choice([0, e, 1])))
            self.kstep.append(int(rng.choice([0, e, 3])) if self.sliced[d]
                              else int(rng.integers(0, 2)))
        self.full = [False] * self.rank

    def starts(self, bx, k=0):
        starts = [b + bx * s for b, s in zip(self.base, self.step)]
        if self.kstep:
            starts = [x + k * t for x, t in zip(starts, self.kstep)]
        return starts

    def describe(self):
        parts = []
        for d in range(self.rank):
            start = "%d%+d*bx" % (self.base[d], self.step[d])
            if self.full[d]:
                parts.append(":")
            elif self.head or not self.sliced[d]:
                parts.append(start)
            else:
                parts.append("%s:+%d" % (start, self.extents[d]))
            if self.kstep:
                parts[-1] += "%+d*k" % self.kstep[d]
        return ("case %d: %s %s A%s[%s] (%s) %s tile %s (%s), %d blocks%s"
                % (self.index, self.mode, "head" if self.head else "region",
                   tuple(self.shape), ", ".join(parts), self.buffer_dtype,
                   self.space, tuple(self.tile), self.tile_dtype, self.blocks,
                   ", %d iterations" % self.iterations
                   if self.mode == "pipelined" else ""))

    # -- the program --------------------------------------------------------

    def _region(self, buffer, bx, k=None):
        key = []
        for d in range(self.rank):
            if self.full[d]:
                key.append(slice(None))
                continue
            start = bx * self.step[d] + self.base[d]
            if k is not None:
                start = start + k * self.kstep[d]
            if self.head or not self.sliced[d]:
                key.append(start)
            else:
                key.append(slice(start, start + self.extents[d]))
        return buffer[tuple(key)]

    def program(self):
        case = self
        compact = tuple([self.blocks] + self.tile)
        alloc = {"shared": T.alloc_shared, "fragment": T.alloc_fragment,
                 "local": T.alloc_local}[self.space]
        zeros = [0] * len(self.tile)

        if self.mode == "pipelined":
            @T.prim_func
            def main(A: T.Tensor(tuple(case.shape), case.buffer_dtype),
                     Out: T.Tensor(compact, case.tile_dtype)):
                with T.Kernel(case.blocks, threads=128) as bx:
                    tile = T.alloc_shared(tuple(case.tile), case.tile_dtype)
                    acc = T.alloc_fragment(tuple(case.tile), case.tile_dtype)
                    T.clear(acc)
                    for k in T.Pipelined(case.iterations, num_stages=2):
                        T.copy(case._region(A, bx, k), tile)
                        for i, j in T.Parallel(*case.tile):
                            acc[i, j] += tile[i, j]
                    T.copy(acc, Out[tuple([bx] + zeros)])
            return main

        if self.mode == "load":
            @T.prim_func
            def main(A: T.Tensor(tuple(case.shape), case.buffer_dtype),
                     Out: T.Tensor(compact, case.tile_dtype)):
                with T.Kernel(case.blocks, threads=128) as bx:
                    tile = alloc(tuple(case.tile), case.tile_dtype)
                    T.copy(case._region(A, bx), tile)
                    T.copy(tile, Out[tuple([bx] + zeros)])
            return main

        @T.prim_func
        def main(In: T.Tensor(compact, case.tile_dtype),
                 A: T.Tensor(tuple(case.shape), case.buffer_dtype)):
            with T.Kernel(case.blocks, threads=128) as bx:
                tile = alloc(tuple(case.tile), case.tile_dtype)
                T.copy(In[tuple([bx] + zeros)], tile)
                if case.mode == "store":
                    T.copy(tile, case._region(A, bx))
                else:
                    T.atomic_add(case._region(A, bx), tile)
        return main

    # -- inputs and the reference --------------------------------------------

    def inputs(self, rng):
        compact = [self.blocks] + self.tile
        if self.mode == "pipelined":  # small integers: exact sums
            return [rng.integers(-8, 8, size=self.shape).astype(
                self.buffer_dtype)]
        if self.mode == "load":
            return [random_array(rng, self.shape, self.buffer_dtype)]
        return [random_array(rng, compact, self.tile_dtype),
                random_array(rng, self.shape, self.buffer_dtype)]

    def _elements(self, bx, k=0):
        """(region coordinates, buffer index or None) of every element of
        block bx's region (in iteration k), in row-major order."""
        starts = self.starts(bx, k)
        for coords in itertools.product(*[range(e) for e in self.extents]):
            index = tuple(s + c for s, c in zip(starts, coords))
            inside = all(0 <= i < n for i, n in zip(index, self.shape))
            yield coords, index if inside else None

    def reference(self, args):
        if self.mode == "pipelined":
            (a,) = args
            out = np.zeros([self.blocks] + self.tile, self.tile_dtype)
            for bx in range(self.blocks):
                for k in range(self.iterations):
                    region = np.zeros(self.extents, a.dtype)
                    for coords, index in self._elements(bx, k):
                        if index is not None:
                            region[coords] = a[index]
                    out[bx] += region.reshape(self.tile)
            return out
        if self.mode == "load":
            (a,) = args
            out = np.zeros([self.blocks] + self.tile, self.tile_dtype)
            for bx in range(self.blocks):
                region = np.zeros(self.extents, a.dtype)
                for coords, index in self._elements(bx):
                    if index is not None:
                        region[coords] = a[index]
                out[bx] = region.reshape(self.tile).astype(self.tile_dtype)
            return out
        compact, a = args
        out = a.copy()
        for bx in range(self.blocks):
            region = compact[bx].reshape(self.extents).astype(a.dtype)
            for coords, index in self._elements(bx):
                if index is not None:
                    if self.mode == "store":
                        out[index] = region[coords]
                    else:
                        out[index] = out[index] + region[coords]
        return out


def random_array(rng, shape, dtype):
    if dtype in FLOATS:
        # Values exact in float16, so that every conversion is exact.
        return (rng.integers(-2048, 2048, size=shape) / 64.0).astype(dtype)
    return rng.integers(-100, 100, size=shape).astype(dtype)


def run_case(case, rng, target="cpu", use_torch=False):
    """None when the kernel agrees with the reference, else the reason."""
    args = case.inputs(rng)
    try:
        func = case.program()
        kernel = tilelang_mlir.compile(
            func, out_idx=[1] if case.mode in ("load", "pipelined") else None,
            target=target)
    except Exception as error:  # pylint: disable=broad-except
        return "does not compile: %s" % str(error).splitlines()[-1][:300]
    expected = case.reference(args)
    try:
        if use_torch:
            import torch  # pylint: disable=import-outside-toplevel
            device_args = [torch.from_numpy(x).cuda() for x in args]
            result = kernel(*device_args)
            got = (result if case.mode in ("load", "pipelined")
                   else device_args[1]).cpu().numpy()
        else:
            result = kernel(*args)
            got = result if case.mode in ("load", "pipelined") else args[1]
    except Exception as error:  # pylint: disable=broad-except
        raise RunError("fails when it runs: %s" % str(error).splitlines()[-1])
    if got.shape != expected.shape:
        return "shape %s, expected %s" % (got.shape, expected.shape)
    if not np.array_equal(got, expected):
        wrong = np.argwhere(got != expected)
        first = tuple(int(i) for i in wrong[0])
        return "%d of %d elements wrong, first at %s: %r, expected %r" % (
            len(wrong), expected.size, first, got[first], expected[first])
    return None


class RunError(Exception):
    """A kernel that failed when it ran: on a GPU the context may be lost,
    so the fuzzer stops there."""


def fuzz(seed, count, target="cpu", use_torch=False, spaces=SPACES,
         max_rank=5, budget=None, out=sys.stdout, verbose=False, first=0):
    """Runs `count` cases from `seed` (stopping after `budget` seconds);
    returns [(case description, reason)] of the failures and the number
    of cases run."""
    rng = np.random.default_rng(seed)
    failures, ran, begin = [], 0, time.time()
    for i in range(count):
        if budget is not None and time.time() - begin > budget:
            break
        case = Case(rng, i, spaces=spaces, max_rank=max_rank)
        if i < first:
            case.inputs(rng)  # the same draws as when it runs
            continue
        if verbose:
            print("run %s" % case.describe(), file=out, flush=True)
        try:
            reason = run_case(case, rng, target, use_torch)
        except RunError as error:
            failures.append((case.describe(), str(error)))
            print("FAIL %s: %s (stopping)" % (case.describe(), error),
                  file=out, flush=True)
            return failures, ran + 1
        ran += 1
        if reason is not None:
            failures.append((case.describe(), reason))
            print("FAIL %s: %s" % (case.describe(), reason), file=out,
                  flush=True)
    return failures, ran


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--torch", action="store_true",
                        help="pass torch CUDA tensors (GPU targets)")
    parser.add_argument("--budget", type=float, default=None,
                        help="stop after this many seconds")
    parser.add_argument("--spaces", default=",".join(SPACES))
    parser.add_argument("--verbose", action="store_true",
                        help="print each case before it runs")
    parser.add_argument("--first", type=int, default=0,
                        help="run only cases from this index on")
    args = parser.parse_args()
    failures, ran = fuzz(args.seed, args.count, args.target, args.torch,
                         spaces=args.spaces.split(","), budget=args.budget,
                         verbose=args.verbose, first=args.first)
    print("copy_fuzz seed %d target %s: %d cases, %d failed"
          % (args.seed, args.target, ran, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
