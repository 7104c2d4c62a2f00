#ifndef ICOUNT_BASE_PROTO_JSON_H_
#define ICOUNT_BASE_PROTO_JSON_H_

// Protocol buffers as the JSON icount writes: one line, proto field names
// (snake_case, as in the .proto), so files read the same as their schema,
// and map entries sorted by key, so the same message always gives the same
// bytes (protobuf's own printer follows a per-process map order).
//
//   ProtoToJson(measurement_proto)  // {"label":"add","number_per_run":"100",...}

#include <string>

#include <google/protobuf/message.h>

namespace icount::base {

std::string ProtoToJson(const google::protobuf::Message& message);

// The same with every field printed: zeros, empty strings and empty lists
// too, so that a reader finds every member the schema names; a field with
// presence (`optional`, a message) only when it is set. For files whose
// readers index members directly (ci's and ab_test's --json).
//
//   ProtoToJsonAllFields(ci_file)  // {"regressions":0,"time_regressions":0,...}
std::string ProtoToJsonAllFields(const google::protobuf::Message& message);

}  // namespace icount::base

#endif  // ICOUNT_BASE_PROTO_JSON_H_
