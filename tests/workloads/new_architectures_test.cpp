// Issue 26's model architectures: hybrid linear attention (Qwen3-Next), DeepSeek Sparse
// Attention (DeepSeek V3.2) and interleaved MoE with chunked local attention (Llama 4 Maverick),
// and the typed sharding rules every op declares. Expected values are closed forms written
// here from each config.json's numbers (cited in the model files), never read back from the
// code under test.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "mapping_test_support.hpp"
#include "model_files.hpp"
#include "workloads/attention_counts.hpp"
#include "workloads/decompose.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/mapping/memory_footprint.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;

namespace {

constexpr double kOnePercent = 0.01;

// Matrix FLOPs of a trace (matmuls and attention cores): the part the closed forms count.
double matrix_flops(const IterationTrace& trace) {
  double flops = 0.0;
  for (const Op& op : trace.ops) {
    if (op.kind != OpKind::kVector) flops += op.flops.si();
  }
  return flops;
}

double cache_bytes(const IterationTrace& trace, CacheUse use, bool read) {
  double bytes = 0.0;
  for (const Op& op : trace.ops) {
    if (op.cache == use) bytes += (read ? op.kv_read_bytes : op.kv_write_bytes).si();
  }
  return bytes;
}

IterationTrace decode(const ModelConfig& m, int64_t context) {
  return decompose_iteration(m, IterationShape{Phase::kDecode, 1, 1, context});
}

// --- Qwen3-Next 80B-A3B config.json ---
constexpr double kQnLayers = 48, kQnFull = 12, kQnLinear = 36;  // full_attention_interval 4
constexpr double kQnHidden = 2048, kQnVocab = 151936;
constexpr double kQnHeads = 16, kQnKvHeads = 2, kQnHeadDim = 256;
constexpr double kQnKeyHeads = 16, kQnValueHeads = 32, kQnKeyDim = 128, kQnValueDim = 128;
constexpr double kQnConv = 4;
constexpr double kQnExperts = 512, kQnTopK = 10, kQnExpertWidth = 512;
// Published: "80B in total and 3B activated" (HF model card), both rounded to the billion.
constexpr double kQnTotal = 80e9;
constexpr double kQnActive = 3e9;

double qn_full_attention() {
  // q_proj (query + gate), k_proj, v_proj, o_proj.
  return kQnHidden * (2 * kQnHeads + 2 * kQnKvHeads) * kQnHeadDim +
         kQnHeads * kQnHeadDim * kQnHidden;
}
double qn_linear_attention() {
  const double key = kQnKeyHeads * kQnKeyDim, value = kQnValueHeads * kQnValueDim;
  return kQnHidden * (2 * key + 2 * value + 2 * kQnValueHeads) + (2 * key + value) * kQnConv +
         2 * kQnValueHeads + kQnValueDim + value * kQnHidden;
}
double qn_expert() { return 3 * kQnHidden * kQnExpertWidth; }
// Per layer: router, shared expert, top_k routed experts.
double qn_moe_active() { return kQnHidden * kQnExperts + qn_expert() + kQnTopK * qn_expert(); }

// --- DeepSeek V3.2-Exp config.json: the V3 shape plus the indexer ---
constexpr double kDsLayers = 61, kDsHidden = 7168, kDsQLora = 1536;
constexpr double kDsIndexHeads = 64, kDsIndexDim = 128, kDsTopK = 2048;
constexpr double kDsHeads = 128, kDsLatent = 512, kDsRope = 64;
constexpr double kDsV3Active = 36.6e9;  // DeepSeek-V3 with its 0.9B head (REFERENCE.md)
constexpr double kDsV3Total = 671e9;
constexpr double kDsHfTotal = 685e9;  // HF deepseek-ai/DeepSeek-V3.2-Exp, MTP module included

double ds_indexer() {
  // wq_b, wk, k_norm (weight and bias), weights_proj.
  return kDsQLora * kDsIndexHeads * kDsIndexDim + kDsHidden * kDsIndexDim + 2 * kDsIndexDim +
         kDsHidden * kDsIndexHeads;
}

// --- Llama 4 Maverick config.json text_config ---
constexpr double kL4Layers = 48, kL4Hidden = 5120, kL4Vocab = 202048;
constexpr double kL4Heads = 40, kL4KvHeads = 8, kL4HeadDim = 128;
constexpr int64_t kL4Chunk = 8192;
constexpr double kL4Experts = 128, kL4ExpertWidth = 8192, kL4DenseWidth = 16384;
// Published: "17B active, 400B total" (Meta model card), rounded to the billion.
constexpr double kL4Total = 400e9;
constexpr double kL4Active = 17e9;

}  // namespace

