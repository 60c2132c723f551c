#include "controller/raft_codec.h"

#include <cstring>

#include <fmt/format.h>

#include "common/byte_reader.h"
#include "common/byte_writer.h"

namespace ferry::controller {
namespace {

constexpr std::uint8_t kVersion = 1;

#define FERRY_GET(var, expr) \
  auto var = (expr);         \
  if (!var) return var.error();

Status get_entries(ByteReader& r, raft_append_entries& ae) {
  FERRY_GET(count, r.u32());
  if (*count > kRaftEntriesPerMessageMax) {
    return Error(Errc::corrupt, fmt::format("{} entries in one message", *count));
  }
  ae.entries = nullptr;
  ae.n_entries = 0;
  if (*count == 0) return {};
  // First pass: the total size, so that all entries share one batch (libraft frees the batch of
  // entries[0] when it rejects a message).
  struct Head {
    std::uint64_t term;
    std::uint16_t type;
    Bytes data;
  };
  std::vector<Head> heads;
  heads.reserve(*count);
  std::size_t total = 0;
  for (std::uint32_t i = 0; i < *count; ++i) {
    FERRY_GET(term, r.u64());
    FERRY_GET(type, r.u16());
    FERRY_GET(length, r.u32());
    FERRY_GET(data, r.bytes(*length));
    heads.push_back(Head{*term, *type, *data});
    total += *length;
  }
  auto* entries = static_cast<raft_entry*>(raft_calloc(*count, sizeof(raft_entry)));
  auto* batch = static_cast<std::uint8_t*>(raft_malloc(total == 0 ? 1 : total));
  if (entries == nullptr || batch == nullptr) {
    raft_free(entries);
    raft_free(batch);
    return Error(Errc::busy, "out of memory for raft entries");
  }
  std::size_t at = 0;
  for (std::uint32_t i = 0; i < *count; ++i) {
    if (!heads[i].data.empty()) std::memcpy(batch + at, heads[i].data.data(), heads[i].data.size());
    entries[i].term = heads[i].term;
    entries[i].type = heads[i].type;
    entries[i].buf.base = batch + at;
    entries[i].buf.len = heads[i].data.size();
    entries[i].batch = batch;
    at += heads[i].data.size();
  }
  ae.entries = entries;
  ae.n_entries = *count;
  return {};
}

Status get_body(ByteReader& r, raft_message& m) {
  switch (m.type) {
    case RAFT_IO_REQUEST_VOTE: {
      FERRY_GET(term, r.u64());
      FERRY_GET(candidate, r.u64());
      FERRY_GET(last_index, r.u64());
      FERRY_GET(last_term, r.u64());
      FERRY_GET(disrupt, r.u8());
      FERRY_GET(pre_vote, r.u8());
      m.request_vote = raft_request_vote{*term, *candidate, *last_index, *last_term, *disrupt != 0,
                                         *pre_vote != 0};
      return {};
    }
    case RAFT_IO_REQUEST_VOTE_RESULT: {
      FERRY_GET(term, r.u64());
      FERRY_GET(granted, r.u8());
      FERRY_GET(pre_vote, r.u8());
      if (*pre_vote > 2) return Error(Errc::corrupt, fmt::format("pre-vote value {}", *pre_vote));
      m.request_vote_result =
          raft_request_vote_result{*term, *granted != 0, static_cast<raft_tribool>(*pre_vote)};
      return {};
    }
    case RAFT_IO_APPEND_ENTRIES: {
      FERRY_GET(term, r.u64());
      FERRY_GET(prev_index, r.u64());
      FERRY_GET(prev_term, r.u64());
      FERRY_GET(commit, r.u64());
      m.append_entries.term = *term;
      m.append_entries.prev_log_index = *prev_index;
      m.append_entries.prev_log_term = *prev_term;
      m.append_entries.leader_commit = *commit;
      return get_entries(r, m.append_entries);
    }
    case RAFT_IO_APPEND_ENTRIES_RESULT: {
      FERRY_GET(term, r.u64());
      FERRY_GET(rejected, r.u64());
      FERRY_GET(last_index, r.u64());
      m.append_entries_result = raft_append_entries_result{*term, *rejected, *last_index};
      return {};
    }
    case RAFT_IO_TIMEOUT_NOW: {
      FERRY_GET(term, r.u64());
      FERRY_GET(last_index, r.u64());
      FERRY_GET(last_term, r.u64());
      m.timeout_now = raft_timeout_now{*term, *last_index, *last_term};
      return {};
    }
    default:
      return Error(Errc::corrupt, fmt::format("raft message type {}", m.type));
  }
}

constexpr std::uint8_t kZeros[16] = {};

}  // namespace

Bytes entry_bytes(const raft_entry& e) {
  if (e.type == RAFT_BARRIER && e.buf.len <= sizeof kZeros) return Bytes(kZeros, e.buf.len);
  return Bytes(static_cast<const std::uint8_t*>(e.buf.base), e.buf.len);
}

Result<std::vector<std::uint8_t>> encode_raft_message(raft_id sender, const raft_message& m) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  w.u8(kVersion);
  w.u8(static_cast<std::uint8_t>(m.type));
  w.u64(sender);
  switch (m.type) {
    case RAFT_IO_REQUEST_VOTE: {
      const auto& v = m.request_vote;
      w.u64(v.term);
      w.u64(v.candidate_id);
      w.u64(v.last_log_index);
      w.u64(v.last_log_term);
      w.u8(v.disrupt_leader ? 1 : 0);
      w.u8(v.pre_vote ? 1 : 0);
      break;
    }
    case RAFT_IO_REQUEST_VOTE_RESULT: {
      const auto& v = m.request_vote_result;
      w.u64(v.term);
      w.u8(v.vote_granted ? 1 : 0);
      w.u8(static_cast<std::uint8_t>(v.pre_vote));
      break;
    }
    case RAFT_IO_APPEND_ENTRIES: {
      const auto& a = m.append_entries;
      if (a.n_entries > kRaftEntriesPerMessageMax) {
        return Error(Errc::invalid_argument, fmt::format("{} entries in one message", a.n_entries));
      }
      w.u64(a.term);
      w.u64(a.prev_log_index);
      w.u64(a.prev_log_term);
      w.u64(a.leader_commit);
      w.u32(a.n_entries);
      for (unsigned i = 0; i < a.n_entries; ++i) {
        const raft_entry& e = a.entries[i];
        w.u64(e.term);
        w.u16(e.type);
        w.u32(static_cast<std::uint32_t>(e.buf.len));
        w.bytes(entry_bytes(e));
        if (out.size() > kRaftMessageBytesMax) {
          return Error(Errc::invalid_argument, fmt::format("raft message over {} bytes", kRaftMessageBytesMax));
        }
      }
      break;
    }
    case RAFT_IO_APPEND_ENTRIES_RESULT: {
      const auto& a = m.append_entries_result;
      w.u64(a.term);
      w.u64(a.rejected);
      w.u64(a.last_log_index);
      break;
    }
    case RAFT_IO_TIMEOUT_NOW: {
      const auto& t = m.timeout_now;
      w.u64(t.term);
      w.u64(t.last_log_index);
      w.u64(t.last_log_term);
      break;
    }
    default:
      return Error(Errc::unsupported, fmt::format("raft message type {} is not carried", m.type));
  }
  return out;
}

