; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: not ls %t.1.bc

; A local variable named by a function's inline asm cannot be renamed, so
; it is never promoted: every function that uses it stays with it.
; Fails if: module_facts.rs RefWalker::walk() no longer scans inline asm text for local symbols.
; P0: @counter = internal global i32 0
; P0: define void @bump_via_asm(
; P0: define i32 @read_counter(

@counter = internal global i32 0
define void @bump_via_asm() {
  call void asm sideeffect "incl counter(%rip)", "~{memory}"()
  ret void
}
define i32 @read_counter() {
  %v = load i32, ptr @counter
  %a = add i32 %v, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  %e = add i32 %d, 1
  ret i32 %e
}
