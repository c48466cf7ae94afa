//===- JIT.cpp - Specialize, compile, cache and run tile kernels --------===//
//
// Part of TileLang-MLIR.
//
// Compilation goes through MLIR's ExecutionEngine (the tile-to-cpu pipeline,
// LLVM's optimizer and code generator for the host); the resulting object is
// stored in the compilation cache and loaded into an ORC LLJIT instance. A
// cache hit loads the stored object the same way and skips every compiler
// stage: both paths run the very same bytes.
//
//===----------------------------------------------------------------------===//

#include "TileLang/JIT/JIT.h"

#include "TileLang/Pipelines/Pipelines.h"
#include "TileLang/Transforms/Passes.h"
#include "TileLang/Registration/Registration.h"
#include "TileLang/Runtime/CUDARuntime.h"
#include "TileLang/Runtime/HIPRuntime.h"
#include "TileLang/Support/CheckedSize.h"
#include "TileLang/Support/SourceLimits.h"
#include "TileLang/Support/Version.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <future>
#include <limits>
#include <mutex>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::jit;
using llvm::Error;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// DType, Target, Param
//===----------------------------------------------------------------------===//

static constexpr std::pair<DType, llvm::StringLiteral> kDTypeNames[] = {
    {DType::I1, "i1"},   {DType::I8, "i8"},     {DType::I16, "i16"},
    {DType::I32, "i32"}, {DType::I64, "i64"},   {DType::U8, "ui8"},
    {DType::U16, "ui16"}, {DType::U32, "ui32"}, {DType::U64, "ui64"},
    {DType::Index, "index"},
    {DType::F16, "f16"}, {DType::BF16, "bf16"}, {DType::F32, "f32"},
    {DType::F64, "f64"}, {DType::F8E4M3FN, "f8E4M3FN"},
    {DType::F8E5M2, "f8E5M2"}, {DType::F8E8M0FNU, "f8E8M0FNU"}};

llvm::StringRef mlir::tile::jit::toString(DType dtype) {
  for (const auto &[d, name] : kDTypeNames)
    if (d == dtype)
      return name;
  llvm_unreachable("unknown dtype");
}

std::optional<DType> mlir::tile::jit::parseDType(llvm::StringRef name) {
  for (const auto &[d, n] : kDTypeNames)
    if (n == name)
      return d;
  return std::nullopt;
}

int64_t mlir::tile::jit::getByteSize(DType dtype) {
  switch (dtype) {
  case DType::I1:
  case DType::I8:
  case DType::U8:
  case DType::F8E4M3FN:
  case DType::F8E5M2:
  case DType::F8E8M0FNU:
    return 1;
  case DType::I16:
  case DType::U16:
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I32:
  case DType::U32:
  case DType::F32:
    return 4;
  case DType::I64:
  case DType::U64:
  case DType::Index:
  case DType::F64:
    return 8;
  }
  llvm_unreachable("unknown dtype");
}

bool mlir::tile::jit::isFloat(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32 ||
         dtype == DType::F64 || dtype == DType::F8E4M3FN ||
         dtype == DType::F8E5M2 || dtype == DType::F8E8M0FNU;
}

bool mlir::tile::jit::isUnsigned(DType dtype) {
  return dtype == DType::U8 || dtype == DType::U16 || dtype == DType::U32 ||
         dtype == DType::U64;
}

/// The boundary type of an element type; `isUnsigned`: the argument is
/// marked `tile.unsigned` (integers are signless in the IR).
static std::optional<DType> getDType(Type type, bool isUnsigned) {
  if (type.isIndex())
    return DType::Index;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (isa<Float8E4M3FNType>(type))
    return DType::F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return DType::F8E5M2;
  if (isa<Float8E8M0FNUType>(type))
    return DType::F8E8M0FNU;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
      return DType::I1;
    case 8:
      return isUnsigned ? DType::U8 : DType::I8;
    case 16:
      return isUnsigned ? DType::U16 : DType::I16;
    case 32:
      return isUnsigned ? DType::U32 : DType::I32;
    case 64:
      return isUnsigned ? DType::U64 : DType::I64;
    default:
      break;
    }
  }
  return std::nullopt;
}

Expected<Target> Target::parse(llvm::StringRef text) {
  SmallVector<llvm::StringRef, 3> parts;
  text.split(parts, ':');
  Target target;
  llvm::StringRef kind, chip;
  size_t next = 0;
  if (parts[0] == "cpu" || parts[0] == "cuda" || parts[0] == "rocm") {
    kind = parts[0];
    next = 1;
  }
  if (next < parts.size())
    chip = parts[next++];
  if (next < parts.size())
    target.features = parts[next++].str();
  if (next != parts.size())
    return llvm::createStringError("malformed target '" + text +
                                   "'; expected e.g. cpu, sm_90a, "
                                   "cuda:sm_80:+ptx80, gfx942");
  if (kind.empty()) {
    kind = chip.starts_with("sm_")   ? "cuda"
           : chip.starts_with("gfx") ? "rocm"
                                     : "cpu";
    // A name that is neither a chip nor the CPU is a mistake, not a
    // request to run on the CPU.
    if (kind == "cpu" && !chip.empty() && chip != "host")
      return llvm::createStringError(
          "unknown target '" + text +
          "'; expected cpu, sm_80, sm_90a, cuda:sm_80:+ptx80, gfx942, "
          "gfx1100 or rocm:gfx942");
  }
  target.kind = *symbolizeTargetKind(kind);
  target.chip = chip.empty() ? (target.kind == TargetKind::CPU ? "host" : "")
                             : chip.str();
  if (target.kind == TargetKind::CUDA && target.features.empty())
    target.features = "+ptx80";
  MLIRContext ctx;
  ctx.loadDialect<TileDialect>();
  std::string message;
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&ctx)); };
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  if (failed(TargetAttr::verifyInvariants(emitError, target.kind, target.chip,
                                          target.features)))
    return llvm::createStringError("invalid target '" + text + "': " + message);
  return target;
}

std::string Target::str() const {
  std::string text =
      (stringifyTargetKind(kind) + ":" + llvm::StringRef(chip)).str();
  if (!features.empty())
    text += ":" + features;
  return text;
}

std::string Param::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (isBuffer) {
    os << "memref<";
    for (int64_t dim : shape)
      os << (ShapedType::isDynamic(dim) ? "?" : std::to_string(dim)) << "x";
    os << toString(dtype);
    if (!strides.empty()) {
      os << ", strided<[";
      llvm::interleaveComma(strides, os, [&](int64_t stride) {
        os << (ShapedType::isDynamic(stride) ? "?" : std::to_string(stride));
      });
      os << "]>";
    }
    os << ">";
    if (!packedType.empty())
      os << " (two " << packedType << " per byte)";
  } else {
    os << (isConstexpr ? "constexpr " : "") << toString(dtype);
  }
  return text;
}

llvm::StringRef mlir::tile::jit::getProjectVersion() {
  return tile::getVersion();
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// "file:line:col" of the first file location inside `loc`, else its
/// printed form.
static std::string formatLocation(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (text.empty()) {
    llvm::raw_string_ostream os(text);
    os << loc;
  }
  return text;
}

namespace {
/// Collects the diagnostics emitted while alive into a string, with their
/// locations, for llvm::Error messages.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          os << formatLocation(diag.getLocation()) << ": " << diagKind(diag)
             << ": " << diag << "\n";
          for (Diagnostic &note : diag.getNotes())
            os << formatLocation(note.getLocation()) << ": note: " << note
               << "\n";
          return success();
        }) {}

  Error makeError(llvm::StringRef what) const {
    return llvm::createStringError(what + (text.empty() ? "" : ":\n" + text));
  }

private:
  static llvm::StringRef diagKind(Diagnostic &diag) {
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      return "error";
    case DiagnosticSeverity::Warning:
      return "warning";
    case DiagnosticSeverity::Note:
      return "note";
    case DiagnosticSeverity::Remark:
      return "remark";
    }
    return "error";
  }

  std::string text;
  ScopedDiagnosticHandler handler;
};
} // namespace

