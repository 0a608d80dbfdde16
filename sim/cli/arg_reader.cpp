#include "sim/cli/arg_reader.hpp"

#include <charconv>
#include <utility>

#include "sim/cli/command_table.hpp"
#include "sim/cli/suggest.hpp"

namespace scoville::cli {

namespace {

// "--flag=value" is read as "--flag value". Only a long flag's first '=' splits, and only when
// the part before it is a flag name, so values such as "chip.tiles.count=64" pass untouched.
std::vector<std::string> split_flag_values(std::vector<std::string> args) {
  std::vector<std::string> out;
  out.reserve(args.size());
  for (std::string& arg : args) {
    const size_t eq = arg.find('=');
    const bool long_flag = arg.size() > 3 && arg.compare(0, 2, "--") == 0 && arg[2] != '-';
    if (long_flag && eq != std::string::npos && eq > 2 &&
        arg.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-", 2) == eq) {
      out.push_back(arg.substr(0, eq));
      out.push_back(arg.substr(eq + 1));
    } else {
      out.push_back(std::move(arg));
    }
  }
  return out;
}

}  // namespace

ArgReader::ArgReader(std::string command, std::vector<std::string> args)
    : command_(std::move(command)), args_(split_flag_values(std::move(args))) {}

bool ArgReader::next() {
  if (started_) ++index_;
  started_ = true;
  return index_ < args_.size();
}

const std::string& ArgReader::value() {
  if (index_ + 1 >= args_.size()) throw UsageError{current() + " needs a value"};
  ++index_;
  return args_[index_];
}

long long ArgReader::count() {
  const std::string flag = current();
  return parse_count(flag, value());
}

std::vector<std::string> ArgReader::list() {
  const std::string flag = current();
  std::vector<std::string> items = split_list(value());
  if (items.empty()) throw UsageError{flag + " needs at least one value"};
  return items;
}

std::vector<long long> ArgReader::count_list() {
  const std::string flag = current();
  std::vector<long long> out;
  for (const std::string& item : list()) out.push_back(parse_count(flag, item));
  return out;
}

void ArgReader::unknown() const {
  std::string message = "unknown option '" + current() + "' for '" + command_ + "'";
  // The command's own usage text lists its flags: suggest the nearest of them.
  const std::string prefix = "scoville ";
  std::string name =
      command_.compare(0, prefix.size(), prefix) == 0 ? command_.substr(prefix.size()) : command_;
  name = name.substr(0, name.find(' '));  // "config check" is documented under "config"
  const std::string own_usage = name.empty() ? std::string() : usage(name);
  if (is_flag() && own_usage != usage()) {
    if (const auto guess = nearest(current(), flags_in(own_usage))) {
      message += "; did you mean '" + *guess + "'?";
    }
  }
  throw UsageError{message};
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

}  // namespace scoville::cli
