#include "sim/engine/study_runner.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <sstream>
#include <unordered_map>

#include <systemc>

#include "models/chip/chip_module.hpp"
#include "models/chip/run_simulation.hpp"
#include "models/power/power_accounting.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/engine/decode_sampling.hpp"
#include "sim/engine/lowering.hpp"
#include "sim/engine/power_governor.hpp"
#include "sim/engine/simulated_op_cost.hpp"
#include "sim/serving/physical_limits.hpp"
#include "sim/stats/op_accounting.hpp"
#include "workloads/decompose.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/precision_override.hpp"

namespace scoville::engine {

namespace {

// Passes over an iteration over the cap before the one that counts, each from the controller
// state the one before left, until the energy owed at the iteration's end changes by less than
// kSettledShare of itself (or kMaxSettlingPasses). The debt a run of such iterations carries
// from one to the next grows each pass by what the ops over the cap at any clock add, less the
// share dt / tau of it the others pay back, so it settles geometrically: the B200 default
// study's decode (5.5 ms steps against a 10 ms constant) at a 500 W cap averaged 510.3 W from
// nothing owed.
constexpr int kMaxSettlingPasses = 64;
constexpr double kSettledShare = 1e-3;

struct PlannedIteration {
  workloads::IterationShape shape;
  double weight = 1.0;
  std::vector<workloads::Op> ops;
};

// The iterations one request shape needs: a prefill of the prompts, then sampled decode steps.
std::vector<PlannedIteration> plan_iterations(const workloads::ModelConfig& model,
                                              const study::StudyConfig& s) {
  std::vector<PlannedIteration> out;
  workloads::IterationShape prefill;
  prefill.phase = workloads::Phase::kPrefill;
  prefill.batch = s.batch;
  prefill.new_tokens = s.isl;
  prefill.context = s.isl;
  out.push_back({prefill, 1.0, workloads::decompose_iteration(model, prefill).ops});
  for (const DecodeSample& sample : decode_samples(s.isl, s.osl)) {
    workloads::IterationShape decode;
    decode.phase = workloads::Phase::kDecode;
    decode.batch = s.batch;
    decode.new_tokens = 1;
    decode.context = sample.context;
    out.push_back({decode, sample.weight, workloads::decompose_iteration(model, decode).ops});
  }
  return out;
}

void check_fits(const workloads::ModelConfig& model, const models::ChipParams& chip,
                const study::StudyConfig& s, const std::string& chip_file) {
  serving::check_single_chip_fit(model, chip, s.batch, s.isl + s.osl, chip_file);
  serving::check_context(model, s.isl, s.osl, SourceLocation{s.source, 0, 0}, "study.isl");
  if (s.power_cap) {
    serving::check_power_cap(*s.power_cap, chip, SourceLocation{s.source, 0, 0}, "study.power_cap");
  }
}

struct ChipJob {
  models::ChipParams params;
  const std::vector<PlannedIteration>* iterations = nullptr;  // the same for every chip
  std::vector<models::WorkDescriptor> program;
  std::unique_ptr<models::ChipModule> module;   // the detailed path
  std::unique_ptr<SimulatedOpCost> table;       // the op-table path
  std::vector<models::OpRecord> table_records;  // the op-table path's records
  Bytes table_hbm_bytes;                        // what its ops planned to move over HBM
  std::unique_ptr<PowerGovernor> governor;      // chips with power management only

