//===- Registration.cpp - Register TileLang with an MLIR context --------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Registration/Registration.h"

#include "TileLang/Dialect/Tile/IR/TileDialect.h"
#include "TileLang/Conversion/Passes.h"
#include "TileLang/Pipelines/Pipelines.h"
#include "TileLang/Target/AMD/AMDTarget.h"
#include "TileLang/Target/AMD/Passes.h"
#include "TileLang/Target/NVIDIA/NVIDIATarget.h"
#include "TileLang/Target/NVIDIA/Passes.h"
#include "TileLang/Transforms/Passes.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"

void mlir::tile::registerAllDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, func::FuncDialect,
                  math::MathDialect, memref::MemRefDialect, scf::SCFDialect>();
  // The vendors' implementations of the target interface.
  registerNVIDIATarget(registry);
  registerAMDTarget(registry);
}

void mlir::tile::registerAllExtensions(DialectRegistry &registry) {
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  gpu::registerConvertGpuToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerROCDLDialectTranslation(registry);
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
}

void mlir::tile::registerAllPasses() {
  tile::registerTilePasses();
  tile::registerTileConversionPasses();
  tile::registerNVIDIATargetPasses();
  tile::registerAMDTargetPasses();
  tile::registerTilePipelines();
}
