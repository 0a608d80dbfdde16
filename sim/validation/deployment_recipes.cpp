#include "sim/validation/deployment_recipes.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include "sim/validation/data_table.hpp"
#include "sim/validation/measurement_rows.hpp"

namespace scoville::validation {

namespace {

constexpr int64_t kMaxCount = 1000000;  // far above any deployment; refuses absurd values
constexpr int64_t kMaxMtpDepth = 16;    // MTP drafts per step; recipes use 1-3

const char* const kColumns[] = {"system",
                                "concurrency",
                                "prefill_workers",
                                "prefill_tp",
                                "prefill_ep",
                                "prefill_attention_dp",
                                "prefill_max_batch",
                                "prefill_max_tokens",
                                "decode_workers",
                                "decode_tp",
                                "decode_ep",
                                "decode_attention_dp",
                                "decode_max_batch",
                                "decode_max_tokens",
                                "mtp_depth",
                                "recipe"};

// A row with the typed readers of this file.
struct Record : DataRow {
  bool flag(const std::string& column) const {
    const std::string& s = text(column);
    if (s == "true") return true;
    if (s == "false") return false;
    throw InputError(at(column), column, "expected true or false, got '" + s + "'");
  }
  PoolRecipe pool(const std::string& prefix) const {
    PoolRecipe p;
    p.workers = count(prefix + "_workers", 1, kMaxCount);
    p.tp = count(prefix + "_tp", 1, kMaxCount);
    p.ep = count(prefix + "_ep", 1, kMaxCount);
    p.attention_dp = flag(prefix + "_attention_dp");
    p.max_batch = count(prefix + "_max_batch", 1, kMaxCount);
    p.max_tokens = count(prefix + "_max_tokens", 1, kMaxCount);
    if (p.tp % p.ep != 0) {
      throw InputError(at(prefix + "_ep"), prefix + "_ep",
                       "expected a divisor of " + prefix + "_tp (" + std::to_string(p.tp) +
                           "): experts spread over GPUs of one worker");
    }
    if (p.chips() > kMaxCount) {
      throw InputError(at(prefix + "_workers"), prefix + "_workers",
                       "expected workers x tp of at most " + std::to_string(kMaxCount));
    }
    return p;
  }
};

}  // namespace

std::vector<DeploymentRecipe> read_deployment_recipes(const std::string& path) {
  return parse_deployment_recipes(read_data_file(path, "recipe file"), path);
}

std::vector<DeploymentRecipe> parse_deployment_recipes(const std::string& text,
                                                       const std::string& path) {
  std::vector<DeploymentRecipe> out;
  std::set<std::pair<std::string, int64_t>> seen;
  const auto read_row = [&](int number, const std::vector<std::string>& header,
                            const std::vector<std::string>& cells) {
    const Record r{{path, number, header, cells}};
    DeploymentRecipe d;
    d.system = r.text("system");
    if (d.system.empty()) throw InputError(r.at("system"), "system", "expected a system name");
    d.concurrency = r.count("concurrency", 1, kMaxCount);
    d.prefill = r.pool("prefill");
    d.decode = r.pool("decode");
    d.mtp_depth = r.count("mtp_depth", 0, kMaxMtpDepth);
    d.name = r.text("recipe");
    d.where = SourceLocation{path, number, 1};
    if (!seen.insert({d.system, d.concurrency}).second) {
      throw InputError(r.at("concurrency"), "concurrency",
                       "a second recipe for " + d.system + " at this concurrency");
    }
    out.push_back(std::move(d));
  };
  const std::vector<std::string> columns(std::begin(kColumns), std::end(kColumns));
  for_each_data_row(text, path, columns, read_row);
  return out;
}

std::vector<DeploymentRecipe> shipped_deployment_recipes(const config::DataPaths& paths) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(paths.root) / "workloads" / "deployments";
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".csv") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<DeploymentRecipe> all;
  for (const std::string& f : files) {
    for (DeploymentRecipe& d : read_deployment_recipes(f)) {
      if (find_recipe(all, d.system, d.concurrency) != nullptr) {
        throw InputError(d.where, "concurrency",
                         "a second recipe for " + d.system + " at this concurrency");
      }
      all.push_back(std::move(d));
    }
  }
  return all;
}

const DeploymentRecipe* find_recipe(const std::vector<DeploymentRecipe>& recipes,
                                    const std::string& system, int64_t concurrency) {
  for (const DeploymentRecipe& d : recipes) {
    if (d.system == system && d.concurrency == concurrency) return &d;
  }
  return nullptr;
}

}  // namespace scoville::validation
