//===- IRBuilder.cpp - The traced module, built op by op from Python ------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "IRBuilder.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::python;

namespace {
/// A mistake of the tracer or of text the user gave (a layout): raised as
/// the bindings' TileError.
struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Collects what MLIR's parsers report while alive.
class ParseDiagnostics {
public:
  explicit ParseDiagnostics(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          if (!text.empty())
            text += "; ";
          text += diag.str();
          return success();
        }) {}
  std::string text;

private:
  ScopedDiagnosticHandler handler;
};
} // namespace

IRBuilder::IRBuilder(const std::string &name, const py::object &loc)
    : context(std::make_shared<jit::KernelContext>()),
      builder(context->get()) {
  MLIRContext *ctx = context->get();
  ctx->getOrLoadDialect<func::FuncDialect>();
  Location at = location(loc);
  module = ModuleOp::create(at);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, at, name,
                                   FunctionType::get(ctx, {}, {}));
  function = func;
  builder.setInsertionPointToEnd(func.addEntryBlock());
}

IRBuilder::~IRBuilder() {
  // The module goes before the context it lives in.
  module = nullptr;
}

Location IRBuilder::location(const py::object &loc) {
  MLIRContext *ctx = context->get();
  if (loc.is_none())
    return UnknownLoc::get(ctx);
  auto tuple = loc.cast<py::tuple>();
  return FileLineColLoc::get(ctx, tuple[0].cast<std::string>(),
                             tuple[1].cast<unsigned>(),
                             tuple[2].cast<unsigned>());
}

/// `loc` named by the SSA name `name` (without its %): the printer shows
/// block arguments with the tracer's names (printNameLocAsPrefix).
static Location namedLocation(const std::string &name, Location loc) {
  StringRef bare = StringRef(name).ltrim('%');
  if (bare.empty())
    return loc;
  return NameLoc::get(StringAttr::get(loc->getContext(), bare), loc);
}

/// `text` read by `parse` (MLIR's type or attribute parser) once: later
/// reads of the same text come from `cache`; a failure names `what` and
/// the parser's diagnostics.
template <typename T, typename Parse>
static T parseOnce(llvm::StringMap<T> &cache, const std::string &text,
                   MLIRContext *ctx, const char *what, Parse parse) {
  auto it = cache.find(text);
  if (it != cache.end())
    return it->second;
  ParseDiagnostics diags(ctx);
  T parsed = parse(text, ctx);
  if (!parsed)
    throw BuildError(std::string("cannot read the ") + what + " '" + text +
                     "': " + diags.text);
  cache[text] = parsed;
  return parsed;
}

Type IRBuilder::type(const std::string &text) {
  return parseOnce(types, text, context->get(), "type",
                   [](StringRef t, MLIRContext *ctx) { return parseType(t, ctx); });
}

Attribute IRBuilder::attribute(const std::string &text) {
  return parseOnce(attributes, text, context->get(), "attribute",
                   [](StringRef t, MLIRContext *ctx) {
                     return parseAttribute(t, ctx);
                   });
}

OperationName IRBuilder::registered(const std::string &opName) {
  MLIRContext *ctx = context->get();
  OperationName name(opName, ctx);
  if (name.isRegistered())
    return name;
  // Dialects load on first use, as the parser loads them.
  StringRef dialect = StringRef(opName).split('.').first;
  if (!ctx->getOrLoadDialect(dialect))
    throw BuildError("'" + opName + "' is not an op of the compiler's dialects");
  name = OperationName(opName, ctx);
  if (!name.isRegistered())
    throw BuildError("'" + opName + "' is not an op of the '" + dialect.str() +
                     "' dialect");
  return name;
}

Value IRBuilder::value(const std::string &name) {
  auto it = values.find(name);
  if (it == values.end())
    throw BuildError("no traced value named " + name);
  return it->second;
}

