// MapReader and the YAML loaders: one test per class of error, each asserting the exact file,
// line, column and dotted key path the user will see (FORMATS.md §4).
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/base/units.hpp"
#include "sim/base/yaml_reader.hpp"

using namespace scoville;
using Catch::Contains;

namespace {

const std::string kFile = "chip.yaml";

// Parses `text` and wraps its root in a reader with no path prefix.
struct Doc {
  explicit Doc(const std::string& text) : root(load_yaml_string(text, kFile)) {}
  MapReader reader() { return MapReader(root, kFile, "", diagnostics); }

  YAML::Node root;
  Diagnostics diagnostics;
};

// The InputError thrown by load_yaml_string, which must throw.
InputError syntax_error_of(const std::string& text) {
  try {
    load_yaml_string(text, kFile);
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError for: " << text);
  return InputError(std::vector<Diagnostic>{});
}

}  // namespace

TEST_CASE("a valid file reads without errors", "[yaml]") {
  Doc doc(
      "chip:\n"
      "  name: h200\n"
      "  clock: 1.98 GHz\n"
      "  hbm:\n"
      "    stacks: 6\n"
      "    bandwidth: 4.8 TB/s\n"
      "    capacity: 141 GB\n"
      "  utilisation: 0.85\n"
      "  topology: mesh\n"
      "  sparse: true\n");
  MapReader root = doc.reader();
  MapReader chip = root.map("chip");
  CHECK(chip.path() == "chip");
  CHECK(chip.file() == kFile);
  CHECK(chip.string("name") == "h200");
  CHECK(chip.quantity<Frequency>("clock").si() == Approx(1.98 * 1e9));
  MapReader hbm = chip.map("hbm");
  CHECK(hbm.path() == "chip.hbm");
  CHECK(hbm.integer("stacks", 1, 16) == 6);
  CHECK(hbm.quantity<Bandwidth>("bandwidth").si() == Approx(4.8 * 1e12));
  CHECK(hbm.quantity<Bytes>("capacity").si() == Approx(141 * 1e9));
  hbm.finish();
  CHECK(chip.number("utilisation", 0.0, 1.0) == Approx(0.85));
  CHECK(chip.choice("topology", {"ring", "mesh", "torus"}) == "mesh");
  CHECK(chip.boolean_or("sparse", false));
  chip.finish();
  root.finish();
  CHECK(doc.diagnostics.empty());
  CHECK(doc.diagnostics.size() == 0);
  CHECK_NOTHROW(doc.diagnostics.throw_if_any());
}

TEST_CASE("YAML syntax error reports file:line:col of the error", "[yaml]") {
  SECTION("bad indentation: yaml-cpp marks the ':' of the stray key, line 2, column 6") {
    const InputError e = syntax_error_of(
        "chip: 1\n"
        "  hbm: 2\n");
    REQUIRE(e.diagnostics().size() == 1);
    const Diagnostic& d = e.diagnostics()[0];
    CHECK(d.where.file == kFile);
    CHECK(d.where.line == 2);
    CHECK(d.where.column == 6);
    CHECK(d.key_path.empty());
    CHECK_THAT(d.message, Contains("YAML syntax error"));
    CHECK_THAT(d.message, Contains("illegal map value"));
    CHECK_THAT(std::string(e.what()), Contains("chip.yaml:2:6: YAML syntax error"));
  }
  SECTION("unterminated flow sequence: reported where the parser gave up, line 3") {
    const InputError e = syntax_error_of(
        "name: h200\n"
        "stacks: [1, 2\n"
        "tdp: 700 W\n");
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].where.line == 3);
    CHECK(e.diagnostics()[0].where.column == 4);  // the ':' after "tdp"
    CHECK_THAT(e.diagnostics()[0].message, Contains("end of sequence flow not found"));
  }
  SECTION("it is a ScovilleError") {
    CHECK_THROWS_AS(load_yaml_string("a: [", kFile), ScovilleError);
  }
}

