#include "remoting/header/topic_admin_header.h"

#include <fmt/format.h>

namespace ferry::remoting {

Result<CreateTopicRequestHeader> CreateTopicRequestHeader::from_fields(const ExtFields& f) {
  Result<CreateTopicRequestHeader> h = fields().decode(f);
  if (!h) return h;
  if (h->topic_filter_type != "SINGLE_TAG" && h->topic_filter_type != "MULTI_TAG") {
    return Error(Errc::invalid_argument,
                 fmt::format("CreateTopicRequestHeader: field topicFilterType = \"{}\" is not "
                             "SINGLE_TAG or MULTI_TAG", h->topic_filter_type));
  }
  return h;
}

}  // namespace ferry::remoting
