#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model_files.hpp"
#include "sim/base/yaml_reader.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::workloads;

namespace {

const std::string kFile = "tiny.yaml";

// A small valid MoE model; each test breaks one thing (or several).
const std::string kTinyModel = R"(name: tiny
layers: 4
hidden_size: 64
vocab_size: 1000
max_context: 4096
norm: rmsnorm
attention:
  type: gqa
  heads: 8
  kv_heads: 2
  head_dim: 16
  sliding_window: 32
  window_pattern: "sliding, full"
ffn:
  type: moe
  activation: swiglu
  experts: 8
  top_k: 2
  expert_intermediate_size: 32
precision:
  weights: bf16
  experts: mxfp4
  activations: bf16
  kv_cache: bf16
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// 1-based line of the first line containing `needle`.
int line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  int line = 1;
  for (size_t i = 0; i < at; ++i) line += text[i] == '\n' ? 1 : 0;
  return line;
}

std::vector<Diagnostic> errors_of(const std::string& yaml) {
  try {
    load_model_from_string(yaml, kFile);
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  FAIL("expected an InputError");
  return {};
}

Diagnostic only_error(const std::vector<Diagnostic>& errors) {
  REQUIRE(errors.size() == 1);
  return errors.front();
}

}  // namespace

TEST_CASE("the tiny model loads", "[loader]") {
  const ModelConfig model = load_model_from_string(kTinyModel, kFile);
  CHECK(model.layers() == 4);
  CHECK(model.precision().experts == NumberFormat::kMxfp4);
}

TEST_CASE("unknown key: did-you-mean, line and key path", "[loader][errors]") {
  const std::string yaml =
      replaced(kTinyModel, "  head_dim: 16\n", "  head_dim: 16\n  sliding_windw: 64\n");
  const Diagnostic e = only_error(errors_of(yaml));
  CHECK(e.key_path == "attention.sliding_windw");
  CHECK(e.where.file == kFile);
  CHECK(e.where.line == line_of(yaml, "sliding_windw:"));
  CHECK_THAT(e.message, Catch::Contains("unknown key 'sliding_windw'") &&
                            Catch::Contains("did you mean 'sliding_window'"));
}

TEST_CASE("missing field: named, at the enclosing map", "[loader][errors]") {
  const std::string yaml = replaced(kTinyModel, "  heads: 8\n", "");
  const Diagnostic e = only_error(errors_of(yaml));
  CHECK(e.key_path == "attention.heads");
  CHECK(e.where.line == line_of(yaml, "type: gqa"));  // the attention map starts there
  CHECK_THAT(e.message, Catch::Contains("missing required field 'heads'"));
}

TEST_CASE("heads not divisible by kv_heads", "[loader][errors]") {
  const std::string yaml = replaced(kTinyModel, "kv_heads: 2", "kv_heads: 3");
  const Diagnostic e = only_error(errors_of(yaml));
  CHECK(e.key_path == "attention.kv_heads");
  CHECK(e.where.line == line_of(yaml, "kv_heads: 3"));
  CHECK_THAT(e.message, Catch::Contains("kv_heads 3 does not divide heads 8"));
}

TEST_CASE("wrong type: found vs expected", "[loader][errors]") {
  const std::string yaml = replaced(kTinyModel, "layers: 4", "layers: four");
  const Diagnostic e = only_error(errors_of(yaml));
  CHECK(e.key_path == "layers");
  CHECK(e.where.line == line_of(yaml, "layers: four"));
  CHECK_THAT(e.message, Catch::Contains("expected a whole number, found \"four\""));
}

TEST_CASE("top_k above experts", "[loader][errors]") {
  const std::string yaml = replaced(kTinyModel, "top_k: 2", "top_k: 9");
  const Diagnostic e = only_error(errors_of(yaml));
  CHECK(e.key_path == "ffn.top_k");
  CHECK(e.where.line == line_of(yaml, "top_k: 9"));
  CHECK_THAT(e.message, Catch::Contains("top_k 9 exceeds experts 8"));
}

TEST_CASE("fields of the other variant are rejected", "[loader][errors]") {
  const std::string yaml =
      replaced(kTinyModel, "  head_dim: 16\n", "  head_dim: 16\n  kv_lora_rank: 512\n");
  const Diagnostic e = only_error(errors_of(yaml));
  CHECK(e.key_path == "attention.kv_lora_rank");
  CHECK(e.where.line == line_of(yaml, "kv_lora_rank"));
  CHECK_THAT(e.message, Catch::Contains("applies only to attention type mla"));
}

TEST_CASE("bad window pattern", "[loader][errors]") {
  const std::string yaml = replaced(kTinyModel, "sliding, full", "sliding, ful");
  const Diagnostic e = only_error(errors_of(yaml));
  CHECK(e.key_path == "attention.window_pattern");
  CHECK_THAT(e.message, Catch::Contains("found \"ful\""));
}

TEST_CASE("every error of a file is reported at once", "[loader][errors]") {
  std::string yaml =
      replaced(kTinyModel, "  head_dim: 16\n", "  head_dim: 16\n  sliding_windw: 64\n");
  yaml = replaced(yaml, "  heads: 8\n", "");
  yaml = replaced(yaml, "layers: 4", "layers: four");
  yaml = replaced(yaml, "top_k: 2", "top_k: 9");
  yaml = replaced(yaml, "vocab_size: 1000", "vocab_size: 1000\nhiden_size: 64");
  const std::vector<Diagnostic> errors = errors_of(yaml);
  REQUIRE(errors.size() == 5);
  const auto reported = [&errors](const std::string& key_path, int line) {
    for (const Diagnostic& e : errors) {
      if (e.key_path == key_path && e.where.line == line) return true;
    }
    return false;
  };
  CHECK(reported("layers", line_of(yaml, "layers: four")));
  CHECK(reported("attention.heads", line_of(yaml, "type: gqa")));
  CHECK(reported("attention.sliding_windw", line_of(yaml, "sliding_windw")));
  CHECK(reported("ffn.top_k", line_of(yaml, "top_k: 9")));
  CHECK(reported("hiden_size", line_of(yaml, "hiden_size")));
  try {
    load_model_from_string(yaml, kFile);
  } catch (const InputError& e) {
    // The message a user sees names file:line:col for each problem.
    const std::string top_k_at = kFile + ":" + std::to_string(line_of(yaml, "top_k: 9")) + ":";
    CHECK_THAT(std::string(e.what()), Catch::Contains(top_k_at + "10: ffn.top_k"));
  }
}

