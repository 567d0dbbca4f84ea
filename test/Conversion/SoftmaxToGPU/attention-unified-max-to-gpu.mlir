// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" --canonicalize | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=gfx942" --canonicalize | FileCheck %s --check-prefix=AMD

// A unified max on the GPU (a split decode step: 4 splits of 1031 keys,
// the 4 query heads of each KV head packed). Each block runs one tile loop
// in an scf.while: the first pass (%[[AT]] true) starts every slot at phi
// in log2 units (2.5 log2 e) and takes no row max, which sits in the
// branch of the other pass, as does the accumulators' rescale. After the
// pass the block votes (bar.red.or) on a row whose sum left [2^-64, 2^64];
// only then does it run the loop again, online (%[[AT]] false), and write
// its rows again.
// CHECK-LABEL: func.func @decode_unified
// CHECK-DAG:   %[[HI:.*]] = arith.constant 1.84467441E+19 : f32
// CHECK-DAG:   %[[LO:.*]] = arith.constant 5.42101086E-20 : f32
// CHECK-DAG:   %[[PHI:.*]] = arith.constant 3.60673761 : f32
// CHECK:       gpu.launch
// CHECK:         scf.while (%[[AT:.*]] = %true) : (i1) -> () {
// CHECK:           %[[M0:.*]] = arith.select %[[AT]], %[[PHI]], %{{.*}} : f32
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[M0]],
// CHECK:             scf.if %[[AT]] -> (f32, f32) {
// CHECK-NEXT:          scf.yield %[[PHI]], %[[PHI]] : f32, f32
// CHECK-NEXT:        } else {
// CHECK:               arith.maximumf
// CHECK:               gpu.shuffle  xor
// CHECK:             scf.if %[[AT]] -> (vector<2x2xf32>
// CHECK-NEXT:          scf.yield %arg{{.*}} : vector<2x2xf32>
// CHECK-NEXT:        } else {
// CHECK-NEXT:          vector.from_elements
// CHECK-NEXT:          arith.mulf
// CHECK:           arith.cmpf oge, %{{.*}}, %[[LO]] : f32
// CHECK:           arith.cmpf ole, %{{.*}}, %[[HI]] : f32
// CHECK:           %[[VOTE:.*]] = scf.if %[[AT]] -> (i1) {
// CHECK:             nvvm.barrier #nvvm.reduction<or>
// CHECK:           } else {
// CHECK-NEXT:        scf.yield %false : i1
// CHECK:           scf.condition(%[[VOTE]])
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 16, keys_per_tile = 64, buffers = 2, key_splits = 4, packed_heads = 4>}

// CDNA has no barrier reduction: the vote is a flag word in workgroup
// memory, set between two barriers.
// AMD-LABEL: func.func @decode_unified
// AMD:         gpu.launch {{.*}} workgroup({{.*}}, %[[FLAGS:.*]] : memref<2xi32, #gpu.address_space<workgroup>>)
// AMD:           scf.while (%[[AT:.*]] = %true)
// AMD:             %[[VOTE:.*]] = scf.if %[[AT]] -> (i1) {
// AMD-NEXT:          gpu.barrier
// AMD-NEXT:          scf.if
// AMD-NEXT:            memref.store %c1_i32, %[[FLAGS]][%c0]
// AMD-NEXT:          }
// AMD-NEXT:          gpu.barrier
// AMD-NEXT:          memref.load %[[FLAGS]][%c0]
// AMD:             scf.condition(%[[VOTE]])
func.func @decode_unified(%q: memref<2x8x1x64xbf16>, %k: memref<2x2x1031x64xbf16>,
                          %o: memref<2x8x1x64xbf16>) {
  softmax.attention ins(%q, %k, %k : memref<2x8x1x64xbf16>, memref<2x2x1031x64xbf16>, memref<2x2x1031x64xbf16>)
      outs(%o : memref<2x8x1x64xbf16>) masked(zero)
      algorithm(unified_max, phi = 2.5)
  return
}
