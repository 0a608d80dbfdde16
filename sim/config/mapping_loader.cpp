#include "sim/config/mapping_loader.hpp"

namespace scoville::config {

namespace {

constexpr int64_t kMaxDegree = 1 << 20;

workloads::MappingConfig load(const YAML::Node& root, const std::string& file) {
  Diagnostics diagnostics;
  MapReader top(root, file, "", diagnostics);
  MapReader section = top.map("mapping");
  workloads::MappingConfig config = parse_mapping(section);
  top.finish();
  diagnostics.throw_if_any();
  return config;
}

}  // namespace

workloads::MappingConfig parse_mapping(MapReader& section) {
  workloads::MappingConfig config;
  for (const std::string& name : section.keys()) {
    MapReader r = section.map(name);
    workloads::PoolMapping pool;
    pool.pool = name;
    pool.where = r.location();
    pool.chips = r.integer("chips", 1, kMaxDegree);
    pool.degrees.tp = r.integer_or("tp", 1, 1, kMaxDegree);
    pool.degrees.ep = r.integer_or("ep", 1, 1, kMaxDegree);
    pool.degrees.pp = r.integer_or("pp", 1, 1, kMaxDegree);
    pool.degrees.dp = r.integer_or("dp", 1, 1, kMaxDegree);
    pool.degrees.attn_dp = r.integer_or("attn_dp", 1, 1, kMaxDegree);
    pool.degrees.sequence_parallel = r.boolean_or("sequence_parallel", false);
    r.finish();
    config.pools.push_back(pool);
  }
  if (config.pools.empty())
    section.error("", "expected at least one pool, e.g. decode: {chips: 8, tp: 8}");
  return config;
}

workloads::MappingConfig load_mapping(const std::string& path) {
  return load(load_yaml_file(path), path);
}

workloads::MappingConfig load_mapping_string(const std::string& yaml,
                                             const std::string& display_name) {
  return load(load_yaml_string(yaml, display_name), display_name);
}

}  // namespace scoville::config
