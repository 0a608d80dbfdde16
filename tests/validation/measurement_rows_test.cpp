// Published rows with a prefill/decode split in their notes (InferenceX's Dynamo DeepSeek rows):
// how validate plans, maps and simulates them; and where pools sit on the network.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/engine/serving_engines.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/output/serving_points_output.hpp"
#include "sim/serving/serving_point.hpp"
#include "sim/validation/measurement_rows.hpp"
#include "workloads/mapping/pool_mapping.hpp"

using namespace scoville;

namespace {

config::DataPaths paths() { return config::DataPaths{SCOVILLE_SOURCE_DIR}; }

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string file =
      (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))).string();
  std::ofstream(file) << text;
  return file;
}

// Plans the rows of a CSV body under the measurements file's header (with the shipped
// deployment recipes, or the ones given).
std::vector<validation::RowPlan> plan(
    const std::string& body, const std::vector<validation::DeploymentRecipe>* recipes = nullptr) {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("scoville_rows_" + std::to_string(::getpid()) + ".csv"))
                               .string();
  {
    std::ofstream out(file);
    out << "id,system,chips,model,precision,framework,isl,osl,concurrency,throughput_metric,"
           "throughput,interactivity_tok_s_user,ttft_ms,tpot_ms,notes\n"
        << body;
  }
  std::vector<validation::RowPlan> plans =
      recipes ? validation::plan_rows(validation::read_measurements(file), *recipes)
              : validation::plan_rows(validation::read_measurements(file));
  std::filesystem::remove(file);
  return plans;
}

const char* kRecipeHeader =
    "system,concurrency,prefill_workers,prefill_tp,prefill_ep,prefill_attention_dp,"
    "prefill_max_batch,prefill_max_tokens,decode_workers,decode_tp,decode_ep,"
    "decode_attention_dp,decode_max_batch,decode_max_tokens,mtp_depth,recipe\n";

// The InputError message of reading a recipe file with this body under the header.
std::string recipe_error(const std::string& body) {
  const std::string file = temp_file("scoville_recipes_", std::string(kRecipeHeader) + body);
  std::string message;
  try {
    validation::read_deployment_recipes(file);
  } catch (const InputError& e) {
    message = e.what();
  }
  std::filesystem::remove(file);
  return message;
}

const char* kGb200Row =
    "66,NVIDIA GB200 NVL72,36,DeepSeek-R1-0528,FP4(NVFP4),\"Dynamo+TRT-LLM, MTP on, "
    "disaggregated\",1024,1024,4,total_tok_s_per_chip,60.7,286.4,,3.49,\"prefill 4 GPU TP4, "
    "decode 32 GPU EP8; MTP enabled\"\n";
const char* kB200MultinodeRow =
    "84,NVIDIA B200 multinode (RoCEv2 400G between nodes),44,DeepSeek-R1-0528,FP4(NVFP4),"
    "\"Dynamo+TRT-LLM, MTP on, disaggregated\",1024,1024,4968,total_tok_s_per_chip,9660.7,56.35,,"
    "17.75,\"prefill 12 TP12, decode 32 EP8; MTP enabled\"\n";

}  // namespace

TEST_CASE("a row whose notes give the prefill/decode split is planned with both pools and MTP",
          "[validation]") {
  const std::vector<validation::RowPlan> plans = plan(std::string(kGb200Row) + kB200MultinodeRow);
  REQUIRE(plans.size() == 2);
  const validation::RowPlan& gb = plans[0];
  CHECK(gb.skipped.empty());
  CHECK(gb.mtp);
  CHECK(gb.prefill_chips == 4);
  CHECK(gb.decode_chips == 32);
  CHECK(gb.decode_ep == 8);
  CHECK(gb.replica_chips == 36);  // the per-chip metric divides by both pools
  CHECK(gb.system_file == "gb200-nvl72");
  CHECK(gb.decode_first_chip == 4);  // one NVLink domain: right after the prefill pool
  // The published row names its experts' format; the file's W4A4 MLPs (AMD's MXFP4 release)
  // give way to the file's weights and activations formats, as the rows were fitted.
  CHECK(gb.precision_override == "experts=nvfp4,mlp=fp8,mlp_activations=fp8");
  const validation::RowPlan& b = plans[1];
  CHECK(b.skipped.empty());
  CHECK(b.system_file == "b200-multinode");
  CHECK(b.decode_first_chip == 16);  // 12 prefill chips fill a board and a half: next board
}

