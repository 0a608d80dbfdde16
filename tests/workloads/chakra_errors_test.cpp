// Chakra ET import of broken files: every failure is one InputError naming the file, the record's
// byte offset and the node index; nothing crashes (these also run under the asan preset).
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "sim/base/error.hpp"
#include "tests/workloads/chakra_test_support.hpp"
#include "workloads/trace/chakra_reader.hpp"
#include "workloads/trace/chakra_writer.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::test;

namespace {

const std::string kFile = "broken.0.et";

// The InputError's text (all diagnostics), or "" when the bytes import.
std::string import_error(const std::string& bytes) {
  try {
    decode_chakra_trace(bytes, kFile);
  } catch (const InputError& e) {
    std::string text;
    for (const Diagnostic& d : e.diagnostics()) text += d.str() + "\n";
    return text;
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Offsets at which the stream's records start (and its end): a cut there leaves a shorter,
// valid trace.
std::set<size_t> record_boundaries(const std::string& bytes) {
  std::set<size_t> out;
  size_t pos = 0;
  while (pos < bytes.size()) {
    out.insert(pos);
    uint64_t length = 0;
    for (int shift = 0;; shift += 7) {
      const auto b = static_cast<uint8_t>(bytes[pos++]);
      length |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) break;
    }
    pos += length;
  }
  out.insert(bytes.size());
  return out;
}

const int kComp = 4;

}  // namespace

TEST_CASE("Chakra import of a trace cut at any byte fails cleanly or reads a prefix") {
  const ChipTrace trace = sample_trace();
  const std::string bytes = encode_chakra_trace(trace);
  const std::set<size_t> boundaries = record_boundaries(bytes);
  REQUIRE(boundaries.size() == trace.nodes.size() + 2);  // metadata, nodes, end
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    INFO("cut at byte " << cut);
    const std::string part = bytes.substr(0, cut);
    if (cut == 0 || boundaries.count(cut) == 0) {
      const std::string error = import_error(part);
      REQUIRE(contains(error, kFile));
      REQUIRE(contains(error, "record at byte"));
    } else {
      // Nodes depend only on earlier ones, so every record prefix is a valid trace.
      const size_t records =
          static_cast<size_t>(std::distance(boundaries.begin(), boundaries.find(cut)));
      REQUIRE(decode_chakra_trace(part, kFile).trace.nodes.size() == records - 1);
    }
  }
}

TEST_CASE("Chakra import of a trace with any byte corrupted fails cleanly or imports") {
  const std::string bytes = encode_chakra_trace(sample_trace());
  for (const uint8_t mask : {uint8_t{0xFF}, uint8_t{0x80}, uint8_t{0x07}}) {
    for (size_t i = 0; i < bytes.size(); ++i) {
      INFO("byte " << i << " xor " << int(mask));
      std::string bad = bytes;
      bad[i] = static_cast<char>(static_cast<uint8_t>(bad[i]) ^ mask);
      // Many corruptions still parse as protobuf (a changed value, a renamed attribute); the
      // contract is an InputError or a trace, never a crash or another exception.
      try {
        decode_chakra_trace(bad, kFile);
      } catch (const InputError& e) {
        REQUIRE(contains(e.diagnostics().front().str(), kFile));
      }
    }
  }
}

TEST_CASE("Chakra import names the record of a bad varint length") {
  const std::string meta = record(metadata("0.0.4"));
  const std::string error = import_error(meta + std::string(6, '\xFF'));
  REQUIRE(contains(error, "node[0]"));
  REQUIRE(contains(error, "record at byte " + std::to_string(meta.size())));
  REQUIRE(contains(error, "varint"));
}

TEST_CASE("Chakra import names a record whose length runs past the end") {
  const std::string meta = record(metadata("0.0.4"));
  const std::string body = varint_field(3, kComp);
  const std::string error = import_error(meta + varint(body.size() + 10) + body);
  REQUIRE(contains(error, "node[0]"));
  REQUIRE(contains(error, "record at byte " + std::to_string(meta.size())));
  REQUIRE(contains(error, "past the end"));
}

