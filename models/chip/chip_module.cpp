#include "models/chip/chip_module.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "models/memory/channel_model.hpp"
#include "models/memory/hbm_channel_model.hpp"

namespace scoville::models {

namespace {
// Shared SRAM banks interleave every 4 KiB (assumption, level 1), each with an equal share of
// the aggregate bandwidth.
constexpr uint64_t kSharedSramGranule = 4096;
}  // namespace

ChipModule::ChipModule(const sc_core::sc_module_name& name, const ChipParams& params)
    : sc_core::sc_module(name), params_(params), policy_(params) {
  const HbmParams& hbm = params_.hbm;
  hbm_ = std::make_unique<MemoryControllerModule>(
      "hbm", hbm.channels(),
      [&hbm](int64_t c) {
        // Refresh phases spread evenly over one tREFI, so channels do not all stop together.
        const Duration phase =
            hbm.timing.t_refi * (static_cast<double>(c) / static_cast<double>(hbm.channels()));
        return std::make_unique<HbmChannelModel>(hbm, phase);
      },
      hbm.interleave_granule);
  const ChannelModel bank =
      ChannelModel::shared_sram_bank(params_.shared_sram, params_.noc.latency);
  shared_sram_ = std::make_unique<MemoryControllerModule>(
      "shared_sram", params_.shared_sram.banks,
      [&bank](int64_t) { return std::make_unique<ChannelModel>(bank); }, Bytes(kSharedSramGranule));
  if (params_.noc.topology == NocTopology::kMesh) {
    const NocParams& noc = params_.noc;
    mesh_ = std::make_unique<MeshNocModel>(
        MeshNocParams{noc.cols, noc.rows, noc.link_bandwidth, noc.hop_latency}, params_.tiles.count,
        hbm.stacks, params_.ports.count);
  }
  for (int64_t t = 0; t < params_.tiles.count; ++t) {
    const std::string tile_name = "tile_" + std::to_string(t);
    tiles_.push_back(
        std::make_unique<TileModule>(tile_name.c_str(), params_.tiles, params_.noc.latency,
                                     params_.tiles.prefetch_next_op, [this] { tile_done(); }));
    tiles_.back()->hbm_socket.bind(hbm_->target);
    tiles_.back()->shared_socket.bind(shared_sram_->target);
    if (mesh_) tiles_.back()->attach_mesh(mesh_.get(), t);
  }
  if (params_.ports.count > 0) {
    port_dma_ = std::make_unique<PortDmaModule>("port_dma", params_.ports, params_.noc.latency,
                                                mesh_.get());
    port_dma_->hbm_socket.bind(hbm_->target);
  }
  SC_HAS_PROCESS(ChipModule);
  SC_THREAD(control_thread);
}

void ChipModule::submit_port_transfers(const std::vector<PortTransfer>& transfers) {
  if (transfers.empty()) return;
  if (!port_dma_) {
    throw std::invalid_argument("ChipModule " + std::string(name()) +
                                ": the chip has no chip-to-chip ports");
  }
  port_dma_->submit(transfers);
}

const std::vector<PortTransferRecord>& ChipModule::port_records() const {
  static const std::vector<PortTransferRecord> kNone;
  return port_dma_ ? port_dma_->records() : kNone;
}

Bytes ChipModule::hbm_bytes_served() const { return hbm_->bytes_read() + hbm_->bytes_written(); }

Bytes ChipModule::shared_sram_bytes_served() const {
  return shared_sram_->bytes_read() + shared_sram_->bytes_written();
}

void ChipModule::record_activity(const ActivityWindow& window) {
  const HbmParams& hbm = params_.hbm;
  const bool per_channel = hbm.channels() <= kMaxHbmChannelTracks;
  activity_.clear();
  activity_.reserve(tiles_.size() + static_cast<size_t>(per_channel ? hbm.channels() : hbm.stacks));
  for (size_t t = 0; t < tiles_.size(); ++t) {
    activity_.emplace_back("tile " + std::to_string(t), "tile", 1, window);
  }
  const size_t first_hbm = activity_.size();
  if (per_channel) {
    for (int64_t c = 0; c < hbm.channels(); ++c) {
      activity_.emplace_back("HBM channel " + std::to_string(c), "hbm", 1, window);
    }
  } else {
    for (int64_t s = 0; s < hbm.stacks; ++s) {
      activity_.emplace_back("HBM stack " + std::to_string(s) + " (" +
                                 std::to_string(hbm.channels_per_stack) + " channels)",
                             "hbm", hbm.channels_per_stack, window);
    }
  }
  for (size_t t = 0; t < tiles_.size(); ++t) tiles_[t]->set_activity(&activity_[t]);
  for (int64_t c = 0; c < hbm.channels(); ++c) {
    const int64_t track = per_channel ? c : c / hbm.channels_per_stack;
    hbm_->set_channel_activity(c, &activity_[first_hbm + static_cast<size_t>(track)], &current_op_);
  }
}

void ChipModule::set_program(std::vector<WorkDescriptor> program) {
  program_ = std::move(program);
  records_.clear();
  records_.reserve(program_.size());
  if (started_) program_ready_.notify(sc_core::SC_ZERO_TIME);
}

void ChipModule::tile_done() {
  if (--pending_tiles_ == 0) all_tiles_done_.notify(sc_core::SC_ZERO_TIME);
}

void ChipModule::control_thread() {
  started_ = true;
  // Every program starts on memories in their time-0 state (other rows open, buses idle, refresh
  // counted from the program's start): what ran before cannot change it, so an op simulated for
  // the op table costs the same in every process, whatever that process simulated first.
  const auto restart_memories = [this] {
    hbm_->restart_at(sc_core::sc_time_stamp());
    if (shared_sram_) shared_sram_->restart_at(sc_core::sc_time_stamp());
  };
  restart_memories();
  run_program();
  for (;;) {
    sc_core::wait(program_ready_);
    // Align to the refresh period (see set_program).
    const double period = params_.hbm.timing.t_refi.si();
    if (period > 0) {
      const double now = from_sc_time(sc_core::sc_time_stamp()).si();
      const double next = std::ceil(now / period) * period;
      if (next > now) sc_core::wait(to_sc_time(Duration(next - now)));
    }
    restart_memories();
    run_program();
  }
}

void ChipModule::run_program() {
  // Plan one op ahead, so that tiles may prefetch the next op's weights.
  struct PlannedOp {
    TilePlan plan;
    std::vector<TileModule::Assignment> assignments;
  };
  uint64_t hbm_cursor = 0;
  uint64_t shared_cursor = 0;
  auto plan_op = [&](size_t index) {
    const WorkDescriptor& work = program_[index];
    auto planned = std::make_unique<PlannedOp>();
    planned->plan = policy_.plan(work);
    for (const auto& blocks : planned->plan.blocks_per_tile) {
      // Each tile streams its own contiguous address range.
      planned->assignments.push_back(
          {&blocks, hbm_cursor, shared_cursor, work.hbm_pattern, static_cast<int64_t>(index)});
      for (const WorkBlock& b : blocks) {
        hbm_cursor += static_cast<uint64_t>(b.hbm_read.si() + b.hbm_write.si() + 0.5);
        shared_cursor += static_cast<uint64_t>(b.shared_read.si() + b.shared_write.si() + 0.5);
      }
    }
    return planned;
  };
  std::unique_ptr<PlannedOp> current = program_.empty() ? nullptr : plan_op(0);
  for (size_t i = 0; i < program_.size(); ++i) {
    std::unique_ptr<PlannedOp> next = i + 1 < program_.size() ? plan_op(i + 1) : nullptr;
    const TilePlan& plan = current->plan;
    current_op_ = static_cast<int64_t>(i);
    OpRecord record;
    const sc_core::sc_time started = sc_core::sc_time_stamp();
    record.start = from_sc_time(started);
    record.planned = plan.totals();
    record.max_tile_compute_cycles = plan.max_tile_compute_cycles();
    // Without a governor the op runs at the configured clocks: a scale a governor set for an
    // earlier op must not stay on the tiles (the op table installs one only for ops it prices
    // at a lowered clock, and the ops after such an op ran 3 % slow at the nominal clock).
    OpControl control;
    if (governor_) control = governor_(i, records_);
    record.clock_scale = control.clock_scale;
    for (auto& tile : tiles_) tile->set_clock_scale(record.clock_scale);

    // Each op's transfers start whole: a byte fraction carried over from the previous op would
    // shift every address of this one by a byte, off every burst and row boundary (2 % on a
    // decode iteration), and make the op's cost depend on what ran before it.
    for (auto& tile : tiles_) tile->restart();
    pending_tiles_ = 0;
    for (const auto& blocks : plan.blocks_per_tile) pending_tiles_ += blocks.empty() ? 0 : 1;
    for (size_t t = 0; t < plan.blocks_per_tile.size(); ++t) {
      if (plan.blocks_per_tile[t].empty()) continue;
      tiles_[t]->start(current->assignments[t],
                       next ? next->assignments[t] : TileModule::Assignment{});
    }
    const bool switches =
        control.low_work_share > 0 && control.low_clock_scale < control.clock_scale;
    if (pending_tiles_ > 0 && switches) {
      // Sub-op control: firmware lowers the clock inside the op; each tile's next block runs at
      // the new clock (a block in flight finishes at the old one).
      sc_core::wait(to_sc_time(control.switch_after), all_tiles_done_);
      if (pending_tiles_ > 0) {
        const sc_core::sc_time switched = sc_core::sc_time_stamp();
        for (auto& tile : tiles_) tile->set_clock_scale(control.low_clock_scale);
        sc_core::wait(all_tiles_done_);
        record.low_clock_scale = control.low_clock_scale;
        record.low_clock_time = from_sc_time(sc_core::sc_time_stamp() - switched);
        // Work share at the lower clock, taking the work rate as proportional to the clock (a
        // compute-bound op; the op table's blends have the exact share).
        const double low_work = control.low_clock_scale * record.low_clock_time.si();
        const double high_work = control.clock_scale * (from_sc_time(switched) - record.start).si();
        record.low_work_share = low_work + high_work > 0 ? low_work / (low_work + high_work) : 0;
      }
    } else if (pending_tiles_ > 0) {
      sc_core::wait(all_tiles_done_);
    }

    record.end = from_sc_time(sc_core::sc_time_stamp());
    record.exact_elapsed = from_sc_time(sc_core::sc_time_stamp() - started);
    records_.push_back(record);
    if (op_done_) op_done_(records_.size());
    current = std::move(next);
  }
}

}  // namespace scoville::models
