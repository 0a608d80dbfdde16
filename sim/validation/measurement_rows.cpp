#include "sim/validation/measurement_rows.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <regex>
#include <sstream>
#include <utility>

#include "sim/base/error.hpp"
#include "sim/base/utf8.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/serving/percentile.hpp"
#include "sim/validation/published_names.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/precision_override.hpp"

namespace scoville::validation {

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The published precision as a precision override of the model file, by the model's structure
// (the file's own precisions are what its checkpoint was released in):
// - a dense model quantized to FP8 runs its weights and activations in FP8 with FP8 KV (as the
//   Llama rows' FP8-KV checkpoints were served); quantized to FP4 it runs W4A4, the linear
//   layers' weights and inputs both in FP4, with FP8 KV: [VENDOR] NVIDIA's FP4 checkpoints
//   (huggingface.co/nvidia/Llama-3.1-405B-Instruct-FP4, -3.3-70B-Instruct-FP4: "the weights and
//   activations of the linear operators within transformers blocks are quantized" to FP4) and
//   AMD's Quark MXFP4 ones (OCP MXFP4 weights and activations). MLPerf Llama 2 70B on one B200
//   (12,864 output tok/s, row 130) needs about 6 PFLOP/s, more than B200's 4.5 PFLOP/s dense
//   FP8 peak: the GEMMs cannot have run at FP8;
// - an MoE model's "FP4" rows quantize its routed experts, "FP8" rows every weight and the
//   activations (DeepSeek's released FP8, whose file already is so).
// - INT4 (Kimi K2.5's released checkpoint) is weight-only: INT4 weights, BF16 activations
//   (W4A16), the format whose kernels a software stack may price apart (docs/software.md).
std::string precision_override_of(const workloads::ModelConfig& model,
                                  const std::string& published) {
  const std::string p = lower(published);
  const bool int4 = contains(p, "int4");
  const bool fp4 = contains(p, "fp4") || int4;
  const std::string fp4_format = int4 ? "int4" : contains(p, "nvfp4") ? "nvfp4" : "mxfp4";
  if (model.ffn().type != workloads::FfnType::kMoe) {
    if (int4) return "weights=int4";
    if (fp4) return "weights=" + fp4_format + ",activations=" + fp4_format + ",kv_cache=fp8";
    if (contains(p, "fp8")) return "weights=fp8,activations=fp8,kv_cache=fp8";
    return "";
  }
  // A model file may describe a W4A4 checkpoint (mlp, mlp_activations: AMD's MXFP4 releases);
  // a published row names only its expert format, so its MLPs take the file's weights and
  // activations formats: weight-only 4-bit experts, as the rows were fitted.
  const workloads::PrecisionConfig& file = model.precision();
  const std::string mlp =
      ",mlp=" + to_string(file.weights) + ",mlp_activations=" + to_string(file.activations);
  if (fp4) return "experts=" + fp4_format + mlp;
  if (contains(p, "fp8")) {
    return "weights=fp8,experts=fp8,activations=fp8,mlp=fp8,mlp_activations=fp8";
  }
  if (file.mlp || file.mlp_activations) return mlp.substr(1);
  return "";
}

std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

double d(int64_t v) { return static_cast<double>(v); }

// A token count or concurrency of a row: empty is "not published"; anything else must be a whole
// number from 1 to 10^7, or the row's file, line and column are named (a fraction, a negative
// or 1e300 would otherwise be cast to a count).
std::optional<double> count_field(const MeasurementRow& r, const char* key) {
  const std::string& text = r.at(key);
  if (text.empty()) return std::nullopt;
  const std::optional<double> v = number(text);
  if (!v || *v < 1 || *v > 1e7 || *v != std::floor(*v)) {
    throw InputError(SourceLocation{r.file, r.line, 0}, key,
                     "expected a whole number from 1 to 10000000, found '" + text + "'");
  }
  return v;
}

// The prefill/decode split a row's notes publish, as InferenceX's Dynamo rows write it
// ("prefill 4 GPU TP4, decode 32 GPU EP8": decode instances of EP8, DeepSeek R1's recipes), or
// one tensor-parallel decode worker ("prefill 1 GPU TP1, decode 8 GPU TP8 EP1": attention over
// the worker's chips, experts over EP of them); lowercase notes. nullopt when there is none.
struct PublishedSplit {
  int64_t prefill_chips, prefill_tp, decode_chips, decode_ep;
  int64_t decode_tp = 0;  // the tensor-parallel worker's degree; 0: EP instances
};
std::optional<PublishedSplit> published_split(const std::string& notes) {
  static const std::regex instances(
      R"(prefill (\d{1,4}) (?:gpu,? )?tp=?(\d{1,4}), decode (\d{1,4}) (?:gpu,? )?ep=?(\d{1,4}))");
  static const std::regex worker(
      R"(prefill (\d{1,4}) (?:gpu,? )?tp=?(\d{1,4}), decode (\d{1,4}) (?:gpu,? )?tp=?(\d{1,4}) ep=?(\d{1,4}))");
  std::smatch m;
  if (std::regex_search(notes, m, worker)) {
    return PublishedSplit{std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3]), std::stoll(m[5]),
                          std::stoll(m[4])};
  }
  if (!std::regex_search(notes, m, instances)) return std::nullopt;
  return PublishedSplit{std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3]), std::stoll(m[4])};
}

