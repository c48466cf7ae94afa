//===- JIT.h - Specialize, compile, cache and run tile kernels --*- C++ -*-===//
//
// Part of TileLang-MLIR.
//
// The JIT driver shared by tile-run, the tests and the Python bindings:
//
//   jit::CompileOptions options;                 // target, entry, cache, ...
//   auto kernel = jit::Kernel::create(source, options);
//   if (!kernel) ...                             // llvm::Error with diagnostics
//   jit::BufferArg a{ptr, jit::DType::F16, {M, K}};
//   if (llvm::Error err = (*kernel)->run({a, b, c})) ...
//
// A kernel is specialized on the values of its compile-time parameters
// (scalar arguments marked `tile.constexpr`) and, unless disabled, on the
// sizes of its dynamic dimensions; each specialization is compiled once per
// process (and once per cache directory), and specializations coexist.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_JIT_JIT_H
#define TILELANG_JIT_JIT_H

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "TileLang/JIT/Cache.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>

namespace mlir {
class ModuleOp;
namespace tile {
namespace jit {

/// Element types at the kernel boundary.
enum class DType { I1, I8, I16, I32, I64, Index, F16, BF16, F32, F64 };

llvm::StringRef toString(DType dtype);
/// Parses "f16", "bf16", "f32", "i32", ... .
std::optional<DType> parseDType(llvm::StringRef name);
/// Bytes per element (1 for i1).
int64_t getByteSize(DType dtype);
bool isFloat(DType dtype);

/// A scalar argument. Integers (and index) travel as int64_t, floats as
/// double; they are converted to the parameter's type.
struct ScalarArg {
  std::variant<int64_t, double> value;
};

/// Stores `value` as one element of type `dtype` at `dst` (f16 and bf16
/// round to nearest even; integers truncate).
void writeElement(DType dtype, void *dst, const ScalarArg &value);
/// Reads one element of type `dtype` at `src` as a double.
double readElement(DType dtype, const void *src);

/// A compilation target: kind, chip and features, as `#tile.target`.
struct Target {
  TargetKind kind = TargetKind::CPU;
  std::string chip = "host";
  std::string features;

  static Target cpu() { return Target(); }
  /// Parses "cpu", "sm_80", "sm_90a", "cuda:sm_90a", "gfx942",
  /// "rocm:gfx1100", optionally followed by ":+features".
  static llvm::Expected<Target> parse(llvm::StringRef text);
  /// "cpu:host", "cuda:sm_90a:+ptx80", ...
  std::string str() const;
};

/// A buffer argument: a strided view of memory that the caller owns.
/// `strides` are in elements; empty strides mean contiguous row-major.
struct BufferArg {
  void *data = nullptr;
  DType dtype = DType::F32;
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<int64_t, 4> strides;
  int64_t offset = 0;
};

using KernelArg = std::variant<BufferArg, ScalarArg>;

/// One parameter of the entry function.
struct Param {
  std::string name; ///< "arg0", or the `tile.name` argument attribute.
  bool isBuffer = false;
  DType dtype = DType::F32;
  /// Buffer shape; ShapedType::kDynamic for dynamic dimensions.
  llvm::SmallVector<int64_t, 4> shape;
  /// A scalar marked `tile.constexpr`: its value is compiled in.
  bool isConstexpr = false;
  /// A buffer the kernel may write (an op with a write effect on it or on a
  /// view of it, or a use whose effects are unknown): such a buffer must be
  /// writable memory, and a caller that copies it must copy it back.
  bool isWritten = false;

