"""The ``T.*`` language: TileLang-style kernels traced into tile-dialect IR.

``import tilelang_mlir.language as T``, then write the kernel as in TileLang::

    @T.prim_func
    def gemm_relu(A: T.Tensor((M, K), T.float16), B: T.Tensor((K, N), T.float16),
                  C: T.Tensor((M, N), T.float16)):
        with T.Kernel(T.ceildiv(N, 128), T.ceildiv(M, 128), threads=128) as (bx, by):
            ...

Calling ``T.prim_func`` runs the Python function once with symbolic values:
every ``T.*`` call and every operator on those values creates tile-dialect
(and arith/math/memref/scf) operations in the function's module through the
bindings' IRBuilder (MLIR's builder of the registered ops; no IR text is
formatted and parsed back), each carrying the Python file, line and column
that made it as its location, so that diagnostics of the verifier and of
later passes point at the user's code. The JIT (``tilelang_mlir.jit``)
compiles the built module (``PrimFunc.module``); ``PrimFunc.script()``
prints it.

Python control flow runs at trace time (a Python ``if`` on a Python value
picks what is traced); ``T.Parallel``, ``T.Pipelined`` and ``T.serial``
loops become IR loops, and conditions on traced values use
``T.if_then_else``.
"""

import ast
import builtins
import numbers
import contextlib
import enum
import inspect
import itertools
import linecache
import math
import os
import re
import struct
import sys
import threading

__all__ = [
    "prim_func", "PrimFunc", "Tensor", "Buffer", "Kernel", "symbolic",
    "dynamic", "alloc_shared", "alloc_fragment", "alloc_local", "alloc_var",
    "copy", "gemm", "fill", "clear", "reduce_max", "reduce_min", "reduce_sum",
    "reduce_abssum", "reduce_absmax", "cumsum", "atomic_add", "Parallel",
    "Pipelined", "serial", "ceildiv", "max", "min", "abs", "exp", "exp2",
    "log", "log2", "sqrt", "rsqrt", "if_then_else", "infinity", "cast",
    "use_swizzle", "annotate_layout", "make_swizzled_layout", "Layout",
    "Fragment", "dtype", "macro", "unroll", "vectorized",
    "tanh", "sin", "cos", "floor", "ceil", "round", "pow", "sigmoid", "clamp",
    "float16", "bfloat16", "float32", "float64", "int8",
    "int16", "int32", "int64", "bool", "floordiv", "floormod", "truncdiv",
    "truncmod", "assume", "func_attr", "sync_threads", "const", "empty",
    "make_tensor", "ptr", "StridedTensor", "SharedBuffer", "FragmentBuffer", "LocalBuffer", "reinterpret", "alloc_global", "annotate_safe_value", "half", "double", "long", "short",
    "tfloat32", "float8_e4m3fn", "float8_e4m3", "float8_e5m2",
    "uint8", "uint16", "uint32", "uint64", "int4", "float8_e4m3fnuz",
    "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "float4_e2m1fnx2",
    "alloc_reducer", "reducer_init", "reducer_update", "finalize_reducer",
    "reduce_bitand", "reduce_bitor", "reduce_bitxor", "get_thread_binding",
    "get_thread_bindings", "get_block_binding", "get_block_bindings",
    "get_thread_extent", "get_thread_extents", "get_block_extent",
    "get_block_extents", "shfl_xor", "shfl_down", "shfl_up", "shfl_sync",
    "warp_reduce_sum", "warp_reduce_max", "warp_reduce_min",
    "warp_reduce_bitand", "warp_reduce_bitor", "any_sync", "all_sync",
    "ballot_sync", "ballot", "get_lane_idx", "get_warp_idx",
    "get_warp_idx_sync", "get_warp_group_idx", "shuffle_elect", "parallel",
    "cummax", "cummin", "reshape", "any_of", "all_of", "Select", "Var",
    "disable_warp_group_reg_alloc", "view", "let", "align_up", "transpose",
    "rng_init", "rng_rand", "rng_rand_float", "thread_binding",
    "alloc_barrier", "Barriers", "barrier_arrive", "barrier_wait",
    "mbarrier_arrive", "mbarrier_wait_parity", "tma_copy",
    "tma_store_arrive", "tma_store_wait", "fence_proxy_async", "ws",
    "WarpSpecialize", "set_max_nreg", "inc_max_nreg", "dec_max_nreg",
    "annotate_producer_reg_dealloc", "annotate_consumer_reg_alloc",
    "no_set_max_nreg", "ClusterKernel", "cluster_arrive",
    "cluster_arrive_relaxed", "cluster_wait", "cluster_sync",
    "block_rank_in_cluster", "alloc_cluster_barrier", "access_ptr",
    "AccessPtr", "ptx_cp_async", "cp_async_barrier_noinc", "__ldg",
]

def __getattr__(name):
    # T.float and T.int (TileLang's aliases of float32 and int32) cannot be
    # module globals here: they would hide Python's from this module's code.
    if name in ("float", "int"):
        return dtype(name + "32")
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def macro(fn):
    """``@T.macro``: a helper a prim_func calls, traced where it is called
    (inlined); its Python control flow has TileLang's meaning as in the
    prim_func (frontend.py)."""
    from .frontend import rewrite
    return rewrite(fn)


_MLIR_TYPES = {
    "float16": "f16", "half": "f16", "bfloat16": "bf16", "float32": "f32",
    "float": "f32", "float64": "f64", "double": "f64", "int8": "i8",
    "int16": "i16", "int32": "i32", "int64": "i64", "bool": "i1",
    # tf32 operands are f32 in memory; gemms of them compute at least as
    # precisely as TF32.
    "tfloat32": "f32", "int": "i32", "long": "i64", "short": "i16",
    "float8_e4m3fn": "f8E4M3FN", "float8_e4m3": "f8E4M3FN",
    "float8_e5m2": "f8E5M2",
    # The OCP MX scale factor: 2^(bits - 127), bits 255 NaN; no sign, no
    # zero (conversions as torch's: the magnitude, rounded to nearest).
    "float8_e8m0fnu": "f8E8M0FNU",
    # Unsigned integers: signless in the IR (_ir), their signedness chosen
    # by the tracer's ops (divui, cmpi ult, extui, uitofp, ...) and marked
    # `tile.unsigned` on the entry's arguments.
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    # 4-bit types: in global tensors, two elements per byte (_packed).
    "float4_e2m1fn": "f4E2M1FN", "int4": "i4",
}
_FLOAT_TYPES = ("f16", "bf16", "f32", "f64", "f8E4M3FN", "f8E5M2", "f8E8M0FNU",
                "f4E2M1FN")
_FLOAT_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "f8E4M3FN": 8,
                "f8E5M2": 8, "f8E8M0FNU": 8, "f4E2M1FN": 4}
# The largest finite value of each float type, and TileLang's name of it
# (a literal beyond it is an error, as TileLang's FloatImm makes it).
_FLOAT_MAX = {"f16": (65504.0, "float16"), "bf16": (3.3895313892515355e38, "bfloat16"),
              "f32": (3.4028234663852886e38, "float32"),
              "f8E4M3FN": (448.0, "float8_e4m3fn"), "f8E5M2": (57344.0, "float8_e5m2"),
              "f8E8M0FNU": (2.0 ** 127, "float8_e8m0fnu"),
              "f4E2M1FN": (6.0, "float4_e2m1fn")}
_UNSUPPORTED_TYPES = {
    "float8_e4m3fnuz": "AMD's fnuz 8-bit floats", "float8_e5m2fnuz": "AMD's fnuz 8-bit floats",
    "float4_e2m1fnx2": "pairs of 4-bit floats as one element",
}
_INT_WIDTH = {"i1": 1, "i4": 4, "i8": 8, "i16": 16, "i32": 32, "i64": 64,
              "ui8": 8, "ui16": 16, "ui32": 32, "ui64": 64}
# Types stored two per byte in global tensors: element j of a row is the low
# nibble of byte j // 2 when j is even, the high nibble when odd (TileLang's
# and torch's float4_e2m1fn_x2 order). The kernel's parameter is the byte
# tensor (the last dimension halved), marked `tile.packed`.
_PACKED_TYPES = ("f4E2M1FN", "i4")
_SIGNLESS = {"ui8": "i8", "ui16": "i16", "ui32": "i32", "ui64": "i64"}


def _ir(type_):
    """The IR's type of the tracer's type `type_` (unsigned integers are
    signless there)."""
    return _SIGNLESS.get(type_, type_)


def _is_unsigned(type_):
    return type_ in _SIGNLESS

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_state = threading.local()


class TileLangError(Exception):
    """A kernel that cannot be traced; the message starts with the user's
    file and line."""

    def __init__(self, message, line=None):
        frame = _user_frame()
        if frame is not None:
            message = "%s:%d: %s" % (frame.f_code.co_filename,
                                     line or frame.f_lineno, message)
        super().__init__(message)


class ShapeMismatchError(TileLangError, AssertionError):
    """T.reshape / T.view to a shape that holds a different number of
    elements (or bytes): also an AssertionError, which TileLang raises
    there (its shape check is an assert), so code catching either works."""


class TileLangValueError(TileLangError, ValueError):
    """A value TileLang refuses with a ValueError (a literal its type
    cannot hold), located like every TileLangError."""


def _dtype_name(value):
    """TileLang's name of a dtype given as a name, a torch dtype or a numpy
    dtype."""
    module = type(value).__module__.split(".")[0]
    if module == "torch":
        return str(value).replace("torch.", "")
    if module == "numpy" or isinstance(value, type):
        import numpy as np
        try:
            return np.dtype(value).name
        except TypeError:
            return value
    return value


class ptr:  # noqa: N801 (TileLang's name)
    """``A: T.ptr``: a parameter that is an address, given its shape and
    dtype in the body by ``T.make_tensor(A, shape, dtype)`` (TileLang's
    eager style); the call passes the tensor. As a dtype
    (``T.Tensor([G], T.ptr)``), a table of 64-bit addresses (int64 at the
    call) whose elements ``T.make_tensor`` turns into tensors."""

    def __init__(self, dtype=None):
        self.dtype = dtype


def _mlir_type(dtype):
    if dtype is ptr or isinstance(dtype, ptr):
        return "i64"  # addresses (a pointer table's elements)
    if dtype in _MLIR_TYPES.values():
        return dtype
    try:
        return _MLIR_TYPES[str(_dtype_name(dtype))]
    except (KeyError, TypeError):
        name = _dtype_name(dtype)
        if isinstance(name, str) and name in _UNSUPPORTED_TYPES:
            raise TileLangError("dtype %r: %s are not supported yet"
                                % (name, _UNSUPPORTED_TYPES[name])) from None
        raise TileLangError("unknown dtype %r; expected one of %s"
                            % (dtype, ", ".join(sorted(_MLIR_TYPES)))) from None


_TORCH_NAMES = {"tfloat32": "float32", "float": "float32", "int": "int32",
                "half": "float16", "double": "float64", "long": "int64",
                "short": "int16", "float8_e4m3": "float8_e4m3fn"}


class dtype(str):
    """A dtype by TileLang's name (``T.float16``, ``T.dtype("float16")``,
    ``T.dtype(torch.float16)``), usable wherever a dtype is. Calling it
    makes a constant of the type inside a kernel (``T.float32(0)``) and
    converts a Python number outside; `bits` is its width, `as_torch()` the
    torch dtype."""

    def __new__(cls, name):
        name = _dtype_name(name)
        if not isinstance(name, str):
            raise TileLangError("unknown dtype %r" % (name,))
        if name not in _UNSUPPORTED_TYPES:  # those: an error where used
            _mlir_type(name)
        return super().__new__(cls, name)

    @property
    def bits(self):
        if str(self) in _UNSUPPORTED_TYPES:
            return int(re.search(r"(\d+)", str(self)).group(1))
        type_ = _mlir_type(self)
        return _FLOAT_WIDTH.get(type_) or _INT_WIDTH[type_]

    def as_torch(self):
        """The torch dtype of tensors of this type; for the 4-bit types,
        of their storage (float4_e2m1fn_x2 where torch has it, else int8)."""
        import torch
        if str(self) in ("float4_e2m1fn", "float4_e2m1fnx2"):
            return getattr(torch, "float4_e2m1fn_x2", torch.int8)
        if str(self) == "int4":
            return torch.int8
        return getattr(torch, _TORCH_NAMES.get(str(self), str(self)))

    def __call__(self, value=None):
        type_ = _mlir_type(self)
        if getattr(_state, "builder", None) is None:
            value = 0 if value is None else value
            if type_ == "i1":
                return builtins.bool(value)
            return builtins.float(value) if _is_float(type_) else builtins.int(value)
        if value is None:
            # TileLang's variable of the type, bound later (T.let(v, x)).
            return alloc_var(self)
        if isinstance(value, (Expr, _Var)):
            return cast(value, self)
        return _constant(value, type_)


float16, bfloat16, float32, float64 = (dtype(n) for n in (
    "float16", "bfloat16", "float32", "float64"))
int8, int16, int32, int64 = (dtype(n) for n in ("int8", "int16", "int32", "int64"))
bool = dtype("bool")  # noqa: A001 (TileLang's name)
half, double, long, short = (dtype(n) for n in ("half", "double", "long", "short"))
tfloat32 = dtype("tfloat32")
float8_e4m3fn, float8_e4m3, float8_e5m2 = (dtype(n) for n in (
    "float8_e4m3fn", "float8_e4m3", "float8_e5m2"))
uint8, uint16, uint32, uint64 = (dtype(n) for n in (
    "uint8", "uint16", "uint32", "uint64"))
# 4-bit types: elements of global tensors, packed two per byte.
int4, float4_e2m1fn = dtype("int4"), dtype("float4_e2m1fn")
# TileLang's dtypes this package does not compile yet: names that exist (a
# module may list them) and are a TileLangError saying so where a kernel
# uses them.
(float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu, float4_e2m1fnx2) = (
    dtype(n) for n in ("float8_e4m3fnuz", "float8_e5m2fnuz",
                       "float8_e8m0fnu", "float4_e2m1fnx2"))


def _is_float(type_):
    return type_ in _FLOAT_TYPES


_CONTEXTLIB = os.path.abspath(contextlib.__file__)


def _user_frame():
    """The innermost stack frame outside this package (and outside
    contextlib, whose __enter__ runs the body of `with T.If(...)`)."""
    frame = inspect.currentframe()
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_PACKAGE_DIR) and path != _CONTEXTLIB:
            return frame
        frame = frame.f_back
    return None


def _location():
    """(file, line, column) of the user's code that is being traced: the
    location of the ops it builds."""
    frame = _user_frame()
    if frame is None:
        return None
    column = 1
    try:
        positions = inspect.getframeinfo(frame).positions
        if positions is not None and positions.col_offset is not None:
            column = positions.col_offset + 1
    except AttributeError:  # Python < 3.11
        pass
    return (frame.f_code.co_filename, frame.f_lineno, column)


def _builder():
    builder = getattr(_state, "builder", None)
    if builder is None:
        raise TileLangError("T.* calls must run inside a @T.prim_func")
    return builder


class _Frame:
    """An open region of an op being traced (a kernel, loop or branch
    body): the op's handle, its name, and the terminator its blocks end
    with."""

    def __init__(self, op, name, terminator):
        self.op, self.name, self.terminator = op, name, terminator


class _Builder:
    """The module of one function being traced, built op by op through the
    bindings' IRBuilder (MLIR's OperationState builder of the dialects'
    registered ops; values named by their SSA names here)."""

    def __init__(self, name, loc):
        from ._tilelang import IRBuilder
        self.ir = IRBuilder(name, loc)
        self.count = 0
        self.opened = []  # the open regions (_Frame), outermost first
        self.kernel = None  # the tile.kernel's _Frame while one is open
        self.parallels = []  # the open T.Parallel loops (_ParallelFrame)
        self.reducers = []  # the T.alloc_reducer tiles of the open kernel
        self.dims = {}  # symbolic dimension name -> its index Expr
        self.workspaces = []  # T.alloc_global buffers: (TileBuffer, Tensor)
        self.attrs = {}  # the PrimFunc's attrs (T.annotate_pass_configs, ...)
        # T.annotate_safe_value: global buffer name -> (the kernel it was
        # given in, the value its out-of-bounds element reads give).
        self.safe_values = {}
        self.remaps = {}  # global tensor -> (kernel, forward fn, storage view)

    def fresh(self, hint="v"):
        self.count += 1
        return "%%%s%d" % (hint, self.count)

    def op(self, name, operands=(), results=(), attrs=None, regions=0):
        """Creates op `name` at the insertion point, at the user's line:
        `operands` by SSA name, `results` as (name, type) pairs, `attrs` as
        attribute name -> MLIR attribute text. Returns its handle."""
        from ._tilelang import IRBuildError
        try:
            return self.ir.create(name, list(operands), list(results),
                                  attrs or {}, regions, _location())
        except IRBuildError as error:
            raise TileLangError("%s: %s" % (name, error)) from None

    def value(self, name, operands, type_, attrs=None, hint="v"):
        """The one result (a fresh SSA name) of op `name` of type `type_`."""
        result = self.fresh(hint)
        self.op(name, operands, [(result, type_)], attrs)
        return result

    def argument(self, name, type_, attrs):
        """Appends the function argument `name` (attribute texts `attrs`)."""
        self.ir.add_argument(name, type_, attrs)

    def open(self, name, operands=(), results=(), attrs=None, args=(),
             regions=1, terminator=""):
        """Creates op `name` with `regions` regions and opens a block of its
        first with arguments `args` ((name, type) pairs); `close` ends it
        with `terminator` (unless the body ended in one)."""
        handle = self.op(name, operands, results, attrs, regions)
        frame = _Frame(handle, name, terminator)
        self.ir.open(handle, 0, list(args), _location())
        self.opened.append(frame)
        return frame

    def next_region(self, region, args=()):
        """Ends the open block of the innermost op and opens a block of its
        region `region` (an scf.if's else, an scf.while's body)."""
        frame = self.opened[-1]
        self.ir.close(frame.terminator, _location())
        self.ir.open(frame.op, region, list(args), _location())

    def close(self):
        frame = self.opened.pop()
        self.ir.close(frame.terminator, _location())

    def erase(self, frame):
        """Drops the op of the innermost open region `frame` and what was
        traced into it."""
        assert self.opened[-1] is frame
        self.opened.pop()
        self.ir.restore()
        self.ir.erase(frame.op)

    @contextlib.contextmanager
    def before(self, frame):
        """Traces into the place just before the op of `frame` (an entry of
        `opened`)."""
        self.ir.before(frame.op)
        try:
            yield
        finally:
            self.ir.restore()

    def defined_since(self, frame):
        """The SSA names defined by the op of `frame` and inside it."""
        return set(self.ir.defined_in(frame.op))

    def kernel_level(self):
        """A context tracing into the open kernel's body, before the region
        nested in it that is open now (allocations are block-scoped: they
        stand directly in the kernel), or None when tracing there already."""
        if self.kernel is None:
            return None
        at = self.opened.index(self.kernel)
        if len(self.opened) <= at + 1:
            return None
        return self.before(self.opened[at + 1])


# --------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------

# Bit patterns of the non-finite values of the narrow float types: (width
# in hex digits, sign bit, +inf or None where the type has none, quiet NaN
# or None). float8_e4m3fn has NaN but no infinity, float4_e2m1fn neither.
_NONFINITE_BITS = {"f16": (4, 0x8000, 0x7C00, 0x7E00),
                   "f8E5M2": (2, 0x80, 0x7C, 0x7E),
                   "f8E4M3FN": (2, 0x80, None, 0x7F),
                   "f4E2M1FN": (1, 0x8, None, None)}


def _e8m0_bits(value):
    """The float8_e8m0fnu byte of `value` as torch converts it: the
    exponent of its float32, rounded up where the significand's dropped
    bits are past one half (or exactly one half of a normal number); a NaN
    or an infinity, and a value that rounds past 2^127, is 0xFF (NaN); the
    sign is dropped, and 0 is 2^-127 (byte 0)."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    exponent = (bits >> 23) & 0xFF
    if exponent == 0xFF:
        return 0xFF
    guard, rest = bits & 0x400000, bits & 0x3FFFFF
    if guard and (rest or exponent > 0):
        exponent += 1
    return exponent


def _format_float(value, type_):
    if type_ == "f8E8M0FNU":
        # Its bits (MLIR's literal conversion has no sign to drop).
        if math.isinf(value):
            raise TileLangError("float8_e8m0fnu has no infinity")
        return "0x%02X" % _e8m0_bits(value)
    if math.isfinite(value):
        return "%.17e" % value
    # Infinities and NaN as bit patterns of the type.
    if type_ == "f64":
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if type_ == "f32":
        return "0x%08X" % bits
    if type_ == "bf16":
        return "0x%04X" % (bits >> 16)
    digits, sign_bit, inf, nan = _NONFINITE_BITS[type_]
    pattern = nan if math.isnan(value) else inf
    if pattern is None:
        raise TileLangError("%s has no %s" % (
            _FLOAT_MAX[type_][1], "NaN" if math.isnan(value) else "infinity"))
    sign = sign_bit if bits >> 31 else 0
    return "0x%0*X" % (digits, sign | pattern)


def _constant(value, type_):
    builder = _builder()
    name = builder.fresh("c")
    if _is_float(type_):
        value = float(value)
        limit = _FLOAT_MAX.get(type_)
        if limit and math.isfinite(value) and math.fabs(value) > limit[0]:
            raise TileLangValueError("literal value %r exceeds maximum of %s (%r)"
                                     % (value, limit[1], limit[0]))
        builder.op("arith.constant", (), [(name, type_)],
                   {"value": "%s : %s" % (_format_float(value, type_), type_)})
    else:
        if isinstance(value, float) and not value.is_integer():
            raise TileLangError("%r is not an integer (%s)" % (value, type_))
        if type_ == "i1":
            builder.op("arith.constant", (), [(name, "i1")],
                       {"value": "true" if value else "false"})
        else:
            value = int(value)
            literal = value
            if _is_unsigned(type_):
                bits = _INT_WIDTH[type_]
                if not 0 <= value < 1 << bits:
                    raise TileLangError("%d is out of the range of uint%d "
                                        "(0 to %d)" % (value, bits,
                                                       (1 << bits) - 1))
                # The signless constant of the same bits.
                if value >= 1 << (bits - 1):
                    literal = value - (1 << bits)
            builder.op("arith.constant", (), [(name, _ir(type_))],
                       {"value": "%d : %s" % (literal, _ir(type_))})
            expr = Expr(name, type_)
            expr.lin = (int(value), {})
            return expr
    return Expr(name, type_)


def _as_expr(value, type_=None):
    """`value` as an Expr; Python numbers become constants of `type_` (index
    for integers, f32 for floats when no type is asked for)."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, _Var):
        return value[0]
    if isinstance(value, (int, float)):
        if type_ is None:
            type_ = "f32" if isinstance(value, float) else "index"
        return _constant(value, type_)
    raise TileLangError("cannot use %r (%s) as a value in a kernel"
                        % (value, type(value).__name__))


def _promoted(a, b):
    """The type two operands of types `a` and `b` meet in, by TileLang's
    (TVM's) rules: a float meets an integer (or an index, or a bool) in the
    float; two floats in the wider; an index meets a fixed-width integer in
    that integer; two integers (bools among them) in the wider, a signed
    and an unsigned one of one width in the unsigned. Floats of one width
    but different formats (f16 and bf16) meet in none: None."""
    if a == b:
        return a
    if _is_float(a) and _is_float(b):
        if _FLOAT_WIDTH[a] == _FLOAT_WIDTH[b]:
            return None
        return a if _FLOAT_WIDTH[a] > _FLOAT_WIDTH[b] else b
    if _is_float(a) or _is_float(b):
        return a if _is_float(a) else b
    if "index" in (a, b):
        other = b if a == "index" else a
        return other if other != "i1" else "index"
    if _INT_WIDTH[a] == _INT_WIDTH[b]:
        return a if _is_unsigned(a) else b
    return a if _INT_WIDTH[a] > _INT_WIDTH[b] else b


def _unify(a, b):
    """Both operands as Exprs of one type, promoted as TileLang's
    expressions promote them (_promoted): f32 - f16 is an f32 subtraction,
    an index times an i32 an i32 product. A T.alloc_var is its value."""
    a = a[0] if isinstance(a, _Var) else a
    b = b[0] if isinstance(b, _Var) else b
    if isinstance(a, Expr) and isinstance(b, Expr):
        if a.type != b.type:
            type_ = _promoted(a.type, b.type)
            if type_ is None:
                raise TileLangError("operands of types %s and %s (floats of one "
                                    "width, different formats) meet in neither; "
                                    "use T.cast" % (a.type, b.type))
            a, b = _convert(a, type_), _convert(b, type_)
        return a, b
    if isinstance(a, Expr):
        return _with_literal(a, b)
    b, a = _with_literal(b, a)
    return a, b


def _literal_type(*values):
    """The type TVM gives Python numbers standing alone: bool, int32, or
    float32 where one is a float."""
    if builtins.any(isinstance(v, builtins.float) for v in values):
        return "f32"
    if builtins.all(isinstance(v, builtins.bool) for v in values):
        return "i1"
    return "i32"


def _with_literal(expr, literal):
    """`expr` and the Python number `literal` as Exprs of one type, as TVM
    types a literal: an int is an int32 where `expr` is a bool (True * 1000
    is 1000), a float is a float32 where `expr` is an integer."""
    if isinstance(literal, builtins.float) and not _is_float(expr.type):
        expr = _convert(expr, "f32")
    elif isinstance(literal, builtins.int) and \
            not isinstance(literal, builtins.bool) and expr.type == "i1":
        expr = _convert(expr, "i32")
    return expr, _as_expr(literal, expr.type)


_FLOAT_OPS = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf",
              "div": "arith.divf", "max": "arith.maximumf",
              "min": "arith.minimumf", "truncmod": "arith.remf"}
_INT_OPS = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli",
            "floordiv": "arith.floordivsi", "truncmod": "arith.remsi",
            "truncdiv": "arith.divsi",
            "max": "arith.maxsi", "min": "arith.minsi", "and": "arith.andi",
            "or": "arith.ori", "xor": "arith.xori", "ceildiv": "arith.ceildivsi",
            "shl": "arith.shli", "shr": "arith.shrsi"}
# Unsigned integers' ops where they differ from the signed ones.
_UINT_OPS = dict(_INT_OPS, floordiv="arith.divui", truncdiv="arith.divui",
                 truncmod="arith.remui", max="arith.maxui", min="arith.minui",
                 ceildiv="arith.ceildivui", shr="arith.shrui")
_CMP = {"lt": ("olt", "slt"), "le": ("ole", "sle"), "gt": ("ogt", "sgt"),
        "ge": ("oge", "sge"), "eq": ("oeq", "eq"), "ne": ("une", "ne")}
_UCMP = {"lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge", "eq": "eq",
         "ne": "ne"}