TEST_CASE("Chakra import names a record protobuf cannot parse") {
  // Wire type 7 does not exist.
  const std::string meta = record(metadata("0.0.4"));
  const std::string first = record(varint_field(1, 1) + varint_field(3, kComp));
  const std::string error = import_error(meta + first + record(tag(1, 7)));
  REQUIRE(contains(error, "node[1]"));
  REQUIRE(contains(error, "record at byte " + std::to_string(meta.size() + first.size())));
  REQUIRE(contains(error, "Node message"));
  REQUIRE(contains(import_error(record(tag(1, 7))), "GlobalMetadata"));
  REQUIRE(contains(import_error(""), "empty file"));
}

TEST_CASE("Chakra import rejects duplicate node ids") {
  const std::string node = record(varint_field(1, 42) + varint_field(3, kComp));
  const std::string error = import_error(record(metadata("0.0.4")) + node + node);
  REQUIRE(contains(error, "node[1]"));
  REQUIRE(contains(error, "42 repeats that of node[0]"));
}

TEST_CASE("Chakra import rejects dependencies on missing nodes and cycles") {
  const std::string meta = record(metadata("0.0.4"));
  const std::string missing =
      import_error(meta + record(varint_field(1, 1) + varint_field(3, kComp) + varint_field(4, 9)));
  REQUIRE(contains(missing, "node[0].ctrl_deps"));
  REQUIRE(contains(missing, "depends on id 9"));

  const std::string cycle =
      import_error(meta + record(varint_field(1, 1) + varint_field(3, kComp) + varint_field(5, 2)) +
                   record(varint_field(1, 2) + varint_field(3, kComp) + varint_field(5, 1)));
  REQUIRE(contains(cycle, "cycle"));
}

TEST_CASE("Chakra import rejects unknown node and collective types and mistyped attributes") {
  const std::string meta = record(metadata("0.0.4"));
  const int comm_coll = 7;
  const int unknown_node_type = 12, unknown_comm_type = 42;
  REQUIRE(
      contains(import_error(meta + record(varint_field(3, unknown_node_type))), "node type 12"));
  const std::string comm =
      import_error(meta + record(varint_field(3, comm_coll) +
                                 bytes_field(10, attr_int64("comm_type", unknown_comm_type))));
  REQUIRE(contains(comm, "node[0].comm_type"));
  REQUIRE(contains(comm, "42"));
  REQUIRE(contains(import_error(meta + record(varint_field(3, comm_coll))), "needs comm_type"));
  const std::string typed = import_error(
      meta + record(varint_field(3, kComp) + bytes_field(10, attr_string("num_ops", "many"))));
  REQUIRE(contains(typed, "node[0].num_ops"));
  REQUIRE(contains(typed, "expected a finite number, found string_val"));
  const std::string negative = import_error(
      meta + record(varint_field(3, kComp) + bytes_field(10, attr_int64("num_ops", -5))));
  REQUIRE(contains(negative, "must not be negative"));
  const std::string group = import_error(
      meta + record(varint_field(3, comm_coll) + bytes_field(10, attr_int64("comm_type", 0)) +
                    bytes_field(10, attr_string("scoville.collective", "all_reduce")) +
                    bytes_field(10, attr_int64("scoville.group_size", 0))));
  REQUIRE(contains(group, "node[0].scoville.group_size"));
  REQUIRE(contains(group, "must be at least 1"));
  const std::string kind =
      import_error(meta + record(varint_field(3, kComp) +
                                 bytes_field(10, attr_string("scoville.op_kind", "fft"))));
  REQUIRE(contains(kind, "node[0].scoville.op_kind"));
  REQUIRE(contains(kind, "unknown value 'fft'"));
}

TEST_CASE("Chakra import of a missing file is an InputError naming it") {
  const std::string path = std::string(SCOVILLE_BINARY_DIR) + "/no_such_trace.0.et";
  REQUIRE_THROWS_AS(read_chakra_trace(path), InputError);
}
