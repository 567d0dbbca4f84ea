// REQUIRES: ptxas
// Streamed rows through softmax-to-nvvm for sm_90: ptxas assembles them
// (format=bin), and the PTX of a thread's loop holds one 16-byte load per
// iteration, or four when unrolled (the loads of one iteration all come
// before its fold, so each thread has four in flight). A softmax row whose
// second pass runs backwards (reread = reverse) assembles too; that pass,
// which reads each vector for the last time and writes the output, loads
// and stores with the streaming operator .cs (softmax-nvvm-nontemporal),
// its first pass and the logsumexp rows (read once) without it.
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX
// cache-hints=false leaves the last pass to LLVM's default caching.
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa cache-hints=false" | FileCheck %s --check-prefix=NOHINTS

// BIN: gpu.binary @streamed_default_kernel  [{{.*}} bin = "
// BIN: gpu.binary @streamed_unrolled_kernel  [{{.*}} bin = "
// BIN: gpu.binary @streamed_reversed_kernel  [{{.*}} bin = "

// PTX-NOT: .cs.
// PTX: gpu.binary @streamed_default_kernel
// PTX-SAME: ld.global.v4.b32
// PTX-SAME: ex2.approx.f32
// PTX-NOT: ld.global.v4.b32
// PTX-NOT: .cs.
// PTX: gpu.binary @streamed_unrolled_kernel
// PTX-SAME: ld.global.v4.b32
// PTX-SAME: ld.global.v4.b32
// PTX-SAME: ld.global.v4.b32
// PTX-SAME: ld.global.v4.b32
// PTX-NOT: ld.global.v4.b32
// PTX-NOT: .cs.
// PTX: gpu.binary @streamed_reversed_kernel
// PTX-SAME: ld.global.v4.b32
// PTX-SAME: ld.cs.v4.u32
// PTX-SAME: st.cs.v4.u32
// NOHINTS-NOT: .cs.
// NOHINTS: gpu.binary @streamed_reversed_kernel
// NOHINTS-SAME: st.global.v4.b32
// NOHINTS-NOT: .cs.
func.func @streamed_default(%x: memref<256x128256xbf16>, %y: memref<256xbf16>) {
  softmax.logsumexp ins(%x : memref<256x128256xbf16>) outs(%y : memref<256xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

func.func @streamed_unrolled(%x: memref<256x128256xbf16>, %y: memref<256xbf16>) {
  softmax.logsumexp ins(%x : memref<256x128256xbf16>) outs(%y : memref<256xbf16>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<unroll = 4>}
  return
}

func.func @streamed_reversed(%x: memref<256x128256xbf16>, %y: memref<256x128256xbf16>) {
  softmax.softmax ins(%x : memref<256x128256xbf16>) outs(%y : memref<256x128256xbf16>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<reread = reverse>}
  return
}
