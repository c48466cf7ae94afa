//===- TargetInfoTest.cpp - The target interface and its registration ----===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/Passes.h"
#include "TileLang/Registration/Registration.h"
#include "TileLang/Target/TargetInfo.h"
#include "TileLang/Transforms/InstructionSelection.h"
#include "TileLang/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// One f16 gemm that mma.sync (sm_80) and MFMA (gfx942) can run, and a
/// copy of a global region into a shared tile, under `target`.
std::string makeModule(StringRef target) {
  return (R"mlir(module attributes {tile.target = )mlir" + target + R"mlir(} {
    func.func @f(%A: memref<?x?xf16>, %n: index) {
      %c0 = arith.constant 0 : index
      tile.kernel grid(%n) threads(128) -> (%bx) {
        %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
        %b = tile.alloc_shared : memref<32x64xf16, #tile.mem<shared>>
        %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
        tile.copy %A[%c0, %c0] to %a : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
        tile.gemm %a, %b, %c : memref<64x32xf16, #tile.mem<shared>>,
            memref<32x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      }
      return
    }
  })mlir")
      .str();
}

template <typename OpT> OpT findOp(ModuleOp module) {
  OpT found;
  module.walk([&](OpT op) { found = op; });
  return found;
}

/// Runs `pass` on `module`; the diagnostics it emitted, one per line.
std::string runPass(ModuleOp module, std::unique_ptr<Pass> pass,
                    bool &succeededOut) {
  std::string messages;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    messages += diag.str() + "\n";
    return success();
  });
  PassManager pm(module.getContext());
  pm.addPass(std::move(pass));
  succeededOut = succeeded(pm.run(module));
  return messages;
}

/// The dialects tile IR is written in, without any vendor's target.
void registerWithoutVendors(DialectRegistry &registry) {
  registry.insert<TileDialect, arith::ArithDialect, func::FuncDialect,
                  memref::MemRefDialect, scf::SCFDialect>();
}

TEST(TargetInfoTest, AnUnregisteredVendorIsRefusedByName) {
  DialectRegistry registry;
  registerWithoutVendors(registry);
  MLIRContext ctx(registry);
  for (auto [target, registration] :
       {std::pair<StringRef, StringRef>{"#tile.target<cuda, \"sm_90a\">",
                                        "registerNVIDIATarget"},
        {"#tile.target<rocm, \"gfx942\">", "registerAMDTarget"}}) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(makeModule(target), &ctx);
    ASSERT_TRUE(module);
    // Queries get the base: nothing vendor-specific is offered.
    const TargetInfo &info = getTargetInfo(module->getOperation());
    EXPECT_EQ(&info, &getTargetInfo(&ctx, TargetAttr()));
    // The passes that depend on a vendor refuse to compile generically.
    for (bool selection : {true, false}) {
      bool ok = true;
      std::string messages = runPass(
          *module,
          selection ? createTileSelectInstructions() : createConvertTileToGPU(),
          ok);
      EXPECT_FALSE(ok);
      EXPECT_NE(messages.find(("no implementation of the " +
                               Twine(target.contains("cuda") ? "cuda"
                                                             : "rocm") +
                               " target is registered")
                                  .str()),
                std::string::npos)
          << messages;
      EXPECT_NE(messages.find(registration.str()), std::string::npos)
          << messages;
    }
  }
  // The CPU and a module without a target need no vendor.
  OwningOpRef<ModuleOp> cpu = parseSourceString<ModuleOp>(
      makeModule("#tile.target<cpu, \"host\">"), &ctx);
  ASSERT_TRUE(cpu);
  bool ok = false;
  std::string messages = runPass(*cpu, createTileSelectInstructions(), ok);
  EXPECT_TRUE(ok) << messages;
  EXPECT_EQ(findOp<GemmOp>(*cpu).getInstructionAttr().getKind(),
            GemmInstructionKind::SIMT);
}

