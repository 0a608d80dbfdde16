// The simulated op table (docs/modelling.md, "Fidelity as a backend"): an OpCostModel that runs
// each distinct op once on an elaborated SystemC ChipModule of the chip (tiling, tiles, shared
// SRAM, NoC, HBM channel timing) and keeps the result.
//
// Key and bucketing. An op is lowered to its work descriptor (sim/engine/lowering) and every size
// in it is rounded to a bucket: integers (m, n, instances) exactly below 2^bucket_bits and to the
// nearest multiple of 2^(floor(log2 v) - bucket_bits) above (edges, so that powers of two stay
// themselves); FLOPs and byte counts to bucket_bits + 1 significant bits. The bucketed descriptor
// is simulated (once per process, and once per machine through the persistent op cache), and its
// time is carried to the op's own sizes by adding the difference of the two descriptors' roofline
// times (max of FLOPs at peak and HBM bytes at peak bandwidth): a fixed latency stays as it is, and
// a throughput-bound op is off by (1 / achieved efficiency - 1) x that difference, itself at most
// half a bucket. What this cannot follow are the model's discrete steps (a tile split, a block
// count, HBM rows met at another alignment) between an op and its bucket edge: up to about 5% on
// a single op, about 1% on an
// iteration (tests/sim/simulated_op_cost_test.cpp, docs/performance.md). Action counts (energy)
// come from the bucketed op's tile plan (no simulation needed), scaled to the op's FLOPs, HBM
// bytes and activations: within 0.1% of the op's own plan on the iterations measured.
//
// An op runs alone on the chip: the full-iteration engine (SystemEngine) also lets a tile fetch
// the next op's operands while the current one drains (chips with prefetch_next_op) and lets
// consecutive ops meet the HBM refresh at other phases; the table does neither. The difference
// is measured against the full iteration (docs/performance.md).
//
// SystemC elaborates one design per process: construct every SimulatedOpCost (one per chip) before
// anything calls sc_start(), and share it (it is meant to be shared by every cost model of the
// process: a mapping search reuses one table).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "models/chip/chip_params.hpp"
#include "models/compute/work_descriptor.hpp"
#include "sim/serving/op_cost_model.hpp"

namespace scoville::models {
class ChipModule;
}

namespace scoville::engine {

class OpCacheStore;

struct SimulatedOpCostOptions {
  int bucket_bits = 5;  // relative bucket width 2^-5 above 32
  // The persistent op cache (sim/engine/op_cache_store.hpp): nullopt bypasses it; an empty
  // string uses default_op_cache_dir() (none there: bypassed).
  std::optional<std::string> cache_dir = std::string();
};

// One simulated op: its wall time and the slowest tile's compute time.
struct SimulatedOp {
  double elapsed_s = 0;
  double compute_s = 0;
};

class SimulatedOpCost : public serving::OpCostModel {
 public:
  // Elaborates a ChipModule for `chip`. Throws ScovilleError once the process has simulated
  // (SystemC elaborates once) and InputError for bucket_bits outside 1 .. 20.
  explicit SimulatedOpCost(models::ChipParams chip, SimulatedOpCostOptions options = {});
  ~SimulatedOpCost() override;
  SimulatedOpCost(const SimulatedOpCost&) = delete;
  SimulatedOpCost& operator=(const SimulatedOpCost&) = delete;

  serving::OpPrice price(const workloads::Op& op) const override;
  std::string fidelity() const override { return "op-table"; }
  serving::OpTableStats stats() const override;

  // The descriptor the table keys `work` by (sizes bucketed).
  models::WorkDescriptor bucketed(const models::WorkDescriptor& work) const;
  // Runs exactly `work` on the chip model: no table, no bucketing (the detailed path), with the
  // tile clocks at `clock_scale` of the configured ones (a DVFS governor's choice).
  SimulatedOp simulate(const models::WorkDescriptor& work, double clock_scale = 1.0) const;
  // The price of a lowered op through the table (what price() does after lowering), at a clock
  // scale (entries are kept per scale: a governor chooses among a few operating points).
  serving::OpPrice price_work(const models::WorkDescriptor& work, double clock_scale = 1.0) const;

  const models::ChipParams& chip() const { return chip_; }
  // Where the persistent cache is, or empty when bypassed.
  std::string cache_directory() const;

 private:
  // A bucketed op: its simulation and its tile plan's actions and compute time.
  struct TableEntry {
    SimulatedOp op;
    models::ActionCounts counts;
    double compute_s = 0;
  };
  const TableEntry& lookup(const models::WorkDescriptor& key_work, double clock_scale) const;
  double roofline_s(const models::WorkDescriptor& work, double clock_scale) const;

  models::ChipParams chip_;
  SimulatedOpCostOptions options_;
  std::string key_prefix_;  // chip fingerprint + chip-model version
  std::unique_ptr<models::ChipModule> module_;
  std::unique_ptr<OpCacheStore> store_;
  mutable std::unordered_map<std::string, TableEntry> table_;  // by bucketed descriptor
  mutable serving::OpTableStats stats_;
};

// Told of each op the table runs on a chip model (a miss of both the process's table and the
// persistent cache): the chip's name, the op's label and how many this process has simulated.
// A progress hook for the command line (a cold op cache makes a run take minutes); it never
// affects a result. Process-wide because one table is shared by every cost model of a process;
// an empty function removes it.
using OpSimulatedListener =
    std::function<void(const std::string& chip, const std::string& op, int64_t simulated)>;
void set_op_simulated_listener(OpSimulatedListener listener);

// Every field of a work descriptor that reaches the chip model, as raw bytes: an exact key for
// memos (the label is left out).
std::string work_key(const models::WorkDescriptor& work);
// The same as text at full precision (persistent keys, and where a key is read by people).
std::string work_text_key(const models::WorkDescriptor& work);

// The chip-model version in persistent keys: a hash of the chip model's sources, made at build
// time (an edit of them changes every key).
std::string chip_model_version();
// Whether an op cache key was written by this chip-model version (`scoville op-cache prune`
// keeps only those: the others are never read again).
bool is_current_chip_model_key(std::string_view key);

}  // namespace scoville::engine