  const std::vector<models::OpRecord>& records() const {
    return module ? module->records() : table_records;
  }
};

// The op-table path: the program's ops one after another, each priced by the table at the
// clock the governor chose before it (as ChipModule asks its governor), with records as the
// chip model writes them: the op's own tile plan, its time, its clock.
void run_on_table(ChipJob& job) {
  const models::TilingPolicy policy(job.params);
  std::unordered_map<std::string, std::pair<models::WorkBlock, double>> plans;  // layers repeat
  // The op's tile plan totals and critical tile's compute cycles, planned once per distinct op.
  const auto plan_of = [&](const models::WorkDescriptor& work) -> const auto& {
    std::string key = work_key(work);
    auto plan = plans.find(key);
    if (plan == plans.end()) {
      const models::TilePlan p = policy.plan(work);
      plan = plans.emplace(std::move(key), std::make_pair(p.totals(), p.max_tile_compute_cycles()))
                 .first;
    }
    return plan->second;
  };
  // The op's record had it run whole at a clock scale, from `start`.
  const auto record_at = [&](size_t index, double clock_scale, Duration start) {
    const models::WorkDescriptor& work = job.program[index];
    const auto& plan = plan_of(work);
    models::OpRecord record;
    record.start = start;
    record.end = start + job.table->price_work(work, clock_scale).time;
    record.planned = plan.first;
    record.max_tile_compute_cycles = plan.second;
    record.clock_scale = clock_scale;
    record.low_clock_scale = clock_scale;
    return record;
  };
  if (job.governor) {
    job.governor->set_pricer([&](size_t index, double clock_scale) {
      return record_at(index, clock_scale, Duration());
    });
  }
  Duration cursor;
  // Op `i` at the clock the governor chooses before it, appended to the records.
  const auto run_op = [&](size_t i) {
    models::OpControl control;
    if (job.governor) control = job.governor->before_op(i, job.table_records);
    models::OpRecord record = record_at(i, control.clock_scale, cursor);
    if (control.low_work_share > 0 && control.low_clock_scale < control.clock_scale) {
      // Sub-op control: the op's work split between its two clocks, each part at that clock's
      // price (the op table's entries at both grid clocks).
      const models::OpRecord low = record_at(i, control.low_clock_scale, cursor);
      const double x = control.low_work_share;
      record.low_clock_scale = control.low_clock_scale;
      record.low_work_share = x;
      record.low_clock_time = low.elapsed() * x;
      record.end = cursor + record.elapsed() * (1.0 - x) + record.low_clock_time;
    }
    cursor = record.end;
    job.table_hbm_bytes += record.planned.hbm_read + record.planned.hbm_write;
    job.table_records.push_back(record);
  };
  size_t next_iteration = 0;   // index in *job.iterations of the iteration starting next
  size_t iteration_start = 0;  // its first program op
  for (size_t i = 0; i < job.program.size(); ++i) {
    if (job.governor && i == iteration_start && next_iteration < job.iterations->size()) {
      // The iteration's ops at the nominal point, for the governor's starting state.
      const size_t count = (*job.iterations)[next_iteration].ops.size();
      std::vector<models::OpRecord> nominal;
      Duration at;
      for (size_t k = i; k < i + count && k < job.program.size(); ++k) {
        models::OpRecord r;
        r.start = at;
        r.end = at + job.table->price_work(job.program[k]).time;
        r.planned = plan_of(job.program[k]).first;
        at = r.end;
        nominal.push_back(r);
      }
      job.governor->begin_iteration(i, nominal);
      // Over the cap, the controller settles first: passes over the iteration whose records are
      // dropped, each starting from the state the one before left (docs/power.md, "Caps and
      // sampled iterations"). Under it nothing changes, bit for bit.
      if (job.governor->regulating()) {
        const size_t end = std::min(i + count, job.program.size());
        for (int pass = 0; pass < kMaxSettlingPasses; ++pass) {
          const Duration kept_cursor = cursor;
          const Bytes kept_hbm = job.table_hbm_bytes;
          const Energy owed_before = job.governor->debt();
          for (size_t k = i; k < end; ++k) run_op(k);
          job.governor->carry_over(i, end, job.table_records);
          job.table_records.resize(i);
          cursor = kept_cursor;
          job.table_hbm_bytes = kept_hbm;
          const Energy owed = job.governor->debt();
          if (std::fabs((owed - owed_before).si()) <= kSettledShare * std::fabs(owed.si())) break;
        }
      }
      iteration_start += count;
      ++next_iteration;
    }
    run_op(i);
  }
  if (job.governor) job.governor->set_pricer(nullptr);  // it priced through this frame
}

// Software time of one iteration: a launch per op, a barrier per layer, the host's share.
Duration software_time(const PlannedIteration& it, const config::SoftwareProfile& software) {
  std::set<int> layers;
  for (const workloads::Op& op : it.ops) {
    if (op.layer >= 0) layers.insert(op.layer);
  }
  return software.overhead(static_cast<int64_t>(it.ops.size()),
                           static_cast<int64_t>(layers.size()));
}

// Raises the per-component and total peaks to this op's average power.
void account_peaks(stats::PowerStats& power, const stats::OpResult& row) {
  if (row.duration.si() <= 0) return;
  const std::vector<Energy> energy = row.energy.by_component();
  if (power.peak_power.size() < energy.size()) power.peak_power.resize(energy.size());
  for (size_t c = 0; c < energy.size(); ++c) {
    power.peak_power[c] = std::max(power.peak_power[c], energy[c] / row.duration);
  }
  power.peak_total = std::max(power.peak_total, row.energy.total() / row.duration);
}

stats::ChipResult collect(const ChipJob& job, const workloads::ModelConfig& model,
                          const study::StudyConfig& s, const config::SoftwareProfile& software) {
  stats::ChipResult result;
  const models::ChipParams& chip = job.params;
  result.chip = chip.name;
  result.model = model.name();
  result.batch = s.batch;
  result.isl = s.isl;
  result.osl = s.osl;
  result.tdp = chip.power.tdp;
  result.power_managed = chip.power.management.present;
  result.power_cap = chip.power.management.cap;
  result.nominal_clock = chip.tiles.clock;
  result.idle_power = models::idle_power(chip.power.static_power, chip.power.management);
  result.weight_bytes = model.weight_bytes();
  result.kv_bytes = model.kv_bytes(s.isl + s.osl) * static_cast<double>(s.batch);
  result.hbm_capacity = chip.hbm.capacity;
  result.peak_hbm_bandwidth = chip.hbm.peak_bandwidth();
  const auto main_math = chip.executed_precision(math_precision_of(model.precision().weights));
  result.peak_flop_rate = chip.peak_flop_rate(main_math.value_or(MathPrecision::kBf16));

  const std::vector<models::OpRecord>& records = job.records();
  size_t op_index = 0;
  stats::PhaseResult prefill{"prefill", {}, s.batch * s.isl, 1, {}, {}, {}, {}, {}, {}};
  stats::PhaseResult decode{"decode", {}, s.batch * s.osl, s.osl, {}, {}, {}, {}, {}, {}};
  for (size_t it = 0; it < job.iterations->size(); ++it) {
    const PlannedIteration& planned = (*job.iterations)[it];
    stats::IterationResult iteration;
    iteration.phase = workloads::to_string(planned.shape.phase);
    iteration.batch = planned.shape.batch;
    iteration.new_tokens = planned.shape.new_tokens;
    iteration.context = planned.shape.context;
    iteration.weight = planned.weight;
    const Duration start = records[op_index].start;
    models::EnergyBreakdown transition_energy;  // wake-ups in this iteration, counted once
    std::vector<stats::OpPowerSample> samples;  // for the power timeline
    for (const workloads::Op& op : planned.ops) {
      const models::OpRecord& record = records[op_index];
      const models::WorkDescriptor& work = job.program[op_index];
      ++op_index;
      stats::OpResult row = stats::account_op(record, work, chip, static_cast<int>(it), op.layer,
                                              workloads::to_string(op.kind), start);
      Frequency clock = chip.tiles.clock;
      if (job.governor) {
        const OpPowerState& state = job.governor->states()[op_index - 1];
        row.energy = job.governor->adjust(row, state, record);
        clock = state.frequency;
        if (state.stall.si() > 0) {
          // A phase change happens once, however many real iterations this one stands for.
          iteration.power.stall_time += state.stall;
          transition_energy += job.governor->stall_energy(state);
        }
        const Duration low_time = record.low_clock_time;
        if (clock < chip.tiles.clock) {
          iteration.power.throttled_time += row.duration;
        } else if (low_time.si() > 0) {
          iteration.power.throttled_time += low_time;  // a blend from the nominal clock down
        }
        iteration.power.frequency_seconds +=
            clock.si() * (row.duration - low_time).si() +
            (chip.tiles.clock * record.low_clock_scale).si() * low_time.si();
      } else {
        iteration.power.frequency_seconds += clock.si() * row.duration.si();
      }
      if (job.governor) {
        samples.push_back(stats::OpPowerSample{row.start, row.duration, row.energy.total(), clock,
                                               chip.tiles.clock * record.low_clock_scale,
                                               record.low_clock_time});
      }
      account_peaks(iteration.power, row);
      iteration.counts += row.counts;
      iteration.energy += row.energy;
      iteration.flops += row.flops;
      iteration.hbm_bytes += row.hbm_bytes;
      iteration.time += row.duration;
      iteration.time_by_bound[row.bound] += row.duration;
      result.ops.push_back(std::move(row));
    }
    if (job.governor) {
      const Duration window = chip.power.management.time_constant;
      const int index = static_cast<int>(it);
      for (stats::PowerWindow& w : stats::power_windows(samples, window, index, iteration.phase)) {
        result.power_windows.push_back(std::move(w));
      }
      for (stats::ClockSegment& c : stats::clock_segments(samples, index, iteration.phase)) {
        result.clock_segments.push_back(std::move(c));
      }
      result.power_window = window;
    }
    iteration.software_time = software_time(planned, software);
    stats::PhaseResult& phase =
        planned.shape.phase == workloads::Phase::kPrefill ? prefill : decode;
    phase.time += iteration.time * iteration.weight + iteration.power.stall_time;
    phase.energy += transition_energy;
    phase.software_time += iteration.software_time * iteration.weight;
    phase.flops += iteration.flops * iteration.weight;
    phase.hbm_bytes += iteration.hbm_bytes * iteration.weight;
    phase.energy += iteration.energy.scaled(iteration.weight);
    phase.power.add(iteration.power, iteration.weight);
    phase.power.stall_time -= iteration.power.stall_time * (iteration.weight - 1.0);
    for (const auto& [bound, t] : iteration.time_by_bound)
      phase.time_by_bound[bound] += t * iteration.weight;
    result.iterations.push_back(std::move(iteration));
  }
  result.phases = {prefill, decode};
  // The chip model's channels serve exactly the bytes the ops planned (tests/e2e/roofline_test).
  result.hbm_bytes_served = job.module ? job.module->hbm_bytes_served() : job.table_hbm_bytes;
  return result;
}

}  // namespace

std::string to_string(StudyFidelity fidelity) {
  return fidelity == StudyFidelity::kOpTable ? "op-table" : "detailed";
}

StudyResult run_study(const study::StudyConfig& s, const config::DataPaths& paths,
                      const std::optional<models::ActivityWindow>& activity, StudyFidelity fidelity,
                      const std::optional<std::string>& op_cache_dir,
                      const DetailedProgress& progress) {
  StudyResult out;
  out.study = s;
  // Timelines show what the chip's units did: only the detailed path has them.
  if (activity) fidelity = StudyFidelity::kDetailed;
  out.fidelity = fidelity;
  const std::string model_path = paths.resolve(s.model, "workloads/models");
  config::require_known(s.model, model_path, "workloads/models", paths, "model");
  const workloads::ModelConfig model =
      workloads::apply_precision_override(workloads::load_model(model_path), s.precision);
  out.input_files.push_back(model_path);
  auto note_input = [&out](const std::string& path) {
    if (std::find(out.input_files.begin(), out.input_files.end(), path) == out.input_files.end()) {
      out.input_files.push_back(path);
    }
  };

  config::SoftwareProfile software;  // none unless the study names one: zero overheads
  if (!s.software.empty() && s.software != config::kNoSoftware) {
    software = config::load_software(s.software, paths);
    note_input(paths.resolve(s.software, "arch/software"));
  }

  const std::vector<PlannedIteration> iterations = plan_iterations(model, s);
  std::vector<ChipJob> jobs;
  for (const std::string& name : s.chips) {
    ChipJob job;
    job.params = config::load_chip(name, paths);
    const std::string chip_path = paths.resolve(name, "arch/chips");
    if (s.power_cap) {
      if (!job.params.power.management.present) {
        throw InputError(SourceLocation{s.source, 0, 0}, "study.power_cap",
                         "chip '" + job.params.name + "' (" + chip_path +
                             ") has no power_management section: a power cap needs its DVFS "
                             "operating points (docs/power.md)");
      }
      job.params.power.management.cap = *s.power_cap;
    }
    note_input(chip_path);
    note_input(paths.resolve(job.params.energy.name, "arch/energy"));
    check_fits(model, job.params, s, chip_path);
    job.iterations = &iterations;
    for (const PlannedIteration& it : iterations) {
      for (const workloads::Op& op : it.ops) job.program.push_back(lower(op, job.params));
    }
    jobs.push_back(std::move(job));
  }

  // Elaborate every chip in one design (a chip model per chip, or an op table's), then simulate
  // until all programs have finished.
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (fidelity == StudyFidelity::kOpTable) {
      SimulatedOpCostOptions options;
      options.cache_dir = op_cache_dir;
      jobs[i].table = std::make_unique<SimulatedOpCost>(jobs[i].params, options);
    } else {
      const std::string module_name = "chip" + std::to_string(i);
      jobs[i].module = std::make_unique<models::ChipModule>(module_name.c_str(), jobs[i].params);
      jobs[i].module->set_program(jobs[i].program);
      if (activity) jobs[i].module->record_activity(*activity);
      if (progress) {
        const auto total = static_cast<int64_t>(jobs[i].program.size());
        progress(i, 0, total);
        jobs[i].module->set_op_done_listener(
            [&progress, i, total](size_t done) { progress(i, static_cast<int64_t>(done), total); });
      }
    }
    if (jobs[i].params.power.management.present) {
      std::vector<std::string> op_phases;
      for (const PlannedIteration& it : iterations) {
        op_phases.insert(op_phases.end(), it.ops.size(), workloads::to_string(it.shape.phase));
      }
      jobs[i].governor =
          std::make_unique<PowerGovernor>(jobs[i].params, jobs[i].program, std::move(op_phases));
      PowerGovernor* governor = jobs[i].governor.get();
      if (jobs[i].module) {
        jobs[i].module->set_governor(
            [governor](size_t index, const std::vector<models::OpRecord>& done) {
              return governor->before_op(index, done);
            });
      }
    }
  }
  if (fidelity == StudyFidelity::kOpTable) {
    for (ChipJob& job : jobs) run_on_table(job);
  } else {
    models::run_simulation();
  }
  for (const ChipJob& job : jobs) {
    if (job.module && !job.module->finished()) {
      throw ScovilleError("simulation of chip '" + job.params.name +
                          "' stopped before its program finished");
    }
    out.chips.push_back(collect(job, model, s, software));
    if (activity) out.activity.push_back(job.module->activity());
  }
  return out;
}

}  // namespace scoville::engine