Result<DecodedRaftMessage> decode_raft_message(Bytes data) {
  ByteReader r(data);
  FERRY_GET(version, r.u8());
  if (*version != kVersion) return Error(Errc::corrupt, fmt::format("raft message version {}", *version));
  FERRY_GET(type, r.u8());
  FERRY_GET(sender, r.u64());
  DecodedRaftMessage out;
  out.msg_.type = *type;
  out.msg_.server_id = *sender;
  out.msg_.server_address = nullptr;
  FERRY_TRY(get_body(r, out.msg_));
  out.owned_ = true;
  if (!r.at_end()) {
    return Error(Errc::corrupt, fmt::format("{} bytes after the raft message", r.remaining()));
  }
  return out;
}

DecodedRaftMessage::DecodedRaftMessage(DecodedRaftMessage&& other) noexcept
    : msg_(other.msg_), owned_(other.owned_) {
  other.owned_ = false;
}

DecodedRaftMessage& DecodedRaftMessage::operator=(DecodedRaftMessage&& other) noexcept {
  if (this != &other) {
    release();
    msg_ = other.msg_;
    owned_ = other.owned_;
    other.owned_ = false;
  }
  return *this;
}

void DecodedRaftMessage::release() {
  if (!owned_) return;
  owned_ = false;
  if (msg_.type == RAFT_IO_APPEND_ENTRIES && msg_.append_entries.entries != nullptr) {
    raft_free(msg_.append_entries.entries[0].batch);
    raft_free(msg_.append_entries.entries);
    msg_.append_entries.entries = nullptr;
  }
}

#undef FERRY_GET

}  // namespace ferry::controller
