// config::config_key and the *_with loaders (sim/config/config_override.hpp): any key of the
// system, chip, model or software file set by dotted path, and a change the loader refuses
// reported at the key's line in the file as written, naming the setting.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "sim/base/error.hpp"
#include "sim/config/config_override.hpp"

using namespace scoville;
using namespace scoville::config;

namespace {

const DataPaths kPaths{SCOVILLE_SOURCE_DIR};

std::string arch(const std::string& rel) { return std::string(SCOVILLE_SOURCE_DIR) + "/" + rel; }

// The 1-based line of the first line of `file` containing `text`.
int line_of(const std::string& file, const std::string& text) {
  std::ifstream in(file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(text) != std::string::npos) return n;
  }
  return 0;
}

}  // namespace

TEST_CASE("config override: keys name their file and path", "[config][ablate]") {
  const auto topo = config_key("network.local.topology");
  REQUIRE(topo);
  CHECK(topo->file == ConfigFile::kSystem);
  CHECK(topo->path == std::vector<std::string>{"system", "network", "local", "topology"});
  CHECK(config_key("system.local.topology")->path == topo->path);
  CHECK(config_key("local.topology")->path == topo->path);
  CHECK(config_key("software")->path == std::vector<std::string>{"system", "software"});
  CHECK(config_key("chip")->file == ConfigFile::kSystem);
  CHECK(config_key("chip.hbm.capacity")->file == ConfigFile::kChip);
  CHECK(config_key("software.per_iteration")->file == ConfigFile::kSoftware);
  const auto precision = config_key("precision.weights");
  REQUIRE(precision);
  CHECK(precision->file == ConfigFile::kModel);
  CHECK(config_key("model.precision.weights")->path == precision->path);
  CHECK_FALSE(config_key("batch"));
  CHECK_FALSE(config_key("kv_placement"));
  CHECK_FALSE(config_key("chip..hbm"));
}

TEST_CASE("config override: system, chip, model and software keys change what loads",
          "[config][ablate]") {
  const std::string system = arch("arch/systems/h200-hgx8.yaml");
  const SystemConfig as_written = system_with(system, {});
  CHECK(as_written.network.kind == "switch");
  const SystemConfig mesh = system_with(system, {{"network.local.topology", "full_mesh"}});
  CHECK(mesh.network.kind == "full_mesh");

  const std::string chip = arch("arch/chips/h200.yaml");
  const models::ChipParams base = chip_with(chip, kPaths, {});
  const models::ChipParams big = chip_with(chip, kPaths, {{"chip.hbm.capacity", "282 GB"}});
  CHECK(big.hbm.capacity.si() == Approx(2 * base.hbm.capacity.si()));
  CHECK(big.hbm.stacks == base.hbm.stacks);

  const std::string model = arch("workloads/models/llama-3.1-8b.yaml");
  const workloads::ModelConfig bf16 = model_with(model, {});
  const workloads::ModelConfig fp8 = model_with(model, {{"precision.weights", "fp8"}});
  CHECK(fp8.weight_bytes().si() < bf16.weight_bytes().si());

  const std::string software = arch("arch/software/gpu-launch.yaml");
  const SoftwareProfile slower = software_with(software, {{"software.per_iteration", "2 ms"}});
  CHECK(slower.per_iteration.si() == Approx(2e-3));
}

TEST_CASE("config override: a change the loader refuses is located at the key in the file",
          "[config][ablate]") {
  const std::string chip = arch("arch/chips/h200.yaml");
  try {
    chip_with(chip, kPaths, {{"chip.hbm.capacity", "-5 GB"}});
    FAIL("a negative capacity was accepted");
  } catch (const InputError& e) {
    const Diagnostic& d = e.diagnostics().front();
    CHECK(d.where.file == chip);
    CHECK(d.where.line == line_of(chip, "    capacity: 141 GB"));
    CHECK(d.key_path == "chip.hbm.capacity");
    CHECK_THAT(d.message, Catch::Contains("chip.hbm.capacity = -5 GB"));
  }
  // Switching a torus to a switch without the switch section the loader needs.
  const std::string jalapeno = arch("arch/systems/jalapeno-128.yaml");
  try {
    system_with(jalapeno, {{"network.local.topology", "switch"}});
    FAIL("a switch without its section was accepted");
  } catch (const InputError& e) {
    const Diagnostic& d = e.diagnostics().front();
    CHECK(d.where.file == jalapeno);
    CHECK(d.where.line > 0);
    CHECK_THAT(d.message, Catch::Contains("network.local.topology = switch"));
  }
  // An unknown key is the loader's unknown-key error, with its suggestion.
  try {
    chip_with(chip, kPaths, {{"chip.hbm.bandwith", "5 TB/s"}});
    FAIL("an unknown key was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("bandwith"));
  }
}
