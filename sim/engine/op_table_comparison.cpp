#include "sim/engine/op_table_comparison.hpp"

#include <algorithm>
#include <ctime>

#include "sim/config/system_loader.hpp"
#include "sim/engine/lowering.hpp"
#include "sim/engine/simulated_op_cost.hpp"
#include "sim/engine/system_engine.hpp"
#include "sim/serving/efficiency_knobs.hpp"
#include "sim/serving/roofline_cost_model.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/model_loader.hpp"

namespace scoville::engine {

namespace {

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

Energy chip_energy(const models::EnergyBreakdown& e) {
  return e.matrix + e.vector + e.tile_sram + e.shared_sram + e.noc + e.hbm;
}

Duration part(const serving::IterationCost& cost, const std::string& name) {
  for (const auto& [n, d] : cost.breakdown) {
    if (n == name) return d;
  }
  return Duration();
}

}  // namespace

std::vector<ComparisonCase> floor_cases() {
  return {
      {"llama-3.1-8b, h200 (default study)", "h200-hgx8", "llama-3.1-8b", 1, 1, 8192, 16, 8704},
      {"llama-3.1-8b, jalapeno (default study)", "jalapeno-128", "llama-3.1-8b", 1, 1, 8192, 16,
       8704},
      {"gpt-oss-120b, h200-hgx8, tp1", "h200-hgx8", "gpt-oss-120b", 1, 1, 8192, 64, 8704},
      {"gpt-oss-120b, h200-hgx8, tp8", "h200-hgx8", "gpt-oss-120b", 8, 1, 8192, 64, 8704},
      {"deepseek-r1, gb200-nvl72, tp8 ep8", "gb200-nvl72", "deepseek-r1", 8, 8, 8192, 64, 8704},
  };
}

std::vector<ComparisonCase> quick_cases() {
  return {
      // Sizes between bucket edges, so that the table prices them through neighbours.
      {"llama-3.1-8b, h200, short", "h200-hgx8", "llama-3.1-8b", 1, 1, 1000, 9, 2000},
      {"gpt-oss-120b, h200-hgx8, tp8, short", "h200-hgx8", "gpt-oss-120b", 8, 1, 1000, 13, 1900},
  };
}

struct OpTableComparison::Impl {
  ComparisonCase c;
  workloads::PoolMapping mapping;
  std::unique_ptr<SystemEngine> reference;
  std::shared_ptr<SimulatedOpCost> table;
  std::unique_ptr<serving::RooflineCostModel> pricer;
};

OpTableComparison::OpTableComparison(ComparisonCase c, const config::DataPaths& paths)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.c = std::move(c);
  const config::SystemConfig system = config::load_system(m.c.system, paths);
  const workloads::ModelConfig model =
      workloads::load_model(paths.resolve(m.c.model, "workloads/models"));
  m.mapping.chips = m.c.tp;
  m.mapping.degrees.tp = m.c.tp;
  m.mapping.degrees.ep = m.c.ep;
  m.mapping.where = SourceLocation{"<comparison>", 0, 0};
  SystemSetup setup = make_setup(system, model, m.mapping, paths);
  setup.software = config::SoftwareProfile{};  // hardware time on both sides
  SimulatedOpCostOptions table_options;
  table_options.cache_dir.reset();
  m.table = std::make_shared<SimulatedOpCost>(setup.chip, table_options);
  serving::RooflineOptions options;
  options.cache = false;  // no bucketing of contexts by the pricer: the reference has none
  options.op_cost = m.table;
  m.pricer = std::make_unique<serving::RooflineCostModel>(
      model, setup.chip, std::vector<workloads::PoolMapping>{m.mapping},
      config::build_network(system), serving::SoftwareOverheads{}, options);
  m.reference = std::make_unique<SystemEngine>(std::move(setup));
}

OpTableComparison::~OpTableComparison() = default;

