"""Programs written in TileLang's language for the differential test
(test_differential.py): each one is built twice, once with real TileLang's
`T` and once with this package's, from the same Python source, and both
kernels run on the same inputs on a CUDA GPU.

A program is a function `build(T)` returning the prim_func, registered with
@program(out_idx, inputs, reference, tol). `inputs(torch, g)` draws fresh
inputs with the generator `g`; `reference(torch, *inputs)` computes the
expected outputs with torch alone (no code shared with either compiler).
Between them the programs cover the constructs of TileLang's language:
Python `if`/`elif`/`else`, ternaries and `while` on device values, loops
over `range`/`T.serial`/`T.unroll`/`T.vectorized`/`T.Parallel`/
`T.Pipelined`, `T.alloc_var` assignment and augmented assignment, `T.macro`,
copies of regions (BSHD and BHSD), GEMMs of every transpose and dtype,
reductions, cumsum, atomics, casts, promotion, integer division, scalar
parameters, dynamic sizes and swizzled rasterization.
"""

PROGRAMS = {}


def program(out_idx, inputs, reference, tol=(1e-5, 1e-5), mismatch=0.0):
    """Registers `build` under its name."""
    def register(build):
        PROGRAMS[build.__name__] = dict(build=build, out_idx=out_idx,
                                        inputs=inputs, reference=reference,
                                        tol=tol, mismatch=mismatch)
        return build
    return register


def _randn(torch, g, *shape, dtype="float32", scale=1.0):
    return (torch.randn(*shape, generator=g, device="cuda") * scale).to(
        getattr(torch, dtype))


# --- elementwise, control flow ---------------------------------------------

N_EDGE = 1000


@program([2], lambda torch, g: [_randn(torch, g, N_EDGE), _randn(torch, g, N_EDGE)],
         lambda torch, a, b: a * 2.0 + b)
def elementwise_edge_guard(T):
    N = N_EDGE

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"),
             C: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:
            for i in T.Parallel(128):
                idx = bx * 128 + i
                if idx < N:
                    C[idx] = A[idx] * 2.0 + B[idx]
    return main


def _piecewise_ref(torch, x):
    return torch.where(x < -1.0, torch.full_like(x, -1.0),
                       torch.where(x < 1.0, x * x, 2.0 * x - 1.0))


