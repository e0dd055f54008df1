; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o %t.0.ll
; RUN: llvm-dis %t.1.bc -o %t.1.ll
; RUN: cat %t.0.ll %t.1.ll | FileCheck %s

; An internal variable that several partitions use is promoted to a hidden
; external variable with a collision-free name, declared elsewhere.
; Fails if: symbol_rules.rs decide() gives a promoted local default visibility instead of hidden.
; CHECK: @[[NAME:state\.mtpc\.[0-9a-f]+]] = hidden global i32 0
; CHECK: @[[NAME]] = external hidden global i32

@state = internal global i32 0

define void @set_a() {
  store i32 1, ptr @state
  %a = add i32 1, 2
  %b = add i32 %a, 2
  ret void
}
define i32 @get_b() {
  %v = load i32, ptr @state
  ret i32 %v
}
