"""TileLang's eager ``@tilelang.jit`` style: the decorated function is the
kernel itself, and a call compiles (once per specialization) and runs it.

::

    @tilelang.jit
    def gemm(A, B, block_M: int = 64, dtype: T.dtype = T.float16):
        M, N, K = T.const("M N K")
        A: T.Tensor[[M, K], dtype]
        B: T.Tensor[[K, N], dtype]
        C = T.empty((M, N), dtype)
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, block_M)) as (bx, by):
            ...
        return C

    C = gemm(a, b)                       # M, N, K from a's and b's shapes
    kernel = gemm.compile(M=1024, N=1024, K=512, block_M=128)

Parameters are of two kinds. Runtime parameters are the kernel's: those
annotated (in the signature, or by a bare annotation in the body before
the first ``T.Kernel``) with ``T.Tensor``/``T.Buffer``, ``T.ptr`` (bound to
a shape by ``T.make_tensor``) or a dtype (a scalar argument). Every other
parameter is a compile-time value (unannotated, ``int``, ``float``,
``bool``, ``T.dtype``), and each distinct set of them, defaults applied,
is a specialization. ``T.const("M N K")`` names sizes that are
compile-time too: each takes its value from a keyword argument of that name
or from the first input tensor whose annotation has it as a dimension
(``A: T.Tensor[[M, K], ...]``), and each distinct set of values is a
specialization; ``T.dynamic("M")`` is a size the one compiled kernel takes
at run time. ``T.empty(shape, dtype)`` declares an output: the call
allocates it (like the first tensor argument: torch on its device, else
numpy) and the function returns it (several: a tuple, in the order of the
``return``).

How it works: the body up to its first ``T.Kernel`` is run once per
compile-time arguments with ``T.const`` sizes as symbols, which finds the
runtime parameters, their annotations, the outputs and which tensor
dimension gives each const ("discovery"). A call computes the consts'
values, and a new specialization runs that prefix again with the values
(the annotations then have their concrete shapes) and traces the whole
body with the runtime parameters and outputs as the kernel's parameters,
in that order: a PrimFunc like any other, compiled by ``compile``.
"""

import ast
import inspect
import textwrap
import threading

from . import language as T

__all__ = ["is_eager", "EagerJIT"]


class _Stop(Exception):
    """Raised at the first T.Kernel while discovering."""


class _Param:
    """A runtime parameter while discovering (no value yet)."""

    def __init__(self, name):
        self.name = name

    @property
    def unbound_parameter(self):
        return self.name

    def __repr__(self):
        return "<runtime parameter %s>" % self.name


class _ScalarSize(T._Symbol):
    """A scalar runtime parameter of an integer dtype while discovering:
    usable in the sizes of outputs (``T.empty([m + 1])``), which a call
    takes from the argument's value."""

    def __init__(self, name):
        super().__init__(name)
        self.parameter = name

    def __repr__(self):
        return "<runtime scalar %s>" % self.parameter


class _Const(T._Symbol):
    """A T.const size while discovering."""

    def __repr__(self):
        return "T.const(%r)" % self.symbol


def _is_runtime_annotation(annotation):
    return isinstance(annotation, (T.Tensor, T.ptr)) or annotation is T.ptr or (
        isinstance(annotation, str) and not isinstance(annotation, type))


def _dtype_annotation(annotation):
    """A dtype string as a scalar parameter's annotation (T.float32,
    "int32", T.dtype("float16")), or None."""
    if isinstance(annotation, str):
        T._mlir_type(annotation)
        return str(annotation)
    return None


