"""``@jit``: trace, compile and run T.* kernels, as TileLang's ``tilelang.jit``.

::

    @jit(out_idx=[-1])
    def matmul(M, N, K, block_M, block_N, block_K, dtype=T.float16):
        @T.prim_func
        def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
                 C: T.Tensor((M, N), dtype)):
            ...
        return main

    kernel = matmul(1024, 1024, 1024, 128, 128, 32)   # traced and prepared
    c = kernel(a, b)                                  # numpy in, numpy out
    c = kernel(a_torch, b_torch)                      # torch in, torch out

Calling the decorated function with compile-time arguments traces the
kernel once per distinct arguments; the C++ JIT compiles each shape
specialization once per process and keeps the binaries in its on-disk cache
(TILE_CACHE_DIR). ``out_idx`` names the parameters the kernel writes and the
call allocates and returns. Tensors are numpy arrays or anything that
exports DLPack (torch, cupy, ...): on a GPU target, device tensors are used
in place (no copies) and host arrays go through device copies. Outputs are
allocated like the first tensor argument: torch tensors on its device when
it is a torch tensor, numpy arrays otherwise.
"""

import functools
import inspect
import numbers
import sys
import warnings

import numpy as np

from . import device_code
from . import language as T
from ._tilelang import Kernel, TileError, lower
from ._tilelang import pipeline as _pipeline
from ._tilelang import NonContiguousArray as _NonContiguousArray
from .eager import EagerJIT, _freeze, is_eager
from .pass_config import normalize_pass_configs
from .target import determine_target

__all__ = ["jit", "compile", "par_compile", "JITKernel", "TileError"]

_NUMPY_TYPES = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8,
    "i16": np.int16, "i32": np.int32, "i64": np.int64, "i1": np.bool_,
    "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64,
    # Packed 4-bit elements: their bytes.
    "f4E2M1FN": np.int8, "i4": np.int8,
}
try:  # numpy's types of bfloat16 and FP8, where ml_dtypes is installed
    import ml_dtypes as _ml_dtypes
    _NUMPY_TYPES.update(bf16=_ml_dtypes.bfloat16,
                        f8E4M3FN=_ml_dtypes.float8_e4m3fn,
                        f8E5M2=_ml_dtypes.float8_e5m2)
    if hasattr(_ml_dtypes, "float8_e8m0fnu"):  # ml_dtypes 0.5
        _NUMPY_TYPES["f8E8M0FNU"] = _ml_dtypes.float8_e8m0fnu
except ImportError:
    pass


