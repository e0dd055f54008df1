// AddressSanitizer with -fsanitize-address-globals-dead-stripping: `mix`,
// the largest function, uses no global and is called through a pointer
// (not from main, whose partition it would join), so the partition that
// holds it has no global ASan instruments, and LLVM 16's ASan gives that partition a
// module constructor that registers no globals, in the COMDAT group of the
// one that does (until 2026-12-07 the module then compiled whole).
// `prog global N` reads table[N]: past its end from N = 16 on.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int table[16];

#define STEP(k) acc = acc * 31u + ((unsigned)(i + k) ^ (acc >> 3)); acc ^= acc << 5;

unsigned mix(int n) {
  unsigned acc = 0;
  for (int i = 0; i < n; ++i) {
    STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8)
    STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15) STEP(16)
  }
  return acc;
}

unsigned (*volatile mixer)(int) = mix;

#define FILL(k) table[(k + j) & 15] = table[(k * 7 + j) & 15] * 3 + k;

__attribute__((noinline)) int read_table(int i) {
  for (int j = 0; j < 4; ++j) {
    FILL(1) FILL(2) FILL(3) FILL(4) FILL(5) FILL(6) FILL(7) FILL(8)
    FILL(9) FILL(10) FILL(11) FILL(12) FILL(13) FILL(14) FILL(15) FILL(16)
  }
  return table[i];
}

int main(int argc, char **argv) {
  if (argc < 3 || strcmp(argv[1], "global") != 0) {
    fprintf(stderr, "usage: %s global N\n", argv[0]);
    return 2;
  }
  printf("%u %d\n", mixer(100), read_table(atoi(argv[2])));
  return 0;
}