namespace {

struct Iteration {
  std::string phase;
  workloads::IterationShape shape;
};

std::vector<Iteration> iterations(const ComparisonCase& c) {
  std::vector<Iteration> out;
  if (c.prefill_tokens > 0) {
    out.push_back({"prefill", {workloads::Phase::kPrefill, 1, c.prefill_tokens, c.prefill_tokens}});
  }
  if (c.decode_batch > 0) {
    out.push_back({"decode", {workloads::Phase::kDecode, c.decode_batch, 1, c.decode_context}});
  }
  return out;
}

}  // namespace

std::vector<ComparisonRow> OpTableComparison::run() {
  Impl& m = *impl_;
  std::vector<ComparisonRow> rows;
  for (const Iteration& it : iterations(m.c)) {
    ComparisonRow row;
    row.label = m.c.label;
    row.phase = it.phase;
    double start = cpu_seconds();
    const SystemIterationResult r = m.reference->run(it.shape);
    row.reference_cpu_s = cpu_seconds() - start;
    row.reference_ops = r.compute_time + r.hbm_time;
    row.reference_time = r.hardware_time;
    row.reference_energy = r.compute_energy + r.hbm_energy;

    serving::IterationBatch batch;
    batch.chips = m.mapping.chips;
    for (int64_t i = 0; i < it.shape.batch; ++i) {
      serving::SequenceWork s;
      s.phase = it.shape.phase == workloads::Phase::kPrefill ? serving::SequencePhase::kPrefill
                                                             : serving::SequencePhase::kDecode;
      s.new_tokens = it.shape.new_tokens;
      s.context_after = it.shape.context;
      s.context_before = it.shape.context - it.shape.new_tokens;
      batch.sequences.push_back(s);
    }
    start = cpu_seconds();
    const serving::IterationCost cost = m.pricer->cost(batch);
    row.table_cpu_s = cpu_seconds() - start;
    row.table_ops = part(cost, "compute") + part(cost, "hbm");
    row.table_time = cost.time;
    row.table_energy = chip_energy(cost.power->energy);
    rows.push_back(row);
  }
  return rows;
}

std::vector<std::pair<std::string, std::vector<ClassTimes>>> OpTableComparison::by_class() {
  Impl& m = *impl_;
  const models::ChipParams& chip = m.table->chip();
  std::vector<std::pair<std::string, std::vector<ClassTimes>>> out;
  for (const Iteration& it : iterations(m.c)) {
    const workloads::MappedIteration mapped =
        workloads::map_iteration(m.reference->setup().model, it.shape, m.mapping);
    std::vector<ClassTimes> classes(serving::kOpClassCount);
    for (int c = 0; c < serving::kOpClassCount; ++c) {
      classes[static_cast<size_t>(c)].op_class =
          serving::to_string(static_cast<serving::OpClass>(c));
    }
    for (const workloads::TraceNode& node : mapped.roles.front().trace.nodes) {
      if (node.kind != workloads::TraceNodeKind::kCompute || node.op.instances == 0) continue;
      ClassTimes& t = classes[static_cast<size_t>(serving::op_class(node.op.kind))];
      const models::WorkDescriptor w = lower(node.op, chip);
      const double rate = w.work_class == models::WorkClass::kVector
                              ? chip.peak_vector_rate().si()
                              : chip.peak_flop_rate(w.math).si();
      const double compute = rate > 0 ? w.flops.si() / rate : 0.0;
      // The serving roofline's bytes: weights, KV and activations, all at HBM bandwidth.
      const double memory = (w.stream_bytes.si() + w.hbm_write_bytes.si() +
                             w.activation_in_bytes.si() + w.activation_out_bytes.si()) /
                            chip.hbm.peak_bandwidth().si();
      t.roofline += Duration(std::max(compute, memory));
      t.table += m.table->price(node.op).time;
      ++t.ops;
    }
    out.emplace_back(it.phase, classes);
  }
  return out;
}

}  // namespace scoville::engine
