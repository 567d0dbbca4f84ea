// REQUIRES: ptxas
// A split row merged within a thread-block cluster, through softmax-to-nvvm
// for sm_90: ptxas assembles it (format=bin); the PTX reads the cluster's
// ids, meets at cluster barriers and reads the other blocks' states through
// the cluster's shared window, with no global atomic; the host launches it
// with the cluster's size (mgpuLaunchClusterKernel, which allows sizes past
// the portable 8).
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=bin" | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=HOST

// BIN-NOT: softmax.
// BIN-NOT: mgpuMemAlloc
// BIN: gpu.launch_func @vocab_rows_kernel::@vocab_rows_kernel clusters in
// BIN: gpu.binary @vocab_rows_kernel  [{{.*}} bin = "

// PTX: gpu.binary @vocab_rows_kernel
// PTX-NOT: atom.global
// PTX-SAME: %clusterid.x
// PTX-SAME: %cluster_ctaid.x
// PTX-SAME: ld.global.v4.b32
// PTX-SAME: barrier.cluster.arrive.aligned
// PTX-SAME: barrier.cluster.wait.aligned
// PTX-SAME: mapa.shared::cluster.u64
// PTX-SAME: ld.shared::cluster.b32
// PTX-SAME: barrier.cluster.arrive.aligned
// PTX-SAME: st.global.v4.b32
// PTX-SAME: barrier.cluster.wait.aligned

// HOST: call void @mgpuLaunchClusterKernel(ptr %{{.*}}, i64 16, i64 1, i64 1, i64 1600, i64 1, i64 1, i64 128, i64 1, i64 1,
func.func @vocab_rows(%x: memref<100x128256xbf16>, %y: memref<100x128256xbf16>) {
  softmax.softmax ins(%x : memref<100x128256xbf16>) outs(%y : memref<100x128256xbf16>)
      dimension(1) masked(zero) algorithm(online)
      {softmax.strategy = #softmax.gpu_strategy<split_merge = cluster>}
  return
}
