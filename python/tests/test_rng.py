"""T.rng_init / T.rng_rand / T.rng_rand_float (TileLang's per-thread random
numbers): the integers against a numpy Philox4x32-10 written here from its
definition (checked against Random123's known-answer vectors) and driven as
cuRAND's curand_init(seed, seq, off) / curand() drive it; the floats'
formulas and distributions; errors. On the CPU, one thread per block."""

import warnings

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()
MASK = (1 << 32) - 1


def philox(counter, key):
    """Philox4x32-10 of four uint32 counter words under two key words
    (numpy uint64 arithmetic, one row per stream)."""
    u = np.uint64
    c = [np.asarray(w, dtype=u) for w in counter]
    k = [np.asarray(w, dtype=u) for w in key]
    mask, half = u(MASK), u(32)
    for round_ in range(10):
        if round_:
            k = [(k[0] + u(0x9E3779B9)) & mask, (k[1] + u(0xBB67AE85)) & mask]
        p0, p1 = c[0] * u(0xD2511F53), c[2] * u(0xCD9E8D57)
        c = [(p1 >> half) ^ c[1] ^ k[0], p1 & mask, (p0 >> half) ^ c[3] ^ k[1],
             p0 & mask]
    return c


def test_reference_matches_known_answers():
    # Random123's kat_vectors for philox4x32 with 10 rounds.
    cases = [([0, 0, 0, 0], [0, 0], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]),
             ([MASK] * 4, [MASK] * 2, [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]),
             ([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0],
              [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1])]
    for counter, key, expected in cases:
        assert [int(w) for w in philox(counter, key)] == expected


def curand_stream(seed, seq, off, count):
    """The first `count` outputs of curand() after curand_init(seed, seq,
    off): counter (off / 4 in the low 64 bits, seq in the high), key the
    seed's halves, the block's outputs used from position off % 4."""
    step = off // 4
    counter = [step & MASK, step >> 32, seq & MASK, seq >> 32]
    key = [seed & MASK, seed >> 32]
    out, index = [], off % 4
    while len(out) < count:
        block = [int(w) for w in philox(counter, key)]
        out.extend(block[index:])
        index = 0
        value = (counter[0] | counter[1] << 32 | counter[2] << 64 | counter[3] << 96) + 1
        counter = [(value >> (32 * i)) & MASK for i in range(4)]
    return np.array(out[:count], dtype=np.uint32)


@pytest.mark.parametrize("seed, off", [(42, 3), (0x123456789ABCDEF0, 0), (7, 2 ** 34 + 6),
                                       (1, 4 * MASK + 3)])
def test_integers_follow_the_curand_philox_sequence(seed, off):
    """Rows of 23 draws per block (blocks run the subsequences bx + 5), the
    counter's increments carrying across its 32-bit words."""
    blocks, draws = 6, 23

    @T.prim_func
    def main(A: T.Tensor((blocks, draws), "uint32")):
        with T.Kernel(blocks, threads=1) as bx:
            T.rng_init(seed, bx + 5, off)
            for j in T.serial(draws):
                A[bx, j] = T.rng_rand()

    kernel = tilelang.compile(main, target="cpu")
    a = np.full((blocks, draws), 0xDEADBEEF, dtype=np.uint32)
    kernel(a)
    for bx in range(blocks):
        np.testing.assert_array_equal(a[bx], curand_stream(seed, bx + 5, off, draws))


def test_seed_and_sequence_from_kernel_values():
    """A seed given at run time (a scalar parameter) and a sequence number
    computed in the kernel."""
    @T.prim_func
    def main(seed: T.int64, A: T.Tensor((4, 8), "uint32")):
        with T.Kernel(4, threads=1) as bx:
            T.rng_init(seed, bx * 3)
            for j in T.serial(8):
                A[bx, j] = T.rng_rand()

    kernel = tilelang.compile(main, target="cpu")
    seed = int(RNG.integers(0, 2 ** 62))
    a = np.zeros((4, 8), dtype=np.uint32)
    kernel(seed, a)
    for bx in range(4):
        np.testing.assert_array_equal(a[bx], curand_stream(seed, bx * 3, 0, 8))