void IRBuilder::bind(const std::string &name, Value value) {
  if (name.empty())
    return;
  auto [it, inserted] = values.try_emplace(name, value);
  if (!inserted)
    throw BuildError("the traced value " + name + " is defined twice");
  names[value] = name;
}

Operation *IRBuilder::get(size_t op) {
  if (op >= ops.size() || !ops[op])
    throw BuildError("no op with handle " + std::to_string(op));
  return ops[op];
}

void IRBuilder::addArgument(const std::string &name, const std::string &typeText,
                            const py::dict &attrs) {
  auto func = cast<func::FuncOp>(function);
  SmallVector<NamedAttribute> named;
  for (auto [key, text] : attrs)
    named.emplace_back(key.cast<std::string>(),
                       attribute(text.cast<std::string>()));
  unsigned index = func.getNumArguments();
  (void)func.insertArgument(index, type(typeText),
                            DictionaryAttr::get(context->get(), named),
                            namedLocation(name, func.getLoc()));
  bind(name, func.getArgument(index));
}

size_t IRBuilder::create(
    const std::string &opName, const std::vector<std::string> &operands,
    const std::vector<std::pair<std::string, std::string>> &results,
    const py::dict &attrs, unsigned regions, const py::object &loc) {
  OperationState state(location(loc), registered(opName));
  for (const std::string &name : operands)
    state.operands.push_back(value(name));
  for (const auto &result : results)
    state.types.push_back(type(result.second));
  for (auto [key, text] : attrs)
    state.addAttribute(key.cast<std::string>(),
                       attribute(text.cast<std::string>()));
  for (unsigned i = 0; i < regions; ++i)
    state.addRegion();
  Operation *op = builder.create(state);
  for (auto [result, named] : llvm::zip(op->getResults(), results))
    bind(named.first, result);
  ops.push_back(op);
  return ops.size() - 1;
}

void IRBuilder::open(size_t op, unsigned region,
                     const std::vector<std::pair<std::string, std::string>> &args,
                     const py::object &loc) {
  Operation *parent = get(op);
  if (region >= parent->getNumRegions())
    throw BuildError("'" + parent->getName().getStringRef().str() +
                     "' has no region " + std::to_string(region));
  Location at = location(loc);
  Block *block = new Block();
  parent->getRegion(region).push_back(block);
  for (const auto &arg : args)
    bind(arg.first, block->addArgument(type(arg.second), namedLocation(arg.first, at)));
  saved.push_back(builder.saveInsertionPoint());
  builder.setInsertionPointToEnd(block);
}

void IRBuilder::close(const std::string &terminator, const py::object &loc) {
  if (saved.empty())
    throw BuildError("no open block to close");
  Block *block = builder.getInsertionBlock();
  if (!terminator.empty() &&
      (block->empty() || !block->back().hasTrait<::mlir::OpTrait::IsTerminator>())) {
    OperationState state(location(loc), registered(terminator));
    builder.setInsertionPointToEnd(block);
    builder.create(state);
  }
  builder.restoreInsertionPoint(saved.back());
  saved.pop_back();
}

void IRBuilder::before(size_t op) {
  saved.push_back(builder.saveInsertionPoint());
  builder.setInsertionPoint(get(op));
}

void IRBuilder::restore() {
  if (saved.empty())
    throw BuildError("no insertion point to restore");
  builder.restoreInsertionPoint(saved.back());
  saved.pop_back();
}

/// Calls `fn` on every value `op` and the ops inside it define: results and
/// block arguments.
static void forEachDefinedValue(Operation *op, function_ref<void(Value)> fn) {
  op->walk([&](Operation *nested) {
    for (Value result : nested->getResults())
      fn(result);
    for (Region &region : nested->getRegions())
      for (Block &block : region)
        for (Value arg : block.getArguments())
          fn(arg);
  });
}