  /// "memref<?x64xf16>" / "f32" / "constexpr i32".
  std::string describe() const;
};

struct CompileOptions {
  Target target;
  /// The function to run; empty means the only public function.
  std::string entry;
  /// Specialize on the sizes of dynamic dimensions (each shape its own
  /// binary). Off: one binary serves every shape.
  bool specializeShapes = true;
  /// LLVM optimization level of the host code.
  unsigned optLevel = 2;
  /// GPU targets: let tiles with disjoint lifetimes share shared memory
  /// (convert-tile-to-gpu's `reuse-shared-memory`).
  bool reuseSharedMemory = true;
  /// GPU targets: software-pipeline the copies of tile.pipelined loops
  /// (the pipelines' `pipeline-copies`).
  bool pipelineCopies = true;
  /// GPU targets: keep fragments in per-thread registers where their
  /// layouts allow it (the pipelines' `register-fragments`).
  bool registerFragments = true;
  /// GPU targets: floating-point multiplies and adds may fuse into FMAs
  /// (the pipelines' `fp-contract`).
  bool fpContract = true;
  /// GPU targets: tile.parallel ops get copies for the tiles where their
  /// masks hold everywhere or nowhere (the pipelines' `version-parallel`).
  bool versionParallel = true;
  /// CUDA sm_90: gemms on wgmma where they qualify (the pipeline's
  /// `wgmma`).
  bool wgmma = true;
  /// CUDA sm_90: wide gemm operands in the blocked layout, on wgmma too
  /// (the pipeline's `wgmma-blocked`).
  bool wgmmaBlocked = true;
  /// CUDA sm_90: pipelined copies on TMA with mbarriers where they qualify
  /// (the pipeline's `tma`).
  bool tma = true;
  /// CUDA sm_90: warpgroups may own two m64 blocks of a wgmma gemm's C (the
  /// pipeline's `wgmma-tall-rows`).
  bool wgmmaTallRows = true;
  /// CUDA: persistent kernels (the pipeline's `persistent`; experimental).
  bool persistent = false;
  /// CUDA: ... taking their tiles from a global counter (the pipeline's
  /// `dynamic-tiles`; experimental).
  bool dynamicTiles = false;
  /// CUDA sm_90: copies of whole shared tiles to global memory as TMA
  /// stores (the pipeline's `tma-store`).
  bool tmaStore = true;
  /// CUDA sm_90: register fragments stored to 16-bit shared tiles with
  /// stmatrix (the pipeline's `stmatrix`; experimental).
  bool stmatrix = false;
  /// One-off copies into shared tiles issued early, asynchronously (the
  /// pipeline's `prefetch-copies`).
  bool prefetchCopies = true;
  /// ... issued by the producer warpgroup, per tile in persistent kernels
  /// (the pipeline's `producer-copies`).
  bool producerCopies = false;
  /// CUDA: libdevice's math functions flush f32 denormals to zero (the
  /// pipeline's `ftz`).
  bool flushDenormals = true;
  /// CUDA sm_90: blocked tiles on TMA too (the pipeline's `tma-blocked`;
  /// experimental).
  bool tmaBlocked = false;
  /// CUDA sm_90: pipeline stages released on mbarriers instead of block
  /// barriers (the pipeline's `tma-release`) in kernels of at least
  /// `tmaReleaseMinWarpgroups` warpgroups and pipelines of at most
  /// `tmaReleaseMaxStages` stages (0: any).
  bool tmaRelease = true;
  int64_t tmaReleaseMinWarpgroups = 2;
  int64_t tmaReleaseMaxStages = 2;
  /// CUDA: registers for this many blocks per multiprocessor in kernels
  /// without warp specialization (the pipeline's `min-blocks-per-sm`; 0:
  /// ptxas chooses).
  int64_t minBlocksPerSM = 0;
  /// CUDA sm_90: a producer warpgroup issues the copies of pipelines with
  /// release barriers (the pipeline's `warp-specialize`).
  bool warpSpecialize = true;
  /// ... and the consumer warpgroups take turns issuing its gemms (the
  /// pipeline's `pingpong`).
  bool pingpong = true;
  /// CUDA sm_90: blocked gemm operand tiles in column panels, one TMA box
  /// per panel (the pipeline's `wgmma-panels`).
  bool wgmmaPanels = true;
  /// Runs MLIR's verifier after every pass of the lowering (a quarter of
  /// a cold compile). Off: the input is verified when it is parsed and the
  /// lowered module before its translation to LLVM IR; the binary is the
  /// same either way.
  bool verifyPasses = false;
  /// Prints the compile's wall time per pass (MLIR's timing report, the
  /// device binary's serialization included) and the host code's to
  /// stderr.
  bool timePasses = false;
  /// Cache settings; by default from the environment.
  CompilationCache::Options cache = CompilationCache::Options::fromEnvironment();
};

/// What compiling one specialization did, for `tile-run --explain`.
struct CompileReport {
  /// "name=value" of every specialization input (shapes, constexpr values).
  llvm::SmallVector<std::string> specialization;
  Target target;
  std::string pipeline;
  /// Every component of the cache key, in order.
  llvm::SmallVector<std::pair<std::string, std::string>> keyComponents;
  std::string key;
  bool cacheEnabled = false;
  bool cacheHit = false;
  /// Wall time to produce the loaded kernel (compile or cache load).
  double seconds = 0;
  /// Its parts: the device runtime's initialization (driver, context; on
  /// a thread of its own, concurrent with the compilation), the
  /// compilation (pipeline, device binary, host object; 0 on a cache hit)
  /// and the load (host object, device module).
  double initSeconds = 0, compileSeconds = 0, loadSeconds = 0;
};

/// Runs `pipeline`, a pass pipeline as tile-opt takes it (for example
/// "tile-plan-pipelines,convert-tile-to-gpu" or
/// "tile-to-nvvm{chip=sm_90a format=isa}"), on the tile IR `source` and
/// returns the resulting module as text: the IR of any stage of the
/// lowering, for inspection. Parse, pipeline and pass diagnostics (with
/// their locations) come back in the error.
llvm::Expected<std::string> lowerToText(llvm::StringRef source,
                                        llvm::StringRef pipeline,
                                        llvm::StringRef bufferName = "<kernel>");

class Kernel {
public:
  /// Parses `source` (tile IR text) and prepares the kernel. Parse and
  /// verification diagnostics are returned in the error.
  static llvm::Expected<std::unique_ptr<Kernel>>
  create(llvm::StringRef source, const CompileOptions &options,
         llvm::StringRef bufferName = "<kernel>");

