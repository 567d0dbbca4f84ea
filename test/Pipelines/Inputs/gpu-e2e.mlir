// A program in the module form of softmax-to-cpu, for softmax-to-nvvm: the
// inputs are constants or computed by host code, the results come back as
// buffers the module allocates itself (softmax-stage-gpu-buffers makes them
// reachable from the kernels). test/Pipelines/device/e2e.sh links it with a
// C driver that checks the results against float64 and runs it on a GPU.

// linalg.softmax raised by the pipeline; hostile rows included.
func.func @small_softmax() -> tensor<4x11xf32> attributes {llvm.emit_c_interface} {
  %logits = arith.constant dense<[
    [0.5, -1.25, 3.0, 2.0, -0.75, 1.5, 0.25, -2.0, 1.0, 0.0, 2.5],
    [1.0e4, -1.0e4, 9999.5, 1.0e4, -9999.0, 9998.0, 0.0, -1.0, 1.0, 9997.0, 10000.25],
    [0xFF800000, 1.0, 0xFF800000, 2.0, 3.0, 0xFF800000, -1.0, 0.5, 0xFF800000, 4.0, -3.0],
    [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000]
  ]> : tensor<4x11xf32>
  %e = tensor.empty() : tensor<4x11xf32>
  %p = linalg.softmax dimension(1) ins(%logits : tensor<4x11xf32>) outs(%e : tensor<4x11xf32>) -> tensor<4x11xf32>
  return %p : tensor<4x11xf32>
}

// x[i, j] = 8 sin(0.37 i + 0.0123 j), computed on the host.
func.func @wave(%rows: index, %cols: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %jj = arith.index_cast %j : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %fj = arith.sitofp %jj : i32 to f32
    %a = arith.constant 0.37 : f32
    %b = arith.constant 0.0123 : f32
    %s = arith.constant 8.0 : f32
    %t = arith.addf %fi, %fj : f32
    %u = arith.mulf %fi, %a : f32
    %v = arith.mulf %fj, %b : f32
    %w = arith.addf %u, %v : f32
    %sin = math.sin %w : f32
    %r = arith.mulf %sin, %s : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %x : tensor<?x?xf32>
}

// A long row split over blocks (2 x 65536: 8 blocks per row).
func.func @split_softmax() -> tensor<2x65536xf32> attributes {llvm.emit_c_interface} {
  %c2 = arith.constant 2 : index
  %cn = arith.constant 65536 : index
  %x = func.call @wave(%c2, %cn) : (index, index) -> tensor<?x?xf32>
  %xs = tensor.cast %x : tensor<?x?xf32> to tensor<2x65536xf32>
  %e = tensor.empty() : tensor<2x65536xf32>
  %y = softmax.softmax ins(%xs : tensor<2x65536xf32>) outs(%e : tensor<2x65536xf32>) dimension(1) masked(zero) algorithm(online)
  return %y : tensor<2x65536xf32>
}

// logsumexp of 300 rows of 1000 (a block per row), exp_pair.
func.func @lse_rows() -> tensor<300xf32> attributes {llvm.emit_c_interface} {
  %c300 = arith.constant 300 : index
  %c1000 = arith.constant 1000 : index
  %x = func.call @wave(%c300, %c1000) : (index, index) -> tensor<?x?xf32>
  %xs = tensor.cast %x : tensor<?x?xf32> to tensor<300x1000xf32>
  %e = tensor.empty() : tensor<300xf32>
  %y = softmax.logsumexp ins(%xs : tensor<300x1000xf32>) outs(%e : tensor<300xf32>) dimension(1) masked(zero) algorithm(exp_pair)
  return %y : tensor<300xf32>
}
