#include "tests/fuzz/fuzz_entries.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/cli/option_set.hpp"
#include "sim/cli/usage_text.hpp"
#include "sim/config/calibration_overlay.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/config_files.hpp"
#include "sim/config/mapping_loader.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/study/study_config.hpp"
#include "sim/sweep/sweep_config.hpp"
#include "sim/validation/deployment_recipes.hpp"
#include "sim/validation/energy_rows.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/precision_override.hpp"
#include "workloads/requests/length_histogram.hpp"
#include "workloads/requests/public_trace_formats.hpp"
#include "workloads/requests/request_trace_reader.hpp"
#include "workloads/trace/chakra_reader.hpp"
#include "workloads/trace/chakra_writer.hpp"
#include "workloads/trace/native_trace.hpp"

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

// NUL-separated arguments parsed as a command parses them (sim/cli/option_set.hpp, Boost's
// command-line parser underneath), against options of every kind, a short alias and positional
// words.
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
  cli::OptionSet options("fuzz");
  options.synopsis("[options] FILE...", "every kind of option")
      .flag("--json", "a flag")
      .text("--model", "NAME", "a text")
      .texts("--set", "KEY=VALUE", "a repeatable text")
      .count("--isl", "N", "a count")
      .list("--chip", "NAME", "a repeatable list", true)
      .count_list("--batch", "N[,N...]", "a count list")
      .text("-o,--output", "FILE", "a text with a short alias")
      .positional("FILE", "positional words");
  require(!cli::usage_text(options).empty(), "the usage renders");
  try {
    const cli::ParsedOptions p = options.parse(argv);
    for (const std::string& item : p.list("--chip")) require(!item.empty(), "list items non-empty");
    for (long long n : p.count_list("--batch")) require(n >= 0, "list counts are >= 0");
    if (const auto n = p.count("--isl")) require(*n >= 0, "a count is >= 0");
    require(p.texts("--model").size() <= 1, "a single-valued option holds one value");
    require(p.texts("--output").size() <= 1, "a single-valued option holds one value");
  } catch (const cli::UsageError&) {
  }
}

// A system file as `scoville net` and `run --system` take it: parsing builds its network too (the
// builders' own checks, and the size limits, are part of the parser's promise).
void system(const uint8_t* data, size_t size) {
  try {
    const config::SystemConfig s = config::parse_system_string(text_of(data, size), kDisplayName);
    require(!config::dump_system(s).empty(), "an accepted system dumps to YAML");
  } catch (const InputError&) {
  }
}

void mapping(const uint8_t* data, size_t size) {
  try {
    const workloads::MappingConfig m =
        config::load_mapping_string(text_of(data, size), kDisplayName);
    (void)m;
  } catch (const InputError&) {
  }
}

void software(const uint8_t* data, size_t size) {
  try {
    const config::SoftwareProfile p =
        config::parse_software_string(text_of(data, size), kDisplayName);
    require(p.per_op_launch.si() >= 0 && p.per_layer_sync.si() >= 0 && p.per_iteration.si() >= 0,
            "software overheads are non-negative");
  } catch (const InputError&) {
  }
}

// A native trace that parses renders to text that parses again to the same text.
void native_trace(const uint8_t* data, size_t size) {
  try {
    const workloads::ChipTrace t = workloads::parse_native_trace(text_of(data, size), kDisplayName);
    const std::string rendered = workloads::render_native_trace(t);
    const workloads::ChipTrace again = workloads::parse_native_trace(rendered, "<rendered>");
    require(workloads::render_native_trace(again) == rendered, "a native trace round-trips");
  } catch (const InputError&) {
  }
}

// A Chakra ET stream ("fuzz.0.et": rank 0 unless the trace says otherwise). One that imports
// exports again and imports once more without error.
void chakra(const uint8_t* data, size_t size) {
  try {
    const workloads::ChakraTrace t =
        workloads::decode_chakra_trace(text_of(data, size), "fuzz.0.et");
    const std::string bytes = workloads::encode_chakra_trace(t.trace);
    const workloads::ChakraTrace again = workloads::decode_chakra_trace(bytes, "<re-encoded>.0.et");
    require(again.trace.nodes.size() == t.trace.nodes.size(), "a Chakra trace round-trips");
  } catch (const InputError&) {
  }
}

// A sweep file, parsed and expanded into its points (each point's study checked).
constexpr int64_t kMaxExpandedSweepPoints = 1000;
void sweep(const uint8_t* data, size_t size) {
  try {
    const sweep::SweepConfig s = sweep::parse_sweep_string(text_of(data, size), kDisplayName);
    // Up to 10^6 points are legal and each is a study to check: a big sweep is slow, not a bug,
    // so only small ones are expanded here (parsing above already covers every range).
    int64_t points = 1;
    for (const sweep::SweepAxis& axis : s.axes) {
      const auto n = static_cast<int64_t>(axis.values.size());
      points = s.zip ? std::max(points, n) : points * std::max<int64_t>(n, 1);
      if (points > kMaxExpandedSweepPoints) return;
    }
    const std::vector<sweep::SweepPoint> expanded = sweep::expand_points(s);
    require(static_cast<int64_t>(expanded.size()) <= points,
            "a sweep has the points its axes make");
  } catch (const InputError&) {
  }
}

void request_csv(const uint8_t* data, size_t size) {
  try {
    const workloads::RequestPlan plan =
        workloads::parse_request_trace(text_of(data, size), kDisplayName);
    for (size_t i = 1; i < plan.requests.size(); ++i)
      require(plan.requests[i - 1].arrival.si() <= plan.requests[i].arrival.si(),
              "request arrivals are non-decreasing");
  } catch (const InputError&) {
  }
}