@program([1], lambda torch, g: [_randn(torch, g, 64, 96, scale=2.0)], _piecewise_ref)
def if_elif_else_in_parallel(T):
    M, N = 64, 96

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(M // 32, threads=128) as bx:
            for i, j in T.Parallel(32, N):
                x = X[bx * 32 + i, j]
                if x < -1.0:
                    Y[bx * 32 + i, j] = -1.0
                elif x < 1.0:
                    Y[bx * 32 + i, j] = x * x
                else:
                    Y[bx * 32 + i, j] = 2.0 * x - 1.0
    return main


@program([1], lambda torch, g: [_randn(torch, g, 128, 64)],
         lambda torch, x: torch.where(x > 0, x, x * 0.125))
def ternary_leaky_relu(T):
    M, N = 128, 64

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(M // 64, threads=128) as bx:
            tile = T.alloc_fragment((64, N), "float32")
            T.copy(X[bx * 64, 0], tile)
            for i, j in T.Parallel(64, N):
                tile[i, j] = tile[i, j] if tile[i, j] > 0 else tile[i, j] * 0.125
            T.copy(tile, Y[bx * 64, 0])
    return main


@program([1], lambda torch, g: [torch.where(_randn(torch, g, 64, 64) > 0, 1.0, -1.0).to(torch.float32)
                               * torch.rand(64, 64, generator=g, device="cuda")],
         lambda torch, x: torch.where(x > 0, torch.sqrt(x.abs()), -x))
def if_then_else_intrinsic(T):
    N = 64

    @T.prim_func
    def main(X: T.Tensor((N, N), "float32"), Y: T.Tensor((N, N), "float32")):
        with T.Kernel(1, threads=128):
            for i, j in T.Parallel(N, N):
                Y[i, j] = T.if_then_else(X[i, j] > 0, T.sqrt(T.abs(X[i, j])), -X[i, j])
    return main


def _collatz_ref(torch, a):
    out = []
    for v in a.tolist():
        n = 0
        while v > 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            n += 1
        out.append(n)
    return torch.tensor(out, dtype=torch.int32, device="cuda")


@program([1], lambda torch, g: [torch.randint(1, 200, (48,), generator=g, device="cuda", dtype=torch.int32)],
         _collatz_ref, tol=(0, 0))
def while_on_alloc_var(T):
    N = 48

    @T.prim_func
    def main(A: T.Tensor((N,), "int32"), B: T.Tensor((N,), "int32")):
        with T.Kernel(N, threads=32) as bx:
            x = T.alloc_var("int32")
            steps = T.alloc_var("int32")
            x = A[bx]
            steps = 0
            while x > 1:
                if x % 2 == 0:
                    x = x // 2
                else:
                    x = 3 * x + 1
                steps += 1
            B[bx] = steps
    return main


@program([2], lambda torch, g: [_randn(torch, g, 16, 256), torch.tensor([100], dtype=torch.int32, device="cuda")],
         lambda torch, a, n: a[:, :100].sum(dim=1, keepdim=True), tol=(1e-4, 1e-4))
def serial_loop_dynamic_bound(T):
    M, K = 16, 256

    @T.prim_func
    def main(A: T.Tensor((M, K), "float32"), Nk: T.Tensor((1,), "int32"),
             S: T.Tensor((M, 1), "float32")):
        with T.Kernel(M, threads=32) as bx:
            acc = T.alloc_var("float32")
            acc = 0.0
            for k in T.serial(Nk[0]):
                acc += A[bx, k]
            S[bx, 0] = acc
    return main


@program([1], lambda torch, g: [_randn(torch, g, 32, 64)],
         lambda torch, a: a * 3.0 + 1.0)
def unroll_and_vectorized(T):
    M, N = 32, 64

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(M, threads=32) as bx:
            for jo in T.unroll(N // 8):
                for ji in T.vectorized(8):
                    B[bx, jo * 8 + ji] = A[bx, jo * 8 + ji] * 3.0 + 1.0
    return main


@program([1], lambda torch, g: [_randn(torch, g, 64, 64)],
         lambda torch, a: torch.clamp(a * a - 0.5, min=-0.25, max=1.0))
def macro_helper(T):
    N = 64

    @T.macro
    def square_minus(buf, c):
        for i, j in T.Parallel(N, N):
            buf[i, j] = buf[i, j] * buf[i, j] - c

    @T.prim_func
    def main(A: T.Tensor((N, N), "float32"), B: T.Tensor((N, N), "float32")):
        with T.Kernel(1, threads=128):
            tile = T.alloc_fragment((N, N), "float32")
            T.copy(A, tile)
            square_minus(tile, 0.5)
            for i, j in T.Parallel(N, N):
                tile[i, j] = T.clamp(tile[i, j], -0.25, 1.0)
            T.copy(tile, B)
    return main


@program([1], lambda torch, g: [torch.randint(-50, 50, (256,), generator=g, device="cuda", dtype=torch.int32)],
         lambda torch, a: torch.stack([torch.div(a, 7, rounding_mode="floor"),
                                       a - 7 * torch.div(a, 7, rounding_mode="floor")], dim=1).to(torch.int32),
         tol=(0, 0))
def integer_floordiv_floormod(T):
    N = 256

    @T.prim_func
    def main(A: T.Tensor((N,), "int32"), B: T.Tensor((N, 2), "int32")):
        with T.Kernel(1, threads=128):
            for i in T.Parallel(N):
                B[i, 0] = A[i] // 7
                B[i, 1] = A[i] % 7
    return main


@program([1], lambda torch, g: [_randn(torch, g, 64, 64, scale=10.0)],
         lambda torch, a: torch.stack([a.to(torch.float16).to(torch.float32),
                                       torch.trunc(a), torch.floor(a), a.abs()], dim=0),
         tol=(1e-6, 1e-6))
def casts_and_math(T):
    N = 64

    @T.prim_func
    def main(A: T.Tensor((N, N), "float32"), B: T.Tensor((4, N, N), "float32")):
        with T.Kernel(1, threads=128):
            for i, j in T.Parallel(N, N):
                B[0, i, j] = T.cast(T.cast(A[i, j], "float16"), "float32")
                B[1, i, j] = T.cast(T.cast(A[i, j], "int32"), "float32")
                B[2, i, j] = T.floor(A[i, j])
                B[3, i, j] = T.abs(A[i, j])
    return main


@program([2], lambda torch, g: [_randn(torch, g, 64, 64), _randn(torch, g, 64, 64, dtype="float16")],
         lambda torch, a, b: (a - b.float()) * 2.0, tol=(1e-6, 1e-6))
def promotion_f32_minus_f16(T):
    N = 64

    @T.prim_func
    def main(A: T.Tensor((N, N), "float32"), B: T.Tensor((N, N), "float16"),
             C: T.Tensor((N, N), "float32")):
        with T.Kernel(1, threads=128):
            for i, j in T.Parallel(N, N):
                C[i, j] = (A[i, j] - B[i, j]) * 2
    return main


@program([1], lambda torch, g: [_randn(torch, g, 96, 80)],
         lambda torch, a: torch.stack([a * 0 + 1.5, a * 0], dim=0))
def fill_and_clear(T):
    M, N = 96, 80

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((2, M, N), "float32")):
        with T.Kernel(1, threads=256):
            f = T.alloc_fragment((M, N), "float32")
            s = T.alloc_shared((M, N), "float32")
            T.copy(A, f)
            T.fill(f, 1.5)
            T.copy(A, s)
            T.clear(s)
            T.copy(f, B[0, :, :])
            T.copy(s, B[1, :, :])
    return main


@program([1], lambda torch, g: [_randn(torch, g, 4, 6, 8)],
         lambda torch, a: a + torch.arange(4, device="cuda").view(4, 1, 1) * 100
         + torch.arange(6, device="cuda").view(1, 6, 1) * 10)
def grid_3d(T):
    @T.prim_func
    def main(A: T.Tensor((4, 6, 8), "float32"), B: T.Tensor((4, 6, 8), "float32")):
        with T.Kernel(2, 6, 4, threads=32) as (bx, by, bz):
            for k in T.Parallel(4):
                B[bz, by, bx * 4 + k] = A[bz, by, bx * 4 + k] + bz * 100 + by * 10
    return main


@program([1], lambda torch, g: [_randn(torch, g, 128, 64)],
         lambda torch, a: a * 2.5 - 1.0)
def scalar_parameters(T):
    M, N = 128, 64

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32"),
             alpha: T.float32, beta: T.float32):
        with T.Kernel(M // 32, threads=128) as bx:
            for i, j in T.Parallel(32, N):
                B[bx * 32 + i, j] = A[bx * 32 + i, j] * alpha + beta
    return main


# --- GEMM ------------------------------------------------------------------

def _gemm_inputs(M, N, K, dtype="float16", trans_A=False, trans_B=False):
    def make(torch, g):
        a = _randn(torch, g, *((K, M) if trans_A else (M, K)), dtype=dtype)
        b = _randn(torch, g, *((N, K) if trans_B else (K, N)), dtype=dtype)
        return [a, b]
    return make


def _gemm_ref(trans_A=False, trans_B=False, out="float32", relu=False):
    def ref(torch, a, b):
        a = a.T if trans_A else a
        b = b.T if trans_B else b
        c = a.double() @ b.double()
        if relu:
            c = torch.relu(c)
        return c.to(getattr(torch, out))
    return ref


def _gemm(T, M, N, K, bM, bN, bK, stages, threads, trans_A=False, trans_B=False,
          in_dtype="float16", out_dtype="float32", accum="float32", relu=False,
          swizzle=0):
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    As_shape = (bK, bM) if trans_A else (bM, bK)
    Bs_shape = (bN, bK) if trans_B else (bK, bN)

    @T.prim_func
    def main(A: T.Tensor(A_shape, in_dtype), B: T.Tensor(B_shape, in_dtype),
             C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, bN), T.ceildiv(M, bM), threads=threads) as (bx, by):
            A_s = T.alloc_shared(As_shape, in_dtype)
            B_s = T.alloc_shared(Bs_shape, in_dtype)
            C_l = T.alloc_fragment((bM, bN), accum)
            if swizzle:
                T.use_swizzle(swizzle)
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bK), num_stages=stages):
                if trans_A:
                    T.copy(A[k * bK, by * bM], A_s)
                else:
                    T.copy(A[by * bM, k * bK], A_s)
                if trans_B:
                    T.copy(B[bx * bN, k * bK], B_s)
                else:
                    T.copy(B[k * bK, bx * bN], B_s)
                T.gemm(A_s, B_s, C_l, trans_A, trans_B)
            if relu:
                for i, j in T.Parallel(bM, bN):
                    C_l[i, j] = T.max(C_l[i, j], 0)
            T.copy(C_l, C[by * bM, bx * bN])
    return main


