// A software stack's kernel paths (sim/serving/kernel_path.hpp): the measured kernel's time,
// which ops take a path, how the serving pricer applies it at both fidelities, and the stack
// file's kernel_paths list.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/serving/kernel_path.hpp"
#include "sim/serving/roofline_cost_model.hpp"
#include "workloads/decompose.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/precision_override.hpp"

using namespace scoville;
using namespace scoville::serving;

namespace {

config::DataPaths paths() { return config::DataPaths{SCOVILLE_SOURCE_DIR}; }

// The ROCm blog's Kimi K2.5 shape (docs/software.md, "Kernel paths"): 16,384 tokens, hidden 7,168,
// intermediate 512 per rank, 384 experts, top-8, every expert touched.
constexpr int64_t kTokens = 16384, kHidden = 7168, kInter = 512, kExperts = 384, kTopK = 8;

workloads::Op expert_op(workloads::Sharding sharding, int64_t m, int64_t n, int64_t k,
                        int64_t instances, NumberFormat format = NumberFormat::kInt4) {
  workloads::Op op;
  op.kind = workloads::OpKind::kMatmul;
  op.sharding = sharding;
  op.m = m;
  op.n = n;
  op.k = k;
  op.instances = instances;
  op.weight_format = format;
  return op;
}

KernelPath triton_path(Bandwidth bandwidth = Bandwidth(454e9)) {
  KernelPath p;
  p.name = "triton-fused-moe-wna16";
  p.weights = NumberFormat::kInt4;
  p.block_rows = 64;
  p.weight_pass_bandwidth = bandwidth;
  return p;
}

// Stands for the simulated op table: every op takes 1 us of compute.
class FixedOpCost : public OpCostModel {
 public:
  OpPrice price(const workloads::Op&) const override {
    OpPrice p;
    p.time = Duration(1e-6);
    p.compute_time = Duration(1e-6);
    return p;
  }
  std::string fidelity() const override { return "fixed"; }
};

workloads::ModelConfig int4_experts(const std::string& name) {
  const workloads::ModelConfig base =
      workloads::load_model(paths().resolve(name, "workloads/models"));
  return workloads::apply_precision_override(
      base, workloads::parse_precision_override("experts=int4", "--precision"));
}

IterationBatch decode_batch(int64_t sequences, int64_t context) {
  IterationBatch b;
  for (int64_t i = 0; i < sequences; ++i) {
    b.sequences.push_back({SequencePhase::kDecode, 1, context - 1, context});
  }
  return b;
}

workloads::PoolMapping one_chip() {
  workloads::PoolMapping p;
  p.chips = 1;
  return p;
}

// The iteration's time with the given kernel paths (op table: with `op_cost`, else roofline).
double iteration_seconds(const workloads::ModelConfig& model, const std::vector<KernelPath>& kp,
                         const IterationBatch& batch,
                         std::shared_ptr<const OpCostModel> op_cost = nullptr) {
  SoftwareOverheads sw;
  sw.kernel_paths = kp;
  RooflineOptions options;
  options.op_cost = std::move(op_cost);
  const RooflineCostModel cost(model, config::load_chip("mi300x", paths()), {one_chip()},
                               std::nullopt, sw, options);
  return cost.cost(batch).time.si();
}

// The path's time over one decode step's routed-expert ops, every layer counted.
double expert_path_seconds(const workloads::ModelConfig& model, const KernelPath& path,
                           int64_t sequences, int64_t context) {
  const workloads::IterationTrace trace = workloads::decompose_iteration(
      model, workloads::IterationShape{workloads::Phase::kDecode, sequences, 1, context});
  double t = 0;
  for (const workloads::Op& op : trace.ops) {
    if (takes_path(path, op)) t += kernel_path_time(path, op).si();
  }
  return t;
}

}  // namespace

