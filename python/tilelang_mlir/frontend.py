"""TileLang's meaning for Python control flow inside a ``@T.prim_func``.

A prim_func body is Python that the tracer runs once; what it calls builds
the kernel. Python's own statements cannot be traced: ``if`` asks a value
for its truth, ``and`` short-circuits, ``x = e`` rebinds a name. TileLang
reads the body from its source instead, and so does this module: before the
trace, ``rewrite`` parses the function's source and rewrites

* ``if c: ... elif ...: ... else: ...``: where ``c`` is a device value (an
  Expr, a ``T.alloc_var``), an ``scf.if`` with both branches traced in it;
  where ``c`` is a Python value, Python's own ``if`` (the branch not taken
  is not traced). A device branch that ``return``s, ``break``s or
  ``continue``s is an error at the ``if``; so is one that binds a Python
  name the rest of the function reads (both branches run while tracing, so
  the name would hold the else-branch's value whatever the condition):
  such a value belongs in a ``T.alloc_var``;
* ``a if c else b``: ``T.if_then_else`` (both evaluated) when ``c`` is a
  device value, Python's otherwise;
* ``and``, ``or``, ``not`` and chained comparisons: ``arith.andi``/``ori``/
  ``xori`` of i1 values (every operand evaluated) when an operand is a
  device value, Python's short-circuit otherwise; ``==`` and ``!=`` trace a
  comparison when either side is a device value (Python's identity
  otherwise, which silently chose a branch before);
* ``v = e`` and ``v += e`` where ``v`` names a ``T.alloc_var``: a store
  into it (``v = T.alloc_var(...)`` again declares a new one);
* ``for ... in range(...)`` inside a kernel: ``T.serial`` whatever the
  bounds (TileLang's builder; Python's loop outside a kernel and in
  comprehensions), and ``range(...)`` elsewhere over device values;
* ``break`` and ``continue`` in a loop the kernel runs (``T.serial``,
  ``T.Pipelined``, ``range`` over device values), under a device or Python
  condition: per-thread flags (_LoopExit), the body and what follows a
  statement that may leave the iteration running only while neither is
  set; a loop Python runs keeps Python's own;
* a name bound in a device branch may be read after it where a plain
  assignment after the branch precedes every read (``offset = ...`` in
  each of two branches);
* ``while c`` (without ``else``): an ``scf.while`` whose condition is
  traced in its before-region when ``c`` is a device value (its body
  traced once; ``break``, ``continue`` and ``return`` in it are refused, and
  names bound in it are checked as in a device ``if``), Python's loop when
  ``c`` is a Python value; ``while c: ... else:`` on a device value is an
  error.

The rewritten function keeps the user's file and line numbers (and columns)
so that locations and diagnostics point at the user's code; its closure,
annotations and defaults are the original's. A function whose source
cannot be read (defined in an interactive session) is traced as it is.
"""

import ast
import copy
import inspect
import operator
import textwrap

from . import language as T

__all__ = ["rewrite"]


def _traced(value):
    return isinstance(value, (T.Expr, T._Var))


def _error(lineno, message):
    """A TileLangError whose message starts with the user's file and the
    line of the statement at fault."""
    return T.TileLangError(message, line=lineno)


