#include "sim/output/serving_points_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "sim/base/json_text.hpp"
#include "sim/output/provenance.hpp"

namespace scoville::output {

namespace {

double d(int64_t v) { return static_cast<double>(v); }

std::string num(double v, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

}  // namespace

void print_points_table(std::ostream& out, const std::vector<serving::ServingPoint>& points) {
  size_t width = 19;
  for (const serving::ServingPoint& p : points) width = std::max(width, p.mapping.size() + 1);
  out << "#" << pad("conc", 6) << "  " << std::string("mapping") + std::string(width - 7, ' ')
      << pad("tput/chip", 11) << pad("intvty", 9) << pad("ttft_med", 10) << pad("ttft_p99", 10)
      << pad("tpot_med", 10) << pad("tpot_p99", 10) << pad("e2el_med", 10) << pad("e2el_p99", 10)
      << pad("tput/kWtdp", 11) << pad("tput/kWsim", 11) << pad("tput/MWall", 11) << pad("J/tok", 8)
      << pad("idle", 6) << pad("thr", 6) << "  pareto\n";
  out << "#" << pad("", 6) << "  " << std::string(width, ' ') << pad("tok/s", 11)
      << pad("tok/s/u", 9) << pad("ms", 10) << pad("ms", 10) << pad("ms", 10) << pad("ms", 10)
      << pad("s", 10) << pad("s", 10) << pad("tok/s/kW", 11) << pad("tok/s/kW", 11)
      << pad("tok/s/MW", 11) << pad("J", 8) << pad("%", 6) << pad("%", 6) << "\n";
  for (const serving::ServingPoint& p : points) {
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
std::vector<serving::NamedMetric> point_values(const serving::ServingPoint& p) {
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
                       const std::vector<serving::ServingPoint>& points) {
  out << "{" << header_fields << "\"points\": [";
  for (size_t i = 0; i < points.size(); ++i) {
    out << (i ? ", " : "") << "{\"mapping\": \"" << output::json_escape(points[i].mapping) << "\"";
    for (const serving::NamedMetric& m : point_values(points[i])) {
      out << ", \"" << m.name << "\": " << json_number(m.value);
    }
    out << "}";
  }
  out << "]}\n";
}

void write_points_h5(const std::string& path, const std::vector<serving::ServingPoint>& points,
                     int argc, const char* const* argv, uint64_t seed,
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
  for (const serving::ServingPoint& p : points) {
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
  for (const serving::ServingPoint& p : points) {
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

void print_power_report(std::ostream& out, const serving::ServingPoint& point) {
  const serving::SchedulerStats& stats = point.result.trace.stats;
  char line[320];
  out << "# power per chip, by pool and phase (W; on-chip dynamic / HBM / links / static)\n";
  for (size_t i = 0; i < stats.pools.size(); ++i) {
    const serving::PoolStats& p = stats.pools[i];
    const serving::PoolPowerReport& r = p.power;
    for (const serving::PhasePower& ph : r.phases) {
      const double t = ph.time.si() * static_cast<double>(r.chips);
      const serving::PowerGroups& e = ph.energy;
      const serving::PowerGroups& k = ph.peak_per_chip;
      std::snprintf(
          line, sizeof line,
          "  pool %zu %-8s avg %7.1f W (%.1f / %.1f / %.1f / %.1f)  peak %7.1f W "
          "(%.1f / %.1f / %.1f / %.1f)  throttled %5.1f%%  clock %s\n",
          i, ph.phase.c_str(), ph.average_power_per_chip(r.chips), e.onchip / t, e.hbm / t,
          e.link / t, e.static_part / t, ph.peak_total_per_chip, k.onchip, k.hbm, k.link,
          k.static_part, ph.time.si() > 0 ? 100.0 * ph.throttled_time.si() / ph.time.si() : 0.0,
          r.managed ? (std::to_string(ph.effective_frequency() / 1e9).substr(0, 5) + " GHz of " +
                       std::to_string(r.nominal_frequency / 1e9).substr(0, 5))
                          .c_str()
                    : "nominal (no power management)");
      out << line;
    }
    std::snprintf(
        line, sizeof line, "  pool %zu idle     %7.1f W per chip for %.4g s (%.4g J)%s\n", i,
        r.idle_power_per_chip_w, p.idle_time.si(), p.idle_energy.si(),
        r.managed ? ("; cap " + std::to_string(static_cast<int64_t>(r.cap_w)) + " W").c_str() : "");
    out << line;
  }
}

output::Table serving_power_table(const std::vector<serving::ServingPoint>& points) {
  std::vector<int64_t> point, pool, iterations, managed;
  std::vector<std::string> phase;
  std::vector<double> time, throttled, clock, avg, onchip, hbm, link, stat, peak, peak_onchip,
      peak_hbm, peak_link, peak_static, cap, idle_power, idle_time, idle_energy;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& pools = points[i].result.trace.stats.pools;
    for (size_t j = 0; j < pools.size(); ++j) {
      const serving::PoolPowerReport& r = pools[j].power;
      for (const serving::PhasePower& ph : r.phases) {
        point.push_back(static_cast<int64_t>(i));
        pool.push_back(static_cast<int64_t>(j));
        phase.push_back(ph.phase);
        iterations.push_back(ph.iterations);
        managed.push_back(r.managed ? 1 : 0);
        time.push_back(ph.time.si());
        throttled.push_back(ph.throttled_time.si());
        clock.push_back(ph.effective_frequency());
        avg.push_back(ph.average_power_per_chip(r.chips));
        const double chip_s = ph.time.si() * static_cast<double>(r.chips);
        onchip.push_back(ph.energy.onchip / chip_s);
        hbm.push_back(ph.energy.hbm / chip_s);
        link.push_back(ph.energy.link / chip_s);
        stat.push_back(ph.energy.static_part / chip_s);
        peak.push_back(ph.peak_total_per_chip);
        peak_onchip.push_back(ph.peak_per_chip.onchip);
        peak_hbm.push_back(ph.peak_per_chip.hbm);
        peak_link.push_back(ph.peak_per_chip.link);
        peak_static.push_back(ph.peak_per_chip.static_part);
        cap.push_back(r.cap_w);
        idle_power.push_back(r.idle_power_per_chip_w);
        idle_time.push_back(pools[j].idle_time.si());
        idle_energy.push_back(pools[j].idle_energy.si());
      }
    }
  }
  return output::Table{"/serving_power",
                       {{"point", "1", point},
                        {"pool", "1", pool},
                        {"phase", "", phase},
                        {"iterations", "1", iterations},
                        {"power_managed", "1", managed},
                        {"busy_s", "s", time},
                        {"throttled_s", "s", throttled},
                        {"effective_frequency_Hz", "Hz", clock},
                        {"avg_power_per_chip_W", "W", avg},
                        {"avg_onchip_W", "W", onchip},
                        {"avg_hbm_W", "W", hbm},
                        {"avg_link_W", "W", link},
                        {"avg_static_W", "W", stat},
                        {"peak_power_per_chip_W", "W", peak},
                        {"peak_onchip_W", "W", peak_onchip},
                        {"peak_hbm_W", "W", peak_hbm},
                        {"peak_link_W", "W", peak_link},
                        {"peak_static_W", "W", peak_static},
                        {"power_cap_W", "W", cap},
                        {"idle_power_per_chip_W", "W", idle_power},
                        {"pool_idle_s", "s", idle_time},
                        {"pool_idle_energy_J", "J", idle_energy}},
                       {}};
}

}  // namespace scoville::output
