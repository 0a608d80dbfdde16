#include "sim/serving/roofline_cost_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "models/energy/energy_model.hpp"
#include "models/network/collective.hpp"
#include "sim/base/byte_key.hpp"
#include "sim/base/error.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/mapping/memory_footprint.hpp"

namespace scoville::serving {

namespace {

double d(int64_t v) { return static_cast<double>(v); }

// A group of sequences priced as one uniform iteration shape.
struct GroupKey {
  workloads::Phase phase = workloads::Phase::kDecode;
  int64_t count = 1;
  int64_t new_tokens = 1;
  int64_t context = 1;  // context after the step, new tokens included
  int64_t ranks = 1;    // attention-DP ranks of the batch (1: the mapping splits it evenly)
  int64_t rank = 0;     // the rank whose sequences these are (ranks > 1)

  std::tuple<int, int64_t, int64_t, int64_t, int64_t, int64_t> tie() const {
    return {static_cast<int>(phase), count, new_tokens, context, ranks, rank};
  }
  bool operator<(const GroupKey& o) const { return tie() < o.tie(); }
};

// One compute op of the heaviest role of a stage, reduced to what the roofline needs.
struct ComputeRec {
  int32_t key = 0;
  OpClass cls = OpClass::kOther;  // which calibration knobs apply
  bool vector = false;            // an OpKind::kVector op (a stack may fuse it into neighbours)
  double compute_s = 0;           // FLOPs / peak at its executed precision
  double weight_b = 0;
  double other_b = 0;  // KV and activation bytes
  std::array<double, models::kMathPrecisionCount> macs{};
  double vector_flops = 0;
  bool shared = false;  // attention-DP: works on every rank's tokens (the FFN / MoE side)
  int32_t op = -1;      // the op's content id (Impl::op_contents; only with an op-cost model)
  int32_t layers = 1;   // identical layers this op stands for (RooflineOptions::collapse_layers)
};

struct CollectiveRec {
  int32_t key = 0;
  workloads::CollectiveKind kind = workloads::CollectiveKind::kAllReduce;
  int64_t group = 1;
  double bytes = 0;  // this chip's contribution (trace convention)
  bool shared = false;
  bool kv_read = false;  // the KV peer reads of an attention op (striped), not a stack call
  int32_t layers = 1;    // identical layers this collective stands for
};

struct StageOps {
  std::vector<ComputeRec> compute;
  std::vector<CollectiveRec> collectives;
  int64_t layers = 0;
  // KV the attention ops read over the host link (remote_pool), and how many ops read it.
  double kv_host_bytes = 0;
  int64_t kv_host_reads = 0;
};

using GroupOps = std::vector<StageOps>;  // by stage

// The nccl-tests name of a trace collective and its size S from this chip's bytes.
std::pair<std::string, double> nccl_size(workloads::CollectiveKind kind, int64_t n, double bytes) {
  using K = workloads::CollectiveKind;
  switch (kind) {
    case K::kAllReduce:
      return {"all_reduce", bytes};
    case K::kAllGather:
      return {"all_gather", bytes * d(n)};  // input shard -> output
    case K::kReduceScatter:
      return {"reduce_scatter", bytes * d(n)};  // output shard -> input
    case K::kAllToAll:
      return {"all_to_all", bytes};
    case K::kBroadcast:
      return {"broadcast", bytes};
    case K::kSend:
    case K::kRecv:
      return {"send_recv", bytes};
  }
  return {"all_reduce", bytes};
}

// What an op-cost model sees of an op, as raw bytes (its name and layer are not priced): equal
// keys, equal prices, so the layers of a model share one answer.
std::string op_content_key(const workloads::Op& op) {
  return byte_key(
      {static_cast<int64_t>(op.kind), op.m, op.n, op.k, op.instances,
       static_cast<int64_t>(op.weight_format), static_cast<int64_t>(op.math),
       static_cast<int64_t>(op.sharding)},  // a kernel path takes routed experts alone
      {op.flops.si(), op.weight_bytes.si(), op.kv_read_bytes.si(), op.kv_write_bytes.si(),
       op.activation_in_bytes.si(), op.activation_out_bytes.si()});
}

}  // namespace

int64_t bucket_value(int64_t value, int bits) {
  if (value < (int64_t{1} << bits)) return value;
  int log2 = 0;
  while ((value >> (log2 + 1)) != 0) ++log2;
  const int64_t width = int64_t{1} << (log2 - bits);
  return value / width * width + width / 2;  // the bucket's centre
}

struct RooflineCostModel::Impl {
  explicit Impl(workloads::ModelConfig m) : model(std::move(m)) {}
  workloads::ModelConfig model;
  models::ChipParams chip;
  std::vector<workloads::PoolMapping> pools;
  std::optional<models::Topology> topology;
  std::unique_ptr<models::NetworkModel> network;
  SoftwareOverheads software;
  RooflineOptions options;
  EfficiencyKnobs efficiency;
  std::array<double, models::kMathPrecisionCount> matrix_rate{};  // FLOP/s, 0: unsupported
  double vector_rate = 0;
  double hbm_bw = 0;

  mutable std::unordered_map<std::string, int32_t> key_ids;
  mutable std::vector<std::string> key_names;  // by key id (for explain)
  // The model with one main layer per class (dense before MoE, as the model has them) and its
  // MTP layers, and how many of the model's layers each of its layers stands for; nullopt when
  // layers are not collapsed or the classes cannot be laid out so (built in the constructor).
  std::optional<workloads::ModelConfig> reduced;
  std::vector<int32_t> reduced_layers;
  // Op-cost model answers by the content of a fused op's parts (price_fused).
  static constexpr size_t kMaxFusedPrices = size_t{1} << 16;
  // A fused op: its parts as (content id, share).
  using FusedKey = std::vector<std::pair<int32_t, double>>;
  // Hashed, not ordered: a lookup per fused op per batch, where an ordered map compares whole
  // keys O(log n) times (a small part of the op-table pricer's cost, docs/performance.md).
  struct FusedKeyHash {
    size_t operator()(const FusedKey& key) const {
      uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a offset basis, then a multiply-xor mix
      for (const auto& [id, share] : key) {
        // Equal shares hash equally (0.0 and -0.0 compare equal).
        const double normal = share == 0 ? 0.0 : share;
        uint64_t bits = 0;
        std::memcpy(&bits, &normal, sizeof bits);
        h = (h ^ static_cast<uint32_t>(id)) * 0x100000001b3ull;
        h = (h ^ bits) * 0x100000001b3ull;
        h ^= h >> 29;
      }
      return static_cast<size_t>(h);
    }
  };
  mutable std::unordered_map<FusedKey, OpPrice, FusedKeyHash> fused_prices;
  // A stage's accumulation of one op key (Acc) or collective key (CAcc) in one attention-DP slot.
  struct Acc {
    double compute_s = 0, weight_b = 0, other_b = 0, vector_flops = 0;
    OpClass cls = OpClass::kOther;
    bool vector = false;
    std::array<double, models::kMathPrecisionCount> macs{};
    // With an op-cost model: the groups' ops to fuse, a list in `part_pool` (no allocation per
    // op).
    int32_t first_part = -1, last_part = -1;
  };
  struct CAcc {
    workloads::CollectiveKind kind{};
    int64_t group = 1;
    double bytes = 0;
    bool kv_read = false;
  };
  // Scratch of price_groups, kept between calls so that pricing allocates nothing per op.
  struct PartLink {
    int32_t content = -1;
    double share = 1.0;
    int32_t next = -1;
  };
  mutable std::vector<PartLink> part_pool;
  mutable FusedKey fused_key;
  // Distinct op contents (op_content_key -> id -> the op): the layers of a model and the groups
  // of a sweep share a few hundred.
  mutable std::unordered_map<std::string, int32_t> content_ids;
  mutable std::vector<workloads::Op> op_contents;

