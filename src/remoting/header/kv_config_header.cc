#include "remoting/header/kv_config_header.h"

#include "remoting/header/field_codec.h"

namespace ferry::remoting {

Result<PutKvConfigRequestHeader> PutKvConfigRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "PutKvConfigRequestHeader");
  PutKvConfigRequestHeader h;
  h.name_space = r.string("namespace");
  h.key = r.string("key");
  h.value = r.string("value");
  FERRY_TRY(r.status());
  return h;
}

ExtFields PutKvConfigRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "namespace", name_space);
  put_string(f, "key", key);
  put_string(f, "value", value);
  return f;
}

Result<GetKvConfigRequestHeader> GetKvConfigRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "GetKvConfigRequestHeader");
  GetKvConfigRequestHeader h;
  h.name_space = r.string("namespace");
  h.key = r.string("key");
  FERRY_TRY(r.status());
  return h;
}

ExtFields GetKvConfigRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "namespace", name_space);
  put_string(f, "key", key);
  return f;
}

Result<GetKvConfigResponseHeader> GetKvConfigResponseHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "GetKvConfigResponseHeader");
  GetKvConfigResponseHeader h;
  h.value = r.optional_string("value");
  FERRY_TRY(r.status());
  return h;
}

ExtFields GetKvConfigResponseHeader::to_fields() const {
  ExtFields f;
  put_optional_string(f, "value", value);
  return f;
}

Result<DeleteKvConfigRequestHeader> DeleteKvConfigRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "DeleteKvConfigRequestHeader");
  DeleteKvConfigRequestHeader h;
  h.name_space = r.string("namespace");
  h.key = r.string("key");
  FERRY_TRY(r.status());
  return h;
}

ExtFields DeleteKvConfigRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "namespace", name_space);
  put_string(f, "key", key);
  return f;
}

}  // namespace ferry::remoting
