/* Diagnostics produced while optimizing and generating code: a frame too
 * large for -Wframe-larger-than, inlining for -Rpass=inline and the
 * optimization record, a call to a function marked warning(...), and a
 * static function called from two files' worth of code (promoted by mtpc's
 * split: the remarks about it name it as stock's do). */
#include <stdio.h>
#include <string.h>
#line 1 "big.h"
__attribute__((noinline)) int big_frame(int n) {
  char buf[8192];
  memset(buf, n, sizeof buf);
  buf[n & 4095] = 1;
  return buf[(n * 7) & 8191];
}
#line 1 "small.h"
static int square(int x) { return x * x; }
static int cube(int x) { return x * square(x); }
__attribute__((noinline)) int use_them(int n) { return cube(n) + square(n + 1); }
__attribute__((noinline, warning("slow_path is slow"))) int slow_path(int n) { return n - 1; }
#line 1 "twice.h"
static __attribute__((noinline)) int twice(int n) { return n * 2 + 1; }
#line 1 "other.h"
__attribute__((noinline)) int other(int n) { return use_them(n) * 3 + slow_path(n) + twice(n); }
#line 20 "diagnostics.c"
int main(int argc, char **argv) {
  printf("%d %d %d\n", big_frame(argc), other(argc), twice(argc));
  return 0;
}
