//===- TileOps.cpp - Operations of the tile dialect ---------------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "TileLang/Support/CheckedSize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Memory-space helpers
//===----------------------------------------------------------------------===//

namespace {
/// Where a buffer operand lives: global memory or one of the tile spaces.
enum class Place { Global, Shared, Fragment, Local };
} // namespace

static StringRef placeName(Place place) {
  switch (place) {
  case Place::Global:
    return "global";
  case Place::Shared:
    return "shared";
  case Place::Fragment:
    return "fragment";
  case Place::Local:
    return "local";
  }
  llvm_unreachable("unknown place");
}

/// Classifies the memory space of `type`. Global buffers have no memory
/// space (or the integer space 0); anything that is neither global nor a
/// `#tile.mem` is rejected with a diagnostic naming `role`.
static FailureOr<Place> getPlace(Operation *op, MemRefType type,
                                 StringRef role) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return Place::Global;
  if (auto intSpace = dyn_cast<IntegerAttr>(space); intSpace &&
                                                    intSpace.getInt() == 0)
    return Place::Global;
  if (auto tileSpace = dyn_cast<MemorySpaceAttr>(space)) {
    switch (tileSpace.getValue()) {
    case MemorySpace::Shared:
      return Place::Shared;
    case MemorySpace::Fragment:
      return Place::Fragment;
    case MemorySpace::Local:
      return Place::Local;
    }
  }
  return op->emitOpError() << role << " has memory space " << space
                           << "; expected a global buffer or #tile.mem<...>";
}

static bool isOnChip(Place place) { return place != Place::Global; }

/// Verifies that `type` is an on-chip tile (shared, fragment or local).
static FailureOr<Place> getOnChipPlace(Operation *op, MemRefType type,
                                       StringRef role) {
  FailureOr<Place> place = getPlace(op, type, role);
  if (failed(place))
    return failure();
  if (!isOnChip(*place)) {
    op->emitOpError() << role
                      << " must be an on-chip tile (shared, fragment or "
                         "local), got a global buffer";
    return failure();
  }
  return place;
}

/// True when a copy may convert between the two element types: both floats
/// or both integers.
static bool areConvertible(Type a, Type b) {
  if (a == b)
    return true;
  return (isa<FloatType>(a) && isa<FloatType>(b)) ||
         (isa<IntegerType>(a) && isa<IntegerType>(b));
}

static int64_t product(ArrayRef<int64_t> values) {
  int64_t result = 1;
  for (int64_t v : values)
    result *= v;
  return result;
}

/// Parses `(` int (`,` int)* `)`.
static ParseResult parseIntList(OpAsmParser &parser,
                                SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(
      OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
        int64_t value;
        if (parser.parseInteger(value))
          return failure();
        values.push_back(value);
        return success();
      });
}

static void printIntList(OpAsmPrinter &p, ArrayRef<int64_t> values) {
  p << '(';
  llvm::interleaveComma(values, p);
  p << ')';
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &result,
                     ValueRange grid, ArrayRef<int64_t> threads,
                     ArrayRef<int64_t> cluster) {
  result.addOperands(grid);
  Properties &props = result.getOrAddProperties<Properties>();
  props.threads = builder.getDenseI64ArrayAttr(threads);
  if (!cluster.empty())
    props.cluster = builder.getDenseI64ArrayAttr(cluster);
  Region *body = result.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value v : grid)
    block->addArgument(builder.getIndexType(), v.getLoc());
  ensureTerminator(*body, builder, result.location);
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  Type indexType = builder.getIndexType();
  SmallVector<OpAsmParser::UnresolvedOperand> grid;
  SmallVector<int64_t> threads, cluster;
  if (parser.parseKeyword("grid") ||
      parser.parseOperandList(grid, OpAsmParser::Delimiter::Paren) ||
      parser.resolveOperands(grid, indexType, result.operands) ||
      parser.parseKeyword("threads") || parseIntList(parser, threads))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("cluster")) &&
      parseIntList(parser, cluster))
    return failure();

  Properties &props = result.getOrAddProperties<Properties>();
  props.threads = builder.getDenseI64ArrayAttr(threads);
  if (!cluster.empty())
    props.cluster = builder.getDenseI64ArrayAttr(cluster);

  SmallVector<OpAsmParser::Argument> ids;
  if (parser.parseArrow() ||
      parser.parseArgumentList(ids, OpAsmParser::Delimiter::Paren))
    return failure();
  for (OpAsmParser::Argument &id : ids)
    id.type = indexType;
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, ids))
    return failure();
  ensureTerminator(*body, builder, result.location);
  return success();
}

void KernelOp::print(OpAsmPrinter &p) {
  p << " grid(" << getGrid() << ") threads";
  printIntList(p, getThreads());
  if (std::optional<ArrayRef<int64_t>> cluster = getCluster()) {
    p << " cluster";
    printIntList(p, *cluster);
  }
  p << " -> (";
  llvm::interleaveComma(getBlockIds(), p,
                        [&](BlockArgument arg) { p.printOperand(arg); });
  p << ')';
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getThreadsAttrName(), getClusterAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  static const char *const names[] = {"bx", "by", "bz"};
  for (auto [i, arg] : llvm::enumerate(region.getArguments()))
    if (i < 3)
      setNameFn(arg, names[i]);
}

int64_t KernelOp::getNumThreads() { return product(getThreads()); }

int64_t KernelOp::getClusterSize() {
  // (The optional is held for the product: a range-for over
  // *getCluster() would read the ArrayRef of a destroyed temporary.)
  std::optional<ArrayRef<int64_t>> cluster = getCluster();
  return cluster ? product(*cluster) : 1;
}

LogicalResult KernelOp::verify() {
  if ((*this)->getParentOfType<KernelOp>())
    return emitOpError("a tile.kernel cannot be nested in another; launch "
                       "kernels one after the other");
  if (getGrid().empty() || getGrid().size() > 3)
    return emitOpError("grid must have 1 to 3 dimensions, got ")
           << getGrid().size();
  ArrayRef<int64_t> threads = getThreads();
  if (threads.empty() || threads.size() > 3)
    return emitOpError("threads must have 1 to 3 extents, got ")
           << threads.size();
  if (llvm::any_of(threads, [](int64_t t) { return t <= 0; }))
    return emitOpError("thread extents must be positive");
  if (llvm::any_of(threads, [](int64_t t) { return t > 1024; }) ||
      getNumThreads() > 1024)
    return emitOpError("a block has at most 1024 threads, got threads(")
           << llvm::interleaved(threads, ", ", "", "") << ")";
  if (std::optional<ArrayRef<int64_t>> cluster = getCluster()) {
    if (cluster->empty() || cluster->size() > 3)
      return emitOpError("cluster must have 1 to 3 extents, got ")
             << cluster->size();
    if (llvm::any_of(*cluster, [](int64_t c) { return c <= 0; }))
      return emitOpError("cluster extents must be positive");
    if (llvm::any_of(*cluster, [](int64_t c) { return c > 16; }) ||
        product(*cluster) > 16)
      return emitOpError("a cluster has at most 16 blocks, got cluster(")
             << llvm::interleaved(*cluster, ", ", "", "") << ")";
    // The grid is launched in whole clusters: a grid extent known here must
    // be a multiple of the cluster's (the driver rejects the launch
    // otherwise).
    for (auto [dim, extent] : llvm::enumerate(getGrid())) {
      APInt blocks;
      int64_t clusterExtent = dim < cluster->size() ? (*cluster)[dim] : 1;
      if (matchPattern(extent, m_ConstantInt(&blocks)) &&
          blocks.getSExtValue() % clusterExtent != 0)
        return emitOpError("grid dimension ")
               << dim << " (" << blocks.getSExtValue()
               << " blocks) is not a multiple of the cluster's ("
               << clusterExtent << ")";
    }
  }
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getGrid().size())
    return emitOpError("body must have one block index argument per grid "
                       "dimension (")
           << getGrid().size() << "), got " << body.getNumArguments();
  for (BlockArgument arg : body.getArguments())
    if (!arg.getType().isIndex())
      return emitOpError("block index arguments must be of index type");
  return success();
}

//===----------------------------------------------------------------------===//
// Alloc ops
//===----------------------------------------------------------------------===//