class _Runtime:
    """What the rewritten code calls (bound to the name ``__tl``)."""

    traced = staticmethod(_traced)
    branch = staticmethod(T._branch)

    @staticmethod
    def assign(previous, value):
        """``name = value``: a store when `name` holds a T.alloc_var and
        `value` is not a buffer (a new T.alloc_var rebinds)."""
        if isinstance(previous, T._Var) and not isinstance(value, T.TileBuffer):
            previous.store(value)
            return previous
        return value

    @staticmethod
    def assign_in_branch(previous, value, name, used_after, lineno):
        """``name = value`` inside a branch on a device value."""
        if isinstance(previous, T._Var) and value is previous:
            return previous  # a T.alloc_var updated in place (augassign)
        if isinstance(previous, T._Var) and not isinstance(value, T.TileBuffer):
            previous.store(value)
            return previous
        if used_after:
            raise _error(lineno, "%r is assigned under a condition on a device "
                                 "value and read elsewhere in the kernel: both "
                                 "branches are traced, so it would not depend on "
                                 "the condition; declare it with T.alloc_var (or "
                                 "use another name inside the branch)" % name)
        return value

    _INPLACE = {ast.Add: operator.iadd, ast.Sub: operator.isub,
                ast.Mult: operator.imul, ast.Div: operator.itruediv,
                ast.FloorDiv: operator.ifloordiv, ast.Mod: operator.imod,
                ast.BitAnd: operator.iand, ast.BitOr: operator.ior,
                ast.BitXor: operator.ixor, ast.LShift: operator.ilshift,
                ast.RShift: operator.irshift, ast.Pow: operator.ipow}

    @classmethod
    def augassign(cls, previous, op_name, value):
        """``name op= value``: a load, the operation and a store for a
        T.alloc_var; Python's in-place operation otherwise."""
        op = cls._INPLACE[getattr(ast, op_name)]
        if isinstance(previous, T._Var):
            previous.store(op(previous[0], value))
            return previous
        return op(previous, value)

    @staticmethod
    def select(condition, then, otherwise):
        if _traced(condition):
            a, b = then(), otherwise()
            if not _traced(a) and not _traced(b):
                a = T._as_expr(a)
            return T.if_then_else(_Runtime.truth(condition), a, b)
        return then() if condition else otherwise()

    @staticmethod
    def truth(value):
        """An i1 Expr of a device value (non-i1 values: ``!= 0``)."""
        value = T._as_expr(value)
        if value.type != "i1":
            value = T._compare("ne", value, 0)
        return value

    @staticmethod
    def logical(kind, *thunks):
        """``and``/``or`` of the operands, evaluated in order: Python's
        short-circuit until a device value appears, then every remaining
        operand evaluated and combined with arith.andi/ori."""
        value = thunks[0]()
        for i, thunk in enumerate(thunks[1:], 1):
            if _traced(value):
                combined = _Runtime.truth(value)
                for rest in thunks[i:]:
                    operand = rest()
                    if not _traced(operand):
                        operand = T._constant(1 if operand else 0, "i1")
                    combined = T._binary(kind, combined, _Runtime.truth(operand))
                return combined
            if (kind == "and") != bool(value):
                return value
            value = thunk()
        return value

    @staticmethod
    def not_(value):
        if _traced(value):
            return T._binary("xor", _Runtime.truth(value), T._constant(1, "i1"))
        return not value

    @staticmethod
    def compare(kind, a, b):
        if (_traced(a) or _traced(b)) and \
                getattr(T._state, "builder", None) is not None:
            return T._Equality.compare(kind, a, b)
        if _traced(a) or _traced(b):
            # The eager style's discovery runs the code before the kernel
            # with T.const/T.dynamic sizes as symbols (a macro's
            # `assert M == M_` of two tensors' shapes): the same size
            # expression is equal; the trace that follows checks the values.
            same = T._same_size(a, b)
            return same if kind == "eq" else not same
        return a == b if kind == "eq" else a != b

    @staticmethod
    def while_condition(value, lineno):
        if _traced(value):
            raise _error(lineno, "a while loop on a device value is not "
                                 "supported yet; bound it with T.serial and "
                                 "branch inside")
        return value

    while_loop = staticmethod(T._while_loop)

    @staticmethod
    def refuse_loop(lineno, what):
        raise _error(lineno, "%s inside a while loop on a device value: the "
                             "scf.while runs its body to the end each "
                             "iteration; fold it into the condition" % what)

    @staticmethod
    def loop_exit():
        return _LoopExit()

    @staticmethod
    def range_(*args):
        if any(_traced(a) for a in args):
            return T.serial(*args)
        return range(*args)

    @staticmethod
    def for_range(*args):
        # TileLang's meaning of `for ... in range(...)` in a kernel: a loop
        # the kernel runs (its builder makes the range T.serial whatever the
        # bounds), not one Python unrolls at trace time (a hand-pipelined
        # k loop of 128 iterations took 110 s to compile unrolled, 0.4 s as
        # a loop). Outside a kernel, and in comprehensions, Python's range.
        if T._in_kernel_body():
            return T.serial(*args)
        return _Runtime.range_(*args)

    @staticmethod
    def refuse(lineno, what):
        raise _error(lineno, "%s inside an if on a device value: the kernel "
                             "cannot leave a branch that every thread takes "
                             "through an scf.if; move it out of the branch"
                     % what)

    @staticmethod
    def previous(scope, name):
        return scope.get(name, _UNSET)

    @staticmethod
    def annotate(name, previous, annotation):
        return T._eager_annotate(name, None if previous is _UNSET else previous,
                                 annotation)


