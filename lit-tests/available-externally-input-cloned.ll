; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; available_externally input (e.g. from a ThinLTO import) is cloned, as it
; is, into every partition that uses it, and owned by none.
; Fails if: symbol_rules.rs Rules::partition() declares available_externally input instead of cloning it.
; P0: define available_externally i32 @imported(
; P1: define available_externally i32 @imported(

define available_externally i32 @imported(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}
define i32 @user_a(i32 %x) {
  %r = call i32 @imported(i32 %x)
  %s = add i32 %r, 1
  ret i32 %s
}
define i32 @user_b(i32 %x) {
  %r = call i32 @imported(i32 %x)
  ret i32 %r
}
