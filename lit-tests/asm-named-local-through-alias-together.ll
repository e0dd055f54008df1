; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s
; RUN: not ls %t.1.bc

; A local that inline asm names keeps its name, so every user of it stays
; in its partition; users that reach it through a local alias are users
; too (a partition without the alias would call the aliasee, which would
; then have to be renamed). Here that is the whole module: one partition.
; Fails if: ModuleFacts::asm_named (module_facts.rs) stops marking the
; aliases of an asm-named local.
; CHECK: @al = internal alias i64 (i64), ptr @named
; CHECK: define internal i64 @named(
; CHECK: define i64 @asm_user(
; CHECK: define i64 @entry_a(
; CHECK: define i64 @entry_b(

@al = internal alias i64 (i64), ptr @named

define internal i64 @named(i64 %x) noinline {
  %a = add i64 %x, 1
  ret i64 %a
}
define i64 @asm_user(i64 %x) {
  call void asm sideeffect "leaq named(%rip), %rax", "~{rax}"()
  ret i64 %x
}
define i64 @entry_a(i64 %x) {
  %r = call i64 @al(i64 %x)
  ret i64 %r
}
define i64 @entry_b(i64 %x) {
  %r = call i64 @al(i64 %x)
  %s = add i64 %r, 2
  ret i64 %s
}
