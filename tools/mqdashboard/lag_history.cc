#include "tools/mqdashboard/lag_history.h"

namespace ferry::dashboard {

void LagHistory::record(const std::string& group, LagPoint point) {
  auto it = table_.find(group);
  if (it == table_.end()) {
    if (table_.size() >= groups_max_) {
      ++groups_dropped_;
      return;
    }
    it = table_.emplace(group, std::deque<LagPoint>()).first;
  }
  it->second.push_back(point);
  while (it->second.size() > points_max_) it->second.pop_front();
}

std::vector<LagPoint> LagHistory::points(const std::string& group) const {
  auto it = table_.find(group);
  if (it == table_.end()) return {};
  return std::vector<LagPoint>(it->second.begin(), it->second.end());
}

}  // namespace ferry::dashboard