@program([2], _gemm_inputs(512, 512, 512), _gemm_ref(), tol=(1e-2, 1e-2))
def gemm_quickstart_nn(T):
    return _gemm(T, 512, 512, 512, 128, 128, 32, 3, 128)


@program([2], _gemm_inputs(512, 768, 256, trans_B=True), _gemm_ref(trans_B=True), tol=(1e-2, 1e-2))
def gemm_hopper_tn(T):
    return _gemm(T, 512, 768, 256, 128, 256, 64, 3, 256, trans_B=True)


@program([2], _gemm_inputs(256, 256, 256, trans_A=True), _gemm_ref(trans_A=True), tol=(1e-2, 1e-2))
def gemm_trans_a(T):
    return _gemm(T, 256, 256, 256, 64, 64, 32, 2, 128, trans_A=True)


# f16 accumulation over K = 768 rounds every partial sum: both compilers
# differ from the f32 reference in about 1.5% of the elements at this
# tolerance (a wrong GEMM differs in nearly all of them).
@program([2], _gemm_inputs(512, 1024, 768), _gemm_ref(out="float16"), tol=(1e-2, 1e-2), mismatch=0.03)
def gemm_f16_accumulate(T):
    return _gemm(T, 512, 1024, 768, 128, 128, 32, 0, 128, out_dtype="float16",
                 accum="float16")


@program([2], _gemm_inputs(256, 256, 512, dtype="bfloat16"), _gemm_ref(), tol=(2e-2, 2e-2))
def gemm_bf16(T):
    return _gemm(T, 256, 256, 512, 128, 128, 64, 3, 128, in_dtype="bfloat16")


@program([2], _gemm_inputs(1000, 900, 700), _gemm_ref(), tol=(1e-2, 1e-2))
def gemm_unaligned_edges(T):
    return _gemm(T, 1000, 900, 700, 128, 128, 32, 2, 128)


@program([2], _gemm_inputs(256, 384, 256), _gemm_ref(relu=True), tol=(1e-2, 1e-2))
def gemm_relu_epilogue(T):
    return _gemm(T, 256, 384, 256, 64, 128, 32, 2, 128, relu=True)


@program([2], _gemm_inputs(1024, 1024, 256), _gemm_ref(), tol=(1e-2, 1e-2))
def gemm_swizzled_raster(T):
    return _gemm(T, 1024, 1024, 256, 128, 128, 64, 3, 128, swizzle=4)


@program([2], lambda torch, g: [torch.randint(-4, 4, (256, 256), generator=g, device="cuda", dtype=torch.int8),
                                torch.randint(-4, 4, (256, 256), generator=g, device="cuda", dtype=torch.int8)],
         # float64 products and sums of these small integers are exact
         # (torch has no integer matmul on CUDA).
         lambda torch, a, b: (a.double() @ b.double().T).to(torch.int32), tol=(0, 0))