class JITKernel:
    """A traced PrimFunc prepared for one target."""

    def __init__(self, func, out_idx=None, target="auto", pass_configs=None):
        if not isinstance(func, T.PrimFunc):
            raise TypeError("expected a @T.prim_func, got %r" % (func,))
        self.func = func
        self.target = determine_target(target)
        # The kernel's own (T.annotate_pass_configs), under the caller's.
        merged = dict(func.attrs.get("tilelang_pass_configs", {}))
        merged.update(pass_configs or {})
        self.pass_configs = normalize_pass_configs(merged or None)
        # The traced module itself (built with the dialects' builders at
        # the user's locations, so diagnostics point there).
        self._kernel = Kernel(func.module, self.target,
                              pass_configs=self.pass_configs)
        count = len(func.params)
        declared = func.attrs.get("tilelang_out_idx")
        if out_idx is not None and declared is not None:
            raise ValueError(
                "Out index conflict: %s returns its outputs (T.empty, out_idx "
                "%s); compile it without out_idx" % (func.name, declared))
        if out_idx is None:
            out_idx = declared or []
        elif isinstance(out_idx, int):
            out_idx = [out_idx]
        self.out_idx = sorted(i + count if i < 0 else i for i in out_idx)
        for i in self.out_idx:
            if not 0 <= i < count or not isinstance(func.params[i][1], T.Tensor):
                raise ValueError("out_idx %d is not a tensor parameter of %s"
                                 % (i, func.name))
        # What every call reads: the parameters the caller passes, and how
        # each output is sized.
        self._inputs = [i for i in range(count) if i not in self.out_idx]
        self._written = [p["written"] for p in self._kernel.params]
        self._tensor_inputs = [
            (k, func.params[i][0], i) for k, i in enumerate(self._inputs)
            if isinstance(func.params[i][1], T.Tensor)]
        # Strided parameters (T.StridedTensor) take numpy arrays of any
        # strides as they are.
        self._contiguous_inputs = [
            (k, name, i) for k, name, i in self._tensor_inputs
            if not isinstance(func.params[i][1], T.StridedTensor)]
        # Address parameters (`a: T.ptr`): a tensor given for one passes its
        # data's address (TileLang's TVM FFI calls take the tensor, its
        # cython calls the int).
        self._pointer_inputs = [k for k, i in enumerate(self._inputs)
                                if func.params[i][1] is T.ptr
                                or isinstance(func.params[i][1], T.ptr)]
        # Kernels that return nothing and allocate nothing run straight
        # from the arguments (__call__'s first lines).
        self._direct = not self.out_idx and not func.workspaces
        self._arity = len(self._inputs)
        self._output_plans = [self._plan_output(i) for i in self.out_idx]
        self._output_types = [T._mlir_type(func.params[i][1].dtype)
                              for i in self.out_idx]
        # T.alloc_global buffers: allocated as outputs are, never returned.
        self._workspaces = [
            (spec, self._plan_shape(spec), T._mlir_type(spec.dtype))
            for _, spec in func.workspaces]

    @property
    def params(self):
        return self._kernel.params

    def _host_array(self, index, name, array, write_back):
        """A numpy argument as the kernel takes it: C-contiguous. A buffer
        the kernel writes must be writable; when it is not contiguous the
        kernel writes a copy that is copied back after the run (in-place
        outputs, TileLang's style without out_idx, then update the caller's
        array whatever its layout)."""
        if self._written[index]:
            _check_writable(self.func.name, name, array)
            if not array.flags.c_contiguous:
                copy = np.ascontiguousarray(array)
                write_back.append((array, copy))
                return copy
            return array
        return np.ascontiguousarray(array)

    def get_kernel_source(self, stage="tile", target=None, kernel_only=True):
        """The kernel's IR at a stage of the lowering, for `target` (default:
        the kernel's): "tile" (as traced, with the user's locations),
        on GPU targets "selected" (each gemm's instruction chosen),
        "pipelined" (pipelines planned), "layouts" (fragment layouts
        inferred) and "loops" (gpu.launch), each the compile's own pipeline
        stopped after that stage; on the CPU "loops" (scf loops: the CPU
        compile selects no instructions and plans no pipelines); "llvm" (the whole module in the LLVM dialect, device code included) or, on NVIDIA
        targets, "ptx", "cubin" (bytes; a list of them when the function
        launches several kernels) or "sass" (cuobjdump's, or nvdisasm's,
        listing of the cubins: needs the CUDA toolkit). TileLang's
        `kernel_only` is accepted: each stage is the whole kernel as this
        compiler has it (no separate host wrapper source exists)."""
        if not isinstance(kernel_only, bool):
            raise TypeError("kernel_only is a bool, got %r" % (kernel_only,))
        target = determine_target(target) if target else self.target
        if stage == "tile":
            return self.func.script()
        source = self.func.module
        kind, chip = _split_target(target)

        def vendor(fmt, stop_after=""):
            # The kernel's own compile pipeline (as the JIT runs it, with
            # these pass_configs), stopped after a stage or with its device
            # code as text (isa) or binary (bin).
            return _pipeline(target, self.pass_configs, stop_after, fmt)
        if kind == "cpu":
            pipelines = {"loops": vendor("isa", "loops")}
        else:
            pipelines = {name: vendor("isa", name)
                         for name in ("selected", "pipelined", "layouts", "loops")}
        pipelines["llvm"] = vendor("isa")
        if stage in ("ptx", "cubin", "sass"):
            if kind != "cuda":
                raise ValueError("%s exists for NVIDIA targets, not %r"
                                 % (stage.upper(), target))
            if stage == "ptx":
                return "\n".join(device_code.assembly(
                    lower(source, pipelines["llvm"])))
            cubins = device_code.binaries(lower(source, vendor("bin")))
            if stage == "sass":
                return "\n".join(device_code.sass(c) for c in cubins)
            return cubins[0] if len(cubins) == 1 else cubins
        if stage not in pipelines:
            raise ValueError("stage is one of tile, %s, ptx, cubin, sass "
                             "(selected, pipelined and layouts on GPU "
                             "targets); got %r"
                             % (", ".join(sorted(pipelines)), stage))
        return lower(source, pipelines[stage])

    def torch_op(self, name, dispatch_keys=None):
        """Registers the kernel as the torch operator `name`
        ("namespace::op", torch.library) and returns it: callable as
        torch.ops.namespace.op, traced by torch.compile(fullgraph=True)
        through its fake implementation (outputs sized from the inputs).
        See tilelang_mlir.torch_ops."""
        from .torch_ops import register
        return register(self, name, dispatch_keys)

    def run_once(self, func=None):
        """Runs `func` (the kernel by default) once on fresh inputs from
        the profiler and returns its result."""
        return self.get_profiler().run_once(func)

    def get_profiler(self, tensor_supply_type=None, shapes=None, seed=None):
        """A Profiler: fresh inputs, assert_allclose, do_bench. `shapes`
        sizes the symbolic dimensions ({"M": 1024})."""
        from .profiler import Profiler, TensorSupplyType
        return Profiler(self, tensor_supply_type or TensorSupplyType.Auto,
                        shapes=shapes, seed=seed)

    def _plan_output(self, index):
        """How output `index` is sized on every call: per dimension, its
        extent or (k, d) for dimension d of the k-th input, which has the
        same symbol; None when some dimension needs solving (n * 4 from an
        input of size n), which _output_shape does."""
        return self._plan_shape(self.func.params[index][1])

    def _plan_shape(self, spec):
        """_plan_output's plan of the tensor annotation `spec`."""
        if _is_packed(spec) or any(_is_packed(self.func.params[i][1])
                                   for _, _, i in self._tensor_inputs):
            return None  # sized by _solve_shape (elements, not bytes)
        plan = []
        for dim in spec.shape:
            if isinstance(dim, int):
                plan.append(dim)
                continue
            source = next(((k, d) for k, _, i in self._tensor_inputs
                           for d, other in enumerate(self.func.params[i][1].shape)
                           if isinstance(dim, T._Symbol)
                           and isinstance(other, T._Symbol)
                           and other.symbol == dim.symbol), None)
            if source is None:
                return None
            plan.append(source)
        return plan

    def _output_shape(self, index, args):
        """The shape of output `index`, its dynamic dimensions taken from
        the inputs that share their symbols."""
        return self._solve_shape(self.func.params[index], args)

    def _solve_shape(self, param, args):
        """_output_shape of the parameter `param` ((name, Tensor))."""
        sizes = {}
        shapes = {}
        for (name, spec), value in args:
            if isinstance(spec, T.Tensor):
                shape = _elements(spec, tuple(value.shape))
                shapes[name] = shape
                if len(shape) != len(spec.shape):
                    raise TileError(
                        "argument %r of %s: expected rank %d, got rank %d (shape %s)"
                        % (name, self.func.name, len(spec.shape), len(shape),
                           "x".join(map(str, shape)) or "scalar"))
                for dim, extent in zip(spec.shape, shape):
                    if isinstance(dim, T._Symbol):
                        sizes.setdefault(dim.symbol, extent)
        for (name, spec), value in args:
            if isinstance(spec, T.Tensor):
                for dim, extent in zip(spec.shape, shapes[name]):
                    solved = T._solve_size(dim, int(extent))
                    if solved is not None:
                        sizes.setdefault(*solved)
        # An eager kernel's scalar parameter in an output's sizes
        # (T.empty([m + 1]) with m: T.int32): the argument's value.
        for (name, spec), value in args:
            if not isinstance(spec, T.Tensor) and isinstance(value, numbers.Integral) \
                    and not isinstance(value, bool):
                sizes.setdefault(name, int(value))
        shape = []
        for dim in param[1].shape:
            if isinstance(dim, int):
                shape.append(dim)
                continue
            missing = dim.symbols() - set(sizes)
            if missing:
                raise ValueError("cannot size output %r: no input has "
                                 "dimension %s" % (param[0],
                                                   ", ".join(sorted(missing))))
            shape.append(dim.evaluate(sizes))
        if _is_packed(param[1]):
            if shape and shape[-1] % 2:
                raise ValueError("cannot size output %r: its last dimension "
                                 "holds pairs of 4-bit elements, got %d"
                                 % (param[0], shape[-1]))
            shape[-1] //= 2  # the bytes
        return tuple(shape)

    def __call__(self, *args, stream=None):
        """Runs the kernel: ``kernel(a, b)`` returns the outputs named by
        out_idx. Device tensors are used in place and the kernel is queued
        on ``stream`` (a handle, a torch.cuda.Stream; by default torch's
        current stream of the tensors' device) without waiting for it, as
        torch's own operations are; host arrays make the call synchronous."""
        if len(args) != self._arity:
            raise TypeError("%s takes %d inputs, got %d" % (
                self.func.name, self._arity, len(args)))
        if self._pointer_inputs:
            args = list(args)
            for k in self._pointer_inputs:
                args[k] = _address(self.func.params[self._inputs[k]][0], args[k])
        if self._direct:
            # Nothing to return or allocate: straight from the arguments.
            try:
                return self._run(args, stream)
            except _NonContiguousArray:
                return self._run_on_copies(args, lambda a: a, stream)
        like = next((args[k] for k, _, _ in self._tensor_inputs
                     if args[k] is not None), None)
        if like is None:
            like = _default_device_tensor(self.target)

        def allocate(param, plan, mlir_type):
            try:
                shape = tuple(d if type(d) is int else args[d[0]].shape[d[1]]
                              for d in plan)
            except (TypeError, AttributeError, IndexError):
                # No plan, or inputs without the ranks it reads: solved
                # (or refused, saying why) from every input.
                given = [(self.func.params[i], args[k])
                         for k, i in enumerate(self._inputs)]
                shape = self._solve_shape(param, given)
            return _empty(shape, mlir_type, like)

        outputs = [allocate(self.func.params[index], plan, mlir_type)
                   for index, plan, mlir_type in zip(
                       self.out_idx, self._output_plans, self._output_types)]
        workspaces = [allocate((name, spec), plan, mlir_type)
                      for (name, _), (spec, plan, mlir_type) in zip(
                          self.func.workspaces, self._workspaces)]

        def full(inputs):
            every = list(inputs)
            for index, out in zip(self.out_idx, outputs):
                every.insert(index, out)
            return every + workspaces

        try:
            self._run(full(args), stream)
        except _NonContiguousArray:
            self._run_on_copies(args, full, stream)
        if stream is not None:
            _record_stream(outputs + workspaces, stream)
        if not self.out_idx:
            return None
        # Several outputs: a list, as TileLang's kernels return them.
        return outputs[0] if len(outputs) == 1 else list(outputs)

    def _run(self, args, stream):
        if stream is None:
            return self._kernel.run(*args)
        return self._kernel.run(*args, stream=stream)

    def _run_on_copies(self, args, full, stream):
        """Runs on `full(inputs)` where the inputs are `args` with their
        non-contiguous numpy arrays (which the bindings refuse with
        NonContiguousArray before any work) replaced by contiguous copies,
        copied back afterwards into those the kernel writes (in-place
        outputs of any layout)."""
        write_back = []
        args = list(args)
        for k, name, i in self._contiguous_inputs:
            value = args[k]
            if type(value) is np.ndarray and not value.flags.c_contiguous:
                args[k] = self._host_array(i, name, value, write_back)
        self._run(full(args), stream)
        for original, copy in write_back:
            original[...] = copy

