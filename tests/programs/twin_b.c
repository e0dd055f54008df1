/* One of two sources with the same internal names (tests/e2e_split.py):
 * split separately and linked together, their promoted helpers and tables
 * must not collide. */
static int table[8] = {10, 20, 30, 40, 50, 60, 70, 80};
static int helper(int x) {
  int s = 0;
  for (int i = 0; i < 8; i++) s += table[(x + i) & 7] * (i + 1) + (s >> 3);
  for (int i = 0; i < 8; i++) s ^= table[(x * 3 + i) & 7] << (i & 3);
  for (int i = 0; i < 8; i++) s += (s % 7) * table[i];
  return s;
}
int first_b(int x) { return helper(x) + 1; }
int second_b(int x) { table[x & 7]++; return helper(x * 2) - 1; }
