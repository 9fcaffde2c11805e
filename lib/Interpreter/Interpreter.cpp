//===- Interpreter.cpp - Run kite-dialect kernels on the host ---------------===//
//
// A direct interpreter over the IR: every SSA value is a dense host array
// (a scalar is a 0-d one). Integers are kept sign-extended in int64 and
// wrapped to their width after every op; floats are doubles rounded to
// their type (f32 through float, f16 through _Float16, bf16 by bit
// rounding) after every op, which reproduces IEEE single-precision results
// for +, -, *, /, sqrt and fma exactly. Programs run one after another.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "kite/Support/Clusters.h"

namespace kite::interp::detail {

void Interpreter::runKernel(func::FuncOp kernel) {
  // Branches between blocks (cf.br / cf.cond_br) are not run: refuse them
  // rather than stop at the first branch and compute something else.
  if (!llvm::hasSingleElement(kernel.getBody()))
    fail(&kernel.getBody().front().back(),
         "the interpreter runs structured control flow only (scf.for, scf.if, "
         "scf.while); this kernel branches between blocks");
  Block &entry = kernel.getBody().front();
  unsigned gpuArg = 0;
  for (BlockArgument arg : entry.getArguments()) {
    if (gpuArg >= launch.args.size())
      throw Failure{"the kernel takes more arguments than were given"};
    const ::kite::interp::Value &v = launch.args[gpuArg++];
    Type t = arg.getType();
    auto a = std::make_shared<Array>();
    a->elem = t;
    if (isa<kd::PointerType>(t)) {
      a->kind = Kind::Ptr;
      a->iv = {v.i};
    } else if (isa<FloatType>(t)) {
      a->kind = Kind::Float;
      a->fv = {roundTo(v.isFloat ? v.f : double(v.i), t)};
    } else {
      a->kind = Kind::Int;
      a->iv = {wrap(v.isFloat ? int64_t(v.f) : v.i, t.getIntOrFloatBitWidth())};
    }
    params.push_back(a);
  }
  // A kernel in clusters launches whole clusters, as on the GPU.
  if (auto dims = kernel->getAttrOfType<DenseI32ArrayAttr>(
          kd::KiteDialect::getClusterDimsAttrName())) {
    uint32_t cluster[3] = {1, 1, 1};
    for (int i = 0; i < 3 && i < int(dims.size()); ++i)
      cluster[i] = uint32_t(dims[i]);
    if (std::string err =
            clusterGridError(launch.grid, cluster, kernel.getSymName().str());
        !err.empty())
      throw Failure{err};
  }
  countSteps(kernel, uint64_t(launch.grid[0]) * launch.grid[1] *
                        launch.grid[2],
             "programs (the grid)");
  for (uint32_t z = 0; z < launch.grid[2]; ++z)
    for (uint32_t y = 0; y < launch.grid[1]; ++y)
      for (uint32_t x = 0; x < launch.grid[0]; ++x) {
        pid[0] = x;
        pid[1] = y;
        pid[2] = z;
        values.clear();
        for (unsigned k = 0; k < entry.getNumArguments(); ++k)
          values[entry.getArgument(k)] = params[k];
        runBlock(entry);
      }
}

[[noreturn]] void Interpreter::fail(Operation *op, const std::string &msg) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto loc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
       << loc.getColumn() << ": ";
  os << "error: " << msg << " (in '" << op->getName() << "', program ("
     << pid[0] << ", " << pid[1] << ", " << pid[2] << "))";
  throw Failure{s};
}

ArrayRef_ Interpreter::get(mlir::Value v) {
  auto it = values.find(v);
  if (it != values.end())
    return it->second;
  // A block constant is made at its first use (the canonicalizer hoists
  // them all to the start of the kernel; made there, 300 of 1M elements
  // would all be alive at once), then lives to its last use (deadAfter).
  if (auto c = v.getDefiningOp<arith::ConstantOp>()) {
    constant(c);
    return values.at(v);
  }
  throw Failure{"internal error: value used before definition"};
}

