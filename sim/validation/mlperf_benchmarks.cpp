#include "sim/validation/mlperf_benchmarks.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <utility>

#include "sim/validation/data_table.hpp"
#include "sim/validation/measurement_rows.hpp"

namespace scoville::validation {

namespace {

const char* const kColumns[] = {"model",
                                "dataset",
                                "mean_input_tokens",
                                "mean_output_tokens",
                                "replica_chips",
                                "server_ttft_ms",
                                "server_tpot_ms",
                                "interactive_ttft_ms",
                                "interactive_tpot_ms"};

// Far above any dataset mean or latency limit; refuses absurd values.
constexpr double kMaxTokens = 1e6;
constexpr double kMaxLatencyMs = 1e6;
constexpr int64_t kMaxReplicaChips = 1024;
constexpr int64_t kMaxMtpDepth = 16;

// A row with the typed readers of this file.
struct Record : DataRow {
  // A positive number up to `most`.
  double positive(const std::string& column, double most) const {
    const std::string& s = text(column);
    double v = -1;
    try {
      size_t used = 0;
      v = std::stod(s, &used);
      if (used != s.size()) v = -1;
    } catch (const std::exception&) {
    }
    if (!std::isfinite(v) || v <= 0 || v > most) {
      std::ostringstream what;
      what << "expected a number above 0 and at most " << most << ", got '" << s << "'";
      throw InputError(at(column), column, what.str());
    }
    return v;
  }
};

// The lengths file of a benchmark's row, relative to the benchmarks file, checked against the
// row's mean input (the two must describe the same dataset).
std::shared_ptr<const workloads::LengthSamples> read_lengths(const Record& r,
                                                             const std::string& name,
                                                             double mean_input) {
  const std::filesystem::path file =
      std::filesystem::path(r.path).parent_path() / std::filesystem::path(name);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw InputError(r.at("lengths_file"), "lengths_file",
                     "expected a length samples file relative to the benchmarks file; '" +
                         file.string() + "' is not one");
  }
  auto samples = workloads::read_length_samples(file.string(), static_cast<int64_t>(kMaxTokens));
  const double mean = workloads::mean_input_tokens(*samples);
  if (std::fabs(mean - mean_input) > 0.01 * mean_input) {
    std::ostringstream what;
    what << "its samples' mean input is " << mean << " tokens, more than 1 % from "
         << "mean_input_tokens " << mean_input << " (not the same dataset?)";
    throw InputError(r.at("lengths_file"), "lengths_file", what.str());
  }
  return samples;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<MlperfBenchmark> read_mlperf_benchmarks(const std::string& path) {
  return parse_mlperf_benchmarks(read_data_file(path, "benchmarks file"), path);
}

std::vector<MlperfBenchmark> parse_mlperf_benchmarks(const std::string& text,
                                                     const std::string& path) {
  std::vector<MlperfBenchmark> out;
  const auto read_row = [&](int number, const std::vector<std::string>& header,
                            const std::vector<std::string>& cells) {
    const Record r{{path, number, header, cells}};
    MlperfBenchmark b;
    b.model = r.text("model");
    if (b.model.empty()) throw InputError(r.at("model"), "model", "expected a model name");
    if (find_benchmark(out, b.model) != nullptr) {
      throw InputError(r.at("model"), "model", "a second line for model '" + b.model + "'");
    }
    b.dataset = r.text("dataset");
    b.mean_input_tokens = r.positive("mean_input_tokens", kMaxTokens);
    b.mean_output_tokens = r.positive("mean_output_tokens", kMaxTokens);
    const double replica = r.positive("replica_chips", static_cast<double>(kMaxReplicaChips));
    if (replica != std::floor(replica)) {
      throw InputError(r.at("replica_chips"), "replica_chips",
                       "expected a whole number of chips, got '" + r.text("replica_chips") + "'");
    }
    b.replica_chips = static_cast<int64_t>(replica);
    b.server = {r.positive("server_ttft_ms", kMaxLatencyMs),
                r.positive("server_tpot_ms", kMaxLatencyMs)};
    b.interactive = {r.positive("interactive_ttft_ms", kMaxLatencyMs),
                     r.positive("interactive_tpot_ms", kMaxLatencyMs)};
    const std::string& depth = r.text("interactive_mtp_depth");
    if (!depth.empty() && depth != "0") {
      const double v = r.positive("interactive_mtp_depth", static_cast<double>(kMaxMtpDepth));
      if (v != std::floor(v)) {
        throw InputError(r.at("interactive_mtp_depth"), "interactive_mtp_depth",
                         "expected a whole number of draft tokens, got '" + depth + "'");
      }
      b.interactive_mtp_depth = static_cast<int64_t>(v);
    }
    const std::string& lengths = r.text("lengths_file");
    if (!lengths.empty()) b.lengths = read_lengths(r, lengths, b.mean_input_tokens);
    b.where = SourceLocation{path, number, 1};
    out.push_back(std::move(b));
  };
  const std::vector<std::string> columns(std::begin(kColumns), std::end(kColumns));
  for_each_data_row(text, path, columns, read_row);
  return out;
}

std::vector<MlperfBenchmark> shipped_mlperf_benchmarks(const config::DataPaths& paths) {
  const std::filesystem::path file =
      std::filesystem::path(paths.root) / "workloads" / "measurements" / "mlperf-benchmarks.csv";
  return read_mlperf_benchmarks(file.string());
}

const MlperfBenchmark* find_benchmark(const std::vector<MlperfBenchmark>& benchmarks,
                                      const std::string& model) {
  for (const MlperfBenchmark& b : benchmarks) {
    if (b.model == model) return &b;
  }
  return nullptr;
}

std::string to_string(RowScenario scenario) {
  switch (scenario) {
    case RowScenario::kOffline:
      return "offline";
    case RowScenario::kServer:
      return "server";
    case RowScenario::kInteractive:
      return "interactive";
    case RowScenario::kBestThroughput:
      return "best-throughput";
    case RowScenario::kAtInteractivity:
      return "at-interactivity";
    case RowScenario::kPoint:
      break;
  }
  return "point";
}

std::optional<RowScenario> notes_scenario(const std::string& notes) {
  static const std::regex pattern(R"(scenario (offline|server|interactive)\b)");
  const std::string text = lower(notes);
  std::smatch m;
  if (!std::regex_search(text, m, pattern)) return std::nullopt;
  if (m[1] == "offline") return RowScenario::kOffline;
  if (m[1] == "server") return RowScenario::kServer;
  return RowScenario::kInteractive;
}

std::optional<double> notes_mean_output(const std::string& notes) {
  static const std::regex pattern(R"(mean output tokens/sample (\d{1,7}(?:\.\d+)?))");
  const std::string text = lower(notes);
  std::smatch m;
  if (!std::regex_search(text, m, pattern)) return std::nullopt;
  return std::stod(m[1]);
}

std::optional<double> notes_at_interactivity(const std::string& notes) {
  static const std::regex pattern(R"(\bat (\d{1,6}(?:\.\d+)?) tok/s/user)");
  const std::string text = lower(notes);
  std::smatch m;
  if (!std::regex_search(text, m, pattern)) return std::nullopt;
  const double v = std::stod(m[1]);
  if (!(v > 0)) return std::nullopt;
  return v;
}

}  // namespace scoville::validation
