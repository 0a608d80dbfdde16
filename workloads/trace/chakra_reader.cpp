#include "workloads/trace/chakra_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <regex>
#include <sstream>
#include <unordered_map>

#include "sim/base/error.hpp"
#include "workloads/trace/chakra/et_def.pb.h"
#include "workloads/trace/chakra_attributes.hpp"
#include "workloads/trace/chakra_conventions.hpp"

namespace scoville::workloads {

namespace {

namespace pb = ChakraProtoMsg;
using chakra::CommType;
namespace own = chakra::own;

// Where a record sits: its key path ("metadata", "node[3]") and byte offset, for messages.
struct RecordPlace {
  std::string key;
  size_t offset = 0;
};

// What to do about a stream that does not split into records: the file was cut short (a copy
// or a writer that died) or damaged, and only a fresh export fixes it.
constexpr const char* kCorruptAdvice =
    "; the file is truncated or corrupt: export it again (e.g. scoville trace --format chakra "
    "-o DIR) and check that it was copied whole";

// Splits the stream into [varint32 length][message] records.
class RecordReader {
 public:
  RecordReader(const std::string& bytes, std::string source)
      : bytes_(bytes), source_(std::move(source)) {}

  bool at_end() const { return pos_ >= bytes_.size(); }

  // The next record's body; throws InputError for a bad length prefix or one past the end.
  std::string_view next(const RecordPlace& place) {
    uint64_t length = 0;
    size_t pos = pos_;
    for (int i = 0;; ++i) {
      if (pos >= bytes_.size()) {
        fail(place, std::string("the varint length prefix is cut off by the end of the file") +
                        kCorruptAdvice);
      }
      if (i == 5) {
        fail(place, std::string("bad varint length prefix: longer than 5 bytes") + kCorruptAdvice);
      }
      const auto byte = static_cast<uint8_t>(bytes_[pos++]);
      length |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
      if ((byte & 0x80) == 0) break;
    }
    if (length > UINT32_MAX) {
      fail(place, std::string("bad varint length prefix: more than 32 bits") + kCorruptAdvice);
    }
    const size_t left = bytes_.size() - pos;
    if (length > left) {
      fail(place, "record length " + std::to_string(length) + " runs past the end of the file (" +
                      std::to_string(left) + " bytes left)" + kCorruptAdvice);
    }
    pos_ = pos + static_cast<size_t>(length);
    return std::string_view(bytes_).substr(pos, static_cast<size_t>(length));
  }

  size_t position() const { return pos_; }

  [[noreturn]] void fail(const RecordPlace& place, const std::string& message) const {
    throw InputError(SourceLocation{source_, 0, 0}, place.key,
                     "record at byte " + std::to_string(place.offset) + ": " + message);
  }

