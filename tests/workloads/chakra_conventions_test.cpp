// The conventions that make ASTRA-sim run a Scoville trace to the end and read its amounts as
// Scoville means them (workloads/trace/chakra_conventions.hpp, docs/traces-chakra.md): comm_size
// per collective type, no zero-work node, duration_micros on every compute node, communicator
// ids and ASTRA-sim's communicator JSON.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/workloads/chakra_protobuf_decode.hpp"
#include "tests/workloads/chakra_test_support.hpp"
#include "workloads/trace/chakra_conventions.hpp"
#include "workloads/trace/chakra_reader.hpp"
#include "workloads/trace/chakra_writer.hpp"
#include "workloads/trace/communicator_groups.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::test;

namespace {

TraceNode collective_node(uint64_t id, CollectiveKind kind, int64_t group_size, double bytes) {
  TraceNode n;
  n.id = id;
  n.name = to_string(kind);
  n.kind = TraceNodeKind::kCollective;
  n.collective = {kind, "tp", group_size, -1, Bytes(bytes)};
  return n;
}

TraceNode compute_node(uint64_t id, double flops, double bytes) {
  TraceNode n;
  n.id = id;
  n.name = "op" + std::to_string(id);
  n.kind = TraceNodeKind::kCompute;
  n.op.name = n.name;
  n.op.kind = OpKind::kVector;
  n.op.flops = Flops(flops);
  n.op.activation_in_bytes = Bytes(bytes);
  return n;
}

ChipTrace bare_trace() {
  ChipTrace t = sample_trace();
  t.nodes.clear();
  return t;
}

}  // namespace

TEST_CASE("Chakra comm_size follows ASTRA-sim's convention for each collective type") {
  // Ring.cc: all-reduce msg = size / n; all-gather msg = size (the input shard); reduce-scatter
  // msg = size / n (size is the input); all-to-all msg = size / n (the send buffer).
  const int64_t n = 8;
  const double shard = 1 << 20;
  ChipTrace t = bare_trace();
  t.nodes = {collective_node(1, CollectiveKind::kAllReduce, n, shard * n),
             collective_node(2, CollectiveKind::kAllGather, n, shard),
             collective_node(3, CollectiveKind::kReduceScatter, n, shard),
             collective_node(4, CollectiveKind::kAllToAll, n, shard * n)};
  const Decoded d = decode_with_protobuf(encode_chakra_trace(t));
  REQUIRE(d.nodes.size() == 4);
  // The per-message size each rank sends in ASTRA-sim's ring, from comm_size:
  REQUIRE(attr(d.nodes[0], "comm_size").int64_val() / n == int64_t(shard));  // all-reduce
  REQUIRE(attr(d.nodes[1], "comm_size").int64_val() == int64_t(shard));      // all-gather
  REQUIRE(attr(d.nodes[2], "comm_size").int64_val() / n == int64_t(shard));  // reduce-scatter
  REQUIRE(attr(d.nodes[3], "comm_size").int64_val() / n == int64_t(shard));  // all-to-all

  // Import restores Collective::bytes, with and without Scoville's own attributes.
  const ChakraTrace back = decode_chakra_trace(encode_chakra_trace(t), "x.0.et");
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    REQUIRE(back.trace.nodes[i].collective.bytes == t.nodes[i].collective.bytes);
  }
  const std::string foreign =
      record(metadata("0.0.4")) +
      record(varint_field(1, 1) + varint_field(3, 7) + bytes_field(10, attr_int64("comm_type", 7)) +
             bytes_field(10, attr_int64("comm_size", int64_t(shard) * n)));
  ChakraReadOptions options;
  options.world_size = n;
  const ChakraTrace imported = decode_chakra_trace(foreign, "rs.0.et", options);
  REQUIRE(imported.trace.nodes[0].collective.kind == CollectiveKind::kReduceScatter);
  REQUIRE(imported.trace.nodes[0].collective.bytes == Bytes(shard));
}

