// The chip-to-chip DMA engine: moves network payloads between HBM and the chip's I/O ports
// (NVLink-, ICI- or Jalapeño-link-like), so that a collective's bytes load the same HBM channels
// and on-chip mesh links as the tiles' traffic. The network models (models/network) time the
// bytes between chips; this models what they cost on the chip at either end.
//
// A transfer is cut into pieces; at most kWindow pieces are in flight (a DMA queue's depth).
// Each piece is striped over all ports (collective libraries spread a transfer over every
// link), and its HBM access, its crossing of the mesh (memory ports <-> I/O ports, when the NoC
// is a mesh) and its serialisation on the ports stream concurrently: the slowest sets when it
// is done, as for a tile's loads. Transfers run in the order they were submitted.
#pragma once

#include <cstdint>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "models/chip/chip_params.hpp"
#include "models/noc/mesh_noc_model.hpp"

namespace scoville::models {

struct PortTransfer {
  Duration start;  // absolute; not before the simulation time when it is submitted
  Bytes bytes;
  bool send = true;  // true: read from HBM and sent out; false: received and written to HBM
};

struct PortTransferRecord {
  PortTransfer transfer;
  Duration end;
};

class PortDmaModule : public sc_core::sc_module {
 public:
  // [ASSUMPTION] DMA piece size and queue depth: 512 KiB pieces (NCCL's default chunk for
  // simple-protocol transfers is of this order), four in flight.
  static constexpr uint64_t kPieceBytes = 512 * 1024;
  static constexpr int kWindow = 4;

  tlm_utils::simple_initiator_socket<PortDmaModule> hbm_socket;

  // `mesh` may be null (crossbar NoC: HBM traffic sees `noc_latency` only). Ports with a zero
  // count cannot carry anything; submit() then throws.
  PortDmaModule(const sc_core::sc_module_name& name, const ChipPortParams& ports,
                Duration noc_latency, MeshNocModel* mesh);

  // Queues transfers (in start order) behind any not yet run.
  void submit(const std::vector<PortTransfer>& transfers);
  const std::vector<PortTransferRecord>& records() const { return records_; }
  bool idle() const { return queue_.empty(); }
  // Bytes the DMA read from or wrote to HBM.
  Bytes bytes_moved() const { return Bytes(static_cast<double>(bytes_moved_)); }

 private:
  void run_thread();
  // Issues one piece now; returns the absolute time it has fully crossed memory, mesh and ports.
  sc_core::sc_time piece(bool send, uint64_t bytes);

  ChipPortParams ports_;
  sc_core::sc_time noc_latency_;
  MeshNocModel* mesh_;
  std::vector<PortTransfer> queue_;
  size_t next_ = 0;
  std::vector<PortTransferRecord> records_;
  // Per direction (0: send, 1: receive), per port: when it has serialised what was booked.
  std::vector<Duration> port_free_[2];
  uint64_t address_ = uint64_t{1} << 40;  // a range apart from the tiles' streams
  uint64_t bytes_moved_ = 0;
  unsigned char dummy_data_ = 0;
  sc_core::sc_event work_;
};

}  // namespace scoville::models