def _is_packed(spec):
    """Whether the tensor annotation `spec` has 4-bit elements, which the
    kernel takes packed two per byte."""
    return isinstance(spec, T.Tensor) and \
        T._mlir_type(spec.dtype) in T._PACKED_TYPES


def _elements(spec, shape):
    """The shape in elements of an argument of shape `shape` for the tensor
    annotation `spec` (a packed one has two elements per byte of its last
    dimension)."""
    if _is_packed(spec) and shape:
        return shape[:-1] + (2 * shape[-1],)
    return shape


def _check_writable(kernel, name, array):
    if not array.flags.writeable:
        raise TileError(
            "argument %r of %s: the kernel writes this buffer, but the array is "
            "read-only (writeable=False, or a view of read-only memory); pass a "
            "writable copy" % (name, kernel))
    if array.size and any(stride == 0 and extent > 1
                          for stride, extent in zip(array.strides, array.shape)):
        raise TileError(
            "argument %r of %s: the kernel writes this buffer, but the array is a "
            "broadcast view (a stride of 0): its elements share memory" % (name, kernel))


def _empty(shape, mlir_type, like):
    """An uninitialized output: a torch tensor on `like`'s device when `like`
    is a torch tensor (from torch's allocator, on its current stream), a
    numpy array otherwise."""
    torch = _torch_of(like)
    if torch is not None:
        return torch.empty(shape, dtype=_torch_dtype(torch, mlir_type),
                           device=like.device)
    if mlir_type not in _NUMPY_TYPES:
        raise TileError("an output of element type %s needs torch tensors or "
                        "ml_dtypes (numpy has no %s)" % (mlir_type, mlir_type))
    return np.empty(shape, dtype=_NUMPY_TYPES[mlir_type])