 private:
  const std::string& bytes_;
  std::string source_;
  size_t pos_ = 0;
};

std::string value_case_name(const pb::AttributeProto& a) {
  switch (a.value_case()) {
    case pb::AttributeProto::kDoubleVal:
      return "double_val";
    case pb::AttributeProto::kFloatVal:
      return "float_val";
    case pb::AttributeProto::kInt32Val:
      return "int32_val";
    case pb::AttributeProto::kInt64Val:
      return "int64_val";
    case pb::AttributeProto::kUint32Val:
      return "uint32_val";
    case pb::AttributeProto::kUint64Val:
      return "uint64_val";
    case pb::AttributeProto::kSint32Val:
      return "sint32_val";
    case pb::AttributeProto::kSint64Val:
      return "sint64_val";
    case pb::AttributeProto::kFixed32Val:
      return "fixed32_val";
    case pb::AttributeProto::kFixed64Val:
      return "fixed64_val";
    case pb::AttributeProto::kSfixed32Val:
      return "sfixed32_val";
    case pb::AttributeProto::kSfixed64Val:
      return "sfixed64_val";
    case pb::AttributeProto::kBoolVal:
      return "bool_val";
    case pb::AttributeProto::kBoolList:
      return "bool_list";
    case pb::AttributeProto::kStringVal:
      return "string_val";
    case pb::AttributeProto::kBytesVal:
      return "bytes_val";
    case pb::AttributeProto::VALUE_NOT_SET:
      break;
  }
  return "no value (or a list type)";
}

// Any numeric member as a double (ASTRA-sim's FeederV3 converts between numeric types too).
std::optional<double> number_of(const pb::AttributeProto& a) {
  switch (a.value_case()) {
    case pb::AttributeProto::kDoubleVal:
      return a.double_val();
    case pb::AttributeProto::kFloatVal:
      return a.float_val();
    case pb::AttributeProto::kInt32Val:
      return a.int32_val();
    case pb::AttributeProto::kInt64Val:
      return static_cast<double>(a.int64_val());
    case pb::AttributeProto::kUint32Val:
      return a.uint32_val();
    case pb::AttributeProto::kUint64Val:
      return static_cast<double>(a.uint64_val());
    case pb::AttributeProto::kSint32Val:
      return a.sint32_val();
    case pb::AttributeProto::kSint64Val:
      return static_cast<double>(a.sint64_val());
    case pb::AttributeProto::kFixed32Val:
      return a.fixed32_val();
    case pb::AttributeProto::kFixed64Val:
      return static_cast<double>(a.fixed64_val());
    case pb::AttributeProto::kSfixed32Val:
      return a.sfixed32_val();
    case pb::AttributeProto::kSfixed64Val:
      return static_cast<double>(a.sfixed64_val());
    default:
      return std::nullopt;
  }
}

// Warnings, one per kind of problem, counted, in order of first sight.
class WarningLog {
 public:
  void add(const std::string& what, const std::string& first_where) {
    auto [it, inserted] = index_.emplace(what, entries_.size());
    if (inserted) entries_.push_back({what, first_where, 0});
    ++entries_[it->second].count;
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const Entry& e : entries_) {
      out.push_back(e.what + " (" + std::to_string(e.count) + "x, first at " + e.first_where + ")");
    }
    return out;
  }

 private:
  struct Entry {
    std::string what;
    std::string first_where;
    int64_t count;
  };
  std::map<std::string, size_t> index_;
  std::vector<Entry> entries_;
};

// The attributes of one record by name, with typed accessors that report wrong types.
class Attributes {
 public:
  Attributes(const google::protobuf::RepeatedPtrField<pb::AttributeProto>& attrs,
             const std::vector<std::string>& known, const RecordPlace& place,
             const std::string& source, Diagnostics* diagnostics, WarningLog* warnings)
      : place_(place), source_(source), diagnostics_(diagnostics) {
    const std::string where = place.key + " (byte " + std::to_string(place.offset) + ")";
    for (const pb::AttributeProto& a : attrs) {
      if (std::find(known.begin(), known.end(), a.name()) == known.end()) {
        warnings->add("attribute '" + a.name() + "' is not used by Scoville", where);
        continue;
      }
      if (!by_name_.emplace(a.name(), &a).second) {
        warnings->add("attribute '" + a.name() + "' repeats on a record; the first one is used",
                      where);
      }
    }
  }

  bool has(const char* name) const { return by_name_.count(name) != 0; }

  std::optional<double> number(const char* name) {
    const pb::AttributeProto* a = find(name);
    if (a == nullptr) return std::nullopt;
    const std::optional<double> v = number_of(*a);
    if (!v || !std::isfinite(*v)) return wrong(name, "a finite number", *a);
    return v;
  }

  // A non-negative quantity (FLOPs, bytes).
  std::optional<double> amount(const char* name) {
    const std::optional<double> v = number(name);
    if (v && *v < 0.0) {
      error(name, "must not be negative, got " + format(*v));
      return std::nullopt;
    }
    return v;
  }

  std::optional<int64_t> integer(const char* name) {
    const pb::AttributeProto* a = find(name);
    if (a == nullptr) return std::nullopt;
    if (a->value_case() == pb::AttributeProto::kUint64Val && a->uint64_val() > INT64_MAX) {
      return wrong(name, "an integer up to 2^63-1", *a);
    }
    if (a->value_case() == pb::AttributeProto::kFixed64Val && a->fixed64_val() > INT64_MAX) {
      return wrong(name, "an integer up to 2^63-1", *a);
    }
    switch (a->value_case()) {
      case pb::AttributeProto::kInt32Val:
        return a->int32_val();
      case pb::AttributeProto::kInt64Val:
        return a->int64_val();
      case pb::AttributeProto::kUint32Val:
        return a->uint32_val();
      case pb::AttributeProto::kUint64Val:
        return static_cast<int64_t>(a->uint64_val());
      case pb::AttributeProto::kSint32Val:
        return a->sint32_val();
      case pb::AttributeProto::kSint64Val:
        return a->sint64_val();
      case pb::AttributeProto::kFixed32Val:
        return a->fixed32_val();
      case pb::AttributeProto::kFixed64Val:
        return static_cast<int64_t>(a->fixed64_val());
      case pb::AttributeProto::kSfixed32Val:
        return a->sfixed32_val();
      case pb::AttributeProto::kSfixed64Val:
        return a->sfixed64_val();
      default:
        return wrong(name, "an integer", *a);
    }
  }