/// Verifies that `layout` suits a tile of `type` in `space`.
static LogicalResult verifyLayoutFor(Operation *op, MemRefType type,
                                     Attribute layout) {
  std::optional<MemorySpace> space = getMemorySpace(type);
  if (space == MemorySpace::Shared) {
    auto swizzle = dyn_cast<SwizzleAttr>(layout);
    if (!swizzle)
      return op->emitOpError("layout of a shared tile must be a "
                             "#tile.swizzle, got ")
             << layout;
    // A blocked layout stores groups of 8 rows of whole blocks.
    if (swizzle.getBlocked() && type.hasStaticShape() && type.getRank() > 0) {
      int64_t rowLength = type.getShape().back();
      int64_t rows = type.getNumElements() / std::max<int64_t>(rowLength, 1);
      if (rows % 8 || rowLength % swizzle.getBlockWidth())
        return op->emitOpError("a blocked swizzle needs a multiple of 8 rows "
                               "and of ")
               << swizzle.getBlockWidth() << " columns, got " << rows << "x"
               << rowLength;
    }
    return success();
  }
  if (space == MemorySpace::Fragment) {
    auto fragment = dyn_cast<FragmentLayoutAttr>(layout);
    if (!fragment)
      return op->emitOpError("layout of a fragment must be a "
                             "#tile.fragment, got ")
             << layout;
    if (fragment.getShape() != type.getShape())
      return op->emitOpError("fragment layout shape [")
             << llvm::interleaved(fragment.getShape())
             << "] does not match the tile shape ["
             << llvm::interleaved(type.getShape()) << "]";
    if (auto kernel = op->getParentOfType<KernelOp>();
        kernel && fragment.getThreads() != kernel.getNumThreads() &&
        (op->getNumResults() != 1 ||
         fragment.getThreads() != getFragmentThreads(op->getResult(0))))
      return op->emitOpError("fragment layout is for ")
             << fragment.getThreads() << " threads but the kernel has "
             << kernel.getNumThreads()
             << " (and its users are not all in one range of that many)";
    return success();
  }
  return op->emitOpError("only shared tiles and fragments take a layout");
}

static LogicalResult verifyAlloc(Operation *op, MemRefType type,
                                 MemorySpace space, Attribute layout) {
  if (getMemorySpace(type) != space)
    return op->emitOpError("result must be in #tile.mem<")
           << stringifyMemorySpace(space) << ">, got " << type;
  if (!type.getLayout().isIdentity())
    return op->emitOpError("result must have the identity layout; tile "
                           "layouts are given by the 'layout' attribute");
  // Every pass and lowering divides by, or iterates over, a tile's
  // extents: an on-chip tile has at least one dimension, none of them 0
  // (a scalar is a [1] tile, as T.alloc_var makes).
  if (type.getRank() == 0)
    return op->emitOpError("an on-chip tile has at least one dimension; "
                           "a single value is a tile of shape [1], got ")
           << type;
  if (llvm::is_contained(type.getShape(), 0))
    return op->emitOpError("an on-chip tile has no zero-size dimension, got ")
           << type;
  // Sizes are 64-bit everywhere (shared-memory placement adds them up): a
  // tile holds at most 4 GiB, far beyond any on-chip memory, so no sum of
  // tiles overflows either.
  Type element = type.getElementType();
  int64_t elementBytes =
      element.isIntOrFloat() ? (element.getIntOrFloatBitWidth() + 7) / 8 : 8;
  std::optional<int64_t> bytes =
      getCheckedByteSize(type.getShape(), elementBytes);
  if (!bytes || *bytes > (int64_t(1) << 32))
    return op->emitOpError("an on-chip tile holds at most 4 GiB; ")
           << type << " needs "
           << (bytes ? std::to_string(*bytes) + " bytes"
                     : std::string("more than 2^63 bytes"));
  if (layout)
    return verifyLayoutFor(op, type, layout);
  return success();
}

//===----------------------------------------------------------------------===//
// MakeTensorOp
//===----------------------------------------------------------------------===//

LogicalResult AssumeOp::verify() {
  auto func = dyn_cast_or_null<func::FuncOp>((*this)->getParentOp());
  if (!func)
    return emitOpError("stands in the body of a function, outside kernels "
                       "and loops: it returns from the function when its "
                       "condition is false");
  if (func.getNumResults() != 0)
    return emitOpError("returns early from its function, which must have no "
                       "results; '")
           << func.getName() << "' has " << func.getNumResults();
  return success();
}

LogicalResult MakeTensorOp::verify() {
  auto type = cast<MemRefType>(getResult().getType());
  if (type.getMemorySpace())
    return emitOpError("makes a global tensor (the default memory space), "
                       "got ")
           << type;
  if (!type.getLayout().isIdentity())
    return emitOpError("makes a row-major tensor (the identity layout), got ")
           << type;
  if (static_cast<int64_t>(getSizes().size()) != type.getNumDynamicDims())
    return emitOpError("needs one size per dynamic dimension of ")
           << type << " (" << type.getNumDynamicDims() << "), got "
           << getSizes().size();
  return success();
}

//===----------------------------------------------------------------------===//
// SetMaxRegistersOp
//===----------------------------------------------------------------------===//

LogicalResult SetMaxRegistersOp::verify() {
  // setmaxnreg's count is in units of 8 registers.
  if (getCount() % 8 != 0)
    return emitOpError("register count must be a multiple of 8, got ")
           << getCount();
  return success();
}

//===----------------------------------------------------------------------===//
// ViewOp
//===----------------------------------------------------------------------===//

Value ViewOp::getViewSource() { return getSource(); }

LogicalResult ViewOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto result = cast<MemRefType>(getResult().getType());
  for (MemRefType type : {source, result}) {
    // On-chip tiles other than shared ones have no bytes to view; after
    // convert-tile-to-gpu a shared tile is in the target's workgroup space.
    auto space = dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace());
    if ((space && space.getValue() != MemorySpace::Shared) ||
        !type.getLayout().isIdentity() || !type.hasStaticShape())
      return emitOpError("views a statically shaped row-major global "
                         "tensor or shared tile as another, got ")
             << type;
  }
  if (source.getMemorySpace() != result.getMemorySpace())
    return emitOpError("keeps the memory space: ")
           << source << " viewed as " << result;
  auto bytes = [](MemRefType type) -> std::optional<int64_t> {
    int64_t bits = type.getElementTypeBitWidth();
    if (bits % 8)
      return std::nullopt;
    return getCheckedByteSize(type.getShape(), bits / 8);
  };
  std::optional<int64_t> from = bytes(source), to = bytes(result);
  if (!from || !to)
    return emitOpError("views whole bytes: element types of 8 bits or more");
  if (*from != *to)
    return emitOpError("keeps the bytes: ")
           << source << " holds " << *from << ", " << result << " "
           << *to;
  return success();
}

LogicalResult AllocSharedOp::verify() {
  return verifyAlloc(*this, getType(), MemorySpace::Shared,
                     getLayoutAttr());
}

LogicalResult AllocFragmentOp::verify() {
  return verifyAlloc(*this, getType(), MemorySpace::Fragment,
                     getLayoutAttr());
}

LogicalResult AllocLocalOp::verify() {
  return verifyAlloc(*this, getType(), MemorySpace::Local, getLayoutAttr());
}

//===----------------------------------------------------------------------===//
// Tile placement shared by tile.copy and tile.atomic_add
//===----------------------------------------------------------------------===//

/// Checks a tile of shape `extent` placed at `offsets` in a buffer of type
/// `buffer`: one offset per dimension of the buffer; with `sizes` (a
/// region), one entry per dimension whose nonzero extents, in order, are the
/// tile's shape; without (a head address), a buffer rank at least the tile
/// rank; and, for an on-chip buffer, constant offsets that keep the tile in
/// bounds.
static LogicalResult verifyPlacement(Operation *op, StringRef role,
                                     MemRefType buffer, Place place,
                                     ValueRange offsets,
                                     DenseI64ArrayAttr sizes,
                                     ArrayRef<int64_t> extent) {
  int64_t rank = buffer.getRank();
  if (static_cast<int64_t>(offsets.size()) != rank)
    return op->emitOpError()
           << role << " has rank " << rank << " but " << offsets.size()
           << " offsets were given";
  SmallVector<int64_t> along(rank, 1);
  if (sizes) {
    if (static_cast<int64_t>(sizes.size()) != rank)
      return op->emitOpError()
             << "the " << role << " region has " << sizes.size()
             << " extents but the " << role << " has rank " << rank;
    SmallVector<int64_t> tileExtents;
    for (auto [d, size] : llvm::enumerate(sizes.asArrayRef())) {
      if (size < 0)
        return op->emitOpError()
               << "the " << role << " region has a negative extent " << size
               << " along dimension " << d;
      if (size > 0) {
        tileExtents.push_back(size);
        along[d] = size;
      }
    }
    if (tileExtents.empty())
      return op->emitOpError()
             << "the " << role
             << " region indexes every dimension away; a region has at least "
                "one tile dimension (an offset with `: extent`)";
    // The tile's leading unit dimensions may have no dimension in the
    // region (a 1x64 tile from A[%i : 64]), as in the head-address form.
    ArrayRef<int64_t> matched = extent;
    while (matched.size() > tileExtents.size() && matched.front() == 1)
      matched = matched.drop_front();
    if (ArrayRef<int64_t>(tileExtents) != matched)
      return op->emitOpError()
             << "the " << role << " region's tile dimensions ["
             << llvm::interleaved(tileExtents) << "] do not match the tile ["
             << llvm::interleaved(extent) << "]";
  } else {
    if (rank < static_cast<int64_t>(extent.size()))
      return op->emitOpError()
             << "the tile has rank " << extent.size() << " but the " << role
             << " has rank " << rank
             << "; the buffer with offsets must have at least the tile's rank";
    int64_t lead = rank - extent.size();
    for (int64_t d = lead; d < rank; ++d)
      along[d] = extent[d - lead];
  }
  if (!isOnChip(place))
    return success();
  for (int64_t d = 0; d < rank; ++d) {
    APInt value;
    if (!matchPattern(offsets[d], m_ConstantInt(&value)) ||
        ShapedType::isDynamic(buffer.getDimSize(d)))
      continue;
    int64_t offset = value.getSExtValue();
    if (offset < 0 || offset + along[d] > buffer.getDimSize(d))
      return op->emitOpError()
             << "the tile does not fit in the on-chip " << role
             << " along dimension " << d << ": offset " << offset
             << " + extent " << along[d] << " > " << buffer.getDimSize(d);
  }
  return success();
}

