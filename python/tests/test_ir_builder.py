"""The bindings' IRBuilder: the module a kernel is traced into, built op by
op through MLIR's OperationState builder of the dialects' registered ops
(no IR text formatted and parsed back), at the user's locations; the JIT
takes the built module as it is. Numerical checks against numpy on the
CPU target."""

import threading

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T
from tilelang_mlir import _tilelang

RNG = np.random.default_rng()


def _scale_module(n, factor, name="scale"):
    """A[i] = A[i] * factor for a memref<n x f32>, built by hand."""
    b = _tilelang.IRBuilder(name, ("kernels.py", 1, 1))
    b.add_argument("%A", "memref<%dxf32>" % n, {"tile.name": '"A"'})
    b.create("arith.constant", [], [("%one", "index")], {"value": "1 : index"},
             0, ("kernels.py", 2, 5))
    b.create("arith.constant", [], [("%f", "f32")],
             {"value": "%r : f32" % float(factor)}, 0, ("kernels.py", 3, 5))
    kernel = b.create("tile.kernel", ["%one"], [], {"threads": "array<i64: 32>"},
                      1, ("kernels.py", 4, 5))
    b.open(kernel, 0, [("%bx", "index")], ("kernels.py", 4, 5))
    loop = b.create("tile.parallel", [], [], {"extents": "array<i64: %d>" % n},
                    1, ("kernels.py", 5, 9))
    b.open(loop, 0, [("%i", "index")], ("kernels.py", 5, 9))
    b.create("memref.load", ["%A", "%i"], [("%x", "f32")], {}, 0,
             ("kernels.py", 6, 13))
    b.create("arith.mulf", ["%x", "%f"], [("%y", "f32")], {}, 0,
             ("kernels.py", 6, 13))
    b.create("memref.store", ["%y", "%A", "%i"], [], {}, 0, ("kernels.py", 6, 13))
    b.close("tile.yield", ("kernels.py", 5, 9))
    b.close("tile.yield", ("kernels.py", 4, 5))
    b.create("func.return", [], [], {}, 0, ("kernels.py", 7, 5))
    return b, kernel, loop


def test_a_built_module_runs_without_text():
    b, _, _ = _scale_module(40, 3.0)
    kernel = _tilelang.Kernel(b, "cpu")
    assert [p["name"] for p in kernel.params] == ["A"]
    a = RNG.standard_normal(40).astype(np.float32)
    expected = a * np.float32(3.0)
    kernel.run(a)
    np.testing.assert_array_equal(a, expected)
    # The printed module names arguments and block arguments as the tracer
    # does, and carries the builder's locations.
    text = b.print(True)
    assert "%A: memref<40xf32>" in text and "(%i) in (40)" in text
    assert 'loc("kernels.py":6:13)' in text
    assert "kernels.py" not in b.print(False)


def test_regions_insertion_points_and_erasure():
    b, kernel, loop = _scale_module(8, 2.0)
    assert set(b.defined_in(loop)) == {"%i", "%x", "%y"}
    assert {"%bx", "%i", "%x", "%y"} <= set(b.defined_in(kernel))
    # An op placed before the loop, after it was built.
    b.before(loop)
    b.create("arith.constant", [], [("%early", "f32")],
             {"value": "1.0 : f32"}, 0, None)
    b.restore()
    text = b.print(False)
    assert text.index("1.000000e+00") < text.index("tile.parallel")
    # Erasing the loop frees its names; the module still verifies and runs
    # (it now writes nothing).
    b.erase(loop)
    assert "%x" not in b.defined_in(kernel)
    a = RNG.standard_normal(8).astype(np.float32)
    before = a.copy()
    _tilelang.Kernel(b, "cpu").run(a)
    np.testing.assert_array_equal(a, before)