  // A count (shape dimensions, instances, degrees, sizes): an integer >= minimum.
  std::optional<int64_t> count(const char* name, int64_t minimum) {
    const std::optional<int64_t> v = integer(name);
    if (v && *v < minimum) {
      error(name, "must be at least " + std::to_string(minimum) + ", got " + std::to_string(*v));
      return std::nullopt;
    }
    return v;
  }

  std::optional<std::string> text(const char* name) {
    const pb::AttributeProto* a = find(name);
    if (a == nullptr) return std::nullopt;
    if (a->value_case() != pb::AttributeProto::kStringVal) return wrong(name, "a string", *a);
    return a->string_val();
  }

  std::optional<bool> flag(const char* name) {
    const pb::AttributeProto* a = find(name);
    if (a == nullptr) return std::nullopt;
    if (a->value_case() == pb::AttributeProto::kBoolVal) return a->bool_val();
    const std::optional<double> v = number_of(*a);
    if (v && (*v == 0.0 || *v == 1.0)) return *v == 1.0;
    return wrong(name, "a bool", *a);
  }

  // A name that must be one of the values to_string gives for an enum.
  template <class T>
  std::optional<T> choice(const char* name, std::optional<T> (*parse)(const std::string&)) {
    const std::optional<std::string> v = text(name);
    if (!v) return std::nullopt;
    const std::optional<T> parsed = parse(*v);
    if (!parsed) error(name, "unknown value '" + *v + "'");
    return parsed;
  }

  void error(const char* name, const std::string& message) {
    diagnostics_->error(SourceLocation{source_, 0, 0}, place_.key + "." + name,
                        "record at byte " + std::to_string(place_.offset) + ": " + message);
  }

 private:
  const pb::AttributeProto* find(const char* name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
  }
  std::nullopt_t wrong(const char* name, const std::string& expected, const pb::AttributeProto& a) {
    error(name, "expected " + expected + ", found " + value_case_name(a));
    return std::nullopt;
  }
  static std::string format(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  }

