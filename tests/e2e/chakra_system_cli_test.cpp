// Chakra traces both ways with a system, as an ASTRA-sim user moves them: `scoville trace
// --format chakra --system S` writes ranks ASTRA-sim runs to the end (durations, communicator
// JSON), and `scoville run --system S --trace-file DIR|PREFIX` runs a multi-rank trace (ours or
// ASTRA-sim's collective-only microbenchmarks) with collectives on the system's network.
#include <catch2/catch.hpp>

#include <cmath>
#include <regex>
#include <string>

// Before test_support.hpp: <sys/wait.h> defines a si_value macro that units.hpp would meet.
#include "tests/workloads/chakra_test_support.hpp"
#include "workloads/trace/chakra_reader.hpp"

#include "tests/e2e/test_support.hpp"

using Catch::Matchers::Contains;
using scoville::test::read_file;
using scoville::test::run_scoville;
using scoville::test::TempDir;
namespace wl = scoville::workloads;
namespace wt = scoville::workloads::test;

namespace {

const std::string kSystem = "h200-hgx8";
const std::string kExport =
    "trace --model llama-3.1-8b --phase decode --batch 8 --context 1024 --tp 2 --pp 2 "
    "--format chakra --system " +
    kSystem;

double json_number(const std::string& json, const std::string& key) {
  std::smatch m;
  const std::regex re("\"" + key + "\": ([-+0-9.eE]+)");
  REQUIRE(std::regex_search(json, m, re));
  return std::stod(m[1].str());
}

// One rank of an ASTRA-sim microbenchmark (examples/workload/microbenchmarks): a single
// COMM_COLL_NODE with comm_type and comm_size, nothing else, no Scoville attribute.
std::string microbenchmark_rank(int comm_type, int64_t comm_size) {
  return wt::record(wt::metadata("0.0.4")) +
         wt::record(wt::varint_field(1, 0) + wt::bytes_field(2, "coll") + wt::varint_field(3, 7) +
                    wt::bytes_field(10, wt::attr_bool("is_cpu_op", false)) +
                    wt::bytes_field(10, wt::attr_int64("comm_type", comm_type)) +
                    wt::bytes_field(10, wt::attr_int64("comm_size", comm_size)));
}

}  // namespace

TEST_CASE("cli trace --format chakra --system: durations, pg_name and the communicator JSON",
          "[cli][chakra]") {
  TempDir dir("chakra-export");
  const auto r = run_scoville(kExport + " -o " + dir.file("et"));
  REQUIRE(r.exit_code == 0);
  // TP 2 x PP 2: the tp groups {0,1} and {2,3} are not the whole pool, so they get ids.
  const std::string json = read_file(dir.file("et") + "/decode.comm_groups.json");
  CHECK_THAT(json, Contains("[0, 1]"));
  CHECK_THAT(json, Contains("[2, 3]"));
  for (int rank = 0; rank < 4; ++rank) {
    const wl::ChakraTrace t =
        wl::read_chakra_trace(dir.file("et") + "/decode." + std::to_string(rank) + ".et");
    int64_t compute = 0;
    for (const wl::TraceNode& n : t.trace.nodes) {
      if (n.kind == wl::TraceNodeKind::kCompute) {
        ++compute;
        REQUIRE(t.durations.count(n.id) == 1);
      } else if (n.collective.group == "tp") {
        REQUIRE(t.pg_names.count(n.id) == 1);
      }
    }
    REQUIRE(compute > 0);
  }
}