/// Checks that `other`, a buffer without offsets, can hold a tile of shape
/// `extent`: an on-chip (or statically shaped) buffer must have the shape
/// of the tile, once leading unit dimensions are dropped.
static LogicalResult verifyWholeBuffer(Operation *op, StringRef role,
                                       MemRefType other,
                                       ArrayRef<int64_t> extent) {
  ArrayRef<int64_t> shape = other.getShape();
  while (shape.size() > extent.size() && shape.front() == 1)
    shape = shape.drop_front();
  while (extent.size() > shape.size() && extent.front() == 1)
    extent = extent.drop_front();
  bool matches = shape.size() == extent.size();
  for (auto [a, b] : llvm::zip(shape, extent))
    matches &= ShapedType::isDynamic(a) || a == b;
  if (!matches)
    return op->emitOpError()
           << "shape mismatch: the tile is [" << llvm::interleaved(extent)
           << "] but the " << role << " is [" << llvm::interleaved(shape)
           << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// Tile regions
//===----------------------------------------------------------------------===//

TileRegion mlir::tile::getTileRegion(Value buffer, ValueRange offsets,
                                     DenseI64ArrayAttr sizes,
                                     int64_t tileRank) {
  TileRegion region{buffer, llvm::to_vector(offsets), {}};
  if (sizes) {
    // Leading unit dimensions of the tile that the region does not have.
    int64_t dims = llvm::count_if(sizes.asArrayRef(),
                                  [](int64_t size) { return size != 0; });
    region.tileDims.assign(std::max<int64_t>(tileRank - dims, 0), -1);
    for (auto [d, size] : llvm::enumerate(sizes.asArrayRef()))
      if (size != 0)
        region.tileDims.push_back(d);
    return region;
  }
  int64_t lead = region.getBufferRank() - tileRank;
  for (int64_t t = 0; t < tileRank; ++t)
    region.tileDims.push_back(t + lead >= 0 ? t + lead : -1);
  return region;
}

bool TileRegion::isTrailing() const {
  int64_t lead = getBufferRank() - static_cast<int64_t>(tileDims.size());
  for (auto [t, d] : llvm::enumerate(tileDims))
    if (d >= 0 && d != static_cast<int64_t>(t) + lead)
      return false;
  return true;
}

/// `[%o0, %o1 : 64, ...]` (optional): the offsets, and `: extent` after the
/// offset of each tile dimension of a region.
static ParseResult
parseTileRegion(OpAsmParser &parser,
                SmallVectorImpl<OpAsmParser::UnresolvedOperand> &offsets,
                DenseI64ArrayAttr &sizes) {
  if (failed(parser.parseOptionalLSquare()))
    return success();
  SmallVector<int64_t> extents;
  bool region = false;
  auto parseDim = [&]() -> ParseResult {
    if (parser.parseOperand(offsets.emplace_back()))
      return failure();
    int64_t extent = 0;
    if (succeeded(parser.parseOptionalColon())) {
      SMLoc at = parser.getCurrentLocation();
      if (parser.parseInteger(extent))
        return failure();
      if (extent < 1)
        return parser.emitError(at, "a tile dimension has an extent of at "
                                    "least 1, got ")
               << extent;
      region = true;
    }
    extents.push_back(extent);
    return success();
  };
  if (parser.parseCommaSeparatedList(parseDim) || parser.parseRSquare())
    return failure();
  if (region)
    sizes = parser.getBuilder().getDenseI64ArrayAttr(extents);
  return success();
}

static void printTileRegion(OpAsmPrinter &p, Operation *, OperandRange offsets,
                            DenseI64ArrayAttr sizes) {
  if (offsets.empty())
    return;
  p << '[';
  for (auto [d, offset] : llvm::enumerate(offsets)) {
    if (d)
      p << ", ";
    p << offset;
    if (sizes && d < static_cast<size_t>(sizes.size()) && sizes[d] != 0)
      p << " : " << sizes[d];
  }
  p << ']';
}

/// A region that is the head-address form (its tile dimensions are the
/// buffer's trailing ones, in order, one per tile dimension) as that form:
/// true when `sizes` was dropped.
static bool dropTrailingRegion(Value buffer, ValueRange offsets,
                               DenseI64ArrayAttr sizes, int64_t tileRank) {
  if (!sizes)
    return false;
  TileRegion region = getTileRegion(buffer, offsets, sizes, tileRank);
  return region.getBufferRank() >= tileRank &&
         llvm::all_of(region.tileDims, [](int64_t d) { return d >= 0; }) &&
         region.isTrailing();
}

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> CopyOp::getTileShape() {
  MemRefType srcType = getSrc().getType(), dstType = getDst().getType();
  if (!getSrcOffsets().empty())
    return llvm::to_vector(dstType.getShape());
  if (!getDstOffsets().empty())
    return llvm::to_vector(srcType.getShape());
  // No offsets: the on-chip side gives the extent (the source when both are).
  if (getMemorySpace(srcType) || !getMemorySpace(dstType))
    return llvm::to_vector(srcType.getShape());
  return llvm::to_vector(dstType.getShape());
}

TileRegion CopyOp::getSrcRegion() {
  return getTileRegion(getSrc(), getSrcOffsets(), getSrcSizesAttr(),
                       getTileShape().size());
}

TileRegion CopyOp::getDstRegion() {
  return getTileRegion(getDst(), getDstOffsets(), getDstSizesAttr(),
                       getTileShape().size());
}

/// Verifies an array of arrival barriers: a shared memref<N x i64>, and
/// `index` (when constant) inside it.
static LogicalResult verifyBarriers(Operation *op, MemRefType type,
                                    Value index) {
  FailureOr<Place> place = getPlace(op, type, "barrier array");
  if (failed(place))
    return failure();
  if (*place != Place::Shared || type.getRank() != 1 ||
      !type.getElementType().isInteger(64) || !type.hasStaticShape())
    return op->emitOpError("barriers live in a shared memref<N x i64>, got ")
           << type;
  if (std::optional<int64_t> i = index ? getConstantIntValue(index)
                                       : std::nullopt;
      i && (*i < 0 || *i >= type.getDimSize(0)))
    return op->emitOpError("barrier index ")
           << *i << " is outside the array of " << type.getDimSize(0);
  return success();
}

LogicalResult CopyOp::verify() {
  MemRefType srcType = getSrc().getType(), dstType = getDst().getType();
  FailureOr<Place> srcPlace = getPlace(*this, srcType, "source");
  FailureOr<Place> dstPlace = getPlace(*this, dstType, "destination");
  if (failed(srcPlace) || failed(dstPlace))
    return failure();
  if (!isOnChip(*srcPlace) && !isOnChip(*dstPlace))
    return emitOpError("cannot copy between two global buffers; stage the "
                       "tile through shared memory or a fragment");
  if (!areConvertible(srcType.getElementType(), dstType.getElementType()))
    return emitOpError("cannot convert element type ")
           << srcType.getElementType() << " to " << dstType.getElementType()
           << "; a copy converts between floats or between integers only";
  bool srcHasOffsets = !getSrcOffsets().empty();
  bool dstHasOffsets = !getDstOffsets().empty();
  if (srcHasOffsets && dstHasOffsets)
    return emitOpError("offsets may be given on one side only; the tile "
                       "extent is the shape of the other side");
  if ((getSrcSizes() && !srcHasOffsets) || (getDstSizes() && !dstHasOffsets))
    return emitOpError("region extents need the region's offsets");

  // The side that gives the extent must have a static shape.
  bool extentFromSrc =
      dstHasOffsets ||
      (!srcHasOffsets && (isOnChip(*srcPlace) || !isOnChip(*dstPlace)));
  MemRefType extentType = extentFromSrc ? srcType : dstType;
  if (!extentType.hasStaticShape())
    return emitOpError("the tile extent comes from the ")
           << (extentFromSrc ? "source" : "destination")
           << ", which must have a static shape, got " << extentType;
  if (getTxOnly() && !getBarriers())
    return emitOpError("a tx_only copy counts its bytes on a barrier: it "
                       "needs arrive(...)");
  if (getBarriers()) {
    if (!getAsync())
      return emitOpError("a copy that arrives on a barrier must be async");
    if (failed(verifyBarriers(*this, getBarriers().getType(),
                              getBarrierIndex())))
      return failure();
  }
  if (getAsync()) {
    if (*srcPlace != Place::Global || *dstPlace != Place::Shared)
      return emitOpError("an async copy goes from global to shared memory");
    if (srcType.getElementType() != dstType.getElementType())
      return emitOpError("an async copy cannot convert ")
             << srcType.getElementType() << " to "
             << dstType.getElementType();
  }
  if (CopyEngineAttr engine = getEngineAttr()) {
    bool sameType = srcType.getElementType() == dstType.getElementType();
    bool intoSharedTile = *srcPlace == Place::Global && srcHasOffsets &&
                          *dstPlace == Place::Shared && !dstHasOffsets &&
                          sameType;
    bool barriers = static_cast<bool>(getBarriers());
    switch (engine.getKind()) {
    case CopyEngineKind::Elements:
    case CopyEngineKind::Vector:
      break;
    case CopyEngineKind::CpAsync:
      if (!getAsync() || barriers || !intoSharedTile)
        return emitOpError("engine ")
               << engine
               << " moves an async copy without barriers of a global "
                  "region into a whole shared tile of its element type";
      break;
    case CopyEngineKind::BufferLoad:
      if (barriers || !intoSharedTile)
        return emitOpError("engine ")
               << engine
               << " moves a copy without barriers of a global region into "
                  "a whole shared tile of its element type";
      break;
    case CopyEngineKind::TMA:
      if (barriers ? !intoSharedTile
                   : (getAsync() || *srcPlace != Place::Shared ||
                      srcHasOffsets || *dstPlace != Place::Global ||
                      !dstHasOffsets || !sameType))
        return emitOpError("engine ")
               << engine
               << " moves a copy that arrives on a barrier from a global "
                  "region into a whole shared tile, or a synchronous one "
                  "of a whole shared tile into a global region, of one "
                  "element type";
      break;
    }
  }
  if (getTensorMap() && !hasEngine(CopyEngineKind::TMA))
    return emitOpError("has a tensor map but not the ")
           << CopyEngineAttr::get(getContext(), CopyEngineKind::TMA)
           << " engine";
  SmallVector<int64_t> extent = getTileShape();

  if (srcHasOffsets)
    return verifyPlacement(*this, "source", srcType, *srcPlace,
                           getSrcOffsets(), getSrcSizesAttr(), extent);
  if (dstHasOffsets)
    return verifyPlacement(*this, "destination", dstType, *dstPlace,
                           getDstOffsets(), getDstSizesAttr(), extent);
  return extentFromSrc
             ? verifyWholeBuffer(*this, "destination", dstType, extent)
             : verifyWholeBuffer(*this, "source", srcType, extent);
}

void CopyOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  // A copy of a whole buffer onto itself does nothing.
  results.add(+[](CopyOp op, PatternRewriter &rewriter) -> LogicalResult {
    if (op.getSrc() != op.getDst() || !op.getSrcOffsets().empty() ||
        !op.getDstOffsets().empty())
      return failure();
    rewriter.eraseOp(op);
    return success();
  });
  // A region along the trailing dimensions is the head-address form.
  results.add(+[](CopyOp op, PatternRewriter &rewriter) -> LogicalResult {
    int64_t tileRank = op.getTileShape().size();
    bool src = dropTrailingRegion(op.getSrc(), op.getSrcOffsets(),
                                  op.getSrcSizesAttr(), tileRank);
    bool dst = dropTrailingRegion(op.getDst(), op.getDstOffsets(),
                                  op.getDstSizesAttr(), tileRank);
    if (!src && !dst)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      if (src)
        op.removeSrcSizesAttr();
      if (dst)
        op.removeDstSizesAttr();
    });
    return success();
  });
  // A side that is a memref.cast of a more static buffer (a specialized
  // argument) reads the buffer itself, so its static shape and strides
  // reach the copy's lowering (and the kernel, once outlined).
  results.add(+[](CopyOp op, PatternRewriter &rewriter) -> LogicalResult {
    bool changed = false;
    for (OpOperand *side : {&op.getSrcMutable(), &op.getDstMutable()}) {
      auto cast = side->get().getDefiningOp<memref::CastOp>();
      if (!cast || !memref::CastOp::canFoldIntoConsumerOp(cast))
        continue;
      rewriter.modifyOpInPlace(op, [&] { side->set(cast.getSource()); });
      changed = true;
    }
    return success(changed);
  });
}

