// Virtual calls that only a whole-program view resolves, for full LTO
// (tests/e2e_full_lto.py). Built with -fvisibility=hidden and either
// -fwhole-program-vtables (whole-program devirtualization: Codec has one
// implementation, so its calls become direct; Stage::weight() returns a
// constant in every class, so its calls become loads) or -fsanitize=cfi
// (every virtual and indirect call is checked against the jump tables of
// the program's classes and functions). `./prog N` prints a checksum;
// `./prog N bad-cast` and `./prog N bad-icall` make a call that CFI must
// stop (the process then dies of SIGILL); without CFI they are not made.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

// One implementation in the whole program: calls are devirtualized.
struct Codec {
  virtual ~Codec() = default;
  virtual unsigned encode(unsigned x) const = 0;
};

struct XorCodec final : Codec {
  unsigned key;
  explicit XorCodec(unsigned key) : key(key) {}
  unsigned encode(unsigned x) const override;
};

unsigned XorCodec::encode(unsigned x) const { return (x ^ key) * 2654435761u; }

// Several implementations; weight() a constant in each (virtual constant
// propagation), run() real work.
struct Stage {
  virtual ~Stage() = default;
  virtual int weight() const = 0;
  virtual unsigned run(unsigned x) const = 0;
};

struct AddStage : Stage {
  int weight() const override { return 3; }
  unsigned run(unsigned x) const override;
};
struct MulStage : Stage {
  int weight() const override { return 5; }
  unsigned run(unsigned x) const override;
};
struct RotStage : Stage {
  int weight() const override { return 7; }
  unsigned run(unsigned x) const override;
};

unsigned AddStage::run(unsigned x) const { return x + 0x9e3779b9u; }
unsigned MulStage::run(unsigned x) const { return x * 0x85ebca6bu; }
unsigned RotStage::run(unsigned x) const { return (x << 13) | (x >> 19); }

// Unrelated to Stage: a call through a Stage pointer to it is what CFI stops.
struct Unrelated {
  virtual unsigned other(unsigned x) const { return x + 1; }
};

// Kept out of line, so that their calls stay where the test can see them.
__attribute__((noinline)) unsigned encode_all(const Codec &codec, const std::vector<unsigned> &values) {
  unsigned sum = 0;
  for (unsigned v : values)
    sum += codec.encode(v);
  return sum;
}

__attribute__((noinline)) long weigh(const std::vector<std::unique_ptr<Stage>> &stages) {
  long total = 0;
  for (const auto &s : stages)
    total += s->weight();
  return total;
}

__attribute__((noinline)) unsigned pipeline(const std::vector<std::unique_ptr<Stage>> &stages, unsigned x) {
  for (const auto &s : stages)
    x = s->run(x);
  return x;
}

using Combine = unsigned (*)(unsigned, unsigned);
unsigned combine_add(unsigned a, unsigned b) { return a + b; }
unsigned combine_xor(unsigned a, unsigned b) { return a ^ b; }
unsigned combine_mix(unsigned a, unsigned b) { return a * 31 + b; }
// Another type: calling it through a Combine is what CFI stops.
unsigned long scale(unsigned long a) { return a * 3; }

__attribute__((noinline)) unsigned fold(Combine f, const std::vector<unsigned> &values) {
  unsigned acc = 0;
  for (unsigned v : values)
    acc = f(acc, v);
  return acc;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const char *misuse = argc > 2 ? argv[2] : "";
  std::vector<unsigned> values;
  for (int i = 0; i < n; ++i)
    values.push_back(unsigned(i) * 7919u + 13u);
  std::vector<std::unique_ptr<Stage>> stages;
  for (int i = 0; i < 12; ++i) {
    if (i % 3 == 0)
      stages.emplace_back(new AddStage);
    else if (i % 3 == 1)
      stages.emplace_back(new MulStage);
    else
      stages.emplace_back(new RotStage);
  }
  XorCodec codec(unsigned(n) | 1u);
  unsigned checksum = encode_all(codec, values);
  checksum ^= unsigned(weigh(stages));
  for (unsigned v : values)
    checksum += pipeline(stages, v);
  Combine combiners[] = {combine_add, combine_xor, combine_mix};
  for (Combine f : combiners)
    checksum = checksum * 131u + fold(f, values);
  std::printf("checksum %u over %d values, weight %ld\n", checksum, n, weigh(stages));
  if (std::strcmp(misuse, "bad-cast") == 0) {
    Unrelated u;
    const Stage *s = reinterpret_cast<const Stage *>(&u);
    std::fflush(stdout);
    std::printf("%u\n", s->run(1)); // CFI: vcall through the wrong type
  } else if (std::strcmp(misuse, "bad-icall") == 0) {
    Combine f = reinterpret_cast<Combine>(reinterpret_cast<void *>(scale));
    std::fflush(stdout);
    std::printf("%u\n", fold(f, values)); // CFI: icall through the wrong type
  }
  return 0;
}