//===----------------------------------------------------------------------===//
// Kernel::Impl
//===----------------------------------------------------------------------===//

/// Names of the functions that replace the module's static constructors and
/// destructors (device-binary loading and unloading): the loader calls them
/// explicitly, since objects loaded into ORC do not run their constructors.
static constexpr llvm::StringLiteral kInitFunction = "__tile_init";
static constexpr llvm::StringLiteral kFiniFunction = "__tile_fini";

/// What the loader expects of a cached object (entry wrapper names, the
/// init/fini functions). Part of every cache key: bump it when that changes.
static constexpr llvm::StringLiteral kObjectABI =
    "2: _mlir__mlir_ciface_<entry>, __tile_init, __tile_fini";

namespace {
/// One loaded specialization.
struct Compiled {
  CompileReport report;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  void (*entry)(void **) = nullptr;
  void (*fini)() = nullptr;

  Compiled() = default;
  Compiled(const Compiled &) = delete;
  ~Compiled() {
    if (fini)
      fini();
    llvm::consumeError(runtime::takeError());
  }
};
} // namespace

/// Replaces `arrayName` (llvm.global_ctors / llvm.global_dtors) by an
/// exported function `functionName` that calls its entries in priority order.
static void replaceStructors(llvm::Module &module, llvm::StringRef arrayName,
                             llvm::StringRef functionName) {
  llvm::LLVMContext &ctx = module.getContext();
  auto *function = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
      llvm::GlobalValue::ExternalLinkage, functionName, module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(ctx, "entry", function));
  if (llvm::GlobalVariable *array = module.getNamedGlobal(arrayName)) {
    SmallVector<std::pair<uint64_t, llvm::Function *>> entries;
    if (auto *list = dyn_cast_or_null<llvm::ConstantArray>(
            array->hasInitializer() ? array->getInitializer() : nullptr))
      for (llvm::Value *entry : list->operands()) {
        auto *fields = cast<llvm::ConstantStruct>(entry);
        auto *callee = dyn_cast<llvm::Function>(
            fields->getOperand(1)->stripPointerCasts());
        if (callee)
          entries.emplace_back(
              cast<llvm::ConstantInt>(fields->getOperand(0))->getZExtValue(),
              callee);
      }
    llvm::stable_sort(entries, llvm::less_first());
    for (auto &[priority, callee] : entries)
      builder.CreateCall(callee);
    array->eraseFromParent();
  }
  builder.CreateRetVoid();
}

/// The version line of the ptxas in `toolkit`, for the cache key; computed
/// once per toolkit.
static std::string getPtxasVersion(llvm::StringRef toolkit) {
  static std::mutex mutex;
  static llvm::StringMap<std::string> versions;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = versions.find(toolkit);
  if (it != versions.end())
    return it->second;
  std::string version = "not found";
  llvm::SmallString<256> ptxas(toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  llvm::SmallString<128> output;
  int fd;
  if (llvm::sys::fs::exists(ptxas) &&
      !llvm::sys::fs::createTemporaryFile("tile-ptxas", "txt", fd, output)) {
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    std::optional<llvm::StringRef> redirects[] = {
        std::nullopt, llvm::StringRef(output), std::nullopt};
    llvm::StringRef args[] = {ptxas, "--version"};
    if (llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects) == 0)
      if (auto text = llvm::MemoryBuffer::getFile(output)) {
        llvm::SmallVector<llvm::StringRef> lines;
        (*text)->getBuffer().split(lines, '\n', -1, false);
        for (llvm::StringRef line : lines)
          if (line.contains("release"))
            version = line.trim().str();
      }
    llvm::sys::fs::remove(output);
  }
  versions[toolkit] = version;
  return version;
}

KernelContext::KernelContext() {
  DialectRegistry registry;
  tile::registerAllDialects(registry);
  tile::registerAllExtensions(registry);
  context = std::make_unique<MLIRContext>(registry);
  context->disableMultithreading();
  // An error names its problem and location; the whole failing op (a
  // lowered kernel: megabytes of IR) is for tile-opt's users.
  context->printOpOnDiagnostic(false);
}

KernelContext::~KernelContext() = default;

struct Kernel::Impl {
  CompileOptions options;
  std::shared_ptr<KernelContext> shared;
  MLIRContext *context = nullptr;
  OwningOpRef<ModuleOp> module;
  std::string entry;
  SmallVector<Param> params;
  std::unique_ptr<CompilationCache> cache;

  mutable std::mutex mutex;
  llvm::StringMap<std::unique_ptr<Compiled>> compiled;

  /// Whether `arg` is a buffer the specialization knows to be 16-byte
  /// aligned at its first element.
  bool isAlignedBuffer(const Param &param, const KernelArg &arg) const;
  /// The specialization inputs that `args` select, "name=value" each.
  SmallVector<std::string> specializationOf(ArrayRef<KernelArg> args) const;
  /// The same inputs as bytes: the key of the loaded specializations, which
  /// every call computes.
  std::string keyOf(ArrayRef<KernelArg> args) const;
  /// A clone of the module with the entry specialized for `args`,
  /// canonicalized; other functions not used by the entry are dropped.
  FailureOr<OwningOpRef<ModuleOp>> specialize(ArrayRef<KernelArg> args);
  /// Compiles (or finds in the cache) the specialization for `args`; with
  /// `loadIt`, also loads it to run on this machine.
  Expected<std::unique_ptr<Compiled>> build(ArrayRef<KernelArg> args,
                                            bool loadIt = true);
  /// The loaded specialization for `args` (checked), built on first use.
  Expected<Compiled *> getOrBuild(ArrayRef<KernelArg> args);
  Expected<std::string> compileToObject(ModuleOp specialized,
                                        const std::string &pipeline);
  Expected<std::unique_ptr<Compiled>> load(llvm::StringRef object);
};

static void initializeNativeTargetOnce() {
  static std::once_flag flag;
  std::call_once(flag, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// Whether the memory of `buffer` may be written: by an op with a write
/// effect on it or on a view or cast of it, or by a use whose effects are
/// not known (a call, an op without MemoryEffectOpInterface).
static bool mayBeWritten(Value buffer) {
  SmallVector<Value> worklist{buffer};
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      if ((view && view.getViewSource() == value) ||
          isa<CastOpInterface>(user)) {
        llvm::append_range(worklist, user->getResults());
        continue;
      }
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects)
        return true;
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &instance : instances)
        if (isa<MemoryEffects::Write, MemoryEffects::Free>(
                instance.getEffect()) &&
            (!instance.getValue() || instance.getValue() == value))
          return true;
    }
  }
  return false;
}

/// A parameter description from an entry-function argument.
static FailureOr<Param> getParam(func::FuncOp func, unsigned index) {
  Param param;
  BlockArgument arg = func.getArgument(index);
  if (auto name = func.getArgAttrOfType<StringAttr>(index, "tile.name"))
    param.name = name.str();
  else
    param.name = "arg" + std::to_string(index);
  param.isConstexpr =
      static_cast<bool>(func.getArgAttr(index, "tile.constexpr"));
  Type type = arg.getType();
  if (auto memref = dyn_cast<MemRefType>(type)) {
    param.isBuffer = true;
    // The descriptors point at the view's first element: a strided layout
    // has offset 0.
    auto strided = dyn_cast<StridedLayoutAttr>(memref.getLayout());
    if ((!memref.getLayout().isIdentity() &&
         !(strided && strided.getOffset() == 0)) ||
        getMemorySpace(memref).has_value())
      return func.emitError() << "argument #" << index << " ('" << param.name
                              << "') has type " << type
                              << "; kernel buffers must be global memrefs "
                                 "with the identity layout or a strided "
                                 "layout of offset 0";
    if (strided)
      param.strides.assign(strided.getStrides().begin(),
                           strided.getStrides().end());
    param.shape.assign(memref.getShape().begin(), memref.getShape().end());
    type = memref.getElementType();
    param.isWritten = mayBeWritten(arg);
    param.isUsed = !arg.use_empty();
  }
  if (Attribute packed = func.getArgAttr(index, "tile.packed")) {
    auto packedType = dyn_cast<TypeAttr>(packed);
    if (!packedType ||
        !isa<Float4E2M1FNType, IntegerType>(packedType.getValue()) ||
        packedType.getValue().getIntOrFloatBitWidth() != 4 ||
        !param.isBuffer || !type.isInteger(8))
      return func.emitError()
             << "argument #" << index << " ('" << param.name
             << "'): `tile.packed` marks a memref of i8 whose bytes hold two "
                "4-bit elements (f4E2M1FN or i4), got "
             << packed << " on " << arg.getType();
    llvm::raw_string_ostream(param.packedType) << packedType.getValue();
  }
  bool isUnsigned = static_cast<bool>(func.getArgAttr(index, "tile.unsigned"));
  auto integer = dyn_cast<IntegerType>(type);
  if (isUnsigned && (!integer || integer.getWidth() < 8))
    return func.emitError() << "argument #" << index << " ('" << param.name
                            << "'): `tile.unsigned` marks integers of 8 to 64 "
                               "bits, not "
                            << type;
  std::optional<DType> dtype = getDType(type, isUnsigned);
  if (!dtype)
    return func.emitError() << "argument #" << index << " ('" << param.name
                            << "'): element type " << type
                            << " is not supported at the kernel boundary";
  param.dtype = *dtype;
  return param;
}

