// A hostile user's campaign against the CLI (issue 30, the fault classes): outputs that would
// destroy inputs or each other, physical limits (memory, context, power cap), text that is not
// UTF-8, bad request files, configs, flags, units and sizes. Every case runs the real binary and
// asserts a non-zero exit that is not a signal, one message naming what is wrong, no "internal
// error", and every file it was given unchanged. All cases are refused before anything is
// simulated, so the campaign takes seconds. The signal cases (SIGTERM and SIGINT to a sweep)
// are in sweep_signal_test.cpp.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include "tests/e2e/test_support.hpp"

using scoville::test::read_file;
using scoville::test::run_scoville;
using scoville::test::source_dir;
using scoville::test::TempDir;
namespace fs = std::filesystem;

namespace {

// The campaign's files: a valid study, scenario, request file, sweep, mapping, chip and model
// copies, a fake results file, and a private copy of the shipped data (SCOVILLE_DATA_DIR) so that
// a case aiming at a shipped file cannot damage the source tree even if its check regressed.
struct Campaign {
  TempDir dir{"hostile"};
  std::string data_env;

  Campaign() {
    for (const char* sub : {"arch", "workloads/models"}) {
      fs::create_directories(fs::path(dir.file("data/" + std::string(sub))).parent_path());
      fs::copy(source_dir() + "/" + sub, dir.file("data/" + std::string(sub)),
               fs::copy_options::recursive);
    }
    data_env = "SCOVILLE_DATA_DIR=" + dir.file("data");
    dir.write("study.yaml",
              "study:\n  chips: [jalapeno]\n  model: llama-3.1-8b\n  batch: 1\n  isl: 16\n"
              "  osl: 1\n  seed: 1\n");
    dir.write("reqs.csv", "arrival_s,input_tokens,output_tokens\n0.0,64,8\n0.5,32,4\n");
    dir.write("scenario.yaml", scenario("reqs.csv"));
    dir.write("sweep.yaml",
              "sweep:\n  name: hostile\n  study: {chips: [jalapeno], model: llama-3.1-8b, "
              "batch: 1, isl: 16, osl: 1, seed: 1}\n  axes:\n"
              "    - {key: study.batch, values: [1, 2]}\n");
    dir.write("mapping.yaml", "mapping:\n  decode: {chips: 2, tp: 2}\n");
    dir.write("r.h5", "not really HDF5, but a file a user would not want replaced\n");
    dir.write("m.csv", "id,system\n1,x\n");
    fs::copy_file(source_dir() + "/arch/chips/jalapeno.yaml", dir.file("chip.yaml"));
    fs::copy_file(source_dir() + "/workloads/models/llama-3.1-8b.yaml", dir.file("model.yaml"));
    fs::copy_file(source_dir() + "/arch/systems/h200-hgx8.yaml", dir.file("system.yaml"));
    fs::create_symlink(dir.file("study.yaml"), dir.file("study-link.yaml"));
    fs::create_hard_link(dir.file("study.yaml"), dir.file("study-hard.yaml"));
    fs::create_directories(dir.file("sub"));
  }

  static std::string scenario(const std::string& trace, const std::string& extra = "") {
    return "scenario:\n  name: hostile\n  system: {chip: h200, chips: 1}\n  model: llama-3.1-8b\n"
           "  mapping:\n    default: {chips: 1, tp: 1}\n  requests:\n    pattern: trace\n"
           "    trace: " +
           trace + "\n" + extra;
  }

  std::string d() const { return dir.file(""); }
};

// One hostile input: the arguments ({D} stands for the campaign's folder), the files it writes
// first (name -> content), what the one message must contain, the exit status, and the files that
// must be unchanged afterwards (all the campaign's files are checked; these are added).
struct Case {
  Case(std::string name_, std::string args_, std::vector<std::string> expect_, int exit_ = 2,
       std::map<std::string, std::string> files_ = {}, bool private_data_ = false)
      : name(std::move(name_)),
        args(std::move(args_)),
        expect(std::move(expect_)),
        exit(exit_),
        files(std::move(files_)),
        private_data(private_data_) {}
  std::string name;
  std::string args;
  std::vector<std::string> expect;  // each must appear in the output
  int exit = 2;
  std::map<std::string, std::string> files;
  bool private_data = false;  // run with SCOVILLE_DATA_DIR at the campaign's copy
};

std::string expand(std::string text, const std::string& d) {
  for (size_t at = text.find("{D}"); at != std::string::npos; at = text.find("{D}", at)) {
    text.replace(at, 3, d);
  }
  return text;
}

// Every regular file under the folder (not following links) and its content.
std::map<std::string, std::string> snapshot(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_symlink() || !e.is_regular_file()) continue;
    const std::string path = e.path().string();
    if (path.find("/data/") != std::string::npos && path.find(".yaml") == std::string::npos) {
      continue;
    }
    out[path] = read_file(path);
  }
  return out;
}