def gemm_int8(T):
    return _gemm(T, 256, 256, 256, 128, 128, 64, 2, 128, trans_B=True,
                 in_dtype="int8", out_dtype="int32", accum="int32")


# --- reductions, scans, atomics ----------------------------------------------

@program([1], lambda torch, g: [_randn(torch, g, 128, 256)],
         lambda torch, x: torch.softmax(x, dim=1), tol=(1e-5, 1e-5))
def row_softmax(T):
    M, N, bM = 128, 256, 16

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(M // bM, threads=128) as bx:
            x = T.alloc_fragment((bM, N), "float32")
            mx = T.alloc_fragment((bM,), "float32")
            sm = T.alloc_fragment((bM,), "float32")
            T.copy(X[bx * bM, 0], x)
            T.reduce_max(x, mx, dim=1)
            for i, j in T.Parallel(bM, N):
                x[i, j] = T.exp(x[i, j] - mx[i])
            T.reduce_sum(x, sm, dim=1)
            for i, j in T.Parallel(bM, N):
                x[i, j] = x[i, j] / sm[i]
            T.copy(x, Y[bx * bM, 0])
    return main


@program([1], lambda torch, g: [_randn(torch, g, 64, 1024, dtype="float16", scale=4.0)],
         lambda torch, x: torch.softmax(x.float(), dim=1).half(), tol=(1e-3, 1e-3))
def online_softmax_f16(T):
    M, N, bN = 64, 1024, 128
    scale = 1.44269504

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((M, N), "float16")):
        with T.Kernel(M, threads=128) as bx:
            x = T.alloc_fragment((bN,), "float16")
            m = T.alloc_var("float32")
            s = T.alloc_var("float32")
            mt = T.alloc_fragment((1,), "float32")
            st = T.alloc_fragment((1,), "float32")
            e = T.alloc_fragment((bN,), "float32")
            m = -T.infinity("float32")
            s = 0.0
            for k in T.serial(N // bN):
                T.copy(X[bx, k * bN], x)
                for j in T.Parallel(bN):
                    e[j] = x[j]
                T.reduce_max(e, mt, dim=0)
                m_new = T.max(m, mt[0])
                for j in T.Parallel(bN):
                    e[j] = T.exp2((x[j] - m_new) * scale)
                T.reduce_sum(e, st, dim=0)
                s = s * T.exp2((m - m_new) * scale) + st[0]
                m = m_new
            for k in T.serial(N // bN):
                T.copy(X[bx, k * bN], x)
                for j in T.Parallel(bN):
                    x[j] = T.exp2((x[j] - m) * scale) / s
                T.copy(x, Y[bx, k * bN])
    return main


@program([2], lambda torch, g: [_randn(torch, g, 64, 512, dtype="float16"),
                                _randn(torch, g, 512, dtype="float16")],
         lambda torch, x, w: (x.float() * torch.rsqrt((x.float() ** 2).mean(dim=1, keepdim=True) + 1e-6)
                              * w.float()).half(), tol=(2e-3, 2e-3))
def rms_norm(T):
    M, N, bM = 64, 512, 8

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), W: T.Tensor((N,), "float16"),
             Y: T.Tensor((M, N), "float16")):
        with T.Kernel(M // bM, threads=128) as bx:
            x = T.alloc_fragment((bM, N), "float32")
            sq = T.alloc_fragment((bM, N), "float32")
            ss = T.alloc_fragment((bM,), "float32")
            T.copy(X[bx * bM, 0], x)
            for i, j in T.Parallel(bM, N):
                sq[i, j] = x[i, j] * x[i, j]
            T.reduce_sum(sq, ss, dim=1)
            for i in T.Parallel(bM):
                ss[i] = T.rsqrt(ss[i] / N + 1e-6)
            for i, j in T.Parallel(bM, N):
                x[i, j] = x[i, j] * ss[i] * W[j]
            T.copy(x, Y[bx * bM, 0])
    return main


@program([1], lambda torch, g: [_randn(torch, g, 64, 96)],
         lambda torch, a: torch.cat([a.max(dim=1).values, a.min(dim=1).values,
                                     a.abs().sum(dim=1), a.abs().max(dim=1).values,
                                     a.sum(dim=0)[:64]]).view(5, 64), tol=(1e-4, 1e-4))
def reductions_every_kind(T):
    M, N = 64, 96

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), R: T.Tensor((5, 64), "float32")):
        with T.Kernel(1, threads=128):
            a = T.alloc_fragment((M, N), "float32")
            r = T.alloc_fragment((M,), "float32")
            c = T.alloc_fragment((N,), "float32")
            T.copy(A, a)
            T.reduce_max(a, r, dim=1)
            T.copy(r, R[0, :])
            T.reduce_min(a, r, dim=1)
            T.copy(r, R[1, :])
            T.reduce_abssum(a, r, dim=1)
            T.copy(r, R[2, :])
            T.reduce_absmax(a, r, dim=1)
            T.copy(r, R[3, :])
            T.reduce_sum(a, c, dim=0)
            for j in T.Parallel(64):
                R[4, j] = c[j]
    return main


