//===- ScheduleProfile.cpp - Live bytes between a schedule's steps --------===//
//
// See ScheduleProfile.h.
//
//===----------------------------------------------------------------------===//

#include "ScheduleProfile.h"

#include <algorithm>

using namespace mlir::ckpt::remat;

detail::Profile
detail::profileOf(const Problem &problem,
                  const std::vector<int32_t> &computations) {
  Profile profile;
  profile.eval = evaluateSchedule(problem, Schedule{computations},
                                  EvaluationOptions{/*anyFirstOrder=*/true});
  if (!profile.eval.valid())
    return profile;
  const int64_t steps = static_cast<int64_t>(computations.size());
  std::vector<int64_t> freedAt(steps + 1, 0);
  for (int64_t step = 0; step < steps; ++step)
    freedAt[profile.eval.lastRead[step]] +=
        problem.nodes[computations[step]].bytes;
  profile.after.resize(steps);
  for (int64_t step = 0; step < steps; ++step) {
    const Node &node = problem.nodes[computations[step]];
    profile.after[step] =
        profile.eval.liveBytes[step] - node.workspace - freedAt[step];
  }
  return profile;
}

std::vector<int32_t>
detail::liveAfter(const std::vector<int32_t> &computations,
                  const Profile &profile, int64_t step) {
  std::vector<int32_t> live;
  for (int64_t u = 0; u <= step; ++u)
    if (profile.eval.lastRead[u] > step)
      live.push_back(computations[u]);
  std::sort(live.begin(), live.end());
  return live;
}
