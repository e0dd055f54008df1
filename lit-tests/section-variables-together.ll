; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;no-merge;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; Variables placed in one explicit section are defined by one partition,
; in their original order (code may walk the section between the
; linker's __start_/__stop_ symbols): that of their first user, data only
; as they are. Another partition that uses one promotes it, and may copy
; a small constant.
; Fails if: partition_plan.rs groups() stops uniting the variables of one explicit section.
; P0: @reg_a = internal constant i32 1, section "my_regs"
; P0-NEXT: @reg_b = internal constant i32 2, section "my_regs"
; P0-NEXT: @reg_c{{.*}} = hidden constant i32 3, section "my_regs"
; P0: define i32 @use_a()
; P0-NOT: @reg_d
; P1-NOT: @reg_a
; P1-NOT: @reg_b
; P1: @reg_c{{.*}} = available_externally hidden constant i32 3, section "my_regs"
; P1-NOT: @reg_a
; P1-NOT: @reg_b
; P1: @reg_d = linkonce_odr constant i32 4, section "my_regs", comdat
; P1: define i32 @use_c()
;
; One in a COMDAT group (a section of its own, which the linker keeps or
; drops with its group) is not held with them: it goes with its user.
; Fails if: groups() unites the variables of a section inside COMDAT groups.

@reg_a = internal constant i32 1, section "my_regs", align 4
@reg_b = internal constant i32 2, section "my_regs", align 4
@reg_c = internal constant i32 3, section "my_regs", align 4
$reg_d = comdat any
@reg_d = linkonce_odr constant i32 4, section "my_regs", comdat, align 4
@llvm.used = appending global [3 x ptr] [ptr @reg_a, ptr @reg_b, ptr @reg_c], section "llvm.metadata"
define i32 @use_a() {
  %v = load i32, ptr @reg_a
  %a = add i32 %v, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  ret i32 %d
}
define i32 @use_c() {
  %v = load i32, ptr @reg_c
  %d = load i32, ptr @reg_d
  %s = add i32 %v, %d
  ret i32 %s
}
