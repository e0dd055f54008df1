/* No headers: compiles for any target (Mach-O, AArch64) on this machine. */
__attribute__((noinline)) int twice(int x) { return 2 * x; }
__attribute__((noinline)) int thrice(int x) { return 3 * x; }
int sum(const int *p, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += twice(p[i]) + thrice(p[i]);
  return s;
}
