#include "report/html_page.h"

#include <string>

#include "gtest/gtest.h"

namespace icount::report {
namespace {

TEST(IsReportPageTest, APageReportHtmlMadeIsOne) {
  EXPECT_TRUE(IsReportPage(ReportHtml("run", R"({"current": {}})")).ok());
}

TEST(IsReportPageTest, OtherFilesAreNot) {
  for (const std::string text :
       {"", R"({"schema_version": 1, "measurements": []})", "run,label\n1,a\n",
        "<!DOCTYPE html>\n<html><body>my notes</body></html>\n"}) {
    const absl::Status status = IsReportPage(text);
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << text;
    EXPECT_EQ(status.message(), "is not an icount report page");
  }
}

}  // namespace
}  // namespace icount::report
