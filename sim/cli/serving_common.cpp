#include "sim/cli/serving_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>

#include "models/kv/kv_placement.hpp"
#include "models/network/topology_builders.hpp"
#include "models/power/power_accounting.hpp"
#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/cli/arg_reader.hpp"
#include "sim/cli/serving_power_report.hpp"
#include "sim/config/calibration_overlay.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/simulated_op_cost.hpp"
#include "sim/engine/system_cost_model.hpp"
#include "sim/output/h5_writer.hpp"
#include "sim/output/provenance.hpp"

namespace scoville::cli {

namespace {

double d(int64_t v) { return static_cast<double>(v); }

// A chip name alone: its chips on one switch, each with all its ports into it. The latencies
// and energies are those of arch/systems/gb200-nvl72.yaml, the one NVLink switch we describe.
models::Topology switch_of_chip(const models::ChipParams& chip, int64_t chips) {
  models::TopologySpec spec;
  spec.kind = "switch";
  spec.endpoints = chips;
  spec.link.lanes = std::max<int64_t>(1, chip.ports.count);
  spec.link.bandwidth_per_lane = chip.ports.bandwidth_per_port;
  spec.link.latency = Duration(150e-9);      // [ASSUMPTION] as gb200-nvl72.yaml
  spec.link.energy = EnergyPerBit(5.5e-12);  // [SECONDARY] as gb200-nvl72.yaml
  models::SwitchParams sw;
  sw.radix = chips;
  sw.port_bandwidth = spec.link.bandwidth();
  sw.latency = Duration(250e-9);     // [ASSUMPTION] as gb200-nvl72.yaml
  sw.energy = EnergyPerBit(10e-12);  // [EST] as gb200-nvl72.yaml
  spec.switch_params = sw;
  return models::build_topology(spec);
}

std::string num(double v, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

}  // namespace

ServingHardware resolve_hardware(const std::string& chip, const std::string& system, int64_t chips,
                                 const std::string& software, bool calibration,
                                 ServingFidelity fidelity) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  ServingHardware hw;
  hw.chip = config::load_chip(chip, paths);
  if (system.empty()) {
    hw.system_name = hw.chip.name + " x" + std::to_string(chips) + " switch";
    if (chips > 1 && hw.chip.ports.count > 0) hw.network = switch_of_chip(hw.chip, chips);
  } else {
    const config::SystemConfig s = config::load_system(system, paths);
    hw.system_name = s.name;
    hw.network = config::build_network(s);
    hw.system_power = s.power;
    hw.system_chips = s.chips;
    hw.host = s.host;
    // An overlay describes the system's own chip; a --chip override runs other silicon.
    const bool own_chip =
        !s.chip_file.empty() && config::load_chip(s.chip_file, paths).name == hw.chip.name;
    if (calibration && own_chip && fidelity != ServingFidelity::kCycle) {
      if (const auto overlay = config::find_overlay(s.file, overlay_fidelity(fidelity))) {
        hw.efficiency = overlay->knobs;
        hw.calibration = overlay->describe();
      }
    }
  }
  if (!software.empty()) {
    const config::SoftwareProfile p = config::load_software(software, paths);
    hw.software_name = p.name;
    hw.software = serving::SoftwareOverheads{p.per_op_launch, p.per_layer_sync, p.per_iteration,
                                             p.per_collective, p.per_all_to_all};
  }
  return hw;
}

void apply_calibration_file(ServingHardware& hw, const std::string& file,
                            ServingFidelity fidelity) {
  const config::CalibrationOverlay overlay = config::load_overlay(file);
  if (overlay.fidelity != overlay_fidelity(fidelity)) {
    throw InputError(SourceLocation{file, 0, 0}, "calibration.fidelity",
                     "the overlay's knobs were fitted at the " + overlay.fidelity +
                         " fidelity; this run prices at " + to_string(fidelity) +
                         " (give an overlay fitted at it, or --fidelity " + overlay.fidelity + ")");
  }
  hw.efficiency = overlay.knobs;
  hw.calibration = overlay.describe() + " (given by --calibration)";
}

ServingFidelity parse_serving_fidelity(const std::string& text) {
  if (text == "roofline") return ServingFidelity::kRoofline;
  if (text == "op-table") return ServingFidelity::kOpTable;
  if (text == "cycle") return ServingFidelity::kCycle;
  throw UsageError{"--fidelity: expected roofline, op-table or cycle, found '" + text + "'"};
}

std::string to_string(ServingFidelity fidelity) {
  switch (fidelity) {
    case ServingFidelity::kRoofline:
      return "roofline";
    case ServingFidelity::kOpTable:
      return "op-table";
    case ServingFidelity::kCycle:
      return "cycle";
  }
  return "roofline";
}

void set_kv_placement(ServingHardware& hw, const std::string& name) {
  models::make_kv_placement(name);  // an unknown name: InputError naming the known ones
  if (name == "remote_pool" && !hw.host) {
    throw InputError(SourceLocation{"<command line>", 0, 0}, "kv_placement",
                     "remote_pool keeps the KV in host memory: expected --system to name a "
                     "system file with a host section (e.g. gb200-nvl72), found " +
                         hw.system_name);
  }
  hw.kv_placement = name;
}

std::string overlay_fidelity(ServingFidelity fidelity) {
  return fidelity == ServingFidelity::kCycle ? std::string() : to_string(fidelity);
}

void use_op_table(ServingHardware& hw, bool persistent_cache) {
  engine::SimulatedOpCostOptions options;
  if (!persistent_cache) options.cache_dir.reset();
  hw.op_cost = std::make_shared<engine::SimulatedOpCost>(hw.chip, options);
}

std::string op_table_report(const ServingHardware& hw) {
  if (!hw.op_cost) return std::string();
  const serving::OpTableStats s = hw.op_cost->stats();
  const std::string& dir = s.cache_directory;
  std::string line = "op table: " + std::to_string(s.lookups) + " lookups, " +
                     std::to_string(s.memory_hits) + " in memory, " + std::to_string(s.disk_hits) +
                     " from the op cache, " + std::to_string(s.simulated) + " simulated";
  if (dir.empty()) return line + " (op cache bypassed)";
  line += " (op cache " + dir + ", " + std::to_string(s.disk_writes) + " written";
  if (s.disk_write_failures > 0) {
    line += ", " + std::to_string(s.disk_write_failures) + " could not be written";
  }
  return line + ")";
}

namespace {

serving::PoolConfig pool_config(const ServingHardware& hw, const workloads::ModelConfig& model,
                                const workloads::PoolMapping& mapping, serving::PoolRole role,
                                const serving::SchedulerConfig& scheduler) {
  serving::PoolConfig p;
  p.name = mapping.pool;
  p.role = role;
  p.chips = mapping.chips;
  p.attention_dp = mapping.degrees.attn_dp;
  p.scheduler = scheduler;
  // The token budget is per attention-DP rank: vLLM's and SGLang's data-parallel attention run
  // one scheduler (and budget) per rank; one budget for the pool would starve wide attention-DP
  // pools of prefill (docs/serving.md).
  p.scheduler.max_num_batched_tokens = scheduler.max_num_batched_tokens * mapping.degrees.attn_dp;
  std::optional<Bytes> kv_memory;  // remote_pool: the host's memory holds the KV
  if (hw.kv_placement == "remote_pool") kv_memory = hw.host->per_chip_capacity();
  p.kv_capacity_blocks =
      std::max<int64_t>(1, serving::pool_kv_capacity_blocks(model, hw.chip, mapping,
                                                            scheduler.kv_block_tokens, kv_memory));
  // The chip's cap controller throttles the pool's iterations (sim/serving/serving_power), and
  // the pool draws the chip's idle power while it has no work (docs/power.md).
  const models::PowerManagementParams& pm = hw.chip.power.management;
  p.power.managed = pm.present;
  p.power.management = pm;
  p.power.static_per_chip = hw.chip.power.static_power;
  p.idle_power_per_chip = models::idle_power(hw.chip.power.static_power, pm);
  return p;
}

}  // namespace

ServingEngine make_engine(const ServingHardware& hw, const workloads::ModelConfig& model,
                          const workloads::MappingConfig& mapping,
                          const serving::SchedulerConfig& scheduler) {
  ServingEngine engine;
  std::vector<workloads::PoolMapping> pools = mapping.pools;
  // Disaggregated: prefill first, then decode (ServingSystem's order).
  std::sort(pools.begin(), pools.end(), [](const auto& a, const auto& b) {
    return (a.pool == "prefill" ? 0 : 1) < (b.pool == "prefill" ? 0 : 1);
  });
  serving::RooflineOptions options;
  options.op_cost = hw.op_cost;
  options.kv_placement = hw.kv_placement;
  options.kv_block_tokens = scheduler.kv_block_tokens;
  options.host = hw.host;
  auto roofline = std::make_unique<serving::RooflineCostModel>(model, hw.chip, pools, hw.network,
                                                               hw.software, options, hw.efficiency);
  const bool disaggregated = pools.size() == 2;
  for (size_t i = 0; i < pools.size(); ++i) {
    const serving::PoolRole role = !disaggregated ? serving::PoolRole::kColocated
                                   : i == 0       ? serving::PoolRole::kPrefill
                                                  : serving::PoolRole::kDecode;
    engine.system.pools.push_back(pool_config(hw, model, pools[i], role, scheduler));
  }
  engine.system.kv_bytes_per_token = model.kv_bytes_per_token();
  if (disaggregated) {
    // The pools sit on consecutive chips of the system, prefill first (unless a pool names its
    // first chip); the request's KV moves between them as the disaggregated placement sends it.
    const serving::RooflineCostModel* cost = roofline.get();
    const std::vector<int64_t> first = workloads::pool_first_chips(pools);
    const models::ChipSpan prefill{first[0], pools[0].chips};
    const models::ChipSpan decode{first[1], pools[1].chips};
    if (hw.network && decode.first + decode.count > hw.network->endpoints()) {
      throw InputError(pools[1].where, "chips",
                       "the prefill and decode pools need " +
                           std::to_string(decode.first + decode.count) + " chips but '" +
                           hw.system_name + "' has " + std::to_string(hw.network->endpoints()));
    }
    engine.system.kv_transfer_time = [cost, prefill, decode](const serving::KvTransfer& t) {
      return cost->kv_handoff_time(t.bytes, prefill, decode);
    };
  }
  engine.cost = std::move(roofline);
  return engine;
}

ServingEngine make_cycle_engine(const ServingHardware& hw, const std::string& system,
                                const workloads::ModelConfig& model,
                                const workloads::PoolMapping& pool,
                                const serving::SchedulerConfig& scheduler) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  const config::SystemConfig system_config = config::load_system(system, paths);
  if (pool.degrees.dp != 1) {
    throw InputError(pool.where, "dp",
                     "the serving layer runs one engine per pool: expected dp = 1, found " +
                         std::to_string(pool.degrees.dp));
  }
  if (pool.chips > system_config.chips) {
    throw InputError(pool.where, "chips",
                     "the mapping needs " + std::to_string(pool.chips) + " chips but '" +
                         system_config.name + "' has " + std::to_string(system_config.chips));
  }
  ServingEngine engine;
  // Capacity first: it checks that the weights fit before SystemC elaborates anything.
  engine.system.pools.push_back(
      pool_config(hw, model, pool, serving::PoolRole::kColocated, scheduler));
  engine.system.kv_bytes_per_token = model.kv_bytes_per_token();
  // hw.chip is the system file's chip unless --chip overrode it, as for the roofline.
  config::SoftwareProfile software;
  software.name = hw.software_name;
  software.per_op_launch = hw.software.per_op_launch;
  software.per_layer_sync = hw.software.per_layer_sync;
  software.per_iteration = hw.software.per_iteration;
  software.per_collective = hw.software.per_collective;
  software.per_all_to_all = hw.software.per_all_to_all;
  engine::SystemSetup setup{system_config, hw.chip, model, pool, software, {}};
  setup.options.kv_placement = hw.kv_placement;
  setup.options.kv_block_tokens = scheduler.kv_block_tokens;
  engine.cost = std::make_unique<engine::SystemCostModel>(std::move(setup));
  return engine;
}