// Chips per scale-up domain (node) of a system file: a deployment puts each pool on whole
// nodes. The local network's endpoints of a hierarchical system, else all its chips.
int64_t node_chips(const std::string& system_file, const config::DataPaths& paths) {
  const config::SystemConfig s = config::load_system(system_file, paths);
  return s.network.local ? s.network.local->endpoints : s.chips;
}

}  // namespace

const std::string& MeasurementRow::at(const std::string& key) const {
  static const std::string empty;
  auto it = fields.find(key);
  return it == fields.end() ? empty : it->second;
}

std::string shipped_measurements(const config::DataPaths& paths) {
  return paths.root + "/workloads/measurements/published/measurements.csv";
}

std::vector<MeasurementRow> read_measurements(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(SourceLocation{path, 0, 0}, "", "cannot read the measurements file");
  std::ostringstream whole;
  whole << file.rdbuf();
  require_utf8(whole.str(), path, true);
  std::istringstream in(whole.str());
  std::string line;
  std::vector<std::string> header;
  std::vector<MeasurementRow> rows;
  int number_of_line = 0;
  while (std::getline(in, line)) {
    ++number_of_line;
    if (line.empty()) continue;
    const std::vector<std::string> cells = split_csv(line);
    if (header.empty()) {
      header = cells;
      for (const char* need : {"id", "system", "model", "isl", "osl", "concurrency",
                               "throughput_metric", "throughput"}) {
        if (std::find(header.begin(), header.end(), need) == header.end()) {
          throw InputError(SourceLocation{path, 1, 1}, need, "expected this column in the header");
        }
      }
      continue;
    }
    MeasurementRow r;
    r.line = number_of_line;
    r.file = path;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) r.fields[header[i]] = cells[i];
    rows.push_back(std::move(r));
  }
  if (header.empty()) throw InputError(SourceLocation{path, 0, 0}, "", "empty measurements file");
  return rows;
}

std::vector<RowPlan> plan_rows(const std::vector<MeasurementRow>& rows) {
  return plan_rows(rows, shipped_deployment_recipes(config::DataPaths::from_environment()));
}

std::vector<RowPlan> plan_rows(const std::vector<MeasurementRow>& rows,
                               const std::vector<DeploymentRecipe>& recipes) {
  // The benchmarks file is read only when a row needs it (a data folder without MLPerf rows
  // need not ship it).
  bool any_mlperf = false;
  for (const MeasurementRow& r : rows) {
    const bool lengths = count_field(r, "isl") && count_field(r, "osl");
    any_mlperf = any_mlperf || (!lengths && notes_scenario(r.at("notes")).has_value());
  }
  const config::DataPaths paths = config::DataPaths::from_environment();
  if (!any_mlperf) return plan_rows(rows, recipes, {}, {}, shipped_inferencex_searches(paths));
  return plan_rows(rows, recipes, shipped_mlperf_benchmarks(paths), shipped_mlperf_replicas(paths),
                   shipped_inferencex_searches(paths));
}