TEST_CASE("missing required field: parent map's location, full dotted path", "[yaml]") {
  Doc doc(
      "chip:\n"                   // line 1
      "  name: h200\n"            // line 2
      "  hbm:\n"                  // line 3
      "    capacity: 141 GB\n");  // line 4: the hbm mapping starts here
  MapReader chip = doc.reader().map("chip");
  MapReader hbm = chip.map("hbm");
  CHECK(hbm.integer("stacks", 1, 16) == 1);  // returns the minimum after an error
  CHECK(hbm.quantity<Bytes>("capacity").si() == Approx(141 * 1e9));
  REQUIRE(doc.diagnostics.size() == 1);
  const Diagnostic& d = doc.diagnostics.items()[0];
  CHECK(d.where.file == kFile);
  CHECK(d.where.line == 4);
  CHECK(d.where.column == 5);
  CHECK(d.key_path == "chip.hbm.stacks");
  CHECK(d.message == "missing required field 'stacks'");
  CHECK(d.str() == "chip.yaml:4:5: chip.hbm.stacks: missing required field 'stacks'");
}

TEST_CASE("every required accessor reports a missing key", "[yaml]") {
  Doc doc("chip:\n  name: h200\n");
  MapReader chip = doc.reader().map("chip");
  CHECK(chip.quantity<Power>("tdp").si() == 0.0);
  CHECK(chip.number("utilisation", 0.25, 1.0) == 0.25);
  CHECK(chip.integer("stacks", 1, 16) == 1);
  CHECK(chip.string("vendor").empty());
  CHECK(chip.choice("topology", {"ring", "mesh"}) == "ring");
  chip.map("hbm");
  CHECK(chip.string("name") == "h200");
  const std::vector<std::string> expected = {"chip.tdp",    "chip.utilisation", "chip.stacks",
                                             "chip.vendor", "chip.topology",    "chip.hbm"};
  REQUIRE(doc.diagnostics.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const Diagnostic& d = doc.diagnostics.items()[i];
    CHECK(d.key_path == expected[i]);
    CHECK(d.where.line == 2);  // the chip mapping starts at "name" on line 2
    CHECK(d.where.column == 3);
  }
  CHECK(doc.diagnostics.items().back().message == "missing required section 'hbm'");
}

TEST_CASE("an empty value counts as missing", "[yaml]") {
  Doc doc(
      "chip:\n"
      "  name:\n"
      "  tdp: ~\n");
  MapReader chip = doc.reader().map("chip");
  chip.string("name");
  chip.quantity<Power>("tdp");
  chip.finish();
  REQUIRE(doc.diagnostics.size() == 2);
  CHECK(doc.diagnostics.items()[0].key_path == "chip.name");
  CHECK(doc.diagnostics.items()[1].key_path == "chip.tdp");
  CHECK_THAT(doc.diagnostics.items()[1].message, Contains("missing required field 'tdp'"));
}

TEST_CASE("a missing section is one error, not one per field", "[yaml]") {
  Doc doc("chip:\n  name: h200\n");
  MapReader chip = doc.reader().map("chip");
  MapReader hbm = chip.map("hbm");
  CHECK(hbm.path() == "chip.hbm");
  CHECK_FALSE(hbm.has("stacks"));
  hbm.integer("stacks", 1, 16);
  hbm.quantity<Bandwidth>("bandwidth");
  MapReader phy = hbm.map("phy");
  phy.string("kind");
  hbm.finish();
  chip.string("name");
  chip.finish();
  REQUIRE(doc.diagnostics.size() == 1);
  const Diagnostic& d = doc.diagnostics.items()[0];
  CHECK(d.key_path == "chip.hbm");
  CHECK(d.message == "missing required section 'hbm'");
  CHECK(d.where.line == 2);
  CHECK(d.where.column == 3);
}

TEST_CASE("an empty section is reported once as missing", "[yaml]") {
  Doc doc(
      "chip:\n"
      "  hbm:\n"
      "  name: h200\n");
  MapReader chip = doc.reader().map("chip");
  chip.map("hbm").integer("stacks", 1, 16);
  chip.string("name");
  chip.finish();
  REQUIRE(doc.diagnostics.size() == 1);
  CHECK(doc.diagnostics.items()[0].key_path == "chip.hbm");
  CHECK(doc.diagnostics.items()[0].message == "missing required section 'hbm'");
}

