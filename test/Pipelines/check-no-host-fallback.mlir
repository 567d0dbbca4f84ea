// RUN: softmax-opt %s --softmax-check-no-host-fallback="pipeline=softmax-to-nvvm" -split-input-file -verify-diagnostics

// softmax-check-no-host-fallback: what is still softmax- or attention-shaped
// outside kernels is an error; everything else passes unchanged.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// exp then a row sum, on buffers: the buffer links the two ops.
func.func @exp_then_sum(%x: memref<4x8xf32>, %s: memref<4xf32>) {
  %t = memref.alloc() : memref<4x8xf32>
  // expected-error @+1 {{softmax-to-nvvm would compile this softmax-shaped computation (math.exp whose result is reduced) for the host, not into a GPU kernel (softmax-raise did not raise it); pass allow-host-code=true to the pipeline to allow host code}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%t : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  // expected-note @+1 {{the reduction}}
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%t : memref<4x8xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %t : memref<4x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A row max, then exp(x - max) through a subview of the max buffer: the
// reduction produces what the exp reads.
func.func @max_then_exp(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %m = memref.alloc() : memref<4xf32>
  // expected-note @+1 {{the reduction}}
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = arith.maximumf %a, %b : f32
    linalg.yield %0 : f32
  }
  %v = memref.subview %m[0] [4] [1] : memref<4xf32> to memref<4xf32, strided<[1]>>
  // expected-error @+1 {{softmax-shaped computation (math.exp of a reduction's result)}}
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %v : memref<4x8xf32>, memref<4xf32, strided<[1]>>) outs(%y : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %m : memref<4xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// exp and the sum fused into one reduction, on tensors.
func.func @fused_exp_sum(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{softmax-shaped computation (math.exp reduced in the same op)}}
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    %0 = arith.addf %e, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// exp of a row max, on tensors, through a reshape.
func.func @tensor_max_then_exp(%x: tensor<4x8xf32>, %init: tensor<4xf32>, %out: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-note @+1 {{the reduction}}
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = arith.maximumf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %c = tensor.cast %m : tensor<4xf32> to tensor<?xf32>
  %d = tensor.cast %c : tensor<?xf32> to tensor<4xf32>
  // expected-error @+1 {{softmax-shaped computation (math.exp of a reduction's result)}}
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %d : tensor<4x8xf32>, tensor<4xf32>) outs(%out : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A matmul feeding exp: attention-shaped.
func.func @matmul_then_exp(%q: memref<4x16xf32>, %k: memref<16x8xf32>, %p: memref<4x8xf32>) {
  %s = memref.alloc() : memref<4x8xf32>
  // expected-note @+1 {{the matmul}}
  linalg.matmul ins(%q, %k : memref<4x16xf32>, memref<16x8xf32>) outs(%s : memref<4x8xf32>)
  // expected-error @+1 {{softmax-to-nvvm would compile this attention-shaped computation (math.exp of a matmul's result) for the host}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<4x8xf32>) outs(%p : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  memref.dealloc %s : memref<4x8xf32>
  return
}

// -----

func.func @linalg_softmax(%x: tensor<4x8xf32>, %out: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{softmax-to-nvvm would compile this linalg.softmax for the host, not into a GPU kernel (softmax-raise did not raise it); pass allow-host-code=true to the pipeline to allow host code}}
  %y = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @unmapped_softmax_op(%x: memref<4x8xf64>, %y: memref<4x8xf64>) {
  // expected-error @+1 {{softmax-to-nvvm would compile this 'softmax.softmax' op for the host, not into a GPU kernel (softmax-map-to-gpu did not map it); pass allow-host-code=true to the pipeline to allow host code}}
  softmax.softmax ins(%x : memref<4x8xf64>) outs(%y : memref<4x8xf64>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Not softmax-shaped: an exp alone, a sum alone, a matmul alone (the exp
// and the sum touch different buffers), and an exp with a reduction inside
// a kernel.
func.func @left_alone(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %s: memref<4xf32>,
                      %a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %e = math.exp %i : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %0 = arith.addf %i, %o : f32
    linalg.yield %0 : f32
  }
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<4x8xf32>) outs(%s : memref<4xf32>) {
    ^bb0(%i: f32, %o: f32):
      %e = math.exp %i : f32
      %0 = arith.addf %e, %o : f32
      linalg.yield %0 : f32
    }
    gpu.terminator
  }
  return
}