/// Parses kernel source text on a large stack (the parser recurses once per
/// nesting level: deeply nested input would overflow the caller's stack,
/// Python's main thread), after refusing, with a located error, what the
/// parser would read in unbounded time.
static OwningOpRef<ModuleOp> parseKernelSource(StringRef source,
                                               MLIRContext *ctx,
                                               StringRef bufferName) {
  if (std::optional<SourceLimitError> error = findOversizedLiteral(source)) {
    emitError(FileLineColLoc::get(ctx, bufferName, error->line, error->column))
        << error->message;
    return nullptr;
  }
  return callOnLargeStack([&] {
    return parseSourceString<ModuleOp>(source, ParserConfig(ctx), bufferName);
  });
}

/// The entry of `module` (the public function `options.entry` names, or
/// the only one): its name and parameters.
static Error findEntry(const CompileOptions &options, ModuleOp module,
                       std::string &entryName, SmallVector<Param> &params,
                       DiagnosticCollector &diags);

Expected<std::unique_ptr<Kernel>> Kernel::create(llvm::StringRef source,
                                                 const CompileOptions &options,
                                                 llvm::StringRef bufferName) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->shared = std::make_shared<KernelContext>();
  impl->context = impl->shared->get();
  MLIRContext *ctx = impl->context;

  DiagnosticCollector diags(ctx);
  impl->module = parseKernelSource(source, ctx, bufferName);
  if (!impl->module)
    return diags.makeError("cannot parse the kernel");
  if (Error err = findEntry(options, *impl->module, impl->entry, impl->params,
                            diags))
    return std::move(err);
  impl->cache = std::make_unique<CompilationCache>(options.cache);
  return std::unique_ptr<Kernel>(new Kernel(std::move(impl)));
}

Expected<std::unique_ptr<Kernel>>
Kernel::create(std::shared_ptr<KernelContext> context, ModuleOp module,
               const CompileOptions &options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->shared = std::move(context);
  impl->context = impl->shared->get();
  assert(module->getContext() == impl->context &&
         "the module belongs to another context");
  std::lock_guard<std::mutex> lock(impl->shared->getCompileMutex());
  DiagnosticCollector diags(impl->context);
  if (failed(verify(module)))
    return diags.makeError("the kernel does not verify");
  impl->module = module.clone();
  if (Error err = findEntry(options, *impl->module, impl->entry, impl->params,
                            diags))
    return std::move(err);
  impl->cache = std::make_unique<CompilationCache>(options.cache);
  return std::unique_ptr<Kernel>(new Kernel(std::move(impl)));
}

static Error findEntry(const CompileOptions &options, ModuleOp module,
                       std::string &entryName, SmallVector<Param> &params,
                       DiagnosticCollector &diags) {
  // Find the entry.
  SmallVector<func::FuncOp> publicFuncs;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isDeclaration())
      publicFuncs.push_back(func);
  func::FuncOp entry;
  if (!options.entry.empty()) {
    entry = module.lookupSymbol<func::FuncOp>(options.entry);
    if (!entry || entry.isDeclaration()) {
      std::string names;
      for (func::FuncOp f : publicFuncs)
        names += (names.empty() ? "" : ", ") + f.getSymName().str();
      return llvm::createStringError("no function '" + options.entry +
                                     "' in the kernel module; its public "
                                     "functions: " +
                                     (names.empty() ? "none" : names));
    }
  } else if (publicFuncs.size() == 1) {
    entry = publicFuncs.front();
  } else {
    return llvm::createStringError(
        publicFuncs.empty() ? "the kernel module has no public function"
                            : "the kernel module has several public "
                              "functions; name the entry");
  }
  entryName = entry.getSymName().str();
  if (entry.getNumResults() != 0)
    return llvm::createStringError(
        "entry '" + entryName +
        "' returns values; kernels write their outputs to buffer arguments");
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
    FailureOr<Param> param = getParam(entry, i);
    if (failed(param))
      return diags.makeError("unsupported kernel signature");
    params.push_back(std::move(*param));
  }
  return Error::success();
}

Expected<std::unique_ptr<Kernel>>
Kernel::create(ModuleOp module, const CompileOptions &options) {
  if (failed(verify(module)))
    return llvm::createStringError("the kernel module does not verify");
  // The kernel owns its context: carry the module over as text, in the
  // generic form with locations so diagnostics still point at the source.
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo(
                        /*enable=*/true, /*prettyForm=*/false));
  return create(text, options, "<module>");
}

Kernel::Kernel(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Kernel::~Kernel() = default;

ArrayRef<Param> Kernel::getParams() const { return impl->params; }
llvm::StringRef Kernel::getEntry() const { return impl->entry; }
const CompileOptions &Kernel::getOptions() const { return impl->options; }

size_t Kernel::getNumSpecializations() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->compiled.size();
}

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text;
  for (auto [i, dim] : llvm::enumerate(shape))
    text += (i ? "x" : "") +
            (ShapedType::isDynamic(dim) ? "?" : std::to_string(dim));
  return text.empty() ? "scalar" : text;
}

/// Whether `scalar` is a value of `dtype`: integers within the type's
/// range (i1: 0 or 1; uint64: any bit pattern, the bindings refuse
/// negative values), finite floats that do not overflow it (an
/// infinity or NaN given as such passes). Nothing is truncated silently.
static Error checkScalarRange(DType dtype, const ScalarArg &scalar) {
  if (const auto *integer = std::get_if<int64_t>(&scalar.value)) {
    if (isFloat(dtype))
      return Error::success();
    int64_t low = 0, high = 1;
    if (dtype == DType::U64)
      return Error::success(); // Above INT64_MAX: its bit pattern.
    if (isUnsigned(dtype)) {
      high = (int64_t(1) << (getByteSize(dtype) * 8)) - 1;
    } else if (dtype != DType::I1) {
      unsigned bits = dtype == DType::Index ? 64 : getByteSize(dtype) * 8;
      low = bits == 64 ? std::numeric_limits<int64_t>::min()
                       : -(int64_t(1) << (bits - 1));
      high = bits == 64 ? std::numeric_limits<int64_t>::max()
                        : (int64_t(1) << (bits - 1)) - 1;
    }
    if (*integer < low || *integer > high)
      return llvm::createStringError(
          std::to_string(*integer) + " is out of the range of " +
          toString(dtype).str() + " (" + std::to_string(low) + " to " +
          std::to_string(high) + ")");
    return Error::success();
  }
  double value = std::get<double>(scalar.value);
  if (!std::isfinite(value))
    return Error::success();
  const llvm::fltSemantics *semantics =
      dtype == DType::F16    ? &llvm::APFloat::IEEEhalf()
      : dtype == DType::BF16 ? &llvm::APFloat::BFloat()
      : dtype == DType::F32  ? &llvm::APFloat::IEEEsingle()
      : dtype == DType::F8E4M3FN ? &llvm::APFloat::Float8E4M3FN()
      : dtype == DType::F8E5M2   ? &llvm::APFloat::Float8E5M2()
      : dtype == DType::F8E8M0FNU ? &llvm::APFloat::Float8E8M0FNU()
                                 : nullptr;
  if (!semantics)
    return Error::success();
  llvm::APFloat converted(value);
  bool losesInfo;
  if (converted.convert(*semantics, llvm::APFloat::rmNearestTiesToEven,
                        &losesInfo) &
      llvm::APFloat::opOverflow)
  {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", value);
    return llvm::createStringError(std::string(text) + " overflows " +
                                   toString(dtype).str() +
                                   " (it would become infinity)");
  }
  return Error::success();
}

