#include "expand/case_modes.h"

namespace icount::expand {

const char* RuntimeName(Runtime runtime) {
  switch (runtime) {
    case RUNTIME_EAGER:
      return "Eager";
    case RUNTIME_TORCHSCRIPT:
      return "TorchScript";
    case RUNTIME_EXPLICIT:
      return "Explicit";
    default:
      return "";
  }
}

const char* AutogradName(Autograd autograd) {
  switch (autograd) {
    case AUTOGRAD_FORWARD:
      return "Forward";
    case AUTOGRAD_FORWARD_BACKWARD:
      return "Forward + Backward";
    case AUTOGRAD_EXPLICIT:
      return "Explicit";
    default:
      return "";
  }
}

const char* RuntimeText(Runtime runtime) {
  return runtime == RUNTIME_EXPLICIT ? "" : RuntimeName(runtime);
}

const char* AutogradText(Autograd autograd) {
  return autograd == AUTOGRAD_EXPLICIT ? "" : AutogradName(autograd);
}

const char* RuntimeKeyName(Runtime runtime) {
  switch (runtime) {
    case RUNTIME_EAGER:
      return "Eager";
    case RUNTIME_TORCHSCRIPT:
      return "TorchScript";
    default:
      return "Explicit";
  }
}

const char* AutogradKeyName(Autograd autograd) {
  switch (autograd) {
    case AUTOGRAD_FORWARD:
      return "Forward";
    case AUTOGRAD_FORWARD_BACKWARD:
      return "ForwardBackward";
    default:
      return "Explicit";
  }
}

}  // namespace icount::expand
