// Measured energy rows (workloads/measurements/energy/*.csv): the loader refuses malformed rows at
// their file, line and column, and one row's prediction matches the energy worked out by hand.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/validation/energy_rows.hpp"

using namespace scoville;

namespace {

const char* kHeader =
    "id,source,covers,gpu,system,chips,tp,ep,model,precision,task,max_num_seqs,avg_batch_size,"
    "isl,avg_output_len,output_tok_s,avg_power_w,energy_per_token_j,median_itl_ms\n";
const char* kGoodRow =
    "E1,src,gpu,H100,h100-hgx8,1,1,1,llama-3.1-8b,,lm-arena-chat,8,7.98,256,388.7,1069.6,486.4,"
    "0.45480,7.32\n";

std::string write(const std::string& text) {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("scoville_energy_rows_" + std::to_string(::getpid()) + ".csv"))
                               .string();
  std::ofstream(file) << text;
  return file;
}

// The InputError message of reading header + body ("" when it reads).
std::string error_of(const std::string& body, const std::string& header = kHeader) {
  const std::string file = write(header + body);
  std::string message;
  try {
    validation::read_energy_rows(file);
  } catch (const InputError& e) {
    message = e.what();
  }
  std::filesystem::remove(file);
  return message;
}

// `row` with field `index` (0-based) replaced.
std::string with_field_of(std::string row, size_t index, const std::string& value) {
  size_t start = 0;
  for (size_t i = 0; i < index; ++i) start = row.find(',', start) + 1;
  const size_t end = row.find_first_of(",\n", start);
  return row.replace(start, end - start, value);
}

// kGoodRow with field `index` (0-based) replaced.
std::string with_field(size_t index, const std::string& value) {
  return with_field_of(kGoodRow, index, value);
}

}  // namespace

TEST_CASE("energy rows: a good row reads with its fields", "[energy_rows]") {
  const std::string file = write(std::string(kHeader) + kGoodRow);
  const std::vector<validation::EnergyRow> rows = validation::read_energy_rows(file);
  std::filesystem::remove(file);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].id == "E1");
  CHECK(rows[0].covers == validation::EnergyCoverage::kGpu);
  CHECK(rows[0].system_file == "h100-hgx8");
  CHECK(rows[0].max_num_seqs == 8);
  CHECK(rows[0].median_itl_ms == Approx(7.32));
  CHECK(rows[0].isl == 256);
  CHECK(rows[0].energy_per_token_j == Approx(0.4548));
  CHECK(rows[0].line == 2);
}

TEST_CASE("energy rows: a row runs on the stack its framework names, else its system's",
          "[energy_rows]") {
  // The optional column: vLLM maps to `vllm` (framework-stacks.csv); without it, h100-hgx8's own
  // stack (tensorrt-llm). At the roofline, one request per client: fast.
  const std::string with =
      write(std::string(kHeader).insert(std::string(kHeader).size() - 1, ",framework") +
            std::string(kGoodRow).insert(std::string(kGoodRow).size() - 1, ",vLLM 0.11.1"));
  CHECK(validation::read_energy_rows(with).at(0).framework == "vLLM 0.11.1");
  std::ostringstream mapped;
  validation::validate_energy(mapped, with, config::kSystemSoftware, true,
                              engine::ServingFidelity::kRoofline, false, 1, true);
  std::filesystem::remove(with);
  CHECK_THAT(mapped.str(), Catch::Contains("\"stack\": \"vllm\""));
  const std::string without = write(std::string(kHeader) + kGoodRow);
  CHECK(validation::read_energy_rows(without).at(0).framework.empty());
  std::ostringstream own;
  validation::validate_energy(own, without, config::kSystemSoftware, true,
                              engine::ServingFidelity::kRoofline, false, 1, true);
  std::filesystem::remove(without);
  CHECK_THAT(own.str(), Catch::Contains("\"stack\": \"tensorrt-llm\""));
}

