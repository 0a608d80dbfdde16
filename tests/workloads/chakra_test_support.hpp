// Shared by the Chakra tests: a small hand-built ChipTrace with every node kind, and a minimal
// protobuf wire encoder, independent of the generated code, for hand-made byte streams.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/trace/chip_trace.hpp"

namespace scoville::workloads::test {

// One rank of a TP=2 x PP=2 decode step: attention and an MoE FFN (compute), an all-reduce, an
// all-to-all, a send to the next stage and a receive from the previous one, a KV store as a
// memory op, with data and ctrl dependencies.
inline ChipTrace sample_trace() {
  ChipTrace t;
  t.model = "tiny";
  t.role = "decode";
  t.rank = 3;
  t.world_size = 4;
  t.degrees.tp = 2;
  t.degrees.pp = 2;
  t.shape.phase = Phase::kDecode;
  t.shape.batch = 8;
  t.shape.new_tokens = 1;
  t.shape.context = 1024;

  const int64_t batch = t.shape.batch, heads = 4, head_dim = 64, hidden = 256;

  TraceNode recv;
  recv.id = 10;
  recv.name = "pp_recv";
  recv.layer = 2;
  recv.kind = TraceNodeKind::kCollective;
  recv.collective = {CollectiveKind::kRecv, "pp", 2, 1, Bytes(double(batch * hidden * 2))};

  TraceNode attn;
  attn.id = 11;
  attn.name = "l2.attention";
  attn.layer = 2;
  attn.kind = TraceNodeKind::kCompute;
  attn.op.name = "attention";
  attn.op.layer = 2;
  attn.op.kind = OpKind::kAttention;
  attn.op.m = 2;
  attn.op.n = t.shape.context;
  attn.op.k = head_dim;
  attn.op.instances = batch * heads / attn.op.m;
  attn.op.flops = Flops(4.0 * double(attn.op.instances * attn.op.m * attn.op.n * attn.op.k));
  attn.op.kv_read_bytes = Bytes(2.0 * double(attn.op.instances * attn.op.n * attn.op.k) * 2.0);
  attn.op.activation_in_bytes = Bytes(double(batch * hidden * 2));
  attn.op.activation_out_bytes = attn.op.activation_in_bytes;
  attn.data_deps = {recv.id};

  TraceNode kv_store;
  kv_store.id = 12;
  kv_store.name = "l2.kv_append";
  kv_store.layer = 2;
  kv_store.kind = TraceNodeKind::kCompute;
  kv_store.op.name = "kv_append";
  kv_store.op.layer = 2;
  kv_store.op.kind = OpKind::kMemory;
  kv_store.op.kv_write_bytes = Bytes(2.0 * double(batch * heads * head_dim) * 2.0);
  kv_store.ctrl_deps = {attn.id};

  TraceNode all_reduce;
  all_reduce.id = 13;
  all_reduce.name = "l2.attn_allreduce";
  all_reduce.layer = 2;
  all_reduce.kind = TraceNodeKind::kCollective;
  all_reduce.collective = {CollectiveKind::kAllReduce, "tp", t.degrees.tp, -1,
                           attn.op.activation_out_bytes};
  all_reduce.data_deps = {attn.id};

  // MXFP4 experts: 4.25 bits per weight, and 5 x 97 x 99 weights is no multiple of 32, so the
  // weight bytes are not a whole number (Chakra's integer fields cannot hold them exactly).
  TraceNode experts;
  experts.id = 14;
  experts.name = "l2.moe_experts";
  experts.layer = 2;
  experts.kind = TraceNodeKind::kCompute;
  experts.op.name = "moe_experts";
  experts.op.layer = 2;
  experts.op.kind = OpKind::kMatmul;
  experts.op.m = 3;
  experts.op.n = 97;
  experts.op.k = 99;
  experts.op.instances = 5;
  experts.op.weight_format = NumberFormat::kMxfp4;
  experts.op.math = MathPrecision::kFp4;
  experts.op.flops =
      Flops(2.0 * double(experts.op.instances * experts.op.m * experts.op.n * experts.op.k));
  experts.op.weight_bytes =
      Bytes(double(experts.op.instances * experts.op.n * experts.op.k) * 4.25 / 8.0);
  experts.op.activation_in_bytes = Bytes(double(batch * hidden * 2));
  experts.op.activation_out_bytes = experts.op.activation_in_bytes;

  TraceNode all_to_all;
  all_to_all.id = 15;
  all_to_all.name = "l2.moe_dispatch";
  all_to_all.layer = 2;
  all_to_all.kind = TraceNodeKind::kCollective;
  const int64_t top_k = 2;
  all_to_all.collective = {CollectiveKind::kAllToAll, "ep", 2, -1,
                           Bytes(double(batch * top_k * hidden * 2))};
  all_to_all.data_deps = {all_reduce.id};
  experts.data_deps = {all_to_all.id};
  experts.ctrl_deps = {kv_store.id};

  TraceNode send;
  send.id = 16;
  send.name = "pp_send";
  send.layer = 2;
  send.kind = TraceNodeKind::kCollective;
  send.collective = {CollectiveKind::kSend, "pp", 2, 0, Bytes(double(batch * hidden * 2))};
  send.data_deps = {experts.id};

  t.nodes = {recv, attn, kv_store, all_reduce, all_to_all, experts, send};
  return t;
}

// Minimal protobuf wire encoding (https://protobuf.dev/programming-guides/encoding/).
inline std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
inline std::string tag(int field, int wire_type) {
  return varint(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire_type));
}
inline std::string varint_field(int field, uint64_t v) { return tag(field, 0) + varint(v); }
inline std::string bytes_field(int field, const std::string& body) {
  return tag(field, 2) + varint(body.size()) + body;
}
// A [varint32 length][message] record of a Chakra stream.
inline std::string record(const std::string& message) { return varint(message.size()) + message; }

// AttributeProto field numbers (et_def.proto): name 1, int32_val 7, int64_val 9, uint64_val 13,
// bool_val 27, string_val 29.
inline std::string attr_int64(const std::string& name, int64_t v) {
  return bytes_field(1, name) + varint_field(9, static_cast<uint64_t>(v));
}
inline std::string attr_bool(const std::string& name, bool v) {
  return bytes_field(1, name) + varint_field(27, v ? 1 : 0);
}
inline std::string attr_string(const std::string& name, const std::string& v) {
  return bytes_field(1, name) + bytes_field(29, v);
}
// Node field numbers: id 1, name 2, type 3, ctrl_deps 4, data_deps 5, duration_micros 7,
// attr 10. GlobalMetadata: version 1.
inline std::string metadata(const std::string& version) { return bytes_field(1, version); }

}  // namespace scoville::workloads::test