def _default_device_tensor(target):
    """Outputs of a kernel called without tensors go where TileLang puts
    them: torch tensors on the current CUDA device for a CUDA target (when
    torch has one), numpy arrays otherwise. A tensor of that device, or
    None."""
    if _split_target(target)[0] != "cuda":
        return None
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    return torch.empty(0, device="cuda")


def _record_stream(outputs, stream):
    """torch's allocator gave the outputs on the current stream; the kernel
    wrote them on `stream` (given explicitly): recorded there, their memory
    is not reused before that stream's work is done."""
    torch = _torch_of(outputs[0]) if outputs else None
    if torch is None or not outputs[0].is_cuda:
        return
    if isinstance(stream, torch.cuda.Stream):
        handle = stream
    else:
        raw = getattr(stream, "cuda_stream", getattr(stream, "ptr", stream))
        if raw == -1:
            return
        handle = torch.cuda.ExternalStream(int(raw), device=outputs[0].device)
    if handle != torch.cuda.current_stream(outputs[0].device):
        for out in outputs:
            out.record_stream(handle)


def _torch_of(value):
    """The torch module when `value` is a torch tensor, else None."""
    if type(value).__module__.partition(".")[0] != "torch":
        return None
    torch = sys.modules.get("torch")
    return torch if torch is not None and isinstance(value, torch.Tensor) \
        else None