std::string calibration_label(const ServingHardware& hw) {
  if (!hw.calibration.empty()) return hw.calibration;
  return hw.op_cost ? "none (the chip model's op times)" : "none (raw spec peaks)";
}

std::string mapping_label(const workloads::MappingConfig& mapping) {
  std::string out;
  for (const workloads::PoolMapping& p : mapping.pools) {
    if (!out.empty()) out += "+";
    if (mapping.pools.size() > 1) out += p.pool + ":";
    out += "tp" + std::to_string(p.degrees.tp);
    if (p.degrees.ep > 1) out += "-ep" + std::to_string(p.degrees.ep);
    if (p.degrees.attn_dp > 1) out += "-dpa" + std::to_string(p.degrees.attn_dp);
    if (p.degrees.pp > 1) out += "-pp" + std::to_string(p.degrees.pp);
    if (p.chips != p.degrees.tp * p.degrees.pp) out += "-c" + std::to_string(p.chips);
  }
  return out;
}

void fill_point_stats(ServingPoint& point) {
  // Sweep over sends (+1) and finishes (-1); a finish at the same time as a send comes first,
  // as the client frees its slot before sending the next request.
  std::vector<std::pair<double, int>> events;
  double sum_e2el = 0;
  for (const serving::RequestRecord& r : point.result.trace.records) {
    events.push_back({r.sent.si(), +1});
    events.push_back({r.finished.si(), -1});
    sum_e2el += r.e2el().si();
  }
  std::sort(events.begin(), events.end());
  int64_t in_flight = 0;
  double area = 0, last = events.empty() ? 0.0 : events.front().first;
  for (const auto& [t, delta] : events) {
    area += d(in_flight) * (t - last);
    last = t;
    in_flight += delta;
    point.max_in_flight = std::max(point.max_in_flight, in_flight);
  }
  const serving::ServingMetrics& m = point.result.metrics;
  point.mean_in_flight = m.duration_s > 0 ? area / m.duration_s : 0.0;
  const double mean_e2el = m.completed > 0 ? sum_e2el / d(m.completed) : 0.0;
  point.littles_law_n = m.request_throughput * mean_e2el;
}

