// Every command's `--help` is generated from the options it parses: the test walks the command
// table and checks that each command's usage, as the executable prints it, names every option
// and positional argument the command declares, so the help cannot drift from the parser.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "sim/cli/command_table.hpp"
#include "sim/cli/usage_text.hpp"
#include "tests/e2e/test_support.hpp"

using scoville::test::run_scoville;

TEST_CASE("cli usage: every command's --help lists every option it declares", "[cli]") {
  REQUIRE(scoville::cli::command_table().size() >= 17);
  for (const scoville::cli::CommandEntry& entry : scoville::cli::command_table()) {
    const scoville::cli::OptionSet options = entry.options();
    INFO(entry.name);
    CHECK(options.command() == entry.name);
    CHECK_FALSE(options.synopses().empty());
    const auto help = run_scoville(std::string(entry.name) + " --help");
    CHECK(help.exit_code == 0);
    CHECK(help.output == "usage:\n" + scoville::cli::usage_text(options));
    for (const scoville::cli::OptionSpec& o : options.options()) {
      INFO(o.long_name);
      CHECK_FALSE(o.help.empty());
      // As the usage shows it: "-o, --output FILE.h5".
      std::string label = o.long_name;
      if (o.short_name != 0) label = std::string("-") + o.short_name + ", " + label;
      if (!o.value_name.empty()) label += " " + o.value_name;
      CHECK_THAT(help.output, Catch::Contains("\n      " + label));
    }
    for (const scoville::cli::PositionalSpec& p : options.positionals()) {
      CHECK_THAT(help.output, Catch::Contains("      " + p.name + " "));
    }
    CHECK_THAT(help.output, Catch::Contains("-h, --help"));
    std::istringstream lines(help.output);
    for (std::string line; std::getline(lines, line);) {
      INFO(line);
      CHECK(line.size() <= scoville::cli::kUsageWidth);
    }
  }
}

TEST_CASE("cli usage: scoville --help names every command with its synopsis", "[cli]") {
  const auto help = run_scoville("--help");
  REQUIRE(help.exit_code == 0);
  for (const scoville::cli::CommandEntry& entry : scoville::cli::command_table()) {
    INFO(entry.name);
    CHECK_THAT(help.output, Catch::Contains(scoville::cli::synopsis_text(entry.options())));
  }
  CHECK_THAT(help.output, Catch::Contains("'scoville COMMAND --help' lists a command's options"));
}

TEST_CASE("cli usage: a misspelt flag of any command is refused with a suggestion", "[cli]") {
  // `run --batch=16 --hlep`: the value form is read, the misspelt --help is suggested.
  const auto r = run_scoville("run --batch=16 --hlep");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown option '--hlep' for 'scoville run'; did you mean "
                                       "'--help'?"));
  CHECK_THAT(r.output, Catch::Contains("usage:\n  scoville run [options]"));
  const auto plan = run_scoville("plan --ttft-p98 1s");
  CHECK(plan.exit_code == 2);
  CHECK_THAT(plan.output, Catch::Contains("did you mean '--ttft-p99'?"));
  const auto serve = run_scoville("serve --max-request 4");
  CHECK(serve.exit_code == 2);
  CHECK_THAT(serve.output, Catch::Contains("did you mean '--max-requests'?"));
}
