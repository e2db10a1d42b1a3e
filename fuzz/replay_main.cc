//===- replay_main.cc - Runs a fuzz target over files, without libFuzzer --===//
//
// Builds without clang's fuzzer link each target with this main, so every
// build runs the seed corpora and the inputs of fixed findings
// (fuzz/regressions/) as tests. Arguments are files or directories (all
// files inside, recursively, in sorted order); flags (-runs=0) are ignored.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    if (argv[i][0] == '-')
      continue;
    if (fs::is_directory(arg)) {
      for (const auto &e : fs::recursive_directory_iterator(arg))
        if (e.is_regular_file())
          files.push_back(e.path());
    } else if (fs::exists(arg)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "%s: no such file or directory\n", argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path &f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), {}};
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
  }
  std::printf("%zu inputs ran\n", files.size());
  return 0;
}