_UNSET = object()


class _LoopExit:
    """``break``/``continue`` of a loop the kernel runs (T.serial,
    T.Pipelined, range over device values: an scf.for traced once): flags
    in per-thread variables; the body runs under ``not (broke or
    continued)``, the rest of an iteration after a statement that may leave
    it under the same test, and ``break``/``continue`` set the flag. A
    loop Python runs (range over Python ints) keeps Python's own."""

    def __init__(self):
        self.device = False
        self.broke = self.continued = None

    def start(self, iterable):
        self.device = inspect.isgenerator(iterable)
        if self.device:
            # Set before the loop: the stores precede its scf.for.
            self.broke = T.alloc_var("bool", False)
            self.continued = T.alloc_var("bool", False)
        return iterable

    def begin(self):
        self.continued.store(False)

    def running(self):
        return T._binary("xor", T._binary("or", self.broke[0], self.continued[0]),
                         T._constant(True, "i1"))

    def break_(self):
        self.broke.store(True)

    def continue_(self):
        self.continued.store(True)


def _exits(node):
    """Whether `node` holds a break or continue of the enclosing loop (not
    one of a nested loop or function)."""
    if isinstance(node, (ast.Break, ast.Continue)):
        return True
    if isinstance(node, (ast.For, ast.While, ast.AsyncFor, ast.FunctionDef,
                         ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return False
    return any(_exits(child) for child in ast.iter_child_nodes(node))


def _guard_exits(statements, flag):
    """`statements` of a loop body with its break/continue turned into
    flag stores (_LoopExit) and what follows a statement that may leave
    the iteration run only while the loop is still running."""
    out = []
    for index, statement in enumerate(statements):
        if isinstance(statement, (ast.Break, ast.Continue)):
            method = "break_" if isinstance(statement, ast.Break) else "continue_"
            out.append(ast.copy_location(ast.Expr(ast.Call(
                func=ast.Attribute(value=ast.Name(flag, ast.Load()), attr=method,
                                   ctx=ast.Load()), args=[], keywords=[])), statement))
            return out  # the rest of the list is never reached
        if not _exits(statement):
            out.append(statement)
            continue
        statement = copy.copy(statement)
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(statement, field, None), list):
                setattr(statement, field, _guard_exits(getattr(statement, field), flag))
        out.append(statement)
        rest = _guard_exits(statements[index + 1:], flag)
        if rest:
            out.append(_running_if(flag, rest))
        return out
    return out


def _running_if(flag, body):
    """``if flag.running(): body``, spanning the lines of `body`."""
    node = ast.If(test=ast.Call(func=ast.Attribute(
        value=ast.Name(flag, ast.Load()), attr="running", ctx=ast.Load()),
        args=[], keywords=[]), body=body, orelse=[])
    ast.copy_location(node, body[0])
    node.end_lineno = max(getattr(n, "end_lineno", n.lineno) for n in body)
    return node


def _call(attr, *args):
    return ast.Call(func=ast.Attribute(value=ast.Name("__tl", ast.Load()),
                                       attr=attr, ctx=ast.Load()),
                    args=list(args), keywords=[])


def _thunk(expr):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None,
                                         kwonlyargs=[], kw_defaults=[], kwarg=None,
                                         defaults=[]), body=expr)


def _previous(name):
    return _call("previous", ast.Call(func=ast.Name("locals", ast.Load()), args=[],
                                      keywords=[]), ast.Constant(name))


class _Leaves(ast.NodeVisitor):
    """The first return/break/continue of statements (not inside nested
    functions or loops, where break/continue belong to the loop)."""

    def __init__(self):
        self.found = None

    def visit_Return(self, node):
        self.found = self.found or "return"

    def visit_Break(self, node):
        self.found = self.found or "break"

    def visit_Continue(self, node):
        self.found = self.found or "continue"

    def visit_FunctionDef(self, node):
        pass

    visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef

    def visit_For(self, node):
        # A return inside a nested loop still leaves the branch.
        for child in ast.walk(node):
            if isinstance(child, ast.Return):
                self.found = self.found or "return"

    visit_While = visit_For


