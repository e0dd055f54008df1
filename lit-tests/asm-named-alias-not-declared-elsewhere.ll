; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; A partition that declares a strong alias refers to its aliasee instead;
; so an alias of a local that inline asm names (@al of @named) is never
; needed outside its partition: what refers to it (@table) is declared
; there, not copied, and @named keeps its name.
; Fails if: Rules::local_reachable_from (symbol_rules.rs) lets a partition
; that does not own it name an alias of an asm-named local.
; P0: @table = weak_odr constant [1 x ptr] [ptr @al]
; P0: @al = alias i64 (), ptr @named
; P0: define internal i64 @named(
; P1: @table = external constant [1 x ptr]
; P1-NOT: named
; P1: define i64 @other(

@al = alias i64 (), ptr @named
@table = linkonce_odr constant [1 x ptr] [ptr @al]
@llvm.compiler.used = appending global [1 x ptr] [ptr @named], section "llvm.metadata"

define internal i64 @named() {
  ret i64 0
}
define i64 @asm_user() {
  call void asm sideeffect "leaq named(%rip), %rax", "~{rax}"()
  ret i64 0
}
define i64 @other() {
  %f = load ptr, ptr @table
  %r = call i64 %f()
  ret i64 %r
}