TEST_CASE("unknown key: its own line and column, with did-you-mean", "[yaml]") {
  Doc doc(
      "chip:\n"            // line 1
      "  name: h200\n"     // line 2
      "  tdp: 700 W\n"     // line 3
      "  hmb:\n"           // line 4: misspelt "hbm"
      "    stacks: 6\n");  // line 5
  MapReader root = doc.reader();
  MapReader chip = root.map("chip");
  chip.string("name");
  chip.quantity<Power>("tdp");
  CHECK_FALSE(chip.optional_map("hbm").has_value());
  chip.finish();
  root.finish();
  REQUIRE(doc.diagnostics.size() == 1);
  const Diagnostic& d = doc.diagnostics.items()[0];
  CHECK(d.where.file == kFile);
  CHECK(d.where.line == 4);
  CHECK(d.where.column == 3);
  CHECK(d.key_path == "chip.hmb");
  CHECK(d.message == "unknown key 'hmb'; did you mean 'hbm'?");
  CHECK(d.str() == "chip.yaml:4:3: chip.hmb: unknown key 'hmb'; did you mean 'hbm'?");
}

TEST_CASE("unknown key with no close match lists the known keys", "[yaml]") {
  Doc doc(
      "name: h200\n"
      "tdp: 700 W\n"
      "vendor_specific_flag: 1\n");
  MapReader root = doc.reader();
  root.string("name");
  root.quantity<Power>("tdp");
  root.finish();
  REQUIRE(doc.diagnostics.size() == 1);
  const Diagnostic& d = doc.diagnostics.items()[0];
  CHECK(d.where.line == 3);
  CHECK(d.where.column == 1);
  CHECK(d.key_path == "vendor_specific_flag");  // no prefix at the root
  CHECK(d.message == "unknown key 'vendor_specific_flag'; known keys here: name, tdp");
}

TEST_CASE("keys() marks every key as known", "[yaml]") {
  Doc doc(
      "rates:\n"
      "  bf16: 989 TFLOP/s\n"
      "  fp8: 1979 TFLOP/s\n");
  MapReader rates = doc.reader().map("rates");
  const std::vector<std::string> keys = rates.keys();
  CHECK(keys == std::vector<std::string>{"bf16", "fp8"});  // file order
  for (const std::string& k : keys) CHECK(rates.quantity<FlopRate>(k).si() > 0.0);
  rates.finish();
  CHECK(doc.diagnostics.empty());
}

TEST_CASE("a key given twice is an error at the second one", "[yaml]") {
  Doc doc(
      "name: h200\n"
      "tdp: 700 W\n"
      "tdp: 1000 W\n");
  MapReader root = doc.reader();
  root.string("name");
  root.quantity<Power>("tdp");
  root.finish();
  REQUIRE(doc.diagnostics.size() == 1);
  const Diagnostic& d = doc.diagnostics.items()[0];
  CHECK(d.where.line == 3);
  CHECK(d.where.column == 1);
  CHECK(d.key_path == "tdp");
  CHECK(d.message == "duplicate key 'tdp' (first given at chip.yaml:2:1)");
}

TEST_CASE("wrong unit: the value's line, the key path, the expected dimension", "[yaml]") {
  Doc doc(
      "chip:\n"                   // line 1
      "  hbm:\n"                  // line 2
      "    stacks: 6\n"           // line 3
      "    bandwidth: 700 W\n");  // line 4: the value starts at column 16
  MapReader hbm = doc.reader().map("chip").map("hbm");
  hbm.integer("stacks", 1, 16);
  CHECK(hbm.quantity<Bandwidth>("bandwidth").si() == 0.0);
  REQUIRE(doc.diagnostics.size() == 1);
  const Diagnostic& d = doc.diagnostics.items()[0];
  CHECK(d.where.line == 4);
  CHECK(d.where.column == 16);
  CHECK(d.key_path == "chip.hbm.bandwidth");
  CHECK_THAT(d.message, Contains("expected " + dimension_name(Dimension::kBandwidth)));
  CHECK_THAT(d.message, Contains(dimension_name(Dimension::kPower)));
  CHECK_THAT(d.message, Contains("700 W"));
}