TEST_CASE("energy rows: malformed rows are refused at file, line, column and field",
          "[energy_rows]") {
  // Every message names the file and line 2 (the row), the field and what was expected.
  auto check = [](const std::string& body, const std::string& field, const std::string& expected) {
    const std::string message = error_of(body);
    INFO(message);
    CHECK(message.find("scoville_energy_rows_") != std::string::npos);
    CHECK(message.find(field) != std::string::npos);
    CHECK(message.find(expected) != std::string::npos);
  };
  check(with_field(15, "fast"), "output_tok_s", ":2:16");
  check(with_field(16, "-3"), "avg_power_w", "expected a positive number");
  check(with_field(17, ""), "energy_per_token_j", "expected a value");
  check(with_field(18, "-1"), "median_itl_ms", "expected a positive number");
  check(with_field(14, "1e300"), "avg_output_len", "up to 10,000,000");
  check(with_field(11, "8.5"), "max_num_seqs", "expected a whole number");
  check(with_field(2, "rack"), "covers", "expected gpu, node or wall");
  check(with_field(3, "A100"), "gpu", "expected H100, H200 or B200");
  check(with_field(4, "b200-hgx8"), "system", "'h100-hgx8' for a H100");
  check(with_field(5, "2"), "tp", "tp or ep equal to chips");
  check(with_field(9, "weights=fp7"), "precision", "fp7");
  check(std::string(kGoodRow) + kGoodRow, "id", ":3:");
  check("E1,src,gpu\n", "", "expected 19 fields, found 3");
  // A header without a required column.
  const std::string file = write("id,source\nE1,src\n");
  std::string message;
  try {
    validation::read_energy_rows(file);
  } catch (const InputError& e) {
    message = e.what();
  }
  std::filesystem::remove(file);
  CHECK(message.find("expected a column named 'covers'") != std::string::npos);
  CHECK(error_of(kGoodRow).empty());
}

TEST_CASE("energy rows: the nominal output length gives the measured mean", "[energy_rows]") {
  // Uniform in [0.8 n, n] has mean 0.9 n: 388.7 measured -> n = 432.
  CHECK(validation::nominal_output_tokens(388.7) == 432);
  CHECK(validation::nominal_output_tokens(0.1) == 1);
}

TEST_CASE("energy rows: one row's prediction against the energy worked out by hand",
          "[energy_rows]") {
  // Llama 3.1 8B on one H100, batch 8, 8 input and about 64 output tokens, at the roofline
  // without calibration or software overheads: every decode step streams the weights from HBM.
  // By hand: 8.03e9 params [HF config], of which the input embedding table (128,256 x 4,096 =
  // 0.525e9) is looked up, not streamed: 7.505e9 x 2 B = 15.01 GB; the KV of 8 sequences of about
  // 40 tokens (32 layers x 8 KV heads x 128 x 2 x 2 B = 131 kB a token) adds 0.04 GB; a step takes
  // 15.05 GB / 3.35 TB/s = 4.49 ms. Power: static 100 W + active 394 W (h100.yaml: the chip runs
  // kernels the whole step) + HBM path 3.35e12 B/s x 8 bit x (3.9 device + 0.29 PHY + 1.2 L2 fill
  // and read-out + 0.3 NoC + 2 x 0.15 tile SRAM) pJ/bit = 160.5 W (tsmc-4n.yaml) + matrix 8 tokens
  // x 7.5e9 MAC x 0.206 pJ / 4.49 ms = 2.8 W -> 657 W; J per output token = 657 W x 4.49 ms / 8 =
  // 0.369 J. Prefill (8 tokens a request) and the vector actions add a little: over the
  // benchmark's steady-state window (the batch full: no prefill burst, no draining tail) the
  // simulation must land within 4 % of 0.369 J and 657 W. (Without the active power it would draw
  // 263 W, without the chip's side of the memory path, PHY and L2 (39.9 W), 617 W: both outside;
  // over the whole run, the tail's part-full steps give 0.387 J.)
  const std::string file = write(std::string(kHeader) +
                                 "E1,src,gpu,H100,h100-hgx8,1,1,1,llama-3.1-8b,,chat,8,8,8,57.6,1,"
                                 "1,1,1\n");
  const std::vector<validation::EnergyRow> rows = validation::read_energy_rows(file);
  std::filesystem::remove(file);
  REQUIRE(rows.size() == 1);
  const engine::ServingHardware hw = engine::resolve_hardware(
      "h100", std::string(SCOVILLE_SOURCE_DIR) + "/arch/systems/h100-hgx8.yaml", 1, "none", false,
      engine::ServingFidelity::kRoofline);
  const validation::EnergyPrediction p = validation::predict_energy_row(rows[0], hw, 4);
  INFO("J/token " << p.energy_per_token_j << ", W " << p.avg_power_w << ", tok/s "
                  << p.output_tok_s);
  CHECK(p.steady_state);
  CHECK(p.energy_per_token_j == Approx(0.369).epsilon(0.04));
  CHECK(p.avg_power_w == Approx(657.0).epsilon(0.04));
  // The median gap between tokens is a decode step: 4.49 ms.
  CHECK(p.median_itl_ms == Approx(4.49).epsilon(0.04));
  // Energy per token is power over throughput, both of the whole replica.
  CHECK(p.energy_per_token_j == Approx(p.avg_power_w / p.output_tok_s).epsilon(1e-9));
}

