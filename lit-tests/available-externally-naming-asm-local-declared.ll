; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; An available_externally function is copied where it is called, unless its
; body names, in inline asm, a local the partition cannot name (@named keeps
; its name, so it cannot be promoted): then the partition declares it, which
; is always valid (its definition is elsewhere), and @named is not renamed.
; Fails if: the AvailableExternally choice in Rules::partition
; (symbol_rules.rs) ignores the body's asm_local_refs.
; P0: define internal i64 @named(
; P1: declare i64 @ae()
; P1-NOT: named
; P1: define i64 @entry(

define internal i64 @asm_user() {
  call void asm sideeffect "leaq named(%rip), %rax", "~{rax}"()
  ret i64 0
}
define available_externally i64 @ae() {
  call void asm sideeffect "leaq named(%rip), %rax", "~{rax}"()
  ret i64 0
}
define internal i64 @named() {
  ret i64 0
}
define i64 @entry() {
  %r = call i64 @ae()
  ret i64 %r
}
