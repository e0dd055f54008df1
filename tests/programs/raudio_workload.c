/* A deterministic audio workload for raylib's raudio.c (raylib-sys 5.5.1),
 * which holds miniaudio, dr_wav, dr_mp3, stb_vorbis, QOA, jar_xm and jar_mod
 * in one translation unit (about 64,000 lines once preprocessed; raylib's
 * config.h leaves dr_flac out): builds a WAV
 * file in memory, loads it, converts it to other sample rates, sample sizes
 * and channel counts (miniaudio's data converter and resampler), crops it,
 * reads it as float samples, and writes and reads it back as WAV (dr_wav)
 * and QOA; prints a checksum of each result. The MP3, Vorbis and module
 * decoders are compiled (and their objects compared) but not run. Used to compare a parallel
 * build of raudio.c with a stock one: the output must be identical.
 *   raudio_workload [seconds]   (default 4)
 * It also defines the three file-name helpers of rcore.c that raudio.c and
 * utils.c call (rcore.c itself needs a window system). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "raylib.h"

const char *GetFileExtension(const char *fileName) {
  const char *dot = strrchr(fileName, '.');
  return dot && dot != fileName ? dot : NULL;
}

bool IsFileExtension(const char *fileName, const char *ext) {
  const char *e = GetFileExtension(fileName);
  if (!e) return false;
  for (const char *p = ext; *p;) {
    const char *semi = strchr(p, ';');
    size_t n = semi ? (size_t)(semi - p) : strlen(p);
    if (strlen(e) == n && strncmp(e, p, n) == 0) return true;
    p += n + (semi ? 1 : 0);
  }
  return false;
}

const char *GetFileNameWithoutExt(const char *filePath) {
  static char name[256];
  const char *slash = strrchr(filePath, '/');
  snprintf(name, sizeof name, "%s", slash ? slash + 1 : filePath);
  char *dot = strrchr(name, '.');
  if (dot) *dot = 0;
  return name;
}

static unsigned lcg = 12345;
static int noise(void) { lcg = lcg * 1103515245u + 12345u; return (int)((lcg >> 16) & 0x7fff) - 16384; }

/* FNV-1a of n bytes. */
static unsigned long long checksum(const void *p, size_t n) {
  const unsigned char *b = p;
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 1099511628211ull; }
  return h;
}

static unsigned long long wave_checksum(Wave w) {
  return checksum(w.data, (size_t)w.frameCount * w.channels * w.sampleSize / 8);
}

static void put32(unsigned char *p, unsigned v) { p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24; }
static void put16(unsigned char *p, unsigned v) { p[0] = v; p[1] = v >> 8; }

/* Writes w as `extension` to a file of its own and reads it back. */
static void round_trip(Wave w, const char *extension) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/raudio-workload-%d%s", (int)getpid(), extension);
  if (!ExportWave(w, path)) {
    printf("%s: not written\n", extension);
    return;
  }
  Wave back = LoadWave(path);
  printf("%s: %u frames %u Hz %u bits %u ch %016llx\n", extension, back.frameCount, back.sampleRate,
         back.sampleSize, back.channels, wave_checksum(back));
  UnloadWave(back);
  remove(path);
}

int main(int argc, char **argv) {
  int seconds = argc > 1 ? atoi(argv[1]) : 4;
  int rate = 44100, channels = 2, frames = rate * seconds;
  size_t bytes = (size_t)frames * channels * 2;
  unsigned char *file = malloc(44 + bytes);
  memcpy(file, "RIFF", 4);
  put32(file + 4, 36 + bytes);
  memcpy(file + 8, "WAVEfmt ", 8);
  put32(file + 16, 16);
  put16(file + 20, 1);
  put16(file + 22, channels);
  put32(file + 24, rate);
  put32(file + 28, rate * channels * 2);
  put16(file + 32, channels * 2);
  put16(file + 34, 16);
  memcpy(file + 36, "data", 4);
  put32(file + 40, bytes);
  short *samples = (short *)(file + 44);
  for (int i = 0; i < frames * channels; i++) samples[i] = (short)((i % 200) * 150 - 15000 + noise() / 8);

  SetTraceLogLevel(LOG_NONE);
  Wave wave = LoadWaveFromMemory(".wav", file, (int)(44 + bytes));
  printf("loaded: %u frames %u Hz %u bits %u ch %016llx\n", wave.frameCount, wave.sampleRate, wave.sampleSize,
         wave.channels, wave_checksum(wave));
  static const int rates[] = {22050, 48000, 8000, 96000, 44100}, sizes[] = {32, 8, 16, 32, 16}, chans[] = {1, 2, 1, 2, 1};
  for (int k = 0; k < 5; k++) {
    Wave c = WaveCopy(wave);
    WaveFormat(&c, rates[k], sizes[k], chans[k]);
    WaveCrop(&c, 100, (int)c.frameCount - 100);
    float *f = LoadWaveSamples(c);
    double weighted = 0;
    for (unsigned i = 0; i < c.frameCount * c.channels; i++) weighted += f[i] * (double)((i % 7) + 1);
    printf("converted %d: %u frames %016llx %.6f\n", k, c.frameCount, wave_checksum(c), weighted);
    UnloadWaveSamples(f);
    UnloadWave(c);
  }
  round_trip(wave, ".wav");
  round_trip(wave, ".qoa");
  UnloadWave(wave);
  free(file);
  return 0;
}
