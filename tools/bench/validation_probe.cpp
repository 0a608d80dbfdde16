// Where the roofline spends a validated row's time (a diagnostic, never run by ctest): each
// measurement row is simulated as `scoville validate` does (its framework's stack, the op table
// unless PROBE_ROOFLINE is set, its system's and stack's calibration unless PROBE_RAW is set) with
// a recorder around the cost model, which splits the simulated time into mixed (prefill + decode)
// and decode-only iterations with their mean batch, context and breakdown; then the mean decode
// step is priced again with its parts kept (RooflineCostModel::explain, what `scoville step`
// prints): its ops above 2 % of it, the collectives and the software time. docs/calibration.md
// ("Mechanisms behind the residuals") uses it. usage: scoville_validation_probe CSV ID...
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/serving_engines.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/output/serving_points_output.hpp"
#include "sim/serving/roofline_cost_model.hpp"
#include "sim/serving/serving_point.hpp"
#include "sim/validation/framework_stacks.hpp"
#include "sim/validation/measurement_rows.hpp"
#include "sim/validation/validation_run.hpp"

using namespace scoville;

namespace {

struct Recorder : serving::IterationCostModel {
  const serving::IterationCostModel& inner;
  explicit Recorder(const serving::IterationCostModel& m) : inner(m) {}
  struct Agg {
    double n = 0, time = 0, pre_tok = 0, dec = 0, ctx = 0;
    std::map<std::string, double> parts;
  };
  mutable Agg mixed, decode;
  serving::IterationCost cost(const serving::IterationBatch& b) const override {
    serving::IterationCost c = inner.cost(b);
    Agg& a = b.prefill_tokens() > 0 ? mixed : decode;
    a.n += 1;
    a.time += c.time.si();
    a.pre_tok += static_cast<double>(b.prefill_tokens());
    a.dec += static_cast<double>(b.decode_sequences());
    double ctx = 0;
    int64_t nd = 0;
    for (const auto& s : b.sequences)
      if (s.phase == serving::SequencePhase::kDecode) ctx += s.context_after, ++nd;
    a.ctx += nd ? ctx / nd : 0;
    for (const auto& [k, v] : c.breakdown) a.parts[k] += v.si();
    return c;
  }
};

void print(const char* what, const Recorder::Agg& a, double total) {
  if (a.n == 0) return;
  std::printf(
      "  %-7s iters %6.0f  time %5.1f%%  mean %.2f ms  prefill tok %.0f  dec seqs %.1f ctx %.0f |",
      what, a.n, 100 * a.time / total, 1e3 * a.time / a.n, a.pre_tok / a.n, a.dec / a.n,
      a.ctx / a.n);
  for (const auto& [k, v] : a.parts) std::printf(" %s %.2f", k.c_str(), 1e3 * v / a.n);
  std::printf(" (ms/iter, unbounded sums)\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: scoville_validation_probe MEASUREMENTS.csv ID...\n");
    return 2;
  }
  const std::vector<validation::RowPlan> plans =
      validation::plan_rows(validation::read_measurements(argv[1]));
  const config::DataPaths paths = config::DataPaths::from_environment();
  const bool raw = std::getenv("PROBE_RAW") != nullptr;
  const std::vector<validation::FrameworkStackRule> rules =
      validation::shipped_framework_stacks(paths);
  // Every row's hardware first: the op table's chip models are elaborated before anything
  // simulates (SystemC elaborates once per process), as validate does.
  const engine::ServingFidelity level = std::getenv("PROBE_ROOFLINE") != nullptr
                                            ? engine::ServingFidelity::kRoofline
                                            : engine::ServingFidelity::kOpTable;
  std::vector<std::pair<const validation::RowPlan*, engine::ServingHardware>> rows;
  for (int i = 2; i < argc; ++i) {
    for (const validation::RowPlan& plan : plans) {
      if (plan.id != argv[i] || !plan.skipped.empty()) continue;
      // The row's stack as validate has it (its framework's, else its system's).
      const std::string file = paths.resolve(plan.system_file, "arch/systems");
      const std::string stack =
          validation::row_stack(config::kSystemSoftware, rules, plan.framework,
                                config::load_system(file, paths).software)
              .first;
      engine::ServingHardware hw = engine::resolve_hardware(plan.chip, file, 8, stack, !raw, level);
      if (level == engine::ServingFidelity::kOpTable) engine::use_op_table(hw, true);
      rows.emplace_back(&plan, std::move(hw));
    }
  }
  for (const auto& [row, hw] : rows) {
    const validation::RowPlan& plan = *row;
    if (plan.concurrency < 1) {
      // validate sweeps these (MLPerf rows without a published concurrency); the probe does not.
      std::printf("row %s: no concurrency (a swept row), not probed\n", plan.id.c_str());
      continue;
    }
    try {
      std::printf("row %s: stack %s, %s\n", plan.id.c_str(), engine::software_label(hw).c_str(),
                  engine::calibration_label(hw).c_str());
      const workloads::ModelConfig m = validation::row_model(plan, paths);
      const workloads::MappingConfig mapping =
          validation::row_mapping(plan, m, SourceLocation{"row", 0, 0});
      const workloads::PoolMapping& p = mapping.pools.back();  // the decode side's ops below
      engine::ServingEngine e = validation::make_row_engine(plan, hw, m);
      Recorder rec(*e.cost);
      serving::ServingScenario sc;
      sc.workload.kind = workloads::ArrivalKind::kClosedLoop;
      sc.workload.concurrency = plan.concurrency;
      sc.workload.num_prompts = 10 * plan.concurrency;
      sc.workload.lengths = {plan.isl, plan.osl, 0.8};
      sc.system = e.system;
      const serving::ServingMetrics met = serving::run_serving(sc, rec, 1).metrics;
      std::printf(
          "row %s %s %s %s isl %lld conc %lld chips %lld: tput %.0f (pub %.0f, %+.1f%%) intvty "
          "%.1f (pub %.1f) ttft %.0f ms\n",
          plan.id.c_str(), plan.system_file.c_str(), plan.model.c_str(),
          plan.precision_override.c_str(), (long long)plan.isl, (long long)plan.concurrency,
          (long long)plan.replica_chips, met.tput_per_chip, plan.published.value_or(0),
          validation::signed_error(met.tput_per_chip, plan.published.value_or(0)), met.intvty,
          plan.published_intvty.value_or(0), met.ttft_ms.median);
      const double total = rec.mixed.time + rec.decode.time;
      print("mixed", rec.mixed, total);
      print("decode", rec.decode, total);
      // Per-op of a representative decode iteration: the mean decode batch at its mean context,
      // as the pricer itself prices it (RooflineCostModel::explain: the parts add up to its time).
      const auto* pricer = dynamic_cast<const serving::RooflineCostModel*>(e.cost.get());
      if (rec.decode.n > 0 && pricer != nullptr) {
        const int64_t nseq = static_cast<int64_t>(std::llround(rec.decode.dec / rec.decode.n));
        const int64_t ctx = static_cast<int64_t>(std::llround(rec.decode.ctx / rec.decode.n));
        serving::IterationBatch batch;
        batch.pool = static_cast<int>(mapping.pools.size()) - 1;
        batch.chips = p.chips;
        batch.sequences.assign(
            static_cast<size_t>(std::max<int64_t>(1, nseq)),
            serving::SequenceWork{serving::SequencePhase::kDecode, 1, ctx - 1, ctx, 0});
        const serving::IterationExplanation why = pricer->explain(batch);
        const double tot = why.cost.time.si();
        std::printf("  decode step (batch %lld ctx %lld): %.3f ms; ops above 2 %% of it:\n",
                    (long long)nseq, (long long)ctx, 1e3 * tot);
        for (const serving::OpTime& op : why.ops) {
          if (op.total().si() > 0.02 * tot)
            std::printf("    %-28s x%-3lld %8.2f us each %8.3f ms (%4.1f%%) %s\n", op.name.c_str(),
                        (long long)op.layers, 1e6 * op.per_layer.si(), 1e3 * op.total().si(),
                        100 * op.total().si() / tot, serving::to_string(op.bound).c_str());
        }
        double by_bound[3] = {0, 0, 0};  // hbm, compute, kernel path
        for (const serving::OpTime& op : why.ops) {
          by_bound[static_cast<int>(op.bound)] += op.total().si();
        }
        std::printf("    ops by bound: hbm %.3f ms, compute %.3f ms, kernel path %.3f ms\n",
                    1e3 * by_bound[0], 1e3 * by_bound[1], 1e3 * by_bound[2]);
        double coll = 0;
        int64_t calls = 0;
        for (const serving::CollectiveTime& c : why.collectives) {
          coll += c.total().si();
          calls += c.layers;
        }
        double sw = 0;
        for (const serving::SoftwareTime& w : why.software) sw += w.total().si();
        std::printf("    collectives %lld calls %.3f ms; software %.3f ms\n", (long long)calls,
                    1e3 * coll, 1e3 * sw);
      }
    } catch (const ScovilleError& e) {
      std::printf("row %s: not probed: %s\n", plan.id.c_str(), e.what());
    }
  }
}
