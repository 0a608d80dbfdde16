#include "workloads/trace/chakra_attributes.hpp"

#include "workloads/iteration.hpp"

namespace scoville::workloads::chakra {

std::string to_string(CommType type) {
  switch (type) {
    case CommType::kAllReduce:
      return "ALL_REDUCE";
    case CommType::kReduce:
      return "REDUCE";
    case CommType::kAllGather:
      return "ALL_GATHER";
    case CommType::kGather:
      return "GATHER";
    case CommType::kScatter:
      return "SCATTER";
    case CommType::kBroadcast:
      return "BROADCAST";
    case CommType::kAllToAll:
      return "ALL_TO_ALL";
    case CommType::kReduceScatter:
      return "REDUCE_SCATTER";
    case CommType::kReduceScatterBlock:
      return "REDUCE_SCATTER_BLOCK";
    case CommType::kBarrier:
      return "BARRIER";
  }
  return "UNKNOWN";
}

CommType comm_type_of(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return CommType::kAllReduce;
    case CollectiveKind::kAllGather:
      return CommType::kAllGather;
    case CollectiveKind::kReduceScatter:
      return CommType::kReduceScatter;
    case CollectiveKind::kAllToAll:
      return CommType::kAllToAll;
    case CollectiveKind::kBroadcast:
      return CommType::kBroadcast;
    case CollectiveKind::kSend:
    case CollectiveKind::kRecv:
      break;
  }
  return CommType::kAllReduce;  // not reached for collectives; send/recv are node types
}

std::optional<OpKind> op_kind_from_string(const std::string& name) {
  for (OpKind kind : {OpKind::kMatmul, OpKind::kAttention, OpKind::kVector, OpKind::kMemory}) {
    if (to_string(kind) == name) return kind;
  }
  return std::nullopt;
}

std::optional<CollectiveKind> collective_kind_from_string(const std::string& name) {
  for (CollectiveKind kind :
       {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
        CollectiveKind::kAllToAll, CollectiveKind::kBroadcast, CollectiveKind::kSend,
        CollectiveKind::kRecv}) {
    if (to_string(kind) == name) return kind;
  }
  return std::nullopt;
}

std::optional<Phase> phase_from_string(const std::string& name) {
  for (Phase phase : {Phase::kPrefill, Phase::kDecode}) {
    if (to_string(phase) == name) return phase;
  }
  return std::nullopt;
}

const std::vector<std::string>& known_node_attributes() {
  static const std::vector<std::string> names = {kIsCpuOp,
                                                 kNumOps,
                                                 kTensorSize,
                                                 kCommType,
                                                 kCommSize,
                                                 kCommSrc,
                                                 kCommDst,
                                                 kCommTag,
                                                 kPgName,
                                                 own::kLayer,
                                                 own::kOpName,
                                                 own::kOpLayer,
                                                 own::kOpKind,
                                                 own::kM,
                                                 own::kN,
                                                 own::kK,
                                                 own::kInstances,
                                                 own::kWeightFormat,
                                                 own::kMath,
                                                 own::kFlops,
                                                 own::kWeightBytes,
                                                 own::kKvReadBytes,
                                                 own::kKvWriteBytes,
                                                 own::kActivationInBytes,
                                                 own::kActivationOutBytes,
                                                 own::kCollective,
                                                 own::kGroup,
                                                 own::kGroupSize,
                                                 own::kPeer,
                                                 own::kBytes,
                                                 own::kDurationS};
  return names;
}

const std::vector<std::string>& known_metadata_attributes() {
  static const std::vector<std::string> names = {
      kSchema,         kProducer,   kGitSha,         own::kModel,  own::kRole, own::kRank,
      own::kWorldSize, own::kTp,    own::kEp,        own::kPp,     own::kDp,   own::kAttnDp,
      own::kPhase,     own::kBatch, own::kNewTokens, own::kContext};
  return names;
}

}  // namespace scoville::workloads::chakra