//===----------------------------------------------------------------------===//
// BarrierInitOp / BarrierWaitOp / BarrierArriveOp
//===----------------------------------------------------------------------===//

LogicalResult BarrierInitOp::verify() {
  return verifyBarriers(*this, getBarriers().getType(), Value());
}

LogicalResult BarrierArriveOp::verify() {
  if (getAsyncCopies() && !getPerThread())
    return emitOpError("'async_copies' counts each thread's own copies: it "
                       "needs 'per_thread'");
  return verifyBarriers(*this, getBarriers().getType(), getIndex());
}

//===----------------------------------------------------------------------===//
// AsyncCopyElementsOp
//===----------------------------------------------------------------------===//

LogicalResult AsyncCopyElementsOp::verify() {
  auto src = cast<MemRefType>(getSrc().getType());
  auto dst = cast<MemRefType>(getDst().getType());
  if (!isGlobalBuffer(getSrc()))
    return emitOpError("copies from a global buffer, got ") << src;
  if (!isInSpace(dst, MemorySpace::Shared))
    return emitOpError("copies into a shared tile, got ") << dst;
  if (src.getElementType() != dst.getElementType())
    return emitOpError("moves bytes unchanged: the element types differ (")
           << src.getElementType() << " and " << dst.getElementType() << ")";
  if (getSrcIndices().size() != static_cast<size_t>(src.getRank()) ||
      getDstIndices().size() != static_cast<size_t>(dst.getRank()))
    return emitOpError("needs one index per dimension of each side (")
           << src.getRank() << " and " << dst.getRank() << "), got "
           << getSrcIndices().size() << " and " << getDstIndices().size();
  if (src.getRank() == 0 || dst.getRank() == 0)
    return emitOpError("copies along the last dimension: neither side may be "
                       "of rank 0");
  unsigned bits = src.getElementTypeBitWidth();
  int64_t bytes = getCount() * bits / 8;
  if (bits % 8 || (bytes != 4 && bytes != 8 && bytes != 16))
    return emitOpError("copies 4, 8 or 16 bytes; ")
           << getCount() << " elements of " << src.getElementType()
           << " are " << getCount() * bits << " bits";
  int64_t last = dst.getShape().back();
  if (!ShapedType::isDynamic(last) && getCount() > last)
    return emitOpError("copies ") << getCount()
           << " elements, more than the tile's last dimension (" << last
           << ")";
  return success();
}

LogicalResult ClusterBarrierArriveOp::verify() {
  if (failed(verifyBarriers(*this, getBarriers().getType(), getIndex())))
    return failure();
  if (std::optional<int64_t> cta = getConstantIntValue(getCta()); cta) {
    auto kernel = (*this)->getParentOfType<KernelOp>();
    int64_t size = kernel ? kernel.getClusterSize() : 1;
    if (*cta < 0 || *cta >= size)
      return emitOpError("arrives on the barrier of block ")
             << *cta << " of a cluster of " << size << " block"
             << (size == 1 ? "" : "s");
  }
  return success();
}

LogicalResult BarrierWaitOp::verify() {
  if (failed(verifyBarriers(*this, getBarriers().getType(), getIndex())))
    return failure();
  if (std::optional<int64_t> parity = getConstantIntValue(getParity());
      parity && *parity != 0 && *parity != 1)
    return emitOpError("a phase parity is 0 or 1, got ") << *parity;
  return success();
}

//===----------------------------------------------------------------------===//
// NextTileOp / FinishTilesOp
//===----------------------------------------------------------------------===//