def _binary(kind, a, b):
    # Outside a trace (a tensor annotation), arithmetic on symbolic sizes
    # stays symbolic: evaluated where the kernel uses it, and from the
    # inputs' shapes where the JIT sizes an output.
    # So does arithmetic on them outside a kernel in a traced body (an
    # eager-style annotation ``x: T.Tensor[(m, n * 2), ...]``).
    builder = getattr(_state, "builder", None)
    if (isinstance(a, _SizeExpr) or isinstance(b, _SizeExpr)) and (
            builder is None or (builder.kernel is None and kind in _SIZE_OPS
                                and getattr(_state, "eager", None) is not None
                                and builtins.all(
                                    isinstance(x, (int, _SizeExpr))
                                    and not isinstance(x, type(True))
                                    for x in (a, b)))):
        return _SizeExpr(kind, a, b)
    a, b = _unify(a, b)
    if _is_float(a.type) and _FLOAT_WIDTH[a.type] <= 8 and \
            kind not in ("max", "min"):
        # No arithmetic in 8- or 4-bit floats: as CUDA's operators on them
        # do, it happens in f32 (storing the result rounds it back). Max
        # and min choose an operand: they keep the type.
        a, b = _convert(a, "f32"), _convert(b, "f32")
    if kind == "rem":
        if _is_unsigned(a.type):  # the floor's remainder is the remainder
            kind = "truncmod"
        else:
            return _floormod(a, b)
    if _is_float(a.type):
        if kind == "floordiv":
            raise TileLangError("// on floats; use / and T.floor")
        op = _FLOAT_OPS.get(kind)
    else:
        if kind == "div":
            raise TileLangError("/ on integers; use // (floor division)")
        op = (_UINT_OPS if _is_unsigned(a.type) else _INT_OPS).get(kind)
    if op is None:
        raise TileLangError("no %s for %s" % (kind, a.type))
    builder = _builder()
    name = builder.value(op, (a.name, b.name), _ir(a.type))
    result = Expr(name, a.type)
    # Integer sums and constant multiples keep their linear form, so that a
    # slice's extent is known however its bounds were typed
    # (`K[b, k:k + 64]` with k an int32 read from an index table).
    if a.type == "index" or (a.type in _INT_WIDTH and a.type != "i1"):
        result.lin = _combine_linear(kind, _linear(a), _linear(b))
    return result


def _floormod(a, b):
    """`a % b` as TileLang (TVM) and Python define it: the remainder of the
    floor division, with the sign of b (C's remainder, T.truncmod, takes the
    sign of a)."""
    rem = _binary("truncmod", a, b)
    zero = _constant(0, a.type)
    # Where the remainder is nonzero and its sign differs from b's, add b.
    fix = _binary("and", _compare("ne", rem, zero),
                  _binary("xor", _compare("lt", rem, zero),
                          _compare("lt", b, zero)))
    return if_then_else(fix, _binary("add", rem, b), rem)


def _combine_linear(kind, a, b):
    """The linear form of `a kind b` for linear forms a, b (None when it is
    not linear)."""
    (ca, ta), (cb, tb) = a, b
    if kind in ("add", "sub"):
        sign = 1 if kind == "add" else -1
        terms = dict(ta)
        for atom, coefficient in tb.items():
            terms[atom] = terms.get(atom, 0) + sign * coefficient
        return ca + sign * cb, {k: v for k, v in terms.items() if v}
    if kind == "mul" and (not ta or not tb):
        (c, t), factor = (a, cb) if not tb else (b, ca)
        return c * factor, {k: v * factor for k, v in t.items() if v * factor}
    return None


def _linear(value):
    """`value` (an index Expr, a size expression or an int) as constant +
    sum of coefficient * atom, atoms being the values that are not sums and
    constant multiples of others: how a slice's extent `stop - start` is
    known at trace time (`bx * 64:(bx + 1) * 64` has extent 64)."""
    if isinstance(value, builtins.bool) or not isinstance(value, (int, Expr)):
        raise TileLangError("an index must be an integer, got %r" % (value,))
    if isinstance(value, int):
        return value, {}
    if isinstance(value, _Symbol):
        return 0, {("symbol", value.symbol): 1}
    if isinstance(value, _SizeExpr):
        parts = [_linear(x) for x in (value.a, value.b)]
        combined = _combine_linear(value.kind, *parts) \
            if value.kind in ("add", "sub", "mul") else None
        return combined if combined is not None else \
            (0, {("size", repr(value)): 1})
    lin = getattr(value, "lin", None)
    if lin is not None:
        return lin
    if isinstance(value, _Access) and value._name is None:
        # An element not loaded yet: the same element read twice is one atom.
        key = ("load", value.buffer.name,
               tuple(i.name for i in value.indices))
        return 0, {key: 1}
    return 0, {value.name: 1}


def _known_difference(stop, start):
    """`stop - start` when it is known at trace time, else None."""
    (cs, ts), (cb, tb) = _linear(stop), _linear(start)
    if ts != tb:
        return None
    return cs - cb


def _compare(kind, a, b):
    a, b = _unify(a, b)
    return Expr(_cmp(kind, a, b), "i1")


def _cmp(kind, a, b):
    """The i1 SSA name of `a kind b` for Exprs of one type (an ordered
    comparison of floats, unequal: unordered)."""
    if _is_float(a.type):
        return _comparison("arith.cmpf", _CMP[kind][0], a.name, b.name)
    return _comparison("arith.cmpi", _UCMP[kind] if _is_unsigned(a.type)
                      else _CMP[kind][1], a.name, b.name)


_CMPF_PREDICATES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true")
_CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule",
                    "ugt", "uge")


def _comparison(op, predicate, a, b):
    """An arith.cmpf/cmpi of SSA names `a` and `b`: its i1 result."""
    table = _CMPF_PREDICATES if op == "arith.cmpf" else _CMPI_PREDICATES
    return _builder().value(op, (a, b), "i1", {
        "predicate": "%d : i64" % table.index(predicate)})


class Expr:
    """A traced scalar: an SSA value of an MLIR type."""

    def __init__(self, name, type_):
        self._name = name
        self.type = type_
        self.lin = None  # the linear form of an index (see _linear)

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        for key, value in _MLIR_TYPES.items():
            if value == self.type:
                return key
        return self.type

    def __add__(self, other): return _binary("add", self, other)
    def __radd__(self, other): return _binary("add", other, self)
    def __sub__(self, other): return _binary("sub", self, other)
    def __rsub__(self, other): return _binary("sub", other, self)
    def __mul__(self, other): return _binary("mul", self, other)
    def __rmul__(self, other): return _binary("mul", other, self)
    def __truediv__(self, other): return _binary("div", self, other)
    def __rtruediv__(self, other): return _binary("div", other, self)
    def __floordiv__(self, other): return _binary("floordiv", self, other)
    def __rfloordiv__(self, other): return _binary("floordiv", other, self)
    def __mod__(self, other): return _binary("rem", self, other)
    def __rmod__(self, other): return _binary("rem", other, self)
    def __and__(self, other): return _binary("and", self, other)
    def __rand__(self, other): return _binary("and", other, self)
    def __or__(self, other): return _binary("or", self, other)
    def __ror__(self, other): return _binary("or", other, self)
    def __xor__(self, other): return _binary("xor", self, other)
    def __rxor__(self, other): return _binary("xor", other, self)
    def __lshift__(self, other): return _binary("shl", self, other)
    def __rlshift__(self, other): return _binary("shl", other, self)
    def __rshift__(self, other): return _binary("shr", self, other)
    def __rrshift__(self, other): return _binary("shr", other, self)
    def __lt__(self, other): return _compare("lt", self, other)
    def __le__(self, other): return _compare("le", self, other)
    def __gt__(self, other): return _compare("gt", self, other)
    def __ge__(self, other): return _compare("ge", self, other)

    # == and != of device values are device comparisons too (TileLang's
    # PrimExpr): a helper function the front end does not rewrite, writing
    # `T.if_then_else(x == 1, a, b)`, compares at run time, not the Python
    # objects (which silently chose b). As a Python truth value (`in`, a
    # dict lookup) the result says whether both sides are the same value.
    def __eq__(self, other): return _Equality.of("eq", self, other)
    def __ne__(self, other): return _Equality.of("ne", self, other)

    def __neg__(self):
        if _is_float(self.type) and _FLOAT_WIDTH[self.type] <= 8:
            return -_convert(self, "f32")  # in f32, as _binary computes
        if _is_float(self.type):
            return Expr(_builder().value("arith.negf", (self.name,), self.type),
                        self.type)
        return _binary("sub", 0, self)

    def __invert__(self):
        """~x: every bit flipped (C's ~ of an integer; of a bool, not)."""
        if _is_float(self.type):
            raise TileLangError("~ of a %s value: bitwise not takes integers"
                                % self.type)
        if self.type == "i1":
            return _binary("xor", self, _constant(True, "i1"))
        return _binary("xor", self, _constant(-1 if not _is_unsigned(self.type)
                                              else (1 << _INT_WIDTH[self.type]) - 1,
                                              self.type if self.type != "index"
                                              else "index"))

    def __bool__(self):
        raise TileLangError("a traced value has no Python truth value; use "
                            "T.if_then_else, or a Python value to choose "
                            "what to trace")

    __hash__ = object.__hash__


class _Equality(Expr):
    """`a == b` / `a != b` of traced values: the i1 of their comparison on
    the device; its Python truth value is whether a and b are the same
    value (TVM's EqualOp), so that containers of Exprs keep working."""

    @staticmethod
    def of(kind, a, b):
        if not isinstance(b, (Expr, _Var, numbers.Number)) or getattr(_state, "builder", None) is None:
            return NotImplemented
        return _Equality.compare(kind, a, b)

    @staticmethod
    def compare(kind, a, b):
        """The traced `a == b` (kind "eq") or `a != b` ("ne")."""
        result = _compare(kind, a, b)
        equality = _Equality(result.name, result.type)
        equality.same = (a is b) == (kind == "eq")
        return equality

    def __bool__(self):
        return self.same

    __hash__ = object.__hash__


class _Access(Expr):
    """`buffer[indices]`: a head address in T.copy, an element elsewhere
    (loaded when first used as a value)."""

    def __init__(self, buffer, indices):
        super().__init__(None, buffer.type)
        self.buffer = buffer
        self.indices = indices

    @property
    def name(self):
        if self._name is None:
            if not getattr(self, "internal", False):
                _check_not_open_reducer(self.buffer, "read of")
            builder = _builder()
            safe = builder.safe_values.get(self.buffer.name)
            if safe is not None and safe[0] is builder.kernel:
                self._name = self._guarded_load(builder, safe[1])
                return self._name
            for axis, (k, dim) in enumerate(zip(getattr(self, "static", ()),
                                                self.buffer.dims)):
                _check_static_index(k, dim, axis, element=True)
            self._name = builder.fresh()
            buffer, indices = _storage_of(self.buffer, self.indices)
            if buffer.packed:
                _packed_load(buffer, indices, self._name)
                return self._name
            _load(buffer, indices, self._name)
        return self._name

    def _guarded_load(self, builder, safe):
        """The element, or `safe` where an index is outside the buffer
        (T.annotate_safe_value)."""
        inside = None
        zero = _constant(0, "index")
        for axis, index in enumerate(self.indices):
            extent = _extent(self.buffer, axis).name
            for predicate, bound in (("sge", zero.name), ("slt", extent)):
                test = _comparison("arith.cmpi", predicate, index.name, bound)
                if inside is not None:
                    test = builder.value("arith.andi", (inside, test), "i1")
                inside = test
        name, loaded, type_ = builder.fresh(), builder.fresh(), _ir(self.buffer.type)
        builder.open("scf.if", (inside,), [(name, type_)], regions=2)
        buffer, indices = _storage_of(self.buffer, self.indices)
        if buffer.packed:
            _packed_load(buffer, indices, loaded)
        else:
            _load(buffer, indices, loaded)
        builder.op("scf.yield", (loaded,))
        builder.next_region(1)
        builder.op("scf.yield", (safe.name,))
        builder.close()
        return name


def _load(buffer, indices, name):
    """`name` = element `indices` (Exprs) of `buffer`."""
    _builder().op("memref.load", [buffer.name] + [i.name for i in indices],
                  [(name, _ir(buffer.type))])


class _Region:
    """`buffer[b, s0:s1, h, :]`: a region of a buffer for T.copy and
    T.atomic_add. Per dimension of the buffer: its start, its extent (an int
    when known at trace time, else None) and whether it was sliced (a slice
    may be a dimension of the tile; an index never is)."""

    def __init__(self, buffer, starts, extents, sliced):
        self.buffer = buffer
        self.starts = starts
        self.extents = extents
        self.sliced = sliced

    def describe(self):
        """The region as the user wrote it, with extents for slices."""
        parts = []
        for extent, sliced in zip(self.extents, self.sliced):
            if not sliced:
                parts.append("i")
            else:
                parts.append(":%s" % ("?" if extent is None else extent))
        name = self.buffer.name.lstrip("%")
        return "%s[%s]" % (name, ", ".join(parts))

    def is_whole(self):
        """True when the region is every element of its buffer."""
        return builtins.all(
            sliced and _known_difference(start, 0) == 0 and
            isinstance(dim, int) and extent == dim
            for start, extent, sliced, dim in zip(
                self.starts, self.extents, self.sliced, self.buffer.dims))

    def match(self, shape, what):
        """For each dimension of a tile of `shape`, the buffer dimension it
        runs along (-1 for a leading unit dimension of the tile that no
        dimension of the region takes): TileLang's rule, the region's
        extents other than 1 are the tile's extents other than 1, in order;
        an extent-1 slice or an index takes a unit dimension of the tile or
        is indexed away; a slice whose extent is not known at trace time
        takes the tile's extent. Among the ways to match, the one that puts
        the most slices on tile dimensions."""
        dims = list(zip(self.extents, self.sliced))
        best = None

        def search(t, r, taken, score):
            nonlocal best
            if t == len(shape):
                if builtins.all(dims[j][0] == 1 for j in range(r, len(dims))):
                    if best is None or score > best[0]:
                        best = (score, list(taken))
                return
            if r == len(dims):
                return
            extent, sliced = dims[r]
            if extent is None or extent == shape[t]:
                taken.append(r)
                search(t + 1, r + 1, taken, score + (1 if sliced else 0))
                taken.pop()
            if extent == 1:
                search(t, r + 1, taken, score)

        lead = 0
        while True:
            search(lead, 0, [-1] * lead, -lead * 100)
            if lead == len(shape) or shape[lead] != 1:
                break
            lead += 1
        if best is None:
            raise TileLangError(
                "%s: the region %s does not match the tile of shape %s: its "
                "extents other than 1 must be the tile's, in order"
                % (what, self.describe(), tuple(shape)))
        return best[1]


def _index(value):
    """An index value: Python ints, index values, and integers of fixed
    width (a position loaded from a tensor, `T.int32` variables: TileLang
    indexes with them directly), the latter extended by their sign."""
    expr = _as_expr(value, "index")
    if expr.type in _INT_WIDTH and expr.type != "i1":
        return _convert(expr, "index")
    if expr.type != "index":
        raise TileLangError("an index must be an integer, got %s" % expr.type)
    return expr


def _slice_text(k):
    text = lambda v: "" if v is None else (str(v) if isinstance(v, int)
                                            else "<expr>")
    step = "" if k.step is None else ":" + text(k.step)
    return "%s:%s%s" % (text(k.start), text(k.stop), step)


def _check_static_index(value, dim, axis, element=False):
    """A Python int index must not be negative: kernel indices do not wrap
    around as Python's do, so `A[-1]` would silently read outside the
    buffer. An element access (`element`) must also lie inside the buffer;
    a tile's start may lie past its edge (the edge rules apply)."""
    if isinstance(value, builtins.bool) or not isinstance(value, int):
        return
    if value < 0:
        raise TileLangError(
            "index %d along dimension %d is negative; kernel indices do not "
            "wrap around as Python's do (write the index from the start)"
            % (value, axis))
    if element and isinstance(dim, int) and value >= dim:
        raise TileLangError(
            "index %d along dimension %d is outside the buffer's extent %d"
            % (value, axis, dim))


# --------------------------------------------------------------------------
# Buffers and signatures
# --------------------------------------------------------------------------

_SIZE_OPS = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y,
             "mul": lambda x, y: x * y, "floordiv": lambda x, y: x // y,
             "rem": lambda x, y: x % y, "ceildiv": lambda x, y: -(-x // y),
             "max": builtins.max, "min": builtins.min}


class _SizeExpr(Expr):
    """Integer arithmetic on symbolic sizes written outside a kernel, e.g.
    the shape ``T.Tensor((N, K // 2), T.int8)``."""

    def __init__(self, kind, a, b):  # pylint: disable=super-init-not-called
        if kind not in _SIZE_OPS:
            raise TileLangError("%s is not size arithmetic" % kind)
        for operand in (a, b):
            if not isinstance(operand, (int, _SizeExpr)) or \
                    isinstance(operand, type(True)):
                raise TileLangError("sizes combine ints and T.symbolic() "
                                    "values, got %r" % (operand,))
        self.kind, self.a, self.b = kind, a, b

    @property
    def name(self):
        """The value inside a kernel, computed where it is used."""
        return _binary(self.kind, _traced(self.a), _traced(self.b)).name

    @property
    def type(self):
        return "index"

    def symbols(self):
        return set().union(*[x.symbols() for x in (self.a, self.b)
                             if isinstance(x, _SizeExpr)])

    def evaluate(self, sizes):
        """The value for `sizes` (symbol name -> int)."""
        value = lambda x: x if isinstance(x, int) else x.evaluate(sizes)
        return _SIZE_OPS[self.kind](value(self.a), value(self.b))

    def __repr__(self):
        return "(%r %s %r)" % (self.a, self.kind, self.b)


def _traced(value):
    return _as_expr(value, "index") if isinstance(value, int) else \
        Expr(value.name, "index")


def _same_size(a, b):
    """Whether two sizes (ints, T.symbolic/T.const symbols and arithmetic on
    them) are the same expression."""
    if isinstance(a, _Symbol) and isinstance(b, _Symbol):
        return a.symbol == b.symbol
    if isinstance(a, _Symbol) or isinstance(b, _Symbol):
        return False
    if isinstance(a, _SizeExpr) and isinstance(b, _SizeExpr):
        return a.kind == b.kind and _same_size(a.a, b.a) and \
            _same_size(a.b, b.b)
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return a is b


class _Symbol(_SizeExpr):
    """A dynamic dimension: `T.symbolic("M")`. In a kernel it is the size
    of the first tensor parameter that has it (an index value)."""

    def __init__(self, name, dtype="int32"):  # pylint: disable=super-init-not-called
        self.symbol = name

    def symbols(self):
        return {self.symbol}

    def evaluate(self, sizes):
        if self.symbol not in sizes:
            raise ValueError("no size for T.symbolic(%r)" % self.symbol)
        return sizes[self.symbol]

    @property
    def name(self):
        value = _builder().dims.get(self.symbol)
        if value is None:
            raise TileLangError("T.symbolic(%r) is not a dimension of any "
                                "tensor parameter" % self.symbol)
        return value.name

    @property
    def type(self):
        return "index"

    def __repr__(self):
        return "T.symbolic(%r)" % self.symbol


Var = _Symbol  # TileLang's (TVM's) T.Var: what T.dynamic / T.symbolic make


def _solve_size(dim, value):
    """(symbol, its value) when the size `dim` is built from one T.symbolic
    by adding, subtracting or multiplying constants (``n * 3 + 1``) and
    equals `value` (an int, or an index value in a kernel); else None."""
    while not isinstance(dim, _Symbol):
        if not isinstance(dim, _SizeExpr):
            return None
        a, b = dim.a, dim.b
        if dim.kind == "add" and isinstance(b, int):
            dim, value = a, value - b
        elif dim.kind == "add" and isinstance(a, int):
            dim, value = b, value - a
        elif dim.kind == "sub" and isinstance(b, int):
            dim, value = a, value + b
        elif dim.kind == "sub" and isinstance(a, int):
            dim, value = b, a - value
        elif dim.kind == "mul" and isinstance(b, int) and b > 0:
            dim, value = a, value // b
        elif dim.kind == "mul" and isinstance(a, int) and a > 0:
            dim, value = b, value // a
        else:
            return None
    return dim.symbol, value


def symbolic(name, dtype="int32"):
    """A dimension whose size is known only when the kernel runs;
    ``T.dynamic("batch, seq_len")`` (names separated by commas or spaces)
    gives one per name, as a tuple. `dtype` is the integer type TileLang
    gives the variable: int32 or int64 (sizes are index values here, wide
    enough for either)."""
    if str(getattr(dtype, "name", dtype)) not in ("int32", "int64"):
        raise TileLangError("T.dynamic(%r, %r): a size is an int32 or int64 "
                            "variable" % (name, dtype))
    if not isinstance(name, str):
        raise TileLangError("T.dynamic takes a name, got %r" % (name,))
    names = [n for n in re.split(r"\s*,\s*|\s+", name.strip()) if n]
    if not names or not builtins.all(n.isidentifier() for n in names):
        raise TileLangError("T.dynamic takes names separated by commas or "
                            "spaces, got %r" % (name,))
    if len(names) > 1 or "," in name:
        return tuple(_Symbol(n) for n in names)
    return _Symbol(names[0])


dynamic = symbolic


class Tensor:
    """A parameter annotation: ``A: T.Tensor((M, K), T.float16)``, or
    ``T.Tensor[[M, K], T.float16]``. Inside a kernel, ``T.Tensor(shape,
    dtype, A.data)`` is a view of the buffer A with another shape (its
    elements row-major, as T.reshape gives them)."""

    def __new__(cls, shape=None, dtype=float32, data=None):
        if isinstance(data, _BufferData):
            return data.view(shape, dtype)
        return super().__new__(cls)

    def __init__(self, shape, dtype=float32, data=None):
        self.shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        self.dtype = dtype
        _mlir_type(dtype)
        for dim in self.shape:
            if getattr(dim, "unbound_parameter", None):
                # An eager-style parameter with no argument (eager.py).
                raise TypeError("missing the compile-time argument %r (a "
                                "dimension of a tensor)" % dim.unbound_parameter)
            if not isinstance(dim, (int, _SizeExpr)) or isinstance(dim, type(True)):
                raise TileLangError("tensor dimensions are ints, T.symbolic() "
                                    "or arithmetic on them, got %r" % (dim,))

    def __class_getitem__(cls, item):
        # T.Tensor[shape, dtype]: the dtype by name, T.dtype, torch or numpy
        # dtype; T.Tensor[shape] alone is f32.
        if isinstance(item, tuple) and len(item) == 2 and \
                isinstance(_dtype_name(item[1]), str):
            return cls(item[0], item[1])
        return cls(item)

    def __repr__(self):
        return "T.Tensor(%r, %r)" % (self.shape, self.dtype)


class StridedTensor(Tensor):
    """A parameter annotation for a tensor of any strides:
    ``A: T.StridedTensor((M, N), (NN, 1), T.float16)`` (or
    ``T.StridedTensor[[M, N], [NN, 1], T.float16]``). Each stride is an int
    (the call refuses tensors whose stride there differs) or a
    ``T.dynamic`` symbol (any stride, which the symbol takes as its value);
    torch views such as ``a[:, :N]`` are used in place."""

    def __init__(self, shape, strides, dtype=float32):
        super().__init__(shape, dtype)
        strides = tuple(strides) if isinstance(strides, (tuple, list)) else (strides,)
        if len(strides) != len(self.shape):
            raise TileLangError("T.StridedTensor: %d strides for a rank-%d "
                                "tensor" % (len(strides), len(self.shape)))
        for stride in strides:
            if not isinstance(stride, (int, _Symbol)) or isinstance(stride, type(True)):
                raise TileLangError("T.StridedTensor strides are ints or "
                                    "T.dynamic() symbols, got %r" % (stride,))
        self.strides = strides

    def __class_getitem__(cls, item):
        if isinstance(item, tuple) and len(item) == 3:
            return cls(item[0], item[1], item[2])
        raise TileLangError("T.StridedTensor[shape, strides, dtype]")

    def __repr__(self):
        return "T.StridedTensor(%r, %r, %r)" % (self.shape, self.strides, self.dtype)


def _eager():
    from . import eager as _eager_module  # noqa: F401 (the state's class)
    state = getattr(_state, "eager", None)
    return state


def const(names, dtype="int32"):
    """``M, N, K = T.const("M N K")`` (or "M, N, K"): sizes known when the
    kernel is compiled, each taken from a keyword argument of that name or
    from the first input tensor that has it as a dimension (eager style
    of @tilelang.jit, eager.py). One name gives one value."""
    state = _eager()
    if state is None:
        raise TileLangError("T.const() can only be used in the body of a "
                            "@tilelang.jit function in the eager style (a kernel "
                            "body with T.const / T.empty, not a factory)")
    split = [n for n in (names.split(",") if "," in names else names.split()) if n]
    split = [n.strip() for n in split]
    if not split or not builtins.all(n.isidentifier() for n in split):
        raise TileLangError("T.const takes names separated by spaces or commas, "
                            "got %r" % (names,))
    values = [state.const(n) for n in split]
    return values[0] if len(values) == 1 else tuple(values)


def empty(*shape, dtype=None):
    """``C = T.empty((M, N), dtype)``: an output of an eager-style
    @tilelang.jit function, allocated by the call and returned by the
    function (``T.empty(M, N, dtype=...)`` and ``T.empty([N], dtype)`` too)."""
    state = _eager()
    if state is None:
        raise TileLangError("T.empty() declares an output of a @tilelang.jit "
                            "function in the eager style; in a @T.prim_func, give "
                            "the output as a parameter and name it in out_idx")
    if shape and isinstance(shape[-1], str):
        if dtype is not None:
            raise TileLangError("T.empty got the dtype twice")
        shape, dtype = shape[:-1], shape[-1]
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if not shape:
        raise TileLangError("T.empty needs a shape (0-d outputs are not supported)")
    if state.mode == "trace":
        # The output is the kernel parameter its discovery declared (whose
        # sizes may name scalar parameters, traced values here).
        return state.empty(None)
    return state.empty(Tensor(shape, dtype or float32))


def make_tensor(pointer, shape, dtype=float32, strides=None):
    """``A = T.make_tensor(ptrs[g], (M, K), dtype)``: the row-major global
    tensor at an address the kernel reads, an element of a pointer table
    (a ``T.Tensor([G], T.ptr)`` parameter: 64-bit addresses, an int64
    tensor at the call) or any 64-bit integer value; its dimensions are ints
    or traced index values. In the eager style, ``A = T.make_tensor(A, (M,
    K), dtype)`` gives the shape and dtype of a parameter annotated
    ``T.ptr``."""
    if strides is not None:
        raise TileLangError("T.make_tensor(strides=...): only contiguous tensors "
                            "are supported")
    if isinstance(pointer, (Expr, _Var)):
        return _tensor_at(pointer, shape, dtype)
    state = _eager()
    if state is None:
        raise TileLangError("T.make_tensor() takes an address (an element of "
                            "a T.ptr table, a 64-bit integer value) or, in "
                            "the eager style of @tilelang.jit, a parameter "
                            "annotated T.ptr; got %r" % (pointer,))
    return state.make_tensor(pointer, shape, dtype)


