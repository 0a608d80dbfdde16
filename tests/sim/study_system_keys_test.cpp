// A study with `system:` holds what `scoville run --system` takes as flags (kv_placement,
// mapping, fidelity, overlap); bad or conflicting keys give one located error each.
#include <catch2/catch.hpp>

#include "sim/base/error.hpp"
#include "sim/study/study_config.hpp"

namespace scoville::study {

namespace {

const std::string kSystemStudy =
    "study:\n"
    "  name: s\n"
    "  system: h200-hgx8\n"
    "  model: llama-3.1-8b\n"
    "  batch: 2\n"
    "  isl: 128\n"
    "  osl: 4\n";

std::string error_of(const std::string& text) {
  try {
    parse_study_string(text, "s.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a study with system: reads the system keys, with run --system's defaults",
          "[study][system]") {
  const StudyConfig plain = parse_study_string(kSystemStudy, "s.yaml");
  REQUIRE(plain.system);
  CHECK(plain.system->system == "h200-hgx8");
  CHECK(plain.system->kv_placement == "local");
  CHECK(plain.system->fidelity == "representative");
  CHECK(plain.system->overlap == "none");
  CHECK_FALSE(plain.system->tp);
  CHECK(plain.chips.empty());

  const StudyConfig full =
      parse_study_string(kSystemStudy +
                             "  kv_placement: striped\n  fidelity: all\n  overlap: two_batch\n"
                             "  mapping: {tp: 4, ep: 2, attn_dp: 2}\n",
                         "s.yaml");
  REQUIRE(full.system);
  CHECK(full.system->kv_placement == "striped");
  CHECK(full.system->fidelity == "all");
  CHECK(full.system->overlap == "two_batch");
  CHECK(full.system->tp == std::optional<int64_t>(4));
  CHECK(full.system->ep == std::optional<int64_t>(2));
  CHECK(full.system->attn_dp == std::optional<int64_t>(2));
  CHECK_FALSE(full.system->pp);

  const StudyConfig file = parse_study_string(kSystemStudy + "  mapping: m.yaml\n", "s.yaml");
  CHECK(file.system->mapping_file == "m.yaml");

  // The resolved YAML reads back as the same study (what the results file stores).
  const StudyConfig again = parse_study_string(to_yaml(full), "again.yaml");
  REQUIRE(again.system);
  CHECK(again.system->kv_placement == "striped");
  CHECK(again.system->tp == full.system->tp);
  CHECK(again.system->attn_dp == full.system->attn_dp);
  CHECK(again.batch == full.batch);
  CHECK(to_yaml(again) == to_yaml(full));

  // routing: as run --system --routing takes it, kept by the resolved YAML.
  const StudyConfig drawn = parse_study_string(kSystemStudy + "  routing: zipf:1.2\n", "s.yaml");
  CHECK(plain.system->routing == "expected");
  CHECK(drawn.system->routing == "zipf:1.2");
  CHECK(parse_study_string(to_yaml(drawn), "again.yaml").system->routing == "zipf:1.2");
}

TEST_CASE("system keys that conflict or are wrong give a located error", "[study][system]") {
  // chips: and system: both: the error is at the chips: line (line 8 of the file).
  const std::string both = error_of(kSystemStudy + "  chips: [h200]\n");
  CHECK_THAT(both, Catch::Contains("s.yaml:8"));
  CHECK_THAT(both, Catch::Contains("study.chips"));
  CHECK_THAT(both, Catch::Contains("not both"));
  CHECK_THAT(error_of(kSystemStudy + "  power_cap: 500 W\n"), Catch::Contains("study.power_cap"));

  const std::string placement = error_of(kSystemStudy + "  kv_placement: nowhere\n");
  CHECK_THAT(placement, Catch::Contains("s.yaml:8"));
  CHECK_THAT(placement, Catch::Contains("study.kv_placement"));
  CHECK_THAT(placement, Catch::Contains("sram_window"));

  CHECK_THAT(error_of(kSystemStudy + "  fidelity: exact\n"), Catch::Contains("study.fidelity"));
  const std::string routing = error_of(kSystemStudy + "  routing: zipf:12\n");
  CHECK_THAT(routing, Catch::Contains("s.yaml:8"));
  CHECK_THAT(routing, Catch::Contains("study.routing"));
  CHECK_THAT(error_of(kSystemStudy + "  mapping: {tp: 0}\n"), Catch::Contains("study.mapping.tp"));
  CHECK_THAT(error_of(kSystemStudy + "  mapping: {tq: 2}\n"), Catch::Contains("study.mapping.tq"));

  // System keys on a single-chip study name the key and what it needs.
  const std::string stray = error_of(
      "study:\n  chips: [h200]\n  model: llama-3.1-8b\n  batch: 1\n  isl: 8\n  osl: 2\n"
      "  kv_placement: local\n");
  CHECK_THAT(stray, Catch::Contains("s.yaml:7"));
  CHECK_THAT(stray, Catch::Contains("study.kv_placement"));
  CHECK_THAT(stray, Catch::Contains("needs 'system:'"));
}

}  // namespace scoville::study
