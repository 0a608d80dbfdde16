#include "sim/engine/ablation.hpp"

#include <memory>

#include "sim/base/error.hpp"
#include "sim/config/config_override.hpp"

namespace scoville::engine {

AblationMode parse_ablation_mode(const std::string& text) {
  if (text == "cartesian") return AblationMode::kCartesian;
  if (text == "one-at-a-time") return AblationMode::kOneAtATime;
  throw UsageError("--mode: expected cartesian or one-at-a-time, found '" + text + "'");
}

std::vector<std::vector<std::string>> ablation_variants(const std::vector<AblationAxis>& axes,
                                                        AblationMode mode) {
  std::vector<std::string> baseline;
  for (const AblationAxis& a : axes) baseline.push_back(a.values.front());
  std::vector<std::vector<std::string>> out{baseline};
  if (mode == AblationMode::kOneAtATime) {
    for (size_t k = 0; k < axes.size(); ++k) {
      for (size_t v = 1; v < axes[k].values.size(); ++v) {
        std::vector<std::string> row = baseline;
        row[k] = axes[k].values[v];
        out.push_back(row);
      }
    }
    return out;
  }
  // Cartesian: an odometer over the value indices, the last axis turning fastest.
  std::vector<size_t> index(axes.size(), 0);
  while (true) {
    size_t k = axes.size();
    while (k > 0 && ++index[k - 1] == axes[k - 1].values.size()) index[--k] = 0;
    if (k == 0) break;
    std::vector<std::string> row;
    for (size_t i = 0; i < axes.size(); ++i) row.push_back(axes[i].values[index[i]]);
    out.push_back(row);
  }
  return out;
}

SystemRunArgs variant_args(const SystemRunArgs& base, const std::vector<AblationAxis>& axes,
                           const std::vector<std::string>& values) {
  SystemRunArgs args = base;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (config::config_key(axes[i].key)) {
      args.overrides.add({axes[i].key, values[i]});
    } else {
      set_run_field(args, axes[i].key, values[i]);
    }
  }
  return args;
}

std::string variant_label(const std::vector<AblationAxis>& axes,
                          const std::vector<std::string>& values) {
  std::string text;
  for (size_t i = 0; i < axes.size(); ++i) {
    text += (i == 0 ? "" : ", ") + axes[i].key + "=" + values[i];
  }
  return text;
}

std::vector<AblationRow> run_ablation(const SystemRunArgs& base,
                                      const std::vector<AblationAxis>& axes, AblationMode mode,
                                      const config::DataPaths& paths,
                                      const std::function<void(const std::string&)>& step) {
  if (!base.system) throw UsageError("scoville ablate needs --system NAME|FILE");
  const std::string system_path = paths.resolve(*base.system, "arch/systems");
  config::require_known(*base.system, system_path, "arch/systems", paths, "system");
  const std::vector<std::vector<std::string>> variants = ablation_variants(axes, mode);
  // Elaborate every variant first: a SystemC design cannot be built after the first run.
  std::vector<std::unique_ptr<SystemStudy>> studies;
  for (const std::vector<std::string>& values : variants) {
    const SystemRunArgs args = variant_args(base, axes, values);
    const config::SystemConfig system = config::system_with(system_path, args.overrides.system);
    studies.push_back(
        std::make_unique<SystemStudy>(system_setup(args, system, paths), study_config(args)));
  }
  std::vector<AblationRow> rows;
  for (size_t i = 0; i < variants.size(); ++i) {
    AblationRow row{variants[i], studies[i]->engine().setup(), studies[i]->config(), {}};
    row.result = studies[i]->run();
    rows.push_back(std::move(row));
    step(variant_label(axes, variants[i]));
  }
  return rows;
}

}  // namespace scoville::engine
