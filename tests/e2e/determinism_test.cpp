// Same inputs and seed -> bit-identical results (the HDF5 file as a whole, provenance included
// when SOURCE_DATE_EPOCH pins the creation time).
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/e2e/test_support.hpp"

using namespace scoville::test;

TEST_CASE("two runs with the same inputs write identical HDF5 files", "[e2e][determinism]") {
  TempDir dir("determinism");
  const std::string out = dir.file("run.h5");
  const std::string args =
      "run --chip h200,jalapeno --model gpt-oss-20b --batch 2 --isl 512 --osl 8 --seed 7 -o " + out;
  const auto first = run_scoville(args, "SOURCE_DATE_EPOCH=1700000000");
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  const std::string first_bytes = read_file(out);
  REQUIRE(first_bytes.size() > 1000);
  const auto second = run_scoville(args, "SOURCE_DATE_EPOCH=1700000000");
  REQUIRE(second.exit_code == 0);
  CHECK(read_file(out) == first_bytes);
  // No temporary file is left beside the result.
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(out).parent_path())) {
    (void)entry;
    ++files;
  }
  CHECK(files == 1);
}
