// RooflineCostModel::explain (sim/serving/iteration_explanation.hpp; `scoville step`): the parts
// of an iteration are the pricer's own (its cost is cost()'s, bit for bit), they add up to the
// iteration's time, and each names what bounds it: HBM, the math, a stack's kernel path, a
// collective, a software term.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/serving/iteration_explanation.hpp"
#include "sim/serving/roofline_cost_model.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::serving;

namespace {

config::DataPaths paths() { return config::DataPaths{SCOVILLE_SOURCE_DIR}; }

workloads::ModelConfig model(const std::string& name) {
  return workloads::load_model(paths().resolve(name, "workloads/models"));
}

workloads::PoolMapping pool(int64_t tp, int64_t pp = 1) {
  workloads::PoolMapping p;
  p.chips = tp * pp;
  p.degrees.tp = tp;
  p.degrees.pp = pp;
  return p;
}

IterationBatch decode_batch(int64_t sequences, int64_t context) {
  IterationBatch b;
  for (int64_t i = 0; i < sequences; ++i) {
    b.sequences.push_back({SequencePhase::kDecode, 1, context - 1, context});
  }
  return b;
}

IterationBatch prefill_batch(int64_t tokens) {
  IterationBatch b;
  b.sequences.push_back({SequencePhase::kPrefill, tokens, 0, tokens});
  return b;
}

// Stands for the simulated op table: every op takes 1 us, memory-bound.
class FixedOpCost : public OpCostModel {
 public:
  OpPrice price(const workloads::Op&) const override {
    OpPrice p;
    p.time = Duration(1e-6);
    p.memory_time = Duration(1e-6);
    return p;
  }
  std::string fidelity() const override { return "fixed"; }
};

SoftwareOverheads stack() {
  SoftwareOverheads sw;
  sw.per_op_launch = Duration(0.5e-6);
  sw.per_iteration = Duration(100e-6);
  sw.per_sequence = Duration(2e-6);
  sw.per_collective = Duration(3e-6);
  KernelPath marlin;
  marlin.name = "marlin-moe-mxfp4";
  marlin.weights = NumberFormat::kMxfp4;
  marlin.matrix_rate = FlopRate(254e12);
  sw.kernel_paths = {marlin};
  return sw;
}

const SoftwareTime& term(const IterationExplanation& why, const std::string& part) {
  const auto it = std::find_if(why.software.begin(), why.software.end(),
                               [&](const SoftwareTime& w) { return w.part == part; });
  REQUIRE(it != why.software.end());
  return *it;
}

}  // namespace

TEST_CASE("iteration explanation: its cost is the pricer's and its parts add up to it",
          "[explain]") {
  const workloads::ModelConfig m = model("gpt-oss-20b");
  const models::ChipParams chip = config::load_chip("h100", paths());
  for (const bool op_table : {false, true}) {
    INFO((op_table ? "op table" : "roofline"));
    RooflineOptions options;
    if (op_table) options.op_cost = std::make_shared<FixedOpCost>();
    const RooflineCostModel cost(m, chip, {pool(1)}, std::nullopt, stack(), options);
    for (const IterationBatch& batch : {decode_batch(64, 1500), prefill_batch(4096)}) {
      const IterationExplanation why = cost.explain(batch);
      CHECK(why.cost.time.si() == cost.cost(batch).time.si());
      CHECK(why.cost.energy.si() == cost.cost(batch).energy.si());
      CHECK(why.parts_total().si() == Approx(why.cost.time.si()).epsilon(1e-12));
      REQUIRE(!why.ops.empty());
      // Every layer is counted once: the ops named after the first attention stand for all.
      int64_t attention_layers = 0;
      for (const OpTime& op : why.ops) {
        if (op.name.rfind("attention#", 0) == 0) attention_layers += op.layers;
      }
      CHECK(attention_layers == m.layers());
      CHECK(why.collectives.empty());  // one chip
      CHECK(term(why, "per_iteration").count == 1);
      CHECK(term(why, "per_iteration").total().si() == Approx(100e-6));
      CHECK(term(why, "per_sequence").count == static_cast<int64_t>(batch.sequences.size()));
      CHECK(term(why, "per_op_launch").count > 0);
    }
  }
}

TEST_CASE("iteration explanation: each op names what bounds it", "[explain]") {
  const workloads::ModelConfig m = model("gpt-oss-20b");
  const RooflineCostModel cost(m, config::load_chip("h100", paths()), {pool(1)}, std::nullopt,
                               stack());
  const auto bound_of = [](const IterationExplanation& why, const std::string& prefix) {
    for (const OpTime& op : why.ops) {
      if (op.name.rfind(prefix, 0) == 0) return op.bound;
    }
    FAIL("no op " << prefix);
    return OpBound::kHbm;
  };
  // A 4,096-token prefill: the MXFP4 experts run at the kernel path's 254 TFLOP/s, slower than
  // the chip; the attention projections are matmuls at the chip's rate.
  const IterationExplanation prefill = cost.explain(prefill_batch(4096));
  CHECK(bound_of(prefill, "moe_experts_gate_up#") == OpBound::kKernelPath);
  CHECK(bound_of(prefill, "attn_qkv#") == OpBound::kCompute);
  // A decode step of 8 sequences streams weights: HBM-bound, the path's math is shorter.
  const IterationExplanation decode = cost.explain(decode_batch(8, 1024));
  CHECK(bound_of(decode, "moe_experts_gate_up#") == OpBound::kHbm);
  CHECK(bound_of(decode, "attn_qkv#") == OpBound::kHbm);
  CHECK(to_string(OpBound::kKernelPath) == "kernel path");
}

TEST_CASE("iteration explanation: tensor and pipeline parallel list collectives and stages",
          "[explain]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = config::load_chip("h200", paths());
  const models::Topology topo = config::build_network(config::load_system("gb200-nvl72", paths()));
  SoftwareOverheads sw;
  sw.per_collective = Duration(3e-6);
  const RooflineCostModel tp2(m, chip, {pool(2)}, topo, sw);
  const IterationBatch batch = decode_batch(16, 2048);
  const IterationExplanation why = tp2.explain(batch);
  CHECK(why.parts_total().si() == Approx(why.cost.time.si()).epsilon(1e-12));
  REQUIRE(!why.collectives.empty());
  int64_t calls = 0;
  for (const CollectiveTime& c : why.collectives) {
    CHECK(c.group == 2);
    CHECK(c.bytes.si() > 0);
    CHECK(c.per_layer.si() > 0);
    calls += c.kind == "all_reduce" ? c.layers : 0;
  }
  CHECK(calls >= 2 * m.layers());  // attention output and FFN, every layer
  CHECK(term(why, "per_collective").count >= calls);
  // Two pipeline stages: both appear, and the parts still add up.
  const RooflineCostModel pp2(m, chip, {pool(1, 2)}, topo, sw);
  const IterationExplanation staged = pp2.explain(batch);
  CHECK(staged.parts_total().si() == Approx(staged.cost.time.si()).epsilon(1e-12));
  CHECK(staged.ops.front().stage == 0);
  CHECK(staged.ops.back().stage == 1);
}
