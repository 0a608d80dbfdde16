#include "workloads/trace/chakra_writer.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <utility>

#include "scoville_git_revision.hpp"  // SCOVILLE_GIT_SHA, generated at build time
#include "sim/base/atomic_file.hpp"
#include "sim/base/error.hpp"
#include "workloads/trace/chakra/et_def.pb.h"
#include "workloads/trace/chakra_attributes.hpp"
#include "workloads/trace/chakra_conventions.hpp"

namespace scoville::workloads {

namespace {

namespace pb = ChakraProtoMsg;
using chakra::CommType;
namespace own = chakra::own;

void add_bool(google::protobuf::RepeatedPtrField<pb::AttributeProto>* attrs, const char* name,
              bool value) {
  pb::AttributeProto* a = attrs->Add();
  a->set_name(name);
  a->set_bool_val(value);
}
void add_int64(google::protobuf::RepeatedPtrField<pb::AttributeProto>* attrs, const char* name,
               int64_t value) {
  pb::AttributeProto* a = attrs->Add();
  a->set_name(name);
  a->set_int64_val(value);
}
void add_uint64(google::protobuf::RepeatedPtrField<pb::AttributeProto>* attrs, const char* name,
                uint64_t value) {
  pb::AttributeProto* a = attrs->Add();
  a->set_name(name);
  a->set_uint64_val(value);
}
void add_int32(google::protobuf::RepeatedPtrField<pb::AttributeProto>* attrs, const char* name,
               int32_t value) {
  pb::AttributeProto* a = attrs->Add();
  a->set_name(name);
  a->set_int32_val(value);
}
void add_double(google::protobuf::RepeatedPtrField<pb::AttributeProto>* attrs, const char* name,
                double value) {
  pb::AttributeProto* a = attrs->Add();
  a->set_name(name);
  a->set_double_val(value);
}
void add_string(google::protobuf::RepeatedPtrField<pb::AttributeProto>* attrs, const char* name,
                const std::string& value) {
  pb::AttributeProto* a = attrs->Add();
  a->set_name(name);
  a->set_string_val(value);
}

void append_record(const google::protobuf::MessageLite& message, std::string* out) {
  const std::string body = message.SerializeAsString();
  uint32_t length = static_cast<uint32_t>(body.size());
  while (length >= 0x80) {
    out->push_back(static_cast<char>((length & 0x7F) | 0x80));
    length >>= 7;
  }
  out->push_back(static_cast<char>(length));
  out->append(body);
}

pb::GlobalMetadata metadata_of(const ChipTrace& trace) {
  pb::GlobalMetadata meta;
  meta.set_version(chakra::kSchemaVersion);
  auto* attrs = meta.mutable_attr();
  add_string(attrs, chakra::kSchema, std::string("chakra ") + chakra::kSchemaVersion);
  add_string(attrs, chakra::kProducer, std::string("scoville ") + SCOVILLE_VERSION);
  add_string(attrs, chakra::kGitSha, SCOVILLE_GIT_SHA);
  add_string(attrs, own::kModel, trace.model);
  add_string(attrs, own::kRole, trace.role);
  add_int64(attrs, own::kRank, trace.rank);
  add_int64(attrs, own::kWorldSize, trace.world_size);
  add_int64(attrs, own::kTp, trace.degrees.tp);
  add_int64(attrs, own::kEp, trace.degrees.ep);
  add_int64(attrs, own::kPp, trace.degrees.pp);
  add_int64(attrs, own::kDp, trace.degrees.dp);
  add_int64(attrs, own::kAttnDp, trace.degrees.attn_dp);
  add_string(attrs, own::kPhase, to_string(trace.shape.phase));
  add_int64(attrs, own::kBatch, trace.shape.batch);
  add_int64(attrs, own::kNewTokens, trace.shape.new_tokens);
  add_int64(attrs, own::kContext, trace.shape.context);
  return meta;
}

// Op fields as scoville.* attributes, so that import restores the op exactly.
void add_op_attributes(const Op& op, google::protobuf::RepeatedPtrField<pb::AttributeProto>* a) {
  add_string(a, own::kOpName, op.name);
  add_int64(a, own::kOpLayer, op.layer);
  add_string(a, own::kOpKind, to_string(op.kind));
  add_int64(a, own::kM, op.m);
  add_int64(a, own::kN, op.n);
  add_int64(a, own::kK, op.k);
  add_int64(a, own::kInstances, op.instances);
  add_string(a, own::kWeightFormat, to_string(op.weight_format));
  add_string(a, own::kMath, to_string(op.math));
  add_double(a, own::kFlops, op.flops.si());
  add_double(a, own::kWeightBytes, op.weight_bytes.si());
  add_double(a, own::kKvReadBytes, op.kv_read_bytes.si());
  add_double(a, own::kKvWriteBytes, op.kv_write_bytes.si());
  add_double(a, own::kActivationInBytes, op.activation_in_bytes.si());
  add_double(a, own::kActivationOutBytes, op.activation_out_bytes.si());
}

// Compute: a COMP node whose num_ops are its FLOPs and whose tensor_size is all the bytes the op
// moves to or from memory (weights, KV reads and writes, activations), which is what ASTRA-sim's
// roofline divides by the local memory bandwidth. KV traffic stays inside the op rather than
// becoming MEM_LOAD/MEM_STORE nodes, which ASTRA-sim would send to its remote-memory backend. A
// kMemory op (imported from such a node) goes back out as one. Zero amounts are written as
// chakra::kMinimalAmount.
void fill_compute(const TraceNode& node, pb::Node* out) {
  const Op& op = node.op;
  auto* a = out->mutable_attr();
  if (op.kind == OpKind::kMemory) {
    const bool store = op.kv_write_bytes.si() > 0.0 && op.kv_read_bytes.si() <= 0.0;
    out->set_type(store ? pb::MEM_STORE_NODE : pb::MEM_LOAD_NODE);
    add_uint64(a, chakra::kTensorSize,
               static_cast<uint64_t>(
                   chakra::whole_amount((store ? op.kv_write_bytes : op.kv_read_bytes).si())));
  } else {
    out->set_type(pb::COMP_NODE);
    add_int64(a, chakra::kNumOps, chakra::whole_amount(op.flops.si()));
    const Bytes moved = op.weight_bytes + op.kv_read_bytes + op.kv_write_bytes +
                        op.activation_in_bytes + op.activation_out_bytes;
    add_uint64(a, chakra::kTensorSize, static_cast<uint64_t>(chakra::whole_amount(moved.si())));
  }
  add_bool(a, chakra::kIsCpuOp, false);
  add_op_attributes(op, a);
}

// The k-th send to a peer matches the peer's k-th receive from this rank: both traces list their
// transfers in program order, so an ordinal per (direction, peer) makes tags that agree.
void fill_collective(const TraceNode& node, int64_t rank, const ChakraWriteOptions& options,
                     std::map<std::pair<bool, int64_t>, int32_t>* tags, pb::Node* out) {
  const Collective& c = node.collective;
  auto* a = out->mutable_attr();
  add_bool(a, chakra::kIsCpuOp, false);
  if (c.kind == CollectiveKind::kSend || c.kind == CollectiveKind::kRecv) {
    const bool send = c.kind == CollectiveKind::kSend;
    out->set_type(send ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE);
    add_int32(a, chakra::kCommSrc, static_cast<int32_t>(send ? rank : c.peer));
    add_int32(a, chakra::kCommDst, static_cast<int32_t>(send ? c.peer : rank));
    add_int32(a, chakra::kCommTag, (*tags)[{send, c.peer}]++);
  } else {
    out->set_type(pb::COMM_COLL_NODE);
    add_int64(a, chakra::kCommType, static_cast<int64_t>(chakra::comm_type_of(c.kind)));
    const auto id = options.communicator_ids.find(c.group);
    if (id != options.communicator_ids.end()) {
      add_string(a, chakra::kPgName, std::to_string(id->second));
    }
  }
  add_int64(a, chakra::kCommSize, chakra::whole_amount(chakra::comm_size_of(c)));
  add_string(a, own::kCollective, to_string(c.kind));
  add_string(a, own::kGroup, c.group);
  add_int64(a, own::kGroupSize, c.group_size);
  add_int64(a, own::kPeer, c.peer);
  add_double(a, own::kBytes, c.bytes.si());
}

// duration_micros of every compute node, by id, with the rounding carried along the file order
// (the order the chip runs them in); empty when no durations are given.
std::map<uint64_t, int64_t> duration_micros(const ChipTrace& trace,
                                            const ChakraWriteOptions& options) {
  std::map<uint64_t, int64_t> out;
  if (options.compute_durations.empty()) return out;
  std::vector<uint64_t> ids;
  std::vector<double> seconds;
  for (const TraceNode& node : trace.nodes) {
    if (node.kind != TraceNodeKind::kCompute) continue;
    const auto it = options.compute_durations.find(node.id);
    if (it == options.compute_durations.end() || !(it->second.si() >= 0.0)) {
      throw std::invalid_argument("compute node " + std::to_string(node.id) + " ('" + node.name +
                                  "') of rank " + std::to_string(trace.rank) +
                                  " has no duration (or a negative one)");
    }
    ids.push_back(node.id);
    seconds.push_back(it->second.si());
  }
  const std::vector<int64_t> micros = chakra::micros_with_carry(seconds);
  for (size_t i = 0; i < ids.size(); ++i) out.emplace(ids[i], micros[i]);
  return out;
}

}  // namespace

std::string encode_chakra_trace(const ChipTrace& trace, const ChakraWriteOptions& options) {
  for (const auto& [group, id] : options.communicator_ids) {
    if (id <= 0) {
      throw std::invalid_argument("communicator id of group '" + group +
                                  "' must be > 0 (ASTRA-sim reads 0 as all ranks), got " +
                                  std::to_string(id));
    }
  }
  const std::map<uint64_t, int64_t> micros = duration_micros(trace, options);
  std::string out;
  append_record(metadata_of(trace), &out);
  std::map<std::pair<bool, int64_t>, int32_t> tags;
  for (const TraceNode& node : trace.nodes) {
    pb::Node n;
    n.set_id(node.id);
    n.set_name(node.name);
    for (uint64_t dep : node.ctrl_deps) n.add_ctrl_deps(dep);
    for (uint64_t dep : node.data_deps) n.add_data_deps(dep);
    add_int64(n.mutable_attr(), own::kLayer, node.layer);
    if (node.kind == TraceNodeKind::kCompute) {
      fill_compute(node, &n);
      const auto it = micros.find(node.id);
      if (it != micros.end()) {
        n.set_duration_micros(static_cast<uint64_t>(it->second));
        add_double(n.mutable_attr(), own::kDurationS, options.compute_durations.at(node.id).si());
      }
    } else {
      fill_collective(node, trace.rank, options, &tags, &n);
    }
    append_record(n, &out);
  }
  return out;
}

void write_chakra_trace(const ChipTrace& trace, const std::string& path,
                        const ChakraWriteOptions& options) {
  write_text_atomically(path, encode_chakra_trace(trace, options));
}

std::string chakra_trace_path(const std::string& prefix, int64_t rank) {
  return prefix + "." + std::to_string(rank) + ".et";
}

std::vector<std::string> write_chakra_traces(const std::vector<ChipTrace>& traces,
                                             const std::string& prefix,
                                             const ChakraWriteOptions& options) {
  std::set<int64_t> ranks;
  for (const ChipTrace& trace : traces) {
    if (!ranks.insert(trace.rank).second) {
      throw std::invalid_argument("two traces for rank " + std::to_string(trace.rank) +
                                  " (one Chakra file per rank)");
    }
  }
  std::vector<std::string> paths;
  for (const ChipTrace& trace : traces) {
    paths.push_back(chakra_trace_path(prefix, trace.rank));
    write_chakra_trace(trace, paths.back(), options);
  }
  return paths;
}

}  // namespace scoville::workloads