/// The counters of a dynamic tile schedule: a global memref<2xi32>.
static LogicalResult verifyTileCounters(Operation *op, MemRefType type) {
  FailureOr<Place> place = getPlace(op, type, "counters");
  if (failed(place))
    return failure();
  if (*place != Place::Global || !type.hasStaticShape() ||
      type.getDimSize(0) != 2)
    return op->emitOpError("the tile counters are a global memref<2xi32>, got ")
           << type;
  return success();
}

/// Whether `op` runs on a producer warpgroup: inside a tile.producer, or,
/// once a warp specialization split the kernel, inside the producer's
/// thread range (a tile.thread_range that does not start at thread 0).
static bool isInProducerSide(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent && !isa<KernelOp>(parent);
       parent = parent->getParentOp()) {
    if (isa<ProducerOp>(parent))
      return true;
    if (auto range = parent->getAttrOfType<DenseI64ArrayAttr>(
            TileDialect::getThreadRangeAttrName());
        range && !range.empty() && range[0] != 0)
      return true;
  }
  return false;
}

LogicalResult NextTileOp::verify() {
  if (failed(verifyTileCounters(*this, getCounters().getType())))
    return failure();
  MemRefType slot = getSlot().getType();
  FailureOr<Place> place = getPlace(*this, slot, "slot");
  if (failed(place))
    return failure();
  if (*place != Place::Shared || slot.getRank() != 1 ||
      !slot.hasStaticShape() || slot.getDimSize(0) != 1 ||
      !slot.getElementType().isInteger(32))
    return emitOpError("the slot is a shared memref<1xi32>, got ") << slot;
  bool handoff = static_cast<bool>(getFull());
  if (handoff != static_cast<bool>(getCount()))
    return emitOpError("takes a count exactly when it takes barriers");
  bool inProducer = isInProducerSide(*this);
  if (!handoff) {
    if (getReceive())
      return emitOpError("receives the index through barriers(%full, "
                         "%released); none given");
    if (inProducer)
      return emitOpError("in a tile.producer hands the index to the "
                         "consumers: it needs barriers(%full, %released) "
                         "and a count");
    return success();
  }
  for (Value barrier : {getFull(), getReleased()}) {
    auto type = cast<MemRefType>(barrier.getType());
    if (failed(verifyBarriers(*this, type, Value())))
      return failure();
    if (type.getDimSize(0) != 1)
      return emitOpError("hands the index over on single barriers "
                         "(memref<1xi64>), got ")
             << type;
  }
  if (getReceive() && inProducer)
    return emitOpError("receives the index among the consumers, not in the "
                       "tile.producer that takes it");
  if (!getReceive() && !inProducer)
    return emitOpError("with barriers and no `receive`, takes the index "
                       "for the consumers: it belongs in a tile.producer");
  return success();
}

LogicalResult FinishTilesOp::verify() {
  return verifyTileCounters(*this, getCounters().getType());
}

//===----------------------------------------------------------------------===//
// ProducerOp
//===----------------------------------------------------------------------===//

bool ProducerOp::mayPrecede(Operation *op) {
  return isa<TileAllocationOpInterface, AnnotateLayoutOp, BarrierInitOp,
             UseSwizzleOp>(op) ||
         isPure(op);
}

LogicalResult ProducerOp::verify() {
  auto kernel = dyn_cast<KernelOp>((*this)->getParentOp());
  if (!kernel)
    return emitOpError("belongs directly to a tile.kernel body");
  ArrayRef<int64_t> threads = kernel.getThreads();
  if (threads.size() != 1 || threads[0] % kThreads != 0)
    return emitOpError("needs a kernel with one-dimensional threads in "
                       "whole warpgroups (multiples of ")
           << kThreads << "), got " << kernel.getNumThreads();
  if (threads[0] + kThreads > 1024)
    return emitOpError("adds its warpgroup to the kernel's ")
           << threads[0] << " threads: a block has at most 1024, so the "
           << "kernel may have at most " << 1024 - kThreads;
  for (Operation *prev = (*this)->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    if (isa<ProducerOp>(prev))
      return emitOpError("is the second of its kernel: one producer per "
                         "kernel");
    if (mayPrecede(prev))
      continue;
    return emitOpError("may follow only allocations, layout annotations, "
                       "barrier inits, block rasterization and "
                       "side-effect-free ops; '")
           << prev->getName() << "' needs threads to run it";
  }
  for (Operation *next = (*this)->getNextNode(); next;
       next = next->getNextNode())
    if (isa<ProducerOp>(next))
      return emitOpError("is followed by another: one producer per kernel");
  return success();
}

//===----------------------------------------------------------------------===//
// TakeTurnsOp
//===----------------------------------------------------------------------===//