Error Kernel::checkArgs(ArrayRef<KernelArg> args) const {
  ArrayRef<Param> params = impl->params;
  if (args.size() != params.size())
    return llvm::createStringError(
        "'" + impl->entry + "' takes " + std::to_string(params.size()) +
        " arguments, got " + std::to_string(args.size()));
  for (auto [i, param, arg] : llvm::enumerate(params, args)) {
    // (Built only for an error: checks run on every call.)
    auto where = [&, i = i, &param = param] {
      return "argument #" + std::to_string(i) + " ('" + param.name + "', " +
             param.describe() + ")";
    };
    if (!param.isBuffer) {
      const auto *scalar = std::get_if<ScalarArg>(&arg);
      if (!scalar)
        return llvm::createStringError(where() +
                                       ": expected a scalar, got a buffer");
      if (!isFloat(param.dtype) &&
          std::holds_alternative<double>(scalar->value))
        return llvm::createStringError(
            where() + ": expected an integer, got a floating-point value");
      if (Error error = checkScalarRange(param.dtype, *scalar))
        return llvm::createStringError(where() + ": " +
                                       llvm::toString(std::move(error)));
      continue;
    }
    const auto *buffer = std::get_if<BufferArg>(&arg);
    if (!buffer)
      return llvm::createStringError(where() +
                                     ": expected a buffer, got a scalar");
    // An empty tensor may have no storage (torch gives empty CUDA tensors a
    // null pointer): nothing of it is read or written. Nor is anything of a
    // buffer the entry never uses.
    if (!buffer->data && !llvm::is_contained(buffer->shape, 0) &&
        param.isUsed)
      return llvm::createStringError(where() + ": the buffer is null, and the "
                                               "kernel uses it");
    bool bytes = buffer->dtype == DType::I8 || buffer->dtype == DType::U8;
    bool packed = !param.packedType.empty();
    if (packed ? !bytes : buffer->dtype != param.dtype)
      return llvm::createStringError(
          where() + ": expected " +
          (packed ? "bytes of packed 4-bit elements (int8 or uint8)"
                            : "element type " + toString(param.dtype).str()) +
          ", got " + toString(buffer->dtype).str());
    if (buffer->shape.size() != param.shape.size())
      return llvm::createStringError(
          where() + ": expected rank " + std::to_string(param.shape.size()) +
          ", got rank " + std::to_string(buffer->shape.size()) + " (shape " +
          shapeString(buffer->shape) + ")");
    for (auto [d, expected, actual] :
         llvm::enumerate(param.shape, buffer->shape)) {
      if (actual < 0)
        return llvm::createStringError(where() + ": negative size " +
                                       std::to_string(actual) +
                                       " in dimension " + std::to_string(d));
      if (!ShapedType::isDynamic(expected) && expected != actual)
        return llvm::createStringError(
            where() + ": expected shape " + shapeString(param.shape) + ", got " +
            shapeString(buffer->shape) + " (dimension " + std::to_string(d) +
            " must be " + std::to_string(expected) + ")");
    }
    // Sizes from a producer (a DLPack capsule, a .npy header) whose bytes
    // do not fit in int64_t would wrap in every copy and offset below.
    if (!mlir::tile::getCheckedByteSize(buffer->shape,
                                        getByteSize(buffer->dtype)))
      return llvm::createStringError(where() + ": the shape " +
                                     shapeString(buffer->shape) +
                                     " has more bytes than fit in 64 bits");
    // A buffer without elements has no layout to check (numpy gives empty
    // arrays zero strides); the kernel reads and writes none of it.
    if (llvm::is_contained(buffer->shape, 0))
      continue;
    if (!buffer->strides.empty() &&
        buffer->strides.size() != buffer->shape.size())
      return llvm::createStringError(
          where() + ": " + std::to_string(buffer->strides.size()) +
          " strides for a rank-" + std::to_string(buffer->shape.size()) +
          " buffer");
    // Contiguous row-major, unless the parameter is strided: then any
    // strides but those its type fixes. (No strides: contiguous.)
    int64_t contiguous = 1;
    for (int64_t d = buffer->shape.size() - 1; d >= 0; --d) {
      int64_t actual =
          buffer->strides.empty() ? contiguous : buffer->strides[d];
      int64_t expected = param.strides.empty() ? contiguous : param.strides[d];
      contiguous *= buffer->shape[d];
      if (ShapedType::isDynamic(expected) || expected == actual ||
          buffer->shape[d] == 1)
        continue;
      if (!param.strides.empty())
        return llvm::createStringError(
            where() + ": dimension " + std::to_string(d) + " has stride " +
            std::to_string(actual) + ", the kernel's layout fixes " +
            std::to_string(expected));
      return llvm::createStringError(
          where() + ": the buffer must be contiguous and row-major; "
                    "dimension " +
          std::to_string(d) + " has stride " + std::to_string(actual) +
          ", expected " + std::to_string(expected));
    }
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Specialization and compilation
//===----------------------------------------------------------------------===//

static std::string scalarString(const ScalarArg &scalar) {
  if (const auto *i = std::get_if<int64_t>(&scalar.value))
    return std::to_string(*i);
  // 17 significant digits round-trip a double exactly.
  return llvm::formatv("{0:e17}", std::get<double>(scalar.value)).str();
}

/// Buffers whose data starts on a 16-byte boundary (what the widest
/// vector accesses need) are compiled knowing it (the argument's
/// `llvm.align`): the lowering's run-time alignment checks, and the
/// element-by-element fallbacks they guard, fold away. Part of the
/// specialization, as Triton specializes on pointer divisibility by 16.
static constexpr int64_t kVectorAlignment = 16;

/// Where the view's first element is: `data` plus `offset` elements. The
/// descriptors the kernels get point there with offset 0, which a kernel
/// specialized to an identity-layout shape assumes.
static char *viewStart(const BufferArg &buffer) {
  return static_cast<char *>(buffer.data) +
         buffer.offset * static_cast<int64_t>(getByteSize(buffer.dtype));
}

static bool isVectorAligned(const BufferArg &buffer) {
  return reinterpret_cast<uintptr_t>(viewStart(buffer)) % kVectorAlignment ==
         0;
}

bool Kernel::Impl::isAlignedBuffer(const Param &param,
                                   const KernelArg &arg) const {
  return param.isBuffer && options.specializeShapes &&
         isVectorAligned(std::get<BufferArg>(arg));
}

SmallVector<std::string>
Kernel::Impl::specializationOf(ArrayRef<KernelArg> args) const {
  SmallVector<std::string> inputs;
  for (auto [param, arg] : llvm::zip(params, args)) {
    if (param.isConstexpr)
      inputs.push_back(param.name + "=" +
                       scalarString(std::get<ScalarArg>(arg)));
    else if (param.isBuffer && options.specializeShapes &&
             llvm::any_of(param.shape, ShapedType::isDynamic))
      inputs.push_back(param.name +
                       ".shape=" + shapeString(std::get<BufferArg>(arg).shape));
    if (isAlignedBuffer(param, arg))
      inputs.push_back(param.name + ".align=" +
                       std::to_string(kVectorAlignment));
  }
  return inputs;
}

std::string Kernel::Impl::keyOf(ArrayRef<KernelArg> args) const {
  // Each parameter adds a fixed number of words (ranks are checked), so
  // the concatenation is unambiguous.
  std::string key;
  auto add = [&](int64_t word) {
    key.append(reinterpret_cast<const char *>(&word), sizeof(word));
  };
  for (auto [param, arg] : llvm::zip(params, args)) {
    if (param.isConstexpr) {
      const auto &value = std::get<ScalarArg>(arg).value;
      add(value.index());
      if (const auto *i = std::get_if<int64_t>(&value))
        add(*i);
      else
        add(llvm::bit_cast<int64_t>(std::get<double>(value)));
      continue;
    }
    if (!param.isBuffer || !options.specializeShapes)
      continue;
    if (llvm::any_of(param.shape, ShapedType::isDynamic))
      for (int64_t extent : std::get<BufferArg>(arg).shape)
        add(extent);
    add(isAlignedBuffer(param, arg));
  }
  return key;
}

FailureOr<OwningOpRef<ModuleOp>>
Kernel::Impl::specialize(ArrayRef<KernelArg> args) {
  OwningOpRef<ModuleOp> clone = module->clone();
  auto func = clone->lookupSymbol<func::FuncOp>(entry);
  OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
  SmallVector<Type> argTypes(func.getArgumentTypes());
  for (auto [i, param, arg] : llvm::enumerate(params, args)) {
    BlockArgument value = func.getArgument(i);
    Location loc = value.getLoc();
    if (param.isConstexpr) {
      const ScalarArg &scalar = std::get<ScalarArg>(arg);
      Type type = value.getType();
      TypedAttr attr;
      if (isa<FloatType>(type)) {
        double v = std::holds_alternative<double>(scalar.value)
                       ? std::get<double>(scalar.value)
                       : double(std::get<int64_t>(scalar.value));
        attr = builder.getFloatAttr(type, v);
      } else {
        attr = builder.getIntegerAttr(type, std::get<int64_t>(scalar.value));
      }
      Value constant = arith::ConstantOp::create(builder, loc, type, attr);
      value.replaceAllUsesWith(constant);
      continue;
    }
    if (isAlignedBuffer(param, arg))
      func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                      builder.getI64IntegerAttr(kVectorAlignment));
    if (!param.isBuffer || !options.specializeShapes ||
        !llvm::any_of(param.shape, ShapedType::isDynamic))
      continue;
    auto dynamicType = cast<MemRefType>(value.getType());
    auto staticType =
        MemRefType::get(std::get<BufferArg>(arg).shape,
                        dynamicType.getElementType(), dynamicType.getLayout());
    value.setType(staticType);
    argTypes[i] = staticType;
    auto cast = memref::CastOp::create(builder, loc, dynamicType, value);
    value.replaceAllUsesExcept(cast, cast);
  }
  func.setFunctionType(builder.getFunctionType(argTypes, {}));

  // Only the entry (and what it calls) is compiled.
  for (auto other : clone->getOps<func::FuncOp>())
    if (other != func)
      other.setPrivate();
  PassManager pm(clone->getContext());
  pm.enableVerifier(options.verifyPasses);
  pm.addPass(createSymbolDCEPass());
  // Dimension queries out of range are errors before any folding reads
  // them (upstream's memref.dim patterns crash on a negative constant).
  pm.addPass(createTileVerifyDims());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (failed(pm.run(*clone)))
    return failure();
  return clone;
}

/// f32 -> bf16, rounding to nearest even (NaNs stay quiet NaNs): the
/// compiler-runtime routine LLVM calls for such conversions on hosts
/// without native ones (x86 without AVX512-BF16 or AVX-NE-CONVERT), as in
/// CPU kernels that move bf16 vectors. Debian's libgcc (GCC 12) does not
/// have it, so the JIT provides it.
static __bf16 truncateF32ToBF16(float value) {
  return llvm::bit_cast<__bf16>(truncateToBFloat16(value));
}

uint16_t mlir::tile::jit::truncateToBFloat16(float value) {
  auto bits = llvm::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

uint16_t mlir::tile::jit::truncateToHalf(double value) {
  auto bits = llvm::bit_cast<uint64_t>(value);
  auto sign = static_cast<uint16_t>((bits >> 48) & 0x8000u);
  uint64_t magnitude = bits & 0x7fffffffffffffffull;
  constexpr uint64_t kInfinity = 0x7ff0000000000000ull;
  if (magnitude > kInfinity) // A quiet NaN with the payload's top bits.
    return sign | 0x7e00u | static_cast<uint16_t>((magnitude >> 42) & 0x1ffu);
  if (magnitude == kInfinity)
    return sign | 0x7c00u;
  int exponent = static_cast<int>(magnitude >> 52) - 1023;
  if (exponent < -30) // Below half the smallest subnormal, or f64 subnormal.
    return sign;
  uint64_t mantissa = (magnitude & ((1ull << 52) - 1)) | (1ull << 52);
  // The half's 11 significant bits (10 stored; fewer for its subnormals)
  // are the mantissa shifted right, rounded to nearest even; a carry out
  // of the significand moves into the exponent field by itself.
  int halfExponent = exponent + 15;
  int shift = halfExponent >= 1 ? 42 : 42 + (1 - halfExponent);
  uint64_t kept = mantissa >> shift;
  uint64_t rest = mantissa & ((1ull << shift) - 1);
  uint64_t halfway = 1ull << (shift - 1);
  if (rest > halfway || (rest == halfway && (kept & 1)))
    ++kept;
  if (halfExponent < 1) // Subnormal (or the smallest normal after a carry).
    return sign | static_cast<uint16_t>(kept);
  uint64_t result = (static_cast<uint64_t>(halfExponent) << 10) + kept - (1u << 10);
  if (result >= 0x7c00u)
    return sign | 0x7c00u;
  return sign | static_cast<uint16_t>(result);
}

float mlir::tile::jit::extendHalf(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu, mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) // Infinities and NaNs (the payload kept).
    return llvm::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) { // Zero and subnormals: mantissa * 2^-24, exactly.
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return llvm::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

/// The compiler-runtime routines for half conversions LLVM calls where the
/// host has no instruction for them (f64 -> f16 on every x86 without
/// AVX512-FP16; f32 <-> f16 without F16C). libgcc has them since GCC 12,
/// but a process need not have loaded it (the self-contained module links
/// it statically, unexported), so the JIT provides them.
static _Float16 truncateF64ToF16(double value) {
  return llvm::bit_cast<_Float16>(truncateToHalf(value));
}
static _Float16 truncateF32ToF16(float value) {
  return llvm::bit_cast<_Float16>(truncateToHalf(value));
}
static float extendF16ToF32(_Float16 value) {
  return extendHalf(llvm::bit_cast<uint16_t>(value));
}

/// The functions the host code of `kind` calls: the mgpu* functions (the
/// HIP twins for ROCm, the CUDA driver's otherwise; unused on the CPU) and
/// the compiler-runtime routines the host may lack.
static llvm::SmallVector<std::pair<llvm::StringRef, void *>>
getRuntimeSymbols(TargetKind kind) {
  llvm::SmallVector<std::pair<llvm::StringRef, void *>> symbols =
      kind == TargetKind::ROCm ? runtime::hip::getSymbols()
                               : runtime::getSymbols();
  symbols.push_back(
      {"__truncsfbf2", reinterpret_cast<void *>(&truncateF32ToBF16)});
  symbols.push_back(
      {"__truncdfhf2", reinterpret_cast<void *>(&truncateF64ToF16)});
  symbols.push_back(
      {"__truncsfhf2", reinterpret_cast<void *>(&truncateF32ToF16)});
  symbols.push_back(
      {"__extendhfsf2", reinterpret_cast<void *>(&extendF16ToF32)});
  return symbols;
}

/// Registers the passes and named pipelines that pipeline texts name, once
/// per process.
static void registerPipelinesOnce() {
  static std::once_flag registered;
  std::call_once(registered, [] {
    tile::registerAllPasses();
    registerTransformsPasses();
  });
}

/// " FLAG=value" for an option of CompileOptions.def.
static std::string printOption(StringRef flag, bool value) {
  return (" " + flag + "=" + (value ? "true" : "false")).str();
}
static std::string printOption(StringRef flag, int64_t value) {
  return (" " + flag + "=" + Twine(value)).str();
}

std::string jit::getPipeline(const CompileOptions &options,
                             StringRef stopAfter, StringRef format) {
  TargetKind kind = options.target.kind;
  if (kind != TargetKind::CUDA && kind != TargetKind::ROCm)
    return ("tile-to-cpu{emit-c-interface=true" +
            (stopAfter.empty() ? Twine() : " stop-after=" + stopAfter) + "}")
        .str();
  std::string text =
      (Twine(kind == TargetKind::CUDA ? "tile-to-nvvm" : "tile-to-rocdl") +
       "{chip=" + options.target.chip + " features=" +
       options.target.features + " format=" + format +
       " emit-c-interface=true")
          .str();
  if (!stopAfter.empty())
    text += (" stop-after=" + stopAfter).str();
  // The options the target's pipeline has, where they differ from their
  // defaults (the pipeline's defaults are the table's).
#define TILE_GPU_OPTION(TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)               \
  if (options.NAME != TYPE(DEFAULT))                                           \
    text += printOption(FLAG, options.NAME);
#include "TileLang/Pipelines/CompileOptions.def"
  if (kind == TargetKind::CUDA) {
#define TILE_CUDA_OPTION(TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)              \
  if (options.NAME != TYPE(DEFAULT))                                           \
    text += printOption(FLAG, options.NAME);
#include "TileLang/Pipelines/CompileOptions.def"
  }
  return text + "}";
}

/// Adds the passes of `pipeline` (tile-opt's syntax) to `pm`; an error
/// naming the pipeline and the parser's complaint otherwise.
static Error parsePipeline(StringRef pipeline, OpPassManager &pm) {
  registerPipelinesOnce();
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(parsePassPipeline(pipeline, pm, errorStream)))
    return llvm::createStringError("invalid pass pipeline '" + pipeline +
                                   "': " + errors);
  return Error::success();
}

/// `pipeline` parsed into a pass manager of `context` and printed back:
/// every pass it runs, with every option.
static Expected<std::string> expandPipeline(MLIRContext *context,
                                            StringRef pipeline) {
  PassManager pm(context, ModuleOp::getOperationName());
  if (Error err = parsePipeline(pipeline, pm))
    return std::move(err);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

Expected<std::string> jit::printExpandedPipeline(StringRef pipeline) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  return expandPipeline(&context, pipeline);
}

Expected<std::string>
Kernel::Impl::compileToObject(ModuleOp specialized,
                              const std::string &pipeline) {
  DiagnosticCollector diags(context);
  // The pipeline text the compile is reported and keyed by is what runs.
  PassManager pm(context, ModuleOp::getOperationName());
  if (Error err = parsePipeline(pipeline, pm))
    return std::move(err);
  // The pass manager's report (wall time per pass, device binary included)
  // goes to stderr when it is destroyed; the host compile is timed below.
  if (options.timePasses)
    pm.enableTiming();
  pm.enableVerifier(options.verifyPasses);
  if (failed(pm.run(specialized)))
    return diags.makeError("cannot lower '" + entry + "' with " + pipeline);
  // Without the verifier between passes, once before the translation.
  if (!options.verifyPasses && failed(verify(specialized)))
    return diags.makeError("lowering '" + entry + "' with " + pipeline +
                           " produced invalid IR");

  initializeNativeTargetOnce();
  ExecutionEngineOptions engineOptions;
  auto transformer = makeOptimizingTransformer(options.optLevel,
                                               /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(std::min(options.optLevel, 3u));
  engineOptions.enableObjectDump = true;
  // Static constructors (device-binary loading) become __tile_init.
  auto buildModule =
      [](Operation *op,
         llvm::LLVMContext &llvmContext) -> std::unique_ptr<llvm::Module> {
    std::unique_ptr<llvm::Module> module =
        translateModuleToLLVMIR(op, llvmContext, "tile-kernel");
    if (module) {
      replaceStructors(*module, "llvm.global_ctors", kInitFunction);
      replaceStructors(*module, "llvm.global_dtors", kFiniFunction);
    }
    return module;
  };
  engineOptions.llvmModuleBuilder = buildModule;
  auto hostStart = std::chrono::steady_clock::now();
  Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(specialized, engineOptions);
  if (!engine)
    return diags.makeError("cannot compile '" + entry + "' for the host: " +
                           llvm::toString(engine.takeError()));
  TargetKind kind = options.target.kind;
  (*engine)->registerSymbols([kind](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (auto [name, address] : getRuntimeSymbols(kind))
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                 llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  // Materialize the code, then take the object the engine produced.
  if (Expected<void (*)(void **)> fn =
          (*engine)->lookupPacked("_mlir_ciface_" + entry);
      !fn)
    return fn.takeError();
  if (options.timePasses)
    llvm::errs() << llvm::formatv(
        "host code (LLVM IR translation, optimization, codegen): {0:f4} s\n",
        std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                      hostStart)
            .count());
  llvm::SmallString<128> path;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tile-jit", "o", fd, path))
    return llvm::createStringError("cannot create a temporary object file: " +
                                   ec.message());
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  (*engine)->dumpToObjectFile(path);
  auto object = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  llvm::sys::fs::remove(path);
  if (!object || (*object)->getBufferSize() == 0)
    return llvm::createStringError("the execution engine produced no object "
                                   "code for '" +
                                   entry + "'");
  return (*object)->getBuffer().str();
}

Expected<std::unique_ptr<Compiled>> Kernel::Impl::load(llvm::StringRef object) {
  initializeNativeTargetOnce();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  llvm::orc::JITDylib &dylib = (*jit)->getMainJITDylib();
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process)
    return process.takeError();
  dylib.addGenerator(std::move(*process));
  llvm::orc::SymbolMap runtimeSymbols;
  for (auto [name, address] : getRuntimeSymbols(options.target.kind))
    runtimeSymbols[(*jit)->mangleAndIntern(name)] = {
        llvm::orc::ExecutorAddr::fromPtr(address),
        llvm::JITSymbolFlags::Exported};
  if (Error err = dylib.define(llvm::orc::absoluteSymbols(runtimeSymbols)))
    return std::move(err);
  if (Error err = (*jit)->addObjectFile(
          llvm::MemoryBuffer::getMemBufferCopy(object, "tile-kernel")))
    return std::move(err);
  auto symbol = (*jit)->lookup("_mlir__mlir_ciface_" + entry);
  if (!symbol)
    return symbol.takeError();
  auto init = (*jit)->lookup(kInitFunction);
  if (!init)
    return init.takeError();
  auto fini = (*jit)->lookup(kFiniFunction);
  if (!fini)
    return fini.takeError();
  auto compiled = std::make_unique<Compiled>();
  compiled->entry = symbol->toPtr<void (*)(void **)>();
  compiled->jit = std::move(*jit);
  // Load the device binaries now; unload them with the kernel.
  init->toPtr<void (*)()>()();
  if (Error err = runtime::takeError())
    return llvm::createStringError("cannot load the device code of '" + entry +
                                   "': " + llvm::toString(std::move(err)));
  compiled->fini = fini->toPtr<void (*)()>();
  return compiled;
}

Expected<std::unique_ptr<Compiled>>
Kernel::Impl::build(ArrayRef<KernelArg> args, bool loadIt) {
  // Kernels of one context (one traced module's) compile one at a time:
  // the context has no locks of its own.
  std::lock_guard<std::mutex> contextLock(shared->getCompileMutex());
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  auto start = Clock::now();
  bool cuda = options.target.kind == TargetKind::CUDA;
  bool rocm = options.target.kind == TargetKind::ROCm;
  // The device runtime starts (driver, context: a tenth of a second or
  // more) on a thread of its own while the kernel compiles; its failure
  // message, empty on success, is awaited before anything loads.
  std::future<std::pair<std::string, double>> deviceReady;
  if (loadIt && (cuda || rocm))
    deviceReady = std::async(std::launch::async, [cuda, since] {
      auto begin = Clock::now();
      Error err = cuda ? runtime::initCUDA() : runtime::hip::initHIP();
      std::string failure = err ? llvm::toString(std::move(err)) : "";
      return std::make_pair(failure, since(begin));
    });
  double initSeconds = 0;
  auto checkDevice = [&]() -> Error {
    if (!deviceReady.valid())
      return Error::success();
    auto [failure, seconds] = deviceReady.get();
    initSeconds = seconds;
    if (!failure.empty())
      return llvm::createStringError("cannot run on " + options.target.str() +
                                     ": " + failure);
    // ROCm: the HIP runtime twin loads the code object; one built for
    // another gfx fails there (hipModuleLoadData), as the twin has no
    // device query.
    if (!cuda)
      return Error::success();
    // Never load a binary built for another chip: cubins run only on their
    // own major compute capability, sm_XXa only on exactly XX.
    Expected<int> capability = runtime::getComputeCapability();
    if (!capability)
      return capability.takeError();
    int64_t sm = parseSmVersion(options.target.chip);
    bool archSpecific = llvm::StringRef(options.target.chip).ends_with("a");
    if (sm / 10 != *capability / 10 || sm > *capability ||
        (archSpecific && sm != *capability))
      return llvm::createStringError(
          "a " + options.target.chip +
          " binary cannot run on this GPU (compute capability " +
          std::to_string(*capability / 10) + "." +
          std::to_string(*capability % 10) + ")");
    return Error::success();
  };
  // A device that cannot run the kernel is the first thing to report,
  // before anything the compilation says.
  auto deviceErrorOr = [&](Error other) -> Error {
    if (Error err = checkDevice()) {
      llvm::consumeError(std::move(other));
      return err;
    }
    return other;
  };

  DiagnosticCollector diags(context);
  FailureOr<OwningOpRef<ModuleOp>> specialized = specialize(args);
  if (failed(specialized))
    return deviceErrorOr(
        diags.makeError("cannot specialize '" + entry + "'"));

  CompileReport report;
  report.specialization = specializationOf(args);
  report.target = options.target;
  report.pipeline = getPipeline(options);
  // The key holds every pass and option the pipeline expands to, so that
  // a change in what a named pipeline runs is a change of key.
  Expected<std::string> expanded =
      expandPipeline(context, report.pipeline);
  if (!expanded)
    return expanded.takeError();

  std::string ir;
  {
    llvm::raw_string_ostream os(ir);
    (*specialized)->print(os, OpPrintingFlags().enableDebugInfo(false));
  }
  CacheKey key;
  key.add("tilelang", getProjectVersion());
  key.add("commit", tile::getCommit());
  // By content (build IDs), so that one binary reached by different paths
  // shares entries and a rebuilt one never reuses an older build's objects.
  key.add("compiler-build", tile::getCompilerIdentity());
  key.add("object-abi", kObjectABI);
  key.add("llvm", LLVM_VERSION_STRING);
  key.add("target", options.target.str());
  std::string features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    if (feature.second)
      features += "+" + feature.first().str() + ",";
  key.add("host", llvm::sys::getProcessTriple() + " " +
                      llvm::sys::getHostCPUName().str());
  key.add("host-features", features);
  report.passes = std::move(*expanded);
  key.add("pipeline", report.passes);
  key.add("host-opt-level", std::to_string(options.optLevel));
  if (cuda)
    key.add("ptxas", getPtxasVersion(findCUDAToolkit()));
  if (rocm)
    key.add("rocm-toolkit", findROCmToolkit());
  key.add("entry", entry);
  key.add("ir", ir);
  report.keyComponents = key.getComponents();
  report.key = key.digest();
  report.cacheEnabled = cache->isEnabled();

  if (!loadIt) {
    auto compiled = std::make_unique<Compiled>();
    if (cache->lookup(report.key)) {
      report.cacheHit = true;
    } else {
      auto begin = Clock::now();
      Expected<std::string> object = callOnLargeStack(
          [&] { return compileToObject(specialized->get(), report.pipeline); });
      if (!object)
        return object.takeError();
      report.compileSeconds = since(begin);
      cache->store(report.key, *object);
    }
    report.seconds = since(start);
    compiled->report = std::move(report);
    return compiled;
  }

  // Loads `object` once the device is ready, timing the load.
  auto loadObject = [&](StringRef object) -> Expected<std::unique_ptr<Compiled>> {
    if (Error err = checkDevice())
      return std::move(err);
    auto begin = Clock::now();
    Expected<std::unique_ptr<Compiled>> result = load(object);
    report.loadSeconds = since(begin);
    return result;
  };
  Expected<std::unique_ptr<Compiled>> loaded =
      llvm::createStringError("not loaded");
  if (std::unique_ptr<llvm::MemoryBuffer> hit = cache->lookup(report.key)) {
    // (A device that cannot run it says nothing about the entry.)
    if (Error err = checkDevice())
      return std::move(err);
    loaded = loadObject(hit->getBuffer());
    if (loaded) {
      report.cacheHit = true;
    } else {
      // A valid entry that does not load (a stale object from another build
      // of the same version): drop it and compile afresh.
      llvm::errs() << "tile cache: warning: cannot load cached object for '"
                   << entry << "' (" << llvm::toString(loaded.takeError())
                   << "); recompiling\n";
      llvm::sys::fs::remove(cache->getEntryPath(report.key));
    }
  }
  if (!report.cacheHit) {
    auto begin = Clock::now();
    Expected<std::string> object = callOnLargeStack(
        [&] { return compileToObject(specialized->get(), report.pipeline); });
    if (!object) // Nothing is written to the cache.
      return deviceErrorOr(object.takeError());
    report.compileSeconds = since(begin);
    loaded = loadObject(*object);
    if (!loaded)
      return loaded.takeError();
    cache->store(report.key, *object);
  }
  report.initSeconds = initSeconds;
  report.seconds = since(start);
  (*loaded)->report = std::move(report);
  return loaded;
}

Expected<Compiled *> Kernel::Impl::getOrBuild(ArrayRef<KernelArg> args) {
  std::string id = keyOf(args);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = compiled.find(id);
  if (it == compiled.end()) {
    Expected<std::unique_ptr<Compiled>> built = build(args);
    if (!built)
      return built.takeError();
    it = compiled.try_emplace(id, std::move(*built)).first;
  }
  return it->second.get();
}

bool Kernel::isPrepared(ArrayRef<KernelArg> args) const {
  // keyOf reads each argument as its parameter's kind and rank.
  if (args.size() != impl->params.size())
    return false;
  for (auto [param, arg] : llvm::zip(impl->params, args)) {
    const auto *buffer = std::get_if<BufferArg>(&arg);
    if (param.isBuffer != (buffer != nullptr) ||
        (buffer && buffer->shape.size() != param.shape.size()))
      return false;
  }
  std::string id = impl->keyOf(args);
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->compiled.count(id);
}

Expected<CompileReport> Kernel::compile(ArrayRef<KernelArg> args) {
  if (Error err = checkArgs(args))
    return std::move(err);
  std::lock_guard<std::mutex> lock(impl->mutex);
  Expected<std::unique_ptr<Compiled>> compiled =
      impl->build(args, /*load=*/false);
  if (!compiled)
    return compiled.takeError();
  return (*compiled)->report;
}

Expected<const CompileReport &> Kernel::prepare(ArrayRef<KernelArg> args) {
  if (Error err = checkArgs(args))
    return std::move(err);
  Expected<Compiled *> compiled = impl->getOrBuild(args);
  if (!compiled)
    return compiled.takeError();
  return (*compiled)->report;
}

//===----------------------------------------------------------------------===//
// Invocation
//===----------------------------------------------------------------------===//

void mlir::tile::jit::writeElement(DType dtype, void *p,
                                   const ScalarArg &scalar) {
  auto asInt = [&] {
    return std::holds_alternative<int64_t>(scalar.value)
               ? std::get<int64_t>(scalar.value)
               : static_cast<int64_t>(std::get<double>(scalar.value));
  };
  auto asDouble = [&] {
    return std::holds_alternative<double>(scalar.value)
               ? std::get<double>(scalar.value)
               : static_cast<double>(std::get<int64_t>(scalar.value));
  };
  // The bits of the value in a 16- or 8-bit float format.
  auto narrowBits = [&](const llvm::fltSemantics &semantics) {
    llvm::APFloat value(asDouble());
    bool losesInfo;
    value.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return static_cast<uint16_t>(value.bitcastToAPInt().getZExtValue());
  };
  switch (dtype) {
  case DType::I1:
    *static_cast<uint8_t *>(p) = asInt() != 0;
    break;
  case DType::I8:
  case DType::U8:
    *static_cast<uint8_t *>(p) = static_cast<uint8_t>(asInt());
    break;
  case DType::I16:
  case DType::U16:
    *static_cast<uint16_t *>(p) = static_cast<uint16_t>(asInt());
    break;
  case DType::I32:
  case DType::U32:
    *static_cast<uint32_t *>(p) = static_cast<uint32_t>(asInt());
    break;
  case DType::I64:
  case DType::U64:
  case DType::Index:
    *static_cast<int64_t *>(p) = asInt();
    break;
  case DType::F16: {
#ifdef __FLT16_MAX__
    // The compiler's own conversion (round to nearest even, as APFloat's):
    // an order of magnitude faster, which matters for tile-run's inputs of
    // a gigabyte.
    _Float16 h = static_cast<_Float16>(asDouble());
    std::memcpy(p, &h, sizeof(h));
#else
    *static_cast<uint16_t *>(p) = narrowBits(llvm::APFloat::IEEEhalf());
#endif
    break;
  }
  case DType::BF16:
    *static_cast<uint16_t *>(p) = narrowBits(llvm::APFloat::BFloat());
    break;
  case DType::F8E4M3FN:
    *static_cast<uint8_t *>(p) = narrowBits(llvm::APFloat::Float8E4M3FN());
    break;
  case DType::F8E5M2:
    *static_cast<uint8_t *>(p) = narrowBits(llvm::APFloat::Float8E5M2());
    break;
  case DType::F8E8M0FNU:
    *static_cast<uint8_t *>(p) = narrowBits(llvm::APFloat::Float8E8M0FNU());
    break;
  case DType::F32:
    *static_cast<float *>(p) = static_cast<float>(asDouble());
    break;
  case DType::F64:
    *static_cast<double *>(p) = asDouble();
    break;
  }
}

double mlir::tile::jit::readElement(DType dtype, const void *p) {
  auto half = [&](const llvm::fltSemantics &semantics) {
    return llvm::APFloat(semantics,
                         llvm::APInt(16, *static_cast<const uint16_t *>(p)))
        .convertToDouble();
  };
  switch (dtype) {
  case DType::I1:
    return *static_cast<const uint8_t *>(p) != 0;
  case DType::I8:
    return *static_cast<const int8_t *>(p);
  case DType::I16:
    return *static_cast<const int16_t *>(p);
  case DType::I32:
    return *static_cast<const int32_t *>(p);
  case DType::I64:
  case DType::Index:
    return static_cast<double>(*static_cast<const int64_t *>(p));
  case DType::U8:
    return *static_cast<const uint8_t *>(p);
  case DType::U16:
    return *static_cast<const uint16_t *>(p);
  case DType::U32:
    return *static_cast<const uint32_t *>(p);
  case DType::U64:
    return static_cast<double>(*static_cast<const uint64_t *>(p));
  case DType::F16: {
#ifdef __FLT16_MAX__
    _Float16 h;
    std::memcpy(&h, p, sizeof(h));
    return static_cast<double>(h);
#else
    return half(llvm::APFloat::IEEEhalf());
#endif
  }
  case DType::BF16:
    return half(llvm::APFloat::BFloat());
  case DType::F8E4M3FN:
  case DType::F8E5M2:
  case DType::F8E8M0FNU:
    return llvm::APFloat(dtype == DType::F8E5M2 ? llvm::APFloat::Float8E5M2()
                         : dtype == DType::F8E8M0FNU
                             ? llvm::APFloat::Float8E8M0FNU()
                             : llvm::APFloat::Float8E4M3FN(),
                         llvm::APInt(8, *static_cast<const uint8_t *>(p)))
        .convertToDouble();
  case DType::F32:
    return *static_cast<const float *>(p);
  case DType::F64:
    return *static_cast<const double *>(p);
  }
  llvm_unreachable("unknown dtype");
}

Error Kernel::run(ArrayRef<KernelArg> args,
                  const runtime::LaunchTarget &launch) {
  if (Error err = checkArgs(args))
    return err;
  // The module loads on the target's device when this call builds it.
  std::optional<runtime::LaunchScope> scope;
  if (impl->options.target.kind != TargetKind::CPU)
    scope.emplace(launch);
  Expected<Compiled *> compiled = impl->getOrBuild(args);
  if (!compiled)
    return compiled.takeError();
  void (*fn)(void **) = (*compiled)->entry;

  // Memref descriptors: {allocated, aligned, offset, sizes[r], strides[r]}.
  size_t n = args.size();
  SmallVector<SmallVector<int64_t, 11>> descriptors(n);
  SmallVector<void *> descriptorPtrs(n, nullptr);
  SmallVector<uint64_t> scalars(n, 0);
  SmallVector<void *> packed(n, nullptr);
  for (auto [i, param, arg] : llvm::enumerate(impl->params, args)) {
    if (!param.isBuffer) {
      writeElement(param.dtype, &scalars[i], std::get<ScalarArg>(arg));
      packed[i] = &scalars[i];
      continue;
    }
    const BufferArg &buffer = std::get<BufferArg>(arg);
    size_t rank = buffer.shape.size();
    SmallVector<int64_t, 11> &desc = descriptors[i];
    desc.resize(3 + 2 * rank);
    desc[0] = reinterpret_cast<intptr_t>(buffer.data);
    desc[1] = reinterpret_cast<intptr_t>(viewStart(buffer));
    desc[2] = 0;
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      desc[3 + d] = buffer.shape[d];
      desc[3 + rank + d] = buffer.strides.empty() ? stride : buffer.strides[d];
      stride *= buffer.shape[d];
    }
    descriptorPtrs[i] = desc.data();
    packed[i] = &descriptorPtrs[i];
  }
  fn(packed.data());
  if (Error err = runtime::takeError())
    return llvm::createStringError("'" + impl->entry + "' failed on " +
                                   impl->options.target.str() + ": " +
                                   llvm::toString(std::move(err)));
  return Error::success();
}

/// Runs `pipeline` on `module` (diagnostics into `diags`) and prints the
/// result.
static Expected<std::string> runPipelineToText(ModuleOp module,
                                               StringRef pipeline,
                                               DiagnosticCollector &diags) {
  PassManager pm(module->getContext(), ModuleOp::getOperationName());
  if (Error err = parsePipeline(pipeline, pm))
    return std::move(err);
  if (failed(pm.run(module)))
    return diags.makeError(("'" + pipeline + "' failed").str());
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

Expected<std::string> jit::lowerToText(StringRef source, StringRef pipeline,
                                       StringRef bufferName) {
  KernelContext context;
  DiagnosticCollector diags(context.get());
  OwningOpRef<ModuleOp> module =
      parseKernelSource(source, context.get(), bufferName);
  if (!module)
    return diags.makeError("cannot parse the kernel");
  return runPipelineToText(*module, pipeline, diags);
}

Expected<std::string> jit::lowerToText(KernelContext &context, ModuleOp module,
                                       StringRef pipeline) {
  std::lock_guard<std::mutex> lock(context.getCompileMutex());
  DiagnosticCollector diags(context.get());
  if (failed(verify(module)))
    return diags.makeError("the kernel does not verify");
  OwningOpRef<ModuleOp> clone = module.clone();
  return runPipelineToText(*clone, pipeline, diags);
}
