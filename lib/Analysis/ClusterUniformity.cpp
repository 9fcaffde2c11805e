//===- ClusterUniformity.cpp - Values alike in a cluster ------------===//
//
// See ClusterUniformity.h for the rules.
//
//===----------------------------------------------------------------------===//

#include "kite/Analysis/ClusterUniformity.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::kite;

ClusterUniformity::ClusterUniformity(Operation *kernel,
                                     llvm::ArrayRef<int32_t> d)
    : kernel(kernel), dims{1, 1, 1} {
  for (size_t i = 0; i < d.size() && i < 3; ++i)
    dims[i] = d[i];
}

std::array<int32_t, 3> ClusterUniformity::clusterDimsOf(Operation *kernel) {
  std::array<int32_t, 3> out = {1, 1, 1};
  if (auto attr = kernel->getAttrOfType<DenseI32ArrayAttr>(
          KiteDialect::getClusterDimsAttrName()))
    for (int64_t i = 0; i < attr.size() && i < 3; ++i)
      out[i] = attr[i];
  return out;
}

bool ClusterUniformity::isUniform(Value v) {
  if (auto it = known.find(v); it != known.end())
    return it->second;
  // Values are defined before their uses outside loops' iteration
  // arguments (never uniform here), so the recursion ends; mark first in
  // case of a cycle through an op's regions.
  known[v] = false;
  bool uniform = compute(v);
  known[v] = uniform;
  return uniform;
}

bool ClusterUniformity::compute(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (owner == kernel)
      return arg.getOwner()->isEntryBlock(); // a kernel parameter
    if (auto loop = dyn_cast<scf::ForOp>(owner))
      return arg == loop.getInductionVar() && isUniform(loop.getLowerBound()) &&
             isUniform(loop.getUpperBound()) && isUniform(loop.getStep());
    return false;
  }
  Operation *def = v.getDefiningOp();
  if (auto pid = dyn_cast<ProgramIdOp>(def))
    return dims[pid.getAxis()] == 1;
  if (isa<NumProgramsOp>(def))
    return true;
  if (isa<arith::DivSIOp, arith::DivUIOp>(def)) {
    // program_id(a) / c with c a multiple of the cluster's width along a.
    APInt c;
    if (auto pid = def->getOperand(0).getDefiningOp<ProgramIdOp>();
        pid && matchPattern(def->getOperand(1), m_ConstantInt(&c)) &&
        c.getSExtValue() > 0 && c.getSExtValue() % dims[pid.getAxis()] == 0)
      return true;
  }
  if (def->getNumRegions() || !isMemoryEffectFree(def))
    return false;
  for (Value operand : def->getOperands())
    if (!isUniform(operand))
      return false;
  return true;
}

bool ClusterUniformity::uniformControl(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent != kernel;
       parent = parent->getParentOp()) {
    if (!parent)
      return false;
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      if (!isUniform(loop.getLowerBound()) ||
          !isUniform(loop.getUpperBound()) || !isUniform(loop.getStep()))
        return false;
      continue;
    }
    if (auto branch = dyn_cast<scf::IfOp>(parent)) {
      if (!isUniform(branch.getCondition()))
        return false;
      continue;
    }
    return false;
  }
  return true;
}
