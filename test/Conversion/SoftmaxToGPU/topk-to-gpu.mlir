// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=gfx942" -split-input-file | FileCheck %s --check-prefix=CDNA

// A vocabulary row, bf16: one block of 256 threads per row; 8-element
// (16-byte) loads, 4 per thread issued before any is used; candidates in
// workgroup memory: k + one step of 256 x 8 rounded up to 4096 slots.
// CHECK-LABEL: func @vocab
// CHECK: %[[ROWS:.*]] = memref.dim %{{.*}}, %c0
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ROWS]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}) in (%{{.*}} = %c256
// CHECK-SAME: workgroup(%[[VALS:.*]] : memref<4096xf32, #gpu.address_space<workgroup>>, %[[IDXS:.*]] : memref<4096xi32, #gpu.address_space<workgroup>>, %[[CNT:.*]] : memref<1xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>)
// The row in steps of 4 x 2048 elements carrying (m, l, tau, full):
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %{{.*}} step %c8192 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[TAU:.*]] = %{{.*}}, %[[FULL:.*]] = %{{.*}}) -> (f32, f32, f32, i1)
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x128256xbf16>, vector<8xbf16>
// The online fold of the round (one rescale):
// CHECK: math.exp
// The filter: x > tau once k are kept, x >= tau (= -inf: not NaN) before.
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %{{.*}}, %[[TAU]] : f32
// CHECK: %[[GE:.*]] = arith.cmpf oge, %{{.*}}, %[[TAU]] : f32
// CHECK: arith.select %[[FULL]], %[[GT]], %[[GE]] : i1
// One atomic per thread and step; its candidates at consecutive slots:
// CHECK: memref.atomic_rmw addi %{{.*}}, %[[CNT]][%{{.*}}] : (i32, memref<1xi32, #gpu.address_space<workgroup>>) -> i32
// CHECK: memref.store %{{.*}}, %[[VALS]][%{{.*}}]
// CHECK: memref.store %{{.*}}, %[[IDXS]][%{{.*}}]
// CHECK: gpu.barrier
// A step that could overflow the buffer (more than 4096 - 2048) sorts it,
// and so does the first step that holds k:
// CHECK: %[[HELD:.*]] = memref.load %[[CNT]]
// CHECK: gpu.barrier
// CHECK: arith.cmpi sgt, %[[HELD]], %c2048_i32
// CHECK: arith.cmpi sge, %[[HELD]], %c50_i32
// CHECK: scf.if %{{.*}} -> (f32, i1)
// the bitonic network: compare-exchange in (value desc, index asc) order
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi slt
// CHECK: gpu.barrier
// The k-th value becomes tau:
// CHECK: memref.load %[[VALS]][%c49]
// After the row: the block's state, then the first k with exp(x - m) / l.
// CHECK: gpu.shuffle  xor
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x50xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x50xi64>
// CHECK-NOT: softmax.topk
// CDNA-LABEL: func @vocab
// 64-lane wavefronts: 4 per block.
// CDNA: workgroup(%{{.*}} : memref<4096xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<4096xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>)
// CDNA: vector.load %{{.*}} : memref<?x128256xbf16>, vector<8xbf16>
func.func @vocab(%x: memref<?x128256xbf16>, %p: memref<?x50xf32>, %i: memref<?x50xi64>) {
  softmax.topk ins(%x : memref<?x128256xbf16>) outs(%p, %i : memref<?x50xf32>, memref<?x50xi64>) k(50)
  return
}

// -----

// A prime row length: one element per load (the width must divide the
// row); k above the row; log-probabilities (x - m - log l, -inf where
// the row has no mass).
// CHECK-LABEL: func @prime_row
// CHECK: workgroup(%{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>
// CHECK: vector.load %{{.*}} : memref<3x1031xf32>, vector<1xf32>
// CHECK: math.log
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<3x7xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<3x7xi32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<3x7xf32>
func.func @prime_row(%x: memref<3x1031xf32>, %p: memref<3x7xf32>, %i: memref<3x7xi32>, %l: memref<3x7xf32>) {
  softmax.topk ins(%x : memref<3x1031xf32>) outs(%p, %i : memref<3x7xf32>, memref<3x7xi32>) log_probs(%l : memref<3x7xf32>) k(7)
  return
}

// -----

// No row: no kernel.
// CHECK-LABEL: func @no_rows
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @no_rows(%x: memref<0x100xf32>, %p: memref<0x5xf32>, %i: memref<0x5xi32>) {
  softmax.topk ins(%x : memref<0x100xf32>) outs(%p, %i : memref<0x5xf32>, memref<0x5xi32>) k(5)
  return
}
