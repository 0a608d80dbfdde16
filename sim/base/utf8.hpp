// Text that reaches outputs (names in JSON, HDF5 attributes, the HTML report) must be valid UTF-8:
// the readers check every file they read with this, before parsing, so that a stray Latin-1
// byte is refused at its file, line and field instead of producing JSON no parser accepts.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace scoville {

// Byte offset of the first byte that does not start or continue a valid UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF are invalid), or npos.
size_t first_invalid_utf8(std::string_view text);

// Throws InputError at file:line:column of the first invalid byte when `text` is not UTF-8. The
// key is the field on that line: the text before ':' (YAML) or the CSV header's column name when
// `csv` is set.
void require_utf8(std::string_view text, const std::string& file, bool csv = false);

}  // namespace scoville