std::vector<RowPlan> plan_rows(const std::vector<MeasurementRow>& rows,
                               const std::vector<DeploymentRecipe>& recipes,
                               const std::vector<MlperfBenchmark>& benchmarks,
                               const std::vector<PublishedReplica>& replicas,
                               const std::vector<InferencexSearch>& searches) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  const std::vector<std::string> chips_known = paths.available("arch/chips");
  const std::vector<std::string> systems_known = paths.available("arch/systems");
  const PublishedNames names = load_published_names(paths);
  std::map<std::string, workloads::ModelConfig> models;  // by name, loaded once
  std::vector<RowPlan> plans;
  std::map<std::string, std::map<int64_t, int>> replica_votes;  // model -> size -> rows
  for (const MeasurementRow& r : rows) {
    RowPlan o;
    o.id = r.at("id");
    o.line = r.line;
    o.system = r.at("system");
    o.model_published = r.at("model");
    o.framework = r.at("framework");
    o.metric = r.at("throughput_metric");
    o.precision = r.at("precision");
    const SystemMatch named = match_system(names, o.system);
    o.chip = named.chip;
    o.system_file = named.system_file;
    o.model = match_model(names, o.model_published);
    const auto isl = count_field(r, "isl");
    const auto osl = count_field(r, "osl");
    const auto conc = count_field(r, "concurrency");
    const auto published = number(r.at("throughput"));
    const auto chips = number(r.at("chips"));
    const auto ttft = number(r.at("ttft_ms"));
    const auto tpot = number(r.at("tpot_ms"));
    const std::string notes = lower(r.at("notes"));
    const std::optional<PublishedSplit> split = published_split(notes);
    const std::string framework = lower(r.at("framework"));
    // "MTP on" or "X + MTP" in the framework, "MTP enabled" in the notes ("no MTP" is off).
    static const std::regex added_mtp(R"(\+\s*mtp\b)");
    o.mtp = contains(notes, "mtp enabled") || contains(framework, "mtp on") ||
            std::regex_search(framework, added_mtp);
    const bool disaggregated = contains(framework, "dynamo") || contains(framework, "disagg");
    o.published_intvty = number(r.at("interactivity_tok_s_user"));
    if (published && isl && osl && conc && ttft && tpot && o.metric == "total_tok_s_per_chip") {
      // Little's law: InferenceX lengths are uniform in [0.8, 1] x nominal (mean 0.9 x).
      const double e2e_s = *ttft / 1e3 + std::max(0.0, 0.9 * *osl - 1.0) * *tpot / 1e3;
      if (e2e_s > 0) o.implied_chips = *conc * 0.9 * (*isl + *osl) / e2e_s / *published;
    }
    if (chips) o.row_chips = static_cast<int64_t>(*chips);
    // An MLPerf row: no lengths of its own, a scenario in its notes (docs/validation.md).
    const std::optional<RowScenario> mlperf =
        !isl || !osl ? notes_scenario(r.at("notes")) : std::nullopt;
    const MlperfBenchmark* benchmark = mlperf ? find_benchmark(benchmarks, o.model) : nullptr;
    if (o.chip.empty()) {
      o.skipped = named.why_not;
    } else if (o.model.empty()) {
      o.skipped = "model not named by any workloads/models file or alias";
    } else if (std::find(chips_known.begin(), chips_known.end(), o.chip) == chips_known.end()) {
      o.skipped = "no " + o.chip + " in arch/chips";
    } else if ((!isl || !osl) && !mlperf) {
      o.skipped = "no isl / osl and no MLPerf scenario in its notes";
    } else if (mlperf && o.metric != "output_tok_s_per_chip") {
      o.skipped = "an MLPerf row in " + o.metric + " (MLPerf counts output tokens only)";
    } else if (mlperf && !benchmark) {
      o.skipped =
          "an MLPerf row of a model without a line in "
          "workloads/measurements/mlperf-benchmarks.csv";
    } else if (!published && !(o.published_intvty && conc && isl && osl && !mlperf)) {
      // Without a throughput, a point with its interactivity is still a latency check.
      o.skipped = "no published throughput (nor an interactivity at a published concurrency)";
    } else if (split) {
      // One prefill instance over its chips (TP = chips); whole decode instances (the EP
      // form, DeepSeek R1's recipes) or one tensor-parallel decode worker over all its chips.
      const bool worker = split->decode_tp > 0;
      if (split->prefill_chips < 1 || split->prefill_tp != split->prefill_chips ||
          split->decode_chips < 1 || split->decode_ep < 1 ||
          split->decode_chips % split->decode_ep != 0 ||
          (worker ? split->decode_tp != split->decode_chips : o.model != "deepseek-r1")) {
        o.skipped = "a published prefill/decode split this version does not map";
      } else if (chips && *chips != d(split->prefill_chips + split->decode_chips)) {
        o.skipped = "the notes' prefill and decode chips do not add up to the row's chips";
      }
    } else if (o.mtp && disaggregated) {
      // A colocated MTP row runs as it is (row_scheduler's drafts); a disaggregated one needs
      // the pools' split.
      o.skipped = "MTP without a published prefill/decode split";
    } else if (!mlperf &&
               (contains(o.system, "multinode") || (chips && *chips > 8) || o.implied_chips > 12)) {
      // (An MLPerf row reports per chip over identical replicas: one replica is simulated.)
      o.skipped = "multi-node deployment not modelled";
    } else if (contains(r.at("framework"), "Dynamo")) {
      o.skipped = "disaggregated serving (Dynamo) with an unpublished prefill/decode split";
    }
    if (o.skipped.empty() && benchmark) {
      // The dataset's lengths (its samples, else uniform around its means; the row's own mean
      // output when its notes publish it); one replica of the benchmark's chips, at most the
      // row's.
      o.scenario = *mlperf;
      const double mean_output =
          notes_mean_output(r.at("notes")).value_or(benchmark->mean_output_tokens);
      if (benchmark->lengths) {
        // The dataset's own samples: its long prompts set the p99 TTFT and TPOT that the
        // Server and Interactive limits bound, which lengths near the mean never reach.
        o.length_samples = std::make_shared<const workloads::LengthSamples>(
            workloads::with_mean_output(*benchmark->lengths, mean_output));
        o.isl = std::llround(workloads::mean_input_tokens(*o.length_samples));
        o.osl = std::llround(workloads::mean_output_tokens(*o.length_samples));
      } else {
        // Lengths uniform in [0.8, 1] x nominal as InferenceX draws them (mean 0.9 x
        // nominal), so the closed loop's clients fall out of step as MLPerf's varied samples
        // do.
        o.isl = std::llround(benchmark->mean_input_tokens / 0.9);
        o.osl = std::llround(mean_output / 0.9);
        o.range_ratio = 0.8;
      }
      if (o.scenario == RowScenario::kServer) o.limits = benchmark->server;
      if (o.scenario == RowScenario::kInteractive) {
        o.limits = benchmark->interactive;
        if (benchmark->interactive_mtp_depth > 0) {  // the scenario's rules: speculative decoding
          o.mtp = true;
          o.mtp_depth = benchmark->interactive_mtp_depth;
        }
      }
      o.replica_chips = o.row_chips > 0 ? std::min(benchmark->replica_chips, o.row_chips)
                                        : benchmark->replica_chips;
      // The run's own instance size where its submission publishes it.
      const std::optional<std::string> folder = notes_location(r.at("notes"));
      if (const PublishedReplica* run = folder ? find_replica(replicas, *folder) : nullptr) {
        if (o.row_chips > 0 && run->replica_chips > o.row_chips) {
          o.skipped = "its published replica (" + std::to_string(run->replica_chips) + " chips, " +
                      run->where.str() + ") is larger than the row's chips";
        }
        o.replica_chips = run->replica_chips;
        o.replica_published = true;
      }
      o.published = published;
    } else if (o.skipped.empty()) {
      o.isl = static_cast<int64_t>(*isl);
      o.osl = static_cast<int64_t>(*osl);
      // Without its concurrency: InferenceX's best-throughput point, found by a sweep, or the
      // curve read at the interactivity the throughput was published at, where the notes say
      // so or where the row publishes both: a throughput and an interactivity without a
      // concurrency are one point of the curve, the throughput it reaches at that
      // interactivity (InferenceX's TPU article gives its Qwen3.5 pair "at an interactivity of
      // 20 tok/s/user"), not its best-throughput end.
      const std::optional<double> at = notes_at_interactivity(r.at("notes"));
      if (!conc && (at || (published && o.published_intvty))) {
        o.scenario = RowScenario::kAtInteractivity;
        o.target_intvty = o.published_intvty ? *o.published_intvty : *at;
        o.published_intvty.reset();
      } else if (!conc) {
        o.scenario = RowScenario::kBestThroughput;
      }
      // InferenceX's own search for the row: its replicas and the most clients each got.
      for (const InferencexSearch* s : searches_for(searches, o.id, r.at("model"))) {
        if (o.scenario != RowScenario::kBestThroughput) {
          throw InputError(
              s->where, "id",
              "row " + o.id + " is not a best-throughput row without its concurrency (it " +
                  (conc ? "publishes its concurrency" : "is read at an interactivity") +
                  "), so InferenceX's search does not apply to it");
        }
        o.searched.push_back(s->space);
      }
      o.concurrency = conc ? static_cast<int64_t>(*conc) : 0;
      o.published = published;
      if (!published) {
        o.throughput_not_compared = "no published throughput";
      } else if (contains(lower(o.system), "decode node")) {
        // The deployment's prefill ran on another engine and pool the row does not publish
        // (PD-disaggregated, e.g. TileRT's decode node behind a vLLM prefill): its throughput
        // per chip counts that pool's time, its interactivity (1 / TPOT) the decode node alone.
        o.published.reset();
        o.throughput_not_compared =
            "its throughput includes a prefill pool it does not publish (one decode node)";
      }
    }
    if (o.skipped.empty()) {
      auto it = models.find(o.model);
      if (it == models.end()) {
        it =
            models
                .emplace(o.model, workloads::load_model(paths.resolve(o.model, "workloads/models")))
                .first;
      }
      o.precision_override = precision_override_of(it->second, o.precision);
    }
    if (o.skipped.empty() && split) {
      o.prefill_chips = split->prefill_chips;
      o.decode_chips = split->decode_chips;
      o.decode_ep = split->decode_ep;
      o.decode_tensor_parallel = split->decode_tp > 0;
      o.replica_chips = split->prefill_chips + split->decode_chips;
      // Across nodes: the system's multi-node file (<chip>-multinode) when there is one.
      const bool multinode = contains(o.system, "multinode");
      const std::string multinode_file = o.chip + "-multinode";
      if (multinode && std::find(systems_known.begin(), systems_known.end(), multinode_file) !=
                           systems_known.end()) {
        o.system_file = multinode_file;
      }
      // Each pool on whole nodes: the decode pool's EP groups stay inside a node's NVLink.
      o.decode_first_chip = split->prefill_chips;
      if (multinode) {
        const int64_t node = node_chips(o.system_file, paths);
        o.decode_first_chip = (split->prefill_chips + node - 1) / node * node;
      }
      // The recipes (workloads/deployments) launch EP instances; a TP worker has none.
      const DeploymentRecipe* recipe =
          o.decode_tensor_parallel ? nullptr : find_recipe(recipes, o.system_file, o.concurrency);
      if (recipe) {
        if (recipe->prefill.chips() != o.prefill_chips ||
            recipe->decode.chips() != o.decode_chips || recipe->decode.ep != o.decode_ep) {
          o.skipped = "its deployment recipe (" + recipe->where.str() +
                      ") has other pools than the notes' prefill/decode split";
        } else if ((recipe->mtp_depth > 0) != o.mtp) {
          o.skipped =
              "its deployment recipe (" + recipe->where.str() + ") and its notes disagree on MTP";
        } else {
          o.recipe = *recipe;
        }
      }
    } else if (o.skipped.empty() && o.implied_chips > 0) {
      const double l2 = std::log2(o.implied_chips);
      const double rounded = std::clamp(std::round(l2), 0.0, 3.0);
      if (std::fabs(l2 - rounded) > 0.25) {
        o.skipped = "self-inconsistent: Little's law on its medians implies " +
                    std::to_string(o.implied_chips) + " chips per replica";
      } else {
        o.replica_chips = int64_t{1} << static_cast<int>(rounded);
        ++replica_votes[o.model][o.replica_chips];
      }
    }
    plans.push_back(o);
  }
  for (RowPlan& o : plans) {
    if (!o.skipped.empty() || o.replica_chips != 0) continue;
    // No medians of its own: the replica size most of its model's rows show, else 8 chips.
    int64_t best = 8;
    int votes = 0;
    for (const auto& [size, n] : replica_votes[o.model]) {
      if (n > votes) best = size, votes = n;
    }
    o.replica_chips = best;
  }
  return plans;
}

