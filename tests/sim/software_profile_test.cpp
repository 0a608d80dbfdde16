// Software overhead profiles (arch/software/*.yaml): parsing, errors, and the overhead formula.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"

using namespace scoville;

namespace {

// A stack with its required keys only, for the tests of the optional ones.
const char* const kRequiredKeys = R"(software:
  name: test
  per_op_launch: 1 us
  per_layer_sync: 0 s
  per_iteration: 100 us
)";

// The message a stack file's text is refused with ("" if it is accepted).
std::string refusal(const std::string& yaml) {
  try {
    config::parse_software_string(yaml, "stack.yaml");
  } catch (const ScovilleError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("software profile: per op, per layer and per iteration overheads add up", "[software]") {
  const config::SoftwareProfile p = config::parse_software_string(R"(software:
  name: test
  per_op_launch: 2 us
  per_layer_sync: 5 us
  per_iteration: 1 ms
)",
                                                                  "<test>");
  CHECK(p.name == "test");
  const int64_t ops = 300;
  const int64_t layers = 32;
  const double expected =
      p.per_op_launch.si() * ops + p.per_layer_sync.si() * layers + p.per_iteration.si();
  CHECK(p.overhead(ops, layers).si() == Approx(expected));
  CHECK(config::SoftwareProfile{}.overhead(ops, layers).si() == 0.0);
}

TEST_CASE("software profile: the per-collective time is optional and counts each call",
          "[software]") {
  const config::SoftwareProfile without = config::parse_software_string(R"(software:
  name: test
  per_op_launch: 1 us
  per_layer_sync: 0 s
  per_iteration: 0 s
)",
                                                                        "<test>");
  CHECK(without.per_collective.si() == 0.0);
  const config::SoftwareProfile p = config::parse_software_string(R"(software:
  name: test
  per_op_launch: 1 us
  per_layer_sync: 0 s
  per_iteration: 0 s
  per_collective: 7 us
)",
                                                                  "<test>");
  const int64_t ops = 100;
  const int64_t calls = 64;
  CHECK(p.overhead(ops, 0).si() == Approx(p.per_op_launch.si() * ops));
  CHECK(p.overhead(ops, 0, calls).si() ==
        Approx(p.per_op_launch.si() * ops + p.per_collective.si() * calls));
  CHECK(p.per_collective.si() == Approx(7e-6));
}

TEST_CASE("software profile: bad input names file, line and key", "[software]") {
  auto message = [](const std::string& yaml) {
    try {
      config::parse_software_string(yaml, "sw.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string negative = message(R"(software:
  name: bad
  per_op_launch: -1 us
  per_layer_sync: 0 s
  per_iteration: 0 s
)");
  CHECK(negative.find("sw.yaml:3") != std::string::npos);
  CHECK(negative.find("software.per_op_launch") != std::string::npos);
  const std::string unknown = message(R"(software:
  name: bad
  per_op_lunch: 1 us
  per_layer_sync: 0 s
  per_iteration: 0 s
)");
  CHECK(unknown.find("per_op_launch") != std::string::npos);  // missing, and suggested
  const std::string wrong_unit = message(R"(software:
  name: bad
  per_op_launch: 1 GB
  per_layer_sync: 0 s
  per_iteration: 0 s
)");
  CHECK(wrong_unit.find("duration") != std::string::npos);
  const std::string negative_call = message(R"(software:
  name: bad
  per_op_launch: 0 s
  per_layer_sync: 0 s
  per_iteration: 0 s
  per_collective: -2 us
)");
  CHECK(negative_call.find("sw.yaml:6") != std::string::npos);
  CHECK(negative_call.find("software.per_collective") != std::string::npos);
}

TEST_CASE("software profiles in arch/software load", "[software]") {
  const config::DataPaths paths{SCOVILLE_SOURCE_DIR};
  for (const char* name : {"gpu-launch", "gpu-cuda-graphs", "persistent-kernels"}) {
    const config::SoftwareProfile p = config::load_software(name, paths);
    CHECK(p.name == name);
  }
  // Persistent kernels pay no launch; eager launches pay more per op than graphs.
  CHECK(config::load_software("persistent-kernels", paths).per_op_launch.si() == 0.0);
  CHECK(config::load_software("gpu-launch", paths).per_op_launch >
        config::load_software("gpu-cuda-graphs", paths).per_op_launch);
}

TEST_CASE("software profile: per_all_to_all defaults to per_collective and prices all-to-alls",
          "[software]") {
  const config::SoftwareProfile same = config::parse_software_string(R"(software:
  name: s
  per_op_launch: 0 s
  per_layer_sync: 0 s
  per_iteration: 0 s
  per_collective: 7 us
)",
                                                                     "same.yaml");
  CHECK(same.per_all_to_all.si() == Approx(7e-6));
  const config::SoftwareProfile own = config::parse_software_string(R"(software:
  name: s
  per_op_launch: 0 s
  per_layer_sync: 0 s
  per_iteration: 0 s
  per_collective: 7 us
  per_all_to_all: 24 us
)",
                                                                    "own.yaml");
  CHECK(own.per_all_to_all.si() == Approx(24e-6));
  // 10 calls, 4 of them all-to-alls.
  CHECK(own.overhead(0, 0, 10, 4).si() == Approx(6 * 7e-6 + 4 * 24e-6));
  std::string bad = "no error";
  try {
    config::parse_software_string(R"(software:
  name: s
  per_op_launch: 0 s
  per_layer_sync: 0 s
  per_iteration: 0 s
  per_all_to_all: 24 m
)",
                                  "bad.yaml");
  } catch (const InputError& e) {
    bad = e.what();
  }
  CHECK(bad.find("bad.yaml:6") != std::string::npos);
  CHECK(bad.find("software.per_all_to_all") != std::string::npos);
}