TEST_CASE("energy rows: the measured-time diagnostic adds static power over the missing time",
          "[energy_rows]") {
  // Simulated: 0.1 J a token at 4,000 tok/s; measured 2,000 tok/s on 2 chips of 100 W static:
  // the simulation misses 1/2000 - 1/4000 = 250 us a token, at 200 W = 0.05 J; a step of 64
  // tokens misses 16 ms.
  validation::EnergyRow row;
  row.output_tok_s = 2000;
  row.max_num_seqs = 64;
  validation::EnergyPrediction p;
  p.energy_per_token_j = 0.1;
  p.output_tok_s = 4000;
  validation::add_measured_time_diagnostic(p, row, 200.0);
  CHECK(p.energy_per_token_at_measured_time_j == Approx(0.15));
  CHECK(p.missing_step_time_ms == Approx(16.0));
  // A simulation slower than the measurement gives the static energy of the extra time back.
  row.output_tok_s = 8000;
  validation::add_measured_time_diagnostic(p, row, 200.0);
  CHECK(p.energy_per_token_at_measured_time_j == Approx(0.1 - 200.0 / 8000));
  CHECK(p.missing_step_time_ms == Approx(-8.0));
}

TEST_CASE("energy rows: top-p requests sort the vocabulary on a stack that sorts and not otherwise",
          "[energy_rows]") {
  const std::string header =
      std::string(kHeader).insert(std::string(kHeader).size() - 1, ",framework,sampling");
  auto row = [](const std::string& framework, const std::string& sampling) {
    std::string r = kGoodRow;
    return r.insert(r.size() - 1, "," + framework + "," + sampling);
  };
  // The column: greedy or top-p, anything else refused at its field.
  const std::string bad = write(header + row("vLLM 0.11.1", "nucleus"));
  std::string message;
  try {
    validation::read_energy_rows(bad);
  } catch (const InputError& e) {
    message = e.what();
  }
  std::filesystem::remove(bad);
  CHECK(message.find("sampling") != std::string::npos);
  CHECK(message.find("expected greedy or top-p, found 'nucleus'") != std::string::npos);

  // Llama 3.1 8B at batch 64 on one H100 at the roofline: vLLM sorts 64 x 128,256 logits a step,
  // 208 bytes each (1.71 GB, 0.51 ms at 3.35 TB/s) on a step of about 6 ms: about 8 % fewer
  // tokens a second than greedy. TensorRT-LLM (h100-hgx8's own stack) samples in one pass.
  const engine::ServingHardware vllm = engine::resolve_hardware(
      "h100", std::string(SCOVILLE_SOURCE_DIR) + "/arch/systems/h100-hgx8.yaml", 1, "vllm", false,
      engine::ServingFidelity::kRoofline);
  const engine::ServingHardware trtllm = engine::resolve_hardware(
      "h100", std::string(SCOVILLE_SOURCE_DIR) + "/arch/systems/h100-hgx8.yaml", 1,
      config::kSystemSoftware, false, engine::ServingFidelity::kRoofline);
  auto predict = [&](const engine::ServingHardware& hw, const std::string& sampling) {
    const std::string file = write(
        header + with_field(11, "64").insert(with_field(11, "64").size() - 1, ",," + sampling));
    const std::vector<validation::EnergyRow> rows = validation::read_energy_rows(file);
    std::filesystem::remove(file);
    REQUIRE(rows.size() == 1);
    CHECK(workloads::to_string(rows[0].sampling) == sampling);
    return validation::predict_energy_row(rows[0], hw, 2);
  };
  const validation::EnergyPrediction greedy = predict(vllm, "greedy");
  const validation::EnergyPrediction top_p = predict(vllm, "top-p");
  INFO("greedy " << greedy.output_tok_s << " tok/s, top-p " << top_p.output_tok_s << " tok/s");
  CHECK(greedy.output_tok_s / top_p.output_tok_s > 1.04);
  CHECK(greedy.output_tok_s / top_p.output_tok_s < 1.15);
  CHECK(top_p.energy_per_token_j > greedy.energy_per_token_j);
  CHECK(predict(trtllm, "top-p").output_tok_s == predict(trtllm, "greedy").output_tok_s);
}

