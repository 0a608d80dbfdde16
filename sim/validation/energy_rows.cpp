#include "sim/validation/energy_rows.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/base/number_text.hpp"
#include "sim/base/utf8.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/serving_engines.hpp"
#include "sim/serving/steady_state_window.hpp"
#include "sim/validation/framework_stacks.hpp"
#include "sim/validation/measurement_rows.hpp"
#include "sim/validation/validation_run.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/precision_override.hpp"
#include "workloads/request_sampling.hpp"

namespace scoville::validation {

namespace {

const char* const kColumns[] = {"id",
                                "source",
                                "covers",
                                "gpu",
                                "system",
                                "chips",
                                "tp",
                                "ep",
                                "model",
                                "precision",
                                "task",
                                "max_num_seqs",
                                "isl",
                                "avg_output_len",
                                "output_tok_s",
                                "avg_power_w",
                                "energy_per_token_j"};

// The GPUs whose rows the shipped systems can run, and the system file each row must name (its
// chip: arch/chips/<gpu in lower case>).
const std::map<std::string, std::string>& known_gpus() {
  static const std::map<std::string, std::string> gpus = {
      {"H100", "h100-hgx8"}, {"H200", "h200-hgx8"}, {"B200", "b200-hgx8"}};
  return gpus;
}

struct Fields {
  const std::map<std::string, int>& column;
  const std::vector<std::string>& cells;
  const std::string& file;
  int line;