TEST_CASE("every op of every library model declares a sharding rule", "[mapping][sharding]") {
  const std::string dir = std::string(SCOVILLE_SOURCE_DIR) + "/workloads/models";
  int models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    ModelConfig m = load_model(entry.path().string());
    if (m.ffn().type == FfnType::kMoe) m = m.with_mtp_layers(1);  // MTP glue ops too
    BatchShape mixed;
    mixed.sequences = {{Phase::kPrefill, 512, 1024}, {Phase::kDecode, 1, 3000}};
    const BatchTrace trace = decompose_batch(m, mixed);
    for (const Op& op : trace.ops) {
      INFO(op.name << " layer " << op.layer);
      CHECK(op.sharding != Sharding::kUnset);
      // Cache bytes are always declared for what they are.
      if (op.kv_read_bytes.si() > 0 || op.kv_write_bytes.si() > 0) {
        CHECK(op.cache != CacheUse::kNone);
      }
    }
    ++models;
  }
  CHECK(models >= 14);
}

TEST_CASE("an op without a sharding rule is refused, by name", "[mapping][sharding]") {
  const ModelConfig m = load_model(model_file("llama-3.1-8b"));
  std::vector<Op> ops = decode(m, 100).ops;
  REQUIRE_NOTHROW(require_sharding_rules(ops));
  Op unknown;
  unknown.name = "mystery_mixer";
  unknown.layer = 3;
  unknown.kind = OpKind::kMatmul;
  ops.push_back(unknown);
  CHECK_THROWS_WITH(require_sharding_rules(ops), Catch::Contains("'mystery_mixer'") &&
                                                     Catch::Contains("layer 3") &&
                                                     Catch::Contains("no sharding rule"));
}

TEST_CASE("chunked and top-k attention counts match a token-by-token count", "[attention]") {
  for (int64_t chunk : {1, 3, 8}) {
    for (int64_t before : {0, 1, 5, 8, 17}) {
      for (int64_t fresh : {1, 2, 7, 9, 20}) {
        int64_t pairs = 0;
        for (int64_t p = before; p < before + fresh; ++p) pairs += p % chunk + 1;
        INFO(chunk << " " << before << " " << fresh);
        CHECK(chunked_attended_pairs(before, fresh, chunk) == pairs);
        // The first new token's chunk holds the cached keys any new token can see.
        int64_t cached = 0;
        for (int64_t q = 0; q < before; ++q) cached += q / chunk == before / chunk ? 1 : 0;
        CHECK(chunked_cached_tokens_attended(before, chunk) == cached);
      }
    }
  }
  CHECK(selected_cached_tokens(100000, 1, 2048) == 2048);
  CHECK(selected_cached_tokens(1000, 1, 2048) == 1000);
}

