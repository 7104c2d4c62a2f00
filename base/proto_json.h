#ifndef ICOUNT_BASE_PROTO_JSON_H_
#define ICOUNT_BASE_PROTO_JSON_H_

// Protocol buffers as the JSON icount writes: one line, proto field names
// (snake_case, as in the .proto), so files read the same as their schema.
//
//   ProtoToJson(measurement_proto)  // {"label":"add","number_per_run":"100",...}

#include <string>

#include <google/protobuf/message.h>

namespace icount::base {

std::string ProtoToJson(const google::protobuf::Message& message);

}  // namespace icount::base

#endif  // ICOUNT_BASE_PROTO_JSON_H_