@program([1], lambda torch, g: [_randn(torch, g, 32, 128)],
         lambda torch, a: torch.stack([a.cumsum(dim=1), a.flip(1).cumsum(dim=1).flip(1)]),
         tol=(1e-4, 1e-4))
def cumsum_both_directions(T):
    M, N = 32, 128

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((2, M, N), "float32")):
        with T.Kernel(1, threads=128):
            s = T.alloc_shared((M, N), "float32")
            T.copy(A, s)
            T.cumsum(s, dim=1)
            T.copy(s, B[0, :, :])
            T.copy(A, s)
            T.cumsum(s, dim=1, reverse=True)
            T.copy(s, B[1, :, :])
    return main


@program([1], lambda torch, g: [torch.randint(0, 16, (4096,), generator=g, device="cuda", dtype=torch.int32)],
         lambda torch, a: torch.bincount(a.long(), minlength=16).to(torch.float32), tol=(0, 0))
def atomic_add_histogram(T):
    N = 4096

    @T.prim_func
    def main(A: T.Tensor((N,), "int32"), H: T.Tensor((16,), "float32")):
        with T.Kernel(N // 256, threads=256) as bx:
            for i in T.Parallel(256):
                T.atomic_add(H[A[bx * 256 + i]], 1.0)
    return main


# --- attention: regions of BSHD and BHSD tensors ------------------------------

def _attn_inputs(B, H, S, D, bshd):
    def make(torch, g):
        shape = (B, S, H, D) if bshd else (B, H, S, D)
        return [_randn(torch, g, *shape, dtype="float16") for _ in range(3)]
    return make


def _attn_ref(bshd, causal):
    def ref(torch, q, k, v):
        if bshd:
            q, k, v = (x.transpose(1, 2) for x in (q, k, v))
        s = (q.float() @ k.float().transpose(-1, -2)) / (q.shape[-1] ** 0.5)
        if causal:
            n = s.shape[-1]
            mask = torch.ones(n, n, device="cuda", dtype=torch.bool).tril()
            s = s.masked_fill(~mask, float("-inf"))
        o = torch.softmax(s, dim=-1) @ v.float()
        if bshd:
            o = o.transpose(1, 2)
        return o.half().contiguous()
    return ref


def _flash(T, B, H, S, D, bshd, causal, bM=64, bN=64, threads=128, stages=1):
    shape = (B, S, H, D) if bshd else (B, H, S, D)
    scale = (1.0 / D) ** 0.5 * 1.44269504

    @T.macro
    def load(X, bz, by, start, n, dst):
        if bshd:
            T.copy(X[bz, start:start + n, by, :], dst)
        else:
            T.copy(X[bz, by, start:start + n, :], dst)

    @T.prim_func
    def main(Q: T.Tensor(shape, "float16"), K: T.Tensor(shape, "float16"),
             V: T.Tensor(shape, "float16"), O: T.Tensor(shape, "float16")):
        with T.Kernel(T.ceildiv(S, bM), H, B, threads=threads) as (bx, by, bz):
            Q_s = T.alloc_shared((bM, D), "float16")
            K_s = T.alloc_shared((bN, D), "float16")
            V_s = T.alloc_shared((bN, D), "float16")
            O_s = T.alloc_shared((bM, D), "float16")
            acc_s = T.alloc_fragment((bM, bN), "float32")
            acc_s_cast = T.alloc_fragment((bM, bN), "float16")
            acc_o = T.alloc_fragment((bM, D), "float32")
            m = T.alloc_fragment((bM,), "float32")
            m_prev = T.alloc_fragment((bM,), "float32")
            r = T.alloc_fragment((bM,), "float32")
            l = T.alloc_fragment((bM,), "float32")
            load(Q, bz, by, bx * bM, bM, Q_s)
            T.fill(acc_o, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity("float32"))
            loop = T.ceildiv((bx + 1) * bM, bN) if causal else T.ceildiv(S, bN)
            for k in T.Pipelined(loop, num_stages=stages):
                load(K, bz, by, k * bN, bN, K_s)
                if causal:
                    for i, j in T.Parallel(bM, bN):
                        acc_s[i, j] = T.if_then_else(bx * bM + i >= k * bN + j, 0,
                                                     -T.infinity("float32"))
                else:
                    T.clear(acc_s)
                T.gemm(Q_s, K_s, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                T.copy(m, m_prev)
                T.reduce_max(acc_s, m, dim=1, clear=False)
                for i in T.Parallel(bM):
                    r[i] = T.exp2(m_prev[i] * scale - m[i] * scale)
                for i, j in T.Parallel(bM, D):
                    acc_o[i, j] *= r[i]
                for i, j in T.Parallel(bM, bN):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - m[i] * scale)
                T.copy(acc_s, acc_s_cast)
                load(V, bz, by, k * bN, bN, V_s)
                T.gemm(acc_s_cast, V_s, acc_o, policy=T.GemmWarpPolicy.FullRow)
                T.reduce_sum(acc_s, m_prev, dim=1)
                for i in T.Parallel(bM):
                    l[i] = l[i] * r[i] + m_prev[i]
            for i, j in T.Parallel(bM, D):
                acc_o[i, j] /= l[i]
            T.copy(acc_o, O_s)
            if bshd:
                T.copy(O_s, O[bz, bx * bM:(bx + 1) * bM, by, :])
            else:
                T.copy(O_s, O[bz, by, bx * bM:(bx + 1) * bM, :])
    return main


@program([3], _attn_inputs(2, 4, 256, 64, True), _attn_ref(True, False), tol=(1e-2, 1e-2))
def flash_attention_bshd(T):
    return _flash(T, 2, 4, 256, 64, bshd=True, causal=False)


@program([3], _attn_inputs(2, 4, 256, 64, False), _attn_ref(False, True), tol=(1e-2, 1e-2))
def flash_attention_bhsd_causal(T):
    return _flash(T, 2, 4, 256, 64, bshd=False, causal=True)


@program([3], _attn_inputs(1, 2, 256, 128, True), _attn_ref(True, True), tol=(1e-2, 1e-2))
def flash_attention_bshd_causal_d128(T):
    return _flash(T, 1, 2, 256, 128, bshd=True, causal=True, bM=128, bN=64,
                  threads=256, stages=2)


@program([1], lambda torch, g: [_randn(torch, g, 2, 128, 4, 32, dtype="float16")],
         lambda torch, x: x[:, 32:96, 1, :].float().sum(dim=2).half(), tol=(1e-2, 1e-2))
def copy_sliced_region(T):
    B, S, H, D = 2, 128, 4, 32

    @T.prim_func
    def main(X: T.Tensor((B, S, H, D), "float16"), Y: T.Tensor((B, 64), "float16")):
        with T.Kernel(B, threads=128) as bz:
            t = T.alloc_fragment((64, D), "float32")
            r = T.alloc_fragment((64,), "float32")
            T.copy(X[bz, 32:96, 1, :], t)
            T.reduce_sum(t, r, dim=1)
            T.copy(r, Y[bz, :])
    return main


# --- reducers, thread bindings, bitwise and NaN-aware reductions -----------

@program([1], lambda torch, g: [_randn(torch, g, 32, 300)],
         lambda torch, a: a.sum(dim=1) + 1.5, tol=(1e-4, 1e-4))
def reducer_rows_across_tiles(T):
    M, K, BK = 32, 300, 64

    @T.prim_func
    def main(A: T.Tensor((M, K), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=128):
            acc = T.alloc_reducer((M,), "float32", op="sum")
            T.reducer_init(acc, 1.5)
            a = T.alloc_fragment((M, BK), "float32")
            for k in T.serial(T.ceildiv(K, BK)):
                T.copy(A[0, k * BK], a)
                for i, j in T.Parallel(M, BK):
                    T.reducer_update(acc[i], a[i, j])
            out = T.alloc_fragment((M,), "float32")
            T.finalize_reducer(acc, out)
            T.copy(out, B)
    return main


@program([1], lambda torch, g: [_randn(torch, g, 8)],
         lambda torch, a: torch.stack([a.max(), a.sum()]), tol=(1e-5, 1e-5))
def reducer_scalar_thread_zero_writes(T):
    @T.prim_func
    def main(A: T.Tensor((8,), "float32"), B: T.Tensor((2,), "float32")):
        with T.Kernel(1, threads=128):
            src = T.alloc_fragment((8,), "float32")
            T.copy(A, src)
            mx = T.alloc_reducer((1,), "float32", op="max")
            sm = T.alloc_reducer((1,), "float32", op="sum")
            T.reducer_init(mx)
            T.reducer_init(sm)
            for i in T.Parallel(8):
                T.reducer_update(mx[0], src[i])
                T.reducer_update(sm[0], src[i])
            r_max = T.alloc_fragment((1,), "float32")
            r_sum = T.alloc_fragment((1,), "float32")
            T.finalize_reducer(mx, r_max)
            T.finalize_reducer(sm, r_sum)
            if T.get_thread_binding() == 0:
                B[0] = r_max[0]
                B[1] = r_sum[0]
    return main


@program([1], lambda torch, g: [_randn(torch, g, 4, 32)],
         lambda torch, a: a * 2.0 + torch.arange(32, device="cuda")[None, :]
         + 100.0 * torch.arange(4, device="cuda")[:, None])
def thread_bindings_2d(T):
    @T.prim_func
    def main(A: T.Tensor((4, 32), "float32"), B: T.Tensor((4, 32), "float32")):
        with T.Kernel(1, threads=(32, 4)):
            tx = T.get_thread_binding(0)
            ty = T.get_thread_binding(1)
            B[ty, tx] = A[ty, tx] * 2.0 + tx + ty * 100
    return main


def _bitwise_ref(torch, a, f):
    xor, andr = a[:, 0].clone(), a[:, 0].clone()
    for j in range(1, a.shape[1]):
        xor ^= a[:, j]
        andr &= a[:, j]
    return torch.stack([xor, andr]), f.nan_to_num(nan=-float("inf")).max(dim=1).values


def _bitwise_inputs(torch, g):
    f = _randn(torch, g, 16, 64)
    f[3, 7] = float("nan")  # TileLang's max ignores NaN unless asked
    return [torch.randint(0, 2**31 - 1, (16, 64), generator=g, device="cuda",
                          dtype=torch.int32), f]


@program([2, 3], _bitwise_inputs, _bitwise_ref, tol=(0, 0))
def bitwise_and_max_reductions(T):
    @T.prim_func
    def main(A: T.Tensor((16, 64), "int32"), F: T.Tensor((16, 64), "float32"),
             O: T.Tensor((2, 16), "int32"), M: T.Tensor((16,), "float32")):
        with T.Kernel(1, threads=128):
            a = T.alloc_fragment((16, 64), "int32")
            f = T.alloc_fragment((16, 64), "float32")
            r = T.alloc_fragment((16,), "int32")
            m = T.alloc_fragment((16,), "float32")
            T.copy(A, a)
            T.copy(F, f)
            T.reduce_bitxor(a, r, dim=1)
            T.copy(r, O[0, 0:16])
            T.reduce_bitand(a, r, dim=1)
            T.copy(r, O[1, 0:16])
            T.reduce_max(f, m, dim=1)
            T.copy(m, M)
    return main


@program([1, 2], lambda torch, g: [_randn(torch, g, 64)],
         lambda torch, x: (torch.stack([x[:32].sum(), x[32:].sum()]).repeat_interleave(32)
                           + torch.stack([x[:32].max(), x[32:].max()]).repeat_interleave(32),
                           torch.tensor([1] * 32 + [2] * 32 + [0x55555555] * 32,
                                        device="cuda", dtype=torch.int32)),
         tol=(1e-5, 1e-5))
def warp_reductions_and_votes(T):
    @T.prim_func
    def main(X: T.Tensor((64,), "float32"), Y: T.Tensor((64,), "float32"),
             V: T.Tensor((96,), "int32")):
        with T.Kernel(1, threads=64):
            tx = T.get_thread_binding()
            v = T.alloc_local((1,), "float32")
            v[0] = X[tx]
            Y[tx] = T.warp_reduce_sum(v[0]) + T.warp_reduce_max(v[0])
            if tx < 32:
                V[tx] = T.any_sync(tx == 5)
                V[32 + tx] = T.all_sync(tx < 32) * 2
                V[64 + tx] = T.cast(T.ballot(tx % 2 == 0), "int32")
    return main


@program([1], lambda torch, g: [_randn(torch, g, 512)],
         lambda torch, a: torch.cat([a[:200] - 1.0, torch.zeros_like(a[200:])]))
def parallel_run_time_extent(T):
    @T.prim_func
    def main(A: T.Tensor((512,), "float32"), B: T.Tensor((512,), "float32"),
             valid_len: T.int32):
        with T.Kernel(1, threads=256):
            for i in T.Parallel(512):
                B[i] = 0.0
            for i in T.Parallel(T.min(valid_len, 512)):
                B[i] = A[i] - 1.0
    return main


def _masked(T, kind, M=512, N=256, bM=128, bN=128):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bN), T.ceildiv(M, bM), threads=256) as (bx, by):
            A_shared = T.alloc_shared((bM, bN), "float16")
            tx = T.get_thread_binding(0)
            if kind == "parallel":
                if tx < 128:  # the tile op runs on the first 128 threads
                    for i, k in T.Parallel(bM, bN):
                        A_shared[i, k] = A[by * bM + i, bx * bN + k] * 2.0
            else:
                if tx >= 128 and tx < 256:
                    T.copy(A[by * bM, bx * bN], A_shared)
            T.copy(A_shared, B[by * bM, bx * bN])
    return main


