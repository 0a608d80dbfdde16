// `scoville report`: one self-contained HTML page from one or more result files.
#include <string>
#include <vector>

#include "sim/base/atomic_file.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/output/h5_reader.hpp"
#include "sim/output/html_report.hpp"
#include "sim/output/output_paths.hpp"

namespace scoville::cli {

OptionSet report_options() {
  OptionSet s("report");
  s.synopsis("FILE.h5 [FILE.h5 ...] -o report.html",
             "one self-contained HTML page: tables, charts (hover for values), Pareto chart of "
             "sweep files, configuration")
      .positional("FILE.h5", "a results file (run, sweep, serve, inferencex, ...)")
      .text("-o,--output", "FILE.html", "the page to write (atomically)");
  return s;
}

int report_command(const Invocation& invocation, std::ostream& out) {
  const ParsedOptions p = report_options().parse(invocation.args);
  const std::vector<std::string>& files = p.positionals();
  const std::string output = p.text_or("--output", "");
  if (files.empty()) throw UsageError("'scoville report' needs at least one results file");
  if (output.empty()) throw UsageError("'scoville report' needs -o report.html");
  output::RunFiles guard;
  for (const std::string& file : files) guard.input("results file", file);
  guard.output("-o", output);
  guard.check();
  std::vector<output::ReportInput> inputs;
  for (const std::string& file : files) inputs.push_back({file, output::read_results_file(file)});
  write_text_atomically(output, output::render_html_report(inputs));
  out << "report: wrote " << output << " (" << files.size() << " file"
      << (files.size() == 1 ? "" : "s") << ")\n";
  return 0;
}

}  // namespace scoville::cli
