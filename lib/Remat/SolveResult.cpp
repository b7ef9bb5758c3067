//===- SolveResult.cpp - Names of statuses and engines --------------------===//

#include "ckpt/Remat/SolveResult.h"

#include <cstdio>

using namespace mlir::ckpt::remat;

const char *mlir::ckpt::remat::statusName(SolveResult::Status status) {
  switch (status) {
  case SolveResult::Status::Optimal:
    return "optimal";
  case SolveResult::Status::Feasible:
    return "feasible";
  case SolveResult::Status::Infeasible:
    return "infeasible";
  case SolveResult::Status::Unknown:
    return "unknown";
  }
  return "unknown";
}

const char *mlir::ckpt::remat::engineName(Engine engine) {
  switch (engine) {
  case Engine::None:
    return "";
  case Engine::Bound:
    return "bound";
  case Engine::Exhaustive:
    return "exhaustive";
  case Engine::SegmentChain:
    return "segment-chain";
  case Engine::Baseline:
    return "baseline";
  case Engine::Greedy:
    return "greedy";
  case Engine::Generic:
    return "generic";
  case Engine::Milp:
    return "milp";
  case Engine::CostRepair:
    return "cost-repair";
  }
  return "";
}

std::string
mlir::ckpt::remat::formatEngineSeconds(const std::vector<EngineTime> &times) {
  std::string text;
  for (const EngineTime &time : times) {
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), "%s%s:%.3f", text.empty() ? "" : ",",
                  engineName(time.engine), time.seconds);
    text += buffer;
  }
  return text;
}
