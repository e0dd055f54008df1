// Dynamically initialized C++ globals under AddressSanitizer's check of
// initialization order (ASAN_OPTIONS=check_initialization_order=1).
// `table` and `seed` are first used by `heavy`, which comes before them in
// the module and is its largest function (its partition is not the one of
// the module's constructor), so a plan that put data with its first user
// would give them heavy's partition. `seed` reads
// `other_value`, which another translation unit initializes dynamically:
// linked with that unit's constructor running after this one's
// (init_order_other.cpp without INIT_FIRST), ASan reports the read, in
// stock's build as in mtpc's; running before it, nothing is reported.
#include <cstdio>

struct Table {
  int v[64];
  Table() {
    for (int i = 0; i < 64; ++i)
      v[i] = (i * 7 + 3) % 11;
  }
};

struct Value {
  int v;
  Value();
};

extern Table table;
extern int seed;
extern Value other_value;

#define STEP(k) acc = acc * 31 + (table.v[(i + k) & 63] ^ (acc >> 3)) + seed; acc ^= acc << 5;

__attribute__((noinline)) unsigned heavy(int n) {
  unsigned acc = 0;
  for (int i = 0; i < n; ++i) {
    STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8)
    STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15) STEP(16)
  }
  return acc;
}

Table table;
int seed = other_value.v + 1;

int main() {
  std::printf("%u %d\n", heavy(100), seed);
  return 0;
}