def _tensor_at(pointer, shape, dtype):
    """The global tensor of `shape` and `dtype` at the address `pointer`
    (a tile.make_tensor)."""
    builder = _builder()
    address = _as_expr(pointer)
    if address.type == "index":
        address = _convert(address, "i64")
    if _ir(address.type) != "i64":
        raise TileLangError("T.make_tensor: an address is a 64-bit integer (an "
                            "element of a T.ptr table), got %s" % address.type)
    shape = (shape,) if not isinstance(shape, (tuple, list)) else tuple(shape)
    if not shape:
        raise TileLangError("T.make_tensor needs a shape")
    dims = []
    for extent in shape:
        if isinstance(extent, builtins.bool):
            raise TileLangError("T.make_tensor: a dimension is an int or an "
                                "index value, got %r" % (extent,))
        if isinstance(extent, int):
            if extent < 1:
                raise TileLangError("T.make_tensor: dimensions are positive, "
                                    "got %r" % (shape,))
            dims.append(extent)
        else:
            dims.append(_index(extent))
    if _mlir_type(dtype) in _PACKED_TYPES:
        raise TileLangError("T.make_tensor of %s elements (packed two per "
                            "byte) is not supported; make a uint8 tensor of "
                            "the bytes" % _dtype_name(dtype))
    buffer = TileBuffer(builder.fresh("t"), dims, dtype)
    builder.op("tile.make_tensor",
               [address.name] + [d.name for d in dims if not isinstance(d, int)],
               [(buffer.name, buffer.memref_type)])
    return buffer


def _eager_annotate(name, value, annotation):
    """A bare annotation ``A: T.Tensor[...]`` in an eager-style body
    (rewritten by frontend.py)."""
    state = _eager()
    if state is None:
        return value
    return state.annotate(name, value, annotation)


Buffer = Tensor  # TileLang's T.Buffer annotation


class _OnChipBuffer(Tensor):
    """An annotation of a ``T.macro`` parameter that is an on-chip tile
    (TileLang's ``T.SharedBuffer``, ``T.FragmentBuffer``,
    ``T.LocalBuffer``): documentation of what the caller passes, as in
    TileLang (a macro is traced where it is called, with the caller's
    tiles). A kernel's own parameters are global tensors: these are refused
    there by name."""
    scope = None

    def __repr__(self):
        return "T.%s(%r, %r)" % (type(self).__name__, self.shape, self.dtype)


class SharedBuffer(_OnChipBuffer):
    scope = "shared"


class FragmentBuffer(_OnChipBuffer):
    scope = "fragment"


class LocalBuffer(_OnChipBuffer):
    scope = "local"


class _BufferData:
    """``A.data``: the storage of a buffer, which ``T.Tensor(shape, dtype,
    A.data)`` views with another shape."""

    def __init__(self, buffer):
        self.buffer = buffer

    def view(self, shape, dtype):
        return view(self.buffer, shape, dtype)


class TileBuffer:
    """A global tensor or an on-chip tile inside a traced kernel."""

    @property
    def data(self):
        """The buffer's storage (``T.Tensor(shape, dtype, A.data)``)."""
        return _BufferData(self)

    def __init__(self, name, shape, dtype, space=None, strides=None):
        self.name = name
        self.dims = list(shape)  # ints or index Exprs
        self.dtype = dtype
        self.type = _mlir_type(dtype)
        self.space = space
        self.packed = self.type in _PACKED_TYPES
        extents = [d if isinstance(d, int) else None for d in self.dims]
        element = _ir(self.type)
        if self.packed:
            extents, strides = _packed_storage(self, extents, strides)
            element = "i8"
        extents = "x".join("?" if d is None else str(d) for d in extents)
        # A strided global tensor (T.StridedTensor): static strides or ?.
        layout = ", strided<[%s]>" % ", ".join(
            str(st) if isinstance(st, int) else "?" for st in strides) \
            if strides is not None else ""
        self._memref_type = "memref<%s%s%s%s%s>" % (
            extents, "x" if extents else "", element, layout,
            ", #tile.mem<%s>" % space if space else "")

    @property
    def memref_type(self):
        """The buffer's memref type, as tile ops take it (a tensor of packed
        4-bit elements has none: its storage is bytes)."""
        if self.packed:
            raise TileLangError(
                "%s holds %s elements packed two per byte: only its elements "
                "are read and written (%s[i, j]); tile ops (T.copy, T.fill, "
                "T.gemm, T.reduce, ...) and views of it are not supported yet"
                % (self.name.lstrip("%"), self.dtype, self.name.lstrip("%")))
        return self._memref_type

    @memref_type.setter
    def memref_type(self, value):
        self._memref_type = value

    @property
    def storage_type(self):
        """The memref type of the buffer's memory (bytes for packed 4-bit
        elements)."""
        return self._memref_type

    @property
    def shape(self):
        return tuple(self.dims)

    def _key(self, key):
        key = key if isinstance(key, tuple) else (key,)
        if len(key) != len(self.dims):
            raise TileLangError("buffer of rank %d indexed with %d indices"
                                % (len(self.dims), len(key)))
        return key

    def __getitem__(self, key):
        key = self._key(key)
        if any(isinstance(k, slice) for k in key):
            starts, extents, sliced = [], [], []
            for axis, (k, dim) in enumerate(zip(key, self.dims)):
                if not isinstance(k, slice):
                    _check_static_index(k, dim, axis)
                    starts.append(_index(k))
                    extents.append(1)
                    sliced.append(False)
                    continue
                if k.step is not None and not (
                        isinstance(k.step, int) and k.step == 1):
                    raise TileLangError(
                        "the slice %s along dimension %d of %s has a step "
                        "(%r); tiles are contiguous, only steps of 1 are "
                        "allowed" % (_slice_text(k), axis,
                                     self.name.lstrip("%"), k.step))
                start = 0 if k.start is None else k.start
                stop = dim if k.stop is None else k.stop
                _check_static_index(start, dim, axis)
                if k.stop is not None:
                    _check_static_index(stop, dim, axis)
                extent = None if stop is None else _known_difference(stop, start)
                if extent is not None and extent < 1:
                    raise TileLangError(
                        "the slice %s along dimension %d of %s is empty "
                        "(extent %d)" % (_slice_text(k), axis,
                                         self.name.lstrip("%"), extent))
                starts.append(_index(start))
                extents.append(extent)
                sliced.append(True)
            return _Region(self, starts, extents, sliced)
        for axis, (k, dim) in enumerate(zip(key, self.dims)):
            _check_static_index(k, dim, axis)
        access = _Access(self, [_index(k) for k in key])
        access.static = key
        return access

    def __setitem__(self, key, value):
        key = self._key(key)
        for axis, (k, dim) in enumerate(zip(key, self.dims)):
            _check_static_index(k, dim, axis, element=True)
        indices = [_index(k) for k in key]
        value = _convert(_as_expr(value, self.type), self.type)
        buffer, indices = _storage_of(self, indices)
        if buffer.packed:
            _packed_store(buffer, indices, value)
            return
        _builder().op("memref.store", [value.name, buffer.name] +
                      [i.name for i in indices])


def _packed_storage(buffer, extents, strides):
    """The byte storage (extents, strides) of a global tensor of packed
    4-bit elements of logical `extents` (ints or None) and `strides` (in
    elements, or None for row-major)."""
    name = buffer.name.lstrip("%")
    if buffer.space is not None:
        raise TileLangError(
            "%s tiles of %s: 4-bit elements live in global tensors (packed "
            "two per byte); on-chip tiles of them are not supported yet, use "
            "an 8-bit or wider type" % (buffer.space, buffer.dtype))
    if not extents:
        raise TileLangError("%s: a tensor of %s elements needs a dimension to "
                            "pack" % (name, buffer.dtype))
    last = extents[-1]
    if isinstance(last, int) and last % 2:
        raise TileLangError(
            "%s: the last dimension of a tensor of %s elements holds pairs "
            "(two per byte), so it is even; got %d" % (name, buffer.dtype, last))
    extents = extents[:-1] + [None if last is None else last // 2]
    if strides is None:
        return extents, None
    if strides[-1] != 1:
        raise TileLangError(
            "%s: a tensor of packed %s elements has stride 1 along its last "
            "dimension (its pairs share bytes), got %r" % (name, buffer.dtype,
                                                            strides[-1]))
    for axis, stride in enumerate(strides[:-1]):
        if isinstance(stride, int) and stride % 2:
            raise TileLangError(
                "%s: stride %d of dimension %d does not start rows of packed "
                "%s elements on a byte" % (name, stride, axis, buffer.dtype))
    return extents, [st // 2 if isinstance(st, int) else None
                     for st in strides[:-1]] + [1]


def _extent(buffer, axis, name=None):
    """The run-time extent of dimension `axis` of global tensor `buffer`
    (an index Expr; of a packed tensor's last dimension, twice its bytes)."""
    builder = _builder()
    name = name or builder.fresh("d")
    position = _as_expr(axis, "index")
    if not buffer.packed or axis != len(buffer.dims) - 1:
        builder.op("memref.dim", (buffer.name, position.name),
                   [(name, "index")])
        return Expr(name, "index")
    bytes_ = builder.value("memref.dim", (buffer.name, position.name),
                           "index", hint="d")
    two = _constant(2, "index")
    builder.op("arith.muli", (bytes_, two.name), [(name, "index")])
    return Expr(name, "index")


def _packed_byte(buffer, indices):
    """(byte indices, shift) of element `indices` of a packed tensor: the
    byte's indices (the last one halved) and the element's bit offset in it
    (an i8 Expr, 0 or 4)."""
    builder = _builder()
    last = indices[-1]
    two = _constant(2, "index")
    half = builder.value("arith.divui", (last.name, two.name), "index")
    parity = builder.value("arith.remui", (last.name, two.name), "index")
    shift = _convert(Expr(parity, "index"), "i8")
    four = _constant(4, "i8")
    bits = builder.value("arith.muli", (shift.name, four.name), "i8")
    return [i.name for i in indices[:-1]] + [half], Expr(bits, "i8")


def _packed_load(buffer, indices, name):
    """Loads element `indices` of a packed 4-bit tensor into `name`."""
    builder = _builder()
    where, shift = _packed_byte(buffer, indices)
    mask = _constant(15, "i8")
    byte = builder.value("memref.load", [buffer.name] + where, "i8")
    moved = builder.value("arith.shrui", (byte, shift.name), "i8")
    nibble = builder.value("arith.andi", (moved, mask.name), "i8")
    if buffer.type == "i4":
        builder.op("arith.trunci", (nibble,), [(name, "i4")])
        return
    bits = builder.value("arith.trunci", (nibble,), "i4")
    builder.op("arith.bitcast", (bits,), [(name, buffer.type)])


def _packed_store(buffer, indices, value):
    """Stores the Expr `value` (of the buffer's type) as element `indices`
    of a packed 4-bit tensor: its nibble of the byte, by two atomic
    read-modify-writes (clear, then set), so that threads writing the two
    elements of one byte do not overwrite each other."""
    builder = _builder()
    where, shift = _packed_byte(buffer, indices)
    bits = value.name
    if buffer.type != "i4":
        bits = builder.value("arith.bitcast", (value.name,), "i4")
    wide = builder.value("arith.extui", (bits,), "i8")
    placed = builder.value("arith.shli", (wide, shift.name), "i8")
    mask = _constant(15, "i8")
    ones = _constant(-1, "i8")
    spot = builder.value("arith.shli", (mask.name, shift.name), "i8")
    keep = builder.value("arith.xori", (spot, ones.name), "i8")
    for kind, operand in (("andi", keep), ("ori", placed)):
        _atomic_rmw(kind, operand, buffer.name, where, "i8")


# memref.atomic_rmw's kinds (arith::AtomicRMWKind) in the enum's order.
_ATOMIC_KINDS = ("addf", "addi", "andi", "assign", "maximumf", "maxnumf",
                 "maxs", "maxu", "minimumf", "minnumf", "mins", "minu", "mulf",
                 "muli", "ori", "xori")


def _atomic_rmw(kind, value, buffer, indices, type_):
    """memref.atomic_rmw `kind` of SSA name `value` into element `indices`
    (SSA names) of `buffer` (its name); returns the old value's name."""
    return _builder().value("memref.atomic_rmw", [value, buffer] + list(indices),
                            type_, {"kind": "%d : i64" % _ATOMIC_KINDS.index(kind)})


def _convert(value, type_):
    """`value` converted to `type_` as tile.copy converts (T.cast), and as
    C converts integers: a signed one widens by its sign, an unsigned one
    with zeros; one width of the other signedness keeps the bits."""
    if value.type == type_:
        return value
    src, dst = value.type, type_
    if "f4E2M1FN" in (src, dst) and "f32" not in (src, dst):
        # 4-bit floats convert to and from f32 only (every value of them is
        # exact in f32; other types round once, to or from f32).
        return _convert(_convert(value, "f32"), dst)
    builder = _builder()
    if dst == "i1":
        # True where nonzero (Python's bool(), numpy's astype(bool)), not the
        # low bit.
        zero = _constant(0, src)
        return Expr(_comparison("arith.cmpf" if _is_float(src) else "arith.cmpi",
                               "une" if _is_float(src) else "ne", value.name,
                               zero.name), "i1")
    if src == "i1":
        # False and true are 0 and 1 (a signed 1-bit true would be -1).
        if _is_float(dst):
            return Expr(builder.value("arith.uitofp", (value.name,), dst), dst)
        op = "arith.index_cast" if dst == "index" else "arith.extui"
        if dst == "index":
            value = _convert(value, "i64")
        return Expr(builder.value(op, (value.name,), _ir(dst)), dst)
    if _is_float(src) and _is_float(dst):
        if _FLOAT_WIDTH[src] == _FLOAT_WIDTH[dst]:
            value = _convert(value, "f32")
            src = "f32"
        op = "arith.extf" if _FLOAT_WIDTH[src] < _FLOAT_WIDTH[dst] else "arith.truncf"
    elif _is_float(src):
        if dst == "index":
            return _convert(_convert(value, "i64"), "index")
        op = "arith.fptoui" if _is_unsigned(dst) else "arith.fptosi"
    elif _is_float(dst):
        if src == "index":
            value = _convert(value, "i64")
            src = "i64"
        op = "arith.uitofp" if _is_unsigned(src) else "arith.sitofp"
    elif "index" in (src, dst):
        op = "arith.index_castui" if _is_unsigned(src) else "arith.index_cast"
    elif _ir(src) == _ir(dst):
        return Expr(value.name, dst)  # the same bits, read with the other sign
    elif _INT_WIDTH[src] < _INT_WIDTH[dst]:
        op = "arith.extui" if _is_unsigned(src) else "arith.extsi"
    else:
        op = "arith.trunci"
    return Expr(builder.value(op, (value.name,), _ir(dst)), dst)


# --------------------------------------------------------------------------
# Functions
# --------------------------------------------------------------------------

class PrimFunc:
    """A traced kernel function."""

    def __init__(self, name, module, params, workspaces=()):
        self.name = name
        # The traced module (the bindings' IRBuilder, which the JIT's
        # kernels take as it is).
        self.module = module
        # TileLang's function attributes that mean something here:
        # "tilelang_out_idx" (the outputs of an eager-style @T.prim_func).
        self.attrs = {}
        self.params = params  # [(name, Tensor or dtype string)]
        # [(name, Tensor)]: T.alloc_global buffers, the function's
        # parameters after `params`, which every call allocates.
        self.workspaces = list(workspaces)

    def script(self):
        """The module as MLIR text, with the user's locations."""
        return self.module.print(True)

    @property
    def text(self):
        return self.script()

    def __str__(self):
        return self.script()


def prim_func(fn):
    """Traces `fn` (parameters annotated with T.Tensor or a dtype) into a
    PrimFunc. In TileLang's eager style (parameters annotated in the body,
    ``B = T.empty(...)`` outputs returned), the outputs are the PrimFunc's
    last parameters and ``attrs["tilelang_out_idx"]`` names them, which
    ``compile`` takes as its out_idx."""
    from . import eager
    if (any(p.annotation is inspect.Parameter.empty
            for p in inspect.signature(fn).parameters.values()) or
            eager.declares_outputs(fn)) and eager.is_eager(fn):
        def prepare(func, outputs):
            count = len(func.params)
            if outputs:
                func.attrs["tilelang_out_idx"] = [i - count for i in outputs]
            return func
        return eager.EagerJIT(fn, prepare).compile()
    from .frontend import rewrite
    fn = rewrite(fn)
    params = []
    for pname, parameter in inspect.signature(fn).parameters.items():
        if parameter.annotation is inspect.Parameter.empty:
            raise TileLangError("parameter %r of %s needs an annotation "
                                "(T.Tensor(shape, dtype) or a dtype)"
                                % (pname, fn.__name__))
        params.append((pname, parameter.annotation))
    func, _ = _trace(fn, params, lambda values: fn(*values.values()))
    return func


def _trace(fn, params, call):
    """The PrimFunc of kernel parameters `params` ([(name, T.Tensor or
    dtype)]) whose body `call` traces: it gets the traced parameters (name
    -> TileBuffer or Expr, in order) and calls the user's function. Returns
    the PrimFunc and what `call` returned."""
    builder = _Builder(fn.__name__, _location_of_function(fn))
    previous = getattr(_state, "builder", None)
    _state.builder = builder
    try:
        args, dims = [], builder.dims
        for pname, spec in params:
            if isinstance(spec, _OnChipBuffer):
                raise TileLangError(
                    "parameter %r of %s is annotated %s: a kernel's parameters "
                    "are global tensors (T.Tensor); T.%s annotates the "
                    "parameters of a T.macro" % (pname, fn.__name__, spec,
                                                 type(spec).__name__))
            if isinstance(spec, Tensor):
                buffer = TileBuffer("%" + pname, [
                    d if isinstance(d, int) else None for d in spec.shape],
                    spec.dtype, strides=getattr(spec, "strides", None))
                builder.argument(buffer.name, buffer.storage_type,
                                 _arg_marks(pname, buffer.type))
                args.append((buffer, spec))
            else:
                scalar = Expr("%" + pname, _mlir_type(spec))
                builder.argument(scalar.name, _ir(scalar.type),
                                 _arg_marks(pname, scalar.type))
                args.append((scalar, spec))
        # Dynamic dimensions: the first tensor that has one defines it.
        for value, spec in args:
            if not isinstance(spec, Tensor):
                continue
            for axis, dim in enumerate(spec.shape):
                if isinstance(dim, _Symbol):
                    if dim.symbol not in dims:
                        dims[dim.symbol] = _extent(value, axis, builder.fresh(
                            dim.symbol.lower() + "_"))
                    value.dims[axis] = dims[dim.symbol]
                elif isinstance(dim, _SizeExpr):
                    value.dims[axis] = dim  # computed where it is used
        # Symbolic strides of strided tensors (T.StridedTensor), read from
        # the tensor's layout, where no dimension defined the symbol.
        for value, spec in args:
            strides = getattr(spec, "strides", None)
            if not strides or not any(isinstance(st, _Symbol) and st.symbol not in dims
                                      for st in strides):
                continue
            rank = len(strides)
            names = [builder.fresh("s") for _ in range(rank)]
            element = "memref<%s>" % ("i8" if value.packed else _ir(value.type))
            builder.op("memref.extract_strided_metadata", (value.name,),
                       [(builder.fresh("base"), element),
                        (builder.fresh("off"), "index")] +
                       [(builder.fresh("sz"), "index") for _ in range(rank)] +
                       [(n, "index") for n in names])
            for stride, name in zip(strides, names):
                if isinstance(stride, _Symbol) and stride.symbol not in dims:
                    stride_value = Expr(name, "index")
                    if value.packed:
                        # Bytes to elements (two per byte).
                        stride_value = _binary("mul", stride_value, 2)
                    dims[stride.symbol] = stride_value
        # A symbol that only appears in sizes like ``n * 4`` or ``n + 1``:
        # solved from the first tensor dimension that determines it.
        for value, spec in args:
            if not isinstance(spec, Tensor):
                continue
            for axis, dim in enumerate(spec.shape):
                if isinstance(dim, _Symbol) or not isinstance(dim, _SizeExpr) \
                        or dim.symbols() <= set(dims):
                    continue
                extent = _extent(value, axis)
                solved = _solve_size(dim, extent)
                if solved is not None:
                    dims[solved[0]] = solved[1]
        result = call({pname: value for (pname, _), (value, _) in zip(params, args)})
        builder.op("func.return")
    finally:
        _state.builder = previous
    func = PrimFunc(fn.__name__, builder.ir, params,
                    [(b.name[1:], spec) for b, spec in builder.workspaces])
    func.attrs.update(builder.attrs)
    return func, result


def annotate_pass_configs(configs):
    """Compile options of this kernel (TileLang's
    ``T.annotate_pass_configs({PassConfigKey.TL_ENABLE_FAST_MATH: True})``,
    in the body before the first T.Kernel): kept in the PrimFunc's
    ``attrs["tilelang_pass_configs"]``; ``compile`` applies them, under
    the ones its caller gives."""
    if not isinstance(configs, dict):
        raise TileLangError("T.annotate_pass_configs takes a dict of pass "
                            "configs, got %r" % (configs,))
    builder = getattr(_state, "builder", None)
    if builder is not None:  # (eager discovery traces nothing)
        builder.attrs.setdefault("tilelang_pass_configs", {}).update(configs)


def annotate_compile_flags(flags):
    """Device-compiler flags of this kernel (TileLang's
    ``T.annotate_compile_flags(["--use_fast_math"])``), kept in
    ``attrs["tilelang_compile_flags"]``. There is no nvcc here: "--use_fast_math"
    (and "-use_fast_math") is TL_ENABLE_FAST_MATH; the others are ignored with
    a one-time warning naming them."""
    if isinstance(flags, str):
        flags = [flags]
    if not isinstance(flags, (list, tuple)) or not builtins.all(
            isinstance(f, str) for f in flags):
        raise TileLangError("T.annotate_compile_flags takes a list of strings, "
                            "got %r" % (flags,))
    builder = getattr(_state, "builder", None)
    if builder is None:
        return
    builder.attrs.setdefault("tilelang_compile_flags", []).extend(flags)
    for flag in flags:
        if flag.lstrip("-") == "use_fast_math":
            builder.attrs.setdefault("tilelang_pass_configs", {}).setdefault(
                "tl.enable_fast_math", True)
        else:
            if "compile_flag:" + flag not in _hints_warned:
                _hints_warned.add("compile_flag:" + flag)
                import warnings
                warnings.warn("T.annotate_compile_flags: %r is a flag of nvcc, "
                              "which this compiler does not use; ignored" % flag,
                              RuntimeWarning, stacklevel=2)


def _arg_marks(name, type_):
    """The entry argument's attributes (texts) for the JIT: its name
    (`tile.name`), and whether its integers are unsigned (`tile.unsigned`;
    the JIT takes and makes unsigned arrays for it) or its bytes hold two
    4-bit elements (`tile.packed`)."""
    attrs = {"tile.name": _string_attr(name)}
    if type_ in _PACKED_TYPES:
        attrs["tile.packed"] = type_
    elif _is_unsigned(type_):
        attrs["tile.unsigned"] = "unit"
    return attrs


def _string_attr(text):
    """`text` as an MLIR string attribute."""
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def _i64_array(values):
    """An MLIR `array<i64: ...>` attribute of the ints `values`."""
    values = [str(int(v)) for v in values]
    return "array<i64: %s>" % ", ".join(values) if values else "array<i64>"


def _location_of_function(fn):
    return (fn.__code__.co_filename, fn.__code__.co_firstlineno, 1)


# --------------------------------------------------------------------------
# Kernels and tiles
# --------------------------------------------------------------------------

def _normalize_threads(threads):
    """A block's threads as [x, y, z] (an int, 1-3 extents, or None for
    128), each a positive int."""
    if threads is None:
        threads = 128
    if isinstance(threads, int):
        extents = [threads]
    elif isinstance(threads, (list, tuple)) and 1 <= len(threads) <= 3:
        extents = list(threads)
    else:
        raise ValueError("threads must be an int or 1 to 3 extents, got %r"
                         % (threads,))
    for extent in extents:
        if not isinstance(extent, int) or extent <= 0:
            raise ValueError("threads must be positive integers, got %r"
                             % (threads,))
    return extents + [1] * (3 - len(extents))


class Kernel:
    """``with T.Kernel(gx, gy, threads=128) as (bx, by):``; with no grid
    extents (``T.Kernel(threads=128)``) one block."""

    def __init__(self, *grid, threads=128, cluster=None):
        if not grid:
            grid = (1,)
        if len(grid) > 3:
            raise TileLangError("T.Kernel takes 1 to 3 grid extents, got %d"
                                % len(grid))
        self.grid = grid
        # Checked as TileLang checks them, kept with the dimensions given.
        given = len(threads) if isinstance(threads, (list, tuple)) else 1
        self.threads = tuple(_normalize_threads(threads)[:given])
        self.cluster = cluster

    def __enter__(self):
        state = getattr(_state, "eager", None)
        if state is not None and state.mode == "discover":
            from .eager import _Stop
            raise _Stop()
        builder = _builder()
        extents = [_index(g) for g in self.grid]
        ids = [builder.fresh(n) for n in ("bx", "by", "bz")[:len(extents)]]
        attrs = {"threads": _i64_array(int(t) for t in self.threads)}
        if self.cluster is not None:
            sizes = (self.cluster,) if isinstance(self.cluster, int) else self.cluster
            attrs["cluster"] = _i64_array(int(c) for c in sizes)
        count = 1
        for t in self.threads:
            count *= int(t)
        self._outer_threads = getattr(_state, "threads", None)
        _state.threads = count
        frame = builder.open("tile.kernel", [e.name for e in extents], (),
                             attrs, [(i, "index") for i in ids],
                             terminator="tile.yield")
        self._outer = (builder.kernel, builder.reducers)
        builder.kernel = frame
        builder.reducers = []
        self._ids = [Expr(i, "index") for i in ids]
        self._outer_kernel = getattr(_state, "kernel", None)
        _state.kernel = self
        if len(ids) == 1:
            return _BlockIndex(ids[0], "index")
        return tuple(Expr(i, "index") for i in ids)

    def __exit__(self, *exc):
        builder = _builder()
        reducers = builder.reducers
        _state.threads = self._outer_threads
        _state.kernel = self._outer_kernel
        builder.kernel, builder.reducers = self._outer
        builder.close()
        if exc[0] is None:
            for reducer in reducers:
                if reducer.state == "open":
                    raise TileLangError(
                        "the reducer %s was never finalized: close its epoch "
                        "with T.finalize_reducer(%s, out)"
                        % (reducer.label, reducer.label), line=reducer.line)
        return False


def _in_kernel_body():
    """Whether tracing is inside a T.Kernel's body now."""
    return getattr(_state, "kernel", None) is not None and \
        getattr(_state, "builder", None) is not None


def _current_kernel(what):
    if not _in_kernel_body():
        raise TileLangError("%s is only meaningful inside a T.Kernel" % what)
    return _state.kernel


def _check_dim(dim, what):
    if not isinstance(dim, int) or not 0 <= dim <= 2:
        raise TileLangError("%s: dim is 0, 1 or 2, got %r" % (what, dim))


def get_thread_binding(dim=0):
    """The executing thread's index along `dim` of the kernel's threads.
    Code that uses it runs per thread; tile ops (copies, gemms, reductions,
    parallel loops) synchronize the block and may not depend on it through
    control flow. GPU targets only: the CPU runs each block as one thread."""
    _check_dim(dim, "T.get_thread_binding")
    _current_kernel("T.get_thread_binding")
    builder = _builder()
    return Expr(builder.value("tile.thread_id", (), "index",
                              {"dim": "%d : i64" % dim}, hint="tid"), "index")


_BINDINGS = {"threadIdx.x": ("thread", 0), "threadIdx.y": ("thread", 1),
             "threadIdx.z": ("thread", 2), "blockIdx.x": ("block", 0),
             "blockIdx.y": ("block", 1), "blockIdx.z": ("block", 2)}


def thread_binding(begin, end=None, thread="threadIdx.x", annotations=None):
    """``tx = T.thread_binding(0, threads, thread="threadIdx.x")`` (TVM's
    binding of a variable to a thread or block index, as TileLang's kernels
    write it): the index itself, when [begin, end) is the kernel's whole
    extent along it (one argument: the extent)."""
    if end is None:
        begin, end = 0, begin
    if thread not in _BINDINGS:
        raise TileLangError("T.thread_binding: thread is one of %s, got %r"
                            % (", ".join(_BINDINGS), thread))
    kind, dim = _BINDINGS[thread]
    extent = get_thread_extent(dim) if kind == "thread" else get_block_extent(dim)
    if not (isinstance(begin, int) and begin == 0 and isinstance(end, int)
            and isinstance(extent, int) and end == extent):
        raise TileLangError(
            "T.thread_binding(%r, %r, thread=%r): only the kernel's whole "
            "extent along %s (0 to %r) is supported" % (begin, end, thread,
                                                        thread, extent))
    return get_thread_binding(dim) if kind == "thread" else get_block_binding(dim)


def ClusterKernel(*blocks, cluster_dims, threads=None, prelude=None):
    """``with T.ClusterKernel(gx, gy, cluster_dims=(2, 1, 1), threads=128) as
    (bx, by):`` TileLang's kernel launched in thread block clusters (NVIDIA
    sm_90 and newer): T.Kernel with the cluster's shape. Each grid extent
    must be a multiple of the cluster's."""
    if prelude is not None:
        raise TileLangError("T.ClusterKernel(prelude=...) injects CUDA C source; "
                            "this compiler takes no C source")
    dims = (cluster_dims,) if isinstance(cluster_dims, builtins.int) else \
        tuple(cluster_dims) if isinstance(cluster_dims, (tuple, list)) else None
    if not dims or len(dims) > 3 or not builtins.all(
            isinstance(d, builtins.int) and not isinstance(d, builtins.bool)
            and d > 0 for d in dims):
        raise TileLangError("T.ClusterKernel: cluster_dims is a positive int or 1 "
                            "to 3 of them, got %r" % (cluster_dims,))
    return Kernel(*blocks, threads=128 if threads is None else threads,
                  cluster=dims)


def cluster_arrive():
    """TileLang's T.cluster_arrive: the thread arrives on its thread block
    cluster's barrier (``barrier.cluster.arrive``), releasing its earlier
    accesses to the cluster; T.cluster_wait waits for every thread of the
    cluster."""
    _current_kernel("T.cluster_arrive")
    _builder().op("tile.cluster_arrive")


def cluster_arrive_relaxed():
    """T.cluster_arrive without its memory ordering
    (``barrier.cluster.arrive.relaxed``)."""
    _current_kernel("T.cluster_arrive_relaxed")
    _builder().op("tile.cluster_arrive", attrs={"relaxed": "unit"})


def cluster_wait():
    """TileLang's T.cluster_wait: waits until every thread of every block of
    the cluster arrived (``barrier.cluster.wait``)."""
    _current_kernel("T.cluster_wait")
    _builder().op("tile.cluster_wait")


def cluster_sync():
    """TileLang's T.cluster_sync: T.cluster_arrive, then T.cluster_wait."""
    cluster_arrive()
    cluster_wait()


def block_rank_in_cluster():
    """TileLang's T.block_rank_in_cluster: this block's linear index in its
    thread block cluster, x fastest (``%cluster_ctarank``), an int32."""
    _current_kernel("T.block_rank_in_cluster")
    rank = _builder().value("tile.block_rank_in_cluster", (), "index",
                            hint="rank")
    return Expr(_builder().value("arith.index_cast", (rank,), "i32"), "i32")


def get_thread_bindings():
    return [get_thread_binding(d) for d in range(3)]


def get_block_binding(dim=0):
    """The block's index along `dim` of the grid (0 past the grid's rank)."""
    _check_dim(dim, "T.get_block_binding")
    kernel = _current_kernel("T.get_block_binding")
    return kernel._ids[dim] if dim < len(kernel._ids) else _as_expr(0, "index")


def get_block_bindings():
    return [get_block_binding(d) for d in range(3)]


def get_thread_extent(dim=0):
    _check_dim(dim, "T.get_thread_extent")
    kernel = _current_kernel("T.get_thread_extent")
    return int(kernel.threads[dim]) if dim < len(kernel.threads) else 1


def get_thread_extents():
    return [get_thread_extent(d) for d in range(3)]


def get_block_extent(dim=0):
    _check_dim(dim, "T.get_block_extent")
    kernel = _current_kernel("T.get_block_extent")
    return kernel.grid[dim] if dim < len(kernel.grid) else 1


def get_block_extents():
    return [get_block_extent(d) for d in range(3)]


class _BlockIndex(Expr):
    """The block index of a one-dimensional grid: a value (``as bx``) that
    also unpacks as a one-element tuple (``as (bx,)``), as TileLang's does."""

    def __iter__(self):
        yield self


def _alloc(op, space, shape, dtype, cls=None):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if not builtins.all(isinstance(d, int) and d > 0 for d in shape):
        raise TileLangError("on-chip tiles have static positive extents, "
                            "got %r" % (shape,))
    builder = _builder()
    buffer = (cls or TileBuffer)(builder.fresh(space[0]), list(shape), dtype,
                                 space)
    # Tiles are block-scoped: one allocated in a loop or branch is the
    # kernel's (its contents start undefined either way).
    hoist = builder.kernel_level() or contextlib.nullcontext()
    with hoist:
        builder.op("tile." + op, (), [(buffer.name, buffer.memref_type)])
    buffer.allocation = buffer
    return buffer


def alloc_shared(shape, dtype, scope="shared.dyn"):
    """A tile in shared memory."""
    return _alloc("alloc_shared", "shared", shape, dtype)


def alloc_fragment(shape, dtype, scope="local.fragment"):
    """A tile distributed over the block's threads (registers)."""
    return _alloc("alloc_fragment", "fragment", shape, dtype)


def alloc_global(shape, dtype):
    """TileLang's T.alloc_global: a global buffer of the prim_func, made
    outside its kernels and shared by them (split-KV decoding's partial
    results). Every call gets a fresh, uninitialized one (from torch's
    caching allocator on the call's stream for torch tensors, numpy on the
    CPU), sized from the parameters' dimensions; it is not returned. The
    compiled function takes it as an extra parameter after the user's."""
    state = _eager()
    if getattr(_state, "builder", None) is None and state is not None and \
            state.mode == "discover":
        # An eager-style body before its kernel, run to find the parameters:
        # the buffer is made when the body is traced.
        Tensor(shape, dtype)
        from .eager import _Param
        return _Param("<T.alloc_global>")
    builder = _builder()
    if builder.kernel is not None or builder.opened:
        raise TileLangError("T.alloc_global makes a buffer of the prim_func: "
                            "call it outside T.Kernel and any loop")
    spec = Tensor(shape, dtype)
    buffer = TileBuffer("%%global_%d" % len(builder.workspaces),
                        [d if isinstance(d, int) else None for d in spec.shape],
                        dtype)
    for axis, dim in enumerate(spec.shape):
        if isinstance(dim, _Symbol):
            if dim.symbol not in builder.dims:
                raise TileLangError("T.alloc_global: the size %s is no "
                                    "dimension of a parameter" % dim.symbol)
            buffer.dims[axis] = builder.dims[dim.symbol]
        elif isinstance(dim, _SizeExpr):
            buffer.dims[axis] = dim  # computed where it is used
    builder.workspaces.append((buffer, spec))
    builder.argument(buffer.name, buffer.storage_type,
                     _arg_marks(buffer.name[1:], buffer.type))
    return buffer


def alloc_local(shape, dtype, scope="local"):
    """A tile every thread holds its own copy of."""
    return _alloc("alloc_local", "local", shape, dtype)


class _Var(TileBuffer):
    """``v = T.alloc_var(dtype)``: one per-thread scalar (a [1] local tile).
    Used as a value it is loaded (``v + 1``, ``B[i] = v``); ``v[0]`` is the
    element too. Assigning to its name (``v = expr``, ``v += expr``) stores
    into it: the front end rewrites those assignments (frontend.py)."""

    def store(self, value):
        self[0] = value

    def __bool__(self):
        raise TileLangError("a T.alloc_var has no Python truth value; compare "
                            "it (v > 0) to branch on it")

    # == and != compare its value on the device, as for other traced values
    # (in a helper the front end does not rewrite, `v == 1` was Python's
    # identity test); as a Python truth value: the same variable?
    def __eq__(self, other):
        return self._equality("eq", other)

    def __ne__(self, other):
        return self._equality("ne", other)

    def _equality(self, kind, other):
        if not isinstance(other, (Expr, _Var, numbers.Number)) or \
                getattr(_state, "builder", None) is None:
            return NotImplemented
        result = _Equality.compare(kind, self[0], other)
        result.same = (self is other) == (kind == "eq")
        return result

    __hash__ = object.__hash__


def _delegate_to_value(name):
    def method(self, *args):
        return getattr(self[0], name)(*args)
    method.__name__ = name
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
              "__rmul__", "__truediv__", "__rtruediv__", "__floordiv__",
              "__rfloordiv__", "__mod__", "__rmod__", "__and__", "__rand__",
              "__or__", "__ror__", "__xor__", "__rxor__", "__lshift__",
              "__rlshift__", "__rshift__", "__rrshift__", "__lt__", "__le__",
              "__gt__", "__ge__", "__neg__", "__invert__"):
    setattr(_Var, _name, _delegate_to_value(_name))