TEST_CASE("an INT4 row runs INT4 experts (W4A16), an MXFP4 row MXFP4 ones", "[validation]") {
  const std::vector<validation::RowPlan> plans = plan(
      "43,AMD MI300X (8-GPU),,Kimi-K2.5,INT4,vLLM,8192,1024,64,total_tok_s_per_chip,287.0,4.1,"
      "1739.9,243.4,\n"
      "44,AMD MI355X (8-GPU),,Kimi-K2.5,FP4(MXFP4),vLLM,8192,1024,64,total_tok_s_per_chip,"
      "2697.4,19.1,,52.3,\n");
  REQUIRE(plans.size() == 2);
  CHECK(plans[0].precision_override == "experts=int4,mlp=bf16,mlp_activations=bf16");
  CHECK(plans[1].precision_override == "experts=mxfp4,mlp=bf16,mlp_activations=bf16");
}

TEST_CASE("rows whose split cannot be used are skipped with the reason", "[validation]") {
  // 4 + 32 chips against the row's 40; MTP with no split; a split of a model not mapped; a
  // prefill pool of several instances.
  const std::vector<validation::RowPlan> plans = plan(
      "1,NVIDIA GB200 NVL72,40,DeepSeek-R1-0528,FP4(NVFP4),Dynamo,1024,1024,4,"
      "total_tok_s_per_chip,60,280,,3.5,\"prefill 4 GPU TP4, decode 32 GPU EP8\"\n"
      "2,NVIDIA GB200 NVL72,36,DeepSeek-R1-0528,FP4(NVFP4),Dynamo,1024,1024,4,"
      "total_tok_s_per_chip,60,280,,3.5,MTP enabled\n"
      "3,NVIDIA GB200 NVL72,36,gpt-oss-120b,FP4(MXFP4),Dynamo,1024,1024,4,"
      "total_tok_s_per_chip,60,280,,3.5,\"prefill 4 GPU TP4, decode 32 GPU EP8\"\n"
      "4,NVIDIA GB200 NVL72,40,DeepSeek-R1-0528,FP4(NVFP4),Dynamo,1024,1024,4,"
      "total_tok_s_per_chip,60,280,,3.5,\"prefill 8 GPU TP4, decode 32 GPU EP8\"\n");
  REQUIRE(plans.size() == 4);
  CHECK(plans[0].skipped.find("do not add up") != std::string::npos);
  CHECK(plans[1].skipped == "MTP without a published prefill/decode split");
  CHECK(plans[2].skipped.find("does not map") != std::string::npos);
  CHECK(plans[3].skipped.find("does not map") != std::string::npos);  // two TP4 instances
}

TEST_CASE("a split with one tensor-parallel decode worker maps any model, over all its chips",
          "[validation]") {
  // GPT-OSS with one TP8 decode worker (the EP form is DeepSeek R1's recipes only); a worker
  // narrower than its chips (two TP4 workers) is refused; the EP form of the same model still is.
  const std::vector<validation::RowPlan> plans = plan(
      "1,NVIDIA GB200 NVL72,9,gpt-oss-120b,FP4(MXFP4),Dynamo,8192,1024,1,"
      "total_tok_s_per_chip,500,530,105,1.9,\"prefill 1 GPU TP1, decode 8 GPU TP8 EP1\"\n"
      "2,NVIDIA GB200 NVL72,9,gpt-oss-120b,FP4(MXFP4),Dynamo,8192,1024,1,"
      "total_tok_s_per_chip,500,530,105,1.9,\"prefill 1 GPU TP1, decode 8 GPU TP4 EP1\"\n"
      "3,NVIDIA GB200 NVL72,9,gpt-oss-120b,FP4(MXFP4),Dynamo,8192,1024,4,"
      "total_tok_s_per_chip,500,530,105,1.9,\"prefill 1 GPU TP1, decode 8 GPU EP8\"\n");
  REQUIRE(plans.size() == 3);
  CHECK(plans[0].skipped.empty());
  CHECK(plans[0].decode_tensor_parallel);
  CHECK(plans[0].prefill_chips == 1);
  CHECK(plans[0].decode_chips == 8);
  CHECK(plans[0].decode_ep == 1);
  // No DeepSeek recipe of the system at that concurrency applies to a TP worker.
  CHECK_FALSE(plans[0].recipe.has_value());
  CHECK(plans[1].skipped.find("does not map") != std::string::npos);
  CHECK(plans[2].skipped.find("does not map") != std::string::npos);
  CHECK_FALSE(plans[2].decode_tensor_parallel);
}

