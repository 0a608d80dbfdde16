// The libFuzzer executable for every entry in fuzz_entries.cpp. The entry is chosen by the
// environment (SCOVILLE_FUZZ_ENTRY=chip ./scoville_fuzz CORPUS...), because libFuzzer owns the
// command line; SCOVILLE_FUZZ_LIST=1 prints "name seed_dir..." lines for tools/fuzz and exits.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/fuzz/fuzz_entries.hpp"

namespace {
const scoville::fuzz::FuzzEntry* g_entry = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  if (std::getenv("SCOVILLE_FUZZ_LIST") != nullptr) {
    for (const scoville::fuzz::FuzzEntry& entry : scoville::fuzz::fuzz_entries()) {
      std::printf("%s", entry.name);
      for (const std::string& dir : entry.seed_dirs) std::printf(" %s", dir.c_str());
      std::printf("\n");
    }
    std::exit(0);
  }
  const char* name = std::getenv("SCOVILLE_FUZZ_ENTRY");
  g_entry = name != nullptr ? scoville::fuzz::find_fuzz_entry(name) : nullptr;
  if (g_entry == nullptr) {
    std::fprintf(stderr, "set SCOVILLE_FUZZ_ENTRY to one of:");
    for (const scoville::fuzz::FuzzEntry& entry : scoville::fuzz::fuzz_entries())
      std::fprintf(stderr, " %s", entry.name);
    std::fprintf(stderr, "\n");
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  g_entry->run(data, size);
  return 0;
}
