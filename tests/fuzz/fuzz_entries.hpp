// Fuzz entries: one per parser of user input. Each is fed arbitrary bytes and must either accept
// them or reject them with the parser's documented error (InputError, UnitParseError, UsageError);
// anything else escaping (another exception, a crash, a sanitizer report, a hang) is a finding.
//
// The same table drives the libFuzzer executable (tests/fuzz/fuzz_main.cpp, SCOVILLE_FUZZ=ON) and
// the regression test of the normal suite (tests/fuzz), which replays every seed and every saved
// finding in tests/regressions/<entry>/ through these very functions.
//
// Adding a parser is one line in kFuzzEntries (fuzz_entries.cpp): name, seed folders, function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace scoville::fuzz {

struct FuzzEntry {
  const char* name;
  // Seed corpus folders, relative to the source tree; every regular file in them is one input.
  std::vector<std::string> seed_dirs;
  void (*run)(const uint8_t* data, size_t size);
};

const std::vector<FuzzEntry>& fuzz_entries();
// nullptr when no entry has that name.
const FuzzEntry* find_fuzz_entry(const std::string& name);

}  // namespace scoville::fuzz
