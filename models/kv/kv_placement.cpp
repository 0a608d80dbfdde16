#include "models/kv/kv_placement.hpp"

#include <algorithm>

#include "sim/base/error.hpp"

namespace scoville::models {

namespace {

KvLocation interleaved(int64_t chip, int64_t block, const KvPlacementContext& ctx) {
  const int64_t channels = ctx.stacks * ctx.channels_per_stack;
  const int64_t c = block % channels;
  // Consecutive blocks alternate stacks first, so that a short sequence already uses them all.
  return {KvTier::kHbm, chip, c % ctx.stacks, c / ctx.stacks};
}

class LocalPlacement : public KvPlacement {
 public:
  std::string name() const override { return "local"; }
  KvLocation place(int64_t block, int64_t, const KvPlacementContext& ctx) const override {
    return interleaved(ctx.owner, block, ctx);
  }
};

class StripedPlacement : public KvPlacement {
 public:
  std::string name() const override { return "striped"; }
  KvLocation place(int64_t block, int64_t, const KvPlacementContext& ctx) const override {
    if (ctx.tp_group.empty()) return interleaved(ctx.owner, block, ctx);
    const int64_t n = static_cast<int64_t>(ctx.tp_group.size());
    return interleaved(ctx.tp_group[static_cast<size_t>(block % n)], block / n, ctx);
  }
};

class SramWindowPlacement : public KvPlacement {
 public:
  std::string name() const override { return "sram_window"; }
  KvLocation place(int64_t block, int64_t blocks, const KvPlacementContext& ctx) const override {
    const int64_t window_blocks = ctx.sram_window_tokens / ctx.block_tokens;
    if (block >= blocks - window_blocks) return {KvTier::kSram, ctx.owner, 0, 0};
    return interleaved(ctx.owner, block, ctx);
  }
};

class RemotePoolPlacement : public KvPlacement {
 public:
  std::string name() const override { return "remote_pool"; }
  KvLocation place(int64_t, int64_t, const KvPlacementContext& ctx) const override {
    return {KvTier::kHost, ctx.owner, 0, 0};
  }
};

class DisaggregatedPlacement : public LocalPlacement {
 public:
  std::string name() const override { return "disaggregated"; }
  bool transfers_prefill_kv() const override { return true; }
  // Each prefill chip holds 1 / count of the request's KV (its heads or layers) and sends it to
  // decode chip i mod count there, all at once (as the engine's shift of one rank per chip).
  std::vector<KvHandoffFlow> prefill_handoff(ChipSpan prefill, ChipSpan decode,
                                             Bytes bytes) const override {
    std::vector<KvHandoffFlow> flows;
    if (prefill.count < 1 || decode.count < 1) return flows;
    const Bytes share = bytes / static_cast<double>(prefill.count);
    for (int64_t i = 0; i < prefill.count; ++i) {
      flows.push_back({prefill.first + i, decode.first + i % decode.count, share});
    }
    return flows;
  }
};

KvPlacementRegistry make_registry() {
  KvPlacementRegistry r("KV placement");
  r.add("local", [] { return std::unique_ptr<KvPlacement>(new LocalPlacement); });
  r.add("striped", [] { return std::unique_ptr<KvPlacement>(new StripedPlacement); });
  r.add("sram_window", [] { return std::unique_ptr<KvPlacement>(new SramWindowPlacement); });
  r.add("remote_pool", [] { return std::unique_ptr<KvPlacement>(new RemotePoolPlacement); });
  r.add("disaggregated", [] { return std::unique_ptr<KvPlacement>(new DisaggregatedPlacement); });
  return r;
}

}  // namespace

const KvPlacementRegistry& kv_placement_registry() {
  static const KvPlacementRegistry registry = make_registry();
  return registry;
}

std::unique_ptr<KvPlacement> make_kv_placement(const std::string& name) {
  const KvPlacementRegistry& r = kv_placement_registry();
  if (!r.contains(name)) {
    std::string known;
    for (const std::string& n : r.names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError(SourceLocation{"<command line>", 0, 0}, "kv_placement",
                     "unknown KV placement '" + name + "'; known: " + known);
  }
  return r.create(name);
}

KvTraffic kv_traffic(const KvPlacement& placement, const KvPlacementContext& ctx, int64_t tokens,
                     Bytes bytes_per_token) {
  KvTraffic t;
  t.channel_blocks.assign(static_cast<size_t>(ctx.stacks * ctx.channels_per_stack), 0);
  t.peer_blocks.assign(ctx.tp_group.size(), 0);
  const int64_t blocks = (tokens + ctx.block_tokens - 1) / ctx.block_tokens;
  for (int64_t b = 0; b < blocks; ++b) {
    // The last block may be partly filled.
    const int64_t in_block = std::min(ctx.block_tokens, tokens - b * ctx.block_tokens);
    const Bytes bytes = bytes_per_token * static_cast<double>(in_block);
    const KvLocation at = placement.place(b, blocks, ctx);
    switch (at.tier) {
      case KvTier::kSram:
        t.sram += bytes;
        break;
      case KvTier::kHost:
        t.host += bytes;
        break;
      case KvTier::kHbm:
        if (at.chip == ctx.owner) {
          t.local_hbm += bytes;
          ++t.channel_blocks[static_cast<size_t>(at.stack * ctx.channels_per_stack + at.channel)];
        } else {
          t.peer_hbm += bytes;
          const auto it = std::find(ctx.tp_group.begin(), ctx.tp_group.end(), at.chip);
          if (it != ctx.tp_group.end())
            ++t.peer_blocks[static_cast<size_t>(it - ctx.tp_group.begin())];
        }
        break;
    }
  }
  return t;
}

KvReadShares kv_read_shares(const KvPlacement& placement, KvPlacementContext ctx, int64_t tp,
                            int64_t context, Bytes shared_sram, Bytes kv_bytes_per_token) {
  const int64_t base = ctx.owner - ctx.owner % tp;
  ctx.tp_group.clear();
  for (int64_t i = 0; i < tp; ++i) ctx.tp_group.push_back(base + i);
  if (ctx.sram_window_tokens == 0 && kv_bytes_per_token.si() > 0) {
    ctx.sram_window_tokens = static_cast<int64_t>(shared_sram.si() * 0.5 / kv_bytes_per_token.si());
  }
  const KvTraffic t = kv_traffic(placement, ctx, context, Bytes(1));
  const double total = static_cast<double>(std::max<int64_t>(1, context));
  KvReadShares s;
  s.local = t.local_hbm.si() / total;
  s.sram = t.sram.si() / total;
  s.peer = t.peer_hbm.si() / total;
  s.host = t.host.si() / total;
  return s;
}

}  // namespace scoville::models