struct RowSimulator::State {
  RowPlan plan;
  engine::ServingEngine engine;
  serving::RooflineCostModel* roofline = nullptr;
  int64_t prompts_per_client = 10;
};

workloads::ModelConfig row_model(const RowPlan& plan, const config::DataPaths& paths) {
  workloads::ModelConfig m = workloads::load_model(paths.resolve(plan.model, "workloads/models"));
  if (!plan.precision_override.empty()) {
    m = workloads::apply_precision_override(
        m, workloads::parse_precision_override(plan.precision_override, "precision"));
  }
  // The checkpoint's MTP module ([SPEC] DeepSeek V3/R1: num_nextn_predict_layers 1), priced per
  // step as the drafts it makes.
  if (plan.mtp && m.ffn().type == workloads::FfnType::kMoe) m = m.with_mtp_layers(1);
  return m;
}

workloads::MappingConfig row_mapping(const RowPlan& plan, const workloads::ModelConfig& model,
                                     SourceLocation where) {
  const bool moe = model.ffn().type == workloads::FfnType::kMoe;
  if (plan.decode_chips == 0) {
    workloads::PoolMapping p;
    p.chips = plan.replica_chips;
    p.degrees.tp = plan.replica_chips;
    p.degrees.ep = moe ? plan.replica_chips : 1;
    // [ASSUMPTION] An MLPerf submission of an MLA model runs attention data parallel over its
    // replica once it holds a sequence per chip: MLA caches one latent per token that no head
    // split divides, so tensor-parallel attention would keep every sequence's whole cache on
    // every chip; the throughput deployments run DP attention with expert-parallel MoE
    // (TensorRT-LLM's "attention DP", vLLM's `-dp N --enable-expert-parallel`), as the
    // disaggregated decode pools below do. InferenceX's colocated MLA rows keep tensor-parallel
    // attention: the stack fits were made on them so (docs/calibration.md).
    const bool mlperf = plan.scenario == RowScenario::kOffline ||
                        plan.scenario == RowScenario::kServer ||
                        plan.scenario == RowScenario::kInteractive;
    if (mlperf && moe && model.attention().type == workloads::AttentionType::kMla &&
        plan.replica_chips > 1 && plan.concurrency >= plan.replica_chips) {
      p.degrees.attn_dp = plan.replica_chips;
    }
    p.where = std::move(where);
    return workloads::MappingConfig{{p}};
  }
  // [ASSUMPTION] The published split names chips and one degree per pool; the rest follows
  // TensorRT-LLM's DeepSeek recipes (docs/calibration.md):
  // - prefill "TPp" on P chips: tensor parallel over the pool, experts spread over it (EP =
  //   the largest divisor of the experts that divides P); when P does not divide the heads
  //   (TP12), attention data parallel over the pool instead;
  // - decode "EPe" on D chips: D / e instances of e chips, each expert parallel over its e
  //   chips (tp = D, ep = e: D / e expert replicas). Attention runs tensor parallel inside each
  //   instance (TEP) while the concurrency is below one sequence per decode chip, and data
  //   parallel over every chip (DEP) from there on, as the recipes switch from their
  //   low-latency to their throughput configurations.
  workloads::PoolMapping prefill;
  prefill.pool = "prefill";
  prefill.chips = plan.prefill_chips;
  prefill.degrees.tp = plan.prefill_chips;
  prefill.degrees.ep = moe ? std::gcd(model.ffn().experts, plan.prefill_chips) : 1;
  prefill.degrees.attn_dp =
      model.attention().heads % plan.prefill_chips == 0 ? 1 : plan.prefill_chips;
  if (plan.recipe) {  // as launched: attention per scheduler, the workers' expert spread
    prefill.degrees.ep = moe ? plan.recipe->prefill.ep : 1;
    prefill.degrees.attn_dp = plan.recipe->prefill.schedulers();
  }
  prefill.where = where;
  workloads::PoolMapping decode;
  decode.pool = "decode";
  decode.chips = plan.decode_chips;
  decode.degrees.tp = plan.decode_chips;
  decode.degrees.ep = moe ? plan.decode_ep : 1;
  decode.degrees.attn_dp = plan.decode_tensor_parallel ? 1
                           : plan.recipe               ? plan.recipe->decode.schedulers()
                           : plan.concurrency >= plan.decode_chips
                               ? plan.decode_chips
                               : plan.decode_chips / plan.decode_ep;
  decode.first_chip = plan.decode_first_chip;
  decode.where = std::move(where);
  return workloads::MappingConfig{{prefill, decode}};
}