LogicalResult TakeTurnsOp::verify() {
  if (isInProducerSide(*this))
    return emitOpError("is for the kernel's warpgroups, not a producer's");
  auto kernel = (*this)->getParentOfType<KernelOp>();
  int64_t threads = kernel.getNumThreads();
  if (kernel.getThreads().size() != 1 || threads % ProducerOp::kThreads ||
      threads / ProducerOp::kThreads < 2)
    return emitOpError("needs one-dimensional threads in two or more "
                       "warpgroups, got ")
           << threads;
  int64_t count = 0;
  kernel.walk([&](TakeTurnsOp) { ++count; });
  if (count > 1)
    return emitOpError("is one of ")
           << count << " in its kernel: the turns go around one op";
  for (Operation &op : getBody().front().without_terminator())
    if (!isa<GemmOp>(op) && !isPure(&op))
      return emitOpError("may hold only gemms and side-effect-free ops (a "
                         "block barrier would never be reached); '")
             << op.getName() << "' is neither";
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

int64_t GemmOp::getM() {
  ArrayRef<int64_t> shape = getA().getType().getShape();
  return getTransposeA() ? shape[1] : shape[0];
}

int64_t GemmOp::getK() {
  ArrayRef<int64_t> shape = getA().getType().getShape();
  return getTransposeA() ? shape[0] : shape[1];
}

int64_t GemmOp::getN() {
  ArrayRef<int64_t> shape = getB().getType().getShape();
  return getTransposeB() ? shape[0] : shape[1];
}

static bool isF8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// True when the tensor-core and SIMT paths support A/B of `ab` types
/// accumulating into `c`.
static bool isSupportedGemmTypes(Type a, Type b, Type c) {
  if (isF8(a) && isF8(b))
    return c.isF32();
  if (a != b)
    return false;
  if (a.isF16())
    return c.isF16() || c.isF32();
  if (a.isBF16() || a.isF32())
    return c.isF32();
  if (a.isF64())
    return c.isF64();
  if (a.isInteger(8))
    return c.isInteger(32);
  return false;
}

LogicalResult GemmOp::verify() {
  MemRefType aType = getA().getType(), bType = getB().getType(),
             cType = getC().getType();
  FailureOr<Place> aPlace = getPlace(*this, aType, "A");
  FailureOr<Place> bPlace = getPlace(*this, bType, "B");
  FailureOr<Place> cPlace = getPlace(*this, cType, "C");
  if (failed(aPlace) || failed(bPlace) || failed(cPlace))
    return failure();
  if (*aPlace != Place::Shared && *aPlace != Place::Fragment)
    return emitOpError("A must be in shared memory or a fragment, got ")
           << placeName(*aPlace) << " memory";
  if (*bPlace != Place::Shared)
    return emitOpError("B must be in shared memory, got ")
           << placeName(*bPlace) << " memory";
  if (*cPlace != Place::Fragment)
    return emitOpError("C (the accumulator) must be a fragment, got ")
           << placeName(*cPlace) << " memory";
  if (getClearAccum() && getClearIf())
    return emitOpError("takes clear_accum or clear_if, not both");
  if (aType.getRank() != 2 || bType.getRank() != 2 || cType.getRank() != 2)
    return emitOpError("A, B and C must be 2-D tiles");

  int64_t m = getM(), n = getN(), k = getK();
  int64_t kB = getTransposeB() ? bType.getDimSize(1) : bType.getDimSize(0);
  if (k != kB)
    return emitOpError("reduction dimensions disagree: A")
           << (getTransposeA() ? "^T" : "") << " is " << m << "x" << k
           << " but B" << (getTransposeB() ? "^T" : "") << " is " << kB
           << "x" << n;
  if (cType.getDimSize(0) != m || cType.getDimSize(1) != n)
    return emitOpError("C must be ")
           << m << "x" << n << " to match A and B, got "
           << cType.getDimSize(0) << "x" << cType.getDimSize(1);

  Type a = aType.getElementType(), b = bType.getElementType(),
       c = cType.getElementType();
  if (!isSupportedGemmTypes(a, b, c))
    return emitOpError("unsupported element types ")
           << a << " x " << b << " -> " << c
           << "; supported: f16 -> f16|f32, bf16 -> f32, f32 -> f32, "
              "f64 -> f64, i8 -> i32, f8E4M3FN|f8E5M2 -> f32";

  if (GemmInstructionAttr inst = getInstructionAttr();
      inst && inst.getKind() != GemmInstructionKind::SIMT) {
    StringRef name = stringifyGemmInstructionKind(inst.getKind());
    bool wgmma = inst.getKind() == GemmInstructionKind::Wgmma;
    int64_t rows = inst.getM() * inst.getBlocks();
    if (m % rows || n % inst.getN() || k % inst.getK())
      return emitOpError("a ")
             << m << "x" << n << "x" << k << " gemm does not split into "
             << inst
             << (wgmma ? " (one wgmma covers all N columns, or N / its "
                         "column groups of warpgroups)"
                       : "");
    if (wgmma && inst.getRegisterA() != (*aPlace == Place::Fragment))
      return emitOpError("wgmma reads A from ")
             << (inst.getRegisterA() ? "registers (register_a)"
                                     : "shared memory")
             << " but A is a " << placeName(*aPlace) << " tile";
    if (inst.isTensorCore() || inst.isMatrixCore()) {
      int64_t bits = a.getIntOrFloatBitWidth();
      if ((bits == 8 && inst.getK() != 32 &&
           inst.getKind() == GemmInstructionKind::MmaSync) ||
          (bits == 16 && inst.getK() != 16))
        return emitOpError("")
               << name << " with k = " << inst.getK() << " does not take "
               << a << " operands";
    }
  }
  if (auto kernel = (*this)->getParentOfType<KernelOp>()) {
    TargetAttr target = getTargetAttr(*this);
    int64_t warp = target && target.getKind() != TargetKind::CPU
                       ? target.getWarpSize()
                       : 32;
    if (kernel.getNumThreads() % warp != 0)
      return emitOpError("needs a whole number of warps: the kernel has ")
             << kernel.getNumThreads()
             << " threads, not a multiple of the warp size " << warp;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// FillOp / ClearOp
//===----------------------------------------------------------------------===//

LogicalResult FillOp::verify() {
  return getOnChipPlace(*this, getDst().getType(), "destination");
}

LogicalResult ClearOp::verify() {
  return getOnChipPlace(*this, getDst().getType(), "destination");
}

void FillOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  // tile.fill %t, 0 -> tile.clear %t (positive zero only: -0.0 differs).
  results.add(+[](FillOp op, PatternRewriter &rewriter) -> LogicalResult {
    if (!matchPattern(op.getValue(), m_PosZeroFloat()) &&
        !matchPattern(op.getValue(), m_Zero()))
      return failure();
    rewriter.replaceOpWithNewOp<ClearOp>(op, op.getDst());
    return success();
  });
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  MemRefType srcType = getSrc().getType(), dstType = getDst().getType();
  if (failed(getOnChipPlace(*this, srcType, "source")) ||
      failed(getOnChipPlace(*this, dstType, "destination")))
    return failure();
  int64_t rank = srcType.getRank();
  int64_t dim = getDim();
  if (rank == 0)
    return emitOpError("cannot reduce a rank-0 tile");
  if (dim < 0 || dim >= rank)
    return emitOpError("reduction dim ")
           << dim << " is out of range for a rank-" << rank << " source";
  if (srcType.getElementType() != dstType.getElementType())
    return emitOpError("source and destination element types differ: ")
           << srcType.getElementType() << " vs " << dstType.getElementType();
  ReduceKind kind = getKind();
  bool bitwise = kind == ReduceKind::BitAnd || kind == ReduceKind::BitOr ||
                 kind == ReduceKind::BitXor;
  if (bitwise && !isa<IntegerType>(srcType.getElementType()))
    return emitOpError("a ") << stringifyReduceKind(kind)
                             << " reduction needs integer elements, got "
                             << srcType.getElementType();

  SmallVector<int64_t> dropped(srcType.getShape());
  dropped.erase(dropped.begin() + dim);
  SmallVector<int64_t> kept(srcType.getShape());
  kept[dim] = 1;
  ArrayRef<int64_t> dstShape = dstType.getShape();
  bool rank1ToScalarTile = rank == 1 && dstShape == ArrayRef<int64_t>{1};
  if (dstShape != ArrayRef(dropped) && dstShape != ArrayRef(kept) &&
      !rank1ToScalarTile)
    return emitOpError("destination shape [")
           << llvm::interleaved(dstShape)
           << "] must be the source shape without dim " << dim << " (["
           << llvm::interleaved(dropped) << "]) or with it set to 1 (["
           << llvm::interleaved(kept) << "])";
  return success();
}

//===----------------------------------------------------------------------===//
// CumsumOp
//===----------------------------------------------------------------------===//

LogicalResult CumsumOp::verify() {
  MemRefType srcType = getSrc().getType(), dstType = getDst().getType();
  FailureOr<Place> srcPlace = getOnChipPlace(*this, srcType, "source");
  FailureOr<Place> dstPlace = getOnChipPlace(*this, dstType, "destination");
  if (failed(srcPlace) || failed(dstPlace))
    return failure();
  if (srcType.getShape() != dstType.getShape())
    return emitOpError("source and destination shapes differ: [")
           << llvm::interleaved(srcType.getShape()) << "] vs ["
           << llvm::interleaved(dstType.getShape()) << "]";
  if (srcType.getElementType() != dstType.getElementType())
    return emitOpError("source and destination element types differ: ")
           << srcType.getElementType() << " vs " << dstType.getElementType();
  int64_t rank = srcType.getRank();
  int64_t dim = getDim();
  if (dim < 0 || dim >= rank)
    return emitOpError("cumsum dim ")
           << dim << " is out of range for a rank-" << rank << " tile";
  ReduceKind kind = getKind();
  if (kind != ReduceKind::Sum && kind != ReduceKind::Max &&
      kind != ReduceKind::Min)
    return emitOpError("scans sum, max or min, not ")
           << stringifyReduceKind(kind);
  return success();
}

//===----------------------------------------------------------------------===//
// AtomicAddOp
//===----------------------------------------------------------------------===//

LogicalResult AtomicAddOp::verify() {
  MemRefType dstType = getDst().getType();
  FailureOr<Place> dstPlace = getPlace(*this, dstType, "destination");
  if (failed(dstPlace))
    return failure();
  if (*dstPlace != Place::Global && *dstPlace != Place::Shared)
    return emitOpError("destination must be global or shared memory, got ")
           << placeName(*dstPlace) << " memory";
  if (dstType.getElementType().isInteger(1))
    return emitOpError("booleans do not add: an atomic add needs numbers, "
                       "got ")
           << dstType;

  if (!isTileForm()) {
    if (getValue().getType() != dstType.getElementType())
      return emitOpError("value type ")
             << getValue().getType()
             << " does not match the destination element type "
             << dstType.getElementType();
    if (static_cast<int64_t>(getDstOffsets().size()) != dstType.getRank())
      return emitOpError("the element form needs one offset per "
                         "destination dimension (")
             << dstType.getRank() << "), got " << getDstOffsets().size();
    if (getDstSizes())
      return emitOpError("the element form adds one element: its offsets "
                         "take no extents");
    return success();
  }

  auto valueType = cast<MemRefType>(getValue().getType());
  if (failed(getOnChipPlace(*this, valueType, "value")))
    return failure();
  if (!areConvertible(valueType.getElementType(), dstType.getElementType()))
    return emitOpError("cannot convert element type ")
           << valueType.getElementType() << " to "
           << dstType.getElementType();
  if (getDstOffsets().empty()) {
    if (getDstSizes())
      return emitOpError("region extents need the region's offsets");
    return verifyWholeBuffer(*this, "destination", dstType,
                             valueType.getShape());
  }
  return verifyPlacement(*this, "destination", dstType, *dstPlace,
                         getDstOffsets(), getDstSizesAttr(),
                         valueType.getShape());
}

TileRegion AtomicAddOp::getDstRegion() {
  assert(isTileForm() && "the element form has no tile");
  return getTileRegion(getDst(), getDstOffsets(), getDstSizesAttr(),
                       cast<MemRefType>(getValue().getType()).getRank());
}

void AtomicAddOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (isTileForm())
    effects.emplace_back(MemoryEffects::Read::get(),
                         &getValueMutable());
  effects.emplace_back(MemoryEffects::Read::get(), &getDstMutable());
  effects.emplace_back(MemoryEffects::Write::get(), &getDstMutable());
}

//===----------------------------------------------------------------------===//
// ParallelOp
//===----------------------------------------------------------------------===//

void ParallelOp::build(OpBuilder &builder, OperationState &result,
                       ArrayRef<int64_t> extents) {
  result.getOrAddProperties<Properties>().extents =
      builder.getDenseI64ArrayAttr(extents);
  Region *body = result.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (size_t i = 0; i < extents.size(); ++i)
    block->addArgument(builder.getIndexType(), result.location);
  ensureTerminator(*body, builder, result.location);
}

ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  SmallVector<OpAsmParser::Argument> indices;
  SmallVector<int64_t> extents;
  if (parser.parseArgumentList(indices, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") || parseIntList(parser, extents))
    return failure();
  for (OpAsmParser::Argument &index : indices)
    index.type = builder.getIndexType();
  result.getOrAddProperties<Properties>().extents =
      builder.getDenseI64ArrayAttr(extents);
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, indices))
    return failure();
  ensureTerminator(*body, builder, result.location);
  return success();
}

void ParallelOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getIndices(), p,
                        [&](BlockArgument arg) { p.printOperand(arg); });
  p << ") in ";
  printIntList(p, getExtents());
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getExtentsAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult ParallelOp::verify() {
  if (getExtents().empty())
    return emitOpError("needs at least one dimension");
  if (llvm::any_of(getExtents(), [](int64_t e) { return e <= 0; }))
    return emitOpError("extents must be positive, got (")
           << llvm::interleaved(getExtents()) << ")";
  return success();
}

/// Why `op`'s body is not a copy of global elements into one shared tile
/// (empty when it is); the tile in `tile`.
static std::string whyNotGather(ParallelOp op, Value &tile) {
  tile = Value();
  for (Operation &inst : op.getBody().front().without_terminator()) {
    if (inst.getNumRegions())
      return "has a nested region";
    if (auto load = dyn_cast<memref::LoadOp>(inst)) {
      if (!isGlobalBuffer(load.getMemRef()))
        return "loads from a buffer that is not global";
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(inst)) {
      auto type = cast<MemRefType>(store.getMemRef().getType());
      if (!isInSpace(type, MemorySpace::Shared))
        return "stores into a buffer that is not a shared tile";
      if (tile && store.getMemRef() != tile)
        return "stores into more than one shared tile";
      tile = store.getMemRef();
      auto load = store.getValueToStore().getDefiningOp<memref::LoadOp>();
      if (!load || load->getBlock() != inst.getBlock())
        return "stores a value it did not load from a global buffer";
      continue;
    }
    if (!isMemoryEffectFree(&inst))
      return "has an operation with memory effects other than loads and "
             "stores";
  }
  if (!tile)
    return "stores nothing";
  return "";
}

Value ParallelOp::getGatherDestination() {
  Value tile;
  return whyNotGather(*this, tile).empty() ? tile : Value();
}

LogicalResult ParallelOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getExtents().size())
    return emitOpError("body must have one index argument per extent (")
           << getExtents().size() << "), got " << body.getNumArguments();
  for (BlockArgument arg : body.getArguments())
    if (!arg.getType().isIndex())
      return emitOpError("iteration indices must be of index type");
  if (getAsync()) {
    Value tile;
    std::string why = whyNotGather(*this, tile);
    if (!why.empty())
      return emitOpError("with 'async', the body must copy elements of "
                         "global buffers into one shared tile; it ")
             << why;
  }
  return success();
}

SmallVector<Region *> ParallelOp::getLoopRegions() { return {&getBody()}; }

std::optional<SmallVector<Value>> ParallelOp::getLoopInductionVars() {
  return SmallVector<Value>(getIndices().begin(), getIndices().end());
}

//===----------------------------------------------------------------------===//
// PipelinedOp
//===----------------------------------------------------------------------===//

void PipelinedOp::build(OpBuilder &builder, OperationState &result,
                        Value lowerBound, Value upperBound, Value step,
                        int64_t numStages) {
  result.addOperands({lowerBound, upperBound, step});
  result.getOrAddProperties<Properties>().num_stages =
      builder.getI64IntegerAttr(numStages);
  Region *body = result.addRegion();
  Block *block = new Block();
  body->push_back(block);
  block->addArgument(builder.getIndexType(), result.location);
  ensureTerminator(*body, builder, result.location);
}

ParseResult PipelinedOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  Type indexType = builder.getIndexType();
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand lb, ub, step;
  int64_t numStages;
  if (parser.parseArgument(iv) || parser.parseEqual() ||
      parser.parseOperand(lb) || parser.parseKeyword("to") ||
      parser.parseOperand(ub) || parser.parseKeyword("step") ||
      parser.parseOperand(step) || parser.parseKeyword("num_stages") ||
      parser.parseEqual() || parser.parseInteger(numStages) ||
      parser.resolveOperand(lb, indexType, result.operands) ||
      parser.resolveOperand(ub, indexType, result.operands) ||
      parser.resolveOperand(step, indexType, result.operands))
    return failure();
  iv.type = indexType;
  Properties &props = result.getOrAddProperties<Properties>();
  props.num_stages = builder.getI64IntegerAttr(numStages);
  auto parseSchedule = [&](StringRef keyword,
                           DenseI64ArrayAttr &attr) -> ParseResult {
    if (failed(parser.parseOptionalKeyword(keyword)))
      return success();
    SmallVector<int64_t> values;
    if (parser.parseEqual() ||
        parser.parseCommaSeparatedList(
            OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
              int64_t value;
              if (parser.parseInteger(value))
                return failure();
              values.push_back(value);
              return success();
            }))
      return failure();
    attr = builder.getDenseI64ArrayAttr(values);
    return success();
  };
  if (parseSchedule("order", props.order) ||
      parseSchedule("stage", props.stage) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, iv))
    return failure();
  ensureTerminator(*body, builder, result.location);
  return success();
}

void PipelinedOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printOperand(getInductionVar());
  p << " = " << getLowerBound() << " to " << getUpperBound() << " step "
    << getStep() << " num_stages = " << static_cast<int64_t>(getNumStages());
  auto printSchedule = [&](StringRef keyword,
                           std::optional<ArrayRef<int64_t>> values) {
    if (!values)
      return;
    p << ' ' << keyword << " = [";
    llvm::interleaveComma(*values, p);
    p << ']';
  };
  printSchedule("order", getOrder());
  printSchedule("stage", getStage());
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getNumStagesAttrName(), getOrderAttrName(), getStageAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

SmallVector<Operation *> PipelinedOp::getScheduledOps() {
  SmallVector<Operation *> ops;
  for (Operation &op : getBody().front().without_terminator())
    if (!isMemoryEffectFree(&op))
      ops.push_back(&op);
  return ops;
}

LogicalResult PipelinedOp::verify() {
  int64_t numStages = getNumStages();
  if (numStages < 1)
    return emitOpError("num_stages must be at least 1, got ") << numStages;
  return success();
}

LogicalResult PipelinedOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError("body must have a single index induction variable");
  size_t numScheduled = getScheduledOps().size();
  if (std::optional<ArrayRef<int64_t>> order = getOrder()) {
    if (order->size() != numScheduled)
      return emitOpError("order has ")
             << order->size() << " entries but the body has " << numScheduled
             << " operations with memory effects";
    llvm::SmallBitVector seen(numScheduled);
    for (int64_t position : *order) {
      if (position < 0 || position >= static_cast<int64_t>(numScheduled) ||
          seen.test(position))
        return emitOpError("order must be a permutation of [0, ")
               << numScheduled << "), got [" << llvm::interleaved(*order)
               << "]";
      seen.set(position);
    }
  }
  if (std::optional<ArrayRef<int64_t>> stage = getStage()) {
    if (stage->size() != numScheduled)
      return emitOpError("stage has ")
             << stage->size() << " entries but the body has " << numScheduled
             << " operations with memory effects";
    int64_t numStages = getNumStages();
    for (int64_t s : *stage)
      if (s < 0 || s >= numStages)
        return emitOpError("stage ")
               << s << " is out of range [0, " << numStages << ")";
  }
  return success();
}

SmallVector<Region *> PipelinedOp::getLoopRegions() { return {&getBody()}; }

std::optional<SmallVector<Value>> PipelinedOp::getLoopInductionVars() {
  return SmallVector<Value>{getInductionVar()};
}

std::optional<SmallVector<OpFoldResult>> PipelinedOp::getLoopLowerBounds() {
  return SmallVector<OpFoldResult>{getLowerBound()};
}

std::optional<SmallVector<OpFoldResult>> PipelinedOp::getLoopUpperBounds() {
  return SmallVector<OpFoldResult>{getUpperBound()};
}

std::optional<SmallVector<OpFoldResult>> PipelinedOp::getLoopSteps() {
  return SmallVector<OpFoldResult>{getStep()};
}

//===----------------------------------------------------------------------===//
// AnnotateLayoutOp
//===----------------------------------------------------------------------===//