void run_cases(const std::vector<Case>& cases) {
  Campaign campaign;
  const std::string d = campaign.d();
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      for (const auto& [name, content] : c.files) campaign.dir.write(name, content);
      const std::map<std::string, std::string> before = snapshot(d);
      const auto r = run_scoville(expand(c.args, d), c.private_data ? campaign.data_env : "");
      INFO("scoville " << expand(c.args, d) << "\n" << r.output);
      CHECK(r.exit_code == c.exit);  // -1 would be a signal (a crash)
      CHECK(r.exit_code != 0);
      for (const std::string& e : c.expect) CHECK_THAT(r.output, Catch::Contains(expand(e, d)));
      CHECK_THAT(r.output, !Catch::Contains("internal error:"));  // the usage names exit 1
      CHECK_THAT(r.output, !Catch::Contains("Segmentation") && !Catch::Contains("terminate"));
      // Nothing given to the command was replaced, and nothing new sits among the inputs.
      const std::map<std::string, std::string> after = snapshot(d);
      for (const auto& [path, content] : before) {
        INFO(path);
        REQUIRE(after.count(path) == 1);
        CHECK(after.at(path) == content);
      }
      for (const auto& [path, content] : after) {
        INFO("new file " << path);
        CHECK(before.count(path) == 1);
      }
    }
  }
}

const std::string kRun = "run --chip jalapeno --model llama-3.1-8b --batch 1 --isl 16 --osl 1 ";
const std::string kServe = "serve --fidelity roofline --scenario {D}/scenario.yaml ";
const std::string kIx =
    "inferencex --fidelity roofline --system h200 --chips 1 --model llama-3.1-8b --isl 128 "
    "--osl 8 --concurrency 1 --quiet ";

}  // namespace

TEST_CASE("hostile: an output never replaces an input or another output", "[hostile]") {
  const std::string input = "is also the";
  run_cases({
      {"run -o is the study",
       "run --study {D}/study.yaml -o {D}/study.yaml",
       {"-o: '{D}/study.yaml' is also the --study input"}},
      {"run --trace is the study",
       "run --study {D}/study.yaml --trace {D}/study.yaml",
       {"--trace", "--study input"}},
      {"run -o and --trace on one path",
       kRun + "-o {D}/x.out --trace {D}/x.out",
       {"--trace: '{D}/x.out' is also the -o output", "two results of one run"}},
      {"run -o through a symbolic link to the study",
       "run --study {D}/study.yaml -o {D}/study-link.yaml",
       {"--study input"}},
      {"run -o a hard link to the study",
       "run --study {D}/study.yaml -o {D}/study-hard.yaml",
       {"--study input"}},
      {"run -o the study spelled another way",
       "run --study {D}/study.yaml -o {D}/sub/../study.yaml",
       {"--study input"}},
      {"run -o the chip file",
       "run --chip {D}/chip.yaml --model llama-3.1-8b -o {D}/chip.yaml",
       {"--chip input"}},
      {"run -o the model file",
       "run --chip jalapeno --model {D}/model.yaml -o {D}/model.yaml",
       {"--model input"}},
      {"run -o a shipped chip by name",
       "run --chip jalapeno --model llama-3.1-8b -o {D}/data/arch/chips/jalapeno.yaml",
       {"--chip input"},
       2,
       {},
       true},
      {"run -o a shipped model named by the study",
       "run --study {D}/study.yaml -o {D}/data/workloads/models/llama-3.1-8b.yaml",
       {"study.model input"},
       2,
       {},
       true},
      {"run --system -o the mapping",
       "run --system h200-hgx8 --model llama-3.1-8b --mapping {D}/mapping.yaml -o "
       "{D}/mapping.yaml",
       {"--mapping input"}},
      {"run --system -o the system file",
       "run --system {D}/system.yaml --model llama-3.1-8b -o {D}/system.yaml",
       {"--system input"}},
      {"serve -o the scenario", kServe + "-o {D}/scenario.yaml", {"--scenario input"}},
      {"serve --trace the scenario's request file",
       kServe + "--trace {D}/reqs.csv",
       {"requests.trace input"}},
      {"serve -o and --trace on one path",
       kServe + "-o {D}/s.out --trace {D}/s.out",
       {"-o output"}},
      {"sweep -o the sweep file", "sweep {D}/sweep.yaml -o {D}/sweep.yaml", {"sweep file input"}},
      {"report -o its results file", "report {D}/r.h5 -o {D}/r.h5", {"results file input"}},
      {"calibrate -o the measurements",
       "calibrate --measurements {D}/m.csv --system h200-hgx8 -o "
       "{D}/m.csv",
       {"--measurements input"}},
      {"calibrate one -o for two systems",
       "calibrate --measurements {D}/m.csv --system h200-hgx8 --system b200-hgx8 -o {D}/o.yaml",
       {"-o needs exactly one --system"}},
      {"inferencex -o the mapping",
       "inferencex --system h200 --chips 2 --model llama-3.1-8b --isl 64 --osl 8 --mapping "
       "{D}/mapping.yaml -o {D}/mapping.yaml",
       {"--mapping input"}},
      {"inferencex -o and --trace on one path",
       kIx + "-o {D}/i.out --trace {D}/i.out",
       {"-o output"}},
      {"net --trace the system file",
       "net --system {D}/system.yaml --collective all_reduce --bytes 1MiB --trace "
       "{D}/system.yaml",
       {"--system input"}},
      {"trace -o the mapping file",
       "trace --model llama-3.1-8b --phase decode --batch 1 --context 16 --mapping "
       "{D}/mapping.yaml -o {D}/mapping.yaml",
       {"--mapping input"}},
  });
  (void)input;
}

