// A front end's softmax, in upstream IR only: linalg.softmax over the rows
// of a batch of logits. `scripts/demo.sh` raises it to the softmax dialect,
// lowers it for the CPU with each algorithm, runs it with mlir-runner and
// checks the rows against a float64 reference (examples/check_demo.py).

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  // Row 0: ordinary logits. Row 1: +-1e4, where exp overflows without the
  // max subtraction. Row 2: some masked (-inf) entries. Row 3: large and
  // tiny together.
  %logits = arith.constant dense<[
    [0.5, -1.25, 3.0, 2.0, -0.75, 1.5, 0.25, -2.0, 1.0, 0.0, 2.5],
    [1.0e4, -1.0e4, 9999.5, 1.0e4, -9999.0, 9998.0, 0.0, -1.0, 1.0, 9997.0, 10000.25],
    [0xFF800000, 1.0, 0xFF800000, 2.0, 3.0, 0xFF800000, -1.0, 0.5, 0xFF800000, 4.0, -3.0],
    [88.0, -88.0, 1.0e-3, -1.0e-3, 40.0, 87.5, -40.0, 3.0e-7, 86.0, 0.0, 85.25]
  ]> : tensor<4x11xf32>
  %empty = tensor.empty() : tensor<4x11xf32>
  %probs = linalg.softmax dimension(1)
      ins(%logits : tensor<4x11xf32>) outs(%empty : tensor<4x11xf32>) -> tensor<4x11xf32>
  %buffer = bufferization.to_buffer %probs : tensor<4x11xf32> to memref<4x11xf32>
  %unranked = memref.cast %buffer : memref<4x11xf32> to memref<*xf32>
  call @printMemrefF32(%unranked) : (memref<*xf32>) -> ()
  return
}
