// `scoville calibrate` and `scoville validate` with and without a calibration overlay, at the op
// table (the default) and the roofline, on a tiny measurements file, in a private copy of the
// data directory (overlays are written beside the system files, which the source tree's must not
// get from a test).
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/e2e/test_support.hpp"

using namespace scoville::test;
namespace fs = std::filesystem;

namespace {

// Two H200 rows of one replica each: by Little's law concurrency x 0.9 x (isl + osl) / E2E /
// throughput is 1 chip (E2E = TTFT + (0.9 x osl - 1) x TPOT).
const char* kCsv =
    "id,source,system,chips,model,precision,framework,isl,osl,concurrency,throughput_metric,"
    "throughput,interactivity_tok_s_user,ttft_ms,tpot_ms,e2e_s,notes\n"
    "1,test,NVIDIA H200 (8-GPU),,gpt-oss-120b,FP4(MXFP4),x,256,32,2,total_tok_s_per_chip,"
    "1000,59.3,50,16.85,,synthetic\n"
    "2,test,NVIDIA H200 (8-GPU),,gpt-oss-120b,FP4(MXFP4),x,256,32,4,total_tok_s_per_chip,"
    "1500,44,60,22.7,,synthetic\n"
    "3,test,AWS Trainium2 (16-chip),,gpt-oss-120b,FP4(MXFP4),x,256,32,4,total_tok_s_per_chip,"
    "1500,44,60,22.7,,out of scope\n";

struct DataCopy {
  TempDir dir{"calibrate-cli"};
  std::string env;
  DataCopy() {
    for (const char* sub : {"arch", "workloads/models"}) {
      fs::create_directories(fs::path(dir.file(sub)).parent_path());
      fs::copy(source_dir() + "/" + sub, dir.file(sub), fs::copy_options::recursive);
    }
    for (const auto& e : fs::directory_iterator(dir.file("arch/systems"))) {
      if (e.path().string().find(".calibration.yaml") != std::string::npos) fs::remove(e.path());
    }
    env = "SCOVILLE_DATA_DIR=" + dir.file("");
  }
};

}  // namespace

TEST_CASE("calibrate writes an overlay that validate applies and --no-calibration ignores",
          "[cli][calibration]") {
  DataCopy data;
  const std::string csv = data.dir.write("m.csv", kCsv);
  // The default fidelity: the op table, whose overlay sits beside the roofline's.
  const CommandResult fit =
      run_scoville("calibrate --measurements " + csv +
                       " --system h200-hgx8 --rows all --knobs per_iteration_overhead --sweeps 1"
                       " --prompts-per-client 1 --update-shipped",
                   data.env);
  INFO(fit.output);
  REQUIRE(fit.exit_code == 0);
  CHECK(fit.output.find("op table: ") != std::string::npos);
  const std::string overlay = data.dir.file("arch/systems/h200-hgx8.op-table.calibration.yaml");
  REQUIRE(fs::exists(overlay));
  CHECK_FALSE(fs::exists(data.dir.file("arch/systems/h200-hgx8.calibration.yaml")));
  const std::string text = read_file(overlay);
  CHECK(text.find("fidelity: op-table") != std::string::npos);
  CHECK(text.find("rows: [\"1\", \"2\"]") != std::string::npos);
  CHECK(text.find("per_iteration_overhead") != std::string::npos);
  CHECK(text.find("scoville calibrate --measurements") != std::string::npos);
  // The CSV lies under the data root: recorded relative to it, naming no machine's folder.
  CHECK(text.find("measurements: \"m.csv\"") != std::string::npos);
  // The shipped TensorRT-LLM stack calibration would replace these overheads: calibrate says so.
  CHECK(fit.output.find("# note: ") != std::string::npos);
  CHECK(fit.output.find("tensorrt-llm.op-table.calibration.yaml") != std::string::npos);
  // Without it, validate applies this overlay alone.
  fs::remove(data.dir.file("arch/software/tensorrt-llm.op-table.calibration.yaml"));

  const CommandResult with =
      run_scoville("validate --measurements " + csv + " --json --prompts-per-client 1", data.env);
  INFO(with.output);
  REQUIRE(with.exit_code == 0);
  CHECK(with.output.find("\"fidelity\": \"op-table\"") != std::string::npos);
  CHECK(with.output.find("\"calibration\": \"h200-hgx8.op-table.calibration.yaml\"") !=
        std::string::npos);
  CHECK(with.output.find("\"set\": \"fit\"") != std::string::npos);
  CHECK(with.output.find("\"skipped\": \"system not named by any alias") != std::string::npos);
  const CommandResult without = run_scoville(
      "validate --measurements " + csv + " --json --prompts-per-client 1 --no-calibration",
      data.env);
  REQUIRE(without.exit_code == 0);
  CHECK(without.output.find("\"calibration\": false") != std::string::npos);
  CHECK(without.output.find("h200-hgx8.op-table.calibration.yaml") == std::string::npos);
  CHECK(without.output != with.output);
  // The roofline does not take the op table's knobs; it has none here.
  const CommandResult roofline = run_scoville(
      "validate --fidelity roofline --measurements " + csv + " --json --prompts-per-client 1",
      data.env);
  REQUIRE(roofline.exit_code == 0);
  CHECK(roofline.output.find("op-table.calibration.yaml") == std::string::npos);

  // The roofline's own overlay, fitted at it, goes to its own file.
  const CommandResult roofline_fit =
      run_scoville("calibrate --fidelity roofline --measurements " + csv +
                       " --system h200-hgx8 --rows all --knobs per_iteration_overhead --sweeps 1"
                       " --prompts-per-client 1 --update-shipped",
                   data.env);
  REQUIRE(roofline_fit.exit_code == 0);
  const std::string roofline_overlay =
      read_file(data.dir.file("arch/systems/h200-hgx8.calibration.yaml"));
  CHECK(roofline_overlay.find("fidelity: roofline") != std::string::npos);

  // A broken overlay stops validate with the file named, exit code 2.
  data.dir.write("arch/systems/h200-hgx8.op-table.calibration.yaml",
                 "calibration:\n  system: h200-hgx8\n  fidelity: op-table\n  knobs:\n"
                 "    per_op_overhead: fast\n");
  const CommandResult bad =
      run_scoville("validate --measurements " + csv + " --prompts-per-client 1", data.env);
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("h200-hgx8.op-table.calibration.yaml:5") != std::string::npos);
}

