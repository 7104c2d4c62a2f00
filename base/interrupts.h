#ifndef ICOUNT_BASE_INTERRUPTS_H_
#define ICOUNT_BASE_INTERRUPTS_H_

// SIGINT, SIGTERM and SIGHUP while runs are active: a run polls InterruptFd()
// beside its workers' result streams and stops when Interrupted().
//
//   InterruptScope interrupts;  // handlers installed
//   while (!Interrupted()) { poll({..., {InterruptFd(), POLLIN}}); ... }

namespace icount::base {

// Runs may overlap (ab_test runs A and B at once): the first scope installs
// the handler and a self-pipe, the last restores the previous handlers, so
// an interrupt reaches every active run (nobody drains the pipe: it stays
// readable) and a run that ends early does not leave the others without a
// handler.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// Whether SIGINT, SIGTERM or SIGHUP arrived since the first active scope began.
bool Interrupted();
// Readable once interrupted; -1 outside any scope.
int InterruptFd();

}  // namespace icount::base

#endif  // ICOUNT_BASE_INTERRUPTS_H_
