// Inputs that would exhaust time or memory are refused while parsing, with the allowed range
// (docs/errors.md, "Limits"). Each bound is accepted and one past it refused; a model with every
// field at its bound still counts its parameters (int64 products) without overflow.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/study/study_config.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/requests/request_pattern.hpp"
#include "workloads/trace/chakra_reader.hpp"
#include "workloads/trace/native_trace.hpp"

using namespace scoville;

namespace {

std::string shipped(const std::string& relative) {
  std::ifstream in(std::string(SCOVILLE_SOURCE_DIR) + "/" + relative);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Replaces the value of the first line starting with `prefix` (indentation included).
std::string with_line(std::string text, const std::string& prefix, const std::string& value) {
  const size_t at = text.find("\n" + prefix);
  REQUIRE(at != std::string::npos);
  const size_t end = text.find('\n', at + 1);
  text.replace(at + 1, end - at - 1, prefix + " " + value);
  return text;
}

struct Bound {
  const char* line_prefix;  // as written in the shipped file
  const char* key_path;
  int64_t max;
};

std::string out_of_range(int64_t min, int64_t max) {
  return "expected " + std::to_string(min) + " to " + std::to_string(max);
}

// The documented chip bounds (docs/errors.md).
const std::vector<Bound> kChipBounds = {
    {"    count:", "chip.tiles.count", 4096},
    {"    stacks:", "chip.hbm.stacks", 64},
    {"    channels_per_stack:", "chip.hbm.channels_per_stack", 128},
    {"    banks:", "chip.shared_sram.banks", 4096},
};

// The documented model bounds, on a dense GQA model (llama-3.1-8b) and an MoE one (gpt-oss-20b).
const std::vector<Bound> kDenseModelBounds = {
    {"layers:", "layers", 1024},
    {"hidden_size:", "hidden_size", int64_t{1} << 18},
    {"vocab_size:", "vocab_size", int64_t{1} << 24},
    {"max_context:", "max_context", int64_t{1} << 24},
    {"  head_dim:", "attention.head_dim", 16384},
    {"  intermediate_size:", "ffn.intermediate_size", int64_t{1} << 20},
};
const std::vector<Bound> kMoeModelBounds = {
    {"  experts:", "ffn.experts", 4096},
    {"  expert_intermediate_size:", "ffn.expert_intermediate_size", int64_t{1} << 20},
};

void check_model_bound(const std::string& file, const Bound& b) {
  INFO(file << " " << b.key_path);
  const std::string text = shipped(file);
  CHECK_NOTHROW(workloads::load_model_from_string(
      with_line(text, b.line_prefix, std::to_string(b.max)), file));
  CHECK_THROWS_WITH(workloads::load_model_from_string(
                        with_line(text, b.line_prefix, std::to_string(b.max + 1)), file),
                    Catch::Contains(b.key_path) && Catch::Contains(out_of_range(1, b.max)));
}

}  // namespace

TEST_CASE("chip unit counts are bounded", "[limits]") {
  const std::string text = shipped("arch/chips/h200.yaml");
  for (const Bound& b : kChipBounds) {
    INFO(b.key_path);
    CHECK_NOTHROW(
        config::parse_chip_string(with_line(text, b.line_prefix, std::to_string(b.max)), "c"));
    CHECK_THROWS_WITH(
        config::parse_chip_string(with_line(text, b.line_prefix, std::to_string(b.max + 1)), "c"),
        Catch::Contains(b.key_path) && Catch::Contains(out_of_range(1, b.max)));
  }
}

TEST_CASE("model sizes are bounded", "[limits]") {
  for (const Bound& b : kDenseModelBounds)
    check_model_bound("workloads/models/llama-3.1-8b.yaml", b);
  for (const Bound& b : kMoeModelBounds) check_model_bound("workloads/models/gpt-oss-20b.yaml", b);
}

TEST_CASE("a model at every bound at once counts its parameters without overflow", "[limits]") {
  const int64_t layers = 1024, hidden = int64_t{1} << 18, width = int64_t{1} << 20;
  const int64_t heads = 4096, head_dim = 16384, experts = 4096, vocab = int64_t{1} << 24;
  std::ostringstream yaml;
  yaml << "name: huge\nlayers: " << layers << "\nhidden_size: " << hidden
       << "\nvocab_size: " << vocab << "\nmax_context: " << (int64_t{1} << 24)
       << "\nnorm: rmsnorm\nattention:\n  type: gqa\n  heads: " << heads
       << "\n  kv_heads: " << heads << "\n  head_dim: " << head_dim
       << "\nffn:\n  type: moe\n  activation: swiglu\n  intermediate_size: " << width
       << "\n  experts: " << experts << "\n  top_k: " << experts
       << "\n  expert_intermediate_size: " << width << "\n  shared_experts: " << experts
       << "\n  first_dense_layers: 1"
       << "\nprecision:\n  weights: bf16\n  experts: bf16\n  activations: bf16\n  kv_cache: bf16\n";
  const workloads::ModelConfig m = workloads::load_model_from_string(yaml.str(), "huge.yaml");
  // The routed experts alone: gate, up and down matrices of hidden x width per expert, in every
  // layer but the first (dense) one.
  const double routed = 3.0 * static_cast<double>((layers - 1) * experts) *
                        static_cast<double>(hidden) * static_cast<double>(width);
  CHECK(static_cast<double>(m.total_parameters()) > routed);
  CHECK(static_cast<double>(m.total_parameters()) < 9.2e18);  // below INT64_MAX
}

TEST_CASE("study request shapes are bounded", "[limits]") {
  const auto study = [](const std::string& key, int64_t value) {
    std::string yaml = "study:\n  model: m\n  chips: [c]\n  batch: 1\n  isl: 1\n  osl: 1\n";
    yaml = with_line(yaml, "  " + key + ":", std::to_string(value));
    return study::parse_study_string(yaml, "s.yaml");
  };
  for (const auto& [key, max] :
       std::vector<std::pair<std::string, int64_t>>{{"batch", study::kMaxBatch},
                                                    {"isl", study::kMaxSequenceTokens},
                                                    {"osl", study::kMaxSequenceTokens}}) {
    INFO(key);
    CHECK_NOTHROW(study(key, max));
    CHECK_THROWS_WITH(study(key, max + 1),
                      Catch::Contains("study." + key) && Catch::Contains(out_of_range(1, max)));
  }
}

TEST_CASE("a quantity whose prefix overflows is refused, not made infinite", "[limits]") {
  CHECK_THROWS_WITH(parse<Bandwidth>("1e300 EB/s"), Catch::Contains("too large"));
  CHECK(parse<Bandwidth>("1e300 B/s").si() == 1e300);
}

// A system is refused on its chip count before any topology is built: one level alone past the
// bound, and two levels whose product is 10^9 chips although each is within its own bound.
TEST_CASE("a 10^9-chip system is refused up front", "[limits]") {
  const std::string one_level = R"(system:
  name: huge
  network:
    local:
      size: 1000000000
      topology: switch
      link: {lanes: 1, bandwidth_per_lane: 50 GB/s, latency: 100 ns, energy: 2 pJ/bit}
)";
  CHECK_THROWS_WITH(config::parse_system_string(one_level, "huge.yaml"),
                    Catch::Contains("huge.yaml") && Catch::Contains("system.network.local.size") &&
                        Catch::Contains(out_of_range(1, int64_t{1} << 20)));

