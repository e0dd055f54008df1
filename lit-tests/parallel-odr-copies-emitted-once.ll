; RUN: %opt-mtpc -passes='mtpc-parallel<O0;partitions=2;min-size=0>' -S %s -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: grep -c '^module asm "_Z3inlv:"$' %t.ll | FileCheck --check-prefix=ONCE %s
; RUN: grep -c '^module asm "_Z5countv:"$' %t.ll | FileCheck --check-prefix=ONCE %s
; RUN: grep -c '^module asm "_ZZ5countvE1n:"$' %t.ll | FileCheck --check-prefix=ONCE %s

; Both partitions copy the inline functions (and the static local of
; @_Z5countv) and, at -O0, keep them; after optimization the partition that
; started first emits each, and the other turns its copies into
; declarations: each is defined once in the merged text, in its COMDAT
; group, and both partitions call it.
; Fails if: odr_copies.rs EmitterChoice::emitted_elsewhere counts a
; partition's own copy as emitted elsewhere (no partition emits the
; functions: no label at all). (The merge drops a second copy of a group
; section that is the same as the first, so two emitters would pass here;
; parallel-odr-copy-described-once.ll catches those.)
; CHECK-DAG: module asm "{{.*}}.section{{.*}}.text._Z3inlv,\22axG\22,@progbits,_Z3inlv,comdat"
; CHECK-DAG: module asm "{{.*}}.section{{.*}}.text._Z5countv,\22axG\22,@progbits,_Z5countv,comdat"
; CHECK-DAG: module asm "first:"
; CHECK-DAG: module asm "second:"
; CHECK-DAG: module asm "{{.*}}call{{.*}}_Z3inlv
; ONCE: {{^}}1{{$}}

target triple = "x86_64-pc-linux-gnu"

$_Z3inlv = comdat any
$_Z5countv = comdat any
$_ZZ5countvE1n = comdat any
@_ZZ5countvE1n = linkonce_odr global i32 0, comdat, align 4

define linkonce_odr i32 @_Z3inlv(i32 %x) comdat {
  %y = mul i32 %x, 3
  ret i32 %y
}

define linkonce_odr i32 @_Z5countv() comdat {
  %n = load i32, ptr @_ZZ5countvE1n
  %m = add i32 %n, 1
  store i32 %m, ptr @_ZZ5countvE1n
  ret i32 %m
}

define i32 @first(i32 %x) {
  %a = call i32 @_Z3inlv(i32 %x)
  %b = call i32 @_Z5countv()
  %c = add i32 %a, %b
  ret i32 %c
}

define i32 @second(i32 %x) {
  %a = call i32 @_Z3inlv(i32 %x)
  %b = call i32 @_Z5countv()
  %c = mul i32 %a, %b
  ret i32 %c
}
