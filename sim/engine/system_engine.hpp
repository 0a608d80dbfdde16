// Runs iterations of a model on a multi-chip system (docs/systems.md): the batch is mapped onto
// the pool's chips (workloads/mapping), each chip role's compute runs on a SystemC ChipModule, and
// the collectives run on the network's flow model with all endpoints (CollectiveTimer).
//
// Fidelity: `representative` simulates one chip per role (SPMD ranks of a role do identical work);
// `all` simulates every chip of the pool, to check the shortcut.
// Overlap: `none` (vLLM / SGLang / TensorRT-LLM decode: a collective sits on the critical path
// between the ops that produce and consume its data) or `two_batch` (SGLang's two-batch overlap /
// DeepSeek's dual micro-batch: one micro-batch's communication hides under the other's compute;
// modelled per layer as max(compute, communication), the ideal case).
//
// SystemC elaborates one design per process: the constructor builds every ChipModule, and each
// run() hands the modules a new program and calls sc_start() again. Construct every engine a
// process needs before the first run().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/chip/chip_module.hpp"
#include "models/kv/kv_placement.hpp"
#include "models/network/topology.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/collective_timer.hpp"
#include "workloads/iteration.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/mapping/pool_mapping.hpp"
#include "workloads/model_config.hpp"
#include "workloads/routing_distribution.hpp"

namespace scoville::engine {

enum class Fidelity { kRepresentative, kAll };
enum class Overlap { kNone, kTwoBatch };
Fidelity parse_fidelity(const std::string& text);  // InputError naming the choices
Overlap parse_overlap(const std::string& text);

struct SystemEngineOptions {
  Fidelity fidelity = Fidelity::kRepresentative;
  Overlap overlap = Overlap::kNone;
  // KV placement (models/kv/kv_placement.hpp) and its block size. sram_window_tokens 0: as many
  // tokens as half the chip's shared SRAM holds ([ASSUMPTION] half left for activations).
  std::string kv_placement = "local";
  int64_t kv_block_tokens = 16;  // [ASSUMPTION] vLLM's default block size
  int64_t sram_window_tokens = 0;
  // Opt-in speed-up: an op identical in every field to one simulated before, between the same
  // neighbours (the same op in every layer), is simulated once per iteration and its result
  // reused. Approximate (docs/systems.md): 0.3-0.6% on the engine test, up to 2.1% seen on a
  // 4-layer model; the bench uses it, `run --system` only with --reuse-repeated-ops.
  bool simulate_repeated_ops_once = false;
  // MoE routing (workloads/routing_distribution.hpp). kExpected: every EP rank gets an even
  // share of the experts (all ranks of a role identical). Drawn: each EP layer draws its tokens
  // per expert, ranks hold their experts contiguously, and representative fidelity simulates
  // the most loaded rank's experts in each layer (docs/systems.md, Fidelity).
  workloads::RoutingConfig routing = {};
};

// One iteration on the pool. Times are wall times of the pool; energies cover all its chips and
// the network.
struct SystemIterationResult {
  Duration time;           // hardware time + software time
  Duration hardware_time;  // critical path over the pipeline stages
  Duration software_time;  // the system's software profile (launches, syncs, host)
  // Parts of hardware_time on the slowest role (they sum to it with overlap none).
  Duration compute_time;  // chip ops bound by compute or on-chip latency
  Duration hbm_time;      // chip ops bound by HBM
  Duration local_network_time;
  Duration scale_out_time;
  // KV moved by the placement: striped reads from TP peers, remote_pool reads over the host
  // link, disaggregated hand-over of the prompt's KV to the decode pool (after prefill).
  Duration kv_transfer_time;
  // Energy per component (sum = energy).
  Energy compute_energy;  // matrix, vector, SRAMs, NoC
  Energy hbm_energy;
  Energy local_network_energy;
  Energy scale_out_energy;
  Energy kv_transfer_energy;
  Energy static_energy;  // static power of every pool chip over `time`
  Energy energy;
  // Counters over the pool.
  Flops flops;
  Bytes hbm_bytes;
  Bytes network_bytes;
  Bytes kv_transfer_bytes;  // over the pool
  int64_t chips = 0;
  int64_t roles = 0;
  int64_t simulated_chips = 0;  // ChipModules that ran work
  int64_t collectives = 0;      // collective nodes of the slowest role
  // Drawn routing: per EP layer, the most loaded EP rank's token-expert pairs over the mean
  // rank's; the mean over the iteration's EP layers and the largest. 0 without a draw.
  double ep_imbalance = 0;
  double ep_imbalance_max = 0;
};

// One span of a pool's critical path in an iteration, for timelines (`run --system --trace`): the
// ops and collectives of the slowest role of each pipeline stage, one after another (drawn
// serially even with two-batch overlap), then its KV transfers.
struct TimelineSpan {
  int64_t stage = 0;
  std::string name;  // the op, or e.g. "all_reduce tp"
  bool collective = false;
  Duration start;  // from the iteration's start
  Duration duration;
  std::shared_ptr<const models::Schedule> schedule;  // network spans: the flows timed
  // Network spans: the collective library's share of `duration` (launch, handshakes), drawn
  // before the replayed flows.
  Duration library;
};

struct SystemSetup {
  config::SystemConfig system;
  models::ChipParams chip;
  workloads::ModelConfig model;
  workloads::PoolMapping mapping;
  config::SoftwareProfile software;  // zero when the system names none
  SystemEngineOptions options;
};

class SystemEngine {
 public:
  // Builds the network and elaborates the ChipModules (before any sc_start of the process).
  explicit SystemEngine(SystemSetup setup);
  ~SystemEngine();

  SystemIterationResult run(const workloads::IterationShape& shape);
  // Every later run() also fills `spans` (null: stop). Recording changes no result.
  void record_timeline(std::vector<TimelineSpan>* spans) { timeline_ = spans; }

  const SystemSetup& setup() const { return setup_; }
  const models::Topology& topology() const { return *topology_; }

 private:
  // KV traffic of one role's iteration, before pricing.
  struct KvCosts {
    Bytes host_bytes;               // per chip
    std::vector<Bytes> peer_reads;  // per attention op, per chip
    Bytes written;                  // KV appended per chip
    int64_t attention_ops = 0;
  };
  struct RoleKv {
    Duration time;  // per chip of the role
    Energy energy;  // whole pool (host energy per role)
    Bytes bytes;
    std::vector<std::pair<std::string, CollectiveTiming>> network;  // for timelines
  };
  // Shares of an attention op's KV reads served by each place (models::kv_read_shares).
  models::KvReadShares kv_shares(const workloads::ChipRole& role,
                                 const workloads::IterationShape& shape) const;
  RoleKv price_kv(const KvCosts& kv, const workloads::ChipRole& role,
                  const workloads::IterationShape& shape, bool count_pool);

  SystemSetup setup_;
  std::unique_ptr<models::Topology> topology_;
  std::unique_ptr<CollectiveTimer> timer_;
  std::unique_ptr<models::KvPlacement> placement_;
  std::vector<std::unique_ptr<models::ChipModule>> modules_;
  std::vector<TimelineSpan>* timeline_ = nullptr;
};

// Loads the system's chip and software profile, and makes a setup (model and mapping given).
SystemSetup make_setup(const config::SystemConfig& system, const workloads::ModelConfig& model,
                       const workloads::PoolMapping& mapping, const config::DataPaths& paths,
                       SystemEngineOptions options = {});

}  // namespace scoville::engine