TEST_CASE("hostile: physical limits are refused before anything is simulated", "[hostile]") {
  run_cases({
      {"a single chip that cannot hold the KV cache",
       "run --chip h200 --model llama-3.1-8b --batch 65536 --isl 100000 --osl 1",
       {"chip.hbm.capacity", "does not fit"}},
      {"a single-chip context past max_context",
       "run --chip h200 --model llama-3.1-8b --batch 1 --isl 131072 --osl 16",
       {"study.isl", "131072 + 16", "max_context 131072"}},
      {"a system run past max_context",
       "run --system h200-hgx8 --model llama-3.1-8b --batch 1 --isl 200000 --osl 16",
       {"--isl", "max_context 131072"}},
      {"a system run that needs a petabyte",
       "run --system h200-hgx8 --model llama-3.1-8b --batch 65536 --isl 100000 --osl 16",
       {"the mapping does not fit", "per chip", "of HBM"}},
      {"ablate on a system that cannot hold the batch",
       "ablate --system h200-hgx8 --model llama-3.1-8b --batch 65536 --isl 100000 --osl 16 "
       "--vary overlap=none,two_batch",
       {"the mapping does not fit"}},
      {"a study file with a system past max_context",
       "run --study {D}/sys-study.yaml",
       {"study.isl", "max_context"},
       2,
       {{"sys-study.yaml",
         "study:\n  system: h200-hgx8\n  model: llama-3.1-8b\n  batch: 1\n  isl: 140000\n"
         "  osl: 1\n"}}},
      {"inferencex past max_context",
       "inferencex --fidelity roofline --system h200 --chips 1 --model llama-3.1-8b --isl "
       "131000 --osl 1000 --concurrency 1 --quiet",
       {"--isl", "max_context"}},
      {"a serving scenario past max_context",
       "serve --fidelity roofline --scenario {D}/ctx.yaml",
       {"requests.isl", "max_context"},
       2,
       {{"ctx.yaml",
         "scenario:\n  name: ctx\n  system: {chip: h200, chips: 1}\n  model: llama-3.1-8b\n"
         "  mapping:\n    default: {chips: 1, tp: 1}\n  requests:\n    pattern: poisson\n"
         "    isl: 200000\n    osl: 8\n    rate: 1\n    num_prompts: 2\n"}}},
      {"a power cap below the static power (run)",
       kRun + "--power-cap 10W",
       {"study.power_cap", "power cap 10 W", "static power", "expected a cap above"}},
      {"a power cap below the static power (serve)",
       kServe + "--power-cap 5W",
       {"--power-cap", "static power"}},
      {"a power cap below the static power (inferencex)",
       kIx + "--power-cap 1W",
       {"--power-cap", "static power"}},
      {"a power cap below the static power (scenario)",
       "serve --fidelity roofline --scenario {D}/cap.yaml",
       {"scenario.power.cap", "static power"},
       2,
       {{"cap.yaml", Campaign::scenario("reqs.csv", "  power:\n    cap: 20 W\n")}}},
      {"a power cap of zero", kRun + "--power-cap 0W", {"--power-cap", "expected a power > 0 W"}},
      {"a power cap in joules", kRun + "--power-cap 500J", {"--power-cap"}},
      {"a power cap that overflows", kRun + "--power-cap '1e300 EW'", {"--power-cap"}},
      {"a batch of zero",
       kRun.substr(0, kRun.find("--batch")) + "--batch 0",
       {"--batch: expected 1 to 65536, got 0"}},
      {"a batch past the limit",
       "run --chip jalapeno --model llama-3.1-8b --batch 65537",
       {"--batch: expected 1 to 65536, got 65537"}},
      {"an isl past the limit",
       "run --chip jalapeno --model llama-3.1-8b --isl 99999999",
       {"--isl: expected 1 to"}},
      {"a batch that overflows 64 bits",
       "run --chip jalapeno --model llama-3.1-8b --batch 99999999999999999999",
       {"--batch"}},
      {"a negative batch", "run --chip jalapeno --model llama-3.1-8b --batch -4", {"--batch"}},
      {"a system mapping wider than the system",
       "run --system h200-hgx8 --model llama-3.1-8b --tp 16",
       {"tp", "expected 1 to 8"}},
      {"--range-ratio of zero states its open bound",
       kIx + "--range-ratio 0",
       {"--range-ratio: expected a number in (0, 1], found '0'"}},
      {"calibrate --sweeps past int",
       "calibrate --measurements {D}/m.csv --sweeps 4294967296",
       {"--sweeps: expected 1 to 1000"}},
  });
}