def _collect_loads(node, before, loads):
    """Records every Name load under `node` in `loads` (name -> [(line,
    lines of the assignments that precede it)]); `before` holds, per name,
    the lines of the plain assignments (``name = ...`` as a statement of a
    list) that come before `node` in its statement list and the enclosing
    ones."""
    for field, value in ast.iter_fields(node):
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            running = {k: list(v) for k, v in before.items()}
            for statement in value:
                _collect_loads(statement, running, loads)
                if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                    targets = statement.targets if isinstance(statement, ast.Assign) \
                        else [statement.target]
                    for target in targets:
                        if isinstance(target, ast.Name):
                            running.setdefault(target.id, []).append(statement.lineno)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    _collect_loads(item, before, loads)
        elif isinstance(value, ast.AST):
            _collect_loads(value, before, loads)
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        loads.setdefault(node.id, []).append((node.lineno, before.get(node.id, [])))


class _Rewriter(ast.NodeTransformer):
    def __init__(self, function, eager=False):
        self.eager = eager
        self.count = 0
        # Where each name is read: (line of the load, lines of the plain
        # assignments to it that precede the load in its statement list or
        # an enclosing one, so that every path to the load passes them).
        self.loads = {}
        _collect_loads(function, {}, self.loads)
        self.branch = None  # the device if being rewritten: (first, last line)

    def _fresh(self, hint):
        self.count += 1
        return "__tl_%s%d" % (hint, self.count)

    # -- expressions -------------------------------------------------------

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return ast.copy_location(_call("select", node.test, _thunk(node.body),
                                       _thunk(node.orelse)), node)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        kind = "and" if isinstance(node.op, ast.And) else "or"
        return ast.copy_location(_call("logical", ast.Constant(kind),
                                       *[_thunk(v) for v in node.values]), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call("not_", node.operand), node)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        operands = [node.left] + node.comparators
        parts = []
        for op, a, b in zip(node.ops, operands, operands[1:]):
            if isinstance(op, (ast.Eq, ast.NotEq)):
                part = _call("compare", ast.Constant("eq" if isinstance(op, ast.Eq)
                                                      else "ne"), a, b)
            else:
                part = ast.Compare(left=a, ops=[op], comparators=[b])
            parts.append(ast.copy_location(part, node))
        if len(parts) == 1:
            return parts[0]
        return ast.copy_location(_call("logical", ast.Constant("and"),
                                       *[_thunk(p) for p in parts]), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "range":
            node.func = ast.Attribute(value=ast.Name("__tl", ast.Load()),
                                      attr="range_", ctx=ast.Load())
        return node

    # -- statements --------------------------------------------------------

    def visit_Assign(self, node):
        self.generic_visit(node)
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return node
        name = node.targets[0].id
        value = node.value
        if self.branch is None:
            value = _call("assign", _previous(name), value)
        node.value = ast.copy_location(self._in_branch(name, value, node), node.value)
        return node

    def _in_branch(self, name, value, node):
        """`value` bound to `name` inside a device branch or loop: checked
        by assign_in_branch (a T.alloc_var stores; a name the kernel reads
        outside the branch is refused). Outside one, `value` itself."""
        if self.branch is None:
            return value
        first, last = self.branch
        # A read outside the branch sees the branch's binding unless a plain
        # assignment precedes it on every path: after the branch for a read
        # after it; any for a read before it (reached from the branch only
        # through a loop's next iteration, which passes that assignment).
        used_after = any((line < first or line > last) and
                         not any(at < line and (line < first or at > last)
                                 for at in assigned)
                         for line, assigned in self.loads.get(name, ()))
        return _call("assign_in_branch", _previous(name), value, ast.Constant(name),
                     ast.Constant(used_after), ast.Constant(node.lineno))

    def visit_AnnAssign(self, node):
        # Eager style: `A: T.Tensor[[M, K], dtype]` declares what parameter A
        # is (eager.py); a bare annotation is otherwise Python's no-op.
        self.generic_visit(node)
        if not self.eager or node.value is not None or \
                not isinstance(node.target, ast.Name):
            return node
        name = node.target.id
        return ast.copy_location(ast.Assign(
            targets=[ast.Name(name, ast.Store())],
            value=_call("annotate", ast.Constant(name), _previous(name),
                        node.annotation)), node)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            return node
        name = node.target.id
        value = self._in_branch(name, _call(
            "augassign", _previous(name), ast.Constant(type(node.op).__name__),
            node.value), node)
        return ast.copy_location(ast.Assign(targets=[ast.Name(name, ast.Store())],
                                            value=value), node)

    def visit_For(self, node):
        """A loop whose body may break or continue: the kernel's loop
        (a generator, T.serial and the like) runs the body with _LoopExit's
        flags, Python's loop its own; other loops as they are. A loop over
        `range(...)` is the kernel's loop inside a kernel (for_range)."""
        if isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name) \
                and node.iter.func.id == "range":
            node.iter.func = ast.Attribute(value=ast.Name("__tl", ast.Load()),
                                           attr="for_range", ctx=ast.Load())
        if node.orelse or getattr(node, "tl_exits", False) or \
                not any(_exits(statement) for statement in node.body):
            self.generic_visit(node)
            return node
        flag = self._fresh("x")
        device = [ast.Expr(ast.Call(func=ast.Attribute(
            value=ast.Name(flag, ast.Load()), attr="begin", ctx=ast.Load()),
            args=[], keywords=[])),
            _running_if(flag, _guard_exits(copy.deepcopy(node.body), flag))]
        for statement in device:
            ast.copy_location(statement, node.body[0])
        body = ast.If(test=ast.Attribute(value=ast.Name(flag, ast.Load()),
                                         attr="device", ctx=ast.Load()),
                      body=device, orelse=copy.deepcopy(node.body))
        ast.copy_location(body, node.body[0])
        loop = ast.For(target=node.target,
                       iter=ast.Call(func=ast.Attribute(
                           value=ast.Name(flag, ast.Load()), attr="start",
                           ctx=ast.Load()), args=[node.iter], keywords=[]),
                       body=[body], orelse=[])
        loop.tl_exits = True  # rewritten once
        made = ast.Assign(targets=[ast.Name(flag, ast.Store())],
                          value=_call("loop_exit"))
        for statement in (loop, made):
            ast.copy_location(statement, node)
        return self._statements([made, loop])

    def visit_While(self, node):
        """``while c: body`` (no else): a loop over __tl.while_loop, which
        is an scf.while when `c` is a device value (the device body: no
        break/continue/return, names it binds and the kernel reads
        elsewhere refused as in a device if) and Python's loop otherwise."""
        if node.orelse:
            node.test = self.visit(node.test)
            node.body = self._statements(node.body)
            node.orelse = self._statements(node.orelse)
            node.test = ast.copy_location(_call("while_condition", node.test,
                                                ast.Constant(node.lineno)), node.test)
            return node
        condition = self.visit(node.test)
        python_body = self._statements(node.body)
        leaving, bodies = self._device_bodies(node, node.body)
        if leaving:
            device_body = [ast.Expr(_call("refuse_loop", ast.Constant(node.lineno),
                                          ast.Constant(leaving)))]
        else:
            device_body = bodies[0] or [ast.Pass()]
        flag = self._fresh("w")
        loop = ast.For(
            target=ast.Name(flag, ast.Store()),
            iter=_call("while_loop", _thunk(condition), ast.Constant(node.lineno)),
            body=[ast.If(test=ast.Name(flag, ast.Load()), body=device_body,
                         orelse=python_body or [ast.Pass()])],
            orelse=[])
        return ast.copy_location(loop, node)

    def _statements(self, statements):
        out = []
        for statement in statements:
            out += _as_list(self.visit(copy.deepcopy(statement)))
        return out

    def _device_bodies(self, node, *bodies):
        """(what leaves them, if anything; else None, and `bodies` rewritten
        as the device version of `node` runs them: names they bind checked
        against reads outside `node`'s lines)."""
        leaves = _Leaves()
        for body in bodies:
            for statement in body:
                leaves.visit(statement)
        if leaves.found:
            return leaves.found, None
        outer = self.branch
        last = getattr(node, "end_lineno", node.lineno)
        self.branch = (node.lineno, last) if outer is None else outer
        rewritten = [self._statements(body) for body in bodies]
        self.branch = outer
        return None, rewritten

    def visit_If(self, node):
        condition = self.visit(node.test)
        value = self._fresh("c")
        # Python's if: the branches as written (rewritten for what they hold).
        python_body = self._statements(node.body)
        python_else = self._statements(node.orelse)
        # The device if: both branches traced inside one scf.if.
        leaving, bodies = self._device_bodies(node, node.body, node.orelse)
        if leaving:
            traced = [ast.Expr(_call("refuse", ast.Constant(node.lineno),
                                     ast.Constant(leaving)))]
        else:
            then, otherwise = bodies
            handle = self._fresh("b")
            body = then or [ast.Pass()]
            if otherwise:
                body = body + [ast.Expr(ast.Call(
                    func=ast.Attribute(value=ast.Name(handle, ast.Load()),
                                       attr="else_", ctx=ast.Load()),
                    args=[], keywords=[]))] + otherwise
            traced = [ast.With(items=[ast.withitem(
                context_expr=_call("branch", ast.Name(value, ast.Load())),
                optional_vars=ast.Name(handle, ast.Store()))], body=body)]
        statements = [
            ast.Assign(targets=[ast.Name(value, ast.Store())], value=condition),
            ast.If(test=_call("traced", ast.Name(value, ast.Load())), body=traced,
                   orelse=[ast.If(test=ast.Name(value, ast.Load()),
                                  body=python_body or [ast.Pass()],
                                  orelse=python_else)]),
        ]
        for statement in statements:
            ast.copy_location(statement, node)
        return statements


