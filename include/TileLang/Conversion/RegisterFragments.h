//===- RegisterFragments.h - Fragments in per-thread registers --*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// The layout-driven lowering of fragments inside gpu.launch: a fragment with
// a #tile.fragment layout becomes, in every thread, an array of the
// elements the layout gives that thread (one memref.alloca, indexed only by
// constants, so the device compiler keeps it in registers). The tile ops
// that touch it visit each thread's own slots: tile.parallel once per slot
// of its loop fragment, reductions in-thread and then with xor shuffles,
// copies element by element at the layout's coordinates, tensor-core gemms
// straight from and into the registers.
//
// A fragment goes to registers only when every op that touches it can be
// lowered that way, which tile-select-register-fragments decides before the
// lowering by enumerating the layouts (FragmentTable) and records on the
// fragment's allocation; the others stay in shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_CONVERSION_REGISTERFRAGMENTS_H
#define TILELANG_CONVERSION_REGISTERFRAGMENTS_H

#include "TileLang/Dialect/Tile/IR/FragmentTable.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>
#include <memory>

namespace mlir {
namespace tile {

class RegisterFragments {
public:
  /// Whether the target's gemm lowering takes `fragment` (the gemm's A or
  /// C) in registers with the layout of `table`.
  using GemmSupport =
      std::function<bool(GemmOp gemm, Value fragment, const FragmentTable &)>;

  /// Chooses the fragments of every tile.kernel under `root` that live in
  /// registers and marks their allocations
  /// (TileDialect::getInRegistersAttrName; the others lose the mark):
  /// tile-select-register-fragments.
  static void select(Operation *root, const GemmSupport &gemmSupport);

  /// The layout table of `fragment` when its allocation is marked in
  /// registers and its layout has one, else null (a query of the IR, valid
  /// before and during the lowering).
  static const FragmentTable *getMarkedTable(Value fragment);

  /// Creates, at the start of each kernel body under `root`, the
  /// per-thread array of every fragment marked in registers; fails with a
  /// located error on a mark whose layout registers cannot hold.
  LogicalResult materialize(Operation *root);

  /// The layout table of `fragment` when it lives in registers, else null.
  const FragmentTable *getTable(Value fragment) const;
  /// The per-thread array (memref<slots x element>) of `fragment`, or null.
  Value getArray(Value fragment) const;

  /// Erases the allocations of the register fragments once no lowered op
  /// uses them; fails (with an error) if one still has a use.
  LogicalResult eraseAllocations();

private:
  struct Entry {
    const FragmentTable *table;
    Value array;
  };
  llvm::DenseMap<Value, Entry> entries;
};

/// The coordinates (index values) of the element in slot `slot` of thread
/// `tid` of a register fragment laid out as `table` (separable tables).
SmallVector<Value> emitFragmentCoords(OpBuilder &b, Location loc,
                                      const FragmentTable &table, Value tid,
                                      int64_t slot);

/// The per-thread lowering of fill, copy, reduce and tile.parallel on
/// register fragments (taking precedence over the Block-mode patterns).
void populateRegisterFragmentPatterns(RewritePatternSet &patterns,
                                      const RegisterFragments &fragments);

} // namespace tile
} // namespace mlir

#endif // TILELANG_CONVERSION_REGISTERFRAGMENTS_H