TEST_CASE("Chakra export writes no zero-work node") {
  ChipTrace t = bare_trace();
  t.nodes = {compute_node(1, 0.0, 4096.0),  // an embedding lookup: bytes, no FLOPs
             compute_node(2, 1e6, 0.0),     // a fused op whose bytes stay on chip
             compute_node(3, 0.0, 0.0),     // nothing at all
             compute_node(4, 0.4, 0.4),     // rounds to 0
             collective_node(5, CollectiveKind::kAllReduce, 2, 0.0)};
  const Decoded d = decode_with_protobuf(encode_chakra_trace(t));
  for (const ChakraProtoMsg::Node& n : d.nodes) {
    INFO("node " << n.id());
    if (n.type() == ChakraProtoMsg::COMP_NODE) {
      REQUIRE(attr(n, "num_ops").int64_val() >= chakra::kMinimalAmount);
      REQUIRE(attr(n, "tensor_size").uint64_val() >= uint64_t(chakra::kMinimalAmount));
    } else {
      REQUIRE(attr(n, "comm_size").int64_val() >= chakra::kMinimalAmount);
    }
  }
  // Real amounts are written as they are; the exact ones come back through scoville.*.
  REQUIRE(attr(d.nodes[0], "tensor_size").uint64_val() == 4096);
  REQUIRE(attr(d.nodes[1], "num_ops").int64_val() == 1000000);
  const ChakraTrace back = decode_chakra_trace(encode_chakra_trace(t), "x.0.et");
  REQUIRE(back.trace.nodes[0].op.flops == Flops(0.0));
  REQUIRE(back.trace.nodes[2].op.activation_in_bytes == Bytes(0.0));
}

TEST_CASE("Chakra duration_micros carries the rounding so that every prefix sum stays exact") {
  // 0.3 us each: rounded one by one every node would be 0 us; carried, 10 nodes make 3 us.
  const std::vector<double> seconds(10, 0.3e-6);
  const std::vector<int64_t> micros = chakra::micros_with_carry(seconds);
  double exact = 0;
  int64_t sum = 0;
  for (size_t i = 0; i < seconds.size(); ++i) {
    exact += seconds[i] * 1e6;
    sum += micros[i];
    REQUIRE(micros[i] >= 0);
    REQUIRE(std::fabs(double(sum) - exact) <= 0.5 + 1e-9);
  }
  REQUIRE(sum == 3);
}

TEST_CASE("Chakra export puts the chip-model time on every compute node") {
  const ChipTrace t = sample_trace();
  ChakraWriteOptions options;
  double total = 0;
  for (const TraceNode& n : t.nodes) {
    if (n.kind != TraceNodeKind::kCompute) continue;
    options.compute_durations[n.id] = Duration(2.6e-6 * double(n.id));
    total += 2.6 * double(n.id);
  }
  const Decoded d = decode_with_protobuf(encode_chakra_trace(t, options));
  int64_t sum = 0;
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    if (t.nodes[i].kind != TraceNodeKind::kCompute) {
      REQUIRE(d.nodes[i].duration_micros() == 0);
      continue;
    }
    REQUIRE(has_attr(d.nodes[i], "scoville.duration_s"));
    sum += int64_t(d.nodes[i].duration_micros());
  }
  REQUIRE(std::fabs(double(sum) - total) <= 0.5);
  // Import gives the exact times back.
  const ChakraTrace back = decode_chakra_trace(encode_chakra_trace(t, options), "x.3.et");
  for (const auto& [id, time] : options.compute_durations) {
    REQUIRE(back.durations.at(id) == time);
  }
  // A compute node without a time is the caller's mistake.
  options.compute_durations.erase(options.compute_durations.begin());
  REQUIRE_THROWS_AS(encode_chakra_trace(t, options), std::invalid_argument);
}

TEST_CASE("Chakra communicators: an id per group instance that is not the whole pool") {
  ParallelDegrees d;
  d.tp = 4;
  d.pp = 2;
  const int64_t world = d.tp * d.pp;
  const Communicators c = assign_communicators(d, world, {"tp", "tp", "ep"});
  // "ep" = tp here: one block per stage, like tp. Two stages x {ep, tp}.
  REQUIRE(c.members.size() == 4);
  for (int64_t rank = 0; rank < world; ++rank) {
    const int64_t stage = rank / d.tp;
    const int64_t tp_id = c.ids.at(rank).at("tp");
    const std::vector<int64_t>& members = c.members.at(tp_id);
    REQUIRE(members.size() == size_t(d.tp));
    REQUIRE(members.front() == stage * d.tp);
  }
  REQUIRE(render_communicators_json(c).find("\"1\": [0, 1, 2, 3]") != std::string::npos);

  // A group over every rank needs no id: ASTRA-sim's default communicator is all ranks.
  ParallelDegrees one_block;
  one_block.tp = 8;
  const Communicators none = assign_communicators(one_block, 8, {"tp"});
  REQUIRE(none.members.empty());
  REQUIRE(render_communicators_json(none) == "{}\n");

  // EP smaller than TP: tp / ep groups of consecutive ranks.
  ParallelDegrees moe;
  moe.tp = 8;
  moe.ep = 4;
  const auto ep = group_instances(moe, "ep", 0);
  REQUIRE(ep == std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}});
}
