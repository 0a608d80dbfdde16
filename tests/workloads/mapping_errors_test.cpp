// Impossible mappings and mappings that do not fit: one clear InputError with the numbers.
#include <catch2/catch.hpp>

#include <string>

#include "model_files.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/base/yaml_reader.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/mapping/memory_footprint.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;
using Catch::Matchers::Contains;

namespace {

PoolMapping pool(int64_t tp, int64_t ep, int64_t pp, int64_t dp, int64_t attn_dp,
                 int64_t chips = 0) {
  PoolMapping m;
  m.pool = "decode";
  m.degrees = ParallelDegrees{tp, ep, pp, dp, attn_dp};
  m.chips = chips > 0 ? chips : dp * pp * tp;
  m.where = SourceLocation{"mapping.yaml", 7, 3};
  return m;
}

std::string error_of(const ModelConfig& model, const PoolMapping& m, int64_t batch = 64) {
  try {
    map_iteration(model, IterationShape{Phase::kDecode, batch, 1, 1024}, m);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("TP that does not divide the attention heads is rejected") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const int64_t tp = 3;
  REQUIRE(model.attention().heads % tp != 0);
  const std::string e = error_of(model, pool(tp, 1, 1, 1, 1));
  CHECK_THAT(e, Contains("mapping.yaml:7:3"));
  CHECK_THAT(e, Contains("mapping.decode.tp"));
  CHECK_THAT(e, Contains("tp 3 does not divide the " + std::to_string(model.attention().heads) +
                         " attention heads"));
}

TEST_CASE("TP and the KV heads must divide one another") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));  // 32 heads, 8 KV heads
  CHECK(error_of(model, pool(16, 1, 1, 1, 1)) == "no error");        // each KV head on 2 ranks
  // The same model with 24 heads in 6 KV groups: tp 4 divides the heads but not the KV heads.
  std::string text = read_text_file(model_file("llama-3.1-8b"));
  const auto set = [&](const std::string& key, const std::string& value) {
    const size_t at = text.find(key);
    REQUIRE(at != std::string::npos);
    const size_t end = text.find(' ', text.find_first_not_of(' ', at + key.size()));
    text.replace(at, end - at, key + " " + value);
  };
  set("  heads:", "24");
  set("  kv_heads:", "6");
  const ModelConfig odd = load_model_from_string(text, "odd.yaml");
  REQUIRE(odd.attention().kv_heads == 6);
  const std::string e = error_of(odd, pool(4, 1, 1, 1, 1));
  CHECK_THAT(e, Contains("tp 4 and the 6 KV heads"));
}

TEST_CASE("EP that does not divide the experts is rejected") {
  const ModelConfig model = load_model(model_file("gpt-oss-120b"));
  const int64_t ep = 3;
  REQUIRE(model.ffn().experts % ep != 0);
  const std::string e = error_of(model, pool(1, ep, 1, 1, 1));
  CHECK_THAT(e, Contains("mapping.decode.ep"));
  CHECK_THAT(e, Contains("ep 3 does not divide the " + std::to_string(model.ffn().experts) +
                         " routed experts"));
  CHECK_THAT(error_of(load_model(model_file("llama-3.1-8b")), pool(2, 2, 1, 1, 1)),
             Contains("is dense"));
}

TEST_CASE("Degrees that do not multiply to the pool's chips are rejected") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const std::string e = error_of(model, pool(2, 1, 2, 1, 1, 8));
  CHECK_THAT(e, Contains("mapping.decode.chips"));
  CHECK_THAT(e, Contains("dp x pp x tp = 1 x 2 x 2 = 4 chips, but the pool has 8"));
}

