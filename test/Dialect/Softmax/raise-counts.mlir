// The counts of softmax-raise: every softmax- or attention-shaped candidate,
// and how many were raised (one corpus attention, raised; four near misses).
// RUN: softmax-opt %S/Raise/Corpus/torch-mlir-bert-attention.mlir \
// RUN:   --softmax-raise=remark-counts=true -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=RAISED
// RAISED: remark: softmax-raise: 1 candidates, 1 raised
// RUN: softmax-opt %S/raise-near-miss.mlir --softmax-raise=remark-counts=true \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSED
// MISSED: remark: softmax-raise: 4 candidates, 0 raised
