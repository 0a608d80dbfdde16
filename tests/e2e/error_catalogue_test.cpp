// The catalogue of bad input (docs/errors.md), run as a user runs the CLI: every class gives exit
// 2 (input) or 3 (output), one message that names the file, the position or key, and what to do.
// Positions are derived from the edited file, not written down.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

// Before test_support.hpp: <sys/wait.h> defines a si_value macro that units.hpp would meet.
#include "sim/base/error.hpp"
#include "workloads/requests/request_trace_reader.hpp"

#include "tests/e2e/test_support.hpp"

using scoville::test::read_file;
using scoville::test::run_scoville;
using scoville::test::source_dir;
using scoville::test::TempDir;

namespace fs = std::filesystem;

namespace {

constexpr int kExitInput = 2;
constexpr int kExitOutput = 3;

// A shipped file with `from` replaced by `to`; `anchor` (a part of `to`) is where the parser is
// expected to point, as "line:col" (1-based).
struct Edited {
  std::string text;
  std::string position;
};

Edited edit(const std::string& shipped, const std::string& from, const std::string& to,
            const std::string& anchor) {
  std::string text = read_file(source_dir() + "/" + shipped);
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);  // the edit is unambiguous
  text.replace(at, from.size(), to);
  const size_t target = at + to.find(anchor);
  const size_t line_start = text.rfind('\n', target - 1);
  const size_t line =
      1 + static_cast<size_t>(std::count(text.begin(), text.begin() + target, '\n'));
  const size_t column = target - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
  return {text, std::to_string(line) + ":" + std::to_string(column)};
}

const char* const kChip = "arch/chips/h200.yaml";
const char* const kModel = "workloads/models/llama-3.1-8b.yaml";

// Checks the parts every input error message has.
void check_input_error(const scoville::test::CommandResult& r, const std::string& where,
                       const std::string& key, const std::string& advice) {
  INFO(r.output);
  CHECK(r.exit_code == kExitInput);
  CHECK_THAT(r.output, Catch::StartsWith("error: "));
  CHECK_THAT(r.output, Catch::Contains(where));
  if (!key.empty()) CHECK_THAT(r.output, Catch::Contains(key));
  CHECK_THAT(r.output, Catch::Contains(advice));
}

}  // namespace

TEST_CASE("errors: YAML syntax names file, line and column", "[errors]") {
  TempDir dir("err-syntax");
  const Edited e = edit(kChip, "    count: 132", "    count: [132", "[");
  const std::string file = dir.write("chip.yaml", e.text);
  // yaml-cpp reports an unclosed flow sequence where it gave up, so only the file and "line:" are
  // fixed; the message says what is wrong.
  check_input_error(run_scoville("config check " + file), file + ":", "", "YAML syntax error");
}

TEST_CASE("errors: an unknown key is named with its position and a suggestion", "[errors]") {
  TempDir dir("err-unknown");
  const Edited e = edit(kChip, "  tiles:", "  tilez:", "tilez");
  const std::string file = dir.write("chip.yaml", e.text);
  check_input_error(run_scoville("config check " + file), file + ":" + e.position, "chip.tilez",
                    "unknown key 'tilez'; did you mean 'tiles'?");
}

TEST_CASE("errors: a value of the wrong type says what was expected", "[errors]") {
  TempDir dir("err-type");
  const Edited e = edit(kChip, "    count: 132", "    count: many", "many");
  const std::string file = dir.write("chip.yaml", e.text);
  check_input_error(run_scoville("config check " + file), file + ":" + e.position,
                    "chip.tiles.count", "expected a whole number, found \"many\"");
}

TEST_CASE("errors: a value in the wrong unit names both dimensions", "[errors]") {
  TempDir dir("err-unit");
  const Edited e = edit(kChip, "    clock: 1.83 GHz", "    clock: 1.83 GB", "1.83 GB");
  const std::string file = dir.write("chip.yaml", e.text);
  check_input_error(run_scoville("config check " + file), file + ":" + e.position,
                    "chip.tiles.clock", "but expected a frequency (e.g. \"1.98 GHz\")");
}