_TORCH_DTYPES = {}


def _torch_dtype(torch, mlir_type):
    if not _TORCH_DTYPES:
        _TORCH_DTYPES.update({
            "f16": torch.float16, "bf16": torch.bfloat16,
            "f32": torch.float32, "f64": torch.float64,
            "f8E4M3FN": torch.float8_e4m3fn, "f8E5M2": torch.float8_e5m2,
            "i8": torch.int8, "i16": torch.int16, "i32": torch.int32,
            "i64": torch.int64, "i1": torch.bool, "i4": torch.int8,
            # Packed 4-bit floats: torch's pairs where it has them.
            "f4E2M1FN": getattr(torch, "float4_e2m1fn_x2", torch.int8)})
        if hasattr(torch, "float8_e8m0fnu"):  # torch 2.7
            _TORCH_DTYPES["f8E8M0FNU"] = torch.float8_e8m0fnu
        # uint16/32/64 are torch 2.3's.
        for bits in (8, 16, 32, 64):
            if hasattr(torch, "uint%d" % bits):
                _TORCH_DTYPES["ui%d" % bits] = getattr(torch, "uint%d" % bits)
    if mlir_type not in _TORCH_DTYPES:
        raise TypeError("this torch has no %s tensors" % mlir_type)
    return _TORCH_DTYPES[mlir_type]


