; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.0.bc -o - | opt -passes=inferattrs -S | FileCheck %s --check-prefix=INFERRED

; The module defines malloc (a wrapper that counts its calls). Where another
; partition only declares it, LLVM would take the declaration for the C
; library's malloc and give it that function's attributes (noalias, touches
; inaccessible memory only: the count read after the call is then the count
; read before), which it never gives a definition. So such a declaration is
; optnone (with noinline), which InferFunctionAttrs leaves as it is, and
; without the definition's optsize (-Os), which the verifier refuses beside
; optnone. A declaration of a function that is not a library function's name
; (@helper) keeps its own attributes, and the definition is untouched.
; Fails if: partition_builder.rs no longer calls
; keep_library_declarations_unassumed (INFERRED would find allockind).
; P0: declare ptr @malloc(i64) #[[ATTRS:[0-9]+]]
; P0: define i32 @count_one(
; P0: attributes #[[ATTRS]] = { noinline optnone }
; P1: define ptr @malloc(i64 %n) #[[DEF:[0-9]+]]
; P1: declare void @helper(ptr) #[[DEF]]
; P1: attributes #[[DEF]] = { noinline optsize }
; INFERRED: declare ptr @malloc(i64) #[[ATTRS:[0-9]+]]
; INFERRED: attributes #[[ATTRS]] = { noinline optnone }
target triple = "x86_64-pc-linux-gnu"

@nallocs = global i32 0
@pool = internal global [65536 x i8] zeroinitializer, align 16
@used = internal global i64 0

define ptr @malloc(i64 %n) noinline optsize {
  %c = load i32, ptr @nallocs
  %c1 = add i32 %c, 1
  store i32 %c1, ptr @nallocs
  %u = load i64, ptr @used
  %p = getelementptr i8, ptr @pool, i64 %u
  %n15 = add i64 %n, 15
  %r = and i64 %n15, -16
  %u1 = add i64 %u, %r
  store i64 %u1, ptr @used
  call void @helper(ptr %p)
  ret ptr %p
}

define void @helper(ptr %p) noinline optsize {
  store i8 0, ptr %p
  ret void
}

define i32 @count_one() {
  %before = load i32, ptr @nallocs
  %p = call ptr @malloc(i64 8)
  store i8 1, ptr %p
  %after = load i32, ptr @nallocs
  %d = sub i32 %after, %before
  call void @helper(ptr %p)
  %v = load i8, ptr %p
  %w = zext i8 %v to i32
  %m = mul i32 %w, 10
  %r = add i32 %d, %m
  ret i32 %r
}
