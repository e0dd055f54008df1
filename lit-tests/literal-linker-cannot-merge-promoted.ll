; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o %t.0.ll
; RUN: llvm-dis %t.1.bc -o %t.1.ll
; RUN: cat %t.0.ll %t.1.ll | FileCheck %s

; Code in two partitions names the same literals. A C string ("ok", "")
; gets a private copy in each: the linker stores equal C strings once. Data
; the linker does not merge (a string with a NUL inside, an array of
; numbers) stays one object, as in the whole module: promoted in one
; partition, an available_externally copy (contents still known) in the
; other, so both name one address.
; Fails if: symbol_rules.rs is_local_copyable() ignores c_string, or
; ir/values.rs is_c_string() takes "ab\0cd" for a C string or "" for none.
; CHECK: @.str = private unnamed_addr constant [3 x i8] c"ok\00"
; CHECK: @.empty = private unnamed_addr constant [1 x i8] zeroinitializer
; CHECK: @[[BYTES:\.bytes\.mtpc\.[0-9a-f]+]] = hidden unnamed_addr constant [6 x i8] c"ab\00cd\00"
; CHECK: @[[NUMS:\.nums\.mtpc\.[0-9a-f]+]] = hidden unnamed_addr constant [4 x i32]
; CHECK: define i32 @name_a(
; CHECK: @.str = private unnamed_addr constant [3 x i8] c"ok\00"
; CHECK: @.empty = private unnamed_addr constant [1 x i8] zeroinitializer
; CHECK: @[[BYTES]] = available_externally hidden unnamed_addr constant [6 x i8] c"ab\00cd\00"
; CHECK: @[[NUMS]] = available_externally hidden unnamed_addr constant [4 x i32]
; CHECK: define i32 @name_b(

@.str = private unnamed_addr constant [3 x i8] c"ok\00"
@.empty = private unnamed_addr constant [1 x i8] zeroinitializer
@.bytes = private unnamed_addr constant [6 x i8] c"ab\00cd\00"
@.nums = private unnamed_addr constant [4 x i32] [i32 1, i32 2, i32 3, i32 4]
declare i32 @use(ptr, ptr, ptr, ptr)

define i32 @name_a() {
  %r = call i32 @use(ptr @.str, ptr @.empty, ptr @.bytes, ptr @.nums)
  %s = add i32 %r, 1
  ret i32 %s
}

define i32 @name_b() {
  %r = call i32 @use(ptr @.str, ptr @.empty, ptr @.bytes, ptr @.nums)
  ret i32 %r
}