TEST_CASE("energy rows: a prefix hit rate skips that share of each prompt's prefill",
          "[energy_rows]") {
  const std::string header =
      std::string(kHeader).insert(std::string(kHeader).size() - 1, ",prefix_hit_rate");
  // kGoodRow with a 2,048-token prompt and the column's value.
  auto row = [](const std::string& hit_rate) {
    std::string r = with_field(13, "2048");
    return r.insert(r.size() - 1, "," + hit_rate);
  };
  // The column: a fraction in [0, 1); empty is 0; anything else refused at its field.
  for (const char* bad : {"1", "-0.1", "half"}) {
    const std::string message = error_of(row(bad), header);
    INFO(message);
    CHECK(message.find("prefix_hit_rate") != std::string::npos);
    CHECK(message.find("expected a fraction from 0 to below 1") != std::string::npos);
  }
  // Llama 3.1 8B on one H100 at batch 8, 2,048-token prompts and about 430 output tokens, at the
  // roofline without software time: a prompt's prefill (2,048 x 16 GFLOP = 33 TFLOP) is worth
  // several 4.5 ms decode steps and one prompt arrives every 430 / 8 = 54 steps, so prefill takes
  // about a fifth of the time (1,400 against about 1,780 tok/s of decode alone); half of each
  // prompt found in the cache gives a few percent more tokens a second (about 6 %: the prefill
  // that is left runs beside the decode steps' weight reads) and less energy per token.
  const engine::ServingHardware hw = engine::resolve_hardware(
      "h100", std::string(SCOVILLE_SOURCE_DIR) + "/arch/systems/h100-hgx8.yaml", 1, "none", false,
      engine::ServingFidelity::kRoofline);
  auto predict = [&](const std::string& hit_rate) {
    const std::string file = write(header + row(hit_rate));
    const std::vector<validation::EnergyRow> rows = validation::read_energy_rows(file);
    std::filesystem::remove(file);
    REQUIRE(rows.size() == 1);
    return validation::predict_energy_row(rows[0], hw, 4);
  };
  const validation::EnergyPrediction none = predict("");
  const validation::EnergyPrediction zero = predict("0");
  const validation::EnergyPrediction half = predict("0.5");
  INFO("no hits " << none.output_tok_s << " tok/s, half " << half.output_tok_s << " tok/s");
  CHECK(zero.output_tok_s == none.output_tok_s);
  CHECK(half.output_tok_s / none.output_tok_s > 1.03);
  CHECK(half.output_tok_s / none.output_tok_s < 1.15);
  CHECK(half.energy_per_token_j < none.energy_per_token_j);
}

