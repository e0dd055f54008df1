// The workload of HarfBuzz's own shaping benchmark (perf/benchmark-shape.cc
// in the harfbuzz-sys crate's sources), without Google Benchmark: every line
// of each text is shaped with HarfBuzz's OpenType functions in the font the
// benchmark pairs it with, ITERATIONS times. Prints a checksum of every
// glyph, cluster and position per pair, so that a build that shapes
// differently is caught.
//
//   harfbuzz_workload HARFBUZZ_DIR [ITERATIONS]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hb-ot.h"
#include "hb.h"

namespace {

struct Pair {
  const char *font;
  const char *text;
};

// The pairs of benchmark-shape.cc whose fonts ship in perf/fonts.
const Pair kPairs[] = {
    {"perf/fonts/NotoNastaliqUrdu-Regular.ttf", "perf/texts/fa-thelittleprince.txt"},
    {"perf/fonts/NotoNastaliqUrdu-Regular.ttf", "perf/texts/fa-words.txt"},
    {"perf/fonts/Amiri-Regular.ttf", "perf/texts/fa-thelittleprince.txt"},
    {"perf/fonts/Roboto-Regular.ttf", "perf/texts/en-thelittleprince.txt"},
    {"perf/fonts/Roboto-Regular.ttf", "perf/texts/en-words.txt"},
};

uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211ull; }

hb_blob_t *load(const std::string &path) {
  hb_blob_t *blob = hb_blob_create_from_file_or_fail(path.c_str());
  if (!blob) {
    std::fprintf(stderr, "harfbuzz_workload: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  return blob;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: harfbuzz_workload HARFBUZZ_DIR [ITERATIONS]\n");
    return 2;
  }
  const std::string dir = std::string(argv[1]) + "/";
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 1;
  uint64_t total = 14695981039346656037ull;
  for (const Pair &pair : kPairs) {
    hb_blob_t *font_blob = load(dir + pair.font);
    hb_face_t *face = hb_face_create(font_blob, 0);
    hb_font_t *font = hb_font_create(face);
    hb_ot_font_set_funcs(font);
    hb_blob_t *text_blob = load(dir + pair.text);
    unsigned length;
    const char *all = hb_blob_get_data(text_blob, &length);
    hb_buffer_t *buf = hb_buffer_create();
    uint64_t sum = 14695981039346656037ull;
    for (int i = 0; i < iterations; i++) {
      const char *text = all;
      unsigned left = length;
      const char *end;
      while ((end = static_cast<const char *>(std::memchr(text, '\n', left)))) {
        hb_buffer_clear_contents(buf);
        hb_buffer_add_utf8(buf, text, left, 0, end - text);
        hb_buffer_guess_segment_properties(buf);
        hb_shape(font, buf, nullptr, 0);
        unsigned count;
        hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buf, &count);
        hb_glyph_position_t *pos = hb_buffer_get_glyph_positions(buf, &count);
        for (unsigned g = 0; g < count; g++) {
          sum = mix(sum, info[g].codepoint);
          sum = mix(sum, info[g].cluster);
          sum = mix(sum, static_cast<uint32_t>(pos[g].x_advance));
          sum = mix(sum, static_cast<uint32_t>(pos[g].x_offset));
          sum = mix(sum, static_cast<uint32_t>(pos[g].y_offset));
        }
        unsigned skip = end - text + 1;
        left -= skip;
        text += skip;
      }
    }
    std::printf("%s %s %016llx\n", std::strrchr(pair.font, '/') + 1, std::strrchr(pair.text, '/') + 1,
                static_cast<unsigned long long>(sum));
    total = mix(total, sum);
    hb_buffer_destroy(buf);
    hb_blob_destroy(text_blob);
    hb_font_destroy(font);
    hb_face_destroy(face);
    hb_blob_destroy(font_blob);
  }
  std::printf("total %016llx\n", static_cast<unsigned long long>(total));
  return 0;
}