def test_floats_are_curands_formulas_of_the_draws():
    """Uniform f32: x * 2^-32 + 2^-33; uniform f64: (x ^ y << 21) * 2^-53 +
    2^-54; normals: Box-Muller pairs, the second of a pair returned by the
    next call."""
    n = 16

    @T.prim_func
    def main(U: T.Tensor((n,), "float32"), D: T.Tensor((n,), "float64"),
             N: T.Tensor((n,), "float32")):
        with T.Kernel(1, threads=1):
            T.rng_init(2024, 0, 0)
            for j in T.serial(n):
                U[j] = T.rng_rand_float()
            for j in T.serial(n):
                D[j] = T.rng_rand_float(bit=64)
            for j in T.serial(n):
                N[j] = T.rng_rand_float(dist="normal")

    kernel = tilelang.compile(main, target="cpu")
    u = np.full(n, np.nan, np.float32)
    d = np.full(n, np.nan, np.float64)
    z = np.full(n, np.nan, np.float32)
    kernel(u, d, z)
    x = curand_stream(2024, 0, 0, 4 * n).astype(np.float64)
    np.testing.assert_allclose(u, x[:n] * 2.0 ** -32 + 2.0 ** -33, rtol=1e-6)
    pairs = x[n:3 * n].astype(np.uint64).reshape(n, 2)
    bits = pairs[:, 0] ^ (pairs[:, 1] << np.uint64(21))
    np.testing.assert_allclose(d, bits.astype(np.float64) * 2.0 ** -53 + 2.0 ** -54,
                               rtol=1e-15)
    a, b = x[3 * n::2], x[3 * n + 1::2]
    radius = np.sqrt(-2 * np.log(a * 2.0 ** -32 + 2.0 ** -33))
    angle = b * 2.0 ** -32 * 2 * np.pi + 2.0 ** -32 * np.pi
    expected = np.stack([np.sin(angle) * radius, np.cos(angle) * radius], 1).ravel()
    np.testing.assert_allclose(z, expected, rtol=1e-4, atol=1e-5)


def test_distributions():
    """Many draws: uniform floats in (0, 1] with mean 1/2, normals (f32 and
    f64) with mean 0 and variance 1."""
    blocks, n = 64, 256

    @T.prim_func
    def main(U: T.Tensor((blocks, n), "float32"), N: T.Tensor((blocks, n), "float32"),
             M: T.Tensor((blocks, n), "float64")):
        with T.Kernel(blocks, threads=1) as bx:
            T.rng_init(99, bx)
            for j in T.serial(n):
                U[bx, j] = T.rng_rand_float()
                N[bx, j] = T.rng_rand_float(dist="normal")
                M[bx, j] = T.rng_rand_float(bit=64, dist="normal")

    kernel = tilelang.compile(main, target="cpu")
    u = np.zeros((blocks, n), np.float32)
    z = np.zeros((blocks, n), np.float32)
    w = np.zeros((blocks, n), np.float64)
    kernel(u, z, w)
    assert u.min() > 0 and u.max() <= 1 and abs(u.mean() - 0.5) < 0.01
    for sample in (z, w):
        assert np.isfinite(sample).all()
        assert abs(sample.mean()) < 0.02 and abs(sample.var() - 1) < 0.03


def test_errors_and_other_generators():
    with pytest.raises(T.TileLangError, match="call T.rng_init"):
        @T.prim_func
        def no_init(A: T.Tensor((4,), "uint32")):
            with T.Kernel(1, threads=1):
                A[0] = T.rng_rand()
    with pytest.raises(T.TileLangError, match="generator is one of"):
        @T.prim_func
        def bad(A: T.Tensor((4,), "uint32")):
            with T.Kernel(1, threads=1):
                T.rng_init(1, 0, 0, generator="mt19937")
    with pytest.raises(T.TileLangError, match="bit is 32 or 64"):
        @T.prim_func
        def bits(A: T.Tensor((4,), "float32")):
            with T.Kernel(1, threads=1):
                T.rng_init(1, 0)
                A[0] = T.rng_rand_float(bit=16)
    with pytest.raises(T.TileLangError, match="the seed is an integer"):
        @T.prim_func
        def float_seed(A: T.Tensor((4,), "uint32")):
            with T.Kernel(1, threads=1):
                T.rng_init(1.5, 0)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @T.prim_func
        def xorwow(A: T.Tensor((4,), "uint32")):
            with T.Kernel(1, threads=1):
                T.rng_init(5, 0, 0, generator="curandStateXORWOW_t")
                for j in T.serial(4):
                    A[j] = T.rng_rand()
    assert any("Philox4x32-10" in str(w.message) for w in caught)
    a = np.zeros(4, np.uint32)
    tilelang.compile(xorwow, target="cpu")(a)
    np.testing.assert_array_equal(a, curand_stream(5, 0, 0, 4))