TEST_CASE("malformed quantity text is reported, not thrown", "[yaml]") {
  Doc doc(
      "clock: fast\n"
      "tdp: 700\n");
  MapReader root = doc.reader();
  CHECK_NOTHROW(root.quantity<Frequency>("clock"));
  CHECK(root.quantity_or<Power>("tdp", watts(1)).si() == 1.0);  // falls back after the error
  REQUIRE(doc.diagnostics.size() == 2);
  CHECK(doc.diagnostics.items()[0].where.line == 1);
  CHECK_THAT(doc.diagnostics.items()[0].message, Contains("does not start with a number"));
  CHECK(doc.diagnostics.items()[1].where.line == 2);
  CHECK_THAT(doc.diagnostics.items()[1].message, Contains("has no unit"));
}

TEST_CASE("out-of-range values", "[yaml]") {
  Doc doc(
      "tdp: 0 W\n"          // line 1: quantities default to > 0
      "latency: -5 ns\n"    // line 2: kNonNegative
      "offset: -5 ns\n"     // line 3: kAny accepts it
      "stacks: 17\n"        // line 4: integer above max
      "utilisation: 1.5\n"  // line 5: number above max
      "idle: 0 W\n");       // line 6: zero is fine for kNonNegative
  MapReader root = doc.reader();
  root.quantity<Power>("tdp");
  root.quantity<Duration>("latency", Range::kNonNegative);
  CHECK(root.quantity<Duration>("offset", Range::kAny).si() == Approx(-5 * 1e-9));
  CHECK(root.integer("stacks", 1, 16) == 1);
  CHECK(root.number("utilisation", 0.0, 1.0) == 0.0);
  CHECK(root.quantity<Power>("idle", Range::kNonNegative).si() == 0.0);
  root.finish();
  REQUIRE(doc.diagnostics.size() == 4);
  const auto& items = doc.diagnostics.items();
  CHECK(items[0].where.line == 1);
  CHECK(items[0].key_path == "tdp");
  CHECK(items[0].message == "value \"0 W\" is out of range: expected greater than zero");
  CHECK(items[1].where.line == 2);
  CHECK(items[1].message == "value \"-5 ns\" is out of range: expected zero or more");
  CHECK(items[2].where.line == 4);
  CHECK(items[2].key_path == "stacks");
  CHECK(items[2].message == "value 17 is out of range: expected 1 to 16");
  CHECK(items[3].where.line == 5);
  CHECK(items[3].message == "value 1.5 is out of range: expected 0 to 1");
}

TEST_CASE("integer limits", "[yaml]") {
  Doc doc(
      "a: 16\n"
      "b: 1\n"
      "c: +8\n"
      "d: -3\n"
      "e: 99999999999999999999\n"
      "f: 8.0\n"
      "g: +-8\n"
      "h: 1e3\n");
  MapReader root = doc.reader();
  CHECK(root.integer("a", 1, 16) == 16);  // bounds are inclusive
  CHECK(root.integer("b", 1, 16) == 1);
  CHECK(root.integer("c", 1, 16) == 8);
  CHECK(root.integer("d", -5, 5) == -3);
  CHECK(doc.diagnostics.empty());
  root.integer("e", 0, std::numeric_limits<int64_t>::max());
  root.integer("f", 0, 16);
  root.integer("g", -16, 16);
  root.integer("h", 0, 10000);
  REQUIRE(doc.diagnostics.size() == 4);
  CHECK_THAT(doc.diagnostics.items()[0].message, Contains("out of range"));
  CHECK(doc.diagnostics.items()[1].message == "expected a whole number, found \"8.0\"");
  CHECK(doc.diagnostics.items()[2].message == "expected a whole number, found \"+-8\"");
  CHECK(doc.diagnostics.items()[3].message == "expected a whole number, found \"1e3\"");
}

