#include "sim/engine/system_engine.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <systemc>

#include "models/chip/run_simulation.hpp"
#include "models/network/topology_builders.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/engine/lowering.hpp"
#include "sim/engine/segment_sync.hpp"
#include "sim/engine/simulated_op_cost.hpp"
#include "sim/stats/op_accounting.hpp"
#include "workloads/mapping/map_iteration.hpp"

namespace scoville::engine {

namespace {

// Roles per pipeline stage: replicas' batches differ by at most one sequence, and so do the
// attention groups' inside a replica, so a stage has at most 2 x 2 roles.
constexpr int64_t kMaxRolesPerStage = 4;

// One simulated chip's routed-expert op (drawn routing), accounted apart so that the
// representative's can be scaled to its role's ranks by their own load.
struct ExpertRun {
  models::EnergyBreakdown energy;
  Bytes hbm_bytes;
  Flops flops;
};

// A vector op the stack fuses into its neighbours' kernels (SoftwareProfile::fused_vector_ops):
// not simulated as an op of its own; its planned work (energy, bytes, FLOPs) counts, and it takes
// the time its busiest resource needs (vector math at the chip's vector rate or its HBM bytes at
// peak bandwidth), without an op's fixed latency, as the serving pricer has it.
struct FusedOp {
  ExpertRun work;
  Duration busy;
  stats::Bound bound = stats::Bound::kCompute;
};

// What one simulated chip did in the iteration.
struct ChipRun {
  std::vector<Duration> op_time;  // per compute node, in trace order (0: no work)
  std::vector<stats::Bound> op_bound;
  std::vector<int> op_layer;
  // Over the compute nodes other than the routed-expert ones of `experts`.
  models::EnergyBreakdown energy;
  Flops flops;
  Bytes hbm_bytes;
  std::vector<ExpertRun> experts;  // per ChipRole::rank_experts entry
};

// The program of one simulated chip: its role's compute nodes lowered, with its own routed
// experts under a drawn routing; a node with no work (a rank none of whose experts got a token)
// is not simulated and takes no time.
struct ChipProgram {
  size_t role = 0;
  size_t module = 0;
  std::vector<models::WorkDescriptor> ops;
  std::vector<int64_t> op_of_node;  // per compute node: index into ops, or -1 (no work)
  std::map<size_t, FusedOp> fused;  // compute nodes (op_of_node -1) fused into neighbours
};

// A role's program with repeated ops simulated once: `ops` are the distinct ones in order of
// first appearance, `index` maps every op of the program to its distinct op.
struct DedupedProgram {
  std::vector<models::WorkDescriptor> ops;
  std::vector<size_t> index;
};

std::string op_key(const models::WorkDescriptor& w) { return work_key(w); }

// An op's time depends on its neighbours too: a tile may prefetch the next op's operands while
// the current one runs (prefetch_next_op), and the previous op's prefetch ran into this one. So
// an op is reused only when it, its predecessor and its successor all match an op simulated
// before; a kept op is simulated between copies of its real neighbours (helpers whose own
// records are not used).
DedupedProgram dedupe(const std::vector<models::WorkDescriptor>& program, bool enabled) {
  DedupedProgram d;
  if (!enabled) {
    d.ops = program;
    for (size_t i = 0; i < program.size(); ++i) d.index.push_back(i);
    return d;
  }
  std::vector<std::string> keys;
  for (const models::WorkDescriptor& w : program) keys.push_back(op_key(w));
  std::map<std::string, size_t> seen;  // (prev, op, next) -> distinct index
  int64_t last = -1;
  for (size_t i = 0; i < program.size(); ++i) {
    const std::string prev = i > 0 ? keys[i - 1] : std::string("^");
    const std::string next = i + 1 < program.size() ? keys[i + 1] : std::string("$");
    const std::string triple = prev + '|' + keys[i] + '|' + next;
    const auto it = seen.find(triple);
    if (it != seen.end()) {
      d.index.push_back(it->second);
      continue;
    }
    if (i > 0 && last != static_cast<int64_t>(i) - 1) d.ops.push_back(program[i - 1]);  // helper
    seen.emplace(triple, d.ops.size());
    d.index.push_back(d.ops.size());
    d.ops.push_back(program[i]);
    last = static_cast<int64_t>(i);
    // The successor follows unless it is kept itself (then it is pushed next anyway).
    if (i + 1 < program.size()) {
      const std::string next_next = i + 2 < program.size() ? keys[i + 2] : std::string("$");
      if (seen.count(keys[i] + '|' + keys[i + 1] + '|' + next_next) != 0) {
        d.ops.push_back(program[i + 1]);  // helper
        last = static_cast<int64_t>(i) + 1;
      }
    }
  }
  return d;
}

ChipRun collect(const models::ChipModule& module, const DedupedProgram& prog,
                const ChipProgram& program, const std::vector<int>& layers,
                const std::vector<int64_t>& variant_of, const models::ChipParams& chip) {
  const std::vector<int64_t>& op_of_node = program.op_of_node;
  ChipRun run;
  const std::vector<models::OpRecord>& records = module.records();
  if (records.size() != prog.ops.size()) {
    throw ScovilleError("system engine: chip '" + std::string(module.name()) +
                        "' stopped before its program finished");
  }
  const Duration start = records.empty() ? Duration() : records.front().start;
  std::vector<stats::OpResult> distinct;
  for (size_t i = 0; i < records.size(); ++i) {
    distinct.push_back(stats::account_op(records[i], prog.ops[i], chip, 0, 0, "op", start));
  }
  for (size_t n = 0; n < op_of_node.size(); ++n) {
    if (variant_of[n] >= 0 && static_cast<size_t>(variant_of[n]) >= run.experts.size()) {
      run.experts.resize(static_cast<size_t>(variant_of[n]) + 1);
    }
    run.op_layer.push_back(layers[n]);
    if (op_of_node[n] < 0) {
      const auto fused = program.fused.find(n);
      if (fused == program.fused.end()) {  // no work
        run.op_time.emplace_back();
        run.op_bound.push_back(stats::Bound::kCompute);
        continue;
      }
      run.op_time.push_back(fused->second.busy);
      run.op_bound.push_back(fused->second.bound);
      const ExpertRun& work = fused->second.work;
      if (variant_of[n] >= 0) {
        ExpertRun& e = run.experts[static_cast<size_t>(variant_of[n])];
        e.energy += work.energy;
        e.flops += work.flops;
        e.hbm_bytes += work.hbm_bytes;
      } else {
        run.energy += work.energy;
        run.flops += work.flops;
        run.hbm_bytes += work.hbm_bytes;
      }
      continue;
    }
    const stats::OpResult& op = distinct[prog.index[static_cast<size_t>(op_of_node[n])]];
    run.op_time.push_back(op.duration);
    run.op_bound.push_back(op.bound);
    if (variant_of[n] >= 0) {
      ExpertRun& e = run.experts[static_cast<size_t>(variant_of[n])];
      e.energy += op.energy;
      e.flops += op.flops;
      e.hbm_bytes += op.hbm_bytes;
      continue;
    }
    run.energy += op.energy;
    run.flops += op.flops;
    run.hbm_bytes += op.hbm_bytes;
  }
  return run;
}

// An op's dynamic energy, HBM bytes and FLOPs from its tile plan, without simulating it: what
// collect() gets from the simulated record (op_accounting prices the planned work).
ExpertRun planned_expert_run(const workloads::Op& op, const models::ChipParams& chip) {
  ExpertRun e;
  if (op.instances == 0) return e;
  const models::WorkDescriptor work = lower(op, chip);
  models::OpRecord record;
  record.planned = models::TilingPolicy(chip).plan(work).totals();
  e.energy = models::price(stats::count_actions(record, work), chip.energy, Power(0), Duration());
  e.hbm_bytes = record.planned.hbm_read + record.planned.hbm_write;
  e.flops = work.flops;
  return e;
}

// A vector op fused into its neighbours: its planned work and its busy time.
FusedOp fused_op(const workloads::Op& op, const models::ChipParams& chip) {
  FusedOp f;
  f.work = planned_expert_run(op, chip);
  const double math = op.flops.si() / chip.peak_vector_rate().si();
  const double bytes = f.work.hbm_bytes.si() / chip.hbm.peak_bandwidth().si();
  f.busy = Duration(std::max(math, bytes));
  f.bound = math >= bytes ? stats::Bound::kCompute : stats::Bound::kHbm;
  return f;
}

// A rough time of an op on the chip, to rank EP ranks by load: the larger of its FLOPs at the
// matrix engine's peak and its streamed bytes at peak HBM bandwidth (a roofline).
double roofline_seconds(const workloads::Op& op, const models::ChipParams& chip) {
  if (op.instances == 0) return 0.0;
  const double flops = op.flops.si() / chip.peak_flop_rate(op.math).si();
  const double bytes = op.weight_bytes.si() / chip.hbm.peak_bandwidth().si();
  return std::max(flops, bytes);
}

// Representative fidelity under a drawn routing: per layer, the rank (slot in role.ranks) whose
// routed experts take longest: the largest roofline time of its expert ops (the rank that ends
// the layer's expert segment last, which every rank then waits for at the combine all-to-all);
// ties by token-expert pairs, then experts touched, then the lowest rank. Pairs alone would pick
// the wrong rank where weights dominate (decode): a rank with one hot expert has more pairs
// than one with two warm experts but reads half the weights.
std::map<int, size_t> most_loaded_slots(const workloads::ChipRole& role,
                                        const models::ChipParams& chip) {
  struct Load {
    double seconds = 0;
    int64_t pairs = 0;
    int64_t touched = 0;
  };
  std::map<int, std::vector<Load>> per_layer;
  for (const workloads::RankExpertOps& v : role.rank_experts) {
    std::vector<Load>& loads = per_layer[role.trace.nodes[v.node].layer];
    loads.resize(v.per_rank.size());
    for (size_t slot = 0; slot < v.per_rank.size(); ++slot) {
      const workloads::Op& op = v.per_rank[slot];
      loads[slot].seconds += roofline_seconds(op, chip);
      if (!op.tokens_per_instance.empty()) {  // the matmuls (counted once: the largest)
        int64_t pairs = 0;
        for (int64_t t : op.tokens_per_instance) pairs += t;
        loads[slot].pairs = std::max(loads[slot].pairs, pairs);
        loads[slot].touched = std::max(loads[slot].touched, op.instances);
      }
    }
  }
  std::map<int, size_t> chosen;
  for (const auto& [layer, loads] : per_layer) {
    size_t best = 0;
    for (size_t slot = 1; slot < loads.size(); ++slot) {
      const Load& a = loads[slot];
      const Load& b = loads[best];
      if (std::tie(a.seconds, a.pairs, a.touched) > std::tie(b.seconds, b.pairs, b.touched)) {
        best = slot;
      }
    }
    chosen[layer] = best;
  }
  return chosen;
}

struct RoleTime {
  Duration total;
  Duration kv;
  Duration compute;
  Duration hbm;
  Duration local;
  Duration scale_out;
  int64_t collectives = 0;
  int64_t all_to_all_calls = 0;
};

}  // namespace

Fidelity parse_fidelity(const std::string& text) {
  if (text == "representative") return Fidelity::kRepresentative;
  if (text == "all") return Fidelity::kAll;
  throw InputError(SourceLocation{"<command line>", 0, 0}, "fidelity",
                   "unknown fidelity '" + text + "'; expected representative or all");
}

Overlap parse_overlap(const std::string& text) {
  if (text == "none") return Overlap::kNone;
  if (text == "two_batch") return Overlap::kTwoBatch;
  throw InputError(SourceLocation{"<command line>", 0, 0}, "overlap",
                   "unknown overlap '" + text + "'; expected none or two_batch");
}

SystemSetup make_setup(const config::SystemConfig& system, const workloads::ModelConfig& model,
                       const workloads::PoolMapping& mapping, const config::DataPaths& paths,
                       SystemEngineOptions options) {
  models::ChipParams chip = config::load_chip(config::require_chip(system), paths);
  config::SoftwareProfile software;
  if (!system.software_file.empty()) software = config::parse_software(system.software_file);
  return SystemSetup{system, std::move(chip), model, mapping, software, options};
}

SystemEngine::SystemEngine(SystemSetup setup) : setup_(std::move(setup)) {
  topology_ = std::make_unique<models::Topology>(config::build_network(setup_.system));
  workloads::validate_mapping(setup_.model, setup_.mapping);
  timer_ =
      std::make_unique<CollectiveTimer>(*topology_, setup_.mapping.degrees, setup_.mapping.chips);
  placement_ = models::make_kv_placement(setup_.options.kv_placement);
  if (setup_.options.kv_placement == "remote_pool" && !setup_.system.host) {
    throw InputError(SourceLocation{setup_.system.file, 0, 0}, "system.host",
                     "kv_placement remote_pool reads KV from host memory, but this system has no "
                     "'host:' section");
  }
  if (placement_->transfers_prefill_kv() && 2 * setup_.mapping.chips > topology_->endpoints()) {
    throw InputError(SourceLocation{setup_.system.file, 0, 0}, "kv_placement",
                     "disaggregated needs a decode pool beside the prefill pool: 2 x " +
                         std::to_string(setup_.mapping.chips) + " chips, but the system has " +
                         std::to_string(topology_->endpoints()));
  }
  const int64_t modules = setup_.options.fidelity == Fidelity::kAll
                              ? setup_.mapping.chips
                              : kMaxRolesPerStage * setup_.mapping.degrees.pp;
  static int engine_count = 0;  // module names must be unique in the process
  const std::string prefix = "system" + std::to_string(engine_count++) + "_chip";
  for (int64_t i = 0; i < modules; ++i) {
    const std::string name = prefix + std::to_string(i);
    modules_.push_back(std::make_unique<models::ChipModule>(name.c_str(), setup_.chip));
  }
}

SystemEngine::~SystemEngine() = default;

models::KvReadShares SystemEngine::kv_shares(const workloads::ChipRole& role,
                                             const workloads::IterationShape& shape) const {
  const models::ChipParams& chip = setup_.chip;
  models::KvPlacementContext ctx;
  ctx.owner = role.ranks.front();
  ctx.stacks = chip.hbm.stacks;
  ctx.channels_per_stack = chip.hbm.channels_per_stack;
  ctx.block_tokens = setup_.options.kv_block_tokens;
  ctx.sram_window_tokens = setup_.options.sram_window_tokens;
  Bytes per_token;
  for (const workloads::TraceNode& node : role.trace.nodes) {
    if (node.kind == workloads::TraceNodeKind::kCompute) per_token += node.op.kv_write_bytes;
  }
  per_token = per_token / static_cast<double>(std::max<int64_t>(1, shape.new_tokens));
  return models::kv_read_shares(*placement_, ctx, setup_.mapping.degrees.tp, shape.context,
                                chip.shared_sram.capacity, per_token);
}

SystemEngine::RoleKv SystemEngine::price_kv(const KvCosts& kv, const workloads::ChipRole& role,
                                            const workloads::IterationShape& shape,
                                            bool count_pool) {
  RoleKv out;
  const double ranks = static_cast<double>(role.ranks.size());
  if (kv.host_bytes.si() > 0) {
    // Over the chip's host link, sharing the host memory with the other chips of the host.
    const models::HostParams& host = *setup_.system.host;
    out.time += kv.host_bytes / host.per_chip_bandwidth() +
                host.link_latency * static_cast<double>(kv.attention_ops);
    out.energy += host.link_energy * kv.host_bytes * ranks;
    out.bytes += kv.host_bytes * ranks;
  }
  const int64_t tp = setup_.mapping.degrees.tp;
  for (const Bytes& peer : kv.peer_reads) {
    // Each chip reads an equal share from every other chip of its TP group.
    const CollectiveTiming c =
        timer_->exchange("tp", role.stage, peer / static_cast<double>(tp - 1));
    out.time += c.time;
    if (timeline_ != nullptr) out.network.emplace_back("KV peer reads", c);
    if (count_pool) {
      out.energy += c.energy;
      out.bytes += c.bytes;
    }
  }
  if (placement_->transfers_prefill_kv() && shape.phase == workloads::Phase::kPrefill &&
      kv.written.si() > 0) {
    // The prompt's KV goes from each prefill rank to the same rank of the decode pool.
    const CollectiveTiming c = timer_->shift(setup_.mapping.chips, kv.written);
    out.time += c.time;
    if (timeline_ != nullptr) out.network.emplace_back("KV hand-over", c);
    if (count_pool) {
      out.energy += c.energy;
      out.bytes += c.bytes;
    }
  }
  return out;
}

SystemIterationResult SystemEngine::run(const workloads::IterationShape& shape) {
  const workloads::MappedIteration mapped =
      workloads::map_iteration(setup_.model, shape, setup_.mapping, setup_.options.routing);
  const bool all = setup_.options.fidelity == Fidelity::kAll;

  // Per role: its compute nodes lowered (the KV placement deciding which memory serves the
  // attention's KV reads), their layers, and which of them are routed-expert nodes that differ
  // between the role's ranks (drawn routing).
  const size_t role_count = mapped.roles.size();
  std::vector<std::vector<models::WorkDescriptor>> base(role_count);
  std::vector<std::vector<int>> layers(role_count);
  std::vector<std::vector<int64_t>> variant_of(role_count);  // per compute node; -1: none
  // Per compute node: the vector op the stack fuses into its neighbours, or null.
  std::vector<std::vector<const workloads::Op*>> fused_node(role_count);
  std::vector<KvCosts> kv(role_count);
  for (size_t r = 0; r < role_count; ++r) {
    const workloads::ChipRole& role = mapped.roles[r];
    const models::KvReadShares shares = kv_shares(role, shape);
    std::map<size_t, int64_t> variant_at;
    for (size_t v = 0; v < role.rank_experts.size(); ++v) {
      variant_at[role.rank_experts[v].node] = static_cast<int64_t>(v);
    }
    for (size_t n = 0; n < role.trace.nodes.size(); ++n) {
      const workloads::TraceNode& node = role.trace.nodes[n];
      if (node.kind != workloads::TraceNodeKind::kCompute) continue;
      const auto variant = variant_at.find(n);
      variant_of[r].push_back(variant == variant_at.end() ? -1 : variant->second);
      models::WorkDescriptor work =
          node.op.instances > 0 ? lower(node.op, setup_.chip) : models::WorkDescriptor{};
      const Bytes kv_read = node.op.kv_read_bytes;
      if (node.op.kind == workloads::OpKind::kAttention && kv_read.si() > 0) {
        work.stream_bytes = node.op.weight_bytes + kv_read * shares.local;
        work.activation_in_bytes += kv_read * shares.sram;
        kv[r].host_bytes += kv_read * shares.host;
        if (shares.peer > 0) kv[r].peer_reads.push_back(kv_read * shares.peer);
        ++kv[r].attention_ops;
      }
      kv[r].written += node.op.kv_write_bytes;
      fused_node[r].push_back(
          setup_.software.fused_vector_ops && node.op.kind == workloads::OpKind::kVector ? &node.op
                                                                                         : nullptr);
      base[r].push_back(std::move(work));
      layers[r].push_back(node.layer);
    }
  }

  // The chips to simulate: representative, one per role, whose expert ops in each layer are
  // its most loaded rank's; `all`, every rank with its own expert ops.
  std::vector<ChipProgram> chips;
  std::vector<std::map<int, size_t>> representative_slot(role_count);  // layer -> rank slot
  for (size_t r = 0; r < role_count; ++r) {
    const workloads::ChipRole& role = mapped.roles[r];
    if (!role.rank_experts.empty()) {
      representative_slot[r] = most_loaded_slots(role, setup_.chip);
    }
    const size_t copies = all ? role.ranks.size() : 1;
    for (size_t c = 0; c < copies; ++c) {
      ChipProgram chip;
      chip.role = r;
      chip.module = all ? static_cast<size_t>(role.ranks[c]) : r;
      size_t op = 0;
      for (size_t j = 0; j < base[r].size(); ++j) {
        const int64_t v = variant_of[r][j];
        const workloads::Op* own = nullptr;
        if (v >= 0) {
          const size_t slot = all ? c : representative_slot[r].at(layers[r][j]);
          own = &role.rank_experts[static_cast<size_t>(v)].per_rank[slot];
        }
        if (own != nullptr && own->instances == 0) {  // none of its experts got a token
          chip.op_of_node.push_back(-1);
          continue;
        }
        if (const workloads::Op* fused = fused_node[r][j]) {
          chip.fused.emplace(chip.op_of_node.size(),
                             fused_op(own != nullptr ? *own : *fused, setup_.chip));
          chip.op_of_node.push_back(-1);
          continue;
        }
        chip.op_of_node.push_back(static_cast<int64_t>(op++));
        chip.ops.push_back(own != nullptr ? lower(*own, setup_.chip) : base[r][j]);
      }
      chips.push_back(std::move(chip));
    }
  }
  if (!all && role_count > modules_.size()) {
    throw ScovilleError("system engine: more chip roles than elaborated chips");
  }
  std::vector<DedupedProgram> deduped;
  for (const ChipProgram& chip : chips) {
    deduped.push_back(dedupe(chip.ops, setup_.options.simulate_repeated_ops_once));
  }
  if (all) {
    // One chip per simulation: chips simulated side by side in one SystemC kernel perturb one
    // another (same-time HBM requests are served in process-evaluation order, which depends on
    // the whole design), and every chip's time counts here (docs/systems.md, Fidelity).
    for (size_t i = 0; i < chips.size(); ++i) {
      modules_[chips[i].module]->set_program(deduped[i].ops);
      models::run_simulation();
    }
  } else {
    std::vector<int> chip_of_module(modules_.size(), -1);
    for (size_t i = 0; i < chips.size(); ++i) chip_of_module[chips[i].module] = static_cast<int>(i);
    for (size_t m = 0; m < modules_.size(); ++m) {
      const int i = chip_of_module[m];
      modules_[m]->set_program(i < 0 ? std::vector<models::WorkDescriptor>{}
                                     : deduped[static_cast<size_t>(i)].ops);
    }
    models::run_simulation();
  }

  SystemIterationResult out;
  out.chips = setup_.mapping.chips;
  out.roles = static_cast<int64_t>(role_count);
  out.simulated_chips = static_cast<int64_t>(chips.size());
  if (!mapped.ep_loads.empty()) {
    double sum = 0;
    for (const auto& load : mapped.ep_loads) {
      sum += load.imbalance();
      out.ep_imbalance_max = std::max(out.ep_imbalance_max, load.imbalance());
    }
    out.ep_imbalance = sum / static_cast<double>(mapped.ep_loads.size());
  }
  // Per role: its chips' time synchronised at every collective, and the energy of all its ranks.
  std::map<int64_t, RoleTime> stage_time;  // slowest role per stage
  std::map<int64_t, bool> stage_network_counted;
  std::map<int64_t, std::vector<TimelineSpan>> stage_walk;  // timelines only
  for (size_t r = 0; r < role_count; ++r) {
    const workloads::ChipRole& role = mapped.roles[r];
    std::vector<ChipRun> runs;
    for (size_t i = 0; i < chips.size(); ++i) {
      if (chips[i].role != r) continue;
      runs.push_back(collect(*modules_[chips[i].module], deduped[i], chips[i], layers[r],
                             variant_of[r], setup_.chip));
    }
    // Energy: representative stands for every rank; `all` sums the ranks it ran.
    const double scale = all ? 1.0 : static_cast<double>(role.ranks.size());
    for (const ChipRun& run : runs) {
      out.compute_energy += run.energy.matrix * scale + run.energy.vector * scale +
                            run.energy.tile_sram * scale + run.energy.shared_sram * scale +
                            run.energy.noc * scale;
      out.hbm_energy += run.energy.hbm * scale;
      out.flops += run.flops * scale;
      out.hbm_bytes += run.hbm_bytes * scale;
      for (size_t v = 0; v < run.experts.size(); ++v) {
        // Routed experts: under `all` each rank's own, as simulated. Representative simulated
        // only the most loaded rank's; every rank's dynamic energy, HBM bytes and FLOPs follow
        // from its op's tile plan alone (op_accounting prices the planned work), so they are
        // computed for each rank without simulating it.
        ExpertRun pool = run.experts[v];
        if (!all) {
          pool = ExpertRun{};
          for (const workloads::Op& op : role.rank_experts[v].per_rank) {
            const ExpertRun e = planned_expert_run(op, setup_.chip);
            pool.energy += e.energy;
            pool.hbm_bytes += e.hbm_bytes;
            pool.flops += e.flops;
          }
        }
        out.compute_energy += pool.energy.matrix + pool.energy.vector + pool.energy.tile_sram +
                              pool.energy.shared_sram + pool.energy.noc;
        out.hbm_energy += pool.energy.hbm;
        out.flops += pool.flops;
        out.hbm_bytes += pool.hbm_bytes;
      }
    }
    // The chips of a role meet at every collective: the role's critical path takes, in each
    // segment between collectives, the slowest chip's ops (segment_sync.hpp).
    if (runs.size() > 1) {
      std::vector<std::vector<Duration>> times;
      for (const ChipRun& run : runs) times.push_back(run.op_time);
      std::vector<int64_t> segment;
      int64_t current = 0;
      for (const workloads::TraceNode& node : role.trace.nodes) {
        if (node.kind == workloads::TraceNodeKind::kCompute) {
          segment.push_back(current);
        } else {
          ++current;
        }
      }
      const std::vector<size_t> chosen = critical_chips(times, segment);
      ChipRun critical = runs.front();
      for (size_t i = 0; i < chosen.size(); ++i) {
        critical.op_time[i] = runs[chosen[i]].op_time[i];
        critical.op_bound[i] = runs[chosen[i]].op_bound[i];
      }
      runs = {std::move(critical)};
    }
    // The role's time on its slowest chip, walking its nodes in order.
    const bool count_network = !stage_network_counted[role.stage];
    stage_network_counted[role.stage] = true;
    const RoleKv role_kv = price_kv(kv[r], role, shape, count_network);
    out.kv_transfer_energy += role_kv.energy;
    out.kv_transfer_bytes += role_kv.bytes;
    RoleTime slowest;
    std::vector<TimelineSpan> slowest_walk;
    for (const ChipRun& run : runs) {
      RoleTime t;
      std::vector<TimelineSpan> walk;  // filled only for a timeline
      Duration cursor;
      std::map<int, Duration> layer_compute;
      std::map<int, Duration> layer_comm;
      size_t op = 0;
      for (const workloads::TraceNode& node : role.trace.nodes) {
        if (node.kind == workloads::TraceNodeKind::kCompute) {
          const Duration d = run.op_time[op];
          if (timeline_ != nullptr) {
            walk.push_back({role.stage, node.op.name, false, cursor, d, nullptr, Duration(0)});
            cursor += d;
          }
          (run.op_bound[op] == stats::Bound::kHbm ? t.hbm : t.compute) += d;
          layer_compute[node.layer] += d;
          ++op;
          continue;
        }
        const CollectiveTiming c = timer_->time(node.collective, role.stage);
        if (timeline_ != nullptr && c.time.si() > 0) {
          walk.push_back({role.stage, node.name, true, cursor, c.time, c.schedule, c.library_time});
          cursor += c.time;
        }
        (c.scale_out ? t.scale_out : t.local) += c.time;
        layer_comm[node.layer] += c.time;
        if (c.time.si() > 0) {
          ++t.collectives;
          if (node.collective.kind == workloads::CollectiveKind::kAllToAll) ++t.all_to_all_calls;
        }
        if (count_network && &run == &runs.front()) {
          (c.scale_out ? out.scale_out_energy : out.local_network_energy) += c.energy;
          out.network_bytes += c.bytes;
        }
      }
      t.kv = role_kv.time;
      if (timeline_ != nullptr) {
        Duration network;
        for (const auto& [name, c] : role_kv.network) {
          walk.push_back({role.stage, name, true, cursor, c.time, c.schedule, c.library_time});
          cursor += c.time;
          network += c.time;
        }
        if (role_kv.time > network) {
          walk.push_back({role.stage, "KV host reads", false, cursor, role_kv.time - network,
                          nullptr, Duration(0)});
        }
      }
      if (setup_.options.overlap == Overlap::kTwoBatch) {
        t.total += t.kv;
        for (const auto& [layer, compute] : layer_compute) {
          const Duration comm = layer_comm[layer];
          t.total += layer < 0 ? compute + comm : std::max(compute, comm);
        }
        for (const auto& [layer, comm] : layer_comm) {
          if (layer_compute.count(layer) == 0) t.total += comm;
        }
      } else {
        t.total = t.compute + t.hbm + t.local + t.scale_out + t.kv;
      }
      if (t.total > slowest.total) {
        slowest = t;
        slowest_walk = std::move(walk);
      }
    }
    RoleTime& stage = stage_time[role.stage];
    if (slowest.total > stage.total) {
      stage = slowest;
      stage_walk[role.stage] = std::move(slowest_walk);
    }
  }
  if (timeline_ != nullptr) {
    // Stages one after another, as their times add up below.
    timeline_->clear();
    Duration offset;
    for (const auto& [stage, t] : stage_time) {
      for (TimelineSpan span : stage_walk[stage]) {
        span.start += offset;
        timeline_->push_back(std::move(span));
      }
      offset += t.total;
    }
  }
  // Stages run one after the other for one batch (a pipeline's latency); parts add up likewise.
  int64_t all_to_all_calls = 0;
  for (const auto& [stage, t] : stage_time) {
    out.hardware_time += t.total;
    out.compute_time += t.compute;
    out.hbm_time += t.hbm;
    out.local_network_time += t.local;
    out.scale_out_time += t.scale_out;
    out.kv_transfer_time += t.kv;
    out.collectives += t.collectives;
    all_to_all_calls += t.all_to_all_calls;
  }
  // Software: launches per op, a sync per layer and the fixed cost of each collective call on the
  // busiest role, once per iteration.
  int64_t ops = 0;
  int64_t layer_count = 0;
  for (size_t r = 0; r < role_count; ++r) {
    // Kernels: a fused vector op is part of its neighbour's.
    const auto kernels = std::count(fused_node[r].begin(), fused_node[r].end(), nullptr);
    ops = std::max<int64_t>(ops, static_cast<int64_t>(kernels));
    std::vector<int> distinct = layers[r];
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    layer_count = std::max<int64_t>(layer_count, static_cast<int64_t>(distinct.size()));
  }
  // Each attention-DP rank's scheduler serves its share of the batch, in parallel.
  const int64_t dp = std::max<int64_t>(1, setup_.mapping.degrees.attn_dp);
  const int64_t host_sequences = (shape.batch + dp - 1) / dp;
  out.software_time =
      setup_.software.overhead(ops, layer_count, out.collectives, all_to_all_calls, host_sequences);
  out.time = out.hardware_time + out.software_time;
  out.static_energy =
      setup_.chip.power.static_power * out.time * static_cast<double>(setup_.mapping.chips);
  out.energy = out.compute_energy + out.hbm_energy + out.local_network_energy +
               out.scale_out_energy + out.kv_transfer_energy + out.static_energy;
  return out;
}

}  // namespace scoville::engine
