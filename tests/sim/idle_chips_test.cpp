// A default mapping that leaves most of a system idle is warned about, with the --dp that uses it.
#include <catch2/catch.hpp>

#include <string>

#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/system_run_setup.hpp"

using namespace scoville;

namespace {

engine::SystemSetup setup_of(const engine::SystemRunArgs& args) {
  const config::DataPaths paths{SCOVILLE_SOURCE_DIR};
  const config::SystemConfig system = config::load_system(*args.system, paths);
  return engine::system_setup(args, system, paths);
}

}  // namespace

TEST_CASE("a default mapping on a few of many chips is warned about, with the --dp that fixes it",
          "[system][mapping]") {
  engine::SystemRunArgs args;
  args.system = "jalapeno-2048";
  args.model = "llama-3.1-8b";
  args.batch = 2048;
  args.isl = 128;
  args.osl = 16;
  const std::string warning = engine::idle_chips_warning(args, setup_of(args));
  CHECK(warning.find("uses 8 of the 2048 chips") != std::string::npos);
  CHECK(warning.find("--dp 256 spreads it over 2048 chips") != std::string::npos);
  // Given degrees are the user's choice: no warning.
  args.tp = 8;
  CHECK(engine::idle_chips_warning(args, setup_of(args)).empty());
  // A default that fills the system: no warning.
  engine::SystemRunArgs small;
  small.system = "h200-hgx8";
  small.model = "llama-3.1-8b";
  CHECK(engine::idle_chips_warning(small, setup_of(small)).empty());
}
