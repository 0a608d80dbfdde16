// Located errors: SourceLocation and Diagnostic formatting, InputError, Diagnostics.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/base/error.hpp"

using namespace scoville;

TEST_CASE("SourceLocation::str", "[error]") {
  CHECK(SourceLocation{"chip.yaml", 3, 7}.str() == "chip.yaml:3:7");
  CHECK(SourceLocation{"chip.yaml", 3, 0}.str() == "chip.yaml:3");  // no column
  CHECK(SourceLocation{"chip.yaml", 0, 0}.str() == "chip.yaml");    // the whole file
  CHECK(SourceLocation{"chip.yaml", 0, 5}.str() == "chip.yaml");    // a column needs a line
  CHECK(SourceLocation{"chip.yaml", -1, -1}.str() == "chip.yaml");
  CHECK(SourceLocation{}.str().empty());
  CHECK(SourceLocation{}.line == 0);
  CHECK(SourceLocation{}.column == 0);
}

TEST_CASE("Diagnostic::str", "[error]") {
  const Diagnostic full{{"chip.yaml", 4, 5}, "chip.hbm.stacks", "missing required field 'stacks'"};
  CHECK(full.str() == "chip.yaml:4:5: chip.hbm.stacks: missing required field 'stacks'");
  const Diagnostic no_key{{"chip.yaml", 2, 4}, "", "YAML syntax error: illegal map value"};
  CHECK(no_key.str() == "chip.yaml:2:4: YAML syntax error: illegal map value");
  const Diagnostic whole_file{{"trace.et", 0, 0}, "", "corrupt trace"};
  CHECK(whole_file.str() == "trace.et: corrupt trace");
  const Diagnostic no_file{{}, "mapping.tp", "does not divide 8 chips"};
  CHECK(no_file.str() == "mapping.tp: does not divide 8 chips");
  const Diagnostic bare{{}, "", "something"};
  CHECK(bare.str() == "something");
}

TEST_CASE("InputError from one location", "[error]") {
  const InputError e(SourceLocation{"chip.yaml", 1, 2}, "tdp", "bad");
  REQUIRE(e.diagnostics().size() == 1);
  CHECK(e.diagnostics()[0].where.file == "chip.yaml");
  CHECK(e.diagnostics()[0].key_path == "tdp");
  CHECK(e.diagnostics()[0].message == "bad");
  CHECK(std::string(e.what()) == "error: chip.yaml:1:2: tdp: bad");
}

TEST_CASE("InputError from several diagnostics: one line each, in order", "[error]") {
  const std::vector<Diagnostic> items = {
      {{"chip.yaml", 3, 8}, "chip.tdp", "first"},
      {{"chip.yaml", 5, 13}, "chip.hbm.stacks", "second"},
      {{"run.yaml", 0, 0}, "", "third"},
  };
  const InputError e(items);
  CHECK(e.diagnostics().size() == items.size());
  CHECK(std::string(e.what()) ==
        "error: chip.yaml:3:8: chip.tdp: first\n"
        "error: chip.yaml:5:13: chip.hbm.stacks: second\n"
        "error: run.yaml: third");
}

TEST_CASE("error class hierarchy", "[error]") {
  CHECK_THROWS_AS(throw InputError({}, "", "x"), ScovilleError);
  CHECK_THROWS_AS(throw InputError({}, "", "x"), std::runtime_error);
  CHECK_THROWS_AS(throw OutputError("disk full"), ScovilleError);
  CHECK_THROWS_WITH(throw OutputError("disk full"), "disk full");
}

TEST_CASE("Diagnostics collects and throws everything at once", "[error]") {
  Diagnostics diagnostics;
  CHECK(diagnostics.empty());
  CHECK(diagnostics.size() == 0);
  CHECK_NOTHROW(diagnostics.throw_if_any());

  diagnostics.error({"chip.yaml", 2, 3}, "chip.name", "first");
  diagnostics.error({"chip.yaml", 9, 1}, "chip.tdp", "second");
  CHECK_FALSE(diagnostics.empty());
  REQUIRE(diagnostics.size() == 2);
  CHECK(diagnostics.items()[0].key_path == "chip.name");
  CHECK(diagnostics.items()[1].where.line == 9);

  try {
    diagnostics.throw_if_any();
    FAIL("throw_if_any did not throw");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 2);
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("chip.yaml:2:3: chip.name: first"));
    CHECK_THAT(what, Catch::Contains("chip.yaml:9:1: chip.tdp: second"));
  }
  // Throwing does not clear what was collected.
  CHECK(diagnostics.size() == 2);
}