TEST_CASE("qwen3-next-80b-a3b: parameters, state and decode work in closed form",
          "[model][linear]") {
  const ModelConfig m = load_model(model_file("qwen3-next-80b-a3b"));
  REQUIRE(m.linear_layers() == 36);
  for (int layer = 0; layer < m.layers(); ++layer) {
    CHECK((m.layer_attention(layer) == LayerAttention::kFull) == ((layer + 1) % 4 == 0));
  }
  const double norms = (2 * kQnLayers + 1) * kQnHidden;
  const double layers =
      kQnFull * qn_full_attention() + kQnLinear * qn_linear_attention() +
      kQnLayers * (kQnHidden * kQnExperts + qn_expert() + kQnExperts * qn_expert()) + norms;
  const double total = layers + 2 * kQnVocab * kQnHidden;
  CHECK(double(m.total_parameters()) == Approx(total).epsilon(1e-12));
  CHECK(double(m.total_parameters()) == Approx(kQnTotal).epsilon(kOnePercent));
  // Active, layers only (no embedding or head): the card's "3B" is rounded to the billion, so
  // the check is its rounding interval; the exact closed form is checked below.
  const double active_layers = kQnFull * qn_full_attention() + kQnLinear * qn_linear_attention() +
                               kQnLayers * qn_moe_active() + norms;
  CHECK(active_layers > kQnActive - 0.5e9);
  CHECK(active_layers < kQnActive + 0.5e9);
  CHECK(m.active_parameters_per_token() ==
        Approx(active_layers + kQnVocab * kQnHidden).epsilon(1e-9));

  // State: per linear layer and sequence, value_heads x [128 x 128] plus 3 inputs of the conv's
  // 2 x 2048 + 4096 channels, BF16; KV only on the 12 full layers.
  const double state_layer =
      (kQnValueHeads * kQnKeyDim * kQnValueDim +
       (2 * kQnKeyHeads * kQnKeyDim + kQnValueHeads * kQnValueDim) * (kQnConv - 1)) *
      2.0;
  CHECK(m.state_bytes_per_sequence().si() == Approx(kQnLinear * state_layer));
  const double kv_token = kQnFull * 2 * kQnKvHeads * kQnHeadDim * 2.0;
  CHECK(m.kv_bytes_per_token().si() == Approx(kv_token));
  CHECK(m.kv_bytes(10000).si() == Approx(kv_token * 10000 + kQnLinear * state_layer));

  // Decode at context c: 2 x active parameters, the full layers' attention over c keys, the
  // linear layers' three state products per value head; the state read and written once.
  const int64_t c = 32768;
  const IterationTrace t = decode(m, c);
  const double attention = kQnFull * 2 * kQnHeads * 2 * kQnHeadDim * double(c);
  const double recurrence = kQnLinear * kQnValueHeads * 3 * 2 * kQnKeyDim * kQnValueDim;
  CHECK(matrix_flops(t) ==
        Approx(2 * (active_layers - norms + kQnVocab * kQnHidden) + attention + recurrence)
            .epsilon(kOnePercent));
  CHECK(cache_bytes(t, CacheUse::kRecurrentState, true) == Approx(kQnLinear * state_layer));
  CHECK(cache_bytes(t, CacheUse::kRecurrentState, false) == Approx(kQnLinear * state_layer));
  CHECK(cache_bytes(t, CacheUse::kKvCache, true) == Approx(kv_token * double(c - 1)));
  // A fresh prompt starts from a zero state: nothing to read.
  const IterationTrace prefill =
      decompose_iteration(m, IterationShape{Phase::kPrefill, 1, 1024, 1024});
  CHECK(cache_bytes(prefill, CacheUse::kRecurrentState, true) == 0.0);
}

TEST_CASE("qwen3-next-80b-a3b: TP 8 splits the state by heads and fits its footprint",
          "[model][linear][mapping]") {
  const ModelConfig m = load_model(model_file("qwen3-next-80b-a3b"));
  const int64_t batch = 16, context = 4096;
  const IterationShape shape{Phase::kDecode, batch, 1, context};
  const MappedIteration mapped = map_iteration(m, shape, pool(8, 8, 1, 1, 1));
  const std::vector<MemoryFootprint> footprint = memory_footprint(m, mapped, Bytes(141e9));
  REQUIRE(footprint.size() == 1);
  // 8 ranks over 2 KV heads: each rank holds one, half a layer's row; the state split 8 ways.
  const double kv = kQnFull * double(context) * (2 * kQnHeadDim * 2.0);
  const double state = m.state_bytes_per_sequence().si() / 8.0;
  CHECK(footprint[0].kv_cache.si() == Approx(double(batch) * (kv + state)));
  // The recurrence's state traffic over all ranks is the unsharded one.
  double read = 0.0;
  for (const ChipRole& role : mapped.roles) {
    for (const TraceNode& node : role.trace.nodes) {
      if (node.kind == TraceNodeKind::kCompute && node.op.cache == CacheUse::kRecurrentState) {
        read += double(role.trace.multiplicity) * node.op.kv_read_bytes.si();
      }
    }
  }
  CHECK(read == Approx(double(batch) * m.state_bytes_per_sequence().si()));
  // TP 32 would split the 16 linear key heads unevenly.
  CHECK_THROWS_WITH(
      map_iteration(m, IterationShape{Phase::kDecode, 32, 1, 100}, pool(32, 32, 1, 1, 1)),
      Catch::Contains("linear-attention key heads"));
}

