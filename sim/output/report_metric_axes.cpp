#include "sim/output/report_metric_axes.hpp"

namespace scoville::output {

namespace {

struct KnownMetric {
  const char* column;
  const char* title;
  const char* rate_unit;  // what "1/s" counts per second for this column ("" when not a rate)
};

// Serving metrics (docs/serving.md) and run summaries (docs/results-format.md).
constexpr KnownMetric kKnown[] = {
    {"intvty", "interactivity", "tok/s/user"},
    {"tput_per_chip", "throughput per chip", "tok/s"},
    {"tput_per_kw_tdp", "throughput per kW of TDP", "tok/s/kW"},
    {"goodput_per_chip", "goodput per chip", "tok/s"},
    {"goodput_per_kw_tdp", "goodput per kW of TDP", "tok/s/kW"},
    {"output_throughput", "output throughput", "tok/s"},
    {"median_ttft_s", "median time to first token", ""},
    {"median_tpot_s", "median time per output token", ""},
    {"median_e2el_s", "median end-to-end latency", ""},
    {"request_time_s", "request time", ""},
    {"decode_tokens_per_s", "decode throughput", "tok/s"},
    {"prefill_tokens_per_s", "prefill throughput", "tok/s"},
    {"decode_tokens_per_s_per_chip", "decode throughput per chip", "tok/s"},
    {"energy_per_output_token_J", "energy per output token", ""},
    {"concurrency", "concurrency", ""},
};

}  // namespace

ChartAxis metric_axis(const std::string& column, const std::string& stored_unit) {
  std::string unit = stored_unit == "1" ? "count" : stored_unit;
  for (const KnownMetric& m : kKnown) {
    if (column != m.column) continue;
    if (stored_unit == "1/s" && *m.rate_unit) unit = m.rate_unit;
    // tok/s per kW of TDP (throughput, goodput) is stored as 1/(s*kW).
    if (stored_unit == "1/(s*kW)" && *m.rate_unit) unit = m.rate_unit;
    return {m.title, unit};
  }
  return {column, unit};
}

}  // namespace scoville::output
