; RUN: env MTPC_LOG=info %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S %s -o - 2>%t.err | FileCheck %s --check-prefix=LLVM%llvm-major
; RUN: FileCheck --check-prefix=INFO%llvm-major %s < %t.err

; A ThinLTO backend module with ASan's globals dead stripping holds each
; descriptor of a local global in section asan_globals, linked to the
; global's section (!associated) and in a section group that is no COMDAT
; (a nodeduplicate COMDAT), as lld's backend of
; `clang -flto=thin -fsanitize=address -fsanitize-address-globals-dead-stripping`
; has it (the module here is cut down from one). Partitions that print
; assembly (opt, lld) would print such a section as LLVM 16 writes it,
; `GROUP,LINKED-TO`, which LLVM 16's assembler reads as a group with a
; linkage other than `comdat` and refuses: the merged text's check would
; fail after both partitions were compiled, and the module compile whole,
; later than stock. So on LLVM 16 it is compiled whole from the start, with
; the reason; LLVM 19 and 22 print the linked-to symbol first, and split it.
; Fails if: parallel.rs's sizing no longer asks decline::printed_text_reason
; where the partitions print text (LLVM16 would see module asm and no
; reason), or ModuleFacts::has_linked_sections_in_plain_groups no longer sees
; a nodeduplicate COMDAT's linked member; on LLVM 19 and 22 (one partition,
; no module asm) if partition_plan.rs groups() keeps the users of a local
; in a nodeduplicate group with it (@both uses both locals: one unit would
; hold every function). (Here the groups' locals are promoted, so the rules
; that no longer unite a section's linked variables or llvm.compiler.used's
; members change nothing; partition_plan.rs's unit test
; variables_of_one_section_share_a_partition_unless_linked_to_another,
; with groups the linker may discard, fails without either.)
;
; A backend's module is made of such groups, one per local global ASan
; instruments (sqlite3's: 1,504): until 2026-12-07 they held every function
; using a string in one unit, 89 % of sqlite3's ThinLTO backend.
; INFO16: mtpc: info: {{.*}}sections linked to another's in section groups that are no COMDAT{{.*}}mtpc leaves it to the host, whole
; LLVM16-NOT: module asm
; LLVM16: define {{.*}}@message(
; INFO19-NOT: leaves it to the host
; INFO19: mtpc: info: {{.*}}2 partitions
; LLVM19: module asm
; INFO22-NOT: leaves it to the host
; INFO22: mtpc: info: {{.*}}2 partitions
; LLVM22: module asm
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

$.str.7bfb9b233c36deb9 = comdat nodeduplicate
$buf.7bfb9b233c36deb9 = comdat nodeduplicate

@.str = internal constant { [6 x i8], [26 x i8] } { [6 x i8] c"hello\00", [26 x i8] zeroinitializer }, comdat($.str.7bfb9b233c36deb9), align 32
@buf = internal global { [8 x i8], [24 x i8] } zeroinitializer, comdat($buf.7bfb9b233c36deb9), align 32
@__asan_global_.str = private global { i64, i64 } { i64 ptrtoint (ptr @.str to i64), i64 6 }, section "asan_globals", comdat($.str.7bfb9b233c36deb9), !associated !0
@__asan_global_buf = private global { i64, i64 } { i64 ptrtoint (ptr @buf to i64), i64 8 }, section "asan_globals", comdat($buf.7bfb9b233c36deb9), !associated !1
@llvm.compiler.used = appending global [2 x ptr] [ptr @__asan_global_.str, ptr @__asan_global_buf], section "llvm.metadata"

define i32 @message(i32 %i) {
  %p = getelementptr [6 x i8], ptr @.str, i32 0, i32 %i
  %v = load i8, ptr %p
  %a = zext i8 %v to i32
  %b = mul i32 %a, %a
  %c = add i32 %b, 1
  %d = mul i32 %c, %c
  %e = add i32 %d, 1
  %f = mul i32 %e, %e
  ret i32 %f
}

define i32 @store(i32 %i) {
  %p = getelementptr [8 x i8], ptr @buf, i32 0, i32 %i
  store i8 1, ptr %p
  %a = add i32 %i, 1
  %b = mul i32 %a, %a
  %c = add i32 %b, 1
  %d = mul i32 %c, %c
  %e = add i32 %d, 1
  ret i32 %e
}

define i32 @both(i32 %i) {
  %p = getelementptr [6 x i8], ptr @.str, i32 0, i32 %i
  %v = load i8, ptr %p
  %q = getelementptr [8 x i8], ptr @buf, i32 0, i32 %i
  store i8 %v, ptr %q
  %a = zext i8 %v to i32
  %b = mul i32 %a, %a
  %c = add i32 %b, 1
  ret i32 %c
}

!0 = !{ptr @.str}
!1 = !{ptr @buf}
