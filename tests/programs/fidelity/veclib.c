/* A loop of sin() calls that -fveclib=libmvec vectorizes into calls of
 * glibc's vector sin (_ZGV*_sin) when the pipeline has the host's
 * library info. */
#include <math.h>
__attribute__((noinline)) void sines(double *restrict out, const double *restrict in, int n) {
  for (int i = 0; i < n; i++)
    out[i] = sin(in[i]);
}
__attribute__((noinline)) double total(const double *in, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += in[i];
  return s;
}
