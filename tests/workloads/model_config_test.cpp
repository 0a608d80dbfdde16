#include <catch2/catch.hpp>

#include "model_files.hpp"
#include "published_counts.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;

TEST_CASE("llama-3.1-8b: parameters and BF16 weight bytes match the published count", "[model]") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  CHECK(double(model.total_parameters()) == Approx(kLlama31_8bParameters).epsilon(kOnePercent));
  const double bf16 = bytes_per_value(NumberFormat::kBf16);
  CHECK(model.weight_bytes().si() == Approx(kLlama31_8bParameters * bf16).epsilon(kOnePercent));
  CHECK(model.weight_bytes_by_format().size() == 1);
  // Active = all but the input embedding table (a lookup, not a matmul).
  const double embedding = double(model.vocab_size() * model.hidden_size());
  CHECK(model.active_parameters_per_token() ==
        Approx(kLlama31_8bParameters - embedding).epsilon(kOnePercent));
}

TEST_CASE("gpt-oss-20b: total and active parameters match the published counts", "[model]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));
  CHECK(double(model.total_parameters()) == Approx(kGptOss20bTotal).epsilon(kOnePercent));
  CHECK(model.active_parameters_per_token() == Approx(kGptOss20bActive).epsilon(kOnePercent));
}

TEST_CASE("gpt-oss-20b: MXFP4 experts and BF16 rest give the weight bytes", "[model]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));
  const FfnConfig& ffn = model.ffn();
  // Expert matrices: gate, up and down of every expert in every layer.
  const double expert_matrices =
      double(model.layers() * ffn.experts * 3 * model.hidden_size() * ffn.expert_intermediate_size);
  const double expected =
      (kGptOss20bTotal - expert_matrices) * bytes_per_value(NumberFormat::kBf16) +
      expert_matrices * bytes_per_value(NumberFormat::kMxfp4);
  CHECK(model.weight_bytes().si() == Approx(expected).epsilon(kOnePercent));
  CHECK(model.weight_bytes_by_format().at(NumberFormat::kMxfp4).si() ==
        Approx(expert_matrices * bytes_per_value(NumberFormat::kMxfp4)));
}

TEST_CASE("llama-3.1-8b: KV bytes per token are 2 x layers x kv_heads x head_dim x bytes",
          "[model][kv]") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const AttentionConfig& a = model.attention();
  const double per_token =
      2.0 * double(model.layers() * a.kv_heads * a.head_dim) * bytes_per_value(NumberFormat::kBf16);
  CHECK(model.kv_bytes_per_token().si() == Approx(per_token));
  const int64_t context = 8192;
  CHECK(model.kv_bytes(context).si() == Approx(per_token * double(context)));
}

TEST_CASE("gpt-oss-20b: sliding-window layers cache at most the window", "[model][kv]") {
  const ModelConfig model = load_model(model_file("gpt-oss-20b"));
  const AttentionConfig& a = model.attention();
  REQUIRE(model.layer_attention(0) == LayerAttention::kSliding);
  REQUIRE(model.layer_attention(1) == LayerAttention::kFull);
  const double per_token_layer =
      2.0 * double(a.kv_heads * a.head_dim) * bytes_per_value(NumberFormat::kBf16);
  const int64_t sliding_layers = model.layers() / 2;  // even layers slide
  const int64_t full_layers = model.layers() - sliding_layers;

  const int64_t long_context = 8192;
  CHECK(model.kv_bytes(long_context).si() ==
        Approx(per_token_layer *
               double(full_layers * long_context + sliding_layers * a.sliding_window)));
  const int64_t short_context = a.sliding_window / 2;  // below the window, every layer keeps all
  CHECK(model.kv_bytes(short_context).si() ==
        Approx(per_token_layer * double(model.layers() * short_context)));
  CHECK(model.kv_bytes_per_token().si() == Approx(per_token_layer * double(model.layers())));
}

TEST_CASE("derived models keep every field they do not change", "[model]") {
  // gpt-oss-20b: alternating sliding and full layers, MoE, MXFP4 experts.
  const ModelConfig full = load_model(model_file("gpt-oss-20b")).with_sampler(Sampler::kFullSort);
  REQUIRE(full.layers() == 24);

  SECTION("with_layers: one layer per class, sampler, precision and head kept") {
    const ModelConfig two =
        full.with_layers({full.layer_attention(0), full.layer_attention(1)}, full.ffn());
    CHECK(two.layers() == 2);
    CHECK(two.layer_attention(0) == full.layer_attention(0));
    CHECK(two.layer_attention(1) == full.layer_attention(1));
    CHECK(two.sampler() == Sampler::kFullSort);
    CHECK(two.precision().experts == full.precision().experts);
    CHECK(two.vocab_size() == full.vocab_size());
    CHECK(two.mtp_layers() == full.mtp_layers());
    // Parameters are recounted: the embedding and head stay, the layers shrink 12x.
    CHECK(two.parameters().embedding == full.parameters().embedding);
    CHECK(two.parameters().routed_expert_matrices * 12 == full.parameters().routed_expert_matrices);
    CHECK_THROWS_AS(full.with_layers({}, full.ffn()).layers(), std::invalid_argument);
  }
  SECTION("with_precision and with_mtp_layers keep the sampler") {
    CHECK(full.with_precision(full.precision()).sampler() == Sampler::kFullSort);
    CHECK(full.with_mtp_layers(1).sampler() == Sampler::kFullSort);
    CHECK(full.with_mtp_layers(1).mtp_layers() == 1);
    CHECK(full.with_mtp_layers(1).total_parameters() > full.total_parameters());
  }
}
