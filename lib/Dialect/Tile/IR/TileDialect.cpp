//===- TileDialect.cpp - The tile dialect and its attributes ------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Dialect/Tile/IR/TileDialect.h"

#include "TileLang/Dialect/Tile/IR/FragmentTable.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/MathExtras.h"

#include <mutex>
#include <set>

using namespace mlir;
using namespace mlir::tile;

/// Fragment tables by layout (TileDialect::getFragmentTable).
struct TileDialect::FragmentTableCache {
  std::mutex mutex;
  llvm::DenseMap<Attribute, std::unique_ptr<const FragmentTable>> tables;
};

#include "TileLang/Dialect/Tile/IR/TileOpsDialect.cpp.inc"

#include "TileLang/Dialect/Tile/IR/TileEnums.cpp.inc"

#include "TileLang/Dialect/Tile/IR/TileInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "TileLang/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "TileLang/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "TileLang/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  fragmentTables = std::make_unique<FragmentTableCache>();
}

void TileDialect::registerTargetInfo(uint32_t kind,
                                     std::shared_ptr<const TargetInfo> info) {
  for (auto &[registered, existing] : targetInfos)
    if (registered == kind) {
      existing = std::move(info);
      return;
    }
  targetInfos.emplace_back(kind, std::move(info));
}

const TargetInfo *TileDialect::lookupTargetInfo(uint32_t kind) const {
  for (const auto &[registered, info] : targetInfos)
    if (registered == kind)
      return info.get();
  return nullptr;
}

SmallVector<const TargetInfo *> TileDialect::getTargetInfos() const {
  return llvm::map_to_vector(targetInfos,
                             [](const auto &entry) { return entry.second.get(); });
}

const FragmentTable *TileDialect::getFragmentTable(FragmentLayoutAttr layout) {
  std::lock_guard<std::mutex> lock(fragmentTables->mutex);
  auto [it, inserted] = fragmentTables->tables.try_emplace(layout);
  if (inserted)
    if (FailureOr<FragmentTable> built = FragmentTable::get(layout);
        succeeded(built))
      it->second = std::make_unique<const FragmentTable>(std::move(*built));
  return it->second.get();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == getTargetAttrName()) {
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << getTargetAttrName()
                             << "' may only be attached to a builtin.module";
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitError() << "'" << getTargetAttrName()
                             << "' must be a #tile.target attribute, got "
                             << attr.getValue();
    return success();
  }
  if (attr.getName() == getLoweredAsyncCopyAttrName() ||
      attr.getName() == getFallbackCopyAttrName() ||
      attr.getName() == getLoweredTmaCopyAttrName() ||
      attr.getName() == getRegisterOnlyAsmAttrName() ||
      attr.getName() == getIssuerWaitAttrName() ||
      attr.getName() == getReduceScratchAttrName() ||
      attr.getName() == getPersistentTilesAttrName() ||
      attr.getName() == getArrivedOperandsAttrName() ||
      attr.getName() == getDeferredStoreWaitAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a unit attribute";
    return success();
  }
  if (attr.getName() == getThreadRangeAttrName()) {
    auto range = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!range || range.size() < 2 || range.size() > 3 || range[0] < 0 ||
        llvm::any_of(range.asArrayRef().drop_front(),
                     [](int64_t v) { return v <= 0; }))
      return op->emitError()
             << "'" << attr.getName().getValue()
             << "' must be [first, count] of threads, optionally with the "
                "registers of each";
    return success();
  }
  if (attr.getName() == getUnplacedTileAttrName()) {
    auto alloc = dyn_cast<memref::AllocOp>(op);
    if (!alloc || !alloc.getType().getMemorySpace() ||
        !alloc.getType().hasStaticShape() ||
        !isa<UnitAttr, SwizzleAttr, FragmentLayoutAttr>(attr.getValue()))
      return op->emitError()
             << "'" << attr.getName().getValue()
             << "' must be a unit attribute or a tile layout on a statically "
                "shaped memref.alloc in an on-chip memory space";
    return success();
  }
  if (attr.getName() == getInRegistersAttrName()) {
    auto alloc = dyn_cast<AllocFragmentOp>(op);
    if (!alloc || !isa<UnitAttr>(attr.getValue()) ||
        !isa_and_nonnull<FragmentLayoutAttr>(alloc.getLayoutAttr()))
      return op->emitError()
             << "'" << attr.getName().getValue()
             << "' must be a unit attribute on a tile.alloc_fragment with a "
                "#tile.fragment layout";
    return success();
  }
  if (attr.getName() == getProducerThreadsAttrName()) {
    auto threads = dyn_cast<IntegerAttr>(attr.getValue());
    if (!threads || !isa<KernelOp>(op) || threads.getInt() <= 0)
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a positive integer on a "
                                "tile.kernel";
    return success();
  }
  return op->emitError() << "unknown tile dialect attribute '"
                         << attr.getName().getValue() << "'";
}