  [[noreturn]] void fail(const std::string& key, const std::string& expected) const {
    throw InputError(SourceLocation{file, line, column.at(key) + 1}, key,
                     "expected " + expected + ", found '" + text(key) + "'");
  }
  const std::string& text(const std::string& key) const {
    return cells[static_cast<size_t>(column.at(key))];
  }
  const std::string& required(const std::string& key) const {
    if (text(key).empty()) fail(key, "a value");
    return text(key);
  }
  // The whole field as a finite number, else nullopt.
  std::optional<double> number(const std::string& key) const { return finite_number(text(key)); }
  double positive(const std::string& key) const {
    required(key);  // an empty field is refused as missing, not as a bad number
    const std::optional<double> v = number(key);
    if (!v || *v <= 0) fail(key, "a positive number");
    return *v;
  }
  int64_t count(const std::string& key, int64_t most) const {
    const double v = positive(key);
    if (v != std::floor(v) || v > static_cast<double>(most)) {
      fail(key, "a whole number from 1 to " + std::to_string(most));
    }
    return static_cast<int64_t>(v);
  }
};

EnergyRow parse_row(const Fields& f) {
  EnergyRow r;
  r.file = f.file;
  r.line = f.line;
  r.id = f.required("id");
  r.source = f.required("source");
  const std::string& covers = f.required("covers");
  if (covers == "gpu") {
    r.covers = EnergyCoverage::kGpu;
  } else if (covers == "node") {
    r.covers = EnergyCoverage::kNode;
  } else if (covers == "wall") {
    r.covers = EnergyCoverage::kWall;
  } else {
    f.fail("covers", "gpu, node or wall");
  }
  r.gpu = f.required("gpu");
  const auto gpu = known_gpus().find(r.gpu);
  if (gpu == known_gpus().end()) f.fail("gpu", "H100, H200 or B200");
  r.system_file = f.required("system");
  if (r.system_file != gpu->second) f.fail("system", "'" + gpu->second + "' for a " + r.gpu);
  r.chips = f.count("chips", 8);
  r.tp = f.count("tp", 8);
  r.ep = f.count("ep", 8);
  // vLLM's expert parallelism spans the tensor- or data-parallel ranks: one replica of `chips`.
  if (r.tp != r.chips && r.ep != r.chips) f.fail("tp", "tp or ep equal to chips");
  r.model = f.required("model");
  r.precision_override = f.text("precision");
  if (!r.precision_override.empty()) {
    try {
      workloads::parse_precision_override(r.precision_override, "precision");
    } catch (const InputError& e) {
      f.fail("precision", std::string("class=format[,class=format...] (") + e.what() + ")");
    }
  }
  r.task = f.required("task");
  if (f.column.count("framework") != 0) r.framework = f.text("framework");
  if (f.column.count("sampling") != 0) {
    const std::optional<workloads::RequestSampling> sampling =
        workloads::parse_request_sampling(f.text("sampling"));
    if (!sampling) f.fail("sampling", workloads::request_sampling_expected());
    r.sampling = *sampling;
  }
  if (f.column.count("prefix_hit_rate") != 0 && !f.text("prefix_hit_rate").empty()) {
    const std::optional<double> v = f.number("prefix_hit_rate");
    if (!v || !(*v >= 0.0 && *v < 1.0)) f.fail("prefix_hit_rate", "a fraction from 0 to below 1");
    r.prefix_hit_rate = *v;
  }
  r.max_num_seqs = f.count("max_num_seqs", 100000);
  r.isl = f.count("isl", 10000000);
  r.avg_output_len = f.positive("avg_output_len");
  if (r.avg_output_len > workloads::kMaxHistogramTokens) {
    f.fail("avg_output_len", "a positive number of tokens up to 10,000,000");
  }
  r.output_tok_s = f.positive("output_tok_s");
  r.avg_power_w = f.positive("avg_power_w");
  r.energy_per_token_j = f.positive("energy_per_token_j");
  if (f.column.count("median_itl_ms") != 0 && !f.text("median_itl_ms").empty()) {
    r.median_itl_ms = f.positive("median_itl_ms");
  }
  if (f.column.count("num_requests") != 0 && !f.text("num_requests").empty()) {
    r.num_requests = f.count("num_requests", kMaxEnergyRowRequests);
  }
  if (f.column.count("output_length_bins") != 0 && !f.text("output_length_bins").empty()) {
    const auto bins = workloads::parse_length_bins(f.text("output_length_bins"));
    if (!bins) {
      f.fail("output_length_bins",
             "'LO-HI:COUNT' bins separated by spaces, in increasing order, 1 to " +
                 std::to_string(workloads::kMaxHistogramRequests) + " requests in all");
    }
    r.output_length_bins = *bins;
  }
  return r;
}

double d(int64_t v) { return static_cast<double>(v); }

std::string fmt(const char* format, double v) {
  char b[64];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

const char* batch_class(int64_t max_num_seqs) {
  return max_num_seqs <= 16 ? "low" : max_num_seqs >= 128 ? "high" : "middle";
}

struct Mape {
  double energy = 0, power = 0, worst = 0;
  double at_time = 0, worst_at_time = 0;  // the measured-time diagnostic
  double itl = 0;                         // median ITL, over the rows that publish it
  int n = 0, n_itl = 0;
  void add(const EnergyOutcome& o) {
    const double e = signed_error(o.predicted.energy_per_token_j, o.row.energy_per_token_j);
    energy += std::fabs(e);
    power += std::fabs(signed_error(o.predicted.avg_power_w, o.row.avg_power_w));
    worst = std::max(worst, std::fabs(e));
    const double t = std::fabs(
        signed_error(o.predicted.energy_per_token_at_measured_time_j, o.row.energy_per_token_j));
    at_time += t;
    worst_at_time = std::max(worst_at_time, t);
    ++n;
    if (o.row.median_itl_ms > 0) {
      itl += std::fabs(signed_error(o.predicted.median_itl_ms, o.row.median_itl_ms));
      ++n_itl;
    }
  }
  double energy_pct() const { return n ? energy / n : 0; }
  double power_pct() const { return n ? power / n : 0; }
  double at_time_pct() const { return n ? at_time / n : 0; }
  double itl_pct() const { return n_itl ? itl / n_itl : 0; }
};

}  // namespace

std::vector<EnergyRow> read_energy_rows(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(SourceLocation{path, 0, 0}, "", "cannot read the energy rows file");
  std::ostringstream whole;
  whole << file.rdbuf();
  return parse_energy_rows(whole.str(), path);
}

std::vector<EnergyRow> parse_energy_rows(const std::string& text, const std::string& path) {
  require_utf8(text, path, true);
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) {
    throw InputError(SourceLocation{path, 1, 0}, "", "expected a header line, found an empty file");
  }
  std::map<std::string, int> column;
  const std::vector<std::string> header = split_csv(line);
  for (size_t i = 0; i < header.size(); ++i) column[header[i]] = static_cast<int>(i);
  for (const char* key : kColumns) {
    if (!column.count(key)) {
      throw InputError(SourceLocation{path, 1, 0}, key,
                       "expected a column named '" + std::string(key) + "' in the header");
    }
  }
  std::vector<EnergyRow> rows;
  std::set<std::string> ids;
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> cells = split_csv(line);
    if (cells.size() != header.size()) {
      throw InputError(SourceLocation{path, number, 0}, "",
                       "expected " + std::to_string(header.size()) + " fields, found " +
                           std::to_string(cells.size()));
    }
    const Fields f{column, cells, path, number};
    EnergyRow r = parse_row(f);
    if (!ids.insert(r.id).second) f.fail("id", "an id not used by an earlier row");
    rows.push_back(std::move(r));
  }
  return rows;
}