class _State:
    """What the T.* functions of the eager style see (language._state.eager)."""

    def __init__(self, mode, consts=None, params=()):
        self.mode = mode            # "discover" or "trace"
        self.consts = consts        # name -> int (None: symbols)
        self.params = set(params)   # names of the function's parameters
        self.symbols = {}           # const name -> _Const (discovering)
        self.annotations = {}       # runtime parameter -> spec, in body order
        self.empties = []           # output specs, in T.empty order
        self.outputs = []           # traced output buffers, kernel order
        self.output_slot = None     # T.empty index -> position in outputs
        self.made = []              # what each T.empty returned

    def const(self, name):
        if self.consts is not None:
            if name not in self.consts:
                raise T.TileLangError("T.const(%r) has no value" % name)
            return self.consts[name]
        return self.symbols.setdefault(name, _Const(name))

    def annotate(self, name, value, spec):
        if name not in self.params:
            raise T.TileLangError(
                "the annotation of %r: in-body annotations declare the "
                "function's parameters (%s)" % (name, ", ".join(sorted(self.params))))
        if self.mode == "discover":
            if isinstance(spec, type) and spec is T.ptr:
                spec = T.ptr()
            self.annotations[name] = spec
            if isinstance(value, _Param) and isinstance(spec, T.Tensor):
                # What code before the kernel reads of it (a macro's
                # `M, N = A.shape`, `T.empty(M, N, dtype=A.dtype)`).
                value.shape, value.dtype = spec.shape, spec.dtype
        return value

    def make_tensor(self, ptr, shape, dtype):
        name = getattr(ptr, "name", None)
        if self.mode == "discover":
            if not isinstance(ptr, _Param):
                raise T.TileLangError("T.make_tensor takes a parameter annotated "
                                      "T.ptr, got %r" % (ptr,))
            self.annotations[ptr.name] = T.Tensor(shape, dtype)
            return ptr
        if not isinstance(ptr, T.TileBuffer):
            raise T.TileLangError("T.make_tensor takes a parameter annotated "
                                  "T.ptr, got %r" % (name or ptr,))
        return ptr

    def empty(self, spec):
        index = len(self.empties)
        self.empties.append(spec)
        if self.mode == "discover":
            made = _Param("<output %d>" % index)
        else:
            made = self.outputs[self.output_slot[index]]
        self.made.append(made)
        return made


def _eager_state():
    return getattr(T._state, "eager", None)


def _own_nodes(fn):
    """The AST nodes of `fn`'s own body (outside nested functions, classes
    and lambdas), or None where its source cannot be read."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    function = tree.body[0]
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None

    def own(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                  ast.ClassDef, ast.Lambda)):
                continue
            yield child
            yield from own(child)

    return own(function)


def _calls(node, names):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in names


def declares_outputs(fn):
    """Whether `fn`'s own body calls T.empty (declares an output)."""
    return any(_calls(node, ("empty",)) for node in _own_nodes(fn) or ())


def is_eager(fn):
    """Whether `fn` is written in the eager style: its own body (not a
    nested function) opens a T.Kernel, calls T.const or T.empty, or
    annotates a name without a value, or a parameter is annotated with a
    tensor, a pointer or a dtype. A function that defines a @T.prim_func
    inside is a factory (TileLang's lazy style)."""
    if any(_is_runtime_annotation(p.annotation)
           for p in inspect.signature(fn).parameters.values()):
        return True
    for node in _own_nodes(fn) or ():
        if isinstance(node, ast.AnnAssign) and node.value is None:
            return True
        if _calls(node, ("Kernel", "const", "empty", "make_tensor")):
            return True
    return False


