#ifndef ICOUNT_EXPAND_CASE_MODES_H_
#define ICOUNT_EXPAND_CASE_MODES_H_

// How the suite's tables, --list and keys spell a case's runtime and
// autograd mode (the enums of expand/suite.proto, the only ones):
//
//   RuntimeName(RUNTIME_TORCHSCRIPT)            // "TorchScript"
//   AutogradName(AUTOGRAD_FORWARD_BACKWARD)     // "Forward + Backward"
//   AutogradKeyName(AUTOGRAD_FORWARD_BACKWARD)  // "ForwardBackward"
//
// Explicit modes (a statement run as written) are "Explicit"; upstream
// prints "" for them, which RuntimeText() and AutogradText() give.

#include "expand/suite.pb.h"

namespace icount::expand {

// "Eager", "TorchScript", "Explicit"; "" for RUNTIME_UNSPECIFIED.
const char* RuntimeName(Runtime runtime);
// "Forward", "Forward + Backward", "Explicit"; "" for AUTOGRAD_UNSPECIFIED.
const char* AutogradName(Autograd autograd);

// The names above, but "" for the explicit modes, as upstream writes them
// in its CI keys and as tables leave them out.
const char* RuntimeText(Runtime runtime);
const char* AutogradText(Autograd autograd);

// The spellings in case keys (expand::CaseKey): fixed whatever tables call
// the modes, since keys name cases in results files and history stores.
// "Eager", "TorchScript", "Explicit"; "Forward", "ForwardBackward",
// "Explicit".
const char* RuntimeKeyName(Runtime runtime);
const char* AutogradKeyName(Autograd autograd);

}  // namespace icount::expand

#endif  // ICOUNT_EXPAND_CASE_MODES_H_
