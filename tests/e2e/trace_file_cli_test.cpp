// Trace files as a user moves them between tools: `scoville trace --format chakra` writes one
// Chakra ET file per rank that imports back to the mapped work, and `scoville run --trace-file`
// runs a native or Chakra trace on the SystemC chip model.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

// Before test_support.hpp: <sys/wait.h> defines a si_value macro that units.hpp would meet.
#include "workloads/trace/chakra_reader.hpp"
#include "workloads/trace/native_trace.hpp"

#include "tests/e2e/test_support.hpp"

using Catch::Matchers::Contains;
using scoville::test::read_file;
using scoville::test::run_scoville;
using scoville::test::source_dir;
using scoville::test::TempDir;
namespace wl = scoville::workloads;

namespace {

const std::string kMapped =
    "trace --model llama-3.1-8b --phase decode --batch 8 --context 1024 --tp 2 --pp 2";

// The value of a top-level JSON number field of `scoville run --json`.
double json_field(const std::string& json, const std::string& key) {
  std::smatch m;
  const std::regex re("\"" + key + "\": ([-+0-9.eE]+)");
  REQUIRE(std::regex_search(json, m, re));
  return std::stod(m[1].str());
}

}  // namespace

TEST_CASE("cli trace: --format chakra writes one .et per rank that imports as the mapped work",
          "[cli][chakra]") {
  TempDir dir("trace-chakra");
  const auto native = run_scoville(kMapped + " -o " + dir.file("native"));
  REQUIRE(native.exit_code == 0);
  const auto chakra = run_scoville(kMapped + " --format chakra -o " + dir.file("et"));
  REQUIRE(chakra.exit_code == 0);
  const int64_t tp = 2, pp = 2;
  for (int64_t rank = 0; rank < tp * pp; ++rank) {
    const std::string path = dir.file("et") + "/decode." + std::to_string(rank) + ".et";
    INFO(path);
    CHECK_THAT(chakra.output, Contains("wrote " + path));
    const wl::ChakraTrace imported = wl::read_chakra_trace(path);
    // Ranks 0..tp-1 are stage 0, the next tp stage 1 (docs/mapping.md).
    const int64_t stage = rank / tp;
    const wl::ChipTrace role = wl::read_native_trace(dir.file("native") + "/decode.stage" +
                                                     std::to_string(stage) + ".trace.yaml");
    const wl::ChipTrace& t = imported.trace;
    CHECK(t.rank == rank);
    CHECK(t.world_size == tp * pp);
    CHECK(t.multiplicity == 1);
    CHECK(t.role == role.role);
    REQUIRE(t.nodes.size() == role.nodes.size());
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      const wl::TraceNode& a = t.nodes[i];
      const wl::TraceNode& b = role.nodes[i];
      CHECK(a.name == b.name);
      CHECK(a.kind == b.kind);
      CHECK(a.data_deps == b.data_deps);
      CHECK(a.op.flops.si() == b.op.flops.si());
      CHECK(a.op.weight_bytes.si() == b.op.weight_bytes.si());
      CHECK(a.collective.bytes.si() == b.collective.bytes.si());
      // A pipeline peer is the same tensor-parallel position in the neighbouring stage.
      if (a.collective.peer >= 0) {
        CHECK(a.collective.peer == b.collective.peer + (rank - role.rank));
        CHECK(std::abs(a.collective.peer - rank) == tp);
      }
    }
  }
  CHECK_FALSE(
      std::filesystem::exists(dir.file("et") + "/decode." + std::to_string(tp * pp) + ".et"));
}

