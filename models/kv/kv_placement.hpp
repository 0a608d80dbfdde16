// KV-cache placement: where each block of a sequence's KV cache lives, by policy, registered by
// name (kv_placement_registry()). A block maps to a physical place (chip, HBM stack and channel,
// the chip's SRAM, or host memory), and kv_traffic() turns the places of a sequence's blocks into
// the bytes each resource serves when attention reads them; the engine prices those bytes with
// the models of the resources (HBM channels, network links, host link), never with a constant.
//
// Policies (docs/systems.md):
//   local         every block in the HBM of the chip that computes the sequence's attention,
//                 block b on channel b mod channels (interleaved over all stacks)
//   striped       block b on chip tp_group[b mod |group|] (its channel as local): the owner
//                 reads the other chips' blocks over the local network
//   sram_window   the newest sram_window_tokens tokens in the owner's on-chip SRAM, the rest local
//   remote_pool   every block in host (or pooled) memory, read over the chip's host link
//   disaggregated as local on the decode pool; the prefill pool writes the prompt's KV, which is
//                 sent over the network to the decode pool once per request
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/base/registry.hpp"
#include "sim/base/units.hpp"

namespace scoville::models {

enum class KvTier { kHbm, kSram, kHost };

struct KvLocation {
  KvTier tier = KvTier::kHbm;
  int64_t chip = 0;     // endpoint id (the owner for kSram; the host's chip for kHost)
  int64_t stack = 0;    // kHbm
  int64_t channel = 0;  // kHbm: channel within the stack
};

struct KvPlacementContext {
  int64_t owner = 0;               // chip that computes this sequence's attention
  std::vector<int64_t> tp_group;   // chips of the owner's tensor-parallel group (striped)
  int64_t stacks = 1;              // HBM stacks per chip
  int64_t channels_per_stack = 1;  // HBM channels per stack
  int64_t block_tokens = 16;       // tokens per block
  int64_t sram_window_tokens = 0;  // sram_window: newest tokens kept in SRAM
};

// Consecutive chips (endpoint ids) of one pool.
struct ChipSpan {
  int64_t first = 0;
  int64_t count = 1;
};

// One flow of a KV handoff: `bytes` from chip `src` to chip `dst`.
struct KvHandoffFlow {
  int64_t src = 0;
  int64_t dst = 0;
  Bytes bytes;
};

class KvPlacement {
 public:
  virtual ~KvPlacement() = default;
  virtual std::string name() const = 0;
  // Place of block `block` of a sequence that has `blocks` blocks.
  virtual KvLocation place(int64_t block, int64_t blocks, const KvPlacementContext& ctx) const = 0;
  // The prompt's KV moves from a prefill pool to a decode pool over the network.
  virtual bool transfers_prefill_kv() const { return false; }
  // The flows that move one request's prompt KV (`bytes`, the whole pool's) from the prefill
  // pool's chips to the decode pool's; none for policies that do not transfer it.
  virtual std::vector<KvHandoffFlow> prefill_handoff(ChipSpan /*prefill*/, ChipSpan /*decode*/,
                                                     Bytes /*bytes*/) const {
    return {};
  }
};

using KvPlacementRegistry = Registry<std::unique_ptr<KvPlacement>>;
const KvPlacementRegistry& kv_placement_registry();
// Throws InputError (key "kv_placement") naming the known policies for an unknown name.
std::unique_ptr<KvPlacement> make_kv_placement(const std::string& name);

// Bytes that reading `tokens` tokens of one sequence's KV (bytes_per_token each, its newest
// tokens last) takes from each place, as seen by the owner.
struct KvTraffic {
  Bytes local_hbm;                      // owner's HBM
  Bytes sram;                           // owner's on-chip SRAM
  Bytes peer_hbm;                       // other chips' HBM, over the local network
  Bytes host;                           // host memory, over the host link
  std::vector<int64_t> channel_blocks;  // owner's HBM: blocks per channel (stack-major)
  std::vector<int64_t> peer_blocks;     // per chip of tp_group: blocks read from it (0 for owner)
};
KvTraffic kv_traffic(const KvPlacement& placement, const KvPlacementContext& ctx, int64_t tokens,
                     Bytes bytes_per_token);

// The shares (adding to 1) of one sequence's KV read, `context` tokens, that each place serves,
// as the owner sees them: what the system engine and the serving pricer both price. ctx gives
// the owner and the HBM layout; its tp_group is filled here (the owner's aligned group of `tp`
// chips). A sram_window_tokens of 0 becomes as many tokens as half of `shared_sram` holds at
// `kv_bytes_per_token` (the KV one new token of every sequence of the attention group writes;
// [ASSUMPTION] the other half is left for activations).
struct KvReadShares {
  double local = 1, sram = 0, peer = 0, host = 0;
};
KvReadShares kv_read_shares(const KvPlacement& placement, KvPlacementContext ctx, int64_t tp,
                            int64_t context, Bytes shared_sram, Bytes kv_bytes_per_token);

}  // namespace scoville::models