TEST_CASE("kernel path: the measured shape takes the measured time", "[kernel-path]") {
  const KernelPath path = triton_path();
  const int64_t rows = (kTokens * kTopK + kExperts - 1) / kExperts;  // 342 per expert
  const workloads::Op gate_up =
      expert_op(workloads::Sharding::kExpertColumns, rows, 2 * kInter, kHidden, kExperts);
  const workloads::Op down =
      expert_op(workloads::Sharding::kExpertRows, rows, kHidden, kInter, kExperts);
  // 384 x ceil(342 / 64) = 2,304 passes of 3 x 7168 x 512 INT4 values (4.5 bits) at 454 GB/s:
  // the blog's 31.43 ms.
  const double t = kernel_path_time(path, gate_up).si() + kernel_path_time(path, down).si();
  CHECK(t == Approx(31.43e-3).epsilon(0.001));
  // A decode step routes one or two tokens to each expert touched: one pass each, so a token
  // more or less changes nothing until an expert's block fills.
  const workloads::Op decode =
      expert_op(workloads::Sharding::kExpertColumns, 2, 2 * kInter, kHidden, 284);
  const double pass = 2.0 * kInter * kHidden * bytes_per_value(NumberFormat::kInt4) / 454e9;
  CHECK(kernel_path_time(path, decode).si() == Approx(284 * pass));
  workloads::Op full_block = decode;
  full_block.m = 64;
  CHECK(kernel_path_time(path, full_block).si() == Approx(284 * pass));
  full_block.m = 65;
  CHECK(kernel_path_time(path, full_block).si() == Approx(2 * 284 * pass));
  workloads::Op empty = decode;
  empty.instances = 0;
  CHECK(kernel_path_time(path, empty).si() == 0.0);
}

TEST_CASE("kernel path: the shipped MXFP4 Triton path is its measured program on the whole chip",
          "[kernel-path][software]") {
  // ROCm/triton issue #970 (docs/software.md, "Kernel paths"): on MI300X one matmul_ogs call over
  // GPT-OSS's gate_up experts (4 routed, K 3,072, N 6,144) takes 82.28 us as 96 programs of a
  // 256 x 3,072 MXFP4 tile; 2 programs fit a CU's LDS, so 608 run at once on 304 CUs.
  const config::SoftwareProfile rocm = config::load_software("rocm-vllm", paths());
  const std::vector<KernelPath> on_mi300x = rocm.kernel_paths_on("mi300x");
  const KernelPath* mxfp4 = nullptr;
  for (const KernelPath& p : on_mi300x) {
    if (p.weights == NumberFormat::kMxfp4) mxfp4 = &p;
  }
  REQUIRE(mxfp4 != nullptr);
  CHECK(mxfp4->name == "triton-matmul-ogs-mxfp4");
  const double program_bytes = 256.0 * 3072.0 * bytes_per_value(NumberFormat::kMxfp4);
  CHECK(mxfp4->weight_pass_bandwidth.si() == Approx(608 * program_bytes / 82.28e-6).epsilon(0.002));
  CHECK(mxfp4->block_rows == 64);
  CHECK(mxfp4->matrix_rate.si() == 0.0);
  // It runs on CDNA 3 alone: MI355X has FP4 math, and Hopper's MXFP4 takes vllm's Marlin path.
  bool on_mi355x = false;
  for (const KernelPath& p : rocm.kernel_paths_on("mi355x")) {
    on_mi355x = on_mi355x || p.weights == NumberFormat::kMxfp4;
  }
  CHECK_FALSE(on_mi355x);

  // A decode step of GPT-OSS 120B at 64 sequences pays one pass per expert touched, slower than
  // the 5.3 TB/s HBM stream of the same weights: the path, not the chip, sets the experts' time.
  const workloads::ModelConfig gptoss =
      workloads::load_model(paths().resolve("gpt-oss-120b", "workloads/models"));
  const double path_time = expert_path_seconds(gptoss, *mxfp4, 64, 2048);
  double expert_bytes = 0;
  const workloads::IterationTrace trace = workloads::decompose_iteration(
      gptoss, workloads::IterationShape{workloads::Phase::kDecode, 64, 1, 2048});
  for (const workloads::Op& op : trace.ops) {
    if (takes_path(*mxfp4, op)) {
      expert_bytes += static_cast<double>(op.instances) * static_cast<double>(op.n) *
                      static_cast<double>(op.k) * bytes_per_value(op.weight_format);
    }
  }
  REQUIRE(expert_bytes > 0);
  CHECK(path_time == Approx(expert_bytes / mxfp4->weight_pass_bandwidth.si()));
  CHECK(path_time > expert_bytes / 5.3e12);
}

