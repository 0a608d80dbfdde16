// `scoville validate`: predicted against published serving figures, side by side. Reads the
// measurements CSV (../shared/validation/measurements.csv columns), predicts the rows whose chip
// is in arch/chips and whose model is in scope (GPT-OSS 120B, DeepSeek R1, Llama 3.3 70B) with
// the roofline cost model, and lists every other row with the reason it was skipped.
// Minimal on purpose: no calibration, one mapping per row (TP = chips, EP = TP for MoE).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/cli/arg_reader.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/serving_common.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/output/json_text.hpp"
#include "workloads/model_loader.hpp"

namespace scoville::cli {

extern const char kValidateUsage[] =
    R"(  scoville validate --measurements FILE.csv [options]   predicted vs published serving figures
      --software NAME|none          software overheads profile (default gpu-cuda-graphs)
      --prompts-per-client K        requests per client of each predicted point (default 10)
      --json                        print JSON instead of the table
)";

namespace {

// One CSV record (RFC 4180 quoting, one line per record).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The chip a published system is built from ("" when none of those in scope).
std::string chip_of(const std::string& system) {
  if (contains(system, "GB200")) return "gb200";
  if (contains(system, "B200")) return "b200";
  if (contains(system, "H200")) return "h200";
  return "";
}

// The workloads/models name of a published model ("" when out of scope).
std::string model_of(const std::string& model) {
  if (contains(model, "gpt-oss-120b")) return "gpt-oss-120b";
  if (contains(model, "DeepSeek-R1") || contains(model, "DeepSeek-V3/R1")) return "deepseek-r1";
  if (contains(model, "Llama-3.3-70B")) return "llama-3.3-70b";
  return "";
}

std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

struct Row {
  std::map<std::string, std::string> fields;
  int line = 0;
  const std::string& at(const std::string& k) const {
    static const std::string empty;
    auto it = fields.find(k);
    return it == fields.end() ? empty : it->second;
  }
};

struct Outcome {
  std::string id, system, model, chip, metric;
  int64_t isl = 0, osl = 0, concurrency = 0, chips = 0;
  double published = 0, predicted = 0;
  std::optional<double> published_intvty;
  double predicted_intvty = 0;
  std::string skipped;  // non-empty: why not predicted
};

double signed_error(double predicted, double published) {
  return published != 0 ? (predicted - published) / published * 100.0 : 0.0;
}

std::string fmt(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

}  // namespace

int validate_command(const Invocation& invocation, std::ostream& out) {
  std::string path, software = "gpu-cuda-graphs";
  int64_t prompts_per_client = 10;
  bool json = false;
  ArgReader a("scoville validate", invocation.args);
  while (a.next()) {
    if (a.is("--measurements")) {
      path = a.value();
    } else if (a.is("--software")) {
      software = a.value();
    } else if (a.is("--prompts-per-client")) {
      prompts_per_client = a.count();
      if (prompts_per_client < 1) throw UsageError{"--prompts-per-client: expected at least 1"};
    } else if (a.is("--json")) {
      json = true;
    } else {
      a.unknown();
    }
  }
  if (path.empty()) throw UsageError{"--measurements is required"};
  if (software == "none") software.clear();
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "", "cannot read the measurements file");