  const int64_t local = 1000, domains = 1000000;  // 10^9 chips, each level below 2^20
  std::ostringstream two_levels;
  two_levels << R"(system:
  name: huge
  network:
    local:
      size: )"
             << local << R"(
      topology: torus2d
      dims: [10, 100]
      link: {lanes: 1, bandwidth_per_lane: 50 GB/s, latency: 100 ns, energy: 2 pJ/bit}
    scale_out:
      domains: )"
             << domains << R"(
      topology: fat_tree
      link: {bandwidth_per_lane: 100 GB/s, latency: 100 ns, energy: 5 pJ/bit}
      switch: {radix: 64, port_bandwidth: 100 GB/s, latency: 500 ns, energy: 10 pJ/bit}
      nic: {bandwidth: 50 GB/s, latency: 1 us, energy: 6 pJ/bit}
)";
  CHECK_THROWS_WITH(config::parse_system_string(two_levels.str(), "huge.yaml"),
                    Catch::Contains("huge.yaml") &&
                        Catch::Contains("system.network.scale_out.domains") &&
                        Catch::Contains(std::to_string(local * domains) + " chips") &&
                        Catch::Contains(std::to_string(int64_t{1} << 20)));
}

// A trace header announcing 10^12 nodes is refused on the header, before any node is read.
TEST_CASE("a trace with 10^12 ops is refused up front", "[limits]") {
  const std::string text = shipped("workloads/traces/tiny-pipeline.stage1.trace.yaml");
  const workloads::ChipTrace ok = workloads::parse_native_trace(text, "t.yaml");
  const std::string count = "node_count: " + std::to_string(ok.nodes.size());
  REQUIRE(text.find(count) != std::string::npos);
  std::string huge = text;
  huge.replace(huge.find(count), count.size(), "node_count: 1000000000000");
  CHECK_THROWS_WITH(workloads::parse_native_trace(huge, "t.yaml"),
                    Catch::Contains("t.yaml") && Catch::Contains("node_count") &&
                        Catch::Contains(out_of_range(0, workloads::kMaxTraceNodes)));
}

// A trace file past the size bound is refused on its size alone (a sparse file: no disk used).
TEST_CASE("an oversized trace file is refused before it is read", "[limits]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("scoville-limits-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const char* name : {"big.0.et", "big.trace.yaml"}) {
    const std::filesystem::path file = dir / name;
    { std::ofstream(file.string()).put('x'); }
    std::filesystem::resize_file(file, static_cast<uintmax_t>(workloads::kMaxTraceFileBytes) + 1);
    INFO(name);
    const auto read = [&] {
      if (file.extension() == ".et") return workloads::read_chakra_trace(file.string()).trace;
      return workloads::read_native_trace(file.string());
    };
    CHECK_THROWS_WITH(read(), Catch::Contains(file.string()) &&
                                  Catch::Contains(std::to_string(workloads::kMaxTraceFileBytes)));
  }
  std::filesystem::remove_all(dir);
}

// Closed-loop clients and the open-loop concurrency cap are bounded by the requests a plan may
// hold (10^7): 10^9 is refused while checking the pattern, before any request is made.
TEST_CASE("a concurrency of 10^9 is refused up front", "[limits]") {
  workloads::RequestPattern closed;
  closed.kind = workloads::ArrivalKind::kClosedLoop;
  closed.concurrency = 1000000000;
  CHECK_THROWS_WITH(workloads::make_request_plan(closed, 1),
                    Catch::Contains("workload.concurrency") && Catch::Contains("10000000"));
  workloads::RequestPattern open;
  open.kind = workloads::ArrivalKind::kPoisson;
  open.rate = 10.0;
  open.num_prompts = 10;
  open.max_concurrency = 1000000000;
  CHECK_THROWS_WITH(workloads::make_request_plan(open, 1),
                    Catch::Contains("workload.max_concurrency") && Catch::Contains("10000000"));
  open.max_concurrency = 4;
  CHECK(workloads::make_request_plan(open, 1).requests.size() == 10);
}