TEST_CASE("a colocated row with MTP in its framework runs with drafts, one with no MTP without",
          "[validation]") {
  const std::vector<validation::RowPlan> plans = plan(
      "1,NVIDIA B200 (8-GPU),8,GLM-5,FP8,TileRT + MTP (batch 1),8192,1024,1,"
      "total_tok_s_per_chip,160,340,,,single request\n"
      "2,NVIDIA B200 (8-GPU),8,GLM-5,FP8,\"vLLM, aggregated, no MTP\",8192,1024,1,"
      "total_tok_s_per_chip,160,340,,,single request\n"
      "3,NVIDIA GB200 NVL72,36,DeepSeek-R1-0528,FP4(NVFP4),\"Dynamo+TRT-LLM, MTP on, "
      "disaggregated\",1024,1024,4,total_tok_s_per_chip,60,280,,3.5,\n");
  REQUIRE(plans.size() == 3);
  CHECK(plans[0].mtp);
  CHECK(plans[0].skipped.empty());
  CHECK(validation::row_scheduler(plans[0]).mtp.depth == validation::kRowMtpDepth);
  CHECK_FALSE(plans[1].mtp);
  CHECK(validation::row_scheduler(plans[1]).mtp.depth == 0);
  // Disaggregated with MTP and no split: its pools are unknown.
  CHECK(plans[2].mtp);
  CHECK(plans[2].skipped == "MTP without a published prefill/decode split");
}

TEST_CASE("a row predicted on its interactivity alone compares no throughput", "[validation]") {
  // No throughput but an interactivity at its concurrency; a decode node behind an unpublished
  // prefill pool; neither figure.
  const std::vector<validation::RowPlan> plans = plan(
      "1,NVIDIA B200 (8-GPU),8,GLM-5,FP8,TileRT + MTP,1024,1024,1,total_tok_s_per_chip,,494,,,\n"
      "2,\"NVIDIA B200 (8-GPU, one decode node)\",8,GLM-5,FP8,TileRT + MTP,8192,1024,1,"
      "total_tok_s_per_chip,160,340,,,\n"
      "3,NVIDIA B200 (8-GPU),8,GLM-5,FP8,TileRT + MTP,1024,1024,1,total_tok_s_per_chip,,,,,\n");
  REQUIRE(plans.size() == 3);
  CHECK(plans[0].skipped.empty());
  CHECK_FALSE(plans[0].published);
  CHECK(plans[0].published_intvty == Approx(494));
  CHECK(plans[0].throughput_not_compared == "no published throughput");
  CHECK(plans[1].skipped.empty());
  CHECK_FALSE(plans[1].published);
  CHECK(plans[1].throughput_not_compared.find("prefill pool") != std::string::npos);
  CHECK(plans[2].skipped.find("no published throughput") != std::string::npos);
  // The errors count each row's interactivity and only the throughputs compared.
  std::vector<validation::RowPlan> two = {plans[0], plans[1]};
  two[1].published = 100.0;
  std::vector<validation::RowPrediction> pred(2);
  pred[0].throughput = 1e9;  // not compared: must not count
  pred[0].intvty = 494 * 1.1;
  pred[1].throughput = 120;
  pred[1].intvty = 340 * 0.9;
  // (10 + 20 + 10) / 3 terms.
  CHECK(validation::combined_mape(two, pred) == Approx(40.0 / 3.0));
}