TEST_CASE("plain numbers", "[yaml]") {
  Doc doc(
      "a: 0.5\n"
      "b: 1e3\n"
      "c: +2\n"
      "d: .25\n"
      "e: .inf\n"
      "f: nan\n"
      "g: inf\n"
      "h: 1e999\n"
      "i: 3 GHz\n"
      "j: +-2\n");
  MapReader root = doc.reader();
  CHECK(root.number("a", 0, 1) == 0.5);
  CHECK(root.number("b", 0, 1e4) == 1e3);
  CHECK(root.number("c", 0, 4) == 2.0);
  CHECK(root.number("d", 0, 1) == 0.25);
  CHECK(doc.diagnostics.empty());
  for (const char* key : {"e", "f", "g", "h", "i", "j"}) root.number(key, -1e9, 1e9);
  REQUIRE(doc.diagnostics.size() == 6);
  for (const Diagnostic& d : doc.diagnostics.items()) {
    CHECK_THAT(d.message, Contains("expected a plain number"));
  }
}

TEST_CASE("wrong type: a mapping or sequence where a value is expected", "[yaml]") {
  Doc doc(
      "chip:\n"                 // line 1
      "  tdp:\n"                // line 2
      "    value: 700 W\n"      // line 3: the mapping given for tdp starts here
      "  name: [h200, b200]\n"  // line 4: a sequence, at column 9
      "  hbm: 6\n");            // line 5: a scalar where a mapping is expected
  MapReader chip = doc.reader().map("chip");
  chip.quantity<Power>("tdp");
  chip.string("name");
  MapReader hbm = chip.map("hbm");
  hbm.integer("stacks", 1, 16);  // not reported again: hbm itself is wrong
  chip.finish();
  REQUIRE(doc.diagnostics.size() == 3);
  const auto& items = doc.diagnostics.items();
  CHECK(items[0].where.line == 3);
  CHECK(items[0].where.column == 5);
  CHECK(items[0].key_path == "chip.tdp");
  CHECK(items[0].message == "expected a single value, found a mapping");
  CHECK(items[1].where.line == 4);
  CHECK(items[1].where.column == 9);
  CHECK(items[1].key_path == "chip.name");
  CHECK(items[1].message == "expected a single value, found a sequence");
  CHECK(items[2].where.line == 5);
  CHECK(items[2].where.column == 8);
  CHECK(items[2].key_path == "chip.hbm");
  CHECK(items[2].message == "expected a mapping of key: value pairs");
}

TEST_CASE("wrong type: text where a number is expected", "[yaml]") {
  Doc doc(
      "hbm:\n"
      "  stacks: six\n"
      "  utilisation: high\n");
  MapReader hbm = doc.reader().map("hbm");
  hbm.integer("stacks", 1, 16);
  hbm.number("utilisation", 0, 1);
  REQUIRE(doc.diagnostics.size() == 2);
  const auto& items = doc.diagnostics.items();
  CHECK(items[0].where.line == 2);
  CHECK(items[0].where.column == 11);
  CHECK(items[0].key_path == "hbm.stacks");
  CHECK(items[0].message == "expected a whole number, found \"six\"");
  CHECK(items[1].where.line == 3);
  CHECK(items[1].key_path == "hbm.utilisation");
  CHECK(items[1].message == "expected a plain number, found \"high\"");
}

TEST_CASE("invalid choice lists the options", "[yaml]") {
  Doc doc(
      "network:\n"
      "  topology: ring2\n");
  MapReader network = doc.reader().map("network");
  CHECK(network.choice("topology", {"ring", "mesh", "torus"}) == "ring");
  REQUIRE(doc.diagnostics.size() == 1);
  const Diagnostic& d = doc.diagnostics.items()[0];
  CHECK(d.where.line == 2);
  CHECK(d.where.column == 13);
  CHECK(d.key_path == "network.topology");
  CHECK(d.message == "\"ring2\" is not one of: ring, mesh, torus");
}

TEST_CASE("invalid boolean", "[yaml]") {
  Doc doc("sparse: maybe\n");
  MapReader root = doc.reader();
  CHECK(root.boolean_or("sparse", true));
  REQUIRE(doc.diagnostics.size() == 1);
  CHECK(doc.diagnostics.items()[0].message == "expected true or false, found \"maybe\"");
}

