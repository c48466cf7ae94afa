//===- IRBuilder.h - The traced module, built op by op from Python -*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// `tilelang_mlir._tilelang.IRBuilder`: what the T.* tracer (language.py)
// builds a kernel's module with. Every traced op is created here through
// MLIR's builder (an OperationState of a registered op: operands, result
// types, attributes and regions, at the user's file:line:col), in a
// jit::KernelContext that the kernels made from the module share; values
// are named by the tracer's SSA names. No IR text is formatted and parsed
// back: types and attributes given as strings are read with MLIR's own
// type and attribute parsers (as upstream's Python bindings' Type.parse and
// Attribute.parse do), once per distinct string.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PYTHON_IRBUILDER_H
#define TILELANG_PYTHON_IRBUILDER_H

#include "TileLang/JIT/JIT.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <pybind11/pybind11.h>
#include <string>
#include <vector>

namespace mlir::tile::python {

class IRBuilder {
public:
  /// A module holding the function `name` (no arguments yet), located at
  /// `loc`; ops are created at the end of its body.
  IRBuilder(const std::string &name, const pybind11::object &loc);
  ~IRBuilder();

  /// Appends an argument `name` of `type` to the function, with `attrs`
  /// (attribute name -> attribute text).
  void addArgument(const std::string &name, const std::string &type,
                   const pybind11::dict &attrs);

  /// Creates op `opName` at the insertion point: `operands` by name,
  /// `results` as (name, type) pairs (an empty name leaves the result
  /// unnamed), `attrs` (name -> attribute text), `regions` empty regions.
  /// Returns the op's handle.
  size_t create(const std::string &opName,
                const std::vector<std::string> &operands,
                const std::vector<std::pair<std::string, std::string>> &results,
                const pybind11::dict &attrs, unsigned regions,
                const pybind11::object &loc);

  /// Opens a block in region `region` of op `op` with the arguments `args`
  /// ((name, type) pairs) and moves the insertion point to its end (the
  /// previous one is restored by `close`).
  void open(size_t op, unsigned region,
            const std::vector<std::pair<std::string, std::string>> &args,
            const pybind11::object &loc);
  /// Ends the block opened last: `terminator` (an op name, or empty for
  /// none) is appended unless the block ends in a terminator already.
  void close(const std::string &terminator, const pybind11::object &loc);

  /// Moves the insertion point before op `op` until `restore`.
  void before(size_t op);
  void restore();

  /// Erases op `op` and what it holds; their names are free again.
  void erase(size_t op);

  /// The names of the values defined by op `op` and inside its regions.
  std::vector<std::string> definedIn(size_t op);

  /// When `name` is computed inside function-level op `op` only by ops
  /// without side effects or regions from values defined outside `op`,
  /// copies those ops in front of `op`, binds the copy's result to `copy`
  /// and returns true; otherwise false (nothing changes).
  bool hoist(const std::string &name, size_t op, const std::string &copy);

  /// The module as text (with the ops' locations when `locations`).
  std::string print(bool locations) const;

  std::shared_ptr<jit::KernelContext> getContext() const { return context; }
  ModuleOp getModule() const { return *module; }

private:
  Location location(const pybind11::object &loc);
  Type type(const std::string &text);
  Attribute attribute(const std::string &text);
  Value value(const std::string &name);
  OperationName registered(const std::string &opName);
  void bind(const std::string &name, Value value);
  Operation *get(size_t op);

  std::shared_ptr<jit::KernelContext> context;
  OwningOpRef<ModuleOp> module;
  Operation *function = nullptr;
  OpBuilder builder;
  std::vector<OpBuilder::InsertPoint> saved;
  std::vector<Operation *> ops;
  llvm::StringMap<Value> values;
  llvm::DenseMap<Value, std::string> names;
  llvm::StringMap<Type> types;
  llvm::StringMap<Attribute> attributes;
};

/// Registers IRBuilder in `m`.
void bindIRBuilder(pybind11::module_ &m);

} // namespace mlir::tile::python

#endif // TILELANG_PYTHON_IRBUILDER_H
