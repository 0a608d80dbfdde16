// Speed of the single-chip simulation (a benchmark, not a test): wall time and SystemC activity
// for one iteration of GPT-OSS 120B on one chip, elaborated and simulated exactly as a study does
// (decompose -> lower -> ChipModule). One case per process, since SystemC elaborates once:
//
//   scoville_chip_bench --chip h200 --phase decode     # batch 64, context 8192, one step
//   scoville_chip_bench --chip h200 --phase prefill    # batch 1, 8192-token prompt
//
// Prints wall time (elaboration and simulation separately), simulated time, ops, delta cycles
// and timed-event notifications processed (sc_delta_count and the kernel's timed steps), and
// their rates per wall second.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <systemc>

#include "models/chip/chip_module.hpp"
#include "models/chip/run_simulation.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/engine/lowering.hpp"
#include "workloads/decompose.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: scoville_chip_bench --chip NAME|FILE --phase decode|prefill "
               "[--model NAME|FILE] [--batch N] [--context N]\n");
  return 2;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  std::string chip_name;
  std::string phase;
  std::string model_name = "gpt-oss-120b";
  long long batch = -1;
  long long context = 8192;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--chip") {
      chip_name = value;
    } else if (flag == "--phase") {
      phase = value;
    } else if (flag == "--model") {
      model_name = value;
    } else if (flag == "--batch") {
      batch = std::stoll(value);
    } else if (flag == "--context") {
      context = std::stoll(value);
    } else {
      return usage();
    }
  }
  if (chip_name.empty() || (phase != "decode" && phase != "prefill") || argc % 2 == 0) {
    return usage();
  }
  const auto wall_start = std::chrono::steady_clock::now();
  const config::DataPaths paths = config::DataPaths::from_environment();
  const models::ChipParams chip = config::load_chip(chip_name, paths);
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve(model_name, "workloads/models"));
  workloads::IterationShape shape;
  if (phase == "decode") {
    shape = {workloads::Phase::kDecode, batch > 0 ? batch : 64, 1, context};
  } else {
    shape = {workloads::Phase::kPrefill, batch > 0 ? batch : 1, context, context};
  }
  const workloads::IterationTrace trace = workloads::decompose_iteration(model, shape);
  std::vector<models::WorkDescriptor> program;
  for (const workloads::Op& op : trace.ops) program.push_back(engine::lower(op, chip));
  models::ChipModule module("chip", chip);
  module.set_program(program);
  const auto sim_start = std::chrono::steady_clock::now();
  models::run_simulation();
  const auto wall_end = std::chrono::steady_clock::now();
  const double elaborate_s = std::chrono::duration<double>(sim_start - wall_start).count();
  const double simulate_s = std::chrono::duration<double>(wall_end - sim_start).count();
  const auto deltas = static_cast<double>(sc_core::sc_delta_count());
  const double simulated = sc_core::sc_time_stamp().to_seconds();
  std::printf(
      "chip %s, model %s, %s batch %lld context %lld: %zu ops\n"
      "  simulated time   %.6g s (finished: %s)\n"
      "  wall time        %.3f s (load + lower + elaborate %.3f s, simulate %.3f s)\n"
      "  delta cycles     %.0f (%.3g per wall second of simulation)\n"
      "  ops per second   %.3g\n",
      chip.name.c_str(), model.name().c_str(), phase.c_str(), static_cast<long long>(shape.batch),
      static_cast<long long>(shape.context), program.size(), simulated,
      module.finished() ? "yes" : "NO", elaborate_s + simulate_s, elaborate_s, simulate_s, deltas,
      deltas / simulate_s, static_cast<double>(program.size()) / simulate_s);
  return module.finished() ? 0 : 1;
}