  int32_t content_id(const workloads::Op& op) const {
    const auto [it, added] =
        content_ids.emplace(op_content_key(op), static_cast<int32_t>(op_contents.size()));
    if (added) {
      op_contents.push_back(op);
      op_contents.back().name.clear();  // not priced; the content key leaves it out too
      op_contents.back().layer = -1;
    }
    return it->second;
  }
  mutable std::vector<std::map<GroupKey, GroupOps>> group_cache;  // by pool
  mutable std::map<std::vector<int64_t>, IterationCost> batch_cache;
  // First endpoint of each pool: pools sit on consecutive chips in ServingSystem's order
  // (prefill before decode), so a later pool's groups use its own endpoints.
  std::vector<int64_t> pool_first;
  // Collective time samples by (nccl name, first endpoint, ranks): sizes 2^k B, k = kMinLog2 ..
  // kMaxLog2, each run on the network when first needed (NaN until then). A wide pool's
  // collective costs a flow simulation per sample, and a run needs the few sizes its batches
  // send: taking all 33 up front was a sixth of a 128-chip search's time.
  static constexpr int kMinLog2 = 4;
  static constexpr int kMaxLog2 = 36;
  struct CollectiveSamples {
    std::string name;
    models::Communicator comm;
    std::vector<double> time;  // by k - kMinLog2; NaN: not yet run
  };
  mutable std::map<std::tuple<std::string, int64_t, int64_t>, CollectiveSamples> collective_samples;
  // KV handoff samples by (prefill first, count, decode first, count), at the same sizes, each
  // run when first needed (NaN until then).
  mutable std::map<std::array<int64_t, 4>, std::vector<double>> handoff_samples;
  std::unique_ptr<models::KvPlacement> disaggregated = models::make_kv_placement("disaggregated");
  std::unique_ptr<models::KvPlacement> placement;  // options.kv_placement

  // Which place serves what share of a role's attention KV reads at this group's context: the
  // system engine's split (models::kv_read_shares), so the two levels place KV alike.
  // `classes`: the trace's layers (LayerClasses), each class's first layer counted for them all.
  using LayerClasses = std::unordered_map<int, std::pair<int, int32_t>>;
  models::KvReadShares kv_shares(const workloads::ChipRole& role,
                                 const workloads::PoolMapping& mapping,
                                 const workloads::IterationShape& shape,
                                 const LayerClasses& classes) const {
    if (options.kv_placement == "local" || options.kv_placement == "disaggregated") return {};
    models::KvPlacementContext ctx;
    ctx.owner = role.ranks.front();
    ctx.stacks = chip.hbm.stacks;
    ctx.channels_per_stack = chip.hbm.channels_per_stack;
    ctx.block_tokens = options.kv_block_tokens;
    ctx.sram_window_tokens = options.sram_window_tokens;
    double per_token = 0;
    for (const workloads::TraceNode& node : role.trace.nodes) {
      if (node.kind != workloads::TraceNodeKind::kCompute) continue;
      double layers = 1;
      if (node.layer >= 0) {
        const auto& [rep, count] = classes.at(node.layer);
        layers = rep == node.layer ? d(count) : 0.0;  // the others are counted by their first
      }
      per_token += node.op.kv_write_bytes.si() * layers;
    }
    per_token /= d(std::max<int64_t>(1, shape.new_tokens));
    return models::kv_read_shares(*placement, ctx, mapping.degrees.tp, shape.context,
                                  chip.shared_sram.capacity, Bytes(per_token));
  }

  // Piecewise linear in the size between samples taken at 2^k B; the last slope beyond them.
  // `sample(k)`: the time at 2^k B.
  template <typename Sample>
  static double interpolate(Sample&& sample, double size) {
    const double lo = std::ldexp(1.0, kMinLog2);
    if (size <= lo) return sample(kMinLog2);
    int k = static_cast<int>(std::floor(std::log2(size)));
    k = std::min(k, kMaxLog2 - 1);
    const double s0 = std::ldexp(1.0, k);
    const double s1 = std::ldexp(1.0, k + 1);
    const double t0 = sample(k);
    const double t1 = sample(k + 1);
    return t0 + (t1 - t0) * (size - s0) / (s1 - s0);
  }

  double handoff_time(double bytes, models::ChipSpan prefill, models::ChipSpan decode) const {
    if (bytes <= 0) return 0.0;
    const std::array<int64_t, 4> key{prefill.first, prefill.count, decode.first, decode.count};
    auto it = handoff_samples.find(key);
    if (it == handoff_samples.end()) {
      if (!network) {
        throw InputError(SourceLocation{"<system>", 0, 0}, "network",
                         "a disaggregated KV handoff needs a network");
      }
      const int64_t last = std::max(prefill.first + prefill.count, decode.first + decode.count);
      if (prefill.first < 0 || decode.first < 0 || last > topology->endpoints()) {
        throw InputError(SourceLocation{"<system>", 0, 0}, "pools",
                         "the prefill and decode pools need " + std::to_string(last) +
                             " chips but the network has " + std::to_string(topology->endpoints()));
      }
      it = handoff_samples
               .emplace(key, std::vector<double>(kMaxLog2 - kMinLog2 + 1,
                                                 std::numeric_limits<double>::quiet_NaN()))
               .first;
    }
    std::vector<double>& samples = it->second;
    const auto sample = [&](int k) {
      double& t = samples[static_cast<size_t>(k - kMinLog2)];
      if (std::isnan(t)) {
        models::Step step;
        for (const models::KvHandoffFlow& f :
             disaggregated->prefill_handoff(prefill, decode, Bytes(std::ldexp(1.0, k)))) {
          step.transfers.push_back(
              {static_cast<int32_t>(f.src), static_cast<int32_t>(f.dst), f.bytes});
        }
        t = network->time_step(step).time.si();
      }
      return t;
    };
    return interpolate(sample, bytes);
  }

  int32_t intern(const std::string& name, int layer) const {
    const std::string key = name + "#" + std::to_string(layer);
    auto it = key_ids.find(key);
    if (it != key_ids.end()) return it->second;
    const int32_t id = static_cast<int32_t>(key_ids.size());
    key_ids.emplace(key, id);
    key_names.push_back(key);
    return id;
  }

