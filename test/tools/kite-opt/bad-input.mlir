// Malformed input gets a located diagnostic and exit code 1, never a crash.
// RUN: split-file %s %t
// RUN: not kite-opt %t/syntax.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not kite-opt %t/undefined.mlir 2>&1 | FileCheck %s --check-prefix=UNDEF
// RUN: not kite-opt %t/type.mlir 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not kite-opt %t/verify.mlir 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: not kite-opt %t/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not kite-opt %t/good.mlir --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: printf '\000\377\376 garbage' > %t/binary.mlir
// RUN: not kite-opt %t/binary.mlir 2>&1 | FileCheck %s --check-prefix=BINARY
// RUN: kite-opt %t/syntax.mlir; test $? -eq 1
// A dense array of index crashes MLIR 22's own parser: kite-opt, kitec
// and the runtime reject it first, located.
// RUN: not kite-opt %t/index-array.mlir 2>&1 | FileCheck %s --check-prefix=INDEXARRAY
// RUN: not kitec %t/index-array.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=INDEXARRAY
// INDEXARRAY: index-array.mlir:2:32: error: dense arrays of index (array<index ...>) are not supported: MLIR's parser cannot read them; use i64
// RUN: kite-opt %t/good.mlir | FileCheck %s --check-prefix=GOOD

//--- syntax.mlir
func.func @f() {
  %0 = kite.program_id 0 extra
  return
}
// SYNTAX: syntax.mlir:2:26: error: custom op 'extra' is unknown

//--- undefined.mlir
func.func @f() {
  %0 = kite.splat %nope : i32 -> tensor<4xi32>
  return
}
// UNDEF: undefined.mlir:2:19: error: use of undeclared SSA value name

//--- type.mlir
func.func @f(%p: !kite.ptr<vector<4xf32>>) {
  return
}
// TYPE: type.mlir:1:27: error: !kite.ptr cannot point to 'vector<4xf32>'

//--- verify.mlir
func.func @f() {
  %0 = kite.arange 0, 3 : tensor<3xi32>
  return
}
// VERIFY: verify.mlir:2:8: error: 'kite.arange' op length end - start = 3 must be a power of two

//--- good.mlir
func.func @f() {
  return
}
// GOOD: func.func @f

// MISSING: kite-opt: error: cannot read {{.*}}does-not-exist.mlir': No such file or directory
// PASS: no-such-pass
// BINARY: binary.mlir:1:{{[0-9]+}}: error: unexpected character

//--- index-array.mlir
// (a comment line)
func.func @f() attributes {a = array<index: 1>} {
  return
}