TEST_CASE("kernel path: routed experts of its own format alone take it", "[kernel-path]") {
  const KernelPath path = triton_path();
  CHECK(takes_path(path, expert_op(workloads::Sharding::kExpertColumns, 2, 1024, 7168, 8)));
  CHECK(takes_path(path, expert_op(workloads::Sharding::kExpertRows, 2, 7168, 512, 8)));
  // Another format (MXFP4 experts have tuned kernels), a dense or shared-expert matmul, or
  // attention: the chip model's pricing stands.
  CHECK_FALSE(takes_path(path, expert_op(workloads::Sharding::kExpertColumns, 2, 1024, 7168, 8,
                                         NumberFormat::kMxfp4)));
  CHECK_FALSE(takes_path(path, expert_op(workloads::Sharding::kFfnColumns, 2, 1024, 7168, 1)));
  workloads::Op attention = expert_op(workloads::Sharding::kExpertColumns, 2, 1024, 7168, 8);
  attention.kind = workloads::OpKind::kAttention;
  CHECK_FALSE(takes_path(path, attention));
  const std::vector<KernelPath> none;
  CHECK(path_for(none, expert_op(workloads::Sharding::kExpertRows, 2, 7168, 512, 8)) == nullptr);
}

TEST_CASE("kernel path: a matrix rate prices the math and takes the longer of its two limits",
          "[kernel-path]") {
  // Marlin's MXFP4 MoE on H100 (arch/software/vllm.yaml): 1.237 TFLOP per layer per GPU in
  // 4.863 ms, measured at 254 TFLOP/s. GPT-OSS 120B's gate/up GEMM of an 8,192-token prefill
  // routes 256 tokens to each of its 128 experts: 2 x 128 x 256 x 5,760 x 2,880 FLOPs.
  KernelPath marlin;
  marlin.name = "marlin-moe-mxfp4";
  marlin.weights = NumberFormat::kMxfp4;
  marlin.matrix_rate = FlopRate(254e12);
  const workloads::Op prefill =
      expert_op(workloads::Sharding::kExpertColumns, 256, 5760, 2880, 128, NumberFormat::kMxfp4);
  const double flops = 2.0 * 128 * 256 * 5760 * 2880;
  CHECK(kernel_path_time(marlin, prefill).si() == Approx(flops / 254e12));
  // The measured layer: 1.237 TFLOP at the rate gives the 4.863 ms it was measured from.
  workloads::Op layer = prefill;
  layer.instances = 1;
  layer.m = 1;
  layer.n = 1237;
  layer.k = 500000000;  // 2 x 1,237 x 5e8 = 1.237 TFLOP
  CHECK(kernel_path_time(marlin, layer).si() == Approx(4.863e-3).epsilon(0.005));
  // A decode step routes a token or two to each expert: a few GFLOP, microseconds, far under
  // the time its weight bytes take from HBM, so the chip model's time stands (next test).
  const workloads::Op decode =
      expert_op(workloads::Sharding::kExpertColumns, 1, 5760, 2880, 16, NumberFormat::kMxfp4);
  CHECK(kernel_path_time(marlin, decode).si() < 3e-6);
  // Both limits: the longer one binds. A weight pass of 5,760 x 2,880 MXFP4 values at 1 GB/s
  // is 8.8 ms, more than the prefill's math; at 10 TB/s the math is longer.
  KernelPath both = marlin;
  both.block_rows = 64;
  both.weight_pass_bandwidth = Bandwidth(1e9);
  const double passes = 128.0 * 4;  // ceil(256 / 64) per expert
  const double pass_bytes = 5760.0 * 2880 * bytes_per_value(NumberFormat::kMxfp4);
  CHECK(kernel_path_time(both, prefill).si() == Approx(passes * pass_bytes / 1e9));
  both.weight_pass_bandwidth = Bandwidth(1e13);
  CHECK(kernel_path_time(both, prefill).si() == Approx(flops / 254e12));
  // No limit at all prices nothing.
  KernelPath none = marlin;
  none.matrix_rate = FlopRate(0);
  CHECK(kernel_path_time(none, prefill).si() == 0.0);
}