ArrayRef_ Interpreter::make(Type type) {
  auto a = std::make_shared<Array>();
  if (auto r = dyn_cast<RankedTensorType>(type)) {
    a->shape.assign(r.getShape().begin(), r.getShape().end());
    a->elem = r.getElementType();
  } else {
    a->elem = type;
  }
  int64_t n = numElements(a->shape);
  if (isa<kd::PointerType>(a->elem)) {
    a->kind = Kind::Ptr;
    a->iv.assign(n, 0);
  } else if (isa<FloatType>(a->elem)) {
    a->kind = Kind::Float;
    a->fv.assign(n, 0);
  } else {
    a->kind = Kind::Int;
    a->iv.assign(n, 0);
  }
  return a;
}

unsigned Interpreter::widthOf(Type t) {
  if (isa<kd::PointerType>(t))
    return 64;
  if (isa<IndexType>(t))
    return 64;
  return t.getIntOrFloatBitWidth();
}

unsigned Interpreter::bytesOf(Type pointee) {
  return pointee.isInteger(1) ? 1 : std::max(1u, pointee.getIntOrFloatBitWidth() / 8);
}

const std::vector<SmallVector<mlir::Value, 2>> &
Interpreter::deadAfter(Block &block) {
  auto it = deadValues.find(&block);
  if (it != deadValues.end())
    return it->second;
  llvm::DenseMap<Operation *, unsigned> index;
  unsigned n = 0;
  for (Operation &op : block)
    index[&op] = n++;
  std::vector<SmallVector<mlir::Value, 2>> dead(n);
  // The op at which `v` dies: its last user in this block (the op of the
  // block a nested use is inside); `from` if it has none.
  auto place = [&](mlir::Value v, unsigned from) {
    unsigned last = from;
    for (Operation *user : v.getUsers())
      if (Operation *at = block.findAncestorOpInBlock(*user))
        last = std::max(last, index.lookup(at));
    if (n)
      dead[last].push_back(v);
  };
  for (BlockArgument arg : block.getArguments())
    place(arg, 0);
  for (Operation &op : block)
    for (mlir::Value r : op.getResults())
      place(r, index[&op]);
  return deadValues[&block] = std::move(dead);
}

SmallVector<ArrayRef_> Interpreter::runBlock(Block &block) {
  const std::vector<SmallVector<mlir::Value, 2>> &dead = deadAfter(block);
  unsigned at = 0;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (op.getNumSuccessors() > 0) // cf.br, cf.cond_br: not run here
        fail(&op, "the interpreter runs structured control flow only "
                  "(scf.for, scf.if, scf.while); this op branches between "
                  "blocks");
      SmallVector<ArrayRef_> out;
      for (mlir::Value v : op.getOperands())
        out.push_back(get(v));
      return out;
    }
    execute(&op);
    // What died with this op: freed now, not when the program ends.
    for (mlir::Value v : dead[at])
      values.erase(v);
    ++at;
  }
  return {};
}

void Interpreter::execute(Operation *op) {
  if (launch.maxWork) {
    uint64_t cost = 1;
    for (mlir::Value r : op->getResults())
      if (auto t = dyn_cast<RankedTensorType>(r.getType()))
        cost = std::max<uint64_t>(cost, uint64_t(t.getNumElements()));
    work += cost;
    if (work > launch.maxWork)
      fail(op, "the kernel ran past its work limit (" +
                   std::to_string(launch.maxWork) + " element operations)");
  }
  if (auto f = dyn_cast<scf::ForOp>(op))
    return forOp(f);
  if (auto i = dyn_cast<scf::IfOp>(op))
    return ifOp(i);
  if (auto w = dyn_cast<scf::WhileOp>(op))
    return whileOp(w);
  if (isa<kd::KiteDialect>(op->getDialect()))
    return kiteOp(op);
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (isa<RankedTensorType>(c.getType()))
      return; // made at its first use (get)
    return constant(c);
  }
  if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return elementwise(op);
  fail(op, "the interpreter does not support this operation");
}

