// Execution test: the exp of the CPU mapping against libm's f64 exp, on
// 2^22 f32 arguments evenly spread over [-87.33, 12] (softmax evaluates it
// on x - max <= 0; exp_pair on x - K ln 2, up to ~11 near |x| = 3e8), and
// at its edges: exactly 0 below -88 and for -inf, NaN for NaN.
//
// RUN: softmax-opt %s --test-softmax-vector-exp --convert-vector-to-scf --convert-scf-to-cf \
// RUN:   --convert-vector-to-llvm --finalize-memref-to-llvm --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | %mlir_runner -e main -entry-point-result=void %runner_libs | FileCheck %s

// The maximum relative error (docs/Numerics.md), and whether it is below
// 2e-7 (1.7 ulp).
// CHECK: max rel err {{[0-9.]+}}e-0{{7|8}}
// CHECK-NEXT: 1
// Edges: exp(-88.5), exp(-inf), exp(0), exp(NaN).
// CHECK-NEXT: ( 0, 0, 1, nan )

// Loaded, not constant, so that the folder cannot evaluate the exp.
memref.global "private" @edges : memref<4xf32> = dense<[-88.5, 0xFF800000, 0.0, 0x7FC00000]>

func.func @main() {
  %c0 = arith.constant 0 : index
  %n = arith.constant 4194304 : index
  %c16 = arith.constant 16 : index
  %lo = arith.constant -87.33 : f64
  %step = arith.constant 2.3076963424682617e-05 : f64  // 96.79 / 2^22
  %iota = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]> : vector<16xf64>
  %zero = arith.constant 0.0 : f64
  %worst = scf.for %i = %c0 to %n step %c16 iter_args(%w = %zero) -> (f64) {
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %base = vector.broadcast %fi : f64 to vector<16xf64>
    %idx = arith.addf %base, %iota : vector<16xf64>
    %stepv = vector.broadcast %step : f64 to vector<16xf64>
    %lov = vector.broadcast %lo : f64 to vector<16xf64>
    %z64 = math.fma %idx, %stepv, %lov : vector<16xf64>
    %z = arith.truncf %z64 : vector<16xf64> to vector<16xf32>
    %e = math.exp %z : vector<16xf32>
    %zr = arith.extf %z : vector<16xf32> to vector<16xf64>
    %ref = math.exp %zr : vector<16xf64>
    %e64 = arith.extf %e : vector<16xf32> to vector<16xf64>
    %d = arith.subf %e64, %ref : vector<16xf64>
    %ad = math.absf %d : vector<16xf64>
    %rel = arith.divf %ad, %ref : vector<16xf64>
    %m = vector.reduction <maximumf>, %rel : vector<16xf64> into f64
    %w2 = arith.maximumf %w, %m : f64
    scf.yield %w2 : f64
  }
  vector.print str "max rel err "
  vector.print %worst : f64
  %bound = arith.constant 2.0e-7 : f64
  %ok = arith.cmpf olt, %worst, %bound : f64
  vector.print %ok : i1
  %g = memref.get_global @edges : memref<4xf32>
  %edges = vector.load %g[%c0] : memref<4xf32>, vector<4xf32>
  %ee = math.exp %edges : vector<4xf32>
  vector.print %ee : vector<4xf32>
  return
}
