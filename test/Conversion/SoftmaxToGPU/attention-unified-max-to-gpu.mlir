// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" --canonicalize | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=gfx942" --canonicalize | FileCheck %s --check-prefix=AMD

// A unified max on the GPU (a split decode step: 4 splits of 1031 keys,
// the 4 query heads of each KV head packed): two kernels with a flag per
// block between them, allocated in stream order ([4 x 2 x 2] blocks). The
// first folds every tile at phi (in log2 units, 2.5 log2 e: exp2(fma(s,
// c, -phi)), no row max, no rescale), writes its partials, and its thread 0 stores the block's vote
// (bar.red.or) on a row whose sum left [2^-64, 2^64]. The second kernel is
// the online one, run only by the blocks whose flag is set; then the flags
// are freed and the merge kernel runs.
// CHECK-LABEL: func.func @decode_unified
// CHECK-DAG:   %[[HI:.*]] = arith.constant 1.84467441E+19 : f32
// CHECK-DAG:   %[[LO:.*]] = arith.constant 5.42101086E-20 : f32
// CHECK-DAG:   %[[NEGPHI:.*]] = arith.constant -3.60673761 : f32
// CHECK:       %[[FLAGS:.*]], %[[T:.*]] = gpu.alloc async [%{{.*}}] (%c16) : memref<?xi32>
// CHECK:       %[[K1:.*]] = gpu.launch async [%[[T]]]
// The loop carries l and O only (phi, constant, left it):
// CHECK:         scf.for {{.*}} -> (f32, f32, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>) {
// CHECK-NOT:       arith.maximumf
// CHECK-NOT:       gpu.shuffle
// CHECK:           math.fma %{{.*}}, %{{.*}}, %[[NEGPHI]] : f32
// CHECK-NOT:       arith.maximumf
// CHECK-NOT:       gpu.shuffle
// CHECK:           scf.yield
// CHECK:         arith.cmpf oge, %{{.*}}, %[[LO]] : f32
// CHECK:         arith.cmpf ole, %{{.*}}, %[[HI]] : f32
// CHECK:         %[[VOTE:.*]] = nvvm.barrier #nvvm.reduction<or>
// CHECK:         memref.store %{{.*}}, %[[FLAGS]][%{{.*}}] : memref<?xi32>
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 2, key_splits = 4, packed_heads = 4, tile_copy = tma>}
// CHECK:       %[[K2:.*]] = gpu.launch async [%[[K1]]]
// CHECK:         %[[FLAG:.*]] = memref.load %[[FLAGS]][%{{.*}}] : memref<?xi32>
// CHECK:         %[[REDO:.*]] = arith.cmpi ne, %[[FLAG]], %c0_i32
// CHECK:         scf.if %[[REDO]] {
// CHECK:           scf.for
// CHECK:             arith.maximumf
// CHECK:             gpu.shuffle  xor
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<{{.*}} key_splits = 4, packed_heads = 4, tile_copy = tma>}
// CHECK:       %[[T2:.*]] = gpu.dealloc async [%[[K2]]] %[[FLAGS]] : memref<?xi32>
// CHECK:       gpu.launch async [%[[T2]]]

// CDNA has no barrier reduction: the vote is a flag word in workgroup
// memory, set between two barriers.
// AMD-LABEL: func.func @decode_unified
// AMD:         %[[FLAGS:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%c16) : memref<?xi32>
// AMD:         gpu.launch {{.*}} workgroup({{.*}}, %[[WORD:.*]] : memref<2xi32, #gpu.address_space<workgroup>>)
// AMD:             memref.store %c1_i32, %[[WORD]][%c0]
// AMD-NEXT:      }
// AMD-NEXT:      gpu.barrier
// AMD-NEXT:      memref.load %[[WORD]][%c0]
// AMD:           memref.store %{{.*}}, %[[FLAGS]][%{{.*}}] : memref<?xi32>
// AMD:         gpu.launch
// AMD:           memref.load %[[FLAGS]]
func.func @decode_unified(%q: memref<2x8x1x64xbf16>, %k: memref<2x2x1031x64xbf16>,
                          %o: memref<2x8x1x64xbf16>) {
  softmax.attention ins(%q, %k, %k : memref<2x8x1x64xbf16>, memref<2x2x1031x64xbf16>, memref<2x2x1031x64xbf16>)
      outs(%o : memref<2x8x1x64xbf16>) masked(zero)
      algorithm(unified_max, phi = 2.5)
  return
}