TEST_CASE("Other impossible mappings each name the degree at fault") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  CHECK_THAT(error_of(model, pool(1, 1, model.layers() + 1, 1, 1)),
             Contains("exceeds the " + std::to_string(model.layers()) + " layers"));
  CHECK_THAT(error_of(model, pool(4, 1, 1, 1, 3, 4)), Contains("attn_dp 3 does not divide tp 4"));
  CHECK_THAT(error_of(model, pool(0, 1, 1, 1, 1, 1)), Contains("expected a degree >= 1"));
  CHECK_THAT(error_of(model, pool(8, 1, 1, 1, 8), 4), Contains("dp x attn_dp = 8"));
  PoolMapping sp_with_attn_dp = pool(4, 1, 1, 1, 2);
  sp_with_attn_dp.degrees.sequence_parallel = true;
  CHECK_THAT(error_of(model, sp_with_attn_dp), Contains("sequence parallelism needs attn_dp 1"));
  // Several problems are reported together.
  const std::string both = error_of(model, pool(3, 1, 1, 1, 1, 5));
  CHECK_THAT(both, Contains("mapping.decode.chips"));
  CHECK_THAT(both, Contains("mapping.decode.tp"));
}

TEST_CASE("A mapping that does not fit gives the numbers per chip") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const MappedIteration mapped =
      map_iteration(model, IterationShape{Phase::kDecode, 32, 1, 8192}, pool(1, 1, 1, 1, 1));
  // One chip must hold all weights; give it a little less than they take.
  const Bytes hbm = model.weight_bytes() * 0.9;
  const auto footprint = memory_footprint(model, mapped, hbm);
  REQUIRE(footprint.size() == 1);
  const MemoryFootprint& m = footprint.front();
  CHECK(m.weights.si() == Approx(model.weight_bytes().si()));
  CHECK(m.kv_cache.si() == Approx(32.0 * model.kv_bytes(8192).si()));
  CHECK_FALSE(m.fits());
  CHECK(m.kv_capacity.si() == 0.0);
  try {
    check_fit(mapped, footprint);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string text = e.what();
    CHECK_THAT(text, Contains("does not fit"));
    CHECK_THAT(text, Contains("needs " + format_si(m.needed().si(), "B")));
    CHECK_THAT(text, Contains("weights " + format_si(m.weights.si(), "B")));
    CHECK_THAT(text, Contains("KV cache " + format_si(m.kv_cache.si(), "B")));
    CHECK_THAT(text, Contains("has " + format_si(hbm.si(), "B") + " of HBM"));
  }
  // Split 4 ways it fits, and the KV room left is what the weights and activations leave.
  const MappedIteration split =
      map_iteration(model, IterationShape{Phase::kDecode, 32, 1, 8192}, pool(4, 1, 1, 1, 1));
  const auto fits = memory_footprint(model, split, hbm);
  CHECK_NOTHROW(check_fit(split, fits));
  const MemoryFootprint& f = fits.front();
  CHECK(f.kv_capacity.si() == Approx((hbm - f.weights - f.activations).si()));
  CHECK(f.kv_capacity_tokens ==
        static_cast<int64_t>(f.kv_capacity.si() / f.kv_bytes_per_token.si()));
  CHECK(f.kv_bytes_per_token.si() == Approx(model.kv_bytes_per_token().si() / 4.0));
}

TEST_CASE("KV room in sequences counts a sliding layer's window, not the whole context") {
  // GPT-OSS 120B config.json: 36 layers, 8 KV heads of 64, BF16 cache: 2,048 bytes a token a
  // layer; every other layer slides over 128 tokens.
  const ModelConfig model = load_model(model_file("gpt-oss-120b"));
  const MappedIteration mapped =
      map_iteration(model, IterationShape{Phase::kDecode, 1, 1, 8192}, pool(1, 1, 1, 1, 1));
  const Bytes hbm(141e9);  // an H200
  const MemoryFootprint f = memory_footprint(model, mapped, hbm).front();
  constexpr double kRow = 8 * 64 * 2 * 2;
  CHECK(f.kv_bytes_per_token.si() == Approx(36 * kRow));
  CHECK(f.kv_bytes_per_sequence.si() == Approx(18 * kRow * 8192 + 18 * kRow * 128));
  CHECK(f.kv_cache.si() == Approx(f.kv_bytes_per_sequence.si()));
  CHECK(f.kv_capacity_sequences ==
        static_cast<int64_t>(f.kv_capacity.si() / (18 * kRow * (8192 + 128))));
  // Every layer at the whole context would fit about half as many.
  const int64_t every_layer_whole = f.kv_capacity_tokens / 8192;
  CHECK(f.kv_capacity_sequences > 19 * every_layer_whole / 10);
  CHECK(f.kv_capacity_sequences < 2 * every_layer_whole + 2);
}