TEST_CASE("cli run: --trace-file runs a native trace's ops on the chip model", "[cli][trace]") {
  const std::string trace = source_dir() + "/workloads/traces/llama-3.1-8b.decode.tp2.trace.yaml";
  const wl::ChipTrace t = wl::read_native_trace(trace);
  int64_t compute = 0, collectives = 0;
  double flops = 0;
  for (const wl::TraceNode& n : t.nodes) {
    if (n.kind == wl::TraceNodeKind::kCompute) {
      ++compute;
      flops += n.op.flops.si();
    } else {
      ++collectives;
    }
  }
  REQUIRE(collectives > 0);
  const auto r = run_scoville("run --chip h200 --trace-file " + trace + " --json");
  REQUIRE(r.exit_code == 0);
  CHECK(json_field(r.output, "ops_simulated") == compute);
  CHECK(json_field(r.output, "collectives_not_simulated") == collectives);
  CHECK(json_field(r.output, "flops") == Approx(flops).epsilon(1e-12));
  CHECK(json_field(r.output, "time_s") > 0);
  CHECK(json_field(r.output, "energy_j") > 0);
  CHECK_THAT(r.output, Contains("warning: " + std::to_string(collectives) + " collective node(s)"));
  CHECK_THAT(r.output, Contains("not simulated"));

  // The text form says the same in words.
  const auto text = run_scoville("run --chip h200 --trace-file " + trace);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.output, Contains(std::to_string(compute) + " op(s) simulated"));
}

TEST_CASE("cli run: a Chakra trace runs exactly as the native trace of the same rank",
          "[cli][trace][chakra]") {
  TempDir dir("run-chakra");
  REQUIRE(run_scoville(kMapped + " -o " + dir.file("native")).exit_code == 0);
  REQUIRE(run_scoville(kMapped + " --format chakra -o " + dir.file("et")).exit_code == 0);
  const auto native = run_scoville("run --chip h200 --json --trace-file " + dir.file("native") +
                                   "/decode.stage1.trace.yaml");
  // Rank tp = 2 is the first rank of stage 1; a name without ".et" is recognised by content.
  std::filesystem::copy_file(dir.file("et") + "/decode.2.et", dir.file("rank2.bin"));
  const auto chakra = run_scoville("run --chip h200 --json --trace-file " + dir.file("rank2.bin"));
  REQUIRE(native.exit_code == 0);
  REQUIRE(chakra.exit_code == 0);
  CHECK_THAT(chakra.output, Contains("\"format\": \"chakra\""));
  CHECK_THAT(native.output, Contains("\"format\": \"native\""));
  for (const char* key : {"ops_simulated", "time_s", "energy_j", "flops", "hbm_bytes"}) {
    INFO(key);
    CHECK(json_field(chakra.output, key) == json_field(native.output, key));
  }
}

TEST_CASE("cli run: --trace-file errors name the file and what to do", "[cli][trace]") {
  TempDir dir("run-trace-errors");
  const std::string trace = source_dir() + "/workloads/traces/llama-3.1-8b.decode.tp2.trace.yaml";
  const auto two = run_scoville("run --chip h200,b200 --trace-file " + trace);
  CHECK(two.exit_code == 2);
  CHECK_THAT(two.output, Contains("exactly one --chip"));
  const auto study = run_scoville("run --chip h200 --batch 4 --trace-file " + trace);
  CHECK(study.exit_code == 2);
  CHECK_THAT(study.output, Contains("excludes --study"));
  const auto missing = run_scoville("run --chip h200 --trace-file " + dir.file("none.et"));
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Contains(dir.file("none.et")));
  CHECK_THAT(missing.output, Contains("file not found"));

  REQUIRE(run_scoville(kMapped + " --format chakra -o " + dir.file("et")).exit_code == 0);
  const std::string whole = read_file(dir.file("et") + "/decode.0.et");
  const std::string cut = dir.write("cut.0.et", whole.substr(0, whole.size() / 2));
  const auto truncated = run_scoville("run --chip h200 --trace-file " + cut);
  CHECK(truncated.exit_code == 2);
  CHECK_THAT(truncated.output, Contains(cut));
  CHECK_THAT(truncated.output, Contains("record at byte"));
}
