// softmax.linear_cross_entropy_grad lowered by softmax-to-nvvm for
// linear-cross-entropy-grad-gpu.test (the driver is
// Inputs/linear-cross-entropy-grad-main.cpp):
//   odd_exact    bf16, 300 tokens (3 token tiles, the last partial), D 72 (a
//                chunk of 64 features and a partial one), V 1031 (the last
//                class tile partial), bias, softcap 30, z-loss 1e-4,
//                per-token loss gradients, filter(0.0), f32 gradients
//                (accumulated in place), the counts
//   f16_filter   f16, 130 tokens, D 128, V 20000, i32 targets, ignore_index
//                7, the mean, the default filter (2^-15), f16 gradients
//                (rounded from f32 accumulators), the counts
//   bf16_bias    bf16, 256 tokens, D 128, V 9001, bias with a bf16 grad_bias,
//                the mean, the default filter (2^-12), the counts
//   one_sum      bf16, 7 tokens, D 64, V 1, the sum
//   many_tokens  bf16, 131200 tokens (1025 token tiles: on sm_90a the
//                classifier's products list the kept tiles in two
//                windows of 1024), D 64, V 40, the mean, filter(0.0), the
//                counts
//   class_max    bf16, 256 tokens, D 64, V 40000, the mean, the default
//                filter, class_max (157 groups) and three counts; after
//                class_max_plain, the same inputs without class_max
func.func @odd_exact(%h: memref<300x72xbf16>, %w: memref<1031x72xbf16>, %t: memref<300xi64>, %lse: memref<300xf32>, %dl: memref<300xf32>, %b: memref<1031xbf16>, %gh: memref<300x72xf32>, %gw: memref<1031x72xf32>, %gb: memref<1031xf32>, %n: memref<2xi64>) attributes {llvm.emit_c_interface} {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<300x72xbf16>, memref<1031x72xbf16>, memref<300xi64>, memref<300xf32>, memref<300xf32>) bias(%b : memref<1031xbf16>) outs(%gh, %gw : memref<300x72xf32>, memref<1031x72xf32>) grad_bias(%gb : memref<1031xf32>) filter_counts(%n : memref<2xi64>) reduction(none) softcap(3.0e+01) z_loss(1.0e-04) filter(0.0)
  return
}

func.func @f16_filter(%h: memref<130x128xf16>, %w: memref<20000x128xf16>, %t: memref<130xi32>, %lse: memref<130xf32>, %dl: memref<f32>, %gh: memref<130x128xf16>, %gw: memref<20000x128xf16>, %n: memref<2xi64>) attributes {llvm.emit_c_interface} {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<130x128xf16>, memref<20000x128xf16>, memref<130xi32>, memref<130xf32>, memref<f32>) outs(%gh, %gw : memref<130x128xf16>, memref<20000x128xf16>) filter_counts(%n : memref<2xi64>) reduction(mean) ignore_index(7)
  return
}

func.func @bf16_bias(%h: memref<256x128xbf16>, %w: memref<9001x128xbf16>, %t: memref<256xi64>, %lse: memref<256xf32>, %dl: memref<f32>, %b: memref<9001xbf16>, %gh: memref<256x128xbf16>, %gw: memref<9001x128xbf16>, %gb: memref<9001xbf16>, %n: memref<2xi64>) attributes {llvm.emit_c_interface} {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<256x128xbf16>, memref<9001x128xbf16>, memref<256xi64>, memref<256xf32>, memref<f32>) bias(%b : memref<9001xbf16>) outs(%gh, %gw : memref<256x128xbf16>, memref<9001x128xbf16>) grad_bias(%gb : memref<9001xbf16>) filter_counts(%n : memref<2xi64>) reduction(mean)
  return
}

func.func @one_sum(%h: memref<7x64xbf16>, %w: memref<1x64xbf16>, %t: memref<7xi64>, %lse: memref<7xf32>, %dl: memref<f32>, %gh: memref<7x64xbf16>, %gw: memref<1x64xbf16>) attributes {llvm.emit_c_interface} {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<7x64xbf16>, memref<1x64xbf16>, memref<7xi64>, memref<7xf32>, memref<f32>) outs(%gh, %gw : memref<7x64xbf16>, memref<1x64xbf16>) reduction(sum)
  return
}

func.func @many_tokens(%h: memref<131200x64xbf16>, %w: memref<40x64xbf16>, %t: memref<131200xi64>, %lse: memref<131200xf32>, %dl: memref<f32>, %gh: memref<131200x64xbf16>, %gw: memref<40x64xbf16>, %n: memref<2xi64>) attributes {llvm.emit_c_interface} {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<131200x64xbf16>, memref<40x64xbf16>, memref<131200xi64>, memref<131200xf32>, memref<f32>) outs(%gh, %gw : memref<131200x64xbf16>, memref<40x64xbf16>) filter_counts(%n : memref<2xi64>) reduction(mean) filter(0.0)
  return
}

func.func @class_max(%h: memref<256x64xbf16>, %w: memref<40000x64xbf16>, %t: memref<256xi64>, %lse: memref<256xf32>, %dl: memref<f32>, %cm: memref<256x157xf32>, %gh: memref<256x64xbf16>, %gw: memref<40000x64xbf16>, %n: memref<3xi64>) attributes {llvm.emit_c_interface} {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<256x64xbf16>, memref<40000x64xbf16>, memref<256xi64>, memref<256xf32>, memref<f32>) class_max(%cm : memref<256x157xf32>) outs(%gh, %gw : memref<256x64xbf16>, memref<40000x64xbf16>) filter_counts(%n : memref<3xi64>) reduction(mean)
  return
}

func.func @class_max_plain(%h: memref<256x64xbf16>, %w: memref<40000x64xbf16>, %t: memref<256xi64>, %lse: memref<256xf32>, %dl: memref<f32>, %gh: memref<256x64xbf16>, %gw: memref<40000x64xbf16>, %n: memref<2xi64>) attributes {llvm.emit_c_interface} {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<256x64xbf16>, memref<40000x64xbf16>, memref<256xi64>, memref<256xf32>, memref<f32>) outs(%gh, %gw : memref<256x64xbf16>, memref<40000x64xbf16>) filter_counts(%n : memref<2xi64>) reduction(mean)
  return
}