TEST_CASE("calibrate writes to an output folder unless asked to update the shipped files",
          "[cli][calibration]") {
  DataCopy data;
  const std::string csv = data.dir.write("m.csv", kCsv);
  const std::string fit_args =
      " --system h200-hgx8 --rows all --knobs per_iteration_overhead"
      " --sweeps 1 --prompts-per-client 1 --fidelity roofline --quiet";
  const std::string shipped = data.dir.file("arch/systems/h200-hgx8.calibration.yaml");
  // By default: calibration/ under the working directory, the shipped overlay untouched.
  const CommandResult by_default = run_scoville("calibrate --measurements " + csv + fit_args,
                                                "cd " + data.dir.file("") + " && " + data.env);
  INFO(by_default.output);
  REQUIRE(by_default.exit_code == 0);
  CHECK(fs::exists(data.dir.file("calibration/h200-hgx8.calibration.yaml")));
  CHECK_FALSE(fs::exists(shipped));
  CHECK(by_default.output.find("not the shipped file") != std::string::npos);
  // --output-dir names the folder; --per-stack writes the stack's file there too.
  const CommandResult in_folder = run_scoville(
      "calibrate --measurements " + csv + fit_args + " --output-dir " + data.dir.file("fits"),
      data.env);
  REQUIRE(in_folder.exit_code == 0);
  CHECK(fs::exists(data.dir.file("fits/h200-hgx8.calibration.yaml")));
  const CommandResult stack =
      run_scoville("calibrate --per-stack --measurements " + csv + fit_args + " --output-dir " +
                       data.dir.file("fits") + " --system-knobs bandwidth_efficiency.all",
                   data.env);
  INFO(stack.output);
  REQUIRE(stack.exit_code == 0);
  CHECK(fs::exists(data.dir.file("fits/tensorrt-llm.calibration.yaml")));
  CHECK_FALSE(fs::exists(data.dir.file("arch/software/tensorrt-llm.calibration.yaml")));
  CHECK_FALSE(fs::exists(shipped));
  // validate sees none of them: the shipped files are what it applies.
  const CommandResult validated = run_scoville(
      "validate --fidelity roofline --measurements " + csv + " --json --prompts-per-client 1",
      data.env);
  REQUIRE(validated.exit_code == 0);
  CHECK(validated.output.find("calibration.yaml") == std::string::npos);
  // --update-shipped writes over the shipped overlay and takes no other destination.
  REQUIRE(run_scoville("calibrate --measurements " + csv + fit_args + " --update-shipped", data.env)
              .exit_code == 0);
  CHECK(fs::exists(shipped));
  const CommandResult both = run_scoville(
      "calibrate --measurements " + csv + fit_args + " --update-shipped --output-dir x", data.env);
  CHECK(both.exit_code == 2);
  CHECK(both.output.find("--update-shipped") != std::string::npos);
  // A folder that cannot be made is an output error named before any fitting.
  const std::string blocker = data.dir.write("not-a-folder", "x");
  const CommandResult unmakeable = run_scoville(
      "calibrate --measurements " + csv + fit_args + " --output-dir " + blocker + "/sub", data.env);
  CHECK(unmakeable.exit_code == 3);
  CHECK(unmakeable.output.find("--output-dir: cannot create the folder") != std::string::npos);
  CHECK(unmakeable.output.find("fitted on rows") == std::string::npos);
}

