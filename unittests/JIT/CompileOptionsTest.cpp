//===- CompileOptionsTest.cpp - The compile options reach the passes ----===//
//
// Part of TileLang-MLIR.
//
// Every row of CompileOptions.def is one switch of the lowering: set away
// from its default, it must appear in the pipeline text the JIT compiles
// with and change what the pass manager runs (a pass or a pass option);
// an option of another vendor must change nothing.
//
//===----------------------------------------------------------------------===//

#include "TileLang/JIT/JIT.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include <functional>
#include <string>
#include <vector>

using namespace mlir::tile;
using namespace mlir::tile::jit;

namespace {

/// A value other than `value`.
bool changed(bool value) { return !value; }
int64_t changed(int64_t value) { return value + 1; }

/// One row of the table: its vendor column, its flag, and a change of its
/// member to another value.
struct Row {
  std::string vendor;
  std::string flag;
  std::function<void(CompileOptions &)> change;
};

std::vector<Row> getRows() {
  return {
#define TILE_COMPILE_OPTION(VENDOR, TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)   \
  {#VENDOR, FLAG, [](CompileOptions &options) {                                \
     options.NAME = changed(TYPE(options.NAME));                               \
   }},
#include "TileLang/Pipelines/CompileOptions.def"
  };
}

std::string expand(const std::string &pipeline) {
  llvm::Expected<std::string> passes = printExpandedPipeline(pipeline);
  if (!passes) {
    ADD_FAILURE() << llvm::toString(passes.takeError());
    return "";
  }
  return *passes;
}

/// Options with every switch that others depend on turned on (the dynamic
/// schedule is only for persistent kernels).
CompileOptions getBase(llvm::StringRef target) {
  CompileOptions options;
  options.target = llvm::cantFail(Target::parse(target));
  options.persistent = true;
  return options;
}

TEST(CompileOptionsTest, DefaultPipelines) {
  CompileOptions options;
  EXPECT_EQ(getPipeline(options), "tile-to-cpu{emit-c-interface=true}");
  options.target = llvm::cantFail(Target::parse("sm_90a"));
  EXPECT_EQ(getPipeline(options), "tile-to-nvvm{chip=sm_90a features=+ptx80 "
                                  "format=bin emit-c-interface=true}");
  EXPECT_EQ(getPipeline(options, "layouts", "isa"),
            "tile-to-nvvm{chip=sm_90a features=+ptx80 format=isa "
            "emit-c-interface=true stop-after=layouts}");
  options.target = llvm::cantFail(Target::parse("gfx942"));
  EXPECT_EQ(getPipeline(options), "tile-to-rocdl{chip=gfx942 features= "
                                  "format=bin emit-c-interface=true}");
  // A stage stops the pass manager there: nothing after tile-infer-layout.
  options.target = llvm::cantFail(Target::parse("sm_90a"));
  std::string layouts = expand(getPipeline(options, "layouts", "isa"));
  EXPECT_NE(layouts.find("tile-infer-layout"), std::string::npos);
  EXPECT_EQ(layouts.find("convert-tile-to-gpu"), std::string::npos);
}

TEST(CompileOptionsTest, EveryOptionReachesThePassManager) {
  std::vector<Row> rows = getRows();
  ASSERT_GT(rows.size(), 20u);
  for (llvm::StringRef target : {"sm_90a", "gfx942"}) {
    bool cuda = target.starts_with("sm_");
    CompileOptions base = getBase(target);
    std::string basePipeline = getPipeline(base);
    std::string basePasses = expand(basePipeline);
    ASSERT_FALSE(basePasses.empty());
    for (const Row &row : rows) {
      SCOPED_TRACE(target.str() + " " + row.flag);
      CompileOptions options = base;
      row.change(options);
      std::string pipeline = getPipeline(options);
      std::string passes = expand(pipeline);
      if (row.vendor == "GPU" || cuda) {
        // Named in the text where it differs from its default: in one of
        // the two.
        std::string setting = " " + row.flag + "=";
        EXPECT_NE(pipeline.find(setting) == std::string::npos,
                  basePipeline.find(setting) == std::string::npos)
            << pipeline;
        EXPECT_NE(passes, basePasses) << "no pass or pass option changed";
      } else {
        // Another vendor's option: not in the text, nothing changes.
        EXPECT_EQ(pipeline, basePipeline);
        EXPECT_EQ(passes, basePasses);
      }
    }
  }
}

TEST(CompileOptionsTest, FlagsAreUnique) {
  std::vector<Row> rows = getRows();
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = i + 1; j < rows.size(); ++j)
      EXPECT_NE(rows[i].flag, rows[j].flag);
}

TEST(CompileOptionsTest, InvalidPipelineIsAnError) {
  llvm::Expected<std::string> passes =
      printExpandedPipeline("tile-to-nvvm{no-such-option=1}");
  ASSERT_FALSE(passes);
  EXPECT_NE(llvm::toString(passes.takeError()).find("no-such-option"),
            std::string::npos);
}

} // namespace