void mark_pareto(std::vector<ServingPoint>& points) {
  std::vector<size_t> order(points.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& ma = points[a].result.metrics;
    const auto& mb = points[b].result.metrics;
    if (ma.intvty != mb.intvty) return ma.intvty > mb.intvty;
    return ma.tput_per_chip > mb.tput_per_chip;
  });
  double best = -std::numeric_limits<double>::infinity();
  for (size_t i : order) {
    points[i].pareto = points[i].result.metrics.tput_per_chip > best;
    best = std::max(best, points[i].result.metrics.tput_per_chip);
  }
}

void print_points_table(std::ostream& out, const std::vector<ServingPoint>& points) {
  size_t width = 19;
  for (const ServingPoint& p : points) width = std::max(width, p.mapping.size() + 1);
  out << "#" << pad("conc", 6) << "  " << std::string("mapping") + std::string(width - 7, ' ')
      << pad("tput/chip", 11) << pad("intvty", 9) << pad("ttft_med", 10) << pad("ttft_p99", 10)
      << pad("tpot_med", 10) << pad("tpot_p99", 10) << pad("e2el_med", 10) << pad("e2el_p99", 10)
      << pad("tput/kWtdp", 11) << pad("tput/kWsim", 11) << pad("tput/MWall", 11) << pad("J/tok", 8)
      << pad("idle", 6) << pad("thr", 6) << "  pareto\n";
  out << "#" << pad("", 6) << "  " << std::string(width, ' ') << pad("tok/s", 11)
      << pad("tok/s/u", 9) << pad("ms", 10) << pad("ms", 10) << pad("ms", 10) << pad("ms", 10)
      << pad("s", 10) << pad("s", 10) << pad("tok/s/kW", 11) << pad("tok/s/kW", 11)
      << pad("tok/s/MW", 11) << pad("J", 8) << pad("%", 6) << pad("%", 6) << "\n";
  for (const ServingPoint& p : points) {
    const serving::ServingMetrics& m = p.result.metrics;
    std::string label = p.mapping;
    if (label.size() < width) label += std::string(width - label.size(), ' ');
    out << pad(std::to_string(p.concurrency), 7) << "  " << label
        << pad(num(m.tput_per_chip, 1), 11) << pad(num(m.intvty, 1), 9)
        << pad(num(m.ttft_ms.median, 1), 10) << pad(num(m.ttft_ms.p99, 1), 10)
        << pad(num(m.tpot_ms.median, 2), 10) << pad(num(m.tpot_ms.p99, 2), 10)
        << pad(num(m.e2el_ms.median / 1e3, 2), 10) << pad(num(m.e2el_ms.p99 / 1e3, 2), 10)
        << pad(m.tput_per_kw_tdp ? num(*m.tput_per_kw_tdp, 1) : "-", 11)
        << pad(num(m.tput_per_kw_sim, 1), 11)
        << pad(m.tput_per_mw_all_in ? num(*m.tput_per_mw_all_in, 0) : "-", 11)
        << pad(num(m.joules_per_accepted_token, 3), 8) << pad(num(100.0 * m.idle_share, 1), 6)
        << pad(num(100.0 * m.throttled_share, 1), 6) << (p.pareto ? "  *" : "") << "\n";
  }
}