TEST_CASE("software profile: per-sequence and KV-handoff times are optional", "[software]") {
  const std::string base = kRequiredKeys;
  const config::SoftwareProfile without = config::parse_software_string(base, "<test>");
  CHECK(without.per_sequence.si() == 0.0);
  CHECK(without.per_kv_transfer.si() == 0.0);
  const config::SoftwareProfile p = config::parse_software_string(
      base + "  per_sequence: 2 us\n  per_kv_transfer: 0.5 ms\n", "<test>");
  CHECK(p.per_kv_transfer.si() == Approx(0.5e-3));
  // 10 ops, 256 sequences: 10 us + 100 us + 512 us.
  CHECK(p.overhead(10, 0, 0, 0, 256).si() == Approx(10e-6 + 100e-6 + 512e-6));
  CHECK(p.overhead(10, 0).si() == Approx(110e-6));  // no sequences given: none counted
}

TEST_CASE("software profile: fused vector ops are a stack's yes or no, default no", "[software]") {
  const std::string base = kRequiredKeys;
  CHECK_FALSE(config::parse_software_string(base, "<test>").fused_vector_ops);
  CHECK(config::parse_software_string(base + "  fused_vector_ops: true\n", "<test>")
            .fused_vector_ops);
  try {
    config::parse_software_string(base + "  fused_vector_ops: sometimes\n", "stack.yaml");
    FAIL("a fused_vector_ops that is not a boolean was accepted");
  } catch (const ScovilleError& e) {
    const std::string what = e.what();
    CHECK(what.find("stack.yaml") != std::string::npos);
    CHECK(what.find("fused_vector_ops") != std::string::npos);
  }
  // The resident-program stack fuses them; the GPU stacks launch each as a kernel.
  const config::DataPaths paths{SCOVILLE_SOURCE_DIR};
  CHECK(config::load_software("persistent-kernels", paths).fused_vector_ops);
  CHECK_FALSE(config::load_software("tensorrt-llm", paths).fused_vector_ops);
}

TEST_CASE("software profile: how a stack samples top-p is single-pass unless it says full-sort",
          "[software]") {
  const std::string base = kRequiredKeys;
  CHECK_FALSE(config::parse_software_string(base, "<test>").top_p_sorts_vocabulary);
  CHECK(config::parse_software_string(base + "  top_p_sampler: full-sort\n", "<test>")
            .top_p_sorts_vocabulary);
  CHECK_FALSE(config::parse_software_string(base + "  top_p_sampler: single-pass\n", "<test>")
                  .top_p_sorts_vocabulary);
  const std::string sampler = refusal(base + "  top_p_sampler: radix\n");
  CHECK_THAT(sampler, Catch::Contains("stack.yaml") && Catch::Contains("top_p_sampler") &&
                          Catch::Contains("full-sort"));
  // vLLM (CUDA and ROCm builds) sorts; TensorRT-LLM and SGLang draw in one pass.
  const config::DataPaths paths{SCOVILLE_SOURCE_DIR};
  CHECK(config::load_software("vllm", paths).top_p_sorts_vocabulary);
  CHECK(config::load_software("rocm-vllm", paths).top_p_sorts_vocabulary);
  CHECK_FALSE(config::load_software("tensorrt-llm", paths).top_p_sorts_vocabulary);
  CHECK_FALSE(config::load_software("sglang", paths).top_p_sorts_vocabulary);
}

TEST_CASE("software profile: disaggregated KV is windowed unless the stack says whole-context",
          "[software]") {
  const std::string base = kRequiredKeys;
  CHECK_FALSE(config::parse_software_string(base, "<test>").disaggregated_kv_whole_context);
  CHECK(config::parse_software_string(base + "  disaggregated_kv: whole-context\n", "<test>")
            .disaggregated_kv_whole_context);
  const std::string kv = refusal(base + "  disaggregated_kv: all\n");
  CHECK_THAT(kv, Catch::Contains("stack.yaml") && Catch::Contains("disaggregated_kv") &&
                     Catch::Contains("whole-context"));
}

TEST_CASE("software profile: the stack in effect is the request's or else the system's",
          "[software]") {
  CHECK(config::software_in_effect(config::kSystemSoftware, "/arch/software/vllm.yaml") ==
        "/arch/software/vllm.yaml");
  CHECK(config::software_in_effect(config::kSystemSoftware, "").empty());
  CHECK(config::software_in_effect(config::kNoSoftware, "/arch/software/vllm.yaml").empty());
  CHECK(config::software_in_effect("sglang", "/arch/software/vllm.yaml") == "sglang");
}

TEST_CASE("software profile: every shipped stack file loads", "[software]") {
  const config::DataPaths paths{SCOVILLE_SOURCE_DIR};
  const std::vector<std::string> names = paths.available("arch/software");
  for (const char* stack :
       {"tensorrt-llm", "vllm", "sglang", "sglang-rocm", "dynamo-trtllm-disaggregated", "rocm-vllm",
        "atom", "persistent-kernels"}) {
    INFO(stack);
    REQUIRE(std::find(names.begin(), names.end(), stack) != names.end());
    CHECK(config::load_software(stack, paths).name == stack);
  }
  // Only the disaggregated stack pays a KV handoff; the Python scheduler costs more per sequence.
  CHECK(config::load_software("dynamo-trtllm-disaggregated", paths).per_kv_transfer.si() > 0);
  CHECK(config::load_software("tensorrt-llm", paths).per_kv_transfer.si() == 0);
  CHECK(config::load_software("vllm", paths).per_sequence.si() >
        config::load_software("tensorrt-llm", paths).per_sequence.si());
}
