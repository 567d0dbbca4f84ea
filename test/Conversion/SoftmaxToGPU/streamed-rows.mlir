// Rows that stream (cached_vectors = 0): each iteration of a thread's loop
// loads `unroll` vectors before it folds any, so that the thread has that
// many loads in flight; past the first, a vector is loaded only while it
// starts before the end of the thread's part of the row (the last
// iteration), and is -inf otherwise. Every exp, the elements' and the
// merges' scales, is an exp2 of (x - m) log2 e, never math.exp.
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 unroll=2" -split-input-file | FileCheck %s --check-prefix=OPTION
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 reread=reverse" -split-input-file | FileCheck %s --check-prefix=REVERSE
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=gfx942" -split-input-file | FileCheck %s --check-prefix=CDNA

// logsumexp of vocabulary rows streams; the heuristic's unroll is 1. 256
// rows in blocks of 512 would fill half of 132 multiprocessors' thread
// slots: blocks of 1024.
// CHECK-LABEL: func @logsumexp_default
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8192
// CHECK-NOT: math.exp %
// CHECK: math.exp2
// CHECK-NOT: math.exp %
// CHECK: scf.yield
// The merges' scales too.
// CHECK: gpu.shuffle
// CHECK-NOT: math.exp %
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 1, splits = 1>
// The pass option fills in the streamed row's unroll.
// OPTION-LABEL: func @logsumexp_default
// OPTION: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16384
// OPTION: unroll = 2, splits = 1>
func.func @logsumexp_default(%x: memref<256x128256xbf16>, %y: memref<256xbf16>) {
  softmax.logsumexp ins(%x : memref<256x128256xbf16>) outs(%y : memref<256xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// 1024 rows fill the slots in blocks of 512.
// CHECK-LABEL: func @logsumexp_many_rows
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 512, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 1, splits = 1>
func.func @logsumexp_many_rows(%x: memref<1024x128256xbf16>, %y: memref<1024xbf16>) {
  softmax.logsumexp ins(%x : memref<1024x128256xbf16>) outs(%y : memref<1024xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// The shortest rows logsumexp streams (4096 vectors: bf16 32768), as many
// as the multiprocessors or more: blocks of 256 with 4 vectors in flight.
// Fewer rows keep the plain plan.
// CHECK-LABEL: func @logsumexp_rows_of_32768
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 4, splits = 1>
// CHECK-LABEL: func @logsumexp_few_rows_of_32768
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 1, splits = 1>
func.func @logsumexp_rows_of_32768(%x: memref<4096x32768xbf16>, %y: memref<4096xbf16>) {
  softmax.logsumexp ins(%x : memref<4096x32768xbf16>) outs(%y : memref<4096xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}
func.func @logsumexp_few_rows_of_32768(%x: memref<100x32768xbf16>, %y: memref<100xbf16>) {
  softmax.logsumexp ins(%x : memref<100x32768xbf16>) outs(%y : memref<100xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// softmax and log_softmax of bf16 rows that a block of 512 would cache at 8
// vectors a thread (one such block a multiprocessor), as many as the
// multiprocessors or more: streamed twice by 512 threads, 4 vectors in
// flight. 100 rows, odd rows and exp_pair keep the cached plan.
// CHECK-LABEL: func @softmax_rows_of_32768
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 512, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 4, splits = 1, reread = reverse>
// CHECK-LABEL: func @log_softmax_rows_of_32768
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 512, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 4, splits = 1, reread = reverse>
// CHECK-LABEL: func @softmax_few_rows_of_32768
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 512, rows_per_block = 1, vector_width = 8, cached_vectors = 8, splits = 1>
// CHECK-LABEL: func @softmax_odd_rows_near_32768
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 512, rows_per_block = 1, vector_width = 8, cached_vectors = 8, splits = 1>
// CHECK-LABEL: func @softmax_exp_pair_rows_of_32768
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 512, rows_per_block = 1, vector_width = 8, cached_vectors = 8, splits = 1>
func.func @softmax_rows_of_32768(%x: memref<4096x32768xbf16>, %y: memref<4096x32768xbf16>) {
  softmax.softmax ins(%x : memref<4096x32768xbf16>) outs(%y : memref<4096x32768xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}
func.func @log_softmax_rows_of_32768(%x: memref<132x32768xbf16>, %y: memref<132x32768xbf16>) {
  softmax.log_softmax ins(%x : memref<132x32768xbf16>) outs(%y : memref<132x32768xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}
func.func @softmax_few_rows_of_32768(%x: memref<100x32768xbf16>, %y: memref<100x32768xbf16>) {
  softmax.softmax ins(%x : memref<100x32768xbf16>) outs(%y : memref<100x32768xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}
func.func @softmax_odd_rows_near_32768(%x: memref<4096x32759xbf16>, %y: memref<4096x32759xbf16>) {
  softmax.softmax ins(%x : memref<4096x32759xbf16>) outs(%y : memref<4096x32759xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}
func.func @softmax_exp_pair_rows_of_32768(%x: memref<4096x32768xbf16>, %y: memref<4096x32768xbf16>) {
  softmax.softmax ins(%x : memref<4096x32768xbf16>) outs(%y : memref<4096x32768xbf16>) dimension(1) masked(zero) algorithm(exp_pair)
  return
}

// -----

// softmax of bf16 rows too long for one block's registers, at least as
// many rows as multiprocessors: a block of 1024 threads a row, streamed
// twice (the second pass backwards: reread = reverse, the NVIDIA default),
// four vectors in flight (not split blocks caching chunks).
// CHECK-LABEL: func @softmax_long_bf16_rows
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32768
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 4, splits = 1, reread = reverse>
// CHECK-LABEL: func @softmax_long_rows_exp_pair
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 2, splits = 1, reread = reverse>
// CHECK-LABEL: func @softmax_long_f32_rows
// CHECK: cached_vectors = 15, splits = 7
// CHECK-LABEL: func @softmax_few_long_rows
// CHECK: cached_vectors = 8, splits = 16
func.func @softmax_long_bf16_rows(%x: memref<256x128256xbf16>, %y: memref<256x128256xbf16>) {
  softmax.softmax ins(%x : memref<256x128256xbf16>) outs(%y : memref<256x128256xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}
// exp_pair's fold holds two values an element: two vectors in flight (at
// four, ptxas spills at the 64-register cap).
func.func @softmax_long_rows_exp_pair(%x: memref<256x128256xbf16>, %y: memref<256x128256xbf16>) {
  softmax.softmax ins(%x : memref<256x128256xbf16>) outs(%y : memref<256x128256xbf16>) dimension(1) masked(zero) algorithm(exp_pair)
  return
}
func.func @softmax_long_f32_rows(%x: memref<1024x50257xf32>, %y: memref<1024x50257xf32>) {
  softmax.softmax ins(%x : memref<1024x50257xf32>) outs(%y : memref<1024x50257xf32>) dimension(1) masked(zero) algorithm(online)
  return
}
func.func @softmax_few_long_rows(%x: memref<100x128256xbf16>, %y: memref<100x128256xbf16>) {
  softmax.softmax ins(%x : memref<100x128256xbf16>) outs(%y : memref<100x128256xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// Four vectors of 8 an iteration over 1024 threads: the loop steps 32768
// elements, the vectors lie 8192 apart, and all four loads come before the
// first exp2.
// CHECK-LABEL: func @logsumexp_unrolled
// CHECK: %[[END:.*]] = arith.select
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %[[END]] step %c32768
// CHECK: vector.load %{{.*}}[%{{.*}}, %[[COL]]] {alignment = 16 : i64} : memref<256x128256xbf16>, vector<8xbf16>
// CHECK: %[[C1:.*]] = arith.addi %[[COL]], %c8192
// CHECK: %[[V1:.*]] = arith.cmpi ult, %[[C1]], %[[END]]
// CHECK: scf.if %[[V1]]
// CHECK-NEXT: vector.load %{{.*}}[%{{.*}}, %[[C1]]]
// CHECK: } else {
// CHECK-NEXT: arith.constant dense<0xFF80> : vector<8xbf16>
// CHECK: %[[C2:.*]] = arith.addi %[[COL]], %c16384
// CHECK: arith.cmpi ult, %[[C2]], %[[END]]
// CHECK: vector.load %{{.*}}[%{{.*}}, %[[C2]]]
// CHECK: %[[C3:.*]] = arith.addi %[[COL]], %c24576
// CHECK: arith.cmpi ult, %[[C3]], %[[END]]
// CHECK: vector.load %{{.*}}[%{{.*}}, %[[C3]]]
// CHECK-NOT: vector.load
// CHECK: math.exp2
// CHECK: scf.yield
// CHECK: unroll = 4, splits = 1>
// A request names its own unroll over the option's.
// OPTION-LABEL: func @logsumexp_unrolled
// OPTION: unroll = 4, splits = 1>
func.func @logsumexp_unrolled(%x: memref<256x128256xbf16>, %y: memref<256xbf16>) {
  softmax.logsumexp ins(%x : memref<256x128256xbf16>) outs(%y : memref<256xbf16>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<unroll = 4>}
  return
}

// -----

// softmax streamed twice, two vectors an iteration: the first loop folds
// both, the second stores both, the second store only where its vector
// starts before the row's end. The second pass reads each vector for the
// last time and writes one nothing rereads: on NVIDIA its loads and stores
// are nontemporal (softmax-nvvm-nontemporal makes them .cs), the first
// pass's loads are not; CDNA marks none.
// CHECK-LABEL: func @softmax_streamed_twice
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %[[END:.*]] step %c2048
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} :
// CHECK: %[[C1:.*]] = arith.addi %[[COL]], %c1024
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} :
// CHECK-NOT: vector.load
// CHECK: math.exp2
// CHECK: scf.yield
// CHECK: scf.for %[[COL2:.*]] = %{{.*}} to %{{.*}} step %c2048
// CHECK: vector.load %{{.*}} {alignment = 16 : i64, nontemporal = true} :
// CHECK: %[[D1:.*]] = arith.addi %[[COL2]], %c1024
// CHECK: %[[V1:.*]] = arith.cmpi ult, %[[D1]]
// CHECK: vector.load %{{.*}} {alignment = 16 : i64, nontemporal = true} :
// CHECK: math.exp2
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[COL2]]] {alignment = 16 : i64, nontemporal = true}
// CHECK: scf.if %[[V1]] {
// CHECK-NEXT: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[D1]]] {alignment = 16 : i64, nontemporal = true}
// CDNA-LABEL: func @softmax_streamed_twice
// CDNA-NOT: nontemporal
// CDNA: vector.store
// CDNA-NOT: nontemporal
// CDNA: softmax.strategy
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, rows_per_block = 1, vector_width = 4, cached_vectors = 0, unroll = 2, splits = 1, reread = forward>
func.func @softmax_streamed_twice(%x: memref<64x8192xf32>, %y: memref<64x8192xf32>) {
  softmax.softmax ins(%x : memref<64x8192xf32>) outs(%y : memref<64x8192xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, cached_vectors = 0, unroll = 2, reread = forward>}
  return
}

// -----

// An odd row (peeled): the unrolled vectors keep the aligned loads, and the
// head and tail their masked ones.
// CHECK-LABEL: func @odd_rows_unrolled
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %{{.*}} step %c8192
// CHECK: vector.load {{.*}} : memref<51463168xbf16>, vector<8xbf16>
// CHECK: vector.maskedload
// CHECK: arith.addi %[[COL]], %c4096
// CHECK: vector.load {{.*}} : memref<51463168xbf16>, vector<8xbf16>
// CHECK: vector.maskedload
// CHECK-NOT: vector.load
// CHECK: math.exp2
// CHECK: unroll = 2, splits = 1>
func.func @odd_rows_unrolled(%x: memref<1024x50257xbf16>, %y: memref<1024xbf16>) {
  softmax.logsumexp ins(%x : memref<1024x50257xbf16>) outs(%y : memref<1024xbf16>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<unroll = 2>}
  return
}

// -----

// Rows kept in registers have no loop: the option leaves them alone.
// OPTION-LABEL: func @cached_rows
// They read the row once: no access is nontemporal.
// CHECK-LABEL: func @cached_rows
// CHECK-NOT: nontemporal
// CHECK: cached_vectors = 8
// OPTION: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, rows_per_block = 1, vector_width = 4, cached_vectors = 8, splits = 1>
func.func @cached_rows(%x: memref<64x8192xf32>, %y: memref<64x8192xf32>) {
  softmax.softmax ins(%x : memref<64x8192xf32>) outs(%y : memref<64x8192xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// reread = reverse: the first pass reads forward, the second from the
// thread's last group of vectors back to its first, so that it starts on
// the bytes the first pass read last. Iteration k of the thread's n groups
// (n rounded up from its span) takes group n - 1 - k; the unrolled vector
// after it is stored only where it starts before the end, as forward.
// CHECK-LABEL: func @softmax_reread_reverse
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2048
// CHECK: scf.yield
// CHECK: %[[FIRST:.*]] = arith.addi %c0{{.*}}, %{{.*}} : index
// CHECK: %[[END:.*]] = arith.select %{{.*}}, %{{.*}}, %[[FIRST]] : index
// CHECK: %[[ANY:.*]] = arith.cmpi ult, %[[FIRST]], %[[END]]
// CHECK: %[[SPAN:.*]] = arith.subi %[[END]], %[[FIRST]]
// CHECK: %[[SEL:.*]] = arith.select %[[ANY]], %[[SPAN]], %c0{{.*}} : index
// CHECK: %[[UP:.*]] = arith.addi %[[SEL]], %c2047
// CHECK: %[[N:.*]] = arith.divui %[[UP]], %c2048
// CHECK: scf.for %[[K:.*]] = %c0{{.*}} to %[[N]] step %c1
// CHECK: %[[LAST:.*]] = arith.subi %[[N]], %c1
// CHECK: %[[G:.*]] = arith.subi %[[LAST]], %[[K]]
// CHECK: %[[OFF:.*]] = arith.muli %[[G]], %c2048
// CHECK: %[[COL:.*]] = arith.addi %[[FIRST]], %[[OFF]]
// CHECK: %[[D1:.*]] = arith.addi %[[COL]], %c1024
// CHECK: %[[V1:.*]] = arith.cmpi ult, %[[D1]], %[[END]]
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[COL]]]
// CHECK: scf.if %[[V1]] {
// CHECK-NEXT: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[D1]]]
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, rows_per_block = 1, vector_width = 4, cached_vectors = 0, unroll = 2, splits = 1, reread = reverse>
// The pass option asks the same of every row read again.
// REVERSE-LABEL: func @softmax_reread_reverse
// REVERSE: reread = reverse>
func.func @softmax_reread_reverse(%x: memref<64x8192xf32>, %y: memref<64x8192xf32>) {
  softmax.softmax ins(%x : memref<64x8192xf32>) outs(%y : memref<64x8192xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, cached_vectors = 0, unroll = 2, reread = reverse>}
  return
}

// -----

// three_pass reads the row three times: the max forward, the sum backward,
// the stores forward again.
// CHECK-LABEL: func @three_pass_reread_reverse
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1024
// CHECK: arith.divui %{{.*}}, %c1024
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %{{.*}} step %c1
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1024
// CHECK: vector.store
// CHECK: reread = reverse>
// The option leaves logsumexp, which reads its row once, without one.
// REVERSE-LABEL: func @three_pass_reread_reverse
// REVERSE: reread = reverse>
// REVERSE-LABEL: func @logsumexp_once
// REVERSE: unroll = 1, splits = 1>
func.func @three_pass_reread_reverse(%x: memref<64x8192xf32>, %y: memref<64x8192xf32>) {
  softmax.softmax ins(%x : memref<64x8192xf32>) outs(%y : memref<64x8192xf32>) dimension(1) masked(zero) algorithm(three_pass) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, cached_vectors = 0, reread = reverse>}
  return
}
func.func @logsumexp_once(%x: memref<256x128256xbf16>, %y: memref<256xbf16>) {
  softmax.logsumexp ins(%x : memref<256x128256xbf16>) outs(%y : memref<256xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// The reread order by default: reverse on NVIDIA (measured), forward on
// CDNA (not measured there).
// CHECK-LABEL: func @streamed_default_order
// CHECK: reread = reverse>
// CDNA-LABEL: func @streamed_default_order
// CDNA: reread = forward>
func.func @streamed_default_order(%x: memref<64x8192xf32>, %y: memref<64x8192xf32>) {
  softmax.softmax ins(%x : memref<64x8192xf32>) outs(%y : memref<64x8192xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, cached_vectors = 0>}
  return
}
