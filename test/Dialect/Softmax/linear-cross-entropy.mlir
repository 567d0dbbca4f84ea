// RUN: softmax-opt %s | softmax-opt | FileCheck %s
// RUN: softmax-opt %s --mlir-print-op-generic | softmax-opt | FileCheck %s

// Every optional part, and the defaults left unprinted (ignore_index
// -100, vocab_tile 1024).
// CHECK-LABEL: func.func @all
// CHECK: %{{.*}}:2 = softmax.linear_cross_entropy ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<8x64xbf16>, tensor<1031x64xbf16>, tensor<8xi64>) bias(%{{.*}} : tensor<1031xbf16>) outs(%{{.*}} : tensor<f32>) lse(%{{.*}} : tensor<8xf32>) reduction(mean) softcap(3.000000e+01) z_loss(9.99999974E-5) vocab_tile(256)
// CHECK-NOT: ignore_index
func.func @all(%h: tensor<8x64xbf16>, %w: tensor<1031x64xbf16>, %t: tensor<8xi64>, %b: tensor<1031xbf16>, %l0: tensor<f32>, %s0: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %l, %s = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<1031x64xbf16>, tensor<8xi64>) bias(%b : tensor<1031xbf16>) outs(%l0 : tensor<f32>) lse(%s0 : tensor<8xf32>) reduction(mean) ignore_index(-100) softcap(30.0) z_loss(1.0e-4) vocab_tile(256)
  return %l, %s : tensor<f32>, tensor<8xf32>
}

// Per-token losses, dynamic sizes, i32 targets, another ignore index.
// CHECK-LABEL: func.func @per_token
// CHECK: softmax.linear_cross_entropy ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xi32>) outs(%{{.*}} : tensor<?xf32>) reduction(none) ignore_index(0){{$}}
func.func @per_token(%h: tensor<?x?xf32>, %w: tensor<?x?xf32>, %t: tensor<?xi32>, %l0: tensor<?xf32>) -> tensor<?xf32> {
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xi32>) outs(%l0 : tensor<?xf32>) reduction(none) ignore_index(0)
  return %l : tensor<?xf32>
}

// The gradient op, every optional part.
// CHECK-LABEL: func.func @grad
// CHECK: softmax.linear_cross_entropy_grad ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<5x16xbf16>, tensor<97x16xbf16>, tensor<5xi64>, tensor<5xf32>, tensor<f32>) bias(%{{.*}} : tensor<97xbf16>) outs(%{{.*}}, %{{.*}} : tensor<5x16xf32>, tensor<97x16xbf16>) grad_bias(%{{.*}} : tensor<97xf32>) filter_counts(%{{.*}} : tensor<2xi64>) reduction(mean) softcap(3.000000e+01) z_loss(9.99999974E-5) filter(2.44140625E-4) vocab_tile(32) token_tile(2)
func.func @grad(%h: tensor<5x16xbf16>, %w: tensor<97x16xbf16>, %t: tensor<5xi64>, %lse: tensor<5xf32>, %dl: tensor<f32>, %b: tensor<97xbf16>, %gh0: tensor<5x16xf32>, %gw0: tensor<97x16xbf16>, %gb0: tensor<97xf32>, %n0: tensor<2xi64>) -> (tensor<5x16xf32>, tensor<97x16xbf16>, tensor<97xf32>, tensor<2xi64>) {
  %gh, %gw, %gb, %n = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<5x16xbf16>, tensor<97x16xbf16>, tensor<5xi64>, tensor<5xf32>, tensor<f32>) bias(%b : tensor<97xbf16>) outs(%gh0, %gw0 : tensor<5x16xf32>, tensor<97x16xbf16>) grad_bias(%gb0 : tensor<97xf32>) filter_counts(%n0 : tensor<2xi64>) reduction(mean) softcap(30.0) z_loss(1.0e-4) filter(2.44140625e-4) vocab_tile(32) token_tile(2)
  return %gh, %gw, %gb, %n : tensor<5x16xf32>, tensor<97x16xbf16>, tensor<97xf32>, tensor<2xi64>
}

