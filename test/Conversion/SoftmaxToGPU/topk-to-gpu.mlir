// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=gfx942" -split-input-file | FileCheck %s --check-prefix=CDNA

// A vocabulary row, bf16: blocks of 256 threads; 8-element (16-byte)
// loads, 4 per thread issued before any is used; candidates in workgroup
// memory: k + one step of 256 x 8 rounded up to 4096 slots. The row is
// split into parts that fill idle multiprocessors (floor(132 / rows), at
// most 15: one round of 8192 elements each), each part whole rounds long.
// CHECK-LABEL: func @vocab
// CHECK: %[[ROWS:.*]] = memref.dim %{{.*}}, %c0
// CHECK: %[[WANT:.*]] = arith.divui %c132, %{{.*}}
// CHECK: arith.minsi %[[WANT]], %c15
// CHECK: arith.ceildivui %c128256
// CHECK: %[[CHUNK:.*]] = arith.muli %{{.*}}, %c8192
// CHECK: %[[PARTS:.*]] = arith.ceildivui %c128256{{.*}}, %[[CHUNK]]
// CHECK: %[[SPLIT:.*]] = arith.cmpi ugt, %[[PARTS]], %c1
// CHECK: scf.if %[[SPLIT]] {
// Per (row, part): m, l, the kept count, and k values and indices.
// CHECK: gpu.alloc async {{.*}} (%[[ROWS]], %[[PARTS]]) : memref<?x?xf32>
// CHECK: gpu.alloc async {{.*}} (%[[ROWS]], %[[PARTS]]) : memref<?x?xf32>
// CHECK: gpu.alloc async {{.*}} (%[[ROWS]], %[[PARTS]]) : memref<?x?xi32>
// CHECK: gpu.alloc async {{.*}} : memref<?x?xf32>
// CHECK: %[[WIDX:.*]], %[[T5:.*]] = gpu.alloc async {{.*}} : memref<?x?xi32>
// CHECK: %[[K1:.*]] = gpu.launch async [%[[T5]]] blocks(%{{.*}}, %[[PART:.*]], %{{.*}}) in (%{{.*}} = %[[ROWS]], %{{.*}} = %[[PARTS]], %{{.*}} = %c1{{.*}}) threads(%{{.*}}) in (%{{.*}} = %c256
// CHECK-SAME: workgroup(%[[VALS:.*]] : memref<4096xf32, #gpu.address_space<workgroup>>, %[[IDXS:.*]] : memref<4096xi32, #gpu.address_space<workgroup>>, %[[CNT:.*]] : memref<1xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>)
// The part in steps of 4 x 2048 elements carrying (m, l, tau, full):
// CHECK: %[[C0:.*]] = arith.muli %[[PART]], %[[CHUNK]]
// CHECK: scf.for %{{.*}} = %[[C0]] to %{{.*}} step %c8192{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[TAU:.*]] = %{{.*}}, %[[FULL:.*]] = %{{.*}}) -> (f32, f32, f32, i1)
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x128256xbf16>, vector<8xbf16>
// The online fold of the round (one rescale), its exps exp2((x - m) log2 e):
// CHECK-NOT: math.exp %
// CHECK: math.exp2
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
// the selection network: chunks of 64 sorted by compare-exchange in
// (value desc, index asc) order, then pairs of chunks halved (A[i] takes
// the better of A[i] and B[63 - i]) and sorted by a half-cleaner of
// strides 32 to 1.
// CHECK: scf.for %{{.*}} = %c1{{.*}} to %c7
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi slt
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.addi %{{.*}}, %c63
// CHECK: arith.cmpf ogt
// CHECK: gpu.barrier
// CHECK-COUNT-6: gpu.barrier
// The k-th value becomes tau:
// CHECK: memref.load %[[VALS]][%c49]
// After the part: its state and its k best, sentinels past the kept ones.
// CHECK: gpu.shuffle  xor
// CHECK: arith.constant 2147483647 : i32
// CHECK: memref.store %{{.*}}, %[[WIDX]][%{{.*}}, %{{.*}}] : memref<?x?xi32>
// The merge: a block per row sorts every part's k (1024 slots for 15 x
// 50) and writes the first k with exp(x - m) / l.
// CHECK: gpu.launch async [%[[K1]]] blocks({{.*}}) in (%{{.*}} = %[[ROWS]], %{{.*}} = %c1{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}})
// CHECK-SAME: workgroup(%{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: memref.atomic_rmw addi
// CHECK: arith.cmpf ogt
// CHECK: gpu.shuffle  xor
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x50xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x50xi64>
// CHECK: gpu.dealloc async
// CHECK: gpu.wait [
// One part (66 rows or more): one block per whole row writes the results.
// CHECK: } else {
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ROWS]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}) in (%{{.*}} = %c256
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %{{.*}} step %c8192
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
