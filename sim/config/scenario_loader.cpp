#include "sim/config/scenario_loader.hpp"

#include <filesystem>

#include "sim/base/yaml_reader.hpp"
#include "sim/config/mapping_loader.hpp"
#include "sim/serving/scheduling_policy.hpp"
#include "workloads/request_sampling.hpp"

namespace scoville::config {

namespace {

constexpr int64_t kMaxCount = int64_t{1} << 40;

ServingStudySpec load(const YAML::Node& root, const std::string& file) {
  Diagnostics diagnostics;
  MapReader top(root, file, "", diagnostics);
  MapReader s = top.map("scenario");
  ServingStudySpec spec;
  spec.file = file;
  spec.name = s.string_or("name", std::filesystem::path(file).stem().string());

  MapReader system = s.map("system");
  spec.chip = system.string("chip");
  spec.chips = system.integer_or("chips", 0, 0, kMaxCount);
  spec.network = system.string_or("network", "");
  spec.software = system.string_or("software", "");
  system.finish();

  spec.model = s.string("model");
  MapReader mapping = s.map("mapping");
  spec.mapping = parse_mapping(mapping);
  mapping.finish();

  if (auto r = s.optional_map("scheduler")) {
    serving::SchedulerConfig& c = spec.scheduler;
    c.max_num_seqs = r->integer_or("max_num_seqs", c.max_num_seqs, 1, kMaxCount);
    c.max_num_batched_tokens =
        r->integer_or("max_num_batched_tokens", c.max_num_batched_tokens, 1, kMaxCount);
    c.chunked_prefill = r->boolean_or("chunked_prefill", c.chunked_prefill);
    c.kv_block_tokens = r->integer_or("kv_block_tokens", c.kv_block_tokens, 1, kMaxCount);
    c.policy = r->choice_or("policy", c.policy, serving::batching_policy_names());
    c.prefix_caching = r->boolean_or("prefix_caching", c.prefix_caching);
    c.prefix_hit_rate = r->number_or("prefix_hit_rate", c.prefix_hit_rate, 0.0, 0.999);
    c.handoff = r->choice_or("handoff", c.handoff, serving::handoff_policy_names());
    r->finish();
  }
  if (auto r = s.optional_map("mtp")) {
    serving::MtpConfig& m = spec.scheduler.mtp;
    m.depth = r->integer("depth", 0, 64);
    m.acceptance = r->number("acceptance", 0.0, 1.0);
    m.mode = r->choice_or("mode", "expected", {"expected", "sampled"}) == "sampled"
                 ? serving::MtpConfig::Mode::kSampled
                 : serving::MtpConfig::Mode::kExpected;
    r->finish();
  }

  MapReader q = s.map("requests");
  workloads::RequestPattern& p = spec.requests;
  const std::string pattern = q.choice("pattern", {"closed_loop", "poisson", "gamma", "trace"});
  p.kind = pattern == "poisson" ? workloads::ArrivalKind::kPoisson
           : pattern == "gamma" ? workloads::ArrivalKind::kGamma
           : pattern == "trace" ? workloads::ArrivalKind::kTrace
                                : workloads::ArrivalKind::kClosedLoop;
  if (p.kind == workloads::ArrivalKind::kTrace) {
    std::string trace = q.string("trace");
    // A relative trace path is relative to the scenario file.
    if (!trace.empty() && std::filesystem::path(trace).is_relative()) {
      trace = (std::filesystem::path(file).parent_path() / trace).string();
    }
    p.trace_path = trace;
    // Public trace formats and the part of the trace to replay (public_trace_formats.hpp).
    const std::string format =
        q.choice_or("format", "auto", {"auto", "scoville", "azure", "burstgpt", "mooncake"});
    p.trace_format = *workloads::trace_format_from_name(format);
    workloads::TraceSelection& w = p.trace_selection;
    w.time_scale = q.number_or("time_scale", 1.0, 1e-9, 1e9);
    if (q.has_value("window_start")) {
      w.window_start_s = q.quantity<Duration>("window_start", Range::kNonNegative).si();
    }
    if (q.has_value("window_end")) {
      w.window_end_s = q.quantity<Duration>("window_end").si();
      if (*w.window_end_s <= w.window_start_s) {
        q.error("window_end", "expected a time after window_start");
      }
    }
  } else {
    p.lengths.input_tokens = q.integer("isl", 1, kMaxCount);
    p.lengths.output_tokens = q.integer("osl", 1, kMaxCount);
    p.lengths.range_ratio = q.number_or("range_ratio", 0.8, 1e-9, 1.0);
  }
  if (p.kind == workloads::ArrivalKind::kClosedLoop) {
    p.concurrency = q.integer("concurrency", 1, kMaxCount);
    p.num_prompts = q.integer_or("num_prompts", 0, 0, kMaxCount);
  } else {
    p.num_prompts = q.integer_or("num_prompts", 0, 0, kMaxCount);
    p.max_concurrency = q.integer_or("max_concurrency", 0, 0, kMaxCount);
    // A trace's num_prompts: its first N requests (in the window), as vLLM's --num-prompts.
    if (p.kind == workloads::ArrivalKind::kTrace) p.trace_selection.max_requests = p.num_prompts;
  }
  if (p.kind == workloads::ArrivalKind::kPoisson || p.kind == workloads::ArrivalKind::kGamma) {
    p.rate = q.number("rate", 1e-12, 1e12);
    if (p.num_prompts == 0) q.error("num_prompts", "expected a number of prompts for open loop");
  }
  if (p.kind == workloads::ArrivalKind::kGamma) p.burstiness = q.number("burstiness", 1e-6, 1e6);
  // choice_or has refused any other name.
  p.sampling = workloads::parse_request_sampling(
                   q.choice_or("sampling", "greedy", workloads::request_sampling_names()))
                   .value();
  q.finish();

  if (auto r = s.optional_map("slo")) {
    if (r->has_value("ttft")) spec.metrics.slo_ttft = r->quantity<Duration>("ttft");
    if (r->has_value("tpot")) spec.metrics.slo_tpot = r->quantity<Duration>("tpot");
    if (r->has_value("e2el")) spec.metrics.slo_e2el = r->quantity<Duration>("e2el");
    r->finish();
  }
  if (auto r = s.optional_map("power")) {
    if (r->has_value("tdp")) spec.metrics.tdp_per_chip = r->quantity<Power>("tdp");
    if (r->has_value("all_in")) spec.metrics.all_in_power_per_chip = r->quantity<Power>("all_in");
    spec.metrics.pue = r->number_or("pue", 1.0, 1.0, 10.0);
    if (r->has_value("cap")) {
      spec.power_cap_at = r->location_of_key("cap");
      spec.power_cap = r->quantity<Power>("cap", Range::kPositive);
    }
    r->finish();
  }
  if (s.has_value("price_per_chip_hour")) {
    spec.metrics.price_per_chip_hour = s.number("price_per_chip_hour", 0.0, 1e9);
  }
  spec.seed = static_cast<uint64_t>(s.integer_or("seed", 1, 0, kMaxCount));
  s.finish();
  top.finish();

  // Pools: one (co-located) or prefill + decode (disaggregated).
  const auto& pools = spec.mapping.pools;
  if (pools.size() == 2) {
    const bool pd = (pools[0].pool == "prefill" && pools[1].pool == "decode") ||
                    (pools[0].pool == "decode" && pools[1].pool == "prefill");
    if (!pd) {
      diagnostics.error(mapping.location(), "scenario.mapping",
                        "two pools must be named prefill and decode");
    }
  } else if (pools.size() > 2) {
    diagnostics.error(mapping.location(), "scenario.mapping",
                      "expected one pool, or a prefill and a decode pool");
  }
  diagnostics.throw_if_any();
  return spec;
}

}  // namespace

ServingStudySpec load_scenario(const std::string& path) { return load(load_yaml_file(path), path); }

ServingStudySpec load_scenario_string(const std::string& yaml, const std::string& display_name) {
  return load(load_yaml_string(yaml, display_name), display_name);
}

}  // namespace scoville::config