// class_max from the forward into the gradient, three filter counts.
// CHECK-LABEL: func.func @class_max
// CHECK: %{{.*}}:3 = softmax.linear_cross_entropy ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<5x16xbf16>, tensor<300x16xbf16>, tensor<5xi64>) outs(%{{.*}} : tensor<f32>) lse(%{{.*}} : tensor<5xf32>) class_max(%{{.*}} : tensor<5x2xf32>) reduction(mean){{$}}
// CHECK: softmax.linear_cross_entropy_grad ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}#1, %{{.*}} : tensor<5x16xbf16>, tensor<300x16xbf16>, tensor<5xi64>, tensor<5xf32>, tensor<f32>) class_max(%{{.*}}#2 : tensor<5x2xf32>) outs(%{{.*}}, %{{.*}} : tensor<5x16xbf16>, tensor<300x16xbf16>) filter_counts(%{{.*}} : tensor<3xi64>) reduction(mean){{$}}
func.func @class_max(%h: tensor<5x16xbf16>, %w: tensor<300x16xbf16>, %t: tensor<5xi64>, %l0: tensor<f32>, %s0: tensor<5xf32>, %cm0: tensor<5x2xf32>, %dl: tensor<f32>, %gh0: tensor<5x16xbf16>, %gw0: tensor<300x16xbf16>, %n0: tensor<3xi64>) -> (tensor<f32>, tensor<5x16xbf16>, tensor<300x16xbf16>, tensor<3xi64>) {
  %l, %lse, %cm = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<5x16xbf16>, tensor<300x16xbf16>, tensor<5xi64>) outs(%l0 : tensor<f32>) lse(%s0 : tensor<5xf32>) class_max(%cm0 : tensor<5x2xf32>) reduction(mean)
  %gh, %gw, %n = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<5x16xbf16>, tensor<300x16xbf16>, tensor<5xi64>, tensor<5xf32>, tensor<f32>) class_max(%cm : tensor<5x2xf32>) outs(%gh0, %gw0 : tensor<5x16xbf16>, tensor<300x16xbf16>) filter_counts(%n0 : tensor<3xi64>) reduction(mean)
  return %l, %gh, %gw, %n : tensor<f32>, tensor<5x16xbf16>, tensor<300x16xbf16>, tensor<3xi64>
}

// On memrefs (the GPU mapping's form): no results, the inits written.
// CHECK-LABEL: func.func @buffers
// CHECK: softmax.linear_cross_entropy ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<8x64xbf16>, memref<1031x64xbf16>, memref<8xi64>) bias(%{{.*}} : memref<1031xbf16>) outs(%{{.*}} : memref<8xf32>) lse(%{{.*}} : memref<8xf32>) class_max(%{{.*}} : memref<8x5xf32>) reduction(none){{$}}
func.func @buffers(%h: memref<8x64xbf16>, %w: memref<1031x64xbf16>, %t: memref<8xi64>, %b: memref<1031xbf16>, %l: memref<8xf32>, %s: memref<8xf32>, %cm: memref<8x5xf32>) {
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<8x64xbf16>, memref<1031x64xbf16>, memref<8xi64>) bias(%b : memref<1031xbf16>) outs(%l : memref<8xf32>) lse(%s : memref<8xf32>) class_max(%cm : memref<8x5xf32>) reduction(none)
  return
}

// The gradient on memrefs: no results, the inits written; the filter tile
// left to the target.
// CHECK-LABEL: func.func @grad_buffers
// CHECK: softmax.linear_cross_entropy_grad ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<5x16xbf16>, memref<97x16xbf16>, memref<5xi32>, memref<5xf32>, memref<5xf32>) outs(%{{.*}}, %{{.*}} : memref<5x16xbf16>, memref<97x16xf32>) filter_counts(%{{.*}} : memref<2xi64>) reduction(none){{$}}
func.func @grad_buffers(%h: memref<5x16xbf16>, %w: memref<97x16xbf16>, %t: memref<5xi32>, %lse: memref<5xf32>, %dl: memref<5xf32>, %gh: memref<5x16xbf16>, %gw: memref<97x16xf32>, %n: memref<2xi64>) {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<5x16xbf16>, memref<97x16xbf16>, memref<5xi32>, memref<5xf32>, memref<5xf32>) outs(%gh, %gw : memref<5x16xbf16>, memref<97x16xf32>) filter_counts(%n : memref<2xi64>) reduction(none)
  return
}