TEST_CASE("several errors are collected and thrown together", "[yaml]") {
  Doc doc(
      "chip:\n"                    // line 1
      "  name: h200\n"             // line 2
      "  tdp: 700 GB\n"            // line 3: wrong unit
      "  hbm:\n"                   // line 4
      "    stacks: 40\n"           // line 5: out of range
      "    bandwdith: 4.8 TB/s\n"  // line 6: unknown key (typo)
      "  topology: star\n");       // line 7: invalid choice
  MapReader root = doc.reader();
  MapReader chip = root.map("chip");
  chip.string("name");
  chip.quantity<Power>("tdp");
  MapReader hbm = chip.map("hbm");
  hbm.integer("stacks", 1, 16);
  hbm.quantity_or<Bandwidth>("bandwidth", terabytes_per_second(3.35));
  hbm.finish();
  chip.choice("topology", {"ring", "mesh"});
  chip.finish();
  root.finish();
  REQUIRE(doc.diagnostics.size() == 4);
  const auto& items = doc.diagnostics.items();
  CHECK(items[0].key_path == "chip.tdp");
  CHECK(items[0].where.line == 3);
  CHECK(items[1].key_path == "chip.hbm.stacks");
  CHECK(items[1].where.line == 5);
  CHECK(items[2].key_path == "chip.hbm.bandwdith");
  CHECK(items[2].where.line == 6);
  CHECK(items[2].where.column == 5);
  CHECK_THAT(items[2].message, Contains("did you mean 'bandwidth'?"));
  CHECK(items[3].key_path == "chip.topology");
  CHECK(items[3].where.line == 7);

  try {
    doc.diagnostics.throw_if_any();
    FAIL("throw_if_any did not throw");
  } catch (const InputError& e) {
    const std::string what = e.what();
    REQUIRE(e.diagnostics().size() == items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      CHECK_THAT(what, Contains(items[i].str()));
      CHECK(e.diagnostics()[i].str() == items[i].str());
    }
    CHECK_THAT(what, Contains("chip.yaml:3:8: chip.tdp:"));
    CHECK_THAT(what, Contains("chip.yaml:6:5: chip.hbm.bandwdith:"));
  }
}

TEST_CASE("nested maps give dotted paths", "[yaml]") {
  Doc doc(
      "system:\n"
      "  chip:\n"
      "    hbm:\n"
      "      phy:\n"
      "        lanes: zero\n");
  MapReader lanes_parent = doc.reader().map("system").map("chip").map("hbm").map("phy");
  CHECK(lanes_parent.path() == "system.chip.hbm.phy");
  lanes_parent.integer("lanes", 1, 1024);
  lanes_parent.error("", "custom problem with the section");
  lanes_parent.error("lanes", "custom problem with the key");
  REQUIRE(doc.diagnostics.size() == 3);
  const auto& items = doc.diagnostics.items();
  CHECK(items[0].key_path == "system.chip.hbm.phy.lanes");
  CHECK(items[0].where.line == 5);
  CHECK(items[0].where.column == 16);
  CHECK(items[1].key_path == "system.chip.hbm.phy");  // at the section itself
  CHECK(items[1].where.line == 5);
  CHECK(items[1].where.column == 9);
  CHECK(items[1].message == "custom problem with the section");
  CHECK(items[2].key_path == "system.chip.hbm.phy.lanes");
  CHECK(items[2].where.column == 16);
}

TEST_CASE("MapReader with a path prefix", "[yaml]") {
  Doc doc("stacks: 0\n");
  MapReader hbm(doc.root, kFile, "chip.hbm", doc.diagnostics);
  hbm.integer("stacks", 1, 16);
  REQUIRE(doc.diagnostics.size() == 1);
  CHECK(doc.diagnostics.items()[0].key_path == "chip.hbm.stacks");
}

