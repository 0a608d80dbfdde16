// The roofline serving cost model: op times from the chip's peaks, the iteration cache's error,
// the decode grouping, collectives on the network, energy and KV capacity.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "models/energy/energy_model.hpp"
#include "models/network/collective.hpp"
#include "models/network/network_model.hpp"
#include "models/network/router.hpp"
#include "models/network/topology_builders.hpp"
#include "sim/base/error.hpp"
#include "sim/base/rng.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/serving/roofline_cost_model.hpp"
#include "tests/models/network_fixtures.hpp"
#include "workloads/decompose.hpp"
#include "workloads/mapping/map_iteration.hpp"
#include "workloads/model_loader.hpp"

using namespace scoville;
using namespace scoville::serving;

namespace {

config::DataPaths paths() { return config::DataPaths{SCOVILLE_SOURCE_DIR}; }

workloads::ModelConfig model(const std::string& name) {
  return workloads::load_model(paths().resolve(name, "workloads/models"));
}

models::ChipParams h200() { return config::load_chip("h200", paths()); }

// The collective calls of a mapped iteration's first role as the roofline counts them: one per
// (name, layer), between at least two chips, moving bytes; only those whose kind `keep` accepts.
std::set<std::pair<std::string, int>> fused_calls(
    const workloads::MappedIteration& mapped,
    const std::function<bool(workloads::CollectiveKind)>& keep) {
  std::set<std::pair<std::string, int>> calls;
  for (const workloads::TraceNode& n : mapped.roles.front().trace.nodes) {
    if (n.kind == workloads::TraceNodeKind::kCollective && n.collective.group_size > 1 &&
        n.collective.bytes.si() > 0 && keep(n.collective.kind)) {
      calls.insert({n.name, n.layer});
    }
  }
  return calls;
}

RooflineOptions options(bool cache, int bucket_bits, bool collapse_decodes) {
  RooflineOptions o;
  o.cache = cache;
  o.bucket_bits = bucket_bits;
  o.collapse_decodes = collapse_decodes;
  return o;
}

workloads::PoolMapping pool(int64_t tp, int64_t ep = 1, int64_t attn_dp = 1) {
  workloads::PoolMapping p;
  p.chips = tp;
  p.degrees.tp = tp;
  p.degrees.ep = ep;
  p.degrees.attn_dp = attn_dp;
  return p;
}

models::Topology nvl72() {
  return config::build_network(config::load_system("gb200-nvl72", paths()));
}

IterationBatch decode_batch(const std::vector<int64_t>& contexts, int64_t tokens = 1) {
  IterationBatch b;
  for (int64_t c : contexts) b.sequences.push_back({SequencePhase::kDecode, tokens, c - tokens, c});
  return b;
}

// The roofline of one whole-model iteration on one chip, from the ops directly.
double roofline_seconds(const workloads::IterationTrace& trace, const models::ChipParams& chip) {
  const double bw = chip.hbm.peak_bandwidth().si();
  double t = 0;
  for (const workloads::Op& op : trace.ops) {
    const double bytes = op.weight_bytes.si() + op.kv_read_bytes.si() + op.kv_write_bytes.si() +
                         op.activation_in_bytes.si() + op.activation_out_bytes.si();
    double rate = chip.peak_vector_rate().si();
    if (op.kind == workloads::OpKind::kMatmul || op.kind == workloads::OpKind::kAttention) {
      const MathPrecision p = *chip.executed_precision(op.math);
      rate = 2.0 * static_cast<double>(chip.tiles.matrix.macs_per_cycle(p)) *
             static_cast<double>(chip.tiles.count) * chip.tiles.matrix_clock().si();
    }
    const double compute = op.kind == workloads::OpKind::kMemory ? 0.0 : op.flops.si() / rate;
    t += std::max(compute, bytes / bw);
  }
  return t;
}

}  // namespace

TEST_CASE("roofline: bucket_value is exact below 2^bits and within 2^-(bits+1) above",
          "[roofline]") {
  for (int64_t v = 1; v < 64; ++v) CHECK(bucket_value(v, 6) == v);
  int64_t previous = 0;
  for (int64_t v = 64; v < 200000; v += 7) {
    const int64_t b = bucket_value(v, 6);
    CHECK(std::abs(static_cast<double>(b - v)) <= static_cast<double>(v) / 128.0 + 0.5);
    CHECK(b >= previous);  // monotone
    previous = b;
  }
}

TEST_CASE("roofline: one chip's decode step is the sum of its ops' rooflines", "[roofline]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  const RooflineCostModel cost(m, chip, {pool(1)}, std::nullopt, {}, options(false, 6, true));
  const IterationCost c = cost.cost(decode_batch({1000, 1000, 1000, 1000}));
  const workloads::IterationTrace trace =
      workloads::decompose_iteration(m, {workloads::Phase::kDecode, 4, 1, 1000});
  CHECK(c.time.si() == Approx(roofline_seconds(trace, chip)).epsilon(1e-12));
  // A small decode batch is memory bound: the weights alone at the HBM bandwidth bound it from
  // below, within a few percent (KV and activations are small next to 16 GB of weights).
  const double weights = trace.total_weight_bytes().si() / chip.hbm.peak_bandwidth().si();
  CHECK(c.time.si() >= weights);
  CHECK(c.time.si() <= weights * 1.05);
  // Energy: static power of the chip over the time plus the dynamic part, which is positive.
  CHECK(c.energy.si() > chip.power.static_power.si() * c.time.si());
}

