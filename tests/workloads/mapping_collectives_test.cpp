// The collectives a mapping inserts, against their closed forms (docs/mapping.md).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "mapping_test_support.hpp"
#include "model_files.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/precision_override.hpp"

using namespace scoville;
using namespace scoville::workloads;
using namespace scoville::workloads::testing;

namespace {

std::vector<const TraceNode*> named(const ChipTrace& t, const std::string& name) {
  std::vector<const TraceNode*> nodes;
  for (const TraceNode& n : t.nodes) {
    if (n.name == name) nodes.push_back(&n);
  }
  return nodes;
}

double d(int64_t v) { return static_cast<double>(v); }

}  // namespace

TEST_CASE("TP all-reduce: every row-parallel output, tokens x hidden x activation bytes") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const int64_t tp = 4;
  const int64_t batch = 16;
  const int64_t prompt = 128;
  for (const IterationShape& shape : {IterationShape{Phase::kDecode, batch, 1, 2048},
                                      IterationShape{Phase::kPrefill, batch, prompt, prompt}}) {
    const MappedIteration mapped = map_iteration(model, shape, pool(tp, 1, 1, 1, 1));
    REQUIRE(mapped.roles.size() == 1);
    const ChipTrace& t = mapped.roles.front().trace;
    const double bytes = d(shape.batch * shape.new_tokens) * d(model.hidden_size()) *
                         bytes_per_value(model.precision().activations);
    for (const char* name : {"attn_out_all_reduce", "ffn_all_reduce"}) {
      const auto nodes = named(t, name);
      CHECK(static_cast<int64_t>(nodes.size()) == model.layers());
      for (const TraceNode* n : nodes) {
        CHECK(n->collective.kind == CollectiveKind::kAllReduce);
        CHECK(n->collective.group_size == tp);
        CHECK(n->collective.bytes.si() == Approx(bytes));
      }
    }
  }
}

TEST_CASE("Sequence parallel: reduce-scatter and all-gather of tokens / tp x hidden x bytes") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const int64_t tp = 4;
  const int64_t batch = 8;
  const int64_t prompt = 256;
  const MappedIteration mapped = map_iteration(
      model, IterationShape{Phase::kPrefill, batch, prompt, prompt}, pool(tp, 1, 1, 1, 1, true));
  const ChipTrace& t = mapped.roles.front().trace;
  const double shard = d(batch * prompt) / d(tp) * d(model.hidden_size()) *
                       bytes_per_value(model.precision().activations);
  CHECK(named(t, "attn_out_all_reduce").empty());
  CHECK(named(t, "ffn_all_reduce").empty());
  for (const char* name :
       {"attn_out_reduce_scatter", "ffn_reduce_scatter", "attn_all_gather", "ffn_all_gather"}) {
    INFO(name);
    const auto nodes = named(t, name);
    CHECK(static_cast<int64_t>(nodes.size()) == model.layers());
    for (const TraceNode* n : nodes) {
      CHECK(n->collective.group_size == tp);
      CHECK(n->collective.bytes.si() == Approx(shard));
    }
  }
  // Together the two halves move what one all-reduce would.
  CHECK(named(t, "attn_out_reduce_scatter").front()->collective.kind ==
        CollectiveKind::kReduceScatter);
  CHECK(named(t, "attn_all_gather").front()->collective.kind == CollectiveKind::kAllGather);
  // The norms run on the token shard.
  for (const TraceNode& n : t.nodes) {
    if (n.name == "attn_norm") CHECK(n.op.m == batch * prompt / tp);
  }
}

