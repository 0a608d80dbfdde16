// How published measurement rows name arch/systems and workloads/models files: through the
// `aliases` those files carry (docs/calibration.md, "Naming").
#include <catch2/catch.hpp>

#include <string>

#include "sim/config/data_paths.hpp"
#include "sim/validation/published_names.hpp"

using namespace scoville;

namespace {

const validation::PublishedNames& shipped() {
  static const validation::PublishedNames names =
      validation::load_published_names(config::DataPaths{SCOVILLE_SOURCE_DIR});
  return names;
}

}  // namespace

TEST_CASE("a published system names the file whose alias it contains, the longest alias winning",
          "[validation]") {
  struct Case {
    const char* published;
    const char* system_file;
    const char* chip;
  };
  for (const Case& c : {
           Case{"NVIDIA GB200 NVL72", "gb200-nvl72", "gb200"},
           Case{"Nebius B200 (8x B200-SXM-180GB, TensorRT) [B200]", "b200-hgx8", "b200"},
           Case{"NVIDIA H200 (8-GPU)", "h200-hgx8", "h200"},
           Case{"HPF HGX System (32xH100-SXM-80GB, TensorRT) [H100]", "h100-hgx8", "h100"},
           Case{"AMD MI300X (8-GPU)", "mi300x-8", "mi300x"},
           Case{"MangoBoost Mi325X (8x MI325X, LLMBoost) [MI325X]", "mi325x-8", "mi325x"},
           Case{"G8825Z5 [MI350X]", "mi350x-8", "mi350x"},
           Case{"smci355-ccs-aus-m09-17 (AS -4126GS-NMR-LCC) [MI355X]", "mi355x-8", "mi355x"},
       }) {
    INFO(c.published);
    const validation::SystemMatch m = validation::match_system(shipped(), c.published);
    CHECK(m.system_file == c.system_file);
    CHECK(m.chip == c.chip);
    CHECK(m.why_not.empty());
  }
}

TEST_CASE("a system no file names is refused with the reason", "[validation]") {
  const validation::SystemMatch m = validation::match_system(shipped(), "AWS Trainium2 (16-chip)");
  CHECK(m.system_file.empty());
  CHECK(m.chip.empty());
  CHECK(m.why_not == "system not named by any alias in arch/systems");
}

TEST_CASE("two files with equally long matching aliases leave a system unnamed", "[validation]") {
  validation::PublishedNames names;
  names.systems = {{"X9", "a-8", "a"}, {"X9", "b-8", "b"}, {"X", "c-8", "c"}};
  const validation::SystemMatch m = validation::match_system(names, "vendor X9 box");
  CHECK(m.system_file.empty());
  CHECK(m.why_not.find("several") != std::string::npos);
  // A longer alias of one of them settles it.
  names.systems.push_back({"X9 box", "b-8", "b"});
  CHECK(validation::match_system(names, "vendor X9 box").system_file == "b-8");
}

TEST_CASE("a published model names the file whose name or alias equals it", "[validation]") {
  CHECK(validation::match_model(shipped(), "Llama-3.3-70B-Instruct") == "llama-3.3-70b");
  CHECK(validation::match_model(shipped(), "DeepSeek-R1-0528") == "deepseek-r1");
  CHECK(validation::match_model(shipped(), "DeepSeek-V3/R1") == "deepseek-r1");
  CHECK(validation::match_model(shipped(), "Llama-2-70B") == "llama-2-70b");
  CHECK(validation::match_model(shipped(), "Llama-3.1-405B") == "llama-3.1-405b");
  CHECK(validation::match_model(shipped(), "QWEN3-235B-A22B") == "qwen3-235b-a22b");  // any case
  // Whole names only: a combined or different model is not one of the library's.
  CHECK(validation::match_model(shipped(), "Kimi-K2.5/K2.6").empty());
  CHECK(validation::match_model(shipped(), "Qwen3.5-122B-A10B").empty());
  CHECK(validation::match_model(shipped(), "GLM-5.1").empty());
  // The issue-26 additions, under the names InferenceX publishes.
  CHECK(validation::match_model(shipped(), "Qwen3.5-397B") == "qwen3.5-397b-a17b");
  CHECK(validation::match_model(shipped(), "GLM-5") == "glm-5");
  CHECK(validation::match_model(shipped(), "GLM-5 (744B MoE)") == "glm-5");
  CHECK(validation::match_system(shipped(), "Google TPUv7 Ironwood").system_file == "tpu7x-64");
}
