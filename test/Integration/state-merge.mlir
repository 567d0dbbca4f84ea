// The merge of two partial states equals the state of the whole row, for
// both state encodings, and rescales accumulators like the sum.
// RUN: softmax-opt %s --softmax-to-cpu | %mlir_runner -e main -entry-point-result=void %runner_libs | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @identity() -> (tensor<3xf32>, tensor<3xf32>) {
  %lowest = arith.constant dense<-3.40282347E+38> : tensor<3xf32>
  %zero = arith.constant dense<0.0> : tensor<3xf32>
  return %lowest, %zero : tensor<3xf32>, tensor<3xf32>
}

// lse of the whole row, and lse of the merge of its two halves.
func.func @lse_two_ways(%x: tensor<3x8xf32>) -> tensor<?x?xf32> {
  %i = tensor.empty() : tensor<3xf32>
  %whole = softmax.logsumexp ins(%x : tensor<3x8xf32>) outs(%i : tensor<3xf32>) dimension(1) masked(zero) algorithm(three_pass)
  %a = tensor.extract_slice %x[0, 0] [3, 3] [1, 1] : tensor<3x8xf32> to tensor<3x3xf32>
  %b = tensor.extract_slice %x[0, 3] [3, 5] [1, 1] : tensor<3x8xf32> to tensor<3x5xf32>
  %m0, %l0 = func.call @identity() : () -> (tensor<3xf32>, tensor<3xf32>)
  // max states (online), merged with exp
  %ma, %la, %ma_c = softmax.partial ins(%a : tensor<3x3xf32>) outs(%m0, %l0, %l0 : tensor<3xf32>) dimension(1) algorithm(online)
  %mb, %lb, %mb_c = softmax.partial ins(%b : tensor<3x5xf32>) outs(%m0, %l0, %l0 : tensor<3xf32>) dimension(1) algorithm(online)
  %m, %l = softmax.merge (%ma, %la), (%mb, %lb) state(max) : tensor<3xf32>
  %viaMax = softmax.lse ins(%m, %l : tensor<3xf32>) outs(%i : tensor<3xf32>) state(max) masked(zero)
  // exponent states (exp_pair), merged with exact powers of two
  %ka, %sa, %ka_c = softmax.partial ins(%a : tensor<3x3xf32>) outs(%m0, %l0, %l0 : tensor<3xf32>) dimension(1) algorithm(exp_pair)
  %kb, %sb, %kb_c = softmax.partial ins(%b : tensor<3x5xf32>) outs(%m0, %l0, %l0 : tensor<3xf32>) dimension(1) algorithm(exp_pair)
  %k, %s = softmax.merge (%ka, %sa), (%kb, %sb) state(exponent) : tensor<3xf32>
  %viaExp = softmax.lse ins(%k, %s : tensor<3xf32>) outs(%i : tensor<3xf32>) state(exponent) masked(zero)
  %e = tensor.empty() : tensor<3x3xf32>
  %r0 = tensor.insert_slice %whole into %e[0, 0] [3, 1] [1, 1] : tensor<3xf32> into tensor<3x3xf32>
  %r1 = tensor.insert_slice %viaMax into %r0[0, 1] [3, 1] [1, 1] : tensor<3xf32> into tensor<3x3xf32>
  %r2 = tensor.insert_slice %viaExp into %r1[0, 2] [3, 1] [1, 1] : tensor<3xf32> into tensor<3x3xf32>
  %r = tensor.cast %r2 : tensor<3x3xf32> to tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Accumulators equal to the sums (every value 1) must merge into the sum.
func.func @acc_follows_sum(%x: tensor<3x8xf32>) -> tensor<?x?xf32> {
  %a = tensor.extract_slice %x[0, 0] [3, 4] [1, 1] : tensor<3x8xf32> to tensor<3x4xf32>
  %b = tensor.extract_slice %x[0, 4] [3, 4] [1, 1] : tensor<3x8xf32> to tensor<3x4xf32>
  %m0, %l0 = func.call @identity() : () -> (tensor<3xf32>, tensor<3xf32>)
  %ma, %la, %ma_c = softmax.partial ins(%a : tensor<3x4xf32>) outs(%m0, %l0, %l0 : tensor<3xf32>) dimension(1) algorithm(online)
  %mb, %lb, %mb_c = softmax.partial ins(%b : tensor<3x4xf32>) outs(%m0, %l0, %l0 : tensor<3xf32>) dimension(1) algorithm(online)
  %e = tensor.empty() : tensor<3x2xf32>
  %oa = linalg.broadcast ins(%la : tensor<3xf32>) outs(%e : tensor<3x2xf32>) dimensions = [1]
  %ob = linalg.broadcast ins(%lb : tensor<3xf32>) outs(%e : tensor<3x2xf32>) dimensions = [1]
  %m, %l, %o = softmax.merge (%ma, %la), (%mb, %lb) acc(%oa, %ob : tensor<3x2xf32>, tensor<3x2xf32> -> tensor<3x2xf32>) state(max) : tensor<3xf32>
  %r0 = tensor.empty() : tensor<3x3xf32>
  %r1 = tensor.insert_slice %l into %r0[0, 0] [3, 1] [1, 1] : tensor<3xf32> into tensor<3x3xf32>
  %r2 = tensor.insert_slice %o into %r1[0, 1] [3, 2] [1, 1] : tensor<3x2xf32> into tensor<3x3xf32>
  %r = tensor.cast %r2 : tensor<3x3xf32> to tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Two offsets of -inf (the identity the op accepts besides -FLT_MAX) merge
// without a NaN: row 0 merges two -inf states, row 1 a -inf state into
// (2, 3, [5, 6]). Kept behind a call so that the merge's folder does not
// see the constants.
func.func @neg_inf_states() -> (tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>,
                                tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) {
  %m1 = arith.constant dense<0xFF800000> : tensor<2xf32>
  %l1 = arith.constant dense<0.0> : tensor<2xf32>
  %o1 = arith.constant dense<0.0> : tensor<2x2xf32>
  %m2 = arith.constant dense<[0xFF800000, 2.0]> : tensor<2xf32>
  %l2 = arith.constant dense<[0.0, 3.0]> : tensor<2xf32>
  %o2 = arith.constant dense<[[0.0, 0.0], [5.0, 6.0]]> : tensor<2x2xf32>
  return %m1, %l1, %o1, %m2, %l2, %o2 : tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>
}

func.func @merge_neg_inf() -> tensor<?x?xf32> {
  %m1, %l1, %o1, %m2, %l2, %o2 = func.call @neg_inf_states() : () -> (tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>)
  %m, %l, %o = softmax.merge (%m1, %l1), (%m2, %l2) acc(%o1, %o2 : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>) state(max) : tensor<2xf32>
  %r0 = tensor.empty() : tensor<2x4xf32>
  %r1 = tensor.insert_slice %m into %r0[0, 0] [2, 1] [1, 1] : tensor<2xf32> into tensor<2x4xf32>
  %r2 = tensor.insert_slice %l into %r1[0, 1] [2, 1] [1, 1] : tensor<2xf32> into tensor<2x4xf32>
  %r3 = tensor.insert_slice %o into %r2[0, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x4xf32>
  %r = tensor.cast %r3 : tensor<2x4xf32> to tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @main() {
  // Rows: mixed signs; +-1e4 across the two halves; the first half all -inf.
  %x = arith.constant dense<[
    [0.5, -1.25, 3.0, 2.0, -0.75, 1.5, 0.25, -2.0],
    [-1.0e4, 3.0, -7.5, 1.0e4, 9999.0, -1.0e4, 2.0, 10001.0],
    [0xFF800000, 0xFF800000, 0xFF800000, -3.0, 4.0, 0xFF800000, 1.0, -0.5]]> : tensor<3x8xf32>
  // Three equal columns per row: whole row, merged max states, merged
  // exponent states. float64 reference: 3.5774795, 10001.4076, 4.0599731.
  // CHECK: [3.57748, 3.57748, 3.57748]
  // CHECK-NEXT: [10001.4, 10001.4, 10001.4]
  // CHECK-NEXT: [4.05997, 4.05997, 4.05997]
  %lse = func.call @lse_two_ways(%x) : (tensor<3x8xf32>) -> tensor<?x?xf32>
  func.call @print(%lse) : (tensor<?x?xf32>) -> ()
  // CHECK: {{\[}}[[S0:[-0-9.e+]+]], [[S0]], [[S0]]]
  // CHECK-NEXT: {{\[}}[[S1:[-0-9.e+]+]], [[S1]], [[S1]]]
  // CHECK-NEXT: {{\[}}[[S2:[-0-9.e+]+]], [[S2]], [[S2]]]
  %acc = func.call @acc_follows_sum(%x) : (tensor<3x8xf32>) -> tensor<?x?xf32>
  func.call @print(%acc) : (tensor<?x?xf32>) -> ()
  // CHECK: [-inf, 0, 0, 0]
  // CHECK-NEXT: [2, 3, 5, 6]
  %neg = func.call @merge_neg_inf() : () -> tensor<?x?xf32>
  func.call @print(%neg) : (tensor<?x?xf32>) -> ()
  return
}