TEST_CASE("hostile: names that are not UTF-8 are refused where they are read", "[hostile]") {
  const std::string bad = "\xff";
  run_cases({
      {"a model name in Latin-1",
       "run --chip jalapeno --model {D}/latin1.yaml",
       {"latin1.yaml:2:", "name: not valid UTF-8 (byte 0xE9)"},
       2,
       {{"latin1.yaml", "model:\n  name: caf\xe9\n"}}},
      {"a chip name with a stray byte",
       "run --chip {D}/badchip.yaml --model llama-3.1-8b",
       {"badchip.yaml:1:", "not valid UTF-8"},
       2,
       {{"badchip.yaml", "chip:" + bad + "\n"}}},
      {"a study name with an overlong slash",
       "run --study {D}/overlong.yaml",
       {"overlong.yaml:2:", "not valid UTF-8 (byte 0xC0)"},
       2,
       {{"overlong.yaml",
         "study:\n  model: a\xc0\xaf"
         "b\n"}}},
      {"a scenario name with a surrogate",
       "serve --fidelity roofline --scenario {D}/sur.yaml",
       {"sur.yaml:2:", "name: not valid UTF-8 (byte 0xED)"},
       2,
       {{"sur.yaml", "scenario:\n  name: x\xed\xa0\x80y\n"}}},
      {"a sweep name cut inside a character",
       "sweep {D}/cut.yaml -o {D}/cut.sweep",
       {"cut.yaml:3:", "not valid UTF-8 (byte 0xE2)"},
       2,
       {{"cut.yaml", "sweep:\n  study: {}\n  name: a\xe2\x82"}}},
      {"a system name past U+10FFFF",
       "run --system {D}/big.yaml --model llama-3.1-8b",
       {"big.yaml:1:", "not valid UTF-8 (byte 0xF4)"},
       2,
       {{"big.yaml", "system: \xf4\x90\x80\x80\n"}}},
      {"a request file with a Latin-1 comment",
       kServe,
       {"reqs-latin1.csv:1:4: comment: not valid UTF-8"},
       2,
       {{"reqs-latin1.csv", "# r\xe9sum\xe9\narrival_s,input_tokens,output_tokens\n0,8,8\n"},
        {"scenario.yaml", Campaign::scenario("reqs-latin1.csv")}}},
      {"a request value with a stray byte names its column",
       kServe,
       {"reqs-byte.csv:3:", "output_tokens: not valid UTF-8"},
       2,
       {{"reqs-byte.csv", "arrival_s,input_tokens,output_tokens\n0,8,8\n1,8,8\xff\n"},
        {"scenario.yaml", Campaign::scenario("reqs-byte.csv")}}},
      {"a measurements file with a Latin-1 system name",
       "validate --measurements {D}/latin1.csv",
       {"latin1.csv:2:", "system: not valid UTF-8"},
       2,
       {{"latin1.csv", "id,system,model\n1,H200 (8-GPU)\xa0x,llama\n"}}},
      {"binary garbage as a study",
       "run --study {D}/garbage.yaml",
       {"garbage.yaml:1:1"},
       2,
       {{"garbage.yaml", std::string("\x89PNG\r\n\x1a\n\0\0\0", 11)}}},
  });
}

