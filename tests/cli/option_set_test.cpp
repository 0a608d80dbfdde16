// The option layer every command declares its options with (sim/cli/option_set.hpp): parsing on
// Boost.Program_options with our wording, and the usage text generated from the declarations.
#include <catch2/catch.hpp>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/cli/option_set.hpp"
#include "sim/cli/usage_text.hpp"

using scoville::cli::OptionSet;
using scoville::cli::ParsedOptions;
using scoville::cli::UsageError;

namespace {

// A command with one option of every kind, a short alias and positional words.
OptionSet demo() {
  OptionSet s("demo");
  s.synopsis("FILE... [options]", "a command to test the option layer with")
      .positional("FILE", "input files")
      .flag("--json", "print JSON")
      .text("--model", "NAME|FILE", "the model")
      .texts("--set", "KEY=VALUE", "change a key")
      .count("--batch", "N", "sequences per iteration")
      .count("-j,--jobs", "N", "points at once")
      .list("--chip", "NAME", "chips to run", true)
      .list("--trace-chips", "NAME[,NAME]", "chips to trace")
      .count_list("--concurrency", "N[,N...]", "clients", true)
      .text("-o,--output", "FILE.h5", "the results file")
      .note("A note on how the flags combine.");
  return s;
}

std::string usage_error(const OptionSet& s, const std::vector<std::string>& args) {
  try {
    s.parse(args);
  } catch (const UsageError& e) {
    return e.message;
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("option set: an unknown flag is refused with the nearest declared one", "[cli]") {
  CHECK(usage_error(demo(), {"--bacth", "4"}) ==
        "unknown option '--bacth' for 'scoville demo'; did you mean '--batch'?");
  CHECK(usage_error(demo(), {"--bacth=4"}) ==
        "unknown option '--bacth' for 'scoville demo'; did you mean '--batch'?");
  CHECK(usage_error(demo(), {"--hlep"}) ==
        "unknown option '--hlep' for 'scoville demo'; did you mean '--help'?");
  CHECK(usage_error(demo(), {"--frobnicate"}) ==
        "unknown option '--frobnicate' for 'scoville demo'");
  // No prefix guessing: an abbreviation is not taken for the flag it starts.
  CHECK(usage_error(demo(), {"--mod", "x"}) == "unknown option '--mod' for 'scoville demo'");
  // The first problem on the line is the one reported.
  CHECK(usage_error(demo(), {"--batch", "x", "--bacth", "4"}) ==
        "--batch expects a whole number >= 0, got 'x'");
}

TEST_CASE("option set: --flag=value, short aliases and values", "[cli]") {
  const ParsedOptions p = demo().parse(
      {"--batch=16", "--model=a=b", "-o", "out.h5", "-j2", "--json", "--trace-chips", "0,3"});
  CHECK(p.count("--batch") == 16);
  CHECK(p.text("--model") == "a=b");  // only the first '=' splits
  CHECK(p.text("--output") == "out.h5");
  CHECK(p.count("--jobs") == 2);
  CHECK(p.flag("--json"));
  CHECK(p.list("--trace-chips") == std::vector<std::string>{"0", "3"});
  CHECK(p.given("--batch"));
  CHECK_FALSE(p.given("--set"));
  CHECK_FALSE(p.text("--set").has_value());
  CHECK(p.text_or("--set", "none") == "none");
}

TEST_CASE("option set: missing and unwanted values", "[cli]") {
  CHECK(usage_error(demo(), {"--model"}) == "--model needs a value");
  CHECK(usage_error(demo(), {"--model="}) == "--model needs a value");
  CHECK(usage_error(demo(), {"--json", "-o"}) == "-o needs a value");
  CHECK(usage_error(demo(), {"--output"}) == "--output needs a value");
  CHECK(usage_error(demo(), {"--json=yes"}) == "--json takes no value");
  CHECK(usage_error(demo(), {"--chip", ",,"}) == "--chip needs at least one value");
}

TEST_CASE("option set: repeatable options accumulate, single-valued ones refuse a second use",
          "[cli]") {
  const ParsedOptions p =
      demo().parse({"--chip", "a,b", "--chip=c", "--set", "x=1,2", "--set", "y=3", "--concurrency",
                    "1,,2", "--concurrency=8", "--json", "--json"});
  CHECK(p.list("--chip") == std::vector<std::string>{"a", "b", "c"});
  CHECK(p.texts("--set") == std::vector<std::string>{"x=1,2", "y=3"});  // never split at commas
  CHECK(p.count_list("--concurrency") == std::vector<long long>{1, 2, 8});
  CHECK(p.flag("--json"));
  CHECK(usage_error(demo(), {"--model", "a", "--model", "b"}) ==
        "--model is given twice (it takes one value)");
  CHECK(usage_error(demo(), {"--trace-chips", "0", "--trace-chips", "1"}) ==
        "--trace-chips is given twice (it takes one value)");
}

TEST_CASE("option set: counts keep parse_count's wording, as typed", "[cli]") {
  CHECK(usage_error(demo(), {"--batch", "abc"}) ==
        "--batch expects a whole number >= 0, got 'abc'");
  CHECK(usage_error(demo(), {"--batch=-1"}) == "--batch expects a whole number >= 0, got '-1'");
  CHECK(usage_error(demo(), {"-j", "x"}) == "-j expects a whole number >= 0, got 'x'");
  CHECK(usage_error(demo(), {"--concurrency", "1,x"}) ==
        "--concurrency expects a whole number >= 0, got 'x'");
}

TEST_CASE("option set: positional words, in order, and none where none is declared", "[cli]") {
  const ParsedOptions p = demo().parse({"a.h5", "--json", "b.h5", "--", "--c.h5"});
  CHECK(p.positionals() == std::vector<std::string>{"a.h5", "b.h5", "--c.h5"});
  OptionSet none("plain");
  none.flag("--json", "print JSON");
  CHECK(usage_error(none, {"--json", "stray"}) ==
        "unexpected argument 'stray' for 'scoville plain'");
}

TEST_CASE("option set: reading what was not declared is a programming error", "[cli]") {
  const ParsedOptions p = demo().parse({});
  CHECK_THROWS_AS(p.text("--undeclared"), std::logic_error);
  CHECK_THROWS_AS(p.count("--model"), std::logic_error);  // declared as text
  CHECK_THROWS_AS(p.flag("--batch"), std::logic_error);
  OptionSet twice("twice");
  twice.flag("--json", "print JSON");
  CHECK_THROWS_AS(twice.text("--json", "X", "again"), std::logic_error);
  CHECK_THROWS_AS(twice.flag("-h,--hide", "clashes with -h"), std::logic_error);
  CHECK_THROWS_AS(twice.flag("json", "no dashes"), std::logic_error);
}

TEST_CASE("option set: the usage is generated from every declaration", "[cli]") {
  const OptionSet s = demo();
  const std::string text = scoville::cli::usage_text(s);
  INFO(text);
  CHECK_THAT(text, Catch::StartsWith("  scoville demo FILE... [options]   a command to test"));
  for (const std::string& name : s.long_names()) CHECK_THAT(text, Catch::Contains(name));
  for (const char* shown :
       {"-o, --output FILE.h5", "-j, --jobs N", "--batch N", "FILE   ", "--chip NAME ",
        "chips to run; repeatable", "-h, --help", "A note on how the flags combine."}) {
    CHECK_THAT(text, Catch::Contains(shown));
  }
  // An aligned help column, and lines wrapped at the usage width.
  CHECK_THAT(text, Catch::Contains("\n      --json                        print JSON\n"));
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(line.size() <= scoville::cli::kUsageWidth);
  }
}

TEST_CASE("usage text: a long help wraps into the help column", "[cli]") {
  const std::string words =
      "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
      "fifteen sixteen seventeen eighteen nineteen twenty";
  const std::string text =
      scoville::cli::aligned_entry(6, "--long-flag-name-that-is-wide X", words);
  INFO(text);
  // The label reaches the column: the help starts on the next line, at the column.
  CHECK_THAT(text, Catch::StartsWith("      --long-flag-name-that-is-wide X\n" +
                                     std::string(scoville::cli::kUsageHelpColumn, ' ') + "one "));
  // Every line after the label's starts at the column and stays within the width.
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  int continued = 0;
  for (; std::getline(lines, line); ++continued) {
    INFO(line);
    CHECK(line.size() <= scoville::cli::kUsageWidth);
    CHECK(line.find_first_not_of(' ') == scoville::cli::kUsageHelpColumn);
  }
  CHECK(continued >= 2);
}
