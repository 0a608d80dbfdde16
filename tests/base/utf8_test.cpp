// first_invalid_utf8 and require_utf8: what is refused and where the message points.
#include <catch2/catch.hpp>

#include <string>

#include "sim/base/error.hpp"
#include "sim/base/utf8.hpp"

using scoville::first_invalid_utf8;
using scoville::InputError;
using scoville::require_utf8;

namespace {
std::string message_of(const std::string& text, bool csv = false) {
  try {
    require_utf8(text, "f", csv);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("valid UTF-8 passes: ASCII, 2-, 3- and 4-byte characters", "[utf8]") {
  CHECK(first_invalid_utf8("") == std::string::npos);
  CHECK(first_invalid_utf8("name: jalape\xc3\xb1o \xe2\x82\xac \xf0\x9f\x8c\xb6") ==
        std::string::npos);
  CHECK(first_invalid_utf8("\xef\xbf\xbf\xf4\x8f\xbf\xbf") ==
        std::string::npos);  // U+FFFF, U+10FFFF
}

TEST_CASE("invalid UTF-8 is found at its first byte", "[utf8]") {
  CHECK(first_invalid_utf8("ab\xff") == 2);            // never valid
  CHECK(first_invalid_utf8("a\xc3") == 1);             // cut short
  CHECK(first_invalid_utf8("\xc0\xaf") == 0);          // overlong '/'
  CHECK(first_invalid_utf8("x\xe0\x80\xaf") == 1);     // overlong 3-byte
  CHECK(first_invalid_utf8("\xed\xa0\x80") == 0);      // a surrogate
  CHECK(first_invalid_utf8("\xf4\x90\x80\x80") == 0);  // above U+10FFFF
  CHECK(first_invalid_utf8("\xe2\x82x") == 0);         // a continuation missing
  CHECK(first_invalid_utf8("\x80") == 0);              // a lone continuation
}

TEST_CASE("require_utf8 names file, line, column and field", "[utf8]") {
  CHECK(message_of("a: 1\nname: caf\xe9\n") ==
        "error: f:2:10: name: not valid UTF-8 (byte 0xE9): names and text must be UTF-8, as "
        "outputs (JSON, HDF5, reports) carry them; save the file as UTF-8");
  CHECK_THAT(message_of("# c\nx,y,z\n1,2,3\xff\n", true), Catch::StartsWith("error: f:3:6: z: "));
  CHECK_THAT(message_of("x,\xff\n", true), Catch::StartsWith("error: f:1:3: header: "));
  CHECK_THAT(message_of("# caf\xe9\nx,y\n", true), Catch::StartsWith("error: f:1:6: comment: "));
  CHECK(message_of("fine: \xc3\xa9\n").empty());
}