TEST_CASE(
    "without a recipe the decode pool runs tensor-parallel attention per instance below one "
    "sequence per chip and data-parallel attention from there",
    "[validation]") {
  const std::vector<validation::DeploymentRecipe> none;
  validation::RowPlan p = plan(kGb200Row, &none).front();
  REQUIRE(!p.recipe);
  const workloads::ModelConfig m = validation::row_model(p, paths());
  CHECK(m.mtp_layers() == 1);
  workloads::MappingConfig low = validation::row_mapping(p, m, SourceLocation{"row", 1, 1});
  REQUIRE(low.pools.size() == 2);
  const workloads::PoolMapping& prefill = low.pools[0];
  CHECK(prefill.pool == "prefill");
  CHECK(prefill.chips == 4);
  CHECK(prefill.degrees.tp == 4);
  CHECK(prefill.degrees.ep == 4);
  CHECK(prefill.degrees.attn_dp == 1);
  const workloads::PoolMapping& decode = low.pools[1];
  CHECK(decode.pool == "decode");
  CHECK(decode.chips == 32);
  CHECK(decode.degrees.tp == 32);
  CHECK(decode.degrees.ep == 8);       // four expert replicas, one per 8-chip instance
  CHECK(decode.degrees.attn_dp == 4);  // attention tensor parallel over each instance's 8 chips
  CHECK(decode.attn_tp() == decode.degrees.ep);
  CHECK(decode.first_chip == 4);
  p.concurrency = 32;
  CHECK(validation::row_mapping(p, m, SourceLocation{}).pools[1].degrees.attn_dp == 32);
  // 12 prefill chips do not divide DeepSeek's 128 heads: attention data parallel, EP 4.
  p.prefill_chips = 12;
  const workloads::PoolMapping wide = validation::row_mapping(p, m, SourceLocation{}).pools[0];
  CHECK(wide.degrees.attn_dp == 12);
  CHECK(wide.degrees.ep == 4);
  CHECK_NOTHROW(workloads::validate_mapping(m, wide));
  for (const workloads::PoolMapping& pool : low.pools) {
    CHECK_NOTHROW(workloads::validate_mapping(m, pool));
  }
  const serving::SchedulerConfig s = validation::row_scheduler(p);
  CHECK(s.mtp.depth == validation::kRowMtpDepth);
  CHECK(s.mtp.acceptance == validation::kRowMtpAcceptance);
  CHECK(s.max_num_seqs == 32);
}

TEST_CASE("the shipped deployment recipes cover the published Dynamo rows", "[validation]") {
  const std::vector<validation::DeploymentRecipe> recipes =
      validation::shipped_deployment_recipes(paths());
  CHECK(recipes.size() == 20);
  const validation::DeploymentRecipe* r = validation::find_recipe(recipes, "gb200-nvl72", 180);
  REQUIRE(r != nullptr);
  CHECK(r->prefill.chips() == 4);
  CHECK(r->prefill.schedulers() == 4);  // attention DP: one scheduler per GPU
  CHECK(r->decode.chips() == 32);
  CHECK(r->decode.ep == 32);
  CHECK(r->decode.max_batch == 4);
  CHECK(r->mtp_depth == 3);
  const validation::DeploymentRecipe* tep = validation::find_recipe(recipes, "b200-multinode", 90);
  REQUIRE(tep != nullptr);
  CHECK_FALSE(tep->decode.attention_dp);
  CHECK(tep->decode.schedulers() == 5);  // one per 8-GPU worker
  CHECK(validation::find_recipe(recipes, "b200-multinode", 91) == nullptr);
}

TEST_CASE("a row with a recipe is mapped and scheduled as it was launched", "[validation]") {
  const std::vector<validation::RowPlan> plans = plan(std::string(kGb200Row) + kB200MultinodeRow);
  REQUIRE(plans.size() == 2);
  const validation::RowPlan& low = plans[0];  // GB200 at 4 users: 4 TEP8 workers, batch 8 each
  REQUIRE(low.recipe);
  const workloads::ModelConfig m = validation::row_model(low, paths());
  const workloads::MappingConfig mapping = validation::row_mapping(low, m, SourceLocation{});
  CHECK(mapping.pools[0].degrees.attn_dp == 4);  // prefill: attention DP over its 4 GPUs
  CHECK(mapping.pools[0].degrees.ep == 4);
  CHECK(mapping.pools[1].degrees.attn_dp == 4);  // decode: one attention group per worker
  CHECK(mapping.pools[1].degrees.ep == 8);
  for (const workloads::PoolMapping& pool : mapping.pools) {
    CHECK_NOTHROW(workloads::validate_mapping(m, pool));
  }
  CHECK(validation::row_scheduler(low).mtp.depth == 3);
  const validation::RowPlan& high = plans[1];  // B200 at 4,968 users: MTP 1, DEP8 x 4, batch 128
  REQUIRE(high.recipe);
  CHECK(validation::row_scheduler(high).mtp.depth == 1);
  const workloads::ModelConfig mh = validation::row_model(high, paths());
  CHECK(validation::row_mapping(high, mh, SourceLocation{}).pools[1].degrees.attn_dp == 32);

  // The engine's pools take the recipe's limits per scheduler, and hold decode slots.
  const engine::ServingHardware hw = engine::resolve_hardware(
      "gb200", paths().resolve("gb200-nvl72", "arch/systems"), 8, "gpu-cuda-graphs");
  engine::ServingEngine e = validation::make_row_engine(low, hw, m);
  CHECK(e.system.handoff == "reserve-decode-slot");
  CHECK(e.system.pools[0].scheduler.max_num_seqs == 16 * 4);
  CHECK(e.system.pools[0].scheduler.max_num_batched_tokens == 16384 * 4);
  CHECK(e.system.pools[1].scheduler.max_num_seqs == 8 * 4);
  CHECK(e.system.pools[1].scheduler.max_num_batched_tokens == 32 * 4);
}