//===----------------------------------------------------------------------===//
// Helpers shared with the ops
//===----------------------------------------------------------------------===//

bool mlir::tile::isGlobalBuffer(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && !getMemorySpace(type);
}

bool mlir::tile::mayWriteMemory(
    Operation *root, function_ref<EffectCheck(Operation *)> classify,
    function_ref<bool(const MemoryEffects::EffectInstance &)> counts) {
  WalkResult result = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    switch (classify(op)) {
    case EffectCheck::Skip:
      return WalkResult::skip();
    case EffectCheck::Ignore:
      return WalkResult::advance();
    case EffectCheck::Check:
      break;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return op->hasTrait<::mlir::OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &e : instances)
      if (isa<MemoryEffects::Write>(e.getEffect()) && counts(e))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

bool mlir::tile::mayWriteGlobalMemory(Operation *root, bool barriersOnlyOrder) {
  return mayWriteMemory(
      root,
      [&](Operation *op) {
        return barriersOnlyOrder && isa<BarrierWaitOp, BarrierArriveOp>(op)
                   ? EffectCheck::Ignore
                   : EffectCheck::Check;
      },
      [](const MemoryEffects::EffectInstance &e) {
        // (A dynamic tile schedule's counters are no kernel data.)
        if (isa<TileScheduleResource>(e.getResource()))
          return false;
        Value value = e.getValue();
        return value ? isGlobalBuffer(value)
                     : e.getResource() == SideEffects::DefaultResource::get();
      });
}

std::optional<MemorySpace> mlir::tile::getMemorySpace(MemRefType type) {
  if (auto space = dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace()))
    return space.getValue();
  return std::nullopt;
}

TargetAttr mlir::tile::getTargetAttr(Operation *op) {
  for (Operation *parent = op; parent; parent = parent->getParentOp())
    if (isa<ModuleOp>(parent))
      if (auto target = parent->getAttrOfType<TargetAttr>(
              TileDialect::getTargetAttrName()))
        return target;
  return {};
}

LogicalResult mlir::tile::verifyInKernel(Operation *op) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("must be nested in a 'tile.kernel'");
  return success();
}

//===----------------------------------------------------------------------===//
// SwizzleAttr
//===----------------------------------------------------------------------===//

LogicalResult SwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  unsigned bits, unsigned base,
                                  unsigned shift, bool blocked, bool panels) {
  if (panels && !blocked)
    return emitError() << "a swizzle stored in column panels must be blocked";
  if (bits > 30 || base > 30 || shift > 30 || bits + base + shift > 30)
    return emitError() << "swizzle spans " << uint64_t(bits) + base + shift
                       << " offset bits; at most 30 are supported";
  if (shift < bits)
    return emitError() << "swizzle shift (" << shift
                       << ") must be at least its number of bits (" << bits
                       << ") so that the XOR-ed fields do not overlap";
  return success();
}

int64_t SwizzleAttr::apply(int64_t offset) const {
  int64_t mask = ((int64_t(1) << getBits()) - 1) << (getBase() + getShift());
  return offset ^ ((offset & mask) >> getShift());
}

int64_t SwizzleAttr::applyToTile(int64_t row, int64_t col, int64_t rows,
                                 int64_t rowLength) const {
  int64_t offset = row * rowLength + col;
  int64_t width = getBlockWidth();
  if (getPanels())
    offset = (col / width) * rows * width + row * width + col % width;
  else if (getBlocked())
    offset = (row / 8) * 8 * rowLength + (col / width) * 8 * width +
             (row % 8) * width + col % width;
  return apply(offset);
}

int64_t SwizzleAttr::getPeriod() const {
  return int64_t(1) << (getBits() + getBase() + getShift());
}

