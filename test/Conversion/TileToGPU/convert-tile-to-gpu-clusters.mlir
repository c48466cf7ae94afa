// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %s --tile-attach-target="kind=rocm chip=gfx942" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=AMD
// RUN: not tile-opt %s --tile-attach-target="kind=cuda chip=sm_80" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory 2>&1 | FileCheck %s --check-prefix=SM80

// Thread block clusters per target: launched on sm_90+, dropped on AMD GPUs
// (which have none; a kernel without cluster-scoped synchronization computes
// the same unclustered, and one with it is refused:
// convert-tile-to-gpu-cluster-sync.mlir), refused before sm_90.
// SM90: gpu.launch clusters(
// AMD-NOT: clusters
// AMD: gpu.launch blocks(
// AMD-NOT: clusters
// SM80: error: 'tile.kernel' op thread block clusters need sm_90 or newer; the target is sm_80
func.func @cluster(%gx: index, %out: memref<?xf32>) {
  tile.kernel grid(%gx) threads(64) cluster(2) -> (%bx) {
    %v = arith.constant 1.0 : f32
    tile.atomic_add %v to %out[%bx] : f32 to memref<?xf32>
  }
  return
}
