// RUN: split-file %s %t
// RUN: tile-opt %t/plain.mlir --tile-attach-target | FileCheck %s --check-prefix=DEFAULT
// RUN: tile-opt %t/plain.mlir --tile-attach-target="kind=cuda chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: tile-opt %t/plain.mlir --tile-attach-target="kind=rocm chip=gfx942" | FileCheck %s --check-prefix=GFX942
// RUN: tile-opt %t/plain.mlir --tile-attach-target="kind=cpu chip=host" | FileCheck %s --check-prefix=CPU
// RUN: not tile-opt %t/plain.mlir --tile-attach-target="kind=metal chip=m3" 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not tile-opt %t/plain.mlir --tile-attach-target="kind=cuda chip=gfx942" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: tile-opt %t/targeted.mlir --tile-attach-target | FileCheck %s --check-prefix=SAME
// RUN: tile-opt %t/targeted.mlir --tile-attach-target="kind=rocm chip=gfx1100 overwrite=true" | FileCheck %s --check-prefix=OVERWRITE
// RUN: not tile-opt %t/targeted.mlir --tile-attach-target="kind=rocm chip=gfx942" 2>&1 | FileCheck %s --check-prefix=CONFLICT

// DEFAULT: module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">}
// SM80: module attributes {tile.target = #tile.target<cuda, "sm_80", "+ptx80">}
// GFX942: module attributes {tile.target = #tile.target<rocm, "gfx942">}
// CPU: module attributes {tile.target = #tile.target<cpu, "host">}
// KIND: error: unknown target kind 'metal'; expected cpu, cuda or rocm
// CHIP: error: cuda chip must look like 'sm_80' or 'sm_90a', got 'gfx942'

// An explicit target is kept when it agrees and replaced only on request.
// SAME: module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">}
// OVERWRITE: module attributes {tile.target = #tile.target<rocm, "gfx1100">}
// CONFLICT: error: module already targets #tile.target<cuda, "sm_90a", "+ptx80">; pass overwrite=true to replace it with #tile.target<rocm, "gfx942">

//--- plain.mlir
module {
}

//--- targeted.mlir
module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
}