TEST_CASE("a recipe that contradicts the row's notes skips the row", "[validation]") {
  validation::DeploymentRecipe r = validation::shipped_deployment_recipes(paths()).front();
  REQUIRE(r.system == "gb200-nvl72");
  REQUIRE(r.concurrency == 4);
  r.decode.workers = 2;  // 16 decode chips against the notes' 32
  const std::vector<validation::DeploymentRecipe> fewer_chips{r};
  const std::vector<validation::RowPlan> plans = plan(kGb200Row, &fewer_chips);
  CHECK(plans.front().skipped.find("other pools than the notes") != std::string::npos);
  r.decode.workers = 4;
  r.mtp_depth = 0;
  const std::vector<validation::DeploymentRecipe> no_mtp{r};
  CHECK(plan(kGb200Row, &no_mtp).front().skipped.find("disagree on MTP") != std::string::npos);
}

TEST_CASE("a bad deployment recipe names its file, line, column and what was expected",
          "[validation][errors]") {
  const std::string good = "gb200-nvl72,4,1,4,4,true,16,16384,4,8,8,false,8,32,3,x\n";
  CHECK(recipe_error(good).empty());
  // ep 3 does not divide tp 8 (column 11, decode_ep).
  const std::string ep = recipe_error("gb200-nvl72,4,1,4,4,true,16,16384,4,8,3,false,8,32,3,x\n");
  CHECK(ep.find(":2:11") != std::string::npos);
  CHECK(ep.find("expected a divisor of decode_tp") != std::string::npos);
  const std::string flag = recipe_error("gb200-nvl72,4,1,4,4,yes,16,16384,4,8,8,false,8,32,3,x\n");
  CHECK(flag.find("expected true or false, got 'yes'") != std::string::npos);
  const std::string count =
      recipe_error("gb200-nvl72,4,1,4,4,true,16,16384,4,8,8,false,-8,32,3,x\n");
  CHECK(count.find("decode_max_batch") != std::string::npos);
  CHECK(count.find("expected a whole number from 1") != std::string::npos);
  CHECK(recipe_error(good + good).find("a second recipe for gb200-nvl72") != std::string::npos);
  const std::string file = temp_file("scoville_recipes_header_", "system,concurrency\n");
  try {
    validation::read_deployment_recipes(file);
    FAIL("a header without the pools' columns was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("prefill_workers") != std::string::npos);
  }
  std::filesystem::remove(file);
}

TEST_CASE("pools sit on consecutive chips unless one names its first chip", "[validation]") {
  workloads::PoolMapping a, b;
  a.chips = 4;
  b.chips = 32;
  CHECK(workloads::pool_first_chips({a, b}) == std::vector<int64_t>{0, 4});
  b.first_chip = 8;
  CHECK(workloads::pool_first_chips({a, b}) == std::vector<int64_t>{0, 8});
  b.first_chip = 2;  // inside the first pool
  CHECK_THROWS_AS(workloads::pool_first_chips({a, b}), InputError);
}

TEST_CASE("a B200 multi-node decode pool on whole boards keeps its expert all-to-all on NVLink",
          "[validation]") {
  // The published deployment's decode pool starts on a board boundary (chip 8 after a 4-chip
  // prefill pool). Started right after the prefill pool instead, every 8-chip EP group straddles
  // two boards and its all-to-all crosses the 400G RoCE fabric: decode steps get slower.
  validation::RowPlan p =
      plan(
          "75,NVIDIA B200 multinode (RoCEv2 400G between nodes),44,DeepSeek-R1-0528,"
          "FP4(NVFP4),\"Dynamo+TRT-LLM, MTP on, disaggregated\",1024,1024,32,"
          "total_tok_s_per_chip,300,200,,5,\"prefill 4 GPU TP4, decode 40 GPU "
          "EP8; MTP enabled\"\n")
          .front();
  REQUIRE(p.skipped.empty());
  REQUIRE(p.decode_first_chip == 8);
  p.isl = 256;
  p.osl = 32;
  const engine::ServingHardware hw = engine::resolve_hardware(
      "b200", paths().resolve("b200-multinode", "arch/systems"), 8, "gpu-cuda-graphs");
  validation::RowSimulator aligned(p, hw, 1);
  const validation::RowPrediction on_boards = aligned.run(hw.efficiency);
  p.decode_first_chip = p.prefill_chips;
  validation::RowSimulator straddling(p, hw, 1);
  const validation::RowPrediction across = straddling.run(hw.efficiency);
  CHECK(on_boards.throughput > 0);
  CHECK(on_boards.intvty > 1.05 * across.intvty);  // 11.6 % at the time of writing
  // MTP: the same row without it delivers fewer tokens per step.
  p.decode_first_chip = 8;
  p.mtp = false;
  validation::RowSimulator plain(p, hw, 1);
  CHECK(plain.run(hw.efficiency).intvty < on_boards.intvty);
}

TEST_CASE(
    "an MLPerf replica of an MLA model runs data-parallel attention from one sequence per chip, "
    "other colocated rows keep tensor-parallel attention",
    "[validation]") {
  validation::RowPlan p;
  p.id = "mlperf";
  p.model = "deepseek-r1";
  p.replica_chips = 8;
  p.concurrency = 512;
  p.scenario = validation::RowScenario::kOffline;
  const workloads::ModelConfig m = validation::row_model(p, paths());
  const auto pool = [&] { return validation::row_mapping(p, m, SourceLocation{}).pools.at(0); };
  CHECK(pool().degrees.tp == 8);
  CHECK(pool().degrees.ep == 8);
  CHECK(pool().degrees.attn_dp == 8);  // each chip its own sequences' latent cache
  CHECK_NOTHROW(workloads::validate_mapping(m, pool()));
  p.concurrency = 4;  // fewer sequences than chips: attention tensor parallel
  CHECK(pool().degrees.attn_dp == 1);
  p.concurrency = 512;
  p.scenario = validation::RowScenario::kPoint;  // an InferenceX point: as its stack was fitted
  CHECK(pool().degrees.attn_dp == 1);
  p.scenario = validation::RowScenario::kServer;
  p.model = "llama-3.1-405b";  // GQA: its KV heads split over tensor-parallel ranks
  CHECK(validation::row_mapping(p, validation::row_model(p, paths()), SourceLocation{})
            .pools.at(0)
            .degrees.attn_dp == 1);
}

TEST_CASE("an MLPerf Server point runs Poisson arrivals, whose queue a closed loop never builds",
          "[validation]") {
  validation::RowPlan p;
  p.id = "server";
  p.model = "llama-3.1-8b";
  p.metric = "output_tok_s_per_chip";
  p.replica_chips = 1;
  p.concurrency = 16;  // the clients of the closed loop; the batch limit of the Poisson load
  p.isl = 256;
  p.osl = 32;
  p.scenario = validation::RowScenario::kServer;
  const engine::ServingHardware hw = engine::resolve_hardware(
      "h200", paths().resolve("h200-hgx8", "arch/systems"), 1, "gpu-cuda-graphs");
  const validation::RowPrediction closed = validation::RowSimulator(p, hw, 4).run(hw.efficiency);
  REQUIRE(closed.throughput > 0);
  const double capacity = closed.throughput / static_cast<double>(p.osl);  // requests/s
  // Well under capacity: the load is served as sent, at its rate.
  p.arrival_rate = 0.2 * capacity;
  const validation::RowPrediction light = validation::RowSimulator(p, hw, 4).run(hw.efficiency);
  CHECK(light.throughput == Approx(p.arrival_rate * static_cast<double>(p.osl)).epsilon(0.25));
  CHECK(light.p99_ttft_ms < closed.p99_ttft_ms);
  // Over capacity: requests queue behind the batch limit, far longer than the closed loop's.
  p.arrival_rate = 3.0 * capacity;
  const validation::RowPrediction heavy = validation::RowSimulator(p, hw, 4).run(hw.efficiency);
  CHECK(heavy.p99_ttft_ms > 2.0 * closed.p99_ttft_ms);
  CHECK(heavy.throughput <= closed.throughput * 1.05);
}