TEST_CASE("roofline: a long prefill chunk is compute bound at the sustained matrix peak",
          "[roofline]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  const RooflineCostModel cost(m, chip, {pool(1)}, std::nullopt, {}, options(false, 6, true));
  IterationBatch b;
  b.sequences.push_back({SequencePhase::kPrefill, 4096, 0, 4096});
  const double t = cost.cost(b).time.si();
  const workloads::IterationTrace trace =
      workloads::decompose_iteration(m, {workloads::Phase::kPrefill, 1, 4096, 4096});
  CHECK(t == Approx(roofline_seconds(trace, chip)).epsilon(1e-12));
  const double peak = 2.0 *
                      static_cast<double>(chip.tiles.matrix.macs_per_cycle(MathPrecision::kBf16)) *
                      static_cast<double>(chip.tiles.count) * chip.tiles.matrix_clock().si();
  const double flops_time = trace.total_flops().si() / peak;
  CHECK(t >= flops_time * 0.99);  // vector ops run on a slower unit, never faster
  CHECK(t <= flops_time * 1.15);
}

TEST_CASE("roofline: the iteration cache's bucketing changes time by under 1%", "[roofline]") {
  const workloads::ModelConfig m = model("gpt-oss-20b");
  const models::ChipParams chip = h200();
  const std::optional<models::Topology> net = nvl72();
  const RooflineCostModel cached(m, chip, {pool(2, 2)}, net, {}, options(true, 6, true));
  const RooflineCostModel exact(m, chip, {pool(2, 2)}, net, {}, options(false, 6, true));
  RngStream rng(42, "roofline.test");
  double worst = 0;
  for (int trial = 0; trial < 40; ++trial) {
    IterationBatch b;
    b.chips = 2;
    const int64_t decodes = 1 + static_cast<int64_t>(rng.next_unit() * 64);
    for (int64_t i = 0; i < decodes; ++i) {
      const int64_t ctx = 64 + static_cast<int64_t>(rng.next_unit() * 9000);
      b.sequences.push_back({SequencePhase::kDecode, 1, ctx - 1, ctx});
    }
    if (trial % 2 == 0) {
      const int64_t chunk = 100 + static_cast<int64_t>(rng.next_unit() * 4000);
      const int64_t before = static_cast<int64_t>(rng.next_unit() * 4000);
      b.sequences.push_back({SequencePhase::kPrefill, chunk, before, before + chunk});
    }
    const double tc = cached.cost(b).time.si();
    const double te = exact.cost(b).time.si();
    worst = std::max(worst, std::abs(tc - te) / te);
    CHECK(cached.cost(b).time.si() == tc);  // a hit returns the same value
  }
  INFO("worst relative time error " << worst);
  CHECK(worst < 0.01);
  CHECK(cached.cache_hits() >= 40);
}

TEST_CASE("roofline: decodes at their mean context cost what they cost one group per context",
          "[roofline]") {
  // Full attention is linear in the context, so the collapsed group is exact up to the rounding
  // of the mean; a dense model on one chip has no other difference.
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  const RooflineCostModel collapsed(m, chip, {pool(1)}, std::nullopt, {}, options(false, 6, true));
  const RooflineCostModel per_context(m, chip, {pool(1)}, std::nullopt, {},
                                      options(false, 6, false));
  const IterationBatch b = decode_batch({300, 1200, 5000, 8000, 8001, 20000});
  const double a = collapsed.cost(b).time.si();
  const double e = per_context.cost(b).time.si();
  CHECK(a == Approx(e).epsilon(1e-3));
}

TEST_CASE("roofline: tensor parallel adds the network's all-reduce time", "[roofline]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  const models::Topology topo = nvl72();
  const RooflineCostModel cost(m, chip, {pool(2)}, topo, {}, options(false, 6, true));
  const IterationBatch b = decode_batch({1024});
  const IterationCost c = cost.cost(b);
  double network = -1;
  for (const auto& [name, t] : c.breakdown) {
    if (name == "network") network = t.si();
  }
  // Two all-reduces per layer of one token's hidden state (bf16) over 2 ranks; the sample at a
  // power-of-two size is the network model's own time.
  const models::NetworkModel net(topo);
  const models::Communicator comm = models::make_communicator(topo, 2);
  const double bytes = static_cast<double>(m.hidden_size()) * 2.0;  // 8192 B, a sample size
  const double one = net.run_collective("all_reduce", comm, Bytes(bytes)).timing.time.si();
  // Per layer: attn_out and ffn all-reduces; plus the vocab-parallel embedding's all-reduce
  // and the sampling all-gather (tiny).
  CHECK(network >= one * (2.0 * static_cast<double>(m.layers()) + 1.0));
  CHECK(network <= one * (2.0 * static_cast<double>(m.layers()) + 3.0));
}

