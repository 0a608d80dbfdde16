// Where the roofline spends a validated row's time (a diagnostic, never run by ctest): each
// measurement row is simulated as `scoville validate` does (its system's calibration overlay,
// unless PROBE_RAW is set) with a recorder around the cost model, which splits the simulated time
// into mixed (prefill + decode) and decode-only iterations with their mean batch, context and
// breakdown; then the roofline's time per op of the mean decode step is listed (ops above 2 % of
// it), and the collectives of that step. docs/calibration.md ("Mechanisms behind the residuals")
// uses it. usage: scoville_validation_probe CSV ID...
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "sim/config/data_paths.hpp"
#include "sim/engine/serving_engines.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/output/serving_points_output.hpp"
#include "sim/serving/serving_point.hpp"
#include "sim/validation/measurement_rows.hpp"
#include "workloads/mapping/map_iteration.hpp"

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
  for (int i = 2; i < argc; ++i) {
    for (const validation::RowPlan& plan : plans) {
      if (plan.id != argv[i] || !plan.skipped.empty()) continue;
      const engine::ServingHardware hw = engine::resolve_hardware(
          plan.chip, paths.resolve(plan.system_file, "arch/systems"), 8, "gpu-cuda-graphs", !raw);
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
      // Per-op of a representative decode iteration: the mean decode batch at its mean context.
      if (rec.decode.n > 0) {
        const int64_t nseq = static_cast<int64_t>(std::llround(rec.decode.dec / rec.decode.n));
        const int64_t ctx = static_cast<int64_t>(std::llround(rec.decode.ctx / rec.decode.n));
        const workloads::MappedIteration mi = workloads::map_iteration(
            m, workloads::IterationShape{workloads::Phase::kDecode, nseq, 1, ctx}, p);
        const models::ChipParams& chip = hw.chip;
        const double clk = chip.tiles.matrix_clock().si();
        const double bw = chip.hbm.peak_bandwidth().si() * hw.efficiency.bandwidth[0];
        std::map<std::string, std::array<double, 4>> agg;  // compute s, mem s, bound s, bytes
        double coll_b = 0;
        int ncoll = 0;
        std::map<std::string, int> calls;  // collective calls by name (layer prefix dropped)
        for (const auto& node : mi.roles.front().trace.nodes) {
          std::string name = node.name;
          if (node.kind != workloads::TraceNodeKind::kCompute) {
            coll_b += node.collective.bytes.si();
            ++ncoll;
            ++calls[name.substr(name.find('.') + 1)];
            continue;
          }
          const auto& op = node.op;
          double rate = chip.peak_vector_rate().si();
          if (op.kind == workloads::OpKind::kMatmul || op.kind == workloads::OpKind::kAttention) {
            const auto pr = chip.executed_precision(op.math);
            if (pr) rate = 2.0 * chip.tiles.matrix.macs_per_cycle(*pr) * chip.tiles.count * clk;
          }
          const double c = op.flops.si() / rate / hw.efficiency.compute[0];
          const double bytes = op.weight_bytes.si() + op.kv_read_bytes.si() +
                               op.kv_write_bytes.si() + op.activation_in_bytes.si() +
                               op.activation_out_bytes.si();
          auto& a = agg[name];
          a[0] += c;
          a[1] += bytes / bw;
          a[2] += std::max(c, bytes / bw);
          a[3] += bytes;
        }
        std::printf(
            "  decode op detail (batch %lld ctx %lld), ms per iteration: collectives %d, %.1f MB\n",
            (long long)nseq, (long long)ctx, ncoll, coll_b / 1e6);
        double tot = 0;
        for (const auto& [k, a] : agg) tot += a[2];
        for (const auto& [k, a] : agg)
          if (a[2] > 0.02 * tot)
            std::printf("    %-24s compute %7.3f mem %7.3f bound %7.3f (%4.1f%%) GB %.2f\n",
                        k.c_str(), 1e3 * a[0], 1e3 * a[1], 1e3 * a[2], 100 * a[2] / tot,
                        a[3] / 1e9);
        std::printf("    total bound %.3f ms\n", 1e3 * tot);
        std::printf("    collective calls:");
        for (const auto& [call, n] : calls) std::printf(" %s x%d", call.c_str(), n);
        std::printf("\n");
      }
    }
  }
}