@program([1], lambda torch, g: [_randn(torch, g, 512, 256, dtype="float16")],
         lambda torch, a: a * 2.0)
def thread_range_parallel(T):
    return _masked(T, "parallel")


@program([1], lambda torch, g: [_randn(torch, g, 512, 256, dtype="float16")],
         lambda torch, a: a)
def thread_range_copy_upper_half(T):
    return _masked(T, "copy")


@program([1, 2], lambda torch, g: [_randn(torch, g, 16, 64)],
         lambda torch, a: (a.reshape(64, 16) + 1.0,
                           (a.reshape(16, 4, 16).abs().amax(dim=2))),
         tol=(1e-6, 1e-6))
def reshape_views(T):
    @T.prim_func
    def main(A: T.Tensor((16, 64), "float32"), B: T.Tensor((64, 16), "float32"),
             C: T.Tensor((16, 4), "float32")):
        with T.Kernel(1, threads=128):
            s = T.alloc_shared((16, 64), "float32")
            f = T.alloc_fragment((16, 64), "float32")
            T.copy(A, s)
            T.copy(A, f)
            flat = T.reshape(s, [1024])
            for i in T.Parallel(1024):
                flat[i] = flat[i] + 1.0
            T.copy(T.reshape(s, [64, 16]), B)
            groups = T.alloc_fragment((16, 4), "float32")
            T.reduce_absmax(T.reshape(f, [16, 4, 16]), groups, dim=2)
            T.copy(groups, C)
    return main


