// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --convert-tile-to-gpu | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %s --tile-attach-target="kind=rocm chip=gfx942" --convert-tile-to-gpu | FileCheck %s --check-prefix=AMD
// RUN: tile-opt %s --convert-tile-to-scf | FileCheck %s --check-prefix=CPU

// Cluster synchronization (T.cluster_arrive/_relaxed, T.cluster_wait,
// T.block_rank_in_cluster, T.mbarrier_arrive(bar, cta_id)): barrier.cluster,
// %cluster_ctarank and a remote arrival on sm_90; where blocks are not
// launched as clusters, a one-block cluster's barriers are nothing, its rank
// 0 and an arrival on block 0's barrier the block's own.

// SM90-LABEL: func.func @one_block
// SM90: nvvm.cluster.arrive{{$}}
// SM90: nvvm.cluster.arrive.relaxed
// SM90: nvvm.cluster.wait
// SM90: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// SM90: arith.index_castui %[[RANK]] : i32 to index
// SM90: %[[REMOTE:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// SM90: nvvm.mbarrier.arrive %[[REMOTE]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// AMD-LABEL: func.func @one_block
// AMD-NOT: tile.cluster
// AMD: gpu.launch
// AMD: %[[ZERO:.*]] = arith.constant 0 : index
// AMD-NEXT: memref.store %[[ZERO]], %{{.*}}[%[[ZERO]]] : memref<4xindex>
// CPU-LABEL: func.func @one_block
// CPU-NOT: tile.cluster
// CPU-NOT: tile.block_rank
// CPU: scf.for
// CPU: %[[ZERO:.*]] = arith.constant 0 : index
// CPU-NEXT: memref.store %[[ZERO]], %{{.*}}[%[[ZERO]]] : memref<4xindex>
func.func @one_block(%out: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(32) -> (%bx) {
    %bars = tile.alloc_shared : memref<1xi64, #tile.mem<shared>>
    tile.barrier_init %bars arrivals(32) : memref<1xi64, #tile.mem<shared>>
    tile.cluster_arrive
    tile.cluster_arrive {relaxed}
    tile.cluster_wait
    %rank = tile.block_rank_in_cluster
    memref.store %rank, %out[%rank] : memref<4xindex>
    tile.cluster_barrier_arrive %bars[%c0] cta(%c0) : memref<1xi64, #tile.mem<shared>>
  }
  return
}