TEST_CASE("EP all-to-all: tokens x top_k x hidden x activation bytes x (EP - 1) / EP") {
  // GPT-OSS 120B's experts read the hidden state's own format: dispatch and combine alike.
  const ModelConfig model = load_model(model_file("gpt-oss-120b"));
  REQUIRE(model.precision().mlp_activation_format() == model.precision().activations);
  const int64_t batch = 64;
  for (const int64_t attn_dp : {int64_t{2}, int64_t{4}, int64_t{8}}) {
    const int64_t ep = 8;
    const MappedIteration mapped = map_iteration(
        model, IterationShape{Phase::kDecode, batch, 1, 4096}, pool(ep, ep, 1, 1, attn_dp));
    REQUIRE(mapped.roles.size() == 1);
    const ChipTrace& t = mapped.roles.front().trace;
    // Each rank dispatches the tokens it owns: batch / ep of them, whatever the attention split.
    const double tokens = d(batch) / d(ep);
    const double expected = tokens * d(model.ffn().top_k) * d(model.hidden_size()) *
                            bytes_per_value(model.precision().activations) * d(ep - 1) / d(ep);
    INFO("attn_dp " << attn_dp);
    for (const char* name : {"moe_dispatch", "moe_combine_all_to_all"}) {
      const auto nodes = named(t, name);
      CHECK(static_cast<int64_t>(nodes.size()) == model.layers());
      for (const TraceNode* n : nodes) {
        CHECK(n->collective.kind == CollectiveKind::kAllToAll);
        CHECK(n->collective.group_size == ep);
        CHECK(n->collective.bytes.si() == Approx(expected));
      }
    }
    CHECK(named(t, "ffn_all_reduce").empty());  // experts' outputs come back by all-to-all
  }
}

TEST_CASE(
    "EP dispatch sends the experts' input format where it is narrower, combine the residual "
    "stream's") {
  // DeepSeek R1's MXFP4 release quantizes every MLP input to MXFP4 (W4A4) and the rest to FP8:
  // the dispatch carries MXFP4 tokens (4.25 bits with their E8M0 scales); the combine returns
  // the experts' outputs as their matmuls wrote them, BF16 (precision.residual).
  const ModelConfig model = load_model(model_file("deepseek-r1"));
  REQUIRE(model.precision().mlp_activation_format() == NumberFormat::kMxfp4);
  REQUIRE(model.precision().activations == NumberFormat::kFp8);
  const int64_t batch = 64;
  const int64_t ep = 8;
  const double sends = d(batch) / d(ep) * d(model.ffn().top_k) * d(ep - 1) / d(ep);
  const double hidden = d(model.hidden_size());
  auto bytes_of = [](const ChipTrace& t, const char* name) {
    const auto nodes = named(t, name);
    REQUIRE(!nodes.empty());
    return nodes.front()->collective.bytes.si();
  };
  const IterationShape shape{Phase::kDecode, batch, 1, 4096};
  const MappedIteration narrow = map_iteration(model, shape, pool(ep, ep, 1, 1, ep));
  const ChipTrace& t = narrow.roles.front().trace;
  REQUIRE(model.precision().residual == NumberFormat::kBf16);
  CHECK(bytes_of(t, "moe_dispatch") == Approx(sends * hidden * 4.25 / 8.0));
  CHECK(bytes_of(t, "moe_combine_all_to_all") == Approx(sends * hidden * 2.0));
  // Experts that read a wider format than the hidden state: nothing is widened for the send.
  const ModelConfig wide = apply_precision_override(
      model, parse_precision_override("mlp_activations=bf16", "--precision"));
  const MappedIteration widened = map_iteration(wide, shape, pool(ep, ep, 1, 1, ep));
  const ChipTrace& w = widened.roles.front().trace;
  CHECK(bytes_of(w, "moe_dispatch") == Approx(sends * hidden * 1.0));
  CHECK(bytes_of(w, "moe_combine_all_to_all") == Approx(sends * hidden * 2.0));
  // An FP8 residual stream (TensorRT-LLM's low-precision all-reduce, a what-if) halves it.
  const ModelConfig fp8_residual =
      apply_precision_override(model, parse_precision_override("residual=fp8", "--precision"));
  const MappedIteration low = map_iteration(fp8_residual, shape, pool(ep, ep, 1, 1, ep));
  CHECK(bytes_of(low.roles.front().trace, "moe_combine_all_to_all") ==
        Approx(sends * hidden * 1.0));
}

