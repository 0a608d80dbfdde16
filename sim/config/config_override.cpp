#include "sim/config/config_override.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

#include "models/chip/matrix_clocks.hpp"
#include "sim/base/error.hpp"
#include "sim/base/yaml_reader.hpp"
#include "sim/config/chip_loader.hpp"
#include "workloads/model_loader.hpp"

namespace scoville::config {

namespace {

std::vector<std::string> split_dots(const std::string& dotted) {
  std::vector<std::string> parts;
  std::stringstream ss(dotted);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  return parts;
}

bool is_index(const std::string& part) {
  if (part.empty()) return false;
  for (char c : part) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// A loader's key path ("system.network.local.dims[1]") as the parts a YAML walk takes.
std::vector<std::string> key_path_parts(const std::string& key_path) {
  std::string dotted;
  for (char c : key_path) {
    if (c == '[') {
      dotted += '.';
    } else if (c != ']') {
      dotted += c;
    }
  }
  return split_dots(dotted);
}

// Where `key_path` is written in `root`: the key's own line, or the nearest section on its path
// that the file has (the whole file when not even the first is there).
SourceLocation locate(const YAML::Node& root, const std::string& key_path,
                      const std::string& file) {
  SourceLocation where{file, 0, 0};
  YAML::Node node = root;
  for (const std::string& part : key_path_parts(key_path)) {
    YAML::Node next;
    if (node.IsMap()) {
      bool found = false;
      for (const auto& kv : node) {
        if (kv.first.Scalar() == part) {
          where = location_of(kv.first, file);
          next.reset(kv.second);
          found = true;
          break;
        }
      }
      if (!found) return where;
    } else if (node.IsSequence() && is_index(part) && std::stoul(part) < node.size()) {
      next.reset(node[std::stoul(part)]);
      where = location_of(next, file);
    } else {
      return where;
    }
    node.reset(next);
  }
  return where;
}

std::string describe(const std::vector<KeySetting>& settings) {
  std::string text;
  for (size_t i = 0; i < settings.size(); ++i) {
    text += (i == 0 ? "" : ", ") + settings[i].key + " = " + settings[i].value;
  }
  return text;
}

// Sets one setting in `root` along `path`; a missing section on the way is created (the loader
// then judges the result: an unknown key is its error, with its suggestions).
void apply(YAML::Node root, const std::vector<std::string>& path, const KeySetting& setting,
           const std::string& file) {
  YAML::Node node = root;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const std::string& part = path[i];
    YAML::Node child;
    if (node.IsSequence() && is_index(part) && std::stoul(part) < node.size()) {
      child.reset(node[std::stoul(part)]);
    } else if (node.IsMap() || node.IsNull()) {
      child.reset(node[part]);
      if (!child.IsDefined() || child.IsNull()) {
        node[part] = YAML::Node(YAML::NodeType::Map);
        child.reset(node[part]);
      }
    } else {
      throw InputError(
          locate(root, setting.key, file), setting.key,
          "cannot set '" + setting.key + "': '" + part + "' is under a value, not a section");
    }
    if (!child.IsMap() && !child.IsSequence()) {
      throw InputError(locate(root, setting.key, file), setting.key,
                       "cannot set '" + setting.key + "': '" + part +
                           "' is a value in this file, not a section");
    }
    node.reset(child);  // rebind (operator= would overwrite the parent's content)
  }
  const std::string& last = path.back();
  YAML::Node value = setting.value.find_first_of("[{") == 0 ? YAML::Load(setting.value)
                                                            : YAML::Node(setting.value);
  if (node.IsSequence() && is_index(last) && std::stoul(last) < node.size()) {
    node[std::stoul(last)] = value;
  } else if (node.IsMap() || node.IsNull()) {
    node[last] = value;
  } else {
    throw InputError(locate(root, setting.key, file), setting.key,
                     "cannot set '" + setting.key + "' here");
  }
}

}  // namespace

void set_yaml_key(YAML::Node root, const std::string& dotted, const std::string& value,
                  const std::string& file) {
  const std::vector<std::string> path = split_dots(dotted);
  if (path.empty() || dotted.back() == '.' || dotted.front() == '.') {
    throw InputError(SourceLocation{file, 0, 0}, dotted, "expected a dotted key such as a.b");
  }
  try {
    apply(root, path, KeySetting{dotted, value}, file);
  } catch (const YAML::Exception& e) {
    throw InputError(locate(root, dotted, file), dotted,
                     "the value '" + value + "' is not YAML: " + e.msg);
  }
}

namespace {

// The network section keys that only some topology kinds read (sim/config/system_loader.cpp,
// read_topology_fields); the loader refuses them under any other kind as unknown keys.
const std::vector<std::pair<std::string, std::vector<std::string>>> kTopologyFields = {
    {"dims", {"torus2d", "torus3d"}},
    {"tiers", {"fat_tree"}},
    {"oversubscription", {"fat_tree"}},
    {"routers_per_group", {"dragonfly"}},
    {"endpoints_per_router", {"dragonfly"}},
    {"global_links_per_router", {"dragonfly"}},
    {"switch", {"switch", "fat_tree", "dragonfly"}},
};

// A setting that changes a network section's topology also drops the section's keys the new
// kind does not read (a switch: section under full_mesh), so that varying the topology needs no
// edit of the file; keys the new kind needs and the file lacks stay the loader's errors.
void drop_unused_topology_fields(YAML::Node root, const std::vector<KeySetting>& settings) {
  for (const KeySetting& s : settings) {
    const std::optional<ConfigKey> key = config_key(s.key);
    const std::vector<std::string>& p = key->path;
    if (key->file != ConfigFile::kSystem || p.size() != 4 || p[1] != "network" ||
        p[3] != "topology") {
      continue;
    }
    YAML::Node section = root["system"]["network"][p[2]];
    for (const auto& [field, kinds] : kTopologyFields) {
      if (section[field] && std::find(kinds.begin(), kinds.end(), s.value) == kinds.end()) {
        section.remove(field);
      }
    }
  }
}

// The file at `path` with `settings` applied, parsed by `parse(text, path)`; the parser's errors
// are relocated into the file as written and name the settings.
template <class Parse>
auto parse_with(const std::string& path, const std::vector<KeySetting>& settings, Parse parse)
    -> decltype(parse(std::string(), path)) {
  if (settings.empty()) return parse(read_text_file(path), path);
  const YAML::Node original = load_yaml_file(path);
  YAML::Node root = YAML::Clone(original);
  for (const KeySetting& s : settings) {
    const std::optional<ConfigKey> key = config_key(s.key);
    if (!key) throw std::logic_error("parse_with: not a file key: " + s.key);
    try {
      apply(root, key->path, s, path);
    } catch (const YAML::Exception& e) {
      throw InputError(locate(original, s.key, path), s.key,
                       "the value '" + s.value + "' is not YAML: " + e.msg);
    }
  }
  drop_unused_topology_fields(root, settings);
  YAML::Emitter emitter;
  emitter << root;
  try {
    return parse(std::string(emitter.c_str()), path);
  } catch (const InputError& e) {
    std::vector<Diagnostic> located;
    for (const Diagnostic& d : e.diagnostics()) {
      Diagnostic moved = d;
      // Lines of the text parsed are not the file's: point at the key in the file as written.
      if (d.where.file == path) moved.where = locate(original, d.key_path, path);
      moved.message += " (with " + describe(settings) + ")";
      located.push_back(moved);
    }
    throw InputError(located);
  }
}

}  // namespace

std::optional<ConfigKey> config_key(const std::string& key) {
  std::vector<std::string> parts = split_dots(key);
  if (parts.empty()) return std::nullopt;
  for (const std::string& p : parts) {
    if (p.empty()) return std::nullopt;
  }
  const std::string& head = parts.front();
  ConfigKey out;
  if (head == "system" && parts.size() >= 2) {
    out.file = ConfigFile::kSystem;
    out.path = parts;
  } else if ((head == "chip" || head == "software") && parts.size() == 1) {
    out.file = ConfigFile::kSystem;  // the system's chip or software profile, by name
    out.path = {"system", head};
  } else if (head == "network" || head == "local" || head == "scale_out" || head == "host" ||
             head == "power" || head == "chips") {
    out.file = ConfigFile::kSystem;
    out.path = parts;
    out.path.insert(out.path.begin(), "system");
  } else if (head == "chip") {
    out.file = ConfigFile::kChip;
    out.path = parts;
  } else if (head == "software") {
    out.file = ConfigFile::kSoftware;
    out.path = parts;
  } else if (head == "model" && parts.size() >= 2) {
    out.file = ConfigFile::kModel;
    out.path.assign(parts.begin() + 1, parts.end());  // a model file has no root key
  } else if (head == "precision") {
    out.file = ConfigFile::kModel;
    out.path = parts;
  } else {
    return std::nullopt;
  }
  if (out.file == ConfigFile::kSystem && out.path.size() >= 2 &&
      (out.path[1] == "local" || out.path[1] == "scale_out")) {
    out.path.insert(out.path.begin() + 1, "network");
  }
  return out;
}

bool ConfigOverrides::empty() const {
  return system.empty() && chip.empty() && model.empty() && software.empty();
}

void ConfigOverrides::add(const KeySetting& setting) {
  const std::optional<ConfigKey> key = config_key(setting.key);
  if (!key) throw std::invalid_argument("not a key of a configuration file: " + setting.key);
  switch (key->file) {
    case ConfigFile::kSystem:
      system.push_back(setting);
      break;
    case ConfigFile::kChip:
      chip.push_back(setting);
      break;
    case ConfigFile::kModel:
      model.push_back(setting);
      break;
    case ConfigFile::kSoftware:
      software.push_back(setting);
      break;
  }
}

SystemConfig system_with(const std::string& path, const std::vector<KeySetting>& settings) {
  return parse_with(path, settings, [](const std::string& text, const std::string& file) {
    return parse_system_string(text, file);
  });
}

models::ChipParams chip_with(const std::string& path, const DataPaths& paths,
                             const std::vector<KeySetting>& settings) {
  if (settings.empty()) return load_chip(path, paths);
  ChipSpec spec = parse_with(path, settings, [](const std::string& text, const std::string& file) {
    return parse_chip_string(text, file);
  });
  // The energy table as load_chip resolves it (chip.energy may be among the settings).
  const std::string energy_path = paths.resolve(spec.energy_table, "arch/energy");
  try {
    require_known(spec.energy_table, energy_path, "arch/energy", paths, "energy table");
  } catch (const InputError& e) {
    throw InputError(locate(load_yaml_file(path), "chip.energy", path), "chip.energy",
                     e.diagnostics().front().message + " (with " + describe(settings) + ")");
  }
  spec.params.energy = parse_energy(energy_path);
  models::resolve_matrix_clocks(spec.params);
  return spec.params;
}

workloads::ModelConfig model_with(const std::string& path,
                                  const std::vector<KeySetting>& settings) {
  return parse_with(path, settings, [](const std::string& text, const std::string& file) {
    return workloads::load_model_from_string(text, file);
  });
}

SoftwareProfile software_with(const std::string& path, const std::vector<KeySetting>& settings) {
  return parse_with(path, settings, [](const std::string& text, const std::string& file) {
    return parse_software_string(text, file);
  });
}

}  // namespace scoville::config