TEST_CASE("kernel path: a matrix rate slows a prefill and leaves a decode step to the chip",
          "[kernel-path]") {
  const workloads::ModelConfig model =
      workloads::load_model(paths().resolve("gpt-oss-20b", "workloads/models"));
  KernelPath marlin;
  marlin.name = "marlin-moe-mxfp4";
  marlin.weights = NumberFormat::kMxfp4;
  marlin.matrix_rate = FlopRate(254e12);
  // Decode: the experts' weight bytes bind (roofline), the path's math is shorter.
  const IterationBatch decode = decode_batch(16, 2048);
  CHECK(iteration_seconds(model, {marlin}, decode) == iteration_seconds(model, {}, decode));
  // Prefill of 8,192 tokens: the expert GEMMs' FLOPs at 254 TFLOP/s exceed the chip's rate.
  IterationBatch prefill;
  prefill.sequences.push_back({SequencePhase::kPrefill, 8192, 0, 8192});
  const double base = iteration_seconds(model, {}, prefill);
  const double with = iteration_seconds(model, {marlin}, prefill);
  CHECK(with > 1.2 * base);
  double path_s = 0;
  for (const workloads::Op& op :
       workloads::decompose_iteration(
           model, workloads::IterationShape{workloads::Phase::kPrefill, 1, 8192, 8192})
           .ops) {
    if (takes_path(marlin, op)) path_s += kernel_path_time(marlin, op).si();
  }
  REQUIRE(path_s > 0);
  CHECK(with >= path_s);
  CHECK(with <= base + path_s);
}

TEST_CASE("kernel path: the pricer runs routed experts through it at both fidelities",
          "[kernel-path]") {
  const workloads::ModelConfig model = int4_experts("gpt-oss-20b");
  const IterationBatch batch = decode_batch(16, 2048);
  // Slow enough to bind: the path's own time sets the experts' time.
  const KernelPath slow = triton_path(Bandwidth(5e9));
  const double path_s = expert_path_seconds(model, slow, 16, 2048);
  REQUIRE(path_s > 0);
  KernelPath other_format = slow;
  other_format.weights = NumberFormat::kMxfp4;
  const auto op_table = std::make_shared<FixedOpCost>();
  for (const std::shared_ptr<const OpCostModel>& op_cost :
       {std::shared_ptr<const OpCostModel>(), std::shared_ptr<const OpCostModel>(op_table)}) {
    INFO((op_cost ? "op table" : "roofline"));
    const double base = iteration_seconds(model, {}, batch, op_cost);
    const double with = iteration_seconds(model, {slow}, batch, op_cost);
    // At least the path's time, and no more than the path's time added to the rest.
    CHECK(with >= path_s);
    CHECK(with <= base + path_s);
    // A path for another format changes nothing.
    CHECK(iteration_seconds(model, {other_format}, batch, op_cost) == base);
    // A path faster than the hardware changes nothing either (the longer time wins).
    CHECK(iteration_seconds(model, {triton_path(Bandwidth(1e18))}, batch, op_cost) == base);
  }
}

