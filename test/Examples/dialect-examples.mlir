// The dsl-examples written in the kite dialect parse, verify, round-trip
// and survive canonicalization.
// RUN: kite-opt %examples/vector_add.mlir | kite-opt | FileCheck %s --check-prefix=ADD
// RUN: kite-opt %examples/dropout.mlir | kite-opt | FileCheck %s --check-prefix=DROP
// RUN: kite-opt %examples/seeded_dropout.mlir | kite-opt | FileCheck %s --check-prefix=SEED
// RUN: kite-opt -canonicalize -cse %examples/vector_add.mlir | FileCheck %s --check-prefix=ADD
// RUN: kite-opt -canonicalize -cse %examples/dropout.mlir | FileCheck %s --check-prefix=DROP
// RUN: kite-opt -canonicalize -cse %examples/seeded_dropout.mlir | FileCheck %s --check-prefix=SEED

// ADD-LABEL: func.func @vector_add
// ADD-SAME: attributes {kite.kernel, kite.num_warps = 4 : i32}
// ADD-COUNT-2: kite.load
// ADD: arith.addf
// ADD: kite.store

// DROP-LABEL: func.func @dropout
// DROP-COUNT-2: kite.load
// DROP: arith.divf
// DROP: arith.select
// DROP: kite.store

// SEED-LABEL: func.func @seeded_dropout
// SEED: kite.load
// SEED: kite.rand
// SEED: arith.cmpf ogt
// SEED: arith.select
// SEED: kite.store