def _freeze(value):
    """A hashable form of a compile-time argument."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, set):
        return ("set",) + tuple(sorted(_freeze(v) for v in value))
    try:
        hash(value)
    except TypeError:
        raise TypeError("a compile-time argument must be hashable (it keys the "
                        "kernel's specializations), got %s" % type(value).__name__)
    return value


def _is_tensor(value):
    return hasattr(value, "shape") and (
        hasattr(value, "__dlpack__") or hasattr(value, "__array_interface__"))


def _element_strides(value):
    """The strides, in elements, of a tensor argument (torch's stride(),
    numpy's byte strides over the item size), or None where not known."""
    stride = getattr(value, "stride", None)
    if callable(stride):
        return tuple(stride())
    strides = getattr(value, "strides", None)
    itemsize = getattr(getattr(value, "dtype", None), "itemsize", None)
    if strides is not None and itemsize:
        return tuple(s // itemsize for s in strides)
    if isinstance(value, T.StridedTensor):
        return tuple(value.strides)
    return None


def _is_placeholder(value):
    return isinstance(value, (T.Tensor, T.ptr)) or value is T.ptr


class _Discovery:
    """What one run of the body's prefix found, for given compile-time
    arguments."""

    def __init__(self, state):
        self.annotations = state.annotations
        self.empties = state.empties
        self.consts = list(state.symbols)
        self.symbols = state.symbols


class EagerJIT:
    """The object ``@tilelang.jit`` makes of an eager-style function:
    call it with tensors (and compile-time arguments) to run, ``compile``
    for the kernel, ``par_compile`` for several, ``get_tir`` for the
    traced PrimFunc."""

    mode = "eager"

    def __init__(self, fn, prepare):
        from .frontend import rewrite
        self.fn = fn
        self.func = rewrite(fn, eager=True)
        self.signature = inspect.signature(fn)
        # `**kwargs` (TileLang's `**metadata`) takes compile-time keyword
        # arguments beyond the named parameters.
        self._var_keyword = None
        for p in self.signature.parameters.values():
            if p.kind == p.VAR_KEYWORD:
                self._var_keyword = p.name
            elif p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL):
                raise TypeError("%s: eager-style kernels take named parameters "
                                "(no positional-only or *args)" % fn.__name__)
        self._prepare = prepare   # PrimFunc, out_idx -> JITKernel
        self._discoveries = {}
        self._kernels = {}
        self._lock = threading.RLock()
        # Calls seen before, by the signature of their arguments: the
        # kernel and where each of its runtime arguments comes from (the
        # C++ JIT keys its specializations itself).
        self._calls = {}
        self._names = [n for n in self.signature.parameters
                       if n != self._var_keyword]
        self._runtime_scalars = set()
        # Whether a T.const comes from a stride (T.StridedTensor): calls are
        # then told apart by their tensors' strides too.
        self._keys_strides = False
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    # -- binding -----------------------------------------------------------

    def _bind(self, args, kwargs):
        """(bound arguments, extra keyword arguments: const values)."""
        names = self._names
        extra = {k: v for k, v in kwargs.items() if k not in names}
        known = {k: v for k, v in kwargs.items() if k in names}
        bound = self.signature.bind_partial(*args, **known)
        return bound.arguments, extra

    def _discover(self, values, consts=None):
        """Runs the body up to its first T.Kernel with compile-time values
        and placeholders for the rest."""
        state = _State("discover", consts, self.signature.parameters)
        for name, parameter in self.signature.parameters.items():
            if _is_runtime_annotation(parameter.annotation):
                # (A macro before the kernel may read its shape and dtype.)
                state.annotate(name, values.get(name), parameter.annotation)
        previous = _eager_state()
        T._state.eager = state
        try:
            self.func(**values)
        except _Stop:
            pass
        finally:
            T._state.eager = previous
        return state

    def _split(self, arguments, extra=None):
        """(call values for discovery, compile-time key) of bound arguments;
        with `**kwargs`, the extra keyword arguments go to it, compile-time
        values too."""
        values, key = {}, []
        if self._var_keyword is not None and extra:
            for name, value in sorted(extra.items()):
                values[name] = value
                key.append(("**" + name, _freeze(value)))
        for name, parameter in self.signature.parameters.items():
            if name == self._var_keyword:
                continue
            annotated = _is_runtime_annotation(parameter.annotation)
            if name in arguments:
                value = arguments[name]
                if annotated or _is_tensor(value) or _is_placeholder(value):
                    values[name] = self._placeholder(name, parameter)
                    continue
            elif parameter.default is not parameter.empty and not annotated:
                value = parameter.default
            else:
                values[name] = self._placeholder(name, parameter)
                continue
            values[name] = value
            key.append((name, _freeze(value)))
        return values, tuple(key)

    @staticmethod
    def _placeholder(name, parameter):
        """A runtime parameter's value while discovering: a size symbol
        for a scalar of an integer dtype (annotated in the signature),
        else a _Param."""
        dtype = _dtype_annotation(parameter.annotation)
        if dtype is not None and T._mlir_type(dtype) in T._INT_WIDTH and \
                T._mlir_type(dtype) != "i1":
            return _ScalarSize(name)
        return _Param(name)

    def _specialize(self, args, kwargs):
        """The kernel for these arguments (compiled once per compile-time
        arguments and const values), the runtime arguments in the kernel's
        order, and the output order."""
        arguments, extra = self._bind(args, kwargs)
        values, key = self._split(arguments, extra)
        with self._lock:
            found = self._discoveries.get(key)
            if found is None:
                found = self._discoveries[key] = _Discovery(self._discover(values))
        runtime = self._runtime_params(found)
        for name, value in values.items():
            if isinstance(value, (_Param, _ScalarSize)) and name not in runtime:
                if name in arguments:
                    raise TypeError(
                        "%s: argument %r is a tensor, but parameter %r has no "
                        "tensor annotation (in the signature or the body before "
                        "the first T.Kernel)" % (self.__name__, name, name))
                raise TypeError("%s() missing the compile-time argument %r"
                                % (self.__name__, name))
        unknown = sorted(set(extra) - set(found.consts))
        if unknown and self._var_keyword is None:
            raise TypeError("%s() got the keyword argument(s) %s, which are neither "
                            "parameters nor T.const names (%s)" % (
                                self.__name__, ", ".join(unknown),
                                ", ".join(found.consts) or "none"))
        consts = {}
        for name in found.consts:
            if name in extra:
                value = extra[name]
                if not isinstance(value, int) or isinstance(value, bool):
                    raise TypeError("T.const %r of %s is an int, got %r"
                                    % (name, self.__name__, value))
                consts[name] = value
                continue
            source = self._const_source(found, name)
            if source is None:
                raise ValueError(
                    "T.const %r of %s is not a dimension or stride of any input "
                    "tensor's annotation: give it as a keyword argument (%s=...)"
                    % (name, self.__name__, name))
            param, axis, of_strides = source
            value = arguments.get(param)
            if not _is_tensor(value) and not isinstance(value, T.Tensor):
                raise ValueError(
                    "cannot find the value of T.const %r of %s: pass the tensor %r "
                    "(its %s %d) or %s=..." % (
                        name, self.__name__, param,
                        "stride" if of_strides else "dimension", axis, name))
            if of_strides:
                # (T.StridedTensor: the argument's stride, in elements.)
                strides = _element_strides(value)
                if strides is None or axis >= len(strides):
                    raise ValueError(
                        "cannot find the value of T.const %r of %s: the stride %d "
                        "of argument %r is not known; give %s=..." % (
                            name, self.__name__, axis, param, name))
                consts[name] = int(strides[axis])
                # From now on a call's key holds its tensors' strides.
                self._keys_strides = True
                continue
            shape = tuple(value.shape)
            spec = found.annotations.get(param)
            if isinstance(spec, T.Tensor):
                from .jit import _elements
                shape = _elements(spec, shape)  # packed 4-bit: elements
            if axis >= len(shape):
                raise ValueError("argument %r of %s has rank %d; its annotation "
                                 "has rank %d" % (param, self.__name__, len(shape),
                                                  len(found.annotations[param].shape)))
            consts[name] = int(shape[axis])
        full = key + tuple(sorted(consts.items()))
        with self._lock:
            kernel = self._kernels.get(full)
            if kernel is None:
                kernel = self._kernels[full] = self._build(values, runtime, consts)
        return kernel, arguments, runtime

    def _runtime_params(self, found):
        return [name for name in self.signature.parameters
                if _is_runtime_annotation(found.annotations.get(name))]

    @staticmethod
    def _const_source(found, name):
        """(parameter, axis, whether a stride) of the first tensor annotation
        naming the const as a dimension, else as a stride."""
        symbol = found.symbols[name]
        for param, spec in found.annotations.items():
            if isinstance(spec, T.Tensor):
                for axis, dim in enumerate(spec.shape):
                    if dim is symbol:
                        return param, axis, False
        for param, spec in found.annotations.items():
            if isinstance(spec, T.StridedTensor):
                for axis, stride in enumerate(spec.strides):
                    if stride is symbol:
                        return param, axis, True
        return None

    def _build(self, values, runtime, consts):
        concrete = self._discover(values, consts)
        params = []
        for name in runtime:
            spec = concrete.annotations[name]
            if isinstance(spec, T.ptr):
                raise T.TileLangError(
                    "parameter %r of %s is a T.ptr that no T.make_tensor gives a "
                    "shape before the first T.Kernel" % (name, self.__name__))
            if not isinstance(spec, T.Tensor):
                spec = _dtype_annotation(spec)
            params.append((name, spec))
        outputs = [("out%d" % i if "out%d" % i not in self.signature.parameters
                    else "__out%d" % i, spec) for i, spec in enumerate(concrete.empties)]
        # Outputs are the kernel's last parameters, in the order the function
        # returns them: traced again when that is not the T.empty order.
        order = list(range(len(outputs)))
        while True:
            func, returned = self._trace(params + [outputs[i] for i in order],
                                         values, consts, len(params), order)
            if returned == order:
                break
            order = returned
        return self._prepare(func, list(range(len(params), len(params) + len(outputs))))

    def _trace(self, kernel_params, values, consts, count, order):
        """The PrimFunc of the whole body and the T.empty indices it
        returned, in its order."""
        state = _State("trace", consts, self.signature.parameters)
        state.output_slot = {index: position for position, index in enumerate(order)}

        def call(traced):
            call_values = dict(values)
            names = list(traced)
            for name in names[:count]:
                call_values[name] = traced[name]
            state.outputs = [traced[n] for n in names[count:]]
            previous = _eager_state()
            T._state.eager = state
            try:
                return self.func(**call_values)
            finally:
                T._state.eager = previous

        func, value = T._trace(self.func, kernel_params, call)
        func.name = self.__name__
        if not state.made:
            if value is not None:
                raise T.TileLangError("%s returns a value but declares no output "
                                      "(T.empty)" % self.__name__)
            return func, []
        items = list(value) if isinstance(value, (tuple, list)) else [value]
        returned = []
        for item in items:
            index = next((i for i, made in enumerate(state.made) if made is item), None)
            if index is None:
                raise T.TileLangError("%s returns %r: only tensors of T.empty can "
                                      "be returned" % (self.__name__, item))
            returned.append(index)
        if sorted(returned) != list(range(len(state.made))):
            raise T.TileLangError("%s declares %d outputs (T.empty) and returns %d "
                                  "of them: return each T.empty tensor once"
                                  % (self.__name__, len(state.made), len(set(returned))))
        return func, returned

    # -- the user's calls --------------------------------------------------

    def __call__(self, *args, **kwargs):
        key = self._call_key(args, kwargs)
        if key is not None:
            hit = self._calls.get(key)
            if hit is not None:
                kernel, picks = hit
                return kernel(*[args[p] if type(p) is int else kwargs[p]
                                for p in picks])
        kernel, arguments, runtime = self._specialize(args, kwargs)
        result = self._run(kernel, arguments, runtime)
        if key is not None:
            self._remember(key, kernel, runtime, args, kwargs)
        return result

    # Calls remembered at most; then the memory starts over.
    _MAX_CALLS = 1024

    def _call_key(self, args, kwargs):
        """What a call's specialization depends on, hashable: tensors by
        type, shape and dtype, runtime scalars by type, other values by
        value (None where a value is unhashable: such calls specialize
        every time)."""
        def part(name, value):
            kind = type(value)
            if kind in (int, float, bool):
                return (kind,) if name in self._runtime_scalars else (kind, value)
            shape = getattr(value, "shape", None)
            dtype = getattr(value, "dtype", None)
            if shape is not None and dtype is not None:
                if self._keys_strides:  # (T.const strides)
                    return (kind, tuple(shape), dtype, _element_strides(value))
                return (kind, tuple(shape), dtype)
            return (kind, value)
        names = self._names
        try:
            key = (tuple(part(names[i] if i < len(names) else None, v)
                         for i, v in enumerate(args)),
                   tuple(sorted((k, part(k, v)) for k, v in kwargs.items())))
            hash(key)
        except TypeError:
            return None
        return key

    def _remember(self, key, kernel, runtime, args, kwargs):
        picks = []
        for name in runtime:
            if name in kwargs:
                picks.append(name)
            elif name in self._names[:len(args)]:
                picks.append(self._names.index(name))
            else:
                return  # A default value: not worth a second path.
            value = kwargs[name] if name in kwargs else args[picks[-1]]
            if type(value) in (int, float, bool):
                self._runtime_scalars.add(name)
        with self._lock:
            if len(self._calls) >= self._MAX_CALLS:
                self._calls.clear()
            self._calls[key] = (kernel, picks)

    def _run(self, kernel, arguments, runtime):
        inputs = []
        for name in runtime:
            if name not in arguments:
                raise TypeError("%s() missing the argument %r" % (self.__name__, name))
            inputs.append(arguments[name])
        return kernel(*inputs)

    def compile(self, *args, **kwargs):  # noqa: A003 (TileLang's name)
        """The kernel for these arguments (tensors or T.Tensor placeholders
        for the runtime parameters, or only the consts by name): a
        JITKernel called with the runtime arguments, returning the outputs."""
        return self._specialize(args, kwargs)[0]

    def par_compile(self, configs, num_workers=None, ignore_error=False):
        """A kernel per configuration (a dict of keyword arguments or a tuple
        of positional ones), in order; with `ignore_error`, None where one
        fails."""
        kernels = []
        for config in configs:
            try:
                if isinstance(config, dict):
                    kernels.append(self.compile(**config))
                else:
                    kernels.append(self.compile(*config))
            except Exception:  # noqa: BLE001 (the caller asked to go on)
                if not ignore_error:
                    raise
                kernels.append(None)
        return kernels

    def get_tir(self, *args, **kwargs):
        """The traced PrimFunc for these arguments (as ``compile``)."""
        return self.compile(*args, **kwargs).func

    def get_kernel_source(self, *args, **kwargs):
        stage = kwargs.pop("stage", "tile")
        kernel_only = kwargs.pop("kernel_only", True)
        return self.compile(*args, **kwargs).get_kernel_source(
            stage, kernel_only=kernel_only)
