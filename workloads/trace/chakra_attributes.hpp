// Names and codes shared by the Chakra ET writer and reader: the schema version, the attribute
// names ASTRA-sim reads, Scoville's own "scoville." attributes (which make export -> import
// exact; other tools ignore them) and the CollectiveCommType codes. Kept free of generated
// protobuf types so that it can be included anywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/op.hpp"
#include "workloads/trace/chip_trace.hpp"

namespace scoville::workloads::chakra {

inline constexpr const char* kSchemaVersion = "0.0.4";

// GlobalMetadata attributes.
inline constexpr const char* kSchema = "schema";
inline constexpr const char* kProducer = "producer";
inline constexpr const char* kGitSha = "git_sha";

// Node attributes ASTRA-sim reads (FORMATS.md section 1 gives the oneof member of each).
inline constexpr const char* kIsCpuOp = "is_cpu_op";           // bool_val
inline constexpr const char* kNumOps = "num_ops";              // int64_val, FLOPs
inline constexpr const char* kTensorSize = "tensor_size";      // uint64_val, bytes
inline constexpr const char* kCommType = "comm_type";          // int64_val, CollectiveCommType
inline constexpr const char* kCommSize = "comm_size";          // int64_val, bytes
inline constexpr const char* kCommSrc = "comm_src";            // int32_val, rank
inline constexpr const char* kCommDst = "comm_dst";            // int32_val, rank
inline constexpr const char* kCommTag = "comm_tag";            // int32_val
inline constexpr const char* kCommPriority = "comm_priority";  // int32_val
inline constexpr const char* kPgName = "pg_name";            // string_val, integer communicator id
inline constexpr const char* kInvolvedDim = "involved_dim";  // bool_list

// Scoville's own attributes: what a ChipTrace holds beyond Chakra's fields. Quantities are
// double_val (FLOPs and bytes of FP4 shards need not be whole numbers), counts int64_val, names
// and enums string_val (the to_string names).
inline constexpr const char* kScovillePrefix = "scoville.";
namespace own {
// Nodes.
inline constexpr const char* kLayer = "scoville.layer";
inline constexpr const char* kOpName = "scoville.op_name";
inline constexpr const char* kOpLayer = "scoville.op_layer";
inline constexpr const char* kOpKind = "scoville.op_kind";
inline constexpr const char* kM = "scoville.m";
inline constexpr const char* kN = "scoville.n";
inline constexpr const char* kK = "scoville.k";
inline constexpr const char* kInstances = "scoville.instances";
inline constexpr const char* kWeightFormat = "scoville.weight_format";
inline constexpr const char* kMath = "scoville.math";
inline constexpr const char* kFlops = "scoville.flops";
inline constexpr const char* kWeightBytes = "scoville.weight_bytes";
inline constexpr const char* kKvReadBytes = "scoville.kv_read_bytes";
inline constexpr const char* kKvWriteBytes = "scoville.kv_write_bytes";
inline constexpr const char* kActivationInBytes = "scoville.activation_in_bytes";
inline constexpr const char* kActivationOutBytes = "scoville.activation_out_bytes";
inline constexpr const char* kCollective = "scoville.collective";
inline constexpr const char* kGroup = "scoville.group";
inline constexpr const char* kGroupSize = "scoville.group_size";
inline constexpr const char* kPeer = "scoville.peer";
inline constexpr const char* kBytes = "scoville.bytes";
inline constexpr const char* kDurationS = "scoville.duration_s";  // chip-model time, seconds
// GlobalMetadata.
inline constexpr const char* kModel = "scoville.model";
inline constexpr const char* kRole = "scoville.role";
inline constexpr const char* kRank = "scoville.rank";
inline constexpr const char* kWorldSize = "scoville.world_size";
inline constexpr const char* kTp = "scoville.tp";
inline constexpr const char* kEp = "scoville.ep";
inline constexpr const char* kPp = "scoville.pp";
inline constexpr const char* kDp = "scoville.dp";
inline constexpr const char* kAttnDp = "scoville.attn_dp";
inline constexpr const char* kPhase = "scoville.phase";
inline constexpr const char* kBatch = "scoville.batch";
inline constexpr const char* kNewTokens = "scoville.new_tokens";
inline constexpr const char* kContext = "scoville.context";
}  // namespace own

// Chakra CollectiveCommType codes (et_def.proto).
enum class CommType : int64_t {
  kAllReduce = 0,
  kReduce = 1,
  kAllGather = 2,
  kGather = 3,
  kScatter = 4,
  kBroadcast = 5,
  kAllToAll = 6,
  kReduceScatter = 7,
  kReduceScatterBlock = 8,
  kBarrier = 9,
};
std::string to_string(CommType type);  // "ALL_REDUCE", ...

// The CollectiveCommType of a collective kind; kSend and kRecv have none (they are node types).
CommType comm_type_of(CollectiveKind kind);

// Inverses of the to_string functions of the enums a node carries, for the "scoville." attributes.
std::optional<OpKind> op_kind_from_string(const std::string& name);
std::optional<CollectiveKind> collective_kind_from_string(const std::string& name);
std::optional<Phase> phase_from_string(const std::string& name);

// Attribute names the reader uses on nodes, and on the GlobalMetadata; any other (including
// involved_dim and comm_priority, which Scoville has no use for) is reported as a warning.
const std::vector<std::string>& known_node_attributes();
const std::vector<std::string>& known_metadata_attributes();

}  // namespace scoville::workloads::chakra
