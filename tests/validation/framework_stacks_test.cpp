// Published rows mapped to the serving stack they ran, by data (framework_stacks.hpp), and each
// row predicted with its stack (validation_run.hpp: row_stack).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <unistd.h>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/validation/framework_stacks.hpp"
#include "sim/validation/validation_run.hpp"

using namespace scoville;

namespace {

config::DataPaths paths() { return config::DataPaths{SCOVILLE_SOURCE_DIR}; }

}  // namespace

TEST_CASE("framework stacks: the shipped rules map each published framework", "[validation]") {
  const auto rules = validation::shipped_framework_stacks(paths());
  const auto stack = [&](const std::string& framework, const std::string& system) {
    return validation::framework_stack(rules, framework, system);
  };
  CHECK(stack("TensorRT-LLM", "tensorrt-llm") == "tensorrt-llm");
  CHECK(stack("TensorRT 10.14, CUDA 13.1, cuDNN 9.17, T", "tensorrt-llm") == "tensorrt-llm");
  CHECK(stack("Dynamo+TRT-LLM, MTP on, disaggregated", "tensorrt-llm") ==
        "dynamo-trtllm-disaggregated");
  CHECK(stack("vLLM v0.21.0", "tensorrt-llm") == "vllm");
  CHECK(stack("SGLang PD + large EP", "tensorrt-llm") == "sglang");
  // SGLang's ROCm build runs other kernels (AITER) under the same scheduler: a stack of its own.
  CHECK(stack("SGLang", "rocm-vllm") == "sglang-rocm");
  CHECK(stack("SGLang", "tensorrt-llm") == "sglang");
  // On an AMD system (its stack rocm-vllm) a vLLM row ran ROCm vLLM, also when it says TRT.
  CHECK(stack("vLLM", "rocm-vllm") == "rocm-vllm");
  CHECK(stack("vLLM/TRT (v1 nightly)", "rocm-vllm") == "rocm-vllm");
  CHECK(stack("vLLM/TRT (v1 nightly)", "tensorrt-llm") == "tensorrt-llm");
  CHECK(stack("ATOM", "rocm-vllm") == "atom");
  CHECK(stack("TorchTPU vLLM (TPU) / vLLM (GPU), aggregated, no MTP", "persistent-kernels") ==
        "persistent-kernels");
  CHECK(stack("TorchTPU vLLM (TPU) / vLLM (GPU), aggregated, no MTP", "tensorrt-llm") == "vllm");
  // llm-d runs vLLM model servers; its MLPerf rows name no engine.
  CHECK(stack("LLM-D v0.5.0 ,OpenShift 4.21, RHEL 9.6", "tensorrt-llm") == "vllm");
  CHECK(stack("LLM-D v0.5.0 ,OpenShift 4.21, RHEL 9.6", "rocm-vllm") == "rocm-vllm");
  CHECK(stack("Mango LLMBoost AI Enterprise Platform, v", "rocm-vllm").empty());
}

TEST_CASE("framework stacks: a row takes its framework's stack or else its system's",
          "[validation]") {
  const auto rules = validation::shipped_framework_stacks(paths());
  using P = std::pair<std::string, std::string>;
  CHECK(validation::row_stack(config::kSystemSoftware, rules, "vLLM", "tensorrt-llm") ==
        P{"vllm", "framework"});
  CHECK(validation::row_stack(config::kSystemSoftware, rules, "ROCm 6.10.5", "rocm-vllm") ==
        P{"rocm-vllm", "system"});
  CHECK(validation::row_stack(config::kSystemSoftware, rules, "ROCm 6.10.5", "") ==
        P{"none", "system"});
  // --software overrides every row.
  CHECK(validation::row_stack("none", rules, "vLLM", "tensorrt-llm") == P{"none", "--software"});
}

TEST_CASE("framework stacks: a bad rule names file, line and column", "[validation]") {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("scoville-rules-" + std::to_string(::getpid()) + ".csv"))
                               .string();
  const auto error = [&](const std::string& body) {
    std::ofstream(file) << "framework_contains,on_system_stack,stack,why\n" << body;
    std::string message = "no error";
    try {
      validation::read_framework_stacks(file, paths());
    } catch (const InputError& e) {
      message = e.what();
    }
    std::filesystem::remove(file);
    return message;
  };
  // The message names the file as given: its base name is enough here.
  const std::string unknown = error("vLLM,,vllm-turbo,x\n");
  CHECK_THAT(unknown, Catch::Contains(".csv:2"));
  CHECK_THAT(unknown, Catch::Contains("stack"));
  CHECK_THAT(unknown, Catch::Contains("tensorrt-llm"));  // the known stacks are listed
  CHECK_THAT(error("SGLang,rocm,sglang,x\n"), Catch::Contains("on_system_stack"));
  CHECK_THAT(error(",,vllm,x\n"), Catch::Contains("framework_contains"));
  CHECK(error("vLLM,,vllm,x\n") == "no error");
}
