// Per-run precision overrides: parsing (study map, command line), errors, and their effect.
#include <catch2/catch.hpp>

#include <string>

#include "model_files.hpp"
#include "sim/base/yaml_reader.hpp"
#include "workloads/decompose.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/precision_override.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;

namespace {

std::vector<Diagnostic> errors_of_flag(const std::string& text) {
  try {
    parse_precision_override(text, "--precision");
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  FAIL("expected an InputError");
  return {};
}

PrecisionOverride read_map(const std::string& yaml, Diagnostics& diagnostics) {
  const YAML::Node root = load_yaml_string(yaml, "study.yaml");
  MapReader top(root, "study.yaml", "", diagnostics);
  return read_precision_override(top.map("precision"));
}

}  // namespace

TEST_CASE("the precision flag parses class=format pairs", "[precision]") {
  const PrecisionOverride o =
      parse_precision_override(" weights=fp8, kv_cache = fp8 ", "--precision");
  REQUIRE(o.entries.size() == 2);
  CHECK(o.entries.at("weights").format == NumberFormat::kFp8);
  CHECK(o.entries.at("kv_cache").format == NumberFormat::kFp8);
  CHECK(o.str() == "kv_cache=fp8,weights=fp8");
}

TEST_CASE("the precision flag reports every bad item with what was expected",
          "[precision][errors]") {
  const std::vector<Diagnostic> errors =
      errors_of_flag("weight=fp8,kv_cache=fp9,experts,weights=bf16,weights=fp8");
  REQUIRE(errors.size() == 4);
  CHECK_THAT(errors[0].message, Catch::Contains("did you mean 'weights'"));
  CHECK_THAT(errors[1].message, Catch::Contains("did you mean 'fp8'"));
  CHECK_THAT(errors[2].message, Catch::Contains("expected class=format"));
  CHECK_THAT(errors[3].message, Catch::Contains("given twice"));
  CHECK(errors_of_flag("").size() == 1);
}

TEST_CASE("a study precision map: known classes and formats, located errors",
          "[precision][errors]") {
  Diagnostics ok;
  const PrecisionOverride o = read_map("precision:\n  experts: nvfp4\n  activations: fp8\n", ok);
  CHECK(ok.empty());
  CHECK(o.entries.at("experts").format == NumberFormat::kNvfp4);
  CHECK(o.entries.at("experts").key_path == "precision.experts");
  CHECK(o.entries.at("experts").where.line == 2);

  Diagnostics bad;
  read_map("precision:\n  kv_cach: fp8\n  weights: int3\n", bad);
  REQUIRE(bad.size() == 2);
  bool unknown_class = false;
  bool unknown_format = false;
  for (const Diagnostic& d : bad.items()) {
    unknown_class = unknown_class || (d.key_path == "precision.kv_cach" && d.where.line == 2 &&
                                      d.message.find("kv_cache") != std::string::npos);
    unknown_format = unknown_format || (d.key_path == "precision.weights" && d.where.line == 3);
  }
  CHECK(unknown_class);
  CHECK(unknown_format);
}

TEST_CASE("an override changes weight and KV bytes by the format ratio", "[precision]") {
  const ModelConfig base = load_model(model_file("gpt-oss-120b"));
  const ModelConfig fp8 = apply_precision_override(
      base, parse_precision_override("weights=fp8,embeddings=fp8,kv_cache=fp8", "--precision"));
  const double ratio = bytes_per_value(NumberFormat::kFp8) / bytes_per_value(NumberFormat::kBf16);
  CHECK(fp8.kv_bytes_per_token().si() == Approx(base.kv_bytes_per_token().si() * ratio));
  // Only the BF16 share shrinks; the MXFP4 experts stay.
  const Bytes mxfp4 = base.weight_bytes_by_format().at(NumberFormat::kMxfp4);
  CHECK(fp8.weight_bytes_by_format().at(NumberFormat::kMxfp4).si() == Approx(mxfp4.si()));
  CHECK((fp8.weight_bytes() - mxfp4).si() == Approx((base.weight_bytes() - mxfp4).si() * ratio));
  CHECK(fp8.precision().activations == base.precision().activations);
}

TEST_CASE("an experts override on a dense model is refused where it was written",
          "[precision][errors]") {
  const ModelConfig dense = load_model(model_file("llama-3.1-70b"));
  try {
    apply_precision_override(dense, parse_precision_override("experts=mxfp4", "--precision"));
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].key_path == "--precision experts");
    CHECK_THAT(e.diagnostics()[0].message, Catch::Contains("dense"));
  }
}

namespace {

const Op& op_named(const IterationTrace& trace, const std::string& name) {
  for (const Op& op : trace.ops) {
    if (op.name == name) return op;
  }
  FAIL("no op named " << name);
  return trace.ops.front();
}

}  // namespace

