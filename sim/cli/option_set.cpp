#include "sim/cli/option_set.hpp"

#include <boost/program_options.hpp>
#include <stdexcept>
#include <utility>

#include "sim/base/unit_parser.hpp"
#include "sim/cli/suggest.hpp"

namespace scoville::cli {

namespace po = boost::program_options;

namespace {

// Boost's usual Unix style without allow_guessing: a prefix of a flag ("--bat") would otherwise
// be taken silently for the flag; here it is refused with the flag suggested.
constexpr int kStyle =
    po::command_line_style::default_style & ~po::command_line_style::allow_guessing;

// "-o,--output" -> 'o' and "--output". A malformed declaration is a programming error.
std::pair<char, std::string> split_names(const std::string& names) {
  char short_name = 0;
  std::string long_name = names;
  if (names.size() > 3 && names[0] == '-' && names[1] != '-' && names[2] == ',') {
    short_name = names[1];
    long_name = names.substr(3);
  }
  if (long_name.size() < 3 || long_name.compare(0, 2, "--") != 0 ||
      long_name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-", 2) !=
          std::string::npos) {
    throw std::logic_error("option names must be '--name' or '-x,--name', got '" + names + "'");
  }
  return {short_name, long_name};
}

// Boost's own description of the options: the names and whether each takes a value. Help texts
// are ours (sim/cli/usage_text.cpp); values are checked here, per kind, not by Boost.
po::options_description boost_description(const std::vector<OptionSpec>& options) {
  po::options_description description;
  for (const OptionSpec& o : options) {
    std::string name = o.long_name.substr(2);
    if (o.short_name != 0) name += std::string(",") + o.short_name;
    if (o.kind == ValueKind::kFlag) {
      description.add_options()(name.c_str(), "");
    } else {
      description.add_options()(name.c_str(), po::value<std::string>(), "");
    }
  }
  return description;
}

// The words split into options and positional words, in command-line order. Unknown options come
// back marked unregistered (so that the first problem on the line is the one reported).
po::parsed_options tokenize(const std::vector<std::string>& args,
                            const po::options_description& description) {
  try {
    return po::command_line_parser(args)
        .options(description)
        .style(kStyle)
        .allow_unregistered()
        .run();
  } catch (const po::invalid_command_line_syntax& e) {
    switch (e.kind()) {
      case po::invalid_syntax::missing_parameter: {
        // A value is missing only at the end of the line: name the flag as typed there (-o).
        const bool short_at_end = !args.empty() && args.back().size() == 2 && args.back()[0] == '-';
        throw UsageError{(short_at_end ? args.back() : e.get_option_name()) + " needs a value"};
      }
      case po::invalid_syntax::empty_adjacent_parameter:
        throw UsageError{e.get_option_name() + " needs a value"};
      case po::invalid_syntax::extra_parameter:
        throw UsageError{e.get_option_name() + " takes no value"};
      default:
        throw UsageError{e.what()};
    }
  } catch (const po::error& e) {
    throw UsageError{e.what()};
  }
}

// The option as typed, for messages: "-j" when given as -j, else its long name.
std::string as_typed(const po::option& option, const OptionSpec& spec) {
  // Boost gives no token for some options of a sticky short group ("-iisl..."): the long name.
  if (option.original_tokens.empty()) return spec.long_name;
  const std::string& token = option.original_tokens.front();
  if (spec.short_name != 0 && token.compare(0, 2, "--") != 0) {
    return std::string("-") + spec.short_name;
  }
  return spec.long_name;
}

}  // namespace

const OptionSpec& help_option() {
  static const OptionSpec help{"--help", 'h', ValueKind::kFlag, "", "print this usage and exit",
                               false};
  return help;
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string item =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

OptionSet::OptionSet(std::string command) : command_(std::move(command)) {}

OptionSet& OptionSet::synopsis(std::string arguments, std::string summary) {
  synopses_.push_back({std::move(arguments), std::move(summary)});
  return *this;
}

OptionSet& OptionSet::declare(const std::string& names, ValueKind kind, std::string value_name,
                              std::string help, bool repeatable) {
  const auto [short_name, long_name] = split_names(names);
  for (const OptionSpec& o : options_) {
    if (o.long_name == long_name || (short_name != 0 && o.short_name == short_name)) {
      throw std::logic_error("option " + names + " is declared twice for " + command_);
    }
  }
  if (long_name == help_option().long_name || short_name == help_option().short_name) {
    throw std::logic_error("every command has --help; " + command_ + " declares it again");
  }
  options_.push_back(
      {long_name, short_name, kind, std::move(value_name), std::move(help), repeatable});
  return *this;
}

OptionSet& OptionSet::flag(const std::string& names, std::string help) {
  return declare(names, ValueKind::kFlag, "", std::move(help), false);
}

OptionSet& OptionSet::text(const std::string& names, std::string value_name, std::string help) {
  return declare(names, ValueKind::kText, std::move(value_name), std::move(help), false);
}

OptionSet& OptionSet::texts(const std::string& names, std::string value_name, std::string help) {
  return declare(names, ValueKind::kText, std::move(value_name), std::move(help), true);
}

OptionSet& OptionSet::count(const std::string& names, std::string value_name, std::string help) {
  return declare(names, ValueKind::kCount, std::move(value_name), std::move(help), false);
}

OptionSet& OptionSet::list(const std::string& names, std::string value_name, std::string help,
                           bool repeatable) {
  return declare(names, ValueKind::kList, std::move(value_name), std::move(help), repeatable);
}

OptionSet& OptionSet::count_list(const std::string& names, std::string value_name, std::string help,
                                 bool repeatable) {
  return declare(names, ValueKind::kCountList, std::move(value_name), std::move(help), repeatable);
}

OptionSet& OptionSet::positional(std::string name, std::string help) {
  positionals_.push_back({std::move(name), std::move(help)});
  return *this;
}

OptionSet& OptionSet::note(std::string text) {
  notes_.push_back(std::move(text));
  return *this;
}

std::vector<std::string> OptionSet::long_names() const {
  std::vector<std::string> names;
  for (const OptionSpec& o : options_) names.push_back(o.long_name);
  names.push_back(help_option().long_name);
  return names;
}

ParsedOptions OptionSet::parse(const std::vector<std::string>& args) const {
  std::vector<OptionSpec> all = options_;
  all.push_back(help_option());
  const po::options_description description = boost_description(all);
  const po::parsed_options parsed = tokenize(args, description);

  ParsedOptions out;
  for (const OptionSpec& o : all) out.values_[o.long_name].kind = o.kind;
  const std::string for_command = " for 'scoville " + command_ + "'";
  for (const po::option& option : parsed.options) {
    if (option.unregistered) {
      std::string word =
          option.original_tokens.empty() ? option.string_key : option.original_tokens.front();
      if (word.compare(0, 2, "--") == 0) word = word.substr(0, word.find('='));
      std::string message = "unknown option '" + word + "'" + for_command;
      if (const auto guess = nearest(word, long_names())) {
        message += "; did you mean '" + *guess + "'?";
      }
      throw UsageError{message};
    }
    if (option.string_key.empty()) {
      const std::string& word = option.value.front();
      if (positionals_.empty())
        throw UsageError{"unexpected argument '" + word + "'" + for_command};
      out.positionals_.push_back(word);
      continue;
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& o : all) {
      if (o.long_name.compare(2, std::string::npos, option.string_key) == 0) spec = &o;
    }
    if (spec == nullptr) throw std::logic_error("Boost returned an undeclared option");
    const std::string flag = as_typed(option, *spec);
    ParsedOptions::Values& values = out.values_[spec->long_name];
    if (values.uses > 0 && !spec->repeatable && spec->kind != ValueKind::kFlag) {
      throw UsageError{flag + " is given twice (it takes one value)"};
    }
    ++values.uses;
    if (spec->kind == ValueKind::kFlag) continue;
    const std::string& value = option.value.front();
    switch (spec->kind) {
      case ValueKind::kText:
        values.texts.push_back(value);
        break;
      case ValueKind::kCount:
        values.counts.push_back(parse_count(flag, value));
        break;
      case ValueKind::kList:
      case ValueKind::kCountList: {
        const std::vector<std::string> items = split_list(value);
        if (items.empty()) throw UsageError{flag + " needs at least one value"};
        for (const std::string& item : items) {
          if (spec->kind == ValueKind::kList) {
            values.texts.push_back(item);
          } else {
            values.counts.push_back(parse_count(flag, item));
          }
        }
        break;
      }
      case ValueKind::kFlag:
        break;
    }
  }
  return out;
}

}  // namespace scoville::cli