TEST_CASE(
    "Tensor-parallel all-reduces carry the residual stream's format, not the matmul inputs'") {
  // MLPerf's Blackwell Llama runs quantize every matmul input to FP4 (W4A4), H200's to FP8; the
  // all-reduce still sums BF16 matmul outputs, quantized after it with the norm (TensorRT-LLM's
  // RESIDUAL_RMS_NORM_QUANT_NVFP4 fusion). Pipeline sends carry the residual stream too.
  const ModelConfig base = load_model(model_file("llama-3.1-8b"));
  const int64_t batch = 4;
  const int64_t prompt = 256;
  const double tokens = d(batch * prompt);
  const double hidden = d(base.hidden_size());
  for (const char* activations : {"activations=bf16", "activations=fp8", "activations=nvfp4"}) {
    INFO(activations);
    const ModelConfig model =
        apply_precision_override(base, parse_precision_override(activations, "--precision"));
    const MappedIteration tp = map_iteration(
        model, IterationShape{Phase::kPrefill, batch, prompt, prompt}, pool(8, 1, 1, 1, 1));
    const auto reduce = named(tp.roles.front().trace, "ffn_all_reduce");
    REQUIRE(!reduce.empty());
    CHECK(reduce.front()->collective.bytes.si() == Approx(tokens * hidden * 2.0));
    // The matmuls read the narrow format and write BF16.
    const auto down = named(tp.roles.front().trace, "ffn_down");
    REQUIRE(!down.empty());
    const Op& op = down.front()->op;
    CHECK(op.activation_in_bytes.si() ==
          Approx(d(op.m) * d(op.k) * bytes_per_value(model.precision().activations)));
    CHECK(op.activation_out_bytes.si() == Approx(d(op.m) * d(op.n) * 2.0));
  }
  const ModelConfig low = apply_precision_override(
      base, parse_precision_override("activations=fp8,residual=fp8", "--precision"));
  const MappedIteration tp = map_iteration(
      low, IterationShape{Phase::kPrefill, batch, prompt, prompt}, pool(8, 1, 1, 1, 1));
  CHECK(named(tp.roles.front().trace, "ffn_all_reduce").front()->collective.bytes.si() ==
        Approx(tokens * hidden * 1.0));
}

TEST_CASE("An EP group that is one attention group sums the experts' outputs by an all-reduce") {
  // ep = attn_tp (TEP): every rank holds its attention group's tokens after attn_out's
  // all-reduce, so no dispatch, no combine and no gather of owned tokens; two calls per MoE
  // layer (TensorRT-LLM's TEP). tp 8 is one instance; tp 32 with attn_dp 4 is four instances
  // of TEP8 (expert replicas), each summing over its own 8 chips.
  const ModelConfig model = load_model(model_file("gpt-oss-120b"));
  const int64_t batch = 64;
  const int64_t ep = 8;
  for (const int64_t tp : {int64_t{8}, int64_t{32}}) {
    INFO("tp " << tp);
    const int64_t attn_dp = tp / ep;
    const MappedIteration mapped = map_iteration(
        model, IterationShape{Phase::kDecode, batch, 1, 4096}, pool(tp, ep, 1, 1, attn_dp));
    const ChipTrace& t = mapped.roles.front().trace;
    for (const char* name : {"moe_dispatch", "moe_combine_all_to_all", "moe_all_gather"}) {
      CHECK(named(t, name).empty());
    }
    const double token = d(model.hidden_size()) * bytes_per_value(model.precision().activations);
    const auto reduce = named(t, "ffn_all_reduce");
    REQUIRE(static_cast<int64_t>(reduce.size()) == model.layers());
    CHECK(reduce.front()->collective.kind == CollectiveKind::kAllReduce);
    CHECK(reduce.front()->collective.group_size == ep);
    CHECK(reduce.front()->collective.bytes.si() == Approx(d(batch / attn_dp) * token));
    CHECK(named(t, "attn_out_all_reduce").size() == reduce.size());
    // The experts' work per chip is unchanged: 1 / tp of the replica's token-expert pairs.
    const MappedIteration dep = map_iteration(model, IterationShape{Phase::kDecode, batch, 1, 4096},
                                              pool(tp, ep, 1, 1, tp));
    CHECK(named(t, "moe_experts_gate_up").front()->op.flops.si() ==
          Approx(named(dep.roles.front().trace, "moe_experts_gate_up").front()->op.flops.si()));
  }
}