TEST_CASE("defaults: the _or accessors do not produce errors", "[yaml]") {
  Doc doc(
      "given_tdp: 500 W\n"
      "given_count: 3\n"
      "empty_count:\n"
      "empty_ratio: ~\n"
      "empty_topology:\n"
      "empty_tdp:\n"
      "empty_name:\n"
      "empty_flag:\n"
      "empty_section:\n");
  MapReader root = doc.reader();
  CHECK(root.quantity_or<Power>("tdp", watts(700)).si() == 700.0);
  CHECK(root.quantity_or<Power>("given_tdp", watts(700)).si() == 500.0);
  CHECK(root.quantity_or<Power>("empty_tdp", watts(700)).si() == 700.0);
  CHECK(root.number_or("ratio", 0.5, 0, 1) == 0.5);
  CHECK(root.number_or("empty_ratio", 0.5, 0, 1) == 0.5);
  CHECK(root.integer_or("count", 4, 1, 8) == 4);
  CHECK(root.integer_or("given_count", 4, 1, 8) == 3);
  CHECK(root.integer_or("empty_count", 4, 1, 8) == 4);
  CHECK(root.string_or("name", "h200") == "h200");
  CHECK(root.string_or("empty_name", "h200") == "h200");
  CHECK(root.choice_or("topology", "mesh", {"ring", "mesh"}) == "mesh");
  CHECK(root.choice_or("empty_topology", "mesh", {"ring", "mesh"}) == "mesh");
  CHECK_FALSE(root.boolean_or("flag", false));
  CHECK(root.boolean_or("empty_flag", true));
  CHECK_FALSE(root.optional_map("section").has_value());
  CHECK_FALSE(root.optional_map("empty_section").has_value());
  root.finish();  // all keys were asked for
  CHECK(doc.diagnostics.empty());
}

TEST_CASE("the _or accessors still validate a given value", "[yaml]") {
  Doc doc(
      "count: 99\n"
      "topology: star\n"
      "tdp: 5 GHz\n");
  MapReader root = doc.reader();
  root.integer_or("count", 4, 1, 8);
  root.choice_or("topology", "mesh", {"ring", "mesh"});
  root.quantity_or<Power>("tdp", watts(700));
  CHECK(doc.diagnostics.size() == 3);
}

TEST_CASE("has() and location_of_key()", "[yaml]") {
  Doc doc(
      "name: h200\n"
      "tdp:   700 W\n");
  MapReader root = doc.reader();
  CHECK(root.has("name"));
  CHECK_FALSE(root.has("hbm"));
  CHECK(root.location().str() == "chip.yaml:1:1");
  CHECK(root.location_of_key("tdp").str() == "chip.yaml:2:8");     // where the value starts
  CHECK(root.location_of_key("absent").str() == "chip.yaml:1:1");  // falls back to the map
  CHECK_FALSE(root.has("name.first"));
}

TEST_CASE("a document that is not a mapping", "[yaml]") {
  SECTION("a scalar document is one error") {
    Doc doc("just text\n");
    MapReader root = doc.reader();
    root.string("name");
    CHECK(root.keys().empty());
    root.finish();
    REQUIRE(doc.diagnostics.size() == 1);
    CHECK(doc.diagnostics.items()[0].str() ==
          "chip.yaml:1:1: expected a mapping of key: value pairs");
  }
  SECTION("an empty document reports its missing fields against the whole file") {
    Doc doc("");
    MapReader root = doc.reader();
    root.string("name");
    REQUIRE(doc.diagnostics.size() == 1);
    CHECK(doc.diagnostics.items()[0].where.line == 0);
    CHECK(doc.diagnostics.items()[0].str() == "chip.yaml: name: missing required field 'name'");
  }
}

TEST_CASE("location_of converts 0-based marks to 1-based", "[yaml]") {
  const YAML::Node root = load_yaml_string("a:\n  b: 7\n", kFile);
  const SourceLocation where = location_of(root["a"]["b"], kFile);
  CHECK(where.file == kFile);
  CHECK(where.line == 2);
  CHECK(where.column == 6);
  // A node built in code has no mark: the location is the whole file.
  CHECK(location_of(YAML::Node(), kFile).str() == kFile);
}