TEST_CASE("cli run --system --trace-file: a multi-rank trace, chip model and replay agree",
          "[cli][chakra]") {
  TempDir dir("chakra-run");
  REQUIRE(run_scoville(kExport + " -o " + dir.file("et")).exit_code == 0);
  const auto chip = run_scoville("run --system " + kSystem + " --json --trace-file " +
                                 dir.file("et") + "/decode");
  INFO(chip.output);
  REQUIRE(chip.exit_code == 0);
  CHECK(json_number(chip.output, "ranks") == 4);
  const double step = json_number(chip.output, "step_time_s");
  REQUIRE(step > 0);
  // Replaying the exported durations gives the same step: the durations are the chip model's.
  const auto replay = run_scoville("run --system " + kSystem +
                                   " --json --compute durations --trace-file " + dir.file("et"));
  INFO(replay.output);
  REQUIRE(replay.exit_code == 0);
  CHECK(json_number(replay.output, "step_time_s") == Approx(step).epsilon(1e-9));
  // With ASTRA-sim's communicator JSON the groups come from pg_name and give the same step.
  const auto groups =
      run_scoville("run --system " + kSystem + " --json --compute durations " + "--comm-groups " +
                   dir.file("et") + "/decode.comm_groups.json --trace-file " + dir.file("et"));
  REQUIRE(groups.exit_code == 0);
  CHECK_THAT(groups.output, Contains("collectives with pg_name: members from"));
  CHECK_THAT(chip.output, !Contains("collectives with pg_name"));
  CHECK(json_number(groups.output, "step_time_s") == Approx(step).epsilon(1e-9));
}

TEST_CASE("cli run --system --trace-file: ASTRA-sim's microbenchmarks time as scoville net does",
          "[cli][chakra]") {
  TempDir dir("chakra-micro");
  const int64_t ranks = 8, size = 1 << 20;
  for (const auto& [name, comm_type] : {std::pair<std::string, int>{"all_reduce", 0},
                                        std::pair<std::string, int>{"all_to_all", 6}}) {
    INFO(name);
    for (int64_t r = 0; r < ranks; ++r) {
      dir.write(name + "." + std::to_string(r) + ".et", microbenchmark_rank(comm_type, size));
    }
    const auto run =
        run_scoville("run --system " + kSystem + " --json --trace-file " + dir.file(name));
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    const auto net =
        run_scoville("net --system " + kSystem + " --json --collective " + name + " --chips " +
                     std::to_string(ranks) + " --bytes " + std::to_string(size) + "B");
    REQUIRE(net.exit_code == 0);
    const double expected = json_number(net.output, "time_s");
    // scoville net prints 9 significant digits.
    CHECK(json_number(run.output, "step_time_s") == Approx(expected).epsilon(1e-8));
    CHECK(json_number(run.output, "count") == 1);
  }
}

TEST_CASE("cli run --system --trace-file: bad rank sets get one clear error", "[cli][chakra]") {
  TempDir dir("chakra-bad");
  dir.write("x.0.et", microbenchmark_rank(0, 1024));
  dir.write("x.2.et", microbenchmark_rank(0, 1024));
  const auto gap = run_scoville("run --system " + kSystem + " --trace-file " + dir.file("x"));
  CHECK(gap.exit_code == 2);
  CHECK_THAT(gap.output, Contains("rank 1 is missing"));

  // One rank of a collective-only trace on a single chip: the error points to --system.
  const auto chip = run_scoville("run --chip h200 --trace-file " + dir.file("x.0.et"));
  CHECK(chip.exit_code == 2);
  CHECK_THAT(chip.output, Contains("--system NAME --trace-file PREFIX"));

  // Members that disagree on the size of the same collective.
  dir.write("y.0.et", microbenchmark_rank(0, 1024));
  dir.write("y.1.et", microbenchmark_rank(0, 2048));
  const auto mismatch = run_scoville("run --system " + kSystem + " --trace-file " + dir.file("y"));
  CHECK(mismatch.exit_code == 2);
  CHECK_THAT(mismatch.output, Contains("y.1.et"));
  CHECK_THAT(mismatch.output, Contains("comm_size"));

  // A pg_name needs ASTRA-sim's communicator JSON.
  const std::string pg = wt::record(wt::metadata("0.0.4")) +
                         wt::record(wt::varint_field(1, 0) + wt::varint_field(3, 7) +
                                    wt::bytes_field(10, wt::attr_int64("comm_type", 0)) +
                                    wt::bytes_field(10, wt::attr_int64("comm_size", 64)) +
                                    wt::bytes_field(10, wt::attr_string("pg_name", "3")));
  dir.write("z.0.et", pg);
  dir.write("z.1.et", pg);
  const auto no_json = run_scoville("run --system " + kSystem + " --trace-file " + dir.file("z"));
  CHECK(no_json.exit_code == 2);
  CHECK_THAT(no_json.output, Contains("pg_name"));
  CHECK_THAT(no_json.output, Contains("--comm-groups"));
}