namespace {

// Identity and check columns of a point, then every named metric, each with its unit.
std::vector<serving::NamedMetric> point_values(const ServingPoint& p) {
  std::vector<serving::NamedMetric> v = {{"concurrency", d(p.concurrency), "1"},
                                         {"chips", d(p.chips), "1"},
                                         {"tp", d(p.tp), "1"},
                                         {"ep", d(p.ep), "1"},
                                         {"attn_dp", d(p.attn_dp), "1"},
                                         {"pareto", p.pareto ? 1.0 : 0.0, "1"},
                                         {"max_in_flight", d(p.max_in_flight), "1"},
                                         {"mean_in_flight", p.mean_in_flight, "1"},
                                         {"littles_law_n", p.littles_law_n, "1"}};
  for (const serving::NamedMetric& m : p.result.metrics.named()) v.push_back(m);
  return v;
}

// The file is SI (docs/results-format.md): vLLM's millisecond latencies (`median_ttft_ms`, ...)
// are stored in seconds as `median_ttft_s`; the table and the JSON keep vLLM's names and units.
serving::NamedMetric si_column(const serving::NamedMetric& m) {
  if (m.unit != "ms") return m;
  const std::string& name = m.name;
  const bool ms_suffix = name.size() > 3 && name.compare(name.size() - 3, 3, "_ms") == 0;
  return {ms_suffix ? name.substr(0, name.size() - 3) + "_s" : name, m.value * 1e-3, "s"};
}

}  // namespace

