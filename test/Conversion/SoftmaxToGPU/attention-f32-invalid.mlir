// RUN: not softmax-opt %s --softmax-map-to-gpu=chip=gfx942 -split-input-file 2>&1 | FileCheck %s --check-prefix=CDNA
// RUN: not softmax-opt %s --softmax-map-to-gpu=chip=sm_80 -split-input-file 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-f32-precision=fast" 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=gfx942 attention-f32-precision=tf32" 2>&1 | FileCheck %s --check-prefix=CDNA-TF32

// What the f32 mapping refuses, each with its own diagnostic:
// - f32 attention on CDNA (the MFMA end is f16/bf16 only), whatever the
//   precision asked for;
// - attention-f32-precision=tf32 on CDNA, refused by the pass itself, and
//   a precision other than exact or tf32;
// - tiles that do not fit the chip's shared memory: at d 256 the f32 K and
//   V tiles and 64 queries need 199680 bytes, more than sm_80's 166912
//   (sm_90 has 232448).
// VALUE: error: softmax-map-to-gpu: attention-f32-precision must be exact or tf32, not 'fast'
// CDNA-TF32: error: softmax-map-to-gpu: attention-f32-precision=tf32 needs NVIDIA tf32 tensor cores (sm_80, sm_90), not gfx942
// CDNA: error: 'softmax.attention' op GPU attention mapping runs on f16 or bf16 tensor cores (f32 attention is NVIDIA only: CDNA's MFMA end has no f32 path), not 'f32' inputs
// CDNA: error: 'softmax.attention' op GPU attention mapping runs on f16 or bf16 tensor cores (f32 attention is NVIDIA only: CDNA's MFMA end has no f32 path), not 'f32' inputs
// SM80-NOT: error
// SM80: error: 'softmax.attention' op GPU attention mapping needs 199680 bytes of shared memory per block for these head dimensions; sm_80 has 166912
func.func @attention_f32(%q: memref<1x1x4x16xf32>, %k: memref<1x1x8x16xf32>, %v: memref<1x1x8x16xf32>, %o: memref<1x1x4x16xf32>) {
  softmax.attention ins(%q, %k, %v : memref<1x1x4x16xf32>, memref<1x1x8x16xf32>, memref<1x1x8x16xf32>) outs(%o : memref<1x1x4x16xf32>) masked(zero)
  return
}

// -----

func.func @attention_f32_d256(%q: memref<1x1x64x256xf32>, %k: memref<1x1x64x256xf32>, %v: memref<1x1x64x256xf32>, %o: memref<1x1x64x256xf32>) {
  softmax.attention ins(%q, %k, %v : memref<1x1x64x256xf32>, memref<1x1x64x256xf32>, memref<1x1x64x256xf32>) outs(%o : memref<1x1x64x256xf32>) masked(zero) causal
  return
}