TEST_CASE("kernel path: a stack file lists its paths and the chips each runs on",
          "[kernel-path][software]") {
  const config::SoftwareProfile p = config::parse_software_string(R"(software:
  name: test
  per_op_launch: 1 us
  per_layer_sync: 0 s
  per_iteration: 100 us
  kernel_paths:
    - name: triton-fused-moe-wna16
      ops: routed_experts
      weights: int4
      chips: [mi300x, mi325x]
      block_rows: 64
      weight_pass_bandwidth: 454 GB/s
)",
                                                                  "<test>");
  REQUIRE(p.kernel_paths.size() == 1);
  const std::vector<KernelPath> on = p.kernel_paths_on("mi325x");
  REQUIRE(on.size() == 1);
  CHECK(on[0].name == "triton-fused-moe-wna16");
  CHECK(on[0].weights == NumberFormat::kInt4);
  CHECK(on[0].block_rows == 64);
  CHECK(on[0].weight_pass_bandwidth.si() == Approx(454e9));
  CHECK(p.kernel_paths_on("h200").empty());

  // A path may give the matrix rate alone.
  const config::SoftwareProfile rate_only = config::parse_software_string(R"(software:
  name: test
  per_op_launch: 1 us
  per_layer_sync: 0 s
  per_iteration: 100 us
  kernel_paths:
    - name: marlin-moe-mxfp4
      ops: routed_experts
      weights: mxfp4
      chips: [h100, h200]
      matrix_rate: 254 TFLOP/s
)",
                                                                          "<test>");
  const std::vector<KernelPath> h100 = rate_only.kernel_paths_on("h100");
  REQUIRE(h100.size() == 1);
  CHECK(h100[0].weights == NumberFormat::kMxfp4);
  CHECK(h100[0].matrix_rate.si() == Approx(254e12));
  CHECK(h100[0].weight_pass_bandwidth.si() == 0.0);
  CHECK(rate_only.kernel_paths_on("b200").empty());

  // Every shipped stack that lists a path names a chip the library has.
  for (const std::string stack : {"rocm-vllm", "sglang-rocm", "vllm"}) {
    const config::SoftwareProfile shipped = config::load_software(stack, paths());
    REQUIRE_FALSE(shipped.kernel_paths.empty());
    for (const config::StackKernelPath& k : shipped.kernel_paths) {
      for (const std::string& chip : k.chips) CHECK(config::load_chip(chip, paths()).name == chip);
    }
  }
}

TEST_CASE("kernel path: a bad entry names its file, line and key", "[kernel-path][software]") {
  const auto error_of = [](const std::string& entry) {
    try {
      config::parse_software_string(std::string(R"(software:
  name: test
  per_op_launch: 1 us
  per_layer_sync: 0 s
  per_iteration: 100 us
  kernel_paths:
)") + entry,
                                    "stack.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string good_tail =
      "      weights: int4\n      chips: [mi300x]\n      block_rows: 64\n"
      "      weight_pass_bandwidth: 454 GB/s\n";
  const std::string ops = error_of("    - name: p\n      ops: attention\n" + good_tail);
  CHECK_THAT(ops, Catch::Contains("stack.yaml:8") && Catch::Contains("kernel_paths[0].ops") &&
                      Catch::Contains("routed_experts"));
  const std::string unit = error_of(
      "    - name: p\n      ops: routed_experts\n      weights: int4\n      chips: [mi300x]\n"
      "      block_rows: 64\n      weight_pass_bandwidth: 454 GHz\n");
  CHECK_THAT(unit, Catch::Contains("kernel_paths[0].weight_pass_bandwidth"));
  const std::string missing =
      error_of("    - name: p\n      ops: routed_experts\n      weights: int4\n");
  CHECK_THAT(missing, Catch::Contains("chips") && Catch::Contains("block_rows") &&
                          Catch::Contains("weight_pass_bandwidth"));
  // block_rows sizes the weight passes: alone beside a matrix rate it is refused.
  const std::string rows_alone = error_of(
      "    - name: p\n      ops: routed_experts\n      weights: mxfp4\n      chips: [h100]\n"
      "      block_rows: 64\n      matrix_rate: 254 TFLOP/s\n");
  CHECK_THAT(rows_alone, Catch::Contains("kernel_paths[0].block_rows") &&
                             Catch::Contains("weight_pass_bandwidth"));
  const std::string rate_unit = error_of(
      "    - name: p\n      ops: routed_experts\n      weights: mxfp4\n      chips: [h100]\n"
      "      matrix_rate: 254 TB/s\n");
  CHECK_THAT(rate_unit,
             Catch::Contains("kernel_paths[0].matrix_rate") && Catch::Contains("TFLOP/s"));
  CHECK_THAT(error_of("    oops\n"), Catch::Contains("kernel_paths"));
}
