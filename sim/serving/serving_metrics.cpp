#include "sim/serving/serving_metrics.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace scoville::serving {
namespace {

constexpr double kMs = 1e3;

bool is_good(const RequestRecord& r, const MetricInputs& in) {
  // vLLM compares each objective with <=; TPOT is not defined for one output token and then
  // does not count against the request.
  if (in.slo_ttft && r.ttft() > *in.slo_ttft) return false;
  if (in.slo_e2el && r.e2el() > *in.slo_e2el) return false;
  if (in.slo_tpot && r.tpot() && *r.tpot() > *in.slo_tpot) return false;
  return true;
}

// vLLM's latency statistics, in milliseconds as vLLM reports them.
void add_distribution(std::vector<NamedMetric>& out, const std::string& metric,
                      const Distribution& d) {
  out.push_back({"mean_" + metric + "_ms", d.mean, "ms"});
  out.push_back({"median_" + metric + "_ms", d.median, "ms"});
  out.push_back({"std_" + metric + "_ms", d.std, "ms"});
  out.push_back({"p90_" + metric + "_ms", d.p90, "ms"});
  out.push_back({"p95_" + metric + "_ms", d.p95, "ms"});
  out.push_back({"p99_" + metric + "_ms", d.p99, "ms"});
}

void power_metrics(ServingMetrics& m, const SchedulerStats& stats) {
  double busy_chip_s = 0, idle_chip_s = 0, throttled_chip_s = 0, managed_s = 0, freq_s = 0;
  for (const PoolStats& p : stats.pools) {
    const auto chips = static_cast<double>(p.power.chips);
    m.busy_energy_j += p.iteration_energy.si();
    m.idle_energy_j += p.idle_energy.si();
    busy_chip_s += p.busy_time.si() * chips;
    idle_chip_s += p.idle_time.si() * chips;
    m.rejected_draft_energy_j += p.rejected_draft_energy.si();
    m.rejected_draft_positions += p.rejected_positions;
    if (p.power.managed) {
      m.power_cap_w = m.power_cap_w ? std::min(*m.power_cap_w, p.power.cap_w) : p.power.cap_w;
    }
    for (const PhasePower& ph : p.power.phases) {
      m.peak_power_per_chip_w = std::max(m.peak_power_per_chip_w, ph.peak_total_per_chip);
      throttled_chip_s += ph.throttled_time.si() * chips;
      if (p.power.managed) {
        managed_s += ph.time.si();
        freq_s += ph.frequency_seconds;
      }
    }
  }
  m.idle_share = busy_chip_s + idle_chip_s > 0 ? idle_chip_s / (busy_chip_s + idle_chip_s) : 0.0;
  m.busy_power_per_chip_w = busy_chip_s > 0 ? m.busy_energy_j / busy_chip_s : 0.0;
  m.throttled_share = busy_chip_s > 0 ? throttled_chip_s / busy_chip_s : 0.0;
  if (managed_s > 0) m.effective_clock_hz = freq_s / managed_s;
  m.joules_per_accepted_token = m.total_output_tokens > 0
                                    ? m.total_energy_j / static_cast<double>(m.total_output_tokens)
                                    : 0.0;
}

}  // namespace

