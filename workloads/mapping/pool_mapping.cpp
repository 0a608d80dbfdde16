#include "workloads/mapping/pool_mapping.hpp"

namespace scoville::workloads {

namespace {

std::string n(int64_t v) { return std::to_string(v); }

}  // namespace

const PoolMapping& MappingConfig::pool(const std::string& name) const {
  std::string known;
  for (const PoolMapping& p : pools) {
    if (p.pool == name) return p;
    known += (known.empty() ? "" : ", ") + p.pool;
  }
  const SourceLocation where{pools.empty() ? std::string() : pools.front().where.file, 0, 0};
  throw InputError(where, "mapping",
                   "no pool named '" + name +
                       "'; the mapping has: " + (known.empty() ? std::string("no pools") : known));
}

std::vector<int64_t> pool_first_chips(const std::vector<PoolMapping>& pools) {
  std::vector<int64_t> first;
  int64_t next = 0;  // the first chip after the pools so far
  for (const PoolMapping& p : pools) {
    if (p.first_chip >= 0 && p.first_chip < next) {
      throw InputError(p.where, "first_chip",
                       "the pool would start at chip " + n(p.first_chip) +
                           ", inside the pools before it (they take chips up to " + n(next) +
                           "); expected at least " + n(next));
    }
    first.push_back(p.first_chip >= 0 ? p.first_chip : next);
    next = first.back() + p.chips;
  }
  return first;
}

void validate_mapping(const ModelConfig& model, const PoolMapping& mapping) {
  Diagnostics diagnostics;
  const ParallelDegrees& d = mapping.degrees;
  const std::string key = "mapping." + mapping.pool;
  const auto fail = [&](const std::string& what, const std::string& message) {
    diagnostics.error(mapping.where, key + "." + what, message);
  };
  const std::vector<std::pair<const char*, int64_t>> degrees = {
      {"tp", d.tp}, {"ep", d.ep}, {"pp", d.pp}, {"dp", d.dp}, {"attn_dp", d.attn_dp}};
  for (const auto& [name, value] : degrees) {
    if (value < 1) fail(name, "expected a degree >= 1, got " + n(value));
  }
  diagnostics.throw_if_any();

  if (d.dp * d.pp * d.tp != mapping.chips) {
    fail("chips", "dp x pp x tp = " + n(d.dp) + " x " + n(d.pp) + " x " + n(d.tp) + " = " +
                      n(d.dp * d.pp * d.tp) + " chips, but the pool has " + n(mapping.chips));
  }
  if (d.tp % d.attn_dp != 0) {
    fail("attn_dp", "attn_dp " + n(d.attn_dp) + " does not divide tp " + n(d.tp) +
                        " (attention runs attn_dp x attn_tp = tp ways)");
  } else {
    // Attention is split attn_tp ways (tp itself when attn_dp = 1).
    const int64_t attn_tp = mapping.attn_tp();
    const std::string what =
        d.attn_dp == 1 ? "tp " + n(d.tp) : "attention tp (tp / attn_dp) " + n(attn_tp);
    const std::string field = d.attn_dp == 1 ? "tp" : "attn_dp";
    const AttentionConfig& a = model.attention();
    if (a.heads % attn_tp != 0) {
      fail(field,
           what + " does not divide the " + n(a.heads) + " attention heads of " + model.name());
    }
    if (attn_tp <= a.kv_heads ? a.kv_heads % attn_tp != 0 : attn_tp % a.kv_heads != 0) {
      fail(field, what + " and the " + n(a.kv_heads) + " KV heads of " + model.name() +
                      ": one must divide the other (KV heads are split, or each is replicated " +
                      "on tp / kv_heads ranks when tp > kv_heads)");
    }
    if (model.linear_layers() > 0 && a.linear_key_heads % attn_tp != 0) {
      // Gated DeltaNet splits its q/k heads (and their groups of value heads) over the ranks.
      fail(field, what + " does not divide the " + n(a.linear_key_heads) +
                      " linear-attention key heads of " + model.name());
    }
  }
  const FfnConfig& f = model.ffn();
  if (f.type == FfnType::kDense && d.ep != 1) {
    fail("ep", "ep " + n(d.ep) + " needs routed experts, but " + model.name() + " is dense");
  } else if (f.type == FfnType::kMoe) {
    if (f.experts % d.ep != 0) {
      fail("ep", "ep " + n(d.ep) + " does not divide the " + n(f.experts) + " routed experts of " +
                     model.name());
    }
    // ep < tp: tp / ep replicas of the expert set, each EP group of ep consecutive ranks
    // serving the tokens of the attention groups inside it (e.g. attention-DP over more chips
    // than there are experts). Expert tensor parallelism (an expert split across ranks) is not
    // modelled, so an EP group must hold whole attention groups.
    if (d.ep != 1 && d.tp % d.ep != 0) {
      fail("ep", "ep " + n(d.ep) + " must be 1 or divide tp " + n(d.tp) +
                     " (tp / ep replicas of the experts)");
    } else if (d.ep != 1 && d.ep != d.tp && d.attn_dp > 1 && d.tp % d.attn_dp == 0 &&
               d.ep % mapping.attn_tp() != 0) {
      fail("ep", "ep " + n(d.ep) + " is not a multiple of the attention tp " +
                     n(mapping.attn_tp()) +
                     " (an EP group must hold whole attention groups; expert tensor "
                     "parallelism inside an EP group is not modelled)");
    } else if (d.ep != 1 && d.ep != d.tp && d.attn_dp == 1) {
      fail("ep", "ep " + n(d.ep) + " below tp " + n(d.tp) +
                     " needs attention data parallelism (attn_dp) so that each EP group holds "
                     "whole attention groups; expert tensor parallelism inside an EP group is "
                     "not modelled");
    }
  }
  if (d.sequence_parallel && d.attn_dp != 1) {
    fail("sequence_parallel",
         "sequence parallelism needs attn_dp 1 (attention-DP already splits the tokens), got " +
             n(d.attn_dp));
  }
  if (d.pp > model.layers()) {
    fail("pp",
         "pp " + n(d.pp) + " exceeds the " + n(model.layers()) + " layers of " + model.name());
  }
  diagnostics.throw_if_any();
}

}  // namespace scoville::workloads
