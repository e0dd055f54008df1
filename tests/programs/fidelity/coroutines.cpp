/* C++20: coroutines (a template generator two partitions instantiate, and a
 * static one), compiled with -std=c++20, whose modules clang 16 gives an
 * empty list of linker options. `coroutines N` prints three sums the
 * generators yield. The fidelity test compares the output and the object's
 * sections of LLVM's own types with the stock build's. */
#include <coroutine>
#include <cstdio>
#include <cstdlib>
#include <exception>
template <typename T> struct Gen {
  struct promise_type {
    T value;
    Gen get_return_object() { return Gen{std::coroutine_handle<promise_type>::from_promise(*this)}; }
    std::suspend_always initial_suspend() { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    std::suspend_always yield_value(T v) { value = v; return {}; }
    void return_void() {}
    void unhandled_exception() { std::terminate(); }
  };
  std::coroutine_handle<promise_type> h;
  explicit Gen(std::coroutine_handle<promise_type> h) : h(h) {}
  Gen(Gen &&o) : h(o.h) { o.h = {}; }
  ~Gen() { if (h) h.destroy(); }
  bool next() { h.resume(); return !h.done(); }
  T value() const { return h.promise().value; }
};
template <typename T> Gen<T> range(T a, T b) { for (T i = a; i < b; ++i) co_yield i; }
static Gen<long> squares(long n) { for (long i = 0; i < n; ++i) co_yield i * i; }
__attribute__((noinline)) long sum_range(int n) { long s = 0; auto g = range<int>(0, n); while (g.next()) s += g.value(); return s; }
__attribute__((noinline)) long sum_squares(int n) { long s = 0; auto g = squares(n); while (g.next()) s += g.value(); return s; }
__attribute__((noinline)) long mixed(int n) { long s = 0; auto g = range<long>(3, n); auto q = squares(n / 2); while (g.next() && q.next()) s += g.value() * q.value(); return s; }
int main(int argc, char **argv) { int n = argc > 1 ? atoi(argv[1]) : 100; printf("%ld %ld %ld\n", sum_range(n), sum_squares(n), mixed(n)); }