TEST_CASE("calibrate refuses a system without measured rows instead of guessing",
          "[cli][calibration]") {
  DataCopy data;
  const std::string csv = data.dir.write("m.csv", kCsv);
  const CommandResult r =
      run_scoville("calibrate --measurements " + csv + " --system gb300-nvl72 --dry-run", data.env);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("no predictable row of gb300-nvl72") != std::string::npos);
  CHECK(run_scoville("calibrate --measurements " + csv, data.env).exit_code == 2);
  CHECK(run_scoville("calibrate --measurements " + csv + " --system h200-hgx8 --knobs speed",
                     data.env)
            .exit_code == 2);
}

namespace {

double json_number(const std::string& json, const std::string& key) {
  const std::string quoted = "\"" + key + "\": ";
  const size_t at = json.find(quoted);
  if (at == std::string::npos) FAIL("no " << key << " in " << json);
  return std::stod(json.substr(at + quoted.size()));
}

}  // namespace

TEST_CASE("calibrate --per-stack writes the stack's software knobs beside the stack file",
          "[cli][calibration]") {
  DataCopy data;
  const std::string csv = data.dir.write("m.csv", kCsv);
  const CommandResult fit = run_scoville(
      "calibrate --per-stack --fidelity roofline --measurements " + csv +
          " --system h200-hgx8 --rows all --knobs per_iteration_overhead,per_sequence_overhead"
          " --system-knobs bandwidth_efficiency.all --sweeps 1 --prompts-per-client 1 --quiet"
          " --update-shipped",
      data.env);
  INFO(fit.output);
  REQUIRE(fit.exit_code == 0);
  CHECK(fit.output.find("# stack tensorrt-llm (roofline)") != std::string::npos);
  const std::string stack = read_file(data.dir.file("arch/software/tensorrt-llm.calibration.yaml"));
  CHECK(stack.find("stack: \"tensorrt-llm\"") != std::string::npos);
  CHECK(stack.find("systems: [\"h200-hgx8\"]") != std::string::npos);
  CHECK(stack.find("per_sequence_overhead") != std::string::npos);
  // Read from its folder, recorded relative to the data root (both files).
  CHECK(stack.find("measurements: \"m.csv\"") != std::string::npos);
  // The system keeps its hardware knob only; its overheads are the stack's.
  const std::string own = read_file(data.dir.file("arch/systems/h200-hgx8.calibration.yaml"));
  CHECK(own.find("per_iteration_overhead: 0 s") != std::string::npos);
  CHECK(own.find("bandwidth_efficiency.all") != std::string::npos);
  CHECK(own.find("measurements: \"m.csv\"") != std::string::npos);
  // validate applies both and counts the rows the stack was fitted on as fitted.
  const CommandResult validated = run_scoville(
      "validate --fidelity roofline --measurements " + csv + " --json --prompts-per-client 1",
      data.env);
  INFO(validated.output);
  REQUIRE(validated.exit_code == 0);
  CHECK(validated.output.find("h200-hgx8.calibration.yaml + tensorrt-llm.calibration.yaml "
                              "(software knobs of the stack)") != std::string::npos);
  CHECK(validated.output.find("\"set\": \"fit\"") != std::string::npos);
  // Knobs of the wrong kind for each list are refused.
  CHECK(run_scoville("calibrate --per-stack --measurements " + csv +
                         " --system h200-hgx8 --knobs bandwidth_efficiency.all --dry-run",
                     data.env)
            .exit_code == 2);
  CHECK(run_scoville("calibrate --measurements " + csv +
                         " --system h200-hgx8 --system-knobs bandwidth_efficiency.all --dry-run",
                     data.env)
            .exit_code == 2);
}