int64_t nominal_output_tokens(double mean_output_tokens) {
  // Uniform integers in [floor(r n), n] have mean close to (1 + r) n / 2.
  return std::max<int64_t>(
      1, static_cast<int64_t>(std::llround(mean_output_tokens * 2.0 / (1.0 + kEnergyRangeRatio))));
}

EnergyPrediction predict_energy_row(const EnergyRow& row, const engine::ServingHardware& hw,
                                    int64_t prompts_per_client) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  workloads::ModelConfig model =
      workloads::load_model(paths.resolve(row.model, "workloads/models"));
  if (!row.precision_override.empty()) {
    model = workloads::apply_precision_override(
        model, workloads::parse_precision_override(row.precision_override, "precision"));
  }
  model = engine::sampled_model(model, hw, row.sampling);
  workloads::PoolMapping pool;
  pool.chips = row.chips;
  pool.degrees.tp = row.tp;
  pool.degrees.ep = model.ffn().type == workloads::FfnType::kMoe ? row.ep : 1;
  // vLLM's expert parallelism without tensor parallelism runs attention data parallel.
  pool.degrees.attn_dp = row.tp == row.chips ? 1 : row.chips;
  if (pool.degrees.attn_dp > 1) pool.degrees.tp = row.chips;
  pool.where = SourceLocation{row.file, row.line, 0};
  serving::SchedulerConfig scheduler;
  scheduler.max_num_seqs = row.max_num_seqs;
  // vLLM's automatic prefix caching (on by default in its V1 engine) where the row's prompts
  // share prefixes: each request skips that share of its prompt in whole KV blocks.
  scheduler.prefix_caching = row.prefix_hit_rate > 0;
  scheduler.prefix_hit_rate = row.prefix_hit_rate;
  engine::ServingEngine engine =
      engine::make_engine(hw, model, workloads::MappingConfig{{pool}}, scheduler);
  serving::ServingScenario sc;
  sc.workload.kind = workloads::ArrivalKind::kClosedLoop;
  sc.workload.concurrency = row.max_num_seqs;
  sc.workload.num_prompts =
      row.num_requests > 0 ? row.num_requests : prompts_per_client * row.max_num_seqs;
  sc.workload.lengths = {row.isl, nominal_output_tokens(row.avg_output_len), kEnergyRangeRatio};
  if (!row.output_length_bins.empty()) {
    // The measured histogram, its outputs scaled to the published mean (the bins' midpoints
    // give it within about 2 %).
    sc.workload.lengths.samples = std::make_shared<const workloads::LengthSamples>(
        workloads::with_mean_output(workloads::samples_from_output_histogram(
                                        row.output_length_bins, row.isl, kEnergyRangeRatio),
                                    row.avg_output_len));
  }
  sc.system = engine.system;
  serving::IterationEnergyLog iterations;
  const serving::ServingResult result = serving::run_serving(sc, *engine.cost, 1, &iterations);
  const serving::ServingMetrics& m = result.metrics;
  EnergyPrediction p;
  double hbm_j = 0;
  for (const serving::PoolStats& stats : result.trace.stats.pools) {
    for (const serving::PhasePower& phase : stats.power.phases) hbm_j += phase.energy.hbm;
  }
  if (m.total_output_tokens > 0) hbm_j /= static_cast<double>(m.total_output_tokens);
  p.hbm_energy_per_token_j = hbm_j;
  p.median_itl_ms = m.itl_ms.median;
  // Over the benchmark's steady-state window where the run has one (serving/
  // steady_state_window.hpp), else over the whole run.
  const std::vector<serving::RequestRecord>& records = result.trace.records;
  if (const auto window = serving::steady_state_window(records, row.max_num_seqs)) {
    std::vector<double> idle_w;
    for (const serving::PoolStats& stats : result.trace.stats.pools) {
      idle_w.push_back(stats.power.idle_power_per_chip_w * d(stats.power.chips));
    }
    const serving::WindowTotals t =
        serving::window_totals(*window, iterations.entries(), records, idle_w);
    if (t.output_tokens > 0 && t.time.si() > 0) {
      p.steady_state = true;
      p.energy_per_token_j = t.energy.si() / t.output_tokens;
      p.avg_power_w = t.energy.si() / t.time.si();
      p.output_tok_s = t.output_tokens / t.time.si();
    }
  }
  if (!p.steady_state) {
    p.energy_per_token_j = m.joules_per_output_token;
    p.avg_power_w = m.avg_power_per_chip_w * d(row.chips);
    p.output_tok_s = m.output_tput_per_chip * d(row.chips);
  }
  add_measured_time_diagnostic(p, row, hw.chip.power.static_power.si() * d(row.chips));
  return p;
}