ServingMetrics compute_metrics(const std::vector<RequestRecord>& records,
                               const SchedulerStats& stats, const ServingSystem& system,
                               const MetricInputs& inputs) {
  ServingMetrics m;
  const double window = stats.window().si();
  if (records.empty() || !(window > 0.0)) {
    throw std::invalid_argument("serving metrics need completed requests over a positive window");
  }
  std::vector<double> ttft, tpot, itl, e2el, e2e_intvty;
  // Sized up front: a serving run has millions of inter-token gaps, and regrowing their vector
  // copied them several times over into freshly faulted pages.
  size_t gaps = 0;
  for (const RequestRecord& r : records) gaps += r.itl.size();
  itl.reserve(gaps);
  for (std::vector<double>* v : {&ttft, &tpot, &e2el, &e2e_intvty}) v->reserve(records.size());
  int64_t good = 0;
  int64_t good_output = 0;
  for (const RequestRecord& r : records) {
    m.completed += 1;
    m.total_input_tokens += r.input_tokens;
    m.total_output_tokens += r.output_tokens;
    ttft.push_back(r.ttft().si() * kMs);
    e2el.push_back(r.e2el().si() * kMs);
    if (r.tpot()) tpot.push_back(r.tpot()->si() * kMs);
    for (const Duration& gap : r.itl) itl.push_back(gap.si() * kMs);
    e2e_intvty.push_back(static_cast<double>(r.output_tokens) / r.e2el().si());
    if (is_good(r, inputs)) {
      good += 1;
      good_output += r.output_tokens;
    }
  }
  m.duration_s = window;
  m.request_throughput = static_cast<double>(m.completed) / window;
  m.input_throughput = static_cast<double>(m.total_input_tokens) / window;
  m.output_throughput = static_cast<double>(m.total_output_tokens) / window;
  m.total_token_throughput = m.input_throughput + m.output_throughput;
  m.ttft_ms = summarize(std::move(ttft));
  m.tpot_ms = summarize(std::move(tpot));
  m.itl_ms = summarize(std::move(itl));
  m.e2el_ms = summarize(std::move(e2el));
  if (inputs.slo_ttft || inputs.slo_tpot || inputs.slo_e2el) {
    m.request_goodput = static_cast<double>(good) / window;
    m.output_goodput = static_cast<double>(good_output) / window;
  }

  const auto chips = static_cast<double>(system.total_chips());
  m.tput_per_chip = m.total_token_throughput / chips;
  m.output_tput_per_chip = m.output_throughput / static_cast<double>(system.decode_chips());
  m.input_tput_per_chip = m.input_throughput / static_cast<double>(system.prefill_chips());
  m.intvty = m.tpot_ms.median > 0.0 ? 1000.0 / m.tpot_ms.median : 0.0;
  m.median_e2e_intvty = percentile(e2e_intvty, 50.0);

  m.total_energy_j = stats.total_energy().si();
  m.avg_power_per_chip_w = m.total_energy_j / window / chips;
  m.joules_per_output_token = m.total_energy_j / static_cast<double>(m.total_output_tokens);
  if (inputs.tdp_per_chip) m.tput_per_kw_tdp = m.tput_per_chip * 1000.0 / inputs.tdp_per_chip->si();
  m.tput_per_kw_sim =
      m.avg_power_per_chip_w > 0.0 ? m.tput_per_chip * 1000.0 / m.avg_power_per_chip_w : 0.0;
  if (inputs.all_in_power_per_chip) {
    const double all_in_w = inputs.all_in_power_per_chip->si() * inputs.pue;
    m.tput_per_mw_all_in = m.tput_per_chip * 1000.0 / (all_in_w / 1000.0);
    m.joules_per_token_all_in = all_in_w / m.tput_per_chip;
  }
  if (inputs.system_power && inputs.tdp_per_chip && inputs.system_chips > 0) {
    // InferenceX: all-in provisioned power per chip, from the chips' TDP and the system's
    // rated infrastructure and PUE; the same with the simulated average chip power as drawn.
    const double provisioned =
        models::all_in_power(*inputs.system_power, inputs.system_chips, *inputs.tdp_per_chip)
            .per_chip.si();
    const double drawn = models::all_in_power(*inputs.system_power, inputs.system_chips,
                                              Power(m.avg_power_per_chip_w))
                             .per_chip.si();
    m.all_in_power_per_chip_w = provisioned;
    m.tput_per_mw_all_in =
        models::tokens_per_second_per_megawatt(m.tput_per_chip, Power(provisioned));
    m.joules_per_token_all_in =
        models::all_in_energy_per_token(m.tput_per_chip, Power(provisioned)).si();
    m.joules_per_token_all_in_sim =
        models::all_in_energy_per_token(m.tput_per_chip, Power(drawn)).si();
  }
  power_metrics(m, stats);
  if (inputs.price_per_chip_hour) {
    m.cost_per_mtok = *inputs.price_per_chip_hour / (3600.0 * m.tput_per_chip / 1e6);
  }
  int64_t hits = 0, prompts = 0;
  for (const PoolStats& p : stats.pools) {
    m.preemptions += p.preemptions;
    m.wasted_tokens += p.wasted_tokens;
    hits += p.prefix_hit_tokens;
    prompts += p.admitted_prompt_tokens;
  }
  m.prefix_cache_hit_rate =
      prompts > 0 ? static_cast<double>(hits) / static_cast<double>(prompts) : 0.0;
  return m;
}

