//===- TileInterfaces.td - Interfaces of the tile dialect --*- tablegen -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_IR_TILEINTERFACES_TD
#define TILELANG_DIALECT_TILE_IR_TILEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_TileAllocationOpInterface
    : OpInterface<"TileAllocationOpInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    An op that allocates an on-chip tile for the enclosing `tile.kernel`
    (`tile.alloc_shared`, `tile.alloc_fragment`, `tile.alloc_local`).
    Lowerings plan on-chip memory through it, and layout inference reads and
    writes the tile's layout through it.
  }];
  let methods = [
    InterfaceMethod<"The allocated tile.", "::mlir::TypedValue<::mlir::MemRefType>",
      "getTile", (ins), [{ return $_op.getMemref(); }]>,
    InterfaceMethod<"The tile memory space of the allocation.",
      "::mlir::tile::MemorySpace", "getTileMemorySpace", (ins), [{
        return *::mlir::tile::getMemorySpace($_op.getMemref().getType());
      }]>,
    InterfaceMethod<"The layout fixed for the tile, or null.",
      "::mlir::Attribute", "getTileLayout", (ins), [{
        return $_op.getLayoutAttr();
      }]>,
    InterfaceMethod<[{Sets the tile's layout. The caller guarantees that it
      suits the memory space (see tile.annotate_layout).}],
      "void", "setTileLayout", (ins "::mlir::Attribute":$layout), [{
        $_op.setLayoutAttr(layout);
      }]>,
    InterfaceMethod<"Size of the tile in bytes (sub-byte types round up).",
      "int64_t", "getTileSizeInBytes", (ins), [{
        return ::mlir::tile::getTileSizeInBytes($_op.getMemref().getType());
      }]>
  ];
}

#endif // TILELANG_DIALECT_TILE_IR_TILEINTERFACES_TD