TEST_CASE("hostile: request and measurement files name the file, line and field", "[hostile]") {
  auto trace_case = [](const std::string& name, const std::string& csv,
                       std::vector<std::string> expect) {
    return Case{name,
                kServe,
                std::move(expect),
                2,
                {{"bad.csv", csv}, {"scenario.yaml", Campaign::scenario("bad.csv")}}};
  };
  const std::string header = "arrival_s,input_tokens,output_tokens\n";
  // A published measurement row (validate reads them) with its isl, osl and concurrency.
  auto measurement_case = [](const std::string& name, const std::string& isl_osl_concurrency,
                             std::vector<std::string> expect) {
    return Case{
        name,
        "validate --fidelity roofline --measurements {D}/m.csv",
        std::move(expect),
        2,
        {{"m.csv",
          "id,source,system,chips,model,precision,framework,isl,osl,concurrency,"
          "throughput_metric,throughput,interactivity_tok_s_user,ttft_ms,tpot_ms,e2e_s,"
          "notes\n1,test,NVIDIA H200 (8-GPU),,gpt-oss-120b,FP4(MXFP4),x," +
              isl_osl_concurrency + ",total_tok_s_per_chip,1000,59.3,50,16.85,,synthetic\n"}}};
  };
  run_cases({
      trace_case("tokens that are not a number", header + "0,many,8\n",
                 {"bad.csv:2:3: input_tokens: expected an integer number of tokens"}),
      trace_case("a negative token count", header + "0,8,-3\n", {"bad.csv:2:5: output_tokens"}),
      trace_case("a request past the token limit", header + "0,99999999,8\n",
                 {"bad.csv:2:3: input_tokens", "[1, 10000000]"}),
      trace_case("a request larger than the KV cache", header + "0,8,8\n1,9000000,8\n",
                 {"bad.csv:3: input_tokens: needs", "KV blocks"}),
      trace_case("arrivals out of order", header + "5,8,8\n1,8,8\n", {"bad.csv:3:1: arrival_s"}),
      trace_case("an arrival of nan", header + "nan,8,8\n", {"bad.csv:2:1: arrival_s"}),
      trace_case("an arrival of inf", header + "inf,8,8\n", {"bad.csv:2:1: arrival_s"}),
      // Was "internal error: serving metrics need completed requests over a positive window".
      trace_case("an arrival of 1e300 s", header + "1e300,8,8\n",
                 {"bad.csv:2:1: arrival_s: expected a number of seconds in [0, 1e9]"}),
      trace_case("a missing column", "arrival_s,input_tokens\n0,8\n",
                 {"bad.csv:1: output_tokens: missing column"}),
      trace_case("a misspelt column", "arrival_s,input_tokenz,output_tokens\n0,8,8\n",
                 {"input_tokenz: unknown column; did you mean 'input_tokens'?"}),
      trace_case("a short row", header + "0,8\n", {"bad.csv:2: expected 3 comma-separated"}),
      trace_case("an empty file", "", {"bad.csv: empty request trace"}),
      trace_case("a header without requests", header, {"header but no requests"}),
      // Were silently "infeasible" or "multi-node" rows: a count cast from a fraction or 1e300.
      measurement_case("a measured isl that is a fraction", "1.5,32,2",
                       {"m.csv:2: isl: expected a whole number from 1 to 10000000, found '1.5'"}),
      measurement_case("a measured concurrency below 1", "128,32,-2",
                       {"m.csv:2: concurrency: expected a whole number", "found '-2'"}),
      measurement_case("a measured osl of 1e300", "128,1e300,2",
                       {"m.csv:2: osl: expected a whole number"}),
      {"a request file that is a folder",
       kServe,
       {"sub"},
       2,
       {{"scenario.yaml", Campaign::scenario("sub")}}},
      {"a request file that does not exist",
       kServe,
       {"nothing.csv"},
       2,
       {{"scenario.yaml", Campaign::scenario("nothing.csv")}}},
  });
}

