; RUN: not %opt-mtpc -passes='mtpc-split<partitions=zero>' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VALUE
; RUN: not %opt-mtpc -passes='mtpc-split<partitions=0>' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
; RUN: not %opt-mtpc -passes='mtpc-split<parts=2>' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
; RUN: not %opt-mtpc -passes='mtpc-split<min-size>' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOVALUE

; Bad parameter text is rejected while the pipeline is parsed, with a
; message that names the parameter and what is accepted.
; Fails if: options.rs parse_split_options() accepts partitions=0 (parse_count's minimum 1 lowered to 0).
; VALUE: error: mtpc-split: invalid value 'zero' for parameter 'partitions': expected an integer >= 1
; ZERO: error: mtpc-split: invalid value '0' for parameter 'partitions'
; UNKNOWN: error: mtpc-split: unknown parameter 'parts'; mtpc-split accepts partitions=N, min-size=M, out=PREFIX and no-merge
; NOVALUE: error: mtpc-split: parameter 'min-size' has no value: write min-size=VALUE

define i32 @a(i32 %x) {
  %r = call i32 @b(i32 %x)
  %s = add i32 %r, 1
  %t = add i32 %s, 1
  ret i32 %t
}
define i32 @b(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}
define i32 @c(i32 %x) {
  %y = add i32 %x, 2
  ret i32 %y
}