void add_measured_time_diagnostic(EnergyPrediction& p, const EnergyRow& row,
                                  double replica_static_power_w) {
  if (!(p.output_tok_s > 0) || !(row.output_tok_s > 0)) return;
  const double missing_s_per_token = 1.0 / row.output_tok_s - 1.0 / p.output_tok_s;
  p.energy_per_token_at_measured_time_j =
      p.energy_per_token_j + replica_static_power_w * missing_s_per_token;
  p.missing_step_time_ms = missing_s_per_token * d(row.max_num_seqs) * 1e3;
}

void print_energy_outcomes(std::ostream& out, const std::string& path,
                           const std::vector<EnergyOutcome>& outcomes, const std::string& fidelity,
                           bool json) {
  std::map<std::string, Mape> groups;
  for (const EnergyOutcome& o : outcomes) {
    if (!o.skipped.empty()) continue;
    groups["all"].add(o);
    groups["gpu " + o.row.gpu].add(o);
    groups[std::string("batch ") + batch_class(o.row.max_num_seqs)].add(o);
  }
  if (json) {
    out << "{\"energy_rows\": \"" << output::json_escape(path) << "\", \"fidelity\": \"" << fidelity
        << "\", \"rows\": [";
    for (size_t i = 0; i < outcomes.size(); ++i) {
      const EnergyOutcome& o = outcomes[i];
      const EnergyRow& r = o.row;
      out << (i ? ", " : "") << "{\"id\": \"" << output::json_escape(r.id) << "\", \"gpu\": \""
          << output::json_escape(r.gpu) << "\", \"chips\": " << r.chips << ", \"model\": \""
          << output::json_escape(r.model) << "\", \"max_num_seqs\": " << r.max_num_seqs
          << ", \"stack\": \"" << output::json_escape(o.stack) << "\"";
      if (!o.skipped.empty()) {
        out << ", \"skipped\": \"" << output::json_escape(o.skipped) << "\"}";
        continue;
      }
      out << ", \"measured_j_per_token\": " << output::json_number(r.energy_per_token_j)
          << ", \"predicted_j_per_token\": " << output::json_number(o.predicted.energy_per_token_j)
          << ", \"measured_power_w\": " << output::json_number(r.avg_power_w)
          << ", \"predicted_power_w\": " << output::json_number(o.predicted.avg_power_w)
          << ", \"measured_output_tok_s\": " << output::json_number(r.output_tok_s)
          << ", \"predicted_output_tok_s\": " << output::json_number(o.predicted.output_tok_s)
          << ", \"j_per_token_at_measured_time\": "
          << output::json_number(o.predicted.energy_per_token_at_measured_time_j)
          << ", \"missing_step_time_ms\": " << output::json_number(o.predicted.missing_step_time_ms)
          << ", \"predicted_hbm_j_per_token\": "
          << output::json_number(o.predicted.hbm_energy_per_token_j)
          << ", \"predicted_median_itl_ms\": " << output::json_number(o.predicted.median_itl_ms);
      if (r.median_itl_ms > 0) {
        out << ", \"measured_median_itl_ms\": " << output::json_number(r.median_itl_ms);
      }
      out << ", \"steady_state\": " << (o.predicted.steady_state ? "true" : "false") << "}";
    }
    out << "], \"mape\": {";
    size_t i = 0;
    for (const auto& [key, m] : groups) {
      out << (i++ ? ", " : "") << "\"" << output::json_escape(key)
          << "\": {\"energy_pct\": " << output::json_number(m.energy_pct())
          << ", \"power_pct\": " << output::json_number(m.power_pct())
          << ", \"worst_energy_pct\": " << output::json_number(m.worst)
          << ", \"energy_at_measured_time_pct\": " << output::json_number(m.at_time_pct())
          << ", \"worst_energy_at_measured_time_pct\": " << output::json_number(m.worst_at_time)
          << ", \"median_itl_pct\": " << output::json_number(m.itl_pct())
          << ", \"median_itl_rows\": " << m.n_itl << ", \"rows\": " << m.n << "}";
    }
    out << "}}\n";
    return;
  }
  out << "# scoville validate --energy: " << path << " (" << fidelity
      << " fidelity; measured GPU-board energy per output token and average power of the "
         "replica)\n";
  out << "#  id  gpu   chips model            seqs   J/tok meas   J/tok pred   error   W meas"
         "   W pred   error  tok/s meas  tok/s pred   error\n";
  for (const EnergyOutcome& o : outcomes) {
    const EnergyRow& r = o.row;
    if (!o.skipped.empty()) {
      out << "# " << r.id << " skipped: " << o.skipped << "\n";
      continue;
    }
    char b[400];
    std::snprintf(
        b, sizeof b,
        "%5s  %-5s %5lld %-15s %5lld %11.4f %12.4f %+7.1f%% %8.0f %8.0f %+7.1f%% %10.0f %11.0f "
        "%+7.1f%%\n",
        r.id.c_str(), r.gpu.c_str(), static_cast<long long>(r.chips), r.model.substr(0, 15).c_str(),
        static_cast<long long>(r.max_num_seqs), r.energy_per_token_j,
        o.predicted.energy_per_token_j,
        signed_error(o.predicted.energy_per_token_j, r.energy_per_token_j), r.avg_power_w,
        o.predicted.avg_power_w, signed_error(o.predicted.avg_power_w, r.avg_power_w),
        r.output_tok_s, o.predicted.output_tok_s,
        signed_error(o.predicted.output_tok_s, r.output_tok_s));
    out << b;
  }
  out << "# mean absolute percentage error (energy per token | average power | worst energy "
         "row):\n";
  for (const auto& [key, m] : groups) {
    out << "#   " << key << ": " << fmt("%.1f", m.energy_pct()) << "% | "
        << fmt("%.1f", m.power_pct()) << "% | " << fmt("%.1f", m.worst) << "% (" << m.n
        << " rows)\n";
  }
  out << "# diagnostic, not a prediction: energy per token at the measured throughput (the "
         "GPUs at static power for the time the simulation misses), MAPE | worst row:\n";
  for (const auto& [key, m] : groups) {
    out << "#   " << key << ": " << fmt("%.1f", m.at_time_pct()) << "% | "
        << fmt("%.1f", m.worst_at_time) << "%\n";
  }
  out << "# median inter-token latency (the decode step apart from its prefill), MAPE over the "
         "rows that publish it:\n";
  for (const auto& [key, m] : groups) {
    out << "#   " << key << ": " << fmt("%.1f", m.itl_pct()) << "% (" << m.n_itl << " rows)\n";
  }
}