void Interpreter::countSteps(Operation *op, uint64_t n, const char *what) {
  if (n > kMaxSteps || steps + n > kMaxSteps)
    fail(op, "the interpreter stops at 2^30 programs and loop iterations a "
             "launch; this asks for " +
                 std::to_string(n) + " more " + what +
                 " (run it on the GPU, or on a smaller problem)");
  steps += n;
}

void Interpreter::forOp(scf::ForOp loop) {
  int64_t lo = get(loop.getLowerBound())->iv[0];
  int64_t hi = get(loop.getUpperBound())->iv[0];
  int64_t step = get(loop.getStep())->iv[0];
  if (step <= 0)
    fail(loop, "scf.for with a non-positive step");
  if (hi > lo) // the trip count, without overflow
    countSteps(loop, (uint64_t(hi) - uint64_t(lo) - 1) / uint64_t(step) + 1,
               "loop iterations");
  SmallVector<ArrayRef_> carried;
  for (mlir::Value v : loop.getInitArgs())
    carried.push_back(get(v));
  Block &body = *loop.getBody();
  Type ivType = loop.getInductionVar().getType();
  for (int64_t i = lo; i < hi; i += step) {
    auto iv = make(ivType);
    iv->iv[0] = i;
    values[loop.getInductionVar()] = iv;
    for (unsigned k = 0; k < carried.size(); ++k)
      values[loop.getRegionIterArgs()[k]] = carried[k];
    carried = runBlock(body);
  }
  for (unsigned k = 0; k < carried.size(); ++k)
    values[loop.getResult(k)] = carried[k];
}

void Interpreter::whileOp(scf::WhileOp loop) {
  SmallVector<ArrayRef_> args;
  for (mlir::Value v : loop.getInits())
    args.push_back(get(v));
  Block &before = loop.getBefore().front(), &after = loop.getAfter().front();
  // A loop whose condition never turns false would hang the host.
  constexpr int64_t kMaxIterations = int64_t(1) << 24;
  for (int64_t n = 0;; ++n) {
    if (n == kMaxIterations)
      fail(loop, "while loop ran 2^24 iterations; stopped (does its "
                 "condition ever become false?)");
    for (unsigned k = 0; k < args.size(); ++k)
      values[before.getArgument(k)] = args[k];
    SmallVector<ArrayRef_> cond = runBlock(before);
    // scf.condition: the flag, then the values passed on.
    SmallVector<ArrayRef_> passed(cond.begin() + 1, cond.end());
    if (cond[0]->iv[0] == 0) {
      for (unsigned k = 0; k < loop.getNumResults(); ++k)
        values[loop.getResult(k)] = passed[k];
      return;
    }
    for (unsigned k = 0; k < passed.size(); ++k)
      values[after.getArgument(k)] = passed[k];
    args = runBlock(after);
  }
}

void Interpreter::ifOp(scf::IfOp op) {
  bool c = get(op.getCondition())->iv[0] != 0;
  Region &region = c ? op.getThenRegion() : op.getElseRegion();
  SmallVector<ArrayRef_> out;
  if (!region.empty())
    out = runBlock(region.front());
  for (unsigned k = 0; k < op.getNumResults(); ++k)
    values[op.getResult(k)] = out[k];
}

} // namespace kite::interp::detail

using namespace mlir;
using ::kite::interp::detail::Failure;
using ::kite::interp::detail::Interpreter;

std::string (::kite::interp::run)(func::FuncOp kernel, const Launch &launch) {
  try {
    Interpreter interp(launch);
    interp.runKernel(kernel);
    return "";
  } catch (Failure &f) {
    return f.message;
  }
}
