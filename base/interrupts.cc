#include "base/interrupts.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

namespace icount::base {
namespace {

int interrupt_pipe[2] = {-1, -1};
volatile sig_atomic_t interrupted = 0;

void OnInterrupt(int) {
  interrupted = 1;
  const char byte = 1;
  (void)!write(interrupt_pipe[1], &byte, 1);
}

std::mutex mutex;
int active = 0;
struct sigaction previous_int;
struct sigaction previous_term;
struct sigaction previous_hup;

}  // namespace

InterruptScope::InterruptScope() {
  std::lock_guard<std::mutex> lock(mutex);
  if (active++ > 0) return;
  interrupted = 0;
  if (pipe(interrupt_pipe) == 0) {
    fcntl(interrupt_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(interrupt_pipe[1], F_SETFL, O_NONBLOCK);
  }
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = OnInterrupt;
  sigaction(SIGINT, &action, &previous_int);
  sigaction(SIGTERM, &action, &previous_term);
  // A closed terminal (or ssh session) stops a run as Ctrl-C does.
  sigaction(SIGHUP, &action, &previous_hup);
}

InterruptScope::~InterruptScope() {
  std::lock_guard<std::mutex> lock(mutex);
  if (--active > 0) return;
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
  sigaction(SIGHUP, &previous_hup, nullptr);
  close(interrupt_pipe[0]);
  close(interrupt_pipe[1]);
  interrupt_pipe[0] = interrupt_pipe[1] = -1;
}

bool Interrupted() { return interrupted != 0; }

int InterruptFd() { return interrupt_pipe[0]; }

}  // namespace icount::base