TEST_CASE("a missing model file names the path", "[loader][errors]") {
  CHECK_THROWS_WITH(load_model("/nonexistent/model.yaml"),
                    Catch::Contains("/nonexistent/model.yaml"));
}

// One misspelt key per field class of the schema, each in a shipped model, so every class of
// field has its unknown-key error (file, line, key path, did-you-mean) checked on a real file.
TEST_CASE("unknown key in each field class of a shipped model", "[loader][errors]") {
  struct Case {
    std::string model;
    std::string line;      // a line of the file
    std::string misspelt;  // inserted after it, at its indentation
    std::string key_path;
    std::string suggestion;
  };
  const std::vector<Case> cases = {
      {"deepseek-r1", "mtp_layers: 0", "mtp_layer: 1", "mtp_layer", "mtp_layers"},
      {"deepseek-r1", "  kv_lora_rank: 512", "  kv_lora_rnk: 512", "attention.kv_lora_rnk",
       "kv_lora_rank"},
      {"kimi-k2.5", "  shared_experts: 1", "  shared_expert: 1", "ffn.shared_expert",
       "shared_experts"},
      {"llama-2-70b", "  kv_cache: bf16", "  kv_cach: bf16", "precision.kv_cach", "kv_cache"},
  };
  for (const Case& c : cases) {
    INFO(c.model << ": " << c.misspelt);
    const std::string text = read_text_file(testing::model_file(c.model));
    const size_t at = text.find(c.line);
    REQUIRE(at != std::string::npos);
    const size_t eol = text.find('\n', at);
    const std::string yaml = text.substr(0, eol + 1) + c.misspelt + "\n" + text.substr(eol + 1);
    const Diagnostic e = only_error(errors_of(yaml));
    CHECK(e.key_path == c.key_path);
    CHECK(e.where.file == kFile);
    CHECK(e.where.line == line_of(yaml, c.line) + 1);
    CHECK_THAT(e.message, Catch::Contains("did you mean '" + c.suggestion + "'"));
  }
}

TEST_CASE("mtp_layers on a dense model is refused", "[loader][errors]") {
  const std::string dense = R"(name: tiny-dense
layers: 2
hidden_size: 64
vocab_size: 1000
max_context: 4096
norm: rmsnorm
mtp_layers: 1
attention:
  type: gqa
  heads: 8
  kv_heads: 2
  head_dim: 8
ffn:
  type: dense
  activation: swiglu
  intermediate_size: 128
precision:
  weights: bf16
  activations: bf16
  kv_cache: bf16
)";
  const Diagnostic e = only_error(errors_of(dense));
  CHECK(e.key_path == "mtp_layers");
  CHECK(e.where.line == line_of(dense, "mtp_layers:"));
  CHECK_THAT(e.message, Catch::Contains("needs ffn type moe"));
}

TEST_CASE("a negative mtp_layers is refused", "[loader][errors]") {
  const std::string yaml =
      replaced(kTinyModel, "norm: rmsnorm\n", "norm: rmsnorm\nmtp_layers: -1\n");
  const Diagnostic e = only_error(errors_of(yaml));
  CHECK(e.key_path == "mtp_layers");
  CHECK(e.where.line == line_of(yaml, "mtp_layers:"));
}

TEST_CASE("MLA without its ranks names each missing field", "[loader][errors]") {
  const std::string text = read_text_file(testing::model_file("kimi-k2.5"));
  const std::string yaml = replaced(text, "  kv_lora_rank: 512", "");
  const Diagnostic e = only_error(errors_of(yaml));
  CHECK(e.key_path == "attention.kv_lora_rank");
  CHECK_THAT(e.message, Catch::Contains("missing required field"));
}

TEST_CASE(
    "int4 is a weight format only: refused for activations, the KV cache and the residual stream",
    "[loader][errors]") {
  const ModelConfig model =
      load_model_from_string(replaced(kTinyModel, "experts: mxfp4", "experts: int4"), kFile);
  CHECK(model.precision().experts == NumberFormat::kInt4);
  CHECK(model.precision().residual == NumberFormat::kBf16);  // absent: BF16
  const std::string with_residual =
      replaced(kTinyModel, "  kv_cache: bf16", "  kv_cache: bf16\n  residual: bf16");
  CHECK(load_model_from_string(replaced(with_residual, "residual: bf16", "residual: fp8"), kFile)
            .precision()
            .residual == NumberFormat::kFp8);
  for (const std::string key : {"activations", "kv_cache", "residual"}) {
    const std::string base = key == "residual" ? with_residual : kTinyModel;
    const std::string yaml = replaced(base, "  " + key + ": bf16", "  " + key + ": int4");
    const Diagnostic e = only_error(errors_of(yaml));
    CHECK(e.key_path == "precision." + key);
    CHECK(e.where.line == line_of(yaml, key + ": int4"));
    CHECK_THAT(e.message, Catch::Contains("weight-only"));
  }
}