  // The pool's mapping for a group too small for its attention-DP groups: the largest attn_dp
  // dividing the mapping's that the group's sequences can fill (idle attention groups do not
  // exist; their weights are counted by the larger groups of a mixed batch).
  workloads::MappedIteration map_group(const workloads::PoolMapping& mapping,
                                       const workloads::IterationShape& shape,
                                       const workloads::ModelConfig& mapped_model) const {
    workloads::PoolMapping m = mapping;
    if (shape.batch < m.degrees.attn_dp) {
      int64_t a = std::min(m.degrees.attn_dp, shape.batch);
      while (mapping.degrees.attn_dp % a != 0) --a;
      m.degrees.attn_dp = a;
    }
    return workloads::map_iteration(mapped_model, shape, m);
  }

  ComputeRec price_op(const workloads::Op& op, int32_t key) const {
    ComputeRec r;
    r.key = key;
    r.cls = op_class(op.kind);
    r.vector = op.kind == workloads::OpKind::kVector;
    r.weight_b = op.weight_bytes.si();
    r.other_b = op.kv_read_bytes.si() + op.kv_write_bytes.si() + op.activation_in_bytes.si() +
                op.activation_out_bytes.si();
    const double flops = op.flops.si();
    if (op.kind == workloads::OpKind::kMatmul || op.kind == workloads::OpKind::kAttention) {
      const std::optional<MathPrecision> p = chip.executed_precision(op.math);
      if (p && matrix_rate[models::index_of(*p)] > 0) {
        r.compute_s = flops / matrix_rate[models::index_of(*p)];
        r.macs[models::index_of(*p)] = flops / 2.0;
        return r;
      }
    }
    if (op.kind != workloads::OpKind::kMemory && vector_rate > 0) {
      r.compute_s = flops / vector_rate;
      r.vector_flops = flops;
    }
    return r;
  }

  // Each layer of a trace (by index) -> (its class's first layer, the class's size). A class is
  // the layers of one kind (MoE or dense FFN, sliding or full attention, MTP or main) with the
  // same node names in the same order: under the expected routing the pricer maps with, their
  // ops are equal, so the first stands for all. The kind comes from the model, not from the
  // ops, so every group of a batch classes the layers alike (their ops fuse key by key).
  LayerClasses layer_classes(const workloads::ChipTrace& trace, bool collapse) const {
    std::map<int, std::string> names;  // layer -> its nodes' names and kinds, in order
    for (const workloads::TraceNode& node : trace.nodes) {
      if (node.layer < 0) continue;
      std::string& n = names[node.layer];
      n += node.name;
      n += node.kind == workloads::TraceNodeKind::kCompute ? '\n' : '\t';
    }
    LayerClasses out;
    if (!collapse) {
      for (const auto& entry : names) out.emplace(entry.first, std::make_pair(entry.first, 1));
      return out;
    }
    std::map<std::tuple<bool, int, bool, std::string>, int> first;
    for (auto& [layer, sequence] : names) {
      const auto kind =
          std::make_tuple(model.layer_is_moe(layer), static_cast<int>(model.layer_attention(layer)),
                          layer >= model.layers(), std::move(sequence));
      const int rep = first.emplace(kind, layer).first->second;
      out.emplace(layer, std::make_pair(rep, 0));
      ++out.at(rep).second;
    }
    return out;
  }

  // With attention-DP ranks (g.ranks > 1) the group is one rank's sequences: mapped as g.ranks
  // copies of them, each attention group holds exactly them, so the node of the group's own
  // attention is right; the nodes that span the groups (spans_attention_groups) saw all the
  // copies and are scaled back to this group's tokens (weights, read once, are kept).
  GroupOps build_group(int pool, const GroupKey& g, bool collapse) const {
    const workloads::PoolMapping& pool_mapping = pools[static_cast<size_t>(pool)];
    const workloads::IterationShape shape{g.phase, g.count * g.ranks, g.new_tokens, g.context};
    // One layer per class (`reduced`): the trace of a few layers instead of all of them, which
    // was most of the pricer's time on searches (each new group maps a whole iteration).
    const bool small = collapse && reduced && pool_mapping.degrees.pp == 1;
    const workloads::ModelConfig& mapped_model = small ? *reduced : model;
    const workloads::MappedIteration mapped = map_group(pool_mapping, shape, mapped_model);
    const double copies = d(g.ranks);
    const auto spans = [&](const workloads::TraceNode& node) {
      return g.ranks > 1 && workloads::spans_attention_groups(mapped_model, pool_mapping.degrees,
                                                              node.name, node.layer);
    };
    const int64_t pp = mapped.mapping.degrees.pp;
    GroupOps out(static_cast<size_t>(pp));
    for (int64_t s = 0; s < pp; ++s) {
      // Roles are ordered by stage, then larger attention batch first: the first of a stage
      // is its heaviest, and the stage waits for it.
      const workloads::ChipRole* role = nullptr;
      for (const workloads::ChipRole& r : mapped.roles) {
        if (r.stage == s) {
          role = &r;
          break;
        }
      }
      StageOps& stage = out[static_cast<size_t>(s)];
      const workloads::StageLayers layers = workloads::stage_layers(model, pp, s);
      stage.layers = layers.last - layers.first;
      if (role == nullptr) continue;
      LayerClasses classes;
      if (small) {
        for (size_t l = 0; l < reduced_layers.size(); ++l) {
          classes.emplace(static_cast<int>(l),
                          std::make_pair(static_cast<int>(l), reduced_layers[l]));
        }
      } else {
        classes = layer_classes(role->trace, collapse);
      }
      const models::KvReadShares kv = kv_shares(*role, mapped.mapping, shape, classes);
      for (const workloads::TraceNode& node : role->trace.nodes) {
        int32_t same = 1;  // the layers this node stands for
        if (node.layer >= 0) {
          const auto& [rep, count] = classes.at(node.layer);
          if (rep != node.layer) continue;  // priced as its class's first layer
          same = count;
        }
        const int32_t key = intern(node.name, node.layer);
        const bool shared = spans(node);
        if (node.kind == workloads::TraceNodeKind::kCompute) {
          // A copy only for an op whose KV the placement moves (build_group is on the hot path).
          const workloads::Op* op = &node.op;
          workloads::Op placed;
          const double kv_read = node.op.kv_read_bytes.si();
          if (node.op.kind == workloads::OpKind::kAttention && kv_read > 0 && kv.local < 1) {
            placed = node.op;
            op = &placed;
            // HBM serves the local share; the SRAM share is an on-chip input of the op; the
            // host and peer shares travel over the host link and the network.
            placed.kv_read_bytes = Bytes(kv_read * kv.local);
            placed.activation_in_bytes += Bytes(kv_read * kv.sram);
            if (kv.host > 0) {
              stage.kv_host_bytes += kv_read * kv.host * d(same);
              stage.kv_host_reads += same;
            }
            if (kv.peer > 0) {
              CollectiveRec peer{key,
                                 workloads::CollectiveKind::kAllToAll,
                                 mapped.mapping.degrees.tp,
                                 kv_read * kv.peer,
                                 false,
                                 true,
                                 same};
              stage.collectives.push_back(peer);
            }
          }
          ComputeRec r = price_op(*op, key);
          r.layers = same;
          // The roofline links the parts too where a kernel path may fuse and price them.
          if (options.op_cost || !software.kernel_paths.empty()) {
            r.op = content_id(*op);
          }
          if (shared) {
            r.shared = true;
            r.compute_s /= copies;
            r.other_b /= copies;
            r.vector_flops /= copies;
            for (double& m : r.macs) m /= copies;
          }
          stage.compute.push_back(r);
        } else {
          stage.collectives.push_back(CollectiveRec{
              key, node.collective.kind, node.collective.group_size,
              node.collective.bytes.si() / (shared ? copies : 1.0), shared, false, same});
        }
      }
    }
    return out;
  }

