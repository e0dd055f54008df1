; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.0.bc -o - | opt -O2 -S | FileCheck %s --check-prefix=OPTIMIZED

; @malloc is an alias of the program's own allocator (glibc's
; weak_alias(__libc_malloc, malloc) pattern; the aliasee is weak, so the
; alias is not resolved). In the whole module a call to it is no library
; call (its callee is an alias, not a function): it is neither removed nor
; given malloc's attributes. A partition that only refers to it declares a
; function @malloc, which LLVM would take for the C library's: the
; declaration is nobuiltin, so its calls stay as they are.
; Fails if: partition_builder.rs step 5 no longer marks the declarations
; made for aliases (the optimized partition would delete the call and fold
; the count).
; P0: define i32 @count_one(
; P0: declare ptr @malloc(i64) #[[ATTRS:[0-9]+]]
; P0: attributes #[[ATTRS]] = { nobuiltin }
; P1: @malloc = alias ptr (i64), ptr @my_malloc
; P1: define weak ptr @my_malloc(
; OPTIMIZED: call ptr @malloc(i64 8)
target triple = "x86_64-pc-linux-gnu"

@nallocs = global i32 0
@pool = global [65536 x i8] zeroinitializer, align 16

define weak ptr @my_malloc(i64 %n) noinline {
  %c = load i32, ptr @nallocs
  %c1 = add i32 %c, 1
  store i32 %c1, ptr @nallocs
  ret ptr @pool
}

@malloc = alias ptr (i64), ptr @my_malloc

define i32 @count_one() {
  %before = load i32, ptr @nallocs
  %p = call ptr @malloc(i64 8)
  store i8 1, ptr %p
  %after = load i32, ptr @nallocs
  %d = sub i32 %after, %before
  %x = mul i32 %d, 7
  %y = xor i32 %x, 3
  ret i32 %y
}