def _shift_columns(tree, indent):
    if not indent:
        return
    for node in ast.walk(tree):
        if hasattr(node, "col_offset") and node.col_offset is not None:
            node.col_offset += indent
        if getattr(node, "end_col_offset", None) is not None:
            node.end_col_offset += indent


def rewrite(fn, eager=False):
    """`fn` with its body rewritten as the module's documentation says, or
    `fn` itself when its source cannot be read. With `eager` (TileLang's
    eager jit style, eager.py), a bare annotation of a name in the body,
    ``A: T.Tensor[[M, K], dtype]``, declares that parameter."""
    try:
        source = inspect.getsource(fn)
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError):
        return fn
    dedented = textwrap.dedent(source)
    indent = len(source.splitlines()[0]) - len(dedented.splitlines()[0])
    tree = ast.parse(dedented)
    function = tree.body[0]
    if not isinstance(function, ast.FunctionDef):
        return fn
    function.decorator_list = []
    # The original's annotations and defaults are kept as objects (they were
    # evaluated where the function was defined, from names the body may not
    # see).
    for arg in function.args.args + function.args.kwonlyargs + function.args.posonlyargs:
        arg.annotation = None
    function.args.defaults = []
    function.args.kw_defaults = [None] * len(function.args.kwonlyargs)
    function.returns = None
    # The user's lines and columns, before any node is added.
    ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
    _shift_columns(tree, indent)
    rewriter = _Rewriter(function, eager)
    function.body = [s for statement in function.body
                     for s in _as_list(rewriter.visit(statement))]
    ast.fix_missing_locations(tree)
    freevars = fn.__code__.co_freevars
    factory = ast.FunctionDef(
        name="__tl_factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(v) for v in freevars],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                           defaults=[]),
        body=[function, ast.Return(ast.Name(function.name, ast.Load()))],
        decorator_list=[], returns=None, type_params=[])
    ast.copy_location(factory, function)
    module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
    try:
        cells = [cell.cell_contents for cell in fn.__closure__ or ()]
    except ValueError:  # a free variable not bound yet
        return fn
    namespace = dict(fn.__globals__)
    namespace["__tl"] = _Runtime
    exec(compile(module, filename, "exec"), namespace)
    rewritten = namespace["__tl_factory"](*cells)
    rewritten.__annotations__ = dict(fn.__annotations__)
    rewritten.__defaults__ = fn.__defaults__
    rewritten.__kwdefaults__ = fn.__kwdefaults__
    rewritten.__name__ = fn.__name__
    rewritten.__qualname__ = fn.__qualname__
    rewritten.__wrapped__ = fn
    return rewritten


def _as_list(value):
    return value if isinstance(value, list) else [value]
