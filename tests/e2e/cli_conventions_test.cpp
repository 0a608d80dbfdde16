// Command-line conventions every subcommand shares: --help, --flag=value, and "did you mean"
// suggestions for misspelt commands and flags.
#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <string>

#include "sim/cli/suggest.hpp"
#include "tests/e2e/test_support.hpp"

using scoville::test::run_scoville;

namespace {
// A roofline sweep of two points on one chip: a fraction of a second.
const std::string kSmallSweep =
    "inferencex --fidelity roofline --system h200 --chips 1 --model llama-3.1-8b --isl 256 "
    "--osl 8 --concurrency 1,2 --quiet";
}  // namespace

TEST_CASE("cli: every subcommand answers --help and -h with its usage and exit 0", "[cli]") {
  const auto help = run_scoville("--help");
  REQUIRE(help.exit_code == 0);
  // Commands as the overall usage lists them ("  scoville NAME ...").
  std::set<std::string> commands;
  const std::regex line(R"(^  scoville ([a-z][a-z-]*))");
  size_t start = 0;
  while (start < help.output.size()) {
    const size_t end = help.output.find('\n', start);
    const std::string text = help.output.substr(start, end - start);
    std::smatch m;
    if (std::regex_search(text, m, line)) commands.insert(m[1]);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  REQUIRE(commands.size() >= 12);
  for (const std::string& command : commands) {
    INFO(command);
    for (const char* flag : {"--help", "-h"}) {
      const auto r = run_scoville(command + " " + flag);
      CHECK(r.exit_code == 0);
      CHECK_THAT(r.output, Catch::Contains("scoville " + command));
    }
  }
  // After other arguments too, and never running the command.
  const auto late = run_scoville("run --chip h200 --batch 4096 --help");
  CHECK(late.exit_code == 0);
  CHECK_THAT(late.output, Catch::Contains("scoville run"));
}

TEST_CASE("cli: --flag=value reads as --flag value", "[cli]") {
  const auto spaced = run_scoville(kSmallSweep);
  const std::string joined_args =
      "inferencex --fidelity=roofline --system=h200 --chips=1 --model=llama-3.1-8b --isl=256 "
      "--osl=8 --concurrency=1,2 --quiet";
  const auto joined = run_scoville(joined_args);
  INFO(joined.output);
  REQUIRE(spaced.exit_code == 0);
  CHECK(joined.exit_code == 0);
  CHECK(joined.output == spaced.output);
  // A bad value after '=' is the same usage error as after a space.
  const auto bad = run_scoville("run --batch=abc");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--batch expects a whole number"));
}

TEST_CASE("cli: a misspelt command or flag gets the nearest real one suggested", "[cli]") {
  const auto command = run_scoville("infrencex");
  CHECK(command.exit_code == 2);
  CHECK_THAT(command.output, Catch::Contains("did you mean 'inferencex'?"));
  const auto flag = run_scoville("inferencex --sytem h200");
  CHECK(flag.exit_code == 2);
  CHECK_THAT(flag.output, Catch::Contains("did you mean '--system'?"));
  const auto swapped = run_scoville("run --btach 4");
  CHECK(swapped.exit_code == 2);
  CHECK_THAT(swapped.output, Catch::Contains("did you mean '--batch'?"));
  // Nothing close: no guess.
  const auto far = run_scoville("run --frobnicate");
  CHECK(far.exit_code == 2);
  CHECK_THAT(far.output, !Catch::Contains("did you mean"));
}

TEST_CASE("suggest: edit distance and the nearest candidate", "[cli]") {
  using scoville::cli::edit_distance;
  using scoville::cli::nearest;
  CHECK(edit_distance("batch", "batch") == 0);
  CHECK(edit_distance("btach", "batch") == 1);  // a swap is one step
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
  const std::vector<std::string> flags = {"--tp", "--ep", "--batch", "--isl", "--osl"};
  CHECK(nearest("--bach", flags) == std::optional<std::string>("--batch"));
  CHECK(nearest("--tpp", flags) == std::optional<std::string>("--tp"));
  CHECK_FALSE(nearest("--zzzzzz", flags).has_value());
  CHECK_FALSE(nearest("--tp", flags).has_value());  // a known word needs no guess
}

TEST_CASE("cli list: every registry's names, and an unknown kind refused", "[cli]") {
  const auto policies = run_scoville("list batching-policies");
  REQUIRE(policies.exit_code == 0);
  CHECK(policies.output == "fcfs\nprefill-first\n");
  const auto all = run_scoville("list");
  REQUIRE(all.exit_code == 0);
  CHECK(all.output.find("fidelities: cycle op-table roofline\n") != std::string::npos);
  CHECK(all.output.find("kv-placements: ") != std::string::npos);
  CHECK(all.output.find("all_reduce (ring") != std::string::npos);
  CHECK(all.output.find("chips: ") != std::string::npos);
  const auto bad = run_scoville("list policys");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("unknown KIND 'policys'") != std::string::npos);
  // A scheduling policy named on the command line is checked against the same registry.
  const auto flag = run_scoville(kSmallSweep + " --scheduler-policy lifo");
  CHECK(flag.exit_code == 2);
  CHECK(flag.output.find("expected fcfs or prefill-first, found 'lifo'") != std::string::npos);
  const auto ok = run_scoville(kSmallSweep + " --scheduler-policy prefill-first");
  CHECK(ok.exit_code == 0);
}

TEST_CASE("inferencex --draft-model: the draft's passes cost time the MTP heads do not",
          "[cli][speculation]") {
  const std::string base =
      "inferencex --fidelity roofline --system h200-hgx8 --chips 8 --tp 8 --model llama-3.1-70b "
      "--isl 1024 --osl 256 --concurrency 1 --quiet --json";
  auto intvty = [](const std::string& json) {
    const size_t at = json.find("\"intvty\": ");
    REQUIRE(at != std::string::npos);
    return std::stod(json.substr(at + 10));
  };
  const auto none = run_scoville(base);
  const auto mtp = run_scoville(base + " --mtp-depth 3 --mtp-acceptance 0.7");
  const auto draft =
      run_scoville(base + " --mtp-depth 3 --mtp-acceptance 0.7 --draft-model llama-3.1-8b");
  REQUIRE(none.exit_code == 0);
  REQUIRE(mtp.exit_code == 0);
  REQUIRE(draft.exit_code == 0);
  // Speculation helps a single user; a draft model's passes take part of the gain back.
  CHECK(intvty(draft.output) > intvty(none.output));
  CHECK(intvty(draft.output) < intvty(mtp.output));
  const auto refused = run_scoville(base + " --draft-model llama-3.1-8b");
  CHECK(refused.exit_code == 2);
  CHECK(refused.output.find("--draft-model needs --mtp-depth") != std::string::npos);
}
