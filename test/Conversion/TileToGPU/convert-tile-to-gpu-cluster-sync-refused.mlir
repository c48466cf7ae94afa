// RUN: tile-opt %s --tile-attach-target="kind=rocm chip=gfx942" --convert-tile-to-gpu -verify-diagnostics
// RUN: tile-opt %s --convert-tile-to-scf -verify-diagnostics

// Where a kernel's clusters run as independent blocks (AMD GPUs, the CPU),
// synchronizing the blocks of a 4-block cluster is refused at the op.
func.func @four_blocks(%out: memref<8xindex>) {
  %c8 = arith.constant 8 : index
  tile.kernel grid(%c8) threads(32) cluster(4) -> (%bx) {
    // expected-error @+1 {{synchronizes or addresses the blocks of a thread block cluster: only NVIDIA sm_90 and newer run a cluster's blocks together, and this kernel's clusters have 4 blocks (target: }}
    tile.cluster_arrive
    tile.cluster_wait
  }
  return
}