serving::SchedulerConfig row_scheduler(const RowPlan& plan) {
  serving::SchedulerConfig scheduler;
  scheduler.max_num_seqs = plan.concurrency;
  if (plan.mtp) {
    scheduler.mtp.depth = plan.recipe          ? plan.recipe->mtp_depth
                          : plan.mtp_depth > 0 ? plan.mtp_depth
                                               : kRowMtpDepth;
    scheduler.mtp.acceptance = kRowMtpAcceptance;
  }
  return scheduler;
}

engine::ServingEngine make_row_engine(const RowPlan& plan, const engine::ServingHardware& hw,
                                      const workloads::ModelConfig& model) {
  engine::ServingEngine engine = engine::make_engine(
      hw, model,
      row_mapping(plan, model, SourceLocation{"measurements row " + plan.id, plan.line, 1}),
      row_scheduler(plan));
  if (!plan.recipe) return engine;
  serving::ServingSystem& system = engine.system;
  // [ASSUMPTION] Dynamo routed the TensorRT-LLM requests decode first (the flow its TensorRT-LLM
  // examples used: ai-dynamo/enhancements deps/0002-dep-trtllm-disagg-workflow.md), so a
  // request holds a decode slot before its prefill; by Little's law the rows' implied TTFTs
  // match the queue for the recipe's decode slots (docs/calibration.md).
  system.handoff = "reserve-decode-slot";
  for (serving::PoolConfig& pool : system.pools) {
    const PoolRecipe& r =
        pool.role == serving::PoolRole::kPrefill ? plan.recipe->prefill : plan.recipe->decode;
    // One TensorRT-LLM scheduler per attention-DP rank of the pool (row_mapping made them so).
    pool.scheduler.max_num_seqs = r.max_batch * pool.attention_dp;
    pool.scheduler.max_num_batched_tokens = r.max_tokens * pool.attention_dp;
  }
  return engine;
}

