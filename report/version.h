#ifndef ICOUNT_REPORT_VERSION_H_
#define ICOUNT_REPORT_VERSION_H_

namespace icount::report {

// The semantic version of //report: its page and the data the page reads.
inline constexpr char kReportVersion[] = "0.4.0";

}  // namespace icount::report

#endif  // ICOUNT_REPORT_VERSION_H_
