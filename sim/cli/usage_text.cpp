#include "sim/cli/usage_text.hpp"

#include <sstream>
#include <vector>

namespace scoville::cli {

namespace {

constexpr size_t kOptionIndent = 6;

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// `text` filled into lines that start at `column` and end by kUsageWidth; the first line
// continues `first` (already `column` wide or empty). A word longer than a line gets its own.
std::string fill(std::string first, size_t column, const std::string& text) {
  std::string out;
  std::string line = std::move(first);
  bool line_has_words = false;
  for (const std::string& word : words_of(text)) {
    if (line_has_words && line.size() + 1 + word.size() > kUsageWidth) {
      out += line + "\n";
      line = std::string(column, ' ');
      line_has_words = false;
    }
    if (line.size() < column) line += std::string(column - line.size(), ' ');
    line += (line_has_words ? " " : "") + word;
    line_has_words = true;
  }
  return out + line + "\n";
}

std::string option_label(const OptionSpec& o) {
  std::string label = o.short_name != 0 ? std::string("-") + o.short_name + ", " : "";
  label += o.long_name;
  if (!o.value_name.empty()) label += " " + o.value_name;
  return label;
}

}  // namespace

std::string aligned_entry(size_t indent, const std::string& label, const std::string& text) {
  const std::string head = std::string(indent, ' ') + label;
  if (text.empty()) return head + "\n";
  // A space at least between the label and its text; a longer label gets a line of its own.
  if (head.size() >= kUsageHelpColumn) {
    return head + "\n" + fill(std::string(), kUsageHelpColumn, text);
  }
  return fill(head, kUsageHelpColumn, text);
}

std::string synopsis_text(const OptionSet& options) {
  std::string out;
  for (const Synopsis& s : options.synopses()) {
    const std::string line =
        "scoville " + options.command() + (s.arguments.empty() ? std::string() : " " + s.arguments);
    out += aligned_entry(2, line, s.summary);
  }
  return out;
}

std::string usage_text(const OptionSet& options) {
  std::string out = synopsis_text(options);
  for (const PositionalSpec& p : options.positionals()) {
    out += aligned_entry(kOptionIndent, p.name, p.help);
  }
  for (const OptionSpec& o : options.options()) {
    std::string help = o.help;
    if (o.repeatable) help += "; repeatable";
    out += aligned_entry(kOptionIndent, option_label(o), help);
  }
  out += aligned_entry(kOptionIndent, option_label(help_option()), help_option().help);
  for (const std::string& note : options.notes()) {
    out += "\n" + fill(std::string(), kOptionIndent, note);
  }
  return out;
}

}  // namespace scoville::cli