TEST_CASE("roofline: software overheads add per op, per layer and per iteration", "[roofline]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  const RooflineCostModel bare(m, chip, {pool(1)}, std::nullopt, {}, options(false, 6, true));
  SoftwareOverheads sw;
  sw.per_op_launch = Duration(1e-6);
  sw.per_layer_sync = Duration(2e-6);
  sw.per_iteration = Duration(100e-6);
  const RooflineCostModel with(m, chip, {pool(1)}, std::nullopt, sw, options(false, 6, true));
  const IterationBatch b = decode_batch({512, 512});
  const workloads::IterationTrace trace =
      workloads::decompose_iteration(m, {workloads::Phase::kDecode, 2, 1, 512});
  const double expected = 1e-6 * static_cast<double>(trace.ops.size()) +
                          2e-6 * static_cast<double>(m.layers()) + 100e-6;
  CHECK(with.cost(b).time.si() - bare.cost(b).time.si() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("roofline: the stack's host time per sequence counts the batch's sequences",
          "[roofline]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  const RooflineCostModel bare(m, chip, {pool(1)}, std::nullopt, {}, options(false, 6, true));
  SoftwareOverheads sw;
  sw.per_sequence = Duration(3e-6);
  const RooflineCostModel with(m, chip, {pool(1)}, std::nullopt, sw, options(false, 6, true));
  for (const std::vector<int64_t>& contexts :
       {std::vector<int64_t>{512}, std::vector<int64_t>{512, 700, 900, 1100}}) {
    const IterationBatch b = decode_batch(contexts);
    INFO(contexts.size() << " sequences");
    CHECK(with.cost(b).time.si() - bare.cost(b).time.si() ==
          Approx(3e-6 * static_cast<double>(contexts.size())).epsilon(1e-9));
  }
}

// The time `sw` adds to decode batch `b` on pool `p` of an NVL72-like switch.
double software_added(const workloads::ModelConfig& m, const workloads::PoolMapping& p,
                      const SoftwareOverheads& sw, const IterationBatch& b) {
  const RooflineCostModel bare(m, h200(), {p}, nvl72(), {}, options(false, 6, true));
  const RooflineCostModel with(m, h200(), {p}, nvl72(), sw, options(false, 6, true));
  return with.cost(b).time.si() - bare.cost(b).time.si();
}

TEST_CASE("roofline: each collective call of the heaviest role pays the stack's per-call time",
          "[roofline]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  SoftwareOverheads sw;
  sw.per_collective = Duration(7e-6);
  const IterationBatch b = decode_batch({512, 900, 1500});
  // The calls: the mapped trace's collectives between at least two chips that move bytes, one
  // per (name, layer) as the roofline fuses them.
  const workloads::MappedIteration mapped =
      workloads::map_iteration(m, {workloads::Phase::kDecode, 3, 1, 1024}, pool(4));
  const auto calls = fused_calls(mapped, [](workloads::CollectiveKind) { return true; });
  REQUIRE(calls.size() >= 2 * static_cast<size_t>(m.layers()));  // attn_out and ffn all-reduces
  CHECK(software_added(m, pool(4), sw, b) ==
        Approx(7e-6 * static_cast<double>(calls.size())).epsilon(1e-9));
  // One chip has no collective to call: nothing is added.
  const RooflineCostModel one(m, h200(), {pool(1)}, std::nullopt, sw, options(false, 6, true));
  const RooflineCostModel one_bare(m, h200(), {pool(1)}, std::nullopt, {}, options(false, 6, true));
  CHECK(one.cost(b).time.si() == one_bare.cost(b).time.si());
}

TEST_CASE("roofline: an all-to-all call pays per_all_to_all, every other call per_collective",
          "[roofline]") {
  // gpt-oss-120b on EP4 with attention DP 2 (attention TP 2, so the EP group spans two
  // attention groups): dispatch and combine are all-to-alls; the attention all-reduces and the
  // owned tokens' gathers are ordinary calls.
  const workloads::ModelConfig m = model("gpt-oss-120b");
  SoftwareOverheads sw;
  sw.per_collective = Duration(7e-6);
  sw.per_all_to_all = Duration(24e-6);
  const workloads::MappedIteration mapped =
      workloads::map_iteration(m, {workloads::Phase::kDecode, 4, 1, 1024}, pool(4, 4, 2));
  const auto is_all_to_all = [](workloads::CollectiveKind k) {
    return k == workloads::CollectiveKind::kAllToAll;
  };
  const auto all_to_all = fused_calls(mapped, is_all_to_all);
  const auto other =
      fused_calls(mapped, [&](workloads::CollectiveKind k) { return !is_all_to_all(k); });
  REQUIRE(all_to_all.size() == 2 * static_cast<size_t>(m.layers()));
  REQUIRE(!other.empty());
  CHECK(software_added(m, pool(4, 4, 2), sw, decode_batch({512, 900, 1500, 700})) ==
        Approx(24e-6 * static_cast<double>(all_to_all.size()) +
               7e-6 * static_cast<double>(other.size()))
            .epsilon(1e-9));
}

TEST_CASE("roofline: KV capacity is the HBM left after the weights, and misfits are refused",
          "[roofline]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  const RooflineCostModel cost(m, chip, {pool(1)}, std::nullopt);
  const int64_t blocks = cost.kv_capacity_blocks(0, 16);
  const double per_token = m.kv_bytes_per_token().si();
  const double weights = static_cast<double>(m.total_parameters()) * 2.0;  // bf16
  const double upper = (chip.hbm.capacity.si() - weights) / per_token / 16.0;
  CHECK(static_cast<double>(blocks) <= upper);
  CHECK(static_cast<double>(blocks) >= 0.95 * upper);  // activations of one token are small
  CHECK_THROWS_AS(RooflineCostModel(model("llama-3.1-405b"), chip, {pool(1)}, std::nullopt),
                  InputError);
  workloads::PoolMapping dp2 = pool(1);
  dp2.chips = 2;
  dp2.degrees.dp = 2;
  CHECK_THROWS_AS(RooflineCostModel(m, chip, {dp2}, nvl72()), InputError);
}

TEST_CASE("roofline: energy is the ops' action counts priced by the chip's table plus static",
          "[roofline]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  const RooflineCostModel cost(m, chip, {pool(1)}, std::nullopt, {}, options(false, 6, true));
  const IterationCost c = cost.cost(decode_batch({700, 700, 700}));
  const workloads::IterationTrace trace =
      workloads::decompose_iteration(m, {workloads::Phase::kDecode, 3, 1, 700});
  models::ActionCounts counts;
  for (const workloads::Op& op : trace.ops) {
    if (op.kind == workloads::OpKind::kMatmul || op.kind == workloads::OpKind::kAttention) {
      counts.macs[models::index_of(*chip.executed_precision(op.math))] += op.flops.si() / 2.0;
    } else if (op.kind == workloads::OpKind::kVector) {
      counts.vector_flops += op.flops.si();
    }
    counts.hbm = counts.hbm + op.weight_bytes + op.kv_read_bytes + op.kv_write_bytes +
                 op.activation_in_bytes + op.activation_out_bytes;
  }
  // Every HBM byte also crosses the NoC and is written into and read out of tile buffers (as
  // stats::count_actions has it), and the chip draws its active power over the busy (non-
  // software) part of the iteration.
  counts.noc = counts.hbm;
  counts.tile_sram = counts.hbm * 2.0;
  Duration software;
  for (const auto& [name, t] : c.breakdown) {
    if (name == "software") software = t;
  }
  REQUIRE(chip.power.active_power.si() > 0);
  const double expected =
      models::price(counts, chip.energy, chip.power.static_power, c.time).total().si() +
      (chip.power.active_power * (c.time - software)).si();
  CHECK(c.energy.si() == Approx(expected).epsilon(1e-9));
  CHECK(c.power->energy.active.si() ==
        Approx((chip.power.active_power * (c.time - software)).si()).epsilon(1e-9));
}

TEST_CASE("roofline: attention-DP and pipeline mappings price small and large batches",
          "[roofline]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  const models::Topology topo = nvl72();
  // One sequence on a tp 4 / attn_dp 4 pool: priced with the attention groups it can fill.
  const RooflineCostModel dpa(m, chip, {pool(4, 1, 4)}, topo, {}, options(false, 6, true));
  const double one = dpa.cost(decode_batch({2048})).time.si();
  const double many = dpa.cost(decode_batch(std::vector<int64_t>(64, 2048))).time.si();
  CHECK(one > 0);
  CHECK(many > one);
  // Pipeline stages run one after the other: 2 stages of tp 1 take about as long as one chip
  // (the same ops, split in two) plus the stage handoff.
  workloads::PoolMapping pp2 = pool(1);
  pp2.chips = 2;
  pp2.degrees.pp = 2;
  const RooflineCostModel staged(m, chip, {pp2}, topo, {}, options(false, 6, true));
  const RooflineCostModel single(m, chip, {pool(1)}, std::nullopt, {}, options(false, 6, true));
  const IterationBatch b = decode_batch({1000, 1000});
  const double t_staged = staged.cost(b).time.si();
  const double t_single = single.cost(b).time.si();
  CHECK(t_staged > t_single);
  CHECK(t_staged < t_single * 1.05);
}

TEST_CASE("roofline: a full group cache is dropped without invalidating the batch being priced",
          "[roofline]") {
  // Regression: the cache used to be cleared while pricing a batch whose earlier groups were
  // already referenced, a use-after-free that crashed `validate` on the shipped measurements.
  // A tiny cache bound makes every multi-group batch cross it; the cost must equal the one from
  // a cache that is never dropped (same bucketing).
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  RooflineOptions small;
  small.max_cached_groups = 3;
  const RooflineCostModel cached(m, chip, {pool(1)}, std::nullopt, {}, small);
  const RooflineCostModel exact(m, chip, {pool(1)}, std::nullopt, {}, {});
  for (int64_t n = 1; n <= 6; ++n) {
    IterationBatch b = decode_batch({500 + 100 * n});
    for (int64_t i = 0; i < n; ++i) {
      const int64_t chunk = 64 * (n + i + 1);
      b.sequences.push_back({SequencePhase::kPrefill, chunk, 0, chunk});
    }
    INFO("batch with " << n << " prefill groups");
    CHECK(cached.cost(b).time.si() == exact.cost(b).time.si());
  }
}

TEST_CASE("roofline: the KV handoff moves between the pools' chips at their path's bandwidth",
          "[roofline]") {
  // One switch of 8 chips (tests/models/network_fixtures.hpp parameters): every chip pair has
  // the same path, so the closed form is latency + bytes on the busiest link / its bandwidth.
  const models::Topology net = models::build_topology(test::switch_spec(8));
  const RooflineCostModel m(model("llama-3.1-8b"), h200(), {pool(2), pool(4)}, net);
  const models::Router router(net);
  const models::Route route = router.route(0, 2);
  double bw = std::numeric_limits<double>::infinity();
  for (const auto& [link, fraction] : route.links) {
    bw = std::min(bw, net.link(link).bandwidth.si() / fraction);
  }
  const Bytes kv(3.0e6 + 12345.0);
  // Prefill on chips 0-1, decode on 2-5: two flows (0->2, 1->3) of half the KV each, on
  // links of their own.
  const Duration two = m.kv_handoff_time(kv, {0, 2}, {2, 4});
  CHECK(two.si() == Approx(route.latency.si() + kv.si() / 2.0 / bw).epsilon(1e-9));
  // Prefill on 4 chips, decode on 2: chips 4 and 5 each receive two quarters over one link.
  const Duration four_to_two = m.kv_handoff_time(kv, {0, 4}, {4, 2});
  CHECK(four_to_two.si() == Approx(route.latency.si() + kv.si() / 2.0 / bw).epsilon(1e-9));
  // One chip to one chip: the whole KV over one path (the point-to-point transfer_time).
  const Duration one = m.kv_handoff_time(kv, {0, 1}, {1, 1});
  CHECK(one.si() == Approx(route.latency.si() + kv.si() / bw).epsilon(1e-9));
  CHECK(one.si() == Approx(m.transfer_time(kv).si()).epsilon(1e-9));
  CHECK(m.kv_handoff_time(Bytes(0), {0, 2}, {2, 4}).si() == 0.0);
  CHECK_THROWS_AS(m.kv_handoff_time(kv, {0, 4}, {4, 8}), InputError);  // 12 chips of 8
}

TEST_CASE("roofline: attention-DP waits for the most loaded rank's attention", "[roofline]") {
  const RooflineCostModel m(model("gpt-oss-120b"), h200(), {pool(8, 8, 8)}, nvl72(), {},
                            options(false, 6, true));
  // Two decodes per rank; `long_ranks` ranks (from 0) at a long context, the others short.
  const auto batch = [](int long_ranks, int64_t long_ctx, int64_t short_ctx, bool tagged) {
    IterationBatch b;
    b.attention_dp = tagged ? 8 : 1;
    for (int64_t r = 0; r < 8; ++r) {
      const int64_t c = r < long_ranks ? long_ctx : short_ctx;
      for (int i = 0; i < 2; ++i) b.sequences.push_back({SequencePhase::kDecode, 1, c - 1, c, r});
    }
    return b;
  };
  const IterationCost unbalanced = m.cost(batch(1, 8000, 100, true));
  const IterationCost heavy = m.cost(batch(8, 8000, 100, true));
  const IterationCost light = m.cost(batch(0, 8000, 100, true));
  // Rank 0 attends as every rank of `heavy` does, and the experts see the same 16 tokens.
  CHECK(unbalanced.time.si() == Approx(heavy.time.si()).epsilon(1e-12));
  CHECK(heavy.time > light.time);
  // Energy counts every rank's own KV reads.
  CHECK(unbalanced.energy < heavy.energy);
  CHECK(unbalanced.energy > light.energy);
  // Untagged, the mapping splits the batch evenly at its mean context: the shorter time.
  CHECK(m.cost(batch(1, 8000, 100, false)).time < unbalanced.time);
  // Balanced ranks cost what the even split costs.
  CHECK(m.cost(batch(8, 4000, 4000, true)).time.si() ==
        Approx(m.cost(batch(8, 4000, 4000, false)).time.si()).epsilon(1e-9));
  // A lone prefill runs its attention on its rank's chip (attn_tp = 1), not on all eight.
  IterationBatch prefill;
  prefill.sequences.push_back({SequencePhase::kPrefill, 2048, 0, 2048, 3});
  const Duration spread = m.cost(prefill).time;
  prefill.attention_dp = 8;
  CHECK(m.cost(prefill).time > spread);
}

TEST_CASE("roofline: a decode pool placed after the prefill pool times its collectives there",
          "[roofline]") {
  // Two domains of 8 chips. A 4-chip prefill pool puts an 8-chip decode pool on chips [4, 12),
  // straddling the domains; an 8-chip prefill pool puts it on [8, 16), inside the second. The
  // decode pool's all-reduces cross the scale-out only in the first case.
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  const models::Topology topo =
      models::build_topology(test::hierarchical_spec(test::switch_spec(8), 2, 16));
  const auto network_time = [&](int64_t prefill_chips) {
    workloads::PoolMapping prefill = pool(prefill_chips);
    prefill.pool = "prefill";
    workloads::PoolMapping decode = pool(8);
    decode.pool = "decode";
    const RooflineCostModel cost(m, chip, {prefill, decode}, topo, {}, options(false, 6, true));
    IterationBatch b = decode_batch({1024});
    b.pool = 1;
    b.role = PoolRole::kDecode;
    b.chips = 8;
    for (const auto& [name, t] : cost.cost(b).breakdown) {
      if (name == "network") return t.si();
    }
    return -1.0;
  };
  const double aligned = network_time(8);
  const double straddling = network_time(4);
  CHECK(aligned > 0);
  CHECK(straddling > aligned);
  // Same as a lone pool on the first domain when aligned (every domain is the same switch).
  const RooflineCostModel lone(m, chip, {pool(8)}, topo, {}, options(false, 6, true));
  for (const auto& [name, t] : lone.cost(decode_batch({1024})).breakdown) {
    if (name == "network") CHECK(t.si() == Approx(aligned).epsilon(1e-12));
  }
}

namespace {

// An op-cost model that prices each op at its roofline (the formula above, per op): behind the
// seam it must give what the closed form gives, with and without calibration knobs.
class RooflineOfEachOp : public OpCostModel {
 public:
  explicit RooflineOfEachOp(models::ChipParams chip) : chip_(std::move(chip)) {}
  OpPrice price(const workloads::Op& op) const override {
    workloads::IterationTrace one;
    one.ops.push_back(op);
    workloads::Op no_compute = op;
    no_compute.flops = Flops(0);
    workloads::IterationTrace bytes_only;
    bytes_only.ops.push_back(no_compute);
    OpPrice p;
    p.time = Duration(roofline_seconds(one, chip_));
    p.memory_time = Duration(roofline_seconds(bytes_only, chip_));
    p.compute_time = p.time > p.memory_time ? p.time : Duration(0);
    return p;
  }
  std::string fidelity() const override { return "roofline-per-op"; }

 private:
  models::ChipParams chip_;
};

}  // namespace

TEST_CASE("roofline: calibration knobs decorate an op-cost model's times as the closed form's",
          "[roofline][calibration]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  RooflineOptions seam = options(false, 6, true);
  seam.op_cost = std::make_shared<RooflineOfEachOp>(chip);
  // A decode step: every op is bound by HBM, at the peaks and with these knobs alike, so the
  // decorator (the binding resource's fraction) and the closed form (max of both terms) agree.
  const IterationBatch b = decode_batch({1000, 1000, 1000, 1000});
  EfficiencyKnobs knobs;
  knobs.compute.fill(0.8);
  knobs.bandwidth = {0.5, 0.6, 0.7};
  knobs.per_op = Duration(1e-6);
  knobs.per_iteration = Duration(1e-3);
  for (const EfficiencyKnobs& k : {EfficiencyKnobs{}, knobs}) {
    const RooflineCostModel closed(m, chip, {pool(1)}, std::nullopt, {}, options(false, 6, true),
                                   k);
    const RooflineCostModel behind(m, chip, {pool(1)}, std::nullopt, {}, seam, k);
    INFO("identity knobs: " << k.identity());
    CHECK(behind.cost(b).time.si() == Approx(closed.cost(b).time.si()).epsilon(1e-9));
  }
  // The knobs do slow the op-cost model's iteration: set_efficiency re-prices with the same ops.
  RooflineCostModel behind(m, chip, {pool(1)}, std::nullopt, {}, seam);
  const double raw = behind.cost(b).time.si();
  behind.set_efficiency(knobs);
  CHECK(behind.cost(b).time.si() > 1.4 * raw);
}

namespace {

// Each op at its roofline plus a fixed latency (a kernel's fill, drain and barrier): the
// roofline is the time its resource is busy.
class RooflinePlusLatency : public RooflineOfEachOp {
 public:
  RooflinePlusLatency(models::ChipParams chip, Duration latency)
      : RooflineOfEachOp(std::move(chip)), latency_(latency) {}
  OpPrice price(const workloads::Op& op) const override {
    OpPrice p = RooflineOfEachOp::price(op);
    p.time = p.time + latency_;
    return p;
  }

 private:
  Duration latency_;
};

}  // namespace

TEST_CASE("roofline: a stack that fuses vector ops prices them busy-only and launches none",
          "[roofline][software]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  const IterationBatch b = decode_batch({1000, 1000});
  const workloads::IterationTrace trace =
      workloads::decompose_iteration(m, {workloads::Phase::kDecode, 2, 1, 1000});
  const auto vector_ops = static_cast<double>(
      std::count_if(trace.ops.begin(), trace.ops.end(),
                    [](const workloads::Op& op) { return op.kind == workloads::OpKind::kVector; }));
  REQUIRE(vector_ops > 0);
  REQUIRE(vector_ops < static_cast<double>(trace.ops.size()));
  SoftwareOverheads launches;
  launches.per_op_launch = Duration(1e-6);
  SoftwareOverheads fused = launches;
  fused.fused_vector_ops = true;
  const double latency = 0.4e-6;
  RooflineOptions table = options(false, 6, true);
  table.op_cost = std::make_shared<RooflinePlusLatency>(chip, Duration(latency));
  // Behind an op-cost model: each vector op loses its fixed latency and its launch.
  const RooflineCostModel apart(m, chip, {pool(1)}, std::nullopt, launches, table);
  const RooflineCostModel together(m, chip, {pool(1)}, std::nullopt, fused, table);
  CHECK(apart.cost(b).time.si() - together.cost(b).time.si() ==
        Approx(vector_ops * (latency + 1e-6)).epsilon(1e-9));
  // The closed form has no fixed latency: only the launches go.
  const RooflineCostModel closed_apart(m, chip, {pool(1)}, std::nullopt, launches,
                                       options(false, 6, true));
  const RooflineCostModel closed_together(m, chip, {pool(1)}, std::nullopt, fused,
                                          options(false, 6, true));
  CHECK(closed_apart.cost(b).time.si() - closed_together.cost(b).time.si() ==
        Approx(vector_ops * 1e-6).epsilon(1e-9));
  // The fused ops' work stays: without launches or latency the two stacks cost the same.
  RooflineOptions bare_table = options(false, 6, true);
  bare_table.op_cost = std::make_shared<RooflineOfEachOp>(chip);
  SoftwareOverheads fused_only;
  fused_only.fused_vector_ops = true;
  const RooflineCostModel plain(m, chip, {pool(1)}, std::nullopt, {}, bare_table);
  const RooflineCostModel plain_fused(m, chip, {pool(1)}, std::nullopt, fused_only, bare_table);
  CHECK(plain_fused.cost(b).time.si() == Approx(plain.cost(b).time.si()).epsilon(1e-12));
  CHECK(plain_fused.cost(b).energy.si() == Approx(plain.cost(b).energy.si()).epsilon(1e-12));
}

TEST_CASE("calibration fractions stretch an op's busy time, not its fixed latency",
          "[roofline][calibration]") {
  EfficiencyKnobs k;
  k.compute.fill(0.5);
  k.bandwidth.fill(0.8);
  const OpClass gemm = OpClass::kGemm;
  // Compute-bound, 1 us of fill and drain around 9 us of math: the math takes twice as long.
  CHECK(k.op_time(10e-6, 9e-6, true, gemm) == Approx(19e-6));
  // A small op, 0.1 us of math in 1 us of latency: its latency is not work.
  CHECK(k.op_time(1e-6, 0.1e-6, true, gemm) == Approx(1.1e-6));
  // Memory-bound: the bytes at peak bandwidth take 1 / 0.8 as long.
  CHECK(k.op_time(2e-6, 1.6e-6, false, gemm) == Approx(2.4e-6));
  // A busy time beyond the op's (estimates of the bound) is the op's time: the whole stretches.
  CHECK(k.op_time(1e-6, 2e-6, true, gemm) == Approx(2e-6));
  CHECK(EfficiencyKnobs{}.op_time(3e-6, 1e-6, true, gemm) == Approx(3e-6));
}

TEST_CASE("roofline: KV placements move the attention KV reads off HBM as the system engine does",
          "[roofline][kv]") {
  const workloads::ModelConfig m = model("llama-3.1-8b");
  const models::ChipParams chip = h200();
  const IterationBatch b = decode_batch({4096, 4096, 4096, 4096});
  const workloads::IterationTrace trace =
      workloads::decompose_iteration(m, {workloads::Phase::kDecode, 4, 1, 4096});
  double kv_read = 0;
  int64_t attention_ops = 0;
  for (const workloads::Op& op : trace.ops) {
    if (op.kind == workloads::OpKind::kAttention && op.kv_read_bytes.si() > 0) {
      kv_read += op.kv_read_bytes.si();
      ++attention_ops;
    }
  }
  REQUIRE(attention_ops == m.layers());
  const auto network = [](const IterationCost& c) {
    for (const auto& [name, t] : c.breakdown) {
      if (name == "network") return t.si();
    }
    return -1.0;
  };
  const RooflineCostModel local(m, chip, {pool(1)}, std::nullopt, {}, options(false, 6, true));

  // remote_pool: every KV byte over the host link, after the op's HBM part, one link latency
  // per attention op; the KV capacity is the host's memory, not the HBM left.
  RooflineOptions remote = options(false, 6, true);
  remote.kv_placement = "remote_pool";
  models::HostParams host;
  host.link_bandwidth = Bandwidth(64e9);
  host.link_latency = Duration(1e-6);
  host.link_energy = EnergyPerBit(5e-12);
  host.memory_capacity = Bytes(2e12);
  host.memory_bandwidth = Bandwidth(600e9);
  host.chips_per_host = 8;
  remote.host = host;
  const RooflineCostModel pooled(m, chip, {pool(1)}, std::nullopt, {}, remote);
  const IterationCost at_host = pooled.cost(b);
  CHECK(network(local.cost(b)) == 0);
  CHECK(network(at_host) ==
        Approx(kv_read / host.per_chip_bandwidth().si() + 1e-6 * static_cast<double>(attention_ops))
            .epsilon(1e-9));
  CHECK(at_host.time.si() > local.cost(b).time.si());
  // 250 GB of host memory per chip against the ~125 GB of HBM the weights leave.
  CHECK(pooled.kv_capacity_blocks(0, 16) > 3 * local.kv_capacity_blocks(0, 16) / 2);
  remote.host.reset();
  CHECK_THROWS_AS(RooflineCostModel(m, chip, {pool(1)}, std::nullopt, {}, remote), InputError);

  // striped over a TP group of 2: half of each op's KV is the peer's, read over the network;
  // the owner's HBM reads less.
  RooflineOptions striped = options(false, 6, true);
  striped.kv_placement = "striped";
  const RooflineCostModel tp_local(m, chip, {pool(2)}, nvl72(), {}, options(false, 6, true));
  const RooflineCostModel tp_striped(m, chip, {pool(2)}, nvl72(), {}, striped);
  const IterationCost s = tp_striped.cost(b);
  const IterationCost l = tp_local.cost(b);
  CHECK(network(s) > network(l));
  CHECK(s.power->energy.hbm < l.power->energy.hbm);
  CHECK(s.power->energy.link > l.power->energy.link);

  // sram_window: the newest tokens come from SRAM; the closed form reads every operand from HBM
  // (docs/serving.md), so only the op table sees it: the roofline's time is unchanged.
  RooflineOptions window = options(false, 6, true);
  window.kv_placement = "sram_window";
  const RooflineCostModel windowed(m, chip, {pool(1)}, std::nullopt, {}, window);
  CHECK(windowed.cost(b).time.si() == Approx(local.cost(b).time.si()).epsilon(1e-12));
  CHECK(windowed.kv_capacity_blocks(0, 16) == local.kv_capacity_blocks(0, 16));

  window.kv_placement = "nowhere";
  CHECK_THROWS_AS(RooflineCostModel(m, chip, {pool(1)}, std::nullopt, {}, window), InputError);
}

TEST_CASE("roofline: layers of one kind priced once cost what every layer priced costs",
          "[roofline]") {
  // RooflineOptions::collapse_layers prices a class of identical layers once and counts it;
  // false prices every layer (the reference). Models with sliding and full attention (GPT-OSS),
  // dense and MoE layers plus MTP (DeepSeek R1), pipeline stages, attention-DP, mixed batches,
  // a KV placement that moves reads, at the closed form and behind an op-cost model.
  const models::ChipParams chip = config::load_chip("b200", paths());
  const models::Topology topo = nvl72();
  struct Case {
    std::string model;
    workloads::PoolMapping mapping;
    std::string placement;
  };
  workloads::PoolMapping staged = pool(4, 4);
  staged.chips = 8;
  staged.degrees.pp = 2;
  const std::vector<Case> cases = {
      {"gpt-oss-120b", pool(8, 8), "local"}, {"gpt-oss-120b", pool(8, 8, 8), "local"},
      {"gpt-oss-120b", staged, "local"},     {"deepseek-r1-mtp", pool(8, 8, 8), "local"},
      {"llama-3.1-70b", pool(4), "striped"},
  };
  IterationBatch mixed = decode_batch({300, 5000, 9000, 130000, 140000, 200});
  mixed.sequences.push_back({SequencePhase::kPrefill, 2048, 0, 2048});
  mixed.sequences.push_back({SequencePhase::kPrefill, 512, 9000, 9512});
  for (const Case& c : cases) {
    workloads::ModelConfig m =
        c.model == "deepseek-r1-mtp" ? model("deepseek-r1").with_mtp_layers(1) : model(c.model);
    for (bool seam : {false, true}) {
      RooflineOptions exact = options(false, 6, true);
      exact.kv_placement = c.placement;
      if (seam) exact.op_cost = std::make_shared<RooflineOfEachOp>(chip);
      exact.collapse_layers = false;
      RooflineOptions collapsed = exact;
      collapsed.collapse_layers = true;
      const RooflineCostModel each(m, chip, {c.mapping}, topo, {}, exact);
      const RooflineCostModel once(m, chip, {c.mapping}, topo, {}, collapsed);
      for (const IterationBatch& b : {decode_batch({1000, 70000}), mixed}) {
        IterationBatch batch = b;
        batch.attention_dp = c.mapping.degrees.attn_dp;
        for (size_t i = 0; i < batch.sequences.size(); ++i) {
          batch.sequences[i].rank = static_cast<int64_t>(i) % c.mapping.degrees.attn_dp;
        }
        INFO(c.model << " tp " << c.mapping.degrees.tp << " pp " << c.mapping.degrees.pp
                     << " attn_dp " << c.mapping.degrees.attn_dp << " " << c.placement
                     << " op-cost " << seam << " sequences " << batch.sequences.size());
        const IterationCost a = each.cost(batch);
        const IterationCost o = once.cost(batch);
        CHECK(o.time.si() == Approx(a.time.si()).epsilon(1e-12));
        CHECK(o.energy.si() == Approx(a.energy.si()).epsilon(1e-12));
        REQUIRE(o.breakdown.size() == a.breakdown.size());
        for (size_t i = 0; i < a.breakdown.size(); ++i) {
          CHECK(o.breakdown[i].second.si() ==
                Approx(a.breakdown[i].second.si()).epsilon(1e-12).margin(1e-18));
        }
        CHECK(o.power->clock_bound_time.si() ==
              Approx(a.power->clock_bound_time.si()).epsilon(1e-12).margin(1e-18));
        CHECK(o.power->energy.link.si() ==
              Approx(a.power->energy.link.si()).epsilon(1e-12).margin(1e-18));
      }
      // Every iteration went through the collapsed path; none fell back to layer by layer.
      CHECK(once.collapsed_iterations() == 2);
      CHECK(once.layer_by_layer_iterations() == 0);
      CHECK(each.collapsed_iterations() == 0);
    }
  }
}
