/* A call through a pointer to the wrong function type, which
 * -fsanitize=function (part of -fsanitize=undefined in C++) reports: the
 * callee's prologue names its type info through a private proxy, which
 * every partition with a function of that type needs (the template scale
 * is copied into each partition that calls it). `bugs_function call N`
 * makes the bad call. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
template <typename T> __attribute__((noinline)) T scale(T x, T k) { return x * k; }
__attribute__((noinline)) int twice(int x) { return scale(x, 2); }
__attribute__((noinline)) int thrice(int x) { return scale(x, 3); }
__attribute__((noinline)) int add(int x, int y) { return x + y; }
__attribute__((noinline)) int apply(int (*f)(int), int x) { return f(x); }
__attribute__((noinline)) long wrong(void *f, int x) { return reinterpret_cast<long (*)(int)>(f)(x); }
int main(int argc, char **argv) {
  int n = argc > 2 ? atoi(argv[2]) : 1;
  printf("%d %d\n", apply(twice, n), apply(thrice, n));
  if (argc > 1 && strcmp(argv[1], "call") == 0)
    printf("%ld\n", wrong(reinterpret_cast<void *>(add), n));
  return 0;
}
