//===- Passes.td - Tile-level passes -----------------------*- tablegen -*-===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TRANSFORMS_PASSES_TD
#define TILELANG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAttachTarget : Pass<"tile-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attach the compilation target to the module";
  let description = [{
    Sets the module attribute `tile.target` that every later pass reads:

    ```
    tile-opt --tile-attach-target="kind=cuda chip=sm_90a"
    ```

    For `cuda`, empty `features` mean `+ptx80` (the lowest PTX version that
    supports both sm_80 and sm_90a). A module that already targets something
    else is an error unless `overwrite` is set.
  }];
  let options = [
    Option<"kind", "kind", "std::string", /*default=*/"\"cuda\"",
           "Target kind: cpu, cuda or rocm">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Chip: sm_80, sm_90a, gfx942, gfx1100, host, ...">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Target features, e.g. +ptx80">,
    Option<"overwrite", "overwrite", "bool", /*default=*/"false",
           "Replace a different target already on the module">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

#endif // TILELANG_TRANSFORMS_PASSES_TD