  /// Prepares a kernel from a built module (of any context); the kernel
  /// keeps its own copy, locations included.
  static llvm::Expected<std::unique_ptr<Kernel>>
  create(ModuleOp module, const CompileOptions &options);

  ~Kernel();
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  /// The entry function's parameters.
  llvm::ArrayRef<Param> getParams() const;
  llvm::StringRef getEntry() const;
  const CompileOptions &getOptions() const;

  /// Checks `args` against the parameters (count, buffer vs scalar, rank,
  /// dtype, static sizes, null data) and returns an error naming the first
  /// offending argument.
  llvm::Error checkArgs(llvm::ArrayRef<KernelArg> args) const;

  /// Compiles the specialization that `args` select into the cache without
  /// loading it: works for any target on any machine (a GPU target needs no
  /// driver here). The data of `args` is not touched: only their shapes and
  /// scalar values count.
  llvm::Expected<CompileReport> compile(llvm::ArrayRef<KernelArg> args);

  /// Compiles (or loads from the cache) the specialization that `args` select,
  /// once per process, and returns its report.
  llvm::Expected<const CompileReport &>
  prepare(llvm::ArrayRef<KernelArg> args);

  /// Checks `args`, prepares the specialization and runs it.
  llvm::Error run(llvm::ArrayRef<KernelArg> args);

  /// The number of specializations compiled or loaded so far.
  size_t getNumSpecializations() const;

  struct Impl;

private:
  explicit Kernel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// The project version and the LLVM version, as they enter cache keys.
llvm::StringRef getProjectVersion();

/// The bits of `value` as a bfloat16, rounded to nearest even (a NaN stays
/// a quiet NaN): what the JIT's `__truncsfbf2` returns, the routine LLVM
/// calls for f32 -> bf16 conversions on hosts without native ones.
uint16_t truncateToBFloat16(float value);

/// The bits of `value` as an IEEE half, rounded to nearest even (a NaN
/// stays a quiet NaN): the JIT's `__truncdfhf2` (and `__truncsfhf2`, as
/// f32 -> f64 is exact), which LLVM calls where the host has no f64 -> f16
/// instruction.
uint16_t truncateToHalf(double value);

/// The half with bits `bits` as a float (exact): the JIT's `__extendhfsf2`.
float extendHalf(uint16_t bits);

} // namespace jit
} // namespace tile
} // namespace mlir

#endif // TILELANG_JIT_JIT_H
