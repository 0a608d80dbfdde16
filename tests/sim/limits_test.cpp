// Inputs that would exhaust time or memory are refused while parsing, with the allowed range
// (docs/errors.md, "Limits"). Each bound is accepted and one past it refused; a model with every
// field at its bound still counts its parameters (int64 products) without overflow.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/study/study_config.hpp"
#include "workloads/model_loader.hpp"

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