TEST_CASE("deepseek-v3.2: the indexer's parameters, keys and top-k reads in closed form",
          "[model][dsa]") {
  const ModelConfig m = load_model(model_file("deepseek-v3.2"));
  const ModelConfig r1 = load_model(model_file("deepseek-r1"));
  // The V3 shape plus one indexer per layer.
  CHECK(double(m.total_parameters() - r1.total_parameters()) ==
        Approx(kDsLayers * ds_indexer()).epsilon(1e-12));
  CHECK(double(m.total_parameters()) ==
        Approx(kDsV3Total + kDsLayers * ds_indexer()).epsilon(kOnePercent));
  CHECK(double(m.with_mtp_layers(1).total_parameters()) == Approx(kDsHfTotal).epsilon(kOnePercent));
  CHECK(m.active_parameters_per_token() ==
        Approx(kDsV3Active + kDsLayers * ds_indexer()).epsilon(kOnePercent));

  // Cache per token and layer: FlashMLA's FP8 sparse entry (the latent in FP8 with one float32
  // scale per 128 values, the RoPE key in BF16), and the indexer's FP8 key with one float32
  // scale per 128 values.
  const double latent = kDsLatent * 1.0 + (kDsLatent / 128) * 4.0 + kDsRope * 2.0;
  const double key = kDsIndexDim + 4.0;
  REQUIRE(latent == 656.0);
  CHECK(m.kv_bytes_per_token().si() == Approx(kDsLayers * (latent + key)));

  // Decode at a long context reads the top-k selected latents, and scores every cached key.
  for (int64_t c : {int64_t{1000}, int64_t{100000}}) {
    INFO(c);
    const IterationTrace t = decode(m, c);
    const double selected = double(std::min<int64_t>(c - 1, int64_t(kDsTopK)));
    CHECK(cache_bytes(t, CacheUse::kKvCache, true) == Approx(kDsLayers * latent * selected));
    CHECK(cache_bytes(t, CacheUse::kIndexerKeys, true) == Approx(kDsLayers * key * double(c - 1)));
    // FLOPs: 2 x active parameters, absorbed MLA over min(c, top-k) keys (scores over latent +
    // rope, values over the latent), the indexer's 64 heads x 128 over all c keys.
    const double keys = double(std::min<int64_t>(c, int64_t(kDsTopK)));
    const double attention = kDsLayers * 2 * kDsHeads * (2 * kDsLatent + kDsRope) * keys;
    const double indexer = kDsLayers * 2 * kDsIndexHeads * kDsIndexDim * double(c);
    CHECK(matrix_flops(t) ==
          Approx(2 * m.active_parameters_per_token() + attention + indexer).epsilon(kOnePercent));
  }
  // Without the indexer the same model attends to every key (DeepSeek R1's decode), and its
  // dense FP8 cache is the plain 576-value row.
  const IterationTrace dense = decode(r1, 100000);
  CHECK(cache_bytes(dense, CacheUse::kKvCache, true) ==
        Approx(kDsLayers * (kDsLatent + kDsRope) * 1.0 * double(100000 - 1)));
}

TEST_CASE("llama-4-maverick: interleaved MoE, chunked attention and its KV in closed form",
          "[model][chunked]") {
  const ModelConfig m = load_model(model_file("llama-4-maverick"));
  int moe = 0;
  for (int layer = 0; layer < m.layers(); ++layer) {
    CHECK(m.layer_is_moe(layer) == (layer % 2 == 1));
    CHECK((m.layer_attention(layer) == LayerAttention::kFull) == ((layer + 1) % 4 == 0));
    moe += m.layer_is_moe(layer) ? 1 : 0;
  }
  REQUIRE(moe == 24);
  const double attention =
      kL4Hidden * (kL4Heads + 2 * kL4KvHeads) * kL4HeadDim + kL4Heads * kL4HeadDim * kL4Hidden;
  const double expert = 3 * kL4Hidden * kL4ExpertWidth;
  const double dense = 3 * kL4Hidden * kL4DenseWidth;
  const double norms = (2 * kL4Layers + 1) * kL4Hidden;
  const double table = kL4Vocab * kL4Hidden;
  const double total = kL4Layers * attention + 24 * dense +
                       24 * (kL4Hidden * kL4Experts + expert + kL4Experts * expert) + norms +
                       2 * table;
  CHECK(double(m.total_parameters()) == Approx(total).epsilon(1e-12));
  CHECK(double(m.total_parameters()) == Approx(kL4Total).epsilon(kOnePercent));
  // Active with the input embedding row, as Meta's "17B" (rounded to the billion) reads.
  const double active = kL4Layers * attention + 24 * dense +
                        24 * (kL4Hidden * kL4Experts + 2 * expert) + norms + table;
  CHECK(m.active_parameters_per_token() == Approx(active).epsilon(1e-9));
  CHECK(active + table > kL4Active - 0.5e9);
  CHECK(active + table < kL4Active + 0.5e9);

  // KV: every layer caches K and V; a chunked layer keeps one chunk at most.
  const double row = 2 * kL4KvHeads * kL4HeadDim * 2.0;
  CHECK(m.kv_bytes_per_token().si() == Approx(kL4Layers * row));
  const int64_t c = 100000;
  CHECK(m.kv_bytes(c).si() == Approx(row * (12.0 * double(c) + 36.0 * double(kL4Chunk))));

  // Decode at c: global layers read c - 1 cached keys, chunked ones those of the token's chunk.
  const IterationTrace t = decode(m, c);
  const double in_chunk = double((c - 1) % kL4Chunk);
  CHECK(cache_bytes(t, CacheUse::kKvCache, true) ==
        Approx(row * (12.0 * double(c - 1) + 36.0 * in_chunk)));
  const double scored = 12.0 * double(c) + 36.0 * (in_chunk + 1);
  CHECK(matrix_flops(t) ==
        Approx(2 * (active - norms) + 2 * kL4Heads * 2 * kL4HeadDim * scored).epsilon(kOnePercent));
}

