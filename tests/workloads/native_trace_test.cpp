// The native trace format: round trip, and clear located errors for bad files.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>

#include "model_files.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/trace/native_trace.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;
using Catch::Matchers::Contains;

namespace {

MappedIteration sample_mapping() {
  const ModelConfig model = load_model(model_file("gpt-oss-120b"));
  PoolMapping m;
  m.pool = "decode";
  m.degrees = ParallelDegrees{2, 2, 2, 1, 1, true};
  m.chips = 4;
  return map_iteration(model, IterationShape{Phase::kDecode, 4, 1, 512}, m);
}

void check_equal(const Op& a, const Op& b) {
  CHECK(a.name == b.name);
  CHECK(a.layer == b.layer);
  CHECK(a.kind == b.kind);
  CHECK(a.m == b.m);
  CHECK(a.n == b.n);
  CHECK(a.k == b.k);
  CHECK(a.instances == b.instances);
  CHECK(a.weight_format == b.weight_format);
  CHECK(a.math == b.math);
  CHECK(a.flops.si() == b.flops.si());  // exact: the writer keeps every bit
  CHECK(a.weight_bytes.si() == b.weight_bytes.si());
  CHECK(a.kv_read_bytes.si() == b.kv_read_bytes.si());
  CHECK(a.kv_write_bytes.si() == b.kv_write_bytes.si());
  CHECK(a.activation_in_bytes.si() == b.activation_in_bytes.si());
  CHECK(a.activation_out_bytes.si() == b.activation_out_bytes.si());
}

void check_equal(const ChipTrace& a, const ChipTrace& b) {
  CHECK(a.model == b.model);
  CHECK(a.role == b.role);
  CHECK(a.rank == b.rank);
  CHECK(a.world_size == b.world_size);
  CHECK(a.multiplicity == b.multiplicity);
  CHECK(a.degrees.tp == b.degrees.tp);
  CHECK(a.degrees.ep == b.degrees.ep);
  CHECK(a.degrees.pp == b.degrees.pp);
  CHECK(a.degrees.dp == b.degrees.dp);
  CHECK(a.degrees.attn_dp == b.degrees.attn_dp);
  CHECK(a.degrees.sequence_parallel == b.degrees.sequence_parallel);
  CHECK(a.shape.phase == b.shape.phase);
  CHECK(a.shape.batch == b.shape.batch);
  CHECK(a.shape.new_tokens == b.shape.new_tokens);
  CHECK(a.shape.context == b.shape.context);
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const TraceNode& x = a.nodes[i];
    const TraceNode& y = b.nodes[i];
    CHECK(x.id == y.id);
    CHECK(x.name == y.name);
    CHECK(x.layer == y.layer);
    CHECK(x.kind == y.kind);
    CHECK(x.data_deps == y.data_deps);
    CHECK(x.ctrl_deps == y.ctrl_deps);
    if (x.kind == TraceNodeKind::kCompute) {
      check_equal(x.op, y.op);
    } else {
      CHECK(x.collective.kind == y.collective.kind);
      CHECK(x.collective.group == y.collective.group);
      CHECK(x.collective.group_size == y.collective.group_size);
      CHECK(x.collective.peer == y.collective.peer);
      CHECK(x.collective.bytes.si() == y.collective.bytes.si());
    }
  }
}

