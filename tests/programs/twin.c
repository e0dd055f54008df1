/* Compiled twice, with -DSIDE=a -DSCALE=1 and -DSIDE=b -DSCALE=10
 * (tests/e2e_split.py): two
 * objects from the same file name with the same internal names. Split
 * separately and linked together, their promoted helpers and tables must
 * not collide. */
#define CAT2(x, y) x##_##y
#define CAT(x, y) CAT2(x, y)

static int table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static int helper(int x) {
  int s = 0;
  for (int i = 0; i < 8; i++) s += table[(x + i) & 7] * SCALE * (i + 1) + (s >> 3);
  for (int i = 0; i < 8; i++) s ^= table[(x * 3 + i) & 7] << (i & 3);
  for (int i = 0; i < 8; i++) s += (s % 7) * table[i];
  return s;
}
int CAT(first, SIDE)(int x) { return helper(x) + 1; }
int CAT(second, SIDE)(int x) { table[x & 7]++; return helper(x * 2) - 1; }