/// The allocation an annotation of `buffer` with `layout` fixes, straight
/// from a tile.alloc_* or through a tile.view of a shared one, and the
/// layout that gives the allocation (a view's swizzle seen in the tile's
/// element type; null when the tile has none equal to it). A null
/// allocation when `buffer` comes from neither.
static std::pair<TileAllocationOpInterface, Attribute>
getAnnotatedAllocation(Value buffer, Attribute layout) {
  if (auto alloc = buffer.getDefiningOp<TileAllocationOpInterface>())
    return {alloc, layout};
  auto view = buffer.getDefiningOp<ViewOp>();
  auto alloc = view ? view.getSource().getDefiningOp<TileAllocationOpInterface>()
                    : TileAllocationOpInterface();
  if (!alloc)
    return {};
  auto swizzle = dyn_cast<SwizzleAttr>(layout);
  return {alloc, swizzle ? swizzle.reinterpret(
                               cast<MemRefType>(buffer.getType()),
                               cast<MemRefType>(view.getSource().getType()))
                         : Attribute()};
}

LogicalResult AnnotateLayoutOp::verify() {
  if (failed(getOnChipPlace(*this, getBuffer().getType(), "buffer")) ||
      failed(verifyLayoutFor(*this, getBuffer().getType(), getLayout())))
    return failure();
  auto [alloc, layout] = getAnnotatedAllocation(getBuffer(), getLayout());
  if (!alloc)
    return success();
  if (!layout) {
    InFlightDiagnostic diag =
        emitOpError("layout ")
        << getLayout() << " of a view has no equal for the tile it views ("
        << getBuffer().getType() << " of "
        << alloc->getResult(0).getType()
        << "): its units would split the tile's elements, or it is blocked "
           "and the rows differ in bytes";
    diag.attachNote(alloc->getLoc()) << "allocated here";
    return diag;
  }
  if (Attribute existing = alloc.getTileLayout();
      existing && existing != layout) {
    InFlightDiagnostic diag = emitOpError("layout ")
                              << getLayout()
                              << " conflicts with the layout " << existing
                              << " of the allocation";
    diag.attachNote(alloc->getLoc()) << "allocated here";
    return diag;
  }
  return success();
}

LogicalResult AnnotateLayoutOp::moveToAllocation(RewriterBase &rewriter) {
  auto [alloc, layout] = getAnnotatedAllocation(getBuffer(), getLayout());
  if (!alloc || !layout)
    return failure();
  rewriter.modifyOpInPlace(alloc, [&] { alloc.setTileLayout(layout); });
  rewriter.eraseOp(*this);
  return success();
}

void AnnotateLayoutOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                   MLIRContext *context) {
  // Move the annotation onto the allocation it names.
  results.add(+[](AnnotateLayoutOp op, PatternRewriter &rewriter) {
    return op.moveToAllocation(rewriter);
  });
}

//===----------------------------------------------------------------------===//
// UseSwizzleOp
//===----------------------------------------------------------------------===//

LogicalResult UseSwizzleOp::verify() {
  int64_t panelSize = getPanelSize();
  if (panelSize < 1)
    return emitOpError("panel size must be positive, got ") << panelSize;
  auto kernel = cast<KernelOp>((*this)->getParentOp());
  if (kernel.getGrid().size() < 2)
    return emitOpError("needs a kernel grid of at least two dimensions");
  for (Operation &op : kernel.getBody().front())
    if (isa<UseSwizzleOp>(op) && &op != getOperation() &&
        op.isBeforeInBlock(getOperation()))
      return emitOpError("a kernel takes at most one tile.use_swizzle");
  return success();
}

#define GET_OP_CLASSES
//===----------------------------------------------------------------------===//
// Thread ranges
//===----------------------------------------------------------------------===//

std::optional<std::pair<int64_t, int64_t>>
mlir::tile::matchThreadRange(Value cond, int64_t threads) {
  if (auto both = cond.getDefiningOp<arith::AndIOp>()) {
    auto a = matchThreadRange(both.getLhs(), threads);
    auto b = matchThreadRange(both.getRhs(), threads);
    if (!a || !b)
      return std::nullopt;
    int64_t first = std::max(a->first, b->first);
    int64_t end = std::min(a->first + a->second, b->first + b->second);
    return std::make_pair(first, std::max<int64_t>(end - first, 0));
  }
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  APInt bound;
  if (!cmp || !matchPattern(cmp.getRhs(), m_ConstantInt(&bound)))
    return std::nullopt;
  auto tid = cmp.getLhs().getDefiningOp<ThreadIdOp>();
  if (!tid || tid.getDim() != 0)
    return std::nullopt;
  int64_t c = bound.getSExtValue();
  auto below = [&](int64_t end) {
    end = std::clamp<int64_t>(end, 0, threads);
    return std::make_pair(int64_t(0), end);
  };
  auto from = [&](int64_t first) {
    first = std::clamp<int64_t>(first, 0, threads);
    return std::make_pair(first, threads - first);
  };
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::slt:
  case arith::CmpIPredicate::ult:
    return below(c);
  case arith::CmpIPredicate::sle:
  case arith::CmpIPredicate::ule:
    return below(c + 1);
  case arith::CmpIPredicate::sge:
  case arith::CmpIPredicate::uge:
    return from(c);
  case arith::CmpIPredicate::sgt:
  case arith::CmpIPredicate::ugt:
    return from(c + 1);
  default:
    return std::nullopt;
  }
}


std::optional<std::pair<int64_t, int64_t>>
mlir::tile::getElseThreadRange(scf::IfOp branch) {
  auto kernel = branch->getParentOfType<KernelOp>();
  if (!kernel || kernel.getThreads().size() != 1)
    return std::nullopt;
  int64_t threads = kernel.getThreads()[0];
  std::optional<std::pair<int64_t, int64_t>> range =
      matchThreadRange(branch.getCondition(), threads);
  if (!range)
    return std::nullopt;
  // The threads that reach the branch: those of the range around it.
  std::pair<int64_t, int64_t> outer = getThreadRangeOf(branch).value_or(
      std::make_pair(int64_t(0), threads));
  int64_t first = outer.first, end = outer.first + outer.second;
  int64_t thenFirst = std::max(range->first, first);
  int64_t thenEnd = std::min(range->first + range->second, end);
  if (thenFirst >= thenEnd)
    return outer;
  if (thenFirst == first)
    return std::make_pair(thenEnd, end - thenEnd);
  if (thenEnd == end)
    return std::make_pair(first, thenFirst - first);
  return std::nullopt; // two pieces
}

std::optional<std::pair<int64_t, int64_t>>
mlir::tile::getThreadRangeOf(Operation *op) {
  for (Operation *parent = op->getParentOp();
       parent && !isa<KernelOp>(parent); parent = parent->getParentOp()) {
    if (auto range = parent->getAttrOfType<DenseI64ArrayAttr>(
            TileDialect::getThreadRangeAttrName());
        range && range.size() >= 2)
      return std::make_pair(range[0], range[1]);
    auto branch = dyn_cast<scf::IfOp>(parent);
    auto kernel = branch ? branch->getParentOfType<KernelOp>() : KernelOp();
    if (!kernel || kernel.getThreads().size() != 1)
      continue;
    std::optional<std::pair<int64_t, int64_t>> range =
        matchThreadRange(branch.getCondition(), kernel.getThreads()[0]);
    if (!range)
      continue;
    if (!branch.getElseRegion().isAncestor(op->getParentRegion()))
      return range;
    // The else branch: the rest of the threads that reach the branch (an
    // `elif tx < 256:` after `if tx < 128:` runs on [128, 256)).
    if (std::optional<std::pair<int64_t, int64_t>> rest =
            getElseThreadRange(branch))
      return rest;
  }
  return std::nullopt;
}

int64_t mlir::tile::getThreadsOf(Operation *op) {
  if (std::optional<std::pair<int64_t, int64_t>> range = getThreadRangeOf(op))
    return range->second;
  auto kernel = op->getParentOfType<KernelOp>();
  return kernel ? kernel.getNumThreads() : 1;
}

int64_t mlir::tile::getFragmentThreads(Value fragment) {
  Operation *def = fragment.getDefiningOp();
  auto kernel = def ? def->getParentOfType<KernelOp>() : KernelOp();
  if (!kernel)
    return 1;
  std::optional<std::pair<int64_t, int64_t>> common;
  bool first = true, ok = true;
  SmallVector<Value> worklist = {fragment};
  while (!worklist.empty() && ok) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (isa<AnnotateLayoutOp>(user))
        continue;
      if (isa<ViewLikeOpInterface>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      std::optional<std::pair<int64_t, int64_t>> range =
          getThreadRangeOf(user);
      if (first) {
        common = range;
        first = false;
      } else if (range != common) {
        ok = false;
        break;
      }
    }
  }
  return ok && common ? common->second : kernel.getNumThreads();
}

#include "TileLang/Dialect/Tile/IR/TileOps.cpp.inc"
