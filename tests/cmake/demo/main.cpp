// The demo's C++ executable.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

extern "C" unsigned checksum(const unsigned *v, int n);
extern "C" unsigned checksum_twice(const unsigned *v, int n);

int main() {
  std::vector<unsigned> v;
  for (unsigned i = 0; i < 100; i++) v.push_back(i * i % 97);
  std::map<std::string, unsigned> sums{{"once", checksum(v.data(), (int)v.size())},
                                       {"twice", checksum_twice(v.data(), (int)v.size())}};
  for (auto &kv : sums) std::printf("%s %u\n", kv.first.c_str(), kv.second);
  return 0;
}