def let(var, value, body=None):
    """``T.let(v, x)``: binds the variable ``v = T.int32()`` to `x` from
    here on (TileLang's legacy let statement; a T.alloc_var the same)."""
    if body is not None:
        raise TileLangError("T.let(v, value, body), the let expression, is not "
                            "supported; bind with T.let(v, value) and use v")
    if not isinstance(var, _Var):
        raise TileLangError("T.let binds a variable made by T.int32() (or "
                            "another dtype called without a value) or "
                            "T.alloc_var, got %r" % (var,))
    var.store(value)


def alloc_var(dtype, init=None, scope="local.var"):
    """One per-thread scalar, `init` stored first when given (see _Var)."""
    var = _alloc("alloc_local", "local", (1,), dtype, cls=_Var)
    if init is not None:
        var.store(init)
    return var


def _copy_side(value, what):
    """(buffer, placement) of one side of a T.copy or T.atomic_add: the
    placement is None for a whole buffer, a list of offsets for a head
    address (`A[y, x]`), or a _Region for a slice."""
    if isinstance(value, TileBuffer):
        return value, None
    if isinstance(value, _Region):
        # A slice of every element of an on-chip tile is the tile.
        if value.buffer.space is not None and value.is_whole():
            return value.buffer, None
        return value.buffer, value
    if isinstance(value, _Access) and value._name is None:
        return value.buffer, value.indices
    raise TileLangError("%s takes buffers, A[y, x] head addresses or "
                        "A[a:b, i, c:d] slices, got %r" % (what, value))


def _placed(buffer, placement, shape, what):
    """`buffer` placed for a tile of `shape`, as a tile op's operands take
    it: (its name, its offsets' names, the region's extents per dimension
    (0 where the tile has none) or None for the head-address form)."""
    if placement is None:
        return buffer.name, [], None
    if isinstance(placement, list):
        return buffer.name, [o.name for o in placement], None
    dims = placement.match(shape, what)
    rank = len(placement.starts)
    offsets = [start.name for start in placement.starts]
    if len(shape) <= rank and dims == list(range(rank - len(shape), rank)):
        # Along the trailing dimensions: the head-address form.
        return buffer.name, offsets, None
    extents = {d: shape[t] for t, d in enumerate(dims) if d >= 0}
    return buffer.name, offsets, [extents.get(d, 0) for d in range(rank)]


def _require_tile_types(*buffers):
    """Refuses buffers that tile ops cannot take (packed 4-bit tensors),
    naming them."""
    for buffer in buffers:
        buffer.memref_type  # pylint: disable=pointless-statement