std::string error_of(const std::string& text, const std::string& name = "bad.trace.yaml") {
  try {
    parse_native_trace(text, name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// A small hand-written trace: a matmul, then an all-reduce that depends on it.
const std::string kSmall = R"(format: scoville-trace
version: 1
model: "tiny"
role: "decode"
rank: 0
world_size: 2
degrees: {tp: 2}
shape: {phase: decode, batch: 1, new_tokens: 1, context: 16}
node_count: 2
nodes:
  - id: 0
    name: "proj"
    layer: 0
    compute: {kind: matmul, m: 1, n: 64, k: 64, flops: 8192 FLOP, weight_bytes: 8 KiB}
  - id: 1
    name: "reduce"
    layer: 0
    deps: [0]
    collective: {kind: all_reduce, group: "tp", group_size: 2, bytes: 128 B}
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("Native traces round-trip: write, read, equal, and the same text again") {
  for (const ChipRole& role : sample_mapping().roles) {
    const std::string text = render_native_trace(role.trace);
    const ChipTrace back = parse_native_trace(text, role.trace.role + ".trace.yaml");
    check_equal(role.trace, back);
    CHECK(render_native_trace(back) == text);
  }
}

TEST_CASE("A hand-written native trace reads with defaults and units") {
  const ChipTrace t = parse_native_trace(kSmall, "small.yaml");
  REQUIRE(t.nodes.size() == 2);
  CHECK(t.multiplicity == 1);
  CHECK(t.degrees.tp == 2);
  CHECK(t.degrees.pp == 1);
  CHECK(t.nodes[0].op.weight_bytes.si() == 8.0 * 1024.0);
  CHECK(t.nodes[0].op.instances == 1);
  CHECK(t.nodes[1].kind == TraceNodeKind::kCollective);
  CHECK(t.nodes[1].collective.bytes.si() == 128.0);
  CHECK(t.nodes[1].collective.peer == -1);
}

TEST_CASE("A truncated native trace is an error naming the file and the position") {
  const std::string text = render_native_trace(sample_mapping().roles.front().trace);
  const std::regex located("cut\\.trace\\.yaml:[0-9]+");
  // Cut at whole lines and in the middle of lines, across the file.
  for (const double fraction : {0.999, 0.9, 0.5, 0.21, 0.05}) {
    const size_t at = static_cast<size_t>(fraction * static_cast<double>(text.size()));
    for (const size_t cut : {at, text.rfind('\n', at) + 1}) {
      INFO("cut at byte " << cut << " of " << text.size());
      const std::string e = error_of(text.substr(0, cut), "cut.trace.yaml");
      CHECK(e != "no error");
      CHECK(std::regex_search(e, located));
    }
  }
  // Whole nodes missing: the header's count gives it away.
  const std::string e = error_of(text.substr(0, text.rfind("  - id:")), "cut.trace.yaml");
  CHECK_THAT(e, Contains("truncated"));
}

TEST_CASE("A corrupt native trace is an error naming the file, the position and the key") {
  const std::string bad_value = error_of(replaced(kSmall, "8192 FLOP", "lots"));
  CHECK_THAT(bad_value, Contains("bad.trace.yaml:14:"));
  CHECK_THAT(bad_value, Contains("nodes[0].compute.flops"));
  CHECK_THAT(error_of(replaced(kSmall, "all_reduce", "all_reduse")),
             Contains("nodes[1].collective.kind"));
  CHECK_THAT(error_of(replaced(kSmall, "group_size", "grop_size")), Contains("group_size"));
  const std::string binary = error_of(replaced(kSmall, "layer: 0\n    deps", "layer: [\x01\n"));
  CHECK(std::regex_search(binary, std::regex("bad\\.trace\\.yaml:[0-9]+:[0-9]+")));
  CHECK_THAT(error_of("format: other\nversion: 1\n"), Contains("not a scoville native trace"));
}

TEST_CASE("An unknown native trace version is rejected with the versions this build reads") {
  const std::string e = error_of(replaced(kSmall, "version: 1", "version: 7"));
  CHECK_THAT(e, Contains("bad.trace.yaml:2:"));
  CHECK_THAT(e, Contains("unsupported version 7"));
  CHECK_THAT(e, Contains("version " + std::to_string(ChipTrace::kFormatVersion)));
}

TEST_CASE("Dangling dependencies, duplicate ids and cycles are rejected, order is repaired") {
  CHECK_THAT(error_of(replaced(kSmall, "deps: [0]", "deps: [9]")),
             Contains("depends on node 9, which does not exist"));
  CHECK_THAT(error_of(replaced(kSmall, "id: 1", "id: 0")), Contains("is used twice"));
  const std::string cycle =
      replaced(kSmall, "layer: 0\n    compute", "layer: 0\n    deps: [1]\n    compute");
  const std::string e = error_of(cycle);
  CHECK_THAT(e, Contains("dependency cycle"));
  CHECK_THAT(e, Contains("bad.trace.yaml:11:"));
  // Listed out of order but acyclic: read back in a topological order.
  const std::string swapped =
      replaced(replaced(kSmall, "    deps: [0]\n", ""), "layer: 0\n    compute",
               "layer: 0\n    deps: [1]\n    compute");
  const ChipTrace t = parse_native_trace(swapped, "swapped.yaml");
  CHECK(t.nodes.front().id == 1);
  CHECK(t.nodes.back().id == 0);
}

TEST_CASE("The sample traces in workloads/traces read") {
  const std::filesystem::path dir = std::filesystem::path(SCOVILLE_SOURCE_DIR) / "workloads/traces";
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path());
    const ChipTrace t = read_native_trace(entry.path().string());
    CHECK_FALSE(t.nodes.empty());
    ++found;
  }
  CHECK(found >= 2);
}
