#include "compare/internal/text.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace icount::compare::internal {

int TextWidth(absl::string_view text) {
  int width = 0;
  for (char c : text) {
    // Every code point has exactly one byte that is not a continuation byte.
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  }
  return width;
}

std::string Center(absl::string_view text, int width, char fill) {
  const int margin = width - TextWidth(text);
  if (margin <= 0) return std::string(text);
  // CPython's unicode_center: left = marg / 2 + (marg & width & 1).
  const int left = margin / 2 + (margin & width & 1);
  return absl::StrCat(std::string(left, fill), text, std::string(margin - left, fill));
}

std::string LeftJustify(absl::string_view text, int width, char fill) {
  const int margin = width - TextWidth(text);
  if (margin <= 0) return std::string(text);
  return absl::StrCat(text, std::string(margin, fill));
}

std::string RightJustify(absl::string_view text, int width, char fill) {
  const int margin = width - TextWidth(text);
  if (margin <= 0) return std::string(text);
  return absl::StrCat(std::string(margin, fill), text);
}

}  // namespace icount::compare::internal