def _tile_copy(src, dst, barrier=None, attrs=None):
    """A tile.copy from `src` to `dst` (each as _placed gives it), arriving
    on `barrier` (a _BarrierRef) when given."""
    (s, s_offsets, s_sizes), (d, d_offsets, d_sizes) = src, dst
    operands = [s] + s_offsets + [d] + d_offsets
    barriers = []
    if barrier is not None:
        barriers = [barrier.barriers.buffer.name, barrier.index.name]
    attrs = dict(attrs or {})
    attrs["operandSegmentSizes"] = "array<i32: 1, %d, 1, %d, %d, %d, 0>" % (
        len(s_offsets), len(d_offsets), len(barriers) // 2, len(barriers) // 2)
    if s_sizes is not None:
        attrs["src_sizes"] = _i64_array(s_sizes)
    if d_sizes is not None:
        attrs["dst_sizes"] = _i64_array(d_sizes)
    _builder().op("tile.copy", operands + barriers, (), attrs)


def _tile_shape(buffer, what):
    if not builtins.all(isinstance(d, int) for d in buffer.dims):
        raise TileLangError("%s: the tile %s needs a static shape, got %r"
                            % (what, buffer.name.lstrip("%"), buffer.dims))
    return [int(d) for d in buffer.dims]


_EVICTION_POLICIES = ("evict_normal", "evict_first", "evict_last")


def copy(src, dst, *, coalesced_width=None, disable_tma=False,
         eviction_policy=None, prefer_instruction=None, annotations=None,
         loop_layout=None, _arrive=None):
    """Copies a tile: ``T.copy(A[by * 128, k * 32], A_shared)`` (a head
    address: the tile lies along A's trailing dimensions) or
    ``T.copy(Q[b, s0:s1, h, :], Q_shared)`` (a region: the tile runs along
    the sliced dimensions, the indexed ones are dropped). TileLang's
    lowering hints (coalesced_width, disable_tma, eviction_policy,
    prefer_instruction, annotations, loop_layout) are checked and accepted:
    the compiler chooses the copy's instructions itself."""
    if eviction_policy is not None and eviction_policy not in _EVICTION_POLICIES:
        raise TileLangError("T.copy: eviction_policy is one of %s, got %r"
                            % (", ".join(_EVICTION_POLICIES), eviction_policy))
    if annotations is not None and not isinstance(annotations, dict):
        raise TileLangError("T.copy: annotations is a dict, got %r"
                            % (annotations,))
    if prefer_instruction is not None and prefer_instruction not in (
            "tma", "cp_async", "sync"):
        raise TileLangError("T.copy: prefer_instruction is 'tma', 'cp_async' "
                            "or 'sync', got %r" % (prefer_instruction,))
    what = "T.tma_copy" if _arrive is not None else "T.copy"
    (s, s_at), (d, d_at) = _copy_side(src, what), _copy_side(dst, what)
    _check_not_open_reducer(s, "read of")
    _check_not_open_reducer(d, "store to")
    # A region of a shared tile along its trailing dimensions (a stage
    # `A_shared[s, :, :]` of a hand-buffered tile) is a view of the tile: a
    # tile copy, not an elementwise one.
    if _is_trailing_shared_region(s_at):
        s, s_at = _shared_view(s_at, "T.copy"), None
    if _is_trailing_shared_region(d_at):
        d, d_at = _shared_view(d_at, "T.copy"), None
    if _arrive is not None:
        return _copy_on_barrier(s, s_at, d, d_at, _arrive)
    if isinstance(s_at, _Region) and isinstance(d_at, _Region):
        _copy_regions(s_at, d_at)
        return
    if isinstance(s_at, list) and isinstance(d_at, list):
        # Element to element (TileLang's T.copy(indices[i], idx[0])).
        _copy_regions(_Region(s, s_at, [1] * len(s_at), [False] * len(s_at)),
                      _Region(d, d_at, [1] * len(d_at), [False] * len(d_at)))
        return
    if isinstance(s_at, _Region) != isinstance(d_at, _Region) and \
            isinstance(s_at, list) != isinstance(d_at, list) and \
            s_at is not None and d_at is not None:
        # A head address and a region (TileLang's T.copy(A[m, k],
        # A_shared[stage, :, :])): the region's sliced extents are the tile,
        # along the head address's trailing dimensions.
        region = s_at if isinstance(s_at, _Region) else d_at
        shape = [e for e, sl in zip(region.extents, region.sliced) if sl]
        if builtins.any(e is None for e in shape) or not shape:
            raise TileLangError(
                "T.copy of a head address and %s: the region's extents must "
                "be known while tracing" % region.describe())
        _copy_regions(_side_region(s, s_at, shape), _side_region(d, d_at, shape))
        return
    if s_at is not None and d_at is not None:
        raise TileLangError(
            "T.copy: both sides are head addresses (or one is); one side must "
            "be a whole tile or both slices, to give the shape of the copy")
    # The side without offsets is the tile (the source when both are whole).
    tile = d if s_at is not None else s
    shape = _tile_shape(tile, "T.copy")
    if s.space is None and d.space is None and s_at is None and d_at is None:
        # Global to global (TileLang copies them elementwise).
        if list(d.dims) != shape:
            raise TileLangError(
                "T.copy between global buffers of shapes %s and %s: they must "
                "match" % (shape, list(d.dims)))
        whole = lambda b: _Region(b, [0] * len(shape), shape, [True] * len(shape))
        _copy_regions(whole(s), whole(d))
        return
    if not _tile_converts(s.type, d.type) or _is_remapped(s) or _is_remapped(d) \
            or _has_safe_value(s):
        # (A source with T.annotate_safe_value: its reads past the edge give
        # that value, which the tile copies' zero fill would not.)
        # A conversion tile.copy does not make (or a global tensor placed by
        # T.Layout(shape, fn), whose elements are not a strided view) (integers and floats, an
        # unsigned integer widened): elementwise, as T.cast converts.
        _copy_regions(_side_region(s, s_at, shape),
                      _side_region(d, d_at, shape))
        return
    _require_tile_types(s, d)
    _tile_copy(_placed(s, s_at, shape, "T.copy"),
               _placed(d, d_at, shape, "T.copy"))


def _copy_on_barrier(s, s_at, d, d_at, ref):
    """T.tma_copy(src, dst, barrier=...): a tile.copy {async, tx_only} from
    a global region (or head address) into a whole shared tile or a stage
    view of one, counting its bytes on `ref`."""
    if s.space is not None or d.space != "shared" or d_at is not None or \
            s_at is None:
        raise TileLangError(
            "T.tma_copy with a barrier moves a region of a global tensor into "
            "a whole shared tile (or a stage A_shared[s, :, :] of one); got "
            "%s into %s" % (s.name.lstrip("%"), d.name.lstrip("%")))
    if s.type != d.type:
        raise TileLangError("T.tma_copy cannot convert %s to %s: both sides "
                            "have one element type" % (s.dtype, d.dtype))
    shape = _tile_shape(d, "T.tma_copy")
    if isinstance(s_at, _Region):
        tile = [e for e, sl in zip(s_at.extents, s_at.sliced) if sl and e != 1]
        if tile != [e for e in shape if e != 1]:
            raise TileLangError(
                "T.tma_copy: the region %s has shape %s, the tile %s"
                % (s_at.describe(), tile, shape))
    _require_tile_types(s, d)
    _tile_copy(_placed(s, s_at, shape, "T.tma_copy"), (d.name, [], None),
               barrier=ref, attrs={"async": "unit", "tx_only": "unit"})


def _tile_converts(src, dst):
    """Whether the tile ops convert elements of type `src` to `dst` as
    T.cast does: between floats, and between integers except an unsigned
    one widened (the tile dialect's integers are signed)."""
    if src == dst or (_is_float(src) and _is_float(dst)):
        return True
    if _is_float(src) or _is_float(dst):
        return False
    return not (_is_unsigned(src) and _INT_WIDTH[src] < _INT_WIDTH[dst])


def _side_region(buffer, placement, shape):
    """One side of a tile copy of `shape` as a _Region: a slice as it is, a
    head address or a whole buffer with the tile along its trailing
    dimensions."""
    if isinstance(placement, _Region):
        return placement
    rank = len(buffer.dims)
    if rank < len(shape):
        raise TileLangError("T.copy: a tile of shape %s does not fit in %s of "
                            "rank %d" % (shape, buffer.name.lstrip("%"), rank))
    lead = rank - len(shape)
    starts = placement if placement is not None else [_index(0)] * rank
    return _Region(buffer, list(starts), [1] * lead + list(shape),
                   [False] * lead + [True] * len(shape))


def _region_tile(region, what="T.copy between two slices"):
    """The dimensions of `region` that run along the copied tile (its slices
    of extent other than 1, TileLang's rule) and their extents."""
    dims = [d for d, (extent, sliced) in enumerate(zip(region.extents,
                                                       region.sliced))
            if sliced and extent != 1]
    if builtins.any(region.extents[d] is None for d in dims):
        raise TileLangError(
            "%s needs the extents of its slices at trace time; %s has one "
            "that is not known" % (what, region.describe()))
    return dims, [region.extents[d] for d in dims]


def _region_at(region, dims, coords):
    """The element of `region` at tile coordinates `coords` along its tile
    dimensions `dims`."""
    indices = list(region.starts)
    for d, coord in zip(dims, coords):
        indices[d] = indices[d] + coord
    return tuple(indices)


def _region_inside(region, indices):
    """The condition that `indices` lie in a global buffer (None for an
    on-chip tile, whose slices the tracer checks)."""
    if region.buffer.space is not None:
        return None
    condition = None
    for index, dim, start, extent in zip(indices, region.buffer.dims,
                                         region.starts, region.extents):
        if isinstance(start, int) and start == 0 and extent == dim:
            continue  # a whole static dimension: always inside
        ok = _compare("lt", _index(index), _index(dim))
        condition = ok if condition is None else _binary("and", condition, ok)
    return condition


def _copy_regions(src, dst):
    """T.copy of a slice into a slice (TileLang's T.copy(Q[b, s, h0:h1, :d],
    Q_shared[:, :d])): elementwise, a parallel loop over their common
    shape, converting the element type."""
    s_dims, shape = _region_tile(src)
    d_dims, d_shape = _region_tile(dst)
    if shape != d_shape:
        raise TileLangError("T.copy: the slices %s and %s have different "
                            "shapes (%s and %s)" % (src.describe(), dst.describe(),
                                                    shape, d_shape))
    if not shape:
        shape = [1]

    for ivs in Parallel(*shape):
        ivs = ivs if isinstance(ivs, tuple) else (ivs,)
        src_at = _region_at(src, s_dims, ivs)
        dst_at = _region_at(dst, d_dims, ivs)
        # As tile.copy's edges: reads past a global edge are zero, writes
        # past one are dropped.
        dst_ok = _region_inside(dst, dst_at)
        src_ok = _region_inside(src, src_at)
        store = (contextlib.nullcontext() if dst_ok is None
                 else _branch(dst_ok))
        with store:
            if src_ok is None:
                value = _as_expr(src.buffer[src_at])
                dst.buffer[dst_at] = _convert(value, dst.buffer.type)
            else:
                with _branch(src_ok) as branch:
                    value = _as_expr(src.buffer[src_at])
                    dst.buffer[dst_at] = _convert(value, dst.buffer.type)
                    branch.else_()
                    # Past the source's edge: zero, or the value
                    # T.annotate_safe_value gives its reads in this kernel.
                    builder = _builder()
                    safe = builder.safe_values.get(src.buffer.name)
                    pad = safe[1] if safe is not None and safe[0] is builder.kernel \
                        else _as_expr(0, src.buffer.type)
                    dst.buffer[dst_at] = _convert(pad, dst.buffer.type)


class GemmWarpPolicy(enum.Enum):
    """How a gemm spreads its C tile over the block's warps (TileLang's
    names): as square as possible, whole rows per warp (what attention
    wants: each row's reductions stay in one warp), or whole columns."""
    Square = "square"
    FullRow = "full_row"
    FullCol = "full_col"


def _is_trailing_shared_region(at):
    """Whether `at` is a region of a shared tile of static shape: indices
    on its leading dimensions, its trailing ones whole."""
    if not isinstance(at, _Region) or at.buffer.space != "shared" or at.is_whole():
        return False
    dims = at.buffer.dims
    if not builtins.all(isinstance(d, int) for d in dims):
        return False
    kept = [i for i, sl in enumerate(at.sliced) if sl]
    if not kept or kept != list(range(len(dims) - len(kept), len(dims))):
        return False
    return builtins.all(_known_difference(at.starts[i], 0) == 0 and
                        at.extents[i] == dims[i] for i in kept)


def _shared_view(operand, what):
    """`operand`, or for a region of a shared tile (``A_shared[:, k:]``,
    ``A_shared[stage, :, :]``) a view of that tile's memory: a
    memref.subview of its sliced dimensions at the region's offsets."""
    if not isinstance(operand, _Region):
        return operand
    tile = operand.buffer
    if tile.space != "shared":
        raise TileLangError("%s takes regions of shared tiles only, got %s"
                            % (what, operand.describe()))
    if operand.is_whole():
        return tile
    if not builtins.all(isinstance(d, int) for d in tile.dims) or builtins.any(
            s and e is None for e, s in zip(operand.extents, operand.sliced)):
        raise TileLangError("%s of %s: the region's extents must be known "
                            "while tracing" % (what, operand.describe()))
    strides, stride = [], 1
    for dim in reversed(tile.dims):
        strides.insert(0, stride)
        stride *= dim
    offsets, total = [], 0
    for start, dim_stride in zip(operand.starts, strides):
        known = _known_difference(start, 0)
        offsets.append(known if known is not None else start.name)
        total = None if total is None or known is None else total + known * dim_stride
    shape = [e for e, s in zip(operand.extents, operand.sliced) if s]
    kept = [st for st, s in zip(strides, operand.sliced) if s]
    sizes = [e if s else 1 for e, s in zip(operand.extents, operand.sliced)]
    view = TileBuffer(_builder().fresh("view"), shape, tile.dtype, space=tile.space)
    view.memref_type = "memref<%s%s, strided<[%s], offset: %s>, #tile.mem<%s>>" % (
        "x".join(map(str, shape)) + "x" if shape else "", _ir(view.type),
        ", ".join(map(str, kept)), "?" if total is None else total, tile.space)
    _subview(tile.name, offsets, sizes, view.name, view.memref_type)
    return view


_DYNAMIC = -9223372036854775808  # ShapedType::kDynamic in static offsets


def _subview(source, offsets, sizes, name, type_):
    """`name` (of memref type `type_`) = the unit-stride subview of `source`
    at `offsets` (ints or SSA names) of static `sizes`."""
    dynamic = [o for o in offsets if not isinstance(o, int)]
    _builder().op("memref.subview", [source] + dynamic, [(name, type_)], {
        "operandSegmentSizes": "array<i32: 1, %d, 0, 0>" % len(dynamic),
        "static_offsets": _i64_array(o if isinstance(o, int) else _DYNAMIC
                                     for o in offsets),
        "static_sizes": _i64_array(sizes),
        "static_strides": _i64_array(1 for _ in sizes)})


def _tile_fill(buffer, value):
    """tile.fill of the whole tile `buffer` with the Expr `value`."""
    _require_tile_types(buffer)
    _builder().op("tile.fill", (buffer.name, value.name))


def gemm(A, B, C, transpose_A=False, transpose_B=False, policy=None,
         clear_accum=False, k_pack=1, wg_wait=0):
    """C (+)= op(A) @ op(B) on tiles; A and B may be regions of shared
    tiles (``T.gemm(A_shared[:, k:], B_shared[0:bk, 0:bn], C)``)."""
    A = _shared_view(A, "T.gemm's A")
    B = _shared_view(B, "T.gemm's B")
    attrs = {}
    if transpose_A:
        attrs["transpose_a"] = "unit"
    if transpose_B:
        attrs["transpose_b"] = "unit"
    if clear_accum:
        attrs["clear_accum"] = "unit"
    if policy is not None:
        names = {"square": "square", "full_row": "full_row",
                 "full_col": "full_col", "Square": "square",
                 "FullRow": "full_row", "FullCol": "full_col"}
        key = getattr(policy, "name", policy)
        if key not in names:
            raise TileLangError("unknown gemm policy %r" % (policy,))
        attrs["policy"] = "#tile.policy<%s>" % names[key]
    if not isinstance(wg_wait, int) or wg_wait < -1:
        raise TileLangError("wg_wait must be -1 or a group count >= 0, got %r"
                            % (wg_wait,))
    for operand in (A, B, C):
        if isinstance(operand, TileBuffer) and _is_unsigned(operand.type):
            raise TileLangError("T.gemm of unsigned integers (%s) is not "
                                "supported: its operands are floats or int8 "
                                "with an int32 accumulator" % operand.dtype)
    if wg_wait != 0:
        # TileLang's -1 ("do not wait") leaves the gemm's own work in
        # flight too; T.wait_wgmma completes it.
        attrs["wg_wait"] = "%d : i64" % wg_wait
    _require_tile_types(A, B, C)
    _builder().op("tile.gemm", (A.name, B.name, C.name), (), attrs)


def wgmma_gemm(A, B, C, transpose_A=False, transpose_B=False, policy=None,
               clear_accum=False, annotations=None):
    """TileLang's explicit asynchronous Hopper gemm: ``T.gemm`` that leaves
    its tensor-core work in flight (``wg_wait=-1``) until a
    ``T.wait_wgmma(n)``. The instruction is the compiler's choice, as for
    ``T.gemm``: where the gemm does not run on wgmma it completes before the
    next op (TileLang refuses to compile it instead), so results are the
    same either way."""
    if annotations is not None and not isinstance(annotations, dict):
        raise TileLangError("T.wgmma_gemm: annotations is a dict, got %r"
                            % (annotations,))
    gemm(A, B, C, transpose_A=transpose_A, transpose_B=transpose_B,
         policy=policy, clear_accum=clear_accum, wg_wait=-1)


def _issues_raw_copies():
    """Whether the kernel being traced issued a T.ptx_cp_async so far."""
    return getattr(_state.kernel, "raw_copies", False)


def ptx_commit_group():
    """TileLang's `cp.async.commit_group`: closes the group of this thread's
    `T.ptx_cp_async` copies issued since the last one. The copies of
    `T.Parallel(..., prefer_async=True)` loops complete before what follows
    them here (the compiler's own asynchronous copies are waited for where
    it issues them): in a kernel without `T.ptx_cp_async` there is no group
    of the program's to close and nothing is emitted."""
    _current_kernel("T.ptx_commit_group")
    if _issues_raw_copies():
        _builder().op("tile.async_commit")


def ptx_wait_group(count=0):
    """TileLang's `cp.async.wait_group n` after `T.ptx_commit_group()`: the
    thread waits until at most `count` of its groups of `T.ptx_cp_async`
    copies are in flight (no block barrier: other threads' copies are seen
    after one). Nothing is emitted in a kernel without `T.ptx_cp_async`
    (see ptx_commit_group)."""
    if isinstance(count, builtins.bool) or not isinstance(count, int) \
            or count < 0:
        raise TileLangError("T.ptx_wait_group takes a group count >= 0, got %r"
                            % (count,))
    _current_kernel("T.ptx_wait_group")
    if _issues_raw_copies():
        _builder().op("tile.async_wait",
                      attrs={"pending": "%d : i64" % count,
                             "per_thread": "unit"})


def __ldg(load_or_buf, index=None):
    """TileLang's ``T.__ldg(x[i])`` (or ``T.__ldg(x, i)`` on a 1-D
    tensor): the element of a global tensor, read through the read-only
    data cache on CUDA. Here it is the load itself: the device compiler
    chooses the cache path of loads from tensors the kernel does not
    write."""
    if isinstance(load_or_buf, TileBuffer):
        if index is None:
            raise TileLangError("T.__ldg(buffer, index) needs the index")
        if isinstance(index, (list, tuple)):
            if len(index) != 1:
                raise TileLangError("T.__ldg(buffer, index) takes one "
                                    "(flattened) index, got %d" % len(index))
            index = index[0]
        if len(load_or_buf.dims) != 1:
            raise TileLangError("T.__ldg(buffer, index) reads a 1-D tensor; "
                                "%s has shape %s: write T.__ldg(%s[...])"
                                % (load_or_buf.name.lstrip("%"),
                                   load_or_buf.dims,
                                   load_or_buf.name.lstrip("%")))
        load_or_buf = load_or_buf[index]
    if not isinstance(load_or_buf, _Access) or \
            load_or_buf.buffer.space is not None:
        raise TypeError("T.__ldg expects an element of a global tensor "
                        "(x[i]) or a tensor and an index, got %r"
                        % (load_or_buf,))
    return _as_expr(load_or_buf)


class AccessPtr:
    """``T.access_ptr(A[i, j], "r", n)``: the place of element (i, j) of
    buffer A and the `n` elements that follow it along the last dimension,
    for ``T.ptx_cp_async``. Here it is no pointer value: it names the
    buffer and the indices, and only ``T.ptx_cp_async`` takes it."""

    def __init__(self, buffer, indices, extent, mode):
        self.buffer, self.indices = buffer, indices
        self.extent, self.mode = extent, mode

    def __repr__(self):
        return "T.access_ptr(%s[...], %r, %r)" % (
            self.buffer.name.lstrip("%"), self.mode, self.extent)


def access_ptr(base, access_type="r", *extents, offset=0, extent=None,
               ignore_last_ndim=0):
    """TileLang's T.access_ptr: the place of an element (``A[i, j]``), of a
    region's first element (``A[i, 0:8]``) or of a buffer's first element,
    with `access_type` ("r", "w", "rw" or 1, 2, 3) and the elements it
    covers (`extents`' product, or `extent`; 1 by default). Only
    ``T.ptx_cp_async`` takes it; `offset` and `ignore_last_ndim` are not
    provided (write the indices of the element instead)."""
    if offset != 0 or ignore_last_ndim != 0:
        raise TileLangError(
            "T.access_ptr(offset=%r, ignore_last_ndim=%r) is not provided: "
            "name the element itself (T.access_ptr(A[i, j + k], ...))"
            % (offset, ignore_last_ndim))
    modes = {"r": "r", "w": "w", "rw": "rw", 1: "r", 2: "w", 3: "rw"}
    if isinstance(access_type, builtins.bool) or access_type not in modes:
        raise TileLangError("T.access_ptr: the access type is 'r', 'w', 'rw' "
                            "or 1, 2, 3; got %r" % (access_type,))
    if len(extents) == 1 and isinstance(extents[0], (list, tuple)):
        extents = tuple(extents[0])
    count = 1
    for e in extents if extent is None else (extent,):
        if isinstance(e, builtins.bool) or not isinstance(e, int) or e < 1:
            raise TileLangError("T.access_ptr: extents are positive ints "
                                "here, got %r" % (e,))
        count *= e
    if isinstance(base, _Access):
        buffer, indices = base.buffer, list(base.indices)
    elif isinstance(base, _Region):
        buffer, indices = base.buffer, list(base.starts)
    elif isinstance(base, Buffer):
        buffer, indices = base, [_index(0) for _ in base.dims]
    else:
        raise TileLangError("T.access_ptr takes an element (A[i, j]), a "
                            "region or a buffer, got %r" % (base,))
    if _is_remapped(buffer) or buffer.packed:
        raise TileLangError("T.access_ptr of %s: a buffer with a T.Layout or "
                            "packed 4-bit elements has no plain place"
                            % buffer.name.lstrip("%"))
    return AccessPtr(buffer, indices, count, modes[access_type])


def ptx_cp_async(dst_access_ptr, src_access_ptr, num_elems, predicate=None):
    """TileLang's T.ptx_cp_async: the thread that runs it copies `num_elems`
    consecutive elements (4, 8 or 16 bytes) of a global tensor into a shared
    tile, each side named by ``T.access_ptr`` and aligned to that size. The
    copy is asynchronous: the tile holds the elements after
    ``T.cp_async_barrier_noinc(bar)``'s phase completes, or after
    ``T.ptx_commit_group()`` and ``T.ptx_wait_group(n)`` (cp.async on NVIDIA
    from sm_80; elsewhere a plain copy, complete at once). With `predicate`
    false the source is not read (its indices may be out of bounds) and the
    elements become zeros, as TileLang's conditional cp.async."""
    kernel = _current_kernel("T.ptx_cp_async")
    if predicate is not None:
        predicate = _as_expr(predicate)
        if _is_float(predicate.type):
            raise TileLangError("T.ptx_cp_async: the predicate is a boolean or "
                                "an integer, got %s" % predicate.type)
        predicate = _convert(predicate, "i1")
    for what, ptr, mode in (("destination", dst_access_ptr, "w"),
                            ("source", src_access_ptr, "r")):
        if not isinstance(ptr, AccessPtr):
            raise TileLangError("T.ptx_cp_async: the %s is a T.access_ptr, "
                                "got %r" % (what, ptr))
        if mode not in ptr.mode:
            raise TileLangError("T.ptx_cp_async: the %s is %s with access "
                                "%r; it needs %r" % (what, ptr, ptr.mode, mode))
    if isinstance(num_elems, builtins.bool) or not isinstance(num_elems, int) \
            or num_elems < 1:
        raise TileLangError("T.ptx_cp_async copies a constant number of "
                            "elements, got %r" % (num_elems,))
    dst, src = dst_access_ptr, src_access_ptr
    if dst.buffer.space != "shared" or src.buffer.space is not None:
        raise TileLangError(
            "T.ptx_cp_async copies from a global tensor into a shared tile, "
            "got %s (%s) into %s (%s)" % (
                src.buffer.name.lstrip("%"), src.buffer.space or "global",
                dst.buffer.name.lstrip("%"), dst.buffer.space or "global"))
    if dst.buffer.type != src.buffer.type:
        raise TileLangError("T.ptx_cp_async moves bytes unchanged: %s is %s "
                            "and %s is %s" % (src.buffer.name.lstrip("%"),
                                              src.buffer.dtype,
                                              dst.buffer.name.lstrip("%"),
                                              dst.buffer.dtype))
    for ptr in (dst, src):
        if ptr.extent not in (1, num_elems) and ptr.extent < num_elems:
            raise TileLangError("T.ptx_cp_async copies %d elements, but %s "
                                "covers %d" % (num_elems, ptr, ptr.extent))
    operands = [src.buffer.name] + [i.name for i in src.indices] + \
        [dst.buffer.name] + [i.name for i in dst.indices] + \
        ([predicate.name] if predicate is not None else [])
    _builder().op("tile.async_copy_elements", operands, (), {
        "count": "%d : i64" % num_elems,
        "operandSegmentSizes": "array<i32: 1, %d, 1, %d, %d>" % (
            len(src.indices), len(dst.indices), predicate is not None)})
    kernel.raw_copies = True


def cp_async_barrier_noinc(barrier):
    """TileLang's T.cp_async_barrier_noinc: the thread arrives on the
    barrier once every ``T.ptx_cp_async`` it issued before has landed
    (``cp.async.mbarrier.arrive.noinc``: one arrival of the thread, which
    the barrier's thread count includes)."""
    _current_kernel("T.cp_async_barrier_noinc")
    ref = _barrier(barrier, "T.cp_async_barrier_noinc")
    _builder().op("tile.barrier_arrive", ref.operands(),
                  attrs={"per_thread": "unit", "async_copies": "unit"})


def wait_wgmma(pending=0):
    """Waits until at most ``pending`` groups of the tensor-core work that
    ``T.gemm(..., wg_wait=n)`` left in flight remain (wgmma on sm_90a;
    nothing to wait for where gemms compute synchronously)."""
    if not isinstance(pending, int) or pending < 0:
        raise TileLangError("T.wait_wgmma takes a group count >= 0, got %r"
                            % (pending,))
    _builder().op("tile.gemm_wait", attrs={"pending": "%d : i64" % pending})


def fill(buffer, value):
    """Sets every element of a tile, of a slice of a buffer
    (``T.fill(C_local[:, 0:32], 0)``: elementwise, nothing written past a
    global edge) or of a whole global tensor (``T.fill(A, v)``)."""
    if isinstance(buffer, _Region):
        if buffer.buffer.space is not None and buffer.is_whole():
            buffer = buffer.buffer
        else:
            _fill_region(buffer, value)
            return
    if isinstance(buffer, _Access) and buffer._name is None:
        # One element (TileLang's T.fill(s_count[0], 0)): a store.
        buffer.buffer[tuple(buffer.indices)] = value
        return
    if isinstance(buffer, TileBuffer) and buffer.space is None:
        # A whole global tensor (TileLang's T.fill(A, v)): elementwise over
        # the block's threads.
        _fill_region(_side_region(buffer, None, list(buffer.dims)), value)
        return
    _check_not_reducer(buffer, "T.fill")
    value = _convert(_as_expr(value, buffer.type), buffer.type)
    _tile_fill(buffer, value)


def _fill_region(region, value):
    _check_not_reducer(region.buffer, "T.fill")
    dims, shape = _region_tile(region, "T.fill of a slice")
    value = _convert(_as_expr(value, region.buffer.type), region.buffer.type)
    for ivs in Parallel(*(shape or [1])):
        ivs = ivs if isinstance(ivs, tuple) else (ivs,)
        at = _region_at(region, dims, ivs)
        ok = _region_inside(region, at)
        with contextlib.nullcontext() if ok is None else _branch(ok):
            region.buffer[at] = value


def clear(buffer):
    """Sets every element of a tile (or of a slice or a global tensor, as
    T.fill) to zero."""
    if isinstance(buffer, _Region) or (isinstance(buffer, TileBuffer)
                                       and buffer.space is None):
        fill(buffer, 0)
        return
    _check_not_reducer(buffer, "T.clear")
    _require_tile_types(buffer)
    _builder().op("tile.clear", (buffer.name,))


def _check_unsigned_tile_op(what, kind, src, dst):
    """The tile dialect's reductions and scans compute integers as signed:
    of unsigned ones only what does not depend on the sign (sums and
    bitwise ops that keep the width) is theirs."""
    if not (_is_unsigned(src.type) or _is_unsigned(dst.type)):
        return
    if kind in ("sum", "bitand", "bitor", "bitxor") and \
            _INT_WIDTH.get(src.type) == _INT_WIDTH.get(dst.type):
        return
    raise TileLangError(
        "%s of unsigned integers (%s to %s) is not supported: the tile ops "
        "compare and widen integers as signed; reduce in a signed type wide "
        "enough (T.copy to an int tile first)" % (what, src.dtype, dst.dtype))


def _reduce(kind, src, dst, dim, clear, nan_propagate=False):
    for buffer, action in ((src, "read of"), (dst, "store to")):
        _check_not_open_reducer(buffer, action)
    _check_unsigned_tile_op("T.reduce_%s" % kind, kind, src, dst)
    rank = len(src.dims)
    dim = dim + rank if dim < 0 else dim
    if src.type != dst.type and not src.packed and not dst.packed:
        # Into a tile of another type (TileLang reduces f16 values into an
        # f32 result): the values converted to the result's type first, so
        # that the reduction computes there (a sum accumulates in f32).
        converted = alloc_fragment(list(src.dims), dst.dtype)
        copy(src, converted)
        src = converted
    attrs = {"kind": "#tile.reduce_kind<%s>" % kind, "dim": "%d : i64" % dim}
    if not clear:
        attrs["clear"] = "false"
    if nan_propagate:
        attrs["nan_propagate"] = "true"
    _require_tile_types(src, dst)
    _builder().op("tile.reduce", (src.name, dst.name), (), attrs)


def reduce_max(buffer, out, dim=-1, clear=True, batch=1, nan_propagate=False,
               annotations=None):
    """Row maxima; NaN elements are ignored unless `nan_propagate`."""
    _reduce("max", buffer, out, dim, clear, nan_propagate)


def reduce_min(buffer, out, dim=-1, clear=True, batch=1, nan_propagate=False,
               annotations=None):
    """Row minima; NaN elements are ignored unless `nan_propagate`."""
    _reduce("min", buffer, out, dim, clear, nan_propagate)


def reduce_sum(buffer, out, dim=-1, clear=True, batch=1, annotations=None):
    _reduce("sum", buffer, out, dim, clear)


def reduce_abssum(buffer, out, dim=-1, batch=1, annotations=None, clear=True):
    _reduce("abssum", buffer, out, dim, clear)


def reduce_absmax(buffer, out, dim=-1, clear=True, batch=1,
                  nan_propagate=False, annotations=None):
    _reduce("absmax", buffer, out, dim, clear, nan_propagate)


def _reduce_bitwise(kind, buffer, out, dim, clear):
    if _is_float(buffer.type):
        raise TileLangError("T.reduce_%s needs integer elements, got %s"
                            % (kind, buffer.type))
    _reduce(kind, buffer, out, dim, clear)


def reduce_bitand(buffer, out, dim=-1, clear=True, batch=1, annotations=None):
    _reduce_bitwise("bitand", buffer, out, dim, clear)


def reduce_bitor(buffer, out, dim=-1, clear=True, batch=1, annotations=None):
    _reduce_bitwise("bitor", buffer, out, dim, clear)


def reduce_bitxor(buffer, out, dim=-1, clear=True, batch=1, annotations=None):
    _reduce_bitwise("bitxor", buffer, out, dim, clear)


def _scan_region(kind, src, dst, dim, reverse, what):
    """A scan of regions of on-chip tiles (``big[0:M, 0:N]``,
    ``A_shared[r0:r1, :]``): every line along `dim` (the region's sliced
    dimensions numbered from 0) on one thread of a T.Parallel over the
    others, combined serially, each element read before it is written (so
    in place works). Elements outside the region are untouched."""
    regions = []
    for side, region in (("src", src), ("dst", dst)):
        if isinstance(region, TileBuffer):
            region = _Region(region, [0] * len(region.dims), list(region.dims),
                             [True] * len(region.dims))
        if not isinstance(region, _Region) or region.buffer.space is None:
            raise TileLangError("%s scans on-chip tiles or regions of them; %s "
                                "is %r" % (what, side, region))
        dims = [d for d, sliced in enumerate(region.sliced) if sliced]
        extents = [region.extents[d] for d in dims]
        if not builtins.all(isinstance(e, int) for e in extents):
            raise TileLangError("%s needs the extents of %s (%s) at trace time"
                                % (what, side, region.describe()))
        regions.append((region, dims, extents))
    (s_region, s_dims, shape), (d_region, d_dims, d_shape) = regions
    if shape != d_shape:
        raise TileLangError("%s: src %s and dst %s have different shapes"
                            % (what, s_region.describe(), d_region.describe()))
    rank = len(shape)
    dim = dim + rank if dim < 0 else dim
    if not 0 <= dim < rank:
        raise TileLangError("%s: dim %d of a rank-%d region" % (what, dim, rank))
    others = [k for k in range(rank) if k != dim]
    combine = {"sum": "add", "max": "max", "min": "min"}[kind]
    length = shape[dim]
    dtype = s_region.buffer.dtype

    def at(region, dims, coords):
        indices = list(region.starts)
        for d, c in zip(dims, coords):
            indices[d] = _index(indices[d]) + c
        return tuple(indices)

    for line in Parallel(*([shape[k] for k in others] or [1])):
        line = line if isinstance(line, tuple) else (line,)

        def coords(k):
            full = [0] * rank
            for other, c in zip(others, line):
                full[other] = c
            full[dim] = k
            return full

        # The running value is the destination's previous element (this
        # thread wrote it): a per-thread variable here would make the
        # parallel loop run whole on every thread (a body that writes a
        # local tile does), every thread scanning every line in place.
        first = length - 1 if reverse else 0
        d_region.buffer[at(d_region, d_dims, coords(first))] = _as_expr(
            s_region.buffer[at(s_region, s_dims, coords(first))])
        for step in serial(length - 1):
            k = (length - 2 - step) if reverse else (step + 1)
            previous = (k + 1) if reverse else (k - 1)
            value = s_region.buffer[at(s_region, s_dims, coords(k))]
            running = _as_expr(d_region.buffer[at(d_region, d_dims, coords(previous))])
            d_region.buffer[at(d_region, d_dims, coords(k))] = _binary(
                combine, _convert(running, s_region.buffer.type), value)


def _scan(kind, src, dst, dim, reverse, what):
    dst = src if dst is None else dst
    if isinstance(src, _Region) or isinstance(dst, _Region):
        return _scan_region(kind, src, dst, dim, reverse, what)
    for buffer in (src, dst):
        if not isinstance(buffer, TileBuffer) or buffer.space is None:
            raise TileLangError("%s scans whole on-chip tiles, got %r"
                                % (what, buffer))
    _check_unsigned_tile_op(what, kind, src, dst)
    rank = len(src.dims)
    dim = dim + rank if dim < 0 else dim
    attrs = {"dim": "%d : i64" % dim}
    if kind != "sum":
        attrs["kind"] = "#tile.reduce_kind<%s>" % kind
    if reverse:
        attrs["reverse"] = "unit"
    _require_tile_types(src, dst)
    _builder().op("tile.cumsum", (src.name, dst.name), (), attrs)


def cumsum(src, dst=None, dim=0, reverse=False, annotations=None):
    """Inclusive prefix sums along `dim` (in place without `dst`)."""
    _scan("sum", src, dst, dim, reverse, "T.cumsum")


def cummax(src, dst=None, dim=0, reverse=False, annotations=None):
    """Running maxima along `dim` (in place without `dst`)."""
    _scan("max", src, dst, dim, reverse, "T.cummax")


def cummin(src, dst=None, dim=0, reverse=False, annotations=None):
    """Running minima along `dim` (in place without `dst`)."""
    _scan("min", src, dst, dim, reverse, "T.cummin")


def reshape(src, shape):
    """The same elements as `src` (a global tensor or an on-chip tile of
    static shape), row-major, seen with `shape`: a view, not a copy."""
    shape = [shape] if isinstance(shape, int) else list(shape)
    if not isinstance(src, TileBuffer) or not builtins.all(
            isinstance(d, int) for d in src.dims):
        raise TileLangError("T.reshape takes a buffer of static shape, got %r"
                            % (src,))
    if not builtins.all(isinstance(d, int) and d > 0 for d in shape):
        raise TileLangError("T.reshape: the new shape must be positive "
                            "integers, got %r" % (shape,))
    count = math.prod(src.dims)
    if math.prod(shape) != count:
        raise ShapeMismatchError(
            "T.reshape: the shape %s holds %d elements, %s has %d (shape %s)"
            % (shape, math.prod(shape), src.name.lstrip("%"), count,
               list(src.dims)))
    builder = _builder()
    flat = src
    if len(src.dims) != 1:
        flat = TileBuffer(builder.fresh("r"), [count], src.dtype, src.space)
        _collapse(src.name, len(src.dims), flat.name, flat.memref_type)
    if len(shape) == 1:
        return flat
    out = TileBuffer(builder.fresh("r"), shape, src.dtype, src.space)
    _expand(flat.name, shape, out.name, out.memref_type)
    return out


def _collapse(source, rank, name, type_):
    """`name` (of memref type `type_`) = `source` of rank `rank` collapsed
    into one dimension."""
    _builder().op("memref.collapse_shape", (source,), [(name, type_)], {
        "reassociation": "[[%s]]" % ", ".join(str(i) for i in range(rank))})


def _expand(source, shape, name, type_):
    """`name` (of memref type `type_`) = the one-dimensional `source` seen
    with the static `shape`."""
    _builder().op("memref.expand_shape", (source,), [(name, type_)], {
        "reassociation": "[[%s]]" % ", ".join(str(i) for i in range(len(shape))),
        "static_output_shape": _i64_array(shape)})


def view(buffer, shape=None, dtype=None):
    """`buffer` seen with `shape` (T.reshape), or, for a global tensor or a
    shared tile, its bytes seen as `dtype` with `shape` (tile.view: the same
    bytes, row-major; writes through it are the buffer's; the view of a
    shared tile takes the tile's swizzle, seen in its dtype). Fragments and
    local tiles have no bytes to view."""
    shape = list(buffer.dims) if shape is None else \
        (list(shape) if isinstance(shape, (tuple, list)) else [shape])
    if dtype is None or _mlir_type(dtype) == buffer.type:
        return reshape(buffer, shape)
    space = getattr(buffer, "space", "?")
    if not isinstance(buffer, TileBuffer) or space not in (None, "shared"):
        raise TileLangError("T.view of the %s tile %s as another dtype (%s as "
                            "%s): only global tensors and shared tiles have "
                            "bytes to view; copy the tile into a shared one"
                            % (space, getattr(buffer, "name", "?").lstrip("%"),
                               getattr(buffer, "dtype", "?"),
                               _dtype_name(dtype)))
    if space == "shared":
        # A view of a view views the tile.
        allocation = getattr(buffer, "allocation", None)
        if allocation is None:
            raise TileLangError(
                "T.view of %s as %s: a shared tile is viewed as another dtype "
                "whole, from its T.alloc_shared (or a view of it), not a "
                "slice or reshape of it" % (buffer.name.lstrip("%"),
                                            _dtype_name(dtype)))
        buffer = allocation
    name = buffer.name.lstrip("%")
    if not builtins.all(isinstance(d, int) for d in list(buffer.dims) + shape):
        raise TileLangError("T.view of %s as %s: the view and the tensor need "
                            "static shapes" % (name, _dtype_name(dtype)))
    target = _mlir_type(dtype)
    bits = lambda t: _FLOAT_WIDTH.get(t) or _INT_WIDTH[t]
    have = math.prod(buffer.dims) * bits(buffer.type)
    want = math.prod(shape) * bits(target)
    if have != want or bits(target) % 8 or bits(buffer.type) % 8:
        raise ShapeMismatchError(
            "T.view of %s (%s %s) as %s %s: a view keeps the bytes (%d bits "
            "and %d bits)" % (name, list(buffer.dims), buffer.dtype, shape,
                              _dtype_name(dtype), have, want))
    _require_tile_types(buffer)
    builder = _builder()
    out = TileBuffer(builder.fresh("view"), shape, dtype, space)
    if space is None:
        builder.op("tile.view", (buffer.name,), [(out.name, out.memref_type)])
        return out
    _require_tile_types(out)
    # With the tile's allocation, which dominates every use.
    with builder.kernel_level() or contextlib.nullcontext():
        builder.op("tile.view", (buffer.name,), [(out.name, out.memref_type)])
    out.allocation = buffer
    return out


def _fold_elements(region, kind, what):
    """Whether any (kind "or") or every ("and") element of a buffer or a
    slice of one is nonzero: a sequential loop on each thread."""
    if isinstance(region, TileBuffer):
        buffer = region
        starts = [0] * len(buffer.dims)
        extents = list(buffer.dims)
        dims = list(range(len(buffer.dims)))
    elif isinstance(region, _Region):
        buffer, starts = region.buffer, region.starts
        dims = [d for d, sliced in enumerate(region.sliced) if sliced]
        extents = [region.extents[d] for d in dims]
    else:
        raise TileLangError("%s takes a buffer or a slice of one, got %r"
                            % (what, region))
    if builtins.any(not isinstance(e, int) for e in extents):
        raise TileLangError("%s needs the slice's extents at trace time" % what)
    flag = alloc_var("int32", 0 if kind == "or" else 1)
    coords = []

    def nest(level):
        if level == len(dims):
            indices = list(starts)
            for d, c in zip(dims, coords):
                indices[d] = _index(indices[d]) + c
            value = _convert(_as_expr(buffer[tuple(indices)]), "i1")
            flag.store(_binary(kind, flag[0], _convert(value, "i32")))
            return
        for c in serial(extents[level]):
            coords.append(c)
            nest(level + 1)
            coords.pop()

    nest(0)
    return _compare("ne", flag[0], 0)


def transpose(src, dst, annotations=None):
    """dst[..., j, i] = src[..., i, j] for on-chip tiles (shared or
    fragment) of shapes (..., M, N) and (..., N, M): a T.Parallel over
    dst. `annotations` are accepted as TileLang takes them and do not
    change the result."""
    for side, buffer in (("src", src), ("dst", dst)):
        if not isinstance(buffer, TileBuffer) or buffer.space is None:
            raise TileLangError("T.transpose takes whole on-chip tiles (shared "
                                "or fragment); %s is %r" % (side, buffer))
    src_shape = _tile_shape(src, "T.transpose")
    dst_shape = _tile_shape(dst, "T.transpose")
    if len(src_shape) < 2 or \
            dst_shape != src_shape[:-2] + [src_shape[-1], src_shape[-2]]:
        raise TileLangError(
            "T.transpose: dst must have src's shape with the last two "
            "dimensions swapped: src %s, dst %s"
            % ("x".join(map(str, src_shape)), "x".join(map(str, dst_shape))))
    if annotations is not None and not isinstance(annotations, dict):
        raise TypeError("T.transpose: annotations is a dict, got %r"
                        % (annotations,))
    for index in Parallel(*dst_shape):
        index = index if isinstance(index, tuple) else (index,)
        dst[index] = src[index[:-2] + (index[-1], index[-2])]


def im2col(img, col, nhw_step, c_step, kernel, stride, dilation, pad,
           annotations=None, eviction_policy=None):
    """TileLang's T.im2col: the (block_M, block_K) tile `col` of the
    implicit GEMM of a 2-D convolution over `img` (N, H, W, C), for output
    rows ``nhw_step * block_M + i`` (output pixels (n, oh, ow), row-major)
    and reduction columns ``c_step * block_K + j`` (filter taps (kh, kw, c),
    row-major, as a (KH, KW, C, F) filter flattens): the input element
    ``img[n, oh * stride + kh * dilation - pad, ow * stride + kw * dilation
    - pad, c]``, 0 outside the image (padding) and past the last pixel or
    tap. A T.Parallel over `col` of guarded loads (no TMA im2col mode yet);
    `annotations` and `eviction_policy` are cache hints, accepted."""
    if not isinstance(img, TileBuffer) or img.space is not None or \
            len(img.dims) != 4:
        raise TileLangError("T.im2col takes a global NHWC tensor of rank 4 as "
                            "its image, got %r" % (img,))
    if not isinstance(col, TileBuffer) or col.space is None or len(col.dims) != 2:
        raise TileLangError("T.im2col writes a 2-D on-chip tile (block_M, "
                            "block_K), got %r" % (col,))
    for name, value in (("kernel", kernel), ("stride", stride),
                        ("dilation", dilation), ("pad", pad)):
        if isinstance(value, builtins.bool) or not isinstance(value, int) or \
                value < (0 if name == "pad" else 1):
            raise TileLangError("T.im2col: %s is a %s int, got %r" % (
                name, "non-negative" if name == "pad" else "positive", value))
    if eviction_policy is not None and eviction_policy not in _EVICTION_POLICIES:
        raise TileLangError("T.im2col: eviction_policy is one of %s, got %r"
                            % (", ".join(_EVICTION_POLICIES), eviction_policy))
    block_M, block_K = _tile_shape(col, "T.im2col")
    N, H, W, C = [d if isinstance(d, int) else _as_expr(d) for d in img.dims]
    span = dilation * (kernel - 1) + 1
    OH = (H + 2 * pad - span) // stride + 1
    OW = (W + 2 * pad - span) // stride + 1
    for i, j in Parallel(block_M, block_K):
        m = nhw_step * block_M + i
        k = c_step * block_K + j
        n, oh, ow = m // (OH * OW), m // OW % OH, m % OW
        kh, kw, c = k // (kernel * C), k // C % kernel, k % C
        h = oh * stride + kh * dilation - pad
        w = ow * stride + kw * dilation - pad
        inside = _binary("and", _compare("lt", n, N), _compare("lt", kh, kernel))
        for coord, extent in ((h, H), (w, W)):
            inside = _binary("and", inside, _binary(
                "and", _compare("ge", coord, 0), _compare("lt", coord, extent)))
        with _branch(inside) as branch:
            col[i, j] = img[n, h, w, c]
            branch.else_()
            col[i, j] = 0


def any_of(region):
    """True when some element of the buffer or slice is nonzero."""
    return _fold_elements(region, "or", "T.any_of")


def all_of(region):
    """True when every element of the buffer or slice is nonzero."""
    return _fold_elements(region, "and", "T.all_of")


# C++'s memory orders, as TileLang's atomics take them.
_MEMORY_ORDERS = ("relaxed", "consume", "acquire", "release", "acq_rel",
                  "seq_cst")


def _check_atomic_options(what, memory_order, return_prev, element=False):
    """The compiler's atomics are acq_rel read-modify-writes (what
    memref.atomic_rmw lowers to): a weaker order is satisfied, seq_cst is
    refused; the previous value is returned for one element."""
    if memory_order is not None:
        if memory_order not in _MEMORY_ORDERS:
            raise ValueError("%s: memory_order is one of %s, got %r"
                             % (what, ", ".join(_MEMORY_ORDERS), memory_order))
        if memory_order == "seq_cst":
            raise TileLangError(
                "%s(memory_order='seq_cst') is not supported: this compiler's "
                "atomics are acq_rel (relaxed, acquire, release and acq_rel are "
                "satisfied)" % what)
    if return_prev and not element:
        raise TileLangError("%s(return_prev=True) returns the previous value "
                            "of one element: its destination is "
                            "buffer[indices] and its value a scalar" % what)


def _atomic_add_lanes(name, lanes, dst, value, memory_order):
    """TileLang's T.atomic_addx2/x4: the `lanes` consecutive elements from
    dst's (along its last dimension) each get the element as far from
    value's, atomically, element by element."""
    for what, operand in (("destination", dst), ("value", value)):
        if not isinstance(operand, _Access) or not operand.indices:
            raise TileLangError(
                "T.%s takes elements (the first of %d consecutive ones) as "
                "its %s, got %r" % (name, lanes, what, operand))
    for k in range(lanes):
        shifted = [tuple(operand.indices[:-1]) + (operand.indices[-1] + k,)
                   for operand in (dst, value)]
        atomic_add(dst.buffer[shifted[0]], value.buffer[shifted[1]],
                   memory_order=memory_order)


def atomic_addx2(dst, value, memory_order=None):
    """dst[..., j:j+2] += value[..., j:j+2] atomically (TileLang's paired
    atomic add of two consecutive elements)."""
    _atomic_add_lanes("atomic_addx2", 2, dst, value, memory_order)


def atomic_addx4(dst, value, memory_order=None):
    """dst[..., j:j+4] += value[..., j:j+4] atomically (four consecutive
    elements)."""
    _atomic_add_lanes("atomic_addx4", 4, dst, value, memory_order)


def atomic_add(dst, value, memory_order=None, return_prev=False, use_tma=False):
    """dst += value atomically: an element ``T.atomic_add(C[i, j], v)``, or
    a tile placed as T.copy places it, ``T.atomic_add(C[by * 64, 0], frag)``
    or ``T.atomic_add(dQ[b, m0:m1, h, :], frag)``. `memory_order`: the
    atomics are acq_rel, which satisfies every order up to acq_rel.
    `use_tma` (TileLang: a tile's add as a TMA reduction) chooses only how
    the adds are issued, not their result: accepted, the compiler issues
    them itself."""
    _check_atomic_options("T.atomic_add", memory_order, return_prev,
                          element=isinstance(dst, _Access)
                          and not isinstance(value, TileBuffer))
    if isinstance(value, TileBuffer):
        buffer, at = _copy_side(dst, "T.atomic_add")
        shape = _tile_shape(value, "T.atomic_add")
        if not _tile_converts(value.type, buffer.type):
            raise TileLangError(
                "T.atomic_add of a %s tile to %s elements: the tile ops do not "
                "make that conversion; T.copy the tile to a %s tile first"
                % (value.dtype, buffer.dtype, buffer.dtype))
        if _is_remapped(buffer):
            _atomic_add_elements(_side_region(buffer, at, shape), value, shape)
            return
        _require_tile_types(value, buffer)
        name, offsets, sizes = _placed(buffer, at, shape, "T.atomic_add")
        _builder().op("tile.atomic_add", [value.name, name] + offsets, (),
                      {"dst_sizes": _i64_array(sizes)} if sizes else None)
        return
    if not isinstance(dst, _Access):
        raise TileLangError("T.atomic_add of a scalar adds to one element: "
                            "its destination is buffer[indices]")
    value = _convert(_as_expr(value, dst.buffer.type), dst.buffer.type)
    buffer, indices = _storage_of(dst.buffer, dst.indices)
    if return_prev:
        # The element's value before the addition (TileLang's return_prev,
        # a histogram's slot): the read-modify-write's result.
        if buffer.packed or dst.buffer.type == "i1":
            raise TileLangError("T.atomic_add(return_prev=True) of %s elements "
                                "is not supported" % dst.buffer.dtype)
        old = _atomic_rmw("addf" if _is_float(value.type) else "addi",
                          value.name, buffer.name, [i.name for i in indices],
                          _ir(value.type))
        return Expr(old, value.type)
    _require_tile_types(buffer)
    _builder().op("tile.atomic_add", [value.name, buffer.name] +
                  [i.name for i in indices])


def _atomic_add_elements(region, tile, shape):
    """T.atomic_add of a tile into a region, element by element (a global
    tensor placed by T.Layout(shape, fn)); elements past the tensor's edge
    are dropped, as tile.atomic_add drops them."""
    # As T.copy places a tile: a slice whose extent is known only at run
    # time (dQ[s0 + k * n:s0 + (k + 1) * n, h, :]) takes the tile's.
    dims = region.match(shape, "T.atomic_add")
    for ivs in Parallel(*shape):
        ivs = ivs if isinstance(ivs, tuple) else (ivs,)
        along = [(d, iv) for d, iv in zip(dims, ivs) if d >= 0]
        at = _region_at(region, [d for d, _ in along], [iv for _, iv in along])
        inside = _region_inside(region, at)
        with (contextlib.nullcontext() if inside is None else _branch(inside)):
            atomic_add(region.buffer[at], tile[ivs])


# --------------------------------------------------------------------------
# Reducers: T.alloc_reducer, an epoch of contributions from parallel loops
# --------------------------------------------------------------------------

# reducer op -> (tile.reduce kind, the scalar combine of _binary)
_REDUCER_OPS = {"sum": ("sum", "add"), "max": ("max", "max"),
                "min": ("min", "min"), "bitand": ("bitand", "and"),
                "bitor": ("bitor", "or"), "bitxor": ("bitxor", "xor")}


class _ReducerError(TileLangError, AssertionError):
    """A reducer declared against its op's rules (TileLang asserts)."""


class _Reducer(TileBuffer):
    """``acc = T.alloc_reducer(shape, dtype, op)``: a fragment whose epoch
    T.reducer_init opens, T.reducer_update(acc[i], v) contributes to once
    per logical iteration of the enclosing T.Parallel, and
    T.finalize_reducer(acc, out) closes. While the epoch is open the tile
    holds the starting value; each parallel loop's contributions are
    gathered in a fragment over the loop's iteration space (one element per
    iteration, so no replica of an iteration counts twice), reduced with
    tile.reduce over the dimensions the index does not name, and combined
    into the tile once, after the loop."""

    state = "new"  # then "open" (after T.reducer_init), "final"

    def __setitem__(self, key, value):
        if self.state == "open":
            raise TileLangError(
                "illegal store to reducer %s: contribute with "
                "T.reducer_update(%s[...], value)" % (self.label, self.label))
        super().__setitem__(key, value)

    @property
    def label(self):
        return self.name.lstrip("%")


def _check_not_open_reducer(buffer, action):
    if isinstance(buffer, _Reducer) and buffer.state == "open":
        raise TileLangError(
            "illegal %s reducer %s while its epoch is open: T.reducer_init, "
            "T.reducer_update and T.finalize_reducer are its only uses until "
            "it is finalized" % (action, buffer.label))


def _check_not_reducer(buffer, what):
    if isinstance(buffer, _Reducer):
        raise TileLangError(
            "illegal %s of reducer %s: T.reducer_init sets a reducer"
            % (what, buffer.label))


def _reducer_identity(op, type_):
    if op in ("sum", "bitor", "bitxor"):
        return _constant(0.0 if _is_float(type_) else 0, type_)
    bits = _INT_WIDTH.get(type_)
    if op == "bitand":
        return _constant((1 << bits) - 1 if _is_unsigned(type_) else -1, type_)
    if type_ == "f8E8M0FNU":  # no sign: from 2^-127 up to 2^127
        return _constant(2.0 ** -127 if op == "max" else 2.0 ** 127, type_)
    if _is_float(type_):
        # Types without infinities start from their extreme finite values.
        extreme = float("inf") if _NONFINITE_BITS.get(type_, (0, 0, 1))[2] \
            else _FLOAT_MAX[type_][0]
        return _constant(-extreme if op == "max" else extreme, type_)
    if _is_unsigned(type_):
        return _constant(0 if op == "max" else (1 << bits) - 1, type_)
    return _constant(-(1 << (bits - 1)) if op == "max" else (1 << (bits - 1)) - 1,
                     type_)


def alloc_reducer(shape, dtype, op="sum", replication=None):
    """A reducer tile (see _Reducer); `op` is sum, max, min, bitand, bitor
    or bitxor (the bitwise ones on integers)."""
    if op not in _REDUCER_OPS:
        raise TileLangError("T.alloc_reducer: unknown op %r (sum, max, min, "
                            "bitand, bitor, bitxor)" % (op,))
    reducer = _alloc("alloc_fragment", "fragment", shape, dtype, cls=_Reducer)
    if op.startswith("bit") and _is_float(reducer.type):
        raise _ReducerError("T.alloc_reducer: op %r needs an integer dtype, "
                            "got %s" % (op, _dtype_name(dtype)))
    if op in ("max", "min") and _is_unsigned(reducer.type):
        raise _ReducerError("T.alloc_reducer: op %r of unsigned integers (%s) "
                            "is not supported: the tile ops compare integers "
                            "as signed" % (op, _dtype_name(dtype)))
    reducer.op = op
    frame = _user_frame()
    reducer.line = frame.f_lineno if frame is not None else None
    _builder().reducers.append(reducer)
    return reducer


def reducer_init(reducer, init=None):
    """Opens the reducer's epoch; `init` is the starting value, combined
    once into every output (the op's identity without it)."""
    if not isinstance(reducer, _Reducer):
        raise TileLangError("T.reducer_init takes a T.alloc_reducer tile")
    if reducer.state == "open":
        raise TileLangError("double T.reducer_init of reducer %s: its epoch "
                            "is open already" % reducer.label)
    if init is None:
        value = _reducer_identity(reducer.op, reducer.type)
    else:
        if isinstance(init, (Expr, _Var)):
            given = _as_expr(init).type
            if given != reducer.type:
                raise TileLangError(
                    "the T.reducer_init value's dtype (%s) does not match "
                    "reducer %s's (%s)" % (given, reducer.label, reducer.type))
        value = _convert(_as_expr(init, reducer.type), reducer.type)
    builder = _builder()
    _tile_fill(reducer, value)
    reducer.state = "open"
    reducer.scope = builder.opened[-1] if builder.opened else None


class _ReduceSite:
    """The contributions of one T.Parallel to one reducer at one index form
    (per reducer dimension: a loop dimension of the parallel, or a
    constant)."""

    def __init__(self, frame, reducer, form):
        self.frame, self.reducer, self.form = frame, reducer, form
        self.kind, self.combine_kind = _REDUCER_OPS[reducer.op]
        builder = _builder()
        self.partial = alloc_fragment(frame.extents, reducer.dtype)
        with builder.before(frame.frame):
            _tile_fill(self.partial, _reducer_identity(reducer.op, reducer.type))

    def add(self, value):
        at = tuple(self.frame.ivs)
        self.partial[at] = _binary(self.combine_kind, self.partial[at], value)

    def combine(self):
        """After the loop: reduces the partials over the loop dimensions the
        index does not name, then combines them into the reducer."""
        frame = self.frame
        named = {d for kind, d in self.form if kind == "loop"}
        current, dims = self.partial, list(range(len(frame.extents)))
        for position in reversed(range(len(dims))):
            if dims[position] in named:
                continue
            rest = dims[:position] + dims[position + 1:]
            reduced = alloc_fragment([frame.extents[d] for d in rest] or [1],
                                     self.reducer.dtype)
            _reduce(self.kind, current, reduced, position, True)
            current, dims = reduced, rest
        reducer = self.reducer
        for ivs in Parallel(*current.dims):
            ivs = ivs if isinstance(ivs, tuple) else (ivs,)
            loop = dict(zip(dims, ivs))
            key = tuple(loop[d] if kind == "loop" else d
                        for kind, d in self.form)
            value = current[ivs if dims else (0,)]
            before = TileBuffer.__getitem__(reducer, key)
            before.internal = True
            TileBuffer.__setitem__(reducer, key, _binary(
                self.combine_kind, before, value))


def reducer_update(target, value):
    """Contributes `value` to ``acc[indices]`` once per logical iteration of
    the enclosing T.Parallel; each index is one of that loop's variables
    or a constant."""
    if not (isinstance(target, _Access) and isinstance(target.buffer, _Reducer)):
        raise TileLangError("T.reducer_update expects acc[indices] of a "
                            "T.alloc_reducer tile as its first argument")
    reducer = target.buffer
    if reducer.state == "new":
        raise TileLangError("T.reducer_update of reducer %s before "
                            "T.reducer_init" % reducer.label)
    if reducer.state == "final":
        raise TileLangError("T.reducer_update of reducer %s after "
                            "T.finalize_reducer" % reducer.label)
    builder = _builder()
    if not builder.parallels:
        raise TileLangError(
            "T.reducer_update outside any T.Parallel: a reducer counts one "
            "contribution per iteration of a parallel loop")
    frame = builder.parallels[-1]
    names = [iv.name for iv in frame.ivs]
    inside = builder.defined_since(frame.frame)
    form = []
    for axis, index in enumerate(target.static):
        if isinstance(index, int):
            form.append(("const", index))
        elif isinstance(index, Expr) and index.name in names:
            d = names.index(index.name)
            if ("loop", d) in form:
                raise TileLangError(
                    "T.reducer_update(%s[...]): a loop variable indexes two "
                    "dimensions" % reducer.label)
            form.append(("loop", d))
        elif isinstance(index, (Expr, _Var)) and \
                _as_expr(index).name not in inside:
            # The same in every iteration (an enclosing serial loop's
            # variable, a block index): one output per execution of the loop.
            form.append(("value", _as_expr(index)))
        else:
            raise TileLangError(
                "T.reducer_update(%s[...]): index %d must be a variable of "
                "the enclosing T.Parallel, a value computed before it, or a "
                "constant" % (reducer.label, axis))
    key = (id(reducer), tuple((kind, getattr(v, "name", v)) for kind, v in form))
    site = frame.sites.get(key)
    if site is None:
        site = frame.sites[key] = _ReduceSite(frame, reducer, form)
    site.add(_convert(_as_expr(value, reducer.type), reducer.type))


def finalize_reducer(reducer, dst=None, batch=1, annotations=None):
    """Closes the reducer's epoch and writes its result to `dst` (in place
    without it)."""
    if not isinstance(reducer, _Reducer):
        raise TileLangError("T.finalize_reducer takes a T.alloc_reducer tile")
    if reducer.state != "open":
        raise TileLangError("T.finalize_reducer of reducer %s without an open "
                            "epoch (T.reducer_init)" % reducer.label)
    # The finalize runs once per init: in the init's region, or in branches
    # nested in it (never in a loop the init is not in, nor after a loop
    # that reran the init).
    opened = _builder().opened
    scope = next((i for i, region in enumerate(opened)
                  if region is reducer.scope), None)
    if scope is None or builtins.any(
            region.name != "scf.if" for region in opened[scope + 1:]):
        raise TileLangError(
            "T.finalize_reducer(%s) is not in the scope of its T.reducer_init: "
            "put both in the same loop body (a finalize may be in a branch "
            "nested there)" % reducer.label)
    reducer.state = "final"
    if dst is not None:
        copy(reducer, dst)


class Layout:
    """A layout for T.annotate_layout: a `#tile.swizzle` of a shared tile or
    a `#tile.fragment` of a fragment, as MLIR attribute text; or TileLang's
    ``T.Layout(shape, forward_fn)``, the place of element (i, j, ...) of a
    global tensor given as coordinates of its storage (forward_fn returns
    them; their bounds are the storage's shape)."""

    def __init__(self, attribute, forward_fn=None):
        if forward_fn is None:
            self.attribute, self.shape, self.forward = attribute, None, None
            return
        shape = (attribute,) if isinstance(attribute, int) else tuple(attribute)
        if not callable(forward_fn):
            raise TileLangError("T.Layout(shape, forward_fn): forward_fn is a "
                                "function of the %d coordinates, got %r"
                                % (len(shape), forward_fn))
        self.attribute, self.shape, self.forward = None, shape, forward_fn

    def storage_shape(self, what):
        """The extents of the storage coordinates forward_fn gives over the
        layout's shape (interval bounds of its +, -, *, // and %)."""
        if not builtins.all(isinstance(d, int) and d > 0 for d in self.shape):
            raise TileLangError("%s: T.Layout(shape, fn) needs a static shape, "
                                "got %r" % (what, list(self.shape)))
        out = self.forward(*[_Bounds(0, d - 1) for d in self.shape])
        out = out if isinstance(out, (tuple, list)) else (out,)
        extents = []
        for k, bounds in enumerate(out):
            bounds = _Bounds.of(bounds)
            if bounds.lo < 0:
                raise TileLangError("%s: coordinate %d of the layout's storage "
                                    "can be negative (%d)" % (what, k, bounds.lo))
            extents.append(bounds.hi + 1)
        return extents

    def __repr__(self):
        if self.forward is not None:
            return "T.Layout(%r, %r)" % (list(self.shape), self.forward)
        return "T.Layout(%r)" % self.attribute


class _Bounds:
    """Interval bounds [lo, hi] of a layout function's integer value."""

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    @staticmethod
    def of(value):
        if isinstance(value, _Bounds):
            return value
        if isinstance(value, int) and not isinstance(value, type(True)):
            return _Bounds(value, value)
        raise TileLangError("layout functions combine coordinates with ints, "
                            "got %r" % (value,))

    def __add__(self, o):
        o = _Bounds.of(o)
        return _Bounds(self.lo + o.lo, self.hi + o.hi)

    __radd__ = __add__

    def __sub__(self, o):
        o = _Bounds.of(o)
        return _Bounds(self.lo - o.hi, self.hi - o.lo)

    def __rsub__(self, o):
        return _Bounds.of(o) - self

    def __mul__(self, o):
        o = _Bounds.of(o)
        corners = [a * b for a in (self.lo, self.hi) for b in (o.lo, o.hi)]
        return _Bounds(builtins.min(corners), builtins.max(corners))

    __rmul__ = __mul__

    def _divisor(self, o, op):
        if not isinstance(o, int) or isinstance(o, type(True)) or o <= 0:
            raise TileLangError("layout functions take %s by a positive int, "
                                "got %r" % (op, o))
        return o

    def __floordiv__(self, o):
        o = self._divisor(o, "//")
        return _Bounds(self.lo // o, self.hi // o)

    def __mod__(self, o):
        o = self._divisor(o, "%")
        if self.lo // o == self.hi // o:
            return _Bounds(self.lo % o, self.hi % o)
        return _Bounds(0, o - 1)


class _AffineExpr:
    """An affine expression of a layout's coordinates (what T.Fragment's
    functions are traced with): +, -, * by an int, // and % by an int."""

    _ADDITIVE, _MULTIPLICATIVE, _ATOM = 1, 2, 3

    def __init__(self, text, level=_ATOM, op=None):
        self.text, self.level, self.op = text, level, op

    @staticmethod
    def _of(value):
        if isinstance(value, _AffineExpr):
            return value
        if isinstance(value, int) and not isinstance(value, type(True)):
            return _AffineExpr(str(value))
        raise TileLangError("layout functions combine coordinates with ints, "
                            "got %r" % (value,))

    def _binary(self, op, other, reverse=False):
        a, b = (self._of(other), self) if reverse else (self, self._of(other))
        level = self._ADDITIVE if op in ("+", "-") else self._MULTIPLICATIVE
        # Parenthesize what the affine grammar (left-associative, * floordiv
        # mod above + -) would read otherwise, and mixed products.
        wrap_a = a.level < level or (level == self._MULTIPLICATIVE and
                                     a.level == level and a.op != op)
        wrap_b = b.level < level or (b.level == level and
                                     (op == "-" or level == self._MULTIPLICATIVE))
        text = "%s %s %s" % ("(%s)" % a.text if wrap_a else a.text, op,
                             "(%s)" % b.text if wrap_b else b.text)
        return _AffineExpr(text, level, op)

    def __add__(self, o): return self._binary("+", o)
    def __radd__(self, o): return self._binary("+", o, True)
    def __sub__(self, o): return self._binary("-", o)
    def __rsub__(self, o): return self._binary("-", o, True)
    def __mul__(self, o): return self._binary("*", o)
    def __rmul__(self, o): return self._binary("*", o, True)
    def __floordiv__(self, o): return self._binary("floordiv", o)
    def __mod__(self, o): return self._binary("mod", o)


def _affine_map(fn, count, what):
    dims = [_AffineExpr("d%d" % i) for i in range(count)]
    results = fn(*dims)
    results = results if isinstance(results, (tuple, list)) else (results,)
    texts = [_AffineExpr._of(r).text for r in results]
    if not texts:
        raise TileLangError("the %s function returns nothing" % what)
    return "(%s) -> (%s)" % (", ".join(d.text for d in dims), ", ".join(texts))


class Fragment(Layout):
    """A fragment layout: ``T.Fragment((64, 32), forward_thread_fn=lambda i, j:
    (i * 32 + j) % 128, forward_index_fn=lambda i, j: (i * 32 + j) // 128)``.
    With `replicate` R > 1, forward_thread_fn takes one more argument (the
    replica, 0..R-1) and each element lives on R threads. The dialect
    checks the layout element by element; errors point at the line that
    uses it."""

    def __init__(self, shape, forward_thread_fn, forward_index_fn=None,
                 replicate=1, threads=None):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if threads is None:
            threads = getattr(_state, "threads", None)
            if threads is None:
                raise TileLangError("T.Fragment outside a T.Kernel needs "
                                    "threads=")
        if forward_index_fn is None:
            # Row-major elements dealt round-robin over the threads.
            def forward_index_fn(*coords):
                linear = coords[0]
                for coord, extent in zip(coords[1:], shape[1:]):
                    linear = linear * extent + coord
                return linear // threads
        thread = _affine_map(forward_thread_fn,
                             len(shape) + (1 if replicate > 1 else 0), "thread")
        index = _affine_map(forward_index_fn, len(shape), "index")
        attribute = "#tile.fragment<[%s], thread = %s, index = %s, threads = %d%s>" % (
            ", ".join(str(d) for d in shape), thread, index, threads,
            ", replicate = %d" % replicate if replicate > 1 else "")
        super().__init__(attribute)

    def repeat(self, repeats, repeat_on_thread=False, lower_dim_first=True):
        raise TileLangError("Fragment.repeat is not supported yet: write the "
                            "repeated layout as one T.Fragment")


def make_swizzled_layout(buffer):
    """The XOR swizzle that makes tensor-core operand loads of `buffer`
    (rows of 2 to 8 16-byte vectors or more) hit distinct shared-memory
    banks: the compiler's own choice (getLdmatrixSwizzle)."""
    from ._tilelang import ldmatrix_swizzle
    swizzle = ldmatrix_swizzle(list(buffer.dims), buffer.type)
    if swizzle is None:
        raise TileLangError("no swizzle for rows of %d %s elements (a power of "
                            "two of at least two 16-byte vectors)"
                            % (buffer.dims[-1], buffer.dtype))
    return Layout(swizzle)


def annotate_layout(layouts):
    """Fixes the layouts of on-chip tiles: ``T.annotate_layout({A_shared:
    T.make_swizzled_layout(A_shared)})``."""
    builder = _builder()
    for buffer, layout in layouts.items():
        if isinstance(layout, Layout) and layout.forward is not None:
            if isinstance(buffer, TileBuffer) and buffer.space == "shared":
                layout = _row_major_layout(buffer, layout)
            else:
                _remap_global(builder, buffer, layout)
                continue
        if not isinstance(buffer, TileBuffer) or buffer.space is None:
            raise TileLangError("T.annotate_layout takes on-chip tiles, got %r"
                                % (buffer,))
        text = layout.attribute if isinstance(layout, Layout) else str(layout)
        _require_tile_types(buffer)
        builder.op("tile.annotate_layout", (buffer.name,), (),
                   {"layout": text})


def _row_major_layout(buffer, layout):
    """A T.Layout(shape, fn) of a shared tile that maps every coordinate to
    itself, as the layout that fixes the tile row-major (#tile.swizzle<0,
    0, 0>); other maps of shared tiles are refused by name."""
    name = buffer.name.lstrip("%")
    what = "T.annotate_layout of the shared tile %s" % name
    dims = list(buffer.dims)
    if list(layout.shape) != dims:
        raise TileLangError("%s: the layout's shape %s is not the tile's %s"
                            % (what, list(layout.shape), dims))
    if math.prod(dims) > (1 << 16):
        raise TileLangError("%s: T.Layout(shape, fn) of a shared tile of more "
                            "than 65536 elements cannot be checked; use "
                            "T.make_swizzled_layout or none" % what)
    for coords in itertools.product(*[range(d) for d in dims]):
        out = layout.forward(*coords)
        out = list(out) if isinstance(out, (tuple, list)) else [out]
        if out != list(coords):
            raise TileLangError(
                "%s: T.Layout(shape, fn) of a shared tile is supported when fn "
                "maps each coordinate to itself (the row-major layout); it maps "
                "%s to %s. Shared tiles take T.make_swizzled_layout or the "
                "compiler's choice" % (what, list(coords), out))
    return Layout("#tile.swizzle<0, 0, 0>")


def _remap_global(builder, buffer, layout):
    """T.annotate_layout({dQ: T.Layout(dQ.shape, fn)}) of a global tensor
    (TileLang's FlashAttention backward keeps dQ in the order of its
    accumulator fragments): in this kernel, element (i, ...) of the tensor
    is the element fn(i, ...) of its storage, a row-major view of the same
    memory with the shape fn's bounds give. Kernels that annotate the same
    layout agree on where each element is."""
    name = buffer.name.lstrip("%") if isinstance(buffer, TileBuffer) else buffer
    what = "T.annotate_layout of %s" % name
    if not isinstance(buffer, TileBuffer) or buffer.space is not None:
        raise TileLangError("%s: T.Layout(shape, forward_fn) places the elements "
                            "of a global tensor; on-chip tiles take T.Fragment "
                            "or a swizzle (T.make_swizzled_layout)" % what)
    if builder.kernel is None:
        raise TileLangError("%s: a global tensor's layout applies inside T.Kernel"
                            % what)
    if "strided<" in buffer.memref_type:
        raise TileLangError("%s: a T.StridedTensor's elements are placed by its "
                            "strides; T.Layout takes a contiguous tensor" % what)
    dims = list(buffer.dims)
    if list(layout.shape) != dims:
        raise TileLangError("%s: the layout's shape %s is not the tensor's %s"
                            % (what, list(layout.shape), dims))
    storage = layout.storage_shape(what)
    count, room = 1, 1
    for d in dims:
        count *= d
    for d in storage:
        room *= d
    if room != count:
        raise TileLangError(
            "%s: the layout places the %d elements in a storage of shape %s "
            "(%d elements); it must be a reordering of the tensor's elements"
            % (what, count, storage, room))
    flat = builder.fresh("flat")
    view = builder.fresh("storage")
    rank = len(dims)
    flat_type = "memref<%dx%s>" % (count, _ir(buffer.type))
    view_buffer = TileBuffer(view, storage, buffer.dtype)
    _collapse(buffer.name, rank, flat, flat_type)
    _expand(flat, storage, view, view_buffer.memref_type)
    builder.remaps[buffer.name] = (builder.kernel, layout.forward, view_buffer)


def _storage_of(buffer, indices):
    """(buffer, indices) where element `indices` of `buffer` lives: its
    annotated storage in this kernel (T.Layout(shape, fn)), else itself."""
    builder = _builder()
    remap = builder.remaps.get(buffer.name)
    if remap is None or remap[0] is not builder.kernel:
        return buffer, indices
    _, forward, storage = remap
    out = forward(*indices)
    out = out if isinstance(out, (tuple, list)) else (out,)
    return storage, [_index(k) for k in out]


def _is_remapped(buffer):
    builder = _builder()
    remap = builder.remaps.get(getattr(buffer, "name", None))
    return remap is not None and remap[0] is builder.kernel


def _has_safe_value(buffer):
    builder = _builder()
    safe = builder.safe_values.get(getattr(buffer, "name", None))
    return safe is not None and safe[0] is builder.kernel


def annotate_safe_value(safe_values):
    """``T.annotate_safe_value({A: v})`` (TileLang's): in this kernel, a
    read of the global buffer A outside its bounds gives v instead of
    reading memory: element reads, and T.copy's reads past its edge (those
    copies run element by element)."""
    builder = _builder()
    if builder.kernel is None:
        raise TileLangError("T.annotate_safe_value applies inside T.Kernel")
    for buffer, value in safe_values.items():
        if not isinstance(buffer, TileBuffer) or buffer.space is not None:
            raise TileLangError("T.annotate_safe_value takes global tensors, "
                                "got %r" % (buffer,))
        value = _convert(_as_expr(value, buffer.type), buffer.type)
        builder.safe_values[buffer.name] = (builder.kernel, value)


def annotate_l2_hit_ratio(ratios):
    """TileLang's ``T.annotate_l2_hit_ratio({B: 0.8})``: the share of a
    global buffer's accesses meant to persist in L2 (an access-policy
    window on the launch). Checked and accepted; the launch sets no window
    here, which changes timing only (a one-time RuntimeWarning says so)."""
    if not isinstance(ratios, dict):
        raise TileLangError("T.annotate_l2_hit_ratio takes a dict of global "
                            "buffers to hit ratios, got %r" % (ratios,))
    for buffer, ratio in ratios.items():
        if not isinstance(buffer, TileBuffer) or buffer.space is not None:
            raise TileLangError("T.annotate_l2_hit_ratio takes global tensors, "
                                "got %r" % (buffer,))
        if isinstance(ratio, builtins.bool) or not isinstance(
                ratio, (int, builtins.float)) or not 0.0 < ratio <= 1.0:
            raise TileLangError("T.annotate_l2_hit_ratio: a hit ratio is in "
                                "(0, 1], got %r" % (ratio,))
    if "l2_hit_ratio" not in _hints_warned:
        _hints_warned.add("l2_hit_ratio")
        import warnings
        warnings.warn("T.annotate_l2_hit_ratio is accepted and ignored: "
                      "kernels launch without an L2 access-policy window "
                      "(results do not depend on it)", RuntimeWarning,
                      stacklevel=2)


def use_swizzle(panel_size, order="row", enable=True):
    """Rasterizes the block grid in panels for L2 reuse."""
    if not enable:
        return
    attrs = {"panel_size": "%d : i64" % int(panel_size)}
    if order != "row":
        attrs["order"] = "#tile.raster<column>"
    _builder().op("tile.use_swizzle", attrs=attrs)


# --------------------------------------------------------------------------
# Loops
# --------------------------------------------------------------------------

def Parallel(*extents, coalesced_width=None, loop_layout=None,
             annotations=None, prefer_async=False):
    """``for i, j in T.Parallel(128, 128):`` elementwise over a tile. An
    extent known only at run time (``T.Parallel(n)``, n a device value) is
    covered in chunks of the block's thread count: a sequential loop over
    the chunks, each a parallel loop whose iterations past the end do
    nothing. TileLang's lowering hints (coalesced_width, loop_layout,
    annotations, prefer_async: copy a gather into shared memory with
    cp.async) are checked and accepted: the compiler chooses how the loop
    runs, and the loop completes before what follows reads its results."""
    if not isinstance(prefer_async, builtins.bool):
        raise TileLangError("T.Parallel: prefer_async is a bool, got %r"
                            % (prefer_async,))
    if annotations is not None and not isinstance(annotations, dict):
        raise TileLangError("T.Parallel: annotations is a dict, got %r"
                            % (annotations,))
    if not extents:
        raise TileLangError("T.Parallel takes at least one extent")
    if not builtins.all(isinstance(e, int) for e in extents):
        return _dynamic_parallel(extents)
    if not builtins.all(e > 0 for e in extents):
        raise TileLangError("T.Parallel takes positive extents, got %r"
                            % (extents,))
    return _static_parallel(extents)


def _dynamic_parallel(extents):
    for axis, e in enumerate(extents):
        if not isinstance(e, (int, Expr, _Var)) or (
                isinstance(e, Expr) and _is_float(e.type)):
            raise TileLangError("T.Parallel: extent %d must be an integer, got %r"
                                % (axis, e))
    sizes = [_index(e) for e in extents]
    total = sizes[0]
    for size in sizes[1:]:
        total = total * size
    chunk = int(getattr(_state, "threads", None) or 128)
    for c in serial(ceildiv(total, chunk)):
        for i in _static_parallel((chunk,)):
            linear = c * chunk + i
            with _branch(linear < total):
                coords = []
                rest = linear
                for size in reversed(sizes[1:]):
                    coords.append(rest % size)
                    rest = rest // size
                coords.append(rest)
                coords.reverse()
                yield coords[0] if len(coords) == 1 else tuple(coords)


def _static_parallel(extents):
    builder = _builder()
    if builder.parallels:
        # Inside a T.Parallel body (a thread's iteration): the nested loop's
        # iterations run in that thread, in order (a tile.parallel there
        # would be spread over the block again, each thread running the
        # iterations it owns of its own copy: most never run).
        yield from _serial_nest(extents)
        return
    ivs = [builder.fresh("i") for _ in extents]
    region = builder.open("tile.parallel", (), (), {"extents": _i64_array(extents)},
                          [(i, "index") for i in ivs], terminator="tile.yield")
    values = [Expr(i, "index") for i in ivs]
    frame = _ParallelFrame(region, values, extents)
    builder.parallels.append(frame)
    yield values[0] if len(values) == 1 else tuple(values)
    # Reached when the loop asks for the next iteration: the body is traced.
    builder.parallels.pop()
    builder.close()
    for site in frame.sites.values():
        site.combine()


def _serial_nest(extents):
    """One iteration per point of `extents`, as nested sequential loops
    (yielding the induction variables as T.Parallel does)."""
    loops = [serial(e) for e in extents]
    values = []
    for loop in loops:
        values.append(next(loop))
    yield values[0] if len(values) == 1 else tuple(values)
    for loop in reversed(loops):
        for _ in loop:  # closes the scf.for
            pass


class _ParallelFrame:
    """An open T.Parallel: where it starts, its induction variables, and the
    reducer contributions of its body (site per reducer and index form)."""

    def __init__(self, frame, ivs, extents):
        self.frame = frame  # the tile.parallel's open region (_Frame)
        self.ivs, self.extents = ivs, list(extents)
        self.sites = {}


parallel = Parallel  # TileLang's lower-case alias


def _range(start, stop, step):
    if stop is None:
        start, stop = 0, start
    return _index(start), _index(stop), _index(step)


def Pipelined(start, stop=None, num_stages=0, order=None, stage=None,
              sync=None, group=None):
    """``for k in T.Pipelined(n, num_stages=3):`` a loop whose copies the
    compiler overlaps with its compute. With a manual `stage` and no
    `num_stages`, the depth is max(stage) + 1, as TileLang infers it."""
    builder = _builder()
    lb, ub, step = _range(start, stop, 1)
    iv = builder.fresh("k")
    if not num_stages and stage:
        # A manual schedule without a depth: max(stage) + 1 (TileLang's).
        num_stages = builtins.max(int(s) for s in stage) + 1
    attrs = {"num_stages": "%d : i64" % builtins.max(int(num_stages), 1)}
    if order is not None:
        attrs["order"] = _i64_array(order)
    if stage is not None:
        attrs["stage"] = _i64_array(stage)
    builder.open("tile.pipelined", (lb.name, ub.name, step.name), (), attrs,
                 [(iv, "index")], terminator="tile.yield")
    yield Expr(iv, "index")
    builder.close()


def serial(start, stop=None, step=1):
    """``for i in T.serial(n):`` a sequential loop."""
    builder = _builder()
    lb, ub, step = _range(start, stop, step)
    iv = builder.fresh("s")
    builder.open("scf.for", (lb.name, ub.name, step.name), (), None,
                 [(iv, "index")], terminator="scf.yield")
    yield Expr(iv, "index")
    builder.close()


def unroll(start, stop=None, step=1, explicit=False, unroll_factor=None):
    """``for i in T.unroll(n):`` TileLang's unrolled loop: a sequential loop
    here (the same iterations in the same order; the backend unrolls what
    it chooses)."""
    return serial(start, stop, step)


def vectorized(start, stop=None, step=1):
    """``for i in T.vectorized(n):`` TileLang's per-thread vectorized loop:
    a sequential loop here (the same iterations; tile copies vectorize on
    their own)."""
    return serial(start, stop, step)


class _Branch:
    """An scf.if being traced (frontend.py's lowering of a Python ``if`` on
    a device value): the then-region is open; ``else_()`` switches to the
    else-region."""

    def __init__(self, builder):
        self.builder = builder
        self.has_else = False

    def else_(self):
        self.builder.next_region(1)
        self.has_else = True


def _while_loop(condition, lineno):
    """The loop of a Python ``while`` (frontend.py): the condition is traced
    in a fresh scf.while's before-region; when it is a device value the
    loop is that scf.while and its body is traced once (yields True);
    when it is a Python value the region is discarded and the loop is
    Python's (yields False per iteration)."""
    builder = _builder()
    loop = builder.open("scf.while", regions=2, terminator="scf.yield")
    value = condition()
    if not isinstance(value, (Expr, _Var)):
        builder.erase(loop)
        while value:
            yield False
            value = condition()
        return
    value = _as_expr(value)
    if value.type != "i1":
        value = _compare("ne", value, 0)
    builder.op("scf.condition", (value.name,))
    builder.next_region(1)
    yield True
    builder.close()


@contextlib.contextmanager
def _branch(condition):
    """The scf.if of a Python ``if`` whose condition is a device value
    (frontend.py); a non-i1 condition means ``!= 0``."""
    condition = _as_expr(condition)
    if condition.type != "i1":
        condition = _compare("ne", condition, 0)
    builder = _builder()
    builder.open("scf.if", (condition.name,), regions=2, terminator="scf.yield")
    branch = _Branch(builder)
    yield branch
    builder.close()


# --------------------------------------------------------------------------
# Scalar functions
# --------------------------------------------------------------------------

def ceildiv(a, b):
    """ceil(a / b) of non-negative integers."""
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return _binary("ceildiv", a, b)


def align_up(x, y):
    """`x` rounded up to a multiple of `y`: ceildiv(x, y) * y (TileLang's
    definition, negative `x` included)."""
    return ceildiv(x, y) * y


def max(a, b):  # noqa: A001 (TileLang's name)
    return _binary("max", a, b)


def min(a, b):  # noqa: A001 (TileLang's name)
    return _binary("min", a, b)


def _math(op, x):
    x = _as_expr(x)
    if not _is_float(x.type):
        raise TileLangError("%s of %s; convert with T.cast" % (op, x.type))
    return Expr(_builder().value("math." + op, (x.name,), x.type), x.type)


def abs(x):  # noqa: A001 (TileLang's name)
    x = _as_expr(x)
    if _is_float(x.type):
        return _math("absf", x)
    if _is_unsigned(x.type):
        return x
    return Expr(_builder().value("math.absi", (x.name,), _ir(x.type)), x.type)


def exp(x): return _math("exp", x)
def exp2(x): return _math("exp2", x)
def log(x): return _math("log", x)
def log2(x): return _math("log2", x)
def sqrt(x): return _math("sqrt", x)
def rsqrt(x): return _math("rsqrt", x)
def tanh(x): return _math("tanh", x)
def sin(x): return _math("sin", x)
def cos(x): return _math("cos", x)
def floor(x): return _math("floor", x)
def ceil(x): return _math("ceil", x)
def round(x): return _math("roundeven", x)  # noqa: A001 (TileLang's name)


def pow(x, y):  # noqa: A001 (TileLang's name)
    """x ** y of floats."""
    if not isinstance(x, Expr) and not isinstance(y, Expr):
        x = _as_expr(x)
    x, y = _unify(x, y)
    if not _is_float(x.type):
        raise TileLangError("T.pow of %s; convert with T.cast" % x.type)
    return Expr(_builder().value("math.powf", (x.name, y.name), x.type), x.type)


def sigmoid(x):
    """1 / (1 + exp(-x))."""
    x = _as_expr(x)
    return 1.0 / (1.0 + exp(-x))


def clamp(dst, min_val=None, max_val=None):
    """`dst` limited to [min_val, max_val] (a bound of None: none)."""
    if min_val is not None:
        dst = max(dst, min_val)
    if max_val is not None:
        dst = min(dst, max_val)
    return dst


def floordiv(a, b):
    """floor(a / b): Python's (and TileLang's) `//` on integers; on floats
    floor(a / b)."""
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    a, b = _unify(a, b)
    if _is_float(a.type):
        return floor(a / b)
    return _binary("floordiv", a, b)


def floormod(a, b):
    """a - floordiv(a, b) * b: the remainder with the sign of b (Python's
    `%`)."""
    if isinstance(a, int) and isinstance(b, int):
        return a % b
    return a - floordiv(a, b) * b


def truncdiv(a, b):
    """a / b rounded toward zero (C's integer division)."""
    if isinstance(a, int) and isinstance(b, int):
        return builtins.abs(a) // builtins.abs(b) * (1 if (a < 0) == (b < 0) else -1)
    return _binary("truncdiv", a, b)


def truncmod(a, b):
    """a - truncdiv(a, b) * b: the remainder with the sign of a (C's %)."""
    if isinstance(a, int) and isinstance(b, int):
        return a - truncdiv(a, b) * b
    return _binary("truncmod", a, b)


def assume(condition):
    """``T.assume(cond)``: a fact the programmer states. A Python value that
    is false is an error at once. A condition inside a kernel that reads only
    what the host knows before launching (dynamic sizes, scalar arguments)
    is checked at each call, before the kernel runs: when it is false the
    call fails with "Assume: <cond>" (TileLang's runtime check) and no
    kernel of the function runs. Other conditions (on block or thread
    indices, loaded values) are hints a correct program computes the same
    without; they are accepted and not used."""
    if isinstance(condition, (builtins.bool, int)) and not isinstance(condition, Expr):
        if not condition:
            raise TileLangError("T.assume of a condition that is false")
        return
    builder = _builder()
    kernel = builder.kernel
    if kernel is None or not isinstance(condition, Expr):
        return
    if condition.type != "i1":
        raise TileLangError("T.assume needs a comparison (a bool), got %s"
                            % condition.type)
    hoisted = builder.fresh("assume")
    if not builder.ir.hoist(condition.name, kernel.op, hoisted):
        return
    with builder.before(kernel):
        builder.op("tile.assume", (hoisted,), attrs={
            "message": _string_attr("Assume: " + _argument_text("assume"))})


def _argument_text(function):
    """The source text of the first argument of the user's call of
    `function` being traced (``N % 4 == 0`` of ``T.assume(N % 4 == 0)``),
    or its file:line when the source cannot be read."""
    frame = _user_frame()
    if frame is None:
        return "(unknown)"
    where = "%s:%d" % (os.path.basename(frame.f_code.co_filename), frame.f_lineno)
    try:
        positions = inspect.getframeinfo(frame).positions
        lines = linecache.getlines(frame.f_code.co_filename)
        if positions is None or positions.col_offset is None or not lines:
            return where
        first, last = positions.lineno, positions.end_lineno
        text = "".join(lines[first - 1:last])
        # The call's text: from its column on the first line to its end
        # column on the last.
        end = len(text) - len(lines[last - 1]) + positions.end_col_offset
        call = ast.parse(text[positions.col_offset:end].strip(), mode="eval").body
        if isinstance(call, ast.Call) and call.args and \
                getattr(call.func, "attr", getattr(call.func, "id", "")) == function:
            return ast.unparse(call.args[0])
    except (AttributeError, SyntaxError, ValueError, IndexError):
        pass
    return where


def func_attr(attrs):
    """``T.func_attr({...})``: TVM function attributes. "tir.noalias" and
    "global_symbol" are accepted (buffers never alias here; the kernel's
    name is the function's); others configure TVM and are refused by name."""
    if not isinstance(attrs, dict):
        raise TileLangError("T.func_attr takes a dict, got %s" % type(attrs).__name__)
    for key in attrs:
        if key not in ("tir.noalias", "global_symbol"):
            raise TileLangError(
                "T.func_attr key %r is a TVM function attribute tilelang_mlir "
                "does not have (accepted: 'tir.noalias', 'global_symbol'; the "
                "target is jit's target=)" % (key,))


def pdl_trigger():
    """TileLang's programmatic-dependent-launch trigger: the kernel launched
    after this one may begin launching once every block ran it
    (``griddepcontrol.launch_dependents`` on sm_90 and newer; nothing
    elsewhere). Only a kernel that waits (T.pdl_sync) launches early."""
    _current_kernel("T.pdl_trigger")
    _builder().op("tile.grid_launch_dependents")


def pdl_sync():
    """TileLang's programmatic-dependent-launch wait: the threads that run
    it wait until the kernels launched before this one completed and their
    writes are visible (``griddepcontrol.wait`` on sm_90 and newer, where
    the kernel launches with programmatic stream serialization and may start
    before its predecessor ends; nothing elsewhere, where kernels start after
    their predecessors completed)."""
    _current_kernel("T.pdl_sync")
    _builder().op("tile.grid_wait")


def sync_threads(barrier_id=None, arrive_count=None):
    """``T.sync_threads()``: a barrier of the block's threads (tile.sync_threads).
    The tile ops synchronize themselves; per-thread code (element accesses
    by T.get_thread_binding) needs it between one thread's write of shared
    memory and another's read. ``T.sync_threads(barrier_id, n)``, TileLang's
    named barrier of the n threads of an ``if tx < n:`` range: the barrier
    of that range (the compiler numbers the hardware barriers; it checks n
    is the range's thread count)."""
    _current_kernel("T.sync_threads")
    if arrive_count is None and barrier_id is not None:
        raise TileLangError("T.sync_threads(barrier_id) needs the number of "
                            "threads that arrive: T.sync_threads(id, n)")
    if arrive_count is None:
        _builder().op("tile.sync_threads")
        return
    if not isinstance(arrive_count, int) or isinstance(arrive_count, builtins.bool) \
            or arrive_count <= 0 or arrive_count % 32:
        raise TileLangError("T.sync_threads(%r, %r): a named barrier's thread "
                            "count is a positive multiple of 32 (whole warps)"
                            % (barrier_id, arrive_count))
    _builder().op("tile.sync_threads",
                  attrs={"threads": "%d : i64" % arrive_count})


# --------------------------------------------------------------------------
# Barriers the kernel author manages (TileLang's T.alloc_barrier family)
# --------------------------------------------------------------------------

class Barriers:
    """``T.alloc_barrier(count)`` or ``T.alloc_barrier([count] * n)``: n
    arrival barriers in shared memory (mbarriers on sm_90), each completing
    a phase once `count` threads arrived (``T.barrier_arrive``) and the
    bytes of the ``T.tma_copy`` transfers on it landed. ``bars[i]`` names
    barrier i (i may be a traced value); a single barrier is used as is."""

    def __init__(self, buffer, count, arrivals, cluster=False):
        self.buffer, self.count, self.arrivals = buffer, count, arrivals
        # T.alloc_cluster_barrier: other blocks of the cluster arrive too.
        self.cluster = cluster

    def __getitem__(self, index):
        if isinstance(index, builtins.int) and not 0 <= index < self.count:
            raise TileLangError("barrier %d of %d" % (index, self.count))
        return _BarrierRef(self, _index(index))

    def __len__(self):
        return self.count


class _BarrierRef:
    def __init__(self, barriers, index):
        self.barriers, self.index = barriers, index

    def operands(self):
        return [self.barriers.buffer.name, self.index.name]


def _barrier(mbarrier, what):
    if isinstance(mbarrier, _BarrierRef):
        return mbarrier
    if isinstance(mbarrier, Barriers):
        if mbarrier.count != 1:
            raise TileLangError(
                "%s: T.alloc_barrier made %d barriers here; name one of them "
                "(bars[i])" % (what, mbarrier.count))
        return mbarrier[0]
    raise TileLangError("%s takes a barrier of T.alloc_barrier, got %r"
                        % (what, mbarrier))


def alloc_cluster_barrier(arrive_count):
    """TileLang's T.alloc_cluster_barrier: barriers as T.alloc_barrier's
    that the threads of other blocks of the thread block cluster may arrive
    on too (``T.mbarrier_arrive(bar, cta_id)``); synchronize the cluster
    (``T.cluster_sync()``) before any block arrives on another's, and keep
    the owner alive until the arrivals landed."""
    barriers = alloc_barrier(arrive_count, what="T.alloc_cluster_barrier")
    barriers.cluster = True
    return barriers


def alloc_barrier(arrive_count, what="T.alloc_barrier"):
    """TileLang's T.alloc_barrier: barriers the kernel's threads arrive on
    and wait for (``T.barrier_arrive``, ``T.barrier_wait``), which
    ``T.tma_copy`` transfers also count their bytes on. `arrive_count` is
    the number of threads that arrive in each phase; a list allocates one
    barrier per entry (all entries equal here)."""
    _current_kernel(what)
    counts = [arrive_count] if isinstance(arrive_count, builtins.int) \
        else list(arrive_count)
    if not counts or not builtins.all(
            isinstance(c, builtins.int) and not isinstance(c, builtins.bool)
            and c > 0 for c in counts):
        raise TileLangError("%s takes a positive thread count or a list of "
                            "them, got %r" % (what, arrive_count))
    if len(set(counts)) != 1:
        raise TileLangError(
            "%s(%r): the barriers of one allocation share their thread count "
            "here; allocate each count separately" % (what, counts))
    buffer = _alloc("alloc_shared", "shared", (len(counts),), "int64")
    builder = _builder()
    with builder.kernel_level() or contextlib.nullcontext():
        builder.op("tile.barrier_init", (buffer.name,),
                   attrs={"arrivals": "%d : i64" % counts[0]})
    return Barriers(buffer, len(counts), counts[0])


def barrier_arrive(mbarrier):
    """Every thread that runs it arrives once on the barrier (TileLang's
    T.barrier_arrive, ``mbarrier.arrive``): its earlier accesses are then
    visible to whoever waits for the phase."""
    _current_kernel("T.barrier_arrive")
    ref = _barrier(mbarrier, "T.barrier_arrive")
    _builder().op("tile.barrier_arrive", ref.operands(),
                  attrs={"per_thread": "unit"})


def mbarrier_arrive(mbarrier, cta_id=None):
    """T.mbarrier_arrive: as T.barrier_arrive; with `cta_id`, every thread
    that runs it arrives on that barrier of the block of rank `cta_id` in
    its thread block cluster (a barrier of T.alloc_cluster_barrier;
    ``mapa`` and a cluster-scope ``mbarrier.arrive`` on sm_90)."""
    if cta_id is None:
        barrier_arrive(mbarrier)
        return
    _current_kernel("T.mbarrier_arrive")
    ref = _barrier(mbarrier, "T.mbarrier_arrive")
    if not ref.barriers.cluster:
        raise TileLangError("T.mbarrier_arrive(barrier, cta_id): the barrier "
                            "of another block of the cluster is one of "
                            "T.alloc_cluster_barrier, not of T.alloc_barrier")
    _builder().op("tile.cluster_barrier_arrive",
                  ref.operands() + [_index(cta_id).name])


def barrier_wait(mbarrier, parity):
    """Each thread that runs it waits until the barrier's phase of this
    parity (0 or 1; TileLang's ``k % 2``) completed (TileLang's
    T.barrier_wait, ``mbarrier.try_wait.parity``). A fresh barrier counts
    its phase of parity 1 as complete."""
    _current_kernel("T.barrier_wait")
    ref = _barrier(mbarrier, "T.barrier_wait")
    if isinstance(parity, builtins.int) and parity not in (0, 1):
        raise TileLangError("T.barrier_wait: a phase parity is 0 or 1, got %d"
                            % parity)
    _builder().op("tile.barrier_wait", ref.operands() + [_index(parity).name])


def mbarrier_wait_parity(mbarrier, parity):
    """T.mbarrier_wait_parity: T.barrier_wait."""
    barrier_wait(mbarrier, parity)


def tma_copy(src, dst, barrier=None, *, leader_scope_threads=None, **hints):
    """TileLang's T.tma_copy. With `barrier`, a global region into a shared
    tile: one thread of the block (or of its thread range) issues the
    transfer and adds its bytes to the barrier's expected transactions; the
    phase completes when they landed and the barrier's threads arrived
    (``T.barrier_arrive`` after the copy, then ``T.barrier_wait``). Without
    one, a shared tile into a global region: the copy is complete when the
    op returns here, so ``T.tma_store_wait`` has nothing left to wait for."""
    if leader_scope_threads is not None:
        raise TileLangError(
            "T.tma_copy(leader_scope_threads=%r): copies issued per warp are "
            "not provided; the block (or the thread range it runs in) "
            "issues each copy" % (leader_scope_threads,))
    if barrier is None:
        return copy(src, dst, prefer_instruction="tma", **hints)
    ref = _barrier(barrier, "T.tma_copy")
    copy(src, dst, _arrive=ref, **hints)


def tma_store_arrive():
    """T.tma_store_arrive: nothing to do (T.tma_copy's stores complete
    before the op returns)."""
    _current_kernel("T.tma_store_arrive")


def tma_store_wait(count=0, read=True):
    """T.tma_store_wait: nothing to wait for (T.tma_copy's stores complete
    before the op returns)."""
    _current_kernel("T.tma_store_wait")


def fence_proxy_async():
    """T.fence_proxy_async: the copies that read shared memory through the
    asynchronous proxy (TMA stores) fence the writes before them
    themselves; nothing to add."""
    _current_kernel("T.fence_proxy_async")


@contextlib.contextmanager
def ws(*warp_group_idx):
    """TileLang's ``with T.ws(i, ...):`` (T.WarpSpecialize): the body runs on
    the warpgroups i, ... of the block (threads [128 i, 128 (i + 1))), whose
    indices must be consecutive: an ``if`` on that range of threads. Tile
    ops inside spread over the range's threads (a gemm there runs on its
    warpgroups), and a fragment used only inside ranges of one warpgroup set
    is laid out over those threads; the warpgroups synchronize with barriers
    of T.alloc_barrier (on NVIDIA GPUs only: elsewhere a range of threads
    cannot run tile ops of its own)."""
    kernel = _current_kernel("T.ws")
    ids = sorted(set(warp_group_idx))
    if not ids or not builtins.all(
            isinstance(i, builtins.int) and not isinstance(i, builtins.bool)
            and i >= 0 for i in ids):
        raise TileLangError("T.ws takes warpgroup indices (non-negative "
                            "ints), got %r" % (warp_group_idx,))
    if ids != list(builtins.range(ids[0], ids[-1] + 1)):
        raise TileLangError("T.ws%r: the warpgroups of one T.ws are "
                            "consecutive (a range of threads)"
                            % (tuple(warp_group_idx),))
    if builtins.any(int(t) != 1 for t in kernel.threads[1:]):
        raise TileLangError("T.ws splits a one-dimensional block of threads")
    threads = int(kernel.threads[0])
    first, end = 128 * ids[0], 128 * (ids[-1] + 1)
    if end > threads:
        raise TileLangError("T.ws%r: the block has %d threads, %d warpgroups"
                            % (tuple(warp_group_idx), threads,
                               builtins.max(threads // 128, 0)))
    tx = get_thread_binding()
    condition = None
    if first > 0:
        condition = _compare("ge", tx, first)
    if end < threads:
        below = _compare("lt", tx, end)
        condition = below if condition is None else _binary("and", condition,
                                                             below)
    if condition is None:  # every warpgroup of the block
        yield
        return
    with If(condition):
        yield


WarpSpecialize = ws


@contextlib.contextmanager
def If(condition):
    """``with T.If(cond):`` the body only where `cond` holds (an scf.if
    without results: the body may store, not yield values). Inside a
    T.Parallel whose condition depends on the first index alone, the GPU
    lowering branches once per row of a thread's elements."""
    condition = _as_expr(condition)
    if condition.type != "i1":
        raise TileLangError("T.If needs a comparison, got %s" % condition.type)
    builder = _builder()
    builder.open("scf.if", (condition.name,), regions=2, terminator="scf.yield")
    yield
    builder.close()


def if_then_else(condition, a, b):
    """`a` where `condition` holds, else `b` (both evaluated). A Python
    condition (True, 0, ...) chooses while tracing, as TVM folds it; an
    integer one holds where it is not 0."""
    if isinstance(condition, builtins.int) and not isinstance(condition, Expr):
        return a if condition else b
    condition = _as_expr(condition)
    if condition.type != "i1" and not _is_float(condition.type):
        condition = _compare("ne", condition, 0)
    if condition.type != "i1":
        raise TileLangError("T.if_then_else needs a comparison or an integer, "
                            "got %s" % condition.type)
    if not isinstance(a, (Expr, _Var)) and not isinstance(b, (Expr, _Var)):
        # Two Python numbers: constants as TVM types them (int32, float32).
        a = _as_expr(a, _literal_type(a, b))
    a, b = _unify(a, b)
    return Expr(_builder().value("arith.select", (condition.name, a.name, b.name),
                                 _ir(a.type)), a.type)


# --------------------------------------------------------------------------
# Per-thread warp intrinsics (GPU targets; code using them runs per thread)
# --------------------------------------------------------------------------

def _shuffle(mode, value, offset, width):
    """gpu.shuffle of a scalar: 32-bit values as they are, narrower ones
    through a 32-bit value of their kind (exact both ways)."""
    value = _as_expr(value)
    type_ = value.type
    if type_ == "index" or _is_unsigned(type_):
        # As the signless integer of its bits (index: 64).
        bits = "i64" if type_ == "index" else _ir(type_)
        return _convert(_shuffle(mode, _convert(value, bits), offset, width),
                        type_)
    if type_ in ("i64", "f64"):
        # Two 32-bit halves, each shuffled from the same lane.
        bits = value if type_ == "i64" else _bitcast(value, "i64")
        low = _shuffle(mode, _trunc_i32(bits), offset, width)
        high = _shuffle(mode, _trunc_i32(_binary("shr", bits, 32)), offset, width)
        joined = _binary("or", _binary("shl", _convert(high, "i64"), 32),
                         _zext_i64(low))
        return joined if type_ == "i64" else _bitcast(joined, "f64")
    if type_ in ("f32", "i32"):
        wide = value
    elif _is_float(type_) and _FLOAT_WIDTH.get(type_, 64) < 32:
        wide = _convert(value, "f32")
    elif type_ in ("i1", "i8", "i16"):
        wide = _convert(value, "i32")
    else:
        raise TileLangError("warp shuffles move integer or float scalars, "
                            "got %s" % type_)
    offset = _convert(_as_expr(offset, "i32"), "i32")
    width = _convert(_as_expr(width, "i32"), "i32")
    builder = _builder()
    name, valid = builder.fresh(), builder.fresh()
    builder.op("gpu.shuffle", (wide.name, offset.name, width.name),
               [(name, wide.type), (valid, "i1")],
               {"mode": "#gpu<shuffle_mode %s>" % mode})
    return _convert(Expr(name, wide.type), type_)


def _bitcast(value, type_):
    return Expr(_builder().value("arith.bitcast", (value.name,), _ir(type_)),
                type_)


def _trunc_i32(value):
    return Expr(_builder().value("arith.trunci", (value.name,), "i32"), "i32")


def _zext_i64(value):
    return Expr(_builder().value("arith.extui", (value.name,), "i64"), "i64")


def shfl_xor(value, delta, width=32, mask=None):
    """The value of lane (lane ^ delta) of the warp (CUDA's __shfl_xor_sync)."""
    return _shuffle("xor", value, delta, width)


def shfl_down(value, delta, width=32, mask=None):
    """The value of lane (lane + delta); a lane past the width keeps its own."""
    return _shuffle("down", value, delta, width)


def shfl_up(value, delta, width=32, mask=None):
    """The value of lane (lane - delta); a lane before 0 keeps its own."""
    return _shuffle("up", value, delta, width)


def shfl_sync(value, srcLane, width=32, mask=None):  # noqa: N803 (TileLang's name)
    """Lane `srcLane`'s value in every lane."""
    return _shuffle("idx", value, srcLane, width)


def _warp_reduce(kind, value):
    value = _as_expr(value)
    for offset in (16, 8, 4, 2, 1):
        value = _binary(kind, value, shfl_xor(value, offset))
    return value


def warp_reduce_sum(value):
    """The sum over the warp's 32 lanes, in every lane."""
    return _warp_reduce("add", value)


def warp_reduce_max(value):
    return _warp_reduce("max", value)


def warp_reduce_min(value):
    return _warp_reduce("min", value)


def warp_reduce_bitand(value):
    return _warp_reduce("and", value)


def warp_reduce_bitor(value):
    return _warp_reduce("or", value)


def _predicate(predicate, what):
    predicate = _as_expr(predicate)
    if _is_float(predicate.type):
        raise TypeError("%s requires an integer or boolean predicate, got %s"
                        % (what, predicate.type))
    return _convert(_convert(predicate, "i1"), "i32")


def _block_count(predicate, what):
    """The number of the block's threads for which `predicate` (an integer
    or bool; nonzero holds) holds, given to every thread: a shared counter
    each thread zeroes, a barrier, each thread's atomic add of 0 or 1, a
    barrier, the read, and a barrier before anything can reuse it. Every
    thread of the block must reach it (as CUDA's __syncthreads_count); the
    CPU runs a block as one thread, which counts only itself."""
    _current_kernel(what)
    bit = _predicate(predicate, what)
    counter = _alloc("alloc_shared", "shared", (1,), "int32")
    zero = _constant(0, "index")
    counter[0] = 0
    sync_threads()
    _atomic_rmw("addi", bit.name, counter.name, [zero.name], "i32")
    sync_threads()
    total = Expr(counter[0].name, "i32")
    sync_threads()
    return total


def syncthreads_count(predicate):
    """CUDA's __syncthreads_count: a block barrier that gives every thread
    the number of threads whose predicate holds (int32)."""
    return _block_count(predicate, "T.syncthreads_count")


def syncthreads_and(predicate):
    """CUDA's __syncthreads_and: a block barrier giving nonzero (1) when
    the predicate holds in every thread."""
    misses = _block_count(_binary("xor", _convert(_predicate(
        predicate, "T.syncthreads_and"), "i1"), True), "T.syncthreads_and")
    return _convert(_compare("eq", misses, 0), "i32")


def syncthreads_or(predicate):
    """CUDA's __syncthreads_or: a block barrier giving nonzero (1) when
    the predicate holds in some thread."""
    hits = _block_count(predicate, "T.syncthreads_or")
    return _convert(_compare("ne", hits, 0), "i32")


def any_sync(mask, predicate=None):
    """Nonzero in every lane when the predicate holds in some lane of the
    warp (``T.any_sync(pred)`` or ``T.any_sync(mask, pred)``)."""
    predicate = mask if predicate is None else predicate
    return _warp_reduce("or", _predicate(predicate, "T.any_sync"))


def all_sync(mask, predicate=None):
    """Nonzero in every lane when the predicate holds in every lane."""
    predicate = mask if predicate is None else predicate
    return _warp_reduce("and", _predicate(predicate, "T.all_sync"))


def ballot_sync(mask, predicate=None):
    """The warp's lanes whose predicate holds, bit i for lane i (int64)."""
    predicate = mask if predicate is None else predicate
    bit = _binary("shl", _predicate(predicate, "T.ballot_sync"),
                  _convert(get_lane_idx(), "i32"))
    return _convert(_warp_reduce("or", bit), "i64")


def ballot(predicate):
    return ballot_sync(predicate)


def _linear_thread():
    kernel = _current_kernel("the thread index")
    ids = [get_thread_binding(d) for d in range(len(kernel.threads))]
    linear = ids[-1]
    for d in range(len(ids) - 2, -1, -1):
        linear = linear * int(kernel.threads[d]) + ids[d]
    return linear


def get_lane_idx(warp_size=None):
    """The thread's lane in its warp (32 lanes unless `warp_size`)."""
    return _linear_thread() % (32 if warp_size is None else warp_size)


def get_warp_idx(warp_size=None):
    """The thread's warp in the block."""
    return _linear_thread() // (32 if warp_size is None else warp_size)


def get_warp_idx_sync(warp_size=None):
    return get_warp_idx(warp_size)


def shuffle_elect(thread_extent):
    """True on one thread of each group of `thread_extent` consecutive
    threads (the group's first; 0: one thread of the block)."""
    linear = _linear_thread()
    if not thread_extent:
        return _compare("eq", linear, 0)
    return _compare("eq", linear % thread_extent, 0)


def get_warp_group_idx(warp_size=None, warps_per_group=None):
    """The thread's warpgroup (4 warps unless told) in the block."""
    return _linear_thread() // ((32 if warp_size is None else warp_size)
                                * (4 if warps_per_group is None else warps_per_group))


def Select(condition, true_value, false_value):  # noqa: N802 (TileLang's name)
    """TIR's select: `true_value` where `condition` holds, else
    `false_value` (T.if_then_else)."""
    return if_then_else(condition, true_value, false_value)


_hints_warned = set()


def _register_hint(name):
    if name not in _hints_warned:
        _hints_warned.add(name)
        import warnings
        warnings.warn("T.%s() is accepted and ignored: the compiler chooses "
                      "each warp-specialized side's registers (a kernel split "
                      "by hand sets its own with T.set_max_nreg); results do "
                      "not depend on it" % name, RuntimeWarning, stacklevel=3)


def disable_warp_group_reg_alloc():
    """TileLang's switch off of setmaxnreg in warp-specialized kernels:
    accepted and ignored, with a one-time warning."""
    _register_hint("disable_warp_group_reg_alloc")


def set_max_nreg(reg_count, is_inc):
    """TileLang's setmaxnreg: every thread of the warpgroup that runs it
    (all together) gets `reg_count` registers, raised (`is_inc` 1: waits
    for registers other warpgroups released) or lowered (0)
    (tile.set_max_registers; setmaxnreg on sm_90a, nothing elsewhere)."""
    if not isinstance(reg_count, builtins.int) or not 24 <= reg_count <= 256 \
            or reg_count % 8:
        raise TileLangError("T.set_max_nreg(%r, ...): a register count is a "
                            "multiple of 8 in [24, 256]" % (reg_count,))
    if is_inc not in (0, 1):
        raise TileLangError("T.set_max_nreg(%d, %r): is_inc is 1 (raise) or "
                            "0 (lower)" % (reg_count, is_inc))
    _current_kernel("T.set_max_nreg")
    attrs = {"count": "%d : i32" % reg_count}
    if is_inc:
        attrs["increase"] = "unit"
    _builder().op("tile.set_max_registers", attrs=attrs)


def inc_max_nreg(reg_count):
    set_max_nreg(reg_count, 1)


def dec_max_nreg(reg_count):
    set_max_nreg(reg_count, 0)


def annotate_producer_reg_dealloc(reg_count=24):
    set_max_nreg(reg_count, 0)


def annotate_consumer_reg_alloc(reg_count=240):
    set_max_nreg(reg_count, 1)


def no_set_max_nreg():
    _register_hint("no_set_max_nreg")


def evaluate(value):
    """TileLang's expression statement (``T.evaluate(0)`` as an empty body,
    ``T.evaluate(expr)`` for its effect): a traced value's operations are
    already in the kernel where it was built, a Python number is nothing."""
    if isinstance(value, (Expr, _Var, numbers.Number)) or value is None:
        return None
    raise TileLangError("T.evaluate takes an expression (a traced value or a "
                        "number), got %r" % (value,))


def _float_class(x, what, predicate, integers):
    """Whether the scalar `x` is NaN, infinite or finite (TileLang's
    T.isnan / T.isinf / T.isfinite): an i1 from an arith.cmpf of x against
    itself or of |x| against +inf; integers are never NaN nor infinite, so
    they give `integers`. Floats narrower than 16 bits are compared as f32
    (the conversion keeps NaN and infinity)."""
    x = _as_expr(x)
    if not _is_float(x.type):
        if _bit_width(x.type) is None:
            raise TileLangError("%s takes a number, got %s" % (what, x.type))
        return _constant(int(integers), "i1")
    if _FLOAT_WIDTH[x.type] < 16:
        x = _convert(x, "f32")
    if predicate == "uno":
        return Expr(_comparison("arith.cmpf", "uno", x.name, x.name), "i1")
    magnitude = _math("absf", x)
    inf = _constant(float("inf"), x.type)
    return Expr(_comparison("arith.cmpf", predicate, magnitude.name, inf.name),
                "i1")


def isnan(x):
    """True where `x` is a NaN."""
    return _float_class(x, "T.isnan", "uno", False)


def isinf(x):
    """True where `x` is +inf or -inf."""
    return _float_class(x, "T.isinf", "oeq", False)


def isfinite(x):
    """True where `x` is neither infinite nor NaN."""
    return _float_class(x, "T.isfinite", "one", True)


def infinity(dtype):
    """+inf of a float dtype (use -T.infinity(...) for -inf)."""
    return _constant(float("inf"), _mlir_type(dtype))


def cast(value, dtype):
    """`value` converted to `dtype`."""
    return _convert(_as_expr(value), _mlir_type(dtype))


def _bit_width(type_):
    if type_ in _FLOAT_WIDTH:
        return _FLOAT_WIDTH[type_]
    match = re.fullmatch(r"u?i(\d+)", type_)
    return int(match.group(1)) if match else None


def reinterpret(value, dtype):
    """The bits of the scalar `value` read as `dtype` of the same width
    (TileLang's T.reinterpret: ``T.reinterpret(x, T.uint32)`` of a float32
    gives its bit pattern). A Python number is first the constant TileLang
    makes of it (int32 or float32)."""
    if dtype == "handle":
        raise TileLangError("T.reinterpret to a 'handle' (a pointer) is not "
                            "provided: this package has no pointer values")
    value = _as_expr(value)
    target = _mlir_type(dtype)
    src_bits, dst_bits = _bit_width(value.type), _bit_width(target)
    if src_bits is None or dst_bits is None or src_bits != dst_bits:
        raise TileLangError("T.reinterpret keeps the bits: %s (%s bits) and "
                            "%s (%s bits) differ in width" % (
                                _dtype_name(value.type), src_bits,
                                _dtype_name(target), dst_bits))
    if _ir(value.type) == _ir(target):
        return Expr(value.name, target)  # only the signedness changes
    return _bitcast(value, target)


def determine_fp8_type(fp8_format="e4m3"):
    """TileLang's FP8 dtype of a format for this platform: NVIDIA's OCP
    types, ``float8_e4m3fn`` ("e4m3") and ``float8_e5m2`` ("e5m2") (the
    compiler's FP8 runs on NVIDIA targets; ROCm's FNUZ types are not
    provided)."""
    if fp8_format not in ("e4m3", "e5m2"):
        raise ValueError("determine_fp8_type: the format is 'e4m3' or 'e5m2', "
                         "got %r" % (fp8_format,))
    return float8_e4m3fn if fp8_format == "e4m3" else float8_e5m2


def determine_torch_fp8_type(fp8_format="e4m3"):
    """determine_fp8_type's dtype as torch's (torch.float8_e4m3fn, ...)."""
    import torch
    return getattr(torch, str(determine_fp8_type(fp8_format)))


# TileLang's language is a package of submodules (tilelang.language.kernel,
# .allocate, ...); here one module holds it all, entered under those names
# too, so `from tilelang.language.kernel import ...` finds the same objects
# (an empty __path__ makes the module a package whose submodules are these).
__path__ = []
from .rng import rng_init, rng_rand, rng_rand_float  # noqa: E402 (uses this module)

def resolve_torch_storage_dtype(value):
    """The dtype of the torch tensors that hold elements of `value`
    (TileLang's tilelang.language.dtypes.resolve_torch_storage_dtype): the
    type itself, or for the 4-bit types their storage (float4_e2m1fnx2
    where torch has float4_e2m1fn_x2, else int8)."""
    value = dtype(value)
    if str(value) == "int4":
        return int8
    if str(value) in ("float4_e2m1fn", "float4_e2m1fnx2"):
        import torch
        return dtype("float4_e2m1fnx2") if hasattr(torch, "float4_e2m1fn_x2") else int8
    return value


for _submodule in ("allocate", "atomic", "builtin", "copy_op", "customize",
                   "dtypes", "fill_op", "fp8", "gemm_op", "kernel", "logical", "loop",
                   "math_intrinsics", "proxy", "reduce_op", "utils", "v2"):
    sys.modules.setdefault("%s.%s" % (__name__, _submodule),
                           sys.modules[__name__])
