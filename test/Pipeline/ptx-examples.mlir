// The dsl-examples compiled to PTX for sm_90, checked with FileCheck and
// assembled by ptxas (no spills, no local memory).
// REQUIRES: ptxas
// RUN: split-file %s %t
// RUN: sed -E 's/(!kite\.ptr<[a-z0-9]+>) \{/\1 {kite.divisibility = 16 : i32, /g' %examples/vector_add.mlir > %t/vector_add.mlir
// RUN: sed -E 's/(!kite\.ptr<[a-z0-9]+>) \{/\1 {kite.divisibility = 16 : i32, /g' %examples/dropout.mlir > %t/dropout.mlir
// RUN: sed -E 's/(!kite\.ptr<[a-z0-9]+>) \{/\1 {kite.divisibility = 16 : i32, /g' %examples/seeded_dropout.mlir > %t/seeded_dropout.mlir
// RUN: kitec %t/vector_add.mlir -o %t/vector_add.ptx
// RUN: FileCheck %s --check-prefix=ADD < %t/vector_add.ptx
// RUN: kitec %t/dropout.mlir -o %t/dropout.ptx
// RUN: FileCheck %s --check-prefix=DROP < %t/dropout.ptx
// RUN: kitec %t/seeded_dropout.mlir -o %t/seeded_dropout.ptx
// RUN: FileCheck %s --check-prefix=SEED < %t/seeded_dropout.ptx
// With n also divisible by 16 (the runtime's specialization): uniform masks.
// The full blocks take a copy of the body with plain 16-byte accesses; the
// last block one predicated 16-byte access per vector; no per-element path.
// RUN: sed -E 's/i32 \{kite.name = "n"\}/i32 {kite.divisibility = 16 : i32, kite.name = "n"}/' %t/seeded_dropout.mlir > %t/seeded_spec.mlir
// RUN: kitec %t/seeded_spec.mlir -o %t/seeded_spec.ptx
// RUN: FileCheck %s --check-prefix=SPEC < %t/seeded_spec.ptx
// RUN: %ptxas -arch=sm_90 -v %t/seeded_spec.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: kitec %examples/vector_add.mlir -o %t/vector_add_plain.ptx
// RUN: FileCheck %s --check-prefix=PLAIN < %t/vector_add_plain.ptx
// RUN: kitec --ieee-div %t/dropout.mlir -o %t/dropout_ieee.ptx
// RUN: FileCheck %s --check-prefix=IEEE < %t/dropout_ieee.ptx
// RUN: %ptxas -arch=sm_90 -v %t/vector_add.ptx -o %t/a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90 -v %t/dropout.ptx -o %t/b.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90 -v %t/seeded_dropout.ptx -o %t/c.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90 -v %t/vector_add_plain.ptx -o %t/d.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// IEEE div.rn.f32 becomes a call to ptxas's slow-path subroutine, whose
// calling convention may save a register on the stack: only ptxas's
// acceptance is checked there.
// RUN: %ptxas -arch=sm_90 %t/dropout_ieee.ptx -o %t/e.cubin
// RUN: kitec %examples/seeded_dropout.mlir --emit=metadata | FileCheck %s --check-prefix=META

//--- unused
// ADD: .target sm_90
// ADD: .visible .entry vector_add(
// ADD-NEXT: .param .u64 .ptr .global .align 1 vector_add_param_0,
// ADD-NEXT: .param .u64 .ptr .global .align 1 vector_add_param_1,
// ADD-NEXT: .param .u64 .ptr .global .align 1 vector_add_param_2,
// ADD-NEXT: .param .u32 vector_add_param_3
// ADD: .maxntid 128, 1, 1
// ADD: ld.global.v4.b32
// ADD: add{{(.rn)?}}.f32
// ADD: st.global.v4.b32
// ADD-NOT: .local

// DROP: .visible .entry dropout(
// DROP: ld.global.v4.b32
// DROP: div.full.f32
// DROP: st.global.v4.b32

// SEED: .visible .entry seeded_dropout(
// SEED: ld.global.v4.b32
// SEED: mul.wide.u32
// SEED: div.full.f32
// SEED: st.global.v4.b32
// SEED-NOT: .local

// SPEC: .visible .entry seeded_dropout(
// SPEC-NOT: ld.global.b32
// SPEC: bra
// SPEC-NOT: ld.global
// SPEC: ld.global.v4.b32 {{.*}}, [[[ADDR:%rd[0-9]+]]];
// SPEC-NEXT: ld.global.v4.b32 {{.*}}, [[[ADDR]]+2048];
// SPEC-NOT: ld.global.b32
// SPEC: st.global.v4.b32
// SPEC-NEXT: st.global.v4.b32
// SPEC-NEXT: bra.uni
// SPEC-NOT: ld.global.b32
// SPEC: @%kp ld.global.v4.b32
// SPEC-NOT: ld.global.b32
// SPEC-NOT: bra
// SPEC: @%kp st.global.v4.b32
// SPEC-NOT: st.global.b32
// SPEC-NOT: .local

// Without alignment facts: no vector accesses.
// PLAIN: .visible .entry vector_add(
// PLAIN-NOT: .v4.
// PLAIN: ld.global.b32
// PLAIN-NOT: .v4.

// IEEE: div.rn.f32
// IEEE-NOT: div.full.f32

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// META: "name": "seeded_dropout"
// META: "kind": "pointer"
// META-NEXT: "type": "f32"
// META: "kind": "scalar"
// META-NEXT: "type": "i32"
// META: "threads": 128