  const GroupOps& group(int pool, GroupKey g) const {
    g.rank = 0;  // a group's ops do not depend on which rank holds it
    std::map<GroupKey, GroupOps>& cache = group_cache[static_cast<size_t>(pool)];
    auto it = cache.find(g);
    if (it != cache.end()) return it->second;
    return cache.emplace(g, build_group(pool, g, options.collapse_layers)).first->second;
  }

  // One collective of `n` ranks of a group starting at endpoint `first` (the pool's first chip:
  // the group of its first replica stands for every group).
  double collective_time(workloads::CollectiveKind kind, int64_t n, double bytes,
                         int64_t first) const {
    if (n <= 1 || bytes <= 0) return 0.0;
    const auto [name, size] = nccl_size(kind, n, bytes);
    const int64_t ranks = (name == "send_recv") ? 2 : n;
    auto key = std::make_tuple(name, first, ranks);
    auto it = collective_samples.find(key);
    if (it == collective_samples.end()) {
      if (!network) {
        throw InputError(SourceLocation{"<system>", 0, 0}, "network",
                         "a mapping with collectives needs a network");
      }
      CollectiveSamples samples{
          name, models::make_communicator(*topology, ranks, first),
          std::vector<double>(kMaxLog2 - kMinLog2 + 1, std::numeric_limits<double>::quiet_NaN())};
      it = collective_samples.emplace(key, std::move(samples)).first;
    }
    CollectiveSamples& samples = it->second;
    const auto sample = [&](int k) {
      double& t = samples.time[static_cast<size_t>(k - kMinLog2)];
      if (std::isnan(t)) {
        t = network->run_collective(samples.name, samples.comm, Bytes(std::ldexp(1.0, k)))
                .timing.time.si();
      }
      return t;
    };
    return interpolate(sample, size);
  }

  // One fused op through the op-cost model. Attention is priced per part (each group attends
  // to its own contexts) and the parts' times add; every other op is fused into one kernel.
  // `key`: the parts' content; equal parts (the same op in every layer) are priced once.
  OpPrice price_fused(const FusedKey& key) const {
    const auto known = fused_prices.find(key);
    if (known != fused_prices.end()) return known->second;
    if (fused_prices.size() >= kMaxFusedPrices) fused_prices.clear();  // a pure function
    std::vector<OpShare> parts;
    for (const auto& [id, share] : key) {
      parts.push_back(OpShare{&op_contents[static_cast<size_t>(id)], share});
    }
    const OpPrice price = price_parts(parts);
    fused_prices.emplace(key, price);
    return price;
  }

  OpPrice price_parts(const std::vector<OpShare>& parts) const {
    if (parts.front().op->kind != workloads::OpKind::kAttention || parts.size() == 1) {
      const workloads::Op fused = fuse_ops(parts);
      return through_kernel_path(fused, options.op_cost->price(fused));
    }
    OpPrice sum;
    for (const OpShare& part : parts) {
      const OpPrice p = options.op_cost->price(fuse_ops({part}));
      sum.time += p.time;
      sum.compute_time += p.compute_time;
      sum.memory_time += p.memory_time;
      sum.counts += p.counts;
    }
    return sum;
  }

  // The op's time through the stack's kernel path where one takes it (OpPrice::path_time). It
  // is the software's measured time, so the calibration fractions of the hardware do not
  // stretch it (the pricer takes the longer of it and the calibrated time).
  OpPrice through_kernel_path(const workloads::Op& op, OpPrice price) const {
    if (const KernelPath* path = path_for(software.kernel_paths, op)) {
      price.path_time = kernel_path_time(*path, op);
    }
    return price;
  }

  // The roofline's kernel-path time of a key whose parts (a.first_part ..) a path takes: the
  // fused op's time through the path, else 0.
  double roofline_path_time(const Acc& a, const std::vector<PartLink>& links) const {
    if (software.kernel_paths.empty() || a.first_part < 0) return 0.0;
    const auto content = [&links](int32_t i) {
      return static_cast<size_t>(links[static_cast<size_t>(i)].content);
    };
    if (path_for(software.kernel_paths, op_contents[content(a.first_part)]) == nullptr) {
      return 0.0;
    }
    std::vector<OpShare> parts;
    for (int32_t i = a.first_part; i >= 0; i = links[static_cast<size_t>(i)].next) {
      parts.push_back(OpShare{&op_contents[content(i)], links[static_cast<size_t>(i)].share});
    }
    return through_kernel_path(fuse_ops(parts), OpPrice{}).path_time.si();
  }

  // Scratch of price_groups: a stage's op keys numbered densely in order of first appearance
  // (-1: not in this stage), so the accumulators hold the stage's keys only. Sized by every key
  // ever interned they were zeroed per stage, and a search interns thousands (times the
  // attention-DP ranks: megabytes per iteration).
  struct StageScratch {
    std::vector<int32_t> compute_index, collective_index;  // by key id
    std::vector<int32_t> order, corder;                    // key ids, first appearance
    std::vector<int32_t> layers, clayers;  // by dense index: the layers each key stands for
    std::vector<Acc> acc;                  // by (dense index, slot)
    std::vector<CAcc> cacc;
    // Leaves every index -1 again (also when pricing throws: the scratch outlives the call).
    struct Reset {
      StageScratch& s;
      ~Reset() {
        for (int32_t k : s.order) s.compute_index[static_cast<size_t>(k)] = -1;
        for (int32_t k : s.corder) s.collective_index[static_cast<size_t>(k)] = -1;
        s.order.clear();
        s.corder.clear();
      }
    };
  };
  mutable StageScratch stage_scratch;

  // `why`, when given, receives the parts of the returned cost (explain).
  IterationCost price_groups(const IterationBatch& batch, const std::vector<GroupKey>& groups,
                             bool cached, IterationExplanation* why = nullptr) const {
    std::optional<IterationCost> cost =
        try_price_groups(batch, groups, cached, options.collapse_layers, why);
    if (cost && options.collapse_layers) ++collapsed;
    if (!cost) {
      ++layer_by_layer;
      if (why != nullptr) *why = IterationExplanation{};  // drop the abandoned attempt's parts
      cost = try_price_groups(batch, groups, false, false, why);
    }
    if (why != nullptr) why->cost = *cost;
    return *cost;
  }
  mutable int64_t collapsed = 0, layer_by_layer = 0;  // iterations priced each way