void IRBuilder::erase(size_t handle) {
  Operation *op = get(handle);
  forEachDefinedValue(op, [&](Value v) {
    auto it = names.find(v);
    if (it == names.end())
      return;
    values.erase(it->second);
    names.erase(it);
  });
  llvm::SmallPtrSet<Operation *, 16> erased;
  op->walk([&](Operation *nested) { erased.insert(nested); });
  for (Operation *&known : ops)
    if (erased.contains(known))
      known = nullptr;
  op->erase();
}

std::vector<std::string> IRBuilder::definedIn(size_t handle) {
  std::vector<std::string> result;
  forEachDefinedValue(get(handle), [&](Value v) {
    auto it = names.find(v);
    if (it != names.end())
      result.push_back(it->second);
  });
  return result;
}

bool IRBuilder::hoist(const std::string &name, size_t handle,
                      const std::string &copy) {
  Operation *anchor = get(handle);
  if (anchor->getParentOp() != function)
    return false;
  // The ops inside `anchor` that compute `name`, operands first; the
  // values they read from outside `anchor` are reused as they are.
  llvm::SetVector<Operation *> slice;
  bool movable = true;
  std::function<void(Value)> visit = [&](Value v) {
    Operation *def = v.getDefiningOp();
    Operation *owner = def ? def : v.getParentBlock()->getParentOp();
    if (!movable || !anchor->isAncestor(owner) || slice.contains(def))
      return;
    // Block and thread indices, loop variables, loads: a kernel's own.
    if (!def || def->getNumRegions() || !isMemoryEffectFree(def)) {
      movable = false;
      return;
    }
    for (Value operand : def->getOperands())
      visit(operand);
    slice.insert(def);
  };
  Value v = value(name);
  visit(v);
  if (!movable)
    return false;
  IRMapping mapping;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(anchor);
  for (Operation *op : slice)
    builder.clone(*op, mapping);
  bind(copy, mapping.lookupOrDefault(v));
  return true;
}

std::string IRBuilder::print(bool locations) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  // Locations inline (no aliases), as the tracer's text had them.
  module.get()->print(os, OpPrintingFlags()
                             .enableDebugInfo(locations, /*prettyForm=*/false)
                             .useLocalScope()
                             .printNameLocAsPrefix());
  return text;
}

void mlir::tile::python::bindIRBuilder(py::module_ &m) {
  py::register_exception<BuildError>(m, "IRBuildError", PyExc_ValueError);
  py::class_<IRBuilder>(m, "IRBuilder",
                        "A kernel's module, built op by op (the T.* tracer's "
                        "builder)")
      .def(py::init<const std::string &, const py::object &>(),
           py::arg("name"), py::arg("loc") = py::none())
      .def("add_argument", &IRBuilder::addArgument, py::arg("name"),
           py::arg("type"), py::arg("attrs") = py::dict())
      .def("create", &IRBuilder::create, py::arg("name"),
           py::arg("operands") = std::vector<std::string>(),
           py::arg("results") =
               std::vector<std::pair<std::string, std::string>>(),
           py::arg("attrs") = py::dict(), py::arg("regions") = 0,
           py::arg("loc") = py::none())
      .def("open", &IRBuilder::open, py::arg("op"), py::arg("region") = 0,
           py::arg("args") = std::vector<std::pair<std::string, std::string>>(),
           py::arg("loc") = py::none())
      .def("close", &IRBuilder::close, py::arg("terminator") = "",
           py::arg("loc") = py::none())
      .def("before", &IRBuilder::before, py::arg("op"))
      .def("restore", &IRBuilder::restore)
      .def("erase", &IRBuilder::erase, py::arg("op"))
      .def("defined_in", &IRBuilder::definedIn, py::arg("op"))
      .def("hoist", &IRBuilder::hoist, py::arg("name"), py::arg("op"),
           py::arg("copy"),
           "Copies what computes `name` in front of op `op` (a function-"
           "level op) as `copy` when it reads nothing defined inside `op` "
           "but through side-effect-free ops; whether it did")
      .def("print", &IRBuilder::print, py::arg("locations") = true);
}
