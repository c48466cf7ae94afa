//===- Launch.cpp - Where the kernels a thread calls run ------------------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Runtime/Launch.h"

using namespace mlir::tile::runtime;

namespace {
thread_local LaunchTarget current;
/// Changes on every scope opened or closed on the thread, so a fact cached
/// under one serial belongs to one scope's stretch of calls.
thread_local uint64_t serial = 0;
thread_local int depth = 0;
} // namespace

LaunchScope::LaunchScope(const LaunchTarget &target) : saved(current) {
  current = target;
  ++serial;
  ++depth;
}

LaunchScope::~LaunchScope() {
  current = saved;
  ++serial;
  --depth;
}

const LaunchTarget &mlir::tile::runtime::getLaunchTarget() { return current; }

uint64_t mlir::tile::runtime::getLaunchSerial() { return serial; }

bool mlir::tile::runtime::inLaunchScope() { return depth > 0; }
