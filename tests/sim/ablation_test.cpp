// engine::ablation_variants and variant_args (sim/engine/ablation.hpp), and the table file
// writer the ablation and plan tables go through (sim/output/table_file.hpp).
#include <catch2/catch.hpp>

#include <limits>

#include "sim/base/error.hpp"
#include "sim/engine/ablation.hpp"
#include "sim/output/table_file.hpp"

using namespace scoville;

TEST_CASE("ablation: cartesian and one-at-a-time variants", "[ablate]") {
  const std::vector<engine::AblationAxis> axes = {{"a", {"a0", "a1", "a2"}}, {"b", {"b0", "b1"}}};
  const auto all = engine::ablation_variants(axes, engine::AblationMode::kCartesian);
  REQUIRE(all.size() == 3 * 2);
  CHECK(all.front() == std::vector<std::string>{"a0", "b0"});
  CHECK(all[1] == std::vector<std::string>{"a0", "b1"});  // the last key turns fastest
  CHECK(all.back() == std::vector<std::string>{"a2", "b1"});
  const auto one = engine::ablation_variants(axes, engine::AblationMode::kOneAtATime);
  REQUIRE(one.size() == 1 + 2 + 1);
  CHECK(one[0] == std::vector<std::string>{"a0", "b0"});
  CHECK(one[1] == std::vector<std::string>{"a1", "b0"});
  CHECK(one[2] == std::vector<std::string>{"a2", "b0"});
  CHECK(one[3] == std::vector<std::string>{"a0", "b1"});
  CHECK(engine::parse_ablation_mode("one-at-a-time") == engine::AblationMode::kOneAtATime);
  CHECK_THROWS_AS(engine::parse_ablation_mode("random"), UsageError);
}

TEST_CASE("ablation: run settings and file keys go where they belong", "[ablate]") {
  const std::vector<engine::AblationAxis> axes = {
      {"batch", {"4"}}, {"chip.hbm.capacity", {"96 GB"}}, {"network.local.topology", {"x"}}};
  const engine::SystemRunArgs args =
      engine::variant_args(engine::SystemRunArgs{}, axes, {"4", "96 GB", "full_mesh"});
  CHECK(args.batch == 4);
  REQUIRE(args.overrides.chip.size() == 1);
  CHECK(args.overrides.chip.front().value == "96 GB");
  REQUIRE(args.overrides.system.size() == 1);
  CHECK(args.overrides.system.front().key == "network.local.topology");
  CHECK_THROWS_AS(engine::variant_args(engine::SystemRunArgs{}, {{"nonsense", {"1"}}}, {"1"}),
                  InputError);
}

TEST_CASE("table file: CSV quotes what needs quoting and leaves NaN empty", "[ablate][plan]") {
  output::Table t;
  t.path = "/t";
  t.columns = {{"name", "1", std::vector<std::string>{"a,b", "say \"hi\""}},
               {"n", "1", std::vector<int64_t>{1, 2}},
               {"x", "s", std::vector<double>{0.1, std::numeric_limits<double>::quiet_NaN()}}};
  CHECK(output::table_csv(t) == "name,n,x\n\"a,b\",1,0.1\n\"say \"\"hi\"\"\",2,\n");
  CHECK(output::is_table_file("a.h5"));
  CHECK(output::is_table_file("dir/a.csv"));
  CHECK_FALSE(output::is_table_file("a.json"));
}