  std::string line;
  std::vector<std::string> header;
  std::vector<Row> rows;
  int number_of_line = 0;
  while (std::getline(in, line)) {
    ++number_of_line;
    if (line.empty()) continue;
    const std::vector<std::string> cells = split_csv(line);
    if (header.empty()) {
      header = cells;
      for (const char* need : {"id", "system", "model", "isl", "osl", "concurrency",
                               "throughput_metric", "throughput"}) {
        if (std::find(header.begin(), header.end(), need) == header.end()) {
          throw InputError(SourceLocation{path, 1, 1}, need, "expected this column in the header");
        }
      }
      continue;
    }
    Row r;
    r.line = number_of_line;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) r.fields[header[i]] = cells[i];
    rows.push_back(std::move(r));
  }

  const config::DataPaths paths = config::DataPaths::from_environment();
  const std::vector<std::string> chips_known = paths.available("arch/chips");
  std::vector<Outcome> outcomes;
  for (const Row& r : rows) {
    Outcome o;
    o.id = r.at("id");
    o.system = r.at("system");
    o.model = r.at("model");
    o.metric = r.at("throughput_metric");
    o.chip = chip_of(o.system);
    const std::string model = model_of(o.model);
    const auto isl = number(r.at("isl"));
    const auto osl = number(r.at("osl"));
    const auto conc = number(r.at("concurrency"));
    const auto published = number(r.at("throughput"));
    const auto chips = number(r.at("chips"));
    o.published_intvty = number(r.at("interactivity_tok_s_user"));
    if (o.chip.empty()) {
      o.skipped = "chip not H200 / B200 / GB200";
    } else if (model.empty()) {
      o.skipped = "model not GPT-OSS 120B / DeepSeek R1 / Llama 3.3 70B";
    } else if (std::find(chips_known.begin(), chips_known.end(), o.chip) == chips_known.end()) {
      o.skipped = "no " + o.chip + " in arch/chips";
    } else if (!isl || !osl || !conc) {
      o.skipped = "no isl / osl / concurrency (not a closed-loop point)";
    } else if (!published) {
      o.skipped = "no published throughput";
    } else if (contains(o.system, "multinode") || (chips && *chips > 8)) {
      o.skipped = "multi-node deployment not modelled";
    }
    if (o.skipped.empty()) {
      o.isl = static_cast<int64_t>(*isl);
      o.osl = static_cast<int64_t>(*osl);
      o.concurrency = static_cast<int64_t>(*conc);
      o.chips = chips ? static_cast<int64_t>(*chips) : 8;  // the "8-GPU" systems
      o.published = *published;
      try {
        const workloads::ModelConfig m =
            workloads::load_model(paths.resolve(model, "workloads/models"));
        const ServingHardware hw = resolve_hardware(o.chip, "", o.chips, software);
        workloads::PoolMapping p;
        p.chips = o.chips;
        p.degrees.tp = o.chips;
        p.degrees.ep = m.ffn().type == workloads::FfnType::kMoe ? o.chips : 1;
        p.where = SourceLocation{path, r.line, 1};
        serving::SchedulerConfig scheduler;
        scheduler.max_num_seqs = o.concurrency;
        const ServingEngine engine = make_engine(hw, m, workloads::MappingConfig{{p}}, scheduler);
        serving::ServingScenario sc;
        sc.workload.kind = workloads::ArrivalKind::kClosedLoop;
        sc.workload.concurrency = o.concurrency;
        sc.workload.num_prompts = prompts_per_client * o.concurrency;
        sc.workload.lengths = {o.isl, o.osl, 0.8};
        sc.system = engine.system;
        const serving::ServingMetrics metrics = serving::run_serving(sc, *engine.cost, 1).metrics;
        o.predicted = o.metric == "output_tok_s_per_chip"  ? metrics.output_tput_per_chip
                      : o.metric == "input_tok_s_per_chip" ? metrics.input_tput_per_chip
                                                           : metrics.tput_per_chip;
        o.predicted_intvty = metrics.intvty;
      } catch (const InputError& e) {
        o.skipped = std::string("infeasible: ") + e.what();
      }
    }
    outcomes.push_back(o);
  }

  if (json) {
    out << "{\"measurements\": \"" << output::json_escape(path) << "\", \"fidelity\": "
        << "\"roofline\", \"software\": \"" << output::json_escape(software) << "\", \"rows\": [";
    for (size_t i = 0; i < outcomes.size(); ++i) {
      const Outcome& o = outcomes[i];
      out << (i ? ", " : "") << "{\"id\": \"" << output::json_escape(o.id) << "\", \"system\": \""
          << output::json_escape(o.system) << "\", \"model\": \"" << output::json_escape(o.model)
          << "\"";
      if (!o.skipped.empty()) {
        out << ", \"skipped\": \"" << output::json_escape(o.skipped) << "\"}";
        continue;
      }
      out << ", \"chip\": \"" << o.chip << "\", \"chips\": " << o.chips
          << ", \"concurrency\": " << o.concurrency << ", \"metric\": \"" << o.metric
          << "\", \"published\": " << output::json_number(o.published)
          << ", \"predicted\": " << output::json_number(o.predicted)
          << ", \"error_pct\": " << output::json_number(signed_error(o.predicted, o.published))
          << ", \"published_intvty\": "
          << (o.published_intvty ? output::json_number(*o.published_intvty) : "null")
          << ", \"predicted_intvty\": " << output::json_number(o.predicted_intvty) << "}";
    }
    out << "]}\n";
    return 0;
  }
  out << "# scoville validate: " << path << " (roofline fidelity, software "
      << (software.empty() ? "none" : software) << ", TP = chips, EP = TP for MoE; chip stands "
      << "for the published system's GPU)\n";
  out << "#  id  chip   model           isl/osl     conc  metric                  published  "
         "predicted   error   intvty pub  intvty pred   error\n";
  int predicted = 0;
  for (const Outcome& o : outcomes) {
    if (!o.skipped.empty()) continue;
    ++predicted;
    char b[320];
    std::snprintf(b, sizeof b, "%5s  %-5s  %-14s  %5lld/%-5lld %5lld  %-22s %10.1f %10.1f %+7.1f%%",
                  o.id.c_str(), o.chip.c_str(), o.model.substr(0, 14).c_str(),
                  static_cast<long long>(o.isl), static_cast<long long>(o.osl),
                  static_cast<long long>(o.concurrency), o.metric.c_str(), o.published, o.predicted,
                  signed_error(o.predicted, o.published));
    out << b;
    if (o.published_intvty) {
      std::snprintf(b, sizeof b, " %11.1f %12.1f %+7.1f%%\n", *o.published_intvty,
                    o.predicted_intvty, signed_error(o.predicted_intvty, *o.published_intvty));
    } else {
      std::snprintf(b, sizeof b, " %11s %12.1f\n", "-", o.predicted_intvty);
    }
    out << b;
  }
  std::map<std::string, int> reasons;
  for (const Outcome& o : outcomes) {
    if (!o.skipped.empty()) ++reasons[o.skipped];
  }
  out << "# " << predicted << " rows predicted, " << outcomes.size() - predicted << " skipped:\n";
  for (const auto& [reason, count] : reasons) {
    out << "#   " << fmt(count, 0) << " x " << reason << "\n";
  }
  return 0;
}

}  // namespace scoville::cli
