// GLM-5 (workloads/models/glm-5.yaml): MLA with DeepSeek Sparse Attention at GLM-5's shape. The
// expected values are closed forms written here from its config.json (cited in the model file)
// and the published size (GLM-5 technical report: 744B total, 40B activated), never read back
// from the code under test.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>

#include "model_files.hpp"
#include "workloads/decompose.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;

namespace {

// config.json
constexpr double kLayers = 78, kDenseLayers = 3, kMoeLayers = 75;
constexpr double kHidden = 6144, kVocab = 154880, kDenseWidth = 12288;
constexpr double kHeads = 64, kQLora = 2048, kLatent = 512, kNope = 192, kRope = 64, kV = 256;
constexpr double kIndexHeads = 32, kIndexDim = 128, kTopK = 2048;
constexpr double kExperts = 256, kTopKExperts = 8, kExpertWidth = 2048;
// Published (technical report, rounded to the billion). "Activated" is read as the transformer
// layers alone, as GLM-4.6's card (tests/workloads/published_counts.hpp).
constexpr double kPublishedTotal = 744e9;
constexpr double kPublishedActive = 40e9;
constexpr double kOnePercent = 0.01;

double attention_per_layer() {
  const double q = kHidden * kQLora + kQLora + kQLora * kHeads * (kNope + kRope);
  const double kv = kHidden * (kLatent + kRope) + kLatent + kLatent * kHeads * (kNope + kV);
  const double o = kHeads * kV * kHidden;
  // Indexer: wq_b from the query latent, wk, k_norm (weight and bias), weights_proj.
  const double indexer = kQLora * kIndexHeads * kIndexDim + kHidden * kIndexDim + 2 * kIndexDim +
                         kHidden * kIndexHeads;
  return q + kv + o + indexer;
}
double expert() { return 3 * kHidden * kExpertWidth; }
double norms() { return (2 * kLayers + 1) * kHidden; }  // two per layer and the final one
// Router (weights and correction bias), the shared expert and `experts` routed ones.
double moe_layer(double experts) {
  return kHidden * kExperts + kExperts + expert() + experts * expert();
}
double layers(double routed) {
  return kLayers * attention_per_layer() + kDenseLayers * 3 * kHidden * kDenseWidth +
         kMoeLayers * moe_layer(routed) + norms();
}

double matrix_flops(const IterationTrace& trace) {
  double flops = 0.0;
  for (const Op& op : trace.ops) {
    if (op.kind != OpKind::kVector) flops += op.flops.si();
  }
  return flops;
}

double cache_read_bytes(const IterationTrace& trace, CacheUse use) {
  double bytes = 0.0;
  for (const Op& op : trace.ops) {
    if (op.cache == use) bytes += op.kv_read_bytes.si();
  }
  return bytes;
}

}  // namespace

TEST_CASE("glm-5: parameter counts match the config and the published size", "[model][dsa]") {
  const ModelConfig m = load_model(model_file("glm-5"));
  const double embeddings = 2 * kVocab * kHidden;  // untied: table and head
  CHECK(double(m.total_parameters()) == Approx(layers(kExperts) + embeddings).epsilon(1e-12));
  CHECK(double(m.total_parameters()) == Approx(kPublishedTotal).epsilon(kOnePercent));
  // The library's active count is the layers and the LM head; the published one, the layers.
  const double active = layers(kTopKExperts) + kVocab * kHidden;
  CHECK(m.active_parameters_per_token() == Approx(active).epsilon(1e-12));
  CHECK(active - kVocab * kHidden == Approx(kPublishedActive).epsilon(kOnePercent));
}

TEST_CASE("glm-5: KV bytes per token and decode work in closed form", "[model][dsa]") {
  const ModelConfig m = load_model(model_file("glm-5"));
  // Per token and layer: FlashMLA's FP8 sparse entry (the latent in FP8 with one float32 scale
  // per 128 values, the RoPE key in BF16), and the indexer's FP8 key with one float32 scale per
  // 128 values.
  const double latent = kLatent * 1.0 + (kLatent / 128) * 4.0 + kRope * 2.0;
  const double key = kIndexDim + 4.0;
  CHECK(m.kv_bytes_per_token().si() == Approx(kLayers * (latent + key)));
  CHECK(m.kv_bytes(10000).si() == Approx(kLayers * (latent + key) * 10000.0));

  for (int64_t c : {int64_t{1000}, int64_t{4096}, int64_t{100000}}) {
    INFO(c);
    const IterationTrace t = decompose_iteration(m, IterationShape{Phase::kDecode, 1, 1, c});
    // The top-k selected latents are read; the indexer scores every cached key.
    const double selected = double(std::min<int64_t>(c - 1, int64_t(kTopK)));
    CHECK(cache_read_bytes(t, CacheUse::kKvCache) == Approx(kLayers * latent * selected));
    CHECK(cache_read_bytes(t, CacheUse::kIndexerKeys) == Approx(kLayers * key * double(c - 1)));
    // 2 x active parameters; absorbed MLA over min(c, top-k) keys (scores over latent + RoPE,
    // values over the latent); the indexer's 32 heads x 128 over all c keys.
    const double keys = double(std::min<int64_t>(c, int64_t(kTopK)));
    const double attention = kLayers * 2 * kHeads * (2 * kLatent + kRope) * keys;
    const double indexer = kLayers * 2 * kIndexHeads * kIndexDim * double(c);
    const double active = layers(kTopKExperts) + kVocab * kHidden;
    // Within 1e-4: the router's correction bias and the indexer's key norm are vector work.
    CHECK(matrix_flops(t) == Approx(2 * (active - norms()) + attention + indexer).epsilon(1e-4));
  }
}