TEST_CASE("errors: an out-of-range value gives the allowed range", "[errors]") {
  TempDir dir("err-range");
  const Edited e = edit(kChip, "    count: 132", "    count: 0", "0");
  const std::string file = dir.write("chip.yaml", e.text);
  check_input_error(run_scoville("config check " + file), file + ":" + e.position,
                    "chip.tiles.count", "value 0 is out of range: expected 1 to");
}

TEST_CASE("errors: inconsistent values name the field to change", "[errors]") {
  TempDir dir("err-inconsistent");
  const Edited e = edit(kModel, "  kv_heads: 8", "  kv_heads: 5", "5");
  const std::string file = dir.write("model.yaml", e.text);
  check_input_error(run_scoville("config check " + file), file + ":" + e.position,
                    "attention.kv_heads", "does not divide heads 32: expected a divisor of heads");
}

TEST_CASE("errors: an empty required value is reported missing", "[errors]") {
  TempDir dir("err-empty");
  const Edited e = edit(kModel, "  kv_heads: 8", "  kv_heads:", "kv_heads");
  const std::string file = dir.write("model.yaml", e.text);
  check_input_error(run_scoville("config check " + file), file + ":", "attention.kv_heads",
                    "missing required field");
}

TEST_CASE("errors: a missing file is named", "[errors]") {
  TempDir dir("err-missing");
  const std::string file = dir.file("no-such-study.yaml");
  check_input_error(run_scoville("run --study " + file), file, "",
                    "cannot open file (does it exist and is it readable?)");
}

TEST_CASE("errors: a directory given as a file is named", "[errors]") {
  TempDir dir("err-directory");
  const std::string folder = dir.file("study.yaml");
  fs::create_directories(folder);
  check_input_error(run_scoville("config check " + folder), folder, "",
                    "is a directory, not a file");
}

TEST_CASE("errors: an unreadable file is named", "[errors]") {
  // Permission bits do not stop root; there the directory case above stands for unreadable.
  if (::geteuid() == 0) {
    WARN("running as root: file permissions cannot make a file unreadable; skipped");
    return;
  }
  TempDir dir("err-unreadable");
  const std::string file = dir.write("chip.yaml", read_file(source_dir() + "/" + kChip));
  fs::permissions(file, fs::perms::none);
  check_input_error(run_scoville("config check " + file), file, "", "cannot open file");
}

TEST_CASE("errors: a model that does not fit says what to reduce", "[errors]") {
  TempDir dir("err-fit");
  // gpt-oss-120b's KV cache for 4096 x 9K tokens is far beyond one H200's 141 GB.
  const std::string study = dir.write("study.yaml",
                                      "study:\n  model: gpt-oss-120b\n  chips: [h200]\n"
                                      "  batch: 4096\n  isl: 8192\n  osl: 1024\n");
  check_input_error(run_scoville("run --study " + study), source_dir() + "/" + kChip,
                    "chip.hbm.capacity", "reduce --batch, --isl or --osl");
}

TEST_CASE("errors: an unknown chip or model name lists the known ones", "[errors]") {
  check_input_error(run_scoville("run --chip h300"), "arch/chips/h300.yaml", "",
                    "no chip 'h300' (file not found); known chips: b200, b300, gb200, gb300, "
                    "h100, h200, jalapeno, mi300x, mi325x, mi350x, mi355x");
  check_input_error(run_scoville("run --model llama-9"), "workloads/models/llama-9.yaml", "",
                    "no model 'llama-9' (file not found); known models: ");
}

TEST_CASE("errors: an out-of-range command-line value gives the range", "[errors]") {
  check_input_error(run_scoville("run --batch 0"), "<command line>", "--batch",
                    "expected 1 to 65536, got 0");
}

