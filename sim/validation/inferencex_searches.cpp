#include "sim/validation/inferencex_searches.hpp"

#include <optional>
#include <string>

#include "sim/validation/data_table.hpp"

namespace scoville::validation {

namespace {

constexpr int64_t kMaxReplicaChips = 1024;    // far above any serving instance
constexpr int64_t kMaxConcurrency = 1 << 20;  // far above any published sweep

}  // namespace

std::vector<InferencexSearch> read_inferencex_searches(const std::string& path) {
  return parse_inferencex_searches(read_data_file(path, "InferenceX searches file"), path);
}

std::vector<InferencexSearch> parse_inferencex_searches(const std::string& text,
                                                        const std::string& path) {
  std::vector<InferencexSearch> out;
  const auto read_row = [&](int number, const std::vector<std::string>& header,
                            const std::vector<std::string>& cells) {
    const DataRow r{path, number, header, cells};
    InferencexSearch s;
    s.row_id = r.text("id");
    if (s.row_id.empty()) throw InputError(r.at("id"), "id", "expected a measurement row's id");
    s.model = r.text("model");
    if (s.model.empty()) {
      throw InputError(r.at("model"), "model", "expected the row's model as published");
    }
    s.space.replica_chips = r.count("replica_chips", 1, kMaxReplicaChips);
    s.space.max_concurrency = r.count("max_concurrency", 1, kMaxConcurrency);
    for (const InferencexSearch& seen : out) {
      if (seen.row_id == s.row_id && seen.model == s.model &&
          seen.space.replica_chips == s.space.replica_chips) {
        throw InputError(r.at("replica_chips"), "replica_chips",
                         "a second line for row " + s.row_id + " on " +
                             std::to_string(s.space.replica_chips) +
                             " chips (give one line per replica size, its largest conc-end)");
      }
    }
    s.where = SourceLocation{path, number, 1};
    out.push_back(std::move(s));
  };
  for_each_data_row(text, path, {"id", "model", "replica_chips", "max_concurrency"}, read_row);
  return out;
}

std::vector<InferencexSearch> shipped_inferencex_searches(const config::DataPaths& paths) {
  const std::optional<std::string> file =
      shipped_data_file(paths, "workloads/measurements/inferencex-searches.csv");
  if (!file) return {};
  return read_inferencex_searches(*file);
}

std::vector<const InferencexSearch*> searches_for(const std::vector<InferencexSearch>& searches,
                                                  const std::string& row_id,
                                                  const std::string& model) {
  std::vector<const InferencexSearch*> out;
  for (const InferencexSearch& s : searches) {
    if (s.row_id == row_id && s.model == model) out.push_back(&s);
  }
  return out;
}

}  // namespace scoville::validation