SwizzleAttr SwizzleAttr::reinterpret(MemRefType from, MemRefType to) const {
  if (isIdentity())
    return get(getContext(), 0, 0, 0);
  uint64_t fromBits = from.getElementTypeBitWidth();
  uint64_t toBits = to.getElementTypeBitWidth();
  if (!llvm::isPowerOf2_64(fromBits) || !llvm::isPowerOf2_64(toBits) ||
      from.getRank() == 0 || to.getRank() == 0)
    return {};
  // The swizzle permutes units of 2^base elements: the same bytes are
  // 2^base' elements of the other type. Shifting the offsets by a power of
  // two moves both bit fields by as much, so `shift` stays.
  int64_t base = int64_t(getBase()) + llvm::Log2_64(fromBits) -
                 llvm::Log2_64(toBits);
  if (base < 0 || base + getBits() + getShift() > 30)
    return {};
  // A blocked layout depends on the row: the rows must hold the same bytes
  // (then, the bytes being the same, the same number of rows).
  if (getBlocked() &&
      from.getShape().back() * int64_t(fromBits) !=
          to.getShape().back() * int64_t(toBits))
    return {};
  return get(getContext(), getBits(), base, getShift(), getBlocked(),
             getPanels());
}

//===----------------------------------------------------------------------===//
// GemmInstructionAttr
//===----------------------------------------------------------------------===//

Attribute GemmInstructionAttr::parse(AsmParser &parser, Type) {
  SMLoc kindLoc = parser.getCurrentLocation();
  StringRef kindName;
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<GemmInstructionKind> kind =
      symbolizeGemmInstructionKind(kindName);
  if (!kind) {
    parser.emitError(kindLoc, "unknown gemm instruction '")
        << kindName << "'; expected simt, mma_sync, wgmma, mfma or wmma";
    return {};
  }
  int64_t m = 0, n = 0, k = 0, blocks = 1;
  bool registerA = false, blocked = false, panels = false;
  if (*kind != GemmInstructionKind::SIMT) {
    // The shape, one keyword: m<M>n<N>k<K>.
    SMLoc shapeLoc = parser.getCurrentLocation();
    StringRef shape;
    if (parser.parseKeyword(&shape))
      return {};
    auto take = [&](char letter, int64_t &value) {
      if (!shape.consume_front(StringRef(&letter, 1)))
        return false;
      size_t digits = shape.find_first_not_of("0123456789");
      StringRef number = shape.take_front(digits);
      shape = shape.drop_front(number.size());
      return !number.empty() && number.size() <= 9 &&
             !number.getAsInteger(10, value);
    };
    if (!take('m', m) || !take('n', n) || !take('k', k) || !shape.empty()) {
      parser.emitError(shapeLoc, "expected the instruction's shape as "
                                 "m<M>n<N>k<K>, e.g. m16n8k16");
      return {};
    }
  }
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return {};
    if (key == "register_a") {
      registerA = true;
    } else if (key == "blocks") {
      if (parser.parseEqual() || parser.parseInteger(blocks))
        return {};
    } else if (key == "blocked") {
      blocked = true;
    } else if (key == "panels") {
      panels = true;
    } else {
      parser.emitError(keyLoc, "unknown gemm instruction parameter '")
          << key << "'; expected register_a, blocks, blocked or panels";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<GemmInstructionAttr>(
      parser.getContext(), *kind, m, n, k, registerA, blocks, blocked, panels);
}

void GemmInstructionAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyGemmInstructionKind(getKind());
  if (getKind() != GemmInstructionKind::SIMT)
    printer << " m" << getM() << "n" << getN() << "k" << getK();
  if (getRegisterA())
    printer << ", register_a";
  if (getBlocks() != 1)
    printer << ", blocks = " << getBlocks();
  if (getBlocked())
    printer << ", blocked";
  if (getPanels())
    printer << ", panels";
  printer << ">";
}