  // nullopt when `collapse` and the groups class the layers differently (the caller prices them
  // layer by layer).
  std::optional<IterationCost> try_price_groups(const IterationBatch& batch,
                                                const std::vector<GroupKey>& groups, bool cached,
                                                bool collapse,
                                                IterationExplanation* why = nullptr) const {
    const int pool = batch.pool;
    const workloads::PoolMapping& mapping = pools[static_cast<size_t>(pool)];
    const int64_t pp = mapping.degrees.pp;
    std::vector<const GroupOps*> ops;
    std::vector<GroupOps> owned;
    owned.reserve(groups.size());
    if (cached) {
      // Bounded memory: a cache that could overflow is dropped before any entry is referenced
      // (costs are pure functions of the key, so this changes speed only). Dropping it while
      // `ops` held pointers into it was a use-after-free.
      std::map<GroupKey, GroupOps>& cache = group_cache[static_cast<size_t>(pool)];
      if (cache.size() + groups.size() > options.max_cached_groups) cache.clear();
    }
    for (const GroupKey& g : groups) {
      if (cached) {
        ops.push_back(&group(pool, g));
      } else {
        owned.push_back(build_group(pool, g, collapse));
        ops.push_back(&owned.back());
      }
    }
    double time = 0;
    double hbm_time = 0, compute_time = 0, network_time = 0;
    double clock_bound = 0;  // compute-bound ops: what a lower clock stretches (serving_power)
    int64_t fused_ops = 0;
    int64_t collective_calls = 0;  // each pays the stack's fixed per-call cost (software time)
    int64_t all_to_all_calls = 0;  // of those, the ones paying per_all_to_all instead
    int64_t layers = 0;
    models::EnergyBreakdown dynamic;
    const double chips_per_stage = d(mapping.chips) / d(pp);
    // Attention-DP ranks: each key accumulates per rank (slots 0 .. ranks-1) or, when it spans
    // the ranks, in slot `ranks`. Without them everything is slot 0.
    const int64_t ranks = groups.empty() ? 1 : groups.front().ranks;
    const size_t slots = ranks > 1 ? static_cast<size_t>(ranks + 1) : 1;
    const auto slot_of = [&](size_t group, bool shared) {
      if (ranks == 1) return size_t{0};
      return shared ? static_cast<size_t>(ranks) : static_cast<size_t>(groups[group].rank);
    };
    StageScratch& scratch = stage_scratch;
    scratch.compute_index.resize(key_ids.size(), -1);
    scratch.collective_index.resize(key_ids.size(), -1);
    for (int64_t s = 0; s < pp; ++s) {
      const StageScratch::Reset reset{scratch};
      std::vector<Acc>& acc = scratch.acc;
      std::vector<CAcc>& cacc = scratch.cacc;
      acc.clear();
      cacc.clear();
      scratch.layers.clear();
      scratch.clayers.clear();
      std::vector<PartLink>& links = part_pool;
      links.clear();
      std::vector<int32_t>& order = scratch.order;  // first appearance, for a fixed summation order
      std::vector<int32_t>& corder = scratch.corder;
      // The dense index of a key in this stage, numbered on first appearance.
      const auto index_of = [slots](int32_t key, std::vector<int32_t>& index,
                                    std::vector<int32_t>& keys, auto& accs) {
        int32_t& i = index[static_cast<size_t>(key)];
        if (i < 0) {
          i = static_cast<int32_t>(keys.size());
          keys.push_back(key);
          accs.resize(accs.size() + slots);
        }
        return static_cast<size_t>(i) * slots;
      };
      // Every group's op of a key stands for as many layers (the layer classes come from the
      // model); a group that classed them otherwise is priced layer by layer instead.
      const auto same_layers = [](std::vector<int32_t>& counts, size_t index, int32_t count) {
        if (index == counts.size()) counts.push_back(count);
        return counts[index] == count;
      };
      std::vector<double> host_bytes(slots, 0.0);  // remote_pool KV, per attention-DP slot
      std::vector<int64_t> host_reads(slots, 0);
      for (size_t gi = 0; gi < ops.size(); ++gi) {
        const StageOps& st = (*ops[gi])[static_cast<size_t>(s)];
        for (const ComputeRec& r : st.compute) {
          const size_t base = index_of(r.key, scratch.compute_index, order, acc);
          if (!same_layers(scratch.layers, base / slots, r.layers)) return std::nullopt;
          Acc& a = acc[base + slot_of(gi, r.shared)];
          a.cls = r.cls;  // per op key; every attention-DP slot of the key needs it
          a.vector = r.vector;
          a.compute_s += r.compute_s;
          a.weight_b = std::max(a.weight_b, r.weight_b);  // weights read once per iteration
          a.other_b += r.other_b;
          a.vector_flops += r.vector_flops;
          for (size_t p = 0; p < a.macs.size(); ++p) a.macs[p] += r.macs[p];
          if (r.op >= 0) {
            const double share = r.shared ? 1.0 / d(groups[gi].ranks) : 1.0;
            const int32_t link = static_cast<int32_t>(links.size());
            links.push_back(PartLink{r.op, share, -1});
            (a.last_part < 0 ? a.first_part : links[static_cast<size_t>(a.last_part)].next) = link;
            a.last_part = link;
          }
        }
        for (const CollectiveRec& r : st.collectives) {
          const size_t base = index_of(r.key, scratch.collective_index, corder, cacc);
          if (!same_layers(scratch.clayers, base / slots, r.layers)) return std::nullopt;
          CAcc& c = cacc[base + slot_of(gi, r.shared)];
          c.kind = r.kind;
          c.group = std::max(c.group, r.group);
          c.bytes += r.bytes;
          c.kv_read = r.kv_read;
        }
        host_bytes[slot_of(gi, false)] += st.kv_host_bytes;
        host_reads[slot_of(gi, false)] += st.kv_host_reads;
      }
      // Per key: the slot that takes longest (ranks meet at every layer's token exchange, so
      // each op waits for its slowest rank); energy counts every rank's work, 1 / ranks of the
      // chips each.
      models::ActionCounts counts;
      double stage_time = 0;
      const double rank_share = ranks > 1 ? 1.0 / d(ranks) : 1.0;
      for (size_t ki = 0; ki < order.size(); ++ki) {
        double op_s = -1, op_mem = 0, op_compute = 0;
        OpBound op_bound = OpBound::kHbm;
        const double layer_count = d(scratch.layers[ki]);
        // Fused into its neighbours' kernels: the op's work, but no kernel of its own.
        bool in_neighbour = false;
        for (size_t slot = 0; slot < slots; ++slot) {
          const Acc& a = acc[ki * slots + slot];
          in_neighbour = in_neighbour || (software.fused_vector_ops && a.vector);
          const double w = ((slots > 1 && slot + 1 < slots) ? rank_share : 1.0) * layer_count;
          if (options.op_cost) {
            if (a.first_part < 0) continue;
            FusedKey& key = fused_key;
            key.clear();
            for (int32_t i = a.first_part; i >= 0; i = links[static_cast<size_t>(i)].next) {
              key.emplace_back(links[static_cast<size_t>(i)].content,
                               links[static_cast<size_t>(i)].share);
            }
            const OpPrice price = price_fused(key);
            // A fused vector op runs in another op's kernel: its fixed latency (fill, drain,
            // barrier) is that kernel's, so it adds only the time its resource is busy.
            const double whole =
                software.fused_vector_ops && a.vector ? price.busy_time().si() : price.time.si();
            const double hardware =
                efficiency.op_time(whole, price.busy_time().si(), price.compute_bound(), a.cls);
            // A kernel path slower than the hardware keeps the op's cores busy: compute time.
            const bool path = price.path_time.si() > hardware;
            const double t = path ? price.path_time.si() : hardware;
            const bool compute = path || price.compute_bound();
            if (t > op_s) {
              op_s = t;
              op_mem = compute ? 0.0 : t;
              op_compute = compute ? t : 0.0;
              op_bound =
                  path ? OpBound::kKernelPath : (compute ? OpBound::kCompute : OpBound::kHbm);
            }
            models::ActionCounts c = price.counts;
            for (size_t p = 0; p < c.macs.size(); ++p) counts.macs[p] += c.macs[p] * w;
            counts.vector_flops += c.vector_flops * w;
            counts.hbm = counts.hbm + c.hbm * w;
            counts.noc = counts.noc + c.noc * w;
            counts.shared_sram = counts.shared_sram + c.shared_sram * w;
            counts.tile_sram = counts.tile_sram + c.tile_sram * w;
            continue;
          }
          const double bytes = a.weight_b + a.other_b;
          const double mem_s = efficiency.memory_time(bytes, hbm_bw, a.cls);
          const double math_s = efficiency.compute_time(a.compute_s, a.cls);
          const double path_s = roofline_path_time(a, links);
          const double compute_s = std::max(math_s, path_s);
          const double t = std::max(compute_s, mem_s);
          if (t > op_s) {
            op_s = t;
            op_mem = mem_s;
            op_compute = compute_s;
            op_bound = path_s > math_s && path_s > mem_s ? OpBound::kKernelPath
                       : compute_s >= mem_s              ? OpBound::kCompute
                                                         : OpBound::kHbm;
          }
          for (size_t p = 0; p < a.macs.size(); ++p) counts.macs[p] += a.macs[p] * w;
          counts.vector_flops += a.vector_flops * w;
          counts.hbm = counts.hbm + Bytes(bytes * w);
          // Every HBM byte crosses the on-chip network and is written into and read out of
          // tile buffers, as stats::count_actions has it for the cycle model's ops.
          counts.noc = counts.noc + Bytes(bytes * w);
          counts.tile_sram = counts.tile_sram + Bytes(2.0 * bytes * w);
        }
        if (why != nullptr && op_s >= 0) {
          why->ops.push_back(OpTime{s, key_names[static_cast<size_t>(order[ki])],
                                    scratch.layers[ki], Duration(op_s), op_bound});
        }
        stage_time += op_s * layer_count;
        hbm_time += op_mem * layer_count;
        compute_time += op_compute * layer_count;
        if (op_compute > op_mem) clock_bound += op_compute * layer_count;
        if (!in_neighbour) fused_ops += scratch.layers[ki];  // kernels
      }
      for (size_t ki = 0; ki < corder.size(); ++ki) {
        double t = 0;
        bool called = false;  // a real call: bytes between at least two chips
        workloads::CollectiveKind kind = workloads::CollectiveKind::kAllReduce;
        const int32_t layer_count = scratch.clayers[ki];
        int64_t call_group = 1;
        double call_bytes = 0;  // the most loaded slot's
        for (size_t slot = 0; slot < slots; ++slot) {
          const CAcc& c = cacc[ki * slots + slot];
          if (c.bytes <= 0) continue;
          called = called || (c.group > 1 && !c.kv_read);  // KV reads are no stack call
          kind = c.kind;
          t = std::max(
              t, collective_time(c.kind, c.group, c.bytes, pool_first[static_cast<size_t>(pool)]));
          call_group = std::max(call_group, c.group);
          call_bytes = std::max(call_bytes, c.bytes);
          const double w = (slots > 1 && slot + 1 < slots) ? rank_share : 1.0;
          counts.link = counts.link + Bytes(c.bytes * w * d(layer_count));
        }
        if (why != nullptr && t > 0) {
          why->collectives.push_back(CollectiveTime{s, key_names[static_cast<size_t>(corder[ki])],
                                                    workloads::to_string(kind), call_group,
                                                    Bytes(call_bytes), layer_count, Duration(t)});
        }
        stage_time += t * d(layer_count);
        network_time += t * d(layer_count);
        collective_calls += called ? layer_count : 0;
        all_to_all_calls +=
            called && kind == workloads::CollectiveKind::kAllToAll ? layer_count : 0;
      }
      // remote_pool: each attention op reads its host share over the chip's host link (the
      // host's memory shared by its chips), after its HBM part, as the system engine has it;
      // the slowest attention-DP rank sets the time.
      if (options.host) {
        double host_t = 0;
        for (size_t slot = 0; slot < slots; ++slot) {
          if (host_bytes[slot] <= 0) continue;
          host_t = std::max(host_t, host_bytes[slot] / options.host->per_chip_bandwidth().si() +
                                        options.host->link_latency.si() * d(host_reads[slot]));
          const double w = (slots > 1 && slot + 1 < slots) ? rank_share : 1.0;
          dynamic.link += options.host->link_energy * Bytes(host_bytes[slot] * w) * chips_per_stage;
        }
        stage_time += host_t;
        network_time += host_t;
        if (why != nullptr) why->host_kv_reads += Duration(host_t);
      }
      layers += (*ops.front())[static_cast<size_t>(s)].layers;
      time += stage_time;
      // The stage's chips are busy for its whole time (kernels, collectives): active power.
      dynamic += models::price(counts, chip.energy, Power(0), chip.power.active_power,
                               Duration(stage_time))
                     .scaled(chips_per_stage);
    }
    const int64_t host_seqs = host_sequences(groups);
    const double sw = software.per_op_launch.si() * d(fused_ops) +
                      software.per_layer_sync.si() * d(layers) + software.per_iteration.si() +
                      software.per_collective.si() * d(collective_calls - all_to_all_calls) +
                      software.per_all_to_all.si() * d(all_to_all_calls) +
                      software.per_sequence.si() * d(host_seqs) +
                      efficiency.overhead_s(fused_ops, host_seqs);
    time += sw;
    if (why != nullptr) {
      const int64_t calls = collective_calls - all_to_all_calls;
      why->software = {
          {"per_op_launch", fused_ops, software.per_op_launch},
          {"per_layer_sync", layers, software.per_layer_sync},
          {"per_iteration", 1, software.per_iteration},
          {"per_collective", calls, software.per_collective},
          {"per_all_to_all", all_to_all_calls, software.per_all_to_all},
          {"per_sequence", host_seqs, software.per_sequence},
          {"fitted_overhead", 1, Duration(efficiency.overhead_s(fused_ops, host_seqs))}};
    }
    IterationCost cost;
    cost.time = Duration(time);
    cost.energy = dynamic.total() + chip.power.static_power * d(mapping.chips) * Duration(time);
    cost.breakdown = {{"hbm", Duration(hbm_time)},
                      {"compute", Duration(compute_time)},
                      {"network", Duration(network_time)},
                      {"software", Duration(sw)}};
    IterationPowerParts parts;
    parts.energy = dynamic;
    parts.energy.static_energy = chip.power.static_power * d(mapping.chips) * Duration(time);
    parts.clock_bound_time = Duration(clock_bound);
    cost.power = parts;
    return cost;
  }