def _address(name, value):
    """The address a `T.ptr` parameter takes: an int as it is, a tensor's
    data (torch's data_ptr(), the CUDA array interface, numpy's buffer)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if callable(getattr(value, "data_ptr", None)):
        return int(value.data_ptr())
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        return int(interface["data"][0])
    if isinstance(value, np.ndarray):
        return int(value.ctypes.data)
    raise TypeError("parameter %r (T.ptr) takes an address: an int or a tensor "
                    "(torch, numpy, CUDA array interface), got %s"
                    % (name, type(value).__name__))


def _split_target(target):
    """("cpu"|"cuda"|"rocm", chip) of a target string ("cpu", "sm_90a",
    "cuda:sm_80", "gfx942", "rocm:gfx1100")."""
    kind, _, rest = target.partition(":")
    if kind in ("cuda", "rocm"):
        return kind, rest.split(":")[0]
    if kind.startswith("sm_"):
        return "cuda", kind
    if kind.startswith("gfx"):
        return "rocm", kind
    return "cpu", "host"


# TileLang's execution backends: how its calls reach the kernel. This
# package has one call path (the C++ JIT through its bindings), which
# computes the same; the names are accepted, anything else is an error.
_EXECUTION_BACKENDS = ("auto", "dlpack", "ctypes", "cython", "nvrtc", "tvm_ffi",
                       "torch", "cutedsl")


def _check_call_options(execution_backend, verbose):
    if execution_backend not in _EXECUTION_BACKENDS:
        raise ValueError("execution_backend is one of %s, got %r"
                         % (", ".join(_EXECUTION_BACKENDS), execution_backend))
    if not isinstance(verbose, bool):
        raise TypeError("verbose is True or False, got %r" % (verbose,))


def _with_compile_flags(pass_configs, compile_flags, what):
    """`pass_configs` with TileLang's nvcc `compile_flags` applied: there is
    no nvcc here, so "--use_fast_math" (or "-use_fast_math") is
    TL_ENABLE_FAST_MATH (unless the configs set it) and the other flags are
    ignored with a one-time warning naming them."""
    if compile_flags is None:
        return pass_configs
    flags = [compile_flags] if isinstance(compile_flags, str) else compile_flags
    if not isinstance(flags, (list, tuple)) or not all(
            isinstance(f, str) for f in flags):
        raise TypeError("%s: compile_flags is a list of strings, got %r"
                        % (what, compile_flags))
    configs = dict(pass_configs or {})
    for flag in flags:
        if flag.lstrip("-") == "use_fast_math":
            if not any(str(getattr(k, "value", k)) == "tl.enable_fast_math"
                       for k in configs):
                configs["tl.enable_fast_math"] = True
        elif ("compile_flag:" + flag) not in T._hints_warned:
            T._hints_warned.add("compile_flag:" + flag)
            warnings.warn("%s: compile_flags: %r is a flag of nvcc, which this "
                          "compiler does not use; ignored" % (what, flag),
                          RuntimeWarning, stacklevel=3)
    return configs


def _prepared(func, out_idx, target, pass_configs, verbose):
    kernel = JITKernel(func, out_idx=out_idx, target=target,
                       pass_configs=pass_configs)
    if verbose:
        print("tilelang_mlir: %s for %s: %s" % (
            func.name, kernel.target, _pipeline(kernel.target, kernel.pass_configs,
                                                "", "bin")))
    return kernel


def compile(func, out_idx=None, target="auto",  # noqa: A001 (TileLang's name)
            pass_configs=None, execution_backend="auto", verbose=False,
            compile_flags=None):
    """Prepares a PrimFunc: ``tilelang_mlir.compile(main, out_idx=[2])``.
    ``target`` as TileLang takes it (tilelang_mlir.target: "auto", "cuda",
    "cuda -arch=sm_80", "hip -mcpu=gfx942", "llvm", a chip).
    ``pass_configs`` sets compile options by name, as tile-run's flags with
    underscores: ``{"warp_specialize": False, "opt_level": 2}``.
    ``compile_flags`` (TileLang's nvcc flags): "--use_fast_math" is
    TL_ENABLE_FAST_MATH, the others are ignored with a one-time warning."""
    _check_call_options(execution_backend, verbose)
    pass_configs = _with_compile_flags(pass_configs, compile_flags,
                                       "tilelang.compile")
    return _prepared(func, out_idx, target, pass_configs, verbose)


def par_compile(funcs, out_idx=None, execution_backend=None, target=None,
                target_host=None, verbose=None, pass_configs=None,
                compile_flags=None, num_workers=None, ignore_error=False):
    """TileLang's ``tilelang.par_compile``: ``compile`` of each PrimFunc of
    `funcs` with the same options, the kernels in order (None where one
    fails, with `ignore_error`). Each kernel's device code is built on its
    first call per specialization (and cached), so preparing them here is
    quick and `num_workers` has nothing to spread. `target_host` (the host
    code is the compiler's own) is refused when given; `compile_flags` as
    ``compile`` takes them."""
    if target_host is not None:
        raise ValueError("par_compile: target_host is not an option here (the "
                         "host code is compiled for the machine it runs on)")
    pass_configs = _with_compile_flags(pass_configs, compile_flags,
                                       "tilelang.par_compile")
    if num_workers is not None and (not isinstance(num_workers, int)
                                    or num_workers < 1):
        raise ValueError("par_compile: num_workers is a positive int, got %r"
                         % (num_workers,))
    kernels = []
    for func in funcs:
        try:
            kernels.append(compile(func, out_idx=out_idx,
                                   target="auto" if target is None else target,
                                   pass_configs=pass_configs,
                                   execution_backend=execution_backend or "auto",
                                   verbose=bool(verbose)))
        except Exception:  # noqa: BLE001 (the caller asked to go on)
            if not ignore_error:
                raise
            kernels.append(None)
    return kernels


def jit(fn=None, *, out_idx=None, target="auto", pass_configs=None,
        execution_backend="auto", verbose=False, compile_flags=None):
    """Decorates a function that returns a PrimFunc for its compile-time
    arguments (or a PrimFunc itself): calls trace and prepare once per
    distinct arguments. ``pass_configs``: compile options by name (see
    ``compile``); ``execution_backend`` (TileLang's names, one call path
    here) and ``verbose`` (prints the target and pipeline of each
    compile) as TileLang takes them; ``compile_flags`` as ``compile``
    takes them."""
    _check_call_options(execution_backend, verbose)
    pass_configs = _with_compile_flags(pass_configs, compile_flags,
                                       "tilelang.jit")

    def decorate(fn):
        if isinstance(fn, T.PrimFunc):
            return _prepared(fn, out_idx, target, pass_configs, verbose)
        if is_eager(fn):
            if out_idx is not None:
                raise ValueError(
                    "%s: out_idx is for factories that return a @T.prim_func; a "
                    "kernel in the eager style declares its outputs with T.empty() "
                    "and returns them" % fn.__name__)
            return EagerJIT(fn, lambda func, outputs: _prepared(
                func, outputs, target, pass_configs, verbose))

        signature = inspect.signature(fn)
        built = {}

        def build(*args, **kwargs):
            # One kernel per distinct arguments, however they are passed
            # (positionally, by keyword, defaults left out).
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            key = _freeze(tuple(bound.arguments.items()))
            if key not in built:
                built[key] = _build(*args, **kwargs)
            return built[key]

        def _build(*args, **kwargs):
            func = fn(*args, **kwargs)
            if not isinstance(func, T.PrimFunc):
                raise TypeError(
                    "%s returned %r: a @jit function either returns a "
                    "@T.prim_func (a factory) or is the kernel itself (the eager "
                    "style: T.const, T.empty, tensor annotations)"
                    % (fn.__name__, func))
            return _prepared(func, out_idx, target, pass_configs, verbose)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return build(*args, **kwargs)

        def par_compile(configs, num_workers=None, ignore_error=False):
            """A kernel per configuration (a dict of keyword arguments or a
            tuple of positional ones); with `ignore_error`, None where one
            fails."""
            kernels = []
            for config in configs:
                try:
                    kernels.append(wrapper(**config) if isinstance(config, dict)
                                   else wrapper(*config))
                except Exception:  # noqa: BLE001 (the caller asked to go on)
                    if not ignore_error:
                        raise
                    kernels.append(None)
            return kernels

        wrapper.compile = wrapper
        wrapper.par_compile = par_compile
        wrapper.mode = "lazy"
        return wrapper

    return decorate if fn is None else decorate(fn)