RowSimulator::RowSimulator(const RowPlan& plan, const engine::ServingHardware& hw,
                           int64_t prompts_per_client)
    : state_(std::make_unique<State>()) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  State& s = *state_;
  s.plan = plan;
  s.prompts_per_client = prompts_per_client;
  const workloads::ModelConfig m = row_model(plan, paths);
  s.engine = make_row_engine(plan, hw, m);
  s.roofline = dynamic_cast<serving::RooflineCostModel*>(s.engine.cost.get());
}

RowSimulator::~RowSimulator() = default;
RowSimulator::RowSimulator(RowSimulator&&) noexcept = default;

RowPrediction RowSimulator::run(const serving::EfficiencyKnobs& knobs) {
  State& s = *state_;
  s.roofline->set_efficiency(knobs);
  serving::ServingScenario sc;
  const bool poisson = s.plan.arrival_rate > 0;
  sc.workload.kind =
      poisson ? workloads::ArrivalKind::kPoisson : workloads::ArrivalKind::kClosedLoop;
  sc.workload.concurrency = s.plan.concurrency;
  sc.workload.rate = poisson ? s.plan.arrival_rate : sc.workload.rate;
  sc.workload.max_concurrency = 0;  // LoadGen sends on schedule; the batch limit queues them
  sc.workload.num_prompts = s.prompts_per_client * s.plan.concurrency;
  sc.workload.lengths = {s.plan.isl, s.plan.osl, s.plan.range_ratio, s.plan.length_samples};
  sc.system = s.engine.system;
  const serving::ServingResult result = serving::run_serving(sc, *s.engine.cost, 1);
  const serving::ServingMetrics& metrics = result.metrics;
  RowPrediction p;
  p.throughput = s.plan.metric == "output_tok_s_per_chip"  ? metrics.output_tput_per_chip
                 : s.plan.metric == "input_tok_s_per_chip" ? metrics.input_tput_per_chip
                                                           : metrics.tput_per_chip;
  p.intvty = metrics.intvty;
  // p99 TTFT of the steady state: the requests sent after the closed loop's first wave (all
  // sent at once, queueing behind each other's prefill as no Server-scenario load does); a
  // Poisson load's every request.
  std::vector<double> steady_ttft_ms;
  for (const serving::RequestRecord& r : result.trace.records) {
    if (poisson || r.sent.si() > 0) steady_ttft_ms.push_back(r.ttft().si() * 1e3);
  }
  p.p99_ttft_ms = steady_ttft_ms.empty() ? metrics.ttft_ms.p99
                                         : serving::percentile(std::move(steady_ttft_ms), 99.0);
  p.p99_tpot_ms = metrics.tpot_ms.p99;
  return p;
}