// Measured energy rows (`validate --energy FILE.csv`). A row that reads has a whole request count
// within its limit, and its output-length histogram gives one sample per request, every output at
// least one token and every input within the nominal input range.
void energy_rows(const uint8_t* data, size_t size) {
  std::vector<validation::EnergyRow> rows;
  try {
    rows = validation::parse_energy_rows(text_of(data, size), kDisplayName);
  } catch (const InputError&) {
    return;
  }
  for (const validation::EnergyRow& row : rows) {
    require(row.num_requests >= 0 && row.num_requests <= validation::kMaxEnergyRowRequests,
            "an energy row's request count is within its limit");
    if (row.output_length_bins.empty()) continue;
    const workloads::LengthSamples samples =
        workloads::samples_from_output_histogram(row.output_length_bins, row.isl, 0.8);
    require(static_cast<int64_t>(samples.size()) ==
                workloads::histogram_requests(row.output_length_bins),
            "one length sample per request of the histogram");
    for (const workloads::LengthSample& s : samples) {
      require(s.output_tokens >= 1, "a sampled output has at least one token");
      require(s.input_tokens >= 1 && s.input_tokens <= row.isl,
              "a sampled input lies in the nominal input range");
    }
    for (const workloads::LengthSample& s :
         workloads::with_mean_output(samples, row.avg_output_len)) {
      require(s.output_tokens >= 1, "a scaled output has at least one token");
    }
  }
}

// Public request traces (Azure, BurstGPT, Mooncake JSONL), each format forced and detected.
void public_trace(const uint8_t* data, size_t size) {
  for (workloads::TraceFormat format :
       {workloads::TraceFormat::kAuto, workloads::TraceFormat::kAzure,
        workloads::TraceFormat::kBurstGpt, workloads::TraceFormat::kMooncake}) {
    try {
      std::istringstream in(text_of(data, size));
      const workloads::RequestPlan plan =
          workloads::parse_trace_stream(in, kDisplayName, format, {});
      for (size_t i = 1; i < plan.requests.size(); ++i)
        require(plan.requests[i - 1].arrival.si() <= plan.requests[i].arrival.si(),
                "request arrivals are non-decreasing");
      for (const workloads::Request& r : plan.requests)
        require(r.input_tokens >= 1 && r.output_tokens >= 1, "replayed requests have tokens");
    } catch (const InputError&) {
    }
  }
}

// `scoville run --precision class=format,...`.
void precision(const uint8_t* data, size_t size) {
  try {
    const workloads::PrecisionOverride o =
        workloads::parse_precision_override(text_of(data, size), "--precision");
    require(o.empty() || !o.str().empty(), "an accepted override renders");
  } catch (const InputError&) {
  }
}

// A deployment recipe file (workloads/deployments): every recipe it accepts is a deployment
// the simulator can build pools from.
void deployment(const uint8_t* data, size_t size) {
  try {
    for (const validation::DeploymentRecipe& d :
         validation::parse_deployment_recipes(text_of(data, size), kDisplayName)) {
      require(d.prefill.chips() >= 1 && d.decode.chips() >= 1 && d.concurrency >= 1,
              "an accepted recipe has pools and clients");
      require(d.prefill.tp % d.prefill.ep == 0 && d.decode.tp % d.decode.ep == 0,
              "an accepted recipe's experts divide its workers");
    }
  } catch (const InputError&) {
  }
}

// A calibration overlay (arch/systems/<name>.calibration.yaml) read on its own, `inherits:` not
// followed: one it accepts writes back to YAML that reads again to the same YAML, so that
// `scoville calibrate` and `config dump` never drop or change a knob.
void overlay(const uint8_t* data, size_t size) {
  std::string written;
  try {
    written = config::overlay_yaml(config::parse_overlay_string(text_of(data, size), kDisplayName));
  } catch (const InputError&) {
    return;
  }
  try {
    const config::CalibrationOverlay again = config::parse_overlay_string(written, "<written>");
    require(config::overlay_yaml(again) == written, "a calibration overlay round-trips");
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    require(false, "a written calibration overlay reads again");
  }
}

}  // namespace

const std::vector<FuzzEntry>& fuzz_entries() {
  static const std::vector<FuzzEntry> kFuzzEntries = {
      {"config_file",
       {"arch/chips", "arch/energy", "workloads/models", "tests/fuzz/seeds/study"},
       config_file},
      {"chip", {"arch/chips"}, chip},
      {"energy", {"arch/energy"}, energy},
      {"model", {"workloads/models"}, model},
      {"study", {"tests/fuzz/seeds/study"}, study},
      {"unit", {"tests/fuzz/seeds/unit"}, unit},
      {"args", {"tests/fuzz/seeds/args"}, args},
      {"system", {"arch/systems"}, system},
      {"mapping", {"tests/fuzz/seeds/mapping"}, mapping},
      {"software", {"arch/software"}, software},
      {"native_trace", {"workloads/traces", "tests/fuzz/seeds/native_trace"}, native_trace},
      {"chakra", {"tests/fuzz/seeds/chakra"}, chakra},
      {"sweep", {"workloads/sweeps", "tests/e2e/data"}, sweep},
      {"request_csv", {"workloads/requests/samples"}, request_csv},
      {"energy_rows", {"workloads/measurements/energy"}, energy_rows},
      {"public_trace", {"workloads/traces/requests"}, public_trace},
      {"precision", {"tests/fuzz/seeds/precision"}, precision},
      {"deployment", {"workloads/deployments"}, deployment},
      {"overlay", {"arch/systems"}, overlay},
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