TEST_CASE("a stack's calibration applies on every system of the stack", "[cli][calibration]") {
  DataCopy data;
  // A per-iteration time far above any other: every step of every system on the stack pays it.
  data.dir.write("arch/software/tensorrt-llm.calibration.yaml",
                 "stack_calibration:\n  stack: tensorrt-llm\n  fidelity: roofline\n  knobs:\n"
                 "    per_iteration_overhead: 20 ms\n");
  const std::string hand = data.dir.write(
      "hand.calibration.yaml",
      "calibration:\n  system: hand\n  knobs:\n    bandwidth_efficiency: {gemm: 0.9}\n");
  // One that sets its own per-iteration time (a what-if): it keeps it over the stack's.
  const std::string own = data.dir.write("own.calibration.yaml",
                                         "calibration:\n  system: own\n  knobs:\n"
                                         "    per_iteration_overhead: 5 ms\n");
  const std::string run =
      "inferencex --fidelity roofline --model llama-3.1-8b --chips 1 --tp 1 --isl 128 --osl 16 "
      "--concurrency 1 --prompts-per-client 1 --range-ratio 1 --quiet --json ";
  for (const char* system : {"h200-hgx8", "b200-hgx8"}) {
    INFO(system);
    const CommandResult with = run_scoville(run + "--system " + system, data.env);
    const CommandResult without =
        run_scoville(run + "--system " + system + " --no-calibration", data.env);
    INFO(with.output);
    REQUIRE(with.exit_code == 0);
    REQUIRE(without.exit_code == 0);
    CHECK(with.output.find("tensorrt-llm.calibration.yaml (software knobs of the stack)") !=
          std::string::npos);
    CHECK(json_number(with.output, "median_tpot_ms") >
          json_number(without.output, "median_tpot_ms") + 19);
    // An overlay given by hand keeps the stack's software knobs.
    const CommandResult given =
        run_scoville(run + "--system " + system + " --calibration " + hand, data.env);
    INFO(given.output);
    REQUIRE(given.exit_code == 0);
    CHECK(json_number(given.output, "median_tpot_ms") >
          json_number(without.output, "median_tpot_ms") + 19);
    const CommandResult kept =
        run_scoville(run + "--system " + system + " --calibration " + own, data.env);
    INFO(kept.output);
    REQUIRE(kept.exit_code == 0);
    CHECK(kept.output.find("the given overlay's own per_iteration_overhead kept") !=
          std::string::npos);
    CHECK(json_number(kept.output, "median_tpot_ms") ==
          Approx(json_number(without.output, "median_tpot_ms") + 5).margin(0.5));
  }
  // Another stack does not take it.
  const CommandResult vllm = run_scoville(run + "--system h200-hgx8 --software vllm", data.env);
  REQUIRE(vllm.exit_code == 0);
  CHECK(vllm.output.find("tensorrt-llm.calibration.yaml") == std::string::npos);
  // A broken stack calibration stops the run, located.
  data.dir.write("arch/software/tensorrt-llm.calibration.yaml",
                 "stack_calibration:\n  stack: tensorrt-llm\n  fidelity: roofline\n  knobs:\n"
                 "    per_iteration_overhead: long\n");
  const CommandResult bad = run_scoville(run + "--system h200-hgx8", data.env);
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("tensorrt-llm.calibration.yaml:5") != std::string::npos);
}

TEST_CASE("run --system adds the stack's op-table software knobs", "[cli][calibration]") {
  DataCopy data;
  const std::string run =
      "run --system h200-hgx8 --model llama-3.1-8b --tp 1 --batch 1 --isl 128 "
      "--osl 2 --json";
  // The cycle-level engine's hardware time is the chip model's, as at the op table: that file.
  // Before: the stack's knobs at zero (the shipped file's fitted ones replaced).
  data.dir.write("arch/software/tensorrt-llm.op-table.calibration.yaml",
                 "stack_calibration:\n  stack: tensorrt-llm\n  fidelity: op-table\n  knobs:\n"
                 "    per_iteration_overhead: 0 s\n");
  const CommandResult before = run_scoville(run, data.env);
  REQUIRE(before.exit_code == 0);
  data.dir.write("arch/software/tensorrt-llm.op-table.calibration.yaml",
                 "stack_calibration:\n  stack: tensorrt-llm\n  fidelity: op-table\n  knobs:\n"
                 "    per_iteration_overhead: 20 ms\n");
  const CommandResult after = run_scoville(run, data.env);
  INFO(after.output);
  REQUIRE(after.exit_code == 0);
  // The prefill (the first phase) is one iteration: 20 ms more.
  CHECK(json_number(after.output, "time_s") ==
        Approx(json_number(before.output, "time_s") + 20e-3).epsilon(1e-6));
}