  // The sequences one host scheduler serves in the iteration: the whole batch, or with
  // attention-DP ranks the most loaded rank's (each rank runs its own scheduler process, in
  // parallel with the others).
  static int64_t host_sequences(const std::vector<GroupKey>& groups) {
    std::map<int64_t, int64_t> per_rank;
    for (const GroupKey& g : groups) per_rank[g.ranks > 1 ? g.rank : 0] += g.count;
    int64_t most = 0;
    for (const auto& [rank, n] : per_rank) most = std::max(most, n);
    return most;
  }

  // The batch as groups (sorted, so that the fused sums have one order).
  // The attention-DP ranks the batch is priced with: its own when they are the mapping's
  // attn_dp, otherwise 1 (the mapping's even split of the whole batch).
  int64_t ranks_of(const IterationBatch& batch) const {
    const int64_t a = pools[static_cast<size_t>(batch.pool)].degrees.attn_dp;
    return batch.attention_dp > 1 && batch.attention_dp == a ? a : 1;
  }

  std::vector<GroupKey> groups_of(const IterationBatch& batch, bool bucketed) const {
    const int bits = options.bucket_bits;
    auto b = [&](int64_t v) { return bucketed ? bucket_value(v, bits) : v; };
    const int64_t ranks = ranks_of(batch);
    const auto rank_of = [&](const SequenceWork& s) {
      return ranks > 1 ? std::min(std::max<int64_t>(0, s.rank), ranks - 1) : int64_t{0};
    };
    // (rank, new_tokens) -> (count, sum ctx)
    std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, double>> decodes;
    // (rank, new_tokens, ctx) -> count
    std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> exact;
    std::vector<GroupKey> out;
    for (const SequenceWork& s : batch.sequences) {
      const int64_t rank = rank_of(s);
      if (s.phase == SequencePhase::kDecode) {
        if (options.collapse_decodes) {
          auto& e = decodes[{rank, s.new_tokens}];
          e.first += 1;
          e.second += d(s.context_after);
        } else {
          exact[{rank, s.new_tokens, s.context_after}] += 1;
        }
      } else {
        const int64_t tokens = std::max<int64_t>(1, b(s.new_tokens));
        out.push_back(GroupKey{workloads::Phase::kPrefill, 1, tokens,
                               std::max(tokens, b(s.context_after)), ranks, rank});
      }
    }
    for (const auto& [k, e] : decodes) {
      const int64_t tokens = k.second;
      const int64_t mean = static_cast<int64_t>(std::llround(e.second / d(e.first)));
      out.push_back(GroupKey{workloads::Phase::kDecode, e.first, tokens, std::max(tokens, b(mean)),
                             ranks, k.first});
    }
    for (const auto& [k, count] : exact) {
      const auto [rank, tokens, ctx] = k;
      out.push_back(GroupKey{workloads::Phase::kDecode, count, tokens, std::max(tokens, b(ctx)),
                             ranks, rank});
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

RooflineCostModel::RooflineCostModel(workloads::ModelConfig model, models::ChipParams chip,
                                     std::vector<workloads::PoolMapping> pools,
                                     std::optional<models::Topology> network,
                                     SoftwareOverheads software, RooflineOptions options,
                                     EfficiencyKnobs efficiency)
    : impl_(std::make_unique<Impl>(std::move(model))) {
  Impl& m = *impl_;
  m.chip = std::move(chip);
  m.pools = std::move(pools);
  m.topology = std::move(network);
  if (m.topology) m.network = std::make_unique<models::NetworkModel>(*m.topology);
  m.software = software;
  m.options = options;
  m.efficiency = efficiency;
  if (options.bucket_bits < 1 || options.bucket_bits > 20) {
    throw InputError(SourceLocation{"<roofline>", 0, 0}, "bucket_bits", "expected 1 to 20");
  }
  for (MathPrecision p : {MathPrecision::kBf16, MathPrecision::kFp8, MathPrecision::kFp4}) {
    // Peak at the clock the engine sustains under dense matrix work of this precision (power
    // limit), not the boost.
    m.matrix_rate[models::index_of(p)] = 2.0 * d(m.chip.tiles.matrix.macs_per_cycle(p)) *
                                         d(m.chip.tiles.count) * m.chip.tiles.matrix_clock(p).si();
  }
  m.vector_rate = m.chip.peak_vector_rate().si();
  m.hbm_bw = m.chip.hbm.peak_bandwidth().si();
  if (m.hbm_bw <= 0) {
    throw InputError(SourceLocation{m.chip.name, 0, 0}, "hbm", "the roofline needs HBM bandwidth");
  }
  m.placement = models::make_kv_placement(m.options.kv_placement);
  if (m.options.kv_placement == "remote_pool" && !m.options.host) {
    throw InputError(SourceLocation{"<system>", 0, 0}, "kv_placement",
                     "remote_pool keeps the KV in host memory: expected a system file with a "
                     "host section (link and memory)");
  }
  if (m.options.kv_block_tokens < 1) {
    throw InputError(SourceLocation{"<roofline>", 0, 0}, "kv_block_tokens", "expected at least 1");
  }
  if (m.options.collapse_layers) {
    // One main layer per (dense or MoE, attention kind) class, in the model's order (its dense
    // layers come first), and the MTP layers, which attend like the last main layer: kept only
    // when the last class laid out is the last main layer's.
    const workloads::ModelConfig& full = m.model;
    std::vector<std::pair<bool, workloads::LayerAttention>> kinds;
    std::vector<int32_t> counts;
    for (int l = 0; l < full.layers(); ++l) {
      const std::pair<bool, workloads::LayerAttention> kind{full.layer_is_moe(l),
                                                            full.layer_attention(l)};
      const auto at = std::find(kinds.begin(), kinds.end(), kind);
      if (at == kinds.end()) {
        kinds.push_back(kind);
        counts.push_back(1);
      } else {
        ++counts[static_cast<size_t>(at - kinds.begin())];
      }
    }
    const auto last = std::make_pair(full.layer_is_moe(static_cast<int>(full.layers() - 1)),
                                     full.layer_attention(static_cast<int>(full.layers() - 1)));
    // The reduced model lays its dense classes before its MoE ones (first_dense_layers); a
    // dense class first met after an MoE one (interleaved layers) keeps the full model.
    bool seen_moe = false;
    bool dense_after_moe = false;
    for (const auto& kind : kinds) {
      dense_after_moe = dense_after_moe || (seen_moe && !kind.first);
      seen_moe = seen_moe || kind.first;
    }
    if (!dense_after_moe && (full.mtp_layers() == 0 || kinds.back() == last)) {
      workloads::FfnConfig ffn = full.ffn();
      ffn.moe_layer_step = 1;  // the reduced model's MoE classes follow its dense ones
      std::vector<workloads::LayerAttention> attention;
      int64_t dense = 0;
      for (const auto& [moe, kind] : kinds) {
        attention.push_back(kind);
        dense += moe ? 0 : 1;
      }
      if (ffn.type == workloads::FfnType::kMoe) ffn.first_dense_layers = dense;
      m.reduced = full.with_layers(attention, ffn);  // precision, head, sampler, MTP kept
      m.reduced_layers = counts;
      for (int64_t i = 0; i < full.mtp_layers(); ++i) m.reduced_layers.push_back(1);
    }
  }
  m.group_cache.resize(m.pools.size());
  const std::vector<int64_t> first_chips = workloads::pool_first_chips(m.pools);
  for (const workloads::PoolMapping& pool : m.pools) {
    if (pool.degrees.dp != 1) {
      throw InputError(pool.where, "dp",
                       "the serving layer runs one engine per pool: expected dp = 1, found " +
                           std::to_string(pool.degrees.dp) + " (give each replica its own study)");
    }
    const int64_t first = first_chips[m.pool_first.size()];
    if (m.topology && first + pool.chips > m.topology->endpoints()) {
      throw InputError(
          pool.where, "chips",
          "the network has " + std::to_string(m.topology->endpoints()) + " chips; " +
              (first > 0 ? "the pools before this one take " + std::to_string(first) + " and "
                         : std::string()) +
              "the pool wants " + std::to_string(pool.chips));
    }
    m.pool_first.push_back(first);
    workloads::validate_mapping(m.model, pool);
    const int64_t batch = pool.degrees.attn_dp;
    const workloads::MappedIteration mapped = workloads::map_iteration(
        m.model, workloads::IterationShape{workloads::Phase::kDecode, batch, 1, 1}, pool);
    workloads::check_fit(mapped, workloads::memory_footprint(m.model, mapped, m.chip.hbm.capacity));
  }
}

RooflineCostModel::~RooflineCostModel() = default;

int64_t RooflineCostModel::collapsed_iterations() const { return impl_->collapsed; }
int64_t RooflineCostModel::layer_by_layer_iterations() const { return impl_->layer_by_layer; }

void RooflineCostModel::set_efficiency(const EfficiencyKnobs& knobs) {
  impl_->efficiency = knobs;
  impl_->batch_cache.clear();  // priced with the old knobs; the op cache does not depend on them
}

const EfficiencyKnobs& RooflineCostModel::efficiency() const { return impl_->efficiency; }

std::string RooflineCostModel::fidelity() const {
  return impl_->options.op_cost ? impl_->options.op_cost->fidelity() : std::string("roofline");
}

IterationExplanation RooflineCostModel::explain(const IterationBatch& batch) const {
  const Impl& m = *impl_;
  if (batch.pool < 0 || batch.pool >= static_cast<int>(m.pools.size())) {
    throw std::invalid_argument("RooflineCostModel: no pool " + std::to_string(batch.pool));
  }
  if (batch.sequences.empty()) {
    throw std::invalid_argument("RooflineCostModel: an empty iteration");
  }
  // The groups cost() prices (bucketed where it caches), priced afresh with every part kept.
  IterationExplanation why;
  m.price_groups(batch, m.groups_of(batch, m.options.cache), false, &why);
  return why;
}

IterationCost RooflineCostModel::cost(const IterationBatch& batch) const {
  const Impl& m = *impl_;
  if (batch.pool < 0 || batch.pool >= static_cast<int>(m.pools.size())) {
    throw std::invalid_argument("RooflineCostModel: no pool " + std::to_string(batch.pool));
  }
  if (batch.sequences.empty()) {
    throw std::invalid_argument("RooflineCostModel: an empty iteration");
  }
  if (!m.options.cache) return m.price_groups(batch, m.groups_of(batch, false), false);
  const std::vector<GroupKey> groups = m.groups_of(batch, true);
  std::vector<int64_t> key;
  key.reserve(1 + 6 * groups.size());
  key.push_back(batch.pool);
  for (const GroupKey& g : groups) {
    key.push_back(static_cast<int64_t>(g.phase));
    key.push_back(g.count);
    key.push_back(g.new_tokens);
    key.push_back(g.context);
    key.push_back(g.ranks);
    key.push_back(g.rank);
  }
  auto it = m.batch_cache.find(key);
  if (it != m.batch_cache.end()) {
    ++hits_;
    return it->second;
  }
  ++misses_;
  if (m.batch_cache.size() >= (size_t{1} << 20)) m.batch_cache.clear();
  IterationCost cost = m.price_groups(batch, groups, true);
  m.batch_cache.emplace(std::move(key), cost);
  return cost;
}

int64_t pool_kv_capacity_blocks(const workloads::ModelConfig& model, const models::ChipParams& chip,
                                const workloads::PoolMapping& mapping, int64_t block_tokens,
                                std::optional<Bytes> kv_memory_per_chip) {
  const workloads::MappedIteration mapped = workloads::map_iteration(
      model, workloads::IterationShape{workloads::Phase::kDecode, mapping.degrees.attn_dp, 1, 1},
      mapping);
  const std::vector<workloads::MemoryFootprint> footprints =
      workloads::memory_footprint(model, mapped, chip.hbm.capacity);
  workloads::check_fit(mapped, footprints);
  int64_t per_chip = std::numeric_limits<int64_t>::max();
  for (const workloads::MemoryFootprint& f : footprints) {
    int64_t tokens = f.kv_capacity_tokens;
    if (kv_memory_per_chip && f.kv_bytes_per_token.si() > 0) {
      tokens = static_cast<int64_t>(
          std::min(9e18, std::floor(kv_memory_per_chip->si() / f.kv_bytes_per_token.si())));
    }
    per_chip = std::min(per_chip, tokens);
  }
  // Each attention group caches its own sequences; the chips of a group share each token's KV
  // heads, and pipeline stages its layers, so the pool holds attn_dp x dp groups' worth.
  const int64_t tokens = per_chip * mapping.degrees.attn_dp * mapping.degrees.dp;
  return std::max<int64_t>(0, tokens / block_tokens);
}

int64_t RooflineCostModel::kv_capacity_blocks(int pool, int64_t block_tokens) const {
  const Impl& m = *impl_;
  std::optional<Bytes> kv_memory;
  if (m.options.kv_placement == "remote_pool") kv_memory = m.options.host->per_chip_capacity();
  return pool_kv_capacity_blocks(m.model, m.chip, m.pools.at(static_cast<size_t>(pool)),
                                 block_tokens, kv_memory);
}

Duration RooflineCostModel::transfer_time(Bytes bytes) const {
  return Duration(impl_->collective_time(workloads::CollectiveKind::kSend, 2, bytes.si(), 0));
}

Duration RooflineCostModel::kv_handoff_time(Bytes bytes, models::ChipSpan prefill,
                                            models::ChipSpan decode) const {
  return Duration(impl_->handoff_time(bytes.si(), prefill, decode));
}

Bytes RooflineCostModel::kv_bytes_per_token() const { return impl_->model.kv_bytes_per_token(); }

}  // namespace scoville::serving