@pytest.mark.parametrize("make, message", [
    (lambda b: b.create("arith.nosuchop", [], [], {}, 0, None),
     "'arith.nosuchop' is not an op of the 'arith' dialect"),
    (lambda b: b.create("nosuchdialect.op", [], [], {}, 0, None),
     "not an op of the compiler's dialects"),
    (lambda b: b.create("arith.addf", ["%nothing", "%nothing"],
                        [("%r", "f32")], {}, 0, None),
     "no traced value named %nothing"),
    (lambda b: b.create("arith.constant", [], [("%c", "memref<")], {}, 0, None),
     "cannot read the type 'memref<'"),
    (lambda b: b.create("arith.constant", [], [("%c", "f32")],
                        {"value": "1.0 :"}, 0, None),
     "cannot read the attribute '1.0 :'"),
    (lambda b: [b.create("arith.constant", [], [("%c", "f32")],
                         {"value": "1.0 : f32"}, 0, None) for _ in range(2)],
     "the traced value %c is defined twice"),
    (lambda b: b.close("", None), "no open block to close"),
    (lambda b: b.erase(99), "no op with handle 99"),
])
def test_misuse_is_a_clear_error(make, message):
    b = _tilelang.IRBuilder("bad")
    with pytest.raises(_tilelang.IRBuildError) as error:
        make(b)
    assert message in str(error.value)


def test_verifier_errors_point_at_the_builders_locations():
    b = _tilelang.IRBuilder("bad", ("kernels.py", 1, 1))
    b.add_argument("%A", "memref<8xf32>", {"tile.name": '"A"'})
    b.create("arith.constant", [], [("%i", "i32")], {"value": "1 : i32"}, 0,
             ("kernels.py", 2, 3))
    # memref.load takes index operands.
    b.create("memref.load", ["%A", "%i"], [("%x", "f32")], {}, 0,
             ("kernels.py", 9, 7))
    b.create("func.return", [], [], {}, 0, None)
    with pytest.raises(_tilelang.TileError, match=r"kernels.py:9:7: error: .*index"):
        _tilelang.Kernel(b, "cpu")


def test_traced_programs_reach_the_jit_as_built_modules():
    @T.prim_func
    def double(A: T.Tensor((64,), T.float32)):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                A[i] = A[i] * 2.0

    assert isinstance(double.module, _tilelang.IRBuilder)
    kernel = tilelang_mlir.compile(double, target="cpu")
    a = RNG.standard_normal(64).astype(np.float32)
    expected = a * 2
    kernel(a)
    np.testing.assert_array_equal(a, expected)
    # The tile stage is the built module, with the user's locations.
    assert "test_ir_builder.py" in kernel.get_kernel_source("tile")
    assert "scf.for" in kernel.get_kernel_source("loops")


def test_a_layout_that_does_not_parse_is_refused_at_the_users_line():
    with pytest.raises(T.TileLangError,
                       match=r"test_ir_builder.py:\d+: tile.annotate_layout: "
                             r"cannot read the attribute"):
        @T.prim_func
        def main(X: T.Tensor((64, 32), T.float32)):
            with T.Kernel(1, threads=128):
                frag = T.alloc_fragment((64, 32), T.float32)
                T.annotate_layout({frag: T.Layout("#tile.fragment<[64, 32], thread =")})


def test_kernels_of_one_traced_module_compile_concurrently(tmp_path, monkeypatch):
    """Kernels of one PrimFunc share its context: their compiles take turns
    (the context has no locks of its own) and each gives right results."""
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))

    @T.prim_func
    def add(A: T.Tensor((256,), T.float32), B: T.Tensor((256,), T.float32),
            C: T.Tensor((256,), T.float32)):
        with T.Kernel(4, threads=64) as bx:
            for i in T.Parallel(64):
                C[bx * 64 + i] = A[bx * 64 + i] + B[bx * 64 + i]

    kernels = [tilelang_mlir.compile(add, out_idx=-1, target="cpu",
                                     pass_configs={"tl.enable_fast_math": k % 2 == 0})
               for k in range(4)]
    a = RNG.standard_normal(256).astype(np.float32)
    b = RNG.standard_normal(256).astype(np.float32)
    results, errors = [None] * len(kernels), []

    def run(k):
        try:
            results[k] = kernels[k](a, b)
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(kernels))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for result in results:
        np.testing.assert_array_equal(result, a + b)