TEST_CASE("Attention-DP gathers the tokens before a dense FFN and reduces them after") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const int64_t tp = 4;
  const int64_t attn_dp = 2;
  const int64_t batch = 8;
  const MappedIteration mapped = map_iteration(
      model, IterationShape{Phase::kDecode, batch, 1, 1024}, pool(tp, 1, 1, 1, attn_dp));
  const ChipTrace& t = mapped.roles.front().trace;
  const double token = d(model.hidden_size()) * bytes_per_value(model.precision().activations);
  const auto gather = named(t, "ffn_all_gather");
  REQUIRE(static_cast<int64_t>(gather.size()) == model.layers());
  CHECK(gather.front()->collective.group_size == attn_dp);
  CHECK(gather.front()->collective.bytes.si() == Approx(d(batch / attn_dp) * token));
  const auto reduce = named(t, "ffn_all_reduce");
  REQUIRE(static_cast<int64_t>(reduce.size()) == model.layers());
  CHECK(reduce.front()->collective.group_size == tp);
  CHECK(reduce.front()->collective.bytes.si() == Approx(d(batch) * token));
  // Attention is split tp / attn_dp ways.
  CHECK(named(t, "attn_out_all_reduce").front()->collective.group_size == tp / attn_dp);
}

TEST_CASE("PP sends the activations to the next stage and receives them from the previous") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b"));
  const int64_t tp = 2;
  const int64_t pp = 4;
  const int64_t batch = 4;
  const int64_t prompt = 64;
  const MappedIteration mapped = map_iteration(
      model, IterationShape{Phase::kPrefill, batch, prompt, prompt}, pool(tp, 1, pp, 1, 1));
  REQUIRE(static_cast<int64_t>(mapped.roles.size()) == pp);
  const double bytes =
      d(batch * prompt) * d(model.hidden_size()) * bytes_per_value(model.precision().activations);
  for (const ChipRole& role : mapped.roles) {
    const ChipTrace& t = role.trace;
    const auto sends = named(t, "pp_send");
    const auto recvs = named(t, "pp_recv");
    CHECK(sends.size() == (role.stage < pp - 1 ? 1u : 0u));
    CHECK(recvs.size() == (role.stage > 0 ? 1u : 0u));
    for (const TraceNode* n : sends) {
      CHECK(n->collective.bytes.si() == Approx(bytes));
      CHECK(n->collective.peer == t.rank + tp);
      CHECK(&t.nodes.back() == n);  // the stage's last act
    }
    for (const TraceNode* n : recvs) {
      CHECK(n->collective.peer == t.rank - tp);
      CHECK(&t.nodes.front() == n);
    }
    const StageLayers layers = stage_layers(model, pp, role.stage);
    for (const TraceNode& n : t.nodes) {
      if (n.layer >= 0) CHECK((n.layer >= layers.first && n.layer < layers.last));
    }
    CHECK(named(t, "embedding").size() == (role.stage == 0 ? 1u : 0u));
    CHECK(named(t, "lm_head").size() == (role.stage == pp - 1 ? 1u : 0u));
  }
}

TEST_CASE("Trace nodes form one chain of data dependencies in execution order") {
  const ModelConfig model = load_model(model_file("gpt-oss-120b"));
  const MappedIteration mapped =
      map_iteration(model, IterationShape{Phase::kDecode, 8, 1, 512}, pool(2, 2, 1, 1, 1));
  const ChipTrace& t = mapped.roles.front().trace;
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    CHECK(t.nodes[i].id == i);
    if (i > 0) CHECK(t.nodes[i].data_deps == std::vector<uint64_t>{i - 1});
  }
}

TEST_CASE("a sorting sampler runs whole on every tensor-parallel rank without a gather of bests",
          "[sampling]") {
  const ModelConfig model = load_model(model_file("llama-3.1-8b")).with_sampler(Sampler::kFullSort);
  const int64_t tp = 4;
  const IterationShape shape{Phase::kDecode, 64, 1, 1024};
  const MappedIteration mapped = map_iteration(model, shape, pool(tp, 1, 1, 1, 1));
  REQUIRE(mapped.roles.size() == 1);
  const ChipTrace& t = mapped.roles.front().trace;
  const auto sorts = named(t, "sampling_sort");
  REQUIRE(sorts.size() == 1);
  // The whole vocabulary of all 64 sequences on each of the 4 ranks (vLLM gathers the logits).
  CHECK(sorts.front()->op.activation_in_bytes.si() ==
        Approx(115.0 * d(shape.batch) * d(model.vocab_size())));
  CHECK(named(t, "sampling_all_gather").empty());
  // The one-pass sampler splits the vocabulary over the ranks and gathers their bests.
  const MappedIteration one_pass =
      map_iteration(load_model(model_file("llama-3.1-8b")), shape, pool(tp, 1, 1, 1, 1));
  CHECK(named(one_pass.roles.front().trace, "sampling_all_gather").size() == 1);
}