void print_points_json(std::ostream& out, const std::string& header_fields,
                       const std::vector<ServingPoint>& points) {
  out << "{" << header_fields << "\"points\": [";
  for (size_t i = 0; i < points.size(); ++i) {
    out << (i ? ", " : "") << "{\"mapping\": \"" << output::json_escape(points[i].mapping) << "\"";
    for (const serving::NamedMetric& m : point_values(points[i])) {
      out << ", \"" << m.name << "\": " << output::json_number(m.value);
    }
    out << "}";
  }
  out << "]}\n";
}

void write_points_h5(const std::string& path, const std::vector<ServingPoint>& points, int argc,
                     const char* const* argv, uint64_t seed,
                     const std::vector<std::pair<std::string, std::string>>& attributes) {
  const output::Provenance prov = output::Provenance::current(argc, argv, seed);
  output::H5Document doc;
  doc.root_attributes = {{"schema", std::string("scoville.results")},
                         {"schema_version", int64_t{1}},
                         {"file_kind", std::string("serving")},
                         {"tool_version", prov.tool_version},
                         {"git_sha", prov.git_sha},
                         {"command_line", prov.command_line},
                         {"created_utc", prov.created_utc},
                         {"seed", static_cast<int64_t>(seed)}};
  for (const auto& [k, v] : attributes) doc.root_attributes.push_back({k, v});

  // /points: the union of metric names over points (optional metrics may be absent: NaN).
  std::vector<std::string> names, units;
  std::map<std::string, size_t> index;
  for (const ServingPoint& p : points) {
    for (const serving::NamedMetric& raw : point_values(p)) {
      const serving::NamedMetric m = si_column(raw);
      if (index.emplace(m.name, names.size()).second) {
        names.push_back(m.name);
        units.push_back(m.unit);
      }
    }
  }
  std::vector<std::vector<double>> cols(names.size());
  std::vector<std::string> labels;
  for (const ServingPoint& p : points) {
    labels.push_back(p.mapping);
    std::vector<double> row(names.size(), std::numeric_limits<double>::quiet_NaN());
    for (const serving::NamedMetric& raw : point_values(p)) {
      const serving::NamedMetric m = si_column(raw);
      row[index[m.name]] = m.value;
    }
    for (size_t c = 0; c < names.size(); ++c) cols[c].push_back(row[c]);
  }
  output::Table pt{"/points", {}, {}};
  // The fidelity that priced the points travels with them too (a table copied out of the file).
  for (const auto& [k, v] : attributes) {
    if (k == "fidelity") pt.attributes.push_back({k, v});
  }
  pt.columns.push_back({"mapping", "", labels});
  for (size_t c = 0; c < names.size(); ++c) {
    pt.columns.push_back({names[c], units[c], cols[c]});
  }
  doc.tables.push_back(pt);
  doc.tables.push_back(serving_power_table(points));

  std::vector<int64_t> point, id, isl, osl, preempt;
  std::vector<double> arrival, sent, first, finished, ttft, tpot, e2el;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t i = 0; i < points.size(); ++i) {
    for (const serving::RequestRecord& r : points[i].result.trace.records) {
      point.push_back(static_cast<int64_t>(i));
      id.push_back(r.id);
      isl.push_back(r.input_tokens);
      osl.push_back(r.output_tokens);
      preempt.push_back(r.preemptions);
      arrival.push_back(r.arrival.si());
      sent.push_back(r.sent.si());
      first.push_back(r.first_token.si());
      finished.push_back(r.finished.si());
      ttft.push_back(r.ttft().si());
      e2el.push_back(r.e2el().si());
      tpot.push_back(r.tpot() ? r.tpot()->si() : nan);
    }
  }
  doc.tables.push_back(output::Table{"/requests",
                                     {{"point", "1", point},
                                      {"id", "1", id},
                                      {"input_tokens", "1", isl},
                                      {"output_tokens", "1", osl},
                                      {"arrival_s", "s", arrival},
                                      {"sent_s", "s", sent},
                                      {"first_token_s", "s", first},
                                      {"finished_s", "s", finished},
                                      {"ttft_s", "s", ttft},
                                      {"tpot_s", "s", tpot},
                                      {"e2el_s", "s", e2el},
                                      {"preemptions", "1", preempt}},
                                     {}});
  output::write_h5_atomically(doc, path);
}

Progress::Progress(int64_t total, bool quiet)
    : total_(total), on_(!quiet && isatty(STDERR_FILENO) == 1) {}

void Progress::step(const std::string& label) {
  ++done_;
  if (!on_) return;
  const int width = 30;
  const int filled = total_ > 0 ? static_cast<int>(width * done_ / total_) : width;
  std::cerr << "\r[" << std::string(static_cast<size_t>(filled), '#')
            << std::string(static_cast<size_t>(width - filled), '.') << "] " << done_ << "/"
            << total_ << " " << label << "\033[K" << std::flush;
}

Progress::~Progress() {
  if (on_) std::cerr << "\r\033[K" << std::flush;
}

}  // namespace scoville::cli