double signed_error(double predicted, double published) {
  return published != 0 ? (predicted - published) / published * 100.0 : 0.0;
}

double combined_mape(const std::vector<RowPlan>& plans, const std::vector<RowPrediction>& pred) {
  double sum = 0;
  int terms = 0;
  for (size_t i = 0; i < plans.size() && i < pred.size(); ++i) {
    if (plans[i].published) {
      sum += std::fabs(signed_error(pred[i].throughput, *plans[i].published));
      ++terms;
    }
    if (plans[i].published_intvty) {
      sum += std::fabs(signed_error(pred[i].intvty, *plans[i].published_intvty));
      ++terms;
    }
  }
  return terms ? sum / d(terms) : 0.0;
}

double combined_log_error(const std::vector<RowPlan>& plans,
                          const std::vector<RowPrediction>& pred) {
  double sum = 0;
  int terms = 0;
  auto add = [&](double predicted, double published) {
    if (predicted <= 0 || published <= 0) {
      sum += 100.0;  // a failed prediction is far off, whatever the scale
    } else {
      sum += std::pow(std::log(predicted / published), 2);
    }
    ++terms;
  };
  for (size_t i = 0; i < plans.size() && i < pred.size(); ++i) {
    if (plans[i].published) add(pred[i].throughput, *plans[i].published);
    if (plans[i].published_intvty) add(pred[i].intvty, *plans[i].published_intvty);
  }
  return terms ? sum / d(terms) : 0.0;
}

}  // namespace scoville::validation
