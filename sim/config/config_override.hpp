// Input files with keys changed (`scoville ablate --vary KEY=V`): any key of the system file, of
// the chip it names, of the model or of the software profile, by dotted path. Each file is read
// as YAML, the keys set, and the result parsed by the file's own loader, so that a change that
// leaves the file invalid gets the loader's error, located in the file as written and naming the
// key that was set.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "models/chip/chip_params.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/system_loader.hpp"
#include "workloads/model_config.hpp"

namespace scoville::config {

// One key set to one value, as the user wrote both (e.g. chip.hbm.capacity = "96 GB").
struct KeySetting {
  std::string key;
  std::string value;
};

enum class ConfigFile { kSystem, kChip, kModel, kSoftware };

// Where a dotted key lives: the file, and the path from the file's root (its root key included
// for the files that have one: system, chip, software).
struct ConfigKey {
  ConfigFile file = ConfigFile::kSystem;
  std::vector<std::string> path;
};

// The file key `key` names, or nullopt when it names none (a run setting such as batch):
//   system.X           the system file (system.local.X and system.scale_out.X are read as
//                      system.network.local.X ...); also written without `system.` for the
//                      system file's own sections and fields: network.X, local.X, scale_out.X,
//                      host.X, power.X, chips, chip (the chip's name), software (the profile's
//                      name)
//   chip.X             the chip file the system names (after system.chip is set, if it is)
//   model.X            the model file; precision.X is model.precision.X
//   software.X         the system's software profile (arch/software)
std::optional<ConfigKey> config_key(const std::string& key);

// Sets `dotted` (a.b.c, a list index as a part: a.dims.1; relative to `root`) to `value` in
// place, as every file setting above is applied: a value starting with [ or { is parsed as YAML,
// a missing section on the path is created (the file's loader then judges the result, so an
// unknown key gets its suggestions). `file` locates the errors (a value that is not YAML, a
// path through a plain value).
void set_yaml_key(YAML::Node root, const std::string& dotted, const std::string& value,
                  const std::string& file);

// The settings of each file, in the order given.
struct ConfigOverrides {
  std::vector<KeySetting> system, chip, model, software;

  bool empty() const;
  // Adds a setting to its file's list; std::invalid_argument when config_key(key) is nullopt.
  void add(const KeySetting& setting);
};

// Each file loaded with its settings applied (none: the file as it is). A setting whose section
// is missing on the path, or a result the loader refuses, throws InputError located in the file
// at the key (or at its nearest section that exists) and naming the setting.
SystemConfig system_with(const std::string& path, const std::vector<KeySetting>& settings);
models::ChipParams chip_with(const std::string& path, const DataPaths& paths,
                             const std::vector<KeySetting>& settings);
workloads::ModelConfig model_with(const std::string& path, const std::vector<KeySetting>& settings);
SoftwareProfile software_with(const std::string& path, const std::vector<KeySetting>& settings);

}  // namespace scoville::config
