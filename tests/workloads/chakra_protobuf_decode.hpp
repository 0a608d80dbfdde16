// Decodes a Chakra stream with the generated protobuf code, as ASTRA-sim's feeder sees it, for
// tests that check the fields other tools read.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "workloads/trace/chakra/et_def.pb.h"

namespace scoville::workloads::test {

// The stream as ASTRA-sim's feeder sees it: metadata, then nodes with attributes by name.
struct Decoded {
  ChakraProtoMsg::GlobalMetadata metadata;
  std::vector<ChakraProtoMsg::Node> nodes;
};

inline Decoded decode_with_protobuf(const std::string& bytes) {
  Decoded out;
  size_t pos = 0;
  bool first = true;
  while (pos < bytes.size()) {
    uint64_t length = 0;
    for (int shift = 0;; shift += 7) {
      const auto b = static_cast<uint8_t>(bytes.at(pos++));
      length |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) break;
    }
    const std::string body = bytes.substr(pos, length);
    REQUIRE(body.size() == length);
    pos += length;
    if (first) {
      REQUIRE(out.metadata.ParseFromString(body));
      first = false;
    } else {
      out.nodes.emplace_back();
      REQUIRE(out.nodes.back().ParseFromString(body));
    }
  }
  return out;
}

inline const ChakraProtoMsg::AttributeProto& attr(const ChakraProtoMsg::Node& node,
                                                  const std::string& name) {
  for (const auto& a : node.attr()) {
    if (a.name() == name) return a;
  }
  FAIL("node " << node.id() << " has no attribute " << name);
  throw std::logic_error("unreachable");
}

inline bool has_attr(const ChakraProtoMsg::Node& node, const std::string& name) {
  for (const auto& a : node.attr()) {
    if (a.name() == name) return true;
  }
  return false;
}

}  // namespace scoville::workloads::test
