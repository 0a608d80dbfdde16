#include "workloads/mapping/map_iteration.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "sim/base/rng.hpp"
#include "workloads/decompose.hpp"

namespace scoville::workloads {

namespace {

double d(int64_t v) { return static_cast<double>(v); }

std::string unsharded_op_message(const Op& op) {
  return "map_iteration: op '" + op.name + "' (layer " + std::to_string(op.layer) + ", " +
         to_string(op.kind) +
         ") declares no sharding rule: expected one of workloads/op.hpp's Sharding values, set "
         "where the op is created";
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Scales the work and traffic of an op (not its weights).
void scale_work(Op& op, double f) {
  op.flops = op.flops * f;
  op.activation_in_bytes = op.activation_in_bytes * f;
  op.activation_out_bytes = op.activation_out_bytes * f;
  op.kv_read_bytes = op.kv_read_bytes * f;
  op.kv_write_bytes = op.kv_write_bytes * f;
}

// Every token on every rank, weights replicated: the op as it is.
Op replicated(const Op& op) { return op; }

// Tokens split `parts` ways; each rank holds the whole (small) weight.
Op token_split(Op op, int64_t parts) {
  scale_work(op, 1.0 / d(parts));
  op.m = ceil_div(op.m, parts);
  return op;
}

// Everything split `parts` ways (heads, or whole experts): work, weights and instances.
Op instance_split(Op op, int64_t parts) {
  scale_work(op, 1.0 / d(parts));
  op.weight_bytes = op.weight_bytes / d(parts);
  op.instances = ceil_div(op.instances, parts);
  return op;
}

// Column-parallel matmul: the output columns (n) split; every rank reads all the input.
Op column_split(Op op, double fraction, int64_t n) {
  op.flops = op.flops * fraction;
  op.weight_bytes = op.weight_bytes * fraction;
  op.activation_out_bytes = op.activation_out_bytes * fraction;
  op.n = n;
  return op;
}
Op column_split(const Op& op, int64_t parts) {
  return column_split(op, 1.0 / d(parts), ceil_div(op.n, parts));
}

// Row-parallel matmul: the reduction dimension (k) split; each rank outputs partial sums of the
// full output, which an all-reduce (or reduce-scatter) then adds.
Op row_split(Op op, int64_t parts) {
  op.flops = op.flops / d(parts);
  op.weight_bytes = op.weight_bytes / d(parts);
  op.activation_in_bytes = op.activation_in_bytes / d(parts);
  op.k = ceil_div(op.k, parts);
  return op;
}

// Drawn tokens per routed expert, per EP layer (one replica batch).
using LayerDraws = std::map<int, std::vector<int64_t>>;

// Builds the trace of one chip role.
class RoleBuilder {
 public:
  // `draws`: null under the expected routing.
  RoleBuilder(const ModelConfig& model, const MappedIteration& mapped, const ChipRole& role,
              const LayerDraws* draws)
      : model_(model),
        degrees_(mapped.mapping.degrees),
        attn_tp_(mapped.mapping.attn_tp()),
        role_(role),
        stage_layers_(stage_layers(model, degrees_.pp, role.stage)),
        local_(decompose_iteration(model, with_batch(mapped.shape, role.attn_batch))),
        replica_(decompose_iteration(model, with_batch(mapped.shape, role.replica_batch))),
        token_bytes_(d(model.hidden_size()) * bytes_per_value(model.precision().activations)),
        residual_token_bytes_(d(model.hidden_size()) * bytes_per_value(model.precision().residual)),
        dispatch_token_bytes_(d(model.hidden_size()) *
                              std::min(bytes_per_value(model.precision().activations),
                                       bytes_per_value(model.precision().mlp_activation_format()))),
        local_tokens_(role.attn_batch * mapped.shape.new_tokens),
        replica_tokens_(role.replica_batch * mapped.shape.new_tokens),
        sp_(degrees_.sequence_parallel && degrees_.tp > 1),
        experts_by_all_to_all_(attn_tp_ != degrees_.ep),
        draws_(draws) {
    const AttentionConfig& a = model.attention();
    q_local_ = a.heads / attn_tp_;
    kv_local_ = std::max<int64_t>(1, a.kv_heads / attn_tp_);
  }

  std::vector<TraceNode> build() {
    const bool first_stage = role_.stage == 0;
    const bool last_stage = role_.stage == degrees_.pp - 1;
    const int64_t stride = degrees_.tp;  // ranks between the same position of adjacent stages
    require_sharding_rules(local_.ops);
    if (!first_stage) {
      collective("pp_recv", stage_layers_.first, CollectiveKind::kRecv, "pp", degrees_.pp,
                 Bytes(d(local_tokens_) * residual_token_bytes_), role_.ranks.front() - stride);
    }
    for (size_t i = 0; i < local_.ops.size(); ++i) {
      const Op& op = local_.ops[i];
      const bool head = op.layer < 0;
      const bool mine = head ? (op.sharding == Sharding::kVocabLookup ? first_stage : last_stage)
                             : op.layer >= stage_layers_.first && op.layer < stage_layers_.last;
      if (mine) add(op, replica_.ops[i]);
    }
    if (!last_stage) {
      collective("pp_send", stage_layers_.last - 1, CollectiveKind::kSend, "pp", degrees_.pp,
                 Bytes(d(local_tokens_) * residual_token_bytes_), role_.ranks.front() + stride);
    }
    return std::move(nodes_);
  }

  std::vector<RankExpertOps> take_rank_experts() { return std::move(rank_experts_); }

 private:
  static IterationShape with_batch(IterationShape shape, int64_t batch) {
    shape.batch = batch;
    return shape;
  }

  // `local` is the op on this attention group's sequences, `replica` on the whole replica's.
  // Dispatches on the rule the op declares (op.hpp, Sharding), never on its name.
  void add(const Op& local, const Op& replica) {
    const int layer = local.layer;
    const bool ep_layer = layer >= 0 && model_.layer_is_moe(layer) && degrees_.ep > 1;
    const bool all_to_all_layer = ep_layer && experts_by_all_to_all_;
    switch (local.sharding) {
      case Sharding::kVocabLookup:
        // Vocab-parallel table: each rank looks up the rows it holds; an all-reduce fills in.
        compute(instance_split(local, attn_tp_));
        reduce_partials(local.name, layer, "attn_tp", attn_tp_, local_tokens_);
        return;
      case Sharding::kAttentionNorm:
        compute(token_op(local));
        gather_tokens("attn", layer);
        return;
      case Sharding::kAttentionResidual:
        compute(token_op(local));
        return;
      case Sharding::kQkvColumns: {
        const AttentionConfig& a = model_.attention();
        const int64_t n = (q_local_ * a.query_projections() + 2 * kv_local_) * a.head_dim;
        compute(column_split(local, d(n) / d(local.n), n));
        return;
      }
      case Sharding::kHeadColumns:
        // Also MLA prefill's attn_kv_up (the latent expanded per head) and the LM head.
        compute(column_split(local, attn_tp_));
        return;
      case Sharding::kHeadInstances:
        compute(instance_split(local, attn_tp_));
        return;
      case Sharding::kHeadElementwise: {
        Op op = token_split_work(local, attn_tp_);
        op.weight_bytes = op.weight_bytes / d(attn_tp_);
        compute(op);
        return;
      }
      case Sharding::kRotary: {
        const AttentionConfig& a = model_.attention();
        Op op = local;
        scale_work(op, d(q_local_ + kv_local_) / d(a.heads + a.kv_heads));
        compute(op);
        return;
      }
      case Sharding::kAttentionCore:
        compute(attention_split(local));
        return;
      case Sharding::kQueryHeadVector: {
        Op op = local;
        const double f = d(q_local_) / d(model_.attention().heads);
        scale_work(op, f);
        op.weight_bytes = op.weight_bytes * f;  // sink logits, one per head
        compute(op);
        return;
      }
      case Sharding::kOutputRows:
        compute(row_split(local, attn_tp_));
        reduce_partials(local.name, layer, "attn_tp", attn_tp_, local_tokens_);
        return;
      case Sharding::kAttentionReplicated:
        compute(replicated(local));  // MLA latent projections and norms (vLLM ReplicatedLinear)
        return;
      case Sharding::kFfnNorm:
        compute(token_op(local));
        if (!all_to_all_layer && sp_) {
          gather_tokens("ffn", layer);
        } else if (!ep_layer && degrees_.attn_dp > 1) {
          collective("ffn_all_gather", layer, CollectiveKind::kAllGather, "attn_dp",
                     degrees_.attn_dp, Bytes(d(local_tokens_) * token_bytes_));
        }
        return;
      case Sharding::kFfnResidual:
        if (!ep_layer) {
          reduce_partials("ffn", layer, "tp", degrees_.tp, replica_tokens_);
        } else if (!all_to_all_layer) {
          reduce_partials("ffn", layer, "attn_tp", attn_tp_, local_tokens_);
        } else if (attn_tp_ > 1 && !sp_) {
          // Sequence parallel keeps the owned tokens sharded; otherwise every rank of the
          // attention group needs all of them again.
          collective("moe_all_gather", layer, CollectiveKind::kAllGather, "attn_tp", attn_tp_,
                     Bytes(d(local_tokens_) / d(attn_tp_) * residual_token_bytes_));
        }
        compute(token_op(local));
        return;
      case Sharding::kFfnColumns:
      case Sharding::kFfnRows:
      case Sharding::kFfnElementwise:
      case Sharding::kFfnReplicated:
      case Sharding::kExpertColumns:
      case Sharding::kExpertRows:
      case Sharding::kExpertElementwise:
        if (ep_layer) {
          add_expert_parallel(local, replica);
        } else {
          add_tensor_parallel_ffn(replica);
        }
        return;
      case Sharding::kVocabSampling:
        // Vocab-parallel sampling: each rank picks among its logits, then the ranks exchange
        // their best (value, index) per row.
        compute(token_split_work(local, attn_tp_));
        if (attn_tp_ > 1) {
          collective("sampling_all_gather", layer, CollectiveKind::kAllGather, "attn_tp", attn_tp_,
                     Bytes(2.0 * d(local.m) * bytes_per_value(model_.precision().activations)));
        }
        return;
      case Sharding::kHeadNorm:
        compute(token_op(local));
        gather_tokens("head", layer);
        return;
      case Sharding::kUnset:
        break;
    }
    throw std::invalid_argument(unsharded_op_message(local));
  }

  // Dense FFN, shared experts and (ep = 1) routed experts: Megatron column- then row-parallel
  // over the tp group, on the replica's tokens (gathered from the attention-DP groups).
  void add_tensor_parallel_ffn(const Op& replica) {
    const int64_t tp = degrees_.tp;
    switch (replica.sharding) {
      case Sharding::kFfnColumns:
      case Sharding::kExpertColumns:
        compute(column_split(replica, tp));
        return;
      case Sharding::kFfnRows:
      case Sharding::kExpertRows:
        compute(row_split(replica, tp));
        return;
      case Sharding::kFfnElementwise:
      case Sharding::kExpertElementwise:
        compute(token_split_work(replica, tp));
        return;
      default:
        compute(replicated(replica));  // router, top-k, combine (on partial sums), MTP glue
        return;
    }
  }

  // MoE layer with ep > 1: each rank owns 1 / attn_tp of its attention group's tokens, routes
  // them, runs the shared experts on them, and dispatches them to the ranks of its EP group
  // holding their experts (DeepEP-style all-to-all); the experts' outputs come back the same
  // way. When the EP group is one attention group the tokens are on every rank already: no
  // dispatch or combine, and the all-reduce in add() sums the experts' partial outputs. With
  // ep < tp the tp / ep EP groups each hold all experts and serve 1 / (tp / ep) of the
  // replica's tokens (whole attention groups, pool_mapping.cpp); the expert batch is that
  // average share.
  void add_expert_parallel(const Op& local, const Op& replica) {
    const Sharding rule = local.sharding;
    const int64_t ep = degrees_.ep;
    const int64_t expert_replicas = degrees_.tp / ep;
    const double owned_tokens = d(local_tokens_) / d(attn_tp_);
    // Each owned token goes to top_k experts, (ep - 1) / ep of them on other ranks. The dispatch
    // sends the experts' matmul input, quantized before the send where the experts read a
    // narrower format than the hidden state (DeepEP: "FP8 dispatching and BF16 combining";
    // TensorRT-LLM's wide-EP blog part 3, "low-precision AlltoAll": NVFP4 dispatch); the
    // combine returns the experts' outputs as their matmuls wrote them (precision.residual).
    const double sends = owned_tokens * d(model_.ffn().top_k) * d(ep - 1) / d(ep);
    const Bytes dispatch(sends * dispatch_token_bytes_);
    const Bytes combine(sends * residual_token_bytes_);
    if (rule == Sharding::kExpertColumns || rule == Sharding::kExpertRows ||
        rule == Sharding::kExpertElementwise) {
      if (experts_by_all_to_all_ && rule == Sharding::kExpertColumns) {
        collective("moe_dispatch", local.layer, CollectiveKind::kAllToAll, "ep", ep, dispatch);
      }
      if (draws_ == nullptr) {
        compute(token_split(instance_split(replica, ep), expert_replicas));
      } else {
        // Each rank its own experts under the draw (ep = tp: map_iteration refuses a drawn
        // routing with expert replicas); the node holds ranks.front()'s op.
        const std::vector<int64_t>& counts = draws_->at(local.layer);
        RankExpertOps variants;
        for (int64_t rank : role_.ranks) {
          variants.per_rank.push_back(rank_expert_op(replica, counts, ep, rank % degrees_.tp));
        }
        variants.node = nodes_.size();
        compute(variants.per_rank.front());
        rank_experts_.push_back(std::move(variants));
      }
      if (experts_by_all_to_all_ && rule == Sharding::kExpertRows) {
        collective("moe_combine_all_to_all", local.layer, CollectiveKind::kAllToAll, "ep", ep,
                   combine);
      }
    } else {
      compute(token_split(local, attn_tp_));  // router, top-k, shared experts, combine
    }
  }

  Op attention_split(Op op) const {
    const AttentionConfig& a = model_.attention();
    const double q = d(q_local_) / d(a.heads);
    const double kv = d(kv_local_) / d(a.kv_heads);
    op.flops = op.flops * q;
    op.activation_in_bytes = op.activation_in_bytes * q;
    op.activation_out_bytes = op.activation_out_bytes * q;
    op.kv_read_bytes = op.kv_read_bytes * kv;
    op.kv_write_bytes = op.kv_write_bytes * kv;
    op.m = op.m / (a.heads / a.kv_heads) * (q_local_ / kv_local_);
    op.instances = op.instances / a.kv_heads * kv_local_;
    return op;
  }

  // Work split without changing the row count m (elementwise over a split width).
  static Op token_split_work(Op op, int64_t parts) {
    scale_work(op, 1.0 / d(parts));
    return op;
  }

  // Row-parallel partial sums of `tokens` tokens: added by an all-reduce, or with sequence
  // parallelism reduce-scattered so that each rank keeps 1 / size of the tokens.
  void reduce_partials(const std::string& prefix, int layer, const std::string& group, int64_t size,
                       int64_t tokens) {
    if (size == 1) return;
    if (sp_) {
      collective(prefix + "_reduce_scatter", layer, CollectiveKind::kReduceScatter, group, size,
                 Bytes(d(tokens) / d(size) * residual_token_bytes_));
    } else {
      collective(prefix + "_all_reduce", layer, CollectiveKind::kAllReduce, group, size,
                 Bytes(d(tokens) * residual_token_bytes_));
    }
  }

  // Sequence parallel: the token shards come back together before a column-parallel op.
  void gather_tokens(const std::string& prefix, int layer) {
    if (!sp_) return;
    collective(prefix + "_all_gather", layer, CollectiveKind::kAllGather, "tp", degrees_.tp,
               Bytes(d(local_tokens_) / d(degrees_.tp) * token_bytes_));
  }

  // Norms and residual adds: on every token on every rank, or on 1 / tp of them (sequence
  // parallel).
  Op token_op(const Op& local) const { return sp_ ? token_split(local, attn_tp_) : local; }

  void compute(Op op) {
    TraceNode& node = append(op.name, op.layer);
    node.kind = TraceNodeKind::kCompute;
    node.op = std::move(op);
  }

  void collective(const std::string& name, int layer, CollectiveKind kind, const std::string& group,
                  int64_t size, Bytes bytes, int64_t peer = -1) {
    TraceNode& node = append(name, layer);
    node.kind = TraceNodeKind::kCollective;
    node.collective = Collective{kind, group, size, peer, bytes};
  }

  // One stream of execution: every node consumes the output of the one before it.
  TraceNode& append(const std::string& name, int layer) {
    TraceNode node;
    node.id = nodes_.size();
    node.name = name;
    node.layer = layer;
    if (!nodes_.empty()) node.data_deps.push_back(nodes_.back().id);
    nodes_.push_back(std::move(node));
    return nodes_.back();
  }

  const ModelConfig& model_;
  const ParallelDegrees& degrees_;
  const int64_t attn_tp_;
  const ChipRole& role_;
  const StageLayers stage_layers_;
  const IterationTrace local_;
  const IterationTrace replica_;
  // One token's hidden state as a matmul's input takes it (precision.activations): what the
  // sequence-parallel and attention-DP all-gathers before a matmul carry.
  const double token_bytes_;
  // One token's hidden state as the matmuls write it and the residual stream holds it
  // (precision.residual): what all-reduces, reduce-scatters, combines and pipeline sends carry.
  const double residual_token_bytes_;
  // One token as the MoE dispatch sends it: the narrower of the activations' format and the
  // experts' input format (precision.mlp_activations).
  const double dispatch_token_bytes_;
  const int64_t local_tokens_;
  const int64_t replica_tokens_;
  const bool sp_;  // sequence parallel (attn_dp = 1, so attn_tp = tp)
  // A MoE layer's tokens travel by all-to-all only when an EP group spans several attention
  // groups. When it is one attention group (ep = attn_tp: TEP), every rank of it holds all
  // the group's tokens after the attention all-reduce, so each rank runs its own experts on
  // the tokens routed to them and one all-reduce over the group sums the partial outputs
  // (TensorRT-LLM's TEP, "sparse experts as GEMMs", tech blog 1; vLLM's and SGLang's expert
  // parallelism without DeepEP): two calls per layer instead of the attention all-reduce,
  // dispatch, combine and the owned tokens' gather.
  const bool experts_by_all_to_all_;
  const LayerDraws* draws_;
  std::vector<RankExpertOps> rank_experts_;
  int64_t q_local_ = 0;
  int64_t kv_local_ = 0;
  std::vector<TraceNode> nodes_;
};

int64_t share(int64_t total, int64_t parts, int64_t index) {
  return total / parts + (index < total % parts ? 1 : 0);
}

}  // namespace

void require_sharding_rules(const std::vector<Op>& ops) {
  for (const Op& op : ops) {
    if (op.sharding == Sharding::kUnset) throw std::invalid_argument(unsharded_op_message(op));
  }
}

bool spans_attention_groups(const ModelConfig& model, const ParallelDegrees& degrees,
                            const std::string& name, int layer) {
  if (layer < 0) return false;  // embedding, final norm, LM head, sampling: per group
  const bool ep_layer = model.layer_is_moe(layer) && degrees.ep > 1;
  if (ep_layer) return name.rfind("moe_experts", 0) == 0;  // add_expert_parallel(replica)
  // Dense FFN, shared experts and routed experts without EP: add_tensor_parallel_ffn(replica),
  // and its partial sums' reduction (reduce_partials("ffn", ..., replica_tokens_)).
  if (name.rfind("attn_", 0) == 0 || name == "attention") return false;
  if (name == "ffn_norm" || name == "ffn_all_gather" || name == "ffn_residual") return false;
  return true;
}

StageLayers stage_layers(const ModelConfig& model, int64_t pp, int64_t stage) {
  const int64_t base = model.layers() / pp;
  const int64_t extra = model.layers() % pp;
  const int64_t first = stage * base + std::min(stage, extra);
  const int64_t count = base + (stage < extra ? 1 : 0);
  return StageLayers{static_cast<int>(first), static_cast<int>(first + count)};
}

double MappedIteration::EpLayerLoad::imbalance() const {
  int64_t most = 0;
  int64_t total = 0;
  for (const RankExpertLoad& r : ranks) {
    most = std::max(most, r.pairs);
    total += r.pairs;
  }
  return total > 0 ? d(most) * d(static_cast<int64_t>(ranks.size())) / d(total) : 0.0;
}

MappedIteration map_iteration(const ModelConfig& model, const IterationShape& shape,
                              const PoolMapping& mapping, const RoutingConfig& routing) {
  validate_mapping(model, mapping);
  const bool drawn = routing.distribution != RoutingDistribution::kExpected &&
                     model.ffn().type == FfnType::kMoe && mapping.degrees.ep > 1;
  if (drawn) {
    const std::string problem =
        routing_config_problem(routing, model.ffn().experts, model.ffn().top_k);
    if (!problem.empty()) throw InputError(mapping.where, "routing", problem);
    if (mapping.degrees.ep != mapping.degrees.tp) {
      throw InputError(mapping.where, "routing",
                       "a drawn routing with expert replicas (ep " +
                           std::to_string(mapping.degrees.ep) + " < tp " +
                           std::to_string(mapping.degrees.tp) +
                           ") is not modelled: each EP group would need its own draw; use "
                           "routing 'expected' or ep = tp");
    }
  }
  const ParallelDegrees& deg = mapping.degrees;
  if (shape.batch < deg.dp * deg.attn_dp) {
    throw InputError(mapping.where, "mapping." + mapping.pool + ".batch",
                     "batch " + std::to_string(shape.batch) +
                         " leaves some attention groups without a sequence: it needs at least "
                         "dp x attn_dp = " +
                         std::to_string(deg.dp * deg.attn_dp));
  }
  MappedIteration mapped;
  mapped.mapping = mapping;
  mapped.shape = shape;

  // (stage, -replica batch, -attention batch) -> role, so that larger shares come first.
  std::map<std::tuple<int64_t, int64_t, int64_t>, ChipRole> roles;
  const int64_t attn_tp = mapping.attn_tp();
  for (int64_t replica = 0; replica < deg.dp; ++replica) {
    const int64_t replica_batch = share(shape.batch, deg.dp, replica);
    for (int64_t stage = 0; stage < deg.pp; ++stage) {
      for (int64_t local = 0; local < deg.tp; ++local) {
        const int64_t attn_batch = share(replica_batch, deg.attn_dp, local / attn_tp);
        ChipRole& role = roles[{stage, -replica_batch, -attn_batch}];
        role.stage = stage;
        role.replica_batch = replica_batch;
        role.attn_batch = attn_batch;
        role.ranks.push_back((replica * deg.pp + stage) * deg.tp + local);
      }
    }
  }
  std::map<int64_t, int> roles_per_stage;
  for (const auto& [key, role] : roles) ++roles_per_stage[role.stage];
  // Drawn routing: one draw per replica batch and EP layer over the replica's tokens.
  std::map<int64_t, LayerDraws> draws;
  if (drawn) {
    const FfnConfig& f = model.ffn();
    const int layer_count = static_cast<int>(model.layers() + model.mtp_layers());
    for (const auto& [key, role] : roles) {
      if (draws.count(role.replica_batch) != 0) continue;
      LayerDraws& layers = draws[role.replica_batch];
      for (int layer = 0; layer < layer_count; ++layer) {
        if (!model.layer_is_moe(layer)) continue;
        RngStream rng(routing.seed, "moe_routing/iteration" + std::to_string(routing.iteration) +
                                        "/layer" + std::to_string(layer));
        layers[layer] = draw_tokens_per_expert(routing, f.experts, f.top_k,
                                               role.replica_batch * shape.new_tokens, rng);
      }
    }
  }
  for (auto& [key, role] : roles) {
    ChipTrace& t = role.trace;
    t.model = model.name();
    t.role = mapping.pool;
    if (deg.pp > 1) t.role += ".stage" + std::to_string(role.stage);
    if (roles_per_stage[role.stage] > 1) {
      t.role += ".seqs" + std::to_string(role.replica_batch);
      if (deg.attn_dp > 1) t.role += "_" + std::to_string(role.attn_batch);
    }
    t.rank = role.ranks.front();
    t.world_size = mapping.chips;
    t.multiplicity = static_cast<int64_t>(role.ranks.size());
    t.degrees = deg;
    t.shape = shape;
    RoleBuilder builder(model, mapped, role, drawn ? &draws.at(role.replica_batch) : nullptr);
    t.nodes = builder.build();
    role.rank_experts = builder.take_rank_experts();
    mapped.roles.push_back(std::move(role));
  }
  // The loads of the layers some role runs (a stage's own layers), once per replica batch.
  std::map<std::pair<int64_t, int>, bool> reported;
  for (const ChipRole& role : mapped.roles) {
    for (const RankExpertOps& v : role.rank_experts) {
      const int layer = role.trace.nodes[v.node].layer;
      if (reported[{role.replica_batch, layer}]) continue;
      reported[{role.replica_batch, layer}] = true;
      mapped.ep_loads.push_back(
          {role.replica_batch, layer,
           rank_expert_loads(draws.at(role.replica_batch).at(layer), deg.ep)});
    }
  }
  return mapped;
}

MappedIteration map_iteration(const ModelConfig& model, const IterationShape& shape,
                              const MappingConfig& mapping, const std::string& pool) {
  return map_iteration(model, shape, mapping.pool(pool));
}

}  // namespace scoville::workloads