TEST_CASE("hostile: bad configs, flags and traces get one located message", "[hostile]") {
  run_cases({
      {"YAML syntax",
       "run --study {D}/syn.yaml",
       {"syn.yaml:3:1: YAML syntax error"},
       2,
       {{"syn.yaml", "study:\n  chips: [jalapeno\n"}}},
      {"an unknown key",
       "run --study {D}/key.yaml",
       {"study.batchh", "did you mean 'batch'"},
       2,
       {{"key.yaml", "study:\n  model: llama-3.1-8b\n  batchh: 4\n"}}},
      {"a number too large for a double",
       "run --study {D}/huge.yaml",
       {"huge.yaml:2:"},
       2,
       {{"huge.yaml", "study:\n  batch: 1e999\n"}}},
      {"an empty study", "run --study {D}/empty.yaml", {"empty.yaml"}, 2, {{"empty.yaml", ""}}},
      {"a study that is a folder", "run --study {D}/sub", {"is a directory, not a file"}},
      {"a missing study", "run --study {D}/none.yaml", {"none.yaml: cannot open file"}},
      {"a model with zero layers",
       "run --chip jalapeno --model {D}/zero.yaml",
       {"zero.yaml:", "layers"},
       2,
       {{"zero.yaml", "model:\n  name: zero\n  layers: 0\n"}}},
      {"a chip with a frequency in bytes",
       "run --chip {D}/unit.yaml --model llama-3.1-8b",
       {"unit.yaml:", "is a size in bytes"},
       2,
       {{"unit.yaml", "chip:\n  name: u\n  tiles: {count: 1, clock: 1.8 GB}\n"}}},
      {"an unknown chip", "run --chip h300 --model llama-3.1-8b", {"no chip 'h300'"}},
      {"an unknown option", "run --bacth 4", {"unknown option '--bacth'"}},
      {"an unknown command", "frobnicate", {"unknown command 'frobnicate'"}},
      {"a flag without its value", "run --chip jalapeno --batch", {"--batch"}},
      {"sweep -j 0", "sweep {D}/sweep.yaml -j 0", {"--jobs expects 1 to 1024"}},
      {"a sweep name that leaves the folder",
       "sweep {D}/esc.yaml --quiet",
       {"esc.yaml:2:", "sweep.name", "not a plain file name"},
       2,
       {{"esc.yaml",
         "sweep:\n  name: ../../escaped\n  study: {chips: [jalapeno], model: llama-3.1-8b, "
         "batch: 1, isl: 16, osl: 1}\n  axes:\n    - {key: study.batch, values: [1]}\n"}}},
      // Was "internal error: std::bad_alloc".
      {"trace --batch past the limit",
       "trace --model llama-3.1-8b --phase decode --batch 99999999999 --context 16 -o {D}/tr",
       {"--batch: expected 1 to 65536 sequences, got 99999999999"}},
      // Was a hang: a network of 10^8 endpoints was built before any check.
      {"inferencex --chips past a system's size",
       kIx.substr(0, kIx.find("--chips")) +
           "--chips 99999999 --model llama-3.1-8b --isl 128 --osl 8 --concurrency 1 --quiet",
       {"--chips: expected 1 to 1048576"}},
      {"sweep --shard past its count", "sweep {D}/sweep.yaml --shard 3/2", {"0 <= I < N"}},
      {"a trace window that is not a window",
       kRun + "--trace {D}/t.json --trace-window soon",
       {"--trace-window"}},
      {"a trace file that does not exist",
       "run --chip jalapeno --trace-file {D}/none.et",
       {"none.et"}},
      {"a trace file that is text",
       "run --chip jalapeno --trace-file {D}/text.et",
       {"text.et"},
       2,
       {{"text.et", "this is not a Chakra trace\n"}}},
      {"a native trace that is cut",
       "run --chip jalapeno --trace-file {D}/cut.trace.yaml",
       {"cut.trace.yaml"},
       2,
       {{"cut.trace.yaml", "trace:\n  version: 1\n  nodes: [\n"}}},
  });
}