int validate_energy(std::ostream& out, const std::string& path, const std::string& software,
                    bool calibration, engine::ServingFidelity fidelity, bool op_cache,
                    int64_t prompts_per_client, bool json) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  const std::vector<EnergyRow> rows = read_energy_rows(path);
  // Each row on the stack it was measured on (its framework through framework-stacks.csv, as
  // validate's throughput rows), else its system's; --software NAME for every row.
  const std::vector<FrameworkStackRule> rules = software == config::kSystemSoftware
                                                    ? shipped_framework_stacks(paths)
                                                    : std::vector<FrameworkStackRule>{};
  std::map<std::string, std::string> system_stacks;
  const auto request_of = [&](const EnergyRow& r) {
    const std::string file = paths.resolve(r.system_file, "arch/systems");
    if (system_stacks.count(r.system_file) == 0) {
      system_stacks[r.system_file] = config::load_system(file, paths).software;
    }
    return row_stack(software, rules, r.framework, system_stacks[r.system_file]).first;
  };
  // Every system and stack first, outside the rows' try: a broken file stops the run (exit
  // code 2).
  std::map<std::pair<std::string, std::string>, engine::ServingHardware> hardware;
  for (const EnergyRow& r : rows) {
    if (r.covers != EnergyCoverage::kGpu) continue;
    const auto key = std::make_pair(r.system_file, request_of(r));
    if (hardware.count(key)) continue;
    std::string chip = r.gpu;
    for (char& c : chip) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    engine::ServingHardware hw = engine::resolve_hardware(
        chip, paths.resolve(r.system_file, "arch/systems"), 8, key.second, calibration, fidelity);
    if (fidelity == engine::ServingFidelity::kOpTable) engine::use_op_table(hw, op_cache);
    hardware.emplace(key, std::move(hw));
  }
  std::vector<EnergyOutcome> outcomes;
  for (const EnergyRow& r : rows) {
    EnergyOutcome o;
    o.row = r;
    if (r.covers != EnergyCoverage::kGpu) {
      o.skipped = "its power covers a node or the wall; only GPU-board rows are predicted";
    } else {
      try {
        const engine::ServingHardware& hw = hardware.at({r.system_file, request_of(r)});
        o.stack = hw.software_name;
        o.predicted = predict_energy_row(r, hw, prompts_per_client);
      } catch (const InputError& e) {
        o.skipped = std::string("infeasible: ") + e.what();
      }
    }
    outcomes.push_back(std::move(o));
  }
  print_energy_outcomes(out, path, outcomes, engine::to_string(fidelity), json);
  return 0;
}

}  // namespace scoville::validation
