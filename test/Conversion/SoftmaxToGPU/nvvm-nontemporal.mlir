// softmax-nvvm-nontemporal: nontemporal llvm.load and llvm.store of 32, 64
// or 128 bits in the global or generic address space become the same
// accesses with PTX's streaming operator .cs, on 32-bit lanes, kept in
// order with the kernel's other memory accesses (has_side_effects, and a
// memory clobber on stores). Any other nontemporal access loses the
// attribute with a warning; accesses without it are left alone.
// RUN: softmax-opt %s --softmax-nvvm-nontemporal -verify-diagnostics --mlir-print-op-on-diagnostic=false | FileCheck %s

// CHECK-LABEL: llvm.func @vectors
// CHECK: %[[A:.*]] = llvm.inline_asm has_side_effects "ld.global.cs.v4.u32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l" %arg0 : (!llvm.ptr<1>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.extractvalue %[[A]][3]
// CHECK: %[[W:.*]] = llvm.insertelement
// CHECK: %[[V:.*]] = llvm.bitcast %[[W]] : vector<4xi32> to vector<8xbf16>
// CHECK: %[[S:.*]] = llvm.bitcast %arg2 : vector<8xbf16> to vector<4xi32>
// CHECK: llvm.extractelement %[[S]]
// CHECK: llvm.inline_asm has_side_effects "st.cs.v4.u32 [$0], {$1, $2, $3, $4};", "l,r,r,r,r,~{memory}" %arg1, {{.*}} : (!llvm.ptr, i32, i32, i32, i32) -> ()
// CHECK: llvm.inline_asm has_side_effects "ld.cs.v2.u32 {$0, $1}, [$2];", "=r,=r,l" %arg1 : (!llvm.ptr) -> !llvm.struct<(i32, i32)>
// CHECK: llvm.inline_asm has_side_effects "st.global.cs.v2.u32 [$0], {$1, $2};", "l,r,r,~{memory}" %arg0
// A load without the attribute stays.
// CHECK: llvm.load %arg0 {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.return %[[V]]
llvm.func @vectors(%p: !llvm.ptr<1>, %q: !llvm.ptr, %x: vector<8xbf16>) -> vector<8xbf16> {
  %v = llvm.load %p {alignment = 16 : i64, nontemporal} : !llvm.ptr<1> -> vector<8xbf16>
  llvm.store %x, %q {alignment = 16 : i64, nontemporal} : vector<8xbf16>, !llvm.ptr
  %h = llvm.load %q {alignment = 8 : i64, nontemporal} : !llvm.ptr -> vector<2xf32>
  llvm.store %h, %p {alignment = 8 : i64, nontemporal} : vector<2xf32>, !llvm.ptr<1>
  %f = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  llvm.store %f, %q : vector<4xf32>, !llvm.ptr
  llvm.return %v : vector<8xbf16>
}

// A scalar of 32 bits is one lane, without a vector.
// CHECK-LABEL: llvm.func @scalars
// CHECK: %[[F:.*]] = llvm.inline_asm has_side_effects "ld.cs.u32 $0, [$1];", "=r,l" %arg1 : (!llvm.ptr) -> i32
// CHECK: %[[X:.*]] = llvm.bitcast %[[F]] : i32 to f32
// CHECK: %[[B:.*]] = llvm.bitcast %arg2 : f32 to i32
// CHECK: llvm.inline_asm has_side_effects "st.global.cs.u32 [$0], $1;", "l,r,~{memory}" %arg0, %[[B]]
// CHECK: llvm.return %[[X]]
llvm.func @scalars(%p: !llvm.ptr<1>, %q: !llvm.ptr, %y: f32) -> f32 {
  %f = llvm.load %q {nontemporal} : !llvm.ptr -> f32
  llvm.store %y, %p {nontemporal} : f32, !llvm.ptr<1>
  llvm.return %f : f32
}

// What .cs cannot be given to keeps LLVM's caching and loses the attribute.
// CHECK-LABEL: llvm.func @kept
// CHECK: llvm.load %arg1 : !llvm.ptr -> bf16
// CHECK: llvm.store %{{.*}}, %arg2 : bf16, !llvm.ptr<3>
// CHECK: llvm.load %arg2 : !llvm.ptr<3> -> f32
// CHECK: llvm.load volatile %arg1 : !llvm.ptr -> f32
// CHECK: llvm.load %arg1 : !llvm.ptr -> vector<8xf32>
// CHECK-NOT: nontemporal
llvm.func @kept(%p: !llvm.ptr<1>, %q: !llvm.ptr, %s: !llvm.ptr<3>) -> vector<8xf32> {
  // expected-warning @below {{nontemporal access of 'bf16' keeps LLVM's default caching: its 16 bits (PTX's .cs accesses here are 32, 64 or 128 bits)}}
  %b = llvm.load %q {nontemporal} : !llvm.ptr -> bf16
  // expected-warning @below {{nontemporal access of 'bf16' keeps LLVM's default caching: address space 3 (.cs is for global memory)}}
  llvm.store %b, %s {nontemporal} : bf16, !llvm.ptr<3>
  // expected-warning @below {{nontemporal access of 'f32' keeps LLVM's default caching: address space 3 (.cs is for global memory)}}
  %g = llvm.load %s {nontemporal} : !llvm.ptr<3> -> f32
  // expected-warning @below {{nontemporal access of 'f32' keeps LLVM's default caching: a volatile or atomic load}}
  %w = llvm.load volatile %q {nontemporal} : !llvm.ptr -> f32
  // expected-warning @below {{nontemporal access of 'vector<8xf32>' keeps LLVM's default caching: its 256 bits (PTX's .cs accesses here are 32, 64 or 128 bits)}}
  %l = llvm.load %q {nontemporal} : !llvm.ptr -> vector<8xf32>
  %sum = llvm.fadd %g, %w : f32
  llvm.store %sum, %p : f32, !llvm.ptr<1>
  llvm.return %l : vector<8xf32>
}
