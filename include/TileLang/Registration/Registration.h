//===- Registration.h - Register TileLang with an MLIR context --*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// Entry points for embedding TileLang in another MLIR compiler. All at once
// (what tile-opt has: TileLang and every upstream dialect, extension, LLVM IR
// translation and pass):
//
//   mlir::DialectRegistry registry;
//   mlir::tile::registerAll(registry);
//
// or only TileLang's part, for a compiler that registers upstream MLIR itself:
//
//   mlir::tile::registerAllDialects(registry);
//   mlir::tile::registerAllExtensions(registry);
//   mlir::tile::registerAllPasses();
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_REGISTRATION_REGISTRATION_H
#define TILELANG_REGISTRATION_REGISTRATION_H

namespace mlir {
class DialectRegistry;

namespace tile {

/// Registers the tile dialect and every dialect that tile IR is written
/// with (arith, func, math, memref, scf), and the NVIDIA and AMD
/// implementations of the tile dialect's target interface
/// (TileLang/Target/NVIDIA/NVIDIATarget.h, TileLang/Target/AMD/AMDTarget.h:
/// a compiler for one vendor may register only that one).
void registerAllDialects(DialectRegistry &registry);

/// Registers the dialect extensions and interfaces that TileLang's pipelines
/// need at run time: the to-LLVM conversion interfaces of the dialects they
/// lower (used by gpu-to-llvm), the LLVM IR translations of the builtin,
/// LLVM, GPU and NVVM dialects, and the NVVM target (cubin serialization).
void registerAllExtensions(DialectRegistry &registry);

/// Registers every TileLang pass and named pipeline (tile-to-cpu, ...) with
/// the global pass registry, so that textual pipelines and `--pass-name`
/// flags find them.
void registerAllPasses();

/// Everything tile-opt registers: the three above plus every upstream MLIR
/// dialect, dialect extension, LLVM IR translation and pass. Defined in its
/// own object file, so that a static link pulls in upstream's registries only
/// when this is called.
void registerAll(DialectRegistry &registry);

} // namespace tile
} // namespace mlir

#endif // TILELANG_REGISTRATION_REGISTRATION_H
