#include "sim/output/ablation_table.hpp"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <sstream>

#include "sim/base/json_text.hpp"
#include "sim/base/number_format.hpp"
#include "sim/output/system_report.hpp"

namespace scoville::output {

namespace {

// The figures of one row, in SI units.
struct Figures {
  double prefill_s, decode_s, energy_j, kv_transfer_s, kv_energy_j, network_s;
};

Figures figures_of(const engine::SystemStudyResult& r) {
  const auto& p = r.phases;
  return Figures{
      p[0].total.time.si(),
      p[1].total.time.si(),
      (p[0].total.energy + p[1].total.energy).si(),
      (p[0].total.kv_transfer_time + p[1].total.kv_transfer_time).si(),
      (p[0].total.kv_transfer_energy + p[1].total.kv_transfer_energy).si(),
      (p[0].total.local_network_time + p[0].total.scale_out_time + p[1].total.local_network_time +
       p[1].total.scale_out_time)
          .si(),
  };
}

// (v - base) / base; 0 when both are 0, NaN when only the base is.
double relative(double v, double base) {
  if (base == 0) return v == 0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  return (v - base) / base;
}

std::string percent(double v, double base) {
  const double r = relative(v, base);
  if (r != r) return "n/a";
  std::ostringstream s;
  s << std::showpos << std::fixed << std::setprecision(1) << 100.0 * r << "%";
  return s.str();
}

std::string short_key(const std::string& key) { return key.substr(key.rfind('.') + 1); }

}  // namespace

void print_ablation_table(std::ostream& out, const std::vector<engine::AblationAxis>& axes,
                          const std::vector<engine::AblationRow>& rows) {
  const engine::AblationRow& first = rows.front();
  out << "ablation of ";
  for (size_t i = 0; i < axes.size(); ++i) out << (i ? ", " : "") << axes[i].key;
  out << " on " << first.setup.system.name << ", model " << first.setup.model.name() << " (batch "
      << first.config.batch << ", isl " << first.config.isl << ", osl " << first.config.osl
      << "); relative to " << engine::variant_label(axes, first.values) << "\n\n";
  std::vector<size_t> widths;
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t w = short_key(axes[i].key).size();
    for (const engine::AblationRow& r : rows) w = std::max(w, r.values[i].size());
    widths.push_back(w + 2);
    out << std::left << std::setw(static_cast<int>(widths[i])) << short_key(axes[i].key);
  }
  out << std::right;
  for (const char* h : {"prefill", "rel", "decode", "rel", "energy", "rel", "kv_transfer",
                        "kv_energy", "network_time"}) {
    out << std::setw(13) << h;
  }
  out << "\n";
  const Figures b = figures_of(first.result);
  for (const engine::AblationRow& row : rows) {
    const Figures f = figures_of(row.result);
    for (size_t i = 0; i < axes.size(); ++i) {
      out << std::left << std::setw(static_cast<int>(widths[i])) << row.values[i];
    }
    out << std::right << std::setw(13) << format_si(f.prefill_s, "s", 4) << std::setw(13)
        << percent(f.prefill_s, b.prefill_s) << std::setw(13) << format_si(f.decode_s, "s", 4)
        << std::setw(13) << percent(f.decode_s, b.decode_s) << std::setw(13)
        << format_si(f.energy_j, "J", 4) << std::setw(13) << percent(f.energy_j, b.energy_j)
        << std::setw(13) << format_si(f.kv_transfer_s, "s", 4) << std::setw(13)
        << format_si(f.kv_energy_j, "J", 4) << std::setw(13) << format_si(f.network_s, "s", 4)
        << "\n";
  }
  out << "\nprefill/decode: phase time for all sequences; energy: both phases, every pool chip "
         "and the network; kv_transfer: KV moved by the placement (also inside the phase "
         "times)\n";
}

void print_ablation_json(std::ostream& out, const std::vector<engine::AblationAxis>& axes,
                         const std::vector<engine::AblationRow>& rows) {
  out << "{\"keys\": [";
  for (size_t i = 0; i < axes.size(); ++i) {
    out << (i ? ", " : "") << "\"" << json_escape(axes[i].key) << "\"";
  }
  out << "], \"variants\": [";
  for (size_t r = 0; r < rows.size(); ++r) {
    out << (r ? ", " : "") << "{\"values\": {";
    for (size_t i = 0; i < axes.size(); ++i) {
      out << (i ? ", " : "") << "\"" << json_escape(axes[i].key) << "\": \""
          << json_escape(rows[r].values[i]) << "\"";
    }
    out << "}, \"result\": ";
    std::ostringstream one;
    render_system_json(one, rows[r].setup, rows[r].config, rows[r].result);
    std::string text = one.str();
    if (!text.empty() && text.back() == '\n') text.pop_back();
    out << text << "}";
  }
  out << "]}\n";
}

Table ablation_table(const std::vector<engine::AblationAxis>& axes,
                     const std::vector<engine::AblationRow>& rows) {
  Table t;
  t.path = "/ablation";
  for (size_t i = 0; i < axes.size(); ++i) {
    std::vector<std::string> values;
    for (const engine::AblationRow& r : rows) values.push_back(r.values[i]);
    t.columns.push_back({axes[i].key, "1", values});
  }
  const Figures b = figures_of(rows.front().result);
  struct Field {
    const char* name;
    const char* units;
    double Figures::*member;
    bool relative;
  };
  const Field fields[] = {{"prefill_time", "s", &Figures::prefill_s, true},
                          {"decode_time", "s", &Figures::decode_s, true},
                          {"energy", "J", &Figures::energy_j, true},
                          {"kv_transfer_time", "s", &Figures::kv_transfer_s, false},
                          {"kv_transfer_energy", "J", &Figures::kv_energy_j, false},
                          {"network_time", "s", &Figures::network_s, false}};
  for (const Field& field : fields) {
    std::vector<double> values, rel;
    for (const engine::AblationRow& r : rows) {
      const Figures f = figures_of(r.result);
      values.push_back(f.*field.member);
      rel.push_back(relative(f.*field.member, b.*field.member));
    }
    t.columns.push_back({field.name, field.units, values});
    if (field.relative) t.columns.push_back({std::string(field.name) + "_rel", "1", rel});
  }
  t.attributes = {{"baseline", engine::variant_label(axes, rows.front().values)}};
  return t;
}

}  // namespace scoville::output