TEST_CASE("closest_match", "[yaml]") {
  const std::vector<std::string> keys = {"bandwidth", "capacity", "stacks", "tdp"};
  CHECK(closest_match("bandwdith", keys) == "bandwidth");
  CHECK(closest_match("stack", keys) == "stacks");
  CHECK(closest_match("capacty", keys) == "capacity");
  CHECK(closest_match("tpd", keys) == "tdp");
  CHECK(closest_match("frequency", keys).empty());
  CHECK(closest_match("anything", {}).empty());
  CHECK(closest_match("tdp", keys) == "tdp");
  // Candidates are skipped by length difference only when they cannot be within the allowed
  // distance: four letters too many on a twelve-letter word (allowed 4) still match.
  CHECK(closest_match("capacityxxxx", keys) == "capacity");
  CHECK(closest_match("capacityxxxxx", keys).empty());
  CHECK(closest_match(std::string(100000, 'x'), keys).empty());
}

TEST_CASE("load_yaml_file", "[yaml]") {
  namespace fs = std::filesystem;
  SECTION("a missing file is an InputError naming the path") {
    const std::string path =
        (fs::temp_directory_path() / "scoville_no_such_dir" / "chip.yaml").string();
    try {
      load_yaml_file(path);
      FAIL("no InputError");
    } catch (const InputError& e) {
      REQUIRE(e.diagnostics().size() == 1);
      CHECK(e.diagnostics()[0].where.file == path);
      CHECK(e.diagnostics()[0].where.line == 0);
      CHECK_THAT(std::string(e.what()), Contains(path));
      CHECK_THAT(std::string(e.what()), Contains("cannot open file"));
    }
  }
  SECTION("an existing file is read, and its errors name it") {
    const fs::path path = fs::temp_directory_path() /
                          ("scoville_yaml_reader_test_" + std::to_string(::getpid()) + ".yaml");
    {
      std::ofstream out(path);
      out << "name: h200\n"
             "tdp: [1\n";
    }
    try {
      load_yaml_file(path.string());
      FAIL("no InputError");
    } catch (const InputError& e) {
      REQUIRE(e.diagnostics().size() == 1);
      CHECK(e.diagnostics()[0].where.file == path.string());
      CHECK(e.diagnostics()[0].where.line >= 2);
    }
    {
      std::ofstream out(path);
      out << "name: h200\n";
    }
    CHECK(load_yaml_file(path.string())["name"].Scalar() == "h200");
    fs::remove(path);
  }
}

TEST_CASE("string lists read flow and block sequences", "[yaml]") {
  Doc doc(
      "a: [h200, jalapeno]\n"
      "b:\n"
      "  - x\n"
      "  - y\n");
  MapReader r = doc.reader();
  CHECK(r.string_list("a") == std::vector<std::string>{"h200", "jalapeno"});
  CHECK(r.string_list("b") == std::vector<std::string>{"x", "y"});
  r.finish();
  CHECK(doc.diagnostics.empty());
}

TEST_CASE("string lists: a scalar, an empty list, a nested item and a missing key", "[yaml]") {
  Doc doc(
      "study:\n"
      "  a: h200\n"
      "  b: []\n"
      "  c: [x, {y: 1}]\n");
  MapReader study = doc.reader().map("study");
  CHECK(study.string_list("a").empty());
  CHECK(study.string_list("b").empty());
  CHECK(study.string_list("c") == std::vector<std::string>{"x"});
  CHECK(study.string_list("d").empty());
  study.finish();
  const auto& items = doc.diagnostics.items();
  REQUIRE(items.size() == 4);
  CHECK(items[0].key_path == "study.a");
  CHECK(items[0].where.line == 2);
  CHECK_THAT(items[0].message, Contains("expected a non-empty list"));
  CHECK(items[1].key_path == "study.b");
  CHECK(items[1].where.line == 3);
  CHECK(items[2].key_path == "study.c");
  CHECK(items[2].where.line == 4);
  CHECK_THAT(items[2].message, Contains("expected a name"));
  CHECK(items[3].key_path == "study.d");
  CHECK_THAT(items[3].message, Contains("missing required field 'd'"));
}
