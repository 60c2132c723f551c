// The controller leader's decisions (RocketMQ 5's ReplicasInfoManager checks and
// DefaultElectPolicy): each reads the committed ReplicasInfo and the leader's view of which
// brokers are alive, and returns a Verdict: the reply code (0 or a CONTROLLER_* code) with a
// remark, and the event to commit, if any. Nothing here changes state; the event takes effect when
// the log applies it (replicas_info.h), so a verdict raced by another is fenced there.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "controller/liveness.h"
#include "controller/replicas_info.h"
#include "remoting/response_code.h"

namespace ferry::controller {

// Reply codes: remoting::response_code's SUCCESS and CONTROLLER_* (2000-2016).
namespace code = remoting::response_code;

struct Verdict {
  std::int32_t code = remoting::response_code::SUCCESS;
  std::string remark;
  std::optional<Event> event;  // to commit before replying (none: reply from the state as is)
};

// Who may become master of `set`, in DefaultElectPolicy's order: the alive members of the
// SyncStateSet, then (only with `allow_unclean`) any alive replica. Among them: the old master
// if alive and no one else is preferred; else `prefer` if given (alive, or nobody); else the
// highest epoch, then the highest max offset, then the lowest election priority, then the lowest
// id (RocketMQ leaves exact ties to a TreeSet; Ferry names the winner).
std::optional<ReplicaId> choose_master(const BrokerSet& set, const Liveness& alive,
                                       bool allow_unclean, std::optional<ReplicaId> prefer);

struct ElectRequest {
  std::string name;
  // The broker asking (a broker's own election), or kNoReplica when the controller elects
  // because the master died.
  ReplicaId requester = kNoReplica;
  bool designate = false;  // an operator names `requester` (mqadmin electMaster)
};
// CONTROLLER_ELECT_MASTER (1002). SUCCESS with an ElectMasterEvent naming the new master;
// MASTER_STILL_EXIST (2011) when the choice is the current master (no event);
// BROKER_NEED_TO_BE_REGISTERED (2010) for an unknown group; MASTER_NOT_AVAILABLE (2004) with an
// event recording "no master" when the controller elects and nobody qualifies (the epoch still
// grows, fencing the old master); ELECT_MASTER_FAILED (2012) when a broker or operator asked.
Verdict decide_elect(const ReplicasInfo& info, const ElectRequest& req, const Liveness& alive,
                     bool allow_unclean);

struct AlterRequest {
  std::string name;
  ReplicaId master = kNoReplica;
  Epoch master_epoch = 0;
  Epoch sync_state_set_epoch = 0;
  std::set<ReplicaId> new_set;
};
// CONTROLLER_ALTER_SYNC_STATE_SET (1001), checked in RocketMQ's order: unknown group or an
// unchanged set (2013), not the master (2002), stale masterEpoch (2000), stale
// syncStateSetEpoch (2001), an unknown member (2003), a member not alive (2006), a set without
// the master (2013).
Verdict decide_alter(const ReplicasInfo& info, const AlterRequest& req, const Liveness& alive);

// CONTROLLER_GET_NEXT_BROKER_ID (1012): the id a new replica of `name` should apply for.
ReplicaId next_replica_id(const ReplicasInfo& info, const std::string& name);

struct ApplyIdRequest {
  std::string cluster;
  std::string name;
  ReplicaId id = kNoReplica;
  std::string register_check_code;  // "<address>;<millis>"
};
// CONTROLLER_APPLY_BROKER_ID (1013): SUCCESS with the event when the id is free (or already this
// broker's: a retry); BROKER_ID_INVALID (2014) otherwise, or for a bad check code.
Verdict decide_apply_id(const ReplicasInfo& info, const ApplyIdRequest& req);

// CONTROLLER_REGISTER_BROKER (1003): BROKER_NEED_TO_BE_REGISTERED (2010) for an unknown group or
// id; SUCCESS, with an address update event when the broker moved.
Verdict decide_register(const ReplicasInfo& info, const std::string& name, ReplicaId id,
                        const std::string& address);

struct CleanRequest {
  std::string name;
  std::string ids;  // "1;2;3", empty for the whole group
  bool clean_living = false;
};
// CLEAN_BROKER_DATA (1011): INVALID_CLEAN_BROKER_METADATA (2009) for an unknown group, an id that
// is not a number, an alive replica (unless clean_living), or the whole group while it has a master.
Verdict decide_clean(const ReplicasInfo& info, const CleanRequest& req, const Liveness& alive);

}  // namespace ferry::controller
