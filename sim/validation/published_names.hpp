// Which arch/systems and workloads/models file a published measurement names, read from the
// `aliases` those files carry (docs/validation.md, "How rows name systems and models"):
// - a row's system is free text ("Dell PowerEdge XE9680 (8xH200-SXM-141GB, TensorRT) [H200]"):
//   it names the system whose alias it contains, case-insensitively; when several aliases
//   match, the longest wins ("GB200" over "B200"), and two systems with an equally long
//   matching alias leave the row unnamed (ambiguous);
// - a row's model names the model file whose name or alias equals it, case-insensitively
//   ("Kimi-K2.5/K2.6" is not "Kimi-K2.5").
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/config/data_paths.hpp"

namespace scoville::validation {

struct SystemAlias {
  std::string alias;        // as written in the system file
  std::string system_file;  // arch/systems name
  std::string chip;         // arch/chips name of its chips
};

struct PublishedNames {
  std::vector<SystemAlias> systems;
  std::map<std::string, std::string> models;  // lower-cased name or alias -> workloads/models name
};

// Reads every system and model file of the data root. Throws InputError when a file is invalid
// or two model files claim the same alias.
PublishedNames load_published_names(const config::DataPaths& paths);

struct SystemMatch {
  std::string system_file, chip;  // empty when no system is named
  std::string why_not;            // non-empty when empty: the reason
};
SystemMatch match_system(const PublishedNames& names, const std::string& published);

// The workloads/models name ("" when no model file answers to it).
std::string match_model(const PublishedNames& names, const std::string& published);

}  // namespace scoville::validation
