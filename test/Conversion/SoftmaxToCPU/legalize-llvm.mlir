// RUN: softmax-opt %s --softmax-cpu-legalize-llvm -split-input-file | FileCheck %s

// A bf16 masked store stores its bits as i16, with the same pointer, mask
// and alignment.
// CHECK-LABEL: llvm.func @bf16_store
// CHECK-SAME: (%[[V:.*]]: vector<64xbf16>, %[[P:.*]]: !llvm.ptr, %[[M:.*]]: vector<64xi1>)
// CHECK: %[[B:.*]] = llvm.bitcast %[[V]] : vector<64xbf16> to vector<64xi16>
// CHECK: llvm.intr.masked.store %[[B]], %[[P]], %[[M]] {alignment = 2 : i32} : vector<64xi16>, vector<64xi1> into !llvm.ptr
// CHECK-NOT: bf16
llvm.func @bf16_store(%v: vector<64xbf16>, %p: !llvm.ptr, %m: vector<64xi1>) {
  llvm.intr.masked.store %v, %p, %m {alignment = 2 : i32} : vector<64xbf16>, vector<64xi1> into !llvm.ptr
  llvm.return
}

// -----

// Other element types, and bf16 loads, are left as they are: LLVM 22
// selects them.
// CHECK-LABEL: llvm.func @others
// CHECK-NOT: llvm.bitcast
// CHECK: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<64xi1>, vector<64xbf16>) -> vector<64xbf16>
// CHECK: llvm.intr.masked.store %{{.*}} : vector<64xf16>, vector<64xi1> into !llvm.ptr
// CHECK: llvm.intr.masked.store %{{.*}} : vector<16xf32>, vector<16xi1> into !llvm.ptr
llvm.func @others(%p: !llvm.ptr, %m: vector<64xi1>, %h: vector<64xf16>, %f: vector<16xf32>, %n: vector<16xi1>, %z: vector<64xbf16>) -> vector<64xbf16> {
  %l = llvm.intr.masked.load %p, %m, %z {alignment = 2 : i32} : (!llvm.ptr, vector<64xi1>, vector<64xbf16>) -> vector<64xbf16>
  llvm.intr.masked.store %h, %p, %m {alignment = 2 : i32} : vector<64xf16>, vector<64xi1> into !llvm.ptr
  llvm.intr.masked.store %f, %p, %n {alignment = 4 : i32} : vector<16xf32>, vector<16xi1> into !llvm.ptr
  llvm.return %l : vector<64xbf16>
}
