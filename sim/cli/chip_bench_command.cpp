// `scoville chip-bench`: micro-benchmarks of one chip description, run through the same SystemC
// chip module as studies: GEMMs over shapes and precisions, HBM reads (streaming, strided,
// random) and copies, and decode attention at several context lengths. Each case is its own chip
// instance running a one-op program, all elaborated in one design and simulated together (they
// share nothing). Achieved rates are the useful work over the op's simulated time.
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/base/number_format.hpp"
#include "sim/base/yaml_reader.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/engine/chip_bench.hpp"

namespace scoville::cli {

OptionSet chip_bench_options() {
  OptionSet s("chip-bench");
  s.synopsis("--chip NAME|FILE [options]",
             "micro-benchmarks of one chip: GEMM FLOP/s, HBM bandwidth (streaming, strided, "
             "random, copy), decode attention")
      .text("--chip", "NAME|FILE", "chip to measure (names resolve to arch/chips/NAME.yaml)")
      .list("--case", "NAME",
            "run only this case, comma-separated (default: all; --list shows the names)", true)
      .flag("--list", "print the case names and exit")
      .flag("--json", "print the results as JSON instead of a table");
  return s;
}

namespace {

std::string number(double v, const char* format = "%.6g") {
  if (!std::isfinite(v)) return "null";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

struct Options {
  std::string chip;
  std::vector<std::string> only;
  bool json = false;
  bool list = false;
};

Options parse(const std::vector<std::string>& args) {
  const ParsedOptions p = chip_bench_options().parse(args);
  Options o;
  o.chip = p.text_or("--chip", "");
  o.only = p.list("--case");
  o.json = p.flag("--json");
  o.list = p.flag("--list");
  if (o.chip.empty()) throw UsageError("--chip is required");
  return o;
}

}  // namespace

int chip_bench_command(const Invocation& invocation, std::ostream& out) {
  const Options o = parse(invocation.args);
  const models::ChipParams chip = config::load_chip(o.chip, config::DataPaths::from_environment());
  std::vector<engine::BenchCase> cases = engine::all_bench_cases(chip);
  if (o.list) {
    for (const engine::BenchCase& c : cases) out << c.name << "\n";
    return 0;
  }
  if (!o.only.empty()) {
    std::vector<engine::BenchCase> chosen;
    std::vector<std::string> names;
    for (const engine::BenchCase& c : cases) names.push_back(c.name);
    for (const std::string& want : o.only) {
      bool found = false;
      for (const engine::BenchCase& c : cases) {
        if (c.name == want) {
          chosen.push_back(c);
          found = true;
        }
      }
      if (!found) {
        if (std::optional<engine::BenchCase> any = engine::gemm_case_named(chip, want)) {
          chosen.push_back(*any);
          continue;
        }
        const std::string suggestion = closest_match(want, names);
        throw UsageError("unknown case '" + want + "'" +
                         (suggestion.empty() ? "" : "; did you mean '" + suggestion + "'?") +
                         " (--list shows them)");
      }
    }
    cases = chosen;
  }

  const std::vector<engine::BenchResult> results = engine::run_bench_cases(chip, cases);

  std::ostringstream text;
  std::ostringstream json;
  json << "{\n  \"chip\": \"" << output::json_escape(chip.name) << "\",\n  \"cases\": [";
  char line[256];
  std::snprintf(line, sizeof line, "%-30s %14s %8s %12s  %s\n", "case", "achieved", "of peak",
                "time", "what");
  text << "chip-bench: " << chip.name << "\n" << line;
  for (size_t i = 0; i < cases.size(); ++i) {
    const engine::BenchCase& c = cases[i];
    const double seconds = results[i].seconds;
    const double rate = results[i].rate;
    const bool flops = c.metric == engine::Metric::kFlopRate;
    const std::string shown =
        flops ? number(rate / 1e12, "%.1f") + " TFLOP/s" : number(rate / 1e12, "%.3f") + " TB/s";
    std::snprintf(line, sizeof line, "%-30s %14s %7.1f%% %9.1f us  %s\n", c.name.c_str(),
                  shown.c_str(), 100.0 * rate / c.peak, seconds * 1e6, c.detail.c_str());
    text << line;
    json << (i ? "," : "") << "\n    {\"name\": \"" << output::json_escape(c.name)
         << "\", \"group\": \"" << c.group << "\", \"detail\": \"" << output::json_escape(c.detail)
         << "\", \"metric\": \"" << (flops ? "FLOP/s" : "B/s")
         << "\", \"achieved\": " << output::json_number(rate)
         << ", \"peak\": " << output::json_number(c.peak)
         << ", \"fraction_of_peak\": " << output::json_number(rate / c.peak)
         << ", \"time_s\": " << output::json_number(seconds) << "}";
  }
  json << "\n  ]\n}\n";
  out << (o.json ? json.str() : text.str());
  return 0;
}

}  // namespace scoville::cli