TEST_CASE("errors: an unknown option shows the command's usage", "[errors]") {
  const auto r = run_scoville("run --bacth 4");
  INFO(r.output);
  CHECK(r.exit_code == kExitInput);
  CHECK_THAT(r.output, Catch::Contains("unknown option '--bacth' for 'scoville run'"));
  CHECK_THAT(r.output, Catch::Contains("--batch N"));
}

TEST_CASE("errors: a missing output folder is an output error", "[errors]") {
  TempDir dir("err-outdir");
  const std::string out = dir.file("missing/run.h5");
  const auto r = run_scoville("run --batch 1 --isl 16 --osl 1 -o " + out);
  INFO(r.output);
  CHECK(r.exit_code == kExitOutput);
  CHECK_THAT(r.output, Catch::Contains("cannot write '" + out + "'"));
  CHECK_THAT(r.output, Catch::Contains("create the folder first or choose another place with -o"));
}

TEST_CASE("errors: a full disk keeps the previous results and leaves no temporary", "[errors]") {
  TempDir dir("err-full");
  const std::string out = dir.write("run.h5", "previous results");
  // RLIMIT_FSIZE stands for a full disk: writes past the limit fail with EFBIG. SIGXFSZ is
  // ignored in the shell, and an ignored signal stays ignored across exec. dash counts ulimit -f
  // in 512-byte blocks: 16 blocks hold far less than a results file.
  const std::string command = "sh -c \"trap '' XFSZ; ulimit -f 16; exec " +
                              scoville::test::scoville_binary() +
                              " run --batch 1 --isl 16 --osl 1 -o " + out + "\" 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  const int status = pclose(pipe);
  INFO(output);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == kExitOutput);
  CHECK_THAT(output, Catch::Contains("cannot write '" + out + "': File too large"));
  CHECK_THAT(output, Catch::Contains("free space"));
  CHECK(read_file(out) == "previous results");
  for (const fs::directory_entry& entry : fs::directory_iterator(fs::path(out).parent_path())) {
    CHECK(entry.path().filename() == "run.h5");
  }
}

// The parsers added after the first catalogue: systems, mappings, traces, sweeps, request CSVs.

TEST_CASE("errors: a bad system file names the key and the inconsistency", "[errors]") {
  TempDir dir("err-system");
  const Edited e = edit("arch/systems/jalapeno-128.yaml", "dims: [8, 16]", "dims: [8, 15]", "[");
  const std::string file = dir.write("system.yaml", e.text);
  check_input_error(run_scoville("config check " + file), file + ":" + e.position,
                    "system.network.local.dims",
                    "the extents multiply to 120 chips, but the domain has 128");
}

TEST_CASE("errors: an impossible mapping names the pool, the degree and the reason", "[errors]") {
  TempDir dir("err-mapping");
  const std::string file = dir.write("m.yaml", "mapping:\n  decode: {chips: 3, tp: 3}\n");
  check_input_error(
      run_scoville("trace --model llama-3.1-8b --phase decode --batch 2 --context 64 --mapping " +
                   file),
      file + ":2:11", "mapping.decode.tp", "tp 3 does not divide the 32 attention heads");
}

TEST_CASE("errors: a truncated native trace names where it ends", "[errors]") {
  TempDir dir("err-native-trace");
  const std::string text =
      read_file(source_dir() + "/workloads/traces/tiny-pipeline.stage1.trace.yaml");
  const std::string file = dir.write("cut.trace.yaml", text.substr(0, text.find("  - id: 4")));
  check_input_error(run_scoville("run --chip h200 --trace-file " + file), file + ":", "nodes",
                    "the file is truncated or corrupt");
}

TEST_CASE("errors: a corrupt native trace names the field and the expected unit", "[errors]") {
  TempDir dir("err-native-unit");
  const Edited e =
      edit("workloads/traces/tiny-pipeline.stage1.trace.yaml", "instances: 8, flops: 2097152 FLOP",
           "instances: 8, flops: 2097152 GB", "2097152 GB");
  const std::string file = dir.write("t.trace.yaml", e.text);
  check_input_error(run_scoville("run --chip h200 --trace-file " + file), file + ":" + e.position,
                    "compute.flops", "but expected an operation count");
}