# --- pointer tables, optional tensors, programmatic dependent launch -------

G_TABLE, N_TABLE = 6, 700


def _table_inputs(torch, g):
    """The rows of `srcs` in a random order, by address (srcs stays alive
    in the inputs; the kernel reads it only through the table)."""
    srcs = _randn(torch, g, G_TABLE, N_TABLE)
    order = torch.randperm(G_TABLE, generator=g, device="cuda")
    ptrs = torch.tensor([srcs.data_ptr() + int(k) * N_TABLE * 4 for k in order],
                        device="cuda", dtype=torch.int64)
    return [srcs, ptrs, order]


@program([3], _table_inputs, lambda torch, srcs, ptrs, order: srcs[order.long()])
def pointer_table_gather(T):
    G, N = G_TABLE, N_TABLE

    @T.prim_func
    def main(srcs: T.Tensor((G, N), "float32"), ptrs: T.Tensor((G,), T.ptr),
             order: T.Tensor((G,), "int64"), out: T.Tensor((G, N), "float32")):
        with T.Kernel(G, threads=128) as bx:
            row = T.make_tensor(ptrs[bx], (N,), "float32")
            for i in T.serial(T.ceildiv(N, 128)):
                for j in T.Parallel(128):
                    if i * 128 + j < N:
                        out[bx, i * 128 + j] = row[i * 128 + j]
    return main