TEST_CASE("the new attention fields are required where the layer pattern needs them",
          "[model][loader]") {
  const std::string base = R"(name: t
layers: 4
hidden_size: 64
vocab_size: 100
max_context: 1000
norm: rmsnorm
ffn: {type: dense, activation: swiglu, intermediate_size: 128}
precision: {weights: bf16, activations: bf16, kv_cache: bf16}
)";
  const auto load = [&](const std::string& attention) {
    return load_model_from_string(base + "attention: " + attention, "t.yaml");
  };
  CHECK_THROWS_WITH(load("{type: gqa, heads: 4, kv_heads: 2, head_dim: 16, "
                         "window_pattern: 'chunked, full'}"),
                    Catch::Contains("attention.attention_chunk"));
  CHECK_THROWS_WITH(load("{type: gqa, heads: 4, kv_heads: 2, head_dim: 16, "
                         "window_pattern: 'linear, full'}"),
                    Catch::Contains("attention.linear_key_heads"));
  CHECK_THROWS_WITH(load("{type: gqa, heads: 4, kv_heads: 2, head_dim: 16, index_topk: 8}"),
                    Catch::Contains("attention.index_heads"));
  CHECK_THROWS_WITH(load("{type: gqa, heads: 4, kv_heads: 2, head_dim: 16, "
                         "window_pattern: 'local, full'}"),
                    Catch::Contains("'chunked' and 'linear'"));
  const ModelConfig ok = load(
      "{type: gqa, heads: 4, kv_heads: 2, head_dim: 16, "
      "window_pattern: 'linear, full', linear_key_heads: 2, "
      "linear_value_heads: 4, linear_key_head_dim: 8, "
      "linear_value_head_dim: 8, linear_conv_kernel: 4}");
  CHECK(ok.linear_layers() == 2);
}

TEST_CASE("qwen3.5-397b-a17b: the Qwen3-Next shape scaled up, in closed form", "[model][linear]") {
  const ModelConfig m = load_model(model_file("qwen3.5-397b-a17b"));
  // text_config: 60 layers (15 full), hidden 4096, 32 / 2 heads of 256, linear 16 key and 64
  // value heads of 128, 512 experts (top-10) and one shared, all 1024 wide, vocab 248320.
  const double h = 4096, vocab = 248320, full = 15, linear = 45, layers = 60;
  const double key = 16 * 128, value = 64 * 128, expert = 3 * h * 1024;
  const double full_attention = h * (2 * 32 + 2 * 2) * 256 + 32 * 256 * h;
  const double linear_attention =
      h * (2 * key + 2 * value + 2 * 64) + (2 * key + value) * 4 + 2 * 64 + 128 + value * h;
  const double norms = (2 * layers + 1) * h;
  const double attention = full * full_attention + linear * linear_attention;
  CHECK(
      double(m.total_parameters()) ==
      Approx(attention + layers * (h * 512 + 513 * expert) + norms + 2 * vocab * h).epsilon(1e-12));
  CHECK(double(m.total_parameters()) == Approx(397e9).epsilon(kOnePercent));
  // "A17B", rounded to the billion: read with the embedding row, as qwen3-235b-a22b's card.
  const double active = attention + layers * (h * 512 + 11 * expert) + norms + vocab * h;
  CHECK(m.active_parameters_per_token() == Approx(active).epsilon(1e-9));
  CHECK(active + vocab * h > 16.5e9);
  CHECK(active + vocab * h < 17.5e9);
  const double state = linear * (64 * 128 * 128 + (2 * key + value) * 3) * 2.0;
  CHECK(m.state_bytes_per_sequence().si() == Approx(state));
  CHECK(m.kv_bytes_per_token().si() == Approx(full * 2 * 2 * 256 * 2.0));
  const IterationTrace t = decode(m, 8192);
  CHECK(cache_bytes(t, CacheUse::kRecurrentState, true) == Approx(state));
  CHECK(matrix_flops(t) == Approx(2 * (active - norms) + full * 2 * 32 * 2 * 256 * 8192.0 +
                                  linear * 64 * 6 * 128 * 128)
                               .epsilon(kOnePercent));
}
