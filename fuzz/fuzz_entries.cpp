#include "fuzz/fuzz_entries.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/cli/arg_reader.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/config_files.hpp"
#include "sim/study/study_config.hpp"
#include "workloads/model_loader.hpp"

namespace scoville::fuzz {

namespace {

constexpr const char* kDisplayName = "<fuzz input>";

std::string text_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A property the parser promises beyond "does not crash"; a broken one aborts so that libFuzzer
// (and the regression test, which runs in its own process) report it.
void require(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz property violated: %s\n", what);
  std::abort();
}

// `scoville config check` and `config dump` on the bytes as a file: the path users take.
void config_file(const uint8_t* data, size_t size) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                           "/scoville-fuzz-" + std::to_string(::getpid()) + ".yaml";
  FILE* f = std::fopen(path.c_str(), "wb");
  require(f != nullptr, "the fuzz input file can be created");
  const bool written = std::fwrite(data, 1, size, f) == size;
  std::fclose(f);
  require(written, "the fuzz input file can be written");
  try {
    config::check_file(path);
    require(!config::dump_file(path).empty(), "a file that checks ok dumps to YAML");
  } catch (const InputError&) {
  }
  std::remove(path.c_str());
}

void chip(const uint8_t* data, size_t size) {
  try {
    config::parse_chip_string(text_of(data, size), kDisplayName);
  } catch (const InputError&) {
  }
}

void energy(const uint8_t* data, size_t size) {
  try {
    config::parse_energy_string(text_of(data, size), kDisplayName);
  } catch (const InputError&) {
  }
}

void model(const uint8_t* data, size_t size) {
  try {
    workloads::load_model_from_string(text_of(data, size), kDisplayName);
  } catch (const InputError&) {
  }
}

void study(const uint8_t* data, size_t size) {
  try {
    const study::StudyConfig s = study::parse_study_string(text_of(data, size), kDisplayName);
    require(s.batch >= 1 && s.batch <= study::kMaxBatch, "study batch within its bounds");
    require(s.isl >= 1 && s.isl <= study::kMaxSequenceTokens, "study isl within its bounds");
    require(s.osl >= 1 && s.osl <= study::kMaxSequenceTokens, "study osl within its bounds");
    require(!study::to_yaml(s).empty(), "an accepted study renders as YAML");
  } catch (const InputError&) {
  }
}

// First byte: the dimension expected; the rest: the value text, e.g. "4.8 TB/s".
void unit(const uint8_t* data, size_t size) {
  if (size == 0) return;
  constexpr int kDimensions = static_cast<int>(Dimension::kVoltage) + 1;
  const auto dimension = static_cast<Dimension>(data[0] % kDimensions);
  try {
    const double value = parse_quantity(text_of(data + 1, size - 1), dimension);
    require(std::isfinite(value), "a parsed quantity is finite");
    require(!format_si(value, "B").empty(), "a parsed quantity formats");
  } catch (const UnitParseError&) {
  }
}

// NUL-separated arguments read with ArgReader as a command reads them: the first byte of each
// argument picks how it is read (flag, value, count, list, count list).
void args(const uint8_t* data, size_t size) {
  std::vector<std::string> argv;
  std::string current;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\0') {
      argv.push_back(current);
      current.clear();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  argv.push_back(current);
  try {
    cli::ArgReader a("scoville fuzz", argv);
    while (a.next()) {
      const unsigned char selector = a.current().empty() ? 0 : a.current()[0];
      switch (selector % 5) {
        case 0:
          a.value();
          break;
        case 1:
          require(a.count() >= 0, "a count is >= 0");
          break;
        case 2:
          for (const std::string& item : a.list()) require(!item.empty(), "list items non-empty");
          break;
        case 3:
          for (long long n : a.count_list()) require(n >= 0, "list counts are >= 0");
          break;
        default:
          if (a.is_flag()) a.unknown();
      }
    }
  } catch (const cli::UsageError&) {
  }
}

}  // namespace

const std::vector<FuzzEntry>& fuzz_entries() {
  static const std::vector<FuzzEntry> kFuzzEntries = {
      {"config_file",
       {"arch/chips", "arch/energy", "workloads/models", "fuzz/seeds/study"},
       config_file},
      {"chip", {"arch/chips"}, chip},
      {"energy", {"arch/energy"}, energy},
      {"model", {"workloads/models"}, model},
      {"study", {"fuzz/seeds/study"}, study},
      {"unit", {"fuzz/seeds/unit"}, unit},
      {"args", {"fuzz/seeds/args"}, args},
  };
  return kFuzzEntries;
}

const FuzzEntry* find_fuzz_entry(const std::string& name) {
  for (const FuzzEntry& entry : fuzz_entries()) {
    if (name == entry.name) return &entry;
  }
  return nullptr;
}

}  // namespace scoville::fuzz
