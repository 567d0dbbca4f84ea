// Split rows merged within a thread-block cluster (split_merge = cluster,
// sm_90): the launch names a cluster of `splits` blocks per row, the row is
// the cluster's id and the chunk the block's rank in it; no ticket, no
// workspace, no global atomics or fences. Each block leaves its state in
// its own shared memory, a cluster barrier orders it before the others'
// reads (mapa into the cluster's window, ld.shared::cluster), and each
// block arrives once more after it merged, then waits before it exits, so
// that no block leaves while another may still read it.
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file | FileCheck %s
// The pass option asks the same of every split row; rows that are not
// split record no merge.
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 split-merge=cluster" -split-input-file | FileCheck %s --check-prefix=OPTION

// A vocabulary row (Llama 3's 128256, bf16): 16 blocks of 128 threads, 8
// cached vectors each.
// CHECK-LABEL: func @vocab_rows
// CHECK-NOT: gpu.alloc
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch clusters({{.*}}) in ({{.*}} = %c16{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) blocks
// CHECK-SAME: workgroup({{.*}}, {{.*}}, %[[STATES:.*]] : memref<4xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[ROW:.*]] = gpu.cluster_id x
// CHECK: gpu.cluster_block_id x
// CHECK-NOT: memref.atomic_rmw
// CHECK-NOT: llvm.fence
// CHECK: memref.store %{{.*}}, %[[STATES]][%c0{{.*}}]
// CHECK-NEXT: memref.store %{{.*}}, %[[STATES]][%c1{{.*}}]
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[RANK:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK: nvvm.mapa %{{.*}}, %[[RANK]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr<7> -> f32
// CHECK: nvvm.mapa %{{.*}}, %[[RANK]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr<7> -> f32
// CHECK: gpu.shuffle xor
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NOT: nvvm.cluster
// CHECK: vector.store %{{.*}}, %arg1[%[[ROW]], %{{.*}}]
// CHECK: nvvm.cluster.wait {aligned}
// CHECK-NEXT: gpu.terminator
// CHECK-NEXT: } {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 128, rows_per_block = 1, vector_width = 8, cached_vectors = 8, splits = 16, split_merge = cluster>}
// OPTION-LABEL: func @vocab_rows
// OPTION: split_merge = cluster>
func.func @vocab_rows(%x: memref<100x128256xbf16>, %y: memref<100x128256xbf16>) {
  softmax.softmax ins(%x : memref<100x128256xbf16>) outs(%y : memref<100x128256xbf16>)
      dimension(1) masked(zero) algorithm(online)
      {softmax.strategy = #softmax.gpu_strategy<split_merge = cluster>}
  return
}

// -----

// logsumexp of few vocabulary rows streams each chunk (9 blocks of 512
// threads per row, a non-portable cluster size): every block merges all
// states, and the first writes the row's result.
// CHECK-LABEL: func @few_rows_logsumexp
// CHECK: gpu.launch clusters({{.*}}) in ({{.*}} = %c9{{(_[0-9]+)?}},
// CHECK: %[[ROW:.*]] = gpu.cluster_id x
// CHECK: %[[CHUNK:.*]] = gpu.cluster_block_id x
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[CHUNK]], %c0{{.*}} : index
// CHECK-NEXT: nvvm.cluster.arrive {aligned}
// CHECK: arith.andi %{{.*}}, %[[FIRST]] : i1
// CHECK: memref.store %{{.*}}, %arg1[%[[ROW]]] : memref<32xbf16>
// CHECK: nvvm.cluster.wait {aligned}
// CHECK-NEXT: gpu.terminator
// CHECK-NEXT: } {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 512, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 1, splits = 9, split_merge = cluster>}
func.func @few_rows_logsumexp(%x: memref<32x128256xbf16>, %y: memref<32xbf16>) {
  softmax.logsumexp ins(%x : memref<32x128256xbf16>) outs(%y : memref<32xbf16>)
      dimension(1) masked(zero) algorithm(online)
      {softmax.strategy = #softmax.gpu_strategy<split_merge = cluster>}
  return
}

// -----

// three_pass merges twice, each round through its own two slots, then
// arrives once more.
// CHECK-LABEL: func @three_pass
// CHECK: memref.store %{{.*}}, %[[STATES:.*]][%c0{{.*}}] : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: memref.store %{{.*}}, %[[STATES]][%c2{{.*}}] : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.store %{{.*}}, %[[STATES]][%c3{{.*}}] : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK: nvvm.cluster.wait {aligned}
// CHECK-NEXT: gpu.terminator
func.func @three_pass(%x: memref<100x128256xbf16>, %y: memref<100x128256xbf16>) {
  softmax.softmax ins(%x : memref<100x128256xbf16>) outs(%y : memref<100x128256xbf16>)
      dimension(1) masked(zero) algorithm(three_pass)
      {softmax.strategy = #softmax.gpu_strategy<split_merge = cluster>}
  return
}

// -----

// A row one block holds: no split, no cluster, no merge recorded (the
// request applies to split rows only).
// CHECK-LABEL: func @unsplit
// CHECK-NOT: clusters
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 64, rows_per_block = 1, vector_width = 8, cached_vectors = 4, splits = 1>}
// OPTION-LABEL: func @unsplit
// OPTION: splits = 1>}
func.func @unsplit(%x: memref<64x2048xbf16>, %y: memref<64x2048xbf16>) {
  softmax.softmax ins(%x : memref<64x2048xbf16>) outs(%y : memref<64x2048xbf16>)
      dimension(1) masked(zero) algorithm(online)
      {softmax.strategy = #softmax.gpu_strategy<split_merge = cluster>}
  return
}