TEST(TargetInfoTest, RegisteredVendorsAnswerForTheirKind) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  const TargetInfo &base = getTargetInfo(&ctx, TargetAttr());
  auto cuda = TargetAttr::get(&ctx, TargetKind::CUDA, "sm_80", "");
  auto rocm = TargetAttr::get(&ctx, TargetKind::ROCm, "gfx942", "");
  EXPECT_NE(&getTargetInfo(&ctx, cuda), &base);
  EXPECT_NE(&getTargetInfo(&ctx, rocm), &base);
  EXPECT_NE(&getTargetInfo(&ctx, cuda), &getTargetInfo(&ctx, rocm));
  EXPECT_TRUE(getTargetInfo(&ctx, cuda).hasBulkTensorCopies(
      TargetAttr::get(&ctx, TargetKind::CUDA, "sm_90a", "")));
  EXPECT_FALSE(getTargetInfo(&ctx, cuda).hasBulkTensorCopies(cuda));
  EXPECT_FALSE(getTargetInfo(&ctx, rocm).hasBulkTensorCopies(rocm));

  struct Case {
    StringRef target;
    GemmInstructionKind gemm;
    CopyEngineKind copy;
  };
  for (const Case &c :
       {Case{"#tile.target<cuda, \"sm_80\">", GemmInstructionKind::MmaSync,
             CopyEngineKind::Vector},
        Case{"#tile.target<rocm, \"gfx942\">", GemmInstructionKind::MFMA,
             CopyEngineKind::BufferLoad},
        Case{"#tile.target<rocm, \"gfx1100\">", GemmInstructionKind::WMMA,
             CopyEngineKind::BufferLoad},
        Case{"#tile.target<cpu, \"host\">", GemmInstructionKind::SIMT,
             CopyEngineKind::Vector}}) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(makeModule(c.target), &ctx);
    ASSERT_TRUE(module);
    bool ok = false;
    std::string messages =
        runPass(*module, createTileSelectInstructions(), ok);
    ASSERT_TRUE(ok) << messages;
    EXPECT_EQ(findOp<GemmOp>(*module).getInstructionAttr().getKind(), c.gemm)
        << c.target.str();
    EXPECT_EQ(findOp<CopyOp>(*module).getEngineAttr().getKind(), c.copy)
        << c.target.str();
  }

  // An instruction of one vendor on another's target: the message says what
  // it needs, from the vendor that has it.
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      makeModule("#tile.target<rocm, \"gfx942\">"), &ctx);
  ASSERT_TRUE(module);
  GemmOp gemm = findOp<GemmOp>(*module);
  std::optional<std::string> why = explainGemmInstructionMismatch(
      gemm,
      GemmInstructionAttr::get(&ctx, GemmInstructionKind::MmaSync, 16, 8, 16,
                               false, 1, false, false),
      rocm, 128, GemmSelectionOptions());
  ASSERT_TRUE(why);
  EXPECT_EQ(*why,
            "mma_sync needs an NVIDIA target of sm_80 or newer, not rocm gfx942");
}

/// A target of its own, replacing NVIDIA's for cuda: no tensor cores, no
/// asynchronous engines; it counts what it was asked.
class CountingTarget : public TargetInfo {
public:
  void appendGemmCandidates(GemmOp, TargetAttr, int64_t,
                            const GemmSelectionOptions &,
                            SmallVectorImpl<GemmInstructionAttr> &) const override {
    ++gemmQueries;
  }
  void appendCopyCandidates(CopyOp, TargetAttr, const CopySelectionOptions &,
                            SmallVectorImpl<CopyEngineKind> &) const override {
    ++copyQueries;
  }
  FailureOr<bool> launchesClusters(KernelOp, TargetAttr) const override {
    return false;
  }
  static inline int gemmQueries = 0;
  static inline int copyQueries = 0;
};

TEST(TargetInfoTest, ARegisteredImplementationDrivesSelectionAndLowering) {
  DialectRegistry registry;
  registerAllDialects(registry);
  // Applied after registerAllDialects' extensions: replaces NVIDIA's.
  registry.addExtension(+[](MLIRContext *, TileDialect *dialect) {
    dialect->registerTargetInfo(static_cast<uint32_t>(TargetKind::CUDA),
                                std::make_shared<CountingTarget>());
  });
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      makeModule("#tile.target<cuda, \"sm_90a\">"), &ctx);
  ASSERT_TRUE(module);
  CountingTarget::gemmQueries = CountingTarget::copyQueries = 0;
  bool ok = false;
  std::string messages = runPass(*module, createTileSelectInstructions(), ok);
  ASSERT_TRUE(ok) << messages;
  EXPECT_EQ(CountingTarget::gemmQueries, 1);
  EXPECT_EQ(CountingTarget::copyQueries, 1);
  // sm_90a, yet neither wgmma nor mma.sync nor TMA: the target said so.
  EXPECT_EQ(findOp<GemmOp>(*module).getInstructionAttr().getKind(),
            GemmInstructionKind::SIMT);
  EXPECT_EQ(findOp<CopyOp>(*module).getEngineAttr().getKind(),
            CopyEngineKind::Vector);
  // An NVIDIA instruction given by the user is now refused: this target
  // does not provide it (and says which registered target would).
  GemmOp gemm = findOp<GemmOp>(*module);
  gemm.setInstructionAttr(GemmInstructionAttr::get(
      &ctx, GemmInstructionKind::MmaSync, 16, 8, 16, false, 1, false, false));
  messages = runPass(*module, createTileSelectInstructions(), ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(messages.find("mma_sync is not provided by any registered target, "
                          "nor by cuda sm_90a"),
            std::string::npos)
      << messages;
  // The generic lowering alone lowers the SIMT gemm and vector copy.
  gemm.setInstructionAttr(
      GemmInstructionAttr::get(&ctx, GemmInstructionKind::SIMT));
  messages = runPass(*module, createConvertTileToGPU(), ok);
  EXPECT_TRUE(ok) << messages;
  EXPECT_FALSE(findOp<GemmOp>(*module));
}

} // namespace