std::vector<NamedMetric> ServingMetrics::named() const {
  // Units: tokens and requests are counts ("1"), so a throughput is "1/s"; the per-kW and per-MW
  // figures keep InferenceX's scale (tok/s per kW of TDP), declared as such.
  const auto count = [](int64_t n) { return static_cast<double>(n); };
  std::vector<NamedMetric> out = {
      {"completed", count(completed), "1"},
      {"duration", duration_s, "s"},
      {"total_input_tokens", count(total_input_tokens), "1"},
      {"total_output_tokens", count(total_output_tokens), "1"},
      {"request_throughput", request_throughput, "1/s"},
      {"input_throughput", input_throughput, "1/s"},
      {"output_throughput", output_throughput, "1/s"},
      {"total_token_throughput", total_token_throughput, "1/s"},
  };
  if (request_goodput) out.push_back({"request_goodput", *request_goodput, "1/s"});
  if (output_goodput) out.push_back({"output_goodput", *output_goodput, "1/s"});
  add_distribution(out, "ttft", ttft_ms);
  add_distribution(out, "tpot", tpot_ms);
  add_distribution(out, "itl", itl_ms);
  add_distribution(out, "e2el", e2el_ms);
  out.push_back({"tput_per_chip", tput_per_chip, "1/s"});
  out.push_back({"output_tput_per_chip", output_tput_per_chip, "1/s"});
  out.push_back({"input_tput_per_chip", input_tput_per_chip, "1/s"});
  out.push_back({"intvty", intvty, "1/s"});
  out.push_back({"median_e2e_intvty", median_e2e_intvty, "1/s"});
  out.push_back({"total_energy_j", total_energy_j, "J"});
  out.push_back({"avg_power_per_chip_w", avg_power_per_chip_w, "W"});
  out.push_back({"joules_per_output_token", joules_per_output_token, "J"});
  if (tput_per_kw_tdp) out.push_back({"tput_per_kw_tdp", *tput_per_kw_tdp, "1/(s*kW)"});
  out.push_back({"tput_per_kw_sim", tput_per_kw_sim, "1/(s*kW)"});
  if (tput_per_mw_all_in) out.push_back({"tput_per_mw_all_in", *tput_per_mw_all_in, "1/(s*MW)"});
  if (joules_per_token_all_in)
    out.push_back({"joules_per_token_all_in", *joules_per_token_all_in, "J"});
  if (cost_per_mtok) out.push_back({"cost_per_mtok", *cost_per_mtok, "USD/Mtok"});
  if (all_in_power_per_chip_w)
    out.push_back({"all_in_power_per_chip_w", *all_in_power_per_chip_w, "W"});
  if (joules_per_token_all_in_sim)
    out.push_back({"joules_per_token_all_in_sim", *joules_per_token_all_in_sim, "J"});
  out.push_back({"busy_energy_j", busy_energy_j, "J"});
  out.push_back({"idle_energy_j", idle_energy_j, "J"});
  out.push_back({"idle_share", idle_share, "1"});
  out.push_back({"busy_power_per_chip_w", busy_power_per_chip_w, "W"});
  out.push_back({"peak_power_per_chip_w", peak_power_per_chip_w, "W"});
  if (power_cap_w) out.push_back({"power_cap_w", *power_cap_w, "W"});
  out.push_back({"throttled_share", throttled_share, "1"});
  if (effective_clock_hz) out.push_back({"effective_clock_hz", *effective_clock_hz, "Hz"});
  out.push_back({"joules_per_accepted_token", joules_per_accepted_token, "J"});
  out.push_back({"rejected_draft_energy_j", rejected_draft_energy_j, "J"});
  out.push_back({"rejected_draft_positions", count(rejected_draft_positions), "1"});
  out.push_back({"preemptions", count(preemptions), "1"});
  out.push_back({"wasted_tokens", count(wasted_tokens), "1"});
  out.push_back({"prefix_cache_hit_rate", prefix_cache_hit_rate, "1"});
  return out;
}

}  // namespace scoville::serving