  RecordPlace place_;
  const std::string& source_;
  Diagnostics* diagnostics_;
  std::map<std::string, const pb::AttributeProto*> by_name_;
};

template <class T>
void assign(std::optional<T> value, T* field) {
  if (value) *field = *value;
}
void assign_amount(std::optional<double> value, Quantity<FlopsTag>* field) {
  if (value) *field = Flops(*value);
}
void assign_amount(std::optional<double> value, Quantity<BytesTag>* field) {
  if (value) *field = Bytes(*value);
}

// "<prefix>.<rank>.et" -> rank, for traces that do not carry scoville.rank.
std::optional<int64_t> rank_from_name(const std::string& source) {
  static const std::regex pattern(R"(\.([0-9]{1,9})\.et$)");
  std::smatch match;
  if (std::regex_search(source, match, pattern)) return std::stoll(match[1].str());
  return std::nullopt;
}

void read_metadata(const pb::GlobalMetadata& meta, const RecordPlace& place,
                   const std::string& source, const ChakraReadOptions& options,
                   Diagnostics* diagnostics, WarningLog* warnings, ChakraTrace* out) {
  out->version = meta.version();
  if (meta.version() != chakra::kSchemaVersion) {
    warnings->add("schema version '" + meta.version() + "' (Scoville writes and was tested on " +
                      chakra::kSchemaVersion + ")",
                  place.key);
  }
  Attributes a(meta.attr(), chakra::known_metadata_attributes(), place, source, diagnostics,
               warnings);
  ChipTrace& t = out->trace;
  assign(a.text(own::kModel), &t.model);
  assign(a.text(own::kRole), &t.role);
  t.rank = rank_from_name(source).value_or(0);
  assign(a.count(own::kRank, 0), &t.rank);
  if (options.world_size > 0) t.world_size = options.world_size;
  assign(a.count(own::kWorldSize, 1), &t.world_size);
  assign(a.count(own::kTp, 1), &t.degrees.tp);
  assign(a.count(own::kEp, 1), &t.degrees.ep);
  assign(a.count(own::kPp, 1), &t.degrees.pp);
  assign(a.count(own::kDp, 1), &t.degrees.dp);
  assign(a.count(own::kAttnDp, 1), &t.degrees.attn_dp);
  assign(a.choice(own::kPhase, chakra::phase_from_string), &t.shape.phase);
  assign(a.count(own::kBatch, 0), &t.shape.batch);
  assign(a.count(own::kNewTokens, 0), &t.shape.new_tokens);
  assign(a.count(own::kContext, 0), &t.shape.context);
}

// Restores an op from its scoville.* attributes (written by Scoville's exporter).
void read_own_op(Attributes& a, Op* op) {
  assign(a.text(own::kOpName), &op->name);
  std::optional<int64_t> layer = a.integer(own::kOpLayer);
  if (layer) op->layer = static_cast<int>(*layer);
  assign(a.choice(own::kOpKind, chakra::op_kind_from_string), &op->kind);
  assign(a.count(own::kM, 0), &op->m);
  assign(a.count(own::kN, 0), &op->n);
  assign(a.count(own::kK, 0), &op->k);
  assign(a.count(own::kInstances, 0), &op->instances);
  assign(a.choice(own::kWeightFormat, number_format_from_string), &op->weight_format);
  assign(a.choice(own::kMath, math_precision_from_string), &op->math);
  assign_amount(a.amount(own::kFlops), &op->flops);
  assign_amount(a.amount(own::kWeightBytes), &op->weight_bytes);
  assign_amount(a.amount(own::kKvReadBytes), &op->kv_read_bytes);
  assign_amount(a.amount(own::kKvWriteBytes), &op->kv_write_bytes);
  assign_amount(a.amount(own::kActivationInBytes), &op->activation_in_bytes);
  assign_amount(a.amount(own::kActivationOutBytes), &op->activation_out_bytes);
}

struct CollectiveMapping {
  CollectiveKind kind;
  const char* approximation;  // nullptr when exact
};

std::optional<CollectiveMapping> collective_of(int64_t comm_type) {
  switch (static_cast<CommType>(comm_type)) {
    case CommType::kAllReduce:
      return CollectiveMapping{CollectiveKind::kAllReduce, nullptr};
    case CommType::kAllGather:
      return CollectiveMapping{CollectiveKind::kAllGather, nullptr};
    case CommType::kReduceScatter:
    case CommType::kReduceScatterBlock:
      return CollectiveMapping{CollectiveKind::kReduceScatter, nullptr};
    case CommType::kAllToAll:
      return CollectiveMapping{CollectiveKind::kAllToAll, nullptr};
    case CommType::kBroadcast:
      return CollectiveMapping{CollectiveKind::kBroadcast, nullptr};
    case CommType::kReduce:
      return CollectiveMapping{CollectiveKind::kAllReduce, "costed as an all-reduce (upper bound)"};
    case CommType::kGather:
      return CollectiveMapping{CollectiveKind::kAllGather, "costed as an all-gather (upper bound)"};
    case CommType::kScatter:
      return CollectiveMapping{CollectiveKind::kBroadcast, "costed as a broadcast (upper bound)"};
    case CommType::kBarrier:
      return CollectiveMapping{CollectiveKind::kAllReduce, "costed as an all-reduce of its size"};
  }
  return std::nullopt;
}

// Matrix work by name: PyTorch's aten::mm, addmm, bmm, baddbmm, matmul, linear, einsum,
// convolutions and attention kernels [ASSUMPTION: Chakra has no op type beyond the name; any
// other COMP node is taken as vector work].
bool looks_like_matrix_work(const std::string& name) {
  std::string lower;
  for (const char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* key :
       {"mm", "matmul", "linear", "gemm", "einsum", "conv", "attention", "attn", "sdpa"}) {
    if (lower.find(key) != std::string::npos) return true;
  }
  return false;
}

// A matmul of num_ops FLOPs with no shape: one square m = n = k = cbrt(FLOPs / 2) instance, its
// bytes streamed as weights [ASSUMPTION: the shape decides how well the op tiles onto the array;
// a cube is the neutral choice].
void as_matmul(Op* op) {
  op->kind = OpKind::kMatmul;
  const auto side = static_cast<int64_t>(std::llround(std::cbrt(op->flops.si() / 2.0)));
  op->m = op->n = op->k = std::max<int64_t>(side, 1);
  op->instances = 1;
}

void read_compute(const pb::Node& n, Attributes& a, const std::string& where, WarningLog* warnings,
                  TraceNode* node) {
  node->kind = TraceNodeKind::kCompute;
  Op& op = node->op;
  op.name = n.name();
  op.layer = node->layer;
  if (a.has(own::kOpKind)) {
    read_own_op(a, &op);
    return;
  }
  // Foreign node: FLOPs and bytes are all there is. tensor_size is the memory traffic that
  // ASTRA-sim's roofline divides by local memory bandwidth, so it is streamed from memory here.
  const std::optional<double> size = a.amount(chakra::kTensorSize);
  switch (n.type()) {
    case pb::MEM_LOAD_NODE:
      op.kind = OpKind::kMemory;
      assign_amount(size, &op.kv_read_bytes);
      warnings->add(
          "MEM_LOAD/MEM_STORE (ASTRA-sim's remote memory) imported as local memory "
          "traffic",
          where);
      return;
    case pb::MEM_STORE_NODE:
      op.kind = OpKind::kMemory;
      assign_amount(size, &op.kv_write_bytes);
      warnings->add(
          "MEM_LOAD/MEM_STORE (ASTRA-sim's remote memory) imported as local memory "
          "traffic",
          where);
      return;
    case pb::COMP_NODE:
      break;
    default:  // INVALID_NODE, METADATA_NODE: ASTRA-sim skips them; kept for their dependencies
      op.kind = OpKind::kVector;
      warnings->add("INVALID/METADATA node kept as an empty op (it only orders others)", where);
      return;
  }
  assign_amount(a.amount(chakra::kNumOps), &op.flops);
  assign_amount(size, &op.weight_bytes);
  if (looks_like_matrix_work(n.name())) {
    as_matmul(&op);
    warnings->add(
        "COMP node without Scoville's shape attributes, named as matrix work: costed from "
        "num_ops and tensor_size on the matrix engine as one square matmul",
        where);
  } else {
    op.kind = OpKind::kVector;
    warnings->add(
        "COMP node without Scoville's shape attributes: costed from num_ops and "
        "tensor_size on the vector unit",
        where);
  }
  if (!a.has(chakra::kNumOps) && n.duration_micros() > 0) {
    warnings->add(
        "COMP node with only duration_micros: it costs nothing on the chip model (run with "
        "--compute durations to replay the recorded times)",
        where);
  }
  if (a.flag(chakra::kIsCpuOp).value_or(false)) {
    warnings->add("CPU op (is_cpu_op true) imported as work on the accelerator", where);
  }
}

void read_communication(const pb::Node& n, Attributes& a, const ChakraTrace& out,
                        const ChakraReadOptions& options, const std::string& where,
                        WarningLog* warnings, TraceNode* node) {
  node->kind = TraceNodeKind::kCollective;
  Collective& c = node->collective;
  if (n.type() == pb::COMM_COLL_NODE) {
    const std::optional<int64_t> type = a.integer(chakra::kCommType);
    if (!type && !a.has(chakra::kCommType)) {
      a.error(chakra::kCommType, "a COMM_COLL_NODE needs comm_type");
    } else if (type) {
      const std::optional<CollectiveMapping> m = collective_of(*type);
      if (!m) {
        a.error(chakra::kCommType,
                "unknown CollectiveCommType " + std::to_string(*type) + " (expected 0..9)");
      } else {
        c.kind = m->kind;
        if (m->approximation != nullptr) {
          warnings->add(to_string(static_cast<CommType>(*type)) + " " + m->approximation, where);
        }
      }
    }
  } else {
    const bool send = n.type() == pb::COMM_SEND_NODE;
    c.kind = send ? CollectiveKind::kSend : CollectiveKind::kRecv;
    const char* peer_name = send ? chakra::kCommDst : chakra::kCommSrc;
    const std::optional<int64_t> peer = a.integer(peer_name);
    if (peer) {
      c.peer = *peer;
    } else if (!a.has(peer_name)) {
      a.error(peer_name, std::string("a ") + (send ? "COMM_SEND_NODE" : "COMM_RECV_NODE") +
                             " needs " + peer_name);
    }
    c.group_size = 2;
  }
  assign_amount(a.amount(chakra::kCommSize), &c.bytes);
  assign(a.text(chakra::kPgName), &c.group);
  if (a.has(own::kCollective)) {
    assign(a.choice(own::kCollective, chakra::collective_kind_from_string), &c.kind);
    assign(a.text(own::kGroup), &c.group);
    assign(a.count(own::kGroupSize, 1), &c.group_size);
    assign(a.integer(own::kPeer), &c.peer);
    assign_amount(a.amount(own::kBytes), &c.bytes);
    return;
  }
  if (n.type() == pb::COMM_COLL_NODE) {
    if (options.world_size > 0) {
      c.group_size = options.world_size;
    } else if (out.trace.world_size > 1) {
      c.group_size = out.trace.world_size;
    } else {
      warnings->add(
          "collective without a group size (Chakra has none; give the world size): "
          "group_size set to 1",
          where);
    }
    // ASTRA-sim's comm_size is the input buffer of a reduce-scatter (chakra_conventions.hpp).
    c.bytes = chakra::bytes_from_comm_size(c.kind, c.bytes.si(), c.group_size);
  }
}

// Kahn's algorithm, taking the ready node that comes first in the file: file order is kept
// whenever it already is a topological order.
std::vector<size_t> topological_order(const std::vector<TraceNode>& nodes,
                                      const std::unordered_map<uint64_t, size_t>& index_of,
                                      std::vector<size_t>* stuck) {
  std::vector<size_t> waiting(nodes.size(), 0);
  std::vector<std::vector<size_t>> users(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto* deps : {&nodes[i].data_deps, &nodes[i].ctrl_deps}) {
      for (uint64_t dep : *deps) {
        users[index_of.at(dep)].push_back(i);
        ++waiting[i];
      }
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t user : users[i]) {
      if (--waiting[user] == 0) ready.push(user);
    }
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (waiting[i] != 0) stuck->push_back(i);
  }
  return order;
}

}  // namespace