LogicalResult
GemmInstructionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            GemmInstructionKind kind, int64_t m, int64_t n,
                            int64_t k, bool registerA, int64_t blocks,
                            bool blocked, bool panels) {
  StringRef name = stringifyGemmInstructionKind(kind);
  if (registerA && kind != GemmInstructionKind::Wgmma)
    return emitError() << "register_a is a form of wgmma, not of " << name;
  if (blocks != 1 && kind != GemmInstructionKind::Wgmma)
    return emitError() << "blocks is a parameter of wgmma, not of " << name;
  if ((blocked || panels) && kind != GemmInstructionKind::MmaSync &&
      kind != GemmInstructionKind::Wgmma)
    return emitError() << (blocked ? "blocked" : "panels")
                       << " lays out the shared tiles of NVIDIA tensor-core "
                          "instructions (mma_sync, wgmma), not of "
                       << name;
  if (panels && !blocked)
    return emitError() << "panels stores blocked tiles in column panels: it "
                          "needs blocked";
  auto shapeError = [&](StringRef expected) {
    return emitError() << name << " has no shape m" << m << "n" << n << "k"
                       << k << "; expected " << expected;
  };
  switch (kind) {
  case GemmInstructionKind::SIMT:
    if (m || n || k)
      return emitError() << "simt has no instruction shape";
    return success();
  case GemmInstructionKind::MmaSync:
    if (m != 16 || n != 8 || (k != 16 && k != 32))
      return shapeError("m16n8k16 (16-bit operands) or m16n8k32 (8-bit)");
    return success();
  case GemmInstructionKind::Wgmma:
    if (m != 64 || n < 8 || n > 256 || n % 8 || k != 16)
      return shapeError("m64nNk16 with N a multiple of 8 up to 256");
    if (blocks < 1 || blocks * n > 256)
      return emitError() << "wgmma with " << blocks << " m64 blocks of " << n
                         << " columns: a warpgroup holds 1 to 256 / N "
                            "blocks of accumulators";
    return success();
  case GemmInstructionKind::MFMA:
  case GemmInstructionKind::WMMA:
    if (m != 16 || n != 16 || k != 16)
      return shapeError("m16n16k16");
    return success();
  }
  llvm_unreachable("unknown gemm instruction kind");
}

//===----------------------------------------------------------------------===//
// FragmentLayoutAttr
//===----------------------------------------------------------------------===//

/// Layouts of at most this many elements are checked exhaustively.
static constexpr int64_t kMaxExhaustiveLayoutCheck = 1 << 16;

/// True when every `mod`, `floordiv` and `ceildiv` of `map` divides by a
/// positive constant, so that the map can be evaluated on any coordinate.
static bool hasPositiveConstantDivisors(AffineMap map) {
  bool ok = true;
  for (AffineExpr result : map.getResults())
    result.walk([&](AffineExpr expr) {
      auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
      if (!binary || expr.getKind() == AffineExprKind::Add ||
          expr.getKind() == AffineExprKind::Mul)
        return;
      auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
      ok &= divisor && divisor.getValue() > 0;
    });
  return ok;
}

