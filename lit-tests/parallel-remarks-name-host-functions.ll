; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -pass-remarks=inline \
; RUN:   -pass-remarks-output=%t.yaml %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=.mtpc.
; RUN: FileCheck %s --check-prefix=RECORD --implicit-check-not=.mtpc. < %t.yaml

; A remark names functions as the host's module does. @dispatch, local and
; too large to copy, is used by both partitions (@caller calls it, @taker
; takes its address), so it is promoted: @dispatch.mtpc.<hash>, defined by
; @caller's partition, which inlines the call (its constant picks one case).
; The remark about that, and every other one (the code generator's
; " (in function: NAME)" too), say "dispatch", as the whole module's
; compile does.
; Fails if: diagnostics.rs DiagnosticRouting::host_name is not applied to
; the values of the remarks (parallel.rs), or misses a name within a value.
; P0: declare hidden i32 @dispatch.mtpc.{{[0-9a-f]+}}(i32, i32)
; P0: define void @taker(
; P1: define hidden i32 @dispatch.mtpc.{{[0-9a-f]+}}(i32 %op, i32 %x)
; P1: define i32 @caller(
; REMARK: remark: <unknown>:0:0: 'dispatch' inlined into 'caller'
; RECORD: Pass: inline
; RECORD-NEXT: Name: Inlined
; RECORD-NEXT: Function: caller
; RECORD-NEXT: Args:
; RECORD-NEXT: - String: ''''
; RECORD-NEXT: - Callee: dispatch
; RECORD-NEXT: - String: ''' inlined into '''
; RECORD-NEXT: - Caller: caller

target triple = "x86_64-pc-linux-gnu"

@table = global ptr null

define internal i32 @dispatch(i32 %op, i32 %x) {
entry:
  switch i32 %op, label %none [
    i32 0, label %case0
    i32 1, label %case1
    i32 2, label %case2
    i32 3, label %case3
    i32 4, label %case4
    i32 5, label %case5
    i32 6, label %case6
    i32 7, label %case7
    i32 8, label %case8
    i32 9, label %case9
    i32 10, label %case10
    i32 11, label %case11
    i32 12, label %case12
    i32 13, label %case13
    i32 14, label %case14
    i32 15, label %case15
  ]
case0:
  %c0.0 = mul i32 %x, 3
  %c0.1 = mul i32 %c0.0, 4
  %c0.2 = mul i32 %c0.1, 5
  %c0.3 = mul i32 %c0.2, 6
  %c0.4 = mul i32 %c0.3, 7
  %c0.5 = mul i32 %c0.4, 8
  %c0.6 = mul i32 %c0.5, 9
  %c0.7 = mul i32 %c0.6, 10
  %c0.8 = mul i32 %c0.7, 11
  %c0.9 = mul i32 %c0.8, 12
  ret i32 %c0.9
case1:
  %c1.0 = mul i32 %x, 13
  %c1.1 = mul i32 %c1.0, 14
  %c1.2 = mul i32 %c1.1, 15
  %c1.3 = mul i32 %c1.2, 16
  %c1.4 = mul i32 %c1.3, 17
  %c1.5 = mul i32 %c1.4, 18
  %c1.6 = mul i32 %c1.5, 19
  %c1.7 = mul i32 %c1.6, 20
  %c1.8 = mul i32 %c1.7, 21
  %c1.9 = mul i32 %c1.8, 22
  ret i32 %c1.9
case2:
  %c2.0 = mul i32 %x, 23
  %c2.1 = mul i32 %c2.0, 24
  %c2.2 = mul i32 %c2.1, 25
  %c2.3 = mul i32 %c2.2, 26
  %c2.4 = mul i32 %c2.3, 27
  %c2.5 = mul i32 %c2.4, 28
  %c2.6 = mul i32 %c2.5, 29
  %c2.7 = mul i32 %c2.6, 30
  %c2.8 = mul i32 %c2.7, 31
  %c2.9 = mul i32 %c2.8, 32
  ret i32 %c2.9
case3:
  %c3.0 = mul i32 %x, 33
  %c3.1 = mul i32 %c3.0, 34
  %c3.2 = mul i32 %c3.1, 35
  %c3.3 = mul i32 %c3.2, 36
  %c3.4 = mul i32 %c3.3, 37
  %c3.5 = mul i32 %c3.4, 38
  %c3.6 = mul i32 %c3.5, 39
  %c3.7 = mul i32 %c3.6, 40
  %c3.8 = mul i32 %c3.7, 41
  %c3.9 = mul i32 %c3.8, 42
  ret i32 %c3.9
case4:
  %c4.0 = mul i32 %x, 43
  %c4.1 = mul i32 %c4.0, 44
  %c4.2 = mul i32 %c4.1, 45
  %c4.3 = mul i32 %c4.2, 46
  %c4.4 = mul i32 %c4.3, 47
  %c4.5 = mul i32 %c4.4, 48
  %c4.6 = mul i32 %c4.5, 49
  %c4.7 = mul i32 %c4.6, 50
  %c4.8 = mul i32 %c4.7, 51
  %c4.9 = mul i32 %c4.8, 52
  ret i32 %c4.9
case5:
  %c5.0 = mul i32 %x, 53
  %c5.1 = mul i32 %c5.0, 54
  %c5.2 = mul i32 %c5.1, 55
  %c5.3 = mul i32 %c5.2, 56
  %c5.4 = mul i32 %c5.3, 57
  %c5.5 = mul i32 %c5.4, 58
  %c5.6 = mul i32 %c5.5, 59
  %c5.7 = mul i32 %c5.6, 60
  %c5.8 = mul i32 %c5.7, 61
  %c5.9 = mul i32 %c5.8, 62
  ret i32 %c5.9
case6:
  %c6.0 = mul i32 %x, 63
  %c6.1 = mul i32 %c6.0, 64
  %c6.2 = mul i32 %c6.1, 65
  %c6.3 = mul i32 %c6.2, 66
  %c6.4 = mul i32 %c6.3, 67
  %c6.5 = mul i32 %c6.4, 68
  %c6.6 = mul i32 %c6.5, 69
  %c6.7 = mul i32 %c6.6, 70
  %c6.8 = mul i32 %c6.7, 71
  %c6.9 = mul i32 %c6.8, 72
  ret i32 %c6.9
case7:
  %c7.0 = mul i32 %x, 73
  %c7.1 = mul i32 %c7.0, 74
  %c7.2 = mul i32 %c7.1, 75
  %c7.3 = mul i32 %c7.2, 76
  %c7.4 = mul i32 %c7.3, 77
  %c7.5 = mul i32 %c7.4, 78
  %c7.6 = mul i32 %c7.5, 79
  %c7.7 = mul i32 %c7.6, 80
  %c7.8 = mul i32 %c7.7, 81
  %c7.9 = mul i32 %c7.8, 82
  ret i32 %c7.9
case8:
  %c8.0 = mul i32 %x, 83
  %c8.1 = mul i32 %c8.0, 84
  %c8.2 = mul i32 %c8.1, 85
  %c8.3 = mul i32 %c8.2, 86
  %c8.4 = mul i32 %c8.3, 87
  %c8.5 = mul i32 %c8.4, 88
  %c8.6 = mul i32 %c8.5, 89
  %c8.7 = mul i32 %c8.6, 90
  %c8.8 = mul i32 %c8.7, 91
  %c8.9 = mul i32 %c8.8, 92
  ret i32 %c8.9
case9:
  %c9.0 = mul i32 %x, 93
  %c9.1 = mul i32 %c9.0, 94
  %c9.2 = mul i32 %c9.1, 95
  %c9.3 = mul i32 %c9.2, 96
  %c9.4 = mul i32 %c9.3, 97
  %c9.5 = mul i32 %c9.4, 98
  %c9.6 = mul i32 %c9.5, 99
  %c9.7 = mul i32 %c9.6, 100
  %c9.8 = mul i32 %c9.7, 101
  %c9.9 = mul i32 %c9.8, 102
  ret i32 %c9.9
case10:
  %c10.0 = mul i32 %x, 103
  %c10.1 = mul i32 %c10.0, 104
  %c10.2 = mul i32 %c10.1, 105
  %c10.3 = mul i32 %c10.2, 106
  %c10.4 = mul i32 %c10.3, 107
  %c10.5 = mul i32 %c10.4, 108
  %c10.6 = mul i32 %c10.5, 109
  %c10.7 = mul i32 %c10.6, 110
  %c10.8 = mul i32 %c10.7, 111
  %c10.9 = mul i32 %c10.8, 112
  ret i32 %c10.9
case11:
  %c11.0 = mul i32 %x, 113
  %c11.1 = mul i32 %c11.0, 114
  %c11.2 = mul i32 %c11.1, 115
  %c11.3 = mul i32 %c11.2, 116
  %c11.4 = mul i32 %c11.3, 117
  %c11.5 = mul i32 %c11.4, 118
  %c11.6 = mul i32 %c11.5, 119
  %c11.7 = mul i32 %c11.6, 120
  %c11.8 = mul i32 %c11.7, 121
  %c11.9 = mul i32 %c11.8, 122
  ret i32 %c11.9
case12:
  %c12.0 = mul i32 %x, 123
  %c12.1 = mul i32 %c12.0, 124
  %c12.2 = mul i32 %c12.1, 125
  %c12.3 = mul i32 %c12.2, 126
  %c12.4 = mul i32 %c12.3, 127
  %c12.5 = mul i32 %c12.4, 128
  %c12.6 = mul i32 %c12.5, 129
  %c12.7 = mul i32 %c12.6, 130
  %c12.8 = mul i32 %c12.7, 131
  %c12.9 = mul i32 %c12.8, 132
  ret i32 %c12.9
case13:
  %c13.0 = mul i32 %x, 133
  %c13.1 = mul i32 %c13.0, 134
  %c13.2 = mul i32 %c13.1, 135
  %c13.3 = mul i32 %c13.2, 136
  %c13.4 = mul i32 %c13.3, 137
  %c13.5 = mul i32 %c13.4, 138
  %c13.6 = mul i32 %c13.5, 139
  %c13.7 = mul i32 %c13.6, 140
  %c13.8 = mul i32 %c13.7, 141
  %c13.9 = mul i32 %c13.8, 142
  ret i32 %c13.9
case14:
  %c14.0 = mul i32 %x, 143
  %c14.1 = mul i32 %c14.0, 144
  %c14.2 = mul i32 %c14.1, 145
  %c14.3 = mul i32 %c14.2, 146
  %c14.4 = mul i32 %c14.3, 147
  %c14.5 = mul i32 %c14.4, 148
  %c14.6 = mul i32 %c14.5, 149
  %c14.7 = mul i32 %c14.6, 150
  %c14.8 = mul i32 %c14.7, 151
  %c14.9 = mul i32 %c14.8, 152
  ret i32 %c14.9
case15:
  %c15.0 = mul i32 %x, 153
  %c15.1 = mul i32 %c15.0, 154
  %c15.2 = mul i32 %c15.1, 155
  %c15.3 = mul i32 %c15.2, 156
  %c15.4 = mul i32 %c15.3, 157
  %c15.5 = mul i32 %c15.4, 158
  %c15.6 = mul i32 %c15.5, 159
  %c15.7 = mul i32 %c15.6, 160
  %c15.8 = mul i32 %c15.7, 161
  %c15.9 = mul i32 %c15.8, 162
  ret i32 %c15.9
none:
  ret i32 0
}

define i32 @caller(i32 %x) {
  %r = call i32 @dispatch(i32 2, i32 %x)
  ret i32 %r
}

define void @taker(i32 %n) {
entry:
  store ptr @dispatch, ptr @table
  br label %loop0
loop0:
  %i0 = phi i32 [ 0, %entry ], [ %j0, %loop0 ]
  %j0 = add i32 %i0, 1
  %more0 = icmp slt i32 %j0, %n
  br i1 %more0, label %loop0, label %loop1
loop1:
  %i1 = phi i32 [ 0, %loop0 ], [ %j1, %loop1 ]
  %j1 = add i32 %i1, 1
  %more1 = icmp slt i32 %j1, %n
  br i1 %more1, label %loop1, label %loop2
loop2:
  %i2 = phi i32 [ 0, %loop1 ], [ %j2, %loop2 ]
  %j2 = add i32 %i2, 1
  %more2 = icmp slt i32 %j2, %n
  br i1 %more2, label %loop2, label %loop3
loop3:
  %i3 = phi i32 [ 0, %loop2 ], [ %j3, %loop3 ]
  %j3 = add i32 %i3, 1
  %more3 = icmp slt i32 %j3, %n
  br i1 %more3, label %loop3, label %done
done:
  ret void
}