TEST_CASE("energy rows: the measured request count and output-length histogram are simulated",
          "[energy_rows]") {
  const std::string header = std::string(kHeader).insert(std::string(kHeader).size() - 1,
                                                         ",num_requests,output_length_bins");
  // kGoodRow with batch 64, an 8-token prompt, the mean output and the two columns.
  auto row = [](const std::string& mean_output, const std::string& n, const std::string& bins) {
    std::string r = with_field(14, mean_output);
    r = with_field_of(with_field_of(r, 11, "64"), 13, "8");
    return r.insert(r.size() - 1, "," + n + "," + bins);
  };
  // Bad values are refused at their field; empty fields are "not given".
  for (const auto& [n, bins, field] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"0", "", "num_requests"},
           {"x", "", "num_requests"},
           {"", "100-50:3", "output_length_bins"},
           {"", "0-10:1 5-20:1", "output_length_bins"},
           {"100001", "", "num_requests"}}) {
    const std::string message = error_of(row("1000", n, bins), header);
    INFO(message);
    CHECK(message.find(field) != std::string::npos);
  }
  const std::string file = write(header + row("1000", "512", "10-30:2 1970-1990:2"));
  const std::vector<validation::EnergyRow> read = validation::read_energy_rows(file);
  std::filesystem::remove(file);
  REQUIRE(read.size() == 1);
  CHECK(read[0].num_requests == 512);
  REQUIRE(read[0].output_length_bins.size() == 2);
  CHECK(read[0].output_length_bins[1].count == 2);

  const engine::ServingHardware hw = engine::resolve_hardware(
      "h100", std::string(SCOVILLE_SOURCE_DIR) + "/arch/systems/h100-hgx8.yaml", 1, "none", false,
      engine::ServingFidelity::kRoofline);
  auto predict = [&](const std::string& n, const std::string& bins) {
    const std::string path = write(header + row("1000", n, bins));
    const std::vector<validation::EnergyRow> rows = validation::read_energy_rows(path);
    std::filesystem::remove(path);
    REQUIRE(rows.size() == 1);
    return validation::predict_energy_row(rows[0], hw, 4);
  };
  // N sets the window: B + 1 requests leave none (N - B - 1 = 0 finishes), 512 do.
  CHECK_FALSE(predict("65", "").steady_state);
  CHECK(predict("512", "").steady_state);
  // Llama 3.1 8B on one H100 at batch 64, mean output 1,000 tokens either way. Half the answers
  // 20 tokens and half 1,980: the running batch holds the long ones (a slot is held as long as
  // its answer), so a step reads the KV of about (E[o^2] / E[o]) / 2 = 980 tokens a sequence,
  // against about 500 for lengths uniform in [0.8, 1] x 1,111: 64 x 131 kB x 980 = 8.2 GB
  // instead of 4.2 GB beside the 15 GB of weights, so about 15 % fewer tokens a second.
  const validation::EnergyPrediction narrow = predict("512", "");
  const validation::EnergyPrediction wide = predict("512", "10-30:2 1970-1990:2");
  INFO("narrow " << narrow.output_tok_s << " tok/s, wide " << wide.output_tok_s << " tok/s");
  CHECK(wide.output_tok_s < 0.93 * narrow.output_tok_s);
  CHECK(wide.output_tok_s > 0.75 * narrow.output_tok_s);
}
