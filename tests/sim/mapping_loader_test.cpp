// Mapping YAML: pools with their degrees and file positions; errors located in the file.
#include <catch2/catch.hpp>

#include <string>

#include "sim/config/mapping_loader.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using Catch::Matchers::Contains;

namespace {

const std::string kTwoPools = R"(mapping:
  prefill:
    chips: 8
    tp: 8
  decode:
    chips: 16
    tp: 8
    ep: 8
    dp: 2
    attn_dp: 8
)";

std::string error_of(const std::string& yaml) {
  try {
    config::load_mapping_string(yaml, "m.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("A mapping file holds one entry per pool, degrees defaulting to 1") {
  const workloads::MappingConfig m = config::load_mapping_string(kTwoPools, "m.yaml");
  REQUIRE(m.pools.size() == 2);
  const workloads::PoolMapping& prefill = m.pool("prefill");
  CHECK(prefill.chips == 8);
  CHECK(prefill.degrees.tp == 8);
  CHECK(prefill.degrees.ep == 1);
  CHECK(prefill.degrees.attn_dp == 1);
  const workloads::PoolMapping& decode = m.pool("decode");
  CHECK(decode.chips == 16);
  CHECK(decode.degrees.ep == 8);
  CHECK(decode.degrees.dp == 2);
  CHECK(decode.degrees.attn_dp == 8);
  CHECK(decode.where.str() == "m.yaml:6:5");
  CHECK_THAT(
      [&] {
        try {
          m.pool("mixed");
        } catch (const InputError& e) {
          return std::string(e.what());
        }
        return std::string("no error");
      }(),
      Contains("no pool named 'mixed'; the mapping has: prefill, decode"));
}

TEST_CASE("Mapping file errors name the file, the position and the key") {
  CHECK_THAT(error_of("mapping:\n  decode: {tp: 2}\n"), Contains("mapping.decode.chips"));
  const std::string typo = error_of("mapping:\n  decode: {chips: 2, tpp: 2}\n");
  CHECK_THAT(typo, Contains("m.yaml:2:"));
  CHECK_THAT(typo, Contains("tpp"));
  CHECK_THAT(error_of("mapping:\n  decode: {chips: 2, tp: 0}\n"), Contains("mapping.decode.tp"));
  CHECK_THAT(error_of("mapping: {}\n"), Contains("mapping"));
}

TEST_CASE("An impossible pool in a mapping file is reported at its position") {
  const workloads::ModelConfig model = workloads::load_model(std::string(SCOVILLE_SOURCE_DIR) +
                                                             "/workloads/models/llama-3.1-8b.yaml");
  const workloads::MappingConfig m =
      config::load_mapping_string("mapping:\n  decode:\n    chips: 3\n    tp: 3\n", "m.yaml");
  try {
    workloads::map_iteration(model, workloads::IterationShape{workloads::Phase::kDecode, 8, 1, 64},
                             m, "decode");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()),
               Contains("m.yaml:3:5: mapping.decode.tp: tp 3 does not divide"));
  }
}