ChakraTrace decode_chakra_trace(const std::string& bytes, const std::string& source,
                                const ChakraReadOptions& options) {
  ChakraTrace out;
  Diagnostics diagnostics;
  WarningLog warnings;
  RecordReader reader(bytes, source);
  const RecordPlace meta_place{"metadata", 0};
  if (bytes.empty()) {
    reader.fail(meta_place, "empty file: a Chakra trace starts with a GlobalMetadata record");
  }

  const std::string_view meta_body = reader.next(meta_place);
  pb::GlobalMetadata meta;
  if (!meta.ParseFromArray(meta_body.data(), static_cast<int>(meta_body.size()))) {
    reader.fail(meta_place, std::string("not a GlobalMetadata message (protobuf cannot parse it)") +
                                kCorruptAdvice);
  }
  read_metadata(meta, meta_place, source, options, &diagnostics, &warnings, &out);

  std::unordered_map<uint64_t, size_t> index_of;
  std::vector<RecordPlace> places;
  while (!reader.at_end()) {
    const size_t index = out.trace.nodes.size();
    const RecordPlace place{"node[" + std::to_string(index) + "]", reader.position()};
    if (static_cast<int64_t>(index) >= kMaxTraceNodes) {
      reader.fail(place, "more than " + std::to_string(kMaxTraceNodes) +
                             " nodes, the most a trace may have; split the trace");
    }
    const std::string_view body = reader.next(place);
    pb::Node n;
    if (!n.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
      reader.fail(place,
                  std::string("not a Node message (protobuf cannot parse it)") + kCorruptAdvice);
    }
    const auto [it, inserted] = index_of.emplace(n.id(), index);
    if (!inserted) {
      reader.fail(place, "node id " + std::to_string(n.id()) + " repeats that of node[" +
                             std::to_string(it->second) + "]");
    }
    const std::string where = place.key + " (byte " + std::to_string(place.offset) + ")";
    TraceNode node;
    node.id = n.id();
    node.name = n.name();
    node.data_deps.assign(n.data_deps().begin(), n.data_deps().end());
    node.ctrl_deps.assign(n.ctrl_deps().begin(), n.ctrl_deps().end());
    Attributes a(n.attr(), chakra::known_node_attributes(), place, source, &diagnostics, &warnings);
    std::optional<int64_t> layer = a.integer(own::kLayer);
    if (layer) node.layer = static_cast<int>(*layer);
    switch (n.type()) {
      case pb::INVALID_NODE:
      case pb::METADATA_NODE:
      case pb::MEM_LOAD_NODE:
      case pb::MEM_STORE_NODE:
      case pb::COMP_NODE:
        read_compute(n, a, where, &warnings, &node);
        if (const std::optional<double> d = a.amount(own::kDurationS)) {
          out.durations[node.id] = Duration(*d);
        } else if (n.duration_micros() > 0) {
          out.durations[node.id] = Duration(static_cast<double>(n.duration_micros()) * 1e-6);
        }
        break;
      case pb::COMM_SEND_NODE:
      case pb::COMM_RECV_NODE:
      case pb::COMM_COLL_NODE:
        read_communication(n, a, out, options, where, &warnings, &node);
        if (const std::optional<std::string> pg = a.text(chakra::kPgName)) {
          if (!pg->empty()) out.pg_names[node.id] = *pg;
        }
        break;
      default:
        reader.fail(place, "node type " + std::to_string(static_cast<int>(n.type())) +
                               " is not one Scoville reads (0..7: INVALID_NODE..COMM_COLL_NODE)");
    }
    out.trace.nodes.push_back(std::move(node));
    places.push_back(place);
  }

  for (size_t i = 0; i < out.trace.nodes.size(); ++i) {
    const TraceNode& node = out.trace.nodes[i];
    for (const auto& [deps, kind] :
         {std::pair{&node.data_deps, "data"}, std::pair{&node.ctrl_deps, "ctrl"}}) {
      for (uint64_t dep : *deps) {
        if (index_of.count(dep) == 0) {
          diagnostics.error(SourceLocation{source, 0, 0}, places[i].key + "." + kind + "_deps",
                            "record at byte " + std::to_string(places[i].offset) + ": node id " +
                                std::to_string(node.id) + " depends on id " + std::to_string(dep) +
                                ", which no node in the file has");
        }
      }
    }
  }
  diagnostics.throw_if_any();

  std::vector<size_t> stuck;
  const std::vector<size_t> order = topological_order(out.trace.nodes, index_of, &stuck);
  if (!stuck.empty()) {
    std::string ids;
    for (size_t i = 0; i < stuck.size() && i < 8; ++i) {
      ids += (i == 0 ? "" : ", ") + std::to_string(out.trace.nodes[stuck[i]].id);
    }
    if (stuck.size() > 8) ids += ", ...";
    throw InputError(SourceLocation{source, 0, 0}, places[stuck.front()].key,
                     "record at byte " + std::to_string(places[stuck.front()].offset) +
                         ": dependency cycle among node ids " + ids);
  }
  if (!std::is_sorted(order.begin(), order.end())) {
    std::vector<TraceNode> sorted;
    sorted.reserve(order.size());
    for (size_t i : order) sorted.push_back(std::move(out.trace.nodes[i]));
    out.trace.nodes = std::move(sorted);
    warnings.add("nodes reordered: the file lists some node before one it depends on", "file");
  }
  out.warnings = warnings.lines();
  return out;
}

ChakraTrace read_chakra_trace(const std::string& path, const ChakraReadOptions& options) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > static_cast<std::uintmax_t>(kMaxTraceFileBytes)) {
    throw InputError(SourceLocation{path, 0, 0}, "",
                     "the Chakra trace has " + std::to_string(size) + " bytes, more than the " +
                         std::to_string(kMaxTraceFileBytes) +
                         " Scoville reads; split it (one file per rank and iteration)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "", "cannot open the Chakra trace");
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw InputError(SourceLocation{path, 0, 0}, "", "cannot read the Chakra trace");
  return decode_chakra_trace(content.str(), path, options);
}

}  // namespace scoville::workloads
