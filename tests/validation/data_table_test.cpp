// The small CSV data files' shared pieces (data_table.hpp): a shipped file found under the data
// root, or none when the root lacks it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <unistd.h>

#include "sim/config/data_paths.hpp"
#include "sim/validation/data_table.hpp"
#include "sim/validation/inferencex_searches.hpp"
#include "sim/validation/mlperf_replicas.hpp"

using namespace scoville;

TEST_CASE("data table: a shipped file is its path under the data root, none when absent",
          "[validation]") {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("scoville-data-root-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "workloads" / "measurements");
  std::ofstream(root / "workloads" / "measurements" / "present.csv") << "a,b\n";
  const config::DataPaths paths{root.string()};

  const std::optional<std::string> present =
      validation::shipped_data_file(paths, "workloads/measurements/present.csv");
  REQUIRE(present.has_value());
  CHECK(*present == root.string() + "/workloads/measurements/present.csv");

  CHECK_FALSE(validation::shipped_data_file(paths, "workloads/measurements/absent.csv"));
  CHECK_FALSE(validation::shipped_data_file(config::DataPaths{(root / "no-such-root").string()},
                                            "workloads/measurements/present.csv"));
  // The readers built on it: a data root without their files ships none.
  CHECK(validation::shipped_mlperf_replicas(paths).empty());
  CHECK(validation::shipped_inferencex_searches(paths).empty());

  std::filesystem::remove_all(root);
}
