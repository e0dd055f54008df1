// C++ constructs the split must handle: vtables (external and inline key
// functions), templates in COMDATs, exceptions, static initializers,
// anonymous namespaces, thread_local with dynamic initialization, lambdas,
// std:: containers, an explicit instantiation and a function's address as
// a template argument. Output compared stock vs split (tests/e2e_split.py).
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
  virtual const char *name() const { return "shape"; }
};

// Key function defined out of line: an external vtable.
struct Rect : Shape {
  double w, h;
  Rect(double w, double h) : w(w), h(h) {}
  double area() const override;
  const char *name() const override { return "rect"; }
};
double Rect::area() const { return w * h; }

// All inline: vtable in a COMDAT (linkonce_odr).
struct Circle : Shape {
  double r;
  explicit Circle(double r) : r(r) {}
  double area() const override { return 3.25 * r * r; }
  const char *name() const override { return "circle"; }
};

namespace {
// Internal vtable and internal functions.
struct Square : Shape {
  double s;
  explicit Square(double s) : s(s) {}
  double area() const override { return s * s; }
  const char *name() const override { return "square"; }
};
int local_counter = 0;
std::map<std::string, int> registry = {{"init", 1}};  // dynamic initializer
}  // namespace

template <typename T>
T accumulate_squares(const std::vector<T> &v) {
  return std::accumulate(v.begin(), v.end(), T(0), [](T a, T b) { return a + b * b; });
}

template <int N>
struct Fib { static constexpr long value = Fib<N - 1>::value + Fib<N - 2>::value; };
template <> struct Fib<0> { static constexpr long value = 0; };
template <> struct Fib<1> { static constexpr long value = 1; };

struct ParseError : std::runtime_error {
  int where;
  ParseError(const char *m, int w) : std::runtime_error(m), where(w) {}
};

int parse_digit(char c, int pos) {
  if (c < '0' || c > '9') throw ParseError("not a digit", pos);
  return c - '0';
}

long parse_number(const std::string &s) {
  long v = 0;
  for (size_t i = 0; i < s.size(); i++) v = v * 10 + parse_digit(s[i], (int)i);
  return v;
}

thread_local std::vector<int> tl_log = {1, 2, 3};  // TLS with dynamic init

struct Tracker {
  const char *what;
  explicit Tracker(const char *w) : what(w) { ++local_counter; }
  ~Tracker() { std::printf("~Tracker %s\n", what); }
};
static Tracker global_tracker("global");

// An explicit instantiation: its constructor's and destructor's variants
// are in groups that no symbol names (C5, D5), whose signatures the
// assembler makes.
template <typename T> struct Counter {
  explicit Counter(T start);
  ~Counter();
  T next();
  T value;
};
template <typename T> Counter<T>::Counter(T start) : value(start) {}
template <typename T> Counter<T>::~Counter() { std::printf("counter ends at %ld\n", (long)value); }
template <typename T> T Counter<T>::next() { return ++value; }
template struct Counter<long>;

// A class whose template parameter is a function's address, used where
// the function is not: its debug information gives that address.
template <void (*Report)(const char *)> struct Reporter {
  int calls;
};
void report_to_stdout(const char *what) { std::printf("report %s\n", what); }
int count_reports(Reporter<report_to_stdout> *r, int n) { return r->calls += n; }

double total_area(const std::vector<std::unique_ptr<Shape>> &shapes) {
  double t = 0;
  for (auto &s : shapes) t += s->area();
  return t;
}

int main() {
  std::vector<std::unique_ptr<Shape>> shapes;
  for (int i = 1; i <= 6; i++) {
    if (i % 3 == 0) shapes.emplace_back(new Rect(i, i + 1));
    else if (i % 3 == 1) shapes.emplace_back(new Circle(i));
    else shapes.emplace_back(new Square(i));
  }
  for (auto &s : shapes) std::printf("%s %.2f\n", s->name(), s->area());
  std::printf("total %.2f\n", total_area(shapes));
  std::vector<int> vi{1, 2, 3, 4, 5};
  std::vector<double> vd{0.5, 1.5, 2.5};
  std::printf("squares %d %.2f fib %ld\n", accumulate_squares(vi), accumulate_squares(vd), Fib<40>::value);
  for (const char *text : {"12345", "12a45", "987"}) {
    try {
      std::printf("parsed %ld\n", parse_number(text));
    } catch (const ParseError &e) {
      std::printf("error '%s' at %d\n", e.what(), e.where);
    }
  }
  registry["main"] = 2;
  for (auto &kv : registry) std::printf("registry %s=%d\n", kv.first.c_str(), kv.second);
  tl_log.push_back(4);
  std::printf("tls %zu counter %d\n", tl_log.size(), local_counter);
  std::vector<std::string> names{"delta", "alpha", "charlie", "bravo"};
  std::sort(names.begin(), names.end());
  for (auto &n : names) std::printf("%s ", n.c_str());
  std::printf("\n");
  {
    Counter<long> counter(40);
    counter.next();
    std::printf("counter %ld\n", counter.next());
  }
  Reporter<report_to_stdout> reporter{0};
  count_reports(&reporter, 2);
  std::printf("reports %d\n", count_reports(&reporter, 3));
  Tracker local("local");
  return 0;
}
