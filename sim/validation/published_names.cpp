#include "sim/validation/published_names.hpp"

#include <cctype>

#include "sim/base/error.hpp"
#include "sim/config/system_loader.hpp"
#include "workloads/model_loader.hpp"

namespace scoville::validation {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

PublishedNames load_published_names(const config::DataPaths& paths) {
  PublishedNames names;
  for (const std::string& name : paths.available("arch/systems")) {
    const config::SystemConfig s = config::load_system(name, paths);
    if (s.chip.empty()) continue;  // a network-only file has no chip to simulate
    for (const std::string& alias : s.aliases) names.systems.push_back({alias, name, s.chip});
  }
  for (const std::string& name : paths.available("workloads/models")) {
    const std::string file = paths.resolve(name, "workloads/models");
    for (const std::string& alias : workloads::load_model_names(file)) {
      const auto [it, added] = names.models.emplace(lower(alias), name);
      if (!added && it->second != name) {
        throw InputError(SourceLocation{file, 0, 0}, "aliases",
                         "'" + alias + "' already names model '" + it->second + "'");
      }
    }
  }
  return names;
}

SystemMatch match_system(const PublishedNames& names, const std::string& published) {
  const std::string text = lower(published);
  const SystemAlias* best = nullptr;
  bool tied = false;
  for (const SystemAlias& a : names.systems) {
    if (a.alias.empty() || text.find(lower(a.alias)) == std::string::npos) continue;
    if (!best || a.alias.size() > best->alias.size()) {
      best = &a;
      tied = false;
    } else if (a.alias.size() == best->alias.size() && a.system_file != best->system_file) {
      tied = true;
    }
  }
  if (!best) return {"", "", "system not named by any alias in arch/systems"};
  if (tied) {
    return {"", "",
            "system named by aliases of several arch/systems files ('" + best->alias + "')"};
  }
  return {best->system_file, best->chip, ""};
}

std::string match_model(const PublishedNames& names, const std::string& published) {
  const auto it = names.models.find(lower(published));
  return it == names.models.end() ? "" : it->second;
}

}  // namespace scoville::validation
