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
#include "TileLang/Runtime/Launch.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

namespace mlir {
class MLIRContext;
class ModuleOp;
namespace tile {
namespace jit {

/// Element types at the kernel boundary.
enum class DType {
  I1, I8, I16, I32, I64,
  /// Unsigned integers: signless integers in the IR, the entry argument
  /// marked `tile.unsigned`.
  U8, U16, U32, U64,
  Index, F16, BF16, F32, F64,
  /// OCP FP8: 4 exponent bits (no infinities), 5 exponent bits; the OCP
  /// MX scale factor (8 exponent bits: 2^-127 to 2^127 and NaN).
  F8E4M3FN, F8E5M2, F8E8M0FNU
};

llvm::StringRef toString(DType dtype);
/// Parses "f16", "bf16", "f32", "i32", "ui8", ... .
std::optional<DType> parseDType(llvm::StringRef name);
/// Bytes per element (1 for i1).
int64_t getByteSize(DType dtype);
bool isFloat(DType dtype);
bool isUnsigned(DType dtype);

/// A scalar argument. Integers (and index) travel as int64_t, floats as
/// double; they are converted to the parameter's type. A uint64 value
/// above INT64_MAX travels as its bit pattern (a negative int64_t).
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
  /// A buffer of a strided layout (`memref<..., strided<[s, 1]>>`, TileLang's
  /// T.StridedTensor): its strides in elements, ShapedType::kDynamic for
  /// those known at run time; empty for a contiguous row-major buffer.
  llvm::SmallVector<int64_t, 4> strides;
  /// A scalar marked `tile.constexpr`: its value is compiled in.
  bool isConstexpr = false;
  /// A buffer of 4-bit elements (`tile.packed = f4E2M1FN` or `i4` on an i8
  /// memref): each byte holds two, the low nibble the even element. Its
  /// shape and strides are those of the bytes; it takes tensors of any
  /// byte-sized integer type. Empty for other parameters.
  std::string packedType;
  /// A buffer the kernel may write (an op with a write effect on it or on a
  /// view of it, or a use whose effects are unknown): such a buffer must be
  /// writable memory, and a caller that copies it must copy it back.
  bool isWritten = false;
  /// A buffer the entry uses at all: a call may pass a null buffer (Python's
  /// None: TileLang's optional tensors) for one it does not.
  bool isUsed = true;

  /// "memref<?x64xf16>" / "memref<64x64xf16, strided<[?, 1]>>" / "f32" /
  /// "constexpr i32".
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
  /// The compile options of the GPU pipelines, one member per row of
  /// CompileOptions.def (its flag, default and description): the ones a
  /// target's vendor does not have are ignored for it.
#define TILE_COMPILE_OPTION(VENDOR, TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)   \
  TYPE NAME = DEFAULT;
#include "TileLang/Pipelines/CompileOptions.def"
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
  /// The pipeline the compile runs (getPipeline).
  std::string pipeline;
  /// ... as the pass manager runs it: every pass with every option
  /// (printExpandedPipeline), a component of the key.
  std::string passes;
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

/// The pass pipeline that compiles for `options`, as tile-opt takes it: the
/// target's named pipeline (tile-to-nvvm, tile-to-rocdl, tile-to-cpu) with
/// the chip, the features, the C interface the JIT calls and every compile
/// option that differs from its default. The JIT parses this text and runs
/// what it parses; `stopAfter` (a GPU pipeline's stop-after stage:
/// "selected", "pipelined", "layouts", "loops") and `format` ("bin", "isa")
/// give the same compile stopped early or with its device code as text, as
/// `get_kernel_source` shows it.
std::string getPipeline(const CompileOptions &options,
                        llvm::StringRef stopAfter = "",
                        llvm::StringRef format = "bin");

/// `pipeline` parsed and printed back as the pass manager holds it: every
/// pass it expands to, with every option (what the cache key holds).
llvm::Expected<std::string> printExpandedPipeline(llvm::StringRef pipeline);

/// The MLIR context kernels are made and compiled in: every dialect and
/// extension of the compiler loaded as a kernel's IR needs them, no
/// threads of its own, diagnostics without the failing op's text. The
/// Python front end builds its traced module in one (with the dialects'
/// builders) and every kernel made from that module shares it; kernels of
/// one context compile one at a time (`getCompileMutex`).
class KernelContext {
public:
  KernelContext();
  ~KernelContext();
  KernelContext(const KernelContext &) = delete;
  KernelContext &operator=(const KernelContext &) = delete;

  MLIRContext *get() { return context.get(); }
  std::mutex &getCompileMutex() { return compileMutex; }

private:
  std::unique_ptr<MLIRContext> context;
  std::mutex compileMutex;
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
/// The same for a copy of `module`, a module of `context`, verified first.
llvm::Expected<std::string> lowerToText(KernelContext &context,
                                        ModuleOp module,
                                        llvm::StringRef pipeline);

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

  /// Prepares a kernel from `module`, a module of `context` (built there
  /// with the dialects' builders): the kernel keeps a clone of it in that
  /// context, and the context alive. The module is verified first; its
  /// diagnostics (at the builder's locations) are returned in the error.
  static llvm::Expected<std::unique_ptr<Kernel>>
  create(std::shared_ptr<KernelContext> context, ModuleOp module,
         const CompileOptions &options);

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

  /// Checks `args`, prepares the specialization and runs it. On a GPU
  /// target, `launch` says where: by default on device 0 and a stream of
  /// the runtime's own, returning when the kernels are done; with a stream,
  /// queued there after the caller's work and returning at once (buffers
  /// must then stay alive until the stream reaches the kernels).
  llvm::Error run(llvm::ArrayRef<KernelArg> args,
                  const runtime::LaunchTarget &launch = {});

  /// Whether the specialization `args` select is loaded, so that a run
  /// neither compiles nor loads anything (false for arguments that do not
  /// match the parameters: their run reports why).
  bool isPrepared(llvm::ArrayRef<KernelArg> args) const;

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
