/* Planted bugs, one per sanitizer, each in a function of its own "file"
 * (#line), so that a forced split puts them in different partitions from
 * main. `bugs MODE N` runs one: heap (ASan, heap-buffer-overflow), global
 * and static (ASan, global-buffer-overflow: an external array, and a static
 * one that functions of two partitions use), literal and main-literal
 * (ASan, the same, of a string literal that functions of two partitions
 * use, each with its own copy, one of which is not the owner's: past
 * literal_char's, and past main's), uninit (MSan), overflow
 * (UBSan, signed overflow), race (TSan). The fidelity test compares each sanitizer's
 * report with the stock build's: same bug, same frames, same lines. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#line 1 "heap.h"
__attribute__((noinline)) int heap_overflow(int n) {
  int *p = malloc(8 * sizeof(int));
  for (int i = 0; i < 8; i++)
    p[i] = i;
  int r = p[n];
  free(p);
  return r;
}
#line 1 "static_global.h"
static int counts[8];
__attribute__((noinline)) void count_up(int n) {
  for (int i = 0; i < 8; i++)
    counts[i] += n + i;
}
__attribute__((noinline)) int static_overflow(int n) { return counts[n]; }
#line 1 "global.h"
int table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__attribute__((noinline)) int global_overflow(int n) {
  counts[0]++;
  return table[n];
}
#line 1 "literal.h"
__attribute__((noinline)) int literal_char(int n) {
  const char *s = "a literal longer than a constant pool entry";
  return s[n];
}
#line 1 "uninit.h"
__attribute__((noinline)) void fill(int *a, int n) {
  for (int i = 0; i < n; i++)
    a[i] = i;
}
__attribute__((noinline)) int use_uninit(int n) {
  int a[8];
  fill(a, n);
  if (a[7] > 3)
    puts("large");
  return 0;
}
#line 1 "overflow.h"
__attribute__((noinline)) int signed_overflow(int n) {
  int x = 2147483600;
  return x + n;
}
#line 1 "race.h"
int shared;
static void *writer(void *arg) {
  shared += (int)(long)arg;
  return 0;
}
__attribute__((noinline)) int race(int n) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], 0, writer, (void *)(i + n));
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], 0);
  return shared;
}
#line 60 "bugs.c"
int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int n = argc > 2 ? atoi(argv[2]) : 0;
  if (!strcmp(mode, "heap"))
    printf("%d\n", heap_overflow(n));
  if (!strcmp(mode, "global"))
    printf("%d\n", global_overflow(n));
  if (!strcmp(mode, "static")) {
    count_up(n);
    printf("%d\n", static_overflow(n));
  }
  if (!strcmp(mode, "literal"))
    printf("%d\n", literal_char(n));
  if (!strcmp(mode, "main-literal")) {
    const char *s = "a literal longer than a constant pool entry";
    printf("%d\n", s[n]);
  }
  if (!strcmp(mode, "uninit"))
    printf("%d\n", use_uninit(n));
  if (!strcmp(mode, "overflow"))
    printf("%d\n", signed_overflow(n));
  if (!strcmp(mode, "race"))
    printf("%d\n", race(n));
  return 0;
}
