// The SystemC iteration cost model: its cache's bucketing error against uncached runs, and the
// serving interface (mixed batches, tiny batches).
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/base/rng.hpp"
#include "sim/base/yaml_reader.hpp"
#include "sim/engine/system_cost_model.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::engine;

namespace {

SystemSetup setup(const std::string& system, const std::string& model_name, int64_t tp) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  const config::SystemConfig sys = config::load_system(system, paths);
  workloads::PoolMapping m;
  m.chips = tp;
  m.degrees.tp = tp;
  m.where = SourceLocation{"test", 0, 0};
  const workloads::ModelConfig model = workloads::load_model(
      std::string(SCOVILLE_SOURCE_DIR) + "/workloads/models/" + model_name + ".yaml");
  return make_setup(sys, model, m, paths);
}

serving::SequenceWork decode_seq(int64_t context_before) {
  return {serving::SequencePhase::kDecode, 1, context_before, context_before + 1};
}

}  // namespace

TEST_CASE("the grid brackets every context and is exact below its start", "[cost_model]") {
  SystemCostModel model(setup("h200-hgx8", "llama-3.1-8b", 8));
  CHECK(model.bracket(200) == std::make_pair<int64_t, int64_t>(200, 200));
  for (int64_t c : {257, 300, 1000, 1024, 4097, 9000, 100000}) {
    const auto [lo, hi] = model.bracket(c);
    INFO(c);
    CHECK(lo <= c);
    CHECK(hi >= c);
    // Neighbouring points are at most one grid step (2^(1/8)) apart.
    CHECK(static_cast<double>(hi) <= static_cast<double>(lo) * std::exp2(1.0 / 8) + 1);
  }
}

TEST_CASE("cached decode iterations stay within 1 percent of uncached runs", "[cost_model]") {
  // Both engines elaborated first (one SystemC design per process).
  SystemCostModel cached(setup("h200-hgx8", "llama-3.1-8b", 8));
  SystemCostModel uncached(setup("h200-hgx8", "llama-3.1-8b", 8), {false, 0, 0});
  RngStream rng(1, "bucketing-test");
  double worst = 0;
  for (int i = 0; i < 4; ++i) {
    const int64_t context = rng.uniform_int(300, 7300);
    const workloads::IterationShape shape{workloads::Phase::kDecode, 16, 1, context};
    const SystemIterationResult a = cached.run(shape);
    const SystemIterationResult b = uncached.run(shape);
    const double error = std::abs(a.time.si() - b.time.si()) / b.time.si();
    worst = std::max(worst, error);
    CHECK(error < 0.01);
    CHECK(std::abs(a.energy.si() - b.energy.si()) / b.energy.si() < 0.01);
  }
  WARN("worst bucketing error on time: " << worst);
  CHECK(uncached.cache_hits() == 0);
}

TEST_CASE("a repeated batch is a cache hit and a mixed batch costs both phases", "[cost_model]") {
  SystemCostModel model(setup("h200-hgx8", "llama-3.1-8b", 8));
  serving::IterationBatch decode;
  decode.chips = 8;
  for (int i = 0; i < 4; ++i) decode.sequences.push_back(decode_seq(200 + i));
  const serving::IterationCost first = model.cost(decode);
  const int64_t runs = model.engine_runs();
  const serving::IterationCost again = model.cost(decode);
  CHECK(model.engine_runs() == runs);
  CHECK(model.cache_hits() >= 1);
  CHECK(again.time.si() == first.time.si());

  serving::IterationBatch mixed = decode;
  mixed.sequences.push_back({serving::SequencePhase::kPrefill, 128, 0, 128});
  const serving::IterationCost both = model.cost(mixed);
  CHECK(both.time > first.time);
  double parts = 0;
  for (const auto& [name, t] : both.breakdown) parts += name == "software" ? 0 : t.si();
  CHECK(parts > 0);
  CHECK(parts <= both.time.si() * (1 + 1e-9));
}
