"""TileLang's per-thread random numbers: ``T.rng_init(seed, seq, off)``,
``T.rng_rand()``, ``T.rng_rand_float(bit=32|64, dist="uniform"|"normal")``.

The generator is Philox4x32-10 (Salmon et al., "Parallel random numbers:
as easy as 1, 2, 3", SC'11) driven as cuRAND drives its Philox state, so
that the integers a thread draws are cuRAND's ``curand()`` sequence for
``curand_init(seed, seq, off)``: the key is the seed's two 32-bit halves,
the counter's upper half the sequence number, its lower half off / 4, and
each block of four outputs is used from position off % 4 on. Uniform
floats are ``x * 2^-32 + 2^-33`` (in (0, 1]), uniform doubles take two
draws (``(x ^ y << 21) * 2^-53 + 2^-54``), normals are Box-Muller pairs
(the second of a pair is kept for the next call, as cuRAND keeps it); a
normal double uses four draws. TileLang's other generators (XORWOW,
MRG32k3a) are served by the same Philox generator, with a one-time warning:
their streams differ from cuRAND's, not their distributions.

The state lives in per-thread local tiles of the kernel, made by
``T.rng_init`` (which every thread runs before drawing)."""

import builtins
import math
import warnings

from . import language as L

_GENERATORS = ("curandStatePhilox4_32_10_t", "curandStateXORWOW_t",
               "curandStateMRG32k3a_t")
_MULTIPLIERS = (0xD2511F53, 0xCD9E8D57)
_WEYL = (0x9E3779B9, 0xBB67AE85)
_warned = set()

# Positions in the uint32 state tile: counter (4), key (2), the current
# block of outputs (4), the next output's position in it, whether a normal
# float / double of a Box-Muller pair is pending.
_CTR, _KEY, _OUT, _INDEX, _PENDING, _PENDING_DOUBLE = 0, 4, 6, 10, 11, 12
_STATE_WORDS = 13


class _State:
    def __init__(self, kernel, words, extra, extra_double):
        self.kernel = kernel
        self.words = words
        self.extra = extra
        self.extra_double = extra_double


def _u64(value, what):
    """`value` (a Python int or a traced integer) as a uint64 Expr."""
    if isinstance(value, builtins.bool) or isinstance(value, float):
        raise L.TileLangError("%s is an integer, got %r" % (what, value))
    if isinstance(value, int):
        return L._constant(value & 0xFFFFFFFFFFFFFFFF, "ui64")
    value = L._as_expr(value)
    if L._is_float(value.type):
        raise L.TileLangError("%s is an integer, got a %s value" % (what, value.type))
    if value.type == "index":
        value = L._convert(value, "i64")
    return L._convert(value, "ui64")


def _halves(value):
    """(low, high) uint32 halves of a uint64 Expr."""
    return (L._convert(value, "ui32"),
            L._convert(L._binary("shr", value, L._constant(32, "ui64")), "ui32"))


def _mulhilo(a, b):
    """(high, low) 32-bit halves of the 64-bit product a * b (uint32)."""
    wide = L._binary("mul", L._convert(a, "ui64"), L._convert(b, "ui64"))
    return _halves(wide)[1], L._convert(wide, "ui32")


def _philox(ctr, key):
    """Philox4x32-10 of the counter (4 uint32 Exprs) under the key (2)."""
    ctr, key = list(ctr), list(key)
    m0, m1 = (L._constant(m, "ui32") for m in _MULTIPLIERS)
    w0, w1 = (L._constant(w, "ui32") for w in _WEYL)
    for round_ in range(10):
        if round_:
            key = [L._binary("add", key[0], w0), L._binary("add", key[1], w1)]
        hi0, lo0 = _mulhilo(m0, ctr[0])
        hi1, lo1 = _mulhilo(m1, ctr[2])
        ctr = [L._binary("xor", L._binary("xor", hi1, ctr[1]), key[0]), lo1,
               L._binary("xor", L._binary("xor", hi0, ctr[3]), key[1]), lo0]
    return ctr


def _state(what):
    builder = L._builder()
    state = getattr(builder, "rng", None)
    if state is None or state.kernel is not builder.kernel:
        raise L.TileLangError("%s draws from the generator T.rng_init made in "
                              "this kernel; call T.rng_init(seed, ...) first" % what)
    return state


def rng_init(seed, seq=None, off=0, generator="curandStatePhilox4_32_10_t"):
    """Seeds this thread's generator: `seed` (64 bits), the subsequence
    `seq` (default: the thread's global index, tx + bx * threads) and the
    offset `off` into it, as cuRAND's curand_init(seed, seq, off)."""
    kernel = L._current_kernel("T.rng_init")
    if generator not in _GENERATORS:
        raise L.TileLangError("T.rng_init: generator is one of %s, got %r"
                              % (", ".join(_GENERATORS), generator))
    if generator != _GENERATORS[0] and generator not in _warned:
        _warned.add(generator)
        warnings.warn("T.rng_init(generator=%r): this package draws from a "
                      "Philox4x32-10 generator for every generator name (cuRAND's "
                      "Philox sequence); the numbers differ from cuRAND's %s "
                      "stream, not in distribution" % (generator, generator[10:-2]),
                      RuntimeWarning, stacklevel=2)
    builder = L._builder()
    if seq is None:
        seq = L._binary("add", L.get_thread_binding(),
                        L._binary("mul", L.get_block_binding(),
                                  L._as_expr(L.get_thread_extent(), "index")))
    seed, seq, off = (_u64(seed, "the seed"), _u64(seq, "the sequence number"),
                      _u64(off, "the offset"))
    state = getattr(builder, "rng", None)
    if state is None or state.kernel is not builder.kernel:
        state = _State(builder.kernel,
                       L.alloc_local((_STATE_WORDS,), "uint32"),
                       L.alloc_local((1,), "float32"),
                       L.alloc_local((1,), "float64"))
        builder.rng = state
    words = state.words
    key = _halves(seed)
    step = L._binary("shr", off, L._constant(2, "ui64"))
    ctr = _halves(step) + _halves(seq)
    for i, value in enumerate(ctr):
        words[_CTR + i] = value
    for i, value in enumerate(key):
        words[_KEY + i] = value
    for i, value in enumerate(_philox(ctr, key)):
        words[_OUT + i] = value
    words[_INDEX] = L._convert(L._binary("and", off, L._constant(3, "ui64")), "ui32")
    words[_PENDING] = L._constant(0, "ui32")
    words[_PENDING_DOUBLE] = L._constant(0, "ui32")


