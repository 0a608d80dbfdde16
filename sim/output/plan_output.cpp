#include "sim/output/plan_output.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace scoville::output {

namespace {

std::string pct(int percentile) { return "p" + std::to_string(percentile); }

std::string ms(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

}  // namespace

void print_plan_table(std::ostream& out, const engine::PlanQuery& query,
                      const engine::PlanResult& result, int64_t top) {
  const std::string ttft = "ttft_" + pct(query.ttft.percentile) + "_ms";
  const std::string tpot = "tpot_" + pct(query.tpot.percentile) + "_ms";
  for (size_t l = 0; l < query.loads.size(); ++l) {
    std::vector<const engine::PlanPoint*> ranked;
    int64_t tried = 0;
    for (const engine::PlanPoint& p : result.points) {
      if (p.load != l) continue;
      ++tried;
      if (p.rank > 0) ranked.push_back(&p);
    }
    std::sort(ranked.begin(), ranked.end(),
              [](const auto* a, const auto* b) { return a->rank < b->rank; });
    out << "\n## load " << query.loads[l].label << ": " << ranked.size() << " of " << tried
        << " configurations meet the limits";
    if (static_cast<int64_t>(ranked.size()) > top) out << "; the best " << top << " shown";
    out << "\n";
    if (ranked.empty()) continue;
    char line[256];
    std::snprintf(line, sizeof line, "%4s  %-28s %9s %5s %13s %13s %11s %10s %12s %8s %6s\n",
                  "rank", "mapping", "max_batch", "chips", ttft.c_str(), tpot.c_str(), "goodput",
                  "gp/chip", "gp/kW_tdp", "intvty", "pareto");
    out << line;
    for (const engine::PlanPoint* p : ranked) {
      if (p->rank > top) break;
      std::snprintf(line, sizeof line,
                    "%4lld  %-28s %9lld %5lld %13s %13s %11.5g %10.5g %12.5g %8.4g %6s\n",
                    static_cast<long long>(p->rank), p->point.mapping.c_str(),
                    static_cast<long long>(p->max_batch), static_cast<long long>(p->point.chips),
                    ms(p->ttft_ms).c_str(), ms(p->tpot_ms).c_str(), p->goodput, p->goodput_per_chip,
                    p->goodput_per_kw, p->point.result.metrics.intvty, p->pareto ? "*" : "");
      out << line;
    }
  }
  out << "\ngoodput: output tok/s of the requests within both limits (vLLM --goodput); gp/chip "
         "over every chip of the mapping; gp/kW_tdp per kW of chip TDP; intvty: 1000 / median "
         "TPOT (tok/s/user); pareto: on the frontier of goodput per chip and interactivity\n";
}

Table plan_table(const engine::PlanQuery& query, const engine::PlanResult& result) {
  Table t;
  t.path = "/plan";
  std::vector<std::string> load, mapping;
  std::vector<int64_t> concurrency, chips, prefill, decode, tp, ep, attn_dp, max_batch, meets, rank,
      pareto;
  std::vector<double> rate, ttft, tpot, goodput, per_chip, per_kw, tput, intvty, completed;
  for (const engine::PlanPoint& p : result.points) {
    const workloads::RequestPattern& r = query.loads[p.load].requests;
    load.push_back(query.loads[p.load].label);
    concurrency.push_back(r.kind == workloads::ArrivalKind::kClosedLoop ? r.concurrency : 0);
    rate.push_back(r.kind == workloads::ArrivalKind::kPoisson
                       ? r.rate
                       : std::numeric_limits<double>::quiet_NaN());
    mapping.push_back(p.point.mapping);
    chips.push_back(p.point.chips);
    prefill.push_back(p.prefill_chips);
    decode.push_back(p.decode_chips);
    tp.push_back(p.point.tp);
    ep.push_back(p.point.ep);
    attn_dp.push_back(p.point.attn_dp);
    max_batch.push_back(p.max_batch);
    ttft.push_back(p.ttft_ms / 1e3);
    tpot.push_back(p.tpot_ms / 1e3);
    goodput.push_back(p.goodput);
    per_chip.push_back(p.goodput_per_chip);
    per_kw.push_back(p.goodput_per_kw);
    tput.push_back(p.point.result.metrics.tput_per_chip);
    intvty.push_back(p.point.result.metrics.intvty);
    completed.push_back(static_cast<double>(p.point.result.metrics.completed));
    meets.push_back(p.meets ? 1 : 0);
    rank.push_back(p.rank);
    pareto.push_back(p.pareto ? 1 : 0);
  }
  const std::string ttft_name = "ttft_" + pct(query.ttft.percentile);
  const std::string tpot_name = "tpot_" + pct(query.tpot.percentile);
  t.columns = {{"rank", "1", rank},
               {"load", "1", load},
               {"concurrency", "1", concurrency},
               {"rate", "1/s", rate},
               {"mapping", "1", mapping},
               {"chips", "1", chips},
               {"prefill_chips", "1", prefill},
               {"decode_chips", "1", decode},
               {"tp", "1", tp},
               {"ep", "1", ep},
               {"attn_dp", "1", attn_dp},
               {"max_batch", "1", max_batch},
               {ttft_name, "s", ttft},
               {tpot_name, "s", tpot},
               {"goodput", "1/s", goodput},
               {"goodput_per_chip", "1/s", per_chip},
               {"goodput_per_kw_tdp", "1/(s*kW)", per_kw},
               {"tput_per_chip", "1/s", tput},
               {"intvty", "1/s", intvty},
               {"completed", "1", completed},
               {"meets", "1", meets},
               {"pareto", "1", pareto}};
  t.attributes = {{"ttft_limit_s", query.ttft.limit.si()},
                  {"ttft_percentile", int64_t{query.ttft.percentile}},
                  {"tpot_limit_s", query.tpot.limit.si()},
                  {"tpot_percentile", int64_t{query.tpot.percentile}}};
  return t;
}

std::string plan_miss_summary(const engine::PlanQuery& query, const engine::PlanResult& result) {
  const engine::PlanPoint* best_ttft = nullptr;
  const engine::PlanPoint* best_tpot = nullptr;
  for (const engine::PlanPoint& p : result.points) {
    if (p.meets) return std::string();
    if (p.point.result.metrics.completed == 0) continue;
    if (!best_ttft || p.ttft_ms < best_ttft->ttft_ms) best_ttft = &p;
    if (!best_tpot || p.tpot_ms < best_tpot->tpot_ms) best_tpot = &p;
  }
  char line[512];
  std::snprintf(line, sizeof line,
                "no configuration meets TTFT %s <= %s ms and TPOT %s <= %s ms (%zu points "
                "tried)",
                pct(query.ttft.percentile).c_str(), ms(query.ttft.limit.si() * 1e3).c_str(),
                pct(query.tpot.percentile).c_str(), ms(query.tpot.limit.si() * 1e3).c_str(),
                result.points.size());
  std::string text = line;
  if (best_ttft && best_tpot) {
    text += "; the lowest TTFT " + pct(query.ttft.percentile) + " reached is " +
            ms(best_ttft->ttft_ms) + " ms (" + best_ttft->point.mapping + ", max_batch " +
            std::to_string(best_ttft->max_batch) + ", load " + query.loads[best_ttft->load].label +
            "), the lowest TPOT " + pct(query.tpot.percentile) + " " + ms(best_tpot->tpot_ms) +
            " ms (" + best_tpot->point.mapping + ", max_batch " +
            std::to_string(best_tpot->max_batch) + ", load " + query.loads[best_tpot->load].label +
            "): relax the limits or lower the load";
  }
  return text;
}

}  // namespace scoville::output
