// softmax.linear_cross_entropy lowered by softmax-to-nvvm for
// linear-cross-entropy-gpu.test (the driver is
// Inputs/linear-cross-entropy-main.cpp):
//   odd_none   bf16, 300 tokens (3 token tiles, the last partial), D 72 (a
//              slice of 64 features and a partial one), V 1031 (the last
//              class tile partial), bias, softcap 30, z-loss 1e-4, per-token
//              losses and lse
//   f16_mean   f16, 130 tokens, D 128, V 5000, i32 targets, ignore_index 7,
//              the mean
//   one_sum    bf16, 7 tokens, D 64, V 1, the sum
func.func @odd_none(%h: memref<300x72xbf16>, %w: memref<1031x72xbf16>, %t: memref<300xi64>, %b: memref<1031xbf16>, %l: memref<300xf32>, %s: memref<300xf32>) attributes {llvm.emit_c_interface} {
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<300x72xbf16>, memref<1031x72xbf16>, memref<300xi64>) bias(%b : memref<1031xbf16>) outs(%l : memref<300xf32>) lse(%s : memref<300xf32>) reduction(none) softcap(3.0e+01) z_loss(1.0e-04)
  return
}

func.func @f16_mean(%h: memref<130x128xf16>, %w: memref<5000x128xf16>, %t: memref<130xi32>, %l: memref<f32>, %s: memref<130xf32>) attributes {llvm.emit_c_interface} {
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<130x128xf16>, memref<5000x128xf16>, memref<130xi32>) outs(%l : memref<f32>) lse(%s : memref<130xf32>) reduction(mean) ignore_index(7)
  return
}

func.func @one_sum(%h: memref<7x64xbf16>, %w: memref<1x64xbf16>, %t: memref<7xi64>, %l: memref<f32>, %s: memref<7xf32>) attributes {llvm.emit_c_interface} {
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<7x64xbf16>, memref<1x64xbf16>, memref<7xi64>) outs(%l : memref<f32>) lse(%s : memref<7xf32>) reduction(sum)
  return
}