// W4A4 MLPs (AMD Quark's MXFP4 checkpoints, as kimi-k2.5.yaml describes): the MLP matmuls
// multiply at FP4 while attention keeps its format; the MLP weights' bytes follow `mlp`; unset
// classes follow weights and activations, also after an override of those.
TEST_CASE("mlp and mlp_activations: MLP matmuls at their own formats", "[precision]") {
  const ModelConfig w4a4 = load_model(model_file("kimi-k2.5"));
  REQUIRE(w4a4.precision().mlp_activations == NumberFormat::kMxfp4);
  const ModelConfig w4a16 = apply_precision_override(
      w4a4, parse_precision_override("mlp=bf16,mlp_activations=bf16", "--precision"));
  const IterationShape prefill{Phase::kPrefill, 1, 256, 256};
  const IterationTrace before = decompose_iteration(w4a16, prefill);
  CHECK(op_named(before, "moe_experts_gate_up").math == MathPrecision::kBf16);
  CHECK(op_named(before, "ffn_down").weight_format == NumberFormat::kBf16);

  const IterationTrace after = decompose_iteration(w4a4, prefill);
  CHECK(op_named(after, "moe_experts_gate_up").math == MathPrecision::kFp4);
  CHECK(op_named(after, "moe_experts_down").math == MathPrecision::kFp4);
  CHECK(op_named(after, "moe_shared_gate_up").math == MathPrecision::kFp4);
  CHECK(op_named(after, "ffn_down").math == MathPrecision::kFp4);  // the dense first layer
  CHECK(op_named(after, "ffn_down").weight_format == NumberFormat::kMxfp4);
  CHECK(op_named(after, "attn_out").math == MathPrecision::kBf16);
  CHECK(op_named(after, "attn_out").weight_format == NumberFormat::kBf16);
  // Same work, fewer bytes: the shared experts and the dense FFN shrink from BF16 to MXFP4.
  CHECK(op_named(after, "ffn_down").flops.si() == Approx(op_named(before, "ffn_down").flops.si()));
  const ParameterCounts& p = w4a4.parameters();
  const double mlp_values = static_cast<double>(p.dense_ffn + p.shared_experts);
  const double saved =
      mlp_values * (bytes_per_value(NumberFormat::kBf16) - bytes_per_value(NumberFormat::kMxfp4));
  CHECK((w4a16.weight_bytes() - w4a4.weight_bytes()).si() == Approx(saved));

  // Unset (gpt-oss-120b, llama-3.1-8b), the MLP classes follow an override of weights and
  // activations.
  const auto fp8 = parse_precision_override("weights=fp8,activations=fp8", "--precision");
  const ModelConfig dense = apply_precision_override(load_model(model_file("llama-3.1-8b")), fp8);
  REQUIRE_FALSE(dense.precision().mlp.has_value());
  CHECK(op_named(decompose_iteration(dense, prefill), "ffn_down").weight_format ==
        NumberFormat::kFp8);
  const ModelConfig moe = apply_precision_override(load_model(model_file("gpt-oss-120b")), fp8);
  CHECK(op_named(decompose_iteration(moe, prefill), "moe_experts_gate_up").math ==
        MathPrecision::kFp8);
}

// INT4 is weight-only (W4A16): experts in it multiply at their activations' precision, and it
// cannot hold activations or the KV cache, in an override or in a model file.
TEST_CASE("int4 experts are weight-only", "[precision]") {
  const ModelConfig base = load_model(model_file("gpt-oss-120b"));
  const IterationShape prefill{Phase::kPrefill, 1, 256, 256};
  const ModelConfig w4a16 =
      apply_precision_override(base, parse_precision_override("experts=int4", "--precision"));
  const IterationTrace trace = decompose_iteration(w4a16, prefill);
  const Op& gate_up = op_named(trace, "moe_experts_gate_up");
  CHECK(gate_up.weight_format == NumberFormat::kInt4);
  CHECK(gate_up.math == MathPrecision::kBf16);
  const ModelConfig w4a8 = apply_precision_override(
      base, parse_precision_override("experts=int4,mlp_activations=fp8", "--precision"));
  const IterationTrace w4a8_trace = decompose_iteration(w4a8, prefill);
  CHECK(op_named(w4a8_trace, "moe_experts_gate_up").math == MathPrecision::kFp8);
  for (const std::string cls : {"activations", "kv_cache", "mlp_activations", "residual"}) {
    try {
      apply_precision_override(base, parse_precision_override(cls + "=int4", "--precision"));
      FAIL("expected an InputError for " << cls);
    } catch (const InputError& e) {
      REQUIRE(e.diagnostics().size() == 1);
      CHECK(e.diagnostics()[0].key_path == "--precision " + cls);
      CHECK_THAT(e.diagnostics()[0].message, Catch::Contains("weight-only"));
    }
  }
}