LogicalResult
FragmentLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           ArrayRef<int64_t> shape, AffineMap thread,
                           AffineMap index, int64_t threads,
                           int64_t replicate) {
  if (shape.empty())
    return emitError() << "fragment layout needs a non-empty shape";
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitError() << "fragment layout shape must be positive, got ["
                         << llvm::interleaved(shape) << "]";
  unsigned rank = shape.size();
  bool replicaDim = thread.getNumDims() == rank + 1;
  if ((thread.getNumDims() != rank && !replicaDim) ||
      thread.getNumSymbols() != 0 || thread.getNumResults() != 1)
    return emitError() << "fragment thread map must take " << rank
                       << " dimensions (or " << rank + 1
                       << " with the replica last), no symbols, and give "
                          "one result";
  if (index.getNumDims() != rank || index.getNumSymbols() != 0 ||
      index.getNumResults() == 0)
    return emitError() << "fragment index map must take " << rank
                       << " dimensions, no symbols, and give at least one "
                          "result";
  for (AffineMap map : {thread, index})
    if (!hasPositiveConstantDivisors(map))
      return emitError() << "fragment maps may only divide (mod, floordiv, "
                            "ceildiv) by positive constants, got "
                         << AffineMapAttr::get(map);
  if (threads <= 0)
    return emitError() << "fragment layout threads must be positive";
  if (replicate <= 0 || (!replicaDim && threads % replicate != 0))
    return emitError() << "fragment replicate (" << replicate
                       << ") must be positive and divide threads (" << threads
                       << ")";

  int64_t numElements = 1;
  for (int64_t dim : shape) {
    if (dim > kMaxExhaustiveLayoutCheck / numElements)
      return success();
    numElements *= dim;
  }

  // Every element (every replica of it, with a replica dimension) maps to a
  // thread in range, and no two share a register slot of the same thread.
  int64_t distinctThreads = replicaDim ? threads : threads / replicate;
  int64_t replicas = replicaDim ? replicate : 1;
  if (numElements > kMaxExhaustiveLayoutCheck / replicas)
    return success();
  std::set<SmallVector<int64_t, 4>> slots;
  SmallVector<int64_t> coords(rank, 0);
  for (int64_t linear = 0; linear < numElements; ++linear) {
    int64_t rem = linear;
    for (int d = rank - 1; d >= 0; --d) {
      coords[d] = rem % shape[d];
      rem /= shape[d];
    }
    SmallVector<int64_t, 4> slot = evaluateAffineMap(index, coords);
    if (llvm::any_of(slot, [](int64_t i) { return i < 0; }))
      return emitError() << "fragment layout maps element ["
                         << llvm::interleaved(coords)
                         << "] to a negative register index";
    SmallVector<int64_t> point(coords);
    if (replicaDim)
      point.push_back(0);
    for (int64_t r = 0; r < replicas; ++r) {
      if (replicaDim)
        point.back() = r;
      int64_t t = evaluateAffineMap(thread, point).front();
      if (t < 0 || t >= distinctThreads)
        return emitError() << "fragment layout maps element ["
                           << llvm::interleaved(coords) << "]"
                           << (replicaDim ? " replica " + std::to_string(r)
                                          : std::string())
                           << " to thread " << t << ", outside [0, "
                           << distinctThreads << ")";
      SmallVector<int64_t, 4> key(slot);
      key.insert(key.begin(), t);
      if (!slots.insert(key).second)
        return emitError() << "fragment layout maps element ["
                           << llvm::interleaved(coords) << "]"
                           << (replicaDim ? " replica " + std::to_string(r)
                                          : std::string())
                           << " to a register slot already taken in thread "
                           << t;
    }
  }
  return success();
}

static int64_t evaluateAffineExpr(AffineExpr expr, ArrayRef<int64_t> dims) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return cast<AffineConstantExpr>(expr).getValue();
  case AffineExprKind::DimId:
    return dims[cast<AffineDimExpr>(expr).getPosition()];
  case AffineExprKind::SymbolId:
    llvm_unreachable("evaluateAffineMap: maps without symbols only");
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  int64_t lhs = evaluateAffineExpr(binary.getLHS(), dims);
  int64_t rhs = evaluateAffineExpr(binary.getRHS(), dims);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return lhs + rhs;
  case AffineExprKind::Mul:
    return lhs * rhs;
  case AffineExprKind::FloorDiv:
    assert(rhs > 0 && "evaluateAffineMap: positive divisors only");
    return llvm::divideFloorSigned(lhs, rhs);
  case AffineExprKind::CeilDiv:
    assert(rhs > 0 && "evaluateAffineMap: positive divisors only");
    return llvm::divideCeilSigned(lhs, rhs);
  case AffineExprKind::Mod: {
    assert(rhs > 0 && "evaluateAffineMap: positive divisors only");
    int64_t rem = lhs % rhs;
    return rem < 0 ? rem + rhs : rem;
  }
  default:
    llvm_unreachable("unknown affine expression kind");
  }
}

SmallVector<int64_t, 4> mlir::tile::evaluateAffineMap(AffineMap map,
                                                      ArrayRef<int64_t> dims) {
  assert(map.getNumDims() == dims.size() && map.getNumSymbols() == 0 &&
         "evaluateAffineMap: one value per dimension, no symbols");
  SmallVector<int64_t, 4> results;
  for (AffineExpr result : map.getResults())
    results.push_back(evaluateAffineExpr(result, dims));
  return results;
}

bool FragmentLayoutAttr::hasReplicaDim() const {
  return getThread().getNumDims() == getShape().size() + 1;
}

int64_t FragmentLayoutAttr::getThreadOf(ArrayRef<int64_t> coords) const {
  return getThreadsOf(coords).front();
}

