/* The demo's C library. */
static unsigned mix(unsigned h, unsigned v) { return (h ^ v) * 16777619u; }
static unsigned fold(const unsigned *v, int n) {
  unsigned h = 2166136261u;
  for (int i = 0; i < n; i++) h = mix(h, v[i]);
  return h;
}
unsigned checksum(const unsigned *v, int n) { return fold(v, n) ^ (unsigned)n; }
unsigned checksum_twice(const unsigned *v, int n) { return mix(checksum(v, n), fold(v, n / 2)); }