@program([2], lambda torch, g: [_randn(torch, g, 300, 64), None],
         lambda torch, x, bias: x * 3.0)
def optional_tensor_none(T):
    """Traced without its bias, called with None for it."""
    @T.prim_func
    def main(X: T.Tensor((300, 64), "float32"), Bias: T.Tensor((64,), "float32"),
             Y: T.Tensor((300, 64), "float32")):
        with T.Kernel(T.ceildiv(300, 32), threads=128) as bx:
            for i, j in T.Parallel(32, 64):
                if bx * 32 + i < 300:
                    Y[bx * 32 + i, j] = X[bx * 32 + i, j] * 3.0
    return main


@program([1, 2], lambda torch, g: [_randn(torch, g, 5000)],
         lambda torch, a: [a + 1.0, (a + 1.0) * 2.0])
def pdl_chained_kernels(T):
    N = 5000

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"),
             C: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 256), threads=256) as bx:
            for i in T.Parallel(256):
                if bx * 256 + i < N:
                    B[bx * 256 + i] = A[bx * 256 + i] + 1.0
            T.pdl_trigger()
        with T.Kernel(T.ceildiv(N, 256), threads=256) as bx:
            T.pdl_sync()
            for i in T.Parallel(256):
                if bx * 256 + i < N:
                    C[bx * 256 + i] = B[bx * 256 + i] * 2.0
    return main


# --- gathers: pipelined T.Parallel, raw cp.async ------------------------------

N_KV, D_KV, TOPK = 700, 64, 256


def _gather_inputs(torch, g):
    a = _randn(torch, g, 64, TOPK, dtype="float16")
    kv = _randn(torch, g, N_KV, D_KV, dtype="float16")
    idx = torch.randint(0, N_KV, (TOPK,), generator=g, device="cuda",
                        dtype=torch.int32)
    return [a, kv, idx]


@program([3], _gather_inputs,
         lambda torch, a, kv, idx: a.float() @ kv[idx.long()].float(),
         tol=(1e-2, 1e-2))
def pipelined_gather_gemm(T):
    """C = A @ KV[Idx]: rows gathered by index in a T.Parallel of a
    two-stage T.Pipelined loop (sparse attention's key gather)."""
    BI = 32

    @T.prim_func
    def main(A: T.Tensor((64, TOPK), "float16"),
             KV: T.Tensor((N_KV, D_KV), "float16"),
             Idx: T.Tensor((TOPK,), "int32"),
             C: T.Tensor((64, D_KV), "float32")):
        with T.Kernel(1, threads=128):
            A_s = T.alloc_shared((64, BI), "float16")
            K_s = T.alloc_shared((BI, D_KV), "float16")
            acc = T.alloc_fragment((64, D_KV), "float32")
            T.clear(acc)
            for k in T.Pipelined(TOPK // BI, num_stages=2):
                T.copy(A[0, k * BI], A_s)
                for i, d in T.Parallel(BI, D_KV):
                    K_s[i, d] = KV[Idx[k * BI + i], d]
                T.gemm(A_s, K_s, acc)
            T.copy(acc, C)
    return main


def _rows_inputs(torch, g):
    kv = _randn(torch, g, N_KV, D_KV, dtype="float16")
    idx = torch.randint(0, N_KV, (32,), generator=g, device="cuda",
                        dtype=torch.int32)
    return [kv, idx]


@program([2], _rows_inputs, lambda torch, kv, idx: kv[idx.long()])
def producer_cp_async_rows(T):
    """A producer warpgroup gathers rows with T.ptx_cp_async and arrives
    with T.cp_async_barrier_noinc; the consumers wait and copy out."""
    R, V = 32, 8
    per_row = D_KV // V

    @T.prim_func
    def main(KV: T.Tensor((N_KV, D_KV), "float16"),
             Idx: T.Tensor((R,), "int32"),
             O: T.Tensor((R, D_KV), "float16")):
        with T.Kernel(1, threads=256):
            S = T.alloc_shared((R, D_KV), "float16")
            bar = T.alloc_barrier(arrive_count=128)
            tx = T.get_thread_binding()
            if tx >= 128:
                for k in T.serial(R * per_row // 128):
                    v = tx - 128 + k * 128
                    T.ptx_cp_async(
                        T.access_ptr(S[v // per_row, v % per_row * V], "w", V),
                        T.access_ptr(KV[Idx[v // per_row], v % per_row * V],
                                     "r", V), V)
                T.cp_async_barrier_noinc(bar)
            else:
                T.barrier_wait(bar, 0)
                T.copy(S, O)
    return main