SmallVector<int64_t>
FragmentLayoutAttr::getThreadsOf(ArrayRef<int64_t> coords) const {
  SmallVector<int64_t> threads;
  SmallVector<int64_t> point(coords);
  if (hasReplicaDim()) {
    point.push_back(0);
    for (int64_t r = 0; r < getReplicate(); ++r) {
      point.back() = r;
      threads.push_back(evaluateAffineMap(getThread(), point).front());
    }
    return threads;
  }
  int64_t first = evaluateAffineMap(getThread(), point).front();
  int64_t stride = getThreads() / getReplicate();
  for (int64_t k = 0; k < getReplicate(); ++k)
    threads.push_back(first + k * stride);
  return threads;
}

SmallVector<int64_t>
FragmentLayoutAttr::getIndexOf(ArrayRef<int64_t> coords) const {
  return llvm::to_vector(evaluateAffineMap(getIndex(), coords));
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 TargetKind kind, StringRef chip,
                                 StringRef features) {
  switch (kind) {
  case TargetKind::CUDA: {
    StringRef digits = chip;
    if (!digits.consume_front("sm_") || digits.empty())
      return emitError() << "cuda chip must look like 'sm_80' or 'sm_90a', got '"
                         << chip << "'";
    digits.consume_back("a");
    unsigned version;
    if (digits.getAsInteger(10, version) || version < 50)
      return emitError() << "cuda chip must look like 'sm_80' or 'sm_90a', got '"
                         << chip << "'";
    return success();
  }
  case TargetKind::ROCm: {
    StringRef rest = chip;
    if (!rest.consume_front("gfx") || rest.empty() ||
        !llvm::all_of(rest, llvm::isHexDigit))
      return emitError() << "rocm chip must look like 'gfx942' or 'gfx1100', "
                            "got '"
                         << chip << "'";
    return success();
  }
  case TargetKind::CPU:
    // The CPU backend compiles for the machine the JIT runs on.
    if (chip != "host")
      return emitError() << "cpu chip must be 'host', got '" << chip << "'";
    return success();
  }
  llvm_unreachable("unknown target kind");
}

int64_t mlir::tile::getTileSizeInBytes(MemRefType type) {
  int64_t bits =
      type.getNumElements() * type.getElementType().getIntOrFloatBitWidth();
  return (bits + 7) / 8;
}

/// The most shared memory (LDS) one block may use on `target`, in bytes;
/// 0 when the chip is not known here (no check).
int64_t mlir::tile::getMaxSharedMemoryPerBlock(TargetAttr target) {
  if (!target)
    return 0;
  StringRef chip = target.getChip();
  if (target.getKind() == TargetKind::CUDA) {
    switch (target.getSmVersion()) {
    case 70:
    case 72:
      return 96 * 1024;
    case 75:
      return 64 * 1024;
    case 80:
    case 87:
      return 163 * 1024;
    case 86:
    case 89:
    case 120:
      return 99 * 1024;
    case 90:
    case 100:
      return 227 * 1024;
    default:
      return 0;
    }
  }
  if (target.getKind() == TargetKind::ROCm) {
    if (chip == "gfx950")
      return 160 * 1024;
    if (chip.starts_with("gfx9") || chip.starts_with("gfx10") ||
        chip.starts_with("gfx11") || chip.starts_with("gfx12"))
      return 64 * 1024;
  }
  return 0;
}

int64_t mlir::tile::getWarpSize(TargetKind kind, StringRef chip) {
  switch (kind) {
  case TargetKind::CUDA:
    return 32;
  case TargetKind::ROCm:
    // CDNA (gfx9xx) runs wave64; RDNA (gfx10 and later) wave32.
    return chip.size() == 6 && chip.starts_with("gfx9") ? 64 : 32;
  case TargetKind::CPU:
    return 1;
  }
  llvm_unreachable("unknown target kind");
}

int64_t mlir::tile::parseSmVersion(StringRef chip) {
  StringRef digits = chip;
  if (!digits.consume_front("sm_"))
    return 0;
  digits.consume_back("a");
  unsigned version = 0;
  if (digits.getAsInteger(10, version))
    return 0;
  return version;
}

int64_t TargetAttr::getWarpSize() const {
  return mlir::tile::getWarpSize(getKind(), getChip());
}

int64_t TargetAttr::getSmVersion() const {
  return getKind() == TargetKind::CUDA ? parseSmVersion(getChip()) : 0;
}
