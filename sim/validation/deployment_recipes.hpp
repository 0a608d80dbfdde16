// How a published measurement was deployed, beyond what its notes say: the pools' workers,
// parallelism and batch limits and the MTP depth of InferenceX's Dynamo + TensorRT-LLM recipes
// (workloads/deployments/*.csv, one line per system and concurrency, each file stating its
// sources). `validate` and `calibrate` simulate such a row the way it was launched
// (sim/validation/measurement_rows.hpp); docs/calibration.md explains the columns' use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::validation {

// One pool of a recipe: `workers` TensorRT-LLM instances of `tp` GPUs each, experts spread over
// `ep` of them. With attention DP every GPU schedules its own sequences; without it each worker
// schedules for its GPUs. max_batch and max_tokens are TensorRT-LLM's max_batch_size and
// max_num_tokens, per scheduler.
struct PoolRecipe {
  int64_t workers = 0, tp = 0, ep = 0;
  bool attention_dp = false;
  int64_t max_batch = 0, max_tokens = 0;

  int64_t chips() const { return workers * tp; }
  int64_t schedulers() const { return attention_dp ? chips() : workers; }
};

struct DeploymentRecipe {
  std::string system;  // arch/systems name the measurement rows map to
  int64_t concurrency = 0;
  PoolRecipe prefill, decode;
  int64_t mtp_depth = 0;  // MTP drafts per step (num_nextn_predict_layers); 0: none
  std::string name;       // the recipe's own name (its file in the source)
  SourceLocation where;   // file and line it was read from
};

// Reads one recipe file; '#' lines are comments. Throws InputError naming the file, line and
// column of the first bad value (a missing column, a count that is not a whole number in range,
// attention_dp not true / false, ep not dividing tp, a repeated system and concurrency).
std::vector<DeploymentRecipe> read_deployment_recipes(const std::string& path);
// The same from the file's text; `path` names it in errors.
std::vector<DeploymentRecipe> parse_deployment_recipes(const std::string& text,
                                                       const std::string& path);

// Every workloads/deployments/*.csv under the data root, in file-name order.
std::vector<DeploymentRecipe> shipped_deployment_recipes(const config::DataPaths& paths);

// The recipe of a system at a concurrency; nullptr when there is none.
const DeploymentRecipe* find_recipe(const std::vector<DeploymentRecipe>& recipes,
                                    const std::string& system, int64_t concurrency);

}  // namespace scoville::validation