def rng_rand():
    """The next 32-bit unsigned integer of this thread's generator."""
    words = _state("T.rng_rand").words
    index = words[_INDEX]
    out = [words[_OUT + i] for i in range(4)]
    value = out[3]
    for i in (2, 1, 0):
        value = L.if_then_else(L._compare("eq", index, L._constant(i, "ui32")), out[i], value)
    value = L._convert(L._as_expr(value), "ui32")  # loaded before the refill
    following = L._binary("add", index, L._constant(1, "ui32"))
    words[_INDEX] = following
    with L.If(L._compare("eq", following, L._constant(4, "ui32"))):
        # The next counter (128-bit increment) and its block of outputs.
        one, zero = L._constant(1, "ui32"), L._constant(0, "ui32")
        ctr, carry = [], one
        for i in range(4):
            word = L._binary("add", words[_CTR + i], carry)
            ctr.append(word)
            carry = L._convert(L._binary("and", L._convert(L._compare("eq", carry, one), "ui32"),
                                         L._convert(L._compare("eq", word, zero), "ui32")), "ui32")
        key = [words[_KEY], words[_KEY + 1]]
        for i, word in enumerate(ctr):
            words[_CTR + i] = word
        for i, word in enumerate(_philox(ctr, [L._as_expr(k) for k in key])):
            words[_OUT + i] = word
        words[_INDEX] = zero
    return value


_INV32 = 2.0 ** -32
_INV53 = 2.0 ** -53


def _uniform32(x):
    return L._binary("add", L._binary("mul", L._convert(x, "f32"),
                                      L._constant(_INV32, "f32")),
                     L._constant(_INV32 / 2, "f32"))


def _uniform64(x, y, scale=_INV53, bias=_INV53 / 2):
    z = L._binary("xor", L._convert(x, "ui64"),
                  L._binary("shl", L._convert(y, "ui64"), L._constant(21, "ui64")))
    return L._binary("add", L._binary("mul", L._convert(z, "f64"),
                                      L._constant(scale, "f64")),
                     L._constant(bias, "f64"))


def rng_rand_float(bit=32, dist="uniform"):
    """A float32 (`bit` 32) or float64 (64) of this thread's generator,
    uniform in (0, 1] or standard normal (`dist`)."""
    if bit not in (32, 64):
        raise L.TileLangError("T.rng_rand_float: bit is 32 or 64, got %r" % (bit,))
    if dist not in ("uniform", "normal"):
        raise L.TileLangError("T.rng_rand_float: dist is 'uniform' or 'normal', "
                              "got %r" % (dist,))
    state = _state("T.rng_rand_float")
    if dist == "uniform":
        if bit == 32:
            return _uniform32(L._as_expr(rng_rand()))
        x = L._as_expr(rng_rand())
        return _uniform64(x, L._as_expr(rng_rand()))
    words = state.words
    slot = _PENDING if bit == 32 else _PENDING_DOUBLE
    extra = state.extra if bit == 32 else state.extra_double
    type_ = "f32" if bit == 32 else "f64"
    result = L.alloc_local((1,), "float32" if bit == 32 else "float64")
    pending = L._convert(L._as_expr(words[slot]), "ui32")
    with L.If(L._compare("eq", pending, L._constant(0, "ui32"))):
        if bit == 32:
            u = _uniform32(L._as_expr(rng_rand()))
            v = L._binary("add", L._binary(
                "mul", L._convert(L._as_expr(rng_rand()), "f32"),
                L._constant(_INV32 * 2 * math.pi, "f32")),
                L._constant(_INV32 * math.pi, "f32"))
        else:
            draws = [L._as_expr(rng_rand()) for _ in range(4)]
            u = _uniform64(draws[0], draws[1])
            # An angle in (0, 2]: sin/cos of pi times it.
            v = L._binary("mul", _uniform64(draws[2], draws[3], 2 * _INV53, _INV53),
                          L._constant(math.pi, "f64"))
        radius = L.sqrt(L._binary("mul", L._constant(-2.0, type_), L.log(u)))
        result[0] = L._binary("mul", L.sin(v), radius)
        extra[0] = L._binary("mul", L.cos(v), radius)
        words[slot] = L._constant(1, "ui32")
    with L.If(L._compare("ne", pending, L._constant(0, "ui32"))):
        result[0] = extra[0]
        words[slot] = L._constant(0, "ui32")
    return L._convert(L._as_expr(result[0]), type_)
