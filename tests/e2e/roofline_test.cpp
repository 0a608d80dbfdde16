// End to end on the SystemC chips: simulated time against the roofline bound
// max(FLOPs / peak, bytes / HBM bandwidth) -- never below it, and within 1.3x of the sustainable
// roofline for a large GEMM-dominated prefill and for a weight-streaming decode step at batch 1.
// The sustainable roofline takes out the two losses the chip file states outright: the matrix
// engines' clock under load (matrix_engine.sustained_clock / clock) and HBM refresh (the
// channels stop for t_rfc of every t_refi); what remains within 1.3x is what the simulation adds
// (fills, drains, barriers, edge blocks, row misses, turnarounds, vector ops).
#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/engine/study_runner.hpp"
#include "tests/e2e/test_support.hpp"
#include "workloads/decompose.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;

namespace {

// Bytes an iteration must move through HBM at the least: weights, KV read, KV written.
Bytes required_hbm_bytes(const workloads::IterationTrace& trace) {
  return trace.total_weight_bytes() + trace.total_kv_read_bytes() + trace.total_kv_write_bytes();
}

struct Roofline {
  Duration bound;
  Duration compute;
  Duration memory;
  Duration sustainable;  // with the stated clock and refresh losses taken out
};

Roofline roofline(const workloads::IterationTrace& trace, const models::ChipParams& chip,
                  MathPrecision math) {
  const Duration compute = trace.total_flops() / chip.peak_flop_rate(math);
  const Duration memory = required_hbm_bytes(trace) / chip.hbm.peak_bandwidth();
  const double clock_loss = chip.tiles.clock / chip.tiles.matrix_clock();
  const double refresh_loss = 1.0 / (1.0 - chip.hbm.timing.t_rfc / chip.hbm.timing.t_refi);
  return Roofline{std::max(compute, memory), compute, memory,
                  std::max(compute * clock_loss, memory * refresh_loss)};
}

engine::StudyResult run(const std::string& chip, int64_t batch, int64_t isl) {
  study::StudyConfig s;
  s.name = "roofline";
  s.chips = {chip};
  s.model = "llama-3.1-8b";
  s.batch = batch;
  s.isl = isl;
  s.osl = 1;  // one decode step, at context isl + 1
  s.source = "<test>";
  // The detailed path: the channels must serve what the ops planned, to the byte.
  return engine::run_study(s, config::DataPaths{test::source_dir()}, std::nullopt,
                           engine::StudyFidelity::kDetailed);
}

void check_chip(const std::string& chip_name) {
  const config::DataPaths paths{test::source_dir()};
  const models::ChipParams chip = config::load_chip(chip_name, paths);
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve("llama-3.1-8b", "workloads/models"));
  constexpr int64_t kIsl = 4096;
  const engine::StudyResult result = run(chip_name, 1, kIsl);
  const stats::ChipResult& r = result.chips.at(0);
  REQUIRE(r.iterations.size() == 2);

  workloads::IterationShape prefill{workloads::Phase::kPrefill, 1, kIsl, kIsl};
  workloads::IterationShape decode{workloads::Phase::kDecode, 1, 1, kIsl + 1};
  const Roofline prefill_bound =
      roofline(workloads::decompose_iteration(model, prefill), chip, MathPrecision::kBf16);
  const Roofline decode_bound =
      roofline(workloads::decompose_iteration(model, decode), chip, MathPrecision::kBf16);
  // The shapes are what the test claims they are.
  REQUIRE(prefill_bound.compute > prefill_bound.memory * 10.0);
  REQUIRE(decode_bound.memory > decode_bound.compute * 10.0);

  const Duration prefill_time = r.iterations[0].time;
  const Duration decode_time = r.iterations[1].time;
  INFO(chip_name << ": prefill " << prefill_time.si() << " s vs roofline "
                 << prefill_bound.bound.si() << " s (sustainable " << prefill_bound.sustainable.si()
                 << " s); decode " << decode_time.si() << " s vs roofline "
                 << decode_bound.bound.si() << " s (sustainable " << decode_bound.sustainable.si()
                 << " s)");
  CHECK(prefill_time >= prefill_bound.sustainable);
  CHECK(prefill_time <= prefill_bound.sustainable * 1.3);
  CHECK(decode_time >= decode_bound.sustainable);
  CHECK(decode_time <= decode_bound.sustainable * 1.3);

  // What the SystemC channels served is exactly the traffic the ops planned.
  Bytes planned_hbm;
  for (const stats::OpResult& op : r.ops) planned_hbm += op.hbm_bytes;
  CHECK(r.hbm_bytes_served.si() == Approx(planned_hbm.si()).epsilon(1e-6));

  // Never below the bound, op by op: no op beats its own FLOPs at peak, nor (unless the chip
  // prefetches the next op's weights during the previous op) its own bytes at peak.
  for (const stats::OpResult& op : r.ops) {
    INFO(op.name << " layer " << op.layer);
    const Duration op_compute = op.flops / chip.peak_flop_rate(MathPrecision::kBf16);
    const Duration op_memory = op.hbm_bytes / chip.hbm.peak_bandwidth();
    if (op.kind != "vector") CHECK(op.duration >= op_compute);
    if (!chip.tiles.prefetch_next_op) CHECK(op.duration >= op_memory);
  }
}

}  // namespace

TEST_CASE("h200 prefill and decode stay within 1.3x of the roofline and never below it",
          "[e2e][roofline]") {
  check_chip("h200");
}

TEST_CASE("jalapeno prefill and decode stay within 1.3x of the roofline and never below it",
          "[e2e][roofline]") {
  check_chip("jalapeno");
}