TEST_CASE("errors: a truncated or corrupt Chakra file names the record and its byte", "[errors]") {
  TempDir dir("err-chakra");
  REQUIRE(run_scoville("trace --model llama-3.1-8b --phase decode --batch 2 --context 64 --tp 2 "
                       "--format chakra -o " +
                       dir.file("et"))
              .exit_code == 0);
  const std::string whole = read_file(dir.file("et") + "/decode.0.et");
  const std::string cut = dir.write("cut.0.et", whole.substr(0, whole.size() / 2));
  check_input_error(run_scoville("run --chip h200 --trace-file " + cut), cut, "node[",
                    "the file is truncated or corrupt: export it again");
  CHECK_THAT(run_scoville("run --chip h200 --trace-file " + cut).output,
             Catch::Contains("runs past the end of the file"));
  const std::string text = dir.write("text.et", "this is not a Chakra trace\n");
  check_input_error(run_scoville("run --chip h200 --trace-file " + text), text + ": metadata",
                    "record at byte 0", "the file is truncated or corrupt");
}

TEST_CASE("errors: a bad sweep axis names the axis and the allowed values", "[errors]") {
  TempDir dir("err-sweep");
  const Edited e = edit("workloads/sweeps/batch-by-chip.yaml", "factor: 4", "factor: 1", "1");
  const std::string file = dir.write("sweep.yaml", e.text);
  check_input_error(run_scoville("sweep " + file + " -o " + dir.file("out")),
                    file + ":" + e.position, "sweep.axes[1].range.factor", "expected a factor > 1");
  const Edited zip =
      edit("workloads/sweeps/batch-by-chip.yaml", "combine: cartesian", "combine: zip", "zip");
  const std::string zipped = dir.write("zip.yaml", zip.text);
  check_input_error(run_scoville("sweep " + zipped + " -o " + dir.file("out")), zipped + ":",
                    "sweep.axes", "combine: zip needs axes of equal length");
}

// No command reads request CSVs yet (the serving scenario reader comes later): the reader is
// called as that command will call it, on a file.
TEST_CASE("errors: a bad request CSV names the line, the column and what was expected",
          "[errors]") {
  TempDir dir("err-requests");
  const std::string file =
      dir.write("reqs.csv", "arrival_s,input_tokens,output_tokens\n0.0,128,16\n0.5,many,16\n");
  try {
    scoville::workloads::read_request_trace(file);
    FAIL("a bad request CSV was accepted");
  } catch (const scoville::InputError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("error: " + file + ":3:5: input_tokens"));
    CHECK_THAT(e.what(), Catch::Contains("expected an integer number of tokens in [1, "));
    CHECK_THAT(e.what(), Catch::Contains("found 'many'"));
  }
}

TEST_CASE("errors: a calibration overlay that inherits in a cycle or overrides its own knobs",
          "[errors]") {
  TempDir dir("err-overlay");
  const std::string a =
      dir.write("loop-a.calibration.yaml", "calibration:\n  system: loop-a\n  inherits: loop-b\n");
  const std::string b =
      dir.write("loop-b.calibration.yaml", "calibration:\n  system: loop-b\n  inherits: loop-a\n");
  check_input_error(run_scoville("config check " + a), b, "calibration.inherits",
                    "inherits in a cycle");
  const std::string own =
      dir.write("own.calibration.yaml",
                "calibration:\n  system: own\n  knobs:\n    per_op_overhead: 1 us\n  overrides:\n"
                "    per_op_overhead: 2 us\n");
  check_input_error(run_scoville("config check " + own), own + ":6:5", "calibration.overrides",
                    "only an overlay that inherits knobs");
}
