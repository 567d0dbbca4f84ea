// RUN: softmax-opt %s --softmax-map-to-gpu="chip=gfx942" -split-input-file | FileCheck %s

// softmax.linear_cross_entropy_grad on CDNA (gfx942): the fused form of
// CrossEntropyGradToGPU.cpp on MFMA 16x16x16. The forward's 128-token
// tile with du would take 69 KiB of LDS (64 KiB on CDNA), so the token
// rows halve: tiles of 64 tokens x 128 classes, slices of 32 features. du W
// reads the staged classifier slice by inner rows, du^T h reads du and the
// staged hidden slice by inner rows: 4 two-byte LDS reads down a column
// per fragment (no transposing LDS read before gfx950). The accumulators
// take scalar f32 atomics (no paired form on this end).

// CHECK-LABEL: func.func @grad
// CHECK: gpu.launch async {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}) dynamic_shared_memory_size %c44548_i32 {
// CHECK:   %[[SH:.*]] = memref.view %{{.*}}[%c0{{.*}}][] {{.*}} to memref<2x64x36xbf16, #gpu.address_space<workgroup>>
// CHECK:   %[[SW:.*]] = memref.view %{{.*}}[%c9216][] {{.*}} to memref<2x128x36xbf16, #gpu.address_space<workgroup>>
// CHECK:   %[[DU:.*]] = memref.view %{{.*}}[%c27648][] {{.*}} to memref<1x64x132xbf16, #gpu.address_space<workgroup>>
// CHECK:   memref.view %{{.*}}[%c44544][] {{.*}} to memref<1xi32, #gpu.address_space<workgroup>>
// The logits: row-major fragments, one 8-byte read each.
// CHECK:   vector.load %[[SH]]{{.*}} : memref<2x64x36xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// CHECK:   amdgpu.mfma 16x16x16
// CHECK:   scf.if
// CHECK:     memref.store %{{.*}}, %[[DU]]
// du W: du row-major, the classifier slice down its columns.
// CHECK:     vector.load %[[DU]]{{.*}} vector<4xbf16>
// CHECK:     %[[W0:.*]] = memref.load %[[SW]][%[[BUF:.*]], %{{.*}}, %[[ROW:.*]]] :
// CHECK:     %[[W1:.*]] = memref.load %[[SW]][%[[BUF]], %{{.*}}, %[[ROW]]] :
// CHECK:     %[[W2:.*]] = memref.load %[[SW]][%[[BUF]], %{{.*}}, %[[ROW]]] :
// CHECK:     %[[W3:.*]] = memref.load %[[SW]][%[[BUF]], %{{.*}}, %[[ROW]]] :
// CHECK-NEXT: %[[BF:.*]] = vector.from_elements %[[W0]], %[[W1]], %[[W2]], %[[W3]] : vector<4xbf16>
// CHECK:     amdgpu.mfma 16x16x16 %{{.*}} * %[[BF]]
// CHECK:     memref.atomic_rmw addf
// du^T h: both operands down their columns.
// CHECK:     memref.load %[[DU]]
// CHECK:     vector.from_elements
// CHECK:     memref.load %[[SH]]
// CHECK:     vector.from_elements
// CHECK:     amdgpu.mfma 16x16x16
// CHECK:     memref.atomic_rmw addf
// CHECK: } {softmax.strategy = #softmax.cross_entropy_gpu_strategy<mma = mfma16x16x16, rows_per_block = 64, classes_per_tile = 128, k_tile = 32, stages = 2>}
func.func @grad(%h: memref<200x64xbf16>, %w: memref<1000x64xbf16>, %t: memref<200xi64>, %lse: memref<200xf32>, %dl: memref<f32>, %b: memref<1000xbf16>, %gh: memref<200x64xbf16>, %gw: memref<1000x64xbf16>, %gb: memref<1000xf32>, %n: memref<2xi64>) {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<200x64xbf16>, memref<1000x64xbf16>, memref<200xi64>, memref<200xf32>, memref<f32>) bias(%b : memref<1000xbf16>) outs(%gh, %gw : memref<200x64xbf16>, memref<1000x64xbf16>) grad_bias(%gb : memref<1000xf32>) filter_counts(%n : memref<2xi64>) reduction(mean) softcap(30.0) z_loss(1.0e-4)
  return
}

// -----

// Exact mode: du in two parts (hi and the rest), 61444 bytes of LDS.
// CHECK-LABEL: func.func @exact
// CHECK: dynamic_shared_memory_size %c61444_i32
// CHECK: memref.view {{.*}} to memref<2x64x132xbf16, #gpu.address_space<workgroup>>
// CHECK: rows_per_block = 64, classes_per_tile = 128
func.func @exact(%h: memref<300x72xbf16>, %w: memref<1031x72xbf16>, %t: memref<300xi32>, %lse: memref<300xf32>, %dl: memref<300xf32>, %gh: memref<300x72xf32>, %gw: memref<1031x72xf32>) {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<300x72xbf16>, memref<1031x72xbf16>, memref<300xi32>, memref<300xf32>, memref<300xf32>) outs(%gh, %gw : memref<300x72xf32>, memref<1031x72xf32>) reduction(none) filter(0.0)
  return
}
